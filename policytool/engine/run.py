# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""One ``check`` or ``fix`` run: select the rules, list the files, prefetch pre-commit's
schema, run the file and repo rules, keep the selected findings, less the baseline.

The command line parses and renders around it (:mod:`policytool.cli`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.errors import PolicyError


@dataclass(frozen=True)
class CheckRun:
    """What a check or fix run found: the findings, files changed, files checked, and
    the findings the baseline accepted (``accepted_by`` names it)."""

    findings: list[Finding]
    changed: list[str]
    files_checked: int | None
    accepted: list[Finding] = dataclasses.field(default_factory=list)
    accepted_by: str = ""


def run_check(
    config: Config,
    paths: Sequence[str],
    only: Sequence[str] = (),
    skip: Sequence[str] = (),
    *,
    fix: bool = False,
    online: bool = False,
    accepted: bool = True,
    baseline_from: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> CheckRun:
    """Check (or fix) ``paths`` (every tracked file when empty) with the rules selected by
    ``only`` / ``skip`` (ids or groups, as given on the command line), less what the
    baseline accepts (read as committed at ``baseline_from`` when given).
    """
    from policytool.core.discovery import discover
    from policytool.engine.registry import (
        ENGINE_RULE_IDS,
        LazyFiles,
        expand_selection,
        group_of,
        known_rule_ids,
        prefetches,
    )
    from policytool.engine.runner import (
        RunResult,
        reads_none,
        run_file_rules,
        run_repo_rules,
        select_rules,
    )

    only = expand_selection(only, "--only")
    skip = expand_selection(skip, "--skip")

    def listing() -> list[str]:
        """The files of this run: the paths given, else every tracked file."""
        return discover(config.root, list(paths) or None, Path.cwd(), config.exclude)

    files: Sequence[str] = listing() if paths else LazyFiles(listing)
    wanted = [rule_id for rule_id in only if rule_id not in skip]
    if paths and reads_none(config, files, wanted):
        return CheckRun([], [], len(files))  # a hook call over files its rules skip
    prefetched = not paths and any(
        group_of(rule_id) == "repo" for rule_id in wanted or known_rule_ids() if rule_id not in skip
    )
    if prefetched:
        # pre-commit's schema check starts on the other core while the rules load.
        for prefetch in prefetches():
            prefetch.start(config)
    try:
        file_rules, repo_rules = select_rules(only, skip)
        diff_scoped = [r.id for r in file_rules if r.scope != "file"]
        if only and diff_scoped:
            raise PolicyError(
                f"--only {diff_scoped[0]}: a sweep rule checks only the lines a change adds, "
                "not whole files; run `policytool sweep` (it compares with the merge-base)"
            )
        file_rules = [r for r in file_rules if r.scope == "file"]
        if file_rules or paths:
            result = run_file_rules(config, files, file_rules, fix=fix, progress=progress)
        else:
            result = RunResult()  # repo rules only: list the files only if one of them asks
        repo = run_repo_rules(
            config,
            repo_rules,
            files,
            full_run=not paths,
            fix=fix,
            online=online,
            baseline_from=baseline_from,
        )
    finally:
        if prefetched:
            for prefetch in prefetches():
                prefetch.end(config)  # no child outlives the run, asked for or not
    result.merge(repo)
    findings = result.findings
    if only:
        findings = [f for f in findings if f.rule in only or f.rule in ENGINE_RULE_IDS]
    findings = [f for f in findings if f.rule not in skip]
    checked = result.files_checked if file_rules or paths else None
    changed = sorted(set(result.changed))
    if not accepted:
        return CheckRun(findings, changed, checked)
    from policytool.engine.baseline import without_accepted

    # Less what `policytool baseline` accepted; a full run judges the baseline entries
    # of the rules it ran over every file.
    judged = () if paths else {r.id for r in file_rules} | {r.id for r in repo_rules}
    after = without_accepted(config, findings, judged, baseline_from)
    return CheckRun(after.kept, changed, checked, after.accepted, after.shown)
