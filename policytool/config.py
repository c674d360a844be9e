# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``[tool.policytool]`` of ``pyproject.toml`` -> typed, frozen dataclasses.

This module is the machinery, not the sections: each ``[tool.policytool.X]`` section is
a frozen dataclass declared next to the rules that read it (``policytool/rules/_*_config.py``,
the locks' in ``policytool/engine/lock_config.py``) and registered here with
:func:`register_section`; :class:`Config` holds the sections by type
(``config.section(SpdxConfig)``, ``config.entries(LockConfig)``). Field names are the TOML
keys with ``-`` turned into ``_``; :func:`build_section` converts a TOML table into one of
them generically from the field annotations, so a new section is declared, not parsed by
hand. Unknown keys and wrong types raise :class:`ConfigError` naming the file, the key,
its line and (for unknown keys) the nearest valid key. The modules declaring sections are
listed in the generated :mod:`policytool.engine.rule_index`; building a config imports
those of the tables it has.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, TypeVar

from policytool.core.memo import RunMemo
from policytool.errors import ConfigError, DecodeError, FileError, PolicyError
from policytool.formats.toml import KeyPath, key_line, key_lines

T = TypeVar("T")


class KeyDoc(NamedTuple):
    """One key of a ``[tool.policytool...]`` section as docs/config.md shows it."""

    # What the value is, in words ("list of globs").
    kind: str
    # What the key does, one line of Markdown.
    meaning: str
    # The default in words; None: the field's own default, shown as TOML ("required" when
    # it has none).
    default: str | None = None


@dataclass(frozen=True)
class SectionDoc:
    """The docs of one section dataclass: prose around its table and one row per key."""

    intro: str
    keys: dict[str, KeyDoc]
    outro: str = ""


# Section dataclass -> its docs, filled by :func:`document` next to each dataclass; the
# generator (``policytool.engine.config_docs``) renders docs/config.md from it and a test
# fails when a key has no row.
SECTION_DOCS: dict[type, SectionDoc] = {}


def document(cls: type, intro: str, keys: dict[str, KeyDoc], outro: str = "") -> None:
    """Record the docs of section dataclass ``cls`` (TOML key -> :class:`KeyDoc`)."""
    SECTION_DOCS[cls] = SectionDoc(intro.strip(), keys, outro.strip())


# What a section's ``finish`` gets: the entries built from its table (one for a single
# table, every ``[[...]]`` entry as written for a repeated one) and where they came from;
# it checks what the types alone cannot express and returns the entries to keep.
Finish = Callable[[tuple[T, ...], "ConfigContext"], tuple[T, ...]]


@dataclass(frozen=True)
class Section:
    """One registered ``[tool.policytool.TABLE]`` section."""

    table: str  # the TOML key under [tool.policytool] ("spdx", "forbidden-import")
    cls: type  # the dataclass one table builds
    repeated: bool  # ``[[...]]``: a list of tables
    # Builds the entries from the TOML value at ``where`` (type-erased :data:`Finish`
    # included): a single section gives one, a repeated one any number.
    build: Callable[[object, KeyPath, ConfigContext], tuple[object, ...]]
    finish: Callable[[tuple[object, ...], ConfigContext], tuple[object, ...]]


# TOML table name -> its section, filled by :func:`register_section` as the modules
# declaring sections are imported (:func:`load_sections`; the generated index says
# which module declares which table).
SECTIONS: dict[str, Section] = {}


def register_section(
    table: str, cls: type[T], *, repeated: bool = False, finish: Finish[T] | None = None
) -> None:
    """Register dataclass ``cls`` as ``[tool.policytool.TABLE]`` (``[[...]]`` if ``repeated``).

    Called at import time by the module declaring the section, next to its
    :func:`document` call. ``finish`` runs once every table is built.
    """
    if table in SECTIONS and SECTIONS[table].cls is not cls:
        raise ValueError(f"config section registered twice: {table}")

    def build(value: object, where: KeyPath, ctx: ConfigContext) -> tuple[object, ...]:
        """The entries of the TOML ``value`` (a table, or a list of them)."""
        if not repeated:
            return (_convert(value, cls, where, ctx),)
        if isinstance(value, str):
            _one_line(value, where, ctx)
        if isinstance(value, dict):
            # `[tool.policytool.lock]` where `[[tool.policytool.lock]]` is meant.
            raise ctx.error(
                where,
                f"expected an array of tables, got one table "
                f"(write [[{show_path(where)}]], with two brackets, once for each entry)",
            )
        if not isinstance(value, list):
            raise ctx.error(where, f"expected a list, got {type(value).__name__}")
        return tuple(_convert(item, cls, (*where, i), ctx) for i, item in enumerate(value))

    def typed_finish(entries: tuple[object, ...], ctx: ConfigContext) -> tuple[object, ...]:
        """``finish`` over the entries, which :func:`build` made instances of ``cls``."""
        typed = tuple(e for e in entries if isinstance(e, cls))
        return finish(typed, ctx) if finish is not None else typed

    SECTIONS[table] = Section(table, cls, repeated, build, typed_finish)


def load_sections(tables: Iterable[str] | None = None) -> dict[str, Section]:
    """The sections of ``tables`` (every one for None), importing the modules that declare
    them; in the order of the index, whichever module a run imported first."""
    from policytool.engine.rule_index import SECTION_INDEX

    wanted = list(SECTION_INDEX) if tables is None else [t for t in tables if t in SECTION_INDEX]
    for module in dict.fromkeys(SECTION_INDEX[t] for t in wanted):
        importlib.import_module(module)
    return {t: SECTIONS[t] for t in SECTION_INDEX if t in wanted and t in SECTIONS}


@dataclass(frozen=True)
class Config:
    """The whole ``[tool.policytool]`` table plus where it came from.

    The sections are held by type: :meth:`section` gives a single section (its defaults
    when the table is not written), :meth:`entries` every entry of a repeated one.
    """

    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None
    # The whole pyproject.toml the table was read from (its ``[project]`` too), as parsed.
    document: Mapping[str, object] = field(default_factory=dict, compare=False, repr=False)
    exclude: tuple[str, ...] = ()
    # The sections written (or given by a caller): one value per single section, every
    # entry of a repeated one in order. A section not here has its defaults.
    sections: tuple[object, ...] = ()
    # The run's memo (see core/memo.py): a new Config, a new run, an empty memo.
    memo: RunMemo = field(default_factory=RunMemo, init=False, compare=False, repr=False)
    # Section type -> its values (filled from ``sections``; defaults added on first use).
    _by_type: dict[type, tuple[object, ...]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        """Index :attr:`sections` by type."""
        for value in self.sections:
            self._by_type[type(value)] = (*self._by_type.get(type(value), ()), value)

    def section(self, cls: type[T]) -> T:
        """The single section ``cls``: as written, else its defaults (the same object each
        call)."""
        values = self._by_type.get(cls)
        if values is None:
            values = self._by_type[cls] = (cls(),)
        value = values[0]
        if not isinstance(value, cls):  # pragma: no cover - __post_init__ indexes by type
            raise TypeError(f"{value!r} is not a {cls}")
        return value

    def entries(self, cls: type[T]) -> tuple[T, ...]:
        """Every entry of the repeated section ``cls``, in order (none when not written)."""
        return tuple(v for v in self._by_type.get(cls, ()) if isinstance(v, cls))

    def with_sections(self, *values: object) -> Config:
        """This config with ``values`` in place of the sections of their types (a repeated
        section's entries all replaced by the ones given)."""
        kinds = {type(v) for v in values}
        kept = tuple(v for v in self.sections if type(v) not in kinds)
        return dataclasses.replace(self, sections=(*kept, *values))


document(
    Config,
    "",
    {
        "exclude": KeyDoc(
            "list of globs", "paths no rule looks at, with or without paths on the command line"
        )
    },
)


# Fields that are not TOML keys; ``configured`` marks a section built from a table the
# repository wrote (policies nobody chose stay off).
_INTERNAL_FIELDS = frozenset(
    {"root", "source", "document", "memo", "sections", "_by_type", "variant", "configured"}
)


# Control characters and the characters str.splitlines() breaks on (U+2028, U+0085...).
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class ConfigContext:
    """Where a table came from, for error messages (and the whole file, for defaults
    taken from the rest of ``pyproject.toml``)."""

    def __init__(self, path: Path, text: str, data: Mapping[str, object] | None = None) -> None:
        self.path = path
        self.text = text
        self.data: Mapping[str, object] = data or {}
        self._lines: dict[KeyPath, int] | None = None

    def line_of(self, where: KeyPath) -> int | None:
        """The line of the key at ``where`` (or of its nearest written parent)."""
        if self._lines is None:
            self._lines = key_lines(self.text)
        return key_line(self._lines, where)

    def error(self, where: KeyPath, message: str, at: KeyPath | None = None) -> ConfigError:
        """A ConfigError naming the file, the line of the key at ``at`` (default ``where``)
        and the path ``where``."""
        line = self.line_of(at if at is not None else where)
        shown = f"{self.path}:{line}" if line else str(self.path)
        return ConfigError(f"{shown}: {show_path(where)}: {message}")


def show_path(where: KeyPath) -> str:
    """``("tool", "policytool", "lock", 0, "name")`` -> ``tool.policytool.lock[0].name``."""
    out = ""
    for part in where:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _one_line(value: str, where: KeyPath, ctx: ConfigContext) -> None:
    """Config strings end up in files (SPDX lines), findings and PR bodies: one line each."""
    bad = _CONTROL_RE.search(value)
    if bad is not None:
        raise ctx.error(
            where,
            f"must be one line without control characters (found {bad.group()!r} "
            f"at offset {bad.start()})",
        )


one_line = _one_line


def _toml_key(field_name: str) -> str:
    return field_name.replace("_", "-")


def _type_name(tp: object) -> str:
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(c) for c in typing.get_args(tp))
    if origin is tuple:
        return "a list"
    if origin is dict:
        return "a table"
    if origin in (typing.Union, types.UnionType):
        names = [_type_name(a) for a in typing.get_args(tp) if a is not type(None)]
        return " or ".join(names)
    if dataclasses.is_dataclass(tp):
        return "a table"
    labels: dict[object, str] = {str: "a string", bool: "a boolean", int: "an integer"}
    return labels.get(tp, str(tp))


def _convert(value: object, tp: object, where: KeyPath, ctx: ConfigContext) -> object:
    """Convert one TOML value to the annotated type ``tp`` or raise a ConfigError."""
    if isinstance(value, str):
        _one_line(value, where, ctx)
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        choices = typing.get_args(tp)
        if value not in choices:
            import difflib  # only for the message: a run with a valid config never loads it

            shown = ", ".join(repr(c) for c in choices)

            close = (
                difflib.get_close_matches(value, [str(c) for c in choices], n=1)
                if isinstance(value, str)
                else []
            )
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ctx.error(where, f"expected one of {shown}, got {value!r}{hint}")
        return value
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        for arg in args:
            try:
                return _convert(value, arg, where, ctx)
            except ConfigError:
                continue
        raise ctx.error(where, f"expected {_type_name(tp)}, got {value!r}")
    if origin is tuple:
        (item_type, _ellipsis) = typing.get_args(tp)
        if isinstance(value, str) and (
            item_type is str or typing.get_origin(item_type) is typing.Literal
        ):
            # A single string where a list is expected is a common slip; be strict.
            raise ctx.error(where, f'expected a list of strings, got a string (write ["{value}"])')
        if isinstance(value, dict) and dataclasses.is_dataclass(item_type):
            # `[tool.policytool.lock]` where `[[tool.policytool.lock]]` is meant.
            dotted = show_path(where)
            raise ctx.error(
                where,
                f"expected an array of tables, got one table "
                f"(write [[{dotted}]], with two brackets, once for each entry)",
            )
        if not isinstance(value, list):
            raise ctx.error(where, f"expected a list, got {type(value).__name__}")
        return tuple(_convert(item, item_type, (*where, i), ctx) for i, item in enumerate(value))
    if origin is dict:
        (key_type, value_type) = typing.get_args(tp)
        if not isinstance(value, dict):
            raise ctx.error(where, f"expected a table, got {type(value).__name__}")
        return {str(k): _convert(v, value_type, (*where, str(k)), ctx) for k, v in value.items()}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ctx.error(where, f"expected a table, got {type(value).__name__}")
        return build_section(tp, value, where, ctx)
    if tp is bool:
        if not isinstance(value, bool):
            raise ctx.error(where, f"expected true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ctx.error(where, f"expected an integer, got {value!r}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise ctx.error(where, f"expected a string, got {value!r}")
        return value
    raise TypeError(f"unsupported config annotation {tp!r}")  # a bug in a section declaration


def build_section(
    cls: type[T], table: Mapping[str, object], where: KeyPath, ctx: ConfigContext
) -> T:
    """Build dataclass ``cls`` from a TOML table, rejecting unknown keys and wrong types."""
    hints = typing.get_type_hints(cls)
    by_key = {
        _toml_key(f.name): f
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.name not in _INTERNAL_FIELDS
    }
    kwargs: dict[str, object] = {}
    for key, value in table.items():
        f = by_key.get(key)
        if f is None:
            import difflib  # only for the message: a run with a valid config never loads it

            # A close spelling only (``torch-backend`` is not ``backend``), or the key a
            # backend's own option name maps to (``no-emit-package`` -> ``exclude``).
            key_hints: dict[str, str] = getattr(cls, "KEY_HINTS", {})
            close = [key_hints[key]] if key in key_hints else []
            close = close or difflib.get_close_matches(key, list(by_key), n=1, cutoff=0.8)
            hint = (
                f"; did you mean '{close[0]}'?"
                if close
                else f"; valid keys: {', '.join(sorted(by_key))}"
            )
            raise ctx.error(where, f"unknown key '{key}'{hint}", at=(*where, key))
        kwargs[f.name] = _convert(value, hints[f.name], (*where, key), ctx)
    missing = [
        _toml_key(f.name)
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.name not in kwargs
        and f.name not in _INTERNAL_FIELDS
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise ctx.error(where, f"missing required key '{missing[0]}'")
    if "configured" in hints:
        kwargs["configured"] = True
    return cls(**kwargs)


def _upward(start: Path) -> list[Path]:
    """``start`` and its parents up to the top of the git work tree holding it (if any).

    A config above the repository (``~/pyproject.toml``) is never the repo's config.
    """
    chain: list[Path] = []
    for directory in (start, *start.parents):
        chain.append(directory)
        if (directory / ".git").exists():
            break
    else:
        return [start, *start.parents]  # not in a git work tree: the nearest one anywhere up
    return chain


def find_pyproject(start: Path) -> Path | None:
    """The ``pyproject.toml`` policytool reads: the nearest one at or above ``start``
    (not above its git work tree) holding a ``[tool.policytool]`` table, as ruff skips a
    pyproject.toml without ``[tool.ruff]``; a sub-package's pyproject.toml without one
    does not replace the repository's. Without any such table, the outermost one inside
    the work tree (the nearest outside of git); one that does not parse is read (and
    its error reported)."""
    chain = _upward(start)
    found = [d / "pyproject.toml" for d in chain if (d / "pyproject.toml").is_file()]
    for candidate in found:
        if _has_table(candidate):
            return candidate
    if not found:
        return None
    in_git = (chain[-1] / ".git").exists()
    return found[-1] if in_git else found[0]


def _has_table(path: Path) -> bool:
    """Whether ``path`` has a ``[tool.policytool]`` table (True when it cannot be read or
    parsed: then it is the file whose error the user must see)."""
    from policytool.core.boundary import read_bounded

    try:
        raw = read_bounded(path, str(path))
    except FileError:
        return True
    if b"policytool" not in raw:
        return False
    from policytool.formats.toml import loads

    try:
        data = loads(raw.decode("utf-8-sig"), str(path))
    except (UnicodeDecodeError, PolicyError):
        return True
    tool = data.get("tool")
    return isinstance(tool, dict) and "policytool" in tool


# Files a policytool configuration is sometimes written in, where policytool never reads
# it, and what in them is one: any setting in a policytool.toml, a policytool table in
# the others.
_ANY_SETTING = re.compile(r"^[ \t]*[^\s#]", re.M)
_TOOL_TABLE = re.compile(r"^[ \t]*\[\[?[ \t]*tool\.policytool\b", re.M)
_CFG_SECTION = re.compile(r"^[ \t]*\[[ \t]*(?:tool[.:])?policytool\b", re.M)
_STRAY = {
    "policytool.toml": _ANY_SETTING,
    ".policytool.toml": _ANY_SETTING,
    "ruff.toml": _TOOL_TABLE,
    ".ruff.toml": _TOOL_TABLE,
    "setup.cfg": _CFG_SECTION,
    "tox.ini": _CFG_SECTION,
}


def refuse_stray_config(start: Path, root: Path) -> None:
    """One sentence (:class:`ConfigError`) when policytool configuration stands in a file
    policytool never reads (``policytool.toml``, ``ruff.toml``, ``setup.cfg``...) in a
    directory from ``start`` up to ``root``: it would be silently ignored."""
    from policytool.core.boundary import read_bounded

    for directory in _upward(start):
        for name, pattern in _STRAY.items():
            path = directory / name
            if not path.is_file():
                continue
            try:
                text = read_bounded(path, name).decode("utf-8", "replace")
            except FileError:
                continue
            match = pattern.search(text)
            if match is None or (pattern is not _ANY_SETTING and "policytool" not in text):
                continue
            line = text.count("\n", 0, match.start()) + 1
            shown = path.relative_to(root) if path.is_relative_to(root) else path
            raise ConfigError(
                f"{shown}:{line}: policytool does not read its configuration from {name}; "
                f"move it to the [tool.policytool] table of {root / 'pyproject.toml'}"
            )
        if directory == root:
            return


def _build_top(table: Mapping[str, object], ctx: ConfigContext) -> Config:
    """:class:`Config` from ``[tool.policytool]``: ``exclude`` and every registered section."""
    where: KeyPath = ("tool", "policytool")
    from policytool.engine.rule_index import SECTION_INDEX

    # Only the modules of the tables written: a hook call imports no section it never reads.
    sections = load_sections(table)
    exclude: tuple[str, ...] = ()
    built: dict[str, tuple[object, ...]] = {}
    for key, value in table.items():
        if key == "exclude":
            converted = _convert(value, tuple[str, ...], (*where, key), ctx)
            exclude = tuple(str(v) for v in converted) if isinstance(converted, tuple) else ()
            continue
        section = sections.get(key)
        if section is None:
            import difflib  # only for the message: a run with a valid config never loads it

            known = ["exclude", *SECTION_INDEX]
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.8)
            hint = (
                f"; did you mean '{close[0]}'?"
                if close
                else f"; valid keys: {', '.join(sorted(known))}"
            )
            raise ctx.error(where, f"unknown key '{key}'{hint}", at=(*where, key))
        built[key] = section.build(value, (*where, key), ctx)
    values: list[object] = []
    for name, section in sections.items():  # registration order: finishes run in it
        if name in built:
            values += section.finish(built[name], ctx)
    return Config(exclude=exclude, sections=tuple(values))


def load_config(config_path: Path | None = None, cwd: Path | None = None) -> Config:
    """Load ``[tool.policytool]`` from ``config_path`` or the nearest pyproject upward."""
    cwd = (cwd or Path.cwd()).resolve()
    if config_path is None:
        config_path = find_pyproject(cwd)
        if config_path is None:
            top = _upward(cwd)[-1]
            root = top if (top / ".git").exists() else cwd
            refuse_stray_config(cwd, root)
            return Config(root=root)
        refuse_stray_config(cwd, config_path.parent.resolve())
    config_path = config_path.resolve()
    from policytool.formats.toml import load_file

    try:
        text, data = load_file(config_path, str(config_path))
    except DecodeError as exc:
        raise ConfigError(str(exc)) from None
    except FileError as exc:
        raise ConfigError(f"{config_path}: cannot read config: {exc.reason}") from None
    except PolicyError as exc:
        raise ConfigError(str(exc)) from None
    return config_from_document(text, data, config_path, config_path)


def config_from_document(
    text: str, data: Mapping[str, object], source: Path, shown: Path
) -> Config:
    """:class:`Config` of a parsed ``pyproject.toml`` (``text``, ``data``) standing at
    ``source`` (its directory is the root); errors name ``shown``, which differs from
    ``source`` when the text was read from a commit (``REV:pyproject.toml``)."""
    tool = data.get("tool", {})
    table = tool.get("policytool", {}) if isinstance(tool, dict) else {}
    ctx = ConfigContext(shown, text, data)
    if not isinstance(table, dict):
        raise ctx.error(("tool", "policytool"), "[tool.policytool] must be a table")
    base = _build_top(table, ctx)
    return dataclasses.replace(base, root=source.parent, source=source, document=data)


def key_place(config: Config, where: KeyPath) -> tuple[str, int]:
    """(repo-relative config file, line) of the key at ``where``, for findings about it.

    The line of the key or of its nearest written parent (``formats.toml.key_lines``,
    right for repeated ``[[tables]]`` and list items), 1 when the file has no such key or
    cannot be read; the file is scanned once a run.
    """
    source = config.source
    if source is None:
        return "pyproject.toml", 1
    try:
        shown = source.relative_to(config.root).as_posix()
    except ValueError:
        shown = source.as_posix()
    lines = config.memo.value(("config.key_lines",), lambda: _key_lines_of(source))
    return shown, key_line(lines, where) or 1


def _key_lines_of(source: Path) -> dict[KeyPath, int]:
    """:func:`key_lines` of the config file (empty when it cannot be read)."""
    from policytool.core.boundary import read_bounded
    from policytool.core.text import decode_text

    try:
        return key_lines(decode_text(read_bounded(source, str(source)), str(source)))
    except PolicyError:
        return {}
