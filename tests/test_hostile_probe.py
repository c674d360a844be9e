# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Hostile repositories, probed beyond the listed items: deep trees, symlink swaps during
``fix``, submodules and worktrees, tox and nox inputs, signals to forked workers."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from policytool.core import atomic as files
from tests.conftest import GIT_ENV, Repo, Result

HEADER = "# SPDX-License-Identifier: MIT\n"
CONFIG = '[tool.policytool.spdx]\nlicense = "MIT"\n'


def cli(cwd: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """``policytool ARGS`` as a real subprocess, bounded in time."""
    env = {**os.environ, **GIT_ENV}
    env.pop("POLICYTOOL_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "policytool", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def one_sentence(stderr: str) -> bool:
    """Whether stderr is one ``policytool: error:`` line and no traceback."""
    return stderr.count("\n") <= 1 and "Traceback" not in stderr and "internal error" not in stderr


# --- a file 1,000 directories deep --------------------------------------------------------

DEEP = "/".join(["d"] * 1000)


def _remove_deep(root: Path) -> None:
    """Remove the DEEP tree bottom-up without recursion (pytest's cleanup of old temp
    directories recurses a level each and would fail on it in later runs)."""
    for level in range(1000, 0, -1):
        directory = root / DEEP[: 2 * level - 1]
        for entry in os.scandir(directory):
            if not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.path)
        os.rmdir(directory)


@pytest.fixture
def deep_root(tmp_path: Path) -> Iterator[Path]:
    """An empty directory for the DEEP tree, emptied again after the test."""
    root = tmp_path / "repo"
    root.mkdir()
    yield root
    if (root / "d").is_dir():
        _remove_deep(root)


@pytest.mark.parametrize("git", [True, False], ids=["git", "no-git"])
def test_a_file_1000_directories_deep_is_checked_and_fixed(deep_root: Path, git: bool) -> None:
    root = deep_root
    for level in range(1, 1001):  # not mkdir(parents=True): it recurses a level each
        os.mkdir(root / DEEP[: 2 * level - 1])
    (root / "pyproject.toml").write_text(CONFIG)
    (root / DEEP / "a.py").write_text("x = 1\n")
    if git:
        r = Repo(root)
        r.git("init", "-q", "-b", "main")
        r.commit()
    # git: all tracked files, then one named file; no git: a directory, then ``.``
    checked = cli(root, "check") if git else cli(root, "check", "d")
    assert checked.returncode == 1, checked.stderr[-300:]
    assert checked.stdout.count("spdx-header") == 1
    fixed = cli(root, "fix", f"{DEEP}/a.py") if git else cli(root, "fix", ".")
    assert fixed.returncode == 1, fixed.stderr[-300:]
    assert (root / DEEP / "a.py").read_text() == HEADER + "x = 1\n"


# --- a parent directory swapped for a link out, between discovery and write ------------


@pytest.mark.parametrize("when", ["before-the-write", "during-the-write"])
def test_fix_never_lands_outside_when_a_parent_is_swapped_for_a_link(
    repo: Repo,
    run: Callable[..., Result],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    when: str,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.py").write_bytes(b"x = 1\n")
    repo.write("pyproject.toml", CONFIG)
    repo.write("sub/a.py", "x = 1\n")
    repo.commit()

    def swap() -> None:
        if not (repo.root / "sub").is_symlink():
            os.rename(repo.root / "sub", repo.root / "moved")
            os.symlink(outside, repo.root / "sub")

    # The file was discovered and read; the swap comes right before write_atomic looks
    # at the path (before-) or once it holds the directory, before the temp file (during-).
    hook = "unwritable_reason" if when == "before-the-write" else "_remove_stale_temps"
    real = getattr(files, hook)

    def swapped(*args: object) -> object:
        swap()
        return real(*args)

    monkeypatch.setattr(files, hook, swapped)
    result = run("fix")
    assert (outside / "a.py").read_bytes() == b"x = 1\n"
    assert sorted(p.name for p in outside.iterdir()) == ["a.py"]  # no temp file either
    if when == "before-the-write":
        assert result.code == 2
        assert result.err == (
            "policytool: error: sub/a.py: cannot write the fix: its directory resolves "
            f"outside {repo.root}\n"
        )
        assert repo.read("moved/a.py") == b"x = 1\n"
    else:  # the directory held is the repository's own: the fix lands there
        assert result.code == 1, result.err
        assert repo.read("moved/a.py") == HEADER.encode() + b"x = 1\n"


# --- tox and nox inputs -------------------------------------------------------------------


def test_tox_and_nox_files_linked_out_of_the_repository_are_not_read(tmp_path: Path) -> None:
    from policytool.formats.tox import env_commands, nox_programs

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "tox.ini").write_text("[testenv]\ncommands =\n    pip install from-outside\n")
    (outside / "noxfile.py").write_text("def s(session):\n    session.run('mypy')\n")
    root = tmp_path / "repo"
    root.mkdir()
    for name in ("tox.ini", "noxfile.py"):
        (root / name).symlink_to(outside / name)
    assert env_commands(root, "py") == []
    assert nox_programs(root) == set()
    for name in ("tox.ini", "noxfile.py"):  # the same files inside are read
        (root / name).unlink()
        (root / name).write_bytes((outside / name).read_bytes())
    assert env_commands(root, "py") == ["pip install from-outside"]
    assert nox_programs(root) == {"mypy"}


def test_tox_substitutions_and_a_noxfile_are_never_expanded_or_run(tmp_path: Path) -> None:
    from policytool.formats.tox import env_commands, nox_programs

    marker = tmp_path / "ran"
    (tmp_path / "tox.ini").write_text(
        "[a]\nx = {[a]x}{[a]x}\n[testenv]\ncommands =\n    {[a]x}\n    pytest\n"
    )
    (tmp_path / "noxfile.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        "import nox\n@nox.session\ndef s(session):\n    session.run('mypy')\n"
    )
    assert env_commands(tmp_path, "py") == ["{[a]x}", "pytest"]  # a self-reference stays text
    assert nox_programs(tmp_path) == {"mypy"}
    assert not marker.exists()  # read with ast, never imported
