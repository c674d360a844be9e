# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""CI wiring: the pre-commit workflow, mypy and CodeQL.

``ci-hook-stage``: every GitHub workflow step that runs pre-commit (``pre-commit run
...`` in a ``run:`` script, or ``pre-commit/action`` with its ``extra_args``) uses
``--all-files`` and, when the config has manual-stage hooks, ``--hook-stage manual``;
every id in a ``SKIP`` list is a hook of the config and has a reason in
``[tool.policytool.ci] skip-reasons``. ``mypy-wired``: a mypy configuration is used
by some hook or workflow step, and a hook that runs mypy has a configuration.
``codeql-workflow``: some workflow runs ``github/codeql-action`` init and analyze for
Python with ``build-mode: none`` on push and pull_request to the default branch and
on a schedule, with ``security-events: write``, ``contents: read``, ``actions: read``.

Workflows that do not parse (or are not mappings) are ``ci-hook-stage`` findings.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

from policytool.config import Config, key_place
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import FileProblem, PolicyError
from policytool.files import read_bounded, resolve_inside, split_lines
from policytool.formats import toml
from policytool.formats.precommit import MANUAL, Hook, Model, usable_model
from policytool.formats.tox import nox_programs
from policytool.formats.workflows import (
    PR_EVENTS,
    UNKNOWN,
    WORKFLOW_DIR,
    CiScan,
    PreCommitStep,
    jobs,
    load_workflows,
    manual_stage_meaning,
    matrix_rows,
    program_of,
    resolve,
    scan_ci,
    steps,
    tokens,
    triggers_of,
    workflow_commands,
    workflow_paths,
)
from policytool.formats.yamldoc import YamlDoc, key_line

HOOK_STAGE_RULE = "ci-hook-stage"
MYPY_RULE = "mypy-wired"
CODEQL_RULE = "codeql-workflow"

# --- ci-hook-stage --------------------------------------------------------------------


def _broken(problems: Sequence[FileProblem], rule: str) -> Iterator[Finding]:
    """Workflows that cannot be read, as findings of ``rule``."""
    for problem in problems:
        yield Finding(problem.relpath, problem.line, 1, rule, problem.message)


def _names(hooks: Sequence[Hook]) -> str:
    return ", ".join(h.id for h in hooks[:4]) + (", ..." if len(hooks) > 4 else "")


def _shown(step: PreCommitStep) -> str:
    return f"`{step.command.text}`" + (f" (run by `{step.via}`)" if step.via else "")


def _step_findings(step: PreCommitStep, model: Model) -> Iterator[Finding]:
    """A step that names an unknown hook, sees no files, never runs or cannot fail."""
    command = step.command
    shown = _shown(step)

    def finding(message: str) -> Finding:
        return Finding(step.relpath, step.line, 1, HOOK_STAGE_RULE, message)

    if command.hook is not None and not command.unknown and command.hook not in model.ids():
        yield finding(f"{shown} names hook '{command.hook}', which is not in {model.relpath}")
    if not (command.all_files or command.scoped or command.unknown):
        yield finding(
            f"{shown} runs only on staged files, which CI has none of; pass `--all-files` "
            "(or `--from-ref`/`--to-ref`)"
        )
    if step.never_runs is not None:
        yield finding(f"{shown} never runs: {step.never_runs} on job '{step.job}'")
    elif step.cannot_fail is not None:
        yield finding(f"{shown} cannot fail the check: {step.cannot_fail}")


def _skip_findings(
    relpath: str, hook_id: str, line: int, what: str, model: Model, config: Config
) -> Iterator[Finding]:
    reasons = config.ci.skip_reasons
    if hook_id not in model.ids():
        yield Finding(
            relpath,
            line,
            1,
            HOOK_STAGE_RULE,
            f"{what} names '{hook_id}', which is not a hook in {model.relpath}",
        )
    elif reasons is not None and hook_id not in reasons:
        yield Finding(
            relpath,
            line,
            1,
            HOOK_STAGE_RULE,
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
        if s.command.hook is None and not s.command.unknown and s.command.stage != MANUAL
    ]
    for step in whole:
        yield Finding(
            step.relpath,
            step.line,
            1,
            HOOK_STAGE_RULE,
            f"{_shown(step)} lacks `--hook-stage manual`, so the manual-stage hooks "
            f"({_names(missed)}) never run in CI",
        )
    if not whole and workflow_paths(root):
        yield Finding(
            model.relpath,
            missed[0].line,
            1,
            HOOK_STAGE_RULE,
            f"manual-stage hooks ({_names(missed)}) never run: no workflow in "
            f"{WORKFLOW_DIR} runs `pre-commit run --all-files --hook-stage manual` (if "
            'they are opt-in, set [tool.policytool.pre-commit] manual-stage = "opt-in")',
        )


