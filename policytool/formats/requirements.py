# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Requirement files as pip reads them: the one parser of policytool.

- :func:`parse_lines`: the logical lines of a text, the way pip's ``req_file.py`` sees
  them: ``\\`` continuations joined, ``#`` comments (at the line start or after
  whitespace) removed, blank lines dropped. Each :class:`Line` keeps the number and
  column of its first physical line, and a requirement the ``[start, end)`` span of its
  text on that line when it lies wholly there (:func:`rewrite_requirements` edits by it).
- Options: ``-r`` / ``--requirement`` and ``-c`` / ``--constraint`` (:class:`Include`, any
  number a line), ``-e`` / ``--editable``, and the options after a requirement such as
  ``--hash`` (:attr:`ReqEntry.options`); other option lines (``--index-url``, ``-f``,
  ``--pre`` ...) are kept as :data:`OPTION` lines. A line that does not parse carries
  its ``errors``; parsing never raises. (pip follows only the first include of a line;
  every one is kept here, so the checks see them all.)
- :func:`walk`: a file and the files it includes, each include resolved relative to the
  including file; cycles are stopped and reported, and so are remote, missing and (when
  asked) out-of-repository includes, for the caller to raise or report.
- :func:`read_lines`: the flat :class:`ReqLine` view the lock code fingerprints.

Names of requirement strings live in :mod:`policytool.formats.requirement`.

Pure text processing with no third-party import, so the offline lock check stays fast.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.core.boundary import read_text
from policytool.errors import FileError, PolicyError

# Line kinds (ReqLine.kind, Line.kind).
REQUIREMENT = "requirement"
INCLUDE = "include"
CONSTRAINT = "constraint"
EDITABLE = "editable"
OPTION = "option"

# Why an include is not followed (Skipped.reason).
REMOTE = "remote"
OUTSIDE = "outside"
MISSING = "missing"
CYCLE = "cycle"

# pip's requirement-file syntax (pip/_internal/req/req_file.py).
_COMMENT_RE = re.compile(r"(^|\s+)#.*$")
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_INCLUDE_OPTIONS = {"-r": "r", "--requirement": "r", "-c": "c", "--constraint": "c"}
_EDITABLE_OPTIONS = ("-e", "--editable")


def is_url(text: str) -> bool:
    """Whether ``text`` starts with a URL scheme (``https://``, ``file://`` ...)."""
    return bool(_SCHEME_RE.match(text))


# --------------------------------------------------------------------------------------
# One text
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReqEntry:
    """One requirement of a requirements file.

    ``line`` is the 1-based physical line it starts on, ``col`` the 1-based column of
    its text there. ``span`` is the ``[start, end)`` character range of ``text`` inside
    that physical line when the text lies wholly on it (else None: not rewritable).
    ``options`` are the tokens after the requirement (``--hash=sha256:...``).
    """

    line: int
    col: int
    text: str
    options: tuple[str, ...] = ()
    editable: bool = False
    span: tuple[int, int] | None = None

    @property
    def has_hash_option(self) -> bool:
        """Whether the line carries ``--hash`` options."""
        return any(opt == "--hash" or opt.startswith("--hash=") for opt in self.options)

    @property
    def hashes(self) -> tuple[str, ...]:
        """The values of the ``--hash`` options (``sha256:...``)."""
        out: list[str] = []
        for index, opt in enumerate(self.options):
            if opt.startswith("--hash="):
                out.append(opt[len("--hash=") :])
            elif opt == "--hash" and index + 1 < len(self.options):
                out.append(self.options[index + 1])
        return tuple(out)


@dataclass(frozen=True)
class Include:
    """A ``-r``/``-c`` option: ``kind`` is ``r`` or ``c``, ``target`` the path as written."""

    line: int
    col: int
    kind: str
    target: str


@dataclass(frozen=True)
class Line:
    """One logical line: comment removed, continuations joined, outer spaces stripped.

    ``line`` / ``col`` (1-based) are where its text starts on its first physical line.
    """

    line: int
    col: int
    text: str
    requirement: ReqEntry | None = None
    includes: tuple[Include, ...] = ()
    errors: tuple[str, ...] = ()  # why (parts of) the line do not parse

    @property
    def kind(self) -> str:
        """REQUIREMENT, EDITABLE, INCLUDE / CONSTRAINT (by its first include) or OPTION."""
        if self.requirement is not None:
            return EDITABLE if self.requirement.editable else REQUIREMENT
        if self.includes:
            return INCLUDE if self.includes[0].kind == "r" else CONSTRAINT
        return OPTION

    @property
    def normalized(self) -> str:
        """The text with every run of white space folded to one space."""
        return " ".join(self.text.split())


