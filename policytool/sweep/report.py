# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The sweep's report through the shared reporters, with what the sweep adds to them:
the line saying what was compared, each rule's fix hint, and the Code quality row."""

from __future__ import annotations

from policytool.engine.findings import render, render_markdown, render_marked_text
from policytool.engine.registry import ENGINE_RULE_IDS, rule_infos
from policytool.rules._sweep import fix_hint
from policytool.sweep.run import SweepResult, sweep_rule_ids


def scope_line(result: SweepResult) -> str:
    """What was swept: files, base, the commit compared with, head, added lines."""
    files = len(result.files)
    noun = "file" if files == 1 else "files"
    how = "tip" if result.base.two_dot else "merge-base"
    line = (
        f"{files} Python {noun} changed between {result.base.name} "
        f"({how} {result.base.sha[:10]}) and {result.head.label()}, "
        f"{result.added_lines} added lines"
    )
    if result.excluded:
        count = len(result.excluded)
        line += (
            f"; {count} changed Python {'file' if count == 1 else 'files'} not swept by "
            "`exclude` (`[tool.policytool.sweep] exclude = []` sweeps "
            f"{'it' if count == 1 else 'them'})"
        )
    if result.moved:
        count = result.moved
        line += (
            f"; {count} {'finding' if count == 1 else 'findings'} on code moved from "
            "another file of the change not reported"
        )
    return line


def render_sweep(result: SweepResult, fmt: str, quiet: bool = False, cap: int = 5) -> str:
    """The sweep report in one of the shared formats (text and markdown end with the row)."""
    findings = result.findings
    if fmt == "text":
        return render_marked_text(
            findings,
            len(result.files),
            quiet,
            cap,
            heading=f"sweep: {scope_line(result)}",
            notes=ENGINE_RULE_IDS,
        )
    infos = rule_infos()
    ids = sweep_rule_ids()
    help_text = {rule_id: info.summary for rule_id, info in infos.items()}
    if fmt == "markdown":
        return render_markdown(
            findings,
            help_text,
            title="Code-quality sweep",
            intro=f"{scope_line(result)}.",
            rules=ids,
            fixes={rule_id: fix_hint(infos[rule_id].doc) for rule_id in ids},
            cap=cap,
            notes=ENGINE_RULE_IDS,
        )
    return render(findings, fmt, help_text, len(result.files), quiet)
