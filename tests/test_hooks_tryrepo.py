# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The published hooks (``.pre-commit-hooks.yaml``), run for real with ``pre-commit try-repo``.

try-repo clones this checkout (with a shadow commit of uncommitted tracked changes),
installs policytool from it into a fresh virtualenv (its dependencies come from the
package index) and runs the hook in a temporary git repo. Those tests are skipped,
with the reason, only when PyPI cannot be reached.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from pre_commit.clientlib import load_manifest

from policytool.rules import file_rules, rule_infos
from tests.conftest import GIT_ENV, Repo

PROJECT = Path(__file__).resolve().parents[1]
MANIFEST = PROJECT / ".pre-commit-hooks.yaml"

DRIFTED = """\
repos:
  - repo: local
    hooks:
      # Keep `suggestion` last
      - id: suggestion
        name: suggestion
        entry: echo bypass with --no-verify
        language: system
      - id: mypy
        name: mypy
        entry: mypy
        language: system
"""
POLICY = """\
[tool.policytool.pre-commit]
final-hook = "suggestion"
manual-only = ["mypy"]

[tool.mypy]
"""


def _manifest() -> list[dict[str, object]]:
    hooks = load_manifest(str(MANIFEST))
    assert isinstance(hooks, list)
    return hooks


def _only_ids(entry: str) -> list[str]:
    args = shlex.split(entry)
    for index, arg in enumerate(args):
        if arg == "--only" and index + 1 < len(args):
            return args[index + 1].split(",")
        if arg.startswith("--only="):
            return arg.split("=", 1)[1].split(",")
    return []


def test_manifest_hooks_are_sensible() -> None:
    hooks = _manifest()
    ids = [str(h["id"]) for h in hooks]
    assert len(ids) == len(set(ids))
    assert {"policytool-repo", "policytool-repo-fix", "spdx-header", "spdx-header-fix"} <= set(ids)
    known = rule_infos()
    file_ids = set(file_rules())
    for hook in hooks:
        entry = str(hook["entry"])
        assert entry.split()[0] == "policytool", hook["id"]
        assert hook["language"] == "python", hook["id"]
        if entry.split()[1] not in ("check", "fix"):
            # Another command (e.g. `lock --check`): it reads the repo, not the file names.
            assert hook["pass_filenames"] is False, hook["id"]
            assert hook["require_serial"] is True, hook["id"]
            continue
        only = _only_ids(entry)
        assert only, f"{hook['id']}: name the rules it runs with --only"
        assert all(rule in known for rule in only), hook["id"]
        if any(rule in file_ids for rule in only):
            # File rules get the changed files, narrowed to the kinds they read.
            assert hook["pass_filenames"] is True, hook["id"]
            assert hook["types"] != ["file"] or hook["types_or"] or hook["files"], hook["id"]
        else:
            # Repo-level rules look at the whole repo once: no file names, one process.
            assert hook["pass_filenames"] is False, hook["id"]
            assert hook["require_serial"] is True, hook["id"]
    for hook in hooks:
        if str(hook["id"]).startswith("policytool-repo"):
            files = re.compile(str(hook["files"]))
            for path in (
                ".pre-commit-config.yaml",
                "pyproject.toml",
                ".github/workflows/ci.yml",
                ".github/mergify.yml",
                "requirements/test.txt",
            ):
                assert files.search(path), (hook["id"], path)
            assert not files.search("src/module.py")


def _pypi_reachable() -> str | None:
    try:
        with urllib.request.urlopen("https://pypi.org/simple/click/", timeout=10) as response:
            response.read(100)
    except (urllib.error.URLError, OSError) as exc:
        return f"PyPI is unreachable ({exc}); try-repo installs the hook's dependencies from it"
    return None


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "PRE_COMMIT"))}
    env.update(GIT_ENV)
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PRE_COMMIT_HOME"] = str(home)
    env["NO_COLOR"] = "1"
    return env


def _try_repo(repo: Repo, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(PROJECT),
            *args,
            "--all-files",
            "--color=never",
        ],
        cwd=repo.root,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def pypi() -> None:
    """Skip (with the reason) when the package index cannot be reached."""
    reason = _pypi_reachable()
    if reason:
        pytest.skip(reason)


def test_try_repo_policytool_repo_hooks(pypi: None, repo: Repo, tmp_path: Path) -> None:
    repo.write("pyproject.toml", POLICY)
    repo.write(".pre-commit-config.yaml", DRIFTED)
    repo.commit()
    home = tmp_path / "pre-commit-home"

    # 1. The check hook fails and says why.
    checked = _try_repo(repo, home, "policytool-repo")
    out = checked.stdout + checked.stderr
    assert checked.returncode == 1, out
    assert re.search(r"policytool-repo \(.*\)\.+Failed", out), out
    assert (
        ".pre-commit-config.yaml:5:1: precommit-final-hook 'suggestion' must be the last hook"
        in out
    )
    assert "precommit-default-stages" in out and "precommit-manual-only" in out
    # additional_dependencies gives the hook pre-commit, so the schema was checked.
    assert "pre-commit is not installed" not in out

    # 2. The fix hook mends it (and fails, because it changed a file).
    fixed = _try_repo(repo, home, "policytool-repo-fix")
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr
    assert "files were modified by this hook" in fixed.stdout
    text = repo.read(".pre-commit-config.yaml").decode()
    assert text.startswith("default_stages: [pre-commit, manual]\nrepos:\n")
    assert text.endswith(
        "      # Keep `suggestion` last\n      - id: suggestion\n"
        "        name: suggestion\n        entry: echo bypass with --no-verify\n"
        "        language: system\n"
    )
    assert "        stages: [manual]\n" in text

    # 3. The check hook now passes.
    again = _try_repo(repo, home, "policytool-repo")
    assert again.returncode == 0, again.stdout + again.stderr
    assert re.search(r"policytool-repo \(.*\)\.+Passed", again.stdout)


def test_try_repo_spdx_header(pypi: None, repo: Repo, tmp_path: Path) -> None:
    repo.write("pyproject.toml", '[tool.policytool.spdx]\nlicense = "MIT"\n')
    repo.write("a.py", "x = 1\n")
    repo.write("notes.md", "text\n")
    repo.commit()
    result = _try_repo(repo, tmp_path / "home", "spdx-header")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "a.py:1:1: spdx-header missing `SPDX-License-Identifier: MIT`" in result.stdout
    assert "notes.md" not in result.stdout
