# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``sweep --staged`` refuses an index with unmerged paths instead of leaving them out.

A merge stopped on conflicts leaves no stage-0 entry for a conflicted file: the staged
diff has nothing to show for it, and the sweep said "no findings in 0 files".
"""

from __future__ import annotations

import json
import os
import subprocess

from tests.conftest import GIT_ENV, Repo
from tests.sweep_fixture import Run

UNTYPED = "def f(a):\n    return {}\n"


def conflict(repo: Repo, ours: dict[str, str], theirs: dict[str, str]) -> None:
    """Commit a base, ``theirs`` on branch ``other`` and ``ours`` on ``main``, then merge
    ``other`` into ``main``: the merge stops with every path both sides changed unmerged."""
    for path in {*ours, *theirs}:
        repo.write(path, "x = 0\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "other")
    for path, text in theirs.items():
        repo.write(path, text)
    repo.commit("theirs")
    repo.git("checkout", "-q", "main")
    for path, text in ours.items():
        repo.write(path, text)
    repo.commit("ours")
    merge = subprocess.run(
        ["git", "merge", "-q", "other"],
        cwd=repo.root,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
    )
    assert merge.returncode == 1  # stopped on the conflicts


def test_an_unmerged_python_file_is_refused_naming_it(repo: Repo, run: Run) -> None:
    conflict(repo, {"a.py": "x = 1\n"}, {"a.py": UNTYPED})
    before = repo.read("a.py")
    result = run("sweep", "--base", "main", "--staged")
    assert result.code == 2
    assert result.err.startswith("policytool: error: ")
    assert "the index has unmerged paths (a.py)" in result.err
    assert "Traceback" not in result.err and result.out == ""
    assert repo.read("a.py") == before  # the conflict markers are left as they are


def test_a_resolved_conflict_is_swept(repo: Repo, run: Run) -> None:
    conflict(repo, {"a.py": "x = 1\n"}, {"a.py": UNTYPED})
    repo.write("a.py", UNTYPED)
    repo.git("add", "a.py")
    result = run("sweep", "--base", "HEAD", "--two-dot", "--staged", "--format", "json")
    assert result.code in (0, 1), result.err
    assert {f["path"] for f in json.loads(result.out)} == {"a.py"}


def test_an_unmerged_pyproject_is_refused_not_read_as_absent(repo: Repo, run: Run) -> None:
    # read as absent, the defaults (no excludes) would apply without a word
    conflict(
        repo,
        {"pyproject.toml": '[tool.policytool]\nexclude = ["gen/**"]\n'},
        {"pyproject.toml": '[tool.policytool]\nexclude = ["out/**"]\n'},
    )
    result = run("sweep", "--base", "main", "--staged")
    assert result.code == 2
    assert "unmerged paths (pyproject.toml)" in result.err


def test_any_unmerged_path_is_refused_and_a_long_list_is_cut(repo: Repo, run: Run) -> None:
    names = [f"n{i}.txt" for i in range(7)]
    conflict(repo, dict.fromkeys(names, "ours\n"), dict.fromkeys(names, "theirs\n"))
    result = run("sweep", "--base", "main", "--staged")
    assert result.code == 2
    assert "(n0.txt, n1.txt, n2.txt, n3.txt, n4.txt and 2 more)" in result.err


def test_a_control_character_in_an_unmerged_name_is_escaped(repo: Repo, run: Run) -> None:
    conflict(repo, {"a\x1b[2J.py": "x = 1\n"}, {"a\x1b[2J.py": "x = 2\n"})
    result = run("sweep", "--base", "main", "--staged")
    assert result.code == 2
    assert "a\\x1b[2J.py" in result.err and "\x1b" not in result.err


def test_the_commits_and_the_work_tree_are_still_swept(repo: Repo, run: Run) -> None:
    conflict(repo, {"a.py": "x = 1\n"}, {"a.py": UNTYPED})
    head = run("sweep", "--base", "HEAD~1", "--head", "other", "--two-dot", "--format", "json")
    assert head.code in (0, 1), head.err
    assert {f["path"] for f in json.loads(head.out)} == {"a.py"}
    # the work tree holds the conflict markers: not Python, reported, not refused
    worktree = run("sweep", "--base", "main", "--format", "json")
    assert worktree.code == 1, worktree.err
    assert [f["rule"] for f in json.loads(worktree.out)] == ["syntax-error"]
