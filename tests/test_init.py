# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool init`` and the dependency-bump template it writes."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest
import tomlkit

from policytool.config import Config
from policytool.lock.pr_body import (
    BUMP_TEMPLATE,
    BUMP_TEMPLATE_PATH,
    PLACEHOLDERS,
    BumpBody,
    PackageMove,
    render_bump_body,
    unknown_placeholders,
)
from policytool.scaffold.init import SCAFFOLDS
from policytool.scaffold.templates import placeholders, render, template_text
from tests.conftest import Repo, Result

Run = Callable[..., Result]


def test_init_writes_the_bump_template(repo: Repo, run: Run) -> None:
    result = run("init")
    assert result.code == 0, result.err
    assert f"{BUMP_TEMPLATE_PATH}: created" in result.out.splitlines()
    text = repo.read(BUMP_TEMPLATE_PATH).decode()
    assert text == BUMP_TEMPLATE
    for name in PLACEHOLDERS:
        assert f"{{{{ {name} }}}}" in text
    for heading in ("## Packages", "## Why", "## Jobs to re-validate", "## Upgrade procedure"):
        assert heading in text
    assert "rebuilt" in text and "Targeted retest" in text


def test_init_never_overwrites(repo: Repo, run: Run) -> None:
    repo.write(BUMP_TEMPLATE_PATH, "our own template\r\n", mode=0o600)
    result = run("init")
    assert result.code == 0
    assert f"{BUMP_TEMPLATE_PATH}: exists, left alone" in result.out.splitlines()
    assert repo.read(BUMP_TEMPLATE_PATH) == b"our own template\r\n"
    assert (repo.root / BUMP_TEMPLATE_PATH).stat().st_mode & 0o777 == 0o600


def test_init_twice_is_a_no_op(repo: Repo, run: Run) -> None:
    assert run("init").code == 0
    first = repo.read(BUMP_TEMPLATE_PATH)
    second = run("init")
    assert second.code == 0
    assert "created" not in second.out
    assert repo.read(BUMP_TEMPLATE_PATH) == first


def test_init_leaves_a_dangling_symlink_alone(repo: Repo, run: Run) -> None:
    target = repo.root / BUMP_TEMPLATE_PATH
    target.parent.mkdir(parents=True)
    os.symlink("nowhere.md", target)
    result = run("init")
    assert "exists, left alone" in result.out
    assert os.readlink(target) == "nowhere.md"
    assert not (target.parent / "nowhere.md").exists()


def test_init_writes_at_the_config_root_from_a_subdirectory(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", '[project]\nname = "demo"\n')
    sub = repo.root / "src" / "pkg"
    sub.mkdir(parents=True)
    os.chdir(sub)
    assert run("init").code == 0
    assert (repo.root / BUMP_TEMPLATE_PATH).is_file()
    assert not (sub / ".github").exists()


def test_init_reports_an_unwritable_place_in_one_line(repo: Repo, run: Run) -> None:
    repo.write(".github", "a file where a directory should be\n")
    result = run("init")
    assert result.code == 2
    assert result.err.startswith("policytool: error: ")
    assert "cannot create" in result.err and result.err.count("\n") == 1
    assert repo.read(".github") == b"a file where a directory should be\n"


def test_scaffold_registry_lists_the_template() -> None:
    assert BUMP_TEMPLATE_PATH in SCAFFOLDS
    assert SCAFFOLDS[BUMP_TEMPLATE_PATH].summary


def _body(**overrides: object) -> BumpBody:
    moves = [
        PackageMove("urllib3", "2.2.0", "2.2.3", ("test",), False),
        PackageMove("requests", "2.31.0", "2.32.3", ("test", "docs"), True),
        PackageMove("charset-normalizer", None, "3.4.0", ("test",), False),
    ]
    values: dict[str, object] = {
        "moves": moves,
        "why": "CVE-2024-35195 in requests < 2.32",
        "command": "policytool bump requests==2.32.3",
        "jobs": {"test": ["unit-tests", "e2e-nightly"], "docs": ["docs-build", "unit-tests"]},
    }
    values.update(overrides)
    return BumpBody(**values)  # type: ignore[arg-type]


def test_render_bump_body_fills_every_placeholder() -> None:
    out = render_bump_body(BUMP_TEMPLATE, _body())
    assert "{{" not in out
    assert out.startswith("<!--")
    assert "# Bump requests 2.31.0 -> 2.32.3\n" in out
    table = [line for line in out.splitlines() if line.startswith("| ")]
    assert table == [
        "| Package | From | To | Locks | Kind |",
        "| --- | --- | --- | --- | --- |",
        "| `requests` | 2.31.0 | 2.32.3 | `test`, `docs` | direct |",
        "| `charset-normalizer` | (none) | 3.4.0 | `test` | transitive |",
        "| `urllib3` | 2.2.0 | 2.2.3 | `test` | transitive |",
    ]
    assert "CVE-2024-35195 in requests < 2.32" in out
    assert "- `test`\n- `docs`" in out
    checklist = [line for line in out.splitlines() if line.startswith("- [ ] `")]
    assert checklist == [
        "- [ ] `unit-tests` (locks: `test`, `docs`)",
        "- [ ] `e2e-nightly` (locks: `test`)",
        "- [ ] `docs-build` (locks: `docs`)",
    ]
    assert "`policytool bump requests==2.32.3`" in out


def test_render_bump_body_is_single_pass_and_leaves_the_unknown() -> None:
    template = "{{why}} | {{ nope }} | ${{ github.ref }} | ${{ jobs }} | {{  command  }}"
    out = render_bump_body(template, _body(why="see {{ jobs }}"))
    assert out == (
        "see {{ jobs }} | {{ nope }} | ${{ github.ref }} | ${{ jobs }} | "
        "policytool bump requests==2.32.3"
    )
    assert unknown_placeholders(template) == ["nope"]
    assert unknown_placeholders(BUMP_TEMPLATE) == []


def test_render_bump_body_without_jobs_or_reason() -> None:
    out = render_bump_body(BUMP_TEMPLATE, _body(jobs={}, why="  ", moves=[]))
    assert "No jobs are named for the touched locks" in out
    assert "No reason given" in out
    assert "_No package moved._" in out
    assert "# Dependency bump\n" in out


def test_every_template_is_package_data_and_fully_rendered(repo: Repo) -> None:
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    data = tomlkit.parse(pyproject.read_text()).unwrap()
    globs = data["tool"]["setuptools"]["package-data"]["policytool.scaffold.templates"]
    names = [
        entry.name
        for entry in resources.files("policytool.scaffold.templates").iterdir()
        if entry.is_file() and not entry.name.endswith((".py", ".pyc"))
    ]
    assert len(names) >= 4
    for name in names:
        assert any(fnmatch.fnmatch(name, glob) for glob in globs), name
        template_text(name)  # readable as UTF-8
    config = Config(root=repo.root)
    for scaffold in SCAFFOLDS.values():
        text = scaffold.render(config)
        assert not placeholders(text), (scaffold.path, placeholders(text))


def test_template_render_refuses_a_missing_or_an_unused_value() -> None:
    with pytest.raises(KeyError):
        render("codeql.yml", {})
    with pytest.raises(ValueError, match="no placeholder"):
        render("codeql.yml", {"branch": "main", "typo": "x"})
    assert "branches: [dev]" in render("codeql.yml", {"branch": "dev"})
