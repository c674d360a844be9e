# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``mypy-wired``: a mypy configuration is used by some hook or workflow step (followed
into repository scripts and make targets, read and never run) that can fail, and a hook
that runs mypy has a configuration."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.config import Config
from policytool.core.boundary import read_bounded, resolve_inside
from policytool.core.text import split_lines
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import PolicyError
from policytool.formats import makefile, toml
from policytool.formats.gha import (
    WORKFLOW_DIR,
    load_workflows,
    model,
    pr_gate,
    workflow_commands,
    workflow_paths,
)
from policytool.formats.matrix import UNKNOWN, is_false, is_true, mapping_of, resolve
from policytool.formats.precommit import MANUAL, Hook, Model
from policytool.formats.precommit_run import (
    CiScan,
    manual_stage_meaning,
    scan_ci,
    shell_statuses,
    step_lenient,
)
from policytool.formats.shell import program_of
from policytool.formats.shell import split as tokens
from policytool.formats.tox import env_commands, nox_programs, tox_envs
from policytool.formats.yamldoc import YamlDoc, key_line
from policytool.rules._precommit_model import usable_model
from policytool.rules._repo_config import PreCommitConfig

RULE_ID = "mypy-wired"
SUMMARY = "a mypy configuration is run by some hook or CI command, and a mypy hook has one"

_MYPY_PROGRAMS = frozenset({"mypy", "dmypy"})
# Options after which mypy checks no file of the repository.
_NOT_A_CHECK = frozenset({"-c", "--command", "--version", "-V", "--help", "-h"})
# Variables in front of a program's name: ``${PREFIX}mypy``, ``${VENV}/bin/mypy``.
_PREFIX_RE = re.compile(r"\A(?:\$\{[A-Za-z_][A-Za-z0-9_]*\})+")
_SHA_RE = re.compile(r"[0-9a-f]{40}")


def command_runs_mypy(words: Sequence[str]) -> bool:
    """Whether a command (launchers already dropped, see ``program_of``) runs mypy.

    ``mypy src``, ``dmypy run``, ``python tools/mypy.py`` and ``tools/mypy.sh`` do;
    ``cp .github/workflows/matchers/mypy.json``, an ``echo`` mentioning mypy, ``mypy
    --version`` and ``mypy -c "import x"`` (a string, not the repository) do not.
    """
    if not words:
        return False
    # ``${PREFIX}mypy`` (httpx's scripts/check: empty, or ``venv/bin/``) is mypy too.
    program = _PREFIX_RE.sub("", words[0].rsplit("/", 1)[-1])
    if program in _MYPY_PROGRAMS:
        # ``mypy -c "import trio"`` checks a string, not the repository (trio's cache
        # warm-up); ``mypy --version`` checks nothing.
        return not any(w in _NOT_A_CHECK or w.startswith("--command=") for w in words[1:])
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


# Following repository scripts and make targets (read, never run): how deep, how many
# files and how large each may be.
MAX_FOLLOW_DEPTH = 4
MAX_FOLLOWED_FILES = 32
MAX_SCRIPT_BYTES = 256 * 1024
_SHELLS = frozenset({"bash", "sh", "dash", "zsh"})
_INTERPRETERS = frozenset({"python", "python3"})
# A Python script that starts mypy: ``"mypy"`` as an argument, ``-m mypy``, ``mypy.api``.
_PY_RUNS_MYPY_RE = re.compile(r"""["']d?mypy["']|\bmypy\.api\b|-m\s*d?mypy\b""")


@dataclass(frozen=True)
class Loss:
    """Why a mypy run cannot fail, and the file and line that make it so (a workflow step,
    a Makefile recipe or a script line)."""

    why: str
    relpath: str
    line: int


@dataclass(frozen=True)
class MypyRun:
    """A CI command that reaches mypy: where, through what, and why it cannot fail (if so)."""

    relpath: str
    line: int
    shown: str
    loss: Loss | None = None
    # Whether the workflow runs for pull requests (``pull_request``, ``merge_group``, a
    # caller that does): a run on ``schedule`` or ``push`` only gates no pull request.
    gates: bool = True
    on_line: int = 1  # the workflow's ``on:``

    @property
    def lost(self) -> str | None:
        """Why the run cannot fail, or None when it can."""
        return None if self.loss is None else self.loss.why


