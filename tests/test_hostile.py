# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Hostile repositories, core parts: symlinks, atomic writes, write failures, config
strings, control characters in names, and the top-level guard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import GIT_ENV, Repo, Result

Run = Callable[..., Result]

HEADER = "# SPDX-License-Identifier: MIT\n"
CONFIG = '[tool.policytool.spdx]\nlicense = "MIT"\n'


@pytest.fixture
def mit(repo: Repo) -> Repo:
    repo.write("pyproject.toml", CONFIG)
    return repo


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file below ``root`` (not following links) with its bytes."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            if not path.is_symlink() and ".git" not in path.parts:
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


# --- item 2: symlinks ------------------------------------------------------------------


def test_fix_never_writes_through_a_directory_symlink_out_of_the_repo(
    mit: Repo, run: Run, tmp_path: Path
) -> None:
    outside = tmp_path / "outside_dir"
    outside.mkdir()
    (outside / "victim.py").write_bytes(b"x = 1\n")
    os.symlink(os.path.relpath(outside, mit.root), mit.root / "vendor")
    mit.write("a.py", "x = 1\n")
    mit.commit()
    assert mit.git("ls-files", "-s", "vendor").startswith("120000")  # a committed link
    result = run("fix")
    assert (outside / "victim.py").read_bytes() == b"x = 1\n"
    assert "vendor" not in result.out + result.err
    assert mit.read("a.py").startswith(HEADER.encode())
    checked = run("check", "--format", "json")
    assert [f["path"] for f in json.loads(checked.out)] == []
    for given in ("vendor/victim.py", "vendor", "vendor/"):
        refused = run("fix", given)
        assert refused.code == 2, given
        assert refused.err == (
            f"policytool: error: {given}: resolves outside the repository at {mit.root}\n"
        )
    assert (outside / "victim.py").read_bytes() == b"x = 1\n"


def test_tracked_symlink_file_is_reported_not_replaced(mit: Repo, run: Run, tmp_path: Path) -> None:
    mit.write("real.py", "x = 1\n")
    os.symlink("real.py", mit.root / "link.py")
    (tmp_path / "secret.py").write_bytes(b"TOKEN = 'x'\n")
    os.symlink(os.path.relpath(tmp_path / "secret.py", mit.root), mit.root / "out.py")
    mit.commit()
    result = run("fix", "--format", "json")
    assert result.code == 1
    assert (mit.root / "link.py").is_symlink() and os.readlink(mit.root / "link.py") == "real.py"
    assert (mit.root / "out.py").is_symlink()
    assert (tmp_path / "secret.py").read_bytes() == b"TOKEN = 'x'\n"  # never read nor written
    assert mit.read("real.py").startswith(HEADER.encode())  # the target is fixed on its own
    found = json.loads(result.out)
    assert [(f["path"], f["fixable"]) for f in found] == [("link.py", False)]
    assert found[0]["message"].endswith(
        "(not fixed: it is a symlink (policytool never writes through one; change its target))"
    )
    assert "out.py" not in result.out + result.err


# --- item 21: atomic writes --------------------------------------------------------------


def test_read_only_file_is_reported_not_rewritten(mit: Repo, run: Run) -> None:
    path = mit.write("ro.py", "x = 1\n", mode=0o444)
    mit.commit()
    result = run("fix")
    assert result.code == 1
    assert path.read_bytes() == b"x = 1\n"
    assert oct(path.stat().st_mode & 0o777) == "0o444"
    assert "ro.py:1:1: spdx-header" in result.out
    assert "(not fixed: it is read-only (chmod u+w it to let policytool change it))" in result.out
    assert "fixed ro.py" not in result.err


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_owner_and_mode_are_kept(mit: Repo, run: Run) -> None:
    path = mit.write("owned.py", "x = 1\n", mode=0o640)
    os.chown(path, 12345, 23456)
    mit.commit()
    assert run("fix").code == 1
    info = path.stat()
    assert path.read_bytes().startswith(HEADER.encode())
    assert (info.st_uid, info.st_gid, info.st_mode & 0o777) == (12345, 23456, 0o640)


def test_hard_link_keeps_the_old_content_as_documented(mit: Repo, run: Run, tmp_path: Path) -> None:
    path = mit.write("a.py", "x = 1\n")
    mit.commit()
    os.link(path, tmp_path / "other-name.py")
    assert run("fix").code == 1
    assert path.read_bytes().startswith(HEADER.encode())
    assert (tmp_path / "other-name.py").read_bytes() == b"x = 1\n"  # a new inode for a.py


