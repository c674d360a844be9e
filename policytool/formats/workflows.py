# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""GitHub workflows and the ``pre-commit run`` commands they (and other texts) hold.

:func:`load_workflows` parses ``.github/workflows/*.yml`` round-trip (only the files whose
bytes mention what a rule looks for); :func:`jobs`, :func:`steps`, :func:`triggers_of`,
:func:`matrix_rows` and :func:`check_names` walk them; :func:`parse_run_commands` reads
every ``pre-commit run`` (or ``prek run``) in a shell snippet or a Markdown comment, and
:func:`precommit_steps` every workflow step that runs pre-commit: in a ``run:`` script,
through ``pre-commit/action``, or through a tox environment whose commands run it.

``${{ matrix.x }}`` is expanded over the job's matrix (at most GitHub's 256 jobs); any
other ``${{ ... }}`` is a value known only when the workflow runs, so a command that
depends on one is marked ``unknown`` instead of being misread. No policy here: the rules
decide what is a finding.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.core.boundary import read_bounded, resolve_inside
from policytool.errors import FileProblem, PolicyError, YamlError
from policytool.formats import shell
from policytool.formats.precommit import normalize_stage
from policytool.formats.yamldoc import (
    MAX_YAML_BYTES,
    YamlDoc,
    item_line,
    key_line,
    load,
    value_pos,
)

WORKFLOW_DIR = ".github/workflows"
# Bytes a workflow step running pre-commit (or setting SKIP for it) must contain.
PRECOMMIT_NEEDLES = (b"pre-commit", b"pre_commit", b"prek", b"tox")
# GitHub runs at most this many jobs of one matrix.
MAX_MATRIX_JOBS = 256
# The programs that are pre-commit for our purposes (prek is a drop-in reimplementation).
PRECOMMIT_PROGRAMS = frozenset({"pre-commit", "pre_commit", "prek"})
# Events that run a workflow for a pull request (or a merge queue entry, or a caller's).
PR_EVENTS = frozenset({"pull_request", "pull_request_target", "merge_group", "workflow_call"})

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
# A ``${{ ... }}`` expression, and the word that stands for one while a command is split.
_EXPR_RE = re.compile(r"\$\{\{.*?\}\}")
_MATRIX_RE = re.compile(r"\$\{\{\s*matrix\.([\w-]+)\s*\}\}")
UNKNOWN = "\x00expr\x00"
# Actions that run pre-commit: (program, the inputs holding its arguments); both run
# ``--all-files`` when no arguments are given.
_ACTIONS = {
    "pre-commit/action": ("pre-commit", ("extra_args",)),
    "j178/prek-action": ("prek", ("extra-args", "extra_args")),
}
# What may follow ``||`` and swallow the failure of the command before it.
_SWALLOWERS = frozenset({"true", ":", "echo", "printf"})


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


# Longer command lines are split on blanks: shlex builds each word a character at a time,
# which costs quadratic time on a hostile megabyte-long word.
_MAX_SHLEX_CHARS = 16 * 1024


def tokens(text: str) -> list[str]:
    """Words of a shell command line (quotes removed, comments dropped)."""
    if len(text) > _MAX_SHLEX_CHARS or not any(c in text for c in "'\"\\#"):
        return text.split()  # nothing to unquote (or too long to): the same words
    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return text.split()


def _segments(line: str) -> list[tuple[str, str]]:
    """``line`` split into commands at ``&&``, ``||``, ``;``, ``|`` outside quotes.

    Each command comes with the operator that follows it ("" at the end).
    """
    out: list[tuple[str, str]] = []
    start = index = 0
    quote = ""
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\" and quote == '"':
                index += 2
                continue
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "\\":
            index += 2
            continue
        elif char == "#" and (index == 0 or line[index - 1] in " \t"):
            break
        else:
            operator = line[index : index + 2]
            if operator in ("&&", "||"):
                out.append((line[start:index], operator))
                start = index = index + 2
                continue
            if char in ";|":
                out.append((line[start:index], char))
                start = index = index + 1
                continue
        index += 1
    out.append((line[start:index], ""))
    return out


def _swallowed(following: str, rest: Sequence[tuple[str, str]], pipefail: bool) -> str | None:
    """Why the exit status of a command followed by ``following`` is lost, if it is."""
    if following == "||" and rest:
        words = tokens(rest[0][0])
        if words and (words[0] in _SWALLOWERS or words[:2] == ["exit", "0"]):
            return f"`|| {' '.join(words)}` swallows its failure"
    if following == "|" and not pipefail:
        return "it is piped without `set -o pipefail`, so the pipe's status is the last command's"
    return None


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(0-based first line, text) of every logical line: a line ending in a backslash is
    joined, without it, to the next one by a blank."""
    raw_lines = text.split("\n")
    row = 0
    while row < len(raw_lines):
        start = row
        logical = raw_lines[row]
        while logical.rstrip().endswith("\\") and row + 1 < len(raw_lines):
            row += 1
            logical = logical.rstrip()[:-1] + " " + raw_lines[row]
        row += 1
        yield start, logical


def parse_run_commands(text: str, pipefail: bool = True) -> list[tuple[int, RunCommand]]:
    """Every ``pre-commit run`` in a shell snippet or Markdown text: (0-based line, command).

    Backslash continuations are joined; ``&&``, ``||``, ``;`` and ``|`` separate
    commands. ``python -m pre_commit run``, ``uvx pre-commit run`` and ``prek run`` count
    too. ``pipefail`` says whether a pipe keeps the failure of its first command (the
    shell's ``-o pipefail``); ``set -o pipefail`` in ``text`` turns it on.
    """
    out: list[tuple[int, RunCommand]] = []
    pipefail = pipefail or bool(re.search(r"set\s+(-\w*o\s+pipefail|-\w*o\w*\s+pipefail)", text))
    for start, logical in _logical_lines(text):
        if not any(program in logical for program in ("pre-commit", "pre_commit", "prek")):
            continue
        # Prose with inline code (a Mergify comment, a README) is split on blanks; a
        # closing backtick ends the command.
        segments = [(logical, "")] if "`" in logical else _segments(logical)
        for index, (segment, following) in enumerate(segments):
            command = _parse_segment(segment)
            if command is not None:
                swallowed = _swallowed(following, segments[index + 1 :], pipefail)
                if swallowed is not None:
                    command = _with(command, swallowed=swallowed)
                out.append((start, command))
    return out


def _with(command: RunCommand, swallowed: str | None) -> RunCommand:
    return RunCommand(
        command.hook,
        command.stage,
        command.all_files,
        command.text,
        command.skip,
        command.unknown,
        command.scoped,
        swallowed,
    )


def _parse_segment(segment: str) -> RunCommand | None:
    text = segment.strip()
    prose = "`" in text
    words = text.split() if prose else tokens(text)
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
                if prose and re.search(r"`[.,;:!?)]*\Z", token):
                    args.append(re.sub(r"`[.,;:!?)]*\Z", "", token))
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


@dataclass
class Workflows:
    """The parsed workflows, and those that could not be parsed."""

    docs: list[YamlDoc] = field(default_factory=list)
    broken: list[FileProblem] = field(default_factory=list)


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


def load_workflow(root: Path, relpath: str) -> YamlDoc:
    """One workflow, parsed and checked for shape; :class:`FileProblem` when unusable."""
    try:
        doc = load(root, relpath)
    except YamlError as exc:
        raise FileProblem(relpath, exc.line, exc.message) from None
    if not isinstance(doc.data, dict):
        raise FileProblem(relpath, 1, "a workflow must be a YAML mapping")
    if not isinstance(doc.data.get("jobs"), dict):
        raise FileProblem(relpath, key_line(doc.data, "jobs"), "`jobs:` must be a mapping")
    return doc


def load_workflows(root: Path, needles: Sequence[bytes]) -> Workflows:
    """The workflows whose bytes contain one of ``needles``, parsed.

    A workflow that cannot mention what the rule looks for is never parsed (YAML
    parsing is most of these rules' cost). Parse failures and non-mappings among the
    others are returned in ``broken``.
    """
    result = Workflows()
    for relpath in workflow_paths(root):
        try:
            real = resolve_inside(root, relpath, relpath)
            data: bytes | None = read_bounded(real, relpath, MAX_YAML_BYTES)
        except PolicyError:
            data = None  # outside the repo, too big, not a file: load_workflow says which
        if data is not None and not any(needle in data for needle in needles):
            continue
        try:
            result.docs.append(load_workflow(root, relpath))
        except FileNotFoundError:
            continue
        except FileProblem as exc:
            result.broken.append(exc)
    return result


def jobs(doc: YamlDoc) -> Iterator[tuple[str, dict[str, object]]]:
    """(job id, job mapping) of every job of a workflow."""
    assert isinstance(doc.data, dict)
    found = doc.data.get("jobs")
    if isinstance(found, dict):
        for name, job in found.items():
            if isinstance(job, dict):
                yield str(name), job


def steps(job: Mapping[str, object]) -> Iterator[tuple[int, dict[str, object]]]:
    """(1-based line, step mapping) of every step of a job."""
    found = job.get("steps")
    if isinstance(found, list):
        for index, step in enumerate(found):
            if isinstance(step, dict):
                yield item_line(found, index), step


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


def _run_line(step: Mapping[str, object], offset: int, default: int) -> int:
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


def triggers_of(doc: YamlDoc) -> dict[str, object]:
    """The workflow's events (``on:``) and their settings (None when bare)."""
    assert isinstance(doc.data, dict)
    on = doc.data.get("on")
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return {e: None for e in on if isinstance(e, str)}
    if isinstance(on, dict):
        return {str(k): v for k, v in on.items()}
    return {}


# --- matrices and expressions ---------------------------------------------------------


def _scalar(value: object) -> str | None:
    """How GitHub prints a matrix value in ``${{ }}``; None for lists and mappings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def _matrix(job: Mapping[str, object]) -> dict[str, object] | None:
    strategy = job.get("strategy")
    matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
    return matrix if isinstance(matrix, dict) else None


def matrix_size(job: Mapping[str, object]) -> int:
    """How many jobs the matrix asks for at most (axes product plus includes)."""
    matrix = _matrix(job)
    if matrix is None:
        return 1
    size = 1
    axes = [v for k, v in matrix.items() if k not in ("include", "exclude") and isinstance(v, list)]
    for values in axes:
        size *= len(values)
    include = matrix.get("include")
    extra = len(include) if isinstance(include, list) else 0
    return (size if axes else 0) + extra or 1


def matrix_rows(job: Mapping[str, object], relpath: str, job_name: str) -> list[dict[str, str]]:
    """The matrix combinations of a job (``[{}]`` without a matrix).

    A matrix asking for more than GitHub's 256 jobs raises :class:`FileProblem` (at the
    ``matrix:`` key) before anything is expanded. ``include`` entries are extra rows,
    ``exclude`` is ignored (a superset is enough to read commands).
    """
    matrix = _matrix(job)
    if matrix is None:
        return [{}]
    size = matrix_size(job)
    if size > MAX_MATRIX_JOBS:
        strategy = job.get("strategy")
        raise FileProblem(
            relpath,
            key_line(strategy, "matrix") if isinstance(strategy, dict) else 1,
            f"the matrix of job '{job_name}' expands to {size} jobs; GitHub runs at most "
            f"{MAX_MATRIX_JOBS}, so this workflow is rejected",
        )
    rows: list[dict[str, str]] = [{}]
    has_axes = False
    for key, values in matrix.items():
        if key in ("include", "exclude") or not isinstance(values, list):
            continue
        has_axes = True
        shown = [s for s in (_scalar(v) for v in values) if s is not None] or [UNKNOWN]
        rows = [{**row, str(key): value} for row in rows for value in shown]
    if not has_axes:
        rows = []
    include = matrix.get("include")
    if isinstance(include, list):
        for entry in include:
            if isinstance(entry, dict):
                row = {str(k): s for k, v in entry.items() if (s := _scalar(v)) is not None}
                rows.append(row)
    return rows or [{}]


def expand(value: object, row: Mapping[str, str]) -> str:
    """``value`` with ``${{ matrix.x }}`` replaced from ``row``; other expressions kept."""
    text = value if isinstance(value, str) else (_scalar(value) or "")
    return _MATRIX_RE.sub(lambda m: row.get(m.group(1), m.group(0)), text)


def resolve(value: object, row: Mapping[str, str]) -> str:
    """``value`` with the matrix expanded and every other expression as :data:`UNKNOWN`."""
    return _EXPR_RE.sub(UNKNOWN, expand(value, row))


def is_false(condition: object) -> bool:
    """Whether an ``if:`` is the literal false (``false``, ``${{ false }}``)."""
    if condition is False:
        return True
    if not isinstance(condition, str):
        return False
    text = condition.strip()
    match = re.fullmatch(r"\$\{\{\s*(.*?)\s*\}\}", text)
    return (match.group(1) if match else text) in ("false", "0")


_OUTCOME_RE = re.compile(r"steps\.([\w-]+)\.(?:outcome|conclusion)\s*(==|!=)\s*'(\w+)'")


def step_lenient(job: Mapping[str, object], step: Mapping[str, object]) -> bool:
    """Whether the step's own ``continue-on-error: true`` keeps its failure from failing
    the job: not when a later step of the job fails on it (fastapi's ``if:
    steps.precommit.outcome == 'failure'`` then ``run: exit 1``)."""
    if not is_true(step.get("continue-on-error")):
        return False
    step_id = step.get("id")
    if not isinstance(step_id, str):
        return True
    found = job.get("steps")
    at = (
        next((i for i, s in enumerate(found) if s is step), None)
        if isinstance(found, list)
        else None
    )
    later = found[at + 1 :] if isinstance(found, list) and at is not None else []
    for other in later:
        condition = other.get("if") if isinstance(other, dict) else None
        run = other.get("run") if isinstance(other, dict) else None
        if not isinstance(condition, str) or not isinstance(run, str):
            continue
        on_failure = any(
            name == step_id and (value == "failure") == (op == "==")
            for name, op, value in _OUTCOME_RE.findall(condition)
        )
        words = tokens(run.strip().split("\n", 1)[0])
        if on_failure and (
            words[:1] == ["false"] or (words[:1] == ["exit"] and words[1:2] != ["0"])
        ):
            return False
    return True


def is_true(value: object) -> bool:
    """Whether a ``continue-on-error:`` is the literal true."""
    return value is True or (isinstance(value, str) and value.strip() in ("true", "${{ true }}"))


# --- pre-commit in workflows ----------------------------------------------------------


def _pipefail(doc: YamlDoc, job: Mapping[str, object], step: Mapping[str, object]) -> bool:
    """Whether ``run:`` scripts of this step run under ``-o pipefail``.

    GitHub's default shell on Linux is ``bash -e {0}`` (no pipefail); an explicit
    ``shell: bash`` means ``bash --noprofile --norc -eo pipefail {0}``.
    """
    shell = step.get("shell")
    if shell is None:
        for holder in (job, doc.data):
            defaults = holder.get("defaults") if isinstance(holder, dict) else None
            run = defaults.get("run") if isinstance(defaults, dict) else None
            if isinstance(run, dict) and run.get("shell") is not None:
                shell = run.get("shell")
                break
    return shell == "bash" or (isinstance(shell, str) and "pipefail" in shell)


# Words that start another program (``python -m tox``, ``uvx --with=x tox``, ``uv run``).
_LAUNCHERS = frozenset(
    {
        "python",
        "python3",
        "-m",
        "uv",
        "uvx",
        "run",
        "pipx",
        "exec",
        "tool",
        "poetry",
        "pdm",
        "hatch",
        "env",
        "sudo",
        "time",
    }
)
_INTERPRETERS = frozenset({"python", "python3", "bash", "sh", "zsh", "node", "ruby", "perl"})
# Launcher options (uv, uvx, pipx, poetry) whose value is the next word.
_LAUNCHER_VALUE_OPTIONS = frozenset(
    {
        "--with",
        "--from",
        "--spec",
        "-p",
        "--python",
        "--with-requirements",
        "--index-url",
        "--extra-index-url",
        "--group",
        "--extra",
        "--package",
        "--env-file",
        "--directory",
        "--project",
        "-C",
    }
)


def program_of(words: Sequence[str]) -> list[str]:
    """The words of a simple command from the program it really runs.

    ``FOO=1 uv run python -m mypy src`` -> ``["mypy", "src"]``: variable assignments,
    launchers and their options are dropped. A script run by an interpreter keeps the
    interpreter (``["python", "tools/mypy.py"]``).
    """
    index = glued = 0
    while index < len(words):
        word = words[index]
        name = word.rsplit("/", 1)[-1]
        python = shell.PYTHON_RE.fullmatch(name) is not None
        module = shell.python_module(words, index + 1) if python else None
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word):
            index += 1
        elif module is not None:
            # ``python3.11 -m mypy src``: the module is the program
            index = module[1]  # the module's first argument
            if words[index - 1] == module[0]:
                index -= 1  # ``-m mypy``: the module's own word
            elif glued < 8:  # ``-mmypy``; a bound, so a hostile line costs linear time
                words, index, glued = [module[0], *words[index:]], 0, glued + 1
            else:
                break
        elif word in _LAUNCHER_VALUE_OPTIONS and index > 0:
            index += 2  # ``uvx --with tox-uv tox``: the option's value is not the program
        elif name in _LAUNCHERS - _INTERPRETERS or (word.startswith("-") and index > 0):
            index += 1
        else:
            break
    return list(words[index:])


def _tox_envs(words: Sequence[str]) -> list[str] | None:
    """The environments of a ``tox`` command line (``tox -e a,b``), or None."""
    command = program_of(words)
    if not command or command[0].rsplit("/", 1)[-1] != "tox":
        return None
    envs: list[str] = []
    rest = command[1:]
    for pos, arg in enumerate(rest):
        if arg in ("-e", "--env") and pos + 1 < len(rest):
            envs += rest[pos + 1].split(",")
        elif arg.startswith(("-e=", "--env=")):
            envs += arg.split("=", 1)[1].split(",")
        elif arg.startswith("-e") and not arg.startswith("--") and len(arg) > 2:
            envs += arg[2:].split(",")
    return [e.strip() for e in envs if e.strip()]


def shell_commands(script: str) -> Iterator[tuple[int, list[str]]]:
    """(0-based line, words) of every simple command of a shell script (continuations joined)."""
    for start, logical in _logical_lines(script):
        for segment, _following in _segments(logical):
            words = tokens(segment)
            if words:
                yield start, words


def shell_statuses(
    script: str, pipefail: bool = False
) -> Iterator[tuple[int, list[str], str | None]]:
    """(0-based line, words, why its failure is lost or None) of every simple command of a
    shell script: ``mypy || true`` swallows it, so does a pipe without ``pipefail``."""
    for start, logical in _logical_lines(script):
        segments = _segments(logical)
        for index, (segment, following) in enumerate(segments):
            words = tokens(segment)
            if words:
                yield start, words, _swallowed(following, segments[index + 1 :], pipefail)


def step_pipefail(doc: YamlDoc, job: Mapping[str, object], step: Mapping[str, object]) -> bool:
    """Whether the step's ``run:`` script runs under ``-o pipefail`` (see ``_pipefail``)."""
    return _pipefail(doc, job, step)


def run_scripts(doc: YamlDoc) -> Iterator[tuple[int, str]]:
    """(line, script) of every ``run:`` step of a workflow, folded scalars joined."""
    for _name, job in jobs(doc):
        for line, step in steps(job):
            run = step.get("run")
            if isinstance(run, str):
                yield _run_line(step, 0, line), run


def workflow_commands(doc: YamlDoc, root: Path | None) -> Iterator[tuple[int, list[str], str]]:
    """(line, program words, via) of every command a workflow's ``run:`` steps execute.

    A ``tox -e ENV`` command is followed into the environment's commands (``via`` names
    it); the program words come from :func:`program_of`.
    """
    for line, script in run_scripts(doc):
        for offset, words in shell_commands(script):
            yield line + offset, program_of(words), ""
            envs = _tox_envs(words) if root is not None else None
            if not envs or root is None:
                continue
            from policytool.formats.tox import env_commands

            for env in envs:
                for text in env_commands(root, env):
                    for _row, inner in shell_commands(text):
                        yield line + offset, program_of(inner), f"tox -e {env}"


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
    assert isinstance(doc.data, dict)
    seen: set[tuple[int, str]] = set()
    for name, job in jobs(doc):
        try:
            rows = matrix_rows(job, doc.relpath, name)
        except FileProblem as exc:
            scan.problems.append(exc)
            rows = [{}]
        job_never = "`if: false` on the job" if is_false(job.get("if")) else None
        job_lenient = (
            "`continue-on-error: true` on the job"
            if is_true(job.get("continue-on-error"))
            else None
        )
        for line, step in steps(job):
            never = job_never or ("`if: false`" if is_false(step.get("if")) else None)
            lenient = job_lenient or (
                "`continue-on-error: true`" if step_lenient(job, step) else None
            )
            skip = skip_env(step.get("env"), job.get("env"), doc.data.get("env"))
            for row in rows:
                for found in _step_commands(doc, job, step, line, row, skip, root):
                    key = (found.line, found.command.text + found.via)
                    if key in seen:
                        continue
                    seen.add(key)
                    scan.jobs.add(name)
                    scan.steps.append(
                        PreCommitStep(
                            found.relpath,
                            found.line,
                            found.command,
                            found.skip,
                            name,
                            never,
                            lenient or found.command.swallowed,
                            found.via,
                        )
                    )
    return scan


def _step_commands(
    doc: YamlDoc,
    job: Mapping[str, object],
    step: Mapping[str, object],
    line: int,
    row: Mapping[str, str],
    skip: tuple[tuple[str, int], ...],
    root: Path | None,
) -> Iterator[PreCommitStep]:
    """The pre-commit commands one step runs for one matrix row."""
    uses = step.get("uses")
    action = uses.split("@", 1)[0] if isinstance(uses, str) else ""
    if action in _ACTIONS:
        program, inputs = _ACTIONS[action]
        with_ = step.get("with")
        with_ = with_ if isinstance(with_, dict) else {}
        key = next((k for k in inputs if k in with_), None)
        extra = with_.get(key) if key is not None else None
        args = tokens(resolve(extra, row)) if extra is not None else ["--all-files"]
        command = parse_args(args, f"{program} run " + " ".join(args))
        step_line = key_line(with_, key) if key is not None else line
        yield PreCommitStep(doc.relpath, step_line, command, skip)
    run = step.get("run")
    if not isinstance(run, str):
        return
    script = resolve(run, row)
    pipefail = _pipefail(doc, job, step)
    for offset, command in parse_run_commands(script, pipefail):
        run_line = _run_line(step, offset, line)
        inline = tuple((s, run_line) for s in command.skip)
        yield PreCommitStep(doc.relpath, run_line, command, inline or skip)
    if root is None or "tox" not in script:
        return
    from policytool.formats.tox import env_commands

    for offset, text in enumerate(script.split("\n")):
        for segment, _following in _segments(text):
            envs = _tox_envs(tokens(segment))
            if not envs:
                continue
            run_line = _run_line(step, offset, line)
            for env in envs:
                if UNKNOWN in env:
                    continue
                for command_text in env_commands(root, env):
                    for _offset, command in parse_run_commands(command_text):
                        yield PreCommitStep(
                            doc.relpath, run_line, command, skip, via=f"tox -e {env}"
                        )


# --- check runs ---------------------------------------------------------------------


@dataclass(frozen=True)
class CheckName:
    """A check run a job reports: its exact name, or a pattern when part is run-time only."""

    name: str
    workflow: str
    job: str
    pattern: re.Pattern[str] | None = None

    def matches(self, wanted: str) -> bool:
        """Whether a check called ``wanted`` can be this one."""
        return wanted == self.name or bool(self.pattern and self.pattern.fullmatch(wanted))


def _name_pattern(text: str) -> re.Pattern[str]:
    parts = text.split(UNKNOWN)
    return re.compile(".*".join(re.escape(p) for p in parts), re.DOTALL)


def check_names(doc: YamlDoc, root: Path | None = None) -> list[CheckName]:
    """The check runs a workflow's jobs report (what Mergify's ``check-*`` conditions name).

    A job reports its ``name:`` (matrix values expanded) or its id; an unnamed matrix
    job ``id (v1, v2)``; a job calling a reusable workflow ``name / called job``.
    """
    out: list[CheckName] = []
    for job_id, job in jobs(doc):
        try:
            rows = matrix_rows(job, doc.relpath, job_id)
        except FileProblem:
            rows = [{}]
        title = job.get("name")
        uses = job.get("uses")
        for row in rows:
            if isinstance(title, str):
                name = resolve(title, row)
            elif row:
                values = ", ".join(v for v in row.values())
                name = f"{job_id} ({values})"
            else:
                name = job_id
            if isinstance(uses, str):
                called = _called_jobs(uses, root)
                if called is None:
                    name = f"{name} / {UNKNOWN}"
                    out.append(CheckName(name, doc.relpath, job_id, _name_pattern(name)))
                else:
                    for inner in called:
                        full = f"{name} / {inner}"
                        pattern = _name_pattern(full) if UNKNOWN in full else None
                        out.append(CheckName(full, doc.relpath, job_id, pattern))
                continue
            pattern = _name_pattern(name) if UNKNOWN in name else None
            out.append(CheckName(name, doc.relpath, job_id, pattern))
    return out


def _called_jobs(uses: str, root: Path | None) -> list[str] | None:
    """Check names of a local reusable workflow's jobs; None when unknown (remote)."""
    if root is None or not uses.startswith("./"):
        return None
    try:
        called = load_workflow(root, uses[2:].split("@", 1)[0])
    except (FileNotFoundError, FileProblem):
        return None
    names = []
    for check in check_names(called, None):
        if check.pattern is not None or " / " in check.name:
            return None
        names.append(check.name)
    return names


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
    if scan.runs_manual() or (default_stages is not None and "manual" in default_stages):
        return "ci"
    return "opt-in"
