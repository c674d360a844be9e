# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""One fast, exact pass over a Python file's imports, shared by the import rules.

Parsing every file with :mod:`ast` costs far too much on a big tree, so this module
parses only the statements that can matter:

1. every ``import`` keyword is found with ``bytes.find``; its logical line (backslash
   continuations and open brackets followed) is kept only when it mentions one of the
   caller's tokens (``pickle``, ``torch``...);
2. a kept position is confirmed to be code, not a comment or string, with a scan of
   strings and comments that runs only up to the last position asked about;
3. the statement alone (``from x import (...)`` or ``import a, b``) is parsed with
   :func:`ast.parse` and its nodes are mapped back to true file lines and columns.

If a statement snippet does not parse on its own, the whole file is parsed instead
(``syntax_error`` is set when that fails too). Calls ``importlib.import_module("x")``
and ``__import__("x")`` with a literal name are read the same way. A :class:`FileScan`
is memoised for the file being checked so several rules share one pass.
"""

from __future__ import annotations

import ast
import bisect
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from policytool.core.text import BOM, PYTHON_PARSE_ERRORS

# Strings (triple-quoted first) and comments: the parts of a file that are not code.
# String prefixes (r, b, f...) do not change where a literal ends, so they are not needed.
_NOT_CODE = re.compile(
    rb"""\#[^\r\n]*"""
    rb'''|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*(?:"""|\Z)'''
    rb"""|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*(?:'''|\Z)"""
    rb"""|"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"?"""
    rb"""|'[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'?""",
    re.S,
)
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_FROM_RE = re.compile(rb"(?<![\w.])from\b")
# Literal first, the lookbehind after it: a regex that starts with an assertion is tried
# at every byte (30x slower over a whole file).
_FROM_DOT_RE = re.compile(rb"from(?<![\w.]from)[ \t\\\r\n]+\.")
# After ``import_module`` / ``__import__``: ``("name"`` then ``,`` or ``)``.
_CALL_ARG_RE = re.compile(rb"""\s*\(\s*(['"])([A-Za-z_][\w.]*)\1\s*[,)]""")
_IMPORTLIB_BEFORE_RE = re.compile(rb"(?<![\w.])importlib\s*\.\s*\Z")
_IDENT_BEFORE_RE = re.compile(rb"(?<![\w.])([A-Za-z_]\w*)\s*\.\s*\Z")
_ATTR_AFTER_RE = re.compile(rb"\s*\.\s*([A-Za-z_]\w*)")
_CALL_AFTER_RE = re.compile(rb"\s*\(")
_DEF_BEFORE_RE = re.compile(rb"\b(?:def|class)\s+\Z")

# How far a statement snippet is extended when its brackets look unbalanced.
_MAX_EXTRA_LINES = 200
# A logical line longer than this (bytes) is confirmed to be code before it is parsed.
_LONG_STATEMENT = 1024


@dataclass(frozen=True)
class ImportedName:
    """One dotted module name a file imports, where, and what name it binds.

    ``kind`` is ``import`` (``import a.b [as c]``), ``from`` (the module of
    ``from x import ...``), ``member`` (``x.y`` of ``from x import y``: a submodule
    or an attribute) or ``call`` (``importlib.import_module("x")``/``__import__``).
    ``bound`` is the local name it binds (None for the ``from`` module and calls);
    ``star`` marks ``from x import *``.
    """

    name: str
    kind: str
    line: int
    col: int
    bound: str | None = None
    star: bool = False


@dataclass(frozen=True)
class Use:
    """A code occurrence of ``<base>.<attr>`` or of a bare called name."""

    base: str | None
    attr: str
    line: int
    col: int
    call: bool


class ScanSyntaxError(Exception):
    """The file does not parse; ``line``/``col`` are 1-based."""

    def __init__(self, message: str, line: int, col: int) -> None:
        """Set up from the constructor arguments."""
        super().__init__(message)
        self.line = line
        self.col = col