def _joined_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, joined line) the way pip joins ``\\`` lines (comments kept)."""
    buffer: list[str] = []
    first = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.endswith("\\") or _COMMENT_RE.match(line):
            if _COMMENT_RE.match(line):
                line = " " + line
            if buffer:
                buffer.append(line)
                yield first, "".join(buffer)
                buffer = []
            else:
                yield number, line
        else:
            if not buffer:
                first = number
            buffer.append(line.strip("\\"))
    if buffer:
        yield first, "".join(buffer)


def _split_args_options(line: str) -> tuple[str, str]:
    """pip's ``break_args_options``: the requirement part and the option part."""
    tokens = line.split(" ")
    args: list[str] = []
    options = tokens[:]
    for token in tokens:
        if token.startswith("-"):
            break
        args.append(token)
        options.pop(0)
    return " ".join(args), " ".join(options)


def parse_lines(text: str) -> list[Line]:
    """The non-blank logical lines of requirements-file ``text`` (no BOM), parsed."""
    physical = text.splitlines()
    out: list[Line] = []
    for number, logical in _joined_lines(text):
        stripped = _COMMENT_RE.sub("", logical).strip()
        if not stripped:
            continue
        first = physical[number - 1] if number - 1 < len(physical) else ""
        start = len(first) - len(first.lstrip())
        args, option_text = _split_args_options(stripped)
        args = args.rstrip()  # a continuation leaves the spaces before its ``\``
        if args:
            span = (start, start + len(args)) if first[start : start + len(args)] == args else None
            options = tuple(option_text.split()) if option_text else ()
            entry = ReqEntry(number, start + 1, args, options, False, span)
            out.append(Line(number, start + 1, stripped, requirement=entry))
            continue
        try:
            tokens = shlex.split(option_text, posix=True)
        except ValueError as exc:
            error = f"`{stripped}` does not parse: {exc}"
            out.append(Line(number, start + 1, stripped, errors=(error,)))
            continue
        out.append(_option_line(tokens, number, start, first, stripped))
    return out


def _option_value(tokens: list[str], index: int, names: Sequence[str]) -> tuple[str | None, int]:
    """The value of option ``tokens[index]`` if it is one of ``names``, and the next index."""
    token = tokens[index]
    for name in names:
        if token == name:
            return (tokens[index + 1], index + 2) if index + 1 < len(tokens) else ("", index + 1)
        if name.startswith("--") and token.startswith(name + "="):
            return token[len(name) + 1 :], index + 1
        if not name.startswith("--") and token.startswith(name) and len(token) > len(name):
            return token[len(name) :].lstrip("="), index + 1
    return None, index


def _option_line(tokens: list[str], number: int, start: int, first: str, text: str) -> Line:
    """The includes, editable requirement and errors of an options line."""
    includes: list[Include] = []
    errors: list[str] = []
    requirement: ReqEntry | None = None
    index = 0
    while index < len(tokens):
        value, after = _option_value(tokens, index, list(_INCLUDE_OPTIONS))
        if value is not None:
            option = tokens[index].split("=", 1)[0]
            kind = _INCLUDE_OPTIONS.get(option) or _INCLUDE_OPTIONS[option[:2]]
            if not value:
                errors.append(f"`{option}` names no file")
            else:
                includes.append(Include(number, start + 1, kind, value))
            index = after
            continue
        value, after = _option_value(tokens, index, _EDITABLE_OPTIONS)
        if value is not None:
            if not value:
                errors.append(f"`{tokens[index]}` names no requirement")
            else:
                col = first.find(value)
                rest = tuple(tokens[after:])
                requirement = ReqEntry(number, (col if col >= 0 else start) + 1, value, rest, True)
            break
        index += 1
    return Line(number, start + 1, text, requirement, tuple(includes), tuple(errors))


@dataclass(frozen=True)
class ParsedRequirements:
    """A requirements file split into requirements, includes and unparsable lines."""

    requirements: list[ReqEntry] = field(default_factory=list)
    includes: list[Include] = field(default_factory=list)
    errors: list[tuple[int, int, str]] = field(default_factory=list)  # (line, col, message)


def parse_requirements_text(text: str) -> ParsedRequirements:
    """Parse requirements-file ``text`` (no BOM) into its requirements and includes."""
    result = ParsedRequirements()
    for line in parse_lines(text):
        if line.requirement is not None:
            result.requirements.append(line.requirement)
        result.includes.extend(line.includes)
        result.errors.extend((line.line, line.col, error) for error in line.errors)
    return result


def rewrite_requirements(text: str, edits: Sequence[tuple[ReqEntry, str]]) -> str:
    """Requirements-file ``text`` with each entry's requirement text replaced.

    Entries come from :func:`parse_lines` of the same text and must have a ``span``;
    line endings, comments and options around them are kept.
    """
    lines = text.splitlines(keepends=True)
    by_line: dict[int, list[tuple[tuple[int, int], str]]] = {}
    for entry, new in edits:
        if entry.span is None:
            raise ValueError(f"line {entry.line}: requirement spans lines; cannot rewrite")
        by_line.setdefault(entry.line - 1, []).append((entry.span, new))
    for index, changes in by_line.items():
        line = lines[index]
        for (start, end), new in sorted(changes, reverse=True):
            line = line[:start] + new + line[end:]
        lines[index] = line
    return "".join(lines)


