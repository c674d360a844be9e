# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``mypy-wired``: a mypy configuration is used by some hook or workflow step, and a
hook that runs mypy has a configuration."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from policytool.config import Config
from policytool.core.boundary import read_bounded, resolve_inside
from policytool.core.text import split_lines
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import PolicyError
from policytool.formats import toml
from policytool.formats.gha import WORKFLOW_DIR, load_workflows, workflow_commands
from policytool.formats.gha import model as workflow_model
from policytool.formats.precommit import Hook
from policytool.formats.shell import program_of
from policytool.formats.shell import split as tokens
from policytool.formats.tox import nox_programs
from policytool.rules._precommit_model import usable_model
from policytool.rules._repo_config import PreCommitConfig

RULE_ID = "mypy-wired"
SUMMARY = "a mypy configuration is run by some hook or CI command, and a mypy hook has one"

_MYPY_PROGRAMS = frozenset({"mypy", "dmypy"})
_SHA_RE = re.compile(r"[0-9a-f]{40}")


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
    if config_at is None or mypy_hooks:
        return
    nox_mypy: bool | None = None
    for doc in load_workflows(ctx.root, (b"mypy", b"tox", b"nox", b"typing")).docs:
        if any(_typing_workflow(job.uses) for job in workflow_model(doc).jobs):
            return
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
        RULE_ID,
        "a mypy configuration exists but no pre-commit hook or workflow step runs mypy; add a hook "
        "(e.g. with `stages: [manual]` so CI runs it)",
    )


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
