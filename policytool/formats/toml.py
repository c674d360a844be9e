# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""TOML reading: the one home of the tomllib/tomli fallback, bounded in size and depth.

A PR author controls every ``pyproject.toml`` policytool parses, so a file is read through
:func:`policytool.core.read_bounded` (size cap, no devices or FIFOs) and its nesting is
measured before ``tomllib`` recurses into it: 3,000 nested arrays are one sentence, not a
``RecursionError``. Edits go through ``tomlkit`` where they happen; this module only reads.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from policytool.core.boundary import MAX_CONFIG_BYTES, read_bounded
from policytool.core.text import decode_text
from policytool.errors import TomlError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,no-redef,unused-ignore]

# Arrays and inline tables nested deeper than this are refused (pyproject files nest 3-5).
MAX_DEPTH = 64

# What can hold a bracket that does not nest: strings (all four kinds) and comments.
_TOKEN_RE = re.compile(
    r'"""(?:\\.|[^\\])*?"""|\'\'\'.*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]',
    re.DOTALL,
)


def nesting_depth(text: str, limit: int = MAX_DEPTH) -> tuple[int, int]:
    """(deepest bracket nesting seen, capped just past ``limit``; the line it reached it on).

    Brackets inside strings and comments do not count. Table headers (``[a.b]``,
    ``[[a]]``) open and close on one line, so they count as 1 or 2.
    """
    if text.count("[") + text.count("{") <= limit:
        return 0, 0  # cannot be deeper than the number of brackets it has
    depth = deepest = 0
    for match in _TOKEN_RE.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest, text.count("\n", 0, match.start()) + 1
        elif token in ("]", "}"):
            depth = max(0, depth - 1)
    return deepest, 0


def loads(text: str, shown: str) -> dict[str, object]:
    """Parse TOML ``text``; :class:`TomlError` names ``shown`` (and the line) when it cannot."""
    deepest, line = nesting_depth(text)
    if deepest > MAX_DEPTH:
        raise TomlError(f"{shown}:{line}: invalid TOML: nested deeper than {MAX_DEPTH} levels")
    try:
        data: dict[str, object] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlError(f"{shown}: invalid TOML: {exc}") from None
    return data


def load_file(
    path: Path, shown: str, limit: int = MAX_CONFIG_BYTES
) -> tuple[str, dict[str, object]]:
    """(text, table) of TOML file ``path``, bounded by ``limit`` bytes; errors name ``shown``."""
    text = decode_text(read_bounded(path, shown, limit), shown)
    return text, loads(text, shown)


# --- key positions ----------------------------------------------------------------------
# tomllib keeps no positions, so the lines of keys (for messages) come from one scanner of
# the statement structure: table headers (``[a.b]``, ``[[a.b]]`` counted per occurrence),
# ``dotted.key = value`` lines, and the items of a top-level array value.

KeyPath = tuple["str | int", ...]

_KEY = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\')'
_DOTTED = _KEY + r"(?:[ \t]*\.[ \t]*" + _KEY + r")*"
_HEADER_RE = re.compile(r"[ \t]*(\[\[?)[ \t]*(" + _DOTTED + r")[ \t]*\]")
_ASSIGN_RE = re.compile(r"[ \t]*(" + _DOTTED + r")[ \t]*=")
_PART_RE = re.compile(_KEY)
_VALUE_RE = re.compile(
    r'"""(?:\\.|[^\\])*?"""|\'\'\'.*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\''
    r"|#[^\n]*|[\[\]{},\n]|[^\s,\[\]{}#\"']+",
    re.DOTALL,
)


def split_dotted(dotted: str) -> list[str]:
    """``a."b.c".d`` -> ``["a", "b.c", "d"]`` (quotes dropped, escapes kept as written)."""
    out = []
    for match in _PART_RE.finditer(dotted):
        part = match.group()
        out.append(part[1:-1] if part[:1] in ("'", '"') else part)
    return out


def key_lines(text: str) -> dict[KeyPath, int]:
    """Every key, table and top-level array item of TOML ``text`` -> its 1-based line.

    Paths hold keys and, for arrays of tables and array items, 0-based indexes:
    ``("tool", "policytool", "forbidden-import", 1, "modules")`` is ``modules`` in the
    second ``[[tool.policytool.forbidden-import]]`` table; ``(..., "allow", 2)`` is the
    third item of its ``allow`` list. The first occurrence of a path wins.
    """
    lines: dict[KeyPath, int] = {}
    counts: dict[KeyPath, int] = {}  # array-of-tables path -> index of its last table
    table: KeyPath = ()
    pos, line, size = 0, 1, len(text)

    def indexed(parts: list[str]) -> KeyPath:
        path: KeyPath = ()
        for part in parts:
            path = (*path, part)
            if path in counts:
                path = (*path, counts[path])
        return path

    while pos < size:
        eol = text.find("\n", pos)
        eol = size if eol == -1 else eol
        header = _HEADER_RE.match(text, pos, eol)
        assign = None if header else _ASSIGN_RE.match(text, pos, eol)
        if header is not None:
            parts = split_dotted(header.group(2))
            if header.group(1) == "[[":
                base = indexed(parts[:-1]) + (parts[-1],)
                counts[base] = counts.get(base, -1) + 1
                table = (*base, counts[base])
            else:
                table = indexed(parts)
            for end in range(1, len(table) + 1):  # [a.b] also says where `a` starts
                lines.setdefault(table[:end], line)
        elif assign is not None:
            key = (*table, *split_dotted(assign.group(1)))
            for end in range(len(table) + 1, len(key) + 1):  # a.b = 1 also places `a`
                lines.setdefault(key[:end], line)
            depth, item, expecting = 0, 0, False
            end = size
            for token in _VALUE_RE.finditer(text, assign.end()):
                value = token.group()
                if value == "\n":
                    if depth == 0:
                        end = token.start()
                        break
                    line += 1
                    continue
                if value[0] == "#":
                    continue
                if depth == 1 and expecting and value not in ("]", "}", ","):
                    lines.setdefault((*key, item), line)
                    expecting = False
                if value in ("[", "{"):
                    depth += 1
                    if depth == 1 and value == "[":
                        expecting = True
                elif value in ("]", "}"):
                    depth -= 1
                elif value == "," and depth == 1:
                    item += 1
                    expecting = True
                line += value.count("\n")
                if depth <= 0 and value in ("]", "}"):
                    depth = 0
            eol = end
        pos = eol + 1
        line += 1
    return lines


def key_line(lines: dict[KeyPath, int], path: KeyPath) -> int | None:
    """The line of ``path`` in :func:`key_lines`' map, else of its longest known prefix."""
    for end in range(len(path), 0, -1):
        found = lines.get(path[:end])
        if found is not None:
            return found
    return None
