# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``pre-commit run`` commands: their arguments, and the workflow steps that run them.

:func:`parse_run_commands` reads every ``pre-commit run`` (or ``prek run``) in a shell
snippet (its words from :mod:`policytool.formats.shell`, the one shell reader) or a
Markdown comment; :func:`parse_args` reads the hook, stage and file scope of its
arguments; :func:`precommit_steps` finds every workflow step that runs pre-commit (in a
POSIX ``run:`` script, through ``pre-commit/action``, or through a tox environment whose
commands run it) on the :mod:`~policytool.formats.gha` model, once per matrix value.

A word holding a ``${{ }}`` value other than the matrix (:data:`UNKNOWN`) makes a
command ``unknown`` instead of being misread. No policy here: the rules decide what is a
finding.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.errors import FileProblem
from policytool.formats import shell
from policytool.formats.gha import Job, Step, load_workflows, model
from policytool.formats.matrix import UNKNOWN, is_false, is_true, resolve
from policytool.formats.precommit import normalize_stage
from policytool.formats.yamldoc import YamlDoc, key_line

# Bytes a workflow step running pre-commit (or setting SKIP for it) must contain.
PRECOMMIT_NEEDLES = (b"pre-commit", b"pre_commit", b"prek", b"tox", b"make")
# The programs that are pre-commit for our purposes (prek is a drop-in reimplementation).
PRECOMMIT_PROGRAMS = frozenset({"pre-commit", "pre_commit", "prek"})

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
_SCOPE_OPTIONS = frozenset({"--from-ref", "--source", "-s", "--to-ref", "--origin", "-o"})
# Actions that run pre-commit: (program, the inputs holding its arguments); both run
# ``--all-files`` when no arguments are given.
_ACTIONS = {
    "pre-commit/action": ("pre-commit", ("extra_args",)),
    "j178/prek-action": ("prek", ("extra-args", "extra_args")),
}
# What may follow ``||`` and swallow the failure of the command before it.
_SWALLOWERS = frozenset({"true", ":", "echo", "printf"})
_PIPEFAIL_RE = re.compile(r"set\s+(-\w*o\s+pipefail|-\w*o\w*\s+pipefail)")
_PROSE_END_RE = re.compile(r"`[.,;:!?)]*\Z")
_BLOCKQUOTE_RE = re.compile(r"\A[ \t]*(?:>[ \t]*)+")


@dataclass(frozen=True)
class RunCommand:
    """One ``pre-commit run`` invocation: the hook it names, stage and file scope."""

    hook: str | None
    stage: str | None
    all_files: bool
    text: str
    skip: tuple[str, ...] = ()  # inline ``SKIP=a,b pre-commit run``
    # Some argument is a value known only at run time (``${{ inputs.args }}``).
    unknown: bool = False
    # ``--from-ref``/``--to-ref``/``--files``: a deliberate subset of the files.
    scoped: bool = False
    # Why a failure of this command cannot fail the step (``|| true``), if it cannot.
    swallowed: str | None = None


def _swallowed(following: str, after: Sequence[str], pipefail: bool) -> str | None:
    """Why the exit status of a command followed by ``following`` (and then the command
    of words ``after``) is lost, if it is."""
    if following == "||" and after:
        if after[0] in _SWALLOWERS or list(after[:2]) == ["exit", "0"]:
            return f"`|| {' '.join(after)}` swallows its failure"
    if following in ("|", "|&") and not pipefail:
        return "it is piped without `set -o pipefail`, so the pipe's status is the last command's"
    return None


def _following(line: str, command: shell.Command) -> str:
    """The operator after ``command``; past the ``)`` of a group it ends
    (``(cd x && pre-commit run) || true``: ``||``)."""
    if command.separator != ")":
        return command.separator
    rest = line[command.end :].lstrip(" \t)")
    return next((op for op in ("||", "|&", "|") if rest.startswith(op)), "")


def _words(command: shell.Command) -> list[str]:
    """A command's ``NAME=value`` prefixes and words, as values."""
    return [w.value for w in (*command.assignments, *command.words)]


_OUTCOME_RE = re.compile(r"steps\.([\w-]+)\.(?:outcome|conclusion)\s*(==|!=)\s*'(\w+)'")


