# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""A rule's own bug costs that rule's reading of one file, as a ``rule-error`` ✗.

Round AT's re-record found a reading that raised on a shape nobody foresaw (an old
``return`` rewritten to another length): the whole sweep of that commit stopped with an
internal error. The rules below are written with the same kind of bug (they assume every
function carries a return annotation), and run next to the real rules: the other rules
and files still report, the error is a ✗ that fails the run, and neither a comment in
the file nor ``POLICYTOOL_DEBUG`` unset can make it pass silently."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable
from pathlib import Path

import pytest

from policytool.config import Config
from policytool.engine import runner
from policytool.engine.crash import RULE_ERROR
from policytool.engine.findings import Finding
from policytool.engine.registry import FileRule
from policytool.engine.source import SourceFile
from policytool.errors import ConfigError
from policytool.rules._pysource import SweepSource
from policytool.rules._sweep import sweep_rule
from policytool.sweep import run as sweep_run
from tests.conftest import Repo
from tests.sweep_fixture import INIT_CATCH, Run, sweep_data, sweep_findings

# A ✗ of a real rule on line 9, under a def annotated ``-> None``; and one more def.
SOURCE = INIT_CATCH + "def helper(x: int):\n    return x\n"


def _returns_named(source: SourceFile, config: Config) -> Iterable[Finding]:
    """A rule with a bug: it takes every return annotation for a name (``-> None`` is a
    constant)."""
    assert isinstance(source, SweepSource)
    for node in ast.walk(source.tree):
        if isinstance(node, ast.FunctionDef) and node.returns is not None:
            node.returns.id  # type: ignore[attr-defined]  # noqa: B018 - the bug under test
    return []


BUGGY = sweep_rule("returns-named", "reads every return annotation", _returns_named, doc="")


def _sweep(data: bytes, rules: list[FileRule]) -> list[Finding]:
    return sweep_data(data, rules, "pkg/dev.py")


def test_a_rule_that_raises_costs_only_its_own_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POLICYTOOL_DEBUG", raising=False)
    findings = _sweep(SOURCE.encode(), [BUGGY, *sweep_run.sweep_rules()])
    found = {(f.rule, f.severity.value, f.line) for f in findings}
    assert ("broad-except", "error", 9) in found  # the real rules still read the file
    (error,) = [f for f in findings if f.rule == RULE_ERROR]
    assert (error.severity.value, error.line, error.acceptable) == ("error", 1, False)
    assert error.message == (
        "returns-named stopped on an internal error (AttributeError: 'Constant' object has "
        "no attribute 'id') and did not read this file; please report it to the policytool "
        "maintainers with this line (POLICYTOOL_DEBUG=1 shows the traceback)"
    )


def test_the_same_rule_on_a_file_it_can_read_reports_nothing() -> None:
    """The ✗ above is the bug's: every return annotation here is a name."""
    annotated = SOURCE.replace("-> None:", "-> object:")
    assert _sweep(annotated.encode(), [BUGGY]) == []


def test_a_comment_in_the_file_cannot_drop_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POLICYTOOL_DEBUG", raising=False)
    ignored = "x = 1  # policytool: ignore[rule-error, returns-named]\n" + SOURCE
    assert [f.rule for f in _sweep(ignored.encode(), [BUGGY])] == [RULE_ERROR]


def test_debug_raises_the_error_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLICYTOOL_DEBUG", "1")
    with pytest.raises(AttributeError, match="'id'"):
        _sweep(SOURCE.encode(), [BUGGY])


def _refuses(source: SourceFile, config: Config) -> Iterable[Finding]:
    """A rule that stops the run on purpose, as a rule with a bad allowlist file does."""
    raise ConfigError("allowlist.txt:3: not a module name")


def test_a_deliberate_configuration_error_still_stops_the_run() -> None:
    refusing = sweep_rule("refuses", "refuses its configuration", _refuses, doc="")
    with pytest.raises(ConfigError, match="allowlist.txt:3"):
        _sweep(SOURCE.encode(), [refusing])


def _raises_long(source: SourceFile, config: Config) -> Iterable[Finding]:
    """A bug whose error text quotes the file: a hostile name, long and with escapes."""
    assert isinstance(source, SweepSource)
    raise KeyError("\x1b[2J" + "n" * 5000)


def test_the_error_text_is_bounded_and_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POLICYTOOL_DEBUG", raising=False)
    long_rule = sweep_rule("quotes-the-file", "quotes the file", _raises_long, doc="")
    (error,) = _sweep(SOURCE.encode(), [long_rule])
    assert "\x1b" not in error.message and "\\x1b[2J" in error.message
    assert len(error.message) < 400 and "n..." in error.message


def test_check_reports_it_and_keeps_the_other_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``policytool check``'s runner: the same guard around each rule of each file."""
    monkeypatch.delenv("POLICYTOOL_DEBUG", raising=False)

    def _bad(source: SourceFile, config: Config) -> Iterable[Finding]:
        return [Finding(source.relpath, 1, 1, "counts", f"{len(source.text.splitlines()[99])}")]

    def _fine(source: SourceFile, config: Config) -> Iterable[Finding]:
        return [Finding(source.relpath, 2, 1, "fine", "read")]

    rules = [FileRule("counts", "bug", _bad), FileRule("fine", "reads", _fine)]
    path = tmp_path / "a.py"
    path.write_text(SOURCE)
    source = SourceFile("a.py", str(path), SOURCE.encode(), "python")
    found = runner._check_source(source, rules, Config())
    assert [(f.rule, f.line) for f in found] == [(RULE_ERROR, 1), ("fine", 2)]
    assert "counts stopped on an internal error (IndexError: list index out of range)" in (
        found[0].message
    )


def test_the_sweep_command_fails_with_the_finding_not_a_traceback(
    feature: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POLICYTOOL_DEBUG", raising=False)
    rules = [BUGGY, *sweep_run.sweep_rules()]
    monkeypatch.setattr(sweep_run, "sweep_rules", lambda: rules)
    feature.write("pkg/dev.py", SOURCE)
    result = run("sweep", "--format", "json")
    assert result.code == 1 and "internal error" not in result.err
    found = {(f["path"], f["rule"], f["severity"]) for f in json.loads(result.out)}
    assert ("pkg/dev.py", RULE_ERROR, "error") in found
    assert ("pkg/dev.py", "broad-except", "error") in found
    text = run("sweep")
    assert "pkg/dev.py:1:1: rule-error ✗ returns-named stopped on an internal error" in text.out
    assert "Traceback" not in text.err
    # Without the bug the sweep reads the file and reports the real finding only.
    del rules[0]
    assert {f["rule"] for f in sweep_findings(run) if f["path"] == "pkg/dev.py"} == {"broad-except"}
