# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Run the sweep: diff -> the registry's added-lines rules on each changed file -> findings.

Cost follows the change: only the Python files the diff touches are read and parsed
(in worker processes when there are many), only statements overlapping added lines
are walked, and the one repo-wide question (is a new ``**kwargs`` key also read in
another file?) is answered once from a per-blob index (``keys``).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import gc
import itertools
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.config import Config
from policytool.core.git import git_root
from policytool.core.globs import match_any
from policytool.engine.crash import crash_finding
from policytool.engine.findings import Finding, Severity, sort_findings
from policytool.engine.registry import SCOPE_ADDED_LINES, FileRule, file_rules, rule_ids_of_group
from policytool.engine.runner import IGNORE_MARKER, apply_ignores, parse_ignores
from policytool.errors import PolicyError
from policytool.rules._pysource import KeyUse, SweepSource, clear_info, sweep_info
from policytool.rules._sweep_config import SweepConfig
from policytool.rules.kwargs_lookup import (
    kwargs_finding,
    moved_reads,
    read_before,
    through_bases,
)
from policytool.sweep.diff import (
    MAX_FILE_BYTES,
    Base,
    Change,
    ChangedFile,
    Head,
    HeadFiles,
    changed_files,
    read_base,
    resolve_base,
)
from policytool.sweep.keys import KeyHits, Spellings, find_keys, tree_reads, worker_pool
from policytool.sweep.moves import MovedCode

# Parse in worker processes from this many changed files (or this many bytes) on.
PARALLEL_FILES = 64
PARALLEL_BYTES = 2_000_000
# Chunks per worker process: enough that the last ones to finish are small.
CHUNKS_PER_WORKER = 8
KWARGS_RULE = "kwargs-lookup"
# A changed file larger than this (generated code, data) is a note, not parsed.
# One file's findings, kwargs key reads to resolve, keys it reads (None: not parsed).
FileResult = tuple[list[Finding], list[KeyUse], frozenset[str] | None]


@dataclass
class SweepResult:
    """What a sweep found and what it looked at."""

    base: Base
    head: Head
    files: list[ChangedFile] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    # Changed Python files that the configured ``exclude`` globs left out.
    excluded: list[str] = field(default_factory=list)
    # Lines of the swept files that are new as a whole (untracked in the work tree).
    whole_lines: int = 0
    # Findings left out because their code moved here from another file of the change.
    moved: int = 0

    @property
    def added_lines(self) -> int:
        """How many added lines the swept files have (whole new files count every line)."""
        return sum(len(f.added) for f in self.files if not f.whole) + self.whole_lines


def sweep_rule_ids() -> list[str]:
    """The ids of the sweep group, in the registry's order (no rule module imported)."""
    return rule_ids_of_group("sweep")


def sweep_rules() -> list[FileRule]:
    """The registered rules that look at the lines a change adds."""
    ids = sweep_rule_ids()
    registry = file_rules(ids)
    return [registry[i] for i in ids if registry[i].scope == SCOPE_ADDED_LINES]


def target_version(config: Config) -> tuple[int, int] | None:
    """The Python the swept code targets: the config key, else requires-python's floor."""
    text = config.section(SweepConfig).target_version
    if text is None:
        text = _requires_python_floor(config.document)
    if text is None:
        return None
    parts = text.strip().split(".")
    if len(parts) < 2 or not all(p.isascii() and p.isdecimal() for p in parts[:2]):
        raise PolicyError(
            f"{config.source}: tool.policytool.sweep.target-version: "
            f"expected a version like '3.10', got {text!r}"
        )
    return int(parts[0]), int(parts[1])


