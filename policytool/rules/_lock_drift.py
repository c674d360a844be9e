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
from policytool.lock.check import SKEW, STALE, SUMMARIES


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


STALE_DOC = """\
## What it checks

Every `[[tool.policytool.lock]]` offline, without a resolver (`policytool lock --check`
runs the same check):

- the lock file exists and starts with the header `policytool lock NAME` writes;
- the fingerprint in the header matches the inputs, their includes, the constraint
  files and the options that change resolution;
- the body hash matches the body (no hand edit);
- every requirement is an exact `==` pin (with `--hash` when `hashes = true`);
- every requirement of the inputs is in the lock and its pin satisfies it, and every
  pin satisfies the constraint files that are not locks (checked even when both hashes
  match);
- a lock without `python-version` was resolved on the Python that checks it.

## Why

A lock that no longer matches its inputs installs something nobody reviewed: CI passes
on a pin the inputs forbid, or a hand-edited pin never meets the resolver.

## Example

`requirements/test.in` was changed to `alpha<2` after `policytool lock test` pinned
`alpha==2.0`:

```text
requirements/test.txt:7:1: lock-stale inputs, constraints or options changed since the \
lock was generated (fingerprint mismatch); run `policytool lock test`
requirements/test.in:1:1: lock-stale 'alpha<2' is not satisfied by alpha==2.0 in \
requirements/test.txt; run `policytool lock test`
```

## Fix

Run `policytool lock NAME` (the command in the finding). It re-resolves only the stale
locks, preferring the pins they hold, so a Dependabot or Renovate edit of a pin is
kept when the inputs allow it. `policytool fix` does not touch locks.

## Configuration

`[[tool.policytool.lock]]`: `name`, `inputs`, `output`, `constraints`,
`python-version`, `universal`, `platform`, `hashes`, `backend`, `index-url`,
`extra-index-urls`, `find-links`, `no-index`, `index-strategy`, `torch-backend`,
`prerelease`, `resolution`, `exclude`, `jobs`, `variants` (see docs/lock-config.md).
"""

SKEW_DOC = """\
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
        id=STALE,
        summary=SUMMARIES[STALE],
        check=_check_stale,
        triggers=_triggers,
        doc=STALE_DOC,
        group="lock",
        config=("lock",),
    )
)
register(
    RepoRule(
        id=SKEW,
        summary=SUMMARIES[SKEW],
        check=_check_skew,
        triggers=_triggers,
        doc=SKEW_DOC,
        group="lock",
        config=("lock",),
    )
)
