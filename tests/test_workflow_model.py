# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The typed model of workflows and composite actions, the one shell reader behind every
CI rule, and the one discovery of workflows (issue 25)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from policytool.formats import shell
from policytool.formats.gha import action_of, workflow_of, workflow_paths
from policytool.formats.precommit_run import parse_run_commands, precommit_steps
from policytool.formats.yamldoc import YamlDoc, parse_text
from policytool.rules._ci_scan import FileLines
from policytool.rules.ci_floating_install import (
    action_snippets,
    install_of,
    workflow_snippets,
)
from tests.conftest import Repo, Result
from tests.test_ci_rules import GOOD_WORKFLOW, PRECOMMIT, SKIP_REASONS

Run = Callable[..., Result]

WORKFLOW = """\
on: [push, pull_request]
defaults:
  run:
    shell: bash -e {0}
x-common: &common
  shell: sh
  continue-on-error: true
jobs:
  test:
    name: test ${{ matrix.py }}
    runs-on: !!str ubuntu-latest
    strategy:
      matrix:
        py: ["3.10", 3.11]
        include:
          - py: "3.13"
            experimental: true
    steps:
      - uses: !!str actions/checkout@v4
        with:
          fetch-depth: 0
      - name: install
        id: deps
        if: false
        run: !!str pip install black
      - <<: *common
        run: |
          pre-commit run --all-files
  windows:
    runs-on: windows-latest
    defaults:
      run:
        shell: pwsh
    steps:
      - run: pip install ruff
      - shell: !!str python
        run: print(1)
      - shell: bash
        run: pre-commit run --hook-stage manual mypy | tee log
"""


def _doc(text: str, relpath: str = ".github/workflows/ci.yml") -> YamlDoc:
    return YamlDoc(relpath, Path(relpath), text.encode(), text, parse_text(text, relpath))


def test_the_model_reads_jobs_steps_and_positions_as_github_does() -> None:
    workflow = workflow_of(".github/workflows/ci.yml", parse_text(WORKFLOW, "ci.yml"))
    assert workflow.triggers() == {"push": None, "pull_request": None}
    test, windows = workflow.jobs
    assert (test.id, test.line, test.runs_on, test.name) == (
        "test",
        9,
        "ubuntu-latest",
        "test ${{ matrix.py }}",
    )
    assert test.matrix == (
        {"py": "3.10"},
        {"py": "3.11"},
        {"py": "3.13", "experimental": "true"},
    )
    checkout, install, merged = test.steps
    # ``!!str`` is the text, as GitHub reads it
    assert (checkout.uses, checkout.line, dict(checkout.with_)) == (
        "actions/checkout@v4",
        19,
        {"fetch-depth": 0},
    )
    assert (install.name, install.id, install.if_, install.run) == (
        "install",
        "deps",
        False,
        "pip install black",
    )
    assert (install.shell, install.posix, install.run_line()) == ("bash -e {0}", True, 25)
    # a merge key's values are the step's own
    assert (merged.shell, merged.continue_on_error, merged.run_line()) == ("sh", True, 28)
    assert merged.path == ("job", "test", 2)
    # job defaults beat workflow defaults; the step's own shell beats both
    assert [(s.shell, s.posix, s.pipefail) for s in windows.steps] == [
        ("pwsh", False, False),
        ("python", False, False),
        ("bash", True, True),
    ]


def test_composite_actions_have_steps_and_other_actions_none() -> None:
    text = "runs:\n  using: Composite\n  steps:\n    - run: pip install x\n      shell: bash\n"
    action = action_of("a/action.yml", parse_text(text, "a/action.yml"))
    assert action.composite and [(s.run, s.line, s.path) for s in action.steps] == [
        ("pip install x", 4, ("runs", 0))
    ]
    docker = "runs:\n  using: docker\n  steps:\n    - run: pip install x\n"
    assert action_of("b/action.yml", parse_text(docker, "b/action.yml")).steps == ()


