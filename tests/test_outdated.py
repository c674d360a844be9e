# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool outdated``: locks resolved from local wheels, PyPI served on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.conftest import Repo, Result
from tests.test_lock import setup_simple
from tests.test_lock_bump import serve_json
from tests.wheelhouse import INDEX, Wheelhouse

Run = Callable[..., Result]


def documents(vulnerable: dict[str, str], per_version: bool = True) -> dict[str, object]:
    """The JSON API of INDEX: project and (optionally) per-version documents."""
    docs: dict[str, object] = {}
    for name, releases in INDEX.items():
        docs[f"/pypi/{name}/json"] = {
            "info": {},
            "releases": {v: [{"yanked": False}] for v in releases},
        }
        if not per_version:
            continue
        for version, requires in releases.items():
            vulns = []
            if vulnerable.get(name) == version:
                vulns = [{"id": "GHSA-test-0001", "aliases": [], "fixed_in": ["2.0"]}]
            docs[f"/pypi/{name}/{version}/json"] = {
                "info": {"requires_dist": list(requires) + ['zeta; extra == "x"']},
                "vulnerabilities": vulns,
            }
    return docs


@pytest.mark.parametrize("output", ["requirements/test.txt", "requirements/pylock.test.toml"])
def test_outdated_names_what_holds_each_pin_back(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, monkeypatch: pytest.MonkeyPatch, output: str
) -> None:
    # delta 2.0 needs alpha<2; the input holds beta<2, and beta 1.1 needs gamma<2.
    setup_simple(repo, wheelhouse.path, requirements="delta\nbeta<2\n")
    if output != "requirements/test.txt":
        text = (repo.root / "pyproject.toml").read_text()
        repo.write("pyproject.toml", text.replace("requirements/test.txt", output))
    assert run("lock").code == 0
    base, stop = serve_json(documents({"alpha": "1.1"}))
    try:
        monkeypatch.setenv("POLICYTOOL_PYPI_URL", base)
        result = run("outdated")
        as_json = run("outdated", "--format", "json")
    finally:
        stop()
    assert result.code == 1, result.err
    lines = {line.split(": ", 1)[1] for line in result.out.splitlines() if ": " in line}
    assert (
        "alpha 1.1 -> 2.0 (held by delta 2.0 (requires 'alpha<2')) [vulnerable: GHSA-test-0001 (fixed in 2.0)]"
        in lines
    )
    assert "beta 1.1 -> 2.0 (held by requirements/test.in:2 'beta<2')" in lines
    assert "gamma 1.1 -> 2.0 (held by beta 1.1 (requires 'gamma<2'))" in lines
    assert not any(line.startswith("delta ") for line in lines)  # newest already
    assert "3 pins behind, 1 with known vulnerabilities" in result.out
    entries = json.loads(as_json.out)
    assert {e["package"] for e in entries} == {"alpha", "beta", "gamma"}


def test_outdated_without_per_version_documents_says_what_it_does_not_know(
    repo: Repo, run: Run, wheelhouse: Wheelhouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup_simple(repo, wheelhouse.path, requirements="delta\n")
    assert run("lock").code == 0
    base, stop = serve_json(documents({}, per_version=False))
    try:
        monkeypatch.setenv("POLICYTOOL_PYPI_URL", base)
        result = run("outdated")
    finally:
        stop()
    assert result.code == 1
    assert (
        "alpha 1.1 -> 2.0 (held by no input or constraint; the requirements of delta "
        "could not be read) (vulnerabilities unknown: no per-version document)"
    ) in result.out
    assert "nothing holds it back" not in result.out


def test_outdated_without_locks_is_one_sentence(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[tool.policytool]\n")
    result = run("outdated")
    assert result.code == 2 and "no [[tool.policytool.lock]] is configured" in result.err
