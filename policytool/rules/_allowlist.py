# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Allow globs of the import rules: from the config and from allowlist files.

An allowlist file lives inside the repository (a path out of it, through ``..``, an
absolute path or a symlink, is a config error and is never read), is a regular file
of at most ``core.boundary.MAX_CONFIG_BYTES``, and holds one glob a line (a UTF-8 BOM is
skipped); ``#`` starts a comment (whole line or
trailing) and blank lines are skipped. Globs are repo-relative (``./`` is dropped; an
absolute path inside the repository is made relative) and match the repo-relative path
of a checked file however the file was named on the command line.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from policytool.config import Config, key_place
from policytool.core.boundary import read_bounded, resolve_inside
from policytool.core.globs import glob_regex
from policytool.core.text import split_lines
from policytool.errors import BoundaryError, ConfigError, FileError
from policytool.formats.toml import KeyPath, split_dotted


@dataclass(frozen=True)
class AllowEntry:
    """One allow glob and where it is written (repo-relative file, 1-based line)."""

    glob: str
    source: str
    line: int


@dataclass(frozen=True)
class AllowList:
    """The allow entries of one rule section, matched with one combined regex."""

    entries: tuple[AllowEntry, ...]
    _regex: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def matches(self, relpath: str) -> bool:
        """Whether any entry's glob matches repo-relative ``relpath``."""
        if not self.entries:
            return False
        regex = self._regex
        if regex is None:
            regex = re.compile("|".join(f"(?:{glob_regex(e.glob).pattern})" for e in self.entries))
            object.__setattr__(self, "_regex", regex)
        return regex.match(relpath) is not None


def normalize_glob(glob: str, root: Path) -> str:
    """A repo-relative glob: ``./a/**`` -> ``a/**``; ``/repo/a.py`` -> ``a.py``."""
    glob = glob.strip()
    if os.path.isabs(glob):
        try:
            glob = Path(os.path.normpath(glob)).relative_to(root).as_posix()
        except ValueError:
            return glob
    while glob.startswith("./"):
        glob = glob[2:]
    return glob


def _config_source(config: Config) -> str:
    """The config file's repo-relative path, for findings."""
    if config.source is None:
        return "pyproject.toml"
    try:
        return config.source.relative_to(config.root).as_posix()
    except ValueError:
        return config.source.as_posix()


def parse_allowlist(text: str, source: str, root: Path) -> list[AllowEntry]:
    """The globs of an allowlist file's text."""
    entries = []
    for number, line in enumerate(split_lines(text, keepends=False), start=1):
        glob = line.split("#", 1)[0].strip()
        if glob:
            entries.append(AllowEntry(normalize_glob(glob, root), source, number))
    return entries


def allowlist_path(config: Config, name: str, label: str) -> Path:
    """Where allowlist file ``name`` is: inside the repository, symlinks followed.

    ``label`` names the setting (``[tool.policytool.torch-cuda] allowlist-file``). A PR
    author controls the config, so a path outside the repository (``../secret.env``,
    ``/proc/self/environ``, a symlink out) is a :class:`ConfigError`, never read.
    """
    what = f"{_config_source(config)}: {label}"
    try:
        return resolve_inside(config.root, name, what)
    except BoundaryError as exc:
        raise ConfigError(str(exc)) from None


def read_allowlist(config: Config, name: str, label: str = "allowlist-file") -> list[AllowEntry]:
    """The entries of allowlist file ``name`` (relative to the repo root, inside it)."""
    path = allowlist_path(config, name, label)
    if not os.path.lexists(path):
        raise ConfigError(
            f"{name}: allowlist file not found "
            f"(named by allowlist-file in {_config_source(config)})"
        )
    try:
        data = read_bounded(path, name)
    except FileError as exc:
        raise ConfigError(f"{exc} (named by {label} in {_config_source(config)})") from None
    try:
        text = data.decode("utf-8-sig")  # a BOM is no part of the first glob
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{name}:{line}: allowlist file is not valid UTF-8") from None
    return parse_allowlist(text, Path(name).as_posix(), config.root)


def _allow_path(header: str, occurrence: int, index: int) -> KeyPath:
    """The key path of item ``index`` of ``allow`` in table ``header`` (its ``occurrence``-th
    entry for a ``[[...]]`` array of tables)."""
    table: KeyPath = tuple(split_dotted(header.strip("[]")))
    if header.startswith("[["):
        table = (*table, occurrence)
    return (*table, "allow", index)


def allow_entries(
    config: Config,
    allow: tuple[str, ...],
    allowlist_file: str | None,
    table: tuple[str, int] = ("", 0),
) -> AllowList:
    """Every allow entry of one rule section: its ``allow`` globs, then its file's.

    ``table`` is the section's TOML header and which occurrence of it (for
    ``[[...]]`` arrays), so each glob gets the line it is written on in that section.
    """

    def build() -> AllowList:
        entries: list[AllowEntry] = []
        if allow:
            for index, glob in enumerate(allow):
                source, line = key_place(config, _allow_path(table[0], table[1], index))
                entries.append(AllowEntry(normalize_glob(glob, config.root), source, line))
        if allowlist_file:
            label = f"{table[0] or '[tool.policytool]'} allowlist-file"
            if table[0].startswith("[["):
                label = f"{table[0]} #{table[1] + 1} allowlist-file"
            entries.extend(read_allowlist(config, allowlist_file, label))
        return AllowList(tuple(entries))

    return config.memo.value(("allowlist.entries", allow, allowlist_file, table), build)


def is_allowed(relpath: str, allow: AllowList) -> bool:
    """Whether any entry's glob matches ``relpath``."""
    return allow.matches(relpath)
