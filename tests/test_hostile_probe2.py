# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Hostile runs, second probe: signals to forked workers and to the pre-commit schema
child, submodules and linked worktrees, lock and sweep-cache writes held inside."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from policytool.config import Config
from policytool.core import atomic as files
from policytool.core.memo import RunMemo
from policytool.engine import runner
from policytool.engine.findings import Finding
from policytool.engine.registry import FileRule
from policytool.engine.source import SourceFile
from policytool.errors import PolicyError
from tests.conftest import FORK_WARNING, Repo, Result
from tests.test_hostile_probe import CONFIG, HEADER
from tests.test_lock import lock_table
from tests.test_precommit_prefetch import INVALID
from tests.wheelhouse import Wheelhouse

Run = Callable[..., Result]
linux_only = pytest.mark.skipif(sys.platform != "linux", reason="forked workers: Linux only")


# --- SIGKILL of a forked worker -------------------------------------------------------------


def _killed_in_a_worker(parent: int, forked: list[int]) -> FileRule:
    """A rule whose check SIGKILLs every process but ``parent`` (a worker killed mid-run);
    the parent, once it has forked, is slow enough to leave the workers chunks to take."""

    slept: list[int] = []

    def check(source: SourceFile, config: Config) -> list[Finding]:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        elif forked and len(slept) < 20:
            slept.append(1)
            time.sleep(0.01)
        return []

    return FileRule(id="killed", summary="killed", check=check)


@pytest.mark.usefixtures("forks_allowed")
@pytest.mark.filterwarnings(FORK_WARNING)
@linux_only
def test_a_check_worker_killed_mid_run_is_one_sentence_and_no_process_is_left(
    tmp_path: Path, no_leftovers: list[int]
) -> None:
    relpaths = []
    for index in range(runner.PARALLEL_THRESHOLD + 50):
        (tmp_path / f"m{index}.py").write_text("x = 1\n")
        relpaths.append(f"m{index}.py")
    rule = _killed_in_a_worker(os.getpid(), no_leftovers)
    with pytest.raises(PolicyError) as caught:
        runner.run_file_rules(Config(root=tmp_path), relpaths, [rule])
    assert str(caught.value) == "a worker process was killed by signal 9 (SIGKILL) mid-run"
    assert no_leftovers  # it did fork; the fixture checks each one was reaped


@pytest.mark.usefixtures("forks_allowed")
@pytest.mark.filterwarnings(FORK_WARNING)
@linux_only
def test_a_sweep_worker_killed_mid_run_is_one_sentence(
    repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policytool.sweep import run as sweep_run

    repo.write("pyproject.toml", CONFIG)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    for index in range(sweep_run.PARALLEL_FILES + 1):
        repo.write(f"pkg/m{index}.py", "x = 1\n")
    repo.commit("feature")
    parent = os.getpid()
    real = sweep_run.sweep_file

    def killed(*args: object, **kwargs: object) -> object:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sweep_run, "sweep_file", killed)
    # Children of earlier tests in this process (a spawn pool's resource tracker lives
    # as long as its parent) are not this run's.
    earlier = set(_children())
    result = run("sweep", "--base", "main", "--jobs", "2")
    assert result.code == 2
    assert result.err == (
        "policytool: error: a sweep worker process was killed mid-run; nothing was swept\n"
    )
    assert not [c for c in _children() if c != os.getpid() and c not in earlier]


def _children() -> list[int]:
    """The live (not zombie) child processes of this one."""
    found = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            pids = (task / "children").read_text().split()
        except FileNotFoundError:
            continue  # a thread that ended after the listing: it has no children to count
        for pid in pids:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except FileNotFoundError:
                continue  # reaped after the listing: not alive
            if stat.rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(pid))
    return found


# --- the pre-commit schema child stopped or killed -----------------------------------------


