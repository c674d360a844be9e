# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""torch-cuda: banned torch.cuda APIs through every alias, with hints; what is not banned."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from policytool.rules.torch_cuda import DEFAULT_BANNED
from tests.conftest import Repo, Result

Run = Callable[..., Result]


@pytest.fixture
def repo(repo: Repo) -> Repo:
    """The shared repo, with the rule turned on (it is off until its table is written)."""
    repo.write("pyproject.toml", "[tool.policytool.torch-cuda]\n")
    return repo


def test_off_until_configured(repo: Repo, run: Run) -> None:
    """vLLM's own allowed vllm/platforms/* gave 17 findings with nothing configured."""
    repo.write("pyproject.toml", '[project]\nname = "demo"\n')
    repo.write("vllm/platforms/cuda.py", "import torch\ntorch.cuda.synchronize()\n")
    repo.commit()
    assert run("check").code == 0
    assert run("check", "--only", "torch-cuda").code == 0
    repo.write("pyproject.toml", "[tool.policytool.torch-cuda]\n")
    assert positions(run) == [(2, 1)]


def findings(run: Run, *args: str) -> list[tuple[str, int, int, str, str]]:
    """(path, line, col, rule, message) of a JSON torch-cuda run."""
    result = run("check", "--only", "torch-cuda", "--format", "json", *args)
    assert result.code in (0, 1), result.err
    return [
        (f["path"], f["line"], f["col"], f["rule"], f["message"]) for f in json.loads(result.out)
    ]


def positions(run: Run, *args: str) -> list[tuple[int, int]]:
    """(line, col) of each torch-cuda finding."""
    return [(line, col) for _p, line, col, rule, _m in findings(run, *args) if rule == "torch-cuda"]


CAUGHT = [
    ("import torch\ntorch.cuda.synchronize()\n", [(2, 1)]),
    ("import torch\nx = torch.cuda.empty_cache\n", [(2, 5)]),
    ("import torch as t\nt.cuda.device_count()\n", [(2, 1)]),
    ("import torch.cuda\ntorch.cuda.current_device()\n", [(2, 1)]),
    ("import torch.cuda as tc\nn = tc.memory_allocated(0)\n", [(2, 5)]),
    ("from torch import cuda\ncuda.set_device(1)\n", [(2, 1)]),
    ("from torch import cuda as c\nc.mem_get_info()\n", [(2, 1)]),
    ("from torch.cuda import synchronize\nsynchronize()\n", [(2, 1)]),
    (
        "from torch.cuda import (\n    is_available,\n    manual_seed as seed,\n)\n"
        "seed(0)\nis_available()\n",
        [(5, 1)],
    ),
    ("from torch.cuda import *\nempty_cache()\n", [(2, 1)]),
    ("import torch\nwith torch.cuda.device(0):\n    pass\n", [(2, 6)]),
    ("import torch\ndef f():\n    if x:\n        torch.cuda.manual_seed_all(1)\n", [(4, 9)]),
    ("import torch\ny = (torch.cuda\n     .max_memory_reserved())\n", [(2, 6)]),
    ("import torch\nprint(torch . cuda . reset_peak_memory_stats())\n", [(2, 7)]),
    ("def f():\n    import torch as tt\n    return tt.cuda.memory_stats()\n", [(3, 12)]),
    (
        "import torch\n\n\n\na = torch.cuda.max_memory_allocated(); torch.cuda.memory_reserved()\n",
        [(5, 5), (5, 40)],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), CAUGHT, ids=[c[0].splitlines()[-1][:40] for c in CAUGHT]
)
def test_every_alias_form_is_caught(
    repo: Repo, run: Run, source: str, expected: list[tuple[int, int]]
) -> None:
    repo.write("mod.py", source)
    assert positions(run, "mod.py") == expected


NOT_CAUGHT = [
    "import torch\ntorch.cuda.is_available()\ns = torch.cuda.Stream()\n"
    "torch.cuda.get_device_name(0)\n",
    "import torch\n# torch.cuda.synchronize()\n",
    "import torch\ns = 'torch.cuda.synchronize()'\n",
    'import torch\n"""\ntorch.cuda.empty_cache()\n"""\n',
    "import torch\ntorch.accelerator.synchronize()\n",
    "import torch\ndef f(device: torch.cuda.device) -> None: ...\n",
    "import torch\nself.torch.cuda.synchronize()\n",
    "def synchronize():\n    pass\nsynchronize()\n",
    "from torch.cuda import synchronize\nobj.synchronize()\ndef synchronize_all(): ...\n",
    "import numpy as np\nnp.cuda.synchronize()\n",
    "import torch\ntorch.cuda.memory.some_helper()\n",
]


