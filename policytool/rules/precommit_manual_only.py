# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``precommit-manual-only``: the hooks listed in ``[tool.policytool.pre-commit]
manual-only`` have exactly ``stages: [manual]``, and no other hook runs only at the
manual stage. The fix sets ``stages: [manual]`` on the listed hooks; the engine applies
it once the re-parsed result has the same hooks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from policytool.core.text import split_lines
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.formats.precommit import MANUAL, Model
from policytool.formats.yamledit import newline_of, set_key
from policytool.rules._precommit_model import applier, config_fix, precommit_triggers, usable_model
from policytool.rules._repo_config import PreCommitConfig

RULE_ID = "precommit-manual-only"
SUMMARY = "configured hooks have `stages: [manual]` and no other hook is manual-only"


def check_manual_only(ctx: RepoContext) -> Iterator[Finding]:
    """Configured hooks run only at the manual stage; no other hook does."""
    wanted = ctx.config.section(PreCommitConfig).manual_only
    model = usable_model(ctx.config) if wanted else None
    if model is None:
        return
    for hook_id in wanted:
        hooks = model.find(hook_id)
        if not hooks:
            yield Finding(
                model.relpath,
                model.repos_line,
                1,
                RULE_ID,
                f"manual-only hook '{hook_id}' ([tool.policytool.pre-commit] manual-only) "
                "is not in the config",
            )
        for hook in hooks:
            stages = model.stages_of(hook)
            if stages != (MANUAL,):
                runs = "every stage" if stages is None else ", ".join(stages)
                yield Finding(
                    model.relpath,
                    hook.line,
                    1,
                    RULE_ID,
                    f"hook '{hook_id}' must have `stages: [manual]` (CI only) but runs at {runs}",
                    fixable=True,
                )
    for hook in model.manual_hooks():
        if hook.id not in wanted:
            yield Finding(
                model.relpath,
                hook.line,
                1,
                RULE_ID,
                f"hook '{hook.id}' never runs on commit "
                f"(stages: {', '.join(model.stages_of(hook) or ())}); "
                "list it in [tool.policytool.pre-commit] manual-only if that is intended",
            )


def _with_manual_stages(model: Model, wanted: Sequence[str]) -> str:
    """The config text with ``stages: [manual]`` on every listed hook lacking it."""
    lines = split_lines(model.doc.text)
    newline = newline_of(lines)
    # Bottom-up so earlier line numbers stay valid.
    targets = [h for h in model.hooks if h.id in wanted and model.stages_of(h) != (MANUAL,)]
    for hook in sorted(targets, key=lambda h: h.line, reverse=True):
        set_key(lines, hook.node, "stages", f"[{MANUAL}]", newline, after_key="id")
    return "".join(lines)


def fixes_manual_only(ctx: RepoContext) -> Iterator[Finding]:
    """The first fixable finding, with the one fix giving every listed hook
    ``stages: [manual]`` (one edit of the config, verified: same hooks)."""
    first = next((f for f in check_manual_only(ctx) if f.fixable), None)
    model = usable_model(ctx.config) if first is not None else None
    if first is not None and model is not None:
        text = _with_manual_stages(model, ctx.config.section(PreCommitConfig).manual_only)
        yield replace(first, fix=config_fix(model, text, "set `stages: [manual]`"))


# ``fixes_manual_only`` applied outside a run (the engine writes); the paths changed.
fix_manual_only = applier(fixes_manual_only)


DOC = """\
## What it checks

Each hook listed in `[tool.policytool.pre-commit] manual-only` exists and has exactly
`stages: [manual]`, and no other hook runs only at the manual stage. Runs only when
`manual-only` is set.

## Why

A slow hook (mypy) meant for CI only that loses its `stages` runs on every commit; a hook
that lands with `stages: [manual]` by mistake never runs on commit.

## Example

```text
.pre-commit-config.yaml:20:1: precommit-manual-only hook 'mypy-3.10' must have \
`stages: [manual]` (CI only) but runs at every stage
```

## Fix

`policytool fix` sets `stages: [manual]` on the listed hooks (after their `id`); a hook
that is manual-only by intent is added to the list by hand.

## Configuration

`[tool.policytool.pre-commit] manual-only` (list of hook ids; empty: the rule does not
run).
"""


register(
    RepoRule(
        id=RULE_ID,
        summary=SUMMARY,
        check=check_manual_only,
        triggers=precommit_triggers,
        fixes=fixes_manual_only,
        doc=DOC,
        group="repo",
        config=("pre-commit",),
    )
)
