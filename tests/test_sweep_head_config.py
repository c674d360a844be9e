# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``sweep --head REV`` reads ``[tool.policytool]`` as REV has it, not the work tree's."""

from __future__ import annotations

import json

from tests.conftest import Repo, Result
from tests.sweep_fixture import Run

UNTYPED = "def f(a):\n    return a\n"
EXCLUDE_GEN = '[tool.policytool]\nexclude = ["gen/**"]\n'


def swept_paths(result: Result) -> set[str]:
    """The paths of a JSON sweep's findings."""
    assert result.code in (0, 1), result.err
    return {f["path"] for f in json.loads(result.out)}


def base(repo: Repo, files: dict[str, str]) -> None:
    """Commit ``files`` on ``main`` of the empty ``repo``: the base of the change."""
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("base")


def branch(repo: Repo, files: dict[str, str]) -> None:
    """Commit ``files`` on branch ``feature`` (made from ``main``), then check out
    ``main``: the work tree is not the head swept."""
    repo.git("checkout", "-q", "-B", "feature", "main")
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("feature")
    repo.git("checkout", "-q", "main")


def test_the_heads_exclude_applies_not_the_work_trees(repo: Repo, run: Run) -> None:
    base(repo, {"README.md": "x\n"})
    branch(repo, {"pyproject.toml": EXCLUDE_GEN, "gen/g.py": UNTYPED, "pkg/p.py": UNTYPED})
    head = ("sweep", "--base", "main", "--head", "feature", "--format", "json")
    assert swept_paths(run(*head)) == {"pkg/p.py"}
    # the work tree's own table (the same globs) is what the default head reads
    repo.git("checkout", "-q", "feature")
    assert swept_paths(run("sweep", "--base", "main", "--format", "json")) == {"pkg/p.py"}


def test_the_work_trees_exclude_does_not_hide_the_heads_files(repo: Repo, run: Run) -> None:
    base(repo, {"pyproject.toml": EXCLUDE_GEN})
    branch(repo, {"pyproject.toml": "[project]\nname = 'x'\n", "gen/g.py": UNTYPED})
    result = run("sweep", "--base", "main", "--head", "feature", "--format", "json")
    assert swept_paths(result) == {"gen/g.py"}
    # an explicit --config is read from the work tree, as it is
    result = run(
        "sweep", "--base", "main", "--head", "feature", "--config", "pyproject.toml",
        "--format", "json",
    )  # fmt: skip
    assert swept_paths(result) == set()


def test_a_head_without_pyproject_has_the_defaults(repo: Repo, run: Run) -> None:
    base(repo, {"pyproject.toml": EXCLUDE_GEN})
    repo.git("checkout", "-q", "--orphan", "bare")
    repo.git("rm", "-q", "-f", "pyproject.toml")
    repo.write("gen/g.py", UNTYPED)
    repo.commit("no pyproject")
    repo.git("checkout", "-q", "-f", "main")
    result = run("sweep", "--base", "main", "--head", "bare", "--two-dot", "--format", "json")
    assert swept_paths(result) == {"gen/g.py"}


def test_a_broken_table_at_the_head_is_exit_2_naming_the_commit(repo: Repo, run: Run) -> None:
    base(repo, {"pyproject.toml": EXCLUDE_GEN})
    branch(repo, {"pyproject.toml": '[project]\ndependencies = [\n  "a"\n  "b",\n]\n'})
    result = run("sweep", "--base", "main", "--head", "feature")
    assert result.code == 2
    assert result.err.startswith("policytool: error: feature:pyproject.toml: invalid TOML")
    assert "Traceback" not in result.err
    branch_bad = run("sweep", "--base", "main", "--head", "main")
    assert branch_bad.code == 0, branch_bad.err


def test_a_broken_work_tree_table_does_not_stop_a_sound_head(repo: Repo, run: Run) -> None:
    base(repo, {"pyproject.toml": EXCLUDE_GEN})
    branch(repo, {"gen/g.py": UNTYPED, "pkg/p.py": UNTYPED})
    repo.write("pyproject.toml", "[tool.policytool\n")  # an uncommitted, broken edit
    assert run("sweep", "--base", "main").code == 2
    result = run("sweep", "--base", "main", "--head", "feature", "--format", "json")
    assert swept_paths(result) == {"pkg/p.py"}