@pytest.mark.usefixtures("forks_allowed")
@pytest.mark.filterwarnings(FORK_WARNING)
@pytest.mark.skipif(
    sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2,
    reason="the child is started on Linux with two cores only",
)
@pytest.mark.parametrize("sent", [signal.SIGSTOP, signal.SIGKILL], ids=["stopped", "killed"])
def test_a_stopped_or_killed_schema_child_never_hangs_the_run(
    repo: Repo,
    run: Run,
    monkeypatch: pytest.MonkeyPatch,
    no_leftovers: list[int],
    sent: signal.Signals,
) -> None:
    from policytool.formats import precommit

    repo.write(".pre-commit-config.yaml", INVALID)
    repo.write("pyproject.toml", "")
    repo.commit()
    real = precommit.prefetch_schema

    def prefetch_then_signal(root: Path, file: str, memo: RunMemo) -> None:
        real(root, file, memo)
        os.kill(no_leftovers[-1], sent)  # the child, right after it started

    monkeypatch.setattr(precommit, "prefetch_schema", prefetch_then_signal)
    monkeypatch.setattr(precommit, "PREFETCH_SECONDS", 0.3)
    done: list[Result] = []
    worker = threading.Thread(target=lambda: done.append(run("check", "--only", "repo")))
    started = time.monotonic()
    worker.start()
    worker.join(5)
    if worker.is_alive():  # the old code waits for the stopped child forever: free it
        os.kill(no_leftovers[-1], signal.SIGKILL)
        worker.join()
    assert time.monotonic() - started < 5
    (result,) = done
    assert result.code == 1
    assert "pre-commit rejects this config" in result.out  # computed here instead


# --- lock and bump writes held inside the repository --------------------------------------


def _swap_before_the_write(
    monkeypatch: pytest.MonkeyPatch, directory: Path, outside: Path, name: str
) -> None:
    """Once the write of a file called ``name`` is under way (its path judged already),
    ``directory`` becomes a link to ``outside``."""
    real = files.unwritable_reason

    def swapped(path: Path) -> str | None:
        if path.name == name and not directory.is_symlink():
            os.rename(directory, directory.with_name(directory.name + ".moved"))
            os.symlink(outside, directory)
        return real(path)

    monkeypatch.setattr(files, "unwritable_reason", swapped)


def test_a_lock_never_lands_outside_when_its_directory_is_swapped_for_a_link(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    repo.write("requirements/common.in", "alpha<2\n")
    repo.write("locks/keep.txt", "")
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n"
        + lock_table("common", ["requirements/common.in"], "locks/common.txt", wheelhouse.path),
    )
    _swap_before_the_write(monkeypatch, repo.root / "locks", outside, "common.txt")
    result = run("lock")
    assert result.code == 2
    assert result.err.splitlines()[-1] == (
        "policytool: error: "
        f"{repo.root / 'locks' / 'common.txt'}: cannot write: its directory resolves "
        f"outside {repo.root}"
    )
    assert list(outside.iterdir()) == []


def test_bump_never_writes_an_input_outside_when_its_directory_is_swapped_for_a_link(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    repo.write("requirements/common.in", "alpha==1.0\n")
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n"
        + lock_table(
            "common", ["requirements/common.in"], "requirements/common.txt", wheelhouse.path
        ),
    )
    assert run("lock").code == 0, run("lock").err
    (outside / "common.in").write_bytes(b"# not the repository's\n")
    _swap_before_the_write(monkeypatch, repo.root / "requirements", outside, "common.in")
    monkeypatch.setenv("POLICYTOOL_PYPI_URL", "http://127.0.0.1:9/pypi")
    result = run("bump", "alpha==1.1", "--offline")
    assert result.code == 2, result.err
    assert "cannot write: its directory resolves outside" in result.err
    assert (outside / "common.in").read_bytes() == b"# not the repository's\n"
    assert sorted(p.name for p in outside.iterdir()) == ["common.in"]


# --- the sweep's key-map cache -----------------------------------------------------------

READER = "def r(**kwargs: object) -> object:\n    return kwargs['{key}']\n"


