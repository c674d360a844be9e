# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup, round M: the dropped-keys ✗ of an old ``**kwargs`` signature goes to a
read of a key the change adds to the code base; a read of an existing option (a sibling
implementation of the same interface read it from kwargs before the change) is one more
copy of the backlog, ⚠, as a key the changed file read before already was."""

from __future__ import annotations

from functools import partial

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

SIBLING = (
    "class VLLMModel:\n"
    "    def __init__(self, model_dir, **kwargs):\n"
    "        self.draft = kwargs.get('draft_model_dir')\n"
    "        self.model_dir = model_dir\n"
)
OLD = "class SGLangModel:\n    def __init__(self, model_dir, **kwargs):\n        self.model_dir = model_dir\n"

rows = partial(found, rule="kwargs-lookup")


@pytest.fixture
def base(repo: Repo) -> Repo:
    """A sibling wrapper reading ``draft_model_dir`` from kwargs; one that does not yet."""
    repo.write("pkg/vllm_model.py", SIBLING)
    repo.write("pkg/sglang_model.py", OLD)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    return repo


def test_an_existing_option_read_in_an_old_init_stays_a_warning(base: Repo, run: Run) -> None:
    # Model-Optimizer 80c5491d specdec_bench/models/sglang.py:53: `kwargs.get(
    # "draft_model_dir")` added to the old `SGLANGModel.__init__(..., **kwargs)`; the
    # trtllm and vllm wrappers read the key before the change (⚠). Kept ✗: a key no base
    # file read, added to the same old `__init__` that never passes the dict on
    # (production-stack e0c1a2ea routing_logic.py:695).
    base.write(
        "pkg/sglang_model.py",
        OLD
        + "        self.draft = kwargs.get('draft_model_dir')\n"
        + "        self.port = kwargs.get('reply_port')\n",
    )
    base.commit("read the draft model and a new key")
    assert [(p, line, sev) for p, line, sev, _m in rows(run)] == [
        ("pkg/sglang_model.py", 4, "warning"),
        ("pkg/sglang_model.py", 5, "error"),
    ]
    assert (
        "not a new key: pkg/vllm_model.py read it from kwargs before the change"
        in (rows(run)[0][3])
    )
