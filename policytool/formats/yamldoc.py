# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Round-trip YAML for the repo rules: parse with positions, edit as text, write atomically.

ruamel.yaml (round-trip mode, YAML 1.2) gives every mapping key and sequence item its
line, understands anchors and merge keys, and never turns ``on:`` into ``True``. Its
dumper, though, re-indents and moves comments, so fixes here never dump: they edit the
text line by line (cut a block item with its leading comments, insert a key) and then
re-parse the result to prove it is still the document they meant. Everything not
edited stays byte-identical, including a BOM, CRLF line endings and comments.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Union

from policytool.errors import PolicyError
from policytool.files import BOM, DecodeError, decode_text, encode_like, write_atomic

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

# What a parsed YAML node is at runtime (CommentedMap is a dict, CommentedSeq a list).
YamlNode = Union["CommentedMap", "CommentedSeq", str, int, float, bool, None]

_LINE_RE = re.compile(r"[^\n]*\n|[^\n]+\Z")


class YamlError(PolicyError):
    """A YAML file cannot be read or parsed; carries the repo-relative path and line."""

    def __init__(self, relpath: str, line: int, message: str) -> None:
        super().__init__(f"{relpath}:{line}: {message}")
        self.relpath = relpath
        self.line = line
        self.message = message


@dataclass
class YamlDoc:
    """One parsed YAML file: the round-trip data and the text it came from."""

    relpath: str
    path: Path
    raw: bytes
    text: str  # decoded, without BOM
    data: YamlNode
    lines: list[str] = field(default_factory=list)  # with their line endings

    @property
    def newline(self) -> str:
        """The file's line ending (``\\r\\n`` when its first line ends that way)."""
        first = self.lines[0] if self.lines else "\n"
        return "\r\n" if first.endswith("\r\n") else "\n"

    def encode(self, text: str) -> bytes:
        """``text`` as bytes the way this file is stored (UTF-8, BOM kept)."""
        return encode_like(self.raw, text)


def split_lines(text: str) -> list[str]:
    """Lines with their endings; only ``\\n`` ends a line (as in YAML, unlike splitlines)."""
    return _LINE_RE.findall(text)


def _yaml() -> object:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    return yaml


def parse_text(text: str, relpath: str) -> YamlNode:
    """Parse YAML text round-trip; a syntax error becomes :class:`YamlError` with its line."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = _yaml()
    assert isinstance(yaml, YAML)
    try:
        data: YamlNode = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(relpath, line, f"invalid YAML: {problem}") from None
    except YAMLError as exc:
        raise YamlError(relpath, 1, f"invalid YAML: {exc}") from None
    return data


_CACHE: dict[tuple[str, str], YamlDoc] = {}


def load(root: Path, relpath: str) -> YamlDoc:
    """Read and parse ``root/relpath`` (cached by content); raise :class:`YamlError`.

    A missing file raises ``FileNotFoundError``; callers decide whether that matters.
    """
    path = root / relpath
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise YamlError(relpath, 1, f"cannot read: {exc.strerror}") from None
    key = (str(path), hashlib.sha1(raw).hexdigest())
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    if b"\0" in raw.removeprefix(BOM)[:8000]:
        raise YamlError(relpath, 1, "binary file, not YAML")
    try:
        text = decode_text(raw, relpath)
    except DecodeError as exc:
        raise YamlError(relpath, exc.line, f"not valid UTF-8 ({exc.detail})") from None
    data = parse_text(text, relpath)
    doc = YamlDoc(relpath, path, raw, text, data, split_lines(text))
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = doc
    return doc


def write(doc: YamlDoc, new_text: str) -> bool:
    """Write ``new_text`` over ``doc``'s file atomically if it parses; True when written."""
    if new_text == doc.text:
        return False
    parse_text(new_text, doc.relpath)  # never write a file that no longer parses
    write_atomic(doc.path, doc.encode(new_text))
    return True


# --- positions ------------------------------------------------------------------------


def is_map(node: object) -> bool:
    """Whether ``node`` is a YAML mapping."""
    return isinstance(node, dict)


def is_seq(node: object) -> bool:
    """Whether ``node`` is a YAML sequence."""
    return isinstance(node, list)


def node_line(node: object, default: int = 1) -> int:
    """1-based line where a mapping or sequence starts."""
    lc = getattr(node, "lc", None)
    line = getattr(lc, "line", None)
    return line + 1 if isinstance(line, int) else default


def key_line(mapping: object, key: str, default: int | None = None) -> int:
    """1-based line of ``key`` in ``mapping`` (the mapping's own line when absent)."""
    lc = getattr(mapping, "lc", None)
    if lc is not None and isinstance(mapping, dict) and key in getattr(mapping, "_ok", mapping):
        try:
            line, _col = lc.key(key)
            return int(line) + 1
        except (KeyError, TypeError):
            pass
    return default if default is not None else node_line(mapping)


