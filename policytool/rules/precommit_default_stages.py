# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``precommit-default-stages``: ``default_stages`` holds the stages the repo chose
(configured, or ``[pre-commit, manual]`` where CI runs ``--hook-stage manual``). The fix
inserts ``default_stages`` above ``repos:`` or adds the missing stages, keeping every
other byte; the engine applies the edit once the re-parsed result has the same hooks and
the stages.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from policytool.config import Config
from policytool.core.text import split_lines
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.formats.gha import WORKFLOW_DIR
from policytool.formats.precommit import DEFAULT_STAGE, MANUAL, Model, normalize_stage
from policytool.formats.precommit_run import scan_ci
from policytool.formats.yamldoc import key_line, key_pos, own_keys
from policytool.formats.yamledit import flow_list, newline_of, set_key
from policytool.rules._precommit_model import applier, config_fix, usable_model
from policytool.rules._repo_config import PreCommitConfig

RULE_ID = "precommit-default-stages"
SUMMARY = (
    "`default_stages` holds the chosen stages ([pre-commit, manual] where CI runs the manual stage)"
)


def _triggers(config: Config) -> Sequence[str]:
    return (
        config.section(PreCommitConfig).file,
        "pyproject.toml",
        f"{WORKFLOW_DIR}/*",
        "tox.ini",
        "tox.toml",
    )


def _missing_default_stages(model: Model, want: Sequence[str]) -> list[str]:
    have = model.default_stages
    if have is None:
        return list(want)
    return [s for s in want if normalize_stage(s) not in have]


def wanted_default_stages(ctx: RepoContext) -> tuple[str, ...]:
    """The stages ``default_stages`` must hold here (empty: the rule has nothing to ask).

    Configured ``default-stages`` win. Without them, [pre-commit, manual] is asked for
    only where the repo has chosen the manual stage as CI's (``manual-stage = "ci"``, or
    a workflow running ``--hook-stage manual``): a repo that runs pre-commit through
    pre-commit.ci, tox or a plain ``pre-commit run --all-files`` has not.
    """
    configured = ctx.config.section(PreCommitConfig).default_stages
    if configured is not None:
        return configured
    if ctx.config.section(PreCommitConfig).manual_stage == "ci" or scan_ci(ctx.root).runs_manual():
        return (DEFAULT_STAGE, MANUAL)
    return ()


def check_default_stages(ctx: RepoContext) -> Iterator[Finding]:
    """``default_stages`` holds every wanted stage."""
    model = usable_model(ctx.config)
    want = wanted_default_stages(ctx) if model is not None else ()
    if model is None or not want:
        return
    missing = _missing_default_stages(model, want)
    if not missing:
        return
    if model.default_stages is None:
        yield Finding(
            model.relpath,
            model.repos_line,
            1,
            RULE_ID,
            f"no `default_stages`; set `default_stages: {flow_list(want)}` so hooks without "
            "`stages` run on commit and in CI's `--hook-stage manual` run, not at every stage",
            fixable=True,
        )
    else:
        yield Finding(
            model.relpath,
            key_line(model.doc.data, "default_stages"),
            1,
            RULE_ID,
            f"`default_stages` lacks {', '.join(missing)} (expected at least {flow_list(want)})",
            fixable=True,
        )


def _with_default_stages(model: Model, want: Sequence[str]) -> str | None:
    """The config text with ``default_stages`` inserted above ``repos:`` or the missing
    stages added to it (None when it cannot be done by a line edit)."""
    lines = split_lines(model.doc.text)
    newline = newline_of(lines)
    data = model.doc.data
    if model.default_stages is None:
        if "default_stages" in own_keys(data):
            return None  # present but not a list: the schema would have said so
        repos_key = key_pos(data, "repos")
        if repos_key is None or repos_key[1] != 0:
            return None
        lines.insert(repos_key[0], f"default_stages: {flow_list(want)}{newline}")
    else:
        missing = _missing_default_stages(model, want)
        stages = [*model.default_stages, *(normalize_stage(s) for s in missing)]
        if not set_key(lines, data, "default_stages", flow_list(stages), newline):
            return None
    return "".join(lines)


def fixes_default_stages(ctx: RepoContext) -> Iterator[Finding]:
    """The finding with the fix inserting ``default_stages`` above ``repos:`` or adding
    the missing stages to it (verified: same hooks, no wanted stage missing)."""
    model = usable_model(ctx.config)
    want = wanted_default_stages(ctx) if model is not None else ()
    for finding in check_default_stages(ctx):
        text = _with_default_stages(model, want) if model and finding.fixable else None
        if model is not None and text is not None:
            described = f"set `default_stages: {flow_list(want)}`"
            fix = config_fix(
                model, text, described, lambda new: not _missing_default_stages(new, want)
            )
            yield replace(finding, fix=fix)


# ``fixes_default_stages`` applied outside a run (the engine writes); the paths changed.
fix_default_stages = applier(fixes_default_stages)


DOC = """\
## What it checks

`default_stages` holds the wanted stages:

- the configured `[tool.policytool.pre-commit] default-stages`, or
- when not configured, `[pre-commit, manual]` where the repo runs the manual stage in CI
  (a workflow runs `pre-commit run --hook-stage manual`, directly, through
  `pre-commit/action`, prek or a tox environment; or `manual-stage = "ci"`).

A repo that runs pre-commit through pre-commit.ci, tox or a plain `pre-commit run
--all-files` has made no such choice: the rule says nothing there.

## Why

vLLM's pattern: hooks without `stages` run on commit and in CI's `--hook-stage manual`
run; `stages: [manual]` hooks (mypy) run in CI only. Without `default_stages`, every hook
without `stages` also runs at every other installed stage (commit-msg, pre-push).

## Example

```text
.pre-commit-config.yaml:4:1: precommit-default-stages no `default_stages`; set \
`default_stages: [pre-commit, manual]` so hooks without `stages` run on commit and in \
CI's `--hook-stage manual` run, not at every stage
```

## Fix

`policytool fix` inserts `default_stages` above `repos:` or adds the missing stages to it
(legacy names are normalised), keeping comments.

## Configuration

`[tool.policytool.pre-commit] default-stages` (list; not set: decided from CI as above;
`[]` turns the rule off), `manual-stage`.
"""


register(
    RepoRule(
        id=RULE_ID,
        summary=SUMMARY,
        check=check_default_stages,
        triggers=_triggers,
        fixes=fixes_default_stages,
        doc=DOC,
        group="repo",
        config=("pre-commit",),
    )
)