def _requires_python_floor(document: Mapping[str, object]) -> str | None:
    """``X.Y``, the lowest Python ``[project] requires-python`` of the config's
    ``pyproject.toml`` (``document``, as parsed) allows, if it says one."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    project = document.get("project")
    spec = project.get("requires-python") if isinstance(project, dict) else None
    if not isinstance(spec, str):
        return None
    try:
        specifiers = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    floors: list[tuple[int, int]] = []
    for item in specifiers:
        if item.operator in (">=", "~=", "==", ">"):
            try:
                release = Version(item.version.rstrip(".*")).release
            except InvalidVersion:
                continue
            floors.append((release[0], release[1] if len(release) > 1 else 0))
    if not floors:
        return None
    major, minor = min(floors)
    return f"{major}.{minor}"


def sweep(
    config: Config,
    base: str | None,
    head: Head,
    cwd: Path | None = None,
    two_dot: bool = False,
    jobs: int | None = None,
) -> SweepResult:
    """Sweep the change between the merge-base of ``base`` (or ``base`` itself with
    ``two_dot``) and ``head``; ``jobs`` caps the worker processes (default: the CPUs)."""
    root = git_root(cwd or config.root)
    if root is None:
        raise PolicyError(
            f"{cwd or config.root}: not a git repository; sweep compares git revisions"
        )
    resolved, head = resolve_base(root, base, head, two_dot)
    change = changed_files(root, resolved, head)
    excludes = (*config.exclude, *config.section(SweepConfig).exclude)
    files = [f for f in change.files if not match_any(f.path, excludes)]
    left_out = [f.path for f in change.files if match_any(f.path, excludes)]
    head_files = HeadFiles(root, head, [f.path for f in files])
    result = SweepResult(resolved, head, excluded=left_out)
    work = []
    for changed in files:
        size = head_files.sizes.get(changed.path)
        if size is not None and size > MAX_FILE_BYTES:  # a note, never read
            message = f"{size:,} bytes, over the {MAX_FILE_BYTES:,}-byte sweep limit: not swept"
            result.files.append(changed)
            result.findings.append(_note(changed.path, 1, message, "undecodable"))
        elif size is not None:
            work.append(changed)
    target = target_version(config)
    uses: list[KeyUse] = []
    parsed: dict[str, frozenset[str]] = {}
    contents: dict[str, bytes] = {}
    for changed, swept in zip(
        work, _sweep_all(root, work, head_files, contents, config, target, jobs), strict=True
    ):
        if swept is None:
            continue  # gone or unreadable since it was listed
        findings, key_uses, reads = swept
        result.files.append(changed)
        result.findings.extend(findings)
        uses.extend(key_uses)
        if reads is not None:
            parsed[changed.path] = reads
    result.whole_lines = sum(
        _line_count(contents.get(f.path, b"")) for f in result.files if f.whole
    )
    if uses:
        from_uses = {(u.path, u.line, u.col) for u in uses}
        result.findings = [
            f
            for f in result.findings
            if f.rule != KWARGS_RULE or (f.path, f.line, f.col) not in from_uses
        ]
        renamed = {f.path: f.old_path for f in change.files if f.old_path}
        result.findings.extend(
            _resolve_keys(
                root,
                resolved,
                head,
                uses,
                contents,
                change.touched,
                config,
                parsed,
                renamed,
                change.removed,
                [(f.path, f.added, f.whole) for f in result.files],
            )
        )
    if change.removed_spans:
        kept = _not_moved(result.findings, change, result.files, contents, config)
        result.moved = len(result.findings) - len(kept)
        result.findings = kept
    result.findings = sort_findings(_displayable(f) for f in result.findings)
    return result


def _not_moved(
    findings: Sequence[Finding],
    change: Change,
    files: Sequence[ChangedFile],
    contents: Mapping[str, bytes],
    config: Config,
) -> list[Finding]:
    """``findings`` but those of the sweep's rules on code the change moved from another
    file (:mod:`policytool.sweep.moves`)."""
    rules = set(sweep_rule_ids())
    tests = config.section(SweepConfig).test_paths
    by_path = {changed.path: changed for changed in files if changed.path in contents}
    # Two passes, one file's lines held at a time (a release diff changes thousands):
    # every added block is counted before any finding is judged. git numbers lines at
    # "\n" only, as the added line numbers do.
    moved = MovedCode(
        change.removed_by_path(),
        ((contents[path].split(b"\n"), _added(changed)) for path, changed in by_path.items()),
    )
    if not moved:
        return list(findings)
    gone: set[int] = set()
    judged = [f for f in findings if f.rule in rules and f.path in by_path]
    for path, group in itertools.groupby(
        sorted(judged, key=lambda f: f.path), key=lambda f: f.path
    ):
        changed = by_path[path]
        lines = contents[path].split(b"\n")
        own = {changed.path, changed.old_path or changed.path}
        alike = functools.partial(_same_kind, tests, match_any(path, tests))
        gone.update(id(f) for f in group if moved.moved(lines, _added(changed), f.line, own, alike))
    return [f for f in findings if id(f) not in gone]


def _same_kind(tests: Sequence[str], test: bool, path: str) -> bool:
    """Whether ``path`` is test code when ``test`` says the destination is (a test helper
    moved into production code is new there)."""
    return match_any(path, tests) == test


def _added(changed: ChangedFile) -> frozenset[int] | None:
    """The file's added line numbers; None when every line counts."""
    return None if changed.whole else changed.added


