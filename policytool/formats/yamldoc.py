# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""YAML for the repo rules: read fast with positions, edit as text (the engine writes).

Reading. :func:`load` and :func:`parse_text` run PyYAML's event parser (libyaml's C
parser when PyYAML has it, its pure-Python parser otherwise) and build
:class:`YamlMap` / :class:`YamlSeq` containers that carry the line and column of every
key, value and item: the positions ruamel.yaml's round-trip loader records, read the
same way (YAML 1.2 core schema, so ``on:`` stays the string ``"on"`` as GitHub reads
it; ``<<`` merge keys resolved; an anchor and its aliases are one object). It is about
twenty times faster than ruamel's pure-Python composer, which is most of a hook call.
ruamel.yaml round-trip stays the reference: whatever the builder does not model
(directives, complex keys, duplicate keys, number forms other than plain decimals,
timestamps, NEL/LS/PS characters, syntax errors) is read by ruamel, so the rules get
the same data or the same error message whichever parser read a file. A duplicate key
is one short :class:`DuplicateKeyError` from either; ``load(..., last_wins=True)`` reads
it as PyYAML does (pre-commit's reader: the last value wins) and lists the duplicates.

Tags. A rule must read what the file's consumer reads, so an explicitly tagged scalar
is its value, not a tagged object: ``!!str`` (also ``!<tag:yaml.org,2002:str>``) is the
text, ``!!null`` / ``!!bool`` / ``!!int`` / ``!!float`` their value where PyYAML's
SafeLoader (YAML 1.1, pre-commit) and the 1.2 core schema (GitHub) agree, ``!!map`` /
``!!seq`` / ``!`` change nothing. Every other tag (``!foo``, ``!!binary``, ``!!set``,
``!!python/...``, ``!!int 010``, ``!!bool yes``) is one :class:`YamlError`: the file
cannot be judged as its consumer reads it. Both parsers apply the same table.
``load(..., edit=True)`` and ``POLICYTOOL_YAML=ruamel`` read with ruamel throughout.

Bounds. A pull request author controls these files, so before any rule walks the
data a file over :data:`MAX_YAML_BYTES`, a device or FIFO, a symlink out of the repo,
nesting deeper than :data:`MAX_DEPTH` or aliases expanding past
:data:`MAX_ALIAS_NODES` nodes is one :class:`YamlError` sentence.

Editing. ruamel's dumper re-indents and moves comments, so fixes never dump: they edit
the text line by line (cut a block item with its leading comments, insert a key) and
then re-parse the result to prove it is still the document they meant. Everything not
edited stays byte-identical, including a BOM, CRLF or CR line endings and comments.
"""

from __future__ import annotations

import datetime
import functools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Union

from policytool.core.boundary import read_bounded, resolve_inside
from policytool.core.text import BOM, decode_text, encode_like, split_lines
from policytool.errors import (
    DecodeError,
    DuplicateKeyError,
    FileError,
    FileProblem,
    PolicyError,
    YamlError,
)

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

# What a parsed YAML node is at runtime: YamlMap / CommentedMap are dicts, YamlSeq /
# CommentedSeq lists; scalars are str (or a str subclass), int, float, bool or None.
YamlNode = Union["YamlMap", "YamlSeq", "CommentedMap", "CommentedSeq", str, int, float, bool, None]

# Bounds on a YAML file a rule reads (real configs and workflows: a few KB; the largest
# seen, vLLM's .buildkite/test-amd.yaml, 234 KB). A 1 MiB file parses in ~0.3 s.
MAX_YAML_BYTES = 1024 * 1024
MAX_DEPTH = 100
MAX_ALIAS_NODES = 100_000
# ruamel.yaml reads ~0.5 MB/s: it gets a file the fast builder hands over (an unusual
# construct, a syntax error) only up to this size, so every file is read in well under
# a second; bigger files get libyaml's own error message.
RUAMEL_MAX_BYTES = 192 * 1024

# Line breaks, as YAML 1.2 has them (ruamel.yaml agrees; NEL/LS/PS are not breaks).
_NOT_BREAKS_IN_12 = re.compile("[\x85\u2028\u2029]")


@dataclass
class YamlDoc:
    """One parsed YAML file: the data (with positions) and the text it came from."""

    relpath: str
    path: Path
    raw: bytes
    text: str  # decoded, without BOM
    data: YamlNode
    lines: list[str] = field(default_factory=list)  # with their line endings
    # Read as PyYAML reads duplicate keys (the last one wins; ``load(last_wins=True)``),
    # and the duplicates found that way; False: a duplicate key is a YamlError.
    last_wins: bool = False
    duplicates: tuple[DuplicateKey, ...] = ()

    @property
    def newline(self) -> str:
        """The file's line ending, taken from its first line (``\\n``, ``\\r\\n`` or ``\\r``)."""
        first = self.lines[0] if self.lines else "\n"
        if first.endswith("\r\n"):
            return "\r\n"
        return "\r" if first.endswith("\r") else "\n"

    def encode(self, text: str) -> bytes:
        """``text`` as bytes the way this file is stored (UTF-8, BOM kept)."""
        return encode_like(self.raw, text)

    def reparsed(self, text: str) -> YamlDoc:
        """This file as it would read with ``text`` (an edit's result, to verify it);
        :class:`YamlError` when that text does not parse."""
        if self.last_wins:
            data, duplicates = parse_last_wins(text, self.relpath)
        else:
            data, duplicates = parse_text(text, self.relpath), ()
        return YamlDoc(
            self.relpath,
            self.path,
            self.raw,
            text,
            data,
            split_lines(text),
            self.last_wins,
            duplicates,
        )


@dataclass(frozen=True)
class DuplicateKey:
    """A mapping key written again (1-based lines of the first and of this occurrence)."""

    key: str
    first: int
    line: int


# --- the fast reader ------------------------------------------------------------------

Pos = tuple[int, int]  # 0-based (line, column)


class Anchor:
    """A node's anchor name (``None``: not anchored), read as ruamel's ``node.anchor.value``."""

    __slots__ = ("value",)

    def __init__(self, value: str | None) -> None:
        self.value = value


_NO_ANCHOR = Anchor(None)


class YamlMap(dict):  # type: ignore[type-arg]
    """A mapping read by the fast builder, with the positions ruamel's ``.lc`` would hold."""

    __slots__ = ("pos", "key_pos", "value_pos", "own", "flow", "anchor")

    def __init__(self, pos: Pos, flow: bool) -> None:
        super().__init__()
        self.anchor = _NO_ANCHOR
        self.pos = pos
        self.key_pos: dict[object, Pos] = {}
        self.value_pos: dict[object, Pos] = {}
        self.own: frozenset[object] | None = None  # None: no merge key, every key is own
        self.flow = flow


class YamlSeq(list):  # type: ignore[type-arg]
    """A sequence read by the fast builder, with the position of each item."""

    __slots__ = ("pos", "item_pos", "flow", "anchor")

    def __init__(self, pos: Pos, flow: bool) -> None:
        super().__init__()
        self.anchor = _NO_ANCHOR
        self.pos = pos
        self.item_pos: list[Pos] = []
        self.flow = flow


class AnchoredString(str):
    """A string scalar that carries an anchor (``&name``) in ``.anchor.value``, as in ruamel."""

    anchor = _NO_ANCHOR


class LiteralScalarString(AnchoredString):
    """A ``|`` block scalar (ruamel.yaml's class name, which rules may test for)."""


class FoldedScalarString(AnchoredString):
    """A ``>`` block scalar (ruamel.yaml's class name, which rules may test for)."""


def anchor_name(node: object) -> str | None:
    """The anchor (``&name``) written on ``node``, from either parser; None when none."""
    anchor = getattr(node, "anchor", None)
    name = getattr(anchor, "value", None)
    return name if isinstance(name, str) else None


def is_block_scalar(value: object) -> bool:
    """Whether ``value`` was written as a ``|`` or ``>`` block scalar (either parser)."""
    return type(value).__name__ in ("LiteralScalarString", "FoldedScalarString")


class _Handover(Exception):
    """Something the fast builder does not model; ruamel.yaml reads the text instead.

    ``error`` is PyYAML's exception when the reason is that PyYAML cannot read the text;
    ``duplicate`` the key written twice when that is the reason.
    """

    def __init__(
        self, reason: str, error: Exception | None = None, duplicate: DuplicateKey | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.error = error
        self.duplicate = duplicate


class _MergeKey:
    """The plain ``<<`` scalar: a merge key, not a string."""

    __slots__ = ()


_MERGE = _MergeKey()
# First characters of the plain scalars that may read as something other than a string.
_TYPED_FIRST = frozenset("-+0123456789.=<~nNtTfF")


_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False}
_BOOLS["FALSE"] = False
_INT_RE = re.compile(r"[-+]?[0-9]+\Z")
_DATE_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
_FLOAT_RE = re.compile(
    r"[-+]?(?:[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+)\Z|[-+]?\.[0-9]+\Z"
)
# Every other plain scalar YAML 1.2 (ruamel's resolver table) reads as a number, a
# timestamp, a merge or a value key: handed to ruamel, which knows its exact type.
_OTHER_TYPED_RE = re.compile(
    r"""(?x)
    [-+]?0b[0-1_]+ | [-+]?0o?[0-7_]+ | [-+]?[0-9_]+ | [-+]?0x[0-9a-fA-F_]+
    | [-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)? | [-+]?[0-9][0-9_]*[eE][-+]?[0-9]+
    | [-+]?\.[0-9_]+(?:[eE][-+][0-9]+)? | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
    | [0-9]{4}-[0-9]{2}-[0-9]{2} | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9].*
    | =
    """
)


def _plain_scalar(value: str) -> object:
    """A plain scalar as YAML 1.2's core schema reads it (as ruamel.yaml does)."""
    if value in _NULLS:
        return None
    first = value[0]
    if first in "tTfF" and value in _BOOLS:
        return _BOOLS[value]
    if value == "<<":
        return _MERGE
    if first in "-+0123456789.=":
        if _INT_RE.match(value):
            return int(value)
        if _FLOAT_RE.match(value):
            return float(value)
        date = _DATE_RE.match(value)
        if date:
            try:
                return datetime.date(int(date[1]), int(date[2]), int(date[3]))
            except ValueError:
                raise _Handover(f"not a date {value!r}") from None
        if _OTHER_TYPED_RE.fullmatch(value) and (
            _has_digit(value) or _inf_or_nan(value) or value == "="
        ):
            raise _Handover(f"typed scalar {value!r}")
    return value


_TAG = "tag:yaml.org,2002:"
_FLOAT_12_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_INF_RE = re.compile(r"([-+]?)\.(?:inf|Inf|INF)\Z")
_NANS = frozenset((".nan", ".NaN", ".NAN"))


def _core_value(kind: str, raw: str) -> object:
    """The value of ``!!<kind> raw`` where YAML 1.1 and 1.2 agree; ``_Unjudgeable`` else.

    pre-commit reads with PyYAML's SafeLoader (YAML 1.1), GitHub with the 1.2 core
    schema: ``!!int 010`` is 8 for one and 10 for the other, ``!!bool yes`` true for one
    and an error for the other. Only the spellings both read alike get a value.
    """
    if kind == "null":
        if raw in _NULLS:
            return None
    elif kind == "bool":
        if raw in _BOOLS:
            return _BOOLS[raw]
    elif kind == "int":
        if re.fullmatch(r"[-+]?(?:0|[1-9][0-9]*)", raw):
            return int(raw)
        if re.fullmatch(r"0x[0-9a-fA-F]+", raw):
            return int(raw, 16)
    elif kind == "float":
        if _FLOAT_12_RE.match(raw):
            return float(raw)
        inf = _INF_RE.match(raw)
        if inf:
            return float(f"{inf[1]}inf")
        if raw in _NANS:
            return float("nan")
    return _UNJUDGEABLE


class _Unjudgeable:
    """A tagged scalar the consumers of a file would read differently."""

    __slots__ = ()


_UNJUDGEABLE = _Unjudgeable()


def _plain_agrees(raw: str) -> bool:
    """Whether a plain scalar is a string for both YAML 1.1 (PyYAML) and 1.2 (core)."""
    import yaml  # type: ignore[import-untyped,unused-ignore]

    if raw and raw[0] in _TYPED_FIRST:
        try:
            if not isinstance(_plain_scalar(raw), str):
                return False
        except _Handover:
            return False
    tag = yaml.SafeLoader.resolve(yaml.SafeLoader, yaml.ScalarNode, raw, (True, False))
    return bool(tag == _TAG + "str")


def tagged_scalar(tag: str, raw: str, style: str | None, relpath: str, line: int) -> object:
    """The value of a scalar written with an explicit tag, as its consumers read it.

    ``!!str`` (``tag:yaml.org,2002:str``) is the text itself; ``!!null``, ``!!bool``,
    ``!!int`` and ``!!float`` give their value where YAML 1.1 and 1.2 agree; ``!`` gives
    a string where PyYAML also reads one (it resolves ``! '3'`` as the int 3). Anything
    else (``!!int 010``, ``!!binary``, ``!foo``) is a :class:`YamlError`: the file cannot
    be judged as its consumer reads it.
    """
    if tag == _TAG + "str" or (tag == "!" and _plain_agrees(raw)):
        if style == "|":
            return LiteralScalarString(raw)
        if style == ">":
            return FoldedScalarString(raw)
        return raw
    kind = tag[len(_TAG) :] if tag.startswith(_TAG) else ""
    shown = f"!!{kind}" if kind else tag
    if kind in ("null", "bool", "int", "float"):
        value = _core_value(kind, raw)
        if value is not _UNJUDGEABLE:
            return value
        reason = (
            f"`{shown} {raw}` is read differently by YAML 1.1 (pre-commit) and 1.2 (GitHub), "
            "or is not valid for its tag"
        )
    elif tag == "!":
        reason = f"`! {raw}` is a string in YAML 1.2 but not for PyYAML (pre-commit)"
    else:
        reason = f"explicit tag `{shown}` is not a YAML core-schema tag"
    raise YamlError(
        relpath,
        line,
        f"{reason}: the file cannot be judged as its consumer reads it; write the value "
        "without the tag",
    )


_COLLECTION_TAGS = {"MappingStartEvent": _TAG + "map", "SequenceStartEvent": _TAG + "seq"}


def check_collection_tag(kind: str, tag: str | None, relpath: str, line: int) -> None:
    """Refuse a mapping or sequence tag other than ``!``, ``!!map`` / ``!!seq`` on its kind."""
    if tag is None or tag == "!" or tag == _COLLECTION_TAGS[kind]:
        return
    shown = "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag
    raise YamlError(
        relpath,
        line,
        f"explicit tag `{shown}` on a {'mapping' if kind[0] == 'M' else 'sequence'} is not "
        "a YAML core-schema tag: the file cannot be judged as its consumer reads it; "
        "write it without the tag",
    )


def _event_parser(text: str) -> object:
    """PyYAML's parser over ``text``: libyaml's when PyYAML was built with it."""
    import yaml  # type: ignore[import-untyped,unused-ignore]

    loader_class = getattr(yaml, "CBaseLoader", None) or yaml.BaseLoader
    return loader_class(text)


class _Frame:
    """A mapping or sequence being built, and the key waiting for its value."""

    __slots__ = ("node", "anchor", "key", "key_pos", "merges", "size")

    def __init__(self, node: YamlMap | YamlSeq, anchor: str | None) -> None:
        self.node = node
        self.anchor = anchor
        self.key: object = _NO_KEY
        self.key_pos: Pos = (0, 0)
        self.merges: list[YamlMap] | None = None
        self.size = 1


_NO_KEY = object()
_COMMENT_RE = re.compile(r"[ \t]*#")


def _empty_value_pos(lines: list[str], own: Pos, following: object) -> Pos:
    """Where ruamel.yaml places an empty block-mapping value; libyaml says ``own``.

    ruamel takes the start of the next token, unless a comment follows the ``:`` and
    the next key of the same mapping comes next (then the ``:``'s end, as libyaml);
    past the end of the text it is the end of the text.
    """
    mark = following.start_mark  # type: ignore[attr-defined]
    if type(following).__name__ in ("ScalarEvent", "AliasEvent") and own[0] < len(lines):
        if _COMMENT_RE.match(lines[own[0]], own[1]):
            return own
    breaks = len(lines) if lines and lines[-1][-1:] in ("\n", "\r") else len(lines) - 1
    if mark.line > breaks:
        return (max(breaks, 0), len(lines[-1].rstrip("\r\n")) if lines else 0)
    return (mark.line, mark.column)


def build(text: str, relpath: str, duplicates: list[DuplicateKey] | None = None) -> YamlNode:
    """The document in ``text`` as YamlMap/YamlSeq/scalars, or :class:`_Handover`.

    Bounds are enforced here for every parser: nesting past :data:`MAX_DEPTH` and alias
    expansion past :data:`MAX_ALIAS_NODES` raise :class:`YamlError`. A duplicate key is
    a handover, unless ``duplicates`` is given: then the last value wins, as PyYAML
    reads it (pre-commit), and each repeated key is appended there.
    """
    import yaml  # type: ignore[import-untyped,unused-ignore]

    if _NOT_BREAKS_IN_12.search(text):
        raise _Handover("NEL/LS/PS: line breaks in YAML 1.1 only")
    try:
        parser = _event_parser(text)
    except yaml.YAMLError as exc:  # PyYAML's pure-Python reader checks characters up front
        raise _Handover("PyYAML cannot read it", exc) from None
    stack: list[_Frame] = []
    anchors: dict[str, tuple[object, Pos, int]] = {}
    aliased = 0
    documents = 0
    root: object = None
    lines: list[str] | None = None
    # ruamel.yaml refuses a tab anywhere but inside a quoted or block scalar (libyaml
    # reads more): with tabs in the text, those scalars' spans are kept to check.
    spans: list[tuple[Pos, Pos]] | None = [] if "\t" in text else None
    pending: tuple[YamlMap, object, Pos] | None = None  # an empty value, placed by the next event
    from yaml.events import (  # type: ignore[import-untyped,unused-ignore]
        AliasEvent,
        DocumentStartEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        SequenceStartEvent,
    )

    check_event = parser.check_event  # type: ignore[attr-defined]
    get_event = parser.get_event  # type: ignore[attr-defined]
    try:
        while check_event():
            event = get_event()
            cls = event.__class__
            if pending is not None:
                owner, slot, own = pending
                if lines is None:
                    lines = split_lines(text)
                owner.value_pos[slot] = _empty_value_pos(lines, own, event)
                pending = None
            value: object
            size = 1
            if cls is ScalarEvent:
                mark = event.start_mark
                pos = (mark.line, mark.column)
                style = event.style
                raw = event.value
                if event.tag is not None:
                    value = tagged_scalar(event.tag, raw, style, relpath, mark.line + 1)
                    if spans is not None and style:
                        end = event.end_mark
                        spans.append((pos, (end.line, end.column)))
                elif not style:
                    if raw and raw[0] not in _TYPED_FIRST:
                        value = raw
                    else:
                        value = _plain_scalar(raw)
                        if not raw and not event.anchor and stack:
                            top = stack[-1]
                            is_map_value = top.node.__class__ is YamlMap
                            if top.node.flow or (is_map_value and top.key is _NO_KEY):
                                raise _Handover("an empty scalar in flow style or as a key")
                            if is_map_value:
                                slot = top.key
                                _attach(top, value, pos, 1)
                                pending = (top.node, slot, pos)  # type: ignore[assignment]
                                continue
                else:
                    if spans is not None:
                        end = event.end_mark
                        spans.append((pos, (end.line, end.column)))
                    if style == "|":
                        value = LiteralScalarString(raw)
                    elif style == ">":
                        value = FoldedScalarString(raw)
                    else:
                        value = raw
                if event.anchor:
                    if isinstance(value, str):
                        if not isinstance(value, AnchoredString):
                            value = AnchoredString(value)
                        value.anchor = Anchor(event.anchor)
                    elif value is not None:
                        raise _Handover("an anchored number or boolean")
                    anchors[event.anchor] = (value, pos, 1)
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                frame = stack.pop()
                value = frame.node
                pos = value.pos
                size = frame.size
                if not value:
                    value.flow = False  # as ruamel: an empty ``{}`` / ``[]`` has no style
                if frame.merges is not None:
                    _merge(frame.node, frame.merges)  # type: ignore[arg-type]
                if frame.anchor:  # an alias to a collection may follow only its end
                    anchors[frame.anchor] = (value, pos, size)
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                mark = event.start_mark
                pos = (mark.line, mark.column)
                if event.tag is not None and not event.implicit:
                    check_collection_tag(cls.__name__, event.tag, relpath, mark.line + 1)
                if len(stack) >= MAX_DEPTH:
                    raise YamlError(
                        relpath, mark.line + 1, f"nested deeper than {MAX_DEPTH} levels; not read"
                    )
                flow = bool(event.flow_style)
                node: YamlMap | YamlSeq = (
                    YamlMap(pos, flow) if cls is MappingStartEvent else YamlSeq(pos, flow)
                )
                if event.anchor:
                    node.anchor = Anchor(event.anchor)
                frame = _Frame(node, event.anchor)
                frame.key_pos = pos
                stack.append(frame)
                continue
            elif cls is AliasEvent:
                target = anchors.get(event.anchor)
                if target is None:
                    raise _Handover("undefined alias")
                value, pos, size = target
                aliased += size
                if aliased > MAX_ALIAS_NODES:
                    raise YamlError(
                        relpath,
                        event.start_mark.line + 1,
                        f"aliases expand to more than {MAX_ALIAS_NODES} nodes "
                        "(an alias bomb?); not read",
                    )
            elif cls is DocumentStartEvent:
                documents += 1
                if documents > 1 or event.version is not None or event.tags:
                    raise _Handover("directive or second document")
                continue
            else:  # StreamStart/End, DocumentEnd
                continue
            if not stack:
                root = value
                continue
            _attach(stack[-1], value, pos, size, duplicates)
    except yaml.YAMLError as exc:
        if "nesting depth" in str(getattr(exc, "problem", "")):  # libyaml's own bound
            raise YamlError(
                relpath,
                exc.problem_mark.line + 1,
                f"nested deeper than {MAX_DEPTH} levels; not read",
            ) from None
        raise _Handover("PyYAML cannot read it", exc) from None
    finally:
        parser.dispose()  # type: ignore[attr-defined]
    if root is _MERGE:
        raise _Handover("a lone merge key")
    if spans is not None and _loose_tab(lines or split_lines(text), spans):
        raise _Handover("a tab outside quoted and block scalars")
    return root  # type: ignore[return-value]


def _loose_tab(lines: list[str], spans: list[tuple[Pos, Pos]]) -> bool:
    """Whether a tab stands outside every quoted/block scalar span (0-based positions)."""
    for number, line in enumerate(lines):
        col = line.find("\t")
        while col >= 0:
            if not any(start <= (number, col) < end for start, end in spans):
                return True
            col = line.find("\t", col + 1)
    return False


def _attach(
    frame: _Frame,
    value: object,
    pos: Pos,
    size: int,
    duplicates: list[DuplicateKey] | None = None,
) -> None:
    """Put ``value`` into the container being built (``duplicates``: see :func:`build`)."""
    frame.size += size
    node = frame.node
    if value is _MERGE and (isinstance(node, YamlSeq) or frame.key is not _NO_KEY):
        raise _Handover("a merge key used as a value")
    if isinstance(node, YamlSeq):
        node.append(value)
        node.item_pos.append(pos)
        return
    if frame.key is _NO_KEY:
        if isinstance(value, (YamlMap, YamlSeq)):
            raise _Handover("complex mapping key")
        frame.key = value
        frame.key_pos = pos
        return
    key = frame.key
    frame.key = _NO_KEY
    if key is _MERGE:
        if frame.merges is not None:
            raise _Handover("second merge key")
        sources = value if isinstance(value, YamlSeq) else [value]
        if not all(isinstance(src, YamlMap) for src in sources):
            raise _Handover("merge of a non-mapping")
        frame.merges = list(sources)  # type: ignore[arg-type]
        return
    if key in node:
        repeated = DuplicateKey(str(key), node.key_pos[key][0] + 1, frame.key_pos[0] + 1)
        if duplicates is None:
            raise _Handover("duplicate key", duplicate=repeated)
        duplicates.append(repeated)
    node[key] = value
    node.key_pos[key] = frame.key_pos
    node.value_pos[key] = pos


def _merge(node: YamlMap, sources: list[YamlMap]) -> None:
    """Apply ``<<`` merges as ruamel does: own keys win, then earlier sources win."""
    node.own = frozenset(node)
    for source in sources:
        for key, value in source.items():
            if key not in node:
                node[key] = value


# --- parsing entry points -------------------------------------------------------------


def _backend() -> str:
    """``fast`` (the default) or ``ruamel`` (``POLICYTOOL_YAML=ruamel``)."""
    return "ruamel" if os.environ.get("POLICYTOOL_YAML") == "ruamel" else "fast"


def _yaml() -> object:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.Constructor = _constructor()
    yaml.preserve_quotes = True
    return yaml


@functools.cache
def _constructor() -> type:
    """ruamel's round-trip constructor reading digit-less number look-alikes as strings
    (built once per process)."""
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.nodes import ScalarNode

    class Constructor(RoundTripConstructor):
        """ruamel's resolver takes a digit-less `-_` for an int and `._` for a float,
        then fails to convert them; YAML 1.2's core schema and PyYAML (pre-commit) read
        both as strings, and so does this constructor."""

        # A string where ruamel's own methods promise a number: the point of the override.
        def construct_yaml_int(self, node: ScalarNode) -> int | str:  # type: ignore[override]
            if not _has_digit(node.value):
                text: str = self.construct_yaml_str(node)
                return text
            number: int = super().construct_yaml_int(node)
            return number

        def construct_yaml_float(self, node: ScalarNode) -> float | str:  # type: ignore[override]
            if not _has_digit(node.value) and not _inf_or_nan(node.value):
                text: str = self.construct_yaml_str(node)
                return text
            number: float = super().construct_yaml_float(node)
            return number

    Constructor.add_constructor("tag:yaml.org,2002:int", Constructor.construct_yaml_int)
    Constructor.add_constructor("tag:yaml.org,2002:float", Constructor.construct_yaml_float)
    return Constructor


def _inf_or_nan(value: str) -> bool:
    """Whether ``value`` spells an infinity or NaN (the numbers written without a digit)."""
    return value in _NANS or _INF_RE.match(value) is not None


def _has_digit(value: object) -> bool:
    """Whether a scalar's text holds a digit: no number is written without one."""
    return isinstance(value, str) and any(c.isdigit() for c in value)


def parse_ruamel(text: str, relpath: str) -> YamlNode:
    """Parse YAML text with ruamel.yaml round-trip; errors become :class:`YamlError`.

    No bounds here: callers go through :func:`parse_text`, which checks them first.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = _yaml()
    assert isinstance(yaml, YAML)
    try:
        data: YamlNode = yaml.load(text)
        if "!" in text:
            _check_tags(text, relpath)
            data = _untag(data, relpath, 1)  # type: ignore[assignment]
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = exc.problem or exc.context or "invalid YAML"
        duplicate = re.match(r'found duplicate key "(.*?)" with value', problem, re.S)
        if duplicate:  # not ruamel's whole message: it holds both values (kilobytes)
            raise DuplicateKeyError(
                relpath, line, f"duplicate key `{duplicate[1]}`; write it once"
            ) from None
        raise YamlError(relpath, line, f"invalid YAML: {problem}") from None
    except YAMLError as exc:
        raise YamlError(relpath, 1, "invalid YAML: " + " ".join(str(exc).split())) from None
    except RecursionError:
        raise YamlError(relpath, 1, "nested too deeply to read") from None
    except (ValueError, IndexError) as exc:
        # A scalar ruamel resolves to a type and then fails to build (a digit-less `-_`
        # or `._` no longer does: see ``_yaml``).
        raise YamlError(relpath, 1, f"invalid YAML: a scalar that cannot be read ({exc})") from None
    return data


def _parse(text: str, relpath: str, backend: str) -> YamlNode:
    """Parse with the bounds checked first; ``backend`` is ``fast`` or ``ruamel``."""
    try:
        data = build(text, relpath)
    except _Handover as handover:
        if handover.duplicate is not None:
            raise duplicate_error(relpath, handover.duplicate) from None
        if len(text) <= RUAMEL_MAX_BYTES:
            data = parse_ruamel(text, relpath)
            # ruamel shares aliased nodes without counting them: a bomb behind a
            # handover (a `%YAML` directive first) is bounded here instead.
            if _expanded_size(data, MAX_ALIAS_NODES) is None:
                raise YamlError(
                    relpath,
                    1,
                    f"aliases expand to more than {MAX_ALIAS_NODES} nodes "
                    "(or into themselves); not read",
                ) from None
            return data
        error = handover.error
        if error is None:
            raise YamlError(
                relpath, 1, f"{handover.reason} in a file over {RUAMEL_MAX_BYTES} bytes; not read"
            ) from None
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        problem = getattr(error, "problem", None) or getattr(error, "context", None) or error
        line = mark.line + 1 if mark is not None else 1
        raise YamlError(relpath, line, f"invalid YAML: {problem}") from None
    if backend == "ruamel":
        return parse_ruamel(text, relpath)
    return data


def _check_tags(text: str, relpath: str) -> None:
    """Refuse every explicit tag the consumers of ``text`` would read differently.

    ruamel.yaml builds values for tags such as ``!!binary``, ``!!set`` or even
    ``!!python/object`` (as a plain mapping); the events say what was written.
    """
    import yaml  # type: ignore[import-untyped,unused-ignore]

    parser = _event_parser(text)
    try:
        while parser.check_event():  # type: ignore[attr-defined]
            event = parser.get_event()  # type: ignore[attr-defined]
            tag = getattr(event, "tag", None)
            if tag is None:
                continue
            line = event.start_mark.line + 1
            name = event.__class__.__name__
            if name == "ScalarEvent":
                tagged_scalar(tag, event.value, event.style, relpath, line)
            elif not event.implicit:
                check_collection_tag(name, tag, relpath, line)
    except yaml.YAMLError:
        return  # ruamel.yaml read it; its values are checked as they are untagged
    finally:
        parser.dispose()  # type: ignore[attr-defined]


def _untag(node: object, relpath: str, line: int, seen: set[int] | None = None) -> object:
    """ruamel.yaml's data with every tagged scalar (``TaggedScalar``) as its value."""
    from ruamel.yaml.comments import TaggedScalar
    from ruamel.yaml.scalarstring import FoldedScalarString as RFolded
    from ruamel.yaml.scalarstring import LiteralScalarString as RLiteral

    if isinstance(node, TaggedScalar):
        tag = node.tag.value if node.tag is not None else "!"
        value = tagged_scalar(str(tag), str(node.value), node.style, relpath, line)
        if isinstance(value, LiteralScalarString):
            return RLiteral(str(value))
        if isinstance(value, FoldedScalarString):
            return RFolded(str(value))
        return value
    if not isinstance(node, (dict, list)):
        return node
    seen = set() if seen is None else seen
    if id(node) in seen:
        return node
    seen.add(id(node))
    lc = getattr(node, "lc", None)
    if isinstance(node, list):
        for index, item in enumerate(node):
            at = item_pos(node, index)
            new = _untag(item, relpath, at[0] + 1 if at else line, seen)
            if new is not item:
                node[index] = new
        return node
    for key in list(node):
        at = value_pos(node, key) if lc is not None else None
        new = _untag(node[key], relpath, at[0] + 1 if at else line, seen)
        if new is not node[key]:
            node[key] = new
    if any(isinstance(key, TaggedScalar) for key in node):
        items = [(_untag(k, relpath, line, seen), v) for k, v in node.items()]
        if lc is not None:
            lc.data = {_untag(k, relpath, line, seen): v for k, v in lc.data.items()}
        ok = getattr(node, "_ok", None)
        if isinstance(ok, set):
            node._ok = {_untag(k, relpath, line, seen) for k in ok}  # type: ignore[attr-defined]
        node.clear()
        node.update(items)
    return node


def _expanded_size(root: object, limit: int) -> int | None:
    """How many nodes ``root`` holds with aliases expanded; None past ``limit`` or cyclic.

    Each shared node is sized once (by identity), so the cost is the size of the
    document as written, not as expanded. Iterative: deep nesting cannot overflow.
    """
    sizes: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        key = id(node)
        children = list(node.values()) if isinstance(node, dict) else node
        if done:
            active.discard(key)
            total = 1
            for child in children:
                total += sizes.get(id(child), 1) if isinstance(child, (dict, list)) else 1
            if total > limit:
                return None
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in active:
            return None  # an alias inside its own anchor: endless
        active.add(key)
        stack.append((node, True))
        for child in children:
            if isinstance(child, (dict, list)):
                if id(child) in active:
                    return None
                if id(child) not in sizes:
                    stack.append((child, False))
    return sizes.get(id(root), 1)


def parse_text(text: str, relpath: str) -> YamlNode:
    """Parse YAML text (bounded); a syntax error becomes :class:`YamlError` with its line."""
    return _parse(text, relpath, _backend())


def duplicate_error(relpath: str, duplicate: DuplicateKey) -> DuplicateKeyError:
    """The one sentence for a key written twice (at the second one's line), the same
    whichever parser found it."""
    return DuplicateKeyError(
        relpath, duplicate.line, f"duplicate key `{duplicate.key}`; write it once"
    )


def parse_last_wins(text: str, relpath: str) -> tuple[YamlNode, tuple[DuplicateKey, ...]]:
    """Parse as :func:`parse_text`, but read a duplicate key as PyYAML (pre-commit's
    reader) does: the last value wins. Also returns the duplicates found; a file with
    duplicates and something only ruamel.yaml reads is the :class:`DuplicateKeyError`."""
    try:
        return _parse(text, relpath, _backend()), ()
    except DuplicateKeyError as error:
        found: list[DuplicateKey] = []
        try:
            data = build(text, relpath, found)
        except _Handover:
            raise error from None
        return data, tuple(found)


_CACHE: dict[tuple[str, bytes, str, bool], YamlDoc] = {}  # (path, content, backend, last_wins)


def load(root: Path, relpath: str, *, edit: bool = False, last_wins: bool = False) -> YamlDoc:
    """Read and parse ``root/relpath`` (cached by content); raise :class:`YamlError`.

    ``edit=True`` reads with ruamel.yaml round-trip (for a fix about to edit the text);
    the positions are the same either way. ``last_wins=True`` reads duplicate keys as
    PyYAML does (:func:`parse_last_wins`; the doc lists them). A missing file raises
    ``FileNotFoundError``; callers decide whether that matters. A file that is not a
    regular file, leaves the repository through a symlink, or is over
    :data:`MAX_YAML_BYTES` is a YamlError.
    """
    path = root / relpath
    if not os.path.lexists(path):
        raise FileNotFoundError(2, "No such file or directory", str(path))
    try:
        real = resolve_inside(root, relpath, relpath)
        raw = read_bounded(real, relpath, MAX_YAML_BYTES)
    except FileError as exc:
        raise YamlError(relpath, exc.line, exc.reason) from None
    except PolicyError:
        raise YamlError(relpath, 1, "a symlink that leaves the repository; not read") from None
    backend = "ruamel" if edit else _backend()
    key = (str(path), raw, backend, last_wins)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    if b"\0" in raw.removeprefix(BOM)[:8000]:
        raise YamlError(relpath, 1, "binary file, not YAML")
    try:
        text = decode_text(raw, relpath)
    except DecodeError as exc:
        raise YamlError(relpath, exc.line, f"not valid UTF-8 ({exc.detail})") from None
    duplicates: tuple[DuplicateKey, ...] = ()
    if last_wins:
        data, duplicates = parse_last_wins(text, relpath)
    else:
        data = _parse(text, relpath, backend)
    doc = YamlDoc(relpath, path, raw, text, data, split_lines(text), last_wins, duplicates)
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = doc
    return doc


def load_present(root: Path, relpath: str, *, last_wins: bool = False) -> YamlDoc | None:
    """:func:`load`, None when the file is absent; a file that does not read or parse is a
    :class:`FileProblem` at its line."""
    try:
        return load(root, relpath, last_wins=last_wins)
    except FileNotFoundError:
        return None
    except YamlError as exc:
        raise FileProblem(relpath, exc.line, exc.message) from None


# --- positions ------------------------------------------------------------------------


def is_map(node: object) -> bool:
    """Whether ``node`` is a YAML mapping."""
    return isinstance(node, dict)


def is_seq(node: object) -> bool:
    """Whether ``node`` is a YAML sequence."""
    return isinstance(node, list)


def node_line(node: object, default: int = 1) -> int:
    """1-based line where a mapping or sequence starts."""
    if isinstance(node, (YamlMap, YamlSeq)):
        return node.pos[0] + 1
    lc = getattr(node, "lc", None)
    line = getattr(lc, "line", None)
    return line + 1 if isinstance(line, int) else default


def key_line(mapping: object, key: str, default: int | None = None) -> int:
    """1-based line of ``key`` in ``mapping`` (the mapping's own line when absent)."""
    pos = key_pos(mapping, key)
    if pos is not None:
        return pos[0] + 1
    return default if default is not None else node_line(mapping)


def key_pos(mapping: object, key: str) -> tuple[int, int] | None:
    """0-based (line, col) of ``key`` itself, if it is written in ``mapping``."""
    if isinstance(mapping, YamlMap):
        return mapping.key_pos.get(key)
    if key not in own_keys(mapping):
        return None
    return _ruamel_pos(mapping, key, value=False)


def value_pos(mapping: object, key: str) -> tuple[int, int] | None:
    """0-based (line, col) where the value of ``key`` starts, if known."""
    if isinstance(mapping, YamlMap):
        return mapping.value_pos.get(key)
    return _ruamel_pos(mapping, key, value=True)


def _ruamel_pos(mapping: object, key: str, value: bool) -> tuple[int, int] | None:
    """0-based (line, col) of ``key`` (or of its value) as a ruamel.yaml mapping records
    it; None when it records none."""
    lc = getattr(mapping, "lc", None)
    if lc is None:
        return None
    try:
        line, col = lc.value(key) if value else lc.key(key)
    except (KeyError, TypeError):
        return None
    return int(line), int(col)


_PROPERTY_RE = re.compile(r"(?:[&!][^ \t\r\n]*[ \t]+)*")


def scalar_start(line: str, col: int) -> int | None:
    """Column where a scalar's own text starts, past its ``&anchor`` / ``!tag`` at ``col``.

    Positions (both parsers') point at a node's first property; a fix that edits the
    text needs the scalar itself. None when the text starts on a later line.
    """
    if line[col : col + 1] not in ("&", "!"):
        return col
    end = _PROPERTY_RE.match(line, col)
    start = end.end() if end else col
    rest = line[start:].rstrip("\r\n")
    if not rest.strip() or rest[0] in "&!#":
        return None
    return start


def item_line(seq: object, index: int) -> int:
    """1-based line of item ``index`` of a sequence."""
    pos = item_pos(seq, index)
    return pos[0] + 1 if pos is not None else node_line(seq)


def item_pos(seq: object, index: int) -> tuple[int, int] | None:
    """0-based (line, col) of item ``index``'s content."""
    if isinstance(seq, YamlSeq):
        return seq.item_pos[index] if -len(seq) <= index < len(seq) else None
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
    if isinstance(mapping, YamlMap):
        own = mapping.own
        return [str(k) for k in mapping if own is None or k in own]
    ok = getattr(mapping, "_ok", None)
    if isinstance(mapping, dict):
        return [str(k) for k in mapping if ok is None or k in ok]
    return []


def is_flow(node: object) -> bool:
    """Whether a mapping or sequence is written in flow style (``[a, b]`` / ``{a: b}``)."""
    if isinstance(node, (YamlMap, YamlSeq)):
        return node.flow
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