def test_a_matrix_github_rejects_is_a_problem_of_the_job() -> None:
    axes = "\n".join(f"        a{i}: [1, 2]" for i in range(9))
    text = f"on: push\njobs:\n  big:\n    strategy:\n      matrix:\n{axes}\n    steps: []\n"
    (job,) = workflow_of("w.yml", parse_text(text, "w.yml")).jobs
    assert job.matrix == ({},)
    assert job.matrix_problem is not None and "512 jobs" in job.matrix_problem.message


def test_every_rule_skips_the_same_non_posix_steps() -> None:
    """pwsh, cmd and python scripts are read as shell by no rule (ci-floating-install
    skipped them while the pre-commit and mypy readers took them for bash)."""
    doc = _doc(WORKFLOW)
    lines = FileLines.of(WORKFLOW)
    scripts = [s.text for s in workflow_snippets(doc.relpath, doc.data, lines)]
    assert scripts == [
        "pip install black",
        "pre-commit run --all-files\n",
        "pre-commit run --hook-stage manual mypy | tee log",
    ]
    found = [(s.job, s.line, s.command.hook, s.command.stage) for s in precommit_steps(doc).steps]
    assert found == [
        ("test", 28, None, None),
        ("windows", 39, "mypy", "manual"),
    ]
    pwsh = WORKFLOW.replace("shell: bash\n        run: pre-commit", "run: pre-commit")
    assert [s.job for s in precommit_steps(_doc(pwsh)).steps] == ["test"]


def test_an_action_step_list_is_walked_the_same_way() -> None:
    text = (
        "runs:\n  using: composite\n  steps:\n"
        "    - run: pip install a\n      shell: pwsh\n"
        "    - run: pip install b\n      shell: bash\n"
    )
    snippets = action_snippets("x/action.yml", parse_text(text, "x"), FileLines.of(text))
    assert [s.text for s in snippets] == ["pip install b"]


@pytest.mark.parametrize(
    ("line", "program"),
    [
        ("python -mpip install black", ["pip", "install", "black"]),
        ("python3 -m pip install black", ["pip", "install", "black"]),
        ("sudo -E env X=1 python3.11 -Im pip install black", ["pip", "install", "black"]),
        ("uv run --with x python -m mypy src", ["mypy", "src"]),
    ],
)
def test_python_m_is_read_alike_by_the_install_and_program_readers(
    line: str, program: list[str]
) -> None:
    assert shell.program_of(shell.split(line)) == program
    (command,) = shell.parse(line).commands
    found = install_of(command)
    if program[0] == "pip":
        assert found is not None and [w.value for w in found.requirements] == ["black"]


@pytest.mark.parametrize(
    ("script", "hook", "swallowed"),
    [
        # the old word reader took a redirection or ``&`` for the hook id
        ("pre-commit run --all-files 2>&1 | tee log", None, "piped"),
        ("pre-commit run --all-files > out.txt", None, None),
        ("pre-commit run --all-files &", None, None),
        # a group's ``)`` is not part of the hook id, and ``|| true`` after it swallows
        ("(cd sub && pre-commit run ruff) || true", "ruff", "swallows"),
        # a command substitution runs its command
        ("out=$(pre-commit run mypy)", "mypy", None),
        ("SKIP='a b' pre-commit run 'my hook'", "my hook", None),
    ],
)
def test_pre_commit_run_words_come_from_the_shell_reader(
    script: str, hook: str | None, swallowed: str | None
) -> None:
    [(_line, command)] = parse_run_commands(script, pipefail=False)
    assert command.hook == hook and command.all_files == ("--all-files" in script)
    assert (command.swallowed is None) == (swallowed is None)
    if swallowed is not None:
        assert command.swallowed is not None and swallowed in command.swallowed


def test_prose_keeps_what_its_author_wrote() -> None:
    from policytool.rules.mergify_drift import install_spec

    assert install_spec("run `uv pip install pre-commit>=4.5.1` first") == (
        "uv pip",
        "pre-commit>=4.5.1",
    )
    assert shell.split("pip install pre-commit>=4.5.1") == ["pip", "install", "pre-commit"]


