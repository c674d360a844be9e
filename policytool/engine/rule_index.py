# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Generated from the rule modules by ``python -m policytool.engine.docs docs/rules``; do not edit.

Rule id -> (its module under ``policytool.rules``, its group).
"""

RULE_INDEX: dict[str, tuple[str, str]] = {
    "spdx-header": ("spdx_header", "source"),
    "forbidden-import": ("forbidden_import", "source"),
    "torch-cuda": ("torch_cuda", "source"),
    "stale-allow": ("stale_allow", "source"),
    "floating-pin": ("floating_pin", "lock"),
    "lock-stale": ("lock_stale", "lock"),
    "lock-skew": ("lock_skew", "lock"),
    "precommit-config": ("precommit_config", "repo"),
    "precommit-final-hook": ("precommit_final_hook", "repo"),
    "precommit-default-stages": ("precommit_default_stages", "repo"),
    "precommit-manual-only": ("precommit_manual_only", "repo"),
    "precommit-required": ("precommit_required", "repo"),
    "precommit-rev": ("precommit_rev", "repo"),
    "ci-hook-stage": ("ci_hook_stage", "repo"),
    "mypy-wired": ("mypy_wired", "repo"),
    "codeql-workflow": ("codeql_workflow", "repo"),
    "mergify-drift": ("mergify_drift", "repo"),
    "ci-floating-install": ("ci_floating_install", "ci"),
    "action-pin": ("action_pin", "ci"),
    "kwargs-lookup": ("kwargs_lookup", "sweep"),
    "broad-except": ("broad_except", "sweep"),
    "any-annotation": ("any_annotation", "sweep"),
    "hot-copy": ("hot_copy", "sweep"),
    "async-blocking": ("async_blocking", "sweep"),
}