@dataclass
class _Follower:
    """Follows a command into repository scripts and Makefile targets, read-only and bounded."""

    root: Path
    read: dict[str, str | None] = field(default_factory=dict)

    def _text(self, relpath: str) -> str | None:
        """A repository file's text (inside the repository, bounded); None if unreadable."""
        if relpath in self.read:
            return self.read[relpath]
        text: str | None = None
        if len(self.read) < MAX_FOLLOWED_FILES:
            try:
                real = resolve_inside(self.root, relpath, relpath)
                if real.is_file():
                    text = read_bounded(real, relpath, MAX_SCRIPT_BYTES).decode("utf-8", "replace")
            except (PolicyError, OSError):
                text = None
        self.read[relpath] = text
        return text

    def _path(self, cwd: str, word: str) -> str | None:
        """The repo-relative path ``word`` names from ``cwd``; None outside or unknowable."""
        if not word or UNKNOWN in word or word.startswith(("/", "~", "$")):
            return None
        joined = posixpath.normpath(posixpath.join(cwd, word))
        return None if joined.startswith("..") else joined

    def reaches(self, words: Sequence[str], cwd: str, depth: int = 0) -> Iterator[Loss | None]:
        """For every way ``words`` runs mypy: where and why its failure is lost inside (or
        None)."""
        command = program_of(words)
        if command_runs_mypy(command):
            yield None
            return
        if not command or depth >= MAX_FOLLOW_DEPTH:
            return
        make = makefile.make_targets(list(command))
        if make is not None:
            yield from self._make(make, cwd, depth)
            return
        program = command[0].rsplit("/", 1)[-1]
        if program == "tox" and cwd == ".":
            for env in tox_envs(list(command), self.root) or ():
                for line in env_commands(self.root, env):
                    ignored = line.lstrip().startswith("-")
                    for _offset, inner, lost in shell_statuses(line.lstrip().lstrip("-")):
                        for inner_loss in self.reaches(inner, cwd, depth + 1):
                            why = "tox's `- ` prefix ignores its exit code" if ignored else lost
                            yield self._at(why, line) if why else inner_loss
            return
        if program in ("poe", "poethepoet") and cwd == ".":
            yield from self._poe(command[1:], depth)
            return
        script = None
        python = False
        if program in _SHELLS or program in _INTERPRETERS:
            script = next((w for w in command[1:] if not w.startswith("-")), None)
            python = program in _INTERPRETERS
        elif "/" in command[0]:
            script = command[0]
        relpath = self._path(cwd, script) if script else None
        text = self._text(relpath) if relpath else None
        if relpath is None or text is None:
            return
        first = text.split("\n", 1)[0]
        if python or relpath.endswith(".py") or (first.startswith("#!") and "python" in first):
            if _PY_RUNS_MYPY_RE.search(text):
                yield None
            return
        if (
            relpath.endswith((".sh", ".bash"))
            or not first.startswith("#!")
            or any(shell in first for shell in _SHELLS)
        ):
            pipefail = "pipefail" in text
            for offset, inner, lost in shell_statuses(text, pipefail):
                for inner_loss in self.reaches(inner, cwd, depth + 1):
                    yield Loss(lost, relpath, offset + 1) if lost else inner_loss

    def _at(self, why: str, command: str) -> Loss:
        """A loss at the line of tox's configuration that holds ``command``."""
        # tox substitutes ``{posargs:...}``: match the words before the first one.
        needle = command.strip().split("{", 1)[0].split()[:2]
        # tox.toml and [tool.tox] write a command as a list of strings: `["mypy", "src"]`.
        quoted = ", ".join(f'"{word}"' for word in needle)
        present: list[str] = []
        for relpath in ("tox.ini", "tox.toml", "pyproject.toml"):
            text = self._text(relpath)
            if text is None:
                continue
            present.append(relpath)
            for number, line in enumerate(split_lines(text, keepends=False), start=1):
                if needle and (line.split()[:2] == needle or quoted in line):
                    return Loss(why, relpath, number)
        return Loss(why, present[0] if present else "tox.ini", 1)

    def _poe(self, args: Sequence[str], depth: int) -> Iterator[Loss | None]:
        """The mypy runs of ``poe TASK`` (poethepoet's ``[tool.poe.tasks]`` in
        pyproject.toml: a command string, ``cmd``, ``shell``, ``sequence`` or ``ref``)."""
        name = next((a for a in args if not a.startswith("-")), None)
        text = self._text("pyproject.toml")
        if name is None or text is None:
            return
        try:
            data = toml.loads(text, "pyproject.toml")
        except PolicyError:
            return
        tool = data.get("tool")
        poe = tool.get("poe") if isinstance(tool, dict) else None
        tasks = poe.get("tasks") if isinstance(poe, dict) else None
        if not isinstance(tasks, dict):
            return
        seen: set[str] = set()
        # (the task whose definition holds it, the task or an inline part of it)
        queue: list[tuple[str, object]] = [(name, tasks.get(name))]
        while queue and len(seen) < 64:
            owner, task = queue.pop(0)
            if isinstance(task, dict):
                ref = task.get("ref")
                if isinstance(ref, str):
                    target = ref.split()[0] if ref.split() else ""
                    if target and target not in seen:
                        seen.add(target)
                        queue.append((target, tasks.get(target)))
                    continue
                if isinstance(task.get("sequence"), list):
                    for item in task["sequence"]:
                        if isinstance(item, str) and item not in seen:
                            seen.add(item)
                            queue.append((item, tasks.get(item)))
                        elif isinstance(item, dict):
                            queue.append((owner, item))
                    continue
                task = task.get("cmd", task.get("shell"))
            if isinstance(task, list):
                task = " ".join(str(t) for t in task)
            if not isinstance(task, str):
                continue
            for _offset, inner, lost in shell_statuses(task):
                for inner_loss in self.reaches(inner, ".", depth + 1):
                    if lost:
                        yield Loss(lost, "pyproject.toml", _poe_task_line(text, owner))
                    else:
                        yield inner_loss

    def _make(
        self, make: tuple[str | None, str | None, list[str]], cwd: str, depth: int
    ) -> Iterator[Loss | None]:
        """The mypy runs of ``make [-C DIR] [-f FILE] TARGET...``."""
        directory, name, targets = make
        where = self._path(cwd, directory) if directory else cwd
        if where is None:
            return
        candidates = [name] if name else list(makefile.MAKEFILES)
        for candidate in candidates:
            relpath = self._path(where, candidate)
            text = self._text(relpath) if relpath else None
            if text is not None:
                break
        else:
            return
        assert relpath is not None
        parsed = makefile.parse(text)
        wanted = targets or ([parsed.default] if parsed.default else [])
        seen: set[str] = set()
        queue = list(wanted)
        while queue and len(seen) < 64:
            target = queue.pop(0)
            rule = parsed.rules.get(target)
            if target in seen or rule is None:
                continue
            seen.add(target)
            queue[:0] = rule.prerequisites
            for line, recipe in rule.recipe:
                flags, command_line = makefile.split_prefix(recipe)
                ignored = "the `-` prefix of its Makefile recipe ignores its failure"
                for _offset, inner, lost in shell_statuses(parsed.expand(command_line)):
                    for inner_loss in self.reaches(inner, where, depth + 1):
                        why = (ignored if "-" in flags else None) or lost
                        yield Loss(why, relpath, line) if why else inner_loss


