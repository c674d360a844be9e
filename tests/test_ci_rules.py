# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``ci-hook-stage``, ``mypy-wired`` and ``codeql-workflow`` on real workflow files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from policytool.formats.precommit_run import parse_run_commands
from tests.conftest import Repo, Result
from tests.precommit_helpers import check_jsonschema, line_of, rule_lines

Run = Callable[..., Result]

PRECOMMIT = """\
default_stages: [pre-commit, manual]
repos:
  - repo: local
    hooks:
      - id: mypy-3.12
        name: mypy
        entry: mypy
        language: system
        stages: [manual]
      - id: check-test-ci-coverage
        name: ci coverage
        entry: echo
        language: system
      - id: signoff
        name: signoff
        entry: echo
        language: system
"""

DRIFTED_WORKFLOW = """\
name: pre-commit
on:
  pull_request:
  push:
    branches: [main]
permissions:
  contents: read
jobs:
  pre-commit:
    runs-on: ubuntu-latest
    env:
      SKIP: check-test-ci-coverage,no-such-hook
    steps:
      - uses: actions/checkout@v4
      - run: |
          pip install pre-commit
          pre-commit run --show-diff-on-failure \\
            --color=always --all-files
      - uses: pre-commit/action@v3.0.1
        with:
          extra_args: --hook-stage manual
"""

GOOD_WORKFLOW = """\
name: pre-commit
on:
  pull_request:
  push:
    branches: [main]
permissions:
  contents: read
jobs:
  pre-commit:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: pre-commit/action@v3.0.1
        env:
          SKIP: check-test-ci-coverage
        with:
          extra_args: --all-files --hook-stage manual
"""

SKIP_REASONS = """\
[tool.policytool.ci]
skip-reasons = { "check-test-ci-coverage" = "old tests lack marks; runs on commit only" }
"""


# The repo records why CI skips hooks (none recorded yet): every SKIP needs a reason.
NO_REASONS = "[tool.policytool.ci]\nskip-reasons = {}\n"


@pytest.fixture
def ci_repo(repo: Repo) -> Repo:
    """A repo with a config that has a manual-stage hook."""
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    return repo


def test_drifted_workflow_is_caught(ci_repo: Repo, run: Run) -> None:
    ci_repo.write(".github/workflows/pre-commit.yml", DRIFTED_WORKFLOW)
    ci_repo.write("pyproject.toml", NO_REASONS)
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert result.code == 1
    path = ".github/workflows/pre-commit.yml"
    found = rule_lines(result.out, "ci-hook-stage")
    skip_line = line_of(DRIFTED_WORKFLOW, "SKIP:")
    run_line = line_of(DRIFTED_WORKFLOW, "pre-commit run")
    action_line = line_of(DRIFTED_WORKFLOW, "extra_args")
    assert sorted(found) == sorted(
        [(path, skip_line), (path, skip_line), (path, run_line), (path, action_line)]
    )
    assert "SKIP names 'no-such-hook', which is not a hook" in result.out
    assert "hook 'check-test-ci-coverage' is skipped in CI without a recorded reason" in result.out
    assert (
        "lacks `--hook-stage manual`, so the manual-stage hooks (mypy-3.12) never run" in result.out
    )
    assert "`pre-commit run --hook-stage manual` runs only on staged files" in result.out


def test_good_workflow_with_reasons_passes_and_stale_reasons_are_reported(
    ci_repo: Repo, run: Run
) -> None:
    ci_repo.write(".github/workflows/pre-commit.yml", GOOD_WORKFLOW)
    ci_repo.write("pyproject.toml", SKIP_REASONS)
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0
    stale = SKIP_REASONS.replace('" }', '", "signoff" = "needs the PR commits" }')
    ci_repo.write("pyproject.toml", stale)
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert rule_lines(result.out, "ci-hook-stage") == [("pyproject.toml", 2)]
    assert "skip-reasons explains 'signoff' but no workflow skips it" in result.out