def _line_count(data: bytes) -> int:
    """Lines of a file's bytes (a last line without a newline counts)."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _printable(text: str) -> str:
    """``text`` with bytes that are not UTF-8 (surrogate escapes) shown as ``\\xNN``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text


def _displayable(finding: Finding) -> Finding:
    """The finding with a path and message that print: JSON and SARIF stay valid UTF-8."""
    path, message = _printable(finding.path), _printable(finding.message)
    if path is finding.path and message is finding.message:
        return finding
    return dataclasses.replace(finding, path=path, message=message)


def _sweep_all(
    root: Path,
    work: Sequence[ChangedFile],
    head_files: HeadFiles,
    contents: dict[str, bytes],
    config: Config,
    target: tuple[int, int] | None,
    jobs: int | None,
) -> list[FileResult | None]:
    """Every file's findings and key reads (None: no content after all), in worker
    processes for a large change; ``contents`` gets what was read."""
    workers = min(jobs or os.cpu_count() or 1, 8)
    size = sum(head_files.sizes[changed.path] for changed in work)
    if workers < 2 or (len(work) < PARALLEL_FILES and size < PARALLEL_BYTES):
        return _sweep_batch(root, work, head_files, contents, config, target)
    from concurrent.futures import Future

    # Biggest files first, dealt round-robin into many chunks: the workers start on the
    # first chunk while the next ones are read, and take the next chunk when done, so a
    # slow file (or a core busy elsewhere) stalls no one.
    ordered = sorted(range(len(work)), key=lambda i: -head_files.sizes[work[i].path])
    chunk_count = min(len(work), workers * CHUNKS_PER_WORKER)
    chunks = [ordered[i::chunk_count] for i in range(chunk_count)]
    out: list[FileResult | None] = [None] * len(work)
    with worker_pool(workers) as pool:
        futures: list[tuple[list[int], Future[list[FileResult]]]] = []
        for chunk in chunks:
            read = head_files.read([work[i].path for i in chunk])
            present = [i for i in chunk if read[work[i].path] is not None]
            batch: list[tuple[ChangedFile, bytes]] = []
            for i in present:
                data = read[work[i].path]
                assert data is not None
                contents[work[i].path] = data
                batch.append((work[i], data))
            futures.append((present, pool.submit(_sweep_chunk, root, batch, config, target)))
        for present, future in futures:
            for index, part in zip(present, future.result(), strict=True):
                out[index] = part
    return out


def _sweep_batch(
    root: Path,
    work: Sequence[ChangedFile],
    head_files: HeadFiles,
    contents: dict[str, bytes],
    config: Config,
    target: tuple[int, int] | None,
) -> list[FileResult | None]:
    """:func:`_sweep_chunk` here, over the files of ``work`` that can be read."""
    read = head_files.read([changed.path for changed in work])
    present = [(changed, data) for changed in work if (data := read[changed.path]) is not None]
    contents.update((changed.path, data) for changed, data in present)
    swept = iter(_sweep_chunk(root, present, config, target))
    return [next(swept) if read[changed.path] is not None else None for changed in work]


def _sweep_chunk(
    root: Path,
    work: Sequence[tuple[ChangedFile, bytes]],
    config: Config,
    target: tuple[int, int] | None,
) -> list[FileResult]:
    """:func:`sweep_file` over ``work``, with the cyclic garbage collector paused.

    Syntax trees hold no reference cycles (refcounting frees them); the collector
    would only re-scan every live node, again and again while a big file parses.
    """
    rules = sweep_rules()
    paused = gc.isenabled()
    gc.disable()
    try:
        return [sweep_file(root, changed, data, rules, config, target) for changed, data in work]
    finally:
        if paused:
            gc.enable()