def step_lenient(job: Job, step: Step) -> bool:
    """Whether the step's own ``continue-on-error: true`` keeps its failure from failing
    the job: not when a later step of the job fails on it (fastapi's ``if:
    steps.precommit.outcome == 'failure'`` then ``run: exit 1``)."""
    if not is_true(step.continue_on_error):
        return False
    if step.id is None:
        return True
    at = next((i for i, s in enumerate(job.steps) if s is step), len(job.steps))
    for other in job.steps[at + 1 :]:
        condition = other.if_
        if not isinstance(condition, str) or other.run is None:
            continue
        on_failure = any(
            name == step.id and (value == "failure") == (op == "==")
            for name, op, value in _OUTCOME_RE.findall(condition)
        )
        words = shell.split(other.run.strip().split("\n", 1)[0])
        if on_failure and (
            words[:1] == ["false"] or (words[:1] == ["exit"] and words[1:2] != ["0"])
        ):
            return False
    return True


def shell_statuses(
    script: str, pipefail: bool = False
) -> Iterator[tuple[int, list[str], str | None]]:
    """(0-based line, words, why its failure is lost or None) of every simple command of a
    shell script: ``mypy || true`` swallows it, so does a pipe without ``pipefail``."""
    for start, logical in shell.logical_lines(script):
        commands = shell.parse(logical).commands
        for index, command in enumerate(commands):
            words = _words(command)
            if not words:
                continue
            after = next((c for c in commands[index + 1 :] if c.nested == command.nested), None)
            following = _following(logical, command)
            yield start, words, _swallowed(following, _words(after) if after else [], pipefail)


def parse_run_commands(
    text: str, pipefail: bool = True, markdown: bool = False
) -> list[tuple[int, RunCommand]]:
    """Every ``pre-commit run`` in a shell snippet or Markdown text: (0-based line, command).

    Backslash continuations are joined; commands are the shell's (``&&``, ``||``, ``;``,
    ``|``, ``&``, substitutions). ``python -m pre_commit run``, ``uvx pre-commit run``
    and ``prek run`` count too. ``pipefail`` says whether a pipe keeps the failure of its
    first command (the shell's ``-o pipefail``); ``set -o pipefail`` in ``text`` turns it
    on. A line with a backtick is prose with inline code (a Mergify comment, a README):
    it is split on blanks, and a closing backtick ends the command. In ``markdown``
    text, a line's blockquote markers (``> ``) are Markdown, not redirections.
    """
    out: list[tuple[int, RunCommand]] = []
    pipefail = pipefail or bool(_PIPEFAIL_RE.search(text))
    for start, logical in shell.logical_lines(text):
        if not any(program in logical for program in PRECOMMIT_PROGRAMS):
            continue
        if markdown:
            logical = _BLOCKQUOTE_RE.sub("", logical)
        script = shell.parse(logical)
        if "`" in logical or script.unterminated:
            # prose, or a quote this line does not close: its words are its blanks'
            found = _from_words(logical.split(), prose=True)
            if found is not None:
                out.append((start, found))
            continue
        commands = script.commands
        for index, command in enumerate(commands):
            found = _from_words(_words(command), prose=False)
            if found is None:
                continue
            after = next((c for c in commands[index + 1 :] if c.nested == command.nested), None)
            following = _following(logical, command)
            swallowed = _swallowed(following, _words(after) if after else [], pipefail)
            if swallowed is not None:
                found = dataclasses.replace(found, swallowed=swallowed)
            out.append((start, found))
    return out


def _from_words(words: Sequence[str], prose: bool) -> RunCommand | None:
    """The ``pre-commit run`` of a command's words, if it runs one."""
    for index in range(len(words) - 1):
        program = words[index].strip("`").rsplit("/", 1)[-1]
        if program in PRECOMMIT_PROGRAMS and words[index + 1].strip("`") == "run":
            skip: tuple[str, ...] = ()
            for token in words[:index]:
                token = token.strip("`")
                if token.startswith("SKIP="):
                    skip = tuple(s.strip() for s in token[5:].split(",") if s.strip())
            args: list[str] = []
            closed = words[index + 1].endswith("`")
            for token in words[index + 2 :]:
                if closed:
                    break
                if prose and _PROSE_END_RE.search(token):
                    args.append(_PROSE_END_RE.sub("", token))
                    break
                args.append(token)
            args = [a for a in args if a]
            return parse_args(args, " ".join([program, "run", *args]), skip)
    return None


