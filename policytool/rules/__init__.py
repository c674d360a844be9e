# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The policy rules: a module a rule, named after its id, registering it on import.

Modules named ``_x`` hold what several rules share (``_sweep_rules`` still holds the five
sweep rules).
"""
