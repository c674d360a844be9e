# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The release process (RELEASING.md, tools/release.py) and the hook reference ``init``
writes: a consumer repository installs the hooks from exactly what ``init`` wrote."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

import policytool
from policytool.scaffold import ci as ci_scaffold
from tests.conftest import GIT_ENV, Repo, Result

Run = Callable[..., Result]
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import release  # noqa: E402  (tools/ is not a package)

CHANGELOG = """\
# Changelog

## Unreleased

### Added
- a thing

## 0.1.0 (2026-01-01)

The first release.
"""
DOC = """\
```yaml
- repo: https://github.com/policytool/policytool
  rev: v0.1.0
  hooks: [{id: spdx-header}]
- repo: https://github.com/other/tool
  rev: v0.1.0
```
"""


def _project(repo: Repo) -> None:
    repo.write("pyproject.toml", '[project]\nname = "p"\nversion = "0.2.0.dev0"\n')
    repo.write("CHANGELOG.md", CHANGELOG)
    repo.write("docs/hooks.md", DOC)
    repo.commit("start")


def test_release_commits_tags_and_returns_to_development(repo: Repo) -> None:
    """Release commit (version, CHANGELOG heading, docs' rev), its tag, then X.Y.Z+1.dev0."""
    _project(repo)
    lines = release.prepare(repo.root, "0.2.0", datetime.date(2026, 12, 2))
    assert lines == [
        f"git push origin {repo.git('rev-parse', '--abbrev-ref', 'HEAD').strip()} v0.2.0"
    ]
    tagged = repo.git("show", "v0.2.0:pyproject.toml")
    assert 'version = "0.2.0"' in tagged
    changelog = repo.git("show", "v0.2.0:CHANGELOG.md")
    assert "## Unreleased\n\n## 0.2.0 (2026-12-02)\n\n### Added\n- a thing\n\n## 0.1.0" in changelog
    doc = repo.git("show", "v0.2.0:docs/hooks.md")
    assert "policytool/policytool\n  rev: v0.2.0" in doc
    assert "other/tool\n  rev: v0.1.0" in doc  # another repository's rev is not ours
    assert 'version = "0.2.1.dev0"' in repo.read("pyproject.toml").decode()
    assert repo.git("status", "--porcelain") == ""
    assert release.stale_references(repo.root, "0.2.0") == []


@pytest.mark.parametrize(
    ("version", "reason"),
    [
        ("0.2.0rc1", "not a final X.Y.Z release"),
        ("0.1.0", "not newer than the latest release 0.1.0"),
        ("banana", "is not a version"),
    ],
)
def test_release_refuses_and_changes_nothing(repo: Repo, version: str, reason: str) -> None:
    _project(repo)
    head = repo.git("rev-parse", "HEAD")
    with pytest.raises(release.ReleaseError, match=reason):
        release.prepare(repo.root, version, datetime.date(2026, 12, 2))
    assert repo.git("rev-parse", "HEAD") == head
    assert repo.git("status", "--porcelain") == "" and repo.git("tag", "-l") == ""


def test_release_refuses_a_dirty_tree_or_an_empty_changelog(repo: Repo) -> None:
    _project(repo)
    repo.write("pyproject.toml", '[project]\nname = "p"\nversion = "0.2.0.dev1"\n')
    with pytest.raises(release.ReleaseError, match="uncommitted changes"):
        release.prepare(repo.root, "0.2.0", datetime.date(2026, 12, 2))
    repo.write("CHANGELOG.md", CHANGELOG.replace("### Added\n- a thing\n\n", ""))
    repo.commit("empty")
    with pytest.raises(release.ReleaseError, match="Unreleased section is empty"):
        release.prepare(repo.root, "0.2.0", datetime.date(2026, 12, 2))


def test_the_docs_hook_references_name_the_latest_release() -> None:
    """Every `repo: <policytool>` / `rev: vX` the docs show is the CHANGELOG's latest release."""
    latest = release.latest_release(ROOT)
    assert latest is not None
    assert release.stale_references(ROOT, latest) == []
    assert release.main(["--check"]) == 0


# --- the reference init writes resolves for a consumer ----------------------------------


@pytest.mark.parametrize(
    ("version", "released"),
    [("0.2.0", True), ("0.2.0.dev0", False), ("0.2.0rc1", False), ("0.2.0+g1", False)],
)
def test_init_writes_a_tag_only_for_a_release(version: str, released: bool) -> None:
    text = ci_scaffold.render_policytool_hooks(version)
    assert (f"rev: v{version}" in text) is released
    assert ("repo: local" in text) is not released


def test_init_local_hooks_are_the_published_hooks(tmp_path: Path) -> None:
    """The `repo: local` hooks are .pre-commit-hooks.yaml's, but for `language: system`."""
    manifest = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    local = yaml.safe_load("repos:\n" + ci_scaffold.render_policytool_hooks("1.0.dev0"))
    for hook in local["repos"][0]["hooks"]:
        published = manifest[hook["id"]]
        for key, value in hook.items():
            if key not in ("name", "language"):
                assert published[key] == value, (hook["id"], key)
        assert hook["language"] == "system"


