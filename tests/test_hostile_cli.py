# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""A hostile pull request against ``init``, ``baseline``, ``sync`` and the command line.

The author of a pull request controls every file policytool reads in CI, file names and
symlinks included: none of them may make policytool write outside the repository, read
a file name as an option, or accept the pull request's own findings unseen.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Repo, Result

Run = Callable[..., Result]

PYPROJECT = '[project]\nname = "demo"\nversion = "0"\n'


def _files_below(path: Path) -> list[str]:
    """Every file and directory below ``path`` (relative, sorted)."""
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


# --- item 3: init, baseline and sync never write outside the repository ---------------


def test_init_refuses_a_github_symlink_out_and_writes_nothing(
    repo: Repo, run: Run, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    repo.write("pyproject.toml", PYPROJECT)
    os.symlink("../outside", repo.root / ".github")
    repo.commit()
    before = repo.read("pyproject.toml")
    result = run("init")
    assert result.code == 2, result.out
    assert _files_below(outside) == []
    assert "resolves outside the repository" in result.err
    assert ".github/" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert repo.read("pyproject.toml") == before  # nothing written, the config neither
    assert not (repo.root / ".pre-commit-config.yaml").exists()


def test_init_refuses_a_workflows_symlink_out(repo: Repo, run: Run, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    repo.write("pyproject.toml", PYPROJECT)
    (repo.root / ".github").mkdir()
    os.symlink("../../outside", repo.root / ".github" / "workflows")
    repo.commit()
    assert run("init", "--dry-run").code == 2
    assert run("init").code == 2
    assert _files_below(outside) == []


def test_init_writes_through_a_github_symlink_that_stays_inside(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", PYPROJECT)
    (repo.root / "ci").mkdir()
    os.symlink("ci", repo.root / ".github")
    repo.commit()
    result = run("init")
    assert result.code == 0, result.err
    assert (repo.root / "ci" / "workflows" / "pre-commit.yml").is_file()


def test_baseline_refuses_a_baseline_file_symlink_out(repo: Repo, run: Run, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("[]\n")
    repo.write("pyproject.toml", PYPROJECT)
    os.symlink(str(outside), repo.root / ".policytool-baseline.json")
    repo.commit()
    result = run("baseline")
    assert result.code == 2
    assert "resolves outside the repository" in result.err
    assert outside.read_text() == "[]\n"


def test_sync_refuses_a_github_symlink_out(repo: Repo, run: Run, tmp_path: Path) -> None:
    repo.write("pyproject.toml", PYPROJECT)
    assert run("init").code == 0
    real = repo.root / ".github"
    outside = tmp_path / "outside"
    real.rename(outside)
    os.symlink("../outside", real)
    mergify = outside / "mergify.yml"
    # stale the block so sync wants to write it
    text = mergify.read_text()
    mergify.write_text(text.replace("pre-commit run --all-files", "pre-commit run -a"))
    before = mergify.read_bytes()
    result = run("sync")
    assert result.code == 2, result.out
    assert mergify.read_bytes() == before
    assert [p.name for p in outside.iterdir() if p.name.endswith(".tmp")] == []