def _pr_ci(root: Path) -> bool:
    """Whether some workflow runs for pull requests: only then does a workflow that never
    does (``push`` or ``schedule`` only) leave pull requests unchecked; a repository
    without pull-request CI has only its ``push`` checks."""
    needles = (b"pull_request", b"merge_group", b"workflow_call")
    return any(pr_gate(doc, root) is not None for doc in load_workflows(root, needles).docs)


def _gates(doc: YamlDoc, root: Path, pr_ci: bool) -> bool:
    """Whether a workflow's checks count for pull requests (see :func:`_pr_ci`)."""
    return not pr_ci or pr_gate(doc, root) is not None


def ci_mypy_runs(root: Path) -> list[MypyRun]:
    """Every workflow ``run:`` command that reaches mypy, directly or through a repository
    script or make target, per matrix row, with why it cannot fail (``|| true``,
    ``continue-on-error``, ``if: false``), if it cannot."""
    follower = _Follower(root)
    out: list[MypyRun] = []
    pr_ci = _pr_ci(root)
    for doc in load_workflows(root, (b"run",)).docs:
        out += _doc_runs(doc, follower, _gates(doc, root, pr_ci))
    return list(dict.fromkeys(out))


def _doc_runs(doc: YamlDoc, follower: _Follower, gates: bool) -> list[MypyRun]:
    """The mypy runs of one workflow (``gates``: whether it checks pull requests)."""
    out: list[MypyRun] = []
    workflow = model(doc)
    for job in workflow.jobs:
        job_never = "`if: false` on the job" if is_false(job.if_) else None
        job_lenient = (
            "`continue-on-error: true` on the job" if is_true(job.continue_on_error) else None
        )
        defaults = job.node.get("defaults")
        run_defaults = defaults.get("run") if isinstance(defaults, dict) else None
        job_cwd = run_defaults.get("working-directory") if isinstance(run_defaults, dict) else None
        for step in job.steps:
            if step.run is None:
                continue
            lost_step = job_never or job_lenient
            if is_false(step.if_):
                lost_step = lost_step or "`if: false`"
            if step_lenient(job, step):
                lost_step = lost_step or "`continue-on-error: true`"
            cwd_value = step.node.get("working-directory", job_cwd)
            cwd = cwd_value if isinstance(cwd_value, str) else "."
            for row in job.matrix:
                script = resolve(step.run, row)
                toxenv = _toxenv(row, step.node.get("env"), job.node.get("env"), workflow.env)
                for offset, words, lost in shell_statuses(script, step.pipefail):
                    line = step.run_line(offset)
                    if toxenv and tox_envs(words) == []:
                        words = [*program_of(words), "-e", toxenv]
                    for inner in follower.reaches(words, resolve(cwd, row)):
                        shown = " ".join(words)
                        if len(shown) > 80:
                            shown = shown[:77] + "..."
                        why = lost_step or lost
                        out.append(
                            MypyRun(
                                doc.relpath,
                                line,
                                shown.replace(UNKNOWN, "${{ … }}"),
                                Loss(why, doc.relpath, line) if why else inner,
                                gates,
                                key_line(doc.data, "on", 1),
                            )
                        )
    return out


