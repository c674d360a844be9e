# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``forbidden-import``: configured modules (and their submodules) are not imported.

Each ``[[tool.policytool.forbidden-import]]`` entry bans ``modules`` outside its allow
globs. A ban on ``pickle`` covers ``pickle`` and ``pickle.x`` but not ``pickletools``;
``from x import y`` counts when ``x`` or ``x.y`` is banned. Every import form is seen
(``import a, b``, ``from x import y``, relative imports resolved against the file's
package, aliases, imports anywhere in the file, ``importlib.import_module("x")`` and
``__import__("x")`` with a literal name) and never a comment or a string. Without
configuration nothing is banned. The scan is :mod:`policytool.formats.pyimports`.
"""

from __future__ import annotations

from policytool.config import Config
from policytool.core.globs import match_any
from policytool.engine.findings import Finding
from policytool.engine.registry import FileRule, register
from policytool.engine.source import SourceFile
from policytool.formats.pyimports import (
    FileScan,
    ImportedName,
    ScanSyntaxError,
    Tokens,
    has_relative_import,
    word_regex,
)
from policytool.rules._allowlist import AllowList, allow_entries
from policytool.rules._pyscan import packages_memo, scan_of
from policytool.rules._source_config import ForbiddenImportConfig

RULE_ID = "forbidden-import"

DOC = """\
## What it checks
Imports of the modules each `[[tool.policytool.forbidden-import]]` entry bans, and of
their submodules, outside the entry's allow globs: `import a, b`, `from x import y`
(`y` counts when `x.y` is banned), relative imports resolved against the file's
package, aliases, imports anywhere in the file, and `importlib.import_module("x")` /
`__import__("x")` with a literal name. Never a comment or a string. A ban on `pickle`
covers `pickle.x` but not `pickletools`.

Without an entry nothing is banned: the rule has no default policy.

## Why
Some modules are a standing risk (`pickle` runs code on load) or have a house
replacement (`regex` for `re`, a wrapper around `triton`); a ban with a reason stops
new uses at review time instead of in a later clean-up.

## Example
```python
import pickle
```
fails with `modules = ["pickle"]`: ``import of `pickle` is forbidden: unsafe
deserialization; use msgspec``.

## Fix
Use what the entry's `reason` names. To keep today's uses and stop new ones, run
`policytool baseline forbidden-import`: it adds the files to the entry's allowlist, and
`stale-allow` reports each entry once its file is clean.

## Configuration
```toml
[[tool.policytool.forbidden-import]]
modules = ["pickle", "cloudpickle"]
reason = "unsafe deserialization; use msgspec"
allow = ["vllm/distributed/**"]              # globs where the import may stay
allowlist-file = "tools/pickle_allow.txt"    # one glob a line, inside the repository
files = ["vllm/config/**"]                   # only these files (default: every file)
```

`policytool init` proposes one entry per import-linter `forbidden` contract
(`[tool.importlinter]` in pyproject.toml, `.importlinter` or setup.cfg): its
`forbidden_modules` as `modules`, its `source_modules` as `files`.
"""
TABLE = "[[tool.policytool.forbidden-import]]"
PYTHON_KINDS = frozenset({"python", "stub"})


class _Plan:
    """What one config bans, precomputed once per config object."""

    def __init__(self, config: Config) -> None:
        """Set up from the constructor arguments."""
        self.config = config
        self.bans: dict[str, list[int]] = {}
        words: set[str] = set()
        for index, entry in enumerate(config.entries(ForbiddenImportConfig)):
            for module in entry.modules:
                module = module.strip()
                self.bans.setdefault(module, []).append(index)
                words.update(part for part in module.split(".") if part)
        self.tokens: Tokens | None = word_regex(words) if words else None
        self._allows: list[AllowList] | None = None

    def allows(self) -> list[AllowList]:
        """The allow list of every entry, in entry order (read on first use)."""
        if self._allows is None:
            self._allows = [
                allow_entries(self.config, e.allow, e.allowlist_file, (TABLE, index))
                for index, e in enumerate(self.config.entries(ForbiddenImportConfig))
            ]
        return self._allows


def plan_of(config: Config) -> _Plan:
    """The precomputed bans of ``config`` (once a run)."""
    return config.memo.value(("imports.plan",), lambda: _Plan(config))


def banned_prefix(name: str, bans: dict[str, list[int]]) -> str | None:
    """The shortest banned module that is ``name`` or a package above it."""
    if not name:
        return None
    parts = name.split(".")
    for size in range(1, len(parts) + 1):
        prefix = ".".join(parts[:size])
        if prefix in bans:
            return prefix
    return None


def _message(imported: ImportedName, banned: str, entry: ForbiddenImportConfig) -> str:
    """The finding's message: what was imported, what is banned, why."""
    reason = entry.reason.strip() or "banned by [[tool.policytool.forbidden-import]]"
    if imported.kind == "member":
        module, _, member = imported.name.rpartition(".")
        what = f"`from {module} import {member}` imports `{imported.name}`, which"
    elif imported.kind == "call":
        what = f"dynamic import of `{imported.name}`"
    else:
        what = f"import of `{imported.name}`"
    scope = "" if banned == imported.name else f" (`{banned}` and its submodules are banned)"
    return f"{what} is forbidden{scope}: {reason}"


