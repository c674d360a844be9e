# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The rule registry: what a rule declares, and the one place rules are collected.

A *file rule* looks at one file at a time (``check(source, config)``), may be fixable
(``fix(source, config) -> new bytes``) and declares a cheap ``prefilter`` over the raw
bytes so most files are dismissed with a ``bytes.find``. A *repo rule* looks at the
repository as a whole (config files, locks, workflows) and runs on full runs or when a
path matching one of its ``triggers`` is checked. Each module under ``policytool.rules``
holds one rule (named after its id) and registers it on import; the generated
:mod:`policytool.engine.rule_index` says which module registers which id and its group,
so a run imports only the modules of the rules it runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, overload

from policytool.config import Config, load_sections
from policytool.engine.findings import Finding
from policytool.engine.fixes import Fix
from policytool.engine.rule_index import RULE_INDEX as RULE_INDEX
from policytool.engine.source import SourceFile
from policytool.errors import PolicyError

# What part of a file a rule looks at: the whole file (``check``), or only the lines a
# change adds (``sweep``: the rule's findings outside those lines are not reported).
Scope = Literal["file", "added-lines"]
SCOPE_FILE: Scope = "file"
SCOPE_ADDED_LINES: Scope = "added-lines"


def all_kinds(config: Config) -> frozenset[str] | None:
    """``kinds`` for a rule that looks at every text file."""
    return None


@dataclass(frozen=True)
class FileRule:
    """A rule over single files."""

    id: str
    summary: str
    check: Callable[[SourceFile, Config], Iterable[Finding]]
    # Kinds the rule applies to for this config; None means every text file.
    kinds: Callable[[Config], frozenset[str] | None] = all_kinds
    # Cheap test on raw bytes; False means the file cannot have a finding.
    prefilter: Callable[[bytes, Config], bool] | None = None
    # The fix of a file: edits of ``source.text`` (offsets in characters of the text as
    # decoded, BOM dropped) and the rule's verification; the engine applies it, encodes
    # the text back in the file's encoding, writes atomically and re-checks.
    fix: Callable[[SourceFile, Config], Fix | None] | None = None
    # Whether a file outside the rule's allow globs needs this rule at all.
    applies: Callable[[str, Config], bool] | None = None
    # The rule's documentation in ruff's shape (see :data:`DOC_SECTIONS`).
    doc: str = ""
    # ``added-lines`` rules run in ``policytool sweep`` only (see :data:`Scope`).
    scope: Scope = SCOPE_FILE
    # One of :data:`GROUPS`, usable in ``--only`` / ``--skip``.
    group: str = ""
    # The ``[tool.policytool.X]`` tables it reads (X: "spdx", "lock"...); its page lists
    # their keys, generated from the config definitions.
    config: tuple[str, ...] = ()

    @property
    def fixable(self) -> bool:
        """Whether ``policytool fix`` can mend this rule's findings."""
        return self.fix is not None


class LazyFiles(Sequence[str]):
    """The run's file list, listed on first use.

    A repo-only call (the ``policytool-repo`` hook) runs rules that read a few named
    files; listing and boundary-checking every tracked file (8,500 in vLLM) would be
    most of its cost, so only a rule that looks at ``ctx.files`` pays for it.
    """

    def __init__(self, listing: Callable[[], list[str]]) -> None:
        """Remember how to list the files; nothing runs yet."""
        self._listing = listing
        self._files: list[str] | None = None

    @property
    def listed(self) -> bool:
        """Whether some rule has looked at the files."""
        return self._files is not None

    def _all(self) -> list[str]:
        """The files, listed once."""
        if self._files is None:
            self._files = self._listing()
        return self._files

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        """One file, or a slice of them."""
        return self._all()[index]

    def __len__(self) -> int:
        """How many files."""
        return len(self._all())

    def __iter__(self) -> Iterator[str]:
        """The files in order."""
        return iter(self._all())


@dataclass(frozen=True)
class RepoContext:
    """What a repo rule sees: the config, the root, and the files of this run."""

    config: Config
    files: Sequence[str]
    full_run: bool
    # ``check --online``: rules may ask the network (precommit-rev asks PyPI).
    online: bool = False
    # ``check --baseline-from REV``: the commit whose baseline judges this run (lock-stale
    # reads the locks it adopted from there).
    baseline_from: str | None = None

    @property
    def root(self) -> Path:
        """The repository root (the directory of the config file)."""
        return self.config.root


