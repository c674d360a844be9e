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

import itertools
import re
import shlex
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import PolicyError, YamlError
from policytool.formats import toml
from policytool.formats.yamldoc import (
    YamlDoc,
    item_line,
    key_line,
    load,
    value_pos,
)
from policytool.hooks.precommit import normalize_stage, usable_model

WORKFLOW_DIR = ".github/workflows"
# Bytes a workflow step running pre-commit (or setting SKIP for it) must contain.
PRECOMMIT_NEEDLES = (b"pre-commit", b"pre_commit")
HOOK_STAGE_RULE = "ci-hook-stage"
MYPY_RULE = "mypy-wired"
CODEQL_RULE = "codeql-workflow"

# ``pre-commit run`` options that take a value (pre_commit/main.py).
_VALUE_OPTIONS = frozenset(
    {
        "--hook-stage",
        "--from-ref",
        "--source",
        "-s",
        "--to-ref",
        "--origin",
        "-o",
        "--color",
        "--config",
        "-c",
        "--commit-msg-filename",
        "--remote-name",
        "--remote-url",
        "--checkout-type",
        "--is-squash-merge",
        "--rewrite-command",
        "--local-branch",
        "--remote-branch",
        "--prepare-commit-message-source",
        "--commit-object-name",
        "--pre-rebase-upstream",
        "--pre-rebase-branch",
    }
)


@dataclass(frozen=True)
class RunCommand:
    """One ``pre-commit run`` invocation: the hook it names, stage and file scope."""

    hook: str | None
    stage: str | None
    all_files: bool
    text: str
    skip: tuple[str, ...] = ()  # inline ``SKIP=a,b pre-commit run``


