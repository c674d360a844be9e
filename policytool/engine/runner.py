# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Run the selected rules over files (in parallel when it pays) and the repo rules.

One pass a file: read the bytes once, skip binaries, dismiss the file for each rule
whose prefilter says it cannot match, decode and parse only when a rule needs it,
apply ``# policytool: ignore[...]`` comments, and (for ``fix``) write the mended bytes
atomically.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import (
    FileRule,
    RepoContext,
    RepoRule,
    file_rules,
    repo_rules,
    static_kinds,
)
from policytool.engine.source import DecodeFailure, SourceFile
from policytool.errors import FileError, PolicyError, WriteError
from policytool.files import (
    is_binary,
    kind_of,
    match_any,
    read_bounded,
    unwritable_reason,
    write_atomic,
)

if TYPE_CHECKING:
    import multiprocessing.context

# Below this many files one process is faster than starting workers.
PARALLEL_THRESHOLD = 400
IGNORE_MARKER = b"policytool: ignore"
_IGNORE_RE = re.compile(r"(?:#|//)\s*policytool:\s*ignore(?P<ids>\[[^\]]*\])?")


@dataclass
class RunResult:
    """Findings of a run, the files it looked at, and the files fix changed."""

    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0
    changed: list[str] = field(default_factory=list)

    def merge(self, other: RunResult) -> None:
        """Add another result to this one."""
        self.findings.extend(other.findings)
        self.files_checked += other.files_checked
        self.changed.extend(other.changed)


def _comments(text_lines: Sequence[str], python: bool) -> Iterable[tuple[int, int, str]]:
    """(line, col offset, text) of the places an ignore comment may stand.

    For Python the tokenizer finds real comments, so a string that mentions the
    marker is not taken for one; other files are scanned line by line.
    """
    if python:
        import io
        import tokenize

        source = "".join(line + "\n" for line in text_lines)
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
        except (tokenize.TokenError, SyntaxError):
            tokens = None
        if tokens is not None:
            return [
                (t.start[0], t.start[1], t.string) for t in tokens if t.type == tokenize.COMMENT
            ]
    return [(n, 0, line) for n, line in enumerate(text_lines, start=1)]


def parse_ignores(
    text_lines: Sequence[str], relpath: str, python: bool = False
) -> tuple[dict[int, set[str]], list[Finding]]:
    """Per-line ignored rule ids, and ``bare-ignore`` findings for ignores without ids."""
    ignored: dict[int, set[str]] = {}
    bare: list[Finding] = []
    for number, offset, line in _comments(text_lines, python):
        if "policytool:" not in line:
            continue
        for match in _IGNORE_RE.finditer(line):
            ids = match.group("ids")
            names = {i.strip() for i in ids[1:-1].split(",") if i.strip()} if ids else set()
            if not names:
                bare.append(
                    Finding(
                        relpath,
                        number,
                        offset + match.start() + 1,
                        "bare-ignore",
                        "`policytool: ignore` must name the rule ids it silences, "
                        "e.g. `# policytool: ignore[spdx-header]`",
                    )
                )
            ignored.setdefault(number, set()).update(names)
    return ignored, bare


def apply_ignores(findings: Iterable[Finding], ignored: dict[int, set[str]]) -> list[Finding]:
    """Drop findings whose line carries an ignore naming their rule."""
    return [f for f in findings if f.rule not in ignored.get(f.line, ())]


def _rules_for(source: SourceFile, rules: Sequence[FileRule], config: Config) -> list[FileRule]:
    selected = []
    for rule in rules:
        kinds = rule.kinds(config)
        if kinds is not None and source.kind not in kinds:
            continue
        if rule.applies is not None and not rule.applies(source.relpath, config):
            continue
        if rule.prefilter is not None and not rule.prefilter(source.data, config):
            continue
        selected.append(rule)
    return selected