@dataclass(frozen=True)
class RepoRule:
    """A rule over the repository as a whole."""

    id: str
    summary: str
    check: Callable[[RepoContext], Iterable[Finding]]
    # Globs (repo-relative) whose change makes the rule run when paths are given.
    triggers: Callable[[Config], Sequence[str]] = lambda config: ()
    # The findings it can mend, each carrying its ``Fix`` (edits and the rule's
    # verification); the engine applies them (:func:`policytool.engine.fixes.apply_fixes`),
    # writes atomically and re-checks. A fixer never writes a file itself.
    fixes: Callable[[RepoContext], Iterable[Finding]] | None = None
    # The rule's documentation in ruff's shape (see :data:`DOC_SECTIONS`).
    doc: str = ""
    # Given paths, it checks only those files (the whole repo when one of them changes
    # what every file is judged against): its hook can take pre-commit's file names.
    narrows: bool = False
    # One of :data:`GROUPS`, usable in ``--only`` / ``--skip``.
    group: str = ""
    # The ``[tool.policytool.X]`` tables it reads (X: "spdx", "lock"...); its page lists
    # their keys, generated from the config definitions.
    config: tuple[str, ...] = ()

    @property
    def fixable(self) -> bool:
        """Whether ``policytool fix`` can mend this rule's findings."""
        return self.fixes is not None


@dataclass(frozen=True)
class RuleInfo:
    """A rule id that is reported by the engine or another command, for ``rules``."""

    id: str
    summary: str
    fixable: bool = False
    command: str = "check"
    doc: str = ""
    # The rule's group; "engine" for the engine's own ids.
    group: str = "engine"
    scope: Scope = SCOPE_FILE
    # The ``[tool.policytool.X]`` tables it reads (X: "spdx", "lock"...); its page lists
    # their keys, generated from the config definitions.
    config: tuple[str, ...] = ()


# A rule's ``doc`` is Markdown with these sections, in this order, like ruff's rule docs:
# what the rule checks, why it matters, an example that fails, how to fix it (and whether
# ``policytool fix`` does), and the config keys it reads. ``policytool rules ID`` prints it
# and docs/rules/<id>.md is generated from it.
DOC_SECTIONS = ("What it checks", "Why", "Example", "Fix", "Configuration")


@dataclass(frozen=True)
class Prefetch:
    """Work started before the rules load, on the other core, and ended after they ran.

    Registered by a config-section module (:mod:`policytool.rules._repo_config` starts
    pre-commit's schema check in a child): the engine knows no section, the section
    knows its file.
    """

    start: Callable[[Config], None]
    end: Callable[[Config], None]


_PREFETCHES: list[Prefetch] = []


def register_prefetch(prefetch: Prefetch) -> None:
    """Add work a run with repo rules starts before loading them."""
    _PREFETCHES.append(prefetch)


def prefetches() -> list[Prefetch]:
    """The registered prefetches (every config-section module loaded first)."""
    load_sections()
    return list(_PREFETCHES)


_FILE_RULES: dict[str, FileRule] = {}
_REPO_RULES: dict[str, RepoRule] = {}
_INFO: dict[str, RuleInfo] = {}


def register(rule: FileRule | RepoRule) -> FileRule | RepoRule:
    """Add a rule to the registry (called by rule modules at import time)."""
    if rule.id in _FILE_RULES or rule.id in _REPO_RULES or rule.id in _INFO:
        raise ValueError(f"rule id registered twice: {rule.id}")
    if rule.group not in GROUPS:
        raise ValueError(f"rule {rule.id}: group {rule.group!r} is not one of {GROUPS}")
    if isinstance(rule, FileRule):
        _FILE_RULES[rule.id] = rule
    else:
        _REPO_RULES[rule.id] = rule
    return rule


def register_info(info: RuleInfo) -> RuleInfo:
    """Document a rule id that has no check function of its own here."""
    if info.id in _FILE_RULES or info.id in _REPO_RULES or info.id in _INFO:
        raise ValueError(f"rule id registered twice: {info.id}")
    _INFO[info.id] = info
    return info


# Findings the engine itself reports; ``--only`` keeps them (a file that cannot be
# read or parsed was not checked), ``--skip`` can drop them.
ENGINE_RULE_IDS = frozenset(
    {"undecodable", "syntax-error", "bare-ignore", "baseline-stale", "rule-error"}
)
# The groups of rules, usable in ``--only`` / ``--skip``; each rule declares its own.
GROUPS = ("source", "lock", "repo", "ci", "sweep")
# Which module under ``policytool.rules`` registers each id, from the generated index
# (``python -m policytool.engine.docs`` rewrites it from the modules; a test fails on
# drift). A pre-commit hook runs ``check --only ID``: importing just that module instead
# of every rule keeps its start-up short.
RULE_MODULES: dict[str, str] = {rule_id: module for rule_id, (module, _) in RULE_INDEX.items()}
RULES_PACKAGE = "policytool.rules"


