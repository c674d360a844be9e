# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Hostile inputs for the repo rules (pre-commit, CI, Mergify): each ends fast, no traceback.

A PR author controls every YAML file these rules read. An alias bomb, a matrix of a
billion jobs, CR-only line endings and a broken regex in the config each end in well
under a second with one finding or one sentence (exit 2), and nothing is written.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

from tests.conftest import Repo, Result
from tests.precommit_helpers import ONLY_REPO, precommit_accepts, rule_lines

Run = Callable[..., Result]

# Generous against a loaded 2-core machine; the unbounded versions run for minutes.
FAST = 3.0


def alias_bomb(levels: int = 9, fanout: int = 9) -> list[str]:
    """Anchor lines ``a0..aN`` where each level holds ``fanout`` aliases of the one below."""
    lines = [f"a0: &l0 [{', '.join(['x'] * fanout)}]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &l{level} [{', '.join([f'*l{level - 1}'] * fanout)}]")
    return lines


def timed(run: Run, *args: str) -> tuple[Result, float]:
    """Run policytool and measure the wall time."""
    start = time.perf_counter()
    result = run(*args)
    return result, time.perf_counter() - start


def test_alias_bomb_in_the_pre_commit_config_is_one_finding(repo: Repo, run: Run) -> None:
    text = "\n".join([*alias_bomb(), "repos:", "- repo: *l8", "  hooks: [{id: x}]", ""])
    assert len(text) < 600
    repo.write(".pre-commit-config.yaml", text)
    repo.write("pyproject.toml", '[tool.policytool.pre-commit]\nrequired = ["x"]\n')
    repo.commit()
    result, elapsed = timed(run, "check", f"--only={ONLY_REPO}")
    assert elapsed < FAST
    assert result.code == 1
    found = rule_lines(result.out, "precommit-config")
    assert [path for path, _line in found] == [".pre-commit-config.yaml"], result.out
    assert "aliases expand" in result.out
    fixed, elapsed = timed(run, "fix", f"--only={ONLY_REPO}")
    assert elapsed < FAST and fixed.code == 1
    assert repo.read(".pre-commit-config.yaml") == text.encode()


def test_alias_bomb_as_a_hook_field_is_one_finding(repo: Repo, run: Run) -> None:
    # Valid as far as the structure goes: the bomb sits in `args`, a list pre-commit accepts.
    text = "\n".join(
        [
            *alias_bomb(),
            "repos:",
            "- repo: local",
            "  hooks:",
            "  - {id: x, name: x, entry: echo, language: system, args: *l8}",
            "",
        ]
    )
    repo.write(".pre-commit-config.yaml", text)
    repo.write(".github/mergify.yml", "pull_request_rules: []\n")
    repo.commit()
    result, elapsed = timed(run, "check", f"--only={ONLY_REPO}")
    assert elapsed < FAST
    assert "aliases expand" in result.out
    synced, elapsed = timed(run, "sync")
    assert elapsed < FAST and synced.code == 2
    assert "Traceback" not in synced.err


def test_alias_bomb_in_mergify_rule_names_is_one_finding(repo: Repo, run: Run) -> None:
    text = "\n".join(
        [
            *alias_bomb(),
            "pull_request_rules:",
            "- name: *l8",
            "  conditions: []",
            "  actions: {comment: {message: hi}}",
            "",
        ]
    )
    assert len(text) < 600
    repo.write(".pre-commit-config.yaml", "repos: []\n")
    repo.write(".github/mergify.yml", text)
    repo.commit()
    result, elapsed = timed(run, "check", "--only=mergify-drift")
    assert elapsed < FAST
    found = rule_lines(result.out, "mergify-drift")
    assert [path for path, _line in found] == [".github/mergify.yml"], result.out
    assert "aliases expand" in result.out
    synced, elapsed = timed(run, "sync")
    assert elapsed < FAST and synced.code == 2
    assert "aliases expand" in synced.err


