# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""GitHub Actions workflows and composite actions as typed models with positions.

:func:`workflow_of` and :func:`action_of` build, once per parsed file, a
:class:`Workflow` (its :class:`Job` s) or an :class:`Action`, each holding its
:class:`Step` s: ``run``, the effective ``shell``, ``uses``, ``with``, ``if``,
``continue-on-error``, ``name``, ``id`` and the 1-based line of each. Every rule that walks
jobs and steps gets them here, so no two rules read the same step differently. Values
are what GitHub reads: :mod:`~policytool.formats.yamldoc` already resolved core-schema
tags (``!!str main`` is ``main``) and ``<<`` merge keys; a key whose value has a shape
GitHub rejects (``run: [a]``) is None.

The effective shell of a ``run:`` step is its ``shell:``, else the job's, else the
workflow's ``defaults.run.shell``, else ``bash`` (the Linux runners' default). Whether
its script is POSIX shell is :func:`policytool.formats.shell.runs_posix` (the one table:
``pwsh``, ``powershell``, ``cmd`` and ``python`` are not); no rule reads a non-POSIX
script as shell.

:func:`workflow_paths` is the one discovery of workflows: the *tracked*
``.github/workflows/*.yml`` and ``*.yaml`` files (every file when the tree is no git
repository), the files GitHub runs. No policy here: the rules decide what is a finding.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.core.boundary import read_bounded, resolve_inside
from policytool.errors import FileProblem, PolicyError, YamlError
from policytool.formats import shell
from policytool.formats.matrix import UNKNOWN, matrix_rows, resolve
from policytool.formats.yamldoc import (
    MAX_YAML_BYTES,
    YamlDoc,
    YamlNode,
    is_block_scalar,
    item_line,
    key_line,
    load,
    value_pos,
)

WORKFLOW_DIR = ".github/workflows"
# The files GitHub runs as workflows and reads as actions (``files`` glob semantics).
WORKFLOW_GLOBS = (f"{WORKFLOW_DIR}/*.yml", f"{WORKFLOW_DIR}/*.yaml")
ACTION_GLOBS = ("**/action.yml", "**/action.yaml")
# Events that run a workflow for a pull request (or a merge queue entry, or a caller's).
PR_EVENTS = frozenset({"pull_request", "pull_request_target", "merge_group", "workflow_call"})
# The shell of a ``run:`` step that names none anywhere (GitHub's Linux default).
DEFAULT_SHELL = "bash"
_EMPTY: Mapping[str, object] = {}


def _mapping(value: object) -> Mapping[str, object]:
    """``value`` when it is a mapping, else an empty one."""
    return value if isinstance(value, dict) else _EMPTY


def _text(value: object) -> str | None:
    """``value`` when it is a string (what GitHub reads as text here), else None."""
    return str(value) if isinstance(value, str) else None


def _defaults_shell(holder: object) -> str | None:
    """``defaults.run.shell`` of a job or workflow mapping, when it is a string."""
    run = _mapping(_mapping(holder).get("defaults")).get("run")
    return _text(_mapping(run).get("shell"))


@dataclass(frozen=True, eq=False)  # compared by identity: they hold the parsed nodes
class Step:
    """One step of a job or composite action.

    ``node`` is the step's mapping (for the positions of its values); ``path`` says
    where it sits (``("job", id, index)`` or ``("runs", index)``) and identifies it
    among the file's steps.
    """

    node: Mapping[str, object]
    line: int
    index: int
    path: tuple[object, ...]
    job: str | None
    shell: str  # effective: step, job defaults, workflow defaults, else DEFAULT_SHELL
    shell_set: bool  # some ``shell:`` (step or defaults) chose it
    run: str | None
    uses: str | None
    with_: Mapping[str, object]
    env: Mapping[str, object] | None
    if_: object
    continue_on_error: object
    name: str | None
    id: str | None

    @property
    def posix(self) -> bool:
        """Whether ``run:`` is a POSIX shell script (not pwsh, powershell, cmd, python)."""
        return shell.runs_posix(self.shell)

    @property
    def pipefail(self) -> bool:
        """Whether the script runs under ``-o pipefail``: an explicit ``shell: bash`` is
        ``bash --noprofile --norc -eo pipefail {0}``; the default ``bash -e {0}`` is not."""
        return self.shell_set and (self.shell == "bash" or "pipefail" in self.shell)

    def run_line(self, offset: int = 0) -> int:
        """1-based file line of line ``offset`` of the ``run:`` script (the step's line
        when the value's position is unknown)."""
        pos = value_pos(self.node, "run")
        if pos is None:
            return self.line
        # A block scalar (``run: |``) starts on the line after its indicator.
        return pos[0] + 1 + offset + (1 if is_block_scalar(self.node.get("run")) else 0)


