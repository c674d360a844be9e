# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Run the sweep: diff -> parse the touched Python files -> five patterns -> findings.

Cost follows the change: only the Python files the diff touches are read and parsed,
only statements overlapping added lines are walked, and the one repo-wide question
(is a new ``**kwargs`` key also read in another file?) is a single ``git grep -F``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.config import Config
from policytool.engine import IGNORE_MARKER, apply_ignores, parse_ignores
from policytool.errors import PolicyError
from policytool.files import git_root, match_any
from policytool.findings import Finding, Severity, sort_findings
from policytool.sweep.diff import (
    PY_PATHSPEC,
    Base,
    ChangedFile,
    Head,
    HeadKind,
    changed_files,
    read_head,
    resolve_base,
    run_git,
)
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
    files = [
        f
        for f in changed_files(root, resolved, head)
        if not (config.exclude and match_any(f.path, config.exclude))
    ]
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
    result.findings.extend(_resolve_keys(root, head, uses))
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


def _key_read_re(key: str) -> re.Pattern[str]:
    """A line reading ``key`` from a kwargs-like dict (``kwargs``, ``kw``, ``extra_kwargs``)."""
    q = f"[\"']{re.escape(key)}[\"']"
    name = r"\b\w*kw\w*"
    return re.compile(
        rf"{name}\s*\[\s*{q}\s*\]|{name}\s*\.\s*(?:get|pop|setdefault)\s*\(\s*{q}|{q}\s+(?:not\s+)?in\s+{name}\b"
    )


def _key_constant_re(key: str) -> re.Pattern[str]:
    """A module-level constant holding ``key``: ``NAME = "key"``."""
    return re.compile(rf"^[A-Z_][A-Z0-9_]*\s*(?::[^=]+)?=\s*[\"']{re.escape(key)}[\"']\s*(?:#.*)?$")


def _resolve_keys(root: Path, head: Head, uses: Sequence[KeyUse]) -> list[Finding]:
    """Decide each key read's severity with one ``git grep -F`` over the head tree."""
    if not uses:
        return []
    hits = _grep_keys(root, head, sorted({u.key for u in uses}))
    findings = []
    for use in uses:
        read_re, constant_re = _key_read_re(use.key), _key_constant_re(use.key)
        key_hits = hits.get(use.key, [])
        reads = sorted(
            {path for path, _line, text in key_hits if path != use.path and read_re.search(text)}
        )
        constants = [f"{path}:{line}" for path, line, text in key_hits if constant_re.match(text)]
        findings.append(kwargs_finding(use, reads, constants))
    return findings


def _grep_keys(
    root: Path, head: Head, keys: Sequence[str]
) -> dict[str, list[tuple[str, int, str]]]:
    """key -> [(path, line, text)] for every line of the head tree that quotes the key."""
    args = [
        "-c",
        "grep.column=false",
        "-c",
        "grep.fullName=true",
        "grep",
        "-F",
        "-n",
        "-z",
        "-I",
        "--no-color",
    ]
    for key in keys:
        args += ["-e", f'"{key}"', "-e", f"'{key}'"]
    if head.kind is HeadKind.STAGED:
        args.append("--cached")
    elif head.kind is HeadKind.REV:
        args.append(str(head.rev))
    else:
        args.append("--untracked")
    proc = run_git(root, [*args, "--", PY_PATHSPEC])
    if proc.returncode not in (0, 1):  # 1: nothing matched
        raise PolicyError(
            f"{root}: git grep failed: {proc.stderr.decode('utf-8', 'replace').strip()}"
        )
    prefix = f"{head.rev}:" if head.kind is HeadKind.REV else ""
    hits: dict[str, list[tuple[str, int, str]]] = {}
    for raw in proc.stdout.decode("utf-8", "surrogateescape").splitlines():
        parts = raw.split("\0", 2)
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        path, line, text = parts[0].removeprefix(prefix), int(parts[1]), parts[2]
        for key in keys:
            if f'"{key}"' in text or f"'{key}'" in text:
                hits.setdefault(key, []).append((path, line, text))
    return hits