def sweep_file(
    root: Path,
    changed: ChangedFile,
    data: bytes,
    rules: Sequence[FileRule],
    config: Config,
    target: tuple[int, int] | None,
) -> FileResult:
    """The sweep rules over one changed file: findings, kwargs reads to resolve, and the
    keys the file reads from kwargs dicts (None when it was not parsed)."""
    path = changed.path
    source = SweepSource(
        path,
        str(root / path),
        data,
        "python",
        added=None if changed.whole else changed.added,
        replaced=changed.replaced,
        read_base=(
            functools.partial(read_base, root, changed.base, changed.old_path or changed.path)
            if changed.base is not None
            else None
        ),
        target=target,
    )
    if len(data) > MAX_FILE_BYTES:
        message = f"{len(data):,} bytes, over the {MAX_FILE_BYTES:,}-byte sweep limit: not swept"
        return [_note(path, 1, message, "undecodable")], [], None
    if b"\0" in data:
        return [_note(path, 1, "binary content (NUL bytes), not swept", "undecodable")], [], None
    try:
        source.tree  # noqa: B018 - parse once up front; every rule relies on it
    except SyntaxError as exc:
        return [_syntax_finding(path, exc, target)], [], None
    except (RecursionError, MemoryError):
        # Nesting past the parser's reach (3.13 says MemoryError, "parser stack
        # overflowed"): Python itself cannot compile what its parser cannot build, so the
        # file is broken for this interpreter, like a syntax error, not one to pass unswept.
        return [_too_deep_to_parse(path, target)], [], None
    except ValueError as exc:
        return [_note(path, 1, f"cannot parse the head version, not swept: {exc}")], [], None
    findings: list[Finding] = []
    unread: list[str] = []  # rules that could not read the file
    crashed: list[Finding] = []  # a rule's own bug: that rule's reading lost, said as ✗
    reads: frozenset[str] | None = None
    try:
        for rule in rules:
            if rule.prefilter is None or rule.prefilter(data, config):
                # One rule that cannot follow an expression this deep costs that rule's
                # reading of the file, as a ✗: the other rules still report, and a pull
                # request cannot pass a finding by nesting something past a rule's reach.
                try:
                    findings.extend(rule.check(source, config))
                except RecursionError:
                    unread.append(rule.id)
                except Exception as exc:  # noqa: BLE001 - a rule-error ✗ below, or raised again
                    crashed.append(crash_finding(path, rule.id, exc))
        try:
            reads = tree_reads(source.tree, sweep_info(source, config).kwargs_dicts())
        except RecursionError:
            unread.extend([] if KWARGS_RULE in unread else [KWARGS_RULE])
        except Exception as exc:  # noqa: BLE001 - a rule-error ✗ below, or raised again
            crashed.append(crash_finding(path, KWARGS_RULE, exc))
    finally:
        # The file's per-rule cache dies with it: a helper that points back at its source
        # makes a cycle, which the paused collector would keep, syntax tree and all, until
        # the chunk ends (436 of vllm-omni's 789 changed files at once).
        clear_info(source)
    uses = source.key_uses
    if IGNORE_MARKER in data:
        lines = data.decode("utf-8", "replace").splitlines()
        ignored, _bare = parse_ignores(lines, path, python=True)
        findings = apply_ignores(findings, ignored)
        uses = [u for u in uses if KWARGS_RULE not in ignored.get(u.line, ())]
    # After the ignores: a comment in the file cannot drop them.
    findings.extend(_too_deep_for(path, rule) for rule in unread)
    findings.extend(crashed)
    return findings, uses, reads


def _note(path: str, line: int, message: str, rule: str = "syntax-error") -> Finding:
    """A file the sweep could not look at: a warning, not counted in the Code quality row."""
    return Finding(path, line, 1, rule, message, Severity.WARNING)


def _too_deep_for(path: str, rule: str) -> Finding:
    """✗: ``rule`` could not read the file, an expression in it being nested past the
    reach of Python's recursion limit (a 1,000-member ``int | ... | None``)."""
    message = (
        f"nested too deeply for {rule} to read (Python's recursion limit): not swept by "
        f"{rule}; split the expression"
    )
    return Finding(path, 1, 1, "syntax-error", message, Severity.ERROR)


