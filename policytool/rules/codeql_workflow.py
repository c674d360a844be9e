# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``codeql-workflow``: some workflow runs ``github/codeql-action`` init and analyze
for Python with ``build-mode: none`` on push and pull_request to the default branch and
on a schedule, with ``security-events: write`` (or the repo says GitHub's default setup
scans it).

Workflows that may run CodeQL and do not parse are ``codeql-workflow`` findings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from policytool.config import Config, key_place
from policytool.core.git import run_git
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import PolicyError
from policytool.formats.gha import (
    WORKFLOW_DIR,
    Job,
    Step,
    load_workflows,
    model,
    triggers_of,
    workflow_paths,
)
from policytool.formats.matrix import UNKNOWN, resolve
from policytool.formats.yamldoc import YamlDoc, key_line
from policytool.rules._ci_scan import broken_findings
from policytool.rules._repo_config import CiConfig

RULE_ID = "codeql-workflow"
SUMMARY = "CodeQL scans python as the repo chose: a working workflow, or GitHub's default setup"

CODEQL_ACTION = "github/codeql-action"
# What CodeQL's upload needs in every repo; ``contents: read`` and ``actions: read`` are
# needed in private repos only (GitHub's CodeQL starter workflow says so), so not asked.
PERMISSIONS = {"security-events": "write"}


def default_branch(config: Config) -> str:
    """The branch CodeQL must cover: configured, origin's HEAD, or ``main``."""
    configured = config.section(CiConfig).default_branch
    if configured:
        return configured
    try:
        proc = run_git(
            config.root, ["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"]
        )
    except PolicyError:  # no git: the default
        return "main"
    name = proc.stdout.decode("utf-8", "replace").strip()
    return name.split("/", 1)[1] if proc.returncode == 0 and "/" in name else "main"


def _branch_glob(pattern: str) -> re.Pattern[str]:
    out = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(out) + r"\Z")


def _event_covers(event: object, branch: str) -> bool:
    """Whether an ``on.push`` / ``on.pull_request`` value includes ``branch``."""
    if event is None:
        return True
    if not isinstance(event, dict):
        return False
    branches = event.get("branches")
    ignored = event.get("branches-ignore")
    if isinstance(ignored, list) and any(_branch_glob(str(p)).match(branch) for p in ignored):
        return False
    if branches is None:
        return True
    if isinstance(branches, str):
        branches = [branches]
    positive = [str(p) for p in branches if not str(p).startswith("!")]
    negative = [str(p)[1:] for p in branches if str(p).startswith("!")]
    return any(_branch_glob(p).match(branch) for p in positive) and not any(
        _branch_glob(p).match(branch) for p in negative
    )


def _permissions_ok(perms: object) -> list[str]:
    """What the permissions lack (empty when they grant exactly what CodeQL needs)."""
    if perms == "write-all":
        return []
    if not isinstance(perms, dict):
        return [f"{k}: {v}" for k, v in PERMISSIONS.items()]
    missing = []
    for key, want in PERMISSIONS.items():
        have = perms.get(key)
        if want == "write" and have != "write":
            missing.append(f"{key}: write")
        elif want == "read" and have not in ("read", "write"):
            missing.append(f"{key}: read")
    return missing


def _python_rows(
    with_: Mapping[str, object], rows: Sequence[Mapping[str, str]]
) -> list[Mapping[str, str]]:
    """The matrix rows whose ``languages`` include python (or may: a run-time value).

    Without ``languages`` CodeQL detects the repository's languages itself: python
    included in a Python repository.
    """
    if "languages" not in with_:
        return list(rows)
    out = []
    for row in rows:
        text = resolve(with_.get("languages", ""), row)
        languages = {s.strip() for s in text.split(",")}
        if "python" in languages or UNKNOWN in text:
            out.append(row)
    return out


def _codeql_job(doc: YamlDoc, job: Job) -> tuple[bool, bool, list[Finding]]:
    """(runs CodeQL, analyzes python, problems) for one job.

    A job whose ``languages`` name only other languages (``actions``, ``javascript``)
    scans them on purpose: it runs CodeQL, analyzes no python, and has no problem here.
    """
    assert isinstance(doc.data, dict)
    name = job.id
    init: Step | None = None
    analyze: Step | None = None
    for step in job.steps:
        uses = step.uses
        if uses is not None and uses.startswith(CODEQL_ACTION + "/init@"):
            init = step
        if uses is not None and uses.startswith(CODEQL_ACTION + "/analyze@"):
            analyze = step
    if init is None and analyze is None:
        return False, False, []
    job_line = job.line

    def finding(line: int, message: str) -> Finding:
        return Finding(doc.relpath, line, 1, RULE_ID, message)

    python_rows: list[Mapping[str, str]] = []
    with_: Mapping[str, object] = {}
    if init is not None:
        with_ = init.with_
        if job.matrix_problem is not None:
            return True, True, [finding(job.matrix_problem.line, job.matrix_problem.message)]
        python_rows = _python_rows(with_, job.matrix)
        if not python_rows:
            return True, False, []  # another language, scanned on purpose
    if init is None or analyze is None:
        missing = "init" if init is None else "analyze"
        lacks = f"job '{name}' lacks the {CODEQL_ACTION}/{missing} step"
        return True, True, [finding(job_line, lacks)]
    problems: list[Finding] = []
    modes = {resolve(with_.get("build-mode", "none"), row) or "none" for row in python_rows}
    wrong = sorted(m for m in modes if m != "none" and UNKNOWN not in m)
    if wrong and len(wrong) == len(modes):
        problems.append(
            finding(
                init.line,
                f"job '{name}' sets `build-mode: {wrong[0]}` for python, which CodeQL "
                "analyzes without a build (`none`, its default for python)",
            )
        )
    perms = job.node.get("permissions", doc.data.get("permissions"))
    lacking = _permissions_ok(perms)
    if lacking:
        where = (
            key_line(job.node, "permissions")
            if "permissions" in job.node
            else key_line(doc.data, "permissions", job_line)
        )
        problems.append(finding(where, f"job '{name}' needs permissions {', '.join(lacking)}"))
    return True, True, problems