def test_alias_bomb_in_a_workflow_is_one_finding(repo: Repo, run: Run) -> None:
    text = "\n".join(
        [
            *alias_bomb(),
            "on: push",
            "jobs:",
            "  lint:",
            "    runs-on: ubuntu-latest",
            "    steps:",
            "    - run: pre-commit run --all-files",
            "      env: {SKIP: *l8}",
            "",
        ]
    )
    repo.write(".pre-commit-config.yaml", "repos: []\n")
    repo.write(".github/workflows/lint.yml", text)
    repo.commit()
    result, elapsed = timed(run, "check", f"--only={ONLY_REPO}")
    assert elapsed < FAST
    found = rule_lines(result.out, "ci-hook-stage")
    assert [path for path, _line in found] == [".github/workflows/lint.yml"], result.out


def test_workflow_linked_outside_the_repo_or_huge_is_not_read(
    repo: Repo, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A workflow symlinked to a 2 GB file outside the repo (a reviewer never sees it) and
    # a 2 MB workflow: neither is read whole, each is one finding. Run with 1 GB of
    # address space, so reading the link's target would fail the run.
    outside = tmp_path_factory.mktemp("outside") / "big.yml"
    with outside.open("wb") as handle:
        handle.write(b"# pre-commit run --all-files\n")
        handle.truncate(2 * 1024**3)  # sparse: no disk used
    repo.write(".pre-commit-config.yaml", "repos: []\n")
    (repo.root / ".github" / "workflows").mkdir(parents=True)
    (repo.root / ".github" / "workflows" / "linked.yml").symlink_to(outside)
    repo.write(".github/workflows/huge.yml", "# pre-commit\n" + "#" * (2 * 1024 * 1024) + "\n")
    repo.commit()

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1024**3, 1024**3))

    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "policytool", "check", f"--only={ONLY_REPO}"],
        cwd=repo.root,
        capture_output=True,
        text=True,
        preexec_fn=limit_memory,
        check=False,
    )
    assert time.perf_counter() - start < FAST + 2
    assert proc.returncode == 1 and proc.stderr == "", proc.stderr
    found = {path for path, _line in rule_lines(proc.stdout, "ci-hook-stage")}
    assert found == {".github/workflows/linked.yml", ".github/workflows/huge.yml"}, proc.stdout
    assert "leaves the repository" in proc.stdout
    assert "byte limit" in proc.stdout


def test_recursive_alias_is_one_finding(repo: Repo, run: Run) -> None:
    text = "a: &a [x, *a]\nrepos:\n- repo: local\n  hooks: *a\n"
    repo.write(".pre-commit-config.yaml", text)
    repo.commit()
    result, elapsed = timed(run, "check", f"--only={ONLY_REPO}")
    assert elapsed < FAST
    assert result.code == 1
    assert rule_lines(result.out, "precommit-config") == [(".pre-commit-config.yaml", 1)]
    assert "Traceback" not in result.err


MATRIX_BOMB = """\
on: [push, pull_request]
jobs:
  analyze:
    runs-on: ubuntu-latest
    permissions: {{security-events: write, contents: read, actions: read}}
    strategy:
      matrix:
{axes}
    steps:
      - uses: github/codeql-action/init@v3
        with: {{languages: "${{{{ matrix.a0 }}}}"}}
      - uses: github/codeql-action/analyze@v3
      - run: pre-commit run --all-files --hook-stage ${{{{ matrix.a1 }}}}
"""


def test_matrix_past_githubs_256_jobs_is_one_finding(repo: Repo, run: Run) -> None:
    axes = "\n".join(f"        a{i}: [{', '.join(str(v) for v in range(10))}]" for i in range(9))
    workflow = MATRIX_BOMB.format(axes=axes)
    assert len(workflow) < 1000
    repo.write(".github/workflows/codeql.yml", workflow)
    repo.write(".pre-commit-config.yaml", "repos: []\n")
    repo.commit()
    result, elapsed = timed(run, "check", "--only=codeql-workflow")
    assert elapsed < FAST
    matrix = [line for line in result.out.splitlines() if "256" in line]
    assert len(matrix) == 1, result.out
    assert matrix[0].startswith(".github/workflows/codeql.yml:7:")
    assert "1000000000 jobs" in matrix[0]
    result, elapsed = timed(run, "check", "--only=ci-hook-stage")
    assert elapsed < FAST
    assert len([line for line in result.out.splitlines() if "256" in line]) == 1