def _tokens(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return text.split()


def parse_run_commands(text: str) -> list[tuple[int, RunCommand]]:
    """Every ``pre-commit run`` in a shell snippet: (0-based line, command).

    Backslash continuations are joined; ``&&``, ``||``, ``;`` and ``|`` separate
    commands. ``python -m pre_commit run`` and ``uvx pre-commit run`` count too.
    """
    out: list[tuple[int, RunCommand]] = []
    raw_lines = text.split("\n")
    row = 0
    while row < len(raw_lines):
        start = row
        logical = raw_lines[row]
        while logical.rstrip().endswith("\\") and row + 1 < len(raw_lines):
            row += 1
            logical = logical.rstrip()[:-1] + " " + raw_lines[row]
        row += 1
        if "pre-commit" not in logical and "pre_commit" not in logical:
            continue
        for segment in re.split(r"&&|\|\||;|\|", logical):
            command = _parse_segment(segment)
            if command is not None:
                out.append((start, command))
    return out


def _parse_segment(segment: str) -> RunCommand | None:
    text = segment.strip()
    # Prose with inline code (a Mergify comment, a README): split on blanks and let a
    # closing backtick end the command; a shell line: split like the shell.
    prose = "`" in text
    tokens = text.split() if prose else _tokens(text)
    for index in range(len(tokens) - 1):
        program = tokens[index].strip("`").rsplit("/", 1)[-1]
        if program in ("pre-commit", "pre_commit") and tokens[index + 1].strip("`") == "run":
            skip: tuple[str, ...] = ()
            for token in tokens[:index]:
                token = token.strip("`")
                if token.startswith("SKIP="):
                    skip = tuple(s.strip() for s in token[5:].split(",") if s.strip())
            args: list[str] = []
            closed = tokens[index + 1].endswith("`")
            for token in tokens[index + 2 :]:
                if closed:
                    break
                if prose and re.search(r"`[.,;:!?)]*\Z", token):
                    args.append(re.sub(r"`[.,;:!?)]*\Z", "", token))
                    break
                args.append(token)
            args = [a for a in args if a]
            return _parse_args(args, " ".join(["pre-commit", "run", *args]), skip)
    return None


def _parse_args(args: Sequence[str], text: str, skip: tuple[str, ...]) -> RunCommand:
    hook = stage = None
    all_files = False
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("--all-files", "-a"):
            all_files = True
        elif arg.startswith("--hook-stage="):
            stage = arg.split("=", 1)[1]
        elif arg == "--hook-stage" and index + 1 < len(args):
            stage = args[index + 1]
            index += 1
        elif arg == "--files":
            break
        elif arg in _VALUE_OPTIONS:
            index += 1
        elif not arg.startswith("-") and hook is None:
            hook = arg
        index += 1
    return RunCommand(hook, normalize_stage(stage) if stage else None, all_files, text, skip)


# --- workflows ----------------------------------------------------------------------


@dataclass(frozen=True)
class PreCommitStep:
    """A workflow step that runs pre-commit."""

    relpath: str
    line: int
    command: RunCommand
    skip: tuple[tuple[str, int], ...] = ()  # (hook id, line of the SKIP entry)


@dataclass
class Workflows:
    """The parsed workflows, and those that could not be parsed."""

    docs: list[YamlDoc] = field(default_factory=list)
    broken: list[Finding] = field(default_factory=list)


def workflow_paths(root: Path) -> list[str]:
    """Repo-relative paths of ``.github/workflows/*.yml`` and ``*.yaml``."""
    directory = root / WORKFLOW_DIR
    if not directory.is_dir():
        return []
    return sorted(
        f"{WORKFLOW_DIR}/{p.name}"
        for p in directory.iterdir()
        if p.suffix in (".yml", ".yaml") and p.is_file()
    )


def load_workflows(root: Path, rule: str, needles: Sequence[bytes]) -> Workflows:
    """The workflows whose bytes contain one of ``needles``, parsed.

    A workflow that cannot mention what the rule looks for is never parsed (YAML
    parsing is most of these rules' cost). Parse failures and non-mappings among the
    others become findings of ``rule``.
    """
    result = Workflows()
    for relpath in workflow_paths(root):
        try:
            data = (root / relpath).read_bytes()
        except OSError:
            continue
        if not any(needle in data for needle in needles):
            continue
        try:
            doc = load(root, relpath)
        except FileNotFoundError:
            continue
        except YamlError as exc:
            result.broken.append(Finding(relpath, exc.line, 1, rule, exc.message))
            continue
        if not isinstance(doc.data, dict):
            result.broken.append(Finding(relpath, 1, 1, rule, "a workflow must be a YAML mapping"))
            continue
        jobs = doc.data.get("jobs")
        if not isinstance(jobs, dict):
            result.broken.append(
                Finding(relpath, key_line(doc.data, "jobs"), 1, rule, "`jobs:` must be a mapping")
            )
            continue
        result.docs.append(doc)
    return result


def _jobs(doc: YamlDoc) -> Iterator[tuple[str, dict[str, object]]]:
    assert isinstance(doc.data, dict)
    jobs = doc.data.get("jobs")
    if isinstance(jobs, dict):
        for name, job in jobs.items():
            if isinstance(job, dict):
                yield str(name), job


def _steps(job: dict[str, object]) -> Iterator[tuple[int, dict[str, object]]]:
    steps = job.get("steps")
    if isinstance(steps, list):
        for index, step in enumerate(steps):
            if isinstance(step, dict):
                yield item_line(steps, index), step


def _skip_env(*envs: object) -> tuple[tuple[str, int], ...]:
    """``SKIP`` from the innermost env mapping that sets it: (id, line) pairs."""
    for env in envs:
        if isinstance(env, dict) and "SKIP" in env:
            value = env["SKIP"]
            line = key_line(env, "SKIP")
            if not isinstance(value, str) or "${{" in value:
                return ()
            return tuple((s.strip(), line) for s in value.split(",") if s.strip())
    return ()


def _run_line(step: dict[str, object], offset: int, default: int) -> int:
    pos = value_pos(step, "run")
    if pos is None:
        return default
    line, _col = pos
    value = step.get("run")
    # A block scalar (``run: |``) starts on the line after its indicator.
    block = isinstance(value, str) and type(value).__name__ in (
        "LiteralScalarString",
        "FoldedScalarString",
    )
    return line + 1 + offset + (1 if block else 0)


def precommit_steps(doc: YamlDoc) -> list[PreCommitStep]:
    """Every step of a workflow that runs pre-commit."""
    out: list[PreCommitStep] = []
    assert isinstance(doc.data, dict)
    for _name, job in _jobs(doc):
        for line, step in _steps(job):
            skip = _skip_env(step.get("env"), job.get("env"), doc.data.get("env"))
            uses = step.get("uses")
            if isinstance(uses, str) and uses.split("@", 1)[0] == "pre-commit/action":
                with_ = step.get("with")
                extra = with_.get("extra_args") if isinstance(with_, dict) else None
                args = _tokens(str(extra)) if extra is not None else ["--all-files"]
                command = _parse_args(args, "pre-commit run " + " ".join(args), ())
                step_line = (
                    key_line(with_, "extra_args")
                    if extra is not None and isinstance(with_, dict)
                    else line
                )
                out.append(PreCommitStep(doc.relpath, step_line, command, skip))
            run = step.get("run")
            if isinstance(run, str):
                for offset, command in parse_run_commands(run):
                    inline = tuple((s, _run_line(step, offset, line)) for s in command.skip)
                    out.append(
                        PreCommitStep(
                            doc.relpath, _run_line(step, offset, line), command, inline or skip
                        )
                    )
    return out


# --- ci-hook-stage --------------------------------------------------------------------


def _pyproject_line(config: Config, needle: str) -> tuple[str, int]:
    """(path, line) in the config file of the first line containing ``needle``."""
    source = config.source
    if source is None:
        return "pyproject.toml", 1
    try:
        relpath = source.relative_to(config.root).as_posix()
        lines = source.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError, ValueError):
        return source.name, 1
    for number, line in enumerate(lines, start=1):
        if needle in line:
            return relpath, number
    return relpath, 1


