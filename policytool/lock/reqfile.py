# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Requirement files as pip reads them: logical lines, comments, ``-r`` / ``-c`` includes.

Pure text processing with no third-party import, so the offline lock check stays fast.
"""

from __future__ import annotations

import codecs
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from policytool.errors import PolicyError

# pip: a comment starts at ``#`` at the line start or after whitespace.
_COMMENT_RE = re.compile(r"(^|\s+)#.*$")
_INCLUDE_RE = re.compile(
    r"^(?:(?P<short>-r|-c)\s*|(?P<long>--requirement|--constraint)(?:\s*=\s*|\s+))(?P<target>\S+)$"
)

REQUIREMENT = "requirement"
INCLUDE = "include"
CONSTRAINT = "constraint"
EDITABLE = "editable"
OPTION = "option"


@dataclass(frozen=True)
class ReqLine:
    """One logical line of a requirement file, comment-stripped and continuation-joined."""

    path: str  # repo-relative, ``/``-separated
    line: int  # 1-based number of the first physical line
    text: str
    kind: str  # REQUIREMENT, INCLUDE, CONSTRAINT, EDITABLE or OPTION
    target: str | None = None  # for INCLUDE / CONSTRAINT: the repo-relative file named
    constrained: bool = False  # reached through a ``-c`` include: constrains, never requires


def decode(data: bytes, path: str) -> str:
    """UTF-8 text of a requirement file (BOM dropped); a PolicyError names the file."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise PolicyError(f"{path}:{line}: not valid UTF-8") from None


def logical_lines(text: str) -> list[tuple[int, str]]:
    """``(first line number, text)`` of each non-empty logical line, comments removed."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _COMMENT_RE.sub("", raw)
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        pending.append(line)
        joined = " ".join(" ".join(pending).split())
        pending = []
        if joined:
            out.append((start, joined))
    if pending:
        joined = " ".join(" ".join(pending).split())
        if joined:
            out.append((start, joined))
    return out


def classify(text: str) -> tuple[str, str | None]:
    """The kind of a logical line and, for includes, the file it names (as written)."""
    match = _INCLUDE_RE.match(text)
    if match:
        opt = match.group("short") or match.group("long")
        kind = INCLUDE if opt in ("-r", "--requirement") else CONSTRAINT
        return kind, match.group("target")
    if text.startswith(("-e ", "--editable ", "--editable=", "-e.")):
        return EDITABLE, None
    if text.startswith("-"):
        return OPTION, None
    return REQUIREMENT, None


def read_lines(
    root: Path,
    relpath: str,
    follow: bool = True,
    _seen: frozenset[str] = frozenset(),
    _constrained: bool = False,
) -> list[ReqLine]:
    """Every logical line of ``relpath`` and (with ``follow``) of the files it includes.

    Included files come right after their ``-r`` / ``-c`` line. A missing or cyclic
    include is a PolicyError naming the including file and line; URLs are not followed.
    """
    try:
        data = (root / relpath).read_bytes()
    except FileNotFoundError:
        raise PolicyError(f"{relpath}: no such file") from None
    except OSError as exc:
        raise PolicyError(f"{relpath}: cannot read: {exc.strerror}") from None
    text = decode(data, relpath)
    seen = _seen | {relpath}
    out: list[ReqLine] = []
    for number, line in logical_lines(text):
        kind, target = classify(line)
        if kind in (INCLUDE, CONSTRAINT) and target is not None and "://" not in target:
            rel = posixpath.normpath(posixpath.join(posixpath.dirname(relpath), target))
            out.append(ReqLine(relpath, number, line, kind, rel, _constrained))
            if not follow:
                continue
            if rel in seen:
                raise PolicyError(f"{relpath}:{number}: '{target}' includes itself (cycle)")
            if not (root / rel).is_file():
                raise PolicyError(f"{relpath}:{number}: included file '{target}' not found")
            out.extend(read_lines(root, rel, follow, seen, _constrained or kind == CONSTRAINT))
        else:
            out.append(ReqLine(relpath, number, line, kind, None, _constrained))
    return out