def _unparsed(
    path: str, line: int, target: tuple[int, int] | None, what: str, detail: str
) -> Finding:
    """A file this Python cannot parse (``what`` it does: "does not parse"; ``detail``:
    the parser's words): ✗, unless the project targets a newer Python, whose parser may
    take it (newer syntax, deeper nesting): then a note."""
    running = sys.version_info[:2]
    if target is not None and target > running:
        wanted = ".".join(map(str, target))
        here = ".".join(map(str, running))
        return _note(
            path,
            line,
            f"{what} on Python {here}, which runs policytool, and the project targets "
            f"Python {wanted}: not swept; run the sweep on Python {wanted} or newer",
        )
    version = f" for Python {target[0]}.{target[1]}" if target is not None else ""
    message = f"cannot parse the head version{version}, not swept: {detail}"
    return Finding(path, line, 1, "syntax-error", message, Severity.ERROR)


def _too_deep_to_parse(path: str, target: tuple[int, int] | None) -> Finding:
    """A file nested too deeply for this Python's parser (Python cannot compile it
    either)."""
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    detail = f"nested too deeply for Python {here}"
    return _unparsed(path, 1, target, "is nested too deeply to parse", detail)


def _syntax_finding(path: str, exc: SyntaxError, target: tuple[int, int] | None) -> Finding:
    """A file that does not parse: ✗, unless it may be syntax newer than this Python."""
    return _unparsed(path, exc.lineno or 1, target, "does not parse", exc.msg)


def _may_be_spelled(use: KeyUse, hits: KeyHits) -> bool:
    """Whether a read could be the ✗ of a new key spelled in another file: a ``**kwargs``
    read in production code of a key no file read from kwargs before the change, read
    in no other file and held by no constant (the spelled files are read only then)."""
    return not (
        use.in_test
        or use.plain
        or use.drop_site
        or use.forwarded
        or hits.before.get(use.key)
        or hits.constants.get(use.key)
        or len(hits.reads.get(use.key, ())) > (use.path in hits.reads.get(use.key, ()))
    )


def _without(
    ordered: dict[str, list[str]], reads: Mapping[str, set[str]], key: str, path: str
) -> list[str]:
    """The files of ``reads[key]`` but ``path``, sorted; each key's files are sorted once
    (kept in ``ordered``)."""
    files = ordered.get(key)
    if files is None:
        files = ordered[key] = sorted(reads.get(key, set()))
    if path not in reads.get(key, ()):
        return files  # shared: the findings only read it
    index = bisect.bisect_left(files, path)
    return files[:index] + files[index + 1 :]


def _resolve_keys(
    root: Path,
    base: Base,
    head: Head,
    uses: Sequence[KeyUse],
    changed: Mapping[str, bytes],
    touched: set[str],
    config: Config,
    parsed: Mapping[str, frozenset[str]],
    renamed: Mapping[str, str] | None = None,
    removed: Sequence[bytes] = (),
    added: Sequence[tuple[str, frozenset[int], bool]] = (),
) -> list[Finding]:
    """Decide each key read's severity from where else the head reads the same key, and
    whether the base already read it (``renamed``: head path -> base path; ``added``:
    each swept file's added lines, where a new key may be spelled outside a read)."""
    tests = config.section(SweepConfig).test_paths

    def is_test(path: str) -> bool:
        """Test files neither escalate nor are escalated."""
        return match_any(path, tests)

    keys = {u.key for u in uses if not u.drop_site}
    hits = find_keys(root, base, head, keys, changed, touched, is_test, parsed)
    moved = renamed or {}
    spellings = Spellings(
        {path: None if whole else lines for path, lines, whole in added if not is_test(path)},
        changed,
        lambda path: read_base(root, base.sha, moved.get(path, path)),
    )
    uses = through_bases(uses)
    moved_code = moved_reads(uses, removed)  # ``removed``: every line the change removes
    # Each key's reading files sorted once (thousands of files reading one key would sort
    # them again for each read): a read's other files are that list without its own.
    ordered: dict[str, list[str]] = {}
    found = (
        kwargs_finding(
            use,
            _without(ordered, hits.reads, use.key, use.path),
            hits.constants.get(use.key, []),
            read_before(use.key, moved.get(use.path, use.path), hits.before),
            index in moved_code,
            spellings.other_files(use.key, use.path) if _may_be_spelled(use, hits) else [],
        )
        for index, use in enumerate(uses)
    )
    return [finding for finding in found if finding is not None]
