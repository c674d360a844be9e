# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Shared fixtures: real git repositories in tmp_path and an in-process CLI runner."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from policytool.cli import main
from tests.wheelhouse import Wheelhouse, session_wheelhouse

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@dataclass(frozen=True)
class Result:
    """What a policytool run printed and returned."""

    code: int
    out: str
    err: str


class Repo:
    """A real git repository in a temporary directory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def git(self, *args: str) -> str:
        """Run git in the repo and return its stdout."""
        env = {**os.environ, **GIT_ENV}
        proc = subprocess.run(
            ["git", *args], cwd=self.root, env=env, capture_output=True, text=True, check=True
        )
        return proc.stdout

    def write(self, relpath: str, content: str | bytes, mode: int | None = None) -> Path:
        """Write a file (creating directories); ``str`` is written as UTF-8 verbatim."""
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        path.write_bytes(data)
        if mode is not None:
            path.chmod(mode)
        return path

    def read(self, relpath: str) -> bytes:
        """The bytes of a file."""
        return (self.root / relpath).read_bytes()

    def commit(self, message: str = "commit") -> str:
        """Stage everything and commit; return the new HEAD sha."""
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def on_main(self, files: dict[str, str], message: str = "base") -> None:
        """Commit ``files`` on ``main`` (the base of the change) and check out ``feature``
        again, from there: what a test writes next is the change."""
        self.git("checkout", "-q", "main")
        for relpath, content in files.items():
            self.write(relpath, content)
        self.commit(message)
        self.git("checkout", "-q", "-B", "feature")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    """An empty git repo (branch ``main``) that is also the working directory."""
    root = tmp_path / "repo"
    root.mkdir()
    r = Repo(root)
    r.git("init", "-q", "-b", "main")
    monkeypatch.chdir(root)
    yield r


# The base commit of ``feature``: one file. A test module whose base must make ``pkg`` a
# package (a key or class resolved through ``pkg``) sets ``FEATURE_BASE`` to its own.
FEATURE_BASE = {"README.md": "x\n"}


@pytest.fixture
def feature(repo: Repo, request: pytest.FixtureRequest) -> Repo:
    """``repo`` with one commit on main (``FEATURE_BASE`` of the test module, else a README)
    and the ``feature`` branch checked out: what the test writes next is the change."""
    base: dict[str, str] = getattr(request.module, "FEATURE_BASE", FEATURE_BASE)
    for relpath, content in base.items():
        repo.write(relpath, content)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    return repo


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An "installed" package ``enginelib`` on sys.path (outside the repository), shaped
    like vLLM: config dataclasses re-exported by ``enginelib.config``, a plain layer."""
    root = tmp_path / "site"
    (root / "enginelib" / "config").mkdir(parents=True)
    (root / "enginelib" / "__init__.py").write_text("")
    (root / "enginelib" / "config" / "__init__.py").write_text(
        "from enginelib.config.cache import CacheConfig\n"
        "from enginelib.config.engine import EngineConfig\n"
        "from .scheduler import SchedulerConfig\n"
    )
    (root / "enginelib" / "config" / "cache.py").write_text(
        "from dataclasses import dataclass\n\n\n@dataclass\nclass CacheConfig:\n"
        "    block_size: int = 16\n    num_blocks: int = 0\n"
    )
    (root / "enginelib" / "config" / "scheduler.py").write_text(
        "from dataclasses import dataclass\n\n\n@dataclass\nclass SchedulerConfig:\n"
        "    max_num_seqs: int = 8\n    chunked: bool = False\n"
    )
    (root / "enginelib" / "config" / "engine.py").write_text(
        "from dataclasses import dataclass, field\n\n"
        "from enginelib.config.cache import CacheConfig\n\n\n"
        "@dataclass\nclass EngineConfig:\n"
        "    cache_config: CacheConfig = field(default_factory=CacheConfig)\n"
        "    model: str = ''\n"
    )
    (root / "enginelib" / "layers.py").write_text(
        "class Linear:\n    def __init__(self, n: int) -> None:\n        self.weight = n\n"
    )
    monkeypatch.syspath_prepend(str(root))
    return root


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """Run ``policytool ARGS...`` in-process from the current directory."""

    def _run(*args: str) -> Result:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return _run


@pytest.fixture
def run_staged(repo: Repo, run: Callable[..., Result]) -> Callable[..., Result]:
    """:func:`run` after staging every file of ``repo`` (a full run checks tracked files)."""

    def staged(*args: str) -> Result:
        repo.git("add", "-A")
        return run(*args)

    return staged


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that uses the package index (the ``pypi`` fixture) must be marked ``network``,
    so the default run (``-m "not network and not slow"``) stays offline."""
    unmarked = [
        item.nodeid
        for item in items
        if "pypi" in getattr(item, "fixturenames", ())
        and item.get_closest_marker("network") is None
    ]
    if unmarked:
        raise pytest.UsageError(
            "tests using the pypi fixture need @pytest.mark.network: " + ", ".join(unmarked)
        )


@pytest.fixture(scope="session")
def pypi() -> None:
    """Skip (with the reason) when the package index cannot be reached (try-repo tests)."""
    from tests.tryrepo import pypi_unreachable

    reason = pypi_unreachable()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One PRE_COMMIT_HOME for the session: hook environments are built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Wheelhouse:
    """A session-wide local index of tiny wheels that uv and pip-compile resolve from."""
    return session_wheelhouse(tmp_path_factory.mktemp("wheelhouse"))


@pytest.fixture
def no_leftovers(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The processes the test forks; after it, each one has ended and been reaped."""
    forked: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    yield forked
    for pid in forked:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped already: no such child


# The warning Python 3.12+ gives when a process with threads forks. The tests of the forked
# paths themselves fork under pytest-xdist (whose worker has an I/O thread): they use
# ``forks_allowed`` and this filter; policytool itself forks only with one thread.
FORK_WARNING = r"ignore:This process \(pid=\d+\) is multi-threaded:DeprecationWarning"


@pytest.fixture
def forks_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fork as the CLI does (one thread) though the test runner has threads of its own."""
    from policytool.engine import runner
    from policytool.formats import precommit

    monkeypatch.setattr(runner, "single_threaded", lambda: True)
    monkeypatch.setattr(precommit, "single_threaded", lambda: True)
