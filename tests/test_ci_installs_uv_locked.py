# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``ci-floating-install`` on ``uv sync`` / ``uv run``: a committed ``uv.lock`` that CI may
re-resolve (no ``--locked``, no ``--frozen``, no lock check anywhere), and its fix."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from policytool.formats import shell
from policytool.rules import _uv_locked
from policytool.rules._uv_locked import uv_project_command
from tests.conftest import Repo, Result

Run = Callable[..., Result]
RULE = "ci-floating-install"
PYPROJECT = '[project]\nname = "demo"\nversion = "0"\ndependencies = ["click"]\n'


@pytest.fixture
def run(run_staged: Run) -> Run:
    """The CLI runner, after staging every file (a full run checks tracked files)."""
    return run_staged


def workflow(steps: str, env: str = "", job_env: str = "") -> str:
    """A workflow with one job ``test`` running ``steps`` (a YAML list, 6 spaces in)."""
    return (
        f"name: ci\non: pull_request\n{env}jobs:\n  test:\n    runs-on: ubuntu-latest\n"
        f"{job_env}    steps:\n      - uses: actions/checkout@v4\n{steps}"
    )


def uv_findings(run: Run) -> list[tuple[str, int, str]]:
    """(path, line, command shown) of the rule's ``uv sync``/``uv run`` findings."""
    result = run("check", "--only", RULE, "--format", "json")
    assert result.code in (0, 1), result.err
    out = []
    for finding in json.loads(result.out):
        if finding["rule"] == RULE and "re-resolves" in finding["message"]:
            shown = finding["message"].split("`")[1]
            out.append((finding["path"], finding["line"], shown))
    return out


def project(repo: Repo, lock: bool = True) -> None:
    """A uv project at the root (with its committed lock unless ``lock`` is false)."""
    repo.write("pyproject.toml", PYPROJECT)
    if lock:
        repo.write("uv.lock", "version = 1\n")


def test_uv_sync_and_run_without_locked_are_reported(repo: Repo, run: Run) -> None:
    """datatrove's shape: ``uv sync --extra testing`` then ``uv run pytest``."""
    project(repo)
    steps = "      - run: |\n          uv sync --extra testing\n          uv run pytest\n"
    repo.write(".github/workflows/ci.yml", workflow(steps))
    assert uv_findings(run) == [
        (".github/workflows/ci.yml", 9, "uv sync --extra testing"),
        (".github/workflows/ci.yml", 10, "uv run pytest"),
    ]


@pytest.mark.parametrize(
    "command",
    [
        "uv sync --locked",
        "uv sync --frozen --extra dev",
        "uv run --frozen pytest",
        "uv run --no-sync pytest",
        "uv run --no-project --with certifi python x.py",
        "uv run --script tools/x.py",
        "uv sync --check",
        "UV_FROZEN=1 uv sync",
        "env UV_LOCKED=1 uv sync",
        "export UV_FROZEN=1\n          uv sync",
        "uv pip install -r requirements.txt",
        "uv tool run --from 'ruff==0.6.0' ruff check",
        "uv lock --upgrade",
        "echo uv sync",
        "uv sync ${{ inputs.uv_sync_args }}",
        "uv run $UV_ARGS pytest",
    ],
)
def test_commands_that_keep_the_lock_pass(repo: Repo, run: Run, command: str) -> None:
    """A flag, a variable on the command or exported before it, or another uv command."""
    project(repo)
    repo.write(".github/workflows/ci.yml", workflow(f"      - run: |\n          {command}\n"))
    assert uv_findings(run) == []


@pytest.mark.parametrize(
    ("env", "job_env", "step_env"),
    [
        ("env:\n  UV_FROZEN: '1'\n", "", ""),
        ("", "    env:\n      UV_LOCKED: 'true'\n", ""),
        ("", "", "        env:\n          UV_FROZEN: 1\n"),
    ],
)
def test_the_variables_of_workflow_job_and_step_env_settle_it(
    repo: Repo, run: Run, env: str, job_env: str, step_env: str
) -> None:
    """pydantic-ai sets ``UV_FROZEN: "1"`` for the whole workflow."""
    project(repo)
    steps = f"      - run: uv sync\n{step_env}"
    repo.write(".github/workflows/ci.yml", workflow(steps, env, job_env))
    assert uv_findings(run) == []


def test_an_off_value_does_not_settle_it(repo: Repo, run: Run) -> None:
    """``UV_FROZEN: "0"`` is off: uv still locks."""
    project(repo)
    steps = "      - run: uv sync\n        env:\n          UV_FROZEN: '0'\n"
    repo.write(".github/workflows/ci.yml", workflow(steps))
    assert [f[2] for f in uv_findings(run)] == ["uv sync"]


