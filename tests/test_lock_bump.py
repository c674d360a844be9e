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
    """PyPI is a closed local port: the PR body says it could not look (no network)."""
    monkeypatch.setenv("POLICYTOOL_PYPI_URL", "http://127.0.0.1:9/pypi")


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
            extra='jobs = ["unit-tests"]',
        )
        + lock_table(
            "test",
            ["requirements/test.in"],
            "requirements/test.txt",
            wheels,
            extra='constraints = ["common"]\njobs = ["unit-tests", "e2e-nightly"]',
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
    assert "| `alpha` | 1.0 | 1.1 | `common`, `test` | direct |" in body
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
        + lock_table("app", ["pyproject.toml"], "requirements/app.txt", wheelhouse.path),
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
