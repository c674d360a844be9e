# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a *wrong* annotation ("actively misleading — e.g. `-> bool` that
returns `Optional[bool]`"): implicit Optional defaults, ``return None`` under a class or
generic that cannot hold it, and a returned literal of another kind."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from policytool.rules._pysource import SourceInfo
from policytool.rules._sweep_config import SweepConfig
from policytool.rules._wrong_annotation import _types, annassign_findings
from tests.conftest import Repo
from tests.sweep_fixture import Run, found, land_on_main, messages, rows


def wrong(run: Run) -> list[tuple[int, str]]:
    """(line, message) of each any-annotation ✗."""
    return [
        (line, m) for _, line, severity, m in found(run, "any-annotation") if severity == "error"
    ]


IMPLICIT = """\
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Optional, TypeVar, Union

import torch

T = TypeVar("T")
Alias = Optional[int]


class Engine:
    pass


def run(
    a: int = None,
    b: torch.Tensor = None,
    c: Engine = None,
    d: list[int] = None,
    e: Optional[int] = None,
    f: int | None = None,
    g: Any = None,
    h: object = None,
    i: T = None,
    j: Alias = None,
    k: "Unknown" = None,
    m: Union[int, None] = None,
    n: "Engine" = None,
    o: int = None,  # type: ignore[assignment]
    *,
    p: str = None,
) -> None:
    # the body gives None a meaning (a dead default is not reported)
    if (
        a is None and b is None and c is None and d is None and e is None
        and f is None and g is None and h is None and i is None and j is None and k is None and m is None and n is None and o is None and p is None
    ):
        return


@dataclass
class Cfg:
    size: int = None
    name: Optional[str] = None
    late: dataclasses.InitVar[int | None] = None
    items: dict[str, int] = field(default=None)

    def __post_init__(self) -> None:
        self.engine: Engine = None
        self.other: Engine | None = None
"""


