# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""One file being checked: its bytes, kind, encoding (PEP 263), and lazily its text and AST."""

from __future__ import annotations

import ast
import codecs
import re
from dataclasses import dataclass, field
from pathlib import Path

from policytool.core.text import BOM, decode_text
from policytool.errors import DecodeError

# PEP 263: the coding cookie on line 1 or 2.
_CODING_RE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


class DecodeFailure(ValueError):
    """The file's bytes are not valid in its encoding; ``line`` is where it broke."""

    def __init__(self, encoding: str, line: int, reason: str) -> None:
        super().__init__(f"not valid {encoding} (line {line}: {reason})")
        self.encoding = encoding
        self.line = line


def coding_cookie(data: bytes) -> str | None:
    """The PEP 263 encoding named on line 1 or 2, if any."""
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first != -1 else -1
    if data.find(b"coding", 0, len(data) if second == -1 else second) == -1:
        return None  # the usual file: no need to split off its first lines
    for line in data.split(b"\n", 2)[:2]:
        match = _CODING_RE.match(line)
        if match:
            return match.group(1).decode("ascii")
        if line.strip() and not line.lstrip().startswith(b"#"):
            break
    return None


@dataclass
class SourceFile:
    """One file being checked: its bytes, kind, and lazily its text and AST."""

    relpath: str
    abspath: str | Path
    data: bytes
    kind: str | None
    _text: str | None = field(default=None, repr=False)
    _tree: ast.Module | None = field(default=None, repr=False)
    _encoding: str | None = field(default=None, repr=False)
    _ascii: bool | None = field(default=None, repr=False)

    @property
    def path(self) -> Path:
        """The file's absolute path."""
        return Path(self.abspath)

    @property
    def has_bom(self) -> bool:
        """Whether the file starts with a UTF-8 byte order mark."""
        return self.data.startswith(BOM)

    @property
    def encoding(self) -> str:
        """The codec the file is written in (PEP 263 cookie for Python, else UTF-8)."""
        if self._encoding is None:
            cookie = coding_cookie(self.data) if self.kind in ("python", "stub") else None
            try:
                self._encoding = codecs.lookup(cookie).name if cookie else "utf-8"
            except LookupError:
                self._encoding = "utf-8"
        return self._encoding

    @property
    def text(self) -> str:
        """The decoded text without BOM; raises :class:`DecodeFailure`."""
        if self._text is None:
            try:
                self._text = decode_text(self.data, self.relpath, self.encoding)
            except DecodeError as exc:
                raise DecodeFailure(self.encoding, exc.line, exc.detail) from None
        return self._text

    @property
    def plain_ascii(self) -> bool:
        """Whether the file is ASCII and UTF-8 (no BOM, no other PEP 263 codec): bytes = text."""
        if self._ascii is None:
            self._ascii = self.data.isascii() and self.encoding == "utf-8"
        return self._ascii

    def check_decodable(self) -> None:
        """Raise :class:`DecodeFailure` unless :attr:`text` will decode.

        ASCII bytes in a UTF-8 file (nearly every source file) are valid as they are:
        no need to decode the whole file for a rule that reads only its bytes or head.
        """
        if self._text is None and not self.plain_ascii:
            self.text  # noqa: B018 - decodes, or raises DecodeFailure

    def head_text(self, size: int) -> str:
        """The first ``size`` characters of :attr:`text` (all of it when shorter).

        Decodes only those characters when the file is ASCII in UTF-8.
        """
        if self._text is None and self.plain_ascii:
            return self.data[:size].decode("ascii")
        return self.text[:size]

    @property
    def tree(self) -> ast.Module:
        """The parsed module (Python files only); raises ``SyntaxError``."""
        if self._tree is None:
            self._tree = ast.parse(self.data, filename=self.relpath)
        return self._tree

    def encoded(self, text: str) -> bytes | None:
        """``text`` as this file's bytes: its encoding (PEP 263), its BOM kept (none
        added); None when the encoding cannot hold ``text`` (never write what cannot be
        read back)."""
        codec = "utf-8" if self.encoding == "utf-8-sig" else self.encoding
        try:
            data = text.encode(codec)
        except (UnicodeEncodeError, LookupError):
            return None
        return BOM + data if self.has_bom else data

    def replace_data(self, data: bytes) -> None:
        """Swap in fixed bytes, dropping the cached text and tree."""
        self.data = data
        self._text = None
        self._tree = None
        self._encoding = None
        self._ascii = None
