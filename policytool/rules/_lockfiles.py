# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What the two lock rules share: each lock file read once a run, how a lock table that
does not resolve is reported, and what triggers them."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from policytool.config import Config
from policytool.core.boundary import NO_SUCH_FILE, read_bounded
from policytool.core.text import decode_text
from policytool.engine.findings import Finding
from policytool.engine.lock_config import LockConfig
from policytool.engine.locks import Lock, resolve_locks
from policytool.engine.registry import RepoContext
from policytool.errors import FileError, PolicyError
from policytool.formats import lockfile

# Lock files already read in one run (``check_all``), by output path.
LockCache = dict[str, "lockfile.LockFile | None"]


def read_lock(root: Path, lock: Lock, cache: LockCache | None = None) -> lockfile.LockFile | None:
    """The parsed lock file, or None when it does not exist; PolicyError if unreadable.

    With ``cache``, each lock file is read and parsed once per run.
    """
    if cache is not None and lock.output in cache:
        return cache[lock.output]
    try:
        # Bounded, regular files only: a FIFO or a device there must not hang the check.
        data = read_bounded(root / lock.output, lock.output)
    except FileError as exc:
        if exc.reason != NO_SUCH_FILE:
            raise
        parsed = None
    else:
        parsed = dataclasses.replace(
            lockfile.parse(decode_text(data, lock.output)),
            sha256=hashlib.sha256(data).hexdigest(),
        )
    if cache is not None:
        cache[lock.output] = parsed
    return parsed


def lock_findings(
    ctx: RepoContext, rule_id: str, judge: Callable[[Path, dict[str, Lock]], list[Finding]]
) -> list[Finding]:
    """``judge`` over the configured locks (none: no findings); a lock table that does not
    resolve, or a lock that cannot be read, is one finding at line 1 of the config file."""
    if not ctx.config.entries(LockConfig):
        return []
    try:
        return judge(ctx.root, resolve_locks(ctx.config))
    except PolicyError as exc:
        where = ctx.config.source.name if ctx.config.source else "pyproject.toml"
        return [Finding(where, 1, 1, rule_id, str(exc))]


def lock_triggers(config: Config) -> Sequence[str]:
    """Lock inputs, outputs, constraints and the config file."""
    patterns = {"pyproject.toml"}
    if config.source is not None:
        try:
            patterns.add(config.source.relative_to(config.root).as_posix())
        except ValueError:
            pass
    for lock in config.entries(LockConfig):
        patterns.add(lock.output.removeprefix("./"))
        patterns.update(c.removeprefix("./") for c in lock.constraints)
        for raw in lock.inputs:
            patterns.add(raw.split("[", 1)[0].split(":", 1)[0].removeprefix("./"))
    patterns.add("requirements/*.in")
    return sorted(patterns)
