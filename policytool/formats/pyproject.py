# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``pyproject.toml`` dependency lists: read them with positions, rewrite them with tomlkit.

The one home of pyproject requirement lists for lock, bump and floating-pin:

- :func:`project_requirements`: what a lock input ``pyproject.toml``,
  ``pyproject.toml[dev,docs]`` or ``pyproject.toml:group`` stands for (``tomllib``, fast:
  the offline lock check calls it): ``project.dependencies`` plus the extras, a
  self-reference ``pkg[dev]`` inside pkg's own extras expanded, or one PEP 735 group
  resolved by ``packaging.dependency_groups`` (``{include-group = ...}`` followed);
- :func:`pyproject_items`: the strings of the lists named by entries such as
  ``project.dependencies``, ``optional-dependencies.NAME`` or ``dependency-groups.NAME``
  (``*`` for all), each with its 1-based line and column (:data:`ALL_LISTS` names every
  list);
- :func:`rewrite_pyproject`: those strings replaced through tomlkit, so everything else
  (comments, other tables, ``[tool.*]``) stays byte for byte;
- :func:`move_pins`: every exact pin of one package in the dependency lists moved to a
  version (what ``bump`` does to a pyproject), nothing outside the lists touched.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from policytool.core.boundary import resolve_inside
from policytool.errors import PolicyError, TomlError, UnknownListError
from policytool.formats import toml
from policytool.formats.requirement import canonical_name, move_exact_pin, requirement_name

if TYPE_CHECKING:
    from tomlkit.items import Array, String
    from tomlkit.toml_document import TOMLDocument

# Every dependency list of a pyproject, as pyproject_items entries.
ALL_LISTS = ("project.dependencies", "optional-dependencies", "dependency-groups")


@dataclass(frozen=True)
class ListSpec:
    """One configured pyproject entry: ``kind`` is dependencies, optional or group."""

    entry: str
    kind: str
    name: str | None  # extra / group name, ``*`` for all, None for project.dependencies


def entry_line(text: str, entry: str) -> int:
    """The line of ``text`` where the quoted string ``entry`` first stands (1 if nowhere)."""
    for quoted in (f'"{entry}"', f"'{entry}'"):
        offset = text.find(quoted)
        if offset >= 0:
            return text.count("\n", 0, offset) + 1
    return 1


def parse_list_spec(entry: str, source: Path | None, text: str = "") -> ListSpec:
    """Parse one list entry (``optional-dependencies.dev``...); else an UnknownListError.

    ``text`` (the pyproject's text, when known) puts the entry's line in the message.
    """
    parts = entry.strip().split(".")
    if parts[0] == "project" and len(parts) > 1:
        parts = parts[1:]
    if parts == ["dependencies"]:
        return ListSpec(entry, "dependencies", None)
    if parts[0] in ("optional-dependencies", "dependency-groups") and len(parts) <= 2:
        kind = "optional" if parts[0] == "optional-dependencies" else "group"
        name = parts[1] if len(parts) == 2 and parts[1] else "*"
        return ListSpec(entry, kind, name)
    where = f"{source}:{entry_line(text, entry)}: " if source and text else ""
    where = where or (f"{source}: " if source else "")
    raise UnknownListError(
        where,
        f"unknown entry '{entry}'; use "
        "'project.dependencies', 'optional-dependencies.NAME' or 'dependency-groups.NAME'",
    )


@dataclass(frozen=True)
class PyprojectItem:
    """One string of a pyproject dependency list and where it sits (1-based)."""

    label: str  # e.g. ``project.optional-dependencies.dev``
    index: int  # position in its list (tables such as ``include-group`` count too)
    value: str
    line: int
    col: int


def _select(table: object, name: str | None) -> list[tuple[str, object]]:
    """(key, value) of ``table`` matching a normalized ``name`` (``*`` = all)."""
    if not isinstance(table, Mapping):
        return []
    out = []
    for key, value in table.items():
        if name == "*" or (name is not None and canonical_name(str(key)) == canonical_name(name)):
            out.append((str(key), value))
    return out