def key_pos(mapping: object, key: str) -> tuple[int, int] | None:
    """0-based (line, col) of ``key`` itself, if it is written in ``mapping``."""
    lc = getattr(mapping, "lc", None)
    if lc is None or key not in own_keys(mapping):
        return None
    try:
        line, col = lc.key(key)
    except (KeyError, TypeError):
        return None
    return int(line), int(col)


def value_pos(mapping: object, key: str) -> tuple[int, int] | None:
    """0-based (line, col) where the value of ``key`` starts, if known."""
    lc = getattr(mapping, "lc", None)
    if lc is None:
        return None
    try:
        line, col = lc.value(key)
    except (KeyError, TypeError):
        return None
    return int(line), int(col)


def item_line(seq: object, index: int) -> int:
    """1-based line of item ``index`` of a sequence."""
    lc = getattr(seq, "lc", None)
    if lc is not None:
        try:
            line, _col = lc.item(index)
            return int(line) + 1
        except (KeyError, TypeError, IndexError):
            pass
    return node_line(seq)


def item_pos(seq: object, index: int) -> tuple[int, int] | None:
    """0-based (line, col) of item ``index``'s content."""
    lc = getattr(seq, "lc", None)
    if lc is None:
        return None
    try:
        line, col = lc.item(index)
    except (KeyError, TypeError, IndexError):
        return None
    return int(line), int(col)


def own_keys(mapping: object) -> list[str]:
    """Keys written in this mapping itself, not pulled in by a ``<<`` merge."""
    ok = getattr(mapping, "_ok", None)
    if isinstance(mapping, dict):
        return [str(k) for k in mapping if ok is None or k in ok]
    return []


def is_flow(node: object) -> bool:
    """Whether a mapping or sequence is written in flow style (``[a, b]`` / ``{a: b}``)."""
    fa = getattr(node, "fa", None)
    return bool(fa is not None and fa.flow_style())


# --- text surgery on block sequences -------------------------------------------------


def indent_of(line: str) -> int:
    """Number of leading spaces."""
    return len(line) - len(line.lstrip(" "))


def is_blank(line: str) -> bool:
    """Whether a line holds only whitespace."""
    return not line.strip()


def is_comment(line: str) -> bool:
    """Whether a line is a full-line comment."""
    return line.lstrip().startswith("#")


@dataclass(frozen=True)
class Span:
    """Lines ``[start, end)`` (0-based) of a block sequence item, leading comments included."""

    start: int
    end: int
    dash_col: int


def item_span(lines: Sequence[str], seq: object, index: int) -> Span | None:
    """Where block-sequence item ``index`` is written, with the comments above it.

    None when the item is not a block item that starts its own ``- `` line (flow style,
    or a layout the text editor should not guess at).
    """
    pos = item_pos(seq, index)
    if pos is None or is_flow(seq):
        return None
    line, col = pos
    text = lines[line]
    dash = text.rfind("-", 0, col)
    if dash < 0 or text[:dash].strip() or text[dash + 1 : col].strip():
        return None
    start = line
    while start > 0 and is_comment(lines[start - 1]) and indent_of(lines[start - 1]) == dash:
        start -= 1
    seq_len = len(seq) if isinstance(seq, list) else 0
    if index + 1 < seq_len:
        nxt = item_span(lines, seq, index + 1)
        if nxt is None:
            return None
        end = nxt.start
    else:
        end = line + 1
        while end < len(lines) and (is_blank(lines[end]) or indent_of(lines[end]) > dash):
            end += 1
    while end > line + 1 and is_blank(lines[end - 1]):
        end -= 1
    return Span(start, end, dash)


def reindent(block: Sequence[str], delta: int) -> list[str] | None:
    """Shift non-blank lines by ``delta`` columns; None if a line has too little indent."""
    if delta == 0:
        return list(block)
    out = []
    for line in block:
        if is_blank(line):
            out.append(line)
        elif delta > 0:
            out.append(" " * delta + line)
        elif indent_of(line) >= -delta:
            out.append(line[-delta:])
        else:
            return None
    return out


def ensure_newline(lines: list[str], newline: str) -> None:
    """Give the last line a line ending so text can be appended after it."""
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += newline