@pytest.mark.parametrize("source", NOT_CAUGHT, ids=[str(i) for i in range(len(NOT_CAUGHT))])
def test_allowed_apis_comments_strings_and_lookalikes_are_not_caught(
    repo: Repo, run: Run, source: str
) -> None:
    repo.write("mod.py", source)
    assert positions(run, "mod.py") == []


def test_each_default_api_has_a_hint_in_the_message(repo: Repo, run: Run) -> None:
    lines = ["import torch"] + [f"torch.cuda.{api}()" for api in DEFAULT_BANNED]
    repo.write("mod.py", "\n".join(lines) + "\n")
    found = findings(run, "mod.py")
    assert len(found) == len(DEFAULT_BANNED)
    for (_p, line, _c, _r, message), (api, hint) in zip(found, DEFAULT_BANNED.items(), strict=True):
        assert line == 2 + list(DEFAULT_BANNED).index(api)
        assert (
            message
            == f"`torch.cuda.{api}` is a banned torch.cuda API (torch.cuda.{api}); use {hint}"
        )
    assert "torch.accelerator.current_device_index()" in DEFAULT_BANNED["current_device"]


def test_configured_set_replaces_the_default(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        "[tool.policytool.torch-cuda]\n"
        'banned = { is_available = "current_platform.is_available()" }\n',
    )
    repo.write("mod.py", "import torch\ntorch.cuda.empty_cache()\ntorch.cuda.is_available()\n")
    found = findings(run, "mod.py")
    assert [(line, m) for _p, line, _c, _r, m in found] == [
        (
            3,
            "`torch.cuda.is_available` is a banned torch.cuda API (torch.cuda.is_available); "
            "use current_platform.is_available()",
        )
    ]


def test_allow_globs_and_allowlist_file(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        "[tool.policytool.torch-cuda]\n"
        'allow = ["./platforms/**"]\nallowlist-file = "cuda_allow.txt"\n',
    )
    repo.write("cuda_allow.txt", "# legacy\nworker/old.py  # until the port\n")
    body = "import torch\ntorch.cuda.synchronize()\n"
    for name in ("platforms/cuda.py", "worker/old.py", "worker/new.py"):
        repo.write(name, body)
    repo.commit()
    assert [p for p, *_ in findings(run)] == ["worker/new.py"]
    assert [
        p for p, *_ in findings(run, str(repo.root / "worker" / "old.py"), "./platforms/cuda.py")
    ] == []


def test_syntax_error_in_an_import_is_a_finding(repo: Repo, run: Run) -> None:
    repo.write("bad.py", "from torch.cuda import (synchronize,\nsynchronize()\n")
    repo.write("good.py", "import torch\ntorch.cuda.synchronize()\n")
    result = run("check", "--only", "torch-cuda", "--format", "json", "bad.py", "good.py")
    got = [(f["path"], f["rule"]) for f in json.loads(result.out)]
    assert got == [("bad.py", "syntax-error"), ("good.py", "torch-cuda")]


@pytest.mark.parametrize(
    ("source", "reported"),
    [
        ("import torch\nfrom torch import (cuda,\nx = cuda.synchronize()\n", True),
        ("import torch as t\nfrom torch import (nn,\nx = 'cuda'\n", True),
        # Not a torch import, even though it names cuda: the rule never reads it.
        ("from numba import (cuda,\nx = 1\n", False),
        # No `cuda.<api>` anywhere, so only imports naming cuda are read; this broken
        # one can bind no torch.cuda name.
        ("import torch as\nx = 'cuda'\n", False),
    ],
    ids=["cuda-import", "torch-import-open-bracket", "numba", "no-cuda-use"],
)
def test_syntax_error_only_where_a_statement_can_matter(
    repo: Repo, run: Run, source: str, reported: bool
) -> None:
    repo.write("bad.py", source)
    found = findings(run, "bad.py")
    assert [rule for _p, _l, _c, rule, _m in found] == (["syntax-error"] if reported else [])


def test_non_utf8_file_is_reported(repo: Repo, run: Run) -> None:
    repo.write("bad.py", b"import torch\ntorch.cuda.synchronize()  # \xff\n")
    result = run("check", "--only", "torch-cuda", "--format", "json", "bad.py")
    assert [(f["path"], f["rule"]) for f in json.loads(result.out)] == [("bad.py", "undecodable")]


def test_both_rules_share_one_pass_and_report_together(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        "[tool.policytool.torch-cuda]\n[[tool.policytool.forbidden-import]]\n"
        'modules = ["torch.cuda"]\nreason = "use torch.accelerator"\n',
    )
    repo.write("mod.py", "from torch import cuda\ncuda.synchronize()\n")
    result = run("check", "--only", "forbidden-import,torch-cuda", "--format", "json", "mod.py")
    got = [(f["line"], f["col"], f["rule"]) for f in json.loads(result.out)]
    assert got == [(1, 19, "forbidden-import"), (2, 1, "torch-cuda")]
