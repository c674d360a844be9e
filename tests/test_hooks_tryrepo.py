# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The published hooks (``.pre-commit-hooks.yaml``), run for real with ``pre-commit try-repo``.

try-repo clones this checkout (with a shadow commit of uncommitted tracked changes),
installs policytool from it into a fresh virtualenv (its dependencies come from the
package index) and runs the hook in a temporary git repo. Those tests are skipped,
with the reason, only when PyPI cannot be reached.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from pre_commit.clientlib import load_manifest

from policytool.engine.registry import file_rules, repo_rules, rule_infos
from tests.conftest import Repo
from tests.tryrepo import MANIFEST, try_repo

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
# CI runs the manual stage, where `manual-only` moves mypy (else mypy-wired says nothing
# runs it).
WORKFLOW = """\
name: pre-commit
on:
  pull_request:
jobs:
  pre-commit:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pre-commit run --all-files --hook-stage manual
"""
POLICY = """\
[tool.policytool.pre-commit]
final-hook = "suggestion"
default-stages = ["pre-commit", "manual"]
manual-only = ["mypy"]

[tool.mypy]
"""


def _manifest() -> list[dict[str, object]]:
    hooks = load_manifest(str(MANIFEST))
    assert isinstance(hooks, list)
    return hooks


def _only_ids(entry: str) -> list[str]:
    """The rule ids an entry's ``--only`` selects (groups expanded)."""
    from policytool.engine.registry import expand_selection

    args = shlex.split(entry)
    for index, arg in enumerate(args):
        if arg == "--only" and index + 1 < len(args):
            return list(expand_selection(args[index + 1].split(","), "--only"))
        if arg.startswith("--only="):
            return list(expand_selection(arg.split("=", 1)[1].split(","), "--only"))
    return []


def test_manifest_hooks_are_sensible() -> None:
    hooks = _manifest()
    ids = [str(h["id"]) for h in hooks]
    assert len(ids) == len(set(ids))
    assert {"policytool-repo", "policytool-repo-fix", "spdx-header", "spdx-header-fix"} <= set(ids)
    known = rule_infos()
    file_ids = set(file_rules())
    narrowing = {rule.id for rule in repo_rules().values() if rule.narrows}
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
        elif all(rule in narrowing for rule in only):
            # Repo rules that check only the files they are given (the CI pins): the
            # changed files, in one process, so a lock among them widens to every file.
            assert hook["pass_filenames"] is True, hook["id"]
            assert hook["require_serial"] is True and hook["files"], hook["id"]
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


@pytest.mark.network
def test_try_repo_policytool_repo_hooks(pypi: None, repo: Repo, pre_commit_home: Path) -> None:
    repo.write("pyproject.toml", POLICY)
    repo.write(".pre-commit-config.yaml", DRIFTED)
    repo.write(".github/workflows/pre-commit.yml", WORKFLOW)
    repo.commit()
    home = pre_commit_home

    # 1. The check hook fails and says why.
    checked = try_repo(repo, home, "policytool-repo")
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
    fixed = try_repo(repo, home, "policytool-repo-fix")
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
    again = try_repo(repo, home, "policytool-repo")
    assert again.returncode == 0, again.stdout + again.stderr
    assert re.search(r"policytool-repo \(.*\)\.+Passed", again.stdout)


@pytest.mark.network
def test_try_repo_spdx_header(pypi: None, repo: Repo, pre_commit_home: Path) -> None:
    repo.write("pyproject.toml", '[tool.policytool.spdx]\nlicense = "MIT"\n')
    repo.write("a.py", "x = 1\n")
    repo.write("notes.md", "text\n")
    repo.commit()
    result = try_repo(repo, pre_commit_home, "spdx-header")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "a.py:1:1: spdx-header missing `SPDX-License-Identifier: MIT`" in result.stdout
    assert "notes.md" not in result.stdout
