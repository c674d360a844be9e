# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The scheduled bump workflow ``policytool init --schedule`` writes: its shape, the
repo rules on it, and its shell steps run with bash in a repository with a real lock,
as the runner would run them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from policytool.config import Config
from policytool.scaffold.ci import BUMP_WORKFLOW_PATH, render_bump_workflow
from tests.conftest import GIT_ENV, Repo, Result
from tests.precommit_helpers import check_jsonschema
from tests.test_lock import lock_table, setup_simple
from tests.test_lock_bump import serve_json
from tests.wheelhouse import INDEX, Wheelhouse, build_wheelhouse

Run = Callable[..., Result]


def _workflow(text: str) -> dict[str, object]:
    data = yaml.safe_load(text)
    assert isinstance(data, dict)
    # PyYAML reads the key `on` as True.
    return {("on" if key is True else key): value for key, value in data.items()}


def _steps(workflow: dict[str, object], job: str) -> list[dict[str, object]]:
    jobs = workflow["jobs"]
    assert isinstance(jobs, dict)
    steps = jobs[job]["steps"]
    assert isinstance(steps, list)
    return steps


def test_init_writes_the_bump_workflow_only_on_request(repo: Repo, run: Run) -> None:
    repo.write("pkg/a.py", "x = 1\n")
    repo.commit()
    first = run("init")
    assert first.code == 0, first.err
    assert f"{BUMP_WORKFLOW_PATH}: offered: `policytool init --schedule` writes it" in first.out
    assert not (repo.root / BUMP_WORKFLOW_PATH).exists()
    dry = run("init", "--schedule", "--dry-run")
    assert f"{BUMP_WORKFLOW_PATH}: would be created" in dry.out
    assert not (repo.root / BUMP_WORKFLOW_PATH).exists()
    second = run("init", "--schedule")
    assert f"{BUMP_WORKFLOW_PATH}: created" in second.out
    repo.commit()
    # Every rule, the CI ones (action-pin, ci-floating-install) included: no finding.
    check = run("check")
    assert check.code == 0, check.out
    schema = check_jsonschema("github-workflows", repo.root / BUMP_WORKFLOW_PATH)
    assert schema.returncode == 0, schema.stdout + schema.stderr
    # The rules did read it: a tag ref and an unpinned install are findings.
    text = repo.read(BUMP_WORKFLOW_PATH).decode()
    loose = text.replace(
        "peter-evans/create-pull-request@5f6978faf089d4d20b00c7766989d076bb2fc7f1 # v8.1.1",
        "peter-evans/create-pull-request@v8",
    )
    loose = loose.replace('"policytool==', '"policytool>=', 1)
    repo.write(BUMP_WORKFLOW_PATH, loose)
    repo.commit()
    found = run("check", "--only", "ci")
    assert found.code == 1
    assert "action-pin" in found.out and "ci-floating-install" in found.out


def test_the_bump_workflow_runs_on_the_default_branch_with_least_privilege() -> None:
    workflow = _workflow(render_bump_workflow(Config(root=Path.cwd()), "1.2.3"))
    # Scheduled or by hand: never on pull request code.
    triggers = workflow["on"]
    assert isinstance(triggers, dict)
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    assert workflow["permissions"] == {"contents": "read"}
    jobs = workflow["jobs"]
    assert isinstance(jobs, dict)
    assert jobs["outdated"]["permissions"] == {"contents": "read"}
    assert jobs["bump"]["permissions"] == {"contents": "write", "pull-requests": "write"}
    for job in jobs:
        steps = _steps(workflow, job)
        for step in steps:
            uses = step.get("uses")
            if isinstance(uses, str) and uses.startswith("actions/checkout@"):
                # The token stays out of the checkout the resolver's code runs in.
                assert step["with"]["persist-credentials"] is False  # type: ignore[index]
            run_text = step.get("run")
            if isinstance(run_text, str):
                # Data reaches the shell through env, never through `${{ }}` in the script.
                assert "${{" not in run_text, run_text
        install = next(s for s in steps if str(s.get("name", "")).startswith("install"))
        assert install["run"] == 'python -m pip install "policytool==1.2.3"'
    text = render_bump_workflow(Config(root=Path.cwd()), "1.2.3")
    assert "secrets." not in text  # GITHUB_TOKEN only (create-pull-request's default)
    assert "is not a release" not in text
    assert "is not a release" in render_bump_workflow(Config(root=Path.cwd()), "1.3.0.dev1")


