# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool bump --group/--patch/--raise-bound`` and the PR body's compare link, release
notes and compatibility line; on local wheels and a local JSON server (no network)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Result
from tests.test_lock import pins
from tests.test_lock_bump import layered, release_doc, serve_json, snapshot
from tests.wheelhouse import Wheelhouse, build_wheelhouse

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """PyPI and GitHub are a closed local port."""
    monkeypatch.setenv("POLICYTOOL_PYPI_URL", "http://127.0.0.1:9/pypi")
    monkeypatch.setenv("POLICYTOOL_GITHUB_API_URL", "http://127.0.0.1:9/gh")


def grouped(repo: Repo, wheels: Path, common_in: str, test_in: str, groups: str) -> None:
    """The ``layered`` locks (common, test on common) plus bump groups."""
    layered(repo, wheels, test_in, common_in=common_in)
    repo.write("pyproject.toml", repo.read("pyproject.toml").decode() + groups)


GROUP_AG = '[[tool.policytool.bump-group]]\nname = "ag"\npatterns = ["alpha", "gam*"]\n'


# ---------------------------------------------------------------------------- groups


def test_group_bump_moves_every_member_in_one_change(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    grouped(repo, wheelhouse.path, "alpha==1.0\n", "gamma==1.0\ndelta\n", GROUP_AG)
    assert run("lock").code == 0
    result = run("bump", "--group", "ag", "--offline", "--pr-body", "pr.md", "--why", "monthly")
    assert result.code == 0, result.err
    # delta needs alpha<2: the newest alpha every lock holding it allows is 1.1.
    assert repo.read("requirements/common.in") == b"alpha==1.1\n"
    assert repo.read("requirements/test.in") == b"gamma==2.0\ndelta\n"
    assert pins(repo.read("requirements/common.txt").decode())["alpha"] == "1.1"
    test = pins(repo.read("requirements/test.txt").decode())
    assert (test["alpha"], test["gamma"]) == ("1.1", "2.0")
    body = repo.read("pr.md").decode()
    assert "# Bump group 'ag': 2 packages" in body
    assert "| `alpha` | 1.0 | 1.1 | `common`, `test` |" in body
    assert "| `gamma` | 1.0 | 2.0 | `test` | direct |" in body
    assert "Bumps `alpha` from 1.0 to 1.1." in body
    assert "Bumps `gamma` from 1.0 to 2.0." in body
    assert "`policytool bump alpha==1.1 gamma==2.0`" in body
    assert body.count("## Locks regenerated") == 1
    assert body.count("- Packages added: none") == 1
    assert run("lock", "--check").code == 0


def test_group_bump_says_which_bound_holds_a_member_back(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    grouped(repo, wheelhouse.path, "alpha==1.0\n", "gamma<2\ndelta\n", GROUP_AG)
    assert run("lock").code == 0
    result = run("bump", "--group", "ag", "--offline", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    assert (
        "note: gamma 2.0 is out, but requirements/test.in:1 'gamma<2' holds it at 1.1; "
        "run `policytool bump gamma --raise-bound` to move the bound and take it"
    ) in result.err
    assert "# Bump group 'ag': 1 package" in repo.read("pr.md").decode()


def test_group_bump_reports_pins_no_lock_reads_with_their_package(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    grouped(repo, wheelhouse.path, "alpha==1.0\n", "gamma==1.0\n", GROUP_AG)
    repo.write("requirements/rocm.txt", "gamma==1.0\n")
    repo.git("add", "-A")
    assert run("lock").code == 0
    result = run("bump", "--group", "ag", "--offline", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    assert (
        "policytool: requirements/rocm.txt pins gamma==1.0 but no lock reads it: left alone"
    ) in result.err
    assert "- `requirements/rocm.txt` pins gamma==1.0 (read by no lock, not changed)" in (
        repo.read("pr.md").decode()
    )


def test_group_bump_failure_of_one_member_changes_no_file(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    # The constraint beta<2 needs gamma<2: gamma 2.0 cannot resolve, alpha 2.0 could.
    grouped(
        repo,
        wheelhouse.path,
        "alpha==1.0\n",
        "gamma==1.0\nepsilon==1.0\n-c cons.txt\n",
        GROUP_AG,
    )
    repo.write("requirements/cons.txt", "beta<2\n")
    assert run("lock").code == 0
    before = snapshot(repo)
    result = run("bump", "--group", "ag", "--offline", "--pr-body", "pr.md")
    assert result.code == 2
    assert "could not resolve" in result.err
    assert "Traceback" not in result.err
    assert snapshot(repo) == before


def test_patch_bump_takes_only_patch_level_releases(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, tmp_path: Path
) -> None:
    wheels = tmp_path / "index"
    shutil.copytree(wheelhouse.path, wheels)
    grouped(repo, wheels, "alpha==1.0\n", "gamma==1.0\ndelta==1.1\n", "")
    assert run("lock").code == 0
    build_wheelhouse(wheels, {"alpha": {"1.0.3": ()}, "gamma": {"1.0.2": ()}})
    result = run("bump", "--patch", "--offline", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    assert repo.read("requirements/common.in") == b"alpha==1.0.3\n"
    assert repo.read("requirements/test.in") == b"gamma==1.0.2\ndelta==1.1\n"
    body = repo.read("pr.md").decode()
    assert "# Bump every patch-level update: 2 packages" in body
    assert "| `alpha` | 1.0 | 1.0.3 |" in body
    assert "| `gamma` | 1.0 | 1.0.2 |" in body
    assert "`delta`" not in body  # 1.1 has no newer 1.1.x
    assert run("lock", "--check").code == 0
    again = run("bump", "--patch", "--offline")
    assert again.code == 0, again.err
    assert "nothing to bump: every patch-level update has no newer release" in again.err


def test_group_update_patch_and_exclude_patterns(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, tmp_path: Path
) -> None:
    wheels = tmp_path / "index"
    shutil.copytree(wheelhouse.path, wheels)
    groups = (
        '[[tool.policytool.bump-group]]\nname = "all"\npatterns = ["*"]\n'
        'exclude-patterns = ["ALPHA"]\nupdate = "patch"\n'
    )
    grouped(repo, wheels, "alpha==1.0\n", "gamma==1.0\n", groups)
    assert run("lock").code == 0
    build_wheelhouse(wheels, {"alpha": {"1.0.3": ()}, "gamma": {"1.0.2": ()}})
    result = run("bump", "--group", "all", "--dry-run")
    assert result.code == 0, result.err
    assert "would bump gamma to 1.0.2: edit requirements/test.in" in result.out


def test_group_errors_are_one_sentence(repo: Repo, run: Run, wheelhouse: Wheelhouse) -> None:
    grouped(repo, wheelhouse.path, "alpha==1.0\n", "gamma==1.0\n", GROUP_AG)
    assert run("lock").code == 0
    before = snapshot(repo)
    result = run("bump", "--group", "agg")
    assert result.code == 2
    assert "--group agg: no such bump group (groups: ag); did you mean 'ag'?" in result.err
    result = run("bump", "gamma", "--group", "ag")
    assert result.code == 2
    assert "bump: name one package (PKG[==VER]), or --group NAME, or --patch" in result.err
    result = run("bump")
    assert result.code == 2 and "(got none)" in result.err
    result = run("bump", "--patch", "--raise-bound")
    assert result.code == 2 and "--raise-bound applies to one package" in result.err
    assert snapshot(repo) == before
    repo.write(
        "pyproject.toml",
        repo.read("pyproject.toml").decode()
        + '[[tool.policytool.bump-group]]\nname = "x"\npattern = ["a"]\n',
    )
    result = run("bump", "--group", "x")
    assert result.code == 2
    assert "pattern" in result.err and "did you mean 'patterns'" in result.err
    assert "Traceback" not in result.err


def test_group_without_configured_groups(repo: Repo, run: Run, wheelhouse: Wheelhouse) -> None:
    layered(repo, wheelhouse.path, "gamma==1.0\n")
    assert run("lock").code == 0
    result = run("bump", "--group", "ag")
    assert result.code == 2
    assert "declares no [[tool.policytool.bump-group]]" in result.err


# ---------------------------------------------------------------------------- --raise-bound


def test_raise_bound_moves_the_input_bound_and_takes_the_newest(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    layered(repo, wheelhouse.path, "gamma>=1.0,<2  # keep this comment\ndelta\n")
    assert run("lock").code == 0
    assert pins(repo.read("requirements/test.txt").decode())["gamma"] == "1.1"
    before = snapshot(repo)
    refused = run("bump", "gamma==2.0", "--offline")
    assert refused.code == 2
    assert (
        "bump gamma==2.0: requirements/test.in:1 requires 'gamma>=1.0,<2', which excludes "
        "2.0; move that bound first, or pass --raise-bound"
    ) in refused.err
    assert snapshot(repo) == before
    result = run("bump", "gamma", "--raise-bound", "--offline", "--pr-body", "pr.md")
    assert result.code == 0, result.err
    assert "requirements/test.in:1: 'gamma>=1.0,<2' raised to 'gamma>=2.0,<3'" in result.err
    assert repo.read("requirements/test.in") == b"gamma>=2.0,<3  # keep this comment\ndelta\n"
    assert pins(repo.read("requirements/test.txt").decode())["gamma"] == "2.0"
    assert "| `gamma` | 1.1 | 2.0 | `test` | direct |" in repo.read("pr.md").decode()
    assert run("lock", "--check").code == 0


def test_raise_bound_that_cannot_move_is_refused(
    repo: Repo, run: Run, wheelhouse: Wheelhouse
) -> None:
    layered(repo, wheelhouse.path, "gamma!=2.0\n")
    assert run("lock").code == 0
    before = snapshot(repo)
    result = run("bump", "gamma==2.0", "--raise-bound", "--offline")
    assert result.code == 2
    assert "is not a bound --raise-bound can move; edit it by hand" in result.err
    assert snapshot(repo) == before


def test_raise_bound_examples() -> None:
    from policytool.formats.requirement import raise_bound

    assert raise_bound("pkg>=1.2,<2", "pkg", "2.1") == "pkg>=2.1,<3"
    assert raise_bound("sqlglot>=28.10.0, <29", "sqlglot", "30.8.0") == "sqlglot>=30.8.0, <31"
    assert raise_bound("pkg<2.5", "pkg", "2.7.1") == "pkg<2.8"
    assert raise_bound("pkg ~= 1.2 ; python_version >= '3.9'", "pkg", "2.1") == (
        "pkg ~= 2.1 ; python_version >= '3.9'"
    )
    assert raise_bound("pkg==1.*", "pkg", "2.1") == "pkg==2.*"
    assert raise_bound("pkg<=1.9", "pkg", "2.1") == "pkg<=2.1"
    assert raise_bound("pkg>=1.2", "pkg", "2.1") is None  # allows it already
    assert raise_bound("pkg!=2.1", "pkg", "2.1") is None
    assert raise_bound("pkg==1.0", "pkg", "2.1") is None  # an exact pin: bump repins it
    assert raise_bound("other<2", "pkg", "2.1") is None


def test_raise_bound_property_only_the_specifier_changes() -> None:
    from hypothesis import assume, given, settings
    from hypothesis import strategies as st
    from packaging.specifiers import SpecifierSet

    from policytool.formats.requirement import canonical_name, parse, raise_bound

    space = st.sampled_from(["", " ", "  "])

    @settings(max_examples=200, deadline=None)
    @given(
        name=st.sampled_from(["pkg", "Pkg_Name", "pkg.x"]),
        extras=st.sampled_from(["", "[a]", "[a,b]"]),
        low=st.tuples(st.integers(0, 30), st.integers(0, 9)),
        width=st.integers(1, 5),
        step=st.tuples(st.integers(0, 5), st.integers(0, 9), st.integers(0, 9)),
        upper_op=st.sampled_from(["<", "<="]),
        gaps=st.tuples(space, space, space, space),
        marker=st.sampled_from(["", "; python_version >= '3.9'", " ;sys_platform=='linux'"]),
    )
    def only_the_specifier(
        name: str,
        extras: str,
        low: tuple[int, int],
        width: int,
        step: tuple[int, int, int],
        upper_op: str,
        gaps: tuple[str, str, str, str],
        marker: str,
    ) -> None:
        upper = low[0] + width
        target = f"{upper + step[0]}.{step[1]}.{step[2]}"
        head = f"{name}{extras}{gaps[0]}"
        spec = f">={gaps[1]}{low[0]}.{low[1]},{gaps[2]}{upper_op}{gaps[3]}{upper}"
        text = f"{head}{spec}{marker}"
        assume(not SpecifierSet(spec.replace(" ", "")).contains(target))
        key = canonical_name(name)
        new = raise_bound(text, key, target)
        assert new is not None, text
        assert new.startswith(head) and new.endswith(marker)
        old_req, new_req = parse(text), parse(new)
        assert old_req is not None and new_req is not None
        assert (new_req.name, new_req.extras, str(new_req.marker)) == (
            old_req.name,
            old_req.extras,
            str(old_req.marker),
        )
        assert new_req.specifier.contains(target)
        # The spacing of the specifier is kept too: only operators' versions changed.
        strip = "".join(c for c in spec if not c.isdigit() and c != ".")
        new_spec = new[len(head) : len(new) - len(marker)]
        assert "".join(c for c in new_spec if not c.isdigit() and c != ".") == strip
        assert raise_bound(new, key, target) is None

    only_the_specifier()


# ---------------------------------------------------------------------------- PR body


def gh_release(tag: str, body: str) -> dict[str, object]:
    """A GitHub REST API release document."""
    return {"tag_name": tag, "name": tag, "body": body, "html_url": f"https://x/{tag}"}


def test_pr_body_has_compare_link_release_notes_and_compatibility(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    new_doc = release_doc("1.1", ">=3.99", [])
    info = new_doc["info"]
    assert isinstance(info, dict)
    info["project_urls"] = {
        "Homepage": "https://alpha.example/",
        "Source": "https://github.com/acme/alpha",
    }
    notes = "## What's new\n\n* Faster by @someone in #12\n<!-- hidden --></details>\n"
    base, stop = serve_json(
        {
            "/pypi/alpha/1.0/json": release_doc("1.0", ">=3.8", []),
            "/pypi/alpha/1.1/json": new_doc,
            "/gh/repos/acme/alpha/releases/tags/v1.1": gh_release("v1.1", notes),
            "/gh/repos/acme/alpha/releases/tags/v1.0": gh_release("v1.0", "old"),
        }
    )
    try:
        monkeypatch.setenv("POLICYTOOL_PYPI_URL", base)
        monkeypatch.setenv("POLICYTOOL_GITHUB_API_URL", base.removesuffix("/pypi") + "/gh")
        layered(repo, wheelhouse.path, "delta\n", common_in="alpha==1.0\n")
        assert run("lock").code == 0
        result = run("bump", "alpha==1.1", "--pr-body", "pr.md")
    finally:
        stop()
    assert result.code == 0, result.err
    body = repo.read("pr.md").decode()
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert (
        f"- Compatibility: 1.1 requires Python `>=3.99`; `common` resolves for Python "
        f"{python}: **not satisfied**"
    ) in body
    assert "- Compare: https://github.com/acme/alpha/compare/v1.0...v1.1" in body
    assert "- Releases: https://github.com/acme/alpha/releases" in body
    assert "<summary>Release notes</summary>" in body
    assert "> * Faster by @\u200bsomeone in #12" in body
    assert "> &lt;!-- hidden -->&lt;/details>" in body  # no HTML closes the quote


def test_release_notes_tag_names_guessed_and_unreachable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from policytool.lock.pr_body import notes_lines
    from policytool.pypi import Release, release_notes

    after = Release("alpha", "1.1", None, None, None, (), github="acme/alpha")
    base, stop = serve_json({"/pypi/repos/acme/alpha/releases/tags/1.1": gh_release("1.1", "")})
    try:
        monkeypatch.setenv("POLICYTOOL_GITHUB_API_URL", base)
        found = release_notes(after, "1.0")
    finally:
        stop()
    assert found is not None
    lines = notes_lines(found)
    # 1.1 is tagged "1.1"; 1.0 has no release: its tag name is guessed.
    assert (
        lines[0]
        == "- Compare (tag names guessed): https://github.com/acme/alpha/compare/v1.0...1.1"
    )
    assert lines[2] == "- Release notes: not fetched (the GitHub release 1.1 has no notes)"
    unreachable = release_notes(after, "1.0")  # the closed port of the fixture
    assert unreachable is not None
    assert unreachable.compare_url.endswith("/compare/v1.0...v1.1")
    assert not unreachable.tags_checked
    assert unreachable.excerpt is None
    assert (unreachable.why or "").startswith("GitHub's API did not answer: ")
    assert release_notes(Release("alpha", "1.1", None, None, None, ()), "1.0") is None


def test_github_repository_from_project_urls() -> None:
    from policytool.pypi import _github_repo

    assert (
        _github_repo([("Homepage", "https://x.dev"), ("Source", "https://github.com/a/b")]) == "a/b"
    )
    assert _github_repo([("Code", "https://github.com/a/b.git")]) == "a/b"
    assert _github_repo([("Changelog", "https://github.com/a/b/blob/main/CHANGES.md")]) == "a/b"
    assert _github_repo([("Funding", "https://github.com/sponsors/a")]) is None
    assert _github_repo([("Homepage", "https://gitlab.com/a/b")]) is None
