# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``mypy-wired`` counts only what CI runs for pull requests (issue 21, unseen bench):
a commit-stage hook nothing in CI runs, a schedule-only workflow, a whole-mapping
matrix ``env:`` selecting the tox env, and poethepoet tasks."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Repo, Result
from tests.precommit_helpers import line_of, rule_lines

Run = Callable[..., Result]

MYPY_HOOK = (
    "repos:\n  - repo: https://github.com/pre-commit/mirrors-mypy\n"
    "    rev: 0123456789abcdef0123456789abcdef01234567  # v1.11.2\n"
    "    hooks:\n      - id: mypy\n"
)
TESTS = "on: pull_request\njobs:\n  t:\n    runs-on: x\n    steps:\n      - run: pytest\n"


def _wf(on: str, run: str) -> str:
    return f"on: {on}\njobs:\n  t:\n    runs-on: x\n    steps:\n      - run: {run}\n"


def test_a_commit_stage_hook_counts_only_when_ci_runs_pre_commit(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[tool.mypy]\nstrict = true\n")
    repo.write(".pre-commit-config.yaml", MYPY_HOOK)
    repo.write(".github/workflows/tests.yml", TESTS)
    repo.commit()
    result = run("check", "--only=mypy-wired")
    assert rule_lines(result.out, "mypy-wired") == [(".pre-commit-config.yaml", 5)]
    assert "no CI step that can fail runs it for pull requests" in result.out
    # pre-commit.ci (a `ci:` section) runs it.
    repo.write(".pre-commit-config.yaml", "ci:\n  autofix_prs: false\n" + MYPY_HOOK)
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0
    # So does pre-commit.ci set up as a GitHub app only: its badge in the README (pytest).
    repo.write(".pre-commit-config.yaml", MYPY_HOOK)
    repo.write("README.rst", ".. image:: https://results.pre-commit.ci/badge/github/o/r/main.svg\n")
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0
    # So does a workflow step on pull requests; not one on a schedule only.
    repo.write("README.rst", "x\n")
    repo.write(".github/workflows/lint.yml", _wf("schedule", "pre-commit run --all-files"))
    repo.commit()
    assert rule_lines(run("check", "--only=mypy-wired").out, "mypy-wired") == [
        (".pre-commit-config.yaml", 5)
    ]
    repo.write(".github/workflows/lint.yml", _wf("pull_request", "pre-commit run --all-files"))
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0


def test_a_repository_without_ci_keeps_its_commit_hook(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[tool.mypy]\n")
    repo.write(".pre-commit-config.yaml", MYPY_HOOK)
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0


def test_ci_out_of_sight_keeps_the_commit_hook(repo: Repo, run: Run) -> None:
    """ansible-lint passes ``tox -e lint`` (which runs pre-commit) to another repository's
    reusable workflow: what it runs is not known here, so the hook is not reported."""
    repo.write("pyproject.toml", "[tool.mypy]\n")
    repo.write(".pre-commit-config.yaml", MYPY_HOOK)
    repo.write(".github/workflows/tests.yml", TESTS)
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 1
    call = (
        "on: pull_request\njobs:\n  tox:\n    uses: o/devtools/.github/workflows/tox.yml@"
        "0123456789abcdef0123456789abcdef01234567\n    with:\n      names: tox -e lint\n"
    )
    repo.write(".github/workflows/tox.yml", call)
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0


def test_a_workflow_that_never_runs_for_pull_requests_does_not_count(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[tool.mypy]\n")
    repo.write(".github/workflows/tests.yml", TESTS)
    repo.write(".github/workflows/optional.yml", _wf("[schedule, workflow_dispatch]", "mypy ."))
    repo.write(".github/workflows/checks.yml", _wf("[push, pull_request]", "uv run mypy ."))
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0
    # `pull_request` deleted from the only PR workflow running mypy: a finding at its `on:`.
    repo.write(".github/workflows/checks.yml", _wf("[push, schedule]", "uv run mypy ."))
    repo.commit()
    result = run("check", "--only=mypy-wired")
    lines = rule_lines(result.out, "mypy-wired")
    assert (".github/workflows/checks.yml", 1) in lines
    assert "never runs for pull requests" in result.out
    # A `paths:`-narrowed pull_request trigger, or merge_group, still gates.
    narrowed = "\n  pull_request:\n    paths: ['**.py']\n"
    repo.write(".github/workflows/checks.yml", _wf(narrowed, "uv run mypy ."))
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0


def test_a_whole_mapping_matrix_env_selects_the_tox_env(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[tool.mypy]\n")
    repo.write(
        "tox.ini",
        "[testenv:pylint]\ncommands =\n    pylint x\n\n"
        "[testenv:mypy]\ncommands =\n    mypy {posargs:x tests}\n",
    )
    workflow = (
        "on: pull_request\njobs:\n  checks:\n    runs-on: x\n    strategy:\n      matrix:\n"
        "        include:\n        - python-version: '3.14'\n          env:\n"
        "            TOXENV: pylint\n        - python-version: '3.10'\n          env:\n"
        "            TOXENV: mypy\n    steps:\n    - name: Run check\n"
        "      env: ${{ matrix.env }}\n      run: uvx --with tox-uv tox\n"
    )
    repo.write(".github/workflows/checks.yml", workflow)
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0
    # tox's `- ` prefix ignores mypy's exit code: a finding at the tox.ini line.
    repo.write("tox.ini", repo.read("tox.ini").decode().replace("    mypy", "    - mypy"))
    repo.commit()
    result = run("check", "--only=mypy-wired")
    assert rule_lines(result.out, "mypy-wired") == [("tox.ini", 7)]
    assert "tox's `- ` prefix" in result.out


POE = """\
[tool.mypy]
strict = true

[tool.poe.tasks]
lint = "ruff check ."
typing = {cmd = "mypy src"}
check-sh = {shell = "ruff check . && mypy src || true"}
all = {sequence = ["lint", "typing"]}
alias = {ref = "typing"}
"""


def test_a_swallowing_poe_task_in_its_own_table_is_reported_at_its_header(
    repo: Repo, run: Run
) -> None:
    repo.write(
        "pyproject.toml",
        '[tool.mypy]\nstrict = true\n\n[tool.poe.tasks.typing]\nshell = "mypy src || true"\n',
    )
    repo.write(
        ".github/workflows/ci.yaml",
        "on: pull_request\njobs:\n  t:\n    runs-on: x\n    steps:\n      - run: poe typing\n",
    )
    repo.commit()
    assert rule_lines(run("check", "--only=mypy-wired").out, "mypy-wired") == [
        ("pyproject.toml", 4)
    ]


def test_a_tox_toml_env_that_ignores_mypy_is_reported_at_its_command(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[tool.mypy]\nstrict = true\n")
    repo.write(
        "tox.toml",
        'env_list = ["type"]\n\n[env.type]\ndeps = ["mypy"]\ncommands = [["-", "mypy", "src"]]\n',
    )
    repo.write(
        ".github/workflows/ci.yaml",
        "on: pull_request\njobs:\n  t:\n    runs-on: x\n    steps:\n      - run: tox -e type\n",
    )
    repo.commit()
    result = run("check", "--only=mypy-wired")
    # tox.toml writes the command as a list of strings: the finding is at that line.
    assert rule_lines(result.out, "mypy-wired") == [("tox.toml", 5)]
    assert "tox's `- ` prefix" in result.out


def test_poethepoet_tasks_are_followed(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", POE + 'mypy = "mypy"\n')
    matrix = (
        "on: pull_request\njobs:\n  test:\n    runs-on: x\n    strategy:\n      matrix:\n"
        "        include:\n          - task: lint\n          - task: {task}\n    steps:\n"
        "      - run: uv run --python 3.14 poe ${{{{ matrix.task }}}}\n"
    )
    for task in ("mypy", "typing", "all", "alias"):
        repo.write(".github/workflows/ci.yaml", matrix.format(task=task))
        repo.commit()
        assert run("check", "--only=mypy-wired").code == 0, task
    # A shell task that swallows mypy's failure does not count, and is reported.
    repo.write(".github/workflows/ci.yaml", matrix.format(task="check-sh"))
    repo.commit()
    result = run("check", "--only=mypy-wired")
    # At the line that defines the task, not line 1 of pyproject.toml.
    assert ("pyproject.toml", line_of(POE, "check-sh =")) in rule_lines(result.out, "mypy-wired")
    assert "`|| true`" in result.out
    # A task that does not run mypy does not count.
    repo.write(".github/workflows/ci.yaml", matrix.format(task="lint"))
    repo.commit()
    assert rule_lines(run("check", "--only=mypy-wired").out, "mypy-wired") == [
        ("pyproject.toml", 1)
    ]


_NAME = st.from_regex(r"[A-Z][A-Z0-9_]{0,6}", fullmatch=True)
_VALUE = st.from_regex(r"[a-z0-9-]{1,8}", fullmatch=True)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.dictionaries(_NAME, _VALUE, min_size=1, max_size=3), min_size=1, max_size=4))
def test_a_whole_mapping_matrix_value_round_trips(envs: list[dict[str, str]]) -> None:
    from policytool.formats.matrix import mapping_of, matrix_rows

    job = {"strategy": {"matrix": {"include": [{"py": "3.1", "env": e} for e in envs]}}}
    rows = matrix_rows(job, "w.yml", "j")
    assert [mapping_of("${{ matrix.env }}", row) for row in rows] == envs
    assert [mapping_of("${{matrix.env}}", row) for row in rows] == envs
    # A literal mapping resolves its values from the row.
    assert mapping_of({"A": "${{ matrix.py }}"}, rows[0]) == {"A": "3.1"}
