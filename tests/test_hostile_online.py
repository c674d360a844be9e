# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What a hostile remote or PR does to ``--online``: a huge or silent action repository,
tags of any form, a ``git-base-url`` naming the machine, a slow, huge or deep PyPI answer.

Every remote is local: bare repositories in tmp_path and loopback servers the test starts.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from policytool.rules import action_pin
from tests.conftest import GIT_ENV, Repo, Result
from tests.test_action_pin import Remotes, findings, setup, steps

Run = Callable[..., Result]
RULE = "action-pin"
WF = ".github/workflows/ci.yml"
VARIABLE = "POLICYTOOL_GIT_BASE_URL"


@pytest.fixture
def run(repo: Repo, run: Run) -> Run:
    """The CLI runner, after staging every file (a full run checks tracked files)."""

    def staged(*args: str) -> Result:
        repo.git("add", "-A")
        return run(*args)

    return staged


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test asks its own remotes; the maintainer's variable is unset unless set."""
    action_pin._REMOTES.clear()
    monkeypatch.delenv(VARIABLE, raising=False)


@pytest.fixture
def remotes(tmp_path: Path) -> Remotes:
    """Bare action repositories outside the repository."""
    return Remotes(tmp_path / "remotes")


def mirror(remotes: Remotes, monkeypatch: pytest.MonkeyPatch) -> str:
    """The maintainer's mirror setting, and the same URL as (old-style) config."""
    monkeypatch.setenv(VARIABLE, remotes.url)
    return f'[tool.policytool.action-pin]\ngit-base-url = "{remotes.url}"\n'


def git_bytes(cwd: Path, *args: str | bytes) -> None:
    """Run git with byte arguments (ref names that are not UTF-8)."""
    subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, check=True)


# ------------------------------------------------------------------------- item 7: size


def test_a_ref_list_over_the_cap_stops_git_and_is_one_finding(
    repo: Repo, run: Run, remotes: Remotes, monkeypatch: pytest.MonkeyPatch
) -> None:
    shas = remotes.action("org/huge")
    remotes.action("org/small")
    bare = remotes.base / "org/huge.git"
    lines = [f"{shas['main']} refs/tags/t{i:06d}" for i in range(3000)]  # ~170 kB of refs
    with open(bare / "packed-refs", "a") as handle:
        handle.write("".join(f"{line}\n" for line in lines))
    monkeypatch.setattr(action_pin, "MAX_REFS_BYTES", 64 * 1024, raising=False)
    setup(repo, mirror(remotes, monkeypatch))
    repo.write(WF, steps("org/huge@v1", "org/small@v1"))
    result = run("fix", "--online", "--only", RULE)
    text = repo.read(WF).decode()
    assert "org/huge@v1\n" in text  # not pinned
    assert "org/small@v1\n" not in text  # the other action is
    [finding] = findings(run)
    assert "`org/huge@v1`" in str(finding["message"])
    assert "listed more than 64 KiB of refs; stopped" in str(finding["message"])
    assert result.code == 1


def test_the_ref_reader_keeps_only_plain_names_and_full_shas() -> None:
    sha = "a" * 40
    out = b"".join(
        [
            f"{sha}\trefs/tags/v1.0.0\n".encode(),
            f"{'b' * 40}\trefs/tags/v1.0.0^{{}}\n".encode(),  # peeled: wins
            f"{sha}\trefs/heads/feature/x+y_z-1\n".encode(),
            f"{sha}\trefs/tags/v1.0.0'\"#x:\n".encode(),
            sha.encode() + b"\trefs/tags/v2\xff\n",
            f"{sha.upper()}\trefs/tags/upper\n".encode(),
            f"{sha[:39]}\trefs/tags/short\n".encode(),
            f"{'0' * 40}\trefs/tags/null\n".encode(),
            f"{'c' * 64}\trefs/tags/sha256\n".encode(),
            f"{sha}\trefs/tags/-dash\n".encode(),
            f"{sha}\trefs/tags/{'x' * 300}\n".encode(),
            f"{sha}\trefs/pull/1/head\n".encode(),
            b"x" * 10000 + b"\n",
            f"{sha}\trefs/tags/last".encode(),  # no final newline
        ]
    )
    reader = action_pin._RefReader()
    for start in range(0, len(out), 7):  # fed as git writes it, in pieces
        reader.feed(out[start : start + 7])
    remote = reader.remote()
    assert remote.tags == {"v1.0.0": "b" * 40, "last": sha}
    assert remote.heads == {"feature/x+y_z-1": sha}


# --------------------------------------------------------------------- item 7: deadline


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback TCP server that accepts every connection and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not done.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    done.set()
    thread.join(2)
    for conn in accepted:
        conn.close()
    server.close()