def _pre_commit(
    cwd: Path, home: Path, *args: str, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "PRE_COMMIT"))}
    env.update(GIT_ENV)
    env.update({"PRE_COMMIT_HOME": str(home), "NO_COLOR": "1", "PIP_CONFIG_FILE": os.devnull})
    # The policytool of this test run is the one `language: system` finds.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args, "--color=never"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.slow  # two pre-commit runs
def test_a_consumer_runs_the_hooks_init_wrote_from_a_development_install(
    repo: Repo, run: Run, tmp_path: Path
) -> None:
    """This test run's policytool is no release: init writes `repo: local` hooks, and
    pre-commit runs them offline in the consumer repository, failing on a finding."""
    assert not ci_scaffold.is_release(policytool.__version__)
    repo.write("pyproject.toml", '[tool.policytool.spdx]\nlicense = "MIT"\n')
    repo.write("a.py", "# SPDX-License-Identifier: MIT\nx = 1\n")
    repo.commit()
    assert run("init").code == 0
    repo.git("add", "-A")
    home = tmp_path / "pre-commit-home"
    ok = _pre_commit(repo.root, home, "run", "--all-files", "--hook-stage", "manual")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "spdx-header...." in ok.stdout and "policytool-repo...." in ok.stdout
    # Six clean files and a bad one: pre-commit calls the hook once per batch, and the
    # failing hook's output is the finding alone, no clean batch's summary.
    for i in range(6):
        repo.write(f"ok{i}.py", "# SPDX-License-Identifier: MIT\nx = 1\n")
    repo.write("b.py", "y = 2\n")
    repo.git("add", "-A")
    bad = _pre_commit(repo.root, home, "run", "--all-files")
    assert bad.returncode == 1
    assert "b.py:1:1: spdx-header" in bad.stdout
    assert "no findings" not in bad.stdout and "in 4 files" not in bad.stdout


def _released_hook_repo(tmp_path: Path, version: str) -> Path:
    """A clone of this repository (its HEAD) released as ``version`` by tools/release.py."""
    clone = tmp_path / "policytool-clone"
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, env=env)
    subprocess.run(
        [sys.executable, str(ROOT / "tools/release.py"), version, "--root", str(clone)],
        check=True,
        env=env,
        capture_output=True,
    )
    return clone


def _consumer_config(repo: Repo, version: str) -> None:
    """The pre-commit config init writes for ``version``, committed in ``repo``."""
    from policytool.config import Config

    # What init writes once `pip install policytool==V` installed that release.
    repo.write(".pre-commit-config.yaml", ci_scaffold.render_precommit_config(Config(), version))
    repo.write("a.py", "x = 1\n")
    repo.commit()


def _insteadof(clone: Path) -> dict[str, str]:
    """Git config that reads policytool's repository from the local clone (offline), in
    the variables pre-commit passes on to its `git clone`."""
    return {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.{clone.as_uri()}.insteadOf",
        "GIT_CONFIG_VALUE_0": policytool.HOMEPAGE,
    }


@pytest.mark.slow  # a clone of this repository, a release, pre-commit
def test_the_release_reference_init_writes_resolves(repo: Repo, tmp_path: Path) -> None:
    """After tools/release.py, the `repo`/`rev` init writes for that release is cloned by
    pre-commit, and the tag's manifest has every hook id init wrote (offline)."""
    clone = _released_hook_repo(tmp_path, "9.9.9")
    _consumer_config(repo, "9.9.9")
    config = yaml.safe_load(repo.read(".pre-commit-config.yaml"))
    ours = config["repos"][0]
    assert (ours["repo"], ours["rev"]) == (policytool.HOMEPAGE, "v9.9.9")
    env = {**os.environ, **GIT_ENV, **_insteadof(clone)}
    checkout = tmp_path / "checkout"
    subprocess.run(
        ["git", "clone", "-q", "--branch", "v9.9.9", ours["repo"], str(checkout)],
        check=True,
        env=env,
        capture_output=True,
    )
    manifest = {h["id"] for h in yaml.safe_load((checkout / ".pre-commit-hooks.yaml").read_text())}
    assert {h["id"] for h in ours["hooks"]} <= manifest
    valid = _pre_commit(repo.root, tmp_path / "home", "validate-config", ".pre-commit-config.yaml")
    assert valid.returncode == 0, valid.stdout + valid.stderr


@pytest.mark.network
def test_a_consumer_installs_the_released_hooks_init_wrote(
    pypi: None, repo: Repo, tmp_path: Path
) -> None:
    """pre-commit installs policytool's hooks at the release tag (dependencies from PyPI)."""
    clone = _released_hook_repo(tmp_path, "9.9.9")
    _consumer_config(repo, "9.9.9")
    result = _pre_commit(
        repo.root,
        tmp_path / "home",
        "run",
        "--all-files",
        extra_env=_insteadof(clone),
    )
    assert "spdx-header" in result.stdout, result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
