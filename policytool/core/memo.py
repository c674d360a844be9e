# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The per-run memo: values a run computes once (import plans, allowlists, triggers...).

It replaces module-level caches: one :class:`RunMemo` belongs to each loaded
:class:`~policytool.config.Config` (``config.memo``), so it lives exactly as long as the
run that loaded the config, and rules reach it through what they already get
(``check(source, config)``, ``check(ctx)`` with ``ctx.config``). A new config (a new run,
a test) starts empty: nothing leaks between runs and no test has to reset a cache.
A forked worker starts with a copy of the parent's memo; a pickled config (a
spawned pool worker) arrives with an empty one and fills its own.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar, cast

T = TypeVar("T")


class RunMemo:
    """Values computed once per run, keyed by a hashable key that starts with a name."""

    def __init__(self) -> None:
        """An empty memo."""
        self._values: dict[Hashable, object] = {}

    def value(self, key: Hashable, build: Callable[[], T]) -> T:
        """The value memoised under ``key``, built by ``build()`` the first time."""
        try:
            return cast(T, self._values[key])
        except KeyError:
            result = build()
            self._values[key] = result
            return result

    def __len__(self) -> int:
        """How many values are memoised."""
        return len(self._values)

    def __reduce__(self) -> tuple[type[RunMemo], tuple[()]]:
        """Pickle as an empty memo: a worker process computes its own values."""
        return (RunMemo, ())
