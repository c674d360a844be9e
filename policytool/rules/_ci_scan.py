# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What the CI rules (``ci-floating-install``, ``action-pin``, ``ci-hook-stage``,
``codeql-workflow``) share about the files they read: which files a rule selects, read
bounded and inside the repo, their lines, parsed YAML, and the ones that cannot be read."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from policytool.config import Config
from policytool.core.boundary import read_bounded, resolve_inside
from policytool.core.git import git_ls_files, git_root
from policytool.core.globs import match_any
from policytool.core.kinds import kind_of
from policytool.core.text import decode_text
from policytool.engine.findings import Finding
from policytool.engine.lock_config import LockConfig
from policytool.engine.registry import RepoContext
from policytool.errors import DecodeError, FileError, FileProblem, PolicyError, YamlError
from policytool.formats.yamldoc import YamlNode, parse_text

if TYPE_CHECKING:
    from policytool.rules._allowlist import AllowList as AllowListT

T = TypeVar("T")


def broken_findings(problems: Sequence[FileProblem], rule: str) -> Iterator[Finding]:
    """Workflows that cannot be read, as findings of ``rule``."""
    for problem in problems:
        yield Finding(problem.relpath, problem.line, 1, rule, problem.message)


def split_analysis(items: Iterable[T | Finding]) -> tuple[list[Finding], list[T]]:
    """(the findings about files that could not be read, the analyses of the others), each
    in order."""
    unread: list[Finding] = []
    analysed: list[T] = []
    for item in items:
        if isinstance(item, Finding):
            unread.append(item)
        else:
            analysed.append(item)
    return unread, analysed


@dataclass(frozen=True)
class OffsetMap:
    """Maps offsets in a snippet's text to the file text and its lines.

    ``snippet_starts[k]`` is where line ``k`` of the snippet starts in the snippet and
    ``file_starts[k]`` where that line's text is written in the file (the whole map is
    ``exact`` when every line was verified character for character). Inexact maps
    still give lines (``first_line`` + the snippet line) but no file offsets.
    """

    snippet_starts: tuple[int, ...]
    file_starts: tuple[int, ...]
    first_line: int
    exact: bool

    def to_file(self, offset: int) -> int | None:
        """File offset of snippet ``offset`` (None for an inexact map)."""
        if not self.exact:
            return None
        index = bisect.bisect_right(self.snippet_starts, offset) - 1
        return self.file_starts[index] + (offset - self.snippet_starts[index])

    def line(self, offset: int) -> int:
        """1-based file line of snippet ``offset``."""
        return self.first_line + max(0, bisect.bisect_right(self.snippet_starts, offset) - 1)

    def column(self, offset: int, file_lines: FileLines) -> int:
        """1-based column of snippet ``offset`` in its file line (1 when unknown)."""
        at = self.to_file(offset)
        if at is None:
            return 1
        return at - file_lines.starts[file_lines.line_of(at) - 1] + 1


@dataclass(frozen=True)
class FileLines:
    """The line starts of a file's text."""

    text: str
    starts: tuple[int, ...]

    @classmethod
    def of(cls, text: str) -> FileLines:
        """Index ``text``'s lines."""
        starts = [0]
        at = text.find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = text.find("\n", at + 1)
        return cls(text, tuple(starts))

    def line_of(self, offset: int) -> int:
        """1-based line of ``offset``."""
        return bisect.bisect_right(self.starts, offset)

    def line_text(self, line: int) -> str:
        """Line ``line`` (1-based) without its line ending."""
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r")

    def identity(self) -> OffsetMap:
        """The map of a snippet that is the whole file."""
        return OffsetMap(self.starts, self.starts, 1, True)


@dataclass
class SourceFile:
    """One file with shell in it: kind (workflow, action, pipeline, mergify, script,
    dockerfile), its text and raw bytes."""

    relpath: str
    kind: str
    raw: bytes
    text: str
    lines: FileLines = field(init=False)

    def __post_init__(self) -> None:
        """Index the lines."""
        self.lines = FileLines.of(self.text)


# Development containers: an editor builds them for a developer, CI does not.
DEVCONTAINER = ".devcontainer"


