# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Generated from the rule modules by ``python -m policytool.engine.docs docs/rules``; do not edit.

Rule id -> (its module under ``policytool.rules``, its group); config table ->
the module declaring its section, in the order docs/config.md lists them.
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
SECTION_INDEX: dict[str, str] = {
    "spdx": "policytool.rules._source_config",
    "forbidden-import": "policytool.rules._source_config",
    "torch-cuda": "policytool.rules._source_config",
    "pre-commit": "policytool.rules._repo_config",
    "mergify": "policytool.rules._repo_config",
    "ci": "policytool.rules._repo_config",
    "floating-pin": "policytool.rules._lock_config",
    "ci-floating-install": "policytool.rules._ci_config",
    "action-pin": "policytool.rules._ci_config",
    "lock": "policytool.engine.lock_config",
    "sweep": "policytool.rules._sweep_config",
    "bump-group": "policytool.engine.lock_config",
}
