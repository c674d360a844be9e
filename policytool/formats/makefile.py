# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The recipe of a make target, so a CI step ``make lint`` can be followed.

Reads the repository's ``Makefile`` (or ``GNUmakefile``/``makefile``, in make's order).
A recipe line comes back as one shell line: its ``@``/``-``/``+`` prefixes dropped,
``$(VAR)``/``${VAR}`` replaced by the variable's simple assignment in the file (or
nothing, as make does for an unset variable), ``$$`` by ``$``. Prerequisites that are
targets of the file are followed first (``lint: install`` runs ``install``'s recipe).
A file that cannot be read gives no recipe: make itself reports it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from policytool.core.boundary import read_bounded, resolve_inside
from policytool.errors import PolicyError

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_RULE_RE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)\s*([^;=#]*)")
_ASSIGN_RE = re.compile(
    r"^(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(?::{1,3}|\?|\+)?=\s*(.*)$"
)
_VAR_RE = re.compile(r"\$[({]([A-Za-z_][\w.-]*)[)}]")
_MAX_DEPTH = 8
_ELSEWHERE = ("-C", "-f", "--file", "--directory", "--makefile")


def read_makefile(root: Path) -> tuple[str, str] | None:
    """(name, text) of the Makefile make reads in ``root``, if any."""
    for name in MAKEFILES:
        try:
            path = resolve_inside(root, name, name)
            if path.is_file():
                return name, read_bounded(path, name).decode("utf-8")
        except (PolicyError, UnicodeDecodeError):
            return None
    return None


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(1-based line, text) of each line, backslash continuations joined."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        if pending is not None:
            raw = pending[1] + " " + raw.lstrip()
            number = pending[0]
            pending = None
        if raw.endswith("\\"):
            pending = (number, raw[:-1].rstrip())
            continue
        out.append((number, raw))
    if pending is not None:
        out.append(pending)
    return out


Recipe = list[tuple[int, str]]


def parse(text: str) -> tuple[dict[str, Recipe], dict[str, list[str]], str | None]:
    """(recipe lines (1-based line, text) by target, prerequisites by target, the default
    target)."""
    recipes: dict[str, Recipe] = {}
    prereqs: dict[str, list[str]] = {}
    variables: dict[str, str] = {}
    default: str | None = None
    current: Recipe = []
    for number, raw in _logical_lines(text):
        if raw.startswith("\t"):
            line = raw[1:].lstrip().lstrip("@-+").strip()
            if line and not line.startswith("#"):
                current.append((number, line))
            continue
        current = []
        assign = _ASSIGN_RE.match(raw)
        if assign is not None:
            variables.setdefault(assign.group(1), assign.group(2).strip())
            continue
        rule = _RULE_RE.match(raw)
        if rule is None:
            continue
        for target in rule.group(1).split():
            if target.startswith("."):
                continue
            if default is None and "%" not in target:
                default = target
            current = recipes.setdefault(target, current)
            prereqs.setdefault(target, []).extend(rule.group(2).split())

    def expand(line: str) -> str:
        return _VAR_RE.sub(lambda m: variables.get(m.group(1), ""), line).replace("$$", "$")

    expanded = {t: [(n, expand(line)) for n, line in lines] for t, lines in recipes.items()}
    return expanded, prereqs, default


def target_commands(root: Path, targets: Sequence[str]) -> list[tuple[str, int, str]]:
    """(target, 1-based line in the Makefile, shell line) of what ``make TARGETS`` runs,
    prerequisites first; the default target when ``targets`` is empty."""
    found = read_makefile(root)
    if found is None:
        return []
    recipes, prereqs, default = parse(found[1])
    out: list[tuple[str, int, str]] = []
    done: set[str] = set()

    def visit(target: str, depth: int) -> None:
        if target in done or depth > _MAX_DEPTH or target not in recipes:
            return
        done.add(target)
        for prereq in prereqs.get(target, []):
            visit(prereq, depth + 1)
        out.extend((target, number, line) for number, line in recipes[target])

    for target in targets or ([default] if default else []):
        visit(target, 0)
    return out


def make_targets(words: Sequence[str]) -> list[str] | None:
    """The targets of a ``make`` command line (``[]``: the default one); None when
    ``words`` is not one, or changes directory (``-C``/``-f``: another Makefile)."""
    if not words or Path(words[0]).name not in ("make", "gmake"):
        return None
    targets = []
    for word in words[1:]:
        if word.startswith(_ELSEWHERE):
            return None
        if word.startswith("-") or "=" in word:
            continue
        targets.append(word)
    return targets