def _poe_task_line(text: str, name: str) -> int:
    """The line of pyproject.toml that defines poethepoet task ``name``: its ``NAME =``
    under ``[tool.poe.tasks]`` or its ``[tool.poe.tasks.NAME]`` table; 1 when not found."""
    in_tasks = False
    key = re.compile(rf"""\s*(?:{re.escape(name)}|"{re.escape(name)}"|'{re.escape(name)}')\s*=""")
    for number, line in enumerate(split_lines(text, keepends=False), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            header = stripped.strip("[]").replace(" ", "")
            if header in (f"tool.poe.tasks.{name}", f'tool.poe.tasks."{name}"'):
                return number
            in_tasks = header == "tool.poe.tasks"
        elif in_tasks and key.match(line):
            return number
    return 1


def _toxenv(row: Mapping[str, str], *envs: object) -> str | None:
    """``TOXENV`` from the innermost ``env:`` that sets it (a whole-mapping ``env: ${{
    matrix.env }}`` expanded from the row); None when unset or known only at run time."""
    for env in envs:
        mapping = mapping_of(env, row)
        if mapping and "TOXENV" in mapping:
            value = mapping["TOXENV"]
            return None if UNKNOWN in value or not value.strip() else value.strip()
    return None


# Files whose mention of pre-commit.ci's results says it runs here: its status badge in
# the README, or its check named in Mergify's conditions.
_PRECOMMIT_CI_FILES = ("README.md", "README.rst", "README", ".mergify.yml", ".github/mergify.yml")
_PRECOMMIT_CI_MARKS = (b"results.pre-commit.ci", b"pre-commit.ci - pr")


# CI systems this rule does not read: any of them might run pre-commit.
_OTHER_CI = (
    ".buildkite",
    ".circleci",
    ".gitlab-ci.yml",
    "azure-pipelines.yml",
    ".travis.yml",
    "Jenkinsfile",
)


def _ci_unread(root: Path) -> bool:
    """Whether some CI is out of sight: another CI system, or a job calling another
    repository's reusable workflow (ansible-lint's ``tox -e lint`` passed in ``with:``)."""
    if any((root / name).exists() for name in _OTHER_CI):
        return True
    for doc in load_workflows(root, (b"uses",)).docs:
        for job in model(doc).jobs:
            if job.uses is not None and not job.uses.startswith("./"):
                return True
    return False


def _precommit_ci(root: Path, model: Model) -> bool:
    """Whether pre-commit.ci runs the hooks: a ``ci:`` section, or (set up as a GitHub
    app, with no section) its badge in the README or its check in Mergify's rules."""
    if model.uses_precommit_ci:
        return True
    for relpath in _PRECOMMIT_CI_FILES:
        try:
            real = resolve_inside(root, relpath, relpath)
            if not real.is_file():
                continue
            data = read_bounded(real, relpath, MAX_SCRIPT_BYTES)
        except (PolicyError, OSError):
            continue
        if any(mark in data for mark in _PRECOMMIT_CI_MARKS):
            return True
    return False


def _ci_runs_hook(
    hook: Hook, model: Model, scan: CiScan, gating: Mapping[str, bool], precommit_ci: bool
) -> bool:
    """Whether CI runs ``hook`` for pull requests so that it can fail: pre-commit.ci (see
    :func:`_precommit_ci`) at the commit stage, or a workflow step (``run:``, an action,
    a tox env or make target) that can run and fail, in a workflow that runs for pull requests
    (``gating``: by workflow path), at a stage of the hook; manual-stage hooks only with
    ``--all-files``."""
    stages = model.stages_of(hook)
    manual_only = stages == (MANUAL,)
    committing = stages is None or "pre-commit" in stages or "commit" in stages
    ci_skipped = {hook_id for hook_id, _line in model.ci_skip()}
    if precommit_ci and committing and hook.id not in ci_skipped:
        return True
    for step in scan.steps:
        command = step.command
        if step.never_runs is not None or step.cannot_fail is not None:
            continue
        if not gating.get(step.relpath, True):
            continue
        stage = command.stage or "pre-commit"
        if not command.unknown and stages is not None and stage not in stages:
            if not (stage == "pre-commit" and "commit" in stages):
                continue
        if manual_only and not (command.all_files or command.scoped or command.unknown):
            continue
        if command.hook not in (None, hook.id) and not command.unknown:
            continue
        if hook.id in {hook_id for hook_id, _line in step.skip}:
            continue
        return True
    return False


def _never_run(hooks: Sequence[Hook], model: Model, config: Config) -> tuple[list[Hook], bool]:
    """The mypy hooks CI never runs for pull requests (see :func:`_ci_runs_hook`; in a
    repository without workflows, the manual-stage ones); and
    whether ``ci-hook-stage`` reports that already for the manual-stage ones (CI is meant
    to run the manual stage here and has workflows)."""
    if not hooks:
        return [], False
    scan = scan_ci(config.root)
    pr_ci = _pr_ci(config.root)
    gating = {doc.relpath: _gates(doc, config.root, pr_ci) for doc, _jobs in scan.docs}
    meaning = manual_stage_meaning(
        config.section(PreCommitConfig).manual_stage, model.default_stages, scan
    )
    said = meaning == "ci" and bool(workflow_paths(config.root))
    if not workflow_paths(config.root) or _ci_unread(config.root):
        # No CI here to run it (a hook at a commit stage is the check there is), or CI
        # this rule cannot read (which might run pre-commit): only the manual stage is known.
        return [h for h in hooks if model.stages_of(h) == (MANUAL,)], said
    precommit_ci = _precommit_ci(config.root, model)
    return [h for h in hooks if not _ci_runs_hook(h, model, scan, gating, precommit_ci)], said


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
                    RULE_ID,
                    f"hook '{hook.id}' passes --config-file {explicit}, which does not exist",
                )
        elif config_at is None:
            yield Finding(
                model.relpath,
                hook.line,
                1,
                RULE_ID,
                f"hook '{hook.id}' runs mypy but the repo has no mypy configuration "
                "([tool.mypy] in pyproject.toml or mypy.ini), so it checks with defaults",
            )
    idle, said = _never_run(mypy_hooks, model, ctx.config) if model is not None else ([], False)
    if config_at is None and not mypy_hooks:
        return  # nothing to wire
    runs = ci_mypy_runs(ctx.root)
    hook_runs = len(idle) < len(mypy_hooks)
    wired = (
        hook_runs
        or any(run.loss is None and run.gates for run in runs)
        or _tox_or_nox_runs_mypy(ctx.root)
    )
    yield from _cannot_fail(runs, wired)
    if wired:
        return
    yield from _ungated(runs)
    if idle:
        assert model is not None
        for hook in idle:
            if model.stages_of(hook) != (MANUAL,):
                yield Finding(
                    model.relpath,
                    hook.line,
                    1,
                    RULE_ID,
                    f"hook '{hook.id}' runs mypy only where pre-commit runs locally: no CI "
                    "step that can fail runs it for pull requests and pre-commit.ci is not "
                    "set up (no `ci:` section, no pre-commit.ci badge in the README), so no "
                    "pull request is checked with mypy",
                )
            elif not said:  # else ci-hook-stage names the step that should run it
                yield Finding(
                    model.relpath,
                    hook.line,
                    1,
                    RULE_ID,
                    f"hook '{hook.id}' runs mypy only at the manual stage, which nothing runs "
                    "(no workflow step runs `pre-commit run --all-files --hook-stage manual`; "
                    "pre-commit.ci never does), so mypy never runs",
                )
        return
    if runs:
        return  # each run that cannot fail or gates no pull request is reported at its line
    if config_at is None:
        return
    path, line = config_at
    yield Finding(
        path,
        line,
        1,
        RULE_ID,
        "a mypy configuration exists but no pre-commit hook or workflow step runs mypy; add a hook "
        "(e.g. with `stages: [manual]` so CI runs it)",
    )