def test_stale_temp_files_of_a_killed_run_are_cleaned(mit: Repo, run: Run) -> None:
    mit.write("a.py", "x = 1\n")
    mit.commit()
    stale = mit.write(".a.py.k1ll3d00.policytool.tmp", "half a file")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    in_flight = mit.write(".a.py.fr35h000.policytool.tmp", "another run writing now")
    unrelated = mit.write(".a.py.notes.tmp", "the user's own file")
    os.utime(unrelated, (old, old))
    assert run("fix").code == 1
    assert not stale.exists()
    assert in_flight.exists() and unrelated.exists()
    assert mit.read("a.py").startswith(HEADER.encode())


def test_control_characters_in_file_names_are_escaped(mit: Repo, run: Run) -> None:
    mit.write("evil\x1b[2J\u202e.py", "x = 1\n")
    mit.write("line\nbreak.py", "x = 1\n")
    mit.commit()
    result = run("check")
    assert "\x1b" not in result.out and "\u202e" not in result.out
    assert "evil\\x1b[2J\\u202e.py:1:1: spdx-header" in result.out
    assert "line\\nbreak.py:1:1: spdx-header" in result.out
    assert len(result.out.splitlines()) == 3  # two findings and the summary
    fixed = run("fix")
    assert "fixed evil\\x1b[2J\\u202e.py" in fixed.err and "\x1b" not in fixed.err


# --- item 19: write failures -----------------------------------------------------------

LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
from policytool.cli import main
sys.exit(main(sys.argv[1:]))
"""


def run_limited(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """policytool in a subprocess that may not write a single byte to any file."""
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        [sys.executable, "-c", LIMITED, *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_fix_that_cannot_write_is_one_sentence_and_changes_nothing(mit: Repo) -> None:
    for i in range(3):
        mit.write(f"m{i}.py", "x = 1\n")
    mit.commit()
    before = snapshot(mit.root)
    proc = run_limited(mit.root, "fix")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "policytool: error: m0.py: cannot write the fix: File too large\n"
    assert snapshot(mit.root) == before  # byte-identical, and no temp file left behind


def test_repo_fix_that_cannot_write_is_one_sentence(repo: Repo) -> None:
    repo.write(
        "pyproject.toml",
        '[tool.policytool.pre-commit]\ndefault-stages = ["pre-commit", "manual"]\n',
    )
    repo.write(".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks: []\n")
    repo.commit()
    before = snapshot(repo.root)
    proc = run_limited(repo.root, "fix", "--only", "precommit-default-stages")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("policytool: error: ")
    assert "cannot write: File too large" in proc.stderr
    assert snapshot(repo.root) == before


# --- item 13: config strings that go into files ----------------------------------------


@pytest.mark.parametrize(
    "value,shown",
    [
        ("MIT\\nimport os", "'\\n'"),
        ("MIT\\u2028import os", "'\\u2028'"),
        ("MIT\\u001bB", "'\\x1b'"),
    ],
)
def test_config_strings_are_one_line(mit: Repo, run: Run, value: str, shown: str) -> None:
    mit.write(
        "pyproject.toml", f'[project]\nname = "x"\n\n[tool.policytool.spdx]\nlicense = "{value}"\n'
    )
    mit.write("a.py", "x = 1\n")
    mit.commit()
    before = mit.read("a.py")
    result = run("fix")
    assert result.code == 2
    assert result.err == (
        f"policytool: error: {mit.root / 'pyproject.toml'}:5: tool.policytool.spdx.license: "
        f"must be one line without control characters (found {shown} at offset 3)\n"
    )
    assert mit.read("a.py") == before


def test_multiline_project_license_is_refused_too(mit: Repo, run: Run) -> None:
    mit.write(
        "pyproject.toml",
        '[project]\nlicense = "MIT\\nimport os"\n[tool.policytool.spdx]\nkinds = ["python"]\n',
    )
    mit.write("a.py", "x = 1\n")
    mit.commit()
    result = run("fix")
    assert result.code == 2
    assert ":2: project.license: must be one line" in result.err
    assert mit.read("a.py") == b"x = 1\n"


# --- the top-level guard ---------------------------------------------------------------


def test_unexpected_exception_is_one_sentence_with_a_report_hint(
    mit: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policytool.engine import runner

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(runner, "run_file_rules", broken)
    monkeypatch.delenv("POLICYTOOL_DEBUG", raising=False)
    result = run("check")
    assert result.code == 2
    assert result.err == (
        "policytool: error: internal error (ZeroDivisionError: division by zero); please "
        "report it to the policytool maintainers with the command you ran "
        "(POLICYTOOL_DEBUG=1 shows the traceback)\n"
    )
    monkeypatch.setenv("POLICYTOOL_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        run("check")


def test_keyboard_interrupt_exits_130_quietly(
    mit: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policytool.engine import runner

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_file_rules", interrupted)
    result = run("check")
    assert result.code == 130
    assert result.out == "" and result.err.strip() == ""
