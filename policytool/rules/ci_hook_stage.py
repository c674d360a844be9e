# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``ci-hook-stage``: every GitHub workflow step that runs pre-commit (``pre-commit run
...`` in a ``run:`` script, or ``pre-commit/action`` with its ``extra_args``) uses
``--all-files`` and, when the config has manual-stage hooks, ``--hook-stage manual``;
every id in a ``SKIP`` list is a hook of the config and has a reason in
``[tool.policytool.ci] skip-reasons``.

Workflows that do not parse (or are not mappings) are ``ci-hook-stage`` findings.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from policytool.config import Config, key_place
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.formats.gha import (
    WORKFLOW_DIR,
    pr_gate,
    triggers_of,
    workflow_paths,
)
from policytool.formats.precommit import MANUAL, Hook, Model
from policytool.formats.precommit_run import (
    CiScan,
    PreCommitStep,
    manual_stage_meaning,
    scan_ci,
)
from policytool.formats.yamldoc import key_line
from policytool.rules._ci_scan import broken_findings
from policytool.rules._precommit_model import usable_model
from policytool.rules._repo_config import CiConfig, PreCommitConfig

RULE_ID = "ci-hook-stage"
SUMMARY = (
    "CI runs pre-commit so it can fail: on all files, for PRs, at the manual stage where "
    "CI owns it; every skipped hook exists"
)


def _names(hooks: Sequence[Hook]) -> str:
    return ", ".join(h.id for h in hooks[:4]) + (", ..." if len(hooks) > 4 else "")


def _shown(step: PreCommitStep) -> str:
    return f"`{step.command.text}`" + (f" (run by `{step.via}`)" if step.via else "")


def _step_findings(step: PreCommitStep, model: Model) -> Iterator[Finding]:
    """A step that names an unknown hook, sees no files, never runs or cannot fail."""
    command = step.command
    shown = _shown(step)

    def finding(message: str) -> Finding:
        return Finding(step.relpath, step.line, 1, RULE_ID, message)

    def in_command(message: str) -> Finding:
        """A finding about the command's own text: where it is written (a Makefile's
        recipe line), naming the workflow step that runs it."""
        if step.origin is None:
            return finding(message)
        path, line = step.origin
        return Finding(
            path,
            line,
            1,
            RULE_ID,
            message.replace(f"`{step.via}`)", f"`{step.via}` in {step.relpath}:{step.line})", 1),
        )

    if command.hook is not None and not command.unknown and command.hook not in model.ids():
        yield in_command(f"{shown} names hook '{command.hook}', which is not in {model.relpath}")
    if not (command.all_files or command.scoped or command.unknown):
        yield in_command(
            f"{shown} runs only on staged files, which CI has none of; pass `--all-files` "
            "(or `--from-ref`/`--to-ref`)"
        )
    if step.never_runs is not None:
        yield finding(f"{shown} never runs: {step.never_runs} on job '{step.job}'")
    elif step.cannot_fail is not None and not step.fixer:
        swallowed = step.cannot_fail == command.swallowed
        report = in_command if swallowed else finding
        yield report(f"{shown} cannot fail the check: {step.cannot_fail}")


def _skip_findings(
    relpath: str, hook_id: str, line: int, what: str, model: Model, config: Config
) -> Iterator[Finding]:
    reasons = config.section(CiConfig).skip_reasons
    if hook_id not in model.ids():
        yield Finding(
            relpath,
            line,
            1,
            RULE_ID,
            f"{what} names '{hook_id}', which is not a hook in {model.relpath}",
        )
    elif reasons is not None and hook_id not in reasons:
        yield Finding(
            relpath,
            line,
            1,
            RULE_ID,
            f"hook '{hook_id}' is skipped in CI without a recorded reason; add it to "
            "[tool.policytool.ci] skip-reasons",
        )