def parse_args(args: Sequence[str], text: str, skip: tuple[str, ...] = ()) -> RunCommand:
    """The hook, stage and scope of ``pre-commit run ARGS``.

    A word holding :data:`UNKNOWN` (a run-time ``${{ }}`` value) makes the command
    ``unknown``: it may name any hook and any stage.
    """
    hook = stage = None
    all_files = scoped = unknown = False
    index = 0
    while index < len(args):
        arg = args[index]
        if UNKNOWN in arg:
            unknown = True
        elif arg in ("--all-files", "-a"):
            all_files = True
        elif arg.startswith("--hook-stage="):
            stage = arg.split("=", 1)[1]
        elif arg == "--hook-stage" and index + 1 < len(args):
            stage = args[index + 1]
            index += 1
        elif arg == "--files":
            scoped = True
            break
        elif arg in _VALUE_OPTIONS or arg.split("=", 1)[0] in _VALUE_OPTIONS:
            if arg in _SCOPE_OPTIONS or arg.split("=", 1)[0] in _SCOPE_OPTIONS:
                scoped = True
            if "=" not in arg:
                index += 1
        elif not arg.startswith("-") and hook is None:
            hook = arg
        index += 1
    if stage is not None and UNKNOWN in stage:
        unknown, stage = True, None
    shown = text.replace(UNKNOWN, "${{ … }}")
    return RunCommand(
        hook,
        normalize_stage(stage) if stage else None,
        all_files,
        shown,
        skip,
        unknown,
        scoped,
    )


# --- workflows ----------------------------------------------------------------------


@dataclass(frozen=True)
class PreCommitStep:
    """A workflow step that runs pre-commit, and whether it can fail the run at all."""

    relpath: str
    line: int
    command: RunCommand
    skip: tuple[tuple[str, int], ...] = ()  # (hook id, line of the SKIP entry)
    job: str = ""
    # Why the step never runs (``if: false``), if it never does.
    never_runs: str | None = None
    # Why its failure does not fail the job (``continue-on-error``, ``|| true``).
    cannot_fail: str | None = None
    via: str = ""  # "tox -e linting" when a tox environment runs the command
    # A later step of the job commits what it changed (an autofix or dependency bot):
    # the step fixes files, it is not a check.
    fixer: bool = False
    # (file, line) where the command is written when not in the workflow (the Makefile
    # recipe line of ``make lint``).
    origin: tuple[str, int] | None = None


def skip_env(*envs: object) -> tuple[tuple[str, int], ...]:
    """``SKIP`` from the innermost env mapping that sets it: (id, line) pairs."""
    for env in envs:
        if isinstance(env, dict) and "SKIP" in env:
            value = env["SKIP"]
            line = key_line(env, "SKIP")
            if not isinstance(value, str) or "${{" in value:
                return ()
            return tuple((s.strip(), line) for s in value.split(",") if s.strip())
    return ()


@dataclass
class StepScan:
    """What :func:`precommit_steps` found in one workflow."""

    steps: list[PreCommitStep] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    # Jobs whose steps run pre-commit, by id.
    jobs: set[str] = field(default_factory=set)


def precommit_steps(doc: YamlDoc, root: Path | None = None) -> StepScan:
    """Every step of a workflow that runs pre-commit, once per distinct matrix value.

    ``root`` lets a ``tox -e ENV`` step be followed into the environment's commands
    (tox.ini, tox.toml or pyproject.toml's ``[tool.tox]``).
    """
    scan = StepScan()
    workflow = model(doc)
    seen: set[tuple[int, str]] = set()
    for job in workflow.jobs:
        if job.matrix_problem is not None:
            scan.problems.append(job.matrix_problem)
        job_never = "`if: false` on the job" if is_false(job.if_) else None
        job_lenient = (
            "`continue-on-error: true` on the job" if is_true(job.continue_on_error) else None
        )
        commits = _committing_steps(job.steps)
        for index, step in enumerate(job.steps):
            fixer = any(later > index for later in commits)
            never = job_never or ("`if: false`" if is_false(step.if_) else None)
            lenient = job_lenient or (
                "`continue-on-error: true`" if step_lenient(job, step) else None
            )
            skip = skip_env(step.env, job.env, workflow.env)
            for row in job.matrix:
                for found in _step_commands(doc.relpath, step, row, skip, root):
                    key = (found.line, found.command.text + found.via)
                    if key in seen:
                        continue
                    seen.add(key)
                    scan.jobs.add(job.id)
                    scan.steps.append(
                        dataclasses.replace(
                            found,
                            job=job.id,
                            never_runs=never,
                            cannot_fail=lenient or found.command.swallowed,
                            fixer=fixer,
                        )
                    )
    return scan


# Actions that commit or open a pull request with what the job changed.
_COMMIT_ACTIONS = frozenset(
    {
        "stefanzweifel/git-auto-commit-action",
        "peter-evans/create-pull-request",
        "EndBug/add-and-commit",
    }
)


def _committing_steps(steps: Sequence[Step]) -> list[int]:
    """Indexes of the steps that commit the job's changes (``git commit``, an
    auto-commit action)."""
    out = []
    for index, step in enumerate(steps):
        action = step.uses.split("@", 1)[0] if step.uses is not None else ""
        if action in _COMMIT_ACTIONS:
            out.append(index)
        elif step.run is not None and "commit" in step.run:
            words = (w for _offset, w in shell.simple_commands(step.run))
            if any(w[:2] == ["git", "commit"] for w in words):
                out.append(index)
    return out