def _codeql_problems(
    doc: YamlDoc, branch: str, triggers_chosen: bool
) -> tuple[bool, bool, list[Finding]]:
    """(runs CodeQL, analyzes python, problems) for one workflow.

    When is a repo's choice: push + pull_request + schedule is asked for only
    when the repo chose ``codeql = "workflow"``.
    """
    assert isinstance(doc.data, dict)
    problems: list[Finding] = []
    uses_codeql = python = False
    for job in model(doc).jobs:
        uses, scans_python, found = _codeql_job(doc, job)
        uses_codeql = uses_codeql or uses
        python = python or scans_python
        problems += found
    if python and triggers_chosen:
        triggers = triggers_of(doc)
        on_line = key_line(doc.data, "on", 1)
        for event in ("push", "pull_request"):
            if event not in triggers or not _event_covers(triggers[event], branch):
                problems.append(
                    Finding(
                        doc.relpath,
                        on_line,
                        1,
                        RULE_ID,
                        f"CodeQL must run on {event} to '{branch}'",
                    )
                )
        schedule = triggers.get("schedule")
        if not isinstance(schedule, list) or not any(
            isinstance(s, dict) and s.get("cron") for s in schedule
        ):
            problems.append(
                Finding(
                    doc.relpath,
                    on_line,
                    1,
                    RULE_ID,
                    "CodeQL must also run on a schedule (`schedule: - cron: ...`)",
                )
            )
    return uses_codeql, python, problems


def _config_place(config: Config, key: str, fallback: str) -> tuple[str, int]:
    """Where a finding about a missing choice goes: the config file (at ``key``), or else."""
    if config.source is None or not config.source.is_file():
        return fallback, 1
    path, line = key_place(config, ("tool", "policytool", "ci", key))
    return (path, line) if key else (path, 1)


def check_codeql(ctx: RepoContext) -> Iterator[Finding]:
    """CodeQL runs for python: by a workflow (python, push, pull_request, a schedule), or by
    GitHub's default setup when the repo says so."""
    paths = workflow_paths(ctx.root)
    if not paths:
        return  # not a GitHub Actions repo
    setup = ctx.config.section(CiConfig).codeql
    workflows = load_workflows(ctx.root, (CODEQL_ACTION.encode(),))
    yield from broken_findings(workflows.broken, RULE_ID)
    branch = default_branch(ctx.config)
    found = bool(workflows.broken)  # a broken CodeQL workflow is reported as such
    for doc in workflows.docs:
        uses, python, problems = _codeql_problems(doc, branch, setup == "workflow")
        found = found or python
        if uses and setup == "default-setup":
            yield Finding(
                doc.relpath,
                1,
                1,
                RULE_ID,
                'this workflow runs CodeQL but [tool.policytool.ci] codeql = "default-setup": '
                "GitHub rejects a workflow's results while default setup is on; remove one",
            )
            continue
        yield from problems
    if found or setup != "workflow":
        return  # not chosen: quiet until the repository opts in (`policytool init` says how)
    path, line = _config_place(ctx.config, "codeql", paths[0])
    yield Finding(
        path,
        line,
        1,
        RULE_ID,
        f'codeql = "workflow" but no workflow in {WORKFLOW_DIR} runs {CODEQL_ACTION} for '
        "python; `policytool init` writes one",
    )


def _triggers(config: Config) -> Sequence[str]:
    return (f"{WORKFLOW_DIR}/*", "pyproject.toml")


DOC = """\
## What it checks

How CodeQL scans the repo's Python, as the repo chose in `[tool.policytool.ci] codeql`:

- `"workflow"`: some workflow runs `github/codeql-action` init and analyze for python, on
  push and pull_request to the default branch and on a schedule;
- `"default-setup"`: GitHub's default CodeQL setup scans the repo, so no workflow is
  needed, and one that runs CodeQL too is a finding (GitHub rejects its results while
  default setup is on);
- not set: a workflow that runs CodeQL for python is checked (but not when it runs: that
  is the repo's choice); without one the rule is quiet until the repo chooses
  (`policytool init` prints how to choose).

Every CodeQL job for python has both steps, does not set a `build-mode` other than `none`
for python (`none` is the default; no explicit value is needed), and has
`security-events: write` (what the upload needs; `contents`/`actions: read` matter in
private repos only). A job whose `languages` name only other languages (`actions`,
`javascript`; matrix values expanded, at most GitHub's 256 jobs) scans them on purpose and
is left alone; a job without `languages` lets CodeQL detect them, python included.

## Why

CodeQL is the semantic security analysis on every PR and on main. A workflow
that lacks the analyze step or the permission runs green and uploads nothing.

## Example

```text
pyproject.toml:2:1: codeql-workflow codeql = "workflow" but no workflow in \
.github/workflows runs github/codeql-action for python; `policytool init` writes one
```

## Fix

Set `codeql` as the finding says; `policytool init` writes a CodeQL workflow that passes.

## Configuration

`[tool.policytool.ci] codeql` (`"workflow"` or `"default-setup"`), `default-branch`
(default: origin's HEAD, else `main`).
"""


register(
    RepoRule(
        id=RULE_ID,
        summary=SUMMARY,
        check=check_codeql,
        triggers=_triggers,
        doc=DOC,
        group="repo",
        config=("ci",),
    )
)
