# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""A pull request cannot hide a file's findings by nesting something deeply.

A 1,100-member ``int | ... | None`` annotation, a chain of 1,100 conditionals in a
return and an ``elif`` chain of 1,100 branches are trees over 1,000 deep: the rules
that read them recursed past Python's recursion limit, and the whole file became one
"nested too deeply to sweep; not swept" warning, so its ✗ passed. They are read
without recursion now; a rule that still cannot follow some nesting costs only its own
reading of the file, as a ✗ the file's comments cannot drop, and a file too deep for
Python's own parser is a ✗ like a syntax error (Python cannot compile it either)."""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterable

import pytest

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.source import SourceFile
from policytool.rules._pysource import SweepSource
from policytool.rules._sweep import sweep_rule
from policytool.sweep import run as sweep_run
from tests.conftest import Repo
from tests.sweep_fixture import INIT_CATCH, Run, sweep_data, sweep_findings

DEPTH = 1100  # past the recursion limit of 1,000, within every supported parser's reach

CATCH = INIT_CATCH  # a ✗ the file holds whatever else it adds


def _union(count: int) -> str:
    return " | ".join(["int"] * count) + " | None"


def _elifs(count: int, body: str, indent: str = "    ") -> str:
    lines = [f"{indent}if x == 0:", f"{indent}    {body}"]
    for i in range(1, count):
        lines += [f"{indent}elif x == {i}:", f"{indent}    {body}"]
    return "\n".join(lines) + "\n"


DEEP_SHAPES = {
    "union-parameter": f"def f(v: {_union(DEPTH)} = None) -> None:\n    return None\n",
    "union-field": f"class C:\n    x: {_union(DEPTH)} = None\n",
    "union-return": f"def f(v: int) -> {_union(DEPTH)}:\n    return v\n",
    "string-union": f"def f(v: {_union(DEPTH)!r} = None) -> None:\n    return None\n",
    "conditional-return": "def f(v: int) -> bool:\n    return "
    + "True if v else " * DEPTH
    + "None\n",
    "elif-chain": "def f(x: int) -> int:\n" + _elifs(DEPTH, "return 1"),
    "elif-loop": "def decode_step(x: int, t: object) -> None:\n    for _ in range(3):\n"
    + _elifs(DEPTH, "y = t.clone()", " " * 8),
}


@pytest.mark.parametrize("shape", sorted(DEEP_SHAPES))
def test_a_deep_shape_is_read_and_the_catch_still_reported(
    feature: Repo, run: Run, shape: str
) -> None:
    feature.write("pkg/deep.py", CATCH + DEEP_SHAPES[shape])
    findings = sweep_findings(run)
    assert not [f for f in findings if "too deeply" in f["message"]], shape
    assert ("broad-except", "error", 9) in {(f["rule"], f["severity"], f["line"]) for f in findings}


def test_a_deep_conditional_return_is_judged(feature: Repo, run: Run) -> None:
    """The chain is read to its end: the ``None`` at the bottom is seen."""
    feature.write("pkg/deep.py", CATCH + DEEP_SHAPES["conditional-return"])
    wrong = [f for f in sweep_findings(run) if f["rule"] == "any-annotation"]
    assert [(f["line"], f["severity"]) for f in wrong] == [(13, "error")]
    assert "annotated `-> bool` (line 13) but may return None" in wrong[0]["message"]


def test_a_deep_union_admits_the_none_at_its_end(feature: Repo, run: Run) -> None:
    """A union whose last member is None holds the default None; without it, ✗."""
    feature.write("pkg/deep.py", CATCH + DEEP_SHAPES["union-field"])
    assert not [f for f in sweep_findings(run) if f["rule"] == "any-annotation"]
    without = " | ".join(["int"] * DEPTH)
    feature.write("pkg/deep.py", CATCH + f"class C:\n    x: {without} = None\n")
    wrong = [f for f in sweep_findings(run) if f["rule"] == "any-annotation"]
    assert [(f["line"], f["severity"]) for f in wrong] == [(14, "error")]
    assert "does not admit None" in wrong[0]["message"]


