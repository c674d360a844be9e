# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a test fake found by the parameter it is passed to *by keyword*
(``verifier(q=fake)``: the annotation of ``q`` where the callee is defined, as for a fake
passed positionally), for a fake made of tensor attributes passed where the code under
test declares ``torch.Tensor`` (torch ships typed stubs: a meta tensor is the real
thing), and for the record classes of a package under a folder no package can be named
after (``mooncake-wheel/mooncake/``: a module root, as the tests' ``sys.path`` makes it)."""

from __future__ import annotations

import os

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

VERIFIER = """\
import torch
from torch import Tensor


class Backend:
    def verify(self, q: torch.Tensor, k: Tensor | None = None, scale: float = 1.0) -> bool:
        return q.ndim == 4

    def plain(self, q, scale: float = 1.0) -> bool:
        return q.ndim == 4
"""


def _test(body: str) -> str:
    return (
        "from types import SimpleNamespace\n\nimport torch\n\n"
        "import pkg.backend as backend_module\n\n\n"
        "def test_verify() -> None:\n" + body
    )


def test_a_tensor_fake_passed_by_keyword_to_a_tensor_parameter(feature: Repo, run: Run) -> None:
    """flash-linear-attention's ``chunk_rwkv6_fwd_intra_verifier(q=q, k=k, ...)`` with
    ``q = SimpleNamespace(dtype=..., is_cuda=..., shape=..., ndim=...)``: ✗ naming
    ``torch.Tensor`` and the annotation that says so (also ``Tensor`` imported from torch,
    in an ``X | None``)."""
    feature.write("pkg/backend.py", VERIFIER)
    feature.write(
        "tests/test_backend.py",
        _test(
            "    q = SimpleNamespace(dtype=torch.bfloat16, is_cuda=True, shape=(1, 2), ndim=4)\n"  # 9
            "    k = SimpleNamespace(dtype=torch.bfloat16, shape=q.shape)\n"  # 10
            "    assert backend_module.Backend().verify(q=q, k=k, scale=1.0)\n"
        ),
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(9, "error"), (10, "error")]
    assert "stands in for `torch.Tensor`" in rows[0][3]
    assert (
        "the parameter `q` of `verify` it is passed to: `q: torch.Tensor` in pkg/backend.py"
        in (rows[0][3])
    )
    assert "`k: Tensor | None` in pkg/backend.py" in rows[1][3]


def test_a_tensor_fake_passed_positionally_is_found_too(feature: Repo, run: Run) -> None:
    feature.write("pkg/backend.py", VERIFIER)
    feature.write(
        "tests/test_backend.py",
        _test(
            "    q = SimpleNamespace(dtype=torch.bfloat16, shape=(1, 2))\n"  # 9
            "    assert backend_module.Backend().verify(q)\n"
        ),
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(9, "error")]
    assert "the parameter `q` of `verify` it is passed to: `q: torch.Tensor`" in rows[0][3]


def test_what_is_no_tensor_fake_stays_a_warning(feature: Repo, run: Run) -> None:
    """A keyword no tensor has (``block_size``), an unannotated parameter, a ``float``
    parameter, and a ``Tensor`` of another library: ⚠ (the tensor attributes are the
    evidence, with the annotation)."""
    feature.write("pkg/backend.py", VERIFIER)
    feature.write(
        "pkg/other.py",
        "from otherlib import Tensor\n\n\ndef check(q: Tensor) -> bool:\n    return q.ndim == 4\n",
    )
    feature.write(
        "tests/test_backend.py",
        "from types import SimpleNamespace\n\n"
        "import pkg.backend as backend_module\nfrom pkg.other import check\n\n\n"
        "def test_verify() -> None:\n"
        "    a = SimpleNamespace(shape=(1, 2), block_size=4)\n"  # 8: not a tensor's
        "    b = SimpleNamespace(shape=(1, 2))\n"  # 9: unannotated parameter
        "    c = SimpleNamespace(shape=(1, 2))\n"  # 10: a float parameter
        "    d = SimpleNamespace(shape=(1, 2))\n"  # 11: otherlib's Tensor
        "    backend_module.Backend().verify(q=a)\n"
        "    backend_module.Backend().plain(q=b)\n"
        "    backend_module.Backend().verify(q=None, scale=c)\n"
        "    check(q=d)\n",
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [
        (8, "warning"),
        (9, "warning"),
        (10, "warning"),
        (11, "warning"),
    ]


def test_a_record_fake_passed_by_keyword_names_the_annotated_class(feature: Repo, run: Run) -> None:
    """Not only tensors: ``run(options=fake)`` where ``run`` annotates
    ``options: RunOptions``, a dataclass of the tree whose fields the fake sets, though
    neither the keyword nor the variable is named like the class."""
    feature.write(
        "pkg/runner.py",
        "from dataclasses import dataclass\n\n\n@dataclass\nclass RunOptions:\n"
        "    steps: int\n    seed: int\n\n\n"
        "def run(options: RunOptions) -> int:\n    return options.steps\n",
    )
    feature.write(
        "tests/test_runner.py",
        "from types import SimpleNamespace\n\nfrom pkg.runner import run\n\n\n"
        "def test_run() -> None:\n"
        "    opts = SimpleNamespace(steps=2, seed=0)\n"  # 7
        "    assert run(options=opts) == 2\n",
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(7, "error")]
    assert "stands in for `RunOptions`" in rows[0][3]


MESH = """\
from dataclasses import dataclass
from typing import Any

Config = Any


@dataclass
class Mesh:
    shape: dict
    devices: list


class AttentionOp:
    def __init__(self, config: Config, mesh: Mesh, heads: int = 1) -> None:
        self.mesh = mesh
"""


def test_a_fake_written_as_a_keyword_argument_names_the_parameter_class(
    feature: Repo, run: Run
) -> None:
    """maxtext: ``AttentionOp(config=config, mesh=SimpleNamespace(shape={}))``, the fake
    written in the call: the annotation of ``mesh`` where ``AttentionOp`` is defined
    names ``Mesh`` (✗), as for a fake held by a name first. A keyword whose parameter is
    ``Any`` (an alias) or which the callee lacks names nothing (⚠)."""
    feature.write("pkg/attention.py", MESH)
    feature.write(
        "tests/test_attention.py",
        "from types import SimpleNamespace\n\nfrom pkg.attention import AttentionOp\n\n\n"
        "def test_op() -> None:\n"
        "    op = AttentionOp(\n"
        "        config=SimpleNamespace(causal_block_size=4),\n"  # 8
        "        mesh=SimpleNamespace(shape={'context': 2}),\n"  # 9
        "    )\n"
        "    assert op.mesh.shape\n"
        "    assert AttentionOp(None, None, grid=SimpleNamespace(shape={}))\n",  # 12
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(8, "warning"), (9, "error"), (12, "warning")]
    assert "stands in for `Mesh`" in rows[1][3]
    assert "the parameter `mesh` of `AttentionOp` it is passed to: `mesh: Mesh`" in rows[1][3]


MOONCAKE_CONFIG = """\
from dataclasses import dataclass


@dataclass
class StoreConfig:
    local_hostname: str
    metadata_server: str
    global_segment_size: int
    protocol: str = "tcp"
"""

SERVICE = """\
from store.store_config import StoreConfig


class StoreService:
    def __init__(self) -> None:
        self.config: StoreConfig | None = None
"""

SERVICE_TEST = """\
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from store.service import StoreService


def test_service() -> None:
    service = StoreService.__new__(StoreService)
    service.config = SimpleNamespace(
        local_hostname="localhost",
        metadata_server="P2PHANDSHAKE",
        global_segment_size=1,
        protocol="tcp",
    )
"""


def test_a_package_under_a_folder_no_package_can_be_named_after(feature: Repo, run: Run) -> None:
    """Mooncake: ``mooncake-wheel/mooncake/`` with its tests in ``mooncake-wheel/tests/``
    (which put ``mooncake-wheel`` on ``sys.path``): the fake of the ``@dataclass`` there is
    ✗ naming it, found where the test imports it from."""
    feature.write("store-wheel/store/__init__.py", "")
    feature.write("store-wheel/store/store_config.py", MOONCAKE_CONFIG)
    feature.write("store-wheel/store/service.py", SERVICE)
    feature.write("store-wheel/tests/test_service.py", SERVICE_TEST)
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(12, "error")]
    assert "stands in for `StoreConfig` (store-wheel/store/store_config.py;" in rows[0][3]


def test_a_symlinked_folder_is_no_module_root(feature: Repo, run: Run) -> None:
    """The same package reached only through ``store-wheel``, a symlink to a folder
    outside the repository: nothing is read through the link, so the fake stays ⚠."""
    outside = feature.root.parent / "outside"
    for relpath, text in (
        ("store/__init__.py", ""),
        ("store/store_config.py", MOONCAKE_CONFIG),
        ("store/service.py", SERVICE),
    ):
        (outside / relpath).parent.mkdir(parents=True, exist_ok=True)
        (outside / relpath).write_text(text)
    os.symlink(outside, feature.root / "store-wheel")
    feature.write("tests/test_service.py", SERVICE_TEST)
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(12, "warning")]
