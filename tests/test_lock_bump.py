# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool bump``: repin, re-lock with one package upgraded, the PR body; on local wheels."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Result
from tests.test_lock import lock_table, pins
from tests.wheelhouse import Wheelhouse, build_wheelhouse

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def no_pypi(monkeypatch: pytest.MonkeyPatch) -> None:
    """PyPI (and GitHub) are a closed local port: the PR body says it could not look."""
    monkeypatch.setenv("POLICYTOOL_PYPI_URL", "http://127.0.0.1:9/pypi")
    monkeypatch.setenv("POLICYTOOL_GITHUB_API_URL", "http://127.0.0.1:9/gh")


def snapshot(repo: Repo) -> dict[str, bytes]:
    """Every file of the work tree (outside .git) by path."""
    return {
        p.relative_to(repo.root).as_posix(): p.read_bytes()
        for p in sorted(repo.root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(repo.root).parts
    }


def layered(repo: Repo, wheels: Path, test_in: str, common_in: str = "alpha<2\n") -> None:
    """``common`` and ``test`` (layered on common), each naming its jobs."""
    repo.write("requirements/common.in", common_in)
    repo.write("requirements/test.in", test_in)
    repo.write(
        "pyproject.toml",
        "[tool.policytool]\n\n"
        + lock_table(
            "common",
            ["requirements/common.in"],
            "requirements/common.txt",
            wheels,
            extra='jobs = ["unit-tests"]\nexclude-newer = false',
        )
        + lock_table(
            "test",
            ["requirements/test.in"],
            "requirements/test.txt",
            wheels,
            extra='constraints = ["common"]\njobs = ["unit-tests", "e2e-nightly"]\n'
            "exclude-newer = false",
        ),
    )


def test_bump_moves_transitive_dependencies_and_fills_the_table(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    # Lock with beta held below 2, then drop that bound: the pins stay (preferences).
    layered(repo, wheelhouse.path, "epsilon==1.0  # held back\nbeta<2\n")
    assert run("lock").code == 0
    repo.write("requirements/test.in", "epsilon==1.0  # held back\n")
    assert run("lock").code == 0
    assert pins(repo.read("requirements/test.txt").decode())["beta"] == "1.1"
    result = run(
        "bump", "epsilon==2.0", "--why", "epsilon 2.0 fixes the leak", "--pr-body", "pr.md"
    )
    assert result.code == 0, result.err
    assert (
        "requirements/test.txt: written, 3 pins: "
        "beta 1.1 -> 2.0, epsilon 1.0 -> 2.0, gamma 1.1 -> 2.0" in result.err
    )
    # Only the version characters of the input changed; the comment stayed.
    assert repo.read("requirements/test.in") == b"epsilon==2.0  # held back\n"
    after = pins(repo.read("requirements/test.txt").decode())
    assert after == {"beta": "2.0", "epsilon": "2.0", "gamma": "2.0"}
    body = repo.read("pr.md").decode()
    assert "# Bump epsilon 1.0 -> 2.0" in body
    assert "| `epsilon` | 1.0 | 2.0 | `test` | direct |" in body
    assert "| `beta` | 1.1 | 2.0 | `test` | transitive |" in body
    assert "| `gamma` | 1.1 | 2.0 | `test` | transitive |" in body
    assert "epsilon 2.0 fixes the leak" in body
    assert "- [ ] `unit-tests` (locks: `test`)" in body
    assert "- [ ] `e2e-nightly` (locks: `test`)" in body
    assert "`policytool bump epsilon==2.0`" in body
    assert "{{" not in body
    # The common lock does not contain epsilon: untouched, and all locks are consistent.
    assert run("lock", "--check").code == 0


def test_bump_without_version_takes_the_newest_offered(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, tmp_path: Path
) -> None:
    wheels = tmp_path / "index"
    shutil.copytree(wheelhouse.path, wheels)
    layered(repo, wheels, "delta\ngamma==1.0\n")
    assert run("lock").code == 0
    build_wheelhouse(wheels, {"gamma": {"2.5": ()}, "alpha": {"3.0": ()}})  # a new release
    result = run("bump", "gamma")
    assert result.code == 0, result.err
    assert repo.read("requirements/test.in") == b"delta\ngamma==2.5\n"
    after = pins(repo.read("requirements/test.txt").decode())
    assert after["gamma"] == "2.5"
    assert after["alpha"] == "1.1"  # only gamma was allowed to move
    # Without --pr-body the body is printed.
    assert "| `gamma` | 1.0 | 2.5 | `test` | direct |" in result.out


def test_bump_in_layered_locks_touches_every_lock_containing_it(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    layered(repo, wheelhouse.path, "delta\n", common_in="alpha==1.0\n")
    assert run("lock").code == 0
    result = run("bump", "alpha==1.1", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    assert repo.read("requirements/common.in") == b"alpha==1.1\n"
    assert pins(repo.read("requirements/common.txt").decode()) == {"alpha": "1.1"}
    assert pins(repo.read("requirements/test.txt").decode())["alpha"] == "1.1"
    body = repo.read("pr.md").decode()
    assert (
        "| `alpha` | 1.0 | 1.1 | `common`, `test` | direct in `common`; transitive in `test` |"
        in body
    )
    assert "- [ ] `unit-tests` (locks: `common`, `test`)" in body
    assert "- [ ] `e2e-nightly` (locks: `test`)" in body
    assert run("lock", "--check").code == 0


def test_bump_conflicting_with_a_constraint_changes_no_file(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    # delta needs alpha<2; common pins alpha exactly. Bumping alpha to 2.0 rewrites the
    # common input and re-locks common fine, then test cannot resolve.
    layered(repo, wheelhouse.path, "delta\n", common_in="alpha==1.0\n")
    assert run("lock").code == 0
    before = snapshot(repo)
    result = run("bump", "alpha==2.0", "--pr-body", "pr.md")
    assert result.code == 2
    assert "could not resolve lock 'test'" in result.err
    assert "delta" in result.err
    assert snapshot(repo) == before  # inputs, both locks, no PR body


def test_bump_without_a_version_takes_the_newest_its_dependents_allow(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    """delta needs alpha<2 in every version: ``bump alpha`` is 1.0 -> 1.1 in both locks
    (not 2.0, which no lock holding delta can resolve), and says what holds 2.0 back."""
    layered(repo, wheelhouse.path, "delta\n", common_in="alpha==1.0\n")
    assert run("lock").code == 0
    result = run("bump", "alpha", "--offline", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    assert repo.read("requirements/common.in") == b"alpha==1.1\n"
    assert pins(repo.read("requirements/test.txt").decode())["alpha"] == "1.1"
    assert (
        "note: alpha 2.0 is out, but the other requirements of lock 'test' hold it at 1.1; "
        "`policytool outdated` names the dependent that caps it"
    ) in result.err
    assert "lock 'common' hold" not in result.err  # common requires nothing else
    assert run("lock", "--check").code == 0


def test_raising_a_bound_stops_at_what_the_dependents_allow(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    """An input bound ``alpha<1.1`` and delta's ``alpha<2``: ``--raise-bound`` raises the
    bound to take 1.1, the newest delta allows, not 2.0 (which cannot resolve)."""
    layered(repo, wheelhouse.path, "delta\nalpha<1.1\n", common_in="alpha==1.0\n")
    assert run("lock").code == 0
    result = run("bump", "alpha", "--raise-bound", "--offline", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    assert pins(repo.read("requirements/test.txt").decode())["alpha"] == "1.1"
    assert "alpha<1.1" not in repo.read("requirements/test.in").decode()
    assert run("lock", "--check").code == 0


def test_bump_to_the_current_version_changes_nothing(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    layered(repo, wheelhouse.path, "delta\ngamma==1.0\n")
    assert run("lock").code == 0
    before = snapshot(repo)
    result = run("bump", "gamma==1.0", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    assert "nothing to bump: gamma is already 1.0" in result.err
    assert snapshot(repo) == before


def test_bump_over_a_bots_hand_edit_regenerates_the_lock(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    # Dependabot moves the pin in the input and in the lock text by hand; `bump` to that
    # version must not say "nothing to bump" and leave a lock whose header disagrees.
    layered(repo, wheelhouse.path, "delta\ngamma==1.0\n")
    assert run("lock").code == 0
    for path in ("requirements/test.in", "requirements/test.txt"):
        text = (repo.root / path).read_text()
        repo.write(path, text.replace("gamma==1.0", "gamma==1.1"))
    assert run("lock", "--check").code == 1
    result = run("bump", "gamma==1.1", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    assert "nothing to bump" not in result.err
    assert pins((repo.root / "requirements/test.txt").read_text())["gamma"] == "1.1"
    assert run("lock", "--check").code == 0


def test_bump_unknown_package_or_version(repo: Repo, run: Run, wheelhouse: Wheelhouse) -> None:
    layered(repo, wheelhouse.path, "delta\n")
    assert run("lock").code == 0
    before = snapshot(repo)
    result = run("bump", "nosuch")
    assert result.code == 2
    assert "nosuch: no lock contains it" in result.err
    result = run("bump", "alpha==7.0")
    assert result.code == 2
    assert (
        "bump alpha==7.0: requirements/common.in:1 requires 'alpha<2', which excludes 7.0; "
        "move that bound first"
    ) in result.err
    result = run("bump", "delta==7.0")  # no bound, but the index has no 7.0
    assert result.code == 2
    assert "could not resolve" in result.err
    result = run("bump", "alpha>=2")
    assert result.code == 2
    assert "write PKG or PKG==VERSION" in result.err
    assert snapshot(repo) == before


def test_bump_keeps_pyproject_comments_and_layout(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    pyproject = (
        "[project]\n"
        'name = "demo"\n'
        'version = "0"\n'
        "dependencies = [\n"
        "    # the runtime\n"
        "    'gamma == 1.0 ; python_version >= \"3.8\"',   # odd spacing, single quotes\n"
        '  "alpha<2",\n'
        "]\n\n"
        "[project.optional-dependencies]\n"
        'dev = [ "gamma[extra]==1.0" ,"delta" ]  # inline\n\n'
        "[tool.policytool]\n\n"
        + lock_table("main", ["pyproject.toml[dev]"], "requirements/main.txt", wheelhouse.path)
    )
    repo.write("pyproject.toml", pyproject)
    assert run("lock").code == 0
    result = run("bump", "gamma==1.1")
    assert result.code == 0, result.err
    expected = pyproject.replace("gamma == 1.0", "gamma == 1.1").replace(
        "gamma[extra]==1.0", "gamma[extra]==1.1"
    )
    assert (repo.root / "pyproject.toml").read_text() == expected
    assert pins(repo.read("requirements/main.txt").decode())["gamma"] == "1.1"
    assert run("lock", "--check").code == 0


def test_bump_uses_the_repository_template(repo: Repo, run: Run, wheelhouse: Wheelhouse) -> None:
    layered(repo, wheelhouse.path, "delta\ngamma==1.0\n")
    assert run("lock").code == 0
    repo.write(
        ".github/PULL_REQUEST_TEMPLATE/dependency-bump.md",
        "Our bump: {{ title }}\n{{ packages }}\nRetest:\n{{ jobs }}\n"
        "${{ github.sha }} {{ custom }}\n",
    )
    result = run("bump", "gamma==1.1")
    assert result.code == 0, result.err
    assert result.out.startswith("Our bump: Bump gamma 1.0 -> 1.1\n| Package |")
    assert "${{ github.sha }} {{ custom }}" in result.out


def test_bump_keeps_crlf_and_bom_of_inputs(repo: Repo, run: Run, wheelhouse: Wheelhouse) -> None:
    layered(repo, wheelhouse.path, "delta\n")
    repo.write(
        "requirements/test.in", b"\xef\xbb\xbfdelta\r\ngamma==1.0 ; python_version >= '3'\r\n"
    )
    assert run("lock").code == 0
    assert run("bump", "gamma==1.1").code == 0
    assert repo.read("requirements/test.in") == (
        b"\xef\xbb\xbfdelta\r\ngamma==1.1 ; python_version >= '3'\r\n"
    )


PYPROJECT_WITH_LOOKALIKES = """\
[project]
name = "app"
version = "1"
# gamma==1.0 in a comment stays
dependencies = [
    "gamma==1.0",  # the one real pin
    'delta',
]

[project.optional-dependencies]
extra = ["Gamma [x] == 1.0 ; python_version >= '3'"]

[dependency-groups]
dev = ["gamma===1.0", {include-group = "more"}]
more = ["gamma>=1.0"]

[tool.uv]
override-dependencies = ["gamma==1.0"]

[tool.other]
pins = ["gamma==1.0", 'gamma==1.0']
text = "gamma==1.0"
"""


def test_move_pins_rewrites_only_the_dependency_lists() -> None:
    from policytool.formats.pyproject import move_pins

    out = move_pins(PYPROJECT_WITH_LOOKALIKES, "gamma", "2.0")
    expected = (
        PYPROJECT_WITH_LOOKALIKES.replace('"gamma==1.0",  # the one', '"gamma==2.0",  # the one')
        .replace("== 1.0 ; python", "== 2.0 ; python")
        .replace('"gamma===1.0"', '"gamma===2.0"')
    )
    assert out == expected
    # Untouched: the comment, [tool.uv] override-dependencies, [tool.other], the >= bound.
    assert "# gamma==1.0 in a comment stays" in out
    assert 'override-dependencies = ["gamma==1.0"]' in out
    assert 'pins = ["gamma==1.0", \'gamma==1.0\']\ntext = "gamma==1.0"' in out
    assert move_pins(out, "gamma", "2.0") == out  # idempotent
    assert move_pins(PYPROJECT_WITH_LOOKALIKES, "nothing", "2.0") == PYPROJECT_WITH_LOOKALIKES


def test_bump_leaves_tool_tables_and_comments_of_pyproject_alone(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    repo.write(
        "pyproject.toml",
        PYPROJECT_WITH_LOOKALIKES.replace("[tool.uv]", "[tool.policytool]\n\n[tool.uv]")
        + "\n"
        # uv-config = false: the [tool.uv] override is a look-alike here, not applied.
        + lock_table(
            "app",
            ["pyproject.toml"],
            "requirements/app.txt",
            wheelhouse.path,
            extra="uv-config = false",
        ),
    )
    assert run("lock").code == 0, run("lock").err
    result = run("bump", "gamma==2.0", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    text = repo.read("pyproject.toml").decode()
    assert '"gamma==2.0",  # the one real pin' in text
    assert "# gamma==1.0 in a comment stays" in text
    assert 'override-dependencies = ["gamma==1.0"]' in text
    assert "pins = [\"gamma==1.0\", 'gamma==1.0']" in text
    assert 'text = "gamma==1.0"' in text
    assert pins(repo.read("requirements/app.txt").decode())["gamma"] == "2.0"
    assert run("lock", "--check").code == 0


# ---------------------------------------------------------------------------- layers, filters


def three_layers(repo: Repo, wheels: Path) -> None:
    """common (alpha==1.0) <- test (delta) <- bench (epsilon<2, no alpha at all)."""
    layered(repo, wheels, "delta\n", common_in="alpha==1.0\n")
    repo.write("requirements/bench.in", "epsilon<2\n")
    config = repo.read("pyproject.toml").decode()
    repo.write(
        "pyproject.toml",
        config
        + lock_table(
            "bench",
            ["requirements/bench.in"],
            "requirements/bench.txt",
            wheels,
            extra='constraints = ["test"]\njobs = ["benchmarks"]',
        ),
    )


def test_bump_regenerates_the_whole_layer_graph_above(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    three_layers(repo, wheelhouse.path)
    assert run("lock").code == 0
    result = run("bump", "alpha==1.1", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    # bench holds no alpha, but it is layered on test, whose pins moved: regenerated.
    assert "requirements/bench.txt" in result.err
    assert run("lock", "--check").code == 0
    body = repo.read("pr.md").decode()
    assert "- `bench`" in body
    assert "- [ ] `benchmarks` (locks: `bench`)" in body


def test_bump_dry_run_changes_nothing_and_says_what_it_would_do(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    three_layers(repo, wheelhouse.path)
    assert run("lock").code == 0
    before = snapshot(repo)
    result = run("bump", "alpha==1.1", "--dry-run")
    assert result.code == 0, result.err
    assert result.out == (
        "would bump alpha to 1.1: edit requirements/common.in; regenerate common, test, "
        "bench (nothing was changed)\n"
    )
    assert snapshot(repo) == before


def test_bump_lock_filter_limits_the_locks_and_checks_names(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    # alpha is pinned by the test lock only through delta; the common lock names it.
    layered(repo, wheelhouse.path, "delta\n", common_in="alpha<2\n")
    assert run("lock").code == 0
    plan = run("bump", "gamma", "--lock", "tset", "--dry-run")
    assert plan.code == 2
    assert "unknown lock 'tset'; did you mean 'test'?" in plan.err
    plan = run("bump", "alpha==1.0", "--lock", "test", "--dry-run")
    assert plan.code == 0, plan.err
    assert "regenerate test (nothing was changed)" in plan.out


def test_bump_reports_pins_in_files_no_lock_reads(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    layered(repo, wheelhouse.path, "delta\n", common_in="alpha==1.0\n")
    repo.write("requirements/rocm.txt", "-r common.in\nalpha==1.0\n")
    repo.git("add", "-A")
    assert run("lock").code == 0
    result = run("bump", "alpha==1.1", "--pr-body", "pr.md", "--offline")
    assert result.code == 0, result.err
    assert (
        "policytool: requirements/rocm.txt pins alpha==1.0 but no lock reads it: left alone"
        in result.err
    )
    assert repo.read("requirements/rocm.txt") == b"-r common.in\nalpha==1.0\n"
    body = repo.read("pr.md").decode()
    assert "- `requirements/rocm.txt` pins 1.0 (read by no lock, not changed)" in body
    assert "Release data: not looked up (offline)." in body


def test_bump_takes_the_newest_version_the_inputs_allow(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    layered(repo, wheelhouse.path, "gamma==1.0\n")
    assert run("lock").code == 0
    repo.write("requirements/test.in", "gamma<2\n")
    assert run("lock").code == 0
    assert pins(repo.read("requirements/test.txt").decode())["gamma"] == "1.0"
    result = run("bump", "gamma", "--offline", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    assert pins(repo.read("requirements/test.txt").decode())["gamma"] == "1.1"
    assert (
        "note: gamma 2.0 is out, but requirements/test.in:1 'gamma<2' holds it at 1.1; "
        "run `policytool bump gamma --raise-bound` to move the bound and take it"
    ) in result.err
    assert run("lock", "--check").code == 0


# ---------------------------------------------------------------------------- failures


def test_pr_body_in_a_missing_directory_is_refused_before_anything_changes(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    layered(repo, wheelhouse.path, "delta\n", common_in="alpha==1.0\n")
    assert run("lock").code == 0
    before = snapshot(repo)
    result = run("bump", "alpha==1.1", "--pr-body", "/nonexistent/dir/pr.md")
    assert result.code == 2
    assert "--pr-body /nonexistent/dir/pr.md: directory /nonexistent/dir does not exist" in (
        result.err
    )
    assert snapshot(repo) == before


def test_bump_write_failure_is_one_sentence_and_changes_nothing(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    import resource
    import signal
    import subprocess
    import sys

    layered(repo, wheelhouse.path, "delta\n", common_in="alpha==1.0\n")
    assert run("lock").code == 0
    before = snapshot(repo)

    def small_files() -> None:
        """``ulimit -f 0``: every write fails with EFBIG (not SIGXFSZ)."""
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))

    proc = subprocess.run(
        [sys.executable, "-m", "policytool", "bump", "alpha==1.1", "--offline"],
        cwd=repo.root,
        capture_output=True,
        text=True,
        preexec_fn=small_files,
        env={**__import__("os").environ, "PYTHONDONTWRITEBYTECODE": "1"},
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "requirements/common.in: cannot write: File too large" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert snapshot(repo) == before


# ---------------------------------------------------------------------------- release facts


def serve_json(documents: dict[str, object]) -> tuple[str, Callable[[], None]]:
    """A JSON API on 127.0.0.1 serving ``documents`` by path; (base URL, stop)."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            document = documents.get(self.path)
            if document is None:
                self.send_error(404)
                return
            data = json.dumps(document).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return f"http://127.0.0.1:{server.server_address[1]}/pypi", stop


def release_doc(version: str, requires: str, vulns: list[dict[str, object]]) -> dict[str, object]:
    """A PyPI JSON API document of one alpha release."""
    return {
        "info": {
            "name": "alpha",
            "version": version,
            "requires_python": requires,
            "home_page": "",
            "project_url": "https://pypi.org/project/alpha/",
            "project_urls": {
                "Homepage": "https://alpha.example/",
                "Changelog": "https://alpha.example/changes",
            },
        },
        "vulnerabilities": vulns,
        "urls": [],
    }


def test_pr_body_carries_dependabot_facts_from_the_json_api(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_vuln: dict[str, object] = {
        "id": "GHSA-aaaa",
        "aliases": ["CVE-2025-1"],
        "fixed_in": ["1.1"],
        "link": None,
    }
    base, stop = serve_json(
        {
            "/pypi/alpha/1.0/json": release_doc("1.0", ">=3.8", [old_vuln]),
            "/pypi/alpha/1.1/json": release_doc("1.1", ">=3.10", []),
        }
    )
    try:
        monkeypatch.setenv("POLICYTOOL_PYPI_URL", base)
        layered(repo, wheelhouse.path, "delta\n", common_in="alpha==1.0\n")
        assert run("lock").code == 0
        result = run("bump", "alpha==1.1", "--pr-body", "pr.md")
    finally:
        stop()
    assert result.code == 0, result.err
    body = repo.read("pr.md").decode()
    assert "Bumps [alpha](https://alpha.example/) from 1.0 to 1.1." in body
    assert "- Changelog / release notes: https://alpha.example/changes" in body
    assert "- `requires-python` changed: `>=3.8` -> `>=3.10`" in body
    assert "- Vulnerabilities fixed: GHSA-aaaa" in body
    assert "- Vulnerabilities in 1.1: none known" in body
    assert "- Packages added: none" in body


def test_pr_body_says_when_pypi_cannot_be_reached(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    layered(repo, wheelhouse.path, "delta\n", common_in="alpha==1.0\n")
    assert run("lock").code == 0
    result = run("bump", "alpha==1.1", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    body = repo.read("pr.md").decode()
    assert "- Release data: could not look up alpha 1.1 on http://127.0.0.1:9/pypi (" in body


def test_move_pins_property_only_dependency_lists_change() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from policytool.formats import toml
    from policytool.formats.pyproject import move_pins

    packages = st.sampled_from(["gamma", "Gamma", "gamma_x", "delta"])
    specs = st.sampled_from(["==1.0", " == 1.0", "===1.0", ">=1.0", "==1.*", ""])
    markers = st.sampled_from(["", " ; python_version >= '3'", ';os_name=="nt"'])
    requirement = st.builds(lambda p, s, m: f"{p}{s}{m}", packages, specs, markers)
    lists = st.lists(requirement, max_size=4)

    def array(items: list[str]) -> str:
        """A TOML array of requirement strings, in either quoting."""
        return "[" + ", ".join(f"'{i}'" if '"' in i else f'"{i}"' for i in items) + "]"

    @settings(max_examples=200, deadline=None)
    @given(lists, lists, lists, lists)
    def only_lists_move(
        deps: list[str], extra: list[str], group: list[str], tool: list[str]
    ) -> None:
        text = (
            f'[project]\nname = "app"\nversion = "1"\n# {array(tool)}\ndependencies = {array(deps)}\n\n'
            f"[project.optional-dependencies]\nx = {array(extra)}\n\n"
            f"[dependency-groups]\ng = {array(group)}\n\n"
            f"[tool.uv]\noverride-dependencies = {array(tool)}\n"
        )
        out = move_pins(text, "gamma", "2.0")
        before, after = toml.loads(text, "a"), toml.loads(out, "b")
        assert after["tool"] == before["tool"]
        assert out.splitlines()[3] == text.splitlines()[3]  # the comment line
        project_b, project_a = before["project"], after["project"]
        assert isinstance(project_b, dict) and isinstance(project_a, dict)
        for old_list, new_list in (
            (project_b["dependencies"], project_a["dependencies"]),
            (project_b["optional-dependencies"]["x"], project_a["optional-dependencies"]["x"]),
            (before["dependency-groups"]["g"], after["dependency-groups"]["g"]),  # type: ignore[index]
        ):
            assert len(old_list) == len(new_list)
            for old, new in zip(old_list, new_list, strict=True):
                exact = old.split(";")[0].replace(" ", "")
                name = exact.split("=")[0]
                moves = name.lower() == "gamma" and exact.count("=") in (2, 3) and "*" not in exact
                assert new == (old.replace("1.0", "2.0") if moves else old)
        assert move_pins(out, "gamma", "2.0") == out

    only_lists_move()


def test_dry_run_to_the_pinned_version_says_so(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    layered(repo, wheelhouse.path, "delta\ngamma==1.0\n")
    assert run("lock").code == 0
    before = snapshot(repo)
    result = run("bump", "gamma==1.0", "--dry-run")
    assert result.code == 0, result.err
    assert "nothing to bump: gamma is already 1.0" in result.err
    assert "would bump" not in result.out
    assert snapshot(repo) == before


def test_pr_body_kind_is_per_lock_and_left_alone_is_right(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    layered(repo, wheelhouse.path, "delta\n")
    assert run("lock").code == 0
    result = run("bump", "alpha==1.0", "--pr-body", "pr.md", "--offline")
    assert result.code == 0, result.err
    body = repo.read("pr.md").decode()
    assert (
        "| `alpha` | 1.1 | 1.0 | `common`, `test` | direct in `common`; transitive in `test` |"
        in body
    ), body
    assert "every pin of the package is in a lock's inputs" not in body
    assert "_None: no requirement file outside the locks' inputs pins the package._" in body


def test_pr_body_falls_back_to_the_project_json(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = release_doc("1.1", ">=3.8", [])
    project["releases"] = {"1.0": [], "1.1": [{"requires_python": ">=3.10"}]}
    base, stop = serve_json({"/pypi/alpha/json": project})  # no per-version documents
    try:
        monkeypatch.setenv("POLICYTOOL_PYPI_URL", base)
        layered(repo, wheelhouse.path, "delta\n", common_in="alpha==1.0\n")
        assert run("lock").code == 0
        result = run("bump", "alpha==1.1", "--pr-body", "pr.md")
    finally:
        stop()
    assert result.code == 0, result.err
    body = repo.read("pr.md").decode()
    assert "Bumps [alpha](https://alpha.example/) from 1.0 to 1.1." in body
    assert "- Changelog / release notes: https://alpha.example/changes" in body
    assert "from the project's page" in body
    assert "`>=3.10`" in body