@pytest.mark.parametrize("link", ["directory", "file"])
def test_the_sweep_cache_is_never_written_through_a_link_out(
    repo: Repo, run: Run, tmp_path: Path, link: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    repo.write("pkg/old.py", READER.format(key="shared"))
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("pkg/new.py", READER.format(key="shared"))
    cache = repo.root / ".git" / "policytool-sweep"
    if link == "directory":
        cache.symlink_to(outside)
    else:
        cache.mkdir()
        (cache / "blob-keys.v6").symlink_to(outside / "blob-keys.v6")
    result = run("sweep", "--fail-on", "never")
    assert result.code == 0, result.err
    assert "pkg/new.py:2" in result.out  # the answer, without its cache
    assert list(outside.iterdir()) == []


# --- submodules, nested repositories, linked worktrees ------------------------------------


def _outside_repo(path: Path) -> str:
    """A repository at ``path`` with one unfixed Python file; the sha of its commit."""
    other = Repo(path)
    path.mkdir()
    other.git("init", "-q", "-b", "main")
    other.write("e.py", "x = 1\n")
    return other.commit("outside")


def _snapshot(path: Path) -> dict[str, bytes]:
    """Every file below ``path``, .git included."""
    return {str(p): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def test_submodules_nested_repos_and_gitmodules_paths_out_are_not_followed(
    repo: Repo, run: Run, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    _outside_repo(elsewhere)
    repo.write("pyproject.toml", CONFIG)
    repo.write("a.py", HEADER + "x = 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    sha = _outside_repo(repo.root / "nested")  # an embedded repository: a gitlink
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{sha},sm")  # a submodule
    repo.write(
        ".gitmodules",
        f'[submodule "sm"]\n\tpath = sm\n\turl = {elsewhere}\n'
        '[submodule "up"]\n\tpath = ../elsewhere\n\turl = ../elsewhere\n'
        f'[submodule "abs"]\n\tpath = {elsewhere}\n\turl = {elsewhere}\n',
    )
    repo.write("pkg/b.py", "x = 1\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "feature")
    assert "160000" in repo.git("ls-files", "-s", "nested", "sm")
    before = _snapshot(elsewhere) | _snapshot(repo.root / "nested")
    for args in (("check",), ("fix",), ("sweep", "--base", "main"), ("check", "--only", "repo")):
        result = run(*args)
        assert result.code in (0, 1) and "error" not in result.err, (args, result.err)
        assert "e.py" not in result.out + result.err and "nested" not in result.out, args
    assert repo.read("pkg/b.py") == (HEADER + "x = 1\n").encode()  # fixed in the repository
    assert _snapshot(elsewhere) | _snapshot(repo.root / "nested") == before


def test_check_fix_and_sweep_in_a_linked_worktree_stay_in_it(
    repo: Repo, run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write("pyproject.toml", CONFIG)
    repo.write("pkg/old.py", HEADER + READER.format(key="shared"))
    repo.commit("base")
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", "-b", "feature", str(linked))
    Repo(linked).write("pkg/new.py", READER.format(key="shared"))
    Repo(linked).commit("feature")
    main_files = _snapshot(repo.root / "pkg")
    monkeypatch.chdir(linked)
    fixed = run("fix")
    assert fixed.code == 1 and fixed.err == "fixed pkg/new.py\n", fixed.err
    assert (linked / "pkg" / "new.py").read_text().startswith(HEADER)
    swept = run("sweep", "--base", "main", "--fail-on", "never")
    assert swept.code == 0 and "pkg/new.py" in swept.out, swept.err
    assert _snapshot(repo.root / "pkg") == main_files  # the main work tree untouched
    assert list((repo.root / ".git" / "policytool-sweep").glob("base-keys.*"))  # common dir


# --- python -m policytool in a hostile checkout ------------------------------------------


def test_python_m_policytool_imports_no_module_of_the_checkout(repo: Repo) -> None:
    """``python -m`` puts the working directory first on sys.path: a ``yaml.py`` or a
    ``click/`` in the checkout must not be imported in place of the real module."""
    import subprocess

    marker = repo.root.parent / "ran-repository-code"
    planted = f"open({str(marker)!r}, 'w').close()\nraise ImportError('planted')\n"
    repo.write("pyproject.toml", '[tool.policytool.pre-commit]\nfinal-hook = "x"\n')
    repo.write(".pre-commit-config.yaml", "repos: []\n")
    repo.write("yaml.py", planted)
    repo.write("click/__init__.py", planted)
    repo.write("ruamel/__init__.py", planted)
    repo.commit()
    proc = subprocess.run(
        [sys.executable, "-m", "policytool", "check"],
        cwd=repo.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert not marker.exists(), proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
