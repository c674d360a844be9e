# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``precommit-required``: every hook id listed in ``[tool.policytool.pre-commit]
required`` is in the ``.pre-commit-config.yaml``."""

from __future__ import annotations

from collections.abc import Iterator

from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.rules._precommit_model import precommit_triggers, usable_model
from policytool.rules._repo_config import PreCommitConfig

RULE_ID = "precommit-required"
SUMMARY = "every configured required hook id is in .pre-commit-config.yaml"


def check_required(ctx: RepoContext) -> Iterator[Finding]:
    """Every configured required hook id is in the config."""
    required = ctx.config.section(PreCommitConfig).required
    model = usable_model(ctx.config) if required else None
    if model is None:
        return
    ids = model.ids()
    for hook_id in required:
        if hook_id not in ids:
            yield Finding(
                model.relpath,
                model.repos_line,
                1,
                RULE_ID,
                f"required hook '{hook_id}' is missing ([tool.policytool.pre-commit] required)",
            )


DOC = """\
## What it checks

Every hook id listed in `[tool.policytool.pre-commit] required` is in the config. Runs
only when `required` is set.

## Why

A repo's hook set (markdownlint, shellcheck, SPDX, forbidden imports...) is a policy; a
hook dropped in a refactor of the config silently stops checking.

## Example

```text
.pre-commit-config.yaml:9:1: precommit-required required hook 'markdownlint-cli2' is \
missing ([tool.policytool.pre-commit] required)
```

## Fix

Add the hook back (or remove it from `required` if the policy changed).

## Configuration

`[tool.policytool.pre-commit] required` (list of hook ids).
"""


register(
    RepoRule(
        id=RULE_ID,
        summary=SUMMARY,
        check=check_required,
        triggers=precommit_triggers,
        doc=DOC,
        group="repo",
        config=("pre-commit",),
    )
)
