# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""One reader of union annotations (``A | B``, ``Union[A, B]``, ``Optional[A]``) serves
every any-annotation reading, so each spelling of a union reads the same everywhere."""

from __future__ import annotations

import ast

import pytest

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