@dataclass(frozen=True, eq=False)
class Job:
    """One job: its steps, matrix rows (expanded), ``runs-on`` and the rest by key."""

    id: str
    node: Mapping[str, object]
    line: int
    steps: tuple[Step, ...]
    name: object  # ``name:`` as written (a string, or None)
    uses: str | None  # a reusable workflow
    runs_on: object
    if_: object
    continue_on_error: object
    env: Mapping[str, object] | None
    # The matrix combinations (``({},)`` without one); ``matrix_problem`` when the
    # matrix is more than GitHub runs (then ``matrix`` is ``({},)``).
    matrix: tuple[Mapping[str, str], ...]
    matrix_problem: FileProblem | None = None


@dataclass(frozen=True, eq=False)
class Workflow:
    """A workflow file: its jobs in file order."""

    relpath: str
    data: Mapping[str, object]
    jobs: tuple[Job, ...]

    @property
    def env(self) -> Mapping[str, object] | None:
        """The workflow-level ``env:`` mapping, if any."""
        env = self.data.get("env")
        return env if isinstance(env, dict) else None

    def steps(self) -> Iterator[Step]:
        """Every step of every job."""
        for job in self.jobs:
            yield from job.steps

    def triggers(self) -> dict[str, object]:
        """The workflow's events (``on:``) and their settings (None when bare)."""
        on = self.data.get("on")
        if isinstance(on, str):
            return {on: None}
        if isinstance(on, list):
            return {e: None for e in on if isinstance(e, str)}
        if isinstance(on, dict):
            return {str(k): v for k, v in on.items()}
        return {}


@dataclass(frozen=True, eq=False)
class Action:
    """A composite action (``runs.using: composite``) and its steps; other actions
    (docker, node) have none."""

    relpath: str
    data: Mapping[str, object]
    composite: bool
    steps: tuple[Step, ...] = ()


def _steps(
    found: object, path: tuple[object, ...], job: str | None, shells: Sequence[str | None]
) -> tuple[Step, ...]:
    """The steps of a ``steps:`` list (items that are not mappings are not steps)."""
    if not isinstance(found, list):
        return ()
    out = []
    for index, node in enumerate(found):
        if not isinstance(node, dict):
            continue
        chosen = next((s for s in (_text(node.get("shell")), *shells) if s is not None), None)
        env = node.get("env")
        out.append(
            Step(
                node,
                item_line(found, index),
                index,
                (*path, index),
                job,
                chosen if chosen is not None else DEFAULT_SHELL,
                chosen is not None,
                _text(node.get("run")),
                _text(node.get("uses")),
                _mapping(node.get("with")),
                env if isinstance(env, dict) else None,
                node.get("if"),
                node.get("continue-on-error"),
                _text(node.get("name")),
                _text(node.get("id")),
            )
        )
    return tuple(out)


def workflow_of(relpath: str, data: YamlNode) -> Workflow:
    """The model of a parsed workflow (no jobs when it is not a mapping with ``jobs:``)."""
    if not isinstance(data, dict):
        return Workflow(relpath, _EMPTY, ())
    found = data.get("jobs")
    jobs = []
    workflow_shell = _defaults_shell(data)
    for key, node in found.items() if isinstance(found, dict) else ():
        if not isinstance(node, dict):
            continue
        job_id = str(key)
        try:
            rows: tuple[Mapping[str, str], ...] = tuple(matrix_rows(node, relpath, job_id))
            problem = None
        except FileProblem as exc:
            rows, problem = ({},), exc
        env = node.get("env")
        shells = (_defaults_shell(node), workflow_shell)
        jobs.append(
            Job(
                job_id,
                node,
                key_line(found, job_id),
                _steps(node.get("steps"), ("job", job_id), job_id, shells),
                node.get("name"),
                _text(node.get("uses")),
                node.get("runs-on"),
                node.get("if"),
                node.get("continue-on-error"),
                env if isinstance(env, dict) else None,
                rows,
                problem,
            )
        )
    return Workflow(relpath, data, tuple(jobs))


def action_of(relpath: str, data: YamlNode) -> Action:
    """The model of a parsed ``action.yml``."""
    runs = _mapping(data.get("runs") if isinstance(data, dict) else None)
    composite = str(runs.get("using", "")).lower() == "composite"
    steps = _steps(runs.get("steps"), ("runs",), None, ()) if composite else ()
    return Action(relpath, _mapping(data), composite, steps)


def triggers_of(doc: YamlDoc) -> dict[str, object]:
    """The events (``on:``) of a loaded workflow and their settings (None when bare)."""
    return model(doc).triggers()


# --- discovery ------------------------------------------------------------------------