def _arrays(
    doc: TOMLDocument, specs: Sequence[ListSpec]
) -> tuple[list[tuple[str, Array]], list[str]]:
    """The arrays the specs name (label, array), and the specs that found nothing."""
    from tomlkit.items import Array, InlineTable, Table

    found: list[tuple[str, Array]] = []
    missing: list[str] = []
    seen: set[str] = set()

    def add(label: str, value: object) -> None:
        """Record an array under ``label`` once."""
        if label not in seen and isinstance(value, Array):
            seen.add(label)
            found.append((label, value))

    project = doc.get("project")
    groups = doc.get("dependency-groups")
    for spec in specs:
        hit = False
        if spec.kind == "dependencies":
            if project is not None and "dependencies" in project:
                hit = True
                add("project.dependencies", project["dependencies"])
        elif spec.kind == "optional":
            extras = project.get("optional-dependencies") if project is not None else None
            for key, value in _select(extras, spec.name):
                hit = True
                add(f"project.optional-dependencies.{key}", value)
        else:
            pending = _select(groups, spec.name)
            hit = bool(pending)
            while pending:
                key, value = pending.pop(0)
                label = f"dependency-groups.{key}"
                if label in seen:
                    continue
                add(label, value)
                if isinstance(value, Array):
                    for item in value:
                        if isinstance(item, (InlineTable, Table, dict)) and "include-group" in item:
                            pending.extend(_select(groups, str(item["include-group"])))
        if not hit and spec.name != "*":
            missing.append(spec.entry)
    return found, missing


def _string_items(arrays: Sequence[tuple[str, Array]]) -> list[tuple[str, int, String]]:
    """(label, index, item) of every string item of the arrays."""
    from tomlkit.items import String

    out = []
    for label, array in arrays:
        for index, item in enumerate(array):
            if isinstance(item, String):
                out.append((label, index, item))
    return out


def _locate(text: str, specs: Sequence[ListSpec]) -> dict[tuple[str, int], tuple[int, int]]:
    """(label, index) -> (line, col) of each list string in ``text``.

    tomlkit keeps no positions, so every target string of a second parse is swapped for
    a unique sentinel; the offsets of the sentinels in the re-rendered document, minus
    the length differences before them, are the offsets of the strings in ``text``.
    """
    import tomlkit

    doc = tomlkit.parse(text)
    arrays = _arrays(doc, specs)[0]
    by_label = dict(arrays)
    tag = f"policytool-sentinel-{os.getpid()}-{len(text)}"
    sentinels: dict[str, tuple[str, int, str]] = {}
    for number, (label, index, item) in enumerate(_string_items(arrays)):
        sentinel = f"{tag}-{number}"
        sentinels[sentinel] = (label, index, item.as_string())
        by_label[label][index] = tomlkit.string(sentinel)
    rendered = doc.as_string()
    hits = sorted((rendered.find(f'"{s}"'), s) for s in sentinels)
    positions: dict[tuple[str, int], tuple[int, int]] = {}
    shift = 0
    for offset, sentinel in hits:
        label, index, raw = sentinels[sentinel]
        if offset < 0:
            continue
        original = offset - shift
        shift += len(sentinel) + 2 - len(raw)
        if text[original : original + len(raw)] != raw:
            continue
        line = text.count("\n", 0, original) + 1
        col = original - (text.rfind("\n", 0, original) + 1) + 1
        positions[(label, index)] = (line, col)
    return positions