def test_schema_of_the_workflows(ci_repo: Repo) -> None:
    ci_repo.write(".github/workflows/a.yml", DRIFTED_WORKFLOW)
    ci_repo.write(".github/workflows/b.yml", GOOD_WORKFLOW)
    result = check_jsonschema(
        "github-workflows",
        ci_repo.root / ".github/workflows/a.yml",
        ci_repo.root / ".github/workflows/b.yml",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_inline_skip_and_hook_commands(ci_repo: Repo, run: Run) -> None:
    workflow = GOOD_WORKFLOW.replace(
        "      - uses: pre-commit/action@v3.0.1\n       "
        " env:\n          SKIP: check-test-ci-coverage\n"
        "        with:\n          extra_args: --all-files --hook-stage manual\n",
        "      - run: SKIP=signoff pre-commit run --all-files --hook-stage=manual\n"
        "      - run: pre-commit run mypy-3.10 --hook-stage manual --all-files\n",
    )
    ci_repo.write(".github/workflows/pre-commit.yml", workflow)
    ci_repo.write("pyproject.toml", NO_REASONS)
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert "hook 'signoff' is skipped in CI without a recorded reason" in result.out
    assert "names hook 'mypy-3.10', which is not in .pre-commit-config.yaml" in result.out
    assert rule_lines(result.out, "ci-hook-stage") == [
        (".github/workflows/pre-commit.yml", line_of(workflow, "SKIP=signoff")),
        (".github/workflows/pre-commit.yml", line_of(workflow, "mypy-3.10")),
    ]


def test_manual_hooks_with_no_workflow_running_pre_commit(ci_repo: Repo, run: Run) -> None:
    ci_repo.write(
        ".github/workflows/tests.yml",
        "on: push\njobs:\n  t:\n    runs-on: x\n    steps:\n      - run: pytest\n",
    )
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert rule_lines(result.out, "ci-hook-stage") == [(".pre-commit-config.yaml", 5)]
    assert "manual-stage hooks (mypy-3.12) never run" in result.out


def test_no_precommit_config_no_workflows_nothing_to_say(repo: Repo, run: Run) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit()
    result = run("check", "--only=ci-hook-stage,mypy-wired,codeql-workflow")
    assert result.code == 0, result.out


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ("# runs pre-commit\njobs: [\n", 3, "invalid YAML"),
        ("- pre-commit\n- b\n", 1, "a workflow must be a YAML mapping"),
        ("on: push\njobs: 3  # pre-commit\n", 2, "`jobs:` must be a mapping"),
        (b"on: push\njobs: {}\n# pre-commit \xff\n", 3, "not valid UTF-8"),
        ("# pre-commit, one day\n", 1, "a workflow must be a YAML mapping"),
    ],
)
def test_broken_workflows_are_findings(
    ci_repo: Repo, run: Run, content: str | bytes, line: int, message: str
) -> None:
    ci_repo.write(".github/workflows/pre-commit.yml", GOOD_WORKFLOW)
    ci_repo.write(".github/workflows/broken.yaml", content)
    ci_repo.write("pyproject.toml", SKIP_REASONS)
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert rule_lines(result.out, "ci-hook-stage") == [(".github/workflows/broken.yaml", line)]
    assert message in result.out


def test_workflows_that_cannot_run_pre_commit_are_not_parsed(ci_repo: Repo, run: Run) -> None:
    # A broken workflow that never mentions pre-commit is not this rule's business.
    ci_repo.write(".github/workflows/pre-commit.yml", GOOD_WORKFLOW)
    ci_repo.write(".github/workflows/other.yml", "jobs: [\n")
    ci_repo.write("pyproject.toml", SKIP_REASONS)
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0


def test_parse_run_commands() -> None:
    script = (
        "pip install pre-commit && SKIP=a,b pre-commit run --all-files \\\n"
        "  --hook-stage manual\n"
        "python -m pre_commit run mypy --files x.py; echo done\n"
        "echo 'not pre-commit run'\n"
    )
    commands = parse_run_commands(script)
    assert [(line, c.hook, c.stage, c.all_files, c.skip) for line, c in commands] == [
        (0, None, "manual", True, ("a", "b")),
        (2, "mypy", None, False, ()),
    ]
    prose = "For `mypy` errors, run `pre-commit run --hook-stage manual mypy-3.10 --all-files`."
    ((_, command),) = parse_run_commands(prose)
    assert (command.hook, command.stage, command.all_files) == ("mypy-3.10", "manual", True)


# --- mypy-wired ------------------------------------------------------------------------

NO_MYPY = (
    "repos:\n  - repo: local\n    hooks:\n      - id: a\n        name: a\n        entry: echo\n"
    "        language: system\n"
)


