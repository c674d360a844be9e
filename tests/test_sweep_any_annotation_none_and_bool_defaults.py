# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for defaults an annotation cannot hold: a dotted third-party class (or a
class of a module off the path) under a ``None`` default is ✗ only when the name surely
cannot hold ``None``, and a bool default under ``int`` says to annotate ``bool``; a
default on an old line is not new."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytool.rules._pysource import SourceInfo
from policytool.rules._sweep_config import SweepConfig
from policytool.rules._wrong_annotation import _types
from tests.conftest import Repo
from tests.sweep_fixture import Run, errors, land_on_main

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
        "    j: cutlass.Constexpr = None,\n) -> None:\n"
        "    if group is None or g is None or h is None or i is None or j is None:\n"
        "        return\n",
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


@pytest.mark.parametrize(
    "text",
    [
        "def f(a: int = True) -> None:\n    pass\n",
        'import torch\n\n\ndef f(d: torch.dtype = "auto") -> None:\n    pass\n',
        "def f() -> [str, str]:\n    return 'a', 'b'\n",
        "from typing import Optional\n\n\ndef f(x=Optional[int]):\n    return x\n",
    ],
    ids=["bool-under-int", "str-under-dtype", "display-annotation", "type-as-default"],
)
def test_a_wrong_annotation_on_an_old_line_is_not_new(feature: Repo, run: Run, text: str) -> None:
    feature.write("pkg/old.py", text)
    land_on_main(feature)
    feature.write("pkg/old.py", text + "\n\nX = 1\n")
    feature.commit("edit")
    assert errors(run, "any-annotation") == {}


# -- property: the None verdict of a dotted name ----------------------------------------

DOTTED_NEVER = ["ray.actor.ActorHandle", "rt.util.Queue", "torch.cuda.Stream", "int"]
DOTTED_UNSURE = [
    "npt.DTypeLike",
    "torch.types.Device",
    "ray.actor.HandleType",
    "ray.MaybeHandle",
    "ray.ModelT",
    "ray.DEFAULT",
    "cutlass.Constexpr",
    "typing.Hashable",
    "self_module.Inner",
]


@st.composite
def dotted_cases(draw: st.DrawFn) -> tuple[str, bool | None]:
    """A union of dotted names and whether it admits None (None: unsure)."""
    members = draw(
        st.lists(st.sampled_from([*DOTTED_NEVER, *DOTTED_UNSURE, "None"]), min_size=1, max_size=3)
    )
    text = " | ".join(members)
    if "None" in members:
        return text, True
    if any(m in DOTTED_UNSURE for m in members):
        return text, None
    return text, False


@given(dotted_cases())
@settings(max_examples=200, deadline=None)
def test_a_dotted_name_admits_none_only_when_sure(case: tuple[str, bool | None]) -> None:
    text, expected = case
    module = (
        "import cutlass\nimport numpy.typing as npt\nimport ray\nimport ray.util as rt\n"
        "import torch\nimport typing\n\n\nclass self_module:\n    Inner = None\n\n\n"
        f"x: {text} = None\n"
    )
    tree = ast.parse(module)
    src = SourceInfo("m.py", module.encode(), tree, None, SweepConfig())
    node = tree.body[-1]
    assert isinstance(node, ast.AnnAssign)
    assert _types(src).admits_none(node.annotation) is expected


# -- any-annotation: a literal default of a kind the annotation cannot hold ---------------

LITERAL_DEFAULT = """\
from dataclasses import dataclass
from typing import Literal, Optional, Union

import torch


class Plain:
    pass


def load(
    path: str,
    torch_dtype: Optional[torch.dtype] = "auto",
    device: torch.device = "cuda",
    maybe_device: Optional[torch.device] = "cpu",
    either: Union[torch.dtype, str] = "auto",
    mode: Literal["a", "b"] = "a",
    plain: Plain = "x",
    count: int = 1.5,
    ratio: float = 1,
    name: str = b"raw",
) -> None:
    pass


def silenced(torch_dtype: torch.dtype = "auto") -> None:  # type: ignore[assignment]
    pass


@dataclass
class Args:
    dtype: "torch.dtype" = "bf16"
    steps: int = 3
"""


def test_a_literal_default_the_annotation_cannot_hold_is_wrong(feature: Repo, run: Run) -> None:
    # Export-Deploy 0d8d86b: ``torch_dtype: Optional[torch.dtype] = "auto"``.
    feature.write("pkg/load.py", LITERAL_DEFAULT)
    feature.commit("add")
    found = errors(run, "any-annotation")
    assert sorted(m.split(":", 1)[0] for m in found.values()) == [
        "`count",
        "`dtype",
        "`name",
        "`plain",
        "`torch_dtype",
    ]
    assert found[13] == (
        '`torch_dtype: Optional[torch.dtype] = "auto"` (line 13): annotated '
        "`Optional[torch.dtype]`, its default is a str: add `str` to the annotation or give "
        "a default of the annotated type"
    )
