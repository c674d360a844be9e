# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Register the five ``policytool sweep`` pattern ids so ``policytool rules`` lists them."""

from __future__ import annotations

from policytool.engine.registry import RuleInfo, register_info
from policytool.sweep.catalog import PATTERNS

for _pattern in PATTERNS:
    register_info(RuleInfo(_pattern.id, _pattern.summary, command="sweep"))