def violations(
    scan: FileScan, config: Config, entries: list[int] | None = None
) -> list[tuple[int, Finding]]:
    """``(entry index, finding)`` for every banned import in the file.

    ``entries`` limits the check to those entries (all when None); allow globs are
    the caller's business. Raises :class:`ScanSyntaxError` when the file must be
    parsed whole and does not parse.
    """
    plan = plan_of(config)
    if plan.tokens is None:
        return []
    wanted = set(range(len(config.entries(ForbiddenImportConfig))) if entries is None else entries)
    found: list[tuple[int, Finding]] = []

    def relevant(imported: ImportedName) -> bool:
        """Whether the name is banned by some entry."""
        return banned_prefix(imported.name, plan.bans) is not None

    # A banned dynamic import names its module in a string: the module's first part is
    # then a whole identifier in the file, so a file that mentions no token has none.
    calls = scan.import_calls() if scan.mentions(plan.tokens) else []
    for imported in [*scan.imports(plan.tokens, relevant), *calls]:
        if imported.kind == "member":
            # ``from x import y``: the statement itself is reported when x is banned.
            banned = (
                imported.name
                if imported.name in plan.bans
                and banned_prefix(imported.name.rpartition(".")[0], plan.bans) is None
                else None
            )
        else:
            banned = banned_prefix(imported.name, plan.bans)
        if banned is None:
            continue
        for index in plan.bans[banned]:
            if index in wanted:
                message = _message(imported, banned, config.entries(ForbiddenImportConfig)[index])
                found.append(
                    (index, Finding(scan.relpath, imported.line, imported.col, RULE_ID, message))
                )
    return found


_LAST_ACTIVE: tuple[Config, str, list[int]] | None = None


def active_entries(relpath: str, config: Config) -> list[int]:
    """The entries whose allow globs do not cover ``relpath`` (memoised for the last file)."""
    global _LAST_ACTIVE
    if _LAST_ACTIVE is not None and _LAST_ACTIVE[0] is config and _LAST_ACTIVE[1] == relpath:
        return _LAST_ACTIVE[2]
    entries = config.entries(ForbiddenImportConfig)
    active = [
        i
        for i, allow in enumerate(plan_of(config).allows())
        if not allow.matches(relpath)
        and (not entries[i].files or match_any(relpath, entries[i].files))
    ]
    _LAST_ACTIVE = (config, relpath, active)
    return active


def check(source: SourceFile, config: Config) -> list[Finding]:
    """Findings for one file."""
    entries = active_entries(source.relpath, config)
    if not entries:
        return []
    try:
        return [
            finding
            for _index, finding in violations(
                scan_of(source, packages_memo(config.memo)), config, entries
            )
        ]
    except ScanSyntaxError as exc:
        return [Finding(source.relpath, exc.line, exc.col, "syntax-error", f"cannot parse: {exc}")]


def prefilter(data: bytes, config: Config) -> bool:
    """Whether the file can import a banned module.

    It needs ``import`` and a banned name as a whole identifier, or a relative import
    (which names no package: ``from .x import y`` in ``pkg/`` is ``pkg.x``).
    """
    plan = plan_of(config)
    if plan.tokens is None or b"import" not in data:
        return False
    return plan.tokens.present(data) or has_relative_import(data)


def applies(relpath: str, config: Config) -> bool:
    """Whether some entry does not allow this file."""
    return bool(config.entries(ForbiddenImportConfig)) and bool(active_entries(relpath, config))


def _kinds(config: Config) -> frozenset[str]:
    """The file kinds the rule reads."""
    return PYTHON_KINDS


RULE = register(
    FileRule(
        id=RULE_ID,
        summary="configured modules and their submodules are not imported outside allow globs",
        check=check,
        kinds=_kinds,
        prefilter=prefilter,
        applies=applies,
        doc=DOC,
        group="source",
        config=("forbidden-import",),
    )
)
