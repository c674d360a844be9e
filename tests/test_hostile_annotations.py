# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""String annotations a pull request writes are parsed in one place, and none of them can
stop the sweep: a NUL escape (a ValueError from ``ast.parse`` on Python 3.10), text that
is no expression, nesting past the parser's depth."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable

import pytest

from policytool.rules._pysource import unquoted
from tests.conftest import Repo, Result

Run = Callable[..., Result]
DEEP = "[" * 200_000 + "]" * 200_000


@pytest.mark.parametrize("text", ["\x00", "int)", "x := 1", DEEP])
def test_a_string_that_is_no_annotation_reads_as_none(text: str) -> None:
    assert unquoted(ast.Constant(text)) is None


def test_a_string_annotation_is_parsed_and_any_other_kept() -> None:
    parsed = unquoted(ast.Constant("Optional[int]"))
    assert isinstance(parsed, ast.Subscript) and ast.unparse(parsed) == "Optional[int]"
    name = ast.Name("int")
    assert unquoted(name) is name


def test_hostile_string_annotations_do_not_stop_the_sweep(feature: Repo, run: Run) -> None:
    """Each reader of annotations meets them: any-annotation (`-> "\\x00"`, an implicit
    Optional), hot-copy's step-loop annotations; the rest of the file is still swept."""
    feature.write(
        "pkg/mod.py",
        'def f(x: "\\x00" = None) -> "\\x00":\n'
        "    return x\n\n\n"
        'def g(y: "int)" = None, z: "' + "[" * 500 + '" = None):\n'
        "    for step in range(3):\n"
        '        w: "\\x00" = y.clone()\n'
        "    return w\n\n\n"
        "def h(a, b):\n"
        "    return a + b\n",
    )
    feature.commit("hostile annotations")
    result = run("sweep", "--base", "main", "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    assert "internal error" not in result.err
    found = {(f["line"], f["rule"]) for f in json.loads(result.out)}
    assert (11, "any-annotation") in found  # the untyped `h` below them is still judged
