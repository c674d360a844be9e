# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Text as policytool reads and writes it: the BOM, the one line splitter, decoding,
re-encoding like the original, JSON.
"""

from __future__ import annotations

import codecs
import re

from policytool.errors import DecodeError

BOM = codecs.BOM_UTF8  # the one UTF-8 byte order mark of policytool


# A line ends at \n, \r\n or \r (the last line may have no ending).
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str, keepends: bool = True) -> list[str]:
    """``text`` split into lines (with their endings unless ``keepends`` is False), where
    Python, YAML and a finding's line number end a line: at ``\\n``, ``\\r\\n`` and
    ``\\r`` only.

    Not ``str.splitlines``, which also breaks at form feeds, NEL and LS/PS, so line N of
    its list is not line N of a file holding one (``\\x0c`` page breaks are common in
    older Python sources).
    """
    lines: list[str] = _LINE_RE.findall(text)
    if keepends:
        return lines
    return [line.rstrip("\r\n") for line in lines]


def decode_text(data: bytes, path: str, encoding: str = "utf-8") -> str:
    """``data`` as text (UTF-8 unless told), a leading UTF-8 BOM dropped.

    Bytes not valid in ``encoding`` raise :class:`DecodeError` naming ``path`` and line.
    """
    body = data[len(BOM) :] if data.startswith(BOM) else data
    try:
        return body.decode(encoding)
    except UnicodeDecodeError as exc:
        line = body[: exc.start].count(b"\n") + 1
        raise DecodeError(path, line, exc.reason, encoding) from None


def encode_like(original: bytes, text: str) -> bytes:
    """``text`` as UTF-8, with a BOM in front when ``original`` starts with one."""
    data = text.encode("utf-8")
    return BOM + data if original.startswith(BOM) else data


# What ``ast.parse`` raises on Python text a pull request controls: not Python
# (SyntaxError), a NUL byte (ValueError), nesting past the parser's reach (RecursionError
# on 3.11+, MemoryError "parser stack overflowed" on 3.13 and at 40,000 levels). The one
# list every parse of such text catches.
PYTHON_PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)


def parse_json(data: bytes | str) -> object:
    """``json.loads``, with nesting too deep for the parser a ``ValueError`` too.

    The one home of JSON parsing: 100,000 ``[`` in a file a pull request controls (the
    baseline) or in an answer from the network is one sentence, never a RecursionError.
    """
    import json

    try:
        parsed: object = json.loads(data)
    except RecursionError:
        raise ValueError("nested too deeply to parse") from None
    return parsed
