# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""policytool's GitHub Action (action.yml): its shell steps (action/steps.sh) run with
bash in a pull request's repository, as the runner would run them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import GIT_ENV, Repo

ROOT = Path(__file__).resolve().parent.parent
STEPS = ROOT / "action" / "steps.sh"
SPDX = '[tool.policytool.spdx]\nlicense = "MIT"\n'
HEADER = "# SPDX-License-Identifier: MIT\n"


def _step(
    repo: Path, tmp_path: Path, *args: str, base: str = ""
) -> tuple[subprocess.CompletedProcess[str], str, str]:
    """Run one step; (the process, what it wrote to GITHUB_OUTPUT, to the job summary)."""
    output, summary = tmp_path / "output", tmp_path / "summary"
    output.write_text("")
    summary.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PRE_COMMIT"))}
    env.update(GIT_ENV)
    env.update(
        {
            "POLICYTOOL_BASE": base,
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        }
    )
    bash = shutil.which("bash")
    assert bash is not None
    proc = subprocess.run(
        [bash, str(STEPS), *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return proc, output.read_text(), summary.read_text()


@pytest.fixture
def pull_request(repo: Repo, tmp_path: Path) -> tuple[Repo, str]:
    """A repository whose `origin` has the base commit; HEAD adds a PR's change."""
    repo.write("pyproject.toml", SPDX)
    repo.write("a.py", HEADER + "x = 1\n")
    repo.commit("base")
    base = repo.git("rev-parse", "HEAD").strip()
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.root), str(origin)], check=True)
    repo.git("remote", "add", "origin", str(origin))
    repo.write("b.py", "def f():\n    try:\n        g()\n    except Exception:\n        pass\n")
    repo.commit("the pull request")
    return repo, base


def test_base_step_fetches_the_base_and_outputs_it(
    pull_request: tuple[Repo, str], tmp_path: Path
) -> None:
    repo, base = pull_request
    proc, output, _ = _step(repo.root, tmp_path, "base", base=base)
    assert proc.returncode == 0, proc.stderr
    assert output == f"base={base}\n"
    on_push, output, _ = _step(repo.root, tmp_path, "base")
    assert (on_push.returncode, output) == (0, "base=\n")


def test_check_step_annotates_and_writes_sarif(
    pull_request: tuple[Repo, str], tmp_path: Path
) -> None:
    repo, base = pull_request
    sarif = tmp_path / "policytool.sarif"
    proc, _, _ = _step(repo.root, tmp_path, "check", str(sarif), base=base)
    assert proc.returncode == 1  # b.py has no SPDX header
    assert "::error file=b.py,line=1" in proc.stdout and "spdx-header" in proc.stdout
    doc = json.loads(sarif.read_text())
    assert doc["version"] == "2.1.0"
    assert [r["ruleId"] for r in doc["runs"][0]["results"]] == ["spdx-header"]


def test_lock_check_step_is_skipped_without_locks_and_runs_with_them(
    pull_request: tuple[Repo, str], tmp_path: Path
) -> None:
    repo, _ = pull_request
    skipped, _, _ = _step(repo.root, tmp_path, "lock-check")
    assert skipped.returncode == 0
    assert "lock --check skipped" in skipped.stdout
    repo.write(
        "pyproject.toml",
        SPDX + '[[tool.policytool.lock]]\nname = "m"\ninputs = ["r.in"]\noutput = "r.txt"\n',
    )
    repo.write("r.in", "click\n")
    ran, _, _ = _step(repo.root, tmp_path, "lock-check")
    assert ran.returncode == 1
    assert "::error file=r.txt" in ran.stdout and "lock 'm' does not exist" in ran.stdout


def test_lock_check_step_judges_an_adopted_lock_by_the_bases_digest(
    repo: Repo, tmp_path: Path
) -> None:
    # The base adopts a header-less lock; the pull request loosens it and re-runs
    # `baseline`, so its own baseline accepts the edit. The step reads the base's.
    config = SPDX + '[[tool.policytool.lock]]\nname = "m"\ninputs = ["r.in"]\noutput = "r.txt"\n'
    repo.write("pyproject.toml", config)
    repo.write("r.in", "click\n")
    repo.write("r.txt", "click==8.1.7\n")
    adopt = [sys.executable, "-m", "policytool", "baseline"]
    subprocess.run(adopt, cwd=repo.root, capture_output=True, check=False)
    repo.commit("base adopts r.txt")
    base = repo.git("rev-parse", "HEAD").strip()
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.root), str(origin)], check=True)
    repo.git("remote", "add", "origin", str(origin))
    adopted, _, _ = _step(repo.root, tmp_path, "lock-check", base=base)
    assert adopted.returncode == 0, adopted.stdout + adopted.stderr
    repo.write("r.txt", "click>=8\n")
    subprocess.run(adopt, cwd=repo.root, capture_output=True, check=False)
    repo.commit("the pull request loosens the lock and re-adopts it")
    on_push, _, _ = _step(repo.root, tmp_path, "lock-check")
    ran, _, _ = _step(repo.root, tmp_path, "lock-check", base=base)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "::error file=r.txt" in ran.stdout and "edited since" in ran.stdout, ran.stdout
    assert on_push.returncode == 1  # the loosened line is a finding either way
    assert "edited since" not in on_push.stdout


def test_sweep_step_reports_the_added_lines_as_the_job_summary(
    pull_request: tuple[Repo, str], tmp_path: Path
) -> None:
    repo, base = pull_request
    proc, _, summary = _step(repo.root, tmp_path, "sweep", base=base)
    assert "| Code quality |" in summary
    assert "broad-except" in summary and "b.py" in summary
    assert summary.strip() == proc.stdout.strip()


def test_the_action_runs_only_these_steps() -> None:
    """Every `run:` of action.yml is a steps.sh subcommand; each `uses:` is SHA-pinned."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    known = {"install", "base", "check", "lock-check", "sweep"}
    for step in action["runs"]["steps"]:
        if "run" in step:
            words = step["run"].split()
            assert words[:2] == ["bash", '"$GITHUB_ACTION_PATH/action/steps.sh"'], step
            assert words[2] in known, step
        else:
            ref = step["uses"].split("@")[1]
            assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), step


def test_init_offers_the_action_unless_a_workflow_uses_it(repo: Repo, tmp_path: Path) -> None:
    from policytool.scaffold.ci import action_offer

    repo.write("a.py", "x = 1\n")
    repo.commit()
    offer = action_offer(repo.root, "1.2.3")
    assert offer is not None
    assert "`uses: policytool/policytool@<the commit SHA of v1.2.3> # v1.2.3`" in offer
    assert "docs/action.md" in offer
    assert "@<commit SHA>`" in (action_offer(repo.root, "1.2.4.dev0") or "")
    repo.write(
        ".github/workflows/pr.yml",
        "jobs:\n  p:\n    steps:\n      - uses: policytool/policytool@" + "a" * 40 + "\n",
    )
    assert action_offer(repo.root, "1.2.3") is None
