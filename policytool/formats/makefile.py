# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Makefiles, read (never run) for the commands their targets' recipes execute.

A rule line ``target [target...]: [prerequisites]`` starts a rule; the tab-indented
lines after it are its recipe. Simple variable assignments are kept so a recipe line can
be expanded (``$(VAR)``/``${VAR}`` replaced by the assignment, or by nothing, as make
does for an unset variable; ``$$`` by ``$``); conditionals and includes are not
followed: enough to see that ``make lint`` runs ``python -m mypy`` or ``pre-commit
run``, not a make implementation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.core.boundary import read_bounded, resolve_inside
from policytool.errors import PolicyError

# The files make reads, in its order.
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
# ``name:`` or ``name::`` but not ``name := value`` / ``name ?= value``; no recipe prefix.
# The targets end on a non-blank character: a lazy group before ``\s*`` would retry every
# split of a long blank run (quadratic on a hostile line).
_RULE_RE = re.compile(r"^([^\s:=#](?:[^:=#]*[^\s:=#])?)\s*::?(?!=)\s*([^;#]*)(?:;\s*(.*))?$")
_ASSIGN_RE = re.compile(
    r"^(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(?::{1,3}|\?|\+)?=\s*(.*)$"
)
_VAR_RE = re.compile(r"\$[({]([A-Za-z_][\w.-]*)[)}]")
_PREFIX_RE = re.compile(r"[@+\-\s]*")
_MAX_DEPTH = 8


@dataclass
class Rule:
    """A target's prerequisites and recipe lines (prefixes ``@ - +`` kept)."""

    prerequisites: list[str] = field(default_factory=list)
    recipe: list[tuple[int, str]] = field(default_factory=list)  # (1-based line, text)


@dataclass
class Makefile:
    """The rules of one Makefile, its default target (the first ordinary one) and its
    simple variable assignments (the first of each name)."""

    rules: dict[str, Rule] = field(default_factory=dict)
    default: str | None = None
    variables: dict[str, str] = field(default_factory=dict)

    def expand(self, line: str) -> str:
        """``line`` with ``$(VAR)``/``${VAR}`` replaced (unset: empty) and ``$$`` as ``$``."""
        return _VAR_RE.sub(lambda m: self.variables.get(m.group(1), ""), line).replace("$$", "$")


def split_prefix(recipe_line: str) -> tuple[str, str]:
    """(its ``@ - +`` prefixes, the command) of a recipe line."""
    match = _PREFIX_RE.match(recipe_line)
    flags = match.group() if match else ""
    return flags, recipe_line[len(flags) :]


def parse(text: str) -> Makefile:
    """The rules of a Makefile's text (continuation lines joined at their first line)."""
    out = Makefile()
    current: list[Rule] = []
    lines = text.replace("\r\n", "\n").split("\n")
    number = 0
    while number < len(lines):
        first = number
        line = lines[number]
        while line.endswith("\\") and number + 1 < len(lines):
            number += 1
            line = line[:-1].rstrip() + " " + lines[number].lstrip()
        number += 1
        if line.startswith("\t"):
            for rule in current:
                rule.recipe.append((first + 1, line[1:]))
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _RULE_RE.match(line)
        if match is None:
            current = []  # a variable assignment or a directive ends the recipe
            assign = _ASSIGN_RE.match(line)
            if assign is not None:
                out.variables.setdefault(assign.group(1), assign.group(2).strip())
            continue
        current = []
        for target in match.group(1).split():
            rule = out.rules.setdefault(target, Rule())
            rule.prerequisites += match.group(2).split()
            if match.group(3):
                rule.recipe.append((first + 1, match.group(3)))
            current.append(rule)
            if out.default is None and not target.startswith(".") and "%" not in target:
                out.default = target
    return out


def make_targets(words: Sequence[str]) -> tuple[str | None, str | None, list[str]] | None:
    """(directory of ``-C``, file of ``-f``, targets) of a ``make`` command; None when
    ``words`` is not one."""
    if not words or words[0].rsplit("/", 1)[-1] not in ("make", "gmake", "$(MAKE)", "${MAKE}"):
        return None
    directory = file = None
    targets: list[str] = []
    index = 1
    while index < len(words):
        word = words[index]
        if word in ("-C", "--directory", "-f", "--file", "--makefile") and index + 1 < len(words):
            value = words[index + 1]
            if word in ("-C", "--directory"):
                directory = value
            else:
                file = value
            index += 2
            continue
        if word.startswith(("--directory=", "--file=", "--makefile=")):
            value = word.split("=", 1)[1]
            if word.startswith("--directory="):
                directory = value
            else:
                file = value
        elif word.startswith("-C") and len(word) > 2:
            directory = word[2:]
        elif not word.startswith("-") and "=" not in word:
            targets.append(word)
        index += 1
    return directory, file, targets


def read_makefile(root: Path) -> tuple[str, str] | None:
    """(name, text) of the Makefile make reads in ``root``, if any (bounded, inside)."""
    for name in MAKEFILES:
        try:
            path = resolve_inside(root, name, name)
            if path.is_file():
                return name, read_bounded(path, name).decode("utf-8")
        except (PolicyError, UnicodeDecodeError):
            return None
    return None


def target_commands(root: Path, targets: Sequence[str]) -> list[tuple[str, int, str]]:
    """(target, 1-based line in the Makefile, shell line) of what ``make TARGETS`` runs in
    ``root``, prerequisites first; the default target when ``targets`` is empty. Recipe
    prefixes are dropped and variables expanded."""
    found = read_makefile(root)
    if found is None:
        return []
    parsed = parse(found[1])
    out: list[tuple[str, int, str]] = []
    done: set[str] = set()

    def visit(target: str, depth: int) -> None:
        """Add ``target``'s prerequisites' commands, then its own."""
        rule = parsed.rules.get(target)
        if target in done or depth > _MAX_DEPTH or rule is None:
            return
        done.add(target)
        for prereq in rule.prerequisites:
            visit(prereq, depth + 1)
        for number, line in rule.recipe:
            command = parsed.expand(split_prefix(line)[1]).strip()
            if command and not command.startswith("#"):
                out.append((target, number, command))

    for target in targets or ([parsed.default] if parsed.default else []):
        visit(target, 0)
    return out