CR_CONFIG = (
    "default_stages: [pre-commit]\r"
    "repos:\r"
    "  - repo: local\r"
    "    hooks:\r"
    "      - id: suggestion\r"
    "        name: suggestion\r"
    "        entry: echo\r"
    "        language: system\r"
    "      - id: mypy\r"
    "        name: mypy\r"
    "        entry: echo\r"
    "        language: system\r"
)


def test_cr_only_pre_commit_config_is_fixed_keeping_cr(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        "[tool.policytool.pre-commit]\n"
        'final-hook = "suggestion"\nmanual-only = ["mypy"]\n'
        'default-stages = ["pre-commit", "manual"]\n',
    )
    path = repo.write(".pre-commit-config.yaml", CR_CONFIG)
    repo.commit()
    assert precommit_accepts(path) is None  # pre-commit reads the file as it is
    result, elapsed = timed(run, "fix", "--only=precommit-final-hook,precommit-default-stages")
    assert elapsed < FAST
    assert "Traceback" not in result.err
    result = run("fix", "--only=precommit-manual-only")
    data = repo.read(".pre-commit-config.yaml")
    assert b"\n" not in data, data  # still CR-only
    assert precommit_accepts(path) is None
    text = data.decode().replace("\r", "\n")
    assert text.startswith("default_stages: [pre-commit, manual]\n")
    assert text.index("id: mypy") < text.index("id: suggestion")
    assert "        stages: [manual]\n" in text
    again = run(
        "check", "--only=precommit-final-hook,precommit-default-stages,precommit-manual-only"
    )
    assert again.code == 0, again.out


def test_cr_only_mergify_file_is_synced_keeping_cr(repo: Repo, run: Run) -> None:
    repo.write(".pre-commit-config.yaml", "repos: []\n")
    mergify = (
        "pull_request_rules:\r"
        "  - name: comment-pre-commit-failure\r"
        "    conditions: [check-failure=pre-commit]\r"
        "    actions:\r"
        "      comment:\r"
        "        message: |\r"
        "          Hi, pre-commit failed.\r"
    )
    repo.write(".github/mergify.yml", mergify)
    repo.commit()
    result, elapsed = timed(run, "sync")
    assert elapsed < FAST
    assert result.code == 0, result.err
    data = repo.read(".github/mergify.yml")
    assert b"\n" not in data
    assert data.startswith(mergify.encode())
    assert b"policytool:sync end" in data
    assert run("sync", "--check").code == 0


@pytest.mark.parametrize(
    ("table", "line"),
    [
        ('rev-pattern = { "https://github.com/x/y" = "v(\\\\d+" }\n', 2),
        ('[tool.policytool.pre-commit.rev-pattern]\n"https://github.com/x/y" = "*v"\n', 3),
    ],
)
def test_invalid_rev_pattern_is_a_config_error(repo: Repo, run: Run, table: str, line: int) -> None:
    repo.write("pyproject.toml", "[tool.policytool.pre-commit]\n" + table)
    repo.write(
        ".pre-commit-config.yaml",
        "repos:\n- repo: https://github.com/x/y\n  rev: v1.0.0\n  hooks: [{id: a}]\n",
    )
    repo.commit()
    result = run("check", "--only=precommit-rev")
    assert result.code == 2
    assert result.err.startswith(f"policytool: error: {repo.root / 'pyproject.toml'}:{line}: ")
    assert "rev-pattern" in result.err and "not a valid regular expression" in result.err
    assert len(result.err.splitlines()) == 1


def test_invalid_min_rev_is_a_config_error(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        '[tool.policytool.pre-commit]\nmin-rev = { "https://github.com/x/y" = "latest" }\n',
    )
    repo.commit()
    result = run("check", "--only=precommit-rev")
    assert result.code == 2
    assert "min-rev: 'latest' for https://github.com/x/y is not a version" in result.err
