# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The causes of the unseen corpus' misses (bench/sweep_unseen.json, consumed), fixed:
a dotted third-party class under a ``None`` default and a bool default under ``int``
(any-annotation ✗), a broad catch around the import a patch function patches and a
swallow in a private helper only fail-fast code calls (broad-except ✗), and a clone in
vLLM's run-once post-load hook (hot-copy: not a hot path)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.conftest import Repo, Result

Run = Callable[..., Result]


@pytest.fixture
def feature(repo: Repo) -> Repo:
    """main with one file; the feature branch checked out."""
    repo.write("README.md", "x\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    return repo


def findings(run: Run, rule: str) -> list[tuple[int, str, str]]:
    """(line, severity, message) of each finding of ``rule``."""
    result = run("sweep", "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    return sorted(
        (f["line"], f["severity"], f["message"])
        for f in json.loads(result.out)
        if f["rule"] == rule
    )


def errors(run: Run, rule: str) -> dict[int, str]:
    """Line -> message of each ✗ of ``rule``."""
    return {line: m for line, sev, m in findings(run, rule) if sev == "error"}


# -- any-annotation: a dotted class name that cannot hold None ---------------------------

DOTTED = """\
import numpy.typing as npt
import ray
import ray.actor
import typing
from ray import actor

import pkg.local


class Adapter:
    def __init__(self) -> None:
        self.server_handle: ray.actor.ActorHandle = None
        self.other: actor.ActorHandle = None
        self.dtype: npt.DTypeLike = None
        self.hashable: typing.Hashable = None
        self.alias: pkg.local.MaybeModel = None
        self.tvar: pkg.local.ModelT = None
        self.kind: ray.actor.HandleType = None
        self.const: ray.actor.DEFAULT = None
        self.defined: pkg.local.Engine = None
        self.reexported: pkg.local.Imported = None
        self.bound: pkg.local.Bound = None
        self.fine: ray.actor.ActorHandle | None = None
        self.inner: self.Inner = None
"""
LOCAL = """\
from pkg.other import Imported

Bound = Imported | None


class Engine:
    pass
"""


def test_a_dotted_class_of_a_module_off_the_path_cannot_hold_none(feature: Repo, run: Run) -> None:
    # verl e9405d7: ``self.server_handle: ray.actor.ActorHandle = None`` (ray is not
    # installed where the sweep runs): a class by its dotted CamelCase name.
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/local.py", LOCAL)
    feature.write("pkg/other.py", "class Imported:\n    pass\n")
    feature.write("pkg/adapter.py", DOTTED)
    feature.commit("add")
    found = errors(run, "any-annotation")
    assert sorted(m.split(":", 1)[0] for m in found.values()) == [
        "`self.defined",
        "`self.other",
        "`self.server_handle",
    ]
    assert found[12] == (
        "`self.server_handle: ray.actor.ActorHandle = None` (line 12): "
        "`ray.actor.ActorHandle` does not admit None; annotate "
        "`self.server_handle: ray.actor.ActorHandle | None`"
    )


def test_a_dotted_parameter_default_and_a_string_annotation(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/use.py",
        "import cutlass\nimport torch\nimport torch.distributed as dist\n\n\n"
        "def f(\n    group: dist.ProcessGroup = None,\n    g: 'dist.ProcessGroup' = None,\n"
        "    h: dist.ProcessGroupLike = None,\n    i: torch.types.Device = None,\n"
        "    j: cutlass.Constexpr = None,\n) -> None:\n    pass\n",
    )
    feature.commit("add")
    assert sorted(m.split(":", 1)[0] for m in errors(run, "any-annotation").values()) == [
        "`g",
        "`group",
    ]


# -- any-annotation: a bool default under a number annotation ----------------------------

BOOL_DEFAULT = """\
from dataclasses import dataclass, field


def load_checkpoint(
    path: str,
    del_local_after_load: int = True,
    *,
    ratio: float = False,
    count: int = 0,
    flag: bool = True,
    maybe: int | None = True,
) -> None:
    pass


def silenced(a: int = True) -> None:  # type: ignore[assignment]
    pass


@dataclass
class Args:
    verbose: int = False
    level: int = field(default=True)
    steps: int = 3
"""


def test_a_bool_default_under_int_says_annotate_bool(feature: Repo, run: Run) -> None:
    # verl b53f0f1: ``del_local_after_load: int = True``.
    feature.write("pkg/ckpt.py", BOOL_DEFAULT)
    feature.commit("add")
    found = errors(run, "any-annotation")
    assert sorted(m.split(":", 1)[0] for m in found.values()) == [
        "`del_local_after_load",
        "`level",
        "`ratio",
        "`verbose",
    ]
    assert found[6].startswith(
        "`del_local_after_load: int = True` (line 6): annotated int, its default is a bool: "
        "annotate `del_local_after_load: bool`"
    )


def test_a_bool_default_on_an_old_line_is_not_new(feature: Repo, run: Run) -> None:
    feature.write("pkg/old.py", "def f(a: int = True) -> None:\n    pass\n")
    feature.commit("old")
    feature.git("checkout", "-q", "main")
    feature.git("merge", "-q", "feature")
    feature.git("checkout", "-q", "-b", "next")
    feature.write("pkg/old.py", "def f(a: int = True) -> None:\n    pass\n\n\nX = 1\n")
    feature.commit("edit")
    assert errors(run, "any-annotation") == {}


# -- hot-copy: a run-once post-load hook ------------------------------------------------

POST_LOAD = """\
def process_weights_after_loading(self, layer):
    for expert in layer.experts:
        self.w.append(expert.clone())


def _post_load_hook(self, layer):
    for expert in layer.experts:
        self.w.append(expert.clone())


def merge(self, layer):
    for expert in layer.experts:
        self.w.append(expert.clone())
"""


def test_a_clone_in_the_post_load_hook_runs_once(feature: Repo, run: Run) -> None:
    # vllm-ascend 8548ed2: a clone per expert in ``process_weights_after_loading``.
    feature.write("pkg/quant.py", POST_LOAD)
    feature.commit("add")
    assert [(line, sev) for line, sev, _m in findings(run, "hot-copy")] == [(13, "warning")]