def _trigger_findings(scan: CiScan, model: Model) -> Iterator[Finding]:
    """Workflows running pre-commit of which none runs for pull requests."""
    if model.uses_precommit_ci or not scan.docs:
        return
    if any(set(triggers_of(doc)) & PR_EVENTS for doc, _jobs in scan.docs):
        return
    for doc, _jobs in scan.docs:
        events = ", ".join(triggers_of(doc)) or "nothing"
        yield Finding(
            doc.relpath,
            key_line(doc.data, "on", 1),
            1,
            HOOK_STAGE_RULE,
            f"this workflow runs pre-commit on {events} but no workflow runs it for pull "
            "requests (`pull_request` or `merge_group`), so nothing gates a PR on it",
        )


def check_hook_stage(ctx: RepoContext) -> Iterator[Finding]:
    """CI runs pre-commit on every file, for PRs, able to fail; skips are known hooks."""
    config = ctx.config
    scan = scan_ci(ctx.root)
    found: list[Finding] = list(_broken(scan.problems, HOOK_STAGE_RULE))
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
        meaning = manual_stage_meaning(config.pre_commit.manual_stage, model.default_stages, scan)
        if meaning == "ci":
            found += _manual_findings(scan, model, ctx.root)
        found += _trigger_findings(scan, model)
        reasons = config.ci.skip_reasons or {}
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
                            HOOK_STAGE_RULE,
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


# --- mypy-wired -------------------------------------------------------------------------

_MYPY_PROGRAMS = frozenset({"mypy", "dmypy"})


def command_runs_mypy(words: Sequence[str]) -> bool:
    """Whether a command (launchers already dropped, see ``program_of``) runs mypy.

    ``mypy src``, ``dmypy run``, ``python tools/mypy.py`` and ``tools/mypy.sh`` do;
    ``cp .github/workflows/matchers/mypy.json`` or an ``echo`` mentioning mypy does not.
    """
    if not words:
        return False
    program = words[0].rsplit("/", 1)[-1]
    if program in _MYPY_PROGRAMS:
        return True
    if "/" in words[0] and Path(program).stem == "mypy":
        return True
    if program in ("python", "python3", "bash", "sh"):
        script = next((w for w in words[1:] if not w.startswith("-")), "")
        return Path(script).stem == "mypy" and script.endswith((".py", ".sh"))
    return False


def runs_mypy(hook: Hook) -> bool:
    """Whether a hook runs mypy: its id, the mirrors-mypy repo, or its entry's program."""
    if "mypy" in hook.id or hook.repo.rstrip("/").endswith("mirrors-mypy"):
        return True
    return command_runs_mypy(program_of(tokens(hook.text("entry"))))


def mypy_config(root: Path) -> tuple[str, int] | None:
    """(path, line) of the repo's mypy configuration, if any."""
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            text, data = toml.load_file(pyproject, "pyproject.toml")
        except PolicyError:
            data = {}
            text = ""
        tool = data.get("tool")
        if isinstance(tool, dict) and "mypy" in tool:
            for number, line in enumerate(split_lines(text, keepends=False), start=1):
                if line.strip().startswith(("[tool.mypy", "[[tool.mypy")):
                    return "pyproject.toml", number
            return "pyproject.toml", 1
    for name in ("mypy.ini", ".mypy.ini"):
        if (root / name).is_file():
            return name, 1
    setup_cfg = root / "setup.cfg"
    if setup_cfg.is_file():
        try:
            raw = read_bounded(resolve_inside(root, "setup.cfg", "setup.cfg"), "setup.cfg")
            lines = split_lines(raw.decode("utf-8"), keepends=False)
        except (PolicyError, UnicodeDecodeError):
            lines = []
        for number, line in enumerate(lines, start=1):
            if line.strip() == "[mypy]":
                return "setup.cfg", number
    return None


def _config_file_arg(args: Sequence[str]) -> str | None:
    for index, arg in enumerate(args):
        if arg.startswith("--config-file="):
            return arg.split("=", 1)[1]
        if arg == "--config-file" and index + 1 < len(args):
            return args[index + 1]
    return None