@dataclass
class FileScan:
    """Lazily computed facts about one Python file's bytes."""

    relpath: str
    data: bytes
    # The file's absolute path (str or Path); only relative imports need it.
    abspath: str | Path | None = None
    # (root, directory) -> dotted package; share one dict (the run's) across files.
    packages: dict[tuple[str, str], str] = field(default_factory=dict)
    _spans_start: list[int] = field(default_factory=list)
    _spans_end: list[int] = field(default_factory=list)
    _mask_iter: Iterator[re.Match[bytes]] | None = None
    _mask_done_to: int = -1
    _keywords: list[tuple[int, int, int]] | None = None
    _parsed: dict[int, list[ImportedName]] = field(default_factory=dict)
    _calls: list[ImportedName] | None = None
    _tree: ast.Module | None = None
    _tree_imports: list[ImportedName] | None = None
    _line_hint: tuple[int, int] = (0, 1)
    _code: dict[int, bool] = field(default_factory=dict)
    _call_sites: list[int] = field(default_factory=list)
    # _logical_line memos: line start -> logical start; logical start -> scan state / end.
    _logical_starts: dict[int, int] = field(default_factory=dict)
    _forward: dict[int, tuple[int, int]] = field(default_factory=dict)
    _closed: dict[int, int] = field(default_factory=dict)
    # Keywords on logical lines over _LONG_STATEMENT bytes: checked to be code first.
    _long: set[int] = field(default_factory=set)
    # Tokens -> whether one of its words stands in the file (see mentions()).
    _mentions: dict[Tokens, bool] = field(default_factory=dict)

    # ----- code / not code -------------------------------------------------------------

    def is_code(self, pos: int) -> bool:
        """Whether byte ``pos`` is outside every string literal and comment."""
        if self._mask_iter is None:
            self._mask_iter = _NOT_CODE.finditer(self.data)
        while self._mask_done_to <= pos:
            match = next(self._mask_iter, None)
            if match is None:
                self._mask_done_to = len(self.data) + 1
                break
            self._spans_start.append(match.start())
            self._spans_end.append(match.end())
            self._mask_done_to = match.end()
        index = bisect.bisect_right(self._spans_start, pos) - 1
        return index < 0 or pos >= self._spans_end[index]

    # ----- positions ---------------------------------------------------------------------

    def line_col(self, pos: int) -> tuple[int, int]:
        """1-based line and (character) column of byte offset ``pos``."""
        last_pos, last_line = self._line_hint
        if pos >= last_pos:
            line = last_line + self.data.count(b"\n", last_pos, pos)
        else:
            line = self.data.count(b"\n", 0, pos) + 1
        self._line_hint = (pos, line)
        start = self.data.rfind(b"\n", 0, pos) + 1
        prefix = self.data[start:pos]
        if start == 0 and prefix.startswith(BOM):
            prefix = prefix[len(BOM) :]  # the byte order mark is not a column
        col = len(prefix) if prefix.isascii() else len(prefix.decode("utf-8", "replace"))
        return line, col + 1

    # ----- import statements -------------------------------------------------------------

    def _logical_line(self, pos: int) -> tuple[int, int]:
        """Start and end byte offsets of the logical line around ``pos``.

        The end is at most :data:`_MAX_EXTRA_LINES` lines past the line of ``pos``. Both
        walks are memoised (the backward one per line start, the forward one per logical
        start), so the keywords of one logical line thousands of lines long cost linear
        time in all, not a rescan each (a PR author controls the file).
        """
        data = self.data
        line_start = data.rfind(b"\n", 0, pos) + 1
        start = line_start
        while start >= 2:
            known = self._logical_starts.get(start)
            if known is not None:
                start = known
                break
            if data[start - 2 : start] == b"\\\n":
                start = data.rfind(b"\n", 0, start - 2) + 1
            elif start >= 3 and data[start - 3 : start] == b"\\\r\n":
                start = data.rfind(b"\n", 0, start - 3) + 1
            else:
                break
        self._logical_starts[line_start] = start
        closed = self._closed.get(start)
        if closed is not None:
            return start, closed
        cursor, depth = self._forward.get(start, (start, 0))
        extra = 0
        while True:
            end = data.find(b"\n", cursor)
            if end == -1:
                self._closed[start] = len(data)
                return start, len(data)
            seg = data[cursor:end]
            depth += seg.count(b"(") + seg.count(b"[") + seg.count(b"{")
            depth -= seg.count(b")") + seg.count(b"]") + seg.count(b"}")
            if depth <= 0 and not seg.rstrip(b"\r").endswith(b"\\"):
                self._closed[start] = end
                return start, end
            cursor = end + 1
            self._forward[start] = (cursor, depth)
            if cursor > line_start:  # lines above pos's own do not count toward the cap
                extra += 1
                if extra >= _MAX_EXTRA_LINES:
                    return start, end

    def keywords(self) -> list[tuple[int, int, int]]:
        """``(keyword position, statement lower bound, logical line end)`` of every ``import``.

        The lower bound is the logical line's start, or the previous ``import`` keyword
        on the same logical line (``import a; from b import c``).
        """
        if self._keywords is None:
            data = self.data
            size = len(data)
            found: list[tuple[int, int, int]] = []
            calls: list[int] = []
            pos = data.find(b"import")
            end = -1
            low = 0
            logical = -1  # start of the last long logical line
            long_line = False
            while pos != -1:
                after = pos + 6
                if _whole_word(data, pos, after):
                    if pos >= end:
                        previous, low = low, data.rfind(b"\n", 0, pos) + 1
                        end = data.find(b"\n", pos)
                        if end == -1:
                            end = size
                        # A statement goes on past this line only with a backslash at its
                        # end (or the previous line's) or an open parenthesis on it.
                        if (
                            data.find(b"(", low, end) != -1
                            or data[end - 1 : end] == b"\\"
                            or data[end - 2 : end] == b"\\\r"
                            or (low >= 2 and data[low - 2] == 92)
                            or (low >= 3 and data[low - 3] == 92)
                        ):
                            start, end = self._logical_line(pos)
                            # Past the cap of one long logical line: the statement still
                            # starts after the previous keyword, not back at its start.
                            low = previous if start == logical else start
                            logical = start
                            long_line = end - start > _LONG_STATEMENT
                        else:
                            long_line = False
                    if long_line:
                        self._long.add(pos)
                    found.append((pos, low, end))
                    low = after
                elif data.startswith(b"_module", after) or (
                    pos >= 2 and data.startswith(b"__", after)
                ):
                    calls.append(pos)  # import_module / __import__: see import_calls()
                pos = data.find(b"import", after)
            self._keywords = found
            self._call_sites = calls
        return self._keywords

    def imports(
        self, tokens: Tokens, relevant: Callable[[ImportedName], bool] | None = None
    ) -> list[ImportedName]:
        """Import statements whose logical line matches ``tokens`` (a word regex).

        With ``relevant``, only statements importing a relevant name are returned,
        and only those are confirmed to be code (not in a string), which spares the
        string scan for the many statements that do not matter. Raises
        :class:`ScanSyntaxError` when a needed statement cannot be parsed because the
        file itself does not parse.
        """
        if not self.mentions(tokens) and not self._relative_matters(tokens):
            return []  # no statement can match: spare the keyword walk (most files)
        if self._tree_imports is not None:
            return [
                i
                for i in self._tree_imports
                if (tokens.search(i.name.encode()) or (i.bound and tokens.search(i.bound.encode())))
                and (relevant is None or relevant(i))
            ]
        result: list[ImportedName] = []
        # A relative import names no package: it matters when the file's own package
        # path holds one of the tokens (``from .x import y`` in ``vllm/utils/``).
        relative: bool | None = None if self._directory_holds(tokens) else False
        keywords = self.keywords()
        for index, (pos, start, end) in enumerate(keywords):
            # A statement ends before the next ``import`` keyword: searching up to it
            # (not to the logical line's end) keeps a file of one long line linear.
            stop = min(end, keywords[index + 1][0]) if index + 1 < len(keywords) else end
            if not tokens.search(self.data, start, stop):
                if relative is False or _FROM_DOT_RE.search(self.data, start, pos) is None:
                    continue
                if relative is None:
                    package = _package_of(self.relpath, self.abspath, self.packages)
                    relative = any(
                        tokens.search(part.encode()) for part in package.split(".") if part
                    )
                if not relative:
                    continue
            parsed = self._parsed.get(pos)
            if parsed is None and pos in self._long and not self._is_code_at(pos):
                self._parsed[pos] = []  # in a long string: spare the parse attempts
                continue
            if parsed is None:
                parsed = self._parse_statement(pos, start, end)
                if parsed is None:
                    if not self._is_code_at(pos):
                        self._parsed[pos] = []
                        continue
                    return self._fall_back_to_tree(tokens, relevant)
                self._parsed[pos] = parsed
            if not parsed or (relevant is not None and not any(relevant(i) for i in parsed)):
                continue
            if self._is_code_at(pos):
                result.extend(i for i in parsed if relevant is None or relevant(i))
        return result

    def mentions(self, tokens: Tokens) -> bool:
        """Whether one of ``tokens`` stands anywhere in the file as a whole identifier.

        A statement (or dynamic import) matters to a rule only when its text holds a
        token, or when it is a relative import in a package whose path holds one.
        """
        known = self._mentions.get(tokens)
        if known is None:
            known = self._mentions[tokens] = tokens.present(self.data)
        return known

    def _relative_matters(self, tokens: Tokens) -> bool:
        """Whether the file has a relative import and its package path holds a token."""
        if not self._directory_holds(tokens) or not has_relative_import(self.data):
            return False
        package = _package_of(self.relpath, self.abspath, self.packages)
        return any(tokens.search(part.encode()) for part in package.split(".") if part)

    def _directory_holds(self, tokens: Tokens) -> bool:
        """Whether the file's directory path holds a token: the package a relative import
        resolves against is made of those directories (or a tail of them), so without
        one a relative import can name no token."""
        return tokens.search(os.path.dirname(self.relpath).encode())

    def _is_code_at(self, pos: int) -> bool:
        """:meth:`is_code`, memoised per position."""
        known = self._code.get(pos)
        if known is None:
            known = self._code[pos] = self.is_code(pos)
        return known

    def _parse_statement(self, pos: int, start: int, end: int) -> list[ImportedName] | None:
        """The names imported by the statement whose ``import`` keyword is at ``pos``.

        The statement starts at the last ``from`` before the keyword on its logical
        line, else at the keyword (``a = 1; import b``). None when it does not parse.
        """
        data = self.data
        starts = [m.start() for m in _FROM_RE.finditer(data, start, pos)][-1:] + [pos]
        for stmt in starts:
            snippet = data[stmt:end]
            for _ in range(4):
                try:
                    tree = ast.parse(snippet)
                except PYTHON_PARSE_ERRORS:
                    if not self._is_code_at(pos):
                        return None  # inside a string: no more attempts
                    # Odd bracket counts (a bracket in a comment): try a few more lines.
                    nxt = data.find(b"\n", stmt + len(snippet) + 1)
                    if nxt == -1 or stmt + len(snippet) >= len(data):
                        break
                    snippet = data[stmt:nxt]
                    continue
                if tree.body and isinstance(tree.body[0], (ast.Import, ast.ImportFrom)):
                    return self._names_of(tree.body[0], stmt, snippet)
                break
        return None

    def _abs(self, base: int, snippet: bytes, lineno: int, col: int) -> int:
        """Byte offset in the file of (``lineno``, ``col``) inside ``snippet`` at ``base``."""
        offset = 0
        for _ in range(lineno - 1):
            offset = snippet.index(b"\n", offset) + 1
        return base + offset + col

    def _names_of(
        self, node: ast.Import | ast.ImportFrom, base: int, snippet: bytes
    ) -> list[ImportedName]:
        """The imported names of a parsed statement, at file positions."""
        names: list[ImportedName] = []
        if isinstance(node, ast.Import):
            for alias in node.names:
                line, col = self.line_col(self._abs(base, snippet, alias.lineno, alias.col_offset))
                bound = alias.asname or alias.name.split(".")[0]
                names.append(ImportedName(alias.name, "import", line, col, bound))
            return names
        module = self.resolve(node.module, node.level)
        line, col = self.line_col(self._abs(base, snippet, node.lineno, node.col_offset))
        star = any(a.name == "*" for a in node.names)
        names.append(ImportedName(module, "from", line, col, None, star))
        for alias in node.names:
            if alias.name == "*":
                continue
            line, col = self.line_col(self._abs(base, snippet, alias.lineno, alias.col_offset))
            member = f"{module}.{alias.name}" if module else alias.name
            names.append(ImportedName(member, "member", line, col, alias.asname or alias.name))
        return names

    def resolve(self, module: str | None, level: int) -> str:
        """The absolute module of ``from <level dots><module> import``, for this file (dots
        that climb above the top name ``module`` itself: a ban still sees it)."""
        if level == 0:
            return module or ""
        package = _package_of(self.relpath, self.abspath, self.packages)
        found = resolve_relative(package, level, module)
        return found if found is not None else module or ""

    # ----- fallback: the whole file ------------------------------------------------------

    def tree(self) -> ast.Module:
        """The whole parsed file; raises :class:`ScanSyntaxError`."""
        if self._tree is None:
            try:
                self._tree = ast.parse(self.data, filename=self.relpath)
            except SyntaxError as exc:
                raise ScanSyntaxError(exc.msg, exc.lineno or 1, exc.offset or 1) from None
            except ValueError as exc:  # NUL bytes and the like
                raise ScanSyntaxError(str(exc), 1, 1) from None
            except (RecursionError, MemoryError):
                raise ScanSyntaxError("nested too deeply to parse", 1, 1) from None
        return self._tree

    def _fall_back_to_tree(
        self, tokens: Tokens, relevant: Callable[[ImportedName], bool] | None
    ) -> list[ImportedName]:
        """Parse the whole file once and read every import from it (rare path)."""
        tree = self.tree()
        found: list[ImportedName] = []
        lines = self.data.split(b"\n")
        line_starts = [0]
        for line in lines[:-1]:
            line_starts.append(line_starts[-1] + len(line) + 1)

        def position(lineno: int, col: int) -> tuple[int, int]:
            """File line and column of an ast position."""
            return self.line_col(line_starts[lineno - 1] + col)

        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    found.append(
                        ImportedName(
                            alias.name, "import", *position(alias.lineno, alias.col_offset), bound
                        )
                    )
            elif isinstance(node, ast.ImportFrom):
                module = self.resolve(node.module, node.level)
                star = any(a.name == "*" for a in node.names)
                found.append(
                    ImportedName(
                        module, "from", *position(node.lineno, node.col_offset), None, star
                    )
                )
                for alias in node.names:
                    if alias.name != "*":
                        member = f"{module}.{alias.name}" if module else alias.name
                        found.append(
                            ImportedName(
                                member,
                                "member",
                                *position(alias.lineno, alias.col_offset),
                                alias.asname or alias.name,
                            )
                        )
        found.sort(key=lambda i: (i.line, i.col))
        self._tree_imports = found
        return self.imports(tokens, relevant)

    # ----- import calls ------------------------------------------------------------------

    def import_calls(self) -> list[ImportedName]:
        """``importlib.import_module("x")`` / ``import_module("x")`` / ``__import__("x")``."""
        if self._calls is None:
            data = self.data
            calls: list[ImportedName] = []
            self.keywords()
            for hit in self._call_sites:
                if data.startswith(b"import_module", hit):
                    pos, needle = hit, b"import_module"
                elif hit >= 2 and data.startswith(b"__import__", hit - 2):
                    pos, needle = hit - 2, b"__import__"
                else:
                    continue
                after = pos + len(needle)
                ok = _whole_word(data, pos, after)
                match = _CALL_ARG_RE.match(data, after) if ok else None
                start = pos
                if match is not None and needle == b"import_module":
                    prev = _IMPORTLIB_BEFORE_RE.search(data, max(0, pos - 64), pos)
                    if prev is not None:
                        start = prev.start()
                    elif data[max(0, pos - 64) : pos].rstrip().endswith(b"."):
                        match = None  # some other object's import_module
                if match is not None and self.is_code(pos):
                    name = match.group(2).decode("ascii")
                    calls.append(ImportedName(name, "call", *self.line_col(start)))
            calls.sort(key=lambda i: (i.line, i.col))
            self._calls = calls
        return self._calls

    # ----- attribute uses ----------------------------------------------------------------

    def attribute_uses(
        self, name: bytes, wanted: Callable[[str | None, str], bool] | None = None
    ) -> list[Use]:
        """Code occurrences of the word ``name``, as ``<base>.name.<attr>`` or ``name.<attr>``.

        For each occurrence followed by ``.attr``, the identifier before it (if any,
        ``base`` in ``base.name.attr``) is returned with ``attr``; ``col`` is where
        the whole expression starts.
        """
        data = self.data
        uses: list[Use] = []
        for pos, after in _word_hits(data, name):
            attr = _ATTR_AFTER_RE.match(data, after)
            if attr is not None:
                before = _IDENT_BEFORE_RE.search(data, max(0, pos - 80), pos)
                start = before.start(1) if before is not None else pos
                base = before.group(1).decode("ascii") if before is not None else None
                if before is None and data[max(0, pos - 64) : pos].rstrip().endswith(b"."):
                    base = "."  # an attribute of some expression: not a module name
                attr_name = attr.group(1).decode("ascii")
                if (wanted is None or wanted(base, attr_name)) and self.is_code(pos):
                    call = _CALL_AFTER_RE.match(data, attr.end()) is not None
                    uses.append(Use(base, attr_name, *self.line_col(start), call))
        return uses

    def called_names(self, name: bytes) -> list[Use]:
        """Code calls ``name(...)`` of a bare name (not an attribute, not its ``def``)."""
        data = self.data
        uses: list[Use] = []
        for pos, after in _word_hits(data, name):
            if _CALL_AFTER_RE.match(data, after) is not None:
                head = data[max(0, pos - 64) : pos]
                if not head.rstrip().endswith(b".") and _DEF_BEFORE_RE.search(head) is None:
                    if self.is_code(pos):
                        uses.append(Use(None, name.decode("ascii"), *self.line_col(pos), True))
        return uses