def test_the_heads_unknown_key_and_oversized_table_are_exit_2(repo: Repo, run: Run) -> None:
    base(repo, {"pyproject.toml": EXCLUDE_GEN})
    branch(repo, {"pyproject.toml": '[tool.policytool.sweep]\nserving-path = ["x/**"]\n'})
    result = run("sweep", "--base", "main", "--head", "feature")
    assert result.code == 2
    assert "feature:pyproject.toml:2: tool.policytool.sweep: unknown key" in result.err
    branch(repo, {"pyproject.toml": "# " + "x" * (4 * 1024 * 1024) + "\n"})
    result = run("sweep", "--base", "main", "--head", "feature")
    assert result.code == 2
    assert "feature:pyproject.toml: 4194307 bytes, over the 4194304-byte limit" in result.err


def test_the_heads_requires_python_sets_the_target(repo: Repo, run: Run) -> None:
    # a `match` statement parses on 3.10 and later: the head's floor says 3.8, so the file
    # is a syntax error for the code's target, whatever the work tree says
    match = (
        "def f(x: int) -> int:\n    match x:\n        case 1:\n            return 1\n    return 0\n"
    )
    base(repo, {"pyproject.toml": '[project]\nrequires-python = ">=3.11"\n'})
    branch(repo, {"pyproject.toml": '[project]\nrequires-python = ">=3.8"\n', "m.py": match})
    result = run("sweep", "--base", "main", "--head", "feature", "--format", "json")
    rules = {f["rule"] for f in json.loads(result.out)}
    assert rules == {"syntax-error"}, result.out


def test_a_linked_pyproject_at_the_head_is_not_followed(repo: Repo, run: Run) -> None:
    """A pull request that turns pyproject.toml into a link (to a file of excludes) gets
    the defaults: the link is not read, so it cannot widen what the sweep leaves out."""
    base(repo, {"README.md": "x\n"})
    repo.git("checkout", "-q", "-B", "feature", "main")
    repo.write("conf/policy.toml", EXCLUDE_GEN)
    (repo.root / "pyproject.toml").symlink_to("conf/policy.toml")
    repo.write("gen/g.py", UNTYPED)
    repo.commit("link")
    repo.git("checkout", "-q", "main")
    result = run("sweep", "--base", "main", "--head", "feature", "--format", "json")
    assert swept_paths(result) == {"gen/g.py"}


def test_staged_reads_the_table_the_index_has(repo: Repo, run: Run) -> None:
    """``--staged`` sweeps what is staged with the table that is staged: an unstaged edit of
    pyproject.toml (here, an exclude that would hide the staged file) is not what the
    commit will hold."""
    base(repo, {"pyproject.toml": "[project]\nname = 'x'\n"})
    repo.write("gen/g.py", UNTYPED)
    repo.git("add", "gen/g.py")
    repo.write("pyproject.toml", EXCLUDE_GEN)  # not staged
    result = run("sweep", "--base", "main", "--staged", "--format", "json")
    assert swept_paths(result) == {"gen/g.py"}
    assert swept_paths(run("sweep", "--base", "main", "--format", "json")) == set()
    repo.git("add", "pyproject.toml")
    assert swept_paths(run("sweep", "--base", "main", "--staged", "--format", "json")) == set()


def test_a_broken_staged_table_is_exit_2_naming_the_index(repo: Repo, run: Run) -> None:
    base(repo, {"pyproject.toml": EXCLUDE_GEN})
    repo.write("pyproject.toml", "[tool.policytool\n")
    repo.git("add", "pyproject.toml")
    repo.write("pyproject.toml", EXCLUDE_GEN)  # the work tree's is sound again
    result = run("sweep", "--base", "main", "--staged")
    assert result.code == 2
    assert result.err.startswith("policytool: error: :pyproject.toml: invalid TOML")
    assert run("sweep", "--base", "main").code == 0
