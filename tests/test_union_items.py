# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""One reader of union annotations (``A | B``, ``Union[A, B]``, ``Optional[A]``) serves
every any-annotation reading, so each spelling of a union reads the same everywhere."""

from __future__ import annotations

import ast
import time

import pytest

from policytool.rules import _fakes as fakes
from policytool.rules._pysource import SourceInfo, union_items
from policytool.rules._sweep_config import SweepConfig
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

IMPORTS = (
    "import typing\nimport typing_extensions as te\nfrom typing import Optional, Union\n"
    "from elsewhere import Optional as Maybe\n"
)


def members(annotation: str) -> list[str] | None:
    """The unparsed members ``union_items`` reads in ``x: annotation``."""
    module = f"{IMPORTS}x: {annotation}\n"
    tree = ast.parse(module)
    node = tree.body[-1]
    assert isinstance(node, ast.AnnAssign)
    src = SourceInfo("m.py", module.encode(), tree, None, SweepConfig())
    items = union_items(src, node.annotation)
    return None if items is None else [ast.unparse(item) for item in items]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("int | None", ["int", "None"]),
        ("int | str | None", ["int", "str", "None"]),
        ("Optional[int]", ["int", "None"]),
        ("typing.Optional[int]", ["int", "None"]),
        ("te.Optional[int]", ["int", "None"]),
        ("Union[int, None]", ["int", "None"]),
        ("typing.Union[int, str]", ["int", "str"]),
        ("te.Union[int]", ["int"]),
        ("Optional[int | str]", ["int | str", "None"]),
        # not unions: a generic, a name, a class imported under a union's name
        ("list[int]", None),
        ("int", None),
        ("Maybe[int]", None),
        ("typing.List[int | None]", None),
    ],
)
def test_union_items_reads_each_spelling(annotation: str, expected: list[str] | None) -> None:
    assert members(annotation) == expected


SPELLINGS = [
    "Optional[{}]",
    "typing.Optional[{}]",
    "te.Optional[{}]",
    "Union[{}, None]",
    "te.Union[None, {}]",
    "{} | None",
    "'Optional[{}]'",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_reads_the_same_in_each_reading(
    feature: Repo, run: Run, spelling: str
) -> None:
    """The container ✗ of ``**kwargs`` (a dict or None), the implicit Optional (a class
    or None holds the None default) and ``Any`` (a ⚠ for a new ``Any`` parameter) read
    the union through the same reader."""
    feature.write(
        "pkg/a.py",
        f"{IMPORTS}\n\n"
        "class Meta:\n    pass\n\n\n"
        f"def kw(**kwargs: {spelling.format('dict')}) -> None:\n    del kwargs\n\n\n"  # 11
        f"def meta(m: {spelling.format('Meta')} = None) -> None:\n    del m\n\n\n"  # 15
        f"def anything(a: {spelling.format('typing.Any')}) -> None:\n    del a\n",  # 19
    )
    feature.commit("unions")
    rows = {(line, severity) for _path, line, severity, _m in found(run, "any-annotation")}
    assert (11, "error") in rows
    assert not any(line == 15 for line, _ in rows)
    assert (19, "warning") in rows


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("int | None", ["int", "None"]),
        ("'Optional[Foo]'", ["Foo", "None"]),
        ("typing.Optional[Foo]", ["Foo", "None"]),
        ("typing_extensions.Union[Foo, Bar]", ["Foo", "Bar"]),
        ("Union[dict[str, int], None]", ["dict[str, int]", "None"]),
        ("Optional[list[A | B]]", ["list[A | B]", "None"]),
        ("Optional[QuantizeConfig | Dict]", ["QuantizeConfig", "Dict", "None"]),
        ("A | Union[B, Optional[C]]", ["A", "B", "C", "None"]),
        ("Callable[[int], str] | None", ["Callable[[int], str]", "None"]),
        ("list[Foo]", ["list[Foo]"]),
        ("Maybe[Foo]", ["Maybe[Foo]"]),
    ],
)
def test_union_text_members_reads_each_spelling_of_the_index_text(
    text: str, expected: list[str]
) -> None:
    """The module index keeps annotations as text: its reader splits them the way
    ``union_items`` splits nodes, at the top level only."""
    assert fakes.union_text_members(text) == expected


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Optional[Config]", "Config"),
        ("None | Config", "Config"),
        ("Union[Config, None]", "Config"),
        ("'pkg.Config | None'", "Config"),
        ("Optional[list[Config]]", None),
        ("None", None),
    ],
)
def test_the_class_an_annotation_text_names(text: str, name: str | None) -> None:
    assert fakes._type_name(text) == name


@pytest.mark.timing
def test_a_hostile_annotation_text_is_read_in_linear_time() -> None:
    """A pull request's annotation text of a megabyte: bars and commas, and unions
    nested 100,000 deep (only the first ``MAX_UNION_EXPANSIONS`` are opened)."""
    text = "Union[" + "A | " * 200_000 + "B, " * 100_000 + "C]"
    started = time.perf_counter()
    members = fakes.union_text_members(text)
    assert len(members) == 300_001
    deep = "Optional[" * 100_000 + "X" + "]" * 100_000
    nested = fakes.union_text_members(deep)
    assert nested[1:] == ["None"] * fakes.MAX_UNION_EXPANSIONS
    assert nested[0].startswith("Optional[Optional[")
    wide = fakes.union_text_members("Union[" * 100_000 + "X, Y" + "]" * 100_000)
    assert time.perf_counter() - started < 4.0
    assert len(wide) == 1 and wide[0].startswith("Union[Union[")