def _recursive_check(source: SourceFile, config: Config) -> Iterable[Finding]:
    """A rule written the obvious way: a recursive walk of the syntax tree."""

    def depth(node: ast.AST) -> int:
        return 1 + max((depth(child) for child in ast.iter_child_nodes(node)), default=0)

    assert isinstance(source, SweepSource)
    depth(source.tree)
    return []


RECURSIVE = sweep_rule("recursive-walk", "walks recursively", _recursive_check, doc="")


def test_a_rule_that_cannot_follow_the_nesting_costs_only_its_own_reading() -> None:
    deep = "X = " + "+".join(["1"] * DEPTH) + "\n"
    data = (CATCH + deep).encode()
    rules = [RECURSIVE, *sweep_run.sweep_rules()]
    found = {(f.rule, f.severity.value, f.line) for f in sweep_data(data, rules)}
    assert ("broad-except", "error", 9) in found
    (unread,) = [f for f in sweep_data(data, rules) if f.rule == "syntax-error"]
    assert unread.severity.value == "error"
    assert unread.message == (
        "nested too deeply for recursive-walk to read (Python's recursion limit): not swept "
        "by recursive-walk; split the expression"
    )
    # The file's own comment cannot drop it.
    ignored = (f"{CATCH}{deep.rstrip()}  # policytool: ignore[syntax-error]\n").encode()
    assert [f.rule for f in sweep_data(ignored, [RECURSIVE])] == ["syntax-error"]


def test_a_shallow_file_passes_the_recursive_rule() -> None:
    """The same rule on a shallow file: no finding (the ✗ above is the depth's)."""
    assert sweep_data((CATCH + "X = 1 + 1\n").encode(), [RECURSIVE]) == []


def _past_the_parser() -> str:
    """An expression deeper than this Python's parser builds (found by trying)."""
    for count in (4_000, 12_000, 40_000):
        text = "X = " + "1 if v else " * count + "None\n"
        try:
            ast.parse(text)
        except (RecursionError, MemoryError):  # 3.13: "parser stack overflowed"
            return text
    pytest.skip(f"this Python ({sys.version.split()[0]}) parses 40,000 levels")


def test_a_file_too_deep_for_the_parser_is_an_error(feature: Repo, run: Run) -> None:
    feature.write("pkg/deep.py", CATCH + _past_the_parser())
    (finding,) = sweep_findings(run)
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert (finding["rule"], finding["severity"]) == ("syntax-error", "error")
    assert finding["message"] == (
        f"cannot parse the head version, not swept: nested too deeply for Python {here}"
    )
    result = run("sweep")
    assert result.code == 1 and "Traceback" not in result.err


def test_too_deep_for_this_python_but_a_newer_target_is_a_note(feature: Repo, run: Run) -> None:
    newer = f"{sys.version_info[0]}.{sys.version_info[1] + 1}"
    feature.write("pyproject.toml", f'[project]\nname = "x"\nrequires-python = ">={newer}"\n')
    feature.write("pkg/deep.py", CATCH + _past_the_parser())
    (finding,) = sweep_findings(run)
    assert (finding["rule"], finding["severity"]) == ("syntax-error", "warning")
    assert f"and the project targets Python {newer}: not swept" in finding["message"]


def test_a_module_too_deep_to_parse_is_skipped_by_the_cross_file_readings(
    feature: Repo, run: Run
) -> None:
    """Reading the callers of a function in the tree's other modules parsed each one: a
    module past the parser's reach (3.13 raises MemoryError there) was an internal error."""
    feature.write("pkg/generated.py", _past_the_parser())
    feature.write("pkg/api.py", "def f(v: int = None) -> int:\n    return v\n")
    feature.write("pkg/use.py", "from pkg.api import f\n\nf()\n")
    result = run("sweep", "--format", "json")
    assert result.code == 1 and "internal error" not in result.err
    found = {(f["path"], f["rule"], f["severity"]) for f in json.loads(result.out)}
    assert found == {
        ("pkg/generated.py", "syntax-error", "error"),
        ("pkg/api.py", "any-annotation", "error"),
    }