def _cannot_fail(runs: Sequence[MypyRun], wired: bool) -> Iterator[Finding]:
    """Each CI mypy run that cannot fail, once, at the line that makes it so: a check that
    cannot fail checks nothing, whether or not another run of mypy can."""
    seen: set[tuple[str, int]] = set()
    for run in runs:
        loss = run.loss
        if loss is None or (loss.relpath, loss.line) in seen:
            continue
        seen.add((loss.relpath, loss.line))
        if loss.relpath == run.relpath and loss.line == run.line:
            what = f"`{run.shown}` runs mypy but"
        else:
            what = f"mypy, run here by `{run.shown}` ({run.relpath}:{run.line}),"
        rest = (
            "another run of mypy still checks, so this one only hides what it finds; let it fail "
            "or remove it"
            if wired
            else "nothing else runs mypy"
        )
        yield Finding(
            loss.relpath,
            loss.line,
            1,
            RULE_ID,
            f"{what} cannot fail the check: {loss.why}; {rest}",
        )


def _ungated(runs: Sequence[MypyRun]) -> Iterator[Finding]:
    """Each workflow whose mypy runs gate no pull request (``push``, ``schedule``,
    ``workflow_dispatch`` only), once, at its ``on:``, when nothing else runs mypy for
    pull requests."""
    seen: set[str] = set()
    for run in runs:
        if run.gates or run.loss is not None or run.relpath in seen:
            continue
        seen.add(run.relpath)
        yield Finding(
            run.relpath,
            run.on_line,
            1,
            RULE_ID,
            f"`{run.shown}` (line {run.line}) runs mypy but this workflow never runs for pull "
            "requests (no `pull_request` or `merge_group` trigger, nor a caller that has "
            "one), and nothing else runs mypy for them, so no pull request is checked with mypy",
        )


