# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The project as an adopter meets it: its license, its addresses, its built wheel."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import policytool

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10 only
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _pyproject() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        data: dict[str, object] = tomllib.load(handle)
    return data


def test_the_license_file_is_the_apache_license_the_metadata_names() -> None:
    """LICENSE holds the Apache License 2.0 text, the license pyproject.toml declares."""
    project = _pyproject()["project"]
    assert isinstance(project, dict)
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_project_urls_and_the_package_name_one_home() -> None:
    """[project.urls] and the address the code prints (SARIF, init's hook repo) agree."""
    urls = _pyproject()["project"]["urls"]  # type: ignore[index]
    assert urls["Homepage"] == policytool.HOMEPAGE
    assert all(str(url).startswith(policytool.HOMEPAGE) for url in urls.values())


@pytest.mark.network
def test_the_wheel_carries_the_license(tmp_path: Path) -> None:
    """The built wheel has LICENSE in its .dist-info and the URLs in its METADATA."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("policytool-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (license_name,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(license_name) == (ROOT / "LICENSE").read_bytes()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    assert "License-Expression: Apache-2.0" in text
    assert f"Project-URL: Homepage, {policytool.HOMEPAGE}" in text


# --- .ci/run: the suite on the oldest and the newest supported Python -------------------


def test_ci_runs_the_supported_pythons_the_project_declares() -> None:
    """.ci/run's SUPPORTED_PYTHONS: requires-python's lower bound first, the CI matrix's list."""
    import re

    import yaml

    line = re.search(r'^SUPPORTED_PYTHONS="([^"]*)"$', (ROOT / ".ci/run").read_text(), re.M)
    assert line is not None
    versions = line.group(1).split()
    project = _pyproject()["project"]
    assert isinstance(project, dict)
    assert project["requires-python"] == f">={versions[0]}"
    workflow = yaml.safe_load((ROOT / ".github/workflows/tests.yml").read_text())
    matrix = workflow["jobs"]["unit-tests"]["strategy"]["matrix"]["python-version"]
    assert matrix == versions


def test_ci_repeats_leave_out_only_the_time_bounds() -> None:
    """The repeats on other Pythons run the default selection minus the ``timing`` tests."""
    import re

    options = _pyproject()["tool"]
    assert isinstance(options, dict)
    addopts = options["pytest"]["ini_options"]["addopts"]
    default = re.search(r'-m "([^"]*)"', addopts)
    assert default is not None
    repeat = re.search(r'pytest -n auto -m "([^"]*)"\n', (ROOT / ".ci/run").read_text())
    assert repeat is not None
    assert repeat.group(1) == f"{default.group(1)} and not timing"


def test_every_time_bound_test_carries_the_timing_mark() -> None:
    """A test named for a time bound on hostile input carries the ``timing`` mark the repeats skip."""
    import ast
    import re

    named = re.compile(r"stays?_(fast|linear)|linear_time|cost_little|cost_one_pass")
    unmarked = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and named.search(node.name):
                marks = [ast.unparse(d) for d in node.decorator_list]
                if "pytest.mark.timing" not in marks:
                    unmarked.append(f"{path.name}::{node.name}")
    assert unmarked == []


