# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""PEP 751 ``pylock.toml`` files: the one reader and writer.

A lock of policytool whose output is ``pylock.toml`` or ``pylock.<name>.toml`` is the
same policytool header as a requirements lock (``#`` comment lines, which TOML ignores)
followed by a PEP 751 document that uv resolved (``uv pip compile --format
pylock.toml``) and :func:`render` wrote back in one canonical layout, so the header's
body hash covers every byte of the document (a ``[tool]`` table included).

:func:`load` reads a document into :class:`Document` (its top-level keys and its
packages, each a plain TOML mapping kept as it is); :func:`render` writes one (the same
document always gives the same text, and :func:`load` of it gives the document back);
:func:`pins` gives each package as name, version, marker, line and the hashes of its
files, for the checks that read requirement files.
"""

from __future__ import annotations

import datetime
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from policytool.errors import TomlError
from policytool.formats.toml import loads

# Names PEP 751 allows: ``pylock.toml`` and ``pylock.<name>.toml`` (no dot in <name>).
_NAME_RE = re.compile(r"pylock(?:\.[^./\\\n]+)?\.toml\Z")
_LOCK_VERSION_RE = re.compile(r"^lock-version\s*=", re.MULTILINE)
_PACKAGES_RE = re.compile(r"^\s*\[\[\s*packages\s*\]\]\s*(?:#.*)?$")
_BARE_KEY_RE = re.compile(r"[A-Za-z0-9_-]+")
# The kinds of file a package lists; each carries ``hashes`` (PEP 751).
FILE_KEYS = ("sdist", "wheels", "archive")

# A TOML table as the TOML reader returns it (values: str, int, float, bool, dates,
# lists and tables).
Table = dict[str, object]


class PylockError(ValueError):
    """The text is not a PEP 751 document (bad TOML, or packages that are not tables)."""


@dataclass(frozen=True)
class Document:
    """A ``pylock.toml``: its top-level keys (without ``packages``) and its packages."""

    top: Table
    packages: tuple[Table, ...]


@dataclass(frozen=True)
class PackagePin:
    """One ``[[packages]]`` entry as a pin."""

    name: str  # as written (canonicalised by the caller)
    version: str | None
    marker: str | None
    line: int  # 1-based line of its ``[[packages]]`` heading (1 when not found)
    hashes: tuple[str, ...]  # ``algo:hex`` of every file; empty when any file has none
    files: int  # how many files (wheels, sdist, archive) it lists


def is_pylock_name(path: str) -> bool:
    """Whether a lock output path names a PEP 751 lock (``pylock.toml``, ``pylock.x.toml``)."""
    return bool(_NAME_RE.match(path.replace("\\", "/").rsplit("/", 1)[-1]))


def is_pylock(text: str) -> bool:
    """Whether ``text`` (a lock body) is a pylock document rather than requirements text.

    A requirements file cannot hold a ``lock-version =`` line (pip rejects it).
    """
    return bool(_LOCK_VERSION_RE.search(text))


def load(text: str) -> Document:
    """Parse a pylock document; :class:`PylockError` when it is not one."""
    try:
        data = loads(text, "pylock.toml")
    except TomlError as exc:
        raise PylockError(str(exc).removeprefix("pylock.toml: ")) from None
    packages = data.pop("packages", [])
    if not isinstance(packages, list) or not all(isinstance(p, dict) for p in packages):
        raise PylockError("'packages' is not an array of tables")
    return Document(data, tuple(packages))


def _string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's, DEL aside)."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _key(key: str) -> str:
    """``key`` bare when TOML allows it, else a quoted string."""
    return key if _BARE_KEY_RE.fullmatch(key) else _string(key)


def _value(value: object) -> str:
    """One TOML value on one line (tables inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if not isinstance(value, dict):
        raise TypeError(f"not a TOML value: {value!r}")
    if not value:
        return "{}"
    return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"


def _multiline_list(key: str, items: list[object]) -> list[str]:
    """``key = [`` one item a line ``]`` (a package's wheels, read by a human reviewer)."""
    return [f"{_key(key)} = [", *(f"    {_value(item)}," for item in items), "]"]


def render(document: Document) -> str:
    """The document as TOML: top-level keys, then each ``[[packages]]`` table.

    Scalars and arrays come before sub-tables as TOML requires; a package's ``wheels``
    are written one a line. ``load(render(d)) == d``.
    """
    out: list[str] = []
    top_tables = {k: v for k, v in document.top.items() if isinstance(v, dict)}
    for key, value in document.top.items():
        if key not in top_tables:
            out.append(f"{_key(key)} = {_value(value)}")
    for package in document.packages:
        out += ["", "[[packages]]"]
        for key, value in package.items():
            if key == "wheels" and isinstance(value, list) and value:
                out += _multiline_list(key, value)
            else:
                out.append(f"{_key(key)} = {_value(value)}")
    for key, value in top_tables.items():
        out += ["", f"[{_key(key)}]"]
        out += [f"{_key(k)} = {_value(v)}" for k, v in value.items()]
    return "\n".join(out).lstrip("\n") + "\n"


def _files(package: Table) -> list[object]:
    """The file tables a package lists (its wheels, sdist and archive)."""
    found: list[object] = []
    for key in FILE_KEYS:
        value = package.get(key)
        if isinstance(value, list):
            found += value
        elif value is not None:
            found.append(value)
    return found


def _hashes(files: Sequence[object]) -> tuple[str, ...]:
    """``algo:hex`` of every file; empty when a file carries no hash."""
    out: list[str] = []
    for item in files:
        hashes = item.get("hashes") if isinstance(item, dict) else None
        if not isinstance(hashes, dict) or not hashes:
            return ()
        out += [f"{algo}:{digest}" for algo, digest in hashes.items()]
    return tuple(out)


def pins(text: str, offset: int = 0) -> list[PackagePin]:
    """Every package of a pylock document as a pin; none when it is not one (never raises).

    ``offset`` is added to line numbers (the header above the document).
    """
    try:
        document = load(text)
    except PylockError:
        return []
    headings = [
        number for number, line in enumerate(text.splitlines(), start=1) if _PACKAGES_RE.match(line)
    ]
    if len(headings) != len(document.packages):
        headings = [0] * len(document.packages)  # ``packages = [...]`` inline: no line
    out: list[PackagePin] = []
    for package, heading in zip(document.packages, headings, strict=True):
        name, version, marker = package.get("name"), package.get("version"), package.get("marker")
        files = _files(package)
        out.append(
            PackagePin(
                name if isinstance(name, str) else "",
                version if isinstance(version, str) else None,
                marker if isinstance(marker, str) else None,
                heading + offset if heading else 1,
                _hashes(files),
                len(files),
            )
        )
    return out


def requirement_text(pin: PackagePin) -> str:
    """A package as a requirement: ``name==version ; marker``."""
    text = f"{pin.name}=={pin.version}" if pin.version else pin.name
    return f"{text} ; {pin.marker}" if pin.marker else text


def preferences(text: str) -> str:
    """A pylock document of the packages' names and versions only (no file, no hash).

    uv reads an existing output file as its preferences and keeps the hashes it finds
    there; handed this, the hashes of the new lock come from the index.
    """
    kept: list[Table] = []
    for pin in pins(text):
        if pin.name and pin.version:
            kept.append({"name": pin.name, "version": pin.version})
    top: Table = {"lock-version": "1.0", "created-by": "policytool"}
    return render(Document(top, tuple(kept)))


def _map_strings(value: object, change: Callable[[str], str]) -> object:
    """``value`` with ``change`` applied to every string in it."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_map_strings(item, change) for item in value]
    if isinstance(value, dict):
        return {k: _map_strings(v, change) for k, v in value.items()}
    return value


def _local_file(item: object, roots: Sequence[str], lock_dir: str) -> object:
    """A file table whose ``file://`` URL lies in the repository, given as a ``path``.

    PEP 751 paths are relative to the lock file's directory, so the lock installs from
    any checkout of the repository.
    """
    if not isinstance(item, dict):
        return item
    url = item.get("url")
    if not isinstance(url, str):
        return item
    for root in roots:
        prefix = "file://" + root.rstrip("/") + "/"
        if url.startswith(prefix):
            break
    else:
        return item
    relative = os.path.relpath(url[len(prefix) :], lock_dir or ".").replace(os.sep, "/")
    return {("path" if k == "url" else k): (relative if k == "url" else v) for k, v in item.items()}


def normalise(
    text: str,
    roots: Sequence[str],
    lock_dir: str,
    drop: Callable[[str], bool],
    scrub: Callable[[str], str],
) -> str:
    """uv's pylock output in :func:`render`'s layout, machine-independent.

    Packages whose name ``drop`` refuses are left out; ``file://`` URLs inside ``root``
    (one of ``roots``, the repository as spelled and resolved)
    become ``path`` keys relative to ``lock_dir`` (the lock's directory, relative to
    the repository); ``scrub`` is applied to every other
    string. :class:`PylockError` when uv's output is not a pylock document.
    """
    document = load(text)
    packages: list[Table] = []
    for package in document.packages:
        name = package.get("name")
        if isinstance(name, str) and drop(name):
            continue
        moved: Table = {}
        for key, value in package.items():
            if key in FILE_KEYS:
                if isinstance(value, list):
                    value = [_local_file(item, roots, lock_dir) for item in value]
                else:
                    value = _local_file(value, roots, lock_dir)
            moved[key] = _map_strings(value, scrub)
        packages.append(moved)
    top = {k: _map_strings(v, scrub) for k, v in document.top.items()}
    return render(Document(top, tuple(packages)))


def check_document(text: str) -> str | None:
    """Why ``text`` is not a pylock document policytool can check; None when it is."""
    try:
        document = load(text)
    except PylockError as exc:
        return str(exc)
    if not isinstance(document.top.get("lock-version"), str):
        return "no lock-version"
    for number, package in enumerate(document.packages, start=1):
        if not isinstance(package.get("name"), str):
            return f"package {number} has no name"
    return None


def without_sdists(text: str) -> str:
    """The document re-rendered without its packages' ``sdist`` tables.

    uv resolving with ``--no-build`` (``lock --check --resolve``) lists wheels only.
    :class:`PylockError` when ``text`` is not a pylock document.
    """
    document = load(text)
    packages = tuple({k: v for k, v in p.items() if k != "sdist"} for p in document.packages)
    return render(Document(document.top, packages))


def sdist_hashes(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(name, version, ``algo:hex`` hashes) of every package's ``sdist`` (never raises)."""
    try:
        document = load(text)
    except PylockError:
        return []
    out = []
    for package in document.packages:
        name, version, sdist = package.get("name"), package.get("version"), package.get("sdist")
        if isinstance(name, str) and isinstance(version, str) and sdist is not None:
            out.append((name, version, _hashes([sdist])))
    return out
