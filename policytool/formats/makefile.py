# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Makefiles, read (never run) for the commands their targets' recipes execute.

A rule line ``target [target...]: [prerequisites]`` starts a rule; the tab-indented
lines after it are its recipe. Variables are not expanded (a recipe word holding
``$(...)`` stays as written), conditionals and includes are not followed: enough to see
that ``make lint`` runs ``python -m mypy``, not a make implementation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# ``name:`` or ``name::`` but not ``name := value`` / ``name ?= value``; no recipe prefix.
_RULE_RE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)\s*([^;#]*)(?:;\s*(.*))?$")
_SPECIAL = frozenset({".PHONY", ".SILENT", ".DEFAULT", ".SUFFIXES", ".PRECIOUS", ".INTERMEDIATE"})


@dataclass
class Rule:
    """A target's prerequisites and recipe lines (prefixes ``@ - +`` kept)."""

    prerequisites: list[str] = field(default_factory=list)
    recipe: list[tuple[int, str]] = field(default_factory=list)  # (1-based line, text)


@dataclass
class Makefile:
    """The rules of one Makefile, and its default target (the first ordinary one)."""

    rules: dict[str, Rule] = field(default_factory=dict)
    default: str | None = None


def parse(text: str) -> Makefile:
    """The rules of a Makefile's text (continuation lines joined)."""
    out = Makefile()
    current: list[Rule] = []
    lines = text.replace("\r\n", "\n").split("\n")
    number = 0
    while number < len(lines):
        first = number
        line = lines[number]
        while line.endswith("\\") and number + 1 < len(lines):
            number += 1
            line = line[:-1] + " " + lines[number].lstrip()
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
            continue
        targets = match.group(1).split()
        current = []
        for target in targets:
            rule = out.rules.setdefault(target, Rule())
            rule.prerequisites += match.group(2).split()
            if match.group(3):
                rule.recipe.append((first + 1, match.group(3)))
            current.append(rule)
            if out.default is None and target not in _SPECIAL and "%" not in target:
                out.default = target
    return out


def make_targets(words: list[str]) -> tuple[str | None, str | None, list[str]] | None:
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
