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
from policytool.core.atomic import recording, unwritable_reason, write_atomic
from policytool.core.boundary import MAX_SOURCE_BYTES, read_bounded
from policytool.core.forking import single_threaded
from policytool.core.globs import match_any
from policytool.core.kinds import is_binary, kind_of
from policytool.core.text import split_lines
from policytool.engine.crash import crash_finding
from policytool.engine.findings import Finding
from policytool.engine.fixes import fixed_data
from policytool.engine.registry import (
    RULE_INDEX,
    FileRule,
    RepoContext,
    RepoRule,
    file_rules,
    kinds_read_by,
    repo_rules,
)
from policytool.engine.source import DecodeFailure, SourceFile
from policytool.errors import FileError, PolicyError, WriteError

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


class _Pass:
    """What checking one file needs, worked out once a run: each rule with its kinds.

    A plain class, not a dataclass: building one at import costs every hook call 1 ms.
    """

    __slots__ = ("config", "fix", "kinds", "root", "rules")

    def __init__(self, config: Config, rules: Sequence[FileRule], fix: bool) -> None:
        """The pass of ``rules`` over the repository of ``config``."""
        self.root = str(config.root)
        self.config = config
        self.fix = fix
        # Each rule with the kinds it reads (None: every kind).
        self.rules = tuple((rule, rule.kinds(config)) for rule in rules)
        kinds: frozenset[str] | None = frozenset()
        for _rule, rule_kinds in self.rules:
            kinds = None if rule_kinds is None or kinds is None else kinds | rule_kinds
        self.kinds = kinds  # the kinds any rule reads (None: every kind)


def _rules_for(source: SourceFile, run: _Pass) -> list[FileRule]:
    """The rules that may have something to say about ``source``."""
    selected = []
    config = run.config
    for rule, kinds in run.rules:
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
        source.check_decodable()  # once up front, so every rule can rely on the text
    except DecodeFailure as exc:
        return [Finding(source.relpath, exc.line, 1, "undecodable", str(exc))]
    for rule in rules:
        try:
            findings.extend(rule.check(source, config))
        except Exception as exc:  # noqa: BLE001 - a rule-error finding, or raised again
            findings.append(crash_finding(source.relpath, rule.id, exc))
    return findings


# os.open keeps bytes as they are on Windows only with O_BINARY.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)


class _TooLarge(Exception):
    """A file over :data:`MAX_SOURCE_BYTES`: its size and its first 8,000 bytes."""

    def __init__(self, size: int, head: bytes) -> None:
        super().__init__(size)
        self.size = size
        self.head = head