def check_mypy(ctx: RepoContext) -> Iterator[Finding]:
    """A mypy configuration is used, and what runs mypy has one."""
    config_at = mypy_config(ctx.root)
    model = usable_model(ctx.config)
    mypy_hooks = []
    if model is not None:
        for hook in model.hooks:
            if runs_mypy(hook):
                mypy_hooks.append(hook)
    for hook in mypy_hooks:
        explicit = _config_file_arg(hook.text_list("args") + tokens(hook.text("entry")))
        assert model is not None
        if explicit is not None:
            if not (ctx.root / explicit).is_file():
                yield Finding(
                    model.relpath,
                    hook.line,
                    1,
                    MYPY_RULE,
                    f"hook '{hook.id}' passes --config-file {explicit}, which does not exist",
                )
        elif config_at is None:
            yield Finding(
                model.relpath,
                hook.line,
                1,
                MYPY_RULE,
                f"hook '{hook.id}' runs mypy but the repo has no mypy configuration "
                "([tool.mypy] in pyproject.toml or mypy.ini), so it checks with defaults",
            )
    if config_at is None or mypy_hooks:
        return
    nox_mypy: bool | None = None
    for doc in load_workflows(ctx.root, (b"mypy", b"tox", b"nox")).docs:
        for _line, words, _via in workflow_commands(doc, ctx.root):
            if command_runs_mypy(words):
                return
            if words and words[0].rsplit("/", 1)[-1] == "nox":
                if nox_mypy is None:
                    nox_mypy = bool(nox_programs(ctx.root) & _MYPY_PROGRAMS)
                if nox_mypy:
                    return  # a nox session runs mypy (which ones CI runs may be run-time only)
    path, line = config_at
    yield Finding(
        path,
        line,
        1,
        MYPY_RULE,
        "a mypy configuration exists but no pre-commit hook or workflow step runs mypy; add a hook "
        "(e.g. with `stages: [manual]` so CI runs it)",
    )


# --- codeql-workflow ------------------------------------------------------------------

CODEQL_ACTION = "github/codeql-action"
# What CodeQL's upload needs in every repo; ``contents: read`` and ``actions: read`` are
# needed in private repos only (GitHub's CodeQL starter workflow says so), so not asked.
PERMISSIONS = {"security-events": "write"}