def test_mypy_table_never_used(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[project]\nname = 'x'\n\n[tool.mypy]\nstrict = true\n")
    repo.write(".pre-commit-config.yaml", NO_MYPY)
    repo.commit()
    result = run("check", "--only=mypy-wired")
    assert rule_lines(result.out, "mypy-wired") == [("pyproject.toml", 4)]
    # A workflow step running mypy counts as wiring it.
    repo.write(
        ".github/workflows/t.yml",
        "on: push\njobs:\n  t:\n    runs-on: x\n    steps:\n      - run: mypy --strict src\n",
    )
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0


def test_mypy_hook_without_config_and_missing_config_file(repo: Repo, run: Run) -> None:
    config = NO_MYPY + (
        "  - repo: https://github.com/pre-commit/mirrors-mypy\n    rev: v1.11.2\n    hooks:\n"
        "      - id: mypy\n      - id: mypy\n        alias: "
        "mypy-strict\n        args: [--config-file=ci/mypy.ini]\n"
    )
    repo.write(".pre-commit-config.yaml", config)
    repo.commit()
    result = run("check", "--only=mypy-wired")
    assert "runs mypy but the repo has no mypy configuration" in result.out
    assert "passes --config-file ci/mypy.ini, which does not exist" in result.out
    repo.write("ci/mypy.ini", "[mypy]\n")
    repo.write("mypy.ini", "[mypy]\n")
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0


def test_mypy_hook_in_merge_anchor(repo: Repo, run: Run) -> None:
    config = (
        "x: &m\n  entry: python -m mypy\n  language: system\nrepos:\n  - repo: local\n    hooks:\n"
        "      - id: typecheck\n        name: t\n        <<: *m\n"
    )
    repo.write("pyproject.toml", "[tool.mypy]\n")
    repo.write(".pre-commit-config.yaml", config)
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0


# --- codeql-workflow ---------------------------------------------------------------------

VLLM_CODEQL = """\
name: "CodeQL Advanced"
on:
  push:
    branches: [ "main" ]
  pull_request:
    branches: [ "main" ]
  schedule:
    - cron: '16 10 * * 2'
jobs:
  analyze:
    name: Analyze (${{ matrix.language }})
    runs-on: ubuntu-latest
    permissions:
      security-events: write
      packages: read
      actions: read
      contents: read
    strategy:
      fail-fast: false
      matrix:
        include:
        - language: actions
          build-mode: none
        - language: python
          build-mode: none
    steps:
    - name: Checkout repository
      uses: actions/checkout@v4
    - name: Initialize CodeQL
      uses: github/codeql-action/init@v3
      with:
        languages: ${{ matrix.language }}
        build-mode: ${{ matrix.build-mode }}
    - name: Perform CodeQL Analysis
      uses: github/codeql-action/analyze@v3
      with:
        category: "/language:${{matrix.language}}"
"""


def test_vllm_style_codeql_workflow_passes_and_validates(repo: Repo, run: Run) -> None:
    repo.write(".github/workflows/codeql.yml", VLLM_CODEQL)
    repo.commit()
    assert run("check", "--only=codeql-workflow").code == 0
    result = check_jsonschema("github-workflows", repo.root / ".github/workflows/codeql.yml")
    assert result.returncode == 0, result.stdout


# The repo chose a CodeQL workflow: when it runs (push, pull_request, schedule) is checked.
CODEQL_WORKFLOW = '[tool.policytool.ci]\ncodeql = "workflow"\n'


def test_when_codeql_runs_is_checked_only_once_chosen(repo: Repo, run: Run) -> None:
    # attrs runs CodeQL weekly only: its choice, until it chooses the RFC's policy.
    weekly = VLLM_CODEQL.replace(
        '  push:\n    branches: [ "main" ]\n  pull_request:\n    branches: [ "main" ]\n', ""
    )
    assert "push" not in weekly
    repo.write(".github/workflows/codeql.yml", weekly)
    repo.commit()
    assert run("check", "--only=codeql-workflow").code == 0
    repo.write("pyproject.toml", CODEQL_WORKFLOW)
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    assert "CodeQL must run on push to 'main'" in result.out
    assert "CodeQL must run on pull_request to 'main'" in result.out


TESTS_WORKFLOW = "on: push\njobs:\n  t:\n    runs-on: x\n    steps: []\n"


def test_no_codeql_workflow_is_quiet_until_the_repository_chooses(repo: Repo, run: Run) -> None:
    # Issue 21: "choose default-setup or workflow" on repositories that never configured
    # anything is a finding no maintainer fixes; the choice is init's proposal.
    repo.write(".github/workflows/tests.yml", TESTS_WORKFLOW)
    repo.write("pyproject.toml", "[project]\nname = 'x'\n")
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    assert result.code == 0, result.out


ACTIONS_CODEQL = (
    "on:\n  push:\n  pull_request:\n  schedule: [{cron: '0 0 * * 0'}]\n"
    "permissions: {security-events: write}\njobs:\n"
    "  analyze:\n    runs-on: x\n    steps:\n"
    "      - uses: github/codeql-action/init@v3\n        with: {languages: actions}\n"
    "      - uses: github/codeql-action/analyze@v3\n"
)


def test_codeql_of_another_language_on_purpose_is_fine(repo: Repo, run: Run) -> None:
    # Issue 21: a workflow scanning `languages: actions` on purpose is not a broken
    # python scan; only a repository that chose a python workflow is told none is there.
    repo.write(".github/workflows/codeql.yml", ACTIONS_CODEQL)
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    assert result.code == 0, result.out
    repo.write("pyproject.toml", CODEQL_WORKFLOW)
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    assert rule_lines(result.out, "codeql-workflow") == [("pyproject.toml", 2)]
    assert "no workflow in .github/workflows runs github/codeql-action for python" in result.out


def test_codeql_without_languages_detects_python(repo: Repo, run: Run) -> None:
    # No `languages`: CodeQL detects them (python in a Python repo), so the job is checked.
    repo.write(
        ".github/workflows/codeql.yml",
        ACTIONS_CODEQL.replace("        with: {languages: actions}\n", "").replace(
            "permissions: {security-events: write}", "permissions: {}"
        ),
    )
    repo.write("pyproject.toml", CODEQL_WORKFLOW)
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    assert "job 'analyze' needs permissions security-events: write" in result.out
    assert len(rule_lines(result.out, "codeql-workflow")) == 1  # python is analyzed


def test_default_setup_needs_no_workflow_and_conflicts_with_one(repo: Repo, run: Run) -> None:
    repo.write(".github/workflows/tests.yml", TESTS_WORKFLOW)
    repo.write("pyproject.toml", '[tool.policytool.ci]\ncodeql = "default-setup"\n')
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    assert result.code == 0, result.out
    repo.write(".github/workflows/codeql.yml", VLLM_CODEQL)
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    assert rule_lines(result.out, "codeql-workflow") == [(".github/workflows/codeql.yml", 1)]
    assert "GitHub rejects a workflow's results while default setup is on" in result.out


def test_chosen_workflow_that_is_missing_points_at_the_choice(repo: Repo, run: Run) -> None:
    repo.write(".github/workflows/tests.yml", TESTS_WORKFLOW)
    repo.write(
        "pyproject.toml", '[project]\nname = "x"\n\n[tool.policytool.ci]\ncodeql = "workflow"\n'
    )
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    assert rule_lines(result.out, "codeql-workflow") == [("pyproject.toml", 5)]
    assert "policytool init" in result.out


def test_python_needs_no_explicit_build_mode(repo: Repo, run: Run) -> None:
    implicit = VLLM_CODEQL.replace("          build-mode: none\n", "").replace(
        "        build-mode: ${{ matrix.build-mode }}\n", ""
    )
    assert "build-mode" not in implicit
    repo.write(".github/workflows/codeql.yml", implicit)
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    assert result.code == 0, result.out


def test_misconfigured_codeql_workflow(repo: Repo, run: Run) -> None:
    bad = (
        VLLM_CODEQL.replace(
            '  pull_request:\n    branches: [ "main" ]\n',
            '  pull_request:\n    branches: [ "release" ]\n',
        )
        .replace("  schedule:\n    - cron: '16 10 * * 2'\n", "")
        .replace(
            "          build-mode: none\n        - language: python\n          build-mode: none",
            "          build-mode: none\n        - "
            "language: python\n          build-mode: autobuild",
        )
        .replace("      security-events: write\n", "")
    )
    repo.write(".github/workflows/codeql.yml", bad)
    repo.write("pyproject.toml", CODEQL_WORKFLOW)
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    messages = [line.split(" codeql-workflow ")[1] for line in result.out.splitlines()[:-1]]
    assert sorted(messages) == sorted(
        [
            "CodeQL must run on pull_request to 'main'",
            "CodeQL must also run on a schedule (`schedule: - cron: ...`)",
            "job 'analyze' sets `build-mode: autobuild` for python, which CodeQL analyzes "
            "without a build (`none`, its default for python)",
            "job 'analyze' needs permissions security-events: write",
        ]
    )
    assert rule_lines(result.out, "codeql-workflow")[0] == (".github/workflows/codeql.yml", 2)


def test_codeql_without_python_or_analyze(repo: Repo, run: Run) -> None:
    workflow = (
        "on:\n  push:\n  pull_request:\n  schedule: [{cron: "
        "'0 0 * * 0'}]\npermissions: write-all\njobs:\n"
        "  js:\n    runs-on: x\n    steps:\n      - uses: github/codeql-action/init@v3\n"
        "        with: {languages: javascript, build-mode: none}\n"
        "      - uses: github/codeql-action/analyze@v3\n"
        "  py:\n    runs-on: x\n    steps:\n      - uses: github/codeql-action/init@v3\n"
        "        with: {languages: python, build-mode: none}\n"
    )
    repo.write(".github/workflows/codeql.yml", workflow)
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    assert "'js'" not in result.out  # javascript on purpose
    assert rule_lines(result.out, "codeql-workflow") == [(".github/workflows/codeql.yml", 13)]
    assert "job 'py' lacks the github/codeql-action/analyze step" in result.out


def test_default_branch_is_configurable(repo: Repo, run: Run) -> None:
    repo.write(".github/workflows/codeql.yml", VLLM_CODEQL.replace('"main"', '"develop"'))
    repo.write("pyproject.toml", CODEQL_WORKFLOW)
    repo.commit()
    assert run("check", "--only=codeql-workflow").code == 1
    repo.write("pyproject.toml", CODEQL_WORKFLOW + 'default-branch = "develop"\n')
    repo.commit()
    assert run("check", "--only=codeql-workflow").code == 0


def test_broken_codeql_workflow_is_reported_once(repo: Repo, run: Run) -> None:
    repo.write(".github/workflows/codeql.yml", "# uses github/codeql-action\njobs: [\n")
    repo.commit()
    result = run("check", "--only=codeql-workflow")
    assert rule_lines(result.out, "codeql-workflow") == [(".github/workflows/codeql.yml", 3)]


# --- how CI really runs pre-commit ------------------------------------------------------

MATRIX_WORKFLOW = """\
on: [pull_request]
jobs:
  lint:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        stage: [manual]
        args: ["--all-files --hook-stage manual"]
    steps:
      - run: pre-commit run --all-files --hook-stage ${{ matrix.stage }}
      - uses: pre-commit/action@v3.0.1
        with:
          extra_args: ${{ matrix.args }}
      - uses: pre-commit/action@v3.0.1
        with:
          extra_args: ${{ inputs.extra }}
"""


def test_matrix_values_are_expanded_not_taken_for_hook_names(ci_repo: Repo, run: Run) -> None:
    ci_repo.write(".github/workflows/lint.yml", MATRIX_WORKFLOW)
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert result.code == 0, result.out
    assert "matrix.stage" not in result.out and "${{" not in result.out
    # A matrix value that leaves the manual hooks out is still caught (once nothing
    # run-time-only could be running them).
    plain = MATRIX_WORKFLOW.split(
        "      - uses: pre-commit/action@v3.0.1\n        with:\n"
        "          extra_args: ${{ inputs.extra }}"
    )[0]
    ci_repo.write(
        ".github/workflows/lint.yml",
        plain.replace("stage: [manual]", "stage: [pre-commit]").replace(
            '["--all-files --hook-stage manual"]', '["--all-files"]'
        ),
    )
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert rule_lines(result.out, "ci-hook-stage") == [
        (".github/workflows/lint.yml", 10),
        (".github/workflows/lint.yml", 13),
    ], result.out
    assert "`pre-commit run --all-files --hook-stage pre-commit` lacks" in result.out
    assert "`pre-commit run --all-files` lacks `--hook-stage manual`" in result.out


def test_prek_runs_are_read_like_pre_commit_runs(ci_repo: Repo, run: Run) -> None:
    workflow = (
        "on: [pull_request]\njobs:\n  lint:\n    runs-on: x\n    steps:\n"
        "      - run: prek run --all-files\n"
        "      - run: uvx prek run mypy-3.10 --hook-stage manual --all-files\n"
        "      - uses: j178/prek-action@v1\n"
    )
    ci_repo.write(".github/workflows/lint.yml", workflow)
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert rule_lines(result.out, "ci-hook-stage") == [
        (".github/workflows/lint.yml", 6),
        (".github/workflows/lint.yml", 7),
        (".github/workflows/lint.yml", 8),
    ], result.out
    assert "`prek run --all-files` lacks `--hook-stage manual`" in result.out
    assert "names hook 'mypy-3.10'" in result.out


TOX_WORKFLOW = """\
on: [pull_request]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: |
          pip install tox
          tox -e linting
"""


@pytest.mark.parametrize(
    ("name", "content"),
    [
        (
            "tox.ini",
            "[tox]\nenv_list = py3, linting\n\n[testenv:linting]\nskip_install = True\n"
            "deps = pre-commit\ncommands = pre-commit run --all-files --show-diff-on-failure "
            "{posargs:}\n",
        ),
        (
            "tox.toml",
            'env_list = ["linting"]\n[env.linting]\n'
            'commands = [["pre-commit", "run", "--all-files", "--show-diff-on-failure"]]\n',
        ),
    ],
)
def test_tox_environments_are_followed(ci_repo: Repo, run: Run, name: str, content: str) -> None:
    ci_repo.write(".github/workflows/lint.yml", TOX_WORKFLOW)
    ci_repo.write(name, content)
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert rule_lines(result.out, "ci-hook-stage") == [(".github/workflows/lint.yml", 8)]
    assert (
        "`pre-commit run --all-files --show-diff-on-failure` (run by `tox -e linting`) lacks "
        "`--hook-stage manual`" in result.out
    )
    manual = (
        content.replace("--all-files", "--all-files --hook-stage manual")
        if name == "tox.ini"
        else content.replace('"--all-files", ', '"--all-files", "--hook-stage", "manual", ')
    )
    ci_repo.write(name, manual)
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0


def test_pre_commit_ci_skip_is_read(repo: Repo, run: Run) -> None:
    config = PRECOMMIT + "ci:\n  autoupdate_schedule: quarterly\n  skip: [signoff, no-such-hook]\n"
    repo.write(".pre-commit-config.yaml", config)
    repo.write(
        "pyproject.toml", '[tool.policytool.ci]\nskip-reasons = { "signoff" = "needs git" }\n'
    )
    repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert rule_lines(result.out, "ci-hook-stage") == [
        (".pre-commit-config.yaml", line_of(config, "skip: [signoff"))
    ]
    assert "pre-commit.ci's `ci: skip:` names 'no-such-hook', which is not a hook" in result.out
    assert "skip-reasons explains 'signoff'" not in result.out  # the ci: skip uses it


GATE = """\
on:
  pull_request:
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: pre-commit run --all-files --hook-stage manual{tail}
"""


@pytest.mark.parametrize(
    ("tail", "why"),
    [
        (" || true", "`|| true` swallows its failure"),
        (" || echo failed", "`|| echo failed` swallows its failure"),
        (" | tee out.log", "piped without `set -o pipefail`"),
        ("\n        continue-on-error: true", "`continue-on-error: true`"),
        ("\n        if: false", "never runs: `if: false`"),
        ("\n        if: ${{ false }}", "never runs: `if: false`"),
    ],
)
def test_steps_that_cannot_fail_or_never_run(ci_repo: Repo, run: Run, tail: str, why: str) -> None:
    ci_repo.write(".github/workflows/lint.yml", GATE.format(tail=tail))
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert result.code == 1
    assert why in result.out, result.out
    assert rule_lines(result.out, "ci-hook-stage")[0] == (".github/workflows/lint.yml", 7)


@pytest.mark.parametrize(
    "tail",
    [
        " | tee out.log\n        shell: bash",  # GitHub's bash is -eo pipefail
        " || (git diff; exit 1)",
        "\n        if: github.event_name == 'pull_request'",
    ],
)
def test_steps_that_can_fail_are_fine(ci_repo: Repo, run: Run, tail: str) -> None:
    ci_repo.write(".github/workflows/lint.yml", GATE.format(tail=tail))
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert result.code == 0, result.out


def test_pre_commit_workflow_without_a_pull_request_trigger(ci_repo: Repo, run: Run) -> None:
    push_only = GATE.format(tail="").replace("  pull_request:\n", "  push:\n    branches: [main]\n")
    ci_repo.write(".github/workflows/lint.yml", push_only)
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert rule_lines(result.out, "ci-hook-stage") == [(".github/workflows/lint.yml", 1)]
    assert "runs pre-commit on push but no workflow runs it for pull requests" in result.out
    ci_repo.write(
        ".github/workflows/lint.yml", push_only.replace("on:\n", "on:\n  workflow_call:\n")
    )
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0
    # pre-commit.ci gates the PRs: a push-only workflow is then fine.
    ci_repo.write(".github/workflows/lint.yml", push_only)
    ci_repo.write(".pre-commit-config.yaml", PRECOMMIT + "ci:\n  skip: []\n")
    ci_repo.commit()
    assert "pull requests" not in run("check", "--only=ci-hook-stage").out


CALLER = """\
on:
{on}
jobs:
  checks:
    uses: ./.github/workflows/checks.yml
"""


def test_a_reusable_workflow_is_gated_by_its_local_callers(ci_repo: Repo, run: Run) -> None:
    """docling: checks.yml (``on: workflow_call``) runs pre-commit; ci.yml calls it."""
    called = GATE.format(tail="").replace("  pull_request:\n", "  workflow_call:\n")
    ci_repo.write(".github/workflows/checks.yml", called)
    ci_repo.write(".github/workflows/ci.yml", CALLER.format(on="  pull_request:\n  push:"))
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0
    ci_repo.write(".github/workflows/ci.yml", CALLER.format(on="  push:"))
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert rule_lines(result.out, "ci-hook-stage") == [(".github/workflows/checks.yml", 1)]
    assert "no workflow calling it runs for pull requests" in result.out
    # a caller calling a caller: followed; a cycle ends
    ci_repo.write(".github/workflows/ci.yml", CALLER.format(on="  workflow_call:"))
    outer = CALLER.format(on="  pull_request:").replace("checks.yml", "ci.yml")
    ci_repo.write(".github/workflows/outer.yml", outer)
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0
    ci_repo.write(".github/workflows/outer.yml", outer.replace("ci.yml", "checks.yml"))
    ci_repo.write(".github/workflows/checks.yml", called + CALLER.split("jobs:\n")[1])
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0


def test_a_pull_request_trigger_narrowed_by_paths_does_not_gate_every_pr(
    ci_repo: Repo, run: Run
) -> None:
    """axolotl: lint.yml runs pre-commit on PRs touching docs only; tests.yml on all."""
    narrowed = GATE.format(tail="").replace(
        "  pull_request:\n", "  pull_request:\n    paths: ['docs/**']\n"
    )
    ci_repo.write(".github/workflows/lint.yml", narrowed)
    ci_repo.write(".github/workflows/tests.yml", GATE.format(tail=""))
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0
    ci_repo.write(
        ".github/workflows/tests.yml", GATE.format(tail="").replace("pull_request:", "push:")
    )
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert (".github/workflows/lint.yml", 1) in rule_lines(result.out, "ci-hook-stage")
    assert "for pull requests only on some `paths:`" in result.out
    assert "no workflow runs it for every pull request" in result.out


def test_pre_commit_only_in_the_merge_queue(ci_repo: Repo, run: Run) -> None:
    """axolotl with `pull_request` removed from tests.yml: pre-commit runs in the merge
    queue (it still gates) but on no pull request; lint.yml runs it on PRs touching docs."""
    queued = "  merge_group:\n  pull_request:\n"
    narrowed = GATE.format(tail="").replace(
        "  pull_request:\n", queued + "    paths: ['docs/**']\n"
    )
    ci_repo.write(".github/workflows/lint.yml", narrowed)
    tests = GATE.format(tail="").replace("  pull_request:\n", queued + "    paths: ['**.py']\n")
    ci_repo.write(".github/workflows/tests.yml", tests)
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0  # axolotl as it is
    ci_repo.write(
        ".github/workflows/tests.yml",
        GATE.format(tail="").replace("  pull_request:\n", "  merge_group:\n  push:\n"),
    )
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert rule_lines(result.out, "ci-hook-stage") == [(".github/workflows/tests.yml", 1)]
    assert (
        "runs pre-commit on merge_group, push: in the merge queue but not on pull requests"
    ) in result.out
    # Another workflow running it on every pull request: a queue-only re-run is fine.
    ci_repo.write(".github/workflows/lint.yml", GATE.format(tail=""))
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0


MAKEFILE = """\
hook ?=

install-pre-commit:
\tpip install pre-commit

lint: install-pre-commit
\t@pre-commit run -a --hook-stage manual $(hook){tail}
\tmypy kedro --strict
"""


def test_pre_commit_in_a_make_target_ci_runs_is_followed(ci_repo: Repo, run: Run) -> None:
    """kedro: lint.yml runs ``make lint``, whose recipe runs pre-commit."""
    workflow = GATE.replace("pre-commit run --all-files --hook-stage manual{tail}", "make lint")
    ci_repo.write(".github/workflows/lint.yml", workflow)
    ci_repo.write("Makefile", MAKEFILE.format(tail=""))
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0
    ci_repo.write("Makefile", MAKEFILE.format(tail=" || true"))
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    # reported where the `|| true` is written, naming the step that runs it
    assert rule_lines(result.out, "ci-hook-stage") == [("Makefile", 7)]
    assert (
        "(run by `make lint` in .github/workflows/lint.yml:7) cannot fail the check: `|| true`"
    ) in result.out
    # without `--hook-stage manual`, the manual hook never runs in CI
    ci_repo.write("Makefile", MAKEFILE.format(tail="").replace(" --hook-stage manual", ""))
    ci_repo.commit()
    assert "lacks `--hook-stage manual`" in run("check", "--only=ci-hook-stage").out


AUTODEPS = """\
on:
  schedule:
    - cron: '0 0 1 * *'
jobs:
  autodeps:
    runs-on: ubuntu-latest
    steps:
      - run: pre-commit autoupdate
      - name: Pre-commit fixes
        run: pre-commit run -a || true
{commit}
"""


def test_a_job_that_commits_after_pre_commit_runs_it_as_a_fixer(ci_repo: Repo, run: Run) -> None:
    """trio's autodeps: ``pre-commit run -a || true`` then ``git commit``: a fixer."""
    ci_repo.write(".github/workflows/lint.yml", GATE.format(tail=""))
    commit = "      - run: |\n          git commit -am 'Dependency updates'\n          git push"
    ci_repo.write(".github/workflows/autodeps.yml", AUTODEPS.format(commit=commit))
    ci_repo.commit()
    assert run("check", "--only=ci-hook-stage").code == 0, run("check").out
    ci_repo.write(".github/workflows/autodeps.yml", AUTODEPS.format(commit=""))
    ci_repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert "`|| true` swallows its failure" in result.out


# pytest's layout: manual hooks are opt-in, pre-commit.ci runs the rest.
OPT_IN = """\
repos:
  - repo: local
    hooks:
      - id: ruff
        name: ruff
        entry: echo
        language: system
      - id: pyright
        name: pyright
        entry: echo
        language: system
        # Manual because passing pyright is a work in progress.
        stages: [manual]
ci:
  autoupdate_schedule: weekly
"""


def test_manual_means_opt_in_unless_the_repo_says_ci(repo: Repo, run: Run) -> None:
    repo.write(".pre-commit-config.yaml", OPT_IN)
    repo.write(
        ".github/workflows/test.yml",
        "on: [pull_request]\njobs:\n  t:\n    runs-on: x\n    steps:\n      - run: pytest\n",
    )
    repo.commit()
    result = run("check", "--only=ci-hook-stage,precommit-default-stages")
    assert result.code == 0, result.out
    repo.write("pyproject.toml", '[tool.policytool.pre-commit]\nmanual-stage = "ci"\n')
    repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert rule_lines(result.out, "ci-hook-stage") == [(".pre-commit-config.yaml", 8)]
    assert "manual-stage hooks (pyright) never run" in result.out


# --- mypy-wired: commands, not words ---------------------------------------------------

MYPY_TABLE = "[tool.mypy]\nstrict = true\n"


@pytest.mark.parametrize(
    ("step", "wired"),
    [
        ('run: echo "::add-matcher::.github/workflows/matchers/mypy.json"', False),
        ("run: cp .github/workflows/matchers/mypy.json /tmp", False),
        ("run: pip install mypy", False),
        ("run: mypy src", True),
        ("run: python -m mypy src", True),
        ("run: uv run --frozen mypy", True),
        ("run: python tools/mypy.py 3.12", True),
        ("run: tox -e typing", True),
        ("run: tox -m check", True),  # trio: a tox label listing the typing env
        ("run: tox -m cython", False),
    ],
)
def test_mypy_is_wired_by_a_command_that_runs_it(
    repo: Repo, run: Run, step: str, wired: bool
) -> None:
    repo.write("pyproject.toml", MYPY_TABLE)
    repo.write(
        "tox.ini",
        "[tox]\nlabels =\n    check = lint, typing\n    cython = py39-cython\n\n"
        "[testenv:typing]\ncommands = mypy src\n",
    )
    repo.write(
        ".github/workflows/ci.yml",
        f"on: [pull_request]\njobs:\n  t:\n    runs-on: x\n    steps:\n      - {step}\n",
    )
    repo.commit()
    result = run("check", "--only=mypy-wired")
    assert (result.code == 0) is wired, result.out


@pytest.mark.parametrize(
    ("uses", "wired"),
    [
        (f"Lightning-AI/utilities/.github/workflows/check-typing.yml@{'2' * 40}", True),
        ("Lightning-AI/utilities/.github/workflows/check-typing.yml@main", False),
        (f"Lightning-AI/utilities/.github/workflows/check-docs.yml@{'2' * 40}", False),
    ],
)
def test_mypy_run_by_a_pinned_reusable_typing_workflow_is_wired(
    repo: Repo, run: Run, uses: str, wired: bool
) -> None:
    """torchmetrics: ci-checks.yml calls Lightning-AI/utilities' check-typing.yml."""
    repo.write("pyproject.toml", MYPY_TABLE)
    repo.write(
        ".github/workflows/ci-checks.yml",
        f"on: [pull_request]\njobs:\n  check-typing:\n    uses: {uses}\n",
    )
    repo.commit()
    assert (run("check", "--only=mypy-wired").code == 0) is wired


def test_mypy_run_by_a_nox_session_is_wired(repo: Repo, run: Run) -> None:
    # jsonschema: CI runs every nox session (the list is run-time only); one runs mypy.
    repo.write("pyproject.toml", MYPY_TABLE)
    repo.write(
        "noxfile.py",
        "import nox\n\n@nox.session\ndef typing(session):\n"
        '    session.install("mypy")\n    session.run("mypy", "src")\n',
    )
    repo.write(
        ".github/workflows/ci.yml",
        "on: [pull_request]\njobs:\n  t:\n    runs-on: x\n    strategy:\n      matrix:\n"
        "        noxenv: ${{ fromJson(needs.list.outputs.noxenvs) }}\n    steps:\n"
        '      - run: uvx nox -s "${{ matrix.noxenv }}"\n',
    )
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 0
    repo.write(
        "noxfile.py", "import nox\n\n@nox.session\ndef tests(session):\n    session.run('pytest')\n"
    )
    repo.commit()
    assert run("check", "--only=mypy-wired").code == 1


def test_codeql_needs_only_security_events_write(repo: Repo, run: Run) -> None:
    # structlog: `permissions: {}` at the top, only security-events: write on the job;
    # contents/actions read are needed in private repos only.
    lean = VLLM_CODEQL.replace(
        "      security-events: write\n      packages: read\n      actions: read\n"
        "      contents: read\n",
        "      security-events: write\n",
    ).replace("jobs:\n", "permissions: {}\njobs:\n", 1)
    assert "actions: read" not in lean
    repo.write(".github/workflows/codeql.yml", lean)
    repo.commit()
    assert run("check", "--only=codeql-workflow").code == 0


def test_makefile_recipes_lines_and_targets(tmp_path: Path) -> None:
    """Continuations joined at their first line, variables expanded (unset: empty),
    prefixes dropped, prerequisites first; ``make -C dir`` names another Makefile."""
    from policytool.formats.makefile import make_targets, parse, target_commands

    text = (
        "V := --all-files\n.PHONY: lint\nlint: deps\n\t@pre-commit run \\\n\t  $(V) $(unset)\n"
        "deps:\n\t-pip install x $$HOME\n"
    )
    parsed = parse(text)
    assert parsed.default == "lint" and parsed.rules["lint"].prerequisites == ["deps"]
    (tmp_path / "Makefile").write_text(text)
    assert target_commands(tmp_path, ["lint"]) == [
        ("deps", 7, "pip install x $HOME"),
        ("lint", 4, "pre-commit run --all-files"),
    ]
    assert target_commands(tmp_path, []) == target_commands(tmp_path, ["lint"])
    assert make_targets(["make", "-j2", "lint", "V=1"]) == (None, None, ["lint"])
    assert make_targets(["make"]) == (None, None, [])
    assert make_targets(["make", "-C", "docs", "lint"]) == ("docs", None, ["lint"])
    assert make_targets(["tox", "-e", "lint"]) is None
