# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Locks a reviewer can trust (issue 23): hashes from the index, re-derivable locks."""

from __future__ import annotations

import datetime
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from policytool.formats import lockfile
from tests.conftest import Repo, Result
from tests.test_lock import BACKENDS, setup_simple
from tests.wheelhouse import Wheelhouse, wheel_sha256

Run = Callable[..., Result]
WRONG = "0" * 64


def forge(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` replaced by ``new`` and the body hash recomputed (a forger's edit)."""
    assert old in text, old
    parsed = lockfile.parse(text.replace(old, new, 1))
    body = parsed.body
    return re.sub(
        r"^# body: sha256:[0-9a-f]{64}$",
        f"# body: {lockfile.body_hash(body)}",
        parsed.text,
        count=1,
        flags=re.MULTILINE,
    )


# ---------------------------------------------------------------------------------------
# item 1: hashes come from the index, never from the old lock


@pytest.mark.parametrize("backend", BACKENDS)
def test_repair_replaces_a_hand_edited_hash(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, backend: str
) -> None:
    setup_simple(repo, wheelhouse.path, backend, extra="hashes = true")
    assert run("lock").code == 0
    real = wheel_sha256(wheelhouse.path, "alpha", "1.1")
    text = repo.read("requirements/test.txt").decode()
    repo.write("requirements/test.txt", forge(text, real, WRONG))
    result = run("lock", "test")
    assert result.code == 0, result.err
    repaired = repo.read("requirements/test.txt").decode()
    assert WRONG not in repaired
    assert real in repaired
    assert run("lock", "--check").code == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_upgrade_package_replaces_other_hand_edited_hashes(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, backend: str
) -> None:
    setup_simple(repo, wheelhouse.path, backend, extra="hashes = true")
    assert run("lock").code == 0
    real = wheel_sha256(wheelhouse.path, "alpha", "1.1")
    text = repo.read("requirements/test.txt").decode()
    repo.write("requirements/test.txt", forge(text, real, WRONG))
    for spec in ("delta==1.0", "delta"):
        result = run("lock", "--upgrade-package", spec)
        assert result.code == 0, result.err
        assert WRONG not in repo.read("requirements/test.txt").decode()
    assert real in repo.read("requirements/test.txt").decode()


# ---------------------------------------------------------------------------------------
# item 2: a lock is re-derivable; `--check --resolve` derives it from nothing


def _resolve(run: Run) -> Result:
    return run("lock", "--check", "--resolve")


def test_header_records_the_cut_off_and_a_named_lock_derives_the_same_bytes(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    setup_simple(repo, wheelhouse.path, extra="hashes = true")
    assert run("lock").code == 0
    first = repo.read("requirements/test.txt")
    header = lockfile.parse(first.decode())
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T00:00:00Z", header.fields["exclude-newer"])
    assert run("lock", "test").code == 0
    assert repo.read("requirements/test.txt") == first
    result = _resolve(run)
    assert result.code == 0, result.out


def _edits(wheels: Path) -> dict[str, tuple[str, str]]:
    """Hand edits of the ``setup_simple`` lock (hashes on): (old text, new text)."""
    alpha_11 = wheel_sha256(wheels, "alpha", "1.1")
    alpha_10 = wheel_sha256(wheels, "alpha", "1.0")
    gamma = wheel_sha256(wheels, "gamma", "2.0")
    return {
        # a changed pin carrying the real hash of its new version
        "changed pin": (
            f"alpha==1.1 \\\n    --hash=sha256:{alpha_11}",
            f"alpha==1.0 \\\n    --hash=sha256:{alpha_10}",
        ),
        "removed hash": (f"gamma==2.0 \\\n    --hash=sha256:{gamma}\n", "gamma==2.0\n"),
        "wrong hash": (alpha_11, WRONG),
        "added package": (
            "delta==2.0",
            f"zeta==1.0 \\\n    --hash=sha256:{WRONG}\n    # via -r requirements/test.in\ndelta==2.0",
        ),
    }


@pytest.mark.parametrize("edit", ["changed pin", "removed hash", "wrong hash", "added package"])
def test_resolve_catches_every_hand_edit_under_a_recomputed_header(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, edit: str
) -> None:
    setup_simple(repo, wheelhouse.path, extra="hashes = true")
    assert run("lock").code == 0
    text = repo.read("requirements/test.txt").decode()
    old, new = _edits(wheelhouse.path)[edit]
    repo.write("requirements/test.txt", forge(text, old, new))
    result = _resolve(run)
    assert result.code == 1, result.out
    assert "derived again from nothing, the lock differs" in result.out
    # The repair (the lock named) derives it again: the edit is gone.
    assert run("lock", "test").code == 0
    assert repo.read("requirements/test.txt").decode() == text


def test_resolve_catches_a_lock_resolved_for_another_python(
    repo: Repo, run: Run, tmp_path: Path
) -> None:
    from tests.wheelhouse import build_wheelhouse

    # Another Python than the one running (CI runs this file on 3.10 to 3.13).
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    target = "3.12" if running == "3.13" else "3.13"
    wheels = build_wheelhouse(
        tmp_path / "wheels",
        {"alpha": {"1.0": (f'beta ; python_version == "{target}"',)}, "beta": {"1.0": ()}},
    )
    setup_simple(repo, wheels, requirements="alpha\n")
    assert run("lock").code == 0
    honest = repo.read("requirements/test.txt").decode()
    # The forger resolves for the other Python and keeps the header of the honest lock.
    setup_simple(repo, wheels, requirements="alpha\n", extra=f'python-version = "{target}"')
    assert run("lock").code == 0
    other = lockfile.parse(repo.read("requirements/test.txt").decode()).body
    assert "beta==1.0" in other
    setup_simple(repo, wheels, requirements="alpha\n")
    honest_body = lockfile.parse(honest).body
    repo.write("requirements/test.txt", forge(honest, honest_body, other))
    assert run("lock", "--check").code == 0  # offline: consistent, so it passes
    result = _resolve(run)
    assert result.code == 1, result.out
    assert "+beta==1.0" in result.out or "-beta==1.0" in result.out


def test_cut_off_holds_a_new_release_back_until_an_upgrade(
    repo: Repo, run: Run, tmp_path: Path
) -> None:
    from tests.wheelhouse import JsonIndex

    index = JsonIndex(tmp_path / "index")
    try:
        index.publish("alpha", "1.0", "2020-01-01T00:00:00Z")
        index.publish("beta", "1.0", "2020-01-01T00:00:00Z")
        repo.write("requirements/test.in", "alpha\nbeta\n")
        repo.write(
            "pyproject.toml",
            "[tool.policytool]\n\n[[tool.policytool.lock]]\n"
            'name = "test"\ninputs = ["requirements/test.in"]\n'
            f'output = "requirements/test.txt"\nindex-url = "{index.url}"\nhashes = true\n',
        )
        assert run("lock").code == 0
        first = repo.read("requirements/test.txt")
        # Released after the cut-off (today 00:00 UTC): neither the repair nor the
        # check from nothing sees it.
        now = datetime.datetime.now(datetime.timezone.utc)
        released = max(now - datetime.timedelta(seconds=2), now.replace(hour=0, minute=0, second=1))
        stamp = released.strftime("%Y-%m-%dT%H:%M:%SZ")
        index.publish("alpha", "1.1", stamp)
        index.publish("beta", "1.1", stamp)
        assert run("lock", "test").code == 0
        assert repo.read("requirements/test.txt") == first
        assert _resolve(run).code == 0
        # One package upgraded: its own cut-off, recorded; the other stays; re-derivable.
        result = run("lock", "--upgrade-package", "alpha")
        assert result.code == 0, result.err
        text = repo.read("requirements/test.txt").decode()
        assert "alpha==1.1" in text and "beta==1.0" in text
        assert "# exclude-newer-package: alpha=" in text
        check = _resolve(run)
        assert check.code == 0, check.out
        # A downgrade to a named version is a recorded hold, still re-derivable.
        assert run("lock", "--upgrade-package", "alpha==1.0").code == 0
        text = repo.read("requirements/test.txt").decode()
        assert "alpha==1.0" in text and "# holds: alpha==1.0" in text
        assert _resolve(run).code == 0
        # --upgrade moves the cut-off; holds are dropped.
        assert run("lock", "--upgrade").code == 0
        text = repo.read("requirements/test.txt").decode()
        assert "holds" not in text and "exclude-newer-package" not in text
    finally:
        index.close()


def test_a_cut_off_in_the_header_is_validated(repo: Repo, run: Run, wheelhouse: Wheelhouse) -> None:
    setup_simple(repo, wheelhouse.path)
    assert run("lock").code == 0
    text = repo.read("requirements/test.txt").decode()
    repo.write(
        "requirements/test.txt",
        re.sub(r"# exclude-newer: \S+", "# exclude-newer: --index-url=http://evil", text),
    )
    result = run("lock", "test")
    assert result.code == 2
    assert "requirements/test.txt:" in result.err and "exclude-newer" in result.err
    assert "Traceback" not in result.err


# ---------------------------------------------------------------------------------------
# item 5: extras, excluded packages; item 4: a TOML output is refused


@pytest.mark.parametrize("backend", BACKENDS)
def test_strip_extras_false_keeps_extras(
    repo: Repo, run: Run, tmp_path: Path, backend: str
) -> None:
    from tests.wheelhouse import build_wheelhouse

    wheels = build_wheelhouse(
        tmp_path / "wheels",
        {"celery": {"1.0": ('redis ; extra == "redis"',)}, "redis": {"1.0": ()}},
    )
    setup_simple(repo, wheels, backend, requirements="celery[redis]\n")
    assert run("lock").code == 0
    text = repo.read("requirements/test.txt").decode()
    assert "celery==1.0" in text and "redis==1.0" in text
    setup_simple(
        repo, wheels, backend, requirements="celery[redis]\n", extra="strip-extras = false"
    )
    result = run("lock")
    assert result.code == 0, result.err
    text = repo.read("requirements/test.txt").decode()
    assert "celery[redis]==1.0" in text and "redis==1.0" in text
    assert run("lock", "--check").code == 0


def test_excluded_packages_are_named_in_the_header(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    setup_simple(repo, wheelhouse.path, extra='exclude = ["gamma", "beta"]')
    assert run("lock").code == 0
    text = repo.read("requirements/test.txt").decode()
    assert "# exclude: gamma, beta\n" in text
    assert "gamma==" not in text


def test_a_toml_lock_output_is_a_config_error(repo: Repo, run: Run, wheelhouse: Wheelhouse) -> None:
    # PEP 751 pylock.toml is written (tests/test_pylock.py); uv.lock and other TOML are not.
    setup_simple(repo, wheelhouse.path)
    text = (repo.root / "pyproject.toml").read_text()
    for output in ("uv.lock", "locks/test.toml"):
        repo.write("pyproject.toml", text.replace("requirements/test.txt", output))
        result = run("lock")
        assert result.code == 2
        assert output in result.err and "output" in result.err
        assert not (repo.root / output).exists()


# ---------------------------------------------------------------------------------------
# item 3: the repository's own [tool.uv] resolver settings


def test_tool_uv_exclude_dependencies_is_applied_and_named(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    setup_simple(repo, wheelhouse.path, requirements="epsilon\n")
    config = (repo.root / "pyproject.toml").read_text()
    repo.write("pyproject.toml", config + '\n[tool.uv]\nexclude-dependencies = ["gamma"]\n')
    result = run("lock")
    assert result.code == 0, result.err
    text = repo.read("requirements/test.txt").decode()
    assert "gamma==" not in text and "beta==" in text
    assert "# [tool.uv] exclude-dependencies: gamma\n" in text
    assert run("lock", "--check").code == 0
    assert run("lock", "--check", "--resolve").code == 0
    # The setting is part of the fingerprint: dropping it makes the lock stale.
    repo.write("pyproject.toml", config + "\n[tool.uv]\n")
    assert "fingerprint mismatch" in run("lock", "--check").out
    # uv-config = false: the lock ignores [tool.uv] as `uv --no-config` would.
    repo.write(
        "pyproject.toml",
        config + 'uv-config = false\n\n[tool.uv]\nexclude-dependencies = ["gamma"]\n',
    )
    assert run("lock").code == 0
    assert "gamma==" in repo.read("requirements/test.txt").decode()


def test_pip_tools_sdist_hashes_are_checked_against_the_index_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from policytool.engine.lock_config import LockConfig
    from policytool.engine.locks import Lock
    from policytool.lock.run import _with_sdist_hashes
    from tests.test_lock_bump import serve_json

    wheel, sdist = "a" * 64, "b" * 64
    lock = Lock(LockConfig("t", ("t.in",), "t.txt", backend="pip-tools", hashes=True), (), (), ())
    resolved = f"alpha==1.0 \\\n    --hash=sha256:{wheel}\n    # via -r t.in\n"
    honest = f"alpha==1.0 \\\n    --hash=sha256:{wheel} \\\n    --hash=sha256:{sdist}\n    # via -r t.in\n"
    forged = honest.replace(sdist, "c" * 64)
    files = [{"digests": {"sha256": wheel}}, {"digests": {"sha256": sdist}}]
    base, stop = serve_json({"/pypi/alpha/json": {"info": {}, "releases": {"1.0": files}}})
    try:
        monkeypatch.setenv("POLICYTOOL_PYPI_URL", base)
        assert _with_sdist_hashes(lock, honest, resolved) == honest
        assert _with_sdist_hashes(lock, forged, resolved) != forged  # a wrong sdist hash
        assert _with_sdist_hashes(lock, resolved, resolved) != resolved  # a removed one
    finally:
        stop()


def test_pip_tools_lock_for_another_python_is_one_clear_error(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    other = "3.13" if sys.version_info[:2] != (3, 13) else "3.12"
    setup_simple(repo, wheelhouse.path, "pip-tools", extra=f'python-version = "{other}"')
    result = run("lock")
    assert result.code == 2
    assert f"python-version {other}" in result.err and "backend = 'uv'" in result.err
    assert "Traceback" not in result.err
    assert not (repo.root / "requirements/test.txt").exists()


def test_a_pip_without_uploaded_prior_to_is_one_sentence(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "pip-compile"
    fake.write_text(
        "#!/bin/sh\necho 'Usage: pip [options]' >&2\n"
        "echo 'ERROR: no such option: --uploaded-prior-to' >&2\nexit 2\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("POLICYTOOL_PIP_COMPILE", str(fake))
    setup_simple(repo, wheelhouse.path, "pip-tools")
    result = run("lock")
    assert result.code == 2
    assert "older than 26.0" in result.err and "exclude-newer = false" in result.err
    assert "Traceback" not in result.err


def test_preferences_property_versions_kept_hashes_gone() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from policytool.lock.backends import preferences

    names = st.sampled_from(["alpha", "beta", "gamma-x", "Delta_Y"])
    versions = st.sampled_from(["1.0", "2.0.post1", "3!1.0"])
    hashes = st.lists(st.text("0123456789abcdef", min_size=64, max_size=64), max_size=3)
    eol = st.sampled_from(["\n", "\r\n"])

    @given(st.lists(st.tuples(names, versions, hashes), max_size=5), eol)
    @settings(max_examples=60, deadline=None)
    def prop(entries: list[tuple[str, str, list[str]]], newline: str) -> None:
        text = ""
        for name, version, digests in entries:
            text += f"{name}=={version}" + "".join(
                f" \\{newline}    --hash=sha256:{d}" for d in digests
            )
            text += f"{newline}    # via -r x.in{newline}"
        out = preferences(text)
        assert "--hash" not in out and "\\" not in out
        kept = lockfile.parse_pins(out)
        assert [(p.name, p.version) for p in kept] == [
            (p.name, p.version) for p in lockfile.parse_pins(text)
        ]
        assert all(not p.hashes for p in kept)

    prop()


def test_pip_tools_sdist_hashes_of_many_pins_are_fetched_concurrently(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`lock --check --resolve` of a hashed pip-tools lock lists every pin's files: at
    most FILE_WORKERS requests in flight, not one pin after the other."""
    import json
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from policytool.engine.lock_config import LockConfig
    from policytool.engine.locks import Lock
    from policytool.lock.run import _with_sdist_hashes
    from policytool.pypi import FILE_WORKERS

    names = [f"pkg{n:02d}" for n in range(24)]
    wheel = {name: f"{n:064x}" for n, name in enumerate(names)}
    sdist = {name: f"{n + 100:064x}" for n, name in enumerate(names)}
    state = {"now": 0, "most": 0, "requests": 0}
    lock_ = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            with lock_:
                state["now"] += 1
                state["requests"] += 1
                state["most"] = max(state["most"], state["now"])
            time.sleep(0.05)
            name = self.path.split("/")[2]
            files = [{"digests": {"sha256": wheel[name]}}, {"digests": {"sha256": sdist[name]}}]
            data = json.dumps({"info": {}, "urls": files}).encode()
            with lock_:
                state["now"] -= 1
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    lock = Lock(LockConfig("t", ("t.in",), "t.txt", backend="pip-tools", hashes=True), (), (), ())
    resolved = "".join(
        f"{name}==1.0 \\\n    --hash=sha256:{wheel[name]}\n    # via -r t.in\n" for name in names
    )
    honest = "".join(
        f"{name}==1.0 \\\n    --hash=sha256:{min(wheel[name], sdist[name])} \\\n"
        f"    --hash=sha256:{max(wheel[name], sdist[name])}\n    # via -r t.in\n"
        for name in names
    )
    try:
        monkeypatch.setenv(
            "POLICYTOOL_PYPI_URL", f"http://127.0.0.1:{server.server_address[1]}/pypi"
        )
        assert _with_sdist_hashes(lock, honest, resolved) == honest
    finally:
        server.shutdown()
        server.server_close()
    assert state["requests"] == len(names)  # one per pin
    assert 1 < state["most"] <= FILE_WORKERS


def test_many_file_hashes_asks_a_failed_release_once_more(monkeypatch: pytest.MonkeyPatch) -> None:
    """One failed answer among many is asked again; two failures are the verdict."""
    from policytool.pypi import many_file_hashes
    from tests.test_lock_bump import serve_json

    files = [{"digests": {"sha256": "A" * 64}}]
    calls: dict[str, int] = {}

    class Flaky(dict[str, object]):
        def get(self, key: str, default: object = None) -> object:
            calls[key] = calls.get(key, 0) + 1
            if key.startswith("/pypi/flaky/") and calls[key] == 1:
                return None  # 404 once (per-version and project documents alike)
            if key.startswith("/pypi/gone/"):
                return None
            return {"info": {}, "urls": files}

    base, stop = serve_json(Flaky())
    try:
        monkeypatch.setenv("POLICYTOOL_PYPI_URL", base)
        found = many_file_hashes([("ok", "1.0"), ("flaky", "1.0"), ("ok", "1.0")])
        assert found == {
            ("ok", "1.0"): {"sha256:" + "a" * 64},
            ("flaky", "1.0"): {"sha256:" + "a" * 64},
        }
        gone = many_file_hashes([("gone", "1.0")])
    finally:
        stop()
    assert calls["/pypi/ok/1.0/json"] == 1  # asked once though listed twice
    assert "could not list the files of gone 1.0" in str(gone[("gone", "1.0")])
    assert calls["/pypi/gone/1.0/json"] == 2