def check_hook_stage(ctx: RepoContext) -> Iterator[Finding]:
    """Workflows run pre-commit on all files at the manual stage; SKIPs are known, explained."""
    config = ctx.config
    workflows = load_workflows(ctx.root, HOOK_STAGE_RULE, PRECOMMIT_NEEDLES)
    yield from workflows.broken
    model = usable_model(config)
    if model is None:
        return
    manual = model.manual_hooks()
    ids = model.ids()
    reasons = config.ci.skip_reasons
    steps = [s for doc in workflows.docs for s in precommit_steps(doc)]
    skipped: set[str] = set()
    for step in steps:
        command = step.command
        if command.hook is not None and command.hook not in ids:
            yield Finding(
                step.relpath,
                step.line,
                1,
                HOOK_STAGE_RULE,
                f"`{command.text}` names hook '{command.hook}', which is not in {model.relpath}",
            )
        if not command.all_files:
            yield Finding(
                step.relpath,
                step.line,
                1,
                HOOK_STAGE_RULE,
                f"`{command.text}` runs only on changed files; CI must pass `--all-files`",
            )
        if command.hook is None and manual and command.stage != "manual":
            names = ", ".join(h.id for h in manual[:4]) + (", ..." if len(manual) > 4 else "")
            yield Finding(
                step.relpath,
                step.line,
                1,
                HOOK_STAGE_RULE,
                f"`{command.text}` lacks `--hook-stage manual`, so the manual-stage hooks "
                f"({names}) never run in CI",
            )
        for hook_id, line in step.skip:
            skipped.add(hook_id)
            if hook_id not in ids:
                yield Finding(
                    step.relpath,
                    line,
                    1,
                    HOOK_STAGE_RULE,
                    f"SKIP names '{hook_id}', which is not a hook in {model.relpath}",
                )
            elif hook_id not in reasons:
                yield Finding(
                    step.relpath,
                    line,
                    1,
                    HOOK_STAGE_RULE,
                    f"hook '{hook_id}' is skipped in CI without a recorded reason; add it to "
                    "[tool.policytool.ci] skip-reasons",
                )
    if manual and not steps and workflow_paths(ctx.root):
        yield Finding(
            model.relpath,
            manual[0].line,
            1,
            HOOK_STAGE_RULE,
            f"manual-stage hooks ({', '.join(h.id for h in manual)}) never run: no workflow in "
            f"{WORKFLOW_DIR} runs `pre-commit run --all-files --hook-stage manual`",
        )
    if steps:
        for hook_id in reasons:
            if hook_id not in skipped:
                path, line = _pyproject_line(config, f"{hook_id}")
                yield Finding(
                    path,
                    line,
                    1,
                    HOOK_STAGE_RULE,
                    f"skip-reasons explains '{hook_id}' but no workflow skips it; remove the entry",
                )


