# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Run the sweep: diff -> parse the touched Python files -> five patterns -> findings.

Cost follows the change: only the Python files the diff touches are read and parsed,
only statements overlapping added lines are walked, and the one repo-wide question
(is a new ``**kwargs`` key also read in another file?) is answered from a per-blob
index (``keys``) that scans each file content once.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.config import Config
from policytool.engine.findings import Finding, Severity, sort_findings
from policytool.engine.runner import IGNORE_MARKER, apply_ignores, parse_ignores
from policytool.errors import PolicyError
from policytool.files import git_root, match_any
from policytool.sweep.diff import (
    Base,
    ChangedFile,
    Head,
    changed_files,
    read_head,
    resolve_base,
)
from policytool.sweep.keys import find_keys
from policytool.sweep.patterns import KeyUse, check_file, kwargs_finding
from policytool.sweep.source import SourceInfo


@dataclass
class SweepResult:
    """What a sweep found and what it looked at."""

    base: Base
    head: Head
    files: list[ChangedFile] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def added_lines(self) -> int:
        """How many added lines the swept files have (whole new files count every line)."""
        return sum(len(f.added) for f in self.files if not f.whole)


def sweep(config: Config, base: str | None, head: Head, cwd: Path | None = None) -> SweepResult:
    """Sweep the change between the merge-base of ``base`` and ``head``."""
    root = git_root(cwd or config.root)
    if root is None:
        raise PolicyError(
            f"{cwd or config.root}: not a git repository; sweep compares git revisions"
        )
    resolved = resolve_base(root, base, head)
    change = changed_files(root, resolved, head)
    files = [f for f in change.files if not (config.exclude and match_any(f.path, config.exclude))]
    contents = read_head(root, head, [f.path for f in files])
    result = SweepResult(resolved, head)
    uses: list[KeyUse] = []
    for changed in files:
        data = contents.get(changed.path)
        if data is None:
            continue
        result.files.append(changed)
        try:
            tree = ast.parse(data, filename=changed.path)
        except (SyntaxError, ValueError) as exc:
            result.findings.append(_syntax_finding(changed.path, exc))
            continue
        src = SourceInfo(
            changed.path, data, tree, None if changed.whole else changed.added, config.sweep
        )
        findings, key_uses = check_file(src)
        if IGNORE_MARKER in data:
            ignored, _bare = parse_ignores(src.lines, changed.path, python=True)
            findings = apply_ignores(findings, ignored)
            key_uses = [u for u in key_uses if "kwargs-lookup" not in ignored.get(u.line, ())]
        result.findings.extend(findings)
        uses.extend(key_uses)
    read = {path: data for path, data in contents.items() if data is not None}
    result.findings.extend(_resolve_keys(root, resolved, head, uses, read, change.touched))
    result.findings = sort_findings(result.findings)
    return result


def _syntax_finding(path: str, exc: SyntaxError | ValueError) -> Finding:
    """A file the sweep cannot check: reported as blocking, never a crash."""
    if isinstance(exc, SyntaxError):
        line = exc.lineno or 1
        reason = exc.msg
    else:
        line, reason = 1, str(exc)
    return Finding(
        path,
        line,
        1,
        "syntax-error",
        f"cannot parse the head version, not swept: {reason}",
        Severity.ERROR,
    )


def _resolve_keys(
    root: Path,
    base: Base,
    head: Head,
    uses: Sequence[KeyUse],
    changed: Mapping[str, bytes],
    touched: set[str],
) -> list[Finding]:
    """Decide each key read's severity from where else the head reads the same key."""
    if not uses:
        return []
    hits = find_keys(root, base, head, {u.key for u in uses}, changed, touched)
    return [
        kwargs_finding(
            use,
            sorted(hits.reads.get(use.key, set()) - {use.path}),
            hits.constants.get(use.key, []),
        )
        for use in uses
    ]
