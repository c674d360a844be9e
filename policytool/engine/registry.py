# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The rule registry: what a rule declares, and the one place rules are collected.

A *file rule* looks at one file at a time (``check(source, config)``), may be fixable
(``fix(source, config) -> new bytes``) and declares a cheap ``prefilter`` over the raw
bytes so most files are dismissed with a ``bytes.find``. A *repo rule* looks at the
repository as a whole (config files, locks, workflows) and runs on full runs or when a
path matching one of its ``triggers`` is checked. Modules under ``policytool.hooks``
register their rules on import; :data:`RULE_MODULES` says which module registers which
id, so a run imports only the modules of the rules it runs.
"""

from __future__ import annotations

import ast
import codecs
import importlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.files import BOM, DecodeError, decode_text

# PEP 263: the coding cookie on line 1 or 2.
_CODING_RE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


class DecodeFailure(ValueError):
    """The file's bytes are not valid in its encoding; ``line`` is where it broke."""

    def __init__(self, encoding: str, line: int, reason: str) -> None:
        super().__init__(f"not valid {encoding} (line {line}: {reason})")
        self.encoding = encoding
        self.line = line


def coding_cookie(data: bytes) -> str | None:
    """The PEP 263 encoding named on line 1 or 2, if any."""
    for line in data.split(b"\n", 2)[:2]:
        match = _CODING_RE.match(line)
        if match:
            return match.group(1).decode("ascii")
        if line.strip() and not line.lstrip().startswith(b"#"):
            break
    return None


@dataclass
class SourceFile:
    """One file being checked: its bytes, kind, and lazily its text and AST."""

    relpath: str
    abspath: str | Path
    data: bytes
    kind: str | None
    _text: str | None = field(default=None, repr=False)
    _tree: ast.Module | None = field(default=None, repr=False)
    _encoding: str | None = field(default=None, repr=False)

    @property
    def path(self) -> Path:
        """The file's absolute path."""
        return Path(self.abspath)

    @property
    def has_bom(self) -> bool:
        """Whether the file starts with a UTF-8 byte order mark."""
        return self.data.startswith(BOM)

    @property
    def encoding(self) -> str:
        """The codec the file is written in (PEP 263 cookie for Python, else UTF-8)."""
        if self._encoding is None:
            cookie = coding_cookie(self.data) if self.kind in ("python", "stub") else None
            try:
                self._encoding = codecs.lookup(cookie).name if cookie else "utf-8"
            except LookupError:
                self._encoding = "utf-8"
        return self._encoding

    @property
    def text(self) -> str:
        """The decoded text without BOM; raises :class:`DecodeFailure`."""
        if self._text is None:
            try:
                self._text = decode_text(self.data, self.relpath, self.encoding)
            except DecodeError as exc:
                raise DecodeFailure(self.encoding, exc.line, exc.detail) from None
        return self._text

    @property
    def tree(self) -> ast.Module:
        """The parsed module (Python files only); raises ``SyntaxError``."""
        if self._tree is None:
            self._tree = ast.parse(self.data, filename=self.relpath)
        return self._tree

    def replace_data(self, data: bytes) -> None:
        """Swap in fixed bytes, dropping the cached text and tree."""
        self.data = data
        self._text = None
        self._tree = None
        self._encoding = None


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
    fix: Callable[[SourceFile, Config], bytes | None] | None = None
    # Whether a file outside the rule's allow globs needs this rule at all.
    applies: Callable[[str, Config], bool] | None = None
    # The rule's documentation in ruff's shape (see :data:`DOC_SECTIONS`).
    doc: str = ""

    @property
    def fixable(self) -> bool:
        """Whether ``policytool fix`` can mend this rule's findings."""
        return self.fix is not None


@dataclass(frozen=True)
class RepoContext:
    """What a repo rule sees: the config, the root, and the files of this run."""

    config: Config
    files: Sequence[str]
    full_run: bool
    # ``check --online``: rules may ask the network (precommit-rev asks PyPI).
    online: bool = False

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
    # Applies the safe fixes and returns the repo-relative paths it changed.
    fix: Callable[[RepoContext], list[str]] | None = None
    # The rule's documentation in ruff's shape (see :data:`DOC_SECTIONS`).
    doc: str = ""

    @property
    def fixable(self) -> bool:
        """Whether ``policytool fix`` can mend this rule's findings."""
        return self.fix is not None


