# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The published ``lock-check`` hook, run for real with ``pre-commit try-repo``.

try-repo installs policytool from this checkout into a fresh virtualenv (its
dependencies come from PyPI), so the test is skipped, with the reason, when PyPI cannot be
reached. The lock itself is compiled beforehand from the local test wheels; the hook needs
no backend and no index.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import GIT_ENV, Repo, Result
from tests.test_lock import setup_simple
from tests.wheelhouse import Wheelhouse, wheelhouse

# The session fixture, registered in this module by the import above.
__all__ = ["wheelhouse"]

PROJECT = Path(__file__).resolve().parents[1]


def _skip_without_pypi() -> None:
    try:
        with urllib.request.urlopen("https://pypi.org/simple/click/", timeout=10) as response:
            response.read(100)
    except (urllib.error.URLError, OSError) as exc:
        pytest.skip(
            f"PyPI is unreachable ({exc}); try-repo installs the hook's dependencies from it"
        )


def _try_repo(repo: Repo, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "PRE_COMMIT"))}
    env.update(GIT_ENV)
    env.update({"PIP_CONFIG_FILE": os.devnull, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"})
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(PROJECT),
            "lock-check",
            "--all-files",
            "--color=never",
        ],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_try_repo_lock_check(
    repo: Repo, run: Callable[..., Result], wheelhouse: Wheelhouse, tmp_path: Path
) -> None:
    _skip_without_pypi()
    setup_simple(repo, wheelhouse.path)
    assert run("lock").code == 0
    repo.commit("locks")
    home = tmp_path / "pre-commit-home"
    passed = _try_repo(repo, home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
    text = repo.read("requirements/test.txt").replace(b"delta==2.0", b"delta==1.0")
    repo.write("requirements/test.txt", text)
    repo.commit("hand edit")
    failed = _try_repo(repo, home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "requirements/test.txt:7:1: lock-stale edited by hand" in failed.stdout
