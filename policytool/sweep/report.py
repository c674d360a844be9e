# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Render a sweep: per-pattern findings with fix hints, then the ``Code quality`` row.

``text`` and ``markdown`` end with ``| Code quality | N ⚠ | M ✗ |`` so the row pastes
into a review report; ``json`` and ``sarif`` reuse the shared reporters.
"""

from __future__ import annotations

from collections.abc import Sequence

from policytool.engine.findings import Finding, Severity, render_github, render_json, render_sarif
from policytool.sweep.catalog import PATTERNS
from policytool.sweep.patterns import severity_symbol
from policytool.sweep.run import SweepResult

FORMATS = ("text", "markdown", "json", "sarif", "github")
SYNTAX_ERROR = "syntax-error"


def counts(findings: Sequence[Finding]) -> tuple[int, int]:
    """(warnings, blocking) among the pattern findings (syntax errors are listed apart)."""
    swept = [f for f in findings if f.rule != SYNTAX_ERROR]
    blocking = sum(1 for f in swept if f.severity is Severity.ERROR)
    return len(swept) - blocking, blocking


def quality_row(findings: Sequence[Finding]) -> str:
    """``| Code quality | N ⚠ | M ✗ |``."""
    warnings, blocking = counts(findings)
    return f"| Code quality | {warnings} ⚠ | {blocking} ✗ |"


def _scope(result: SweepResult) -> str:
    """What was swept: files, base, merge-base, head, added lines."""
    files = len(result.files)
    noun = "file" if files == 1 else "files"
    return (
        f"{files} Python {noun} changed between {result.base.name} "
        f"(merge-base {result.base.sha[:10]}) and {result.head.label()}, "
        f"{result.added_lines} added lines"
    )


def _by_rule(findings: Sequence[Finding], rule: str) -> list[Finding]:
    """The findings of one rule, in order."""
    return [f for f in findings if f.rule == rule]


def _line(f: Finding) -> str:
    """One finding as ``path:line:col: rule ⚠|✗ message``."""
    return f"{f.path}:{f.line}:{f.col}: {f.rule} {severity_symbol(f.severity)} {f.message}"


def render_text(result: SweepResult, quiet: bool = False) -> str:
    """Findings grouped by pattern, each group with its fix hint, then the row."""
    findings = result.findings
    out: list[str] = []
    if quiet:
        out.extend(_line(f) for f in findings)
        out.append(quality_row(findings))
        return "\n".join(out) + "\n"
    out.append(f"sweep: {_scope(result)}")
    for pattern in PATTERNS:
        group = _by_rule(findings, pattern.id)
        warnings, blocking = counts(group)
        out.append("")
        out.append(f"{pattern.id}: {pattern.title}: {warnings} ⚠, {blocking} ✗")
        if group:
            out.extend(_line(f) for f in group)
            out.append(f"fix: {pattern.fix}")
    broken = _by_rule(findings, SYNTAX_ERROR)
    if broken:
        out.append("")
        out.append(f"not swept: {len(broken)} file(s) do not parse")
        out.extend(_line(f) for f in broken)
    out.append("")
    out.append(quality_row(findings))
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(result: SweepResult) -> str:
    """A Markdown report for a review: summary table, one section a pattern, the row."""
    findings = result.findings
    out = [
        "## Code-quality sweep",
        "",
        f"{_scope(result)}.",
        "",
        "| Pattern | ⚠ | ✗ |",
        "| --- | --- | --- |",
    ]
    for pattern in PATTERNS:
        warnings, blocking = counts(_by_rule(findings, pattern.id))
        out.append(f"| `{pattern.id}` | {warnings} | {blocking} |")
    for pattern in PATTERNS:
        group = _by_rule(findings, pattern.id)
        if not group:
            continue
        out += [
            "",
            f"### `{pattern.id}`: {pattern.title}",
            "",
            "| | Location | Reason |",
            "| --- | --- | --- |",
        ]
        out.extend(
            f"| {severity_symbol(f.severity)} | `{f.path}:{f.line}` | {_cell(f.message)} |"
            for f in group
        )
        out += ["", f"**Fix:** {pattern.fix}"]
    broken = _by_rule(findings, SYNTAX_ERROR)
    if broken:
        out += ["", "### Not swept (syntax error in the head)", ""]
        out.extend(f"- ✗ `{f.path}:{f.line}`: {f.message}" for f in broken)
    out += ["", "| Dimension | Warnings | Blocking |", "| --- | --- | --- |", quality_row(findings)]
    return "\n".join(out) + "\n"


def rule_help() -> dict[str, str]:
    """Rule id -> description with the fix hint, for SARIF."""
    helps = {p.id: f"{p.title}: {p.summary}. Fix: {p.fix}" for p in PATTERNS}
    helps[SYNTAX_ERROR] = (
        "a changed Python file does not parse in the head, so the sweep cannot check it"
    )
    return helps


def render(result: SweepResult, fmt: str, quiet: bool = False) -> str:
    """The sweep report in one of :data:`FORMATS`."""
    if fmt == "json":
        return render_json(result.findings)
    if fmt == "sarif":
        return render_sarif(result.findings, rule_help())
    if fmt == "markdown":
        return render_markdown(result)
    if fmt == "github":
        return render_github(result.findings)
    return render_text(result, quiet)