def _fake_python(path: Path, version: str) -> None:
    """An executable that answers the version probe as Python ``version`` would."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {version}\n")
    path.chmod(0o755)


def test_find_python_takes_path_then_pyenv_and_skips_broken_shims(tmp_path: Path) -> None:
    """A shim on PATH that cannot run X.Y is passed over for pyenv's X.Y; none: exit 1."""
    bin_dir, pyenv = tmp_path / "bin", tmp_path / "pyenv"
    shim = bin_dir / "python3.10"
    shim.parent.mkdir()
    shim.write_text("#!/bin/sh\necho 'pyenv: python3.10: command not found' >&2\nexit 127\n")
    shim.chmod(0o755)
    _fake_python(pyenv / "versions/3.10.13/bin/python3.10", "3.10")
    _fake_python(pyenv / "versions/3.10-dev/bin/python3.10", "3.10")
    _fake_python(bin_dir / "python3.13", "3.13")
    _fake_python(pyenv / "versions/3.12.1/bin/python3.12", "3.11")  # lies: not taken
    env = {"PATH": str(bin_dir), "PYENV_ROOT": str(pyenv), "HOME": str(tmp_path)}
    bash = shutil.which("bash")
    assert bash is not None

    def find(version: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [bash, str(ROOT / ".ci/find-python"), version],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    assert find("3.10").stdout == f"{pyenv}/versions/3.10.13/bin/python3.10\n"
    assert find("3.13").stdout == f"{bin_dir}/python3.13\n"
    assert (find("3.12").returncode, find("3.12").stdout) == (1, "")


# --- docs that cannot drift ---------------------------------------------------------------


def test_init_md_shows_what_init_dry_run_prints_here() -> None:
    """docs/init.md's `policytool init --dry-run` block is a run in this checkout."""
    import re

    page = (ROOT / "docs/init.md").read_text(encoding="utf-8")
    block = re.search(r"```console\n\$ policytool init --dry-run\n(.*?)```", page, re.S)
    assert block is not None
    proc = subprocess.run(
        [sys.executable, "-m", "policytool", "init", "--dry-run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == block.group(1)


def test_the_projects_own_locks_record_a_cut_off() -> None:
    """Each lock of this repository records the cut-off it is derived at, so `bump PKG`
    (the README tour's `bump ruff`) moves PKG alone, and `lock --check --resolve`
    derives the lock again from nothing."""
    from policytool.config import load_config
    from policytool.engine.lock_config import LockConfig
    from policytool.formats import lockfile

    config = load_config(ROOT / "pyproject.toml")
    locks = config.entries(LockConfig)
    assert locks
    for lock in locks:
        parsed = lockfile.parse((ROOT / lock.output).read_text("utf-8"))
        assert lockfile.settings(parsed).exclude_newer, lock.output


# --- merge leftovers ---------------------------------------------------------------------

# What a conflicted merge, `git mergetool`, `patch` or an editor leave next to a file.
LEFTOVER_NAME = re.compile(
    r"(\.orig|\.rej|\.porig|~|\.swp)$|\.(BACKUP|BASE|LOCAL|REMOTE)\.[^/]*$|(^|/)\.#"
)
# A conflict hunk's markers (the diff3 base marker too) at the start of a line.
CONFLICT_MARKER = re.compile(rb"^(<{7}|>{7}|\|{7})( |$)", re.M)


def _tracked() -> list[str]:
    """The files git tracks in this repository (NUL-separated: any name)."""
    proc = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [name for name in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if name]


def test_no_merge_leftover_file_is_tracked() -> None:
    """No `x.py.orig`, `x.rej`, `x.BASE.py`... is committed (one reached the package once)."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    assert [name for name in _tracked() if LEFTOVER_NAME.search(name)] == []


def test_no_tracked_file_holds_conflict_markers() -> None:
    """No tracked file holds `<<<<<<< `, `||||||| ` or `>>>>>>> ` at the start of a line."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    marked = []
    for name in _tracked():
        path = ROOT / name
        if path.is_file() and not path.is_symlink() and CONFLICT_MARKER.search(path.read_bytes()):
            marked.append(name)
    assert marked == []


@pytest.mark.parametrize(
    ("name", "leftover"),
    [
        ("policytool/rules/_repo_config.py.orig", True),
        ("fix.rej", True),
        ("a/b.BASE.12345.py", True),
        ("notes.md~", True),
        ("policytool/origin.py", False),
        ("docs/BASELINE.md", False),
        ("tests/test_rej.py", False),
    ],
)
def test_the_leftover_names(name: str, leftover: bool) -> None:
    assert bool(LEFTOVER_NAME.search(name)) is leftover
