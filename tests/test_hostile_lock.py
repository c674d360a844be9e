# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Issue 20, the lock items: a hostile pull request against ``lock``, ``--check`` and ``bump``.

- ``lock --check --resolve`` never builds (never imports a build backend of the PR);
- no environment variable reaches a host or a path the PR picks (config or ``.in`` file);
- a temporary directory that cannot be written is one sentence;
- a FIFO where a lock should be does not hang the check.
"""

from __future__ import annotations

import http.server
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Repo, Result
from tests.test_lock import BACKENDS, setup_simple
from tests.wheelhouse import Wheelhouse

Run = Callable[..., Result]
LOCK = "requirements/test.txt"
SECRET = "s3cr3t-deploy-t0ken"


def files_of(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` (but .git) and its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


# --------------------------------------------------------------------------------------
# 1. lock --check --resolve builds nothing

BACKEND = """\
import pathlib
pathlib.Path({marker!r}).write_text("imported")
def get_requires_for_build_wheel(config_settings=None):
    return []
def prepare_metadata_for_build_wheel(directory, config_settings=None):
    raise SystemExit("no")
def build_wheel(directory, config_settings=None, metadata_directory=None):
    raise SystemExit("no")
"""


def hostile_project(repo: Repo, where: str, marker: Path) -> None:
    """A local project whose in-tree build backend writes ``marker`` when imported."""
    repo.write(
        f"{where}/pyproject.toml",
        '[build-system]\nrequires = []\nbuild-backend = "bk"\nbackend-path = ["."]\n\n'
        '[project]\nname = "sub"\ndynamic = ["version"]\n',
    )
    repo.write(f"{where}/bk.py", BACKEND.format(marker=str(marker)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("line", ["./sub", "-e ./sub", "sub @ file:./sub"])
def test_check_resolve_never_imports_a_build_backend(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, tmp_path: Path, backend: str, line: str
) -> None:
    marker = tmp_path / "MARKER"
    hostile_project(repo, "sub", marker)
    setup_simple(repo, wheelhouse.path, backend, requirements=f"alpha\n{line}\n")
    repo.write(LOCK, "alpha==1.0\nsub==1.0\n")
    before = files_of(repo.root)
    result = run("lock", "--check", "--resolve")
    assert not marker.exists(), "the PR's build backend was imported"
    assert result.code == 1, result.err
    building = [x for x in result.out.splitlines() if "without building" in x]
    assert len(building) == 1, result.out
    assert "requirements/test.in:2" in building[0]
    assert files_of(repo.root) == before


def test_check_resolve_never_builds_an_sdist(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, tmp_path: Path
) -> None:
    import tarfile

    marker = tmp_path / "MARKER"
    project = tmp_path / "zeta-1.0"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "bk"\nbackend-path = ["."]\n'
    )
    (project / "bk.py").write_text(BACKEND.format(marker=str(marker)))
    (project / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: zeta\nVersion: 1.0\n")
    links = tmp_path / "links"
    links.mkdir()
    with tarfile.open(links / "zeta-1.0.tar.gz", "w:gz") as archive:
        archive.add(project, "zeta-1.0")
    setup_simple(
        repo, wheelhouse.path, "uv", f'find-links = ["{links.as_posix()}"]', requirements="zeta\n"
    )
    text = (repo.root / "pyproject.toml").read_text()
    # Two find-links keys are not valid TOML: keep one list with both directories.
    text = text.replace(f'find-links = ["{wheelhouse.path.as_posix()}"]\n', "").replace(
        f'find-links = ["{links.as_posix()}"]',
        f'find-links = ["{wheelhouse.path.as_posix()}", "{links.as_posix()}"]',
    )
    repo.write("pyproject.toml", text)
    repo.write(LOCK, "zeta==1.0\n")
    result = run("lock", "--check", "--resolve")
    assert not marker.exists(), "the sdist's build backend was imported"
    assert result.code == 1, result.err
    assert sum("without building" in x for x in result.out.splitlines()) == 1, result.out


# --------------------------------------------------------------------------------------
# 2. no environment variable reaches a host or a path the PR picks


class Recorder(http.server.BaseHTTPRequestHandler):
    """Answers 404 to everything and records each request line."""

    seen: list[str]

    def do_GET(self) -> None:  # noqa: N802 (the http.server name)
        self.seen.append(self.requestline)
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_HEAD = do_GET  # noqa: N815 (uv asks HEAD first for a wheel URL)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet."""


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server (``host:port``, the request lines it saw); a secret set."""
    seen: list[str] = []
    handler = type("Handler", (Recorder,), {"seen": seen})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.timeout = 5
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("CI_DEPLOY_SECRET", SECRET)
    monkeypatch.delenv("POLICYTOOL_INDEX_ENV", raising=False)
    try:
        yield f"127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def secret_lock(repo: Repo, url: str, key: str = "index-url") -> None:
    """One lock ``test`` of ``alpha`` whose index setting ``key`` is ``url``."""
    value = f'"{url}"' if key == "index-url" else f'["{url}"]'
    repo.write("requirements/test.in", "alpha\n")
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n[[tool.policytool.lock]]\n"
        'name = "test"\ninputs = ["requirements/test.in"]\noutput = "requirements/test.txt"\n'
        f"{key} = {value}\n",
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://{host}/${{CI_DEPLOY_SECRET}}/simple",
        "http://{host}/simple?t=${{CI_DEPLOY_SECRET}}",
        "http://${{CI_DEPLOY_SECRET}}.{host}/simple",
        "http://user:${{CI_DEPLOY_SECRET}}@{host}/simple",  # userinfo, but not allowed
    ],
)
@pytest.mark.parametrize(
    "command",
    [("lock",), ("lock", "--check", "--resolve"), ("bump", "alpha==1.1")],
)
def test_a_pr_cannot_send_a_variable_to_its_host(
    repo: Repo, run: Run, index: tuple[str, list[str]], url: str, command: tuple[str, ...]
) -> None:
    host, seen = index
    secret_lock(repo, url.format(host=host))
    repo.write(LOCK, "alpha==1.0\n")
    result = run(*command)
    assert result.code == 2, result.out + result.err
    assert "lock 'test': index-url uses ${CI_DEPLOY_SECRET}" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert seen == []  # nothing requested at all
    assert SECRET not in result.out + result.err


def test_a_path_in_find_links_is_not_expanded(
    repo: Repo, run: Run, index: tuple[str, list[str]]
) -> None:
    secret_lock(repo, "/tmp/${CI_DEPLOY_SECRET}/wheels", "find-links")
    result = run("lock")
    assert result.code == 2
    assert "find-links uses ${CI_DEPLOY_SECRET} outside the user:password@ part" in result.err


def test_the_maintainer_allows_a_variable_in_the_userinfo_of_one_host(
    repo: Repo, run: Run, index: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    host, seen = index
    monkeypatch.setenv("POLICYTOOL_INDEX_ENV", "CI_DEPLOY_SECRET@127.0.0.1")
    secret_lock(repo, f"http://user:${{CI_DEPLOY_SECRET}}@{host}/simple")
    result = run("lock")
    assert result.code == 2  # the server has no alpha: the resolver ran and failed
    assert seen and all(SECRET not in line for line in seen)
    assert any("/simple/alpha/" in line for line in seen)
    assert SECRET not in result.out + result.err
    # Allowed in the userinfo only: the same variable in the path is still refused.
    seen.clear()
    secret_lock(repo, f"http://{host}/${{CI_DEPLOY_SECRET}}/simple")
    result = run("lock")
    assert result.code == 2 and seen == []
    # Another host than the one named is refused too.
    secret_lock(repo, "http://user:${CI_DEPLOY_SECRET}@localhost:9/simple")
    result = run("lock")
    assert "uses ${CI_DEPLOY_SECRET} for host localhost:9, which the maintainer" in result.err


IN_FILE_ROUTES = [
    "--index-url http://{host}/${{CI_DEPLOY_SECRET}}/simple",
    "--extra-index-url http://{host}/${{CI_DEPLOY_SECRET}}/simple",
    "-f http://{host}/${{CI_DEPLOY_SECRET}}/links/",
    "alpha @ http://{host}/${{CI_DEPLOY_SECRET}}/alpha-1.0-py3-none-any.whl",
]


# pip-compile takes 2-3 s a run: two routes of it, every route of uv, both commands.
@pytest.mark.parametrize(
    ("backend", "line", "command"),
    [
        *(
            ("uv", line, cmd)
            for line in IN_FILE_ROUTES
            for cmd in (("lock",), ("lock", "--check", "--resolve"))
        ),
        ("pip-tools", IN_FILE_ROUTES[0], ("lock",)),
        ("pip-tools", IN_FILE_ROUTES[3], ("lock", "--check", "--resolve")),
    ],
)
def test_a_requirement_file_cannot_send_a_variable_either(
    repo: Repo,
    run: Run,
    index: tuple[str, list[str]],
    backend: str,
    line: str,
    command: tuple[str, ...],
) -> None:
    host, seen = index
    repo.write("requirements/test.in", line.format(host=host) + "\nalpha\n")
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n[[tool.policytool.lock]]\n"
        'name = "test"\ninputs = ["requirements/test.in"]\noutput = "requirements/test.txt"\n'
        f'backend = "{backend}"\n',
    )
    repo.write(LOCK, "alpha==1.0\n")
    result = run(*command)
    assert result.code == 2, result.out + result.err
    assert seen, result.err
    assert all(SECRET not in request for request in seen), seen
    assert SECRET not in result.out + result.err


def test_bump_via_a_requirement_file_does_not_send_a_variable(
    repo: Repo, run: Run, index: tuple[str, list[str]]
) -> None:
    host, seen = index
    secret_lock(repo, f"http://{host}/simple")
    repo.write(
        "requirements/test.in",
        f"--extra-index-url http://{host}/${{CI_DEPLOY_SECRET}}/simple\nalpha==1.0\n",
    )
    repo.write(LOCK, "alpha==1.0\n")
    result = run("bump", "alpha==1.1")  # no probe: the inputs are resolved at once
    assert result.code == 2
    assert b"alpha==1.0" in repo.read("requirements/test.in")  # restored
    assert seen and all(SECRET not in request for request in seen), seen


def test_the_resolver_environment_is_minimal() -> None:
    from policytool.lock.backends import isolated_env

    env = isolated_env(
        {
            "PATH": "/bin",
            "HOME": "/home/ci",
            "LC_ALL": "C.UTF-8",
            "https_proxy": "http://proxy:3128",
            "SSL_CERT_FILE": "/etc/ca.pem",
            "CI_DEPLOY_SECRET": SECRET,
            "GITHUB_TOKEN": "ghs_x",
            "AWS_SECRET_ACCESS_KEY": "x",
        }
    )
    assert SECRET not in env.values()
    assert "GITHUB_TOKEN" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert env["https_proxy"] == "http://proxy:3128"
    assert env["LC_ALL"] == "C.UTF-8" and env["SSL_CERT_FILE"] == "/etc/ca.pem"


# --------------------------------------------------------------------------------------
# 14. a temporary directory that cannot be written


def cli(
    root: Path,
    *args: str,
    fsize: int | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 20,
) -> subprocess.CompletedProcess[str]:
    """``python -m policytool ARGS`` in ``root``; with ``fsize``, under ``ulimit -f``."""

    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(
        [sys.executable, "-m", "policytool", *args],
        cwd=root,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit,  # noqa: PLW1509 (no threads are involved)
    )


def test_lock_without_a_writable_temporary_directory_is_one_sentence(
    repo: Repo, wheelhouse: Wheelhouse
) -> None:
    setup_simple(repo, wheelhouse.path)
    before = files_of(repo.root)
    proc = cli(repo.root, "lock", fsize=0)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [x for x in proc.stderr.splitlines() if "resolving with" not in x]  # progress
    assert len(lines) == 1 and lines[0].startswith("policytool: error: "), proc.stderr
    assert "cannot create a temporary directory: writing a file fails" in lines[0]
    assert files_of(repo.root) == before


def test_lock_with_an_unwritable_tmpdir_is_one_sentence(
    repo: Repo, wheelhouse: Wheelhouse, tmp_path: Path
) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes into a read-only directory")
    setup_simple(repo, wheelhouse.path)
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    before = files_of(repo.root)
    proc = cli(repo.root, "lock", env={"TMPDIR": str(locked)})
    locked.chmod(0o700)
    assert proc.returncode == 2, proc.stderr
    lines = [x for x in proc.stderr.splitlines() if "resolving with" not in x]  # progress
    assert len(lines) == 1 and "temporary directory" in lines[0], proc.stderr
    assert files_of(repo.root) == before


# --------------------------------------------------------------------------------------
# 15. a FIFO where a lock should be


@pytest.mark.parametrize(
    "args",
    [("lock", "--check"), ("check", "--only", "lock-stale"), ("lock", "--check", "--resolve")],
)
def test_a_fifo_lock_does_not_hang_the_check(
    repo: Repo, wheelhouse: Wheelhouse, args: tuple[str, ...]
) -> None:
    setup_simple(repo, wheelhouse.path)
    repo.commit("inputs")
    os.mkfifo(repo.root / LOCK)
    proc = cli(repo.root, *args, timeout=15)
    assert proc.returncode in (1, 2), proc.stdout + proc.stderr
    assert "not a regular file" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("backend", ["lock", "bump"])
def test_a_fifo_input_does_not_hang_lock_or_bump(
    repo: Repo, wheelhouse: Wheelhouse, backend: str
) -> None:
    setup_simple(repo, wheelhouse.path)
    (repo.root / "requirements/test.in").unlink()
    os.mkfifo(repo.root / "requirements/test.in")
    args = ("lock",) if backend == "lock" else ("bump", "alpha")
    proc = cli(repo.root, *args, timeout=15)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "not a regular file" in proc.stderr