def _parse_toml(text: str, where: Path | str) -> TOMLDocument:
    """tomlkit document of ``text``; invalid TOML is a PolicyError naming ``where``."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise PolicyError(f"{where}: invalid TOML: {exc}") from None


def pyproject_items(
    text: str, entries: Sequence[str], where: Path | str = "pyproject.toml"
) -> tuple[list[PyprojectItem], list[str]]:
    """The strings of the lists ``entries`` name in pyproject ``text``, with positions,
    and the entries that name no list. Entry spellings: see the module docstring."""
    specs = [parse_list_spec(entry, Path(where), text) for entry in entries]
    arrays, missing = _arrays(_parse_toml(text, where), specs)
    strings = _string_items(arrays)
    positions = _locate(text, specs) if strings else {}
    items = [
        PyprojectItem(label, index, str(item), *positions.get((label, index), (1, 1)))
        for label, index, item in strings
    ]
    return items, missing


def rewrite_pyproject(
    text: str,
    entries: Sequence[str],
    edits: Mapping[tuple[str, int], str],
    where: Path | str = "pyproject.toml",
) -> str:
    """``text`` with list strings replaced: ``edits`` maps (label, index) -> new value.

    Goes through tomlkit, so everything but the replaced strings stays byte for byte;
    a string keeps its quoting style (literal, multi-line) where the value allows.
    """
    import tomlkit
    from tomlkit.items import StringType

    if not edits:
        return text
    specs = [parse_list_spec(entry, Path(where), text) for entry in entries]
    doc = _parse_toml(text, where)
    arrays = dict(_arrays(doc, specs)[0])
    for (label, index), value in edits.items():
        array = arrays.get(label)
        if array is None or not 0 <= index < len(array):
            raise PolicyError(f"{where}: no item {index} in list '{label}' to rewrite")
        kind = getattr(array[index], "type", None)
        literal = kind in (StringType.SLL, StringType.MLL) and "'" not in value
        multiline = kind in (StringType.MLB, StringType.MLL)
        array[index] = tomlkit.string(value, literal=literal, multiline=multiline)
    out = doc.as_string()
    try:
        toml.loads(out, str(where))
    except TomlError as exc:  # a tomlkit bug; never write a broken file
        raise PolicyError(f"{where}: rewriting would produce invalid TOML ({exc})") from None
    return out


def move_pins(text: str, package: str, version: str, where: Path | str = "pyproject.toml") -> str:
    """``text`` with every exact pin of ``package`` in its dependency lists moved to ``version``.

    Only the requirement strings of ``project.dependencies``,
    ``project.optional-dependencies`` and ``[dependency-groups]`` change (only their
    version characters); the same string in ``[tool.*]``, a comment or anywhere else
    stays as it is.
    """
    items, _missing = pyproject_items(text, ALL_LISTS, where)
    edits = {}
    for item in items:
        new = move_exact_pin(item.value, package, version)
        if new is not None:
            edits[(item.label, item.index)] = new
    return rewrite_pyproject(text, ALL_LISTS, edits, where) if edits else text


def load_table(text: str, where: str) -> dict[str, object]:
    """The parsed TOML ``text``; invalid TOML is a PolicyError naming ``where``."""
    return toml.loads(text, where)


def _string_list(value: object, where: str, path: str) -> list[str]:
    """``value`` as a list of strings, else a PolicyError naming the key."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PolicyError(f"{path}: {where} must be a list of requirement strings")
    return list(value)


def project_requirements(
    data: Mapping[str, object],
    path: str,
    extras: Sequence[str] = (),
    group: str | None = None,
    shown: str = "",
) -> list[str]:
    """The requirement strings a pyproject lock input stands for, in order, each once.

    Without ``group``: ``project.dependencies`` and the optional-dependency ``extras``
    (a self-reference ``pkg[dev]`` in pkg's own lists is expanded, not required). With
    ``group``: the PEP 735 dependency group alone, includes resolved. ``shown`` is the
    input as configured, for messages.
    """
    shown = shown or path
    project = data.get("project", {})
    if not isinstance(project, dict):
        raise PolicyError(f"{path}: [project] must be a table")
    own = canonical_name(str(project.get("name", "")))
    extras_table = project.get("optional-dependencies", {})
    if not isinstance(extras_table, dict):
        raise PolicyError(f"{path}: project.optional-dependencies must be a table")
    by_extra = {canonical_name(str(k)): v for k, v in extras_table.items()}
    out: list[str] = []
    seen: set[str] = set()

    def add(reqs: list[str]) -> None:
        """Append ``reqs``, expanding self-references."""
        for req in reqs:
            if own and requirement_name(req) == own:
                from policytool.formats.requirement import parse

                parsed = parse(req)
                for extra in sorted(parsed.extras) if parsed is not None else ():
                    add_extra(extra)
                continue
            if req not in out:
                out.append(req)

    def add_extra(extra: str) -> None:
        """Append one extra's list (once)."""
        key = canonical_name(extra)
        if key in seen:
            return
        seen.add(key)
        if key not in by_extra:
            raise PolicyError(f"{path}: no optional-dependencies extra '{extra}' (input '{shown}')")
        add(_string_list(by_extra[key], f"optional-dependencies.{extra}", path))

    if group is not None:
        add(_group(data.get("dependency-groups", {}), group, path))
        return out
    add(_string_list(project.get("dependencies", []), "project.dependencies", path))
    for extra in extras:
        add_extra(extra)
    return out