def _step_commands(
    relpath: str,
    step: Step,
    row: Mapping[str, str],
    skip: tuple[tuple[str, int], ...],
    root: Path | None,
) -> Iterator[PreCommitStep]:
    """The pre-commit commands one step runs for one matrix row."""
    action = step.uses.split("@", 1)[0] if step.uses is not None else ""
    if action in _ACTIONS:
        program, inputs = _ACTIONS[action]
        with_ = step.with_
        key = next((k for k in inputs if k in with_), None)
        extra = with_.get(key) if key is not None else None
        args = shell.split(resolve(extra, row)) if extra is not None else ["--all-files"]
        command = parse_args(args, f"{program} run " + " ".join(args))
        step_line = key_line(with_, key) if key is not None else step.line
        yield PreCommitStep(relpath, step_line, command, skip)
    if step.run is None or not step.posix:
        return
    script = resolve(step.run, row)
    for offset, command in parse_run_commands(script, step.pipefail):
        run_line = step.run_line(offset)
        inline = tuple((s, run_line) for s in command.skip)
        yield PreCommitStep(relpath, run_line, command, inline or skip)
    if root is None:
        return
    if "make" in script:
        yield from _make_commands(relpath, step, script, skip, root)
    if "tox" not in script:
        return
    from policytool.formats.tox import env_commands, tox_envs

    for offset, words in shell.simple_commands(script):
        run_line = step.run_line(offset)
        for env in tox_envs(words, root) or ():
            if UNKNOWN in env:
                continue
            for command_text in env_commands(root, env):
                for _offset, command in parse_run_commands(command_text):
                    yield PreCommitStep(relpath, run_line, command, skip, via=f"tox -e {env}")


def _make_commands(
    relpath: str, step: Step, script: str, skip: tuple[tuple[str, int], ...], root: Path
) -> Iterator[PreCommitStep]:
    """The pre-commit commands of the make targets a step runs (kedro's ``make lint``)."""
    from policytool.formats.makefile import make_targets, read_makefile, target_commands

    for offset, words in shell.simple_commands(script):
        make = make_targets(words)
        # ``-C DIR``/``-f FILE``: another Makefile, not followed here.
        if make is None or make[0] is not None or make[1] is not None:
            continue
        targets = make[2]
        if any(UNKNOWN in t for t in targets):
            continue
        found = read_makefile(root)
        if found is None:
            continue
        run_line = step.run_line(offset)
        for target, number, line in target_commands(root, targets):
            for _offset, command in parse_run_commands(line, pipefail=False):
                inline = tuple((s, run_line) for s in command.skip)
                yield PreCommitStep(
                    relpath,
                    run_line,
                    command,
                    inline or skip,
                    via=f"make {target}",
                    origin=(found[0], number),
                )


# --- how CI runs pre-commit -----------------------------------------------------------


@dataclass
class CiScan:
    """Every workflow step that runs pre-commit, and the workflows that could not be read."""

    steps: list[PreCommitStep] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    # The workflows that run pre-commit, with the jobs that do.
    docs: list[tuple[YamlDoc, set[str]]] = field(default_factory=list)

    def runs_manual(self) -> bool:
        """Whether some step that can run passes ``--hook-stage manual``."""
        return any(s.command.stage == "manual" and s.never_runs is None for s in self.steps)


def scan_ci(root: Path) -> CiScan:
    """How the repo's workflows run pre-commit (``run:``, ``pre-commit/action``, tox)."""
    result = CiScan()
    workflows = load_workflows(root, PRECOMMIT_NEEDLES)
    result.problems.extend(workflows.broken)
    for doc in workflows.docs:
        scan = precommit_steps(doc, root)
        result.problems.extend(scan.problems)
        result.steps.extend(scan.steps)
        if scan.steps:
            result.docs.append((doc, scan.jobs))
    return result


def manual_stage_meaning(
    configured: str | None, default_stages: Sequence[str] | None, scan: CiScan
) -> str:
    """What pre-commit's manual stage means in this repo: "ci" or "opt-in".

    The configured meaning wins; else "ci" when CI runs ``--hook-stage manual`` or
    ``default_stages`` lists manual (vLLM's ``[pre-commit, manual]``), else "opt-in"
    (pytest's manual hooks are run on request).
    """
    if configured is not None:
        return configured
    if scan.runs_manual():
        return "ci"
    if default_stages is not None and "manual" in default_stages:
        return "ci"
    return "opt-in"
