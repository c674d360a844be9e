# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``lock-stale`` and ``lock-skew``: the offline lock check as repo rules.

They run on a full ``policytool check`` and, with paths, when a lock's inputs, output,
constraints or the ``pyproject.toml`` holding the config change. The work lives in
:mod:`policytool.lock.check`, imported only when a rule actually runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import PolicyError


def _triggers(config: Config) -> Sequence[str]:
    """Lock inputs, outputs, constraints and the config file."""
    patterns = {"pyproject.toml"}
    if config.source is not None:
        try:
            patterns.add(config.source.relative_to(config.root).as_posix())
        except ValueError:
            pass
    for lock in config.lock:
        patterns.add(lock.output.removeprefix("./"))
        patterns.update(c.removeprefix("./") for c in lock.constraints)
        for raw in lock.inputs:
            patterns.add(raw.split("[", 1)[0].split(":", 1)[0].removeprefix("./"))
    patterns.add("requirements/*.in")
    return sorted(patterns)


def _run(ctx: RepoContext, rule: str) -> list[Finding]:
    if not ctx.config.lock:
        return []
    from policytool.lock.check import check_all

    try:
        return check_all(ctx.config, rules=(rule,))
    except PolicyError as exc:
        where = ctx.config.source.name if ctx.config.source else "pyproject.toml"
        return [Finding(where, 1, 1, rule, str(exc))]


def _check_stale(ctx: RepoContext) -> list[Finding]:
    """Every lock is consistent with its inputs and options and untouched by hand."""
    return _run(ctx, "lock-stale")


def _check_skew(ctx: RepoContext) -> list[Finding]:
    """Layered locks pin each shared package to the same version."""
    return _run(ctx, "lock-skew")


register(
    RepoRule(
        id="lock-stale",
        summary=(
            "a lock is inconsistent with its inputs or options, not exactly pinned, "
            "or edited by hand"
        ),
        check=_check_stale,
        triggers=_triggers,
    )
)
register(
    RepoRule(
        id="lock-skew",
        summary="one package is pinned to different versions in locks layered on each other",
        check=_check_skew,
        triggers=_triggers,
    )
)