def _tox_or_nox_runs_mypy(root: Path) -> bool:
    """Whether a workflow runs mypy through a tox environment, a nox session or another
    repository's pinned reusable typing workflow."""
    nox_mypy: bool | None = None
    pr_ci = _pr_ci(root)
    for doc in load_workflows(root, (b"tox", b"nox", b"mypy", b"typing")).docs:
        if not _gates(doc, root, pr_ci):
            continue
        if any(_typing_workflow(job.uses) for job in model(doc).jobs):
            return True
        for _line, words, via in workflow_commands(doc, root):
            if via and command_runs_mypy(words):
                return True
            if words and words[0].rsplit("/", 1)[-1] == "nox":
                if nox_mypy is None:
                    nox_mypy = bool(nox_programs(root) & _MYPY_PROGRAMS)
                if nox_mypy:
                    return True  # a nox session runs mypy (which ones CI runs may be run-time only)
    return False


def _typing_workflow(uses: str | None) -> bool:
    """Whether a job calls another repository's reusable workflow pinned to a commit
    whose file name says it type-checks (torchmetrics:
    ``Lightning-AI/utilities/.github/workflows/check-typing.yml@<sha>``); local ones are
    read like any other workflow."""
    if uses is None or uses.startswith("./") or "@" not in uses:
        return False
    path, ref = uses.rsplit("@", 1)
    stem = Path(path).stem.lower()
    return bool(_SHA_RE.fullmatch(ref)) and ("mypy" in stem or "typing" in stem)