def test_the_bump_workflow_runs_the_locks_python_and_backend(repo: Repo, tmp_path: Path) -> None:
    repo.write("requirements/a.in", "alpha\n")
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n"
        + lock_table("a", ["requirements/a.in"], "requirements/a.txt", tmp_path)
        + 'python-version = "3.11"\n\n'
        + lock_table("b", ["requirements/a.in"], "requirements/b.txt", tmp_path, "pip-tools")
        + 'python-version = "3.10"\n',
    )
    from policytool.config import load_config

    workflow = _workflow(render_bump_workflow(load_config(repo.root / "pyproject.toml"), "1.2.3"))
    steps = _steps(workflow, "bump")
    setup = next(s for s in steps if str(s.get("uses", "")).startswith("actions/setup-python@"))
    assert setup["with"] == {"python-version": "3.10"}  # pip-compile resolves for its own
    install = next(s for s in steps if str(s.get("name", "")).startswith("install"))
    assert install["run"] == 'python -m pip install "policytool[pip-tools]==1.2.3"'


def _run_step(
    script: str, cwd: Path, tmp_path: Path, extra_env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], str]:
    """Run one `run:` block as GitHub's default bash shell does; (process, GITHUB_OUTPUT)."""
    output = tmp_path / "github_output"
    output.write_text("")
    runner_temp = tmp_path / "runner_temp"
    runner_temp.mkdir(exist_ok=True)
    path = tmp_path / "step.sh"
    path.write_text(script)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(GIT_ENV)
    env.update(
        {
            "GITHUB_OUTPUT": str(output),
            "RUNNER_TEMP": str(runner_temp),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
            **extra_env,
        }
    )
    bash = shutil.which("bash")
    assert bash is not None
    proc = subprocess.run(
        [bash, "--noprofile", "--norc", "-eo", "pipefail", str(path)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return proc, output.read_text()


def test_the_bump_workflow_steps_bump_what_nothing_holds_back(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, tmp_path: Path
) -> None:
    wheels = tmp_path / "index"
    shutil.copytree(wheelhouse.path, wheels)
    # epsilon is held by its bound, alpha by delta; gamma 2.5 (published below) by nothing.
    setup_simple(repo, wheels, requirements="delta\ngamma\nepsilon<2\n")
    assert run("lock").code == 0
    repo.commit()
    build_wheelhouse(wheels, {"gamma": {"2.5": ()}})
    releases = {name: dict(versions) for name, versions in INDEX.items()}
    releases["gamma"]["2.5"] = ()
    documents: dict[str, object] = {
        f"/pypi/{name}/json": {"info": {}, "releases": {v: [{"yanked": False}] for v in versions}}
        for name, versions in releases.items()
    }
    for name, versions in releases.items():
        for version, requires in versions.items():
            documents[f"/pypi/{name}/{version}/json"] = {
                "info": {"requires_dist": list(requires)},
                "vulnerabilities": [],
            }
    workflow = _workflow(render_bump_workflow(Config(root=repo.root), "1.2.3"))
    limit = workflow["env"]["POLICYTOOL_BUMP_LIMIT"]  # type: ignore[index]
    outdated = next(s for s in _steps(workflow, "outdated") if s.get("id") == "outdated")
    bump = next(s for s in _steps(workflow, "bump") if s.get("id") == "bump")
    base, stop = serve_json(documents)
    try:
        pypi = {"POLICYTOOL_PYPI_URL": base, "POLICYTOOL_BUMP_LIMIT": str(limit)}
        proc, output = _run_step(str(outdated["run"]), repo.root, tmp_path, pypi)
        assert proc.returncode == 0, proc.stderr
        assert output == 'packages=["gamma"]\n'
        # Each package of that list is bumped in its own job (the matrix).
        packages = json.loads(output.split("=", 1)[1])
        assert bump["env"] == {"PACKAGE": "${{ matrix.package }}"}
        proc, output = _run_step(
            str(bump["run"]), repo.root, tmp_path, {**pypi, "PACKAGE": packages[0]}
        )
    finally:
        stop()
    assert proc.returncode == 0, proc.stderr
    assert output == "title=Bump gamma\n"
    assert "gamma==2.5" in repo.read("requirements/test.txt").decode()
    body = (tmp_path / "runner_temp" / "pr-body.md").read_text()
    assert "| `gamma` | 2.0 | 2.5 |" in body
    assert "Scheduled bump" in body
    # What create-pull-request commits: the lock, not the PR body (in RUNNER_TEMP).
    changed = repo.git("status", "--porcelain").split()
    assert "requirements/test.txt" in changed and not any("pr-body" in c for c in changed)


def test_an_outdated_error_fails_the_step(repo: Repo, tmp_path: Path) -> None:
    repo.write("pyproject.toml", "[tool.policytool]\n")  # no lock: outdated exits 2
    workflow = _workflow(render_bump_workflow(Config(root=repo.root), "1.2.3"))
    outdated = next(s for s in _steps(workflow, "outdated") if s.get("id") == "outdated")
    proc, output = _run_step(
        str(outdated["run"]), repo.root, tmp_path, {"POLICYTOOL_BUMP_LIMIT": "5"}
    )
    assert proc.returncode == 2 and output == ""


@pytest.mark.parametrize("version", ["1.2.3", "0.2.0.dev0"])
def test_the_bump_workflow_renders_for_releases_and_dev_versions(version: str) -> None:
    text = render_bump_workflow(Config(root=Path.cwd()), version)
    assert f'"policytool=={version}"' in text


def test_the_outdated_step_keeps_unheld_newer_pins_once_up_to_the_limit(
    repo: Repo, tmp_path: Path
) -> None:
    # `policytool outdated --format json` stood in by a script: the step's own logic.
    def entry(package: str, pinned: str, newest: str | None, held_by: str = "") -> dict[str, str]:
        return {"package": package, "pinned": pinned, "newest": newest, "held_by": held_by}  # type: ignore[dict-item]

    entries = [
        entry("a", "1.0", "2.0"),
        entry("a", "1.0", "2.0"),  # the same package in a second lock
        entry("b", "1.0", "2.0", "req.in:1 'b<2'"),  # held: the bump would fail
        entry("c", "1.0", "1.0"),  # listed for a vulnerability only
        entry("d", "1.0", None),  # PyPI could not say
        entry("e", "1.0", "1.0.post1"),
        entry("f", "1.0", "3.0"),
    ]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "policytool"
    fake.write_text(f"#!/bin/sh\ncat <<'EOF'\n{json.dumps(entries)}\nEOF\nexit 1\n")
    fake.chmod(0o755)
    workflow = _workflow(render_bump_workflow(Config(root=repo.root), "1.2.3"))
    outdated = next(s for s in _steps(workflow, "outdated") if s.get("id") == "outdated")
    path = f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    for limit, expected in (("5", ["a", "e", "f"]), ("2", ["a", "e"]), ("0", [])):
        proc, output = _run_step(
            str(outdated["run"]),
            repo.root,
            tmp_path,
            {"POLICYTOOL_BUMP_LIMIT": limit, "PATH": path},
        )
        assert proc.returncode == 0, proc.stderr
        assert output == f"packages={json.dumps(expected)}\n"