def _check_source(source: SourceFile, rules: Sequence[FileRule], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    try:
        source.text  # noqa: B018 - decode once up front so every rule can rely on it
    except DecodeFailure as exc:
        return [Finding(source.relpath, exc.line, 1, "undecodable", str(exc))]
    for rule in rules:
        findings.extend(rule.check(source, config))
    return findings


def wanted_kinds(rules: Sequence[FileRule], config: Config) -> frozenset[str] | None:
    """The file kinds any of ``rules`` looks at; None when some rule looks at all."""
    kinds: set[str] = set()
    for rule in rules:
        rule_kinds = rule.kinds(config)
        if rule_kinds is None:
            return None
        kinds |= rule_kinds
    return frozenset(kinds)


def check_file(
    root: Path,
    relpath: str,
    rules: Sequence[FileRule],
    config: Config,
    fix: bool,
    kinds: frozenset[str] | None = None,
) -> RunResult:
    """Check (and with ``fix`` mend) one file; ``kinds`` lets it skip unread files."""
    if (
        kinds is not None
        and "." in relpath.rsplit("/", 1)[-1]
        and kind_of(relpath, b"") not in kinds
    ):
        return RunResult(files_checked=1)  # known kind no rule looks at: not even read
    path = os.path.join(root, relpath)  # strings: pathlib is slow at this volume
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return RunResult([Finding(relpath, 1, 1, "undecodable", f"cannot read: {exc.strerror}")])
    if is_binary(data):
        return RunResult()
    source = SourceFile(relpath, path, data, kind_of(relpath, data[:256]))
    selected = _rules_for(source, rules, config)
    has_marker = IGNORE_MARKER in data
    if not selected and not has_marker:
        return RunResult(files_checked=1)
    findings = _check_source(source, selected, config)
    changed: list[str] = []
    refused = unwritable_reason(Path(path)) if fix and any(f.fixable for f in findings) else None
    if refused is not None:
        # A symlink or read-only file is reported, never replaced.
        findings = [
            replace(f, message=f"{f.message} (not fixed: {refused})", fixable=False)
            if f.fixable
            else f
            for f in findings
        ]
    elif fix and any(f.fixable for f in findings):
        original = source.data
        for rule in selected:
            if rule.fix is None or not any(f.rule == rule.id for f in findings):
                continue
            new = rule.fix(source, config)
            if new is not None and new != source.data:
                source.replace_data(new)
        if source.data != original:
            try:
                write_atomic(Path(path), source.data)
            except WriteError as exc:
                raise PolicyError(f"{relpath}: cannot write the fix: {exc.reason}") from None
            changed.append(relpath)
            findings = _check_source(source, _rules_for(source, rules, config), config)
    if has_marker or findings:
        try:
            lines = source.text.splitlines()
        except DecodeFailure:
            lines = []
        python = source.kind in ("python", "stub")
        ignored, bare = parse_ignores(lines, relpath, python) if has_marker else ({}, [])
        findings = apply_ignores(findings, ignored) + bare
    return RunResult(findings, 1, changed)


def _check_chunk(
    root: Path, relpaths: Sequence[str], rule_ids: Sequence[str], config: Config, fix: bool
) -> RunResult:
    registry = file_rules(rule_ids)
    rules = [registry[r] for r in rule_ids]
    kinds = wanted_kinds(rules, config)
    result = RunResult()
    for relpath in relpaths:
        result.merge(check_file(root, relpath, rules, config, fix, kinds))
    return result


def _pool_context() -> multiprocessing.context.BaseContext:
    """fork on Linux: workers start in milliseconds with the rules already imported."""
    import multiprocessing

    if sys.platform == "linux":
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def run_file_rules(
    config: Config,
    relpaths: Sequence[str],
    rules: Sequence[FileRule],
    fix: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RunResult:
    """Run file rules over ``relpaths``, in worker processes for large sets."""
    root = config.root
    rule_ids = [r.id for r in rules]
    workers = min(os.cpu_count() or 1, 8)
    if len(relpaths) < PARALLEL_THRESHOLD or workers < 2 or not rules:
        result = RunResult()
        kinds = wanted_kinds(rules, config)
        step = max(1, len(relpaths) // 50)
        for index, relpath in enumerate(relpaths, start=1):
            result.merge(check_file(root, relpath, rules, config, fix, kinds))
            if progress is not None and (index % step == 0 or index == len(relpaths)):
                progress(index, len(relpaths))
        return result
    # Imported here: a pre-commit call on a few files never pays for multiprocessing.
    from concurrent.futures import ProcessPoolExecutor

    chunk_count = workers * 8
    chunks = [list(relpaths[i::chunk_count]) for i in range(chunk_count)]
    result = RunResult()
    done = 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context()) as pool:
        futures = [
            pool.submit(_check_chunk, root, chunk, rule_ids, config, fix) for chunk in chunks
        ]
        for future in futures:
            part = future.result()
            result.merge(part)
            done += part.files_checked
            if progress is not None:
                progress(done, len(relpaths))
    return result


def reads_none(config: Config, relpaths: Sequence[str], rule_ids: Sequence[str]) -> bool:
    """Whether no file of ``relpaths`` is of a kind the (file) rules ``rule_ids`` read.

    Decided from the registry's declared kinds, without importing a rule module, so a
    hook call over files its rules skip returns at start-up cost. False when unsure.
    """
    if not rule_ids:
        return False
    kinds = static_kinds(rule_ids, config)
    if kinds is None:
        return False
    for relpath in relpaths:
        head = b""
        if "." not in relpath.rsplit("/", 1)[-1]:  # kind from the shebang
            try:
                with open(os.path.join(config.root, relpath), "rb") as handle:
                    head = handle.read(256)
            except OSError:
                return False
        if kind_of(relpath, head) in kinds:
            return False
    return True


def select_rules(only: Sequence[str], skip: Sequence[str]) -> tuple[list[FileRule], list[RepoRule]]:
    """File and repo rules after ``--only`` / ``--skip`` (ids already validated).

    With ``--only`` only the modules of those rules are imported.
    """
    ids = only or None
    files = file_rules(ids)
    repos = repo_rules(ids)

    def wanted(rule_id: str) -> bool:
        return (not only or rule_id in only) and rule_id not in skip

    return (
        [r for r in files.values() if wanted(r.id)],
        [r for r in repos.values() if wanted(r.id)],
    )


def run_repo_rules(
    config: Config,
    rules: Sequence[RepoRule],
    files: Sequence[str],
    full_run: bool,
    fix: bool = False,
    online: bool = False,
) -> RunResult:
    """Run the repo rules that apply: all on a full run, else those a given file triggers."""
    ctx = RepoContext(config, files, full_run, online)
    result = RunResult()
    for rule in rules:
        if not full_run and not any(match_any(f, rule.triggers(config)) for f in files):
            continue
        if fix and rule.fix is not None:
            result.changed.extend(rule.fix(ctx))
        result.findings.extend(rule.check(ctx))
    result.findings = _ignore_repo_findings(config.root, result.findings)
    return result


def _ignore_repo_findings(root: Path, findings: list[Finding]) -> list[Finding]:
    """Apply ``# policytool: ignore[...]`` to repo-rule findings in the files they name."""
    kept: list[Finding] = []
    cache: dict[str, dict[int, set[str]]] = {}
    for finding in findings:
        if finding.path not in cache:
            try:  # bounded: a finding may name a symlink to /dev/zero or a huge file
                data = read_bounded(root / finding.path, finding.path)
            except (OSError, FileError):
                data = b""
            if IGNORE_MARKER in data:
                text = data.decode("utf-8", "replace").splitlines()
                python = finding.path.endswith((".py", ".pyi"))
                cache[finding.path] = parse_ignores(text, finding.path, python)[0]
            else:
                cache[finding.path] = {}
        if finding.rule not in cache[finding.path].get(finding.line, ()):
            kept.append(finding)
    return kept
