# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``stale-allow``: every allow entry of the import rules still shields a violation.

On full runs only (a handful of changed files cannot tell). For each allow glob of
each ``[[tool.policytool.forbidden-import]]`` entry and of ``[tool.policytool.torch-cuda]``
(from the config or the allowlist file), the glob must match a tracked file, and one
of the files it matches must still have a violation of that section; otherwise the
entry is reported where it is written, so allowlists only shrink. Only the files the
globs match are scanned (usually a few), with the same scan as the rules.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from pathlib import Path

from policytool.core.boundary import MAX_SOURCE_BYTES, read_bounded
from policytool.core.globs import glob_prefix
from policytool.core.kinds import is_binary, kind_of
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import FileError
from policytool.formats.pyimports import FileScan, ScanSyntaxError
from policytool.rules import forbidden_import as imports
from policytool.rules import torch_cuda
from policytool.rules._allowlist import AllowEntry, AllowList
from policytool.rules._pyscan import packages_memo
from policytool.rules._source_config import ForbiddenImportConfig

RULE_ID = "stale-allow"

DOC = """\
## What it checks
On a full run (`policytool check` without paths), every allow glob of each
`[[tool.policytool.forbidden-import]]` entry and of `[tool.policytool.torch-cuda]`,
written in the config or in an allowlist file: the glob must match a tracked file, and
one of the files it matches must still violate that section. An entry that matches no
file or shields no violation is reported where it is written.

## Why
An allowlist is a debt ledger: `policytool baseline` records today's violations so a
rule can go on at once. Entries whose file was cleaned up must go, or the file can
regress silently; reporting them keeps the list shrinking.

## Example
`tools/cuda_allow.txt` lists `vllm/worker/old.py`, whose last `torch.cuda.synchronize()`
call was replaced: ``allow entry `vllm/worker/old.py` of torch-cuda no longer shields
any violation (1 file matched); remove it``.

## Fix
Delete the reported line (or glob). No automatic fix: removing lines from a file the
team curates is for a reviewer to see.

## Configuration
None of its own: it reads the `allow` and `allowlist-file` keys of
`[[tool.policytool.forbidden-import]]` and `[tool.policytool.torch-cuda]`. Allowlist
files must lie inside the repository.
"""


def _sections(ctx: RepoContext) -> list[tuple[str, AllowList, Callable[[FileScan], bool]]]:
    """(label, allow list, has-violation test) of every section with allow entries."""
    config = ctx.config
    sections: list[tuple[str, AllowList, Callable[[FileScan], bool]]] = []
    plan = imports.plan_of(config)
    for index, (entry, allow) in enumerate(
        zip(config.entries(ForbiddenImportConfig), plan.allows(), strict=True)
    ):
        label = f"forbidden-import entry {index + 1} ({', '.join(entry.modules)})"

        def test(scan: FileScan, index: int = index) -> bool:
            """Whether the file violates this entry."""
            return bool(imports.violations(scan, config, [index]))

        sections.append((label, allow, test))
    sections.append(
        (
            "torch-cuda",
            torch_cuda.allows(config),
            lambda scan: bool(torch_cuda.violations(scan, config)),
        )
    )
    return [s for s in sections if s[1].entries]


def _matching(entry: AllowEntry, files: list[str]) -> list[str]:
    """The paths of sorted ``files`` that ``entry``'s glob matches.

    Only the paths that start with the glob's literal prefix are matched (found with
    :mod:`bisect`): 40 entries against 8,500 tracked files was a third of a second.
    """
    single = AllowList((entry,))
    prefix = glob_prefix(entry.glob)
    matched = []
    for index in range(bisect.bisect_left(files, prefix), len(files)):
        relpath = files[index]
        if not relpath.startswith(prefix):
            break
        if single.matches(relpath):
            matched.append(relpath)
    return matched


def check(ctx: RepoContext) -> list[Finding]:
    """Allow entries that match no file or shield no violation (full runs only)."""
    if not ctx.full_run:
        return []
    sections = _sections(ctx)
    if not sections:
        return []
    root: Path = ctx.root
    scans: dict[str, FileScan | None] = {}

    def scan_of(relpath: str) -> FileScan | None:
        """The scan of a matched Python file (None for other files)."""
        if relpath not in scans:
            scan = None
            try:  # bounded as the runner reads it: a larger file was not checked
                data = read_bounded(root / relpath, relpath, MAX_SOURCE_BYTES)
            except FileError:
                data = b""
            if (
                data
                and not is_binary(data)
                and kind_of(relpath, data[:256]) in imports.PYTHON_KINDS
            ):
                scan = FileScan(relpath, data, root / relpath, packages_memo(ctx.config.memo))
            scans[relpath] = scan
        return scans[relpath]

    files = sorted(ctx.files)
    findings: list[Finding] = []
    for label, allow, has_violation in sections:
        for entry in allow.entries:
            matched = _matching(entry, files)
            if not matched:
                findings.append(
                    Finding(
                        entry.source,
                        entry.line,
                        1,
                        RULE_ID,
                        f"allow entry `{entry.glob}` of {label} matches no file; remove it",
                    )
                )
                continue
            shields = False
            for relpath in matched:
                scan = scan_of(relpath)
                if scan is None:
                    continue
                try:
                    shields = has_violation(scan)
                except ScanSyntaxError:
                    shields = True  # cannot tell; keep the entry
                if shields:
                    break
            if not shields:
                findings.append(
                    Finding(
                        entry.source,
                        entry.line,
                        1,
                        RULE_ID,
                        f"allow entry `{entry.glob}` of {label} no longer shields any violation "
                        f"({len(matched)} file{'s' if len(matched) != 1 else ''} matched); "
                        "remove it",
                    )
                )
    return findings


RULE = register(
    RepoRule(
        id=RULE_ID,
        summary="allow entries of forbidden-import and torch-cuda still shield a violation",
        check=check,
        doc=DOC,
        group="source",
        config=("forbidden-import", "torch-cuda"),
    )
)