def _manual_findings(scan: CiScan, model: Model, root: Path) -> Iterator[Finding]:
    """Manual-stage hooks (which CI is meant to run here) that no CI step runs."""
    manual = model.manual_hooks()
    live = [s for s in scan.steps if s.never_runs is None]
    staged = [
        s
        for s in live
        if (s.command.stage == MANUAL or s.command.unknown)
        and (s.command.all_files or s.command.scoped or s.command.unknown)
    ]
    missed = [h for h in manual if not any(s.command.hook in (None, h.id) for s in staged)]
    if not missed:
        return
    whole = [
        s
        for s in live
        if s.command.hook is None
        and not s.command.unknown
        and s.command.stage != MANUAL
        and not s.fixer
    ]
    for step in whole:
        yield Finding(
            step.relpath,
            step.line,
            1,
            RULE_ID,
            f"{_shown(step)} lacks `--hook-stage manual`, so the manual-stage hooks "
            f"({_names(missed)}) never run in CI",
        )
    if not whole and workflow_paths(root):
        yield Finding(
            model.relpath,
            missed[0].line,
            1,
            RULE_ID,
            f"manual-stage hooks ({_names(missed)}) never run: no workflow in "
            f"{WORKFLOW_DIR} runs `pre-commit run --all-files --hook-stage manual` (if "
            'they are opt-in, set [tool.policytool.pre-commit] manual-stage = "opt-in")',
        )


def _trigger_findings(scan: CiScan, precommit: Model, root: Path) -> Iterator[Finding]:
    """Workflows running pre-commit of which none runs for every pull request."""
    if precommit.uses_precommit_ci or not scan.docs:
        return
    gates = [pr_gate(doc, root) for doc, _jobs in scan.docs]
    if "all" in gates:
        yield from _queue_only(scan, root)
        return
    for (doc, _jobs), gate in zip(scan.docs, gates, strict=True):
        events = ", ".join(triggers_of(doc)) or "nothing"
        where = (
            " (for pull requests only on some `paths:`)"
            if gate == "paths"
            else " (and no workflow calling it runs for pull requests)"
            if "workflow_call" in triggers_of(doc)
            else ""
        )
        yield Finding(
            doc.relpath,
            key_line(doc.data, "on", 1),
            1,
            RULE_ID,
            f"this workflow runs pre-commit on {events}{where} but no workflow runs it for "
            f"{'every pull request' if gate == 'paths' else 'pull requests'} (`pull_request` "
            "or `merge_group`), so nothing gates a PR on it",
        )


def _queue_only(scan: CiScan, root: Path) -> Iterator[Finding]:
    """Workflows that run pre-commit in the merge queue but not on pull requests, while no
    workflow runs it on every pull request: the queue still gates, but an author sees
    no result before queueing (and a required check that never reports on the pull
    request keeps it out of the queue). GitHub's merge-queue setup triggers a required
    check on both ``pull_request`` and ``merge_group``."""
    on_prs = [pr_gate(doc, root, queue=False) for doc, _jobs in scan.docs]
    if "all" in on_prs:
        return
    for (doc, _jobs), gate in zip(scan.docs, on_prs, strict=True):
        events = triggers_of(doc)
        if gate is not None or "merge_group" not in events or "workflow_call" in events:
            continue
        yield Finding(
            doc.relpath,
            key_line(doc.data, "on", 1),
            1,
            RULE_ID,
            f"this workflow runs pre-commit on {', '.join(events)}: in the merge queue but "
            "not on pull requests (no `pull_request` trigger), and no workflow runs it on "
            "every pull request, so an author sees no pre-commit result before queueing; "
            "add `pull_request` next to `merge_group`",
        )


def check_hook_stage(ctx: RepoContext) -> Iterator[Finding]:
    """CI runs pre-commit on every file, for PRs, able to fail; skips are known hooks."""
    config = ctx.config
    scan = scan_ci(ctx.root)
    found: list[Finding] = list(broken_findings(scan.problems, RULE_ID))
    model = usable_model(config)
    if model is not None:
        for step in scan.steps:
            found += _step_findings(step, model)
        skipped: set[str] = set()
        for step in scan.steps:
            for hook_id, line in step.skip:
                skipped.add(hook_id)
                found += _skip_findings(step.relpath, hook_id, line, "SKIP", model, config)
        for hook_id, line in model.ci_skip():
            skipped.add(hook_id)
            found += _skip_findings(
                model.relpath, hook_id, line, "pre-commit.ci's `ci: skip:`", model, config
            )
        meaning = manual_stage_meaning(
            config.section(PreCommitConfig).manual_stage, model.default_stages, scan
        )
        if meaning == "ci":
            found += _manual_findings(scan, model, ctx.root)
        found += _trigger_findings(scan, model, ctx.root)
        reasons = config.section(CiConfig).skip_reasons or {}
        if scan.steps or model.ci_skip():
            for hook_id in reasons:
                if hook_id not in skipped:
                    path, line = key_place(
                        config, ("tool", "policytool", "ci", "skip-reasons", hook_id)
                    )
                    found.append(
                        Finding(
                            path,
                            line,
                            1,
                            RULE_ID,
                            f"skip-reasons explains '{hook_id}' but no workflow skips it; "
                            "remove the entry",
                        )
                    )
    seen: set[tuple[str, int, str]] = set()
    for finding in found:
        key = (finding.path, finding.line, finding.message)
        if key not in seen:
            seen.add(key)
            yield finding