# --------------------------------------------------------------------------------------
# A file and its includes
# --------------------------------------------------------------------------------------


def include_path(root: Path, including: str, target: str) -> str | None:
    """The repo-relative ``/`` path include ``target`` of file ``including`` names.

    Relative targets are taken from the including file's directory; a path outside
    ``root`` keeps its ``../`` (or absolute) form. None for a URL.
    """
    if is_url(target):
        return None
    target = os.path.expanduser(target).replace(os.sep, "/")
    path = posixpath.normpath(posixpath.join(posixpath.dirname(including), target))
    if posixpath.isabs(path):
        try:
            return Path(path).relative_to(root).as_posix()
        except ValueError:
            return path
    return path


def is_outside(relpath: str) -> bool:
    """Whether a path from :func:`include_path` lies outside the repository."""
    return relpath == ".." or relpath.startswith(("../", "/"))


@dataclass(frozen=True)
class Visit:
    """A logical line of file ``path``, reached through the files ``chain`` (outermost first)."""

    path: str
    line: Line
    chain: tuple[str, ...]
    constrained: bool  # reached through a ``-c`` include: constrains, never requires


@dataclass(frozen=True)
class Skipped:
    """An include of file ``path`` that is not followed, and why (REMOTE ... CYCLE)."""

    path: str
    include: Include
    reason: str
    target: str | None  # the repo-relative file named (None for a URL)


@dataclass(frozen=True)
class Unreadable:
    """A file that cannot be read or decoded."""

    path: str
    error: FileError
    chain: tuple[str, ...]


Event = Visit | Skipped | Unreadable


def walk(
    root: Path,
    relpath: str,
    *,
    follow: bool = True,
    outside: bool = True,
    seen: set[str] | None = None,
    _chain: tuple[str, ...] = (),
    _constrained: bool = False,
) -> Iterator[Event]:
    """Every logical line of ``relpath`` and, with ``follow``, of the files it includes.

    An included file's lines come right after the include line. An include is not
    followed (a :class:`Skipped` event) when it is a URL, names a file that is missing
    or already in the chain of includes (a cycle), or, without ``outside``, lies outside
    the repository. With ``seen`` each file is read once: files in it are passed over
    silently, and every file walked is added to it.
    """
    if seen is not None:
        if relpath in seen:
            return
        seen.add(relpath)
    try:
        text = read_text(root, relpath)
    except FileError as exc:
        yield Unreadable(relpath, exc, _chain)
        return
    chain = (*_chain, relpath)
    for line in parse_lines(text):
        yield Visit(relpath, line, _chain, _constrained)
        if not follow:
            continue
        for include in line.includes:
            target = include_path(root, relpath, include.target)
            if target is None:
                reason: str | None = REMOTE
            elif not outside and is_outside(target):
                reason = OUTSIDE
            elif target in chain:
                reason = CYCLE
            elif not (root / target).is_file():
                reason = MISSING
            else:
                reason = None
            if reason is not None:
                yield Skipped(relpath, include, reason, target)
                continue
            assert target is not None
            yield from walk(
                root,
                target,
                follow=follow,
                outside=outside,
                seen=seen,
                _chain=chain,
                _constrained=_constrained or include.kind == "c",
            )


@dataclass(frozen=True)
class ReqLine:
    """One logical line of a requirement file, as the lock code fingerprints it.

    A line with several includes stands once for each of them.
    """

    path: str  # repo-relative, ``/``-separated
    line: int  # 1-based number of the first physical line
    text: str  # white space folded
    kind: str  # REQUIREMENT, INCLUDE, CONSTRAINT, EDITABLE or OPTION
    target: str | None = None  # for INCLUDE / CONSTRAINT: the repo-relative file named
    constrained: bool = False  # reached through a ``-c`` include: constrains, never requires


def read_lines(root: Path, relpath: str, follow: bool = True) -> list[ReqLine]:
    """Every logical line of ``relpath`` and (with ``follow``) of the files it includes.

    Included files come right after their ``-r`` / ``-c`` line; a file included twice is
    read twice. An unreadable file, a missing or a cyclic include is a PolicyError
    naming the file (and the including line); URLs are listed, not followed.
    """
    out: list[ReqLine] = []
    for event in walk(root, relpath, follow=follow):
        if isinstance(event, Unreadable):
            raise event.error
        if isinstance(event, Skipped):
            where, target = f"{event.path}:{event.include.line}", event.include.target
            if event.reason == CYCLE:
                raise PolicyError(f"{where}: '{target}' includes itself (cycle)")
            if event.reason == MISSING:
                raise PolicyError(f"{where}: included file '{target}' not found")
            continue
        line, text = event.line, event.line.normalized
        if not line.includes:
            out.append(ReqLine(event.path, line.line, text, line.kind, None, event.constrained))
        for include in line.includes:
            kind = INCLUDE if include.kind == "r" else CONSTRAINT
            named = include_path(root, event.path, include.target)
            out.append(ReqLine(event.path, line.line, text, kind, named, event.constrained))
    return out
