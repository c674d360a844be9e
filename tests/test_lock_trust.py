# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Locks a reviewer can trust (issue 23): hashes from the index, re-derivable locks."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from policytool.formats import lockfile
from tests.conftest import Repo, Result
from tests.test_lock import BACKENDS, lock_table, setup_simple
from tests.wheelhouse import Wheelhouse, wheel_sha256

Run = Callable[..., Result]
WRONG = "0" * 64


def forge(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` replaced by ``new`` and the body hash recomputed (a forger's edit)."""
    assert old in text, old
    parsed = lockfile.parse(text.replace(old, new, 1))
    body = parsed.body
    return re.sub(
        r"^# body: sha256:[0-9a-f]{64}$",
        f"# body: {lockfile.body_hash(body)}",
        parsed.text,
        count=1,
        flags=re.MULTILINE,
    )


# ---------------------------------------------------------------------------------------
# item 1: hashes come from the index, never from the old lock


@pytest.mark.parametrize("backend", BACKENDS)
def test_repair_replaces_a_hand_edited_hash(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, backend: str
) -> None:
    setup_simple(repo, wheelhouse.path, backend, extra="hashes = true")
    assert run("lock").code == 0
    real = wheel_sha256(wheelhouse.path, "alpha", "1.1")
    text = repo.read("requirements/test.txt").decode()
    repo.write("requirements/test.txt", forge(text, real, WRONG))
    result = run("lock", "test")
    assert result.code == 0, result.err
    repaired = repo.read("requirements/test.txt").decode()
    assert WRONG not in repaired
    assert real in repaired
    assert run("lock", "--check").code == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_upgrade_package_replaces_other_hand_edited_hashes(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, backend: str
) -> None:
    setup_simple(repo, wheelhouse.path, backend, extra="hashes = true")
    assert run("lock").code == 0
    real = wheel_sha256(wheelhouse.path, "alpha", "1.1")
    text = repo.read("requirements/test.txt").decode()
    repo.write("requirements/test.txt", forge(text, real, WRONG))
    for spec in ("delta==1.0", "delta"):
        result = run("lock", "--upgrade-package", spec)
        assert result.code == 0, result.err
        assert WRONG not in repo.read("requirements/test.txt").decode()
    assert real in repo.read("requirements/test.txt").decode()
