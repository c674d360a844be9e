# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``lock-skew``: a package pinned to different versions in a lock and in a lock it is
layered on (through ``constraints``, transitively). Offline, like ``lock-stale``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from policytool.engine.findings import Finding
from policytool.engine.locks import Lock
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import PolicyError
from policytool.formats import lockfile
from policytool.rules._lockfiles import LockCache, lock_findings, lock_triggers, read_lock

RULE_ID = "lock-skew"
SUMMARY = "one package is pinned to different versions in locks layered on each other"


def _layers(locks: dict[str, Lock], name: str) -> list[str]:
    """The locks ``name`` is layered on, transitively, nearest first."""
    out: list[str] = []
    stack = list(locks[name].constraint_locks)
    while stack:
        other = stack.pop(0)
        if other in out or other == name or other not in locks:
            continue
        out.append(other)
        stack.extend(locks[other].constraint_locks)
    return out


def check_skew(
    root: Path, locks: dict[str, Lock], names: Iterable[str], cache: LockCache | None = None
) -> list[Finding]:
    """``lock-skew``: the same package at different versions in layered locks."""
    pins: dict[str, dict[str, lockfile.Pin]] = {}

    def pins_of(name: str) -> dict[str, lockfile.Pin]:
        if name not in pins:
            try:
                parsed = read_lock(root, locks[name], cache)
            except PolicyError:
                parsed = None
            pins[name] = {p.name: p for p in parsed.pins() if p.version} if parsed else {}
        return pins[name]

    findings: list[Finding] = []
    for name in names:
        mine = pins_of(name)
        for other in _layers(locks, name):
            theirs = pins_of(other)
            for package, pin in mine.items():
                base = theirs.get(package)
                if base is None or base.version is None or pin.version is None:
                    continue
                if _same_version(pin.version, base.version):
                    continue
                findings.append(
                    Finding(
                        locks[name].output,
                        pin.line,
                        1,
                        RULE_ID,
                        f"'{package}' is pinned to {pin.version} here but to {base.version} "
                        f"in lock '{other}' ({locks[other].output}) that this lock is layered on",
                    )
                )
    return findings


def _same_version(a: str, b: str) -> bool:
    if a == b:
        return True
    from packaging.version import InvalidVersion, Version

    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return False


def check(ctx: RepoContext) -> list[Finding]:
    """Layered locks pin each shared package to the same version."""
    return lock_findings(ctx, RULE_ID, lambda root, locks: check_skew(root, locks, list(locks), {}))


DOC = """\
## What it checks

A package pinned in a lock and in a lock it is layered on (through `constraints`,
transitively) is pinned to the same version in both.

## Why

A layered lock installs on top of its base: two versions of one package mean the second
install silently replaces the first, and the base's CI never ran with it.

## Example

`test` has `constraints = ["common"]`; `common.txt` was regenerated with `alpha==1.0`
after `test.txt` pinned `alpha==1.1`:

```text
requirements/test.txt:12:1: lock-skew 'alpha' is pinned to 1.1 here but to 1.0 in lock \
'common' (requirements/common.txt) that this lock is layered on
```

## Fix

Regenerate the upper lock after the base: `policytool lock test` compiles `common` first
and then `test` against it. `policytool bump PKG` regenerates the whole graph above the
locks it changes.

## Configuration

`constraints` of `[[tool.policytool.lock]]` (a lock's name or output layers it on that
lock).
"""

register(
    RepoRule(
        id=RULE_ID,
        summary=SUMMARY,
        check=check,
        triggers=lock_triggers,
        config=("lock",),
        doc=DOC,
        group="lock",
    )
)