def test_implicit_optional_defaults_are_wrong_and_only_when_certain(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/mod.py", IMPLICIT)
    feature.commit("add")
    found = wrong(run)
    names = sorted(m.split(":", 1)[0].strip("`") for _line, m in found)
    assert names == ["a", "b", "c", "d", "items", "n", "p", "self.engine", "size"]
    line, message = next(x for x in found if x[1].startswith("`b:"))
    assert line == 17
    assert message == (
        "`b: torch.Tensor = None` (line 17): `torch.Tensor` does not admit None; "
        "annotate `b: torch.Tensor | None`"
    )


def test_an_imported_class_is_resolved_in_the_repository(feature: Repo, run: Run) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/config.py", "class ModelConfig:\n    pass\n\nAliasConfig = None\n")
    feature.write(
        "pkg/use.py",
        "from pkg.config import AliasConfig, ModelConfig\nfrom elsewhere import Thing\n\n\n"
        "def f(a: ModelConfig = None, b: AliasConfig = None, c: Thing = None) -> None:\n"
        "    if a is None or b is None or c is None:\n        return\n",
    )
    feature.commit("add")
    assert [m.split(":", 1)[0] for _l, m in wrong(run)] == ["`a"]


def test_only_added_lines_count(feature: Repo, run: Run) -> None:
    feature.write("pkg/old.py", "def f(a: int = None) -> None:\n    pass\n")
    land_on_main(feature)
    feature.write("pkg/old.py", "def f(a: int = None) -> None:\n    pass\n\n\nX = 1\n")
    feature.commit("edit")
    assert wrong(run) == []


def test_an_edit_inside_an_old_fields_other_arguments_is_not_new(feature: Repo, run: Run) -> None:
    # accelerate 0413cf9: a typo fixed in a dataclass field's help text; the old
    # `flag: bool = field(default=None, ...)` is not an annotation the change adds.
    old = (
        "from dataclasses import dataclass, field\n\n\n@dataclass\nclass Plugin:\n"
        "    flag: bool = field(\n        default=None,\n"
        '        metadata={"help": "loads the checkoint"},\n    )\n'
    )
    feature.write("pkg/plugin.py", old)
    land_on_main(feature)
    feature.write("pkg/plugin.py", old.replace("checkoint", "checkpoint"))
    feature.commit("typo")
    assert wrong(run) == []
    feature.write("pkg/plugin.py", old.replace("flag: bool", "other: bool"))
    feature.commit("renamed")
    assert [line for line, _message in wrong(run)] == [6]


CONDITIONAL = """\
from dataclasses import dataclass


@dataclass
class Meta:
    ip: str


def flag(c: int) -> bool:
    return True if c else None


def prepare(c: int) -> Meta:
    return Meta(ip="x") if c else (None if c < 0 else Meta(ip="y"))


def fine(c: int) -> Meta | None:
    return Meta(ip="x") if c else None


def also_fine(c: int) -> bool:
    return True if c else False
"""


def test_a_conditional_that_may_give_none_contradicts_the_annotation(
    feature: Repo, run: Run
) -> None:
    # The seed's own example: `-> bool` that returns Optional[bool] (verl's
    # `prepare(self) -> MasterMetadata` returning `MasterMetadata(...) if ... else None`).
    feature.write("pkg/cond.py", CONDITIONAL)
    feature.commit("conditional returns")
    found = wrong(run)
    assert [line for line, _message in found] == [9, 13], found  # the def lines
    assert all("may return None" in message for _line, message in found), found


RETURNS = """\
import abc
from collections.abc import Callable, Iterator

import torch


class Engine:
    pass


def make(flag: bool) -> Engine:
    if flag:
        return None
    return Engine()


def reduce(x: torch.Tensor, off: bool) -> torch.Tensor:
    if off:
        return
    return x


def maybe(flag: bool) -> Engine | None:
    if flag:
        return None
    return Engine()


def gen() -> Iterator[int]:
    yield 1
    return None


class Base(abc.ABC):
    @abc.abstractmethod
    def build(self) -> Engine:
        return None

    def stub(self) -> Callable[[], int]:
        raise NotImplementedError


def shape() -> dict[str, int]:
    return 1, 2


def kinds() -> set[int]:
    return {}


def number() -> float:
    return 1


def ok() -> tuple[int, int]:
    return 1, 2
"""


def test_returns_that_contradict_the_annotation(feature: Repo, run: Run) -> None:
    feature.write("pkg/ret.py", RETURNS)
    feature.commit("add")
    assert wrong(run) == [
        (
            11,
            "`make` is annotated `-> Engine` (line 11) but returns None on line 13; "
            "annotate `-> Engine | None`",
        ),
        (
            17,
            "`reduce` is annotated `-> torch.Tensor` (line 17) but returns None on line 19; "
            "annotate `-> torch.Tensor | None`",
        ),
        (
            43,
            "`shape` is annotated `-> dict[str, int]` (line 43) but returns a tuple "
            "(`1, 2`) on line 44; return a dict or fix the annotation",
        ),
        (
            47,
            "`kinds` is annotated `-> set[int]` (line 47) but returns a dict (`{}`) on "
            "line 48; return a set or fix the annotation",
        ),
    ]


def test_a_builtin_return_of_none_is_reported_once(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/b.py", "def f(x: int) -> bool:\n    if x:\n        return None\n    return True\n"
    )
    feature.commit("add")
    assert len(wrong(run)) == 1


# -- property: the None verdict of an annotation ----------------------------------------

NEVER = ["int", "str", "bool", "list[int]", "dict[str, int]", "torch.Tensor", "Callable[[], int]"]
UNSURE = ["T", "Alias", "Unknown", '"Missing"']


@st.composite
def annotation_cases(draw: st.DrawFn) -> tuple[str, bool | None]:
    """An annotation text and whether it admits None (None: unsure)."""
    members = draw(st.lists(st.sampled_from([*NEVER, *UNSURE, "None"]), min_size=1, max_size=4))
    if len(members) == 1:
        text = members[0]
    elif draw(st.booleans()):
        text = " | ".join(members)
    else:
        text = f"Union[{', '.join(members)}]"
    if draw(st.booleans()):
        return f"Optional[{text}]", True
    if "None" in members:
        return text, True
    if any(m in UNSURE for m in members):
        return text, None
    return text, False


@given(annotation_cases())
@settings(max_examples=200, deadline=None)
def test_admits_none_says_no_only_when_sure(case: tuple[str, bool | None]) -> None:
    text, expected = case
    module = (
        "from typing import Callable, Optional, TypeVar, Union\nimport torch\n"
        "from elsewhere import Unknown\nT = TypeVar('T')\nAlias = int\n"
        f"x: {text} = None\n"
    )
    tree = ast.parse(module)
    src = SourceInfo("m.py", module.encode(), tree, None, SweepConfig())
    node = tree.body[-1]
    assert isinstance(node, ast.AnnAssign)
    assert _types(src).admits_none(node.annotation) is expected
    assert bool(list(annassign_findings(src, node))) is (expected is False)


def test_kwargs_annotated_as_a_dict_is_a_wrong_annotation(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/a.py",
        "from typing import Any\n\n\n"
        "def f(*args: tuple[int, ...], **kwargs: dict[str, Any]) -> None:\n    del args, kwargs\n",
    )
    found = sorted((r[1], r[3]) for r in rows(run, rule="any-annotation"))
    assert found == [(4, "error"), (4, "error")]
    assert any("says every value is a dict" in m for m in messages(run, rule="any-annotation"))


def test_star_args_of_fixed_length_tuples_type_each_argument(feature: Repo, run: Run) -> None:
    """``*cfgs: tuple[str, str]`` says each positional argument is a pair, which the body
    unpacks: right. One item or ``...`` describes the whole ``args`` tuple: wrong."""
    feature.write(
        "pkg/a.py",
        "from typing import Tuple\n\n\n"
        "def package(*cfgs: tuple[str, str]) -> list[str]:\n"
        "    return [name + cfg for name, cfg in cfgs]\n\n\n"
        'def labels(*pairs: "Tuple[str, int, bool]") -> int:\n    return len(pairs)\n\n\n'
        "def view(*shape: Tuple[int]) -> int:\n    return len(shape)\n\n\n"
        "def grads(*tensors: tuple[float, ...]) -> int:\n    return len(tensors)\n",
    )
    assert [line for line, _ in wrong(run)] == [12, 16]
    assert all("says every positional argument is a tuple" in m for _, m in wrong(run))


def test_kwargs_annotated_as_an_optional_dict_is_a_wrong_annotation(
    feature: Repo, run: Run
) -> None:
    """``**kwargs: Optional[dict]`` says each value is a dict or None (guidance's engine);
    ``Optional[int]`` and ``dict | list`` are no container of every value."""
    feature.write(
        "pkg/a.py",
        "from typing import Optional, Union\n\n\n"
        "def a(**kwargs: Optional[dict]) -> None:\n    del kwargs\n\n\n"
        "def b(**kwargs: dict | None) -> None:\n    del kwargs\n\n\n"
        "def c(**kwargs: 'Union[None, dict[str, int]]') -> None:\n    del kwargs\n\n\n"
        "def d(**kwargs: Optional[int]) -> None:\n    del kwargs\n\n\n"
        "def e(**kwargs: dict | list) -> None:\n    del kwargs\n",
    )
    assert [line for line, _ in wrong(run)] == [4, 8, 12]
    assert all("says every value is a dict" in m for _, m in wrong(run))


def test_a_method_annotated_none_that_returns_self(feature: Repo, run: Run) -> None:
    """torchrl's ``lock_(self, ...) -> None`` returns ``self`` (callers chaining it get the
    instance the annotation denies). Not a ``staticmethod`` whose first parameter happens
    to be called ``self``, a module-level function, or a method that rebinds ``self``."""
    feature.write(
        "pkg/a.py",
        "class Spec:\n"
        "    def lock_(self, recurse: bool = False) -> None:\n"
        "        self.locked = recurse\n"
        "        return self\n\n"  # 4
        "    @staticmethod\n"
        "    def other(self) -> None:\n"
        "        return self\n\n"
        "    def swap(self) -> None:\n"
        "        self = self.copy()\n"
        "        return self\n\n"
        "    def copy(self) -> 'Spec':\n"
        "        return Spec()\n\n\n"
        "def free(self) -> None:\n"
        "    return self\n",
    )
    found = wrong(run)
    assert [line for line, _ in found] == [2]
    assert "returns `self` on line 4" in found[0][1]
