# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""TOML reading: the one home of the tomllib/tomli fallback, bounded in size and depth.

A PR author controls every ``pyproject.toml`` policytool parses, so a file is read through
:func:`policytool.files.read_bounded` (size cap, no devices or FIFOs) and its nesting is
measured before ``tomllib`` recurses into it: 3,000 nested arrays are one sentence, not a
``RecursionError``. Edits go through ``tomlkit`` where they happen; this module only reads.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from policytool.errors import TomlError
from policytool.files import MAX_CONFIG_BYTES, decode_text, read_bounded

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