def test_a_github_env_write_settles_the_jobs_later_steps(repo: Repo, run: Run) -> None:
    """``echo "UV_FROZEN=1" >> "$GITHUB_ENV"`` in an earlier step of the same job."""
    project(repo)
    steps = '      - run: echo "UV_FROZEN=1" >> "$GITHUB_ENV"\n      - run: uv sync\n'
    repo.write(".github/workflows/ci.yml", workflow(steps))
    assert uv_findings(run) == []


@pytest.mark.parametrize(
    "check",
    [
        "      - run: uv lock --check\n",
        "      - run: uv sync --locked --group lint\n",
    ],
)
def test_a_lock_check_anywhere_in_ci_leaves_the_repository_alone(
    repo: Repo, run: Run, check: str
) -> None:
    """A stale lock already fails that step; the others run the lock once it is fixed
    (even when the check sits in another workflow than the one given)."""
    project(repo)
    repo.write(".github/workflows/ci.yml", workflow("      - run: uv sync\n"))
    repo.write(".github/workflows/lint.yml", workflow(check))
    assert uv_findings(run) == []
    repo.git("add", "-A")
    result = run("check", "--only", RULE, ".github/workflows/ci.yml")
    assert "re-resolves" not in result.out


def test_the_uv_lock_pre_commit_hook_is_a_lock_check(repo: Repo, run: Run) -> None:
    """astral-sh/uv-pre-commit's ``uv-lock`` fails when it has to rewrite the lock."""
    project(repo)
    repo.write(".github/workflows/ci.yml", workflow("      - run: uv sync\n"))
    repo.write(
        ".pre-commit-config.yaml",
        "repos:\n- repo: https://github.com/astral-sh/uv-pre-commit\n  rev: 0.5.1\n"
        "  hooks:\n  - id: uv-lock\n",
    )
    assert uv_findings(run) == []


def test_a_project_without_a_committed_lock_is_not_judged(repo: Repo, run: Run) -> None:
    """A library that does not commit ``uv.lock``: nothing to keep."""
    project(repo, lock=False)
    repo.write(".github/workflows/ci.yml", workflow("      - run: uv sync\n"))
    assert uv_findings(run) == []


def test_the_lock_is_found_where_the_command_runs(repo: Repo, run: Run) -> None:
    """``--directory``, ``working-directory`` and a workspace member (its lock is the
    workspace's, above it); an expression is decided at run time; ``..`` leaves the
    repository and is not followed."""
    repo.write("pyproject.toml", PYPROJECT)
    repo.write("sub/pyproject.toml", PYPROJECT)
    repo.write("sub/uv.lock", "version = 1\n")
    repo.write("ws/uv.lock", "version = 1\n")
    repo.write("ws/packages/a/pyproject.toml", PYPROJECT)
    steps = (
        "      - run: uv sync\n"  # root: no lock
        "      - run: uv --directory sub sync\n"
        "      - run: uv sync --project=sub\n"
        "      - run: uv sync\n        working-directory: ./sub\n"
        "      - run: uv run pytest\n        working-directory: ws/packages/a\n"
        "      - run: uv sync\n        working-directory: ${{ matrix.dir }}\n"
        "      - run: uv sync --directory ../elsewhere\n"
    )
    repo.write(".github/workflows/ci.yml", workflow(steps))
    assert [(line, shown) for _path, line, shown in uv_findings(run)] == [
        (9, "uv --directory sub sync"),
        (10, "uv sync --project=sub"),
        (11, "uv sync"),
        (13, "uv run pytest"),
    ]


def test_a_lock_outside_the_repository_is_never_read(repo: Repo, run: Run) -> None:
    """The PR writes the paths: ``--directory ..`` and a symlink out of the repository
    both reach a ``uv.lock`` outside it; neither is looked at, so neither is judged."""
    outside = repo.root.parent / "outside"
    outside.mkdir()
    (outside / "uv.lock").write_text("version = 1\n")
    (repo.root.parent / "uv.lock").write_text("version = 1\n")
    (repo.root / "linked").symlink_to(outside, target_is_directory=True)
    repo.write("pyproject.toml", PYPROJECT)
    steps = (
        "      - run: uv sync --directory ..\n"
        "      - run: uv --project ../outside sync\n"
        "      - run: uv sync\n        working-directory: linked\n"
    )
    repo.write(".github/workflows/ci.yml", workflow(steps))
    assert uv_findings(run) == []


def test_a_hostile_directory_depth_is_not_walked(repo: Repo, run: Run) -> None:
    """A 5,000-level ``--directory`` (the PR writes it) is not looked up level by level:
    past :data:`MAX_PROJECT_DEPTH` the command is not judged, at once."""
    project(repo)
    deep = "/".join(["d"] * 5000)
    lines = "".join(f"          uv sync --directory {deep}/{i}\n" for i in range(40))
    repo.write(".github/workflows/ci.yml", workflow(f"      - run: |\n{lines}"))
    started = time.perf_counter()
    assert uv_findings(run) == []
    assert time.perf_counter() - started < 5
    assert _uv_locked.committed_lock(repo.root, "", "/".join(["sub"] * 32)) == "uv.lock"
    assert _uv_locked.committed_lock(repo.root, "", "/".join(["sub"] * 33)) is None