def test_only_tracked_workflows_are_discovered(repo: Repo) -> None:
    repo.write(".github/workflows/ci.yml", "on: push\njobs: {}\n")
    repo.write(".github/workflows/nested/x.yml", "on: push\njobs: {}\n")
    repo.write(".github/workflows/notes.txt", "")
    repo.commit()
    repo.write(".github/workflows/local.yml", "on: push\njobs: {}\n")  # untracked
    assert workflow_paths(repo.root) == [".github/workflows/ci.yml"]
    repo.commit()
    assert workflow_paths(repo.root) == [
        ".github/workflows/ci.yml",
        ".github/workflows/local.yml",
    ]


def test_outside_git_every_workflow_file_counts(tmp_path: Path) -> None:
    (tmp_path / ".github/workflows").mkdir(parents=True)
    (tmp_path / ".github/workflows/a.yaml").write_text("on: push\n")
    assert workflow_paths(tmp_path) == [".github/workflows/a.yaml"]


_PLAIN = st.text(alphabet="abcXYZ019._-=/+,:@%", min_size=1, max_size=8)
_WORD = st.one_of(
    _PLAIN,
    _PLAIN.map(lambda w: f"'{w} {w}'"),
    _PLAIN.map(lambda w: f'"{w}"'),
    _PLAIN.map(lambda w: f"{w}\\ {w}"),
)


@given(st.lists(_WORD, min_size=1, max_size=6))
def test_split_agrees_with_posix_word_splitting(words: list[str]) -> None:
    """Where no shell operator is written, the one reader splits as POSIX (shlex) does."""
    line = " ".join(words)
    assert shell.split(line) == shlex.split(line)


def test_markdown_and_prose_lines_keep_their_commands() -> None:
    """vllm-omni's Mergify comment quotes its commands (``> pre-commit run ...``): in
    Markdown the ``>`` is a blockquote, not a redirection; a prose apostrophe opens no
    quote."""
    quoted = "> ```bash\n> pre-commit run --hook-stage manual mypy-3.10\n> ```\n"
    [(line, command)] = parse_run_commands(quoted, markdown=True)
    assert (line, command.hook, command.stage) == (1, "mypy-3.10", "manual")
    assert parse_run_commands(quoted) == []  # in a script, ``>`` redirects
    [(_line, command)] = parse_run_commands("Don't skip it: pre-commit run --all-files")
    assert command.all_files and command.hook is None


_REDIRECTED = GOOD_WORKFLOW.replace(
    "      - uses: pre-commit/action@v3.0.1\n",
    "      - shell: bash\n        run: pre-commit run --all-files --hook-stage manual 2>&1 | tee log\n",
).replace("        with:\n          extra_args: --all-files --hook-stage manual\n", "")


def test_a_redirection_is_not_a_hook_id(repo: Repo, run: Run) -> None:
    """``2>&1`` was read as the hook to run: ci-hook-stage said it is no hook and that
    the manual hooks never run."""
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    repo.write("pyproject.toml", SKIP_REASONS)
    repo.write(".github/workflows/pre-commit.yml", _REDIRECTED)
    repo.commit()
    result = run("check", "--only=ci-hook-stage")
    assert (result.code, result.out.strip()) == (0, "no findings"), result.out


def test_an_untracked_workflow_is_read_by_no_rule(repo: Repo, run: Run) -> None:
    """GitHub runs committed workflows: ci-hook-stage read untracked ones too, while
    ci-floating-install and action-pin read only the tracked files."""
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    repo.write("pyproject.toml", SKIP_REASONS)
    repo.write(".github/workflows/pre-commit.yml", GOOD_WORKFLOW)
    repo.commit()
    repo.write(".github/workflows/scratch.yml", _REDIRECTED.replace("--hook-stage manual", ""))
    result = run("check", "--only=ci-hook-stage")
    assert (result.code, result.out.strip()) == (0, "no findings"), result.out