# --- mypy-wired -------------------------------------------------------------------------

_MYPY_RE = re.compile(r"(?<![\w-])mypy(?![\w-])")


def runs_mypy(hook_id: str, entry: str, repo: str) -> bool:
    """Whether a hook runs mypy (by id, entry or the mirrors-mypy repo)."""
    return (
        "mypy" in hook_id
        or bool(_MYPY_RE.search(entry))
        or repo.rstrip("/").endswith("mirrors-mypy")
    )


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
            for number, line in enumerate(text.splitlines(), start=1):
                if line.strip().startswith(("[tool.mypy", "[[tool.mypy")):
                    return "pyproject.toml", number
            return "pyproject.toml", 1
    for name in ("mypy.ini", ".mypy.ini"):
        if (root / name).is_file():
            return name, 1
    setup_cfg = root / "setup.cfg"
    if setup_cfg.is_file():
        try:
            lines = setup_cfg.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
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
            if runs_mypy(hook.id, str(hook.field("entry") or ""), hook.repo):
                mypy_hooks.append(hook)
    for hook in mypy_hooks:
        explicit = _config_file_arg(
            hook.text_list("args") + _tokens(str(hook.field("entry") or ""))
        )
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
    for doc in load_workflows(ctx.root, MYPY_RULE, (b"mypy",)).docs:
        for _name, job in _jobs(doc):
            for _line, step in _steps(job):
                run = step.get("run")
                if isinstance(run, str) and _MYPY_RE.search(run):
                    return
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
PERMISSIONS = {"security-events": "write", "contents": "read", "actions": "read"}


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


def _triggers_of(doc: YamlDoc) -> dict[str, object]:
    assert isinstance(doc.data, dict)
    on = doc.data.get("on")
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return {str(e): None for e in on}
    if isinstance(on, dict):
        return {str(k): v for k, v in on.items()}
    return {}


def _matrix_rows(job: dict[str, object]) -> list[dict[str, str]]:
    strategy = job.get("strategy")
    matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
    if not isinstance(matrix, dict):
        return [{}]
    axes = {
        str(k): v
        for k, v in matrix.items()
        if k not in ("include", "exclude") and isinstance(v, list)
    }
    rows: list[dict[str, str]] = (
        [
            dict(zip(axes, (str(v) for v in combo), strict=True))
            for combo in itertools.product(*axes.values())
        ]
        if axes
        else []
    )
    include = matrix.get("include")
    if isinstance(include, list):
        for entry in include:
            if isinstance(entry, dict):
                rows.append({str(k): str(v) for k, v in entry.items()})
    return rows or [{}]