def test_scripts_and_dockerfiles_are_read(repo: Repo, run: Run) -> None:
    """A CI script and a Dockerfile ``RUN``; a Dockerfile ``ENV UV_FROZEN=1`` settles it."""
    project(repo)
    repo.write(".ci/test.sh", "#!/bin/sh\nset -e\nuv run pytest\n")
    repo.write("Dockerfile", "FROM python:3.12\nRUN uv sync\n")
    repo.write("docker/Dockerfile.frozen", "FROM python:3.12\nENV UV_FROZEN=1\nRUN uv sync\n")
    assert uv_findings(run) == [(".ci/test.sh", 3, "uv run pytest"), ("Dockerfile", 2, "uv sync")]


def test_a_script_is_left_alone_when_a_workflow_sets_uv_frozen(repo: Repo, run: Run) -> None:
    """openai-agents: the workflow sets ``UV_FROZEN``; which step runs the script is not
    known, so its commands may run with it."""
    project(repo)
    repo.write(".ci/test.sh", "#!/bin/sh\nuv run pytest\n")
    env = "env:\n  UV_FROZEN: '1'\n"
    repo.write(".github/workflows/ci.yml", workflow("      - run: sh .ci/test.sh\n", env))
    assert uv_findings(run) == []


def test_a_bash_array_is_not_a_command(repo: Repo, run: Run) -> None:
    """``UV_RUN=(uv run)`` builds a command line; the shell does not run it there."""
    project(repo)
    repo.write(".ci/test.sh", '#!/bin/bash\nUV_RUN=(uv run)\n"${UV_RUN[@]}" pytest\n')
    assert uv_findings(run) == []


def test_fix_writes_locked_after_the_verb_and_nothing_else(repo: Repo, run: Run) -> None:
    """The fix inserts `` --locked``; the rest of the file stays byte-identical, and the
    fixed repository has no finding left."""
    project(repo)
    steps = (
        "      - name: Install\n        run: |\n          uv sync --extra testing  # deps\n"
        "          uv run   pytest -x\n"
        "      - run: python -m uv run ruff check\n"
    )
    before = workflow(steps)
    repo.write(".github/workflows/ci.yml", before)
    result = run("fix", "--only", RULE)
    assert result.code == 1, result.out + result.err  # ``fix`` exits 1 when it changed files
    assert "fixed .github/workflows/ci.yml" in result.err
    after = (repo.root / ".github/workflows/ci.yml").read_text()
    expected = (
        before.replace("uv sync --extra", "uv sync --locked --extra")
        .replace("uv run   pytest", "uv run --locked   pytest")
        .replace("uv run ruff", "uv run --locked ruff")
    )
    assert after == expected
    assert uv_findings(run) == []


def test_a_quoted_verb_is_reported_without_a_fix(repo: Repo, run: Run) -> None:
    """``uv "sync"``: the edit would land inside the quotes; reported, not fixed."""
    project(repo)
    before = workflow('      - run: uv "sync"\n')
    repo.write(".github/workflows/ci.yml", before)
    assert [f[2] for f in uv_findings(run)] == ['uv "sync"']
    run("fix", "--only", RULE)
    assert (repo.root / ".github/workflows/ci.yml").read_text() == before


_WORDS = st.sampled_from(
    ["uv", "sync", "run", "--locked", "--frozen", "--directory", "sub", "-p", "3.12",
     "--extra", "dev", "pytest", "--no-sync", "python", "-m", "UV_FROZEN=1", "env", "'x y'"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=8))
@example(["uv", "sync", "uv", "--locked"])  # found by this test: a stray word ended `sync`
@example(["uv", "sync", "--directory", "--locked"])  # found by this test: an option as a value
@example(["uv", "--directory", "sync", "--locked", "sync"])  # found by this test: its own oracle
def test_parsing_any_command_line_never_fails(words: list[str]) -> None:
    """Any word sequence parses to no command or one whose verb is ``sync``/``run``, and
    a command that names ``--locked``/``--frozen`` before its own command is settled."""
    script = shell.parse(" ".join(words))
    for command in script.commands:
        found = uv_project_command(command)
        if found is None:
            continue
        assert found.verb.value in ("sync", "run")
        unwrapped = list(shell.unwrap(command))
        # the verb's own position: the same word may come earlier as a value
        # (`uv --directory sync --locked sync`)
        verb_at = next(i for i, w in enumerate(unwrapped) if w.start == found.verb.start)
        options = [w.value for w in unwrapped[verb_at + 1 :]]
        if found.verb.value == "sync" and ("--locked" in options or "--frozen" in options):
            assert found.settled