def _read(path: str, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """The whole file (``os.read``: no buffered file object for each of thousands).

    A file larger than ``limit`` is not read: :class:`_TooLarge` carries its head. A file
    that grows past the limit while it is read is cut there and refused the same way.
    """
    fd = os.open(path, _READ_FLAGS)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise _TooLarge(size, os.read(fd, 8000))
        parts = []
        total = 0
        while True:
            part = os.read(fd, 1 << 18)
            if not part:
                break
            parts.append(part)
            total += len(part)
            if total > limit:
                raise _TooLarge(total, b"".join(parts)[:8000])
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _too_large(run: _Pass, relpath: str, kind: str | None, big: _TooLarge) -> Finding | None:
    """The finding for a text file over the bound that a selected rule reads (None for a
    binary file or one no rule looks at: those are skipped as before)."""
    if is_binary(big.head):
        return None
    kind = kind if kind is not None else kind_of(relpath, big.head[:256])
    config = run.config
    if not any(
        (kinds is None or kind in kinds) and (rule.applies is None or rule.applies(relpath, config))
        for rule, kinds in run.rules
    ):
        return None
    mib = MAX_SOURCE_BYTES // (1024 * 1024)
    return Finding(
        relpath,
        1,
        1,
        "undecodable",
        f"not checked: {big.size:,} bytes, over the {mib} MiB limit for a source file "
        "(leave generated files out with `exclude`)",
    )


def check_file(run: _Pass, relpath: str, into: RunResult) -> None:
    """Check (and with ``fix`` mend) one file, adding what it finds to ``into``."""
    named = "." in relpath.rsplit("/", 1)[-1]  # a suffix says the kind; else the shebang
    kind = kind_of(relpath, b"") if named else None
    if named and run.kinds is not None and kind not in run.kinds:
        into.files_checked += 1  # known kind no rule looks at: not even read
        return
    path = os.path.join(run.root, relpath)  # strings: pathlib is slow at this volume
    try:
        data = _read(path)
    except OSError as exc:
        into.findings.append(Finding(relpath, 1, 1, "undecodable", f"cannot read: {exc.strerror}"))
        return
    except _TooLarge as big:
        finding = _too_large(run, relpath, kind if named else None, big)
        if finding is not None:
            into.files_checked += 1
            into.findings.append(finding)
        return
    if is_binary(data):
        return
    source = SourceFile(relpath, path, data, kind if named else kind_of(relpath, data[:256]))
    selected = _rules_for(source, run)
    has_marker = IGNORE_MARKER in data
    into.files_checked += 1
    if not selected and not has_marker:
        return
    config = run.config
    findings = _check_source(source, selected, config)
    refused = (
        unwritable_reason(Path(path)) if run.fix and any(f.fixable for f in findings) else None
    )
    if refused is not None:
        # A symlink or read-only file is reported, never replaced.
        findings = [
            replace(f, message=f"{f.message} (not fixed: {refused})", fixable=False, fix=None)
            if f.fixable
            else f
            for f in findings
        ]
    elif run.fix and any(f.fixable for f in findings):
        original = source.data
        for rule in selected:
            if rule.fix is None or not any(f.rule == rule.id for f in findings):
                continue
            new = fixed_data(source, rule.fix(source, config))
            if new is not None:
                source.replace_data(new)
        if source.data != original:
            try:
                write_atomic(Path(path), source.data, inside=config.root)
            except WriteError as exc:
                raise PolicyError(f"{relpath}: cannot write the fix: {exc.reason}") from None
            into.changed.append(relpath)
            findings = _check_source(source, _rules_for(source, run), config)
    if has_marker or findings:
        try:
            lines = split_lines(source.text, keepends=False)
        except DecodeFailure:
            lines = []
        python = source.kind in ("python", "stub")
        ignored, bare = parse_ignores(lines, relpath, python) if has_marker else ({}, [])
        findings = apply_ignores(findings, ignored) + bare
    into.findings.extend(findings)


def _check_chunk(
    root: Path, relpaths: Sequence[str], rule_ids: Sequence[str], config: Config, fix: bool
) -> RunResult:
    """Check ``relpaths`` in a pool worker (the rules named, not pickled)."""
    registry = file_rules(rule_ids)
    run = _Pass(config, [registry[r] for r in rule_ids], fix)
    result = RunResult()
    for relpath in relpaths:
        check_file(run, relpath, result)
    return result


def _pool_context() -> multiprocessing.context.BaseContext:
    """fork on Linux: workers start in milliseconds with the rules already imported;
    spawn there when other threads are alive (a forked copy could deadlock on their locks)."""
    import multiprocessing

    if sys.platform == "linux":
        return multiprocessing.get_context("fork" if single_threaded() else "spawn")
    return multiprocessing.get_context()


def _chunks(relpaths: Sequence[str], count: int) -> list[Sequence[str]]:
    """``relpaths`` dealt into ``count`` interleaved chunks (each a slice of the whole tree)."""
    return [relpaths[i::count] for i in range(min(count, len(relpaths)))]


def run_file_rules(
    config: Config,
    relpaths: Sequence[str],
    rules: Sequence[FileRule],
    fix: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RunResult:
    """Run file rules over ``relpaths``, in worker processes for large sets."""
    workers = min(os.cpu_count() or 1, 8)
    run = _Pass(config, rules, fix)

    def check(paths: Sequence[str]) -> RunResult:
        """Check ``paths`` in this process."""
        result = RunResult()
        for relpath in paths:
            check_file(run, relpath, result)
        return result

    # `fix --diff` records its writes in this process: no workers.
    serial = len(relpaths) < PARALLEL_THRESHOLD or workers < 2 or not rules or recording()
    if serial:
        result = RunResult()
        step = max(1, len(relpaths) // 50)
        for index, relpath in enumerate(relpaths, start=1):
            check_file(run, relpath, result)
            if progress is not None and (index % step == 0 or index == len(relpaths)):
                progress(index, len(relpaths))
        return result
    if sys.platform == "linux" and single_threaded():
        return _run_forked(relpaths, check, workers, progress)
    return _run_pool(config, relpaths, rules, fix, workers, progress)


def _run_forked(
    relpaths: Sequence[str],
    check: Callable[[Sequence[str]], RunResult],
    workers: int,
    progress: Callable[[int, int], None] | None,
) -> RunResult:
    """Check ``relpaths`` in this process and ``workers - 1`` forked copies of it.

    This process checks the first chunk alone, so the copies inherit what it built
    (the run's memo: import plans, allow lists; compiled regexes; imported modules)
    instead of each building its own; nothing but the results is pickled. The other
    chunks are dealt through a pipe holding one byte per chunk: whichever process is
    free reads the next, so a slow chunk does not hold the others up.
    """
    chunks = _chunks(relpaths, _CHUNKS)
    result = check(chunks[0])
    done = result.files_checked
    if progress is not None:
        progress(done, len(relpaths))
    queue, feed = os.pipe()
    os.write(feed, bytes(range(1, len(chunks))))  # fits: a pipe holds 4 KiB at least
    os.close(feed)
    children: list[tuple[int, int]] = []
    try:
        for _ in range(workers - 1):
            try:
                children.append(_fork_worker(queue, chunks, check))
            except OSError:
                break  # no process to spare: the ones there are take every chunk
        for index in _dealt(queue):
            part = check(chunks[index])
            result.merge(part)
            done += part.files_checked
            if progress is not None:
                progress(done, len(relpaths))
        while children:
            pid, out = children.pop()
            result.merge(_worker_result(pid, out))  # reaps the worker, then raises its error
    finally:
        while os.read(queue, 256):  # on an error here: the workers stop after their chunk
            pass
        os.close(queue)
        for pid, out in children:
            _read_all(out)
            os.waitpid(pid, 0)
    if progress is not None:
        progress(len(relpaths), len(relpaths))
    return result


# Chunks a run is dealt in (one byte each in the pipe): the first, checked before the
# fork to warm the run up, is 1/255 of the files (35 on vLLM); small chunks even out the
# load, and taking one costs a one-byte read.
_CHUNKS = 255


def _dealt(queue: int) -> Iterable[int]:
    """The indexes of the chunks this process takes from the pipe, until it is empty."""
    while True:
        byte = os.read(queue, 1)
        if not byte:
            return
        yield byte[0]


def _fork_worker(
    queue: int, chunks: Sequence[Sequence[str]], check: Callable[[Sequence[str]], RunResult]
) -> tuple[int, int]:
    """Fork a process that checks the chunks it takes from ``queue``; (pid, its result pipe).

    The child writes ``ok`` and its pickled :class:`RunResult`, ``error`` and a
    :class:`PolicyError`'s message, or ``crash`` and a traceback, then exits at once:
    nothing unwinds into the parent's stack or runs its exit handlers.
    """
    out, into = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(out)
        os.close(into)
        raise
    if pid:
        os.close(into)
        return pid, out
    os.close(out)
    try:
        try:
            import pickle

            result = RunResult()
            for index in _dealt(queue):
                result.merge(check(chunks[index]))
            payload = b"ok" + pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
        except PolicyError as exc:
            payload = b"error" + str(exc).encode("utf-8", "surrogateescape")
        except BaseException:  # noqa: BLE001  # policytool: ignore[broad-except] - the parent re-raises it
            import traceback

            payload = b"crash" + traceback.format_exc().encode("utf-8", "replace")
        _write_all(into, payload)
    finally:
        os._exit(0)


def _worker_result(pid: int, out: int) -> RunResult:
    """The result a forked worker sends; its error raised here."""
    import pickle

    payload = _read_all(out)
    _, status = os.waitpid(pid, 0)
    if payload.startswith(b"ok"):
        result: RunResult = pickle.loads(payload[2:])
        return result
    if payload.startswith(b"error"):
        raise PolicyError(payload[5:].decode("utf-8", "surrogateescape"))
    if payload.startswith(b"crash"):
        raise RuntimeError("a worker process failed:\n" + payload[5:].decode("utf-8", "replace"))
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        raise PolicyError(
            f"a worker process was killed by signal {number} ({_signal_name(number)}) mid-run"
        )
    raise PolicyError(f"a worker process ended without a result (wait status {status})")


def _signal_name(number: int) -> str:
    """``SIGKILL`` for 9; the number when it names no signal."""
    import signal

    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _read_all(fd: int) -> bytes:
    """Everything until end of file from ``fd``, which is then closed."""
    parts = []
    while True:
        part = os.read(fd, 1 << 16)
        if not part:
            break
        parts.append(part)
    os.close(fd)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (a pipe takes 64 KiB at a time)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _run_pool(
    config: Config,
    relpaths: Sequence[str],
    rules: Sequence[FileRule],
    fix: bool,
    workers: int,
    progress: Callable[[int, int], None] | None,
) -> RunResult:
    """Check ``relpaths`` in a process pool (where ``fork`` is not the way processes start)."""
    # Imported here: a pre-commit call on a few files never pays for multiprocessing.
    from concurrent.futures import ProcessPoolExecutor

    rule_ids = [r.id for r in rules]
    result = RunResult()
    done = 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context()) as pool:
        futures = [
            pool.submit(_check_chunk, config.root, chunk, rule_ids, config, fix)
            for chunk in _chunks(relpaths, workers * 8)
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

    Decided from the kinds those rules declare (only their own modules are imported, no
    parser), so a hook call over files its rules skip returns at start-up cost. False
    when unsure.
    """
    if not rule_ids:
        return False
    kinds = kinds_read_by(rule_ids, config)
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

    # The index's order is the run order, whatever order the modules were imported in:
    # a fixer whose file another rule reads runs first (the pre-commit config before the
    # Mergify tip that quotes it).
    order = {rule_id: at for at, rule_id in enumerate(RULE_INDEX)}

    def place(rule: FileRule | RepoRule) -> int:
        return order.get(rule.id, len(order))

    return (
        sorted((r for r in files.values() if wanted(r.id)), key=place),
        sorted((r for r in repos.values() if wanted(r.id)), key=place),
    )


def run_repo_rules(
    config: Config,
    rules: Sequence[RepoRule],
    files: Sequence[str],
    full_run: bool,
    fix: bool = False,
    online: bool = False,
    baseline_from: str | None = None,
) -> RunResult:
    """Run the repo rules that apply: all on a full run, else those a given file triggers."""
    ctx = RepoContext(config, files, full_run, online, baseline_from)
    result = RunResult()
    for rule in rules:
        if not full_run and not any(match_any(f, rule.triggers(config)) for f in files):
            continue
        unwritable: dict[str, str] = {}
        if fix and rule.fixes is not None:
            from policytool.engine.fixes import apply_fixes  # only a fix run applies edits

            applied = apply_fixes(config.root, [f.fix for f in rule.fixes(ctx) if f.fix])
            result.changed.extend(applied.changed)
            unwritable = applied.unwritable
        # The re-check: what the fixes left (a symlink or read-only file says why).
        result.findings.extend(
            replace(f, message=f"{f.message} (not fixed: {why})", fixable=False, fix=None)
            if f.fixable and (why := unwritable.get(f.path)) is not None
            else f
            for f in rule.check(ctx)
        )
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
                text = split_lines(data.decode("utf-8", "replace"), keepends=False)
                python = finding.path.endswith((".py", ".pyi"))
                cache[finding.path] = parse_ignores(text, finding.path, python)[0]
            else:
                cache[finding.path] = {}
        if finding.rule not in cache[finding.path].get(finding.line, ()):
            kept.append(finding)
    return kept