@dataclass(frozen=True)
class Selection:
    """Which files a rule reads: (kind, globs) in precedence order and its allow lists."""

    kinds: Sequence[tuple[str, tuple[str, ...]]]
    allow: tuple[str, ...]
    allowlist_file: str | None
    section: str  # ``[tool.policytool.X]`` for messages

    def classify(self, relpath: str, head: bytes = b"") -> str | None:
        """The kind of a repo file, or None when the rule does not read it."""
        for kind, regex in _compiled(tuple(self.kinds)):
            if regex.match(relpath):
                if kind == "script" and kind_of(relpath, head) != "shell":
                    continue
                if kind == "dockerfile" and self._devcontainer(relpath):
                    continue
                return kind
        return None

    def _devcontainer(self, relpath: str) -> bool:
        """Whether ``relpath`` is a development container's file (``.devcontainer/``: a
        developer's image, not CI) that no configured glob names explicitly."""
        if DEVCONTAINER not in relpath.split("/")[:-1]:
            return False
        globs = (g for _kind, globs in self.kinds for g in globs)
        return not any(DEVCONTAINER in g for g in globs)


@functools.lru_cache(maxsize=32)
def _compiled(kinds: tuple[tuple[str, tuple[str, ...]], ...]) -> list[tuple[str, re.Pattern[str]]]:
    """One regex a kind: its globs joined (``files`` glob semantics)."""
    from policytool.core.globs import glob_regex

    return [
        (kind, re.compile("|".join(f"(?:{glob_regex(g).pattern})" for g in globs)))
        for kind, globs in kinds
        if globs
    ]


def _allowed_by_file(config: Config, chosen: Selection) -> AllowListT | None:
    """The allowlist file's globs, if one is configured."""
    if not chosen.allowlist_file:
        return None
    from policytool.rules._allowlist import allow_entries

    resolve_inside(
        config.root,
        chosen.allowlist_file,
        f"[tool.policytool.{chosen.section}] allowlist-file",
    )
    return allow_entries(config, (), chosen.allowlist_file)


def widening(config: Config) -> tuple[str, ...]:
    """Files whose change re-judges every CI file: the locks pin the fixes and
    ``pyproject.toml`` holds the options."""
    return (*(lock.output for lock in config.entries(LockConfig)), "pyproject.toml")


def candidates(ctx: RepoContext, chosen: Selection) -> list[str]:
    """The repo files this run looks at: every tracked one on a full run, else those given
    (all tracked ones when a lock output or ``pyproject.toml`` is among them)."""
    config = ctx.config
    files = list(ctx.files)
    if not ctx.full_run:
        wide = set(widening(config))
        if any(f in wide for f in files) and git_root(ctx.root) is not None:
            files = git_ls_files(ctx.root)
    allow = _allowed_by_file(config, chosen)
    out = []
    for relpath in files:
        if config.exclude and match_any(relpath, config.exclude):
            continue
        if chosen.allow and match_any(relpath, chosen.allow):
            continue
        if allow is not None and allow.matches(relpath):
            continue
        out.append(relpath)
    return sorted(set(out))


def load_sources(ctx: RepoContext, chosen: Selection) -> Iterator[SourceFile | Finding]:
    """The files of this run the selection reads, read (or a finding why not)."""
    root = ctx.root
    for relpath in candidates(ctx, chosen):
        head = b""
        if "." not in relpath.rsplit("/", 1)[-1]:
            try:
                with open(root / relpath, "rb") as handle:
                    head = handle.read(128)
            except OSError:
                continue
        kind = chosen.classify(relpath, head)
        if kind is None:
            continue
        yield read_source(root, relpath, kind, chosen.section)


def read_source(root: Path, relpath: str, kind: str, rule: str) -> SourceFile | Finding:
    """Read one file (bounded, inside the repo); a ``rule`` finding says why it cannot."""
    try:
        path = resolve_inside(root, relpath, relpath)
        raw = read_bounded(path, relpath)
        text = decode_text(raw, relpath)
    except DecodeError as exc:
        return Finding(relpath, exc.line, 1, rule, f"{exc.reason}; not checked")
    except FileError as exc:
        return Finding(relpath, exc.line, 1, rule, f"{exc.reason}; not checked")
    except PolicyError as exc:
        return Finding(relpath, 1, 1, rule, f"{exc}; not checked")
    return SourceFile(relpath, kind, raw, text)


def yaml_data(source: SourceFile, rule: str) -> YamlNode | Finding:
    """The parsed YAML of a source, or a ``rule`` finding when it does not parse."""
    try:
        return parse_text(source.text, source.relpath)
    except YamlError as exc:
        return Finding(source.relpath, exc.line, 1, rule, f"{exc.message}; not checked")
