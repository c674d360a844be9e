# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""GitHub workflows and the ``pre-commit run`` commands they (and other texts) hold.

:func:`load_workflows` parses ``.github/workflows/*.yml`` round-trip (only the files whose
bytes mention what a rule looks for); :func:`jobs`, :func:`steps`, :func:`triggers_of` and
:func:`matrix_rows` walk them; :func:`parse_run_commands` reads every ``pre-commit run``
in a shell snippet or a Markdown comment, and :func:`precommit_steps` every workflow step
that runs pre-commit. No policy here: the rules decide what is a finding.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.errors import FileProblem
from policytool.formats.precommit import normalize_stage
from policytool.formats.yamldoc import YamlDoc, YamlError, item_line, key_line, load, value_pos

WORKFLOW_DIR = ".github/workflows"
# Bytes a workflow step running pre-commit (or setting SKIP for it) must contain.
PRECOMMIT_NEEDLES = (b"pre-commit", b"pre_commit")

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


def tokens(text: str) -> list[str]:
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
    words = text.split() if prose else tokens(text)
    for index in range(len(words) - 1):
        program = words[index].strip("`").rsplit("/", 1)[-1]
        if program in ("pre-commit", "pre_commit") and words[index + 1].strip("`") == "run":
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
            return parse_args(args, " ".join(["pre-commit", "run", *args]), skip)
    return None


def parse_args(args: Sequence[str], text: str, skip: tuple[str, ...]) -> RunCommand:
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


def load_workflows(root: Path, needles: Sequence[bytes]) -> Workflows:
    """The workflows whose bytes contain one of ``needles``, parsed.

    A workflow that cannot mention what the rule looks for is never parsed (YAML
    parsing is most of these rules' cost). Parse failures and non-mappings among the
    others are returned in ``broken``.
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
            result.broken.append(FileProblem(relpath, exc.line, exc.message))
            continue
        if not isinstance(doc.data, dict):
            result.broken.append(FileProblem(relpath, 1, "a workflow must be a YAML mapping"))
            continue
        jobs = doc.data.get("jobs")
        if not isinstance(jobs, dict):
            result.broken.append(
                FileProblem(relpath, key_line(doc.data, "jobs"), "`jobs:` must be a mapping")
            )
            continue
        result.docs.append(doc)
    return result


def jobs(doc: YamlDoc) -> Iterator[tuple[str, dict[str, object]]]:
    assert isinstance(doc.data, dict)
    jobs = doc.data.get("jobs")
    if isinstance(jobs, dict):
        for name, job in jobs.items():
            if isinstance(job, dict):
                yield str(name), job


def steps(job: dict[str, object]) -> Iterator[tuple[int, dict[str, object]]]:
    steps = job.get("steps")
    if isinstance(steps, list):
        for index, step in enumerate(steps):
            if isinstance(step, dict):
                yield item_line(steps, index), step


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
    for _name, job in jobs(doc):
        for line, step in steps(job):
            skip = skip_env(step.get("env"), job.get("env"), doc.data.get("env"))
            uses = step.get("uses")
            if isinstance(uses, str) and uses.split("@", 1)[0] == "pre-commit/action":
                with_ = step.get("with")
                extra = with_.get("extra_args") if isinstance(with_, dict) else None
                args = tokens(str(extra)) if extra is not None else ["--all-files"]
                command = parse_args(args, "pre-commit run " + " ".join(args), ())
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


def triggers_of(doc: YamlDoc) -> dict[str, object]:
    assert isinstance(doc.data, dict)
    on = doc.data.get("on")
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return {str(e): None for e in on}
    if isinstance(on, dict):
        return {str(k): v for k, v in on.items()}
    return {}


def matrix_rows(job: dict[str, object]) -> list[dict[str, str]]:
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


def expand(value: object, row: dict[str, str]) -> str:
    return re.sub(
        r"\$\{\{\s*matrix\.([\w-]+)\s*\}\}", lambda m: row.get(m.group(1), m.group(0)), str(value)
    )