def _triggers(config: Config) -> Sequence[str]:
    return (
        f"{WORKFLOW_DIR}/*",
        config.section(PreCommitConfig).file,
        "pyproject.toml",
        "tox.ini",
        "tox.toml",
        "Makefile",
        "makefile",
        "GNUmakefile",
    )


DOC = """\
## What it checks

How CI runs pre-commit. Every step that does, in every workflow: `pre-commit run` or
`prek run` in a `run:` script (also `python -m pre_commit`, `uvx pre-commit`),
`pre-commit/action` and `j178/prek-action` (their `extra_args`), `tox -e ENV` (or
`tox -m LABEL`, through tox's `labels`) whose environment's `commands` (tox.ini,
tox.toml, `[tool.tox]`) run pre-commit, and `make TARGET` whose recipe (the Makefile's,
prerequisites first) does.
`${{ matrix.x }}` is expanded over the job's matrix; any other `${{ }}` value is known
only at run time and is never read as a hook name or a stage.

- a named hook exists in the config;
- the run sees files: `--all-files` (or `--from-ref`/`--to-ref`/`--files`), since CI has
  no staged files;
- the step can fail the check: no `|| true` / `|| echo ...` after it, no pipe without
  `pipefail` (GitHub's default `bash -e` has none; `shell: bash` has it), no
  `continue-on-error: true` (unless a later step of the job fails on it: `if:
  steps.ID.outcome == 'failure'` with `run: exit 1`, as fastapi does to push the
  fixes first), and it runs at all (no `if: false` on the step or job); a step in a job
  that later commits its changes (`git commit`, an auto-commit action: an autofix or
  dependency bot) fixes files rather than checks them, and may swallow;
- some workflow that runs pre-commit is triggered for every pull request
  (`pull_request` without `paths:`, `pull_request_target`, `merge_group`, or
  `workflow_call` from a local workflow that is; a reusable workflow no local workflow
  calls counts as called for every PR), unless pre-commit.ci runs it (a `ci:` section in
  the config);
- a workflow that runs pre-commit in the merge queue (`merge_group`) also runs it on pull
  requests (`pull_request`), unless another workflow runs it on every pull request: a
  queue-only check still gates, but the author sees no result before queueing, and a
  required check that never reports on the pull request keeps it out of the queue
  (GitHub's merge-queue setup triggers a required check on both events);
- every id in a `SKIP` (env or inline) and in pre-commit.ci's `ci: skip:` is a hook;
- when the manual stage means "run in CI" here, every manual-stage hook is run by some CI
  step (`--hook-stage manual`);
- with `[tool.policytool.ci] skip-reasons` set: every skipped hook has a reason there,
  and every reason is for a hook CI still skips.

What the manual stage means is the repo's choice: `manual-stage = "ci"` (vLLM) or
`"opt-in"` (pytest: hooks run on request only). Not set: "ci" when a workflow already
runs `--hook-stage manual` or `default_stages` lists manual, else "opt-in".

## Why

Each of these turns the pre-commit check green while it checks nothing: a hook renamed in
the config but not in the workflow, a run on zero files, a swallowed exit status, a
workflow that never runs for PRs, mypy at the manual stage with CI never passing
`--hook-stage manual`.

## Example

```yaml
      - run: pre-commit run --all-files --show-diff-on-failure || true
```

```text
.github/workflows/pre-commit.yml:21:1: ci-hook-stage `pre-commit run --all-files \
--show-diff-on-failure` cannot fail the check: `|| true` swallows its failure
```

## Fix

Edit the workflow as the finding says. `policytool fix` does not edit workflows.

## Configuration

`[tool.policytool.pre-commit] manual-stage` (`"ci"` or `"opt-in"`),
`[tool.policytool.ci] skip-reasons` (hook id -> reason; not set: skips need no reason).
"""


register(
    RepoRule(
        id=RULE_ID,
        summary=SUMMARY,
        check=check_hook_stage,
        triggers=_triggers,
        doc=DOC,
        group="repo",
        config=("pre-commit", "ci"),
    )
)