def kinds_read_by(rule_ids: Iterable[str], config: Config) -> frozenset[str] | None:
    """The kinds the rules ``rule_ids`` read together; None for every file.

    Loads only those rules' modules. A repo rule may look at any path it is given (its
    triggers), so it reads every kind.
    """
    wanted = [i for i in rule_ids if i not in ENGINE_RULE_IDS]
    registered = file_rules(wanted)
    kinds: set[str] = set()
    for rule_id in wanted:
        rule = registered.get(rule_id)
        if rule is None:
            return None
        declared = rule.kinds(config)
        if declared is None:
            return None
        kinds |= declared
    return frozenset(kinds)


def group_of(rule_id: str) -> str | None:
    """The group of a rule id (None for the engine's own ids)."""
    entry = RULE_INDEX.get(rule_id)
    return entry[1] if entry else None


def rule_ids_of_group(group: str) -> list[str]:
    """The rule ids of ``group``, in index order."""
    return [rule_id for rule_id, (_module, g) in RULE_INDEX.items() if g == group]


def expand_selection(
    names: Iterable[str], option: str, allowed: Sequence[str] | None = None
) -> tuple[str, ...]:
    """``--only`` / ``--skip`` values with group names replaced by their rule ids.

    ``allowed`` narrows the ids a command accepts (``lock --check``: its two rules); a
    group expands to its members among them. An unknown name is a :class:`PolicyError`
    naming the nearest id or group.
    """
    known = list(allowed) if allowed is not None else known_rule_ids()
    groups = [g for g in GROUPS if any(i in known for i in rule_ids_of_group(g))]
    out: list[str] = []
    for name in names:
        if name in groups:
            out.extend(i for i in rule_ids_of_group(name) if i in known)
        elif name in known:
            out.append(name)
        else:
            import difflib  # only for the message of a usage error

            close = difflib.get_close_matches(name, [*known, *groups], n=1)
            hint = f"; did you mean '{close[0]}'?" if close else "; see `policytool rules`"
            raise PolicyError(f"{option}: unknown rule or group '{name}'{hint}")
    return tuple(dict.fromkeys(out))


def known_rule_ids() -> list[str]:
    """Every rule id, without importing any rule module."""
    return sorted(set(RULE_MODULES) | ENGINE_RULE_IDS)


def load_rule_modules(rule_ids: Iterable[str] | None = None) -> None:
    """Import the modules registering ``rule_ids`` (all of them for None)."""
    if rule_ids is None:
        modules = set(RULE_MODULES.values())
    else:
        modules = {RULE_MODULES[i] for i in rule_ids if i in RULE_MODULES}
    for module in sorted(modules):
        importlib.import_module(f"{RULES_PACKAGE}.{module}")
    if rule_ids is None or ENGINE_RULE_IDS.intersection(rule_ids):
        importlib.import_module("policytool.engine.engine_rules")


def file_rules(rule_ids: Iterable[str] | None = None) -> dict[str, FileRule]:
    """The registered file rules by id (loading the modules of ``rule_ids``, or all)."""
    load_rule_modules(rule_ids)
    return dict(_FILE_RULES)


def repo_rules(rule_ids: Iterable[str] | None = None) -> dict[str, RepoRule]:
    """The registered repo rules by id (loading the modules of ``rule_ids``, or all)."""
    load_rule_modules(rule_ids)
    return dict(_REPO_RULES)


def rule_infos() -> dict[str, RuleInfo]:
    """Every rule id with its summary, whether fixable, and the command reporting it."""
    load_rule_modules()
    infos = {
        r.id: RuleInfo(
            r.id,
            r.summary,
            r.fixable,
            command="sweep" if r.scope == SCOPE_ADDED_LINES else "check",
            doc=r.doc,
            group=r.group,
            scope=r.scope,
            config=r.config,
        )
        for r in _FILE_RULES.values()
    }
    infos.update(
        {
            r.id: RuleInfo(r.id, r.summary, r.fixable, doc=r.doc, group=r.group, config=r.config)
            for r in _REPO_RULES.values()
        }
    )
    infos.update(_INFO)
    return dict(sorted(infos.items()))