def workflow_paths(root: Path) -> list[str]:
    """Repo-relative paths of the tracked ``.github/workflows/*.yml`` and ``*.yaml``
    files: the one list of workflows every rule and the run read."""
    directory = root / WORKFLOW_DIR
    try:
        listing = os.stat(directory)
    except OSError:
        return []
    git_dir = root / ".git"
    try:
        index = os.stat(git_dir / "index").st_mtime_ns if git_dir.is_dir() else None
    except OSError:
        index = None
    if index is None:
        return _workflow_paths(root, listing.st_mtime_ns, None)
    return list(_cached_paths(str(root), listing.st_mtime_ns, index))


@functools.lru_cache(maxsize=16)
def _cached_paths(root: str, dir_mtime: int, index_mtime: int) -> tuple[str, ...]:
    """:func:`_workflow_paths`, once while neither the directory nor git's index changes."""
    return tuple(_workflow_paths(Path(root), dir_mtime, index_mtime))


def _workflow_paths(root: Path, _dir_mtime: int, _index_mtime: int | None) -> list[str]:
    """The workflow files: tracked ones in a git repository, else those on disk."""
    from policytool.core.git import git_ls_files, git_root

    try:
        listed = git_ls_files(root, [WORKFLOW_DIR])
    except PolicyError:
        if git_root(root) is not None:
            raise
        directory = root / WORKFLOW_DIR
        listed = [f"{WORKFLOW_DIR}/{p.name}" for p in directory.iterdir() if p.is_file()]
    from policytool.core.globs import match_any

    return sorted(p for p in listed if match_any(p, WORKFLOW_GLOBS) and (root / p).is_file())


@dataclass
class Workflows:
    """The parsed workflows, and those that could not be parsed."""

    docs: list[YamlDoc] = field(default_factory=list)
    broken: list[FileProblem] = field(default_factory=list)


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


def model(doc: YamlDoc) -> Workflow:
    """The model of a loaded workflow."""
    return workflow_of(doc.relpath, doc.data)


# --- commands -------------------------------------------------------------------------


def workflow_commands(doc: YamlDoc, root: Path | None) -> Iterator[tuple[int, list[str], str]]:
    """(line, program words, via) of every command a workflow's POSIX ``run:`` steps
    execute.

    A ``tox -e ENV`` command is followed into the environment's commands (``via`` names
    it); the program words come from :func:`policytool.formats.shell.program_of`.
    """
    for step in model(doc).steps():
        if step.run is None or not step.posix:
            continue
        line = step.run_line()
        for offset, words in shell.simple_commands(step.run):
            yield line + offset, shell.program_of(words), ""
            if root is None:
                continue
            from policytool.formats.tox import env_commands, tox_envs

            for env in tox_envs(words, root) or ():
                for text in env_commands(root, env):
                    for _row, inner in shell.simple_commands(text):
                        yield line + offset, shell.program_of(inner), f"tox -e {env}"


# --- pull-request gating ---------------------------------------------------------


def pr_gate(
    doc: YamlDoc, root: Path, seen: frozenset[str] = frozenset(), queue: bool = True
) -> str | None:
    """How a workflow runs for pull requests: "all", "paths" (only for some paths,
    ``pull_request: paths:``), or None (never); with ``queue`` false, the merge queue
    (``merge_group``) does not count: how it runs on the pull request itself.

    ``workflow_call`` is followed to the local workflows calling this one (``uses:
    ./.github/workflows/NAME.yml``) and their triggers; a workflow no local workflow
    calls may be called from another repository and counts as run for every PR.
    """
    events = triggers_of(doc)
    gates: set[str] = set()
    counted = PR_EVENTS - {"workflow_call"} - (set() if queue else {"merge_group"})
    for event in set(events) & counted:
        settings = events[event]
        narrowed = isinstance(settings, dict) and "paths" in settings
        gates.add("paths" if narrowed else "all")
    if "workflow_call" in events and "all" not in gates:
        callers = local_callers(doc.relpath, root)
        if not callers:
            gates.add("all")
        for caller in callers:
            if caller.relpath not in seen:
                gate = pr_gate(caller, root, seen | {doc.relpath}, queue)
                if gate is not None:
                    gates.add(gate)
    return "all" if "all" in gates else ("paths" if gates else None)


def local_callers(relpath: str, root: Path) -> list[YamlDoc]:
    """The workflows of the repo with a job calling the local workflow ``relpath``."""
    wanted = f"./{relpath}"
    callers = []
    for doc in load_workflows(root, (relpath.encode(),)).docs:
        uses = (job.uses for job in model(doc).jobs if job.uses is not None)
        if any(u.split("@", 1)[0] == wanted for u in uses):
            callers.append(doc)
    return callers


# --- check runs -----------------------------------------------------------------------


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
    for job in model(doc).jobs:
        job_id = job.id
        for row in job.matrix:
            if isinstance(job.name, str):
                name = resolve(job.name, row)
            elif row:
                values = ", ".join(v for k, v in row.items() if "." not in k)
                name = f"{job_id} ({values})"
            else:
                name = job_id
            if job.uses is not None:
                called = _called_jobs(job.uses, root)
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
