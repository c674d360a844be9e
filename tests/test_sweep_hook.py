# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The published ``sweep`` hook, run for real with ``pre-commit try-repo`` (manual stage)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pre_commit.clientlib import load_manifest

from tests.conftest import Repo
from tests.tryrepo import MANIFEST, try_repo


def test_sweep_hook_is_manual_and_repo_wide() -> None:
    hooks = {str(h["id"]): h for h in load_manifest(str(MANIFEST))}
    hook = hooks["sweep"]
    assert hook["entry"] == "policytool sweep"
    assert hook["stages"] == ["manual"]
    assert hook["pass_filenames"] is False and hook["always_run"] is True
    assert hook["verbose"] is True


@pytest.mark.network
def test_try_repo_sweep(pypi: None, repo: Repo, pre_commit_home: Path) -> None:
    repo.write("pkg/old.py", "def old():\n    try:\n        pass\n    except:\n        pass\n")
    repo.commit("backlog")
    repo.git("checkout", "-q", "-b", "feature")
    home = pre_commit_home

    clean = try_repo(repo, home, "sweep", "--hook-stage", "manual")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "adds)....." in clean.stdout and "Passed" in clean.stdout
    # The hook is verbose: a passing run shows its report (warnings do not fail it).
    assert clean.stdout.rstrip().endswith("| Code quality | 0 ⚠ | 0 ✗ |")

    swallow = (
        "def setup_store() -> None:\n    try:\n        pass\n    except Exception:\n        pass\n"
    )
    repo.write("pkg/new.py", swallow)
    repo.commit("new swallow")
    failed = try_repo(repo, home, "sweep", "--hook-stage", "manual")
    out = failed.stdout + failed.stderr
    assert failed.returncode == 1, out
    assert "pkg/new.py:4:5: broad-except ✗" in out
    assert "pkg/old.py" not in out
    assert "| Code quality | 0 ⚠ | 1 ✗ |" in out