def default_branch(config: Config) -> str:
    """The branch CodeQL must cover: configured, origin's HEAD, or ``main``."""
    if config.ci.default_branch:
        return config.ci.default_branch
    try:
        proc = subprocess.run(
            ["git", "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"],
            cwd=config.root,
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        return "main"
    name = proc.stdout.strip()
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


def _python_rows(with_: dict[str, object], rows: Sequence[dict[str, str]]) -> list[dict[str, str]]:
    """The matrix rows whose ``languages`` include python (or may: a run-time value)."""
    out = []
    for row in rows:
        text = resolve(with_.get("languages", ""), row)
        languages = {s.strip() for s in text.split(",")}
        if "python" in languages or UNKNOWN in text:
            out.append(row)
    return out


def _codeql_job(doc: YamlDoc, name: str, job: dict[str, object]) -> tuple[bool, list[Finding]]:
    """(runs CodeQL, problems) for one job."""
    assert isinstance(doc.data, dict)
    init = analyze = None
    for line, step in steps(job):
        uses = step.get("uses")
        if isinstance(uses, str) and uses.startswith(CODEQL_ACTION + "/init@"):
            init = (line, step)
        if isinstance(uses, str) and uses.startswith(CODEQL_ACTION + "/analyze@"):
            analyze = (line, step)
    if init is None and analyze is None:
        return False, []
    job_line = key_line(doc.data["jobs"], name)

    def finding(line: int, message: str) -> Finding:
        return Finding(doc.relpath, line, 1, CODEQL_RULE, message)

    if init is None or analyze is None:
        missing = "init" if init is None else "analyze"
        return True, [finding(job_line, f"job '{name}' lacks the {CODEQL_ACTION}/{missing} step")]
    problems: list[Finding] = []
    init_line, init_step = init
    with_ = init_step.get("with")
    with_ = with_ if isinstance(with_, dict) else {}
    try:
        rows = matrix_rows(job, doc.relpath, name)
    except FileProblem as exc:
        return True, [finding(exc.line, exc.message)]
    python_rows = _python_rows(with_, rows)
    if not python_rows:
        problems.append(
            finding(init_line, f"job '{name}' does not analyze python (`languages: python`)")
        )
    else:
        modes = {resolve(with_.get("build-mode", "none"), row) or "none" for row in python_rows}
        wrong = sorted(m for m in modes if m != "none" and UNKNOWN not in m)
        if wrong and len(wrong) == len(modes):
            problems.append(
                finding(
                    init_line,
                    f"job '{name}' sets `build-mode: {wrong[0]}` for python, which CodeQL "
                    "analyzes without a build (`none`, its default for python)",
                )
            )
    perms = job.get("permissions", doc.data.get("permissions"))
    lacking = _permissions_ok(perms)
    if lacking:
        where = (
            key_line(job, "permissions")
            if "permissions" in job
            else key_line(doc.data, "permissions", job_line)
        )
        problems.append(finding(where, f"job '{name}' needs permissions {', '.join(lacking)}"))
    return True, problems


def _codeql_problems(
    doc: YamlDoc, branch: str, triggers_chosen: bool
) -> tuple[bool, list[Finding]]:
    """(uses CodeQL, problems) for one workflow.

    When is a repo's choice: push + pull_request + schedule is asked for only
    when the repo chose ``codeql = "workflow"``.
    """
    assert isinstance(doc.data, dict)
    problems: list[Finding] = []
    uses_codeql = False
    for name, job in jobs(doc):
        uses, found = _codeql_job(doc, name, job)
        uses_codeql = uses_codeql or uses
        problems += found
    if uses_codeql and triggers_chosen:
        triggers = triggers_of(doc)
        on_line = key_line(doc.data, "on", 1)
        for event in ("push", "pull_request"):
            if event not in triggers or not _event_covers(triggers[event], branch):
                problems.append(
                    Finding(
                        doc.relpath,
                        on_line,
                        1,
                        CODEQL_RULE,
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
                    CODEQL_RULE,
                    "CodeQL must also run on a schedule (`schedule: - cron: ...`)",
                )
            )
    return uses_codeql, problems


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
    setup = ctx.config.ci.codeql
    workflows = load_workflows(ctx.root, (CODEQL_ACTION.encode(),))
    yield from _broken(workflows.broken, CODEQL_RULE)
    branch = default_branch(ctx.config)
    found = bool(workflows.broken)  # a broken CodeQL workflow is reported as such
    for doc in workflows.docs:
        uses, problems = _codeql_problems(doc, branch, setup == "workflow")
        found = found or uses
        if uses and setup == "default-setup":
            yield Finding(
                doc.relpath,
                1,
                1,
                CODEQL_RULE,
                'this workflow runs CodeQL but [tool.policytool.ci] codeql = "default-setup": '
                "GitHub rejects a workflow's results while default setup is on; remove one",
            )
            continue
        yield from problems
    if found or setup == "default-setup":
        return
    if setup == "workflow":
        path, line = _config_place(ctx.config, "codeql", paths[0])
        yield Finding(
            path,
            line,
            1,
            CODEQL_RULE,
            f'codeql = "workflow" but no workflow in {WORKFLOW_DIR} runs {CODEQL_ACTION}; '
            "`policytool init` writes one",
        )
        return
    path, line = _config_place(ctx.config, "", paths[0])
    yield Finding(
        path,
        line,
        1,
        CODEQL_RULE,
        f"no workflow in {WORKFLOW_DIR} runs CodeQL: if GitHub's default CodeQL setup scans "
        'this repo, set [tool.policytool.ci] codeql = "default-setup"; otherwise set '
        'codeql = "workflow" and run `policytool init` to add one',
    )


def _ci_triggers(config: Config) -> Sequence[str]:
    return (f"{WORKFLOW_DIR}/*", config.pre_commit.file, "pyproject.toml", "tox.ini", "tox.toml")


def _mypy_triggers(config: Config) -> Sequence[str]:
    return (
        f"{WORKFLOW_DIR}/*",
        config.pre_commit.file,
        "pyproject.toml",
        "mypy.ini",
        ".mypy.ini",
        "setup.cfg",
        "tox.ini",
        "tox.toml",
        "noxfile.py",
    )


HOOK_STAGE_DOC = """\
## What it checks

How CI runs pre-commit. Every step that does, in every workflow: `pre-commit run` or
`prek run` in a `run:` script (also `python -m pre_commit`, `uvx pre-commit`),
`pre-commit/action` and `j178/prek-action` (their `extra_args`), and `tox -e ENV` whose
environment's `commands` (tox.ini, tox.toml, `[tool.tox]`) run pre-commit.
`${{ matrix.x }}` is expanded over the job's matrix; any other `${{ }}` value is known
only at run time and is never read as a hook name or a stage.

- a named hook exists in the config;
- the run sees files: `--all-files` (or `--from-ref`/`--to-ref`/`--files`), since CI has
  no staged files;
- the step can fail the check: no `|| true` / `|| echo ...` after it, no pipe without
  `pipefail` (GitHub's default `bash -e` has none; `shell: bash` has it), no
  `continue-on-error: true`, and it runs at all (no `if: false` on the step or job);
- some workflow that runs pre-commit is triggered for pull requests (`pull_request`,
  `pull_request_target`, `merge_group`, or `workflow_call` from one), unless pre-commit.ci
  runs it (a `ci:` section in the config);
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

MYPY_DOC = """\
## What it checks

- A mypy configuration (`[tool.mypy]` in pyproject.toml, `mypy.ini`, `.mypy.ini`,
  `[mypy]` in setup.cfg) is used: some pre-commit hook runs mypy (by id, the
  mirrors-mypy repo, or an entry whose program is mypy), or a workflow command does
  (`mypy`, `python -m mypy`, `uv run mypy`, a script named `mypy.py`/`mypy.sh`, a tox
  environment whose commands run it, or a nox session that does).
- A hook that runs mypy has a configuration, and its `--config-file` exists.

Commands are read as commands, not words: `cp .github/workflows/matchers/mypy.json` or
an `echo` of a problem matcher does not run mypy.

## Why

A common drift: `[tool.mypy]` sits in pyproject.toml while nothing runs it, so the
types it promises are never checked; or mypy runs with its defaults because its config
was moved.

## Example

```text
pyproject.toml:146:1: mypy-wired a mypy configuration exists but no pre-commit hook or \
workflow step runs mypy; add a hook (e.g. with `stages: [manual]` so CI runs it)
```

## Fix

Add a mypy hook (vLLM runs it with `stages: [manual]`, and CI with `--hook-stage
manual`), or run it in a workflow; or delete the unused configuration.

## Configuration

None.
"""

CODEQL_DOC = """\
## What it checks

How CodeQL scans the repo's Python, as the repo chose in `[tool.policytool.ci] codeql`:

- `"workflow"`: some workflow runs `github/codeql-action` init and analyze for python, on
  push and pull_request to the default branch and on a schedule;
- `"default-setup"`: GitHub's default CodeQL setup scans the repo, so no workflow is
  needed, and one that runs CodeQL too is a finding (GitHub rejects its results while
  default setup is on);
- not set: a workflow that runs CodeQL is checked (but not when it runs: that is the
  repo's choice); no workflow is one finding, on the config file, saying how to choose.

Every CodeQL job has both steps, analyzes python (matrix values expanded, at most
GitHub's 256 jobs), does not set a `build-mode` other than `none` for python (`none` is
the default; no explicit value is needed), and has `security-events: write` (what the
upload needs; `contents`/`actions: read` matter in private repos only).

## Why

CodeQL is the semantic security analysis on every PR and on main. A workflow
that lacks the analyze step or the permission runs green and uploads nothing.

## Example

```text
pyproject.toml:1:1: codeql-workflow no workflow in .github/workflows runs CodeQL: if \
GitHub's default CodeQL setup scans this repo, set [tool.policytool.ci] codeql = \
"default-setup"; otherwise set codeql = "workflow" and run `policytool init` to add one
```

## Fix

Set `codeql` as the finding says; `policytool init` writes a CodeQL workflow that passes.

## Configuration

`[tool.policytool.ci] codeql` (`"workflow"` or `"default-setup"`), `default-branch`
(default: origin's HEAD, else `main`).
"""


HOOK_STAGE = register(
    RepoRule(
        HOOK_STAGE_RULE,
        "CI runs pre-commit so it can fail: on all files, for PRs, at the manual stage where "
        "CI owns it; every skipped hook exists",
        check_hook_stage,
        triggers=_ci_triggers,
        doc=HOOK_STAGE_DOC,
        group="repo",
        config=("pre-commit", "ci"),
    )
)
MYPY = register(
    RepoRule(
        MYPY_RULE,
        "a mypy configuration is run by some hook or CI command, and a mypy hook has one",
        check_mypy,
        triggers=_mypy_triggers,
        doc=MYPY_DOC,
        group="repo",
    )
)
CODEQL = register(
    RepoRule(
        CODEQL_RULE,
        "CodeQL scans python as the repo chose: a working workflow, or GitHub's default setup",
        check_codeql,
        triggers=lambda config: (f"{WORKFLOW_DIR}/*", "pyproject.toml"),
        doc=CODEQL_DOC,
        group="repo",
        config=("ci",),
    )
)