def _whole_word(data: bytes, pos: int, after: int) -> bool:
    """Whether ``data[pos:after]`` is a whole word: no identifier byte just before or after."""
    return (pos == 0 or data[pos - 1] not in _WORD) and (
        after >= len(data) or data[after] not in _WORD
    )


def _word_hits(data: bytes, word: bytes) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of every whole-word occurrence of ``word`` in ``data``, in order."""
    size = len(word)
    pos = data.find(word)
    while pos != -1:
        after = pos + size
        if _whole_word(data, pos, after):
            yield pos, after
        pos = data.find(word, after)


def resolve_relative(package: str, level: int, module: str | None) -> str | None:
    """The absolute module of ``from <level dots><module> import`` in a file of the dotted
    ``package`` ("" at the top): one dot is ``package``, each more its parent. None when
    the dots climb above the top (Python refuses the import): a hostile
    ``from ....... import x`` names no module, inside the tree or out of it. The one home
    of this rule: the import scan and the sweep's module readers use it.
    """
    if level <= 0:
        return module or ""
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    parts = parts[: len(parts) - (level - 1)]
    if module:
        parts.append(module)
    return ".".join(parts)


def package_of_path(path: str) -> str | None:
    """The dotted package of the file at repository-relative ``path``, its directory
    (``pkg/sub/a.py`` and ``pkg/sub/__init__.py`` are both in ``pkg.sub``; a file at the
    top is in ""); None when a part of the path (its file name too) is no identifier:
    such a file is no importable module."""
    parts = path.replace("\\", "/").removesuffix(".py").split("/")
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return ".".join(parts[:-1])


def has_relative_import(data: bytes) -> bool:
    """Whether ``from``, blanks and a dot (``from .x import y``) occur anywhere, in code
    or not: a quick superset for prefilters."""
    return _FROM_DOT_RE.search(data) is not None


def _package_of(relpath: str, path: str | Path | None, memo: dict[tuple[str, str], str]) -> str:
    """The dotted package a file belongs to (for relative imports).

    The package starts at the highest directory of an unbroken chain of
    ``__init__.py`` files above the file; without any, at the file's directory
    relative to the repository root. ``memo`` maps (root, directory) to the answer.
    """
    directory = os.path.dirname(relpath)
    text = os.fspath(path) if path is not None else ""
    root = text[: -len(relpath)] if text.endswith(relpath) else ""
    key = (root, directory)
    if key in memo:
        return memo[key]
    parts = directory.split("/") if directory else []
    keep = len(parts)
    if root:
        top = len(parts)
        while top > 0 and os.path.isfile(os.path.join(root, *parts[:top], "__init__.py")):
            top -= 1
        if top < len(parts):
            parts = parts[top:]
        keep = len(parts)
    package = ".".join(parts[:keep])
    memo[key] = package
    return package


class Tokens:
    """Whole-identifier search for a few words, faster than a regex with lookarounds.

    One word is found with ``bytes.find``; several with a regex of plain alternatives
    (longest first), the identifier boundaries checked for each hit.
    """

    def __init__(self, words: set[str] | frozenset[str]) -> None:
        """Set up from the constructor arguments."""
        encoded = sorted({w.encode() for w in words}, key=len, reverse=True)
        self.words = tuple(encoded)
        self._single = encoded[0] if len(encoded) == 1 else None
        self._regex = re.compile(b"|".join(re.escape(w) for w in encoded))
        # One regex a word, literal first (so the search is a fast substring scan), the
        # identifier boundaries as assertions: ``re(?!\w)(?<!\wre)``. Bytes \w is _WORD.
        # A word holding a shorter one (``cloudpickle``, ``pickle``) needs no search of
        # its own when the shorter one is not even a substring: shortest first.
        self._whole = tuple(
            (
                w,
                re.compile(re.escape(w) + rb"(?!\w)(?<!\w" + re.escape(w) + rb")"),
                tuple(v for v in encoded if v != w and v in w),
            )
            for w in reversed(encoded)
        )
        self._last: tuple[bytes, bool] | None = None

    def present(self, data: bytes) -> bool:
        """Whether one of the words stands anywhere in ``data`` as a whole identifier.

        The same answer as :meth:`search` over all of ``data``, at C speed: most files
        do not hold the word at all, and a common short one (``re``) is found as a
        substring thousands of times, which :meth:`search` checks one by one.
        """
        last = self._last
        if last is not None and last[0] is data:  # the prefilter asked just before
            return last[1]
        absent: set[bytes] = set()
        found = False
        for word, regex, parts in self._whole:
            if any(part in absent for part in parts) or word not in data:
                absent.add(word)
            elif regex.search(data) is not None:
                found = True
                break
        self._last = (data, found)
        return found

    def search(self, data: bytes, start: int = 0, end: int | None = None) -> bool:
        """Whether one of the words stands in ``data[start:end]`` as a whole identifier."""
        stop = len(data) if end is None else end
        size = len(data)
        single = self._single
        if single is not None:
            width = len(single)
            pos = data.find(single, start, stop)
            while pos != -1:
                after = pos + width
                # inline, not _whole_word: a short word is found thousands of times here
                if (pos == 0 or data[pos - 1] not in _WORD) and (
                    after >= size or data[after] not in _WORD
                ):
                    return True
                pos = data.find(single, pos + 1, stop)
            return False
        match = self._regex.search(data, start, stop)
        while match is not None:
            pos, after = match.start(), match.end()
            if (pos == 0 or data[pos - 1] not in _WORD) and (
                after >= size or data[after] not in _WORD
            ):
                return True
            match = self._regex.search(data, pos + 1, stop)
        return False


def word_regex(words: set[str] | frozenset[str]) -> Tokens:
    """:class:`Tokens` for ``words`` (kept under this name for the rule modules)."""
    return Tokens(words)