def _expand(value: object, row: dict[str, str]) -> str:
    return re.sub(
        r"\$\{\{\s*matrix\.([\w-]+)\s*\}\}", lambda m: row.get(m.group(1), m.group(0)), str(value)
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


def _codeql_problems(doc: YamlDoc, branch: str) -> tuple[bool, list[Finding]]:
    """(uses CodeQL, problems) for one workflow."""
    assert isinstance(doc.data, dict)
    problems: list[Finding] = []
    uses_codeql = False
    for name, job in _jobs(doc):
        init = analyze = None
        for line, step in _steps(job):
            uses = step.get("uses")
            if isinstance(uses, str) and uses.startswith(CODEQL_ACTION + "/init@"):
                init = (line, step)
            if isinstance(uses, str) and uses.startswith(CODEQL_ACTION + "/analyze@"):
                analyze = (line, step)
        if init is None and analyze is None:
            continue
        uses_codeql = True
        job_line = key_line(doc.data["jobs"], name)
        if init is None or analyze is None:
            missing = "init" if init is None else "analyze"
            problems.append(
                Finding(
                    doc.relpath,
                    job_line,
                    1,
                    CODEQL_RULE,
                    f"job '{name}' lacks the {CODEQL_ACTION}/{missing} step",
                )
            )
            continue
        init_line, init_step = init
        with_ = init_step.get("with")
        with_ = with_ if isinstance(with_, dict) else {}
        python_rows = []
        for row in _matrix_rows(job):
            languages = {s.strip() for s in _expand(with_.get("languages", ""), row).split(",")}
            if "python" in languages:
                python_rows.append(row)
        if not python_rows:
            problems.append(
                Finding(
                    doc.relpath,
                    init_line,
                    1,
                    CODEQL_RULE,
                    f"job '{name}' does not analyze python (`languages: python`)",
                )
            )
        elif not any(_expand(with_.get("build-mode", ""), row) == "none" for row in python_rows):
            problems.append(
                Finding(
                    doc.relpath,
                    init_line,
                    1,
                    CODEQL_RULE,
                    f"job '{name}' must set `build-mode: none` for python",
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
            problems.append(
                Finding(
                    doc.relpath,
                    where,
                    1,
                    CODEQL_RULE,
                    f"job '{name}' needs permissions {', '.join(lacking)}",
                )
            )
    if uses_codeql:
        triggers = _triggers_of(doc)
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


def check_codeql(ctx: RepoContext) -> Iterator[Finding]:
    """Some workflow runs CodeQL for Python on push, pull_request and a schedule."""
    paths = workflow_paths(ctx.root)
    if not paths:
        return  # not a GitHub Actions repo
    workflows = load_workflows(ctx.root, CODEQL_RULE, (CODEQL_ACTION.encode(),))
    yield from workflows.broken
    branch = default_branch(ctx.config)
    found = bool(workflows.broken)  # a broken CodeQL workflow is reported as such
    for doc in workflows.docs:
        uses, problems = _codeql_problems(doc, branch)
        found = found or uses
        yield from problems
    if not found:
        yield Finding(
            f"{WORKFLOW_DIR}/codeql.yml",
            1,
            1,
            CODEQL_RULE,
            f"no workflow in {WORKFLOW_DIR} runs {CODEQL_ACTION} for python; "
            "`policytool init` writes one",
        )


def _ci_triggers(config: Config) -> Sequence[str]:
    return (f"{WORKFLOW_DIR}/*", config.pre_commit.file, "pyproject.toml")


def _mypy_triggers(config: Config) -> Sequence[str]:
    return (
        f"{WORKFLOW_DIR}/*",
        config.pre_commit.file,
        "pyproject.toml",
        "mypy.ini",
        ".mypy.ini",
        "setup.cfg",
    )


HOOK_STAGE = register(
    RepoRule(
        HOOK_STAGE_RULE,
        "CI runs pre-commit with --all-files and --hook-stage manual; every SKIP is a known "
        "hook with a recorded reason",
        check_hook_stage,
        triggers=_ci_triggers,
    )
)
MYPY = register(
    RepoRule(
        MYPY_RULE,
        "a [tool.mypy] table is invoked by some hook, and a mypy hook has a config",
        check_mypy,
        triggers=_mypy_triggers,
    )
)
CODEQL = register(
    RepoRule(
        CODEQL_RULE,
        "a CodeQL workflow scans python (build-mode: none) on push, pull_request "
        "and a schedule with security-events: write",
        check_codeql,
        triggers=lambda config: (f"{WORKFLOW_DIR}/*",),
    )
)
