# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Text edits of round-trip YAML, and bounded walks of what was parsed.

The fixers never dump YAML (ruamel's dumper re-indents and moves comments); they edit
the text line by line with the positions :mod:`policytool.formats.yamldoc` parsed, and
re-parse the result. These are the edits shared by the pre-commit and Mergify fixers:
lines split the way the parser counts them (CR-only files included), a key set in a
block mapping, the end of a value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from policytool.formats.yamldoc import indent_of, is_blank, is_flow, key_pos


def value_end(lines: Sequence[str], key_row: int, key_col: int) -> int:
    """End (exclusive) of the lines holding the value of the key on ``key_row``."""
    end = key_row + 1
    while end < len(lines):
        line = lines[end]
        if is_blank(line) or indent_of(line) > key_col:
            end += 1
        elif indent_of(line) == key_col and line[key_col:].startswith("- "):
            end += 1  # a block sequence written at the key's own indentation
        else:
            break
    while end > key_row + 1 and is_blank(lines[end - 1]):
        end -= 1
    return end


def trailing_comment(line: str) -> str:
    """The ``  # comment`` at the end of a one-line value, with its leading blanks."""
    match = re.search(r"\s+#[^'\"\]]*$", line.rstrip("\r\n"))
    return match.group(0) if match else ""


def flow_list(items: Sequence[str]) -> str:
    """``[a, b]`` for plain stage names and hook ids."""
    return "[" + ", ".join(items) + "]"


def set_key(
    lines: list[str],
    mapping: object,
    key: str,
    value: str,
    newline: str,
    after_key: str | None = None,
) -> bool:
    """Set ``key: value`` in a block mapping by editing ``lines``; False if not possible.

    An own key has its value lines replaced (a trailing comment on a one-line value is
    kept); a missing key is inserted on the line after ``after_key``'s value, at its
    indentation.
    """
    if not isinstance(mapping, dict) or is_flow(mapping):
        return False
    own = key_pos(mapping, key)
    if own is not None:
        row, col = own
        end = value_end(lines, row, col)
        comment = trailing_comment(lines[row]) if end == row + 1 else ""
        prefix = lines[row][:col]
        lines[row:end] = [f"{prefix}{key}: {value}{comment}{newline}"]
        return True
    anchor = key_pos(mapping, after_key) if after_key is not None else None
    if anchor is None:
        return False
    row, col = anchor
    end = value_end(lines, row, col)
    if end == len(lines):
        ensure_line_end(lines, newline)
    lines.insert(end, f"{' ' * col}{key}: {value}{newline}")
    return True


# --- line endings ---------------------------------------------------------------------

# YAML's line breaks: CRLF, CR alone and LF (what the parser counts lines by).


def newline_of(lines: Sequence[str]) -> str:
    """The line ending of the first line (LF when there is none)."""
    first = lines[0] if lines else "\n"
    for ending in ("\r\n", "\r", "\n"):
        if first.endswith(ending):
            return ending
    return "\n"


def ensure_line_end(lines: list[str], newline: str) -> None:
    """Give the last line a line ending (of any kind) so text can be appended after it."""
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
