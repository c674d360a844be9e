# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The config section of the lock group's rule ``floating-pin``: ``[tool.policytool.floating-pin]``
(the locks' own, ``[[tool.policytool.lock]]``, is in :mod:`policytool.engine.lock_config`).

Declared apart from the rule module so that reading the configuration imports no rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from policytool.config import KeyDoc, document, register_section


@dataclass(frozen=True)
class FloatingPinConfig:
    """``[tool.policytool.floating-pin]``: requirement lists that must be exact pins.

    Nothing is checked until ``files`` or ``pyproject`` names something: loose install
    requirements (vLLM's ``requirements/*.txt``) are a choice, not a mistake.
    """

    files: tuple[str, ...] = ()
    pyproject: tuple[str, ...] = ()


document(
    FloatingPinConfig,
    "The `floating-pin` rule ([lock.md](lock.md#exact-pins-for-ci-floating-pin)).",
    {
        "files": KeyDoc(
            "list of globs",
            "requirement files whose requirements must be exact pins (`-r`/`-c` includes followed)",
            "`[]` (the rule is quiet until configured)",
        ),
        "pyproject": KeyDoc(
            "list of list names",
            "dependency lists of `pyproject.toml`: `project.dependencies`, "
            "`optional-dependencies.NAME`, `dependency-groups.NAME` (`NAME` may be `*`)",
        ),
    },
)


register_section("floating-pin", FloatingPinConfig)
