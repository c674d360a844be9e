# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Hostile repositories, probed beyond the listed items: deep trees, symlink swaps during
``fix``, submodules and worktrees, tox and nox inputs, signals to forked workers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GIT_ENV, Repo

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


@pytest.mark.parametrize("git", [True, False], ids=["git", "no-git"])
def test_a_file_1000_directories_deep_is_checked_and_fixed(tmp_path: Path, git: bool) -> None:
    root = tmp_path / "repo"
    root.mkdir()
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