def plain(node: object) -> object:
    """A round-trip node as plain dicts, lists and scalars (merge keys resolved)."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    if isinstance(node, str):
        return str(node)
    return node


# --- fast read-only loading with positions ---------------------------------------------

# Nesting deeper than this is refused (a hostile file cannot exhaust the stack).
MAX_DEPTH = 200


class _Positions:
    """ruamel's ``lc`` interface (``key``, ``value``, ``item``: 0-based line, col)."""

    def __init__(self, line: int, col: int) -> None:
        self.line = line
        self.col = col
        self.keys: dict[str, tuple[int, int]] = {}
        self.values: dict[str, tuple[int, int]] = {}
        self.items: list[tuple[int, int]] = []

    def key(self, key: str) -> tuple[int, int]:
        """Where ``key`` is written."""
        return self.keys[key]

    def value(self, key: str) -> tuple[int, int]:
        """Where the value of ``key`` starts."""
        return self.values[key]

    def item(self, index: int) -> tuple[int, int]:
        """Where sequence item ``index`` starts."""
        return self.items[index]


class PosMap(dict):  # type: ignore[type-arg]
    """A read-only mapping from :func:`load_fast`; ``lc`` holds the positions and
    ``_ok`` the keys written in it (not pulled in by ``<<``), as ruamel's maps do."""

    lc: _Positions
    _ok: set[str]


class PosSeq(list):  # type: ignore[type-arg]
    """A read-only sequence from :func:`load_fast`; ``lc`` holds the positions."""

    lc: _Positions


def load_fast(text: str, relpath: str) -> YamlNode:
    """Parse YAML text for reading only, with libyaml (PyYAML's C parser) when present.

    Gives the same shapes and positions as :func:`parse_text` (``key_line``,
    ``value_pos`` and ``item_pos`` work on the result) at a fraction of the cost: every
    scalar is its source string (``on:`` stays ``"on"``), anchors are shared rather
    than copied, and ``<<`` merge keys are applied. Never dump or edit the result.
    Falls back to :func:`parse_text` without libyaml; errors are :class:`YamlError`.
    """
    try:
        import yaml
        from yaml import CSafeLoader
    except ImportError:
        return parse_text(text, relpath)
    try:
        root = yaml.compose(text, Loader=CSafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        raise YamlError(relpath, line, f"invalid YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise YamlError(relpath, 1, f"invalid YAML: {exc}") from None
    if root is None:
        return None
    return _convert_node(root, relpath)


def _convert_node(root: object, relpath: str) -> YamlNode:
    """PyYAML nodes -> PosMap / PosSeq / str, iteratively (depth-bounded, aliases shared)."""
    from yaml import MappingNode, ScalarNode, SequenceNode

    memo: dict[int, object] = {}

    def shell(node: object) -> object:
        if isinstance(node, ScalarNode):
            return str(node.value)
        mark = node.start_mark  # type: ignore[attr-defined]
        holder: PosMap | PosSeq = PosMap() if isinstance(node, MappingNode) else PosSeq()
        holder.lc = _Positions(mark.line, mark.column)
        return holder

    top = shell(root)
    memo[id(root)] = top
    stack: list[tuple[object, object, int]] = [(root, top, 0)]
    while stack:
        node, out, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise YamlError(relpath, node.start_mark.line + 1, "nested too deeply")  # type: ignore[attr-defined]
        children: list[object] = []
        if isinstance(node, SequenceNode) and isinstance(out, PosSeq):
            for item in node.value:
                children.append(item)
                out.lc.items.append((item.start_mark.line, item.start_mark.column))
        elif isinstance(node, MappingNode) and isinstance(out, PosMap):
            pairs = list(node.value)
            merged: list[tuple[object, object]] = []
            for key, value in pairs:
                if getattr(key, "tag", "") == "tag:yaml.org,2002:merge":
                    sources = value.value if isinstance(value, SequenceNode) else [value]
                    for source in sources:
                        if isinstance(source, MappingNode):
                            merged.extend(source.value)
            entries: dict[str, object] = {}
            for key, value in [*merged, *pairs]:
                if getattr(key, "tag", "") == "tag:yaml.org,2002:merge":
                    continue
                name = str(key.value) if isinstance(key, ScalarNode) else repr(id(key))
                entries.pop(name, None)  # a later (explicit) key wins and keeps its place
                entries[name] = value
                out.lc.keys[name] = (key.start_mark.line, key.start_mark.column)
                out.lc.values[name] = (value.start_mark.line, value.start_mark.column)
            children = list(entries.values())
            out.lc.keys = {name: out.lc.keys[name] for name in entries}
            out._ok = {str(k.value) for k, _v in pairs if isinstance(k, ScalarNode)}
            out._ok.discard("<<")
        else:
            continue
        converted = []
        for child in children:
            known = memo.get(id(child))
            if known is None:
                known = shell(child)
                memo[id(child)] = known
                if not isinstance(known, str):
                    stack.append((child, known, depth + 1))
            converted.append(known)
        if isinstance(out, PosSeq):
            out.extend(converted)
        elif isinstance(out, PosMap):
            out.update(zip(list(out.lc.keys), converted, strict=True))
    return top  # type: ignore[return-value]