def _triggers(config: Config) -> Sequence[str]:
    return (
        f"{WORKFLOW_DIR}/*",
        config.section(PreCommitConfig).file,
        "pyproject.toml",
        "mypy.ini",
        ".mypy.ini",
        "setup.cfg",
        "tox.ini",
        "tox.toml",
        "noxfile.py",
        *makefile.MAKEFILES,
        *_PRECOMMIT_CI_FILES,
    )


DOC = """\
## What it checks

- A mypy configuration (`[tool.mypy]` in pyproject.toml, `mypy.ini`, `.mypy.ini`,
  `[mypy]` in setup.cfg) is used: some pre-commit hook runs mypy (by id, the
  mirrors-mypy repo, or an entry whose program is mypy), or a workflow command does
  (`mypy`, `python -m mypy`, `uv run mypy`, a script named `mypy.py`/`mypy.sh`, a tox
  environment whose commands run it, or a nox session that does), or a job calls
  another repository's reusable workflow, pinned to a commit, whose file name says
  `mypy` or `typing` (`Lightning-AI/utilities/.github/workflows/check-typing.yml@<sha>`).
- Workflow commands are followed into the repository's scripts (`bin/lint`, `bash
  tools/lint.sh`, `python tools/lint.py`) and make targets (`make lint`, with its
  prerequisites), matrix values expanded (`run: ${{ matrix.command }}`). Scripts and
  Makefiles are read, never run: inside the repository only (a symlink out is not
  followed), at most 256 KiB each, 32 files and 4 levels deep.
- A mypy run that cannot fail does not count: `mypy || true`, a pipe without
  `pipefail`, `continue-on-error: true`, `if: false`, a `-` recipe prefix. Each such run
  is a finding at the line that makes it so (the workflow step, the Makefile recipe or
  the script line), whether or not another run of mypy still checks: a check that cannot
  fail hides what it finds. `mypy -c "import x"` (a cache warm-up) and `mypy --version`
  check no file of the repository and are not runs of mypy.
- A mypy hook counts when CI runs it for pull requests: at a commit stage when
  pre-commit.ci runs it (a `ci:` section, its badge in the README or its check in
  Mergify's rules) or a workflow step that can fail runs `pre-commit run`; at the
  manual stage only when such a step runs `pre-commit run --all-files --hook-stage
  manual` (pre-commit.ci never runs the manual stage). A repository without workflows
  has only its commit-stage hooks. A mypy hook nothing in CI runs (moved to
  `stages: [manual]`, or at the commit stage of a repository whose CI never runs
  pre-commit) is a finding at the hook.
- Only workflows that run for pull requests count (`pull_request`, also narrowed by
  `paths:`, `pull_request_target`, `merge_group`, or a local caller that has one; the
  same reading as `ci-hook-stage`) when some workflow does: a mypy step on `push`,
  `schedule` or `workflow_dispatch` only checks no pull request, and is a finding at
  the workflow's `on:` when nothing else runs mypy.
- `tox` is followed into the environment's commands (`-e`, or `TOXENV` from the step,
  job or workflow `env:`, including a whole-mapping `env: ${{ matrix.env }}`; a `- `
  prefix ignores mypy's exit code), and `poe TASK` into poethepoet's
  `[tool.poe.tasks]` (a command string, `cmd`, `shell`, `sequence`, `ref`).
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
.github/workflows/lint.yml:7:1: mypy-wired `mypy src` runs mypy but cannot fail the \
check: `|| true` swallows its failure; nothing else runs mypy
Makefile:12:1: mypy-wired mypy, run here by `make lint` (.github/workflows/lint.yml:42), \
cannot fail the check: `|| true` swallows its failure; another run of mypy still checks, \
so this one only hides what it finds; let it fail or remove it
.pre-commit-config.yaml:7:1: mypy-wired hook 'mypy' runs mypy only at the manual stage, \
which nothing runs (no workflow step runs `pre-commit run --all-files --hook-stage \
manual`; pre-commit.ci never does), so mypy never runs
```

## Fix

Add a mypy hook (vLLM runs it with `stages: [manual]`, and CI with `--hook-stage
manual`), or run it in a workflow so that its failure fails the check; or delete the
unused configuration. `policytool fix` does not change this rule's findings.

## Configuration

None.
"""


register(
    RepoRule(
        id=RULE_ID,
        summary=SUMMARY,
        check=check_mypy,
        triggers=_triggers,
        doc=DOC,
        group="repo",
    )
)
