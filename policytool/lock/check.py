# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool lock --check``: the ``lock-stale`` and ``lock-skew`` rules over the chosen locks.

Offline, no resolver, one finding per problem; the checks are the rules' own
(:mod:`policytool.rules.lock_stale`, :mod:`policytool.rules.lock_skew`), run here over
the locks named on the command line with one read of each lock file.

"""

from __future__ import annotations

from collections.abc import Sequence

from policytool.config import Config
from policytool.engine.baseline import load_adopted
from policytool.engine.findings import Finding
from policytool.engine.locks import resolve_locks, select
from policytool.rules import lock_skew, lock_stale
from policytool.rules._lockfiles import LockCache

STALE = lock_stale.RULE_ID
SKEW = lock_skew.RULE_ID
SUMMARIES = {STALE: lock_stale.SUMMARY, SKEW: lock_skew.SUMMARY}


def check_all(
    config: Config,
    names: Sequence[str] = (),
    rules: Sequence[str] = (STALE, SKEW),
    notes: list[str] | None = None,
    baseline_from: str | None = None,
) -> list[Finding]:
    """The offline check of the named locks (all when none), only the ``rules`` asked for.

    The locks the baseline adopted (the work tree's, or the one committed at
    ``baseline_from``) are accepted while byte-identical; each adds a line to ``notes``.
    """
    locks = resolve_locks(config)
    chosen = [lock.name for lock in select(locks, names)] if names else list(locks)
    if names:
        chosen = [n for n in chosen if n in names]
    findings: list[Finding] = []
    cache: LockCache = {}
    if STALE in rules:
        adopted = load_adopted(config, baseline_from)
        for name in chosen:
            findings.extend(lock_stale.check_lock(config.root, locks[name], cache, adopted))
        if notes is not None:
            mine = {name: locks[name] for name in chosen}
            notes.extend(lock_stale.adopted_notes(config.root, mine, adopted, cache))
    if SKEW in rules:
        findings.extend(lock_skew.check_skew(config.root, locks, chosen, cache))
    return findings