def _group(groups: object, name: str, path: str) -> list[str]:
    """PEP 735 group ``name`` with includes resolved (``packaging.dependency_groups``)."""
    from packaging.dependency_groups import resolve_dependency_groups
    from packaging.errors import ExceptionGroup

    if not isinstance(groups, dict):
        raise PolicyError(f"{path}: [dependency-groups] must be a table")
    if canonical_name(name) not in {canonical_name(str(k)) for k in groups}:
        raise PolicyError(f"{path}: no dependency group '{name}'")
    try:
        return list(resolve_dependency_groups(groups, name))
    except ExceptionGroup as group:
        causes = "; ".join(str(exc) for exc in group.exceptions) or str(group)
        raise PolicyError(f"{path}: dependency-groups.{name}: {causes}") from None
    except (LookupError, TypeError, ValueError) as exc:
        raise PolicyError(f"{path}: dependency-groups.{name}: {exc}") from None


def requirement_line(text: str, requirement: str) -> int:
    """The line of ``text`` where the quoted ``requirement`` first stands (1 if nowhere)."""
    return entry_line(text, requirement)


def dependency_strings(data: Mapping[str, object]) -> list[str]:
    """Every requirement string of a parsed pyproject's dependency lists (:data:`ALL_LISTS`)."""
    lists: list[object] = []
    project = data.get("project")
    if isinstance(project, dict):
        lists.append(project.get("dependencies"))
        extras = project.get("optional-dependencies")
        if isinstance(extras, dict):
            lists += list(extras.values())
    groups = data.get("dependency-groups")
    if isinstance(groups, dict):
        lists += list(groups.values())
    return [
        item
        for items in lists
        if isinstance(items, list)
        for item in items
        if isinstance(item, str)
    ]


def pinned_versions(text: str, where: str = "pyproject.toml") -> dict[str, set[str]]:
    """Canonical name -> exact versions pinned in the dependency lists of pyproject ``text``."""
    from policytool.formats.requirement import exact_version

    versions: dict[str, set[str]] = {}
    for requirement in dependency_strings(load_table(text, where)):
        version = exact_version(requirement)
        name = requirement_name(requirement)
        if version is not None and name is not None:
            versions.setdefault(name, set()).add(version)
    return versions


# At most this many uv workspace members are read for their names.
MAX_WORKSPACE_MEMBERS = 64


def _project_name(path: Path, shown: str) -> str | None:
    """The ``[project] name`` of one pyproject.toml (None when absent or unreadable)."""
    try:
        _text, data = toml.load_file(path, shown)
    except PolicyError:
        return None
    project = data.get("project")
    name = project.get("name") if isinstance(project, dict) else None
    return canonical_name(name) if isinstance(name, str) and name else None


def own_distributions(root: Path) -> frozenset[str]:
    """The distributions the repository builds itself, canonical: the root
    ``pyproject.toml``'s ``[project] name`` and those of its uv workspace members
    (``[tool.uv.workspace] members``, globs expanded inside the repository, excludes
    dropped). Unreadable files name nothing."""
    try:
        top = resolve_inside(root, "pyproject.toml", "pyproject.toml")
        if not top.is_file():
            return frozenset()
        _text, data = toml.load_file(top, "pyproject.toml")
    except PolicyError:
        return frozenset()
    names: set[str] = set()
    project = data.get("project")
    own = project.get("name") if isinstance(project, dict) else None
    if isinstance(own, str) and own:
        names.add(canonical_name(own))
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, dict) else None
    workspace = uv.get("workspace") if isinstance(uv, dict) else None
    if not isinstance(workspace, dict):
        return frozenset(names)
    members = workspace.get("members")
    excluded = workspace.get("exclude")
    skip = {e for e in excluded if isinstance(e, str)} if isinstance(excluded, list) else set()
    seen = 0
    for member in members if isinstance(members, list) else []:
        if not isinstance(member, str) or member.startswith("/") or ".." in member:
            continue
        if "**" in member:
            continue  # a recursive glob would walk the whole tree
        for directory in sorted(root.glob(member)):
            relpath = directory.relative_to(root).as_posix()
            if seen >= MAX_WORKSPACE_MEMBERS or any(Path(relpath).match(e) for e in skip):
                continue
            seen += 1
            shown = f"{relpath}/pyproject.toml"
            try:
                path = resolve_inside(root, shown, shown)
            except PolicyError:
                continue
            name = _project_name(path, shown) if path.is_file() else None
            if name is not None:
                names.add(name)
    return frozenset(names)