@dataclass(frozen=True)
class RuleInfo:
    """A rule id that is reported by the engine or another command, for ``rules``."""

    id: str
    summary: str
    fixable: bool = False
    command: str = "check"
    doc: str = ""


# A rule's ``doc`` is Markdown with these sections, in this order, like ruff's rule docs:
# what the rule checks, why it matters, an example that fails, how to fix it (and whether
# ``policytool fix`` does), and the config keys it reads. ``policytool rules ID`` prints it
# and docs/rules/<id>.md is generated from it.
DOC_SECTIONS = ("What it checks", "Why", "Example", "Fix", "Configuration")

_FILE_RULES: dict[str, FileRule] = {}
_REPO_RULES: dict[str, RepoRule] = {}
_INFO: dict[str, RuleInfo] = {}


def register(rule: FileRule | RepoRule) -> FileRule | RepoRule:
    """Add a rule to the registry (called by rule modules at import time)."""
    if rule.id in _FILE_RULES or rule.id in _REPO_RULES or rule.id in _INFO:
        raise ValueError(f"rule id registered twice: {rule.id}")
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
ENGINE_RULE_IDS = frozenset({"undecodable", "syntax-error", "bare-ignore"})
register_info(
    RuleInfo(
        "undecodable", "a text file is not valid in its encoding (UTF-8 or its PEP 263 cookie)"
    )
)
register_info(
    RuleInfo("syntax-error", "a Python file does not parse, so AST rules cannot check it")
)
register_info(RuleInfo("bare-ignore", "a `# policytool: ignore` comment names no rule id"))

# The one registry line of each rule: which module under ``policytool.hooks`` registers
# the id, and its group (usable in ``--only`` / ``--skip``). A pre-commit hook runs
# ``check --only ID``: importing just that module instead of every rule family keeps its
# start-up short. tests/test_rules.py checks this table against what the modules register.
GROUPS = ("source", "lock", "repo", "sweep")
RULE_TABLE: dict[str, tuple[str, str]] = {
    "spdx-header": ("spdx", "source"),
    "forbidden-import": ("imports", "source"),
    "torch-cuda": ("torch_cuda", "source"),
    "stale-allow": ("stale_allow", "source"),
    "floating-pin": ("floating_pin", "lock"),
    "lock-stale": ("lock_drift", "lock"),
    "lock-skew": ("lock_drift", "lock"),
    "precommit-config": ("precommit", "repo"),
    "precommit-final-hook": ("precommit", "repo"),
    "precommit-default-stages": ("precommit", "repo"),
    "precommit-manual-only": ("precommit", "repo"),
    "precommit-required": ("precommit", "repo"),
    "precommit-rev": ("precommit", "repo"),
    "ci-hook-stage": ("ci", "repo"),
    "mypy-wired": ("ci", "repo"),
    "codeql-workflow": ("ci", "repo"),
    "mergify-drift": ("mergify", "repo"),
    "ci-floating-install": ("ci_installs", "repo"),
    "action-pin": ("action_pin", "repo"),
    "kwargs-lookup": ("sweep_rules", "sweep"),
    "broad-except": ("sweep_rules", "sweep"),
    "any-annotation": ("sweep_rules", "sweep"),
    "hot-copy": ("sweep_rules", "sweep"),
    "async-blocking": ("sweep_rules", "sweep"),
}
RULE_MODULES: dict[str, str] = {rule_id: module for rule_id, (module, _) in RULE_TABLE.items()}


def group_of(rule_id: str) -> str | None:
    """The group of a rule id (None for the engine's own ids)."""
    entry = RULE_TABLE.get(rule_id)
    return entry[1] if entry else None


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
        importlib.import_module(f"policytool.hooks.{module}")


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
    infos = {r.id: RuleInfo(r.id, r.summary, r.fixable, doc=r.doc) for r in _FILE_RULES.values()}
    infos.update(
        {r.id: RuleInfo(r.id, r.summary, r.fixable, doc=r.doc) for r in _REPO_RULES.values()}
    )
    infos.update(_INFO)
    return dict(sorted(infos.items()))