def test_silent_remotes_share_one_deadline(
    repo: Repo, run: Run, silent_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(action_pin, "ONLINE_DEADLINE", 1.0, raising=False)
    monkeypatch.setattr(action_pin, "_GIT_TIMEOUT", 1.0, raising=False)  # the old per-action one
    base = f"https://127.0.0.1:{silent_port}"
    setup(repo, f'[tool.policytool.action-pin]\ngit-base-url = "{base}"\n')
    text = steps("org/a@v1", "org/b@v1", "org/c@v1", "org/d@v1")
    repo.write(WF, text)
    started = time.monotonic()
    result = run("fix", "--online", "--only", RULE)
    elapsed = time.monotonic() - started
    assert elapsed < 2.5, elapsed  # one deadline for all four, not one each
    assert repo.read(WF).decode() == text
    assert result.out.count("did not answer within the 1 s that fix --online allows") == 4


# ------------------------------------------------------------------ item 9: tag forms


def test_hostile_tags_are_ignored_and_a_non_utf8_tag_is_not_fatal(
    repo: Repo, run: Run, remotes: Remotes, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = remotes.action("org/tool")
    other = remotes.action("org/other")
    bare = remotes.base / "org/tool.git"
    git_bytes(bare, "tag", "v9", tool["v2.0.0"])
    git_bytes(bare, "tag", "v9.9'\"#x", tool["v2.0.0"])  # the only tag "under" v9
    git_bytes(bare, "update-ref", b"refs/tags/v3\xff", tool["v1.0.0"])
    setup(repo, mirror(remotes, monkeypatch))
    repo.write(WF, steps("org/tool@v9", "org/other@v1"))
    result = run("fix", "--online", "--only", RULE)
    assert result.code == 1, result.err
    assert "internal error" not in result.err
    assert repo.read(WF).decode() == steps(
        f"org/tool@{tool['v2.0.0']} # v9", f"org/other@{other['v1']} # v1.1.0"
    )
    assert findings(run) == []


# --------------------------------------------------------- item 10: where git may ask


def test_config_may_not_name_a_file_url_outside_the_repository(
    repo: Repo, run: Run, remotes: Remotes
) -> None:
    remotes.action("org/tool")
    setup(repo, f'[tool.policytool.action-pin]\ngit-base-url = "{remotes.url}"\n')
    text = steps("org/tool@v1")
    repo.write(WF, text)
    result = run("fix", "--online", "--only", RULE)
    assert result.code == 2
    assert result.err.startswith("policytool: error: [tool.policytool.action-pin] git-base-url")
    assert VARIABLE in result.err and result.err.count("\n") == 1
    assert repo.read(WF).decode() == text


def test_the_maintainers_variable_wins_over_the_config(
    repo: Repo, run: Run, remotes: Remotes, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = remotes.action("org/tool")
    monkeypatch.setenv(VARIABLE, remotes.url)
    setup(repo, '[tool.policytool.action-pin]\ngit-base-url = "https://127.0.0.1:9"\n')
    repo.write(WF, steps("org/tool@v1"))
    assert run("fix", "--online", "--only", RULE).code == 1
    assert repo.read(WF).decode() == steps(f"org/tool@{tool['v1']} # v1.1.0")
    monkeypatch.setenv(VARIABLE, "ext::sh -c touch% pwned")
    result = run("fix", "--online", "--only", RULE)
    assert result.code == 2
    assert result.err.startswith(f"policytool: error: {VARIABLE}: 'ext::sh")


@pytest.mark.parametrize("where", ["global", "repository"])
def test_git_reads_no_url_rewrite_of_the_machine_or_the_checkout(
    repo: Repo,
    run: Run,
    remotes: Remotes,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    remotes.action("org/tool")
    base = "https://127.0.0.1:9"  # closed: only a rewrite could answer
    rewrite = f'[url "{remotes.url}/"]\n\tinsteadOf = {base}/\n'
    if where == "global":
        home = tmp_path / "home"
        home.mkdir()
        (home / ".gitconfig").write_text(rewrite)
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    else:
        with open(repo.root / ".git" / "config", "a") as handle:
            handle.write(rewrite)
    setup(repo, f'[tool.policytool.action-pin]\ngit-base-url = "{base}"\n')
    text = steps("org/tool@v1")
    repo.write(WF, text)
    result = run("fix", "--online", "--only", RULE)
    assert repo.read(WF).decode() == text
    assert "git ls-remote https://127.0.0.1:9/org/tool failed" in result.out


class _AuthServer(http.server.BaseHTTPRequestHandler):
    """Asks for a password (401) and records every Authorization header it is sent."""

    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.seen.append(self.headers.get("Authorization", ""))
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="x"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet."""


def test_no_credential_reaches_a_host_that_asks(
    repo: Repo, run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AuthServer)
    _AuthServer.seen = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    home = tmp_path / "home"
    home.mkdir()
    store = home / "creds"
    store.write_text(f"http://user:s3cret@127.0.0.1:{server.server_address[1]}\n")
    (home / ".gitconfig").write_text(f"[credential]\n\thelper = store --file={store}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_ASKPASS", "echo")
    monkeypatch.setenv(VARIABLE, base)  # the maintainer's http mirror
    setup(repo, f'[tool.policytool.action-pin]\ngit-base-url = "{base}"\n')
    repo.write(WF, steps("org/tool@v1"))
    try:
        result = run("fix", "--online", "--only", RULE)
    finally:
        server.shutdown()
        server.server_close()
    assert _AuthServer.seen and set(_AuthServer.seen) == {""}, _AuthServer.seen
    assert "org/tool/info/refs" in result.out or "failed" in result.out


# ------------------------------------------------------------------- item 16: PyPI


def serve(
    handler: Callable[[http.server.BaseHTTPRequestHandler], None],
) -> tuple[str, Callable[[], None]]:
    """A loopback HTTP server answering every GET with ``handler``; (base URL, stop)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            try:
                handler(self)
            except OSError:
                pass  # the client hung up

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            """Quiet."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return f"http://127.0.0.1:{server.server_address[1]}/pypi", stop


def trickle(request: http.server.BaseHTTPRequestHandler) -> None:
    """A byte every 0.3 s, forever (every read finishes well within any per-read timeout)."""
    request.send_response(200)
    request.send_header("Content-Length", "100000")
    request.end_headers()
    for _ in range(1000):
        request.wfile.write(b" ")
        request.wfile.flush()
        time.sleep(0.3)


def huge(request: http.server.BaseHTTPRequestHandler) -> None:
    """A 40 MB JSON document (a string)."""
    body = b'"' + b"x" * (40 * 1024 * 1024) + b'"'
    request.send_response(200)
    request.send_header("Content-Length", str(len(body)))
    request.end_headers()
    request.wfile.write(body)


def deep(request: http.server.BaseHTTPRequestHandler) -> None:
    """A small JSON document nested 100,000 lists deep."""
    body = b"[" * 100_000 + b"]" * 100_000
    request.send_response(200)
    request.send_header("Content-Length", str(len(body)))
    request.end_headers()
    request.wfile.write(body)


def releases_not_a_table(request: http.server.BaseHTTPRequestHandler) -> None:
    """A JSON document of the wrong shape."""
    body = json.dumps({"releases": ["1.0"], "info": {}}).encode()
    request.send_response(200)
    request.send_header("Content-Length", str(len(body)))
    request.end_headers()
    request.wfile.write(body)


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (trickle, "no whole answer within 1 s"),
        (huge, "the answer is larger than 32 MiB"),
        (deep, "nested too deeply to parse"),
        (releases_not_a_table, "PyPI lists no release of typos"),
    ],
)
def test_a_hostile_pypi_answer_is_one_reason(
    monkeypatch: pytest.MonkeyPatch,
    answer: Callable[[http.server.BaseHTTPRequestHandler], None],
    why: str,
) -> None:
    from policytool import pypi
    from policytool.core.memo import RunMemo

    monkeypatch.setattr(pypi, "NEWEST_DEADLINE", 1.0, raising=False)
    base, stop = serve(answer)
    monkeypatch.setenv("POLICYTOOL_PYPI_URL", base)
    monkeypatch.setattr(pypi, "PYPI_JSON", base + "/{project}/json", raising=False)
    started = time.monotonic()
    try:
        version, reason = pypi.newest_on_pypi("typos", RunMemo())
    finally:
        stop()
    assert time.monotonic() - started < 2.5
    assert version is None and reason is not None and why in reason, reason


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (trickle, "no whole answer within 1 s"),
        (huge, "the answer is larger than 8 MiB"),
        (deep, "nested too deeply to parse"),
    ],
)
def test_a_hostile_release_answer_is_one_reason(
    monkeypatch: pytest.MonkeyPatch,
    answer: Callable[[http.server.BaseHTTPRequestHandler], None],
    why: str,
) -> None:
    from policytool import pypi

    base, stop = serve(answer)
    monkeypatch.setenv("POLICYTOOL_PYPI_URL", base)
    started = time.monotonic()
    try:
        result = pypi.release("alpha", "1.0", timeout=1.0)
    finally:
        stop()
    assert time.monotonic() - started < 2.5
    assert isinstance(result, str) and why in result, result
    assert result.startswith(f"could not look up alpha 1.0 on {base} (")
