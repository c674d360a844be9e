# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``floating-pin``: CI requirements must be exact pins, and fix pins them from the locks.

What is checked (``[tool.policytool.floating-pin]``):

- every requirement file matching ``files`` (default: none, the rule is quiet until
  configured; vLLM's loose ``requirements/*.txt`` are on purpose), following
  ``-r``/``-c`` includes (relative to the including file, each file once, cycles
  stopped); findings in an included file are reported in that file at its line;
- the pyproject dependency lists named in ``pyproject``. Accepted spellings:
  ``project.dependencies`` (or ``dependencies``),
  ``project.optional-dependencies.NAME`` (or ``optional-dependencies.NAME``),
  ``dependency-groups.NAME``; ``NAME`` may be ``*`` for every extra / group, and the
  bare ``optional-dependencies`` / ``dependency-groups`` mean the same. Names compare
  normalized (``Dev_Tools`` = ``dev-tools``); ``{include-group = "x"}`` entries of a
  dependency group are followed.

A requirement passes when it is an exact pin: ``==V`` (not a ``==V.*`` wildcard) or
``===V``. ``>=``, ``~=``, ``<``-only, ``!=``-only and bare names are findings. A URL
requirement (``name @ https://...`` or a bare URL line) passes only with a hash: a
``#sha256=`` (sha384, sha512) fragment or a ``--hash`` option on its line; a VCS
requirement (``git+``, ``hg+``, ``svn+``, ``bzr+``) passes only when it names a full
commit id (40 or 64 hex digits after ``@``), since pip cannot hash-check VCS checkouts.
Local paths (``.``, ``./pkg``, ``-e .``, a wheel file) are versioned with the repository
and pass. A line that does not parse is a finding, never a crash.

The fix pins a named requirement to the single version the matching lock holds (the
``output`` of a ``[[tool.policytool.lock]]``). Locks whose ``inputs``/``constraints``
name the file (or a file that includes it) are asked first, then every lock. A package
missing from every lock, or held at different versions, is left as it is and stays a
finding; so do URL requirements and lines carrying ``--hash`` options (the hashes would
no longer match). Requirement files keep their line endings, BOM, markers, extras and
comments; pyproject edits go through tomlkit, so everything outside the changed strings
survives byte for byte. Lines with ``# policytool: ignore[floating-pin]`` are not fixed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from policytool.config import Config
from policytool.core.boundary import read_bounded, read_text
from policytool.core.git import git_ls_files, git_root
from policytool.core.globs import match_any, match_glob
from policytool.core.text import decode_text
from policytool.engine.findings import Finding
from policytool.engine.fixes import Edit, Fix, Verify
from policytool.engine.lock_config import LockConfig
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import ConfigError, DecodeError, FileError, PolicyError, UnknownListError
from policytool.formats.lockfile import pinned_versions
from policytool.formats.pyproject import (
    entry_line,
    pyproject_items,
    rewrite_pyproject,
)
from policytool.formats.requirement import canonical_name, repin
from policytool.formats.requirements import (
    MISSING,
    OUTSIDE,
    REMOTE,
    ReqEntry,
    Skipped,
    Unreadable,
    Visit,
    include_path,
    is_outside,
    is_url,
    parse_requirements_text,
    walk,
)
from policytool.rules._lock_config import FloatingPinConfig

if TYPE_CHECKING:
    from packaging.requirements import Requirement

RULE_ID = "floating-pin"
_VCS_PREFIXES = ("git+", "hg+", "svn+", "bzr+")
_HASH_FRAGMENT_RE = re.compile(r"#(?:.*&)?(?:sha256|sha384|sha512)=[0-9a-fA-F]+")
_COMMIT_RE = re.compile(r"@(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$")
_ARCHIVE_SUFFIXES = (
    ".whl",
    ".tar.gz",
    ".tgz",
    ".tar.bz2",
    ".tbz",
    ".tar.xz",
    ".txz",
    ".tar",
    ".zip",
)
_IGNORE_RE = re.compile(r"#\s*policytool:\s*ignore\[([^\]]*)\]")


# --------------------------------------------------------------------------------------
# Judging one requirement
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """Why a requirement is not an exact pin; ``name`` is set when fix may pin it."""

    message: str
    name: str | None = None


def _is_url(text: str) -> bool:
    """Whether ``text`` is a bare URL or VCS requirement."""
    return is_url(text) or text.startswith(_VCS_PREFIXES)


def _is_local_path(text: str) -> bool:
    """Whether ``text`` names a local directory or archive (pip treats it as a path)."""
    bare = text.split(";", 1)[0].strip()
    bare = re.sub(r"\[[^\]]*\]$", "", bare)
    return (
        bare in (".", "..")
        or bare.startswith(("./", "../", "/", "~", ".\\", "..\\"))
        or "/" in bare
        or "\\" in bare
        or bare.lower().endswith(_ARCHIVE_SUFFIXES)
    )


MOVABLE_REF = "is a VCS requirement on a movable ref"


def _url_verdict(shown: str, url: str, hashed_by_option: bool) -> Verdict | None:
    """None when a URL requirement is immutable (hash or full commit id)."""
    if url.startswith(_VCS_PREFIXES):
        if _COMMIT_RE.search(url.split("#", 1)[0]):
            return None
        return Verdict(f"`{shown}` {MOVABLE_REF}; pin a full commit id (@<sha>)")
    if hashed_by_option or _HASH_FRAGMENT_RE.search(url):
        return None
    return Verdict(f"`{shown}` is a URL without a hash; add `#sha256=...` or a `--hash` option")


def judge(text: str, hashed_by_option: bool = False, editable: bool = False) -> Verdict | None:
    """None when ``text`` is an exact pin (or otherwise immutable), else the verdict."""
    from packaging.requirements import InvalidRequirement, Requirement

    shown = text.replace("\r", "\\r").replace("\n", "\\n")
    shown = shown if len(shown) <= 120 else shown[:117] + "..."
    if _is_url(text):
        return _url_verdict(shown, text, hashed_by_option)
    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        if editable or _is_local_path(text):
            return None  # a local path is versioned with the checkout
        reason = str(exc).splitlines()[0]
        return Verdict(f"`{shown}` does not parse as a requirement: {reason}")
    if req.url:
        return _url_verdict(shown, req.url, hashed_by_option)
    if editable or _is_local_path(text):
        return None  # ``pkg-1.0-py3-none-any.whl`` also parses as a name
    return _specifier_verdict(shown, req)


def _specifier_verdict(shown: str, req: Requirement) -> Verdict | None:
    """The verdict on a named requirement's version specifier."""
    specs = list(req.specifier)
    for spec in specs:
        if spec.operator == "===" or (spec.operator == "==" and not spec.version.endswith(".*")):
            return None
    if not specs:
        return Verdict(f"`{shown}` has no version; pin it exactly with `==`", req.name)
    wildcard = [s for s in specs if s.operator == "=="]
    if wildcard:
        return Verdict(
            f"`{shown}` is a wildcard (`{wildcard[0]}`), not an exact pin; use `==`", req.name
        )
    operators = ", ".join(sorted({s.operator for s in specs}))
    return Verdict(f"`{shown}` is not an exact pin ({operators}); pin it with `==`", req.name)


# --------------------------------------------------------------------------------------
# Locks
# --------------------------------------------------------------------------------------


def read_lock_versions(path: Path) -> dict[str, set[str]]:
    """Canonical package name -> exact versions pinned in the lock file at ``path``.

    A missing or unreadable lock yields an empty mapping (nothing to pin from).
    """
    try:
        text = decode_text(read_bounded(path, path.name), str(path))
    except (OSError, FileError):
        return {}
    return pinned_versions(text)


def _input_covers(raw: str, relpath: str, label: str | None) -> bool:
    """Whether lock input ``raw`` (``path``, ``pyproject.toml[a,b]``, ``pyproject.toml:g``)
    compiles file ``relpath`` or, for a pyproject, the list ``label``."""
    from policytool.engine.locks import parse_input_spec

    try:
        spec = parse_input_spec(raw, "")
    except PolicyError:
        return False
    if spec.path != relpath:
        return False
    if label is None:
        return True
    if label == "project.dependencies":
        return spec.group is None
    kind, _, name = label.rpartition(".")
    if kind == "project.optional-dependencies":
        return canonical_name(name) in {canonical_name(e) for e in spec.extras}
    return spec.group is not None and canonical_name(spec.group) == canonical_name(name)


@dataclass
class LockIndex:
    """The versions every configured lock holds, read once a run."""

    root: Path
    locks: Sequence[LockConfig]
    _cache: dict[str, dict[str, set[str]]] = field(default_factory=dict)

    def _versions(self, lock: LockConfig) -> dict[str, set[str]]:
        """The versions lock ``lock`` holds (read once)."""
        if lock.name not in self._cache:
            self._cache[lock.name] = read_lock_versions(self.root / lock.output)
        return self._cache[lock.name]

    def resolve(
        self, name: str, sources: Sequence[str], label: str | None = None
    ) -> tuple[str | None, str]:
        """(version, note) for package ``name`` required by files ``sources``.

        ``label`` names the pyproject list the requirement is in (None for requirement
        files). The version is set only when exactly one version is found; the note
        says where it came from or why there is none, for the finding message.
        """
        key = canonical_name(name)
        preferred = [
            lock
            for lock in self.locks
            if any(
                _input_covers(raw, source, label)
                for raw in (*lock.inputs, *lock.constraints)
                for source in sources
            )
        ]
        for group in (preferred, list(self.locks)):
            found: dict[str, list[str]] = {}
            for lock in group:
                for version in sorted(self._versions(lock).get(key, ())):
                    found.setdefault(version, []).append(lock.name)
            if len(found) == 1:
                version, names = next(iter(found.items()))
                return version, f"lock '{names[0]}' holds {version}"
            if found:
                held = "; ".join(f"{v} in {', '.join(n)}" for v, n in sorted(found.items()))
                return None, f"not fixable: locks disagree ({held})"
        if not self.locks:
            return None, "not fixable: no lock configured"
        return None, "not fixable: in no lock"


# --------------------------------------------------------------------------------------
# pyproject dependency lists
# --------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------
# The analysis shared by check and fix
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One finding plus, when fixable, the replacement text for its requirement."""

    path: str
    line: int
    col: int
    message: str
    replacement: str | None = None
    entry: ReqEntry | None = None  # requirement files: the requirement rewritten
    label: str | None = None  # pyproject: list label
    index: int = -1  # pyproject: index in the list

    def finding(self) -> Finding:
        """The public finding."""
        return Finding(
            self.path,
            self.line,
            self.col,
            RULE_ID,
            self.message,
            fixable=self.replacement is not None,
        )


class _Analysis:
    """Walks the configured files once and collects problems."""

    def __init__(self, config: Config) -> None:
        """Start an analysis of ``config``'s repository."""
        self.config = config
        self.root = config.root
        self.locks = LockIndex(self.root, config.entries(LockConfig))
        self.problems: list[Problem] = []
        self.visited: set[str] = set()

    def _problem(
        self,
        path: str,
        line: int,
        col: int,
        verdict: Verdict,
        sources: Sequence[str],
        entry: ReqEntry | None = None,
        text: str | None = None,
        label: str | None = None,
        index: int = -1,
    ) -> None:
        """Record a problem, with the lock version to pin to when there is one."""
        replacement = None
        message = verdict.message
        if verdict.name is not None:
            version, note = self.locks.resolve(verdict.name, sources, label)
            if version is not None and text is not None:
                replacement = repin(text, version)
                if replacement is None:
                    note = f"not fixable: cannot rewrite it safely ({note})"
            message = f"{message} ({'fix: ' if replacement else ''}{note})"
        self.problems.append(Problem(path, line, col, message, replacement, entry, label, index))

    def requirement_file(self, relpath: str) -> None:
        """Check one requirements file and the files it includes (each file once)."""
        for event in walk(self.root, relpath, outside=False, seen=self.visited):
            if isinstance(event, Unreadable):
                error = event.error
                message = error.reason
                if isinstance(error, DecodeError):
                    message += "; pins cannot be checked"
                self.problems.append(Problem(event.path, error.line, 1, message))
            elif isinstance(event, Skipped):
                self._skipped(event)
            else:
                self._line(event)

    def _line(self, visit: Visit) -> None:
        """Check one logical line of a requirements file."""
        relpath, line = visit.path, visit.line
        for message in line.errors:
            self.problems.append(Problem(relpath, line.line, line.col, message))
        entry = line.requirement
        if entry is None:
            return
        verdict = judge(entry.text, entry.has_hash_option, entry.editable)
        if verdict is None:
            return
        fixable = entry.span is not None and not entry.has_hash_option and not entry.editable
        if verdict.name is not None and not fixable:
            why = "it carries --hash options" if entry.has_hash_option else "it spans lines"
            verdict = Verdict(f"{verdict.message} (not fixable: {why})")
        self._problem(
            relpath,
            entry.line,
            entry.col,
            verdict,
            (*visit.chain, relpath),
            entry,
            entry.text if fixable else None,
        )

    def _skipped(self, skipped: Skipped) -> None:
        """Record why an include is not followed (a cycle is no problem: seen already)."""
        include = skipped.include
        why = {
            REMOTE: "a remote include cannot be checked",
            OUTSIDE: "outside the repository, not checked",
            MISSING: "included file not found",
        }.get(skipped.reason)
        if why is not None:
            option = f"-{include.kind} {include.target}"
            self.problems.append(
                Problem(skipped.path, include.line, include.col, f"`{option}`: {why}")
            )

    def pyproject(self) -> None:
        """Check the configured pyproject dependency lists."""
        source = self.config.source
        entries = self.config.section(FloatingPinConfig).pyproject
        if not entries or source is None:
            return
        relpath = _relpath(source, self.root)
        text = decode_text(read_bounded(source, str(source)), str(source))  # FileError: exit 2
        try:
            items, missing = pyproject_items(text, entries, source)
        except UnknownListError as exc:
            raise ConfigError(
                f"{exc.where}tool.policytool.floating-pin.pyproject: {exc.detail}"
            ) from None
        for entry in missing:
            self.problems.append(
                Problem(
                    relpath,
                    entry_line(text, entry),
                    1,
                    f"configured dependency list '{entry}' does not exist",
                )
            )
        for item in items:
            verdict = judge(item.value)
            if verdict is not None:
                self._problem(
                    relpath,
                    item.line,
                    item.col,
                    verdict,
                    (relpath,),
                    None,
                    item.value,
                    item.label,
                    item.index,
                )


def _relpath(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` (its name when outside)."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name


def _requirement_files(ctx: RepoContext) -> list[str]:
    """The configured requirement files: tracked ones plus the files of this run."""
    config = ctx.config
    patterns = config.section(FloatingPinConfig).files
    if not patterns:
        return []
    candidates = set(f for f in ctx.files if match_any(f, patterns))
    if not ctx.full_run:
        if git_root(ctx.root) is not None:
            candidates.update(f for f in git_ls_files(ctx.root) if match_any(f, patterns))
        else:
            for pattern in patterns:
                for path in ctx.root.glob(pattern):
                    rel = path.relative_to(ctx.root).as_posix()
                    if path.is_file() and match_glob(rel, pattern):
                        candidates.add(rel)
    return sorted(
        f
        for f in candidates
        if (ctx.root / f).is_file() and not (config.exclude and match_any(f, config.exclude))
    )


def analyse(ctx: RepoContext) -> list[Problem]:
    """Every floating-pin problem of the repository."""
    analysis = _Analysis(ctx.config)
    for relpath in _requirement_files(ctx):
        analysis.requirement_file(relpath)
    analysis.pyproject()
    return analysis.problems


def check(ctx: RepoContext) -> list[Finding]:
    """Findings of ``floating-pin``."""
    return [problem.finding() for problem in analyse(ctx)]


# --------------------------------------------------------------------------------------
# Fix
# --------------------------------------------------------------------------------------


def _ignored(line_text: str) -> bool:
    """Whether ``line_text`` carries ``# policytool: ignore[floating-pin]``."""
    return any(
        RULE_ID in {i.strip() for i in m.group(1).split(",")}
        for m in _IGNORE_RE.finditer(line_text)
    )


def _line_starts(text: str) -> list[int]:
    """The offset of each line of ``text`` (lines as :func:`parse_lines` counts them)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _requirements_of(text: str) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, text, options) of each requirement of requirements-file ``text``."""
    parsed = parse_requirements_text(text)
    return [(r.line, r.text, r.options) for r in parsed.requirements]


def _repin_check(text: str, line: int, replacement: str) -> Verify:
    """The verification of one requirement-file pin: the file is the one read, and its
    requirements parse to the old ones but the one on ``line``, now ``replacement``."""

    def verify(old: str, new: str) -> str | None:
        """None when only that requirement changed."""
        if old != text:
            return "changed since it was read; run the fix again"
        want = [
            (n, replacement if n == line else req, opts) for n, req, opts in _requirements_of(old)
        ]
        if _requirements_of(new) != want:
            return "the pin would change other requirements"
        return None

    return verify


def _lists_check(
    text: str, source: Path, config: Config, edits: dict[tuple[str, int], str]
) -> Verify:
    """The verification of the pyproject pins: the file is the one read, is valid TOML,
    and its configured lists hold the old strings but ``edits``."""
    entries = config.section(FloatingPinConfig).pyproject

    def verify(old: str, new: str) -> str | None:
        """None when only the edited list strings changed."""
        if old != text:
            return "changed since it was read; run the fix again"
        try:
            before = pyproject_items(old, entries, source)[0]
            after = pyproject_items(new, entries, source)[0]
        except PolicyError as exc:
            return str(exc)
        want = {(i.label, i.index): edits.get((i.label, i.index), i.value) for i in before}
        if {(i.label, i.index): i.value for i in after} != want:
            return "the rewrite would change other requirement strings"
        return None

    return verify


def fixes(ctx: RepoContext) -> Iterator[Finding]:
    """Each fixable floating requirement with the fix pinning it to its lock's version.

    A requirement file gets one edit a requirement (its specifier characters); the
    pyproject lists one fix for the file (tomlkit rewrites them together). Every fix is
    computed before the engine writes anything: an unreadable file or a rewrite that
    would not be valid TOML stops the run with every file as it was.
    """
    by_file: dict[str, list[Problem]] = {}
    for problem in analyse(ctx):
        if problem.replacement is not None:
            by_file.setdefault(problem.path, []).append(problem)
    config = ctx.config
    source = config.source
    pyproject_rel = _relpath(source, ctx.root) if source is not None else None
    for relpath, group in sorted(by_file.items()):
        text = decode_text(read_bounded(ctx.root / relpath, relpath), relpath)
        lines = text.splitlines()
        starts = _line_starts(text)
        for p in group:
            entry, new = p.entry, p.replacement
            if entry is None or new is None or entry.span is None:
                continue
            if _ignored(lines[entry.line - 1]):
                continue
            base = starts[entry.line - 1]
            edit = Edit(relpath, base + entry.span[0], base + entry.span[1], new)
            fix = Fix(f"pin `{new}`", (edit,), _repin_check(text, entry.line, new))
            yield replace(p.finding(), fix=fix)
        if source is None or relpath != pyproject_rel:
            continue
        listed = [
            p
            for p in group
            if p.label is not None
            and p.replacement is not None
            and not (0 < p.line <= len(lines) and _ignored(lines[p.line - 1]))
        ]
        edits = {(p.label, p.index): p.replacement for p in listed if p.label and p.replacement}
        if not edits:
            continue
        out = rewrite_pyproject(text, config.section(FloatingPinConfig).pyproject, edits, source)
        fix = Fix(
            f"pin {len(edits)} pyproject requirement(s)",
            (Edit.between(relpath, text, out),),
            _lists_check(text, source, config, edits),
        )
        yield replace(listed[0].finding(), fix=fix)


# --------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------


def triggers(config: Config) -> tuple[str, ...]:
    """Globs whose change re-runs the rule: the files, their includes, pyproject (once a run)."""
    return config.memo.value(("floating-pin.triggers",), lambda: _triggers(config))


def _triggers(config: Config) -> tuple[str, ...]:
    """:func:`triggers`, computed."""
    globs = list(config.section(FloatingPinConfig).files)
    if config.section(FloatingPinConfig).pyproject and config.source is not None:
        globs.append(_relpath(config.source, config.root))
    included: set[str] = set()
    for pattern in config.section(FloatingPinConfig).files:
        for path in config.root.glob(pattern):
            rel = path.relative_to(config.root).as_posix()
            if not path.is_file() or not match_glob(rel, pattern):
                continue
            try:
                text = read_text(config.root, rel)
            except FileError:
                continue
            for include in parse_requirements_text(text).includes:
                target = include_path(config.root, rel, include.target)
                if target is not None and not is_outside(target):
                    included.add(target)
    return tuple(globs + sorted(included))


DOC = """\
## What it checks

The requirement files matching `files` (following their `-r` / `-c` includes) and the
pyproject dependency lists named in `pyproject` pin exact versions: `==V` or `===V`.
`>=`, `~=`, `<`-only, `!=`-only, bare names and `==V.*` wildcards are findings; a URL
requirement needs a hash (`#sha256=` or `--hash`), a VCS requirement a full commit id.
Local paths pass. Nothing is checked until `files` or `pyproject` is configured.

## Why

A floating requirement in a CI install resolves to whatever was released last night,
so the same commit passes on Monday and fails on Tuesday. Loose install requirements
(vLLM's `requirements/*.txt`, read by `pip install -e .`) are a choice, so the rule only
looks where it is told to.

## Example

With `files = ["requirements/ci.txt"]`, this file fails:

```text
# requirements/ci.txt
pytest>=8
```

```text
requirements/ci.txt:2:1: floating-pin `pytest>=8` is not an exact pin (>=); \
pin it with `==` (fix: lock 'test' holds 8.3.4)
```

## Fix

`policytool fix --only floating-pin` pins each requirement to the one version the
matching lock holds (the lock compiling the file is asked first, then every lock);
a package in no lock, or at different versions, is left for a human. A line with
`# policytool: ignore[floating-pin]` is not reported or fixed.

## Configuration

`[tool.policytool.floating-pin]`: `files` (globs, e.g. `["requirements/ci/*.txt"]`;
default none) and `pyproject` (`project.dependencies`, `optional-dependencies.NAME`,
`dependency-groups.NAME`, `*` for all; default none).
"""

RULE = register(
    RepoRule(
        id=RULE_ID,
        summary="CI requirement files and configured pyproject lists pin exact versions "
        "(==), URLs carry a hash; fix pins from the locks",
        check=check,
        triggers=triggers,
        fixes=fixes,
        doc=DOC,
        group="lock",
        config=("floating-pin",),
    )
)
