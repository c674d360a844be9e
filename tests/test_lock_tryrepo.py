# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The published ``lock-check`` hook, run for real with ``pre-commit try-repo``.

try-repo installs policytool from this checkout into a fresh virtualenv (its
dependencies come from PyPI), so the test is skipped, with the reason, when PyPI cannot be
reached. The lock itself is compiled beforehand from the local test wheels; the hook needs
no backend and no index.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Result
from tests.test_lock import setup_simple
from tests.tryrepo import try_repo
from tests.wheelhouse import Wheelhouse


@pytest.mark.network
def test_try_repo_lock_check(
    pypi: None,
    repo: Repo,
    run: Callable[..., Result],
    wheelhouse: Wheelhouse,
    pre_commit_home: Path,
) -> None:
    setup_simple(repo, wheelhouse.path)
    assert run("lock").code == 0
    repo.commit("locks")
    home = pre_commit_home
    passed = try_repo(repo, home, "lock-check")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
    text = repo.read("requirements/test.txt").replace(b"delta==2.0", b"delta==1.0")
    repo.write("requirements/test.txt", text)
    repo.commit("hand edit")
    failed = try_repo(repo, home, "lock-check")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "requirements/test.txt:9:1: lock-stale edited by hand" in failed.stdout
