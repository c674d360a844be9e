# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The README and docs/ stay true: links resolve, every config key is documented, no
internal references ship, and CI runs the README's test command."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

import pytest

from policytool.config import _INTERNAL_FIELDS, Config, load_sections

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"])
PAGES += sorted(DOCS.glob("*.md"))

# [text](target) outside code spans; images and absolute URLs are not checked.
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"`[^`\n]*`")


def _prose(text: str) -> str:
    """``text`` without fenced blocks and code spans (links there are examples)."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def _slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    """The anchors of every heading of ``path``."""
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.MULTILINE)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    """Every relative link of a doc page names an existing file and heading."""
    broken = []
    for target in _LINK.findall(_prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target}: no heading with that anchor")
    assert not broken, "\n".join(broken)


def test_every_page_is_in_the_index() -> None:
    """docs/README.md links every page of docs/, so none is orphaned."""
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    linked = {target.partition("#")[0] for target in _LINK.findall(_prose(index))}
    pages = {p.name for p in DOCS.glob("*.md") if p.name != "README.md"}
    assert not pages - linked, f"not in docs/README.md: {sorted(pages - linked)}"


def _sections() -> list[tuple[str, type]]:
    """(TOML table, dataclass) for every section of ``[tool.policytool]``."""
    out: list[tuple[str, type]] = [("", Config)]
    out += [(table, section.cls) for table, section in load_sections().items()]
    return out


def test_every_config_key_is_in_the_reference() -> None:
    """docs/config.md has a row for every key of every ``[tool.policytool]`` section."""
    text = (DOCS / "config.md").read_text(encoding="utf-8")
    blocks = re.split(r"^## ", text, flags=re.MULTILINE)
    missing = []
    for table, cls in _sections():
        heading = "Top level" if not table else f"tool.policytool.{table}]"
        block = next((b for b in blocks if heading in b.splitlines()[0]), None)
        if block is None:
            missing.append(f"[tool.policytool.{table}]: no section")
            continue
        for f in dataclasses.fields(cls):
            if f.name in _INTERNAL_FIELDS:
                continue  # where the config came from and the run's memo: not keys
            key = f.name.replace("_", "-")
            sub = typing.get_type_hints(cls)[f.name]
            sub_args = typing.get_args(sub)
            sub_inner = sub_args[0] if typing.get_origin(sub) is tuple else sub
            if not table and dataclasses.is_dataclass(sub_inner):
                continue  # a section of its own
            if f"| `{key}` |" not in block:
                missing.append(f"[tool.policytool{'.' + table if table else ''}] {key}")
    assert not missing, "undocumented keys:\n" + "\n".join(missing)


# What must not reach users: references to the project's internal planning documents.
_INTERNAL = re.compile(
    r"\bRFC sections?\b|\bissue #?\d+\b|\bseed 0\d\d\b|\bseeds/|\bthe seed\b|\bseed's\b",
    re.IGNORECASE,
)


def _shipped_files() -> list[Path]:
    """The files users see: docs, hook manifests, the package (docstrings, templates)."""
    files = [*PAGES, ROOT / ".pre-commit-hooks.yaml", ROOT / ".pre-commit-config.yaml"]
    files += [p for p in (ROOT / "policytool").rglob("*") if p.is_file()]
    return [p for p in files if p.exists() and p.suffix not in (".pyc",)]


def test_no_internal_references_ship() -> None:
    """No shipped file names an internal RFC section, issue number or seed document."""
    hits = []
    for path in _shipped_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if _INTERNAL.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, "internal references:\n" + "\n".join(hits)


def test_ci_runs_the_readme_test_command() -> None:
    """`.ci/run` runs quickstart step 2 word for word, so the README's command is tested."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quickstart = readme.split("## Quickstart", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in quickstart.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2, "the quickstart is exactly two commands"
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert commands[1] in ci_lines


def test_default_run_is_offline_and_ci_runs_the_marked_tests() -> None:
    """`pytest -n auto` leaves out the `network` and `slow` tests; `.ci/run` runs them after.

    Every try-repo test (it installs from PyPI) is marked, and the one test that re-runs
    whole suites in a subprocess is `slow`.
    """
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    options = pyproject.split("[tool.pytest.ini_options]", 1)[1].split("\n[", 1)[0]
    assert "addopts = '-ra -m \"not network and not slow\"'" in options
    assert '"network: ' in options and '"slow: ' in options  # registered markers
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'python -m pytest -n 4 -m "network or slow"' in ci
    assert "-ne 5 ]" in ci  # "no tests collected" is not a failure
    marked = {
        "test_hooks_tryrepo.py": "@pytest.mark.network\ndef test_try_repo_policytool_repo_hooks(",
        "test_sweep_hook.py": "@pytest.mark.network\ndef test_try_repo_sweep(",
        "test_lock_tryrepo.py": "@pytest.mark.network\ndef test_try_repo_lock_check(",
        "test_imports.py": "@pytest.mark.network\ndef test_published_hooks_run_with_pre_commit",
        "test_yamldoc.py": "@pytest.mark.slow\ndef test_rule_suites_pass_with_every_parse",
    }
    for name, text in marked.items():
        assert text in (ROOT / "tests" / name).read_text(encoding="utf-8"), name


def test_config_md_is_generated_from_the_config_definitions() -> None:
    """docs/config.md is docs/config.md.in with the section docs next to each dataclass
    and this repository's own [tool.policytool]; regenerate with GENERATOR."""
    from policytool.engine.config_docs import config_md
    from policytool.engine.docs import GENERATOR

    committed = (DOCS / "config.md").read_text(encoding="utf-8")
    assert committed == config_md(DOCS), f"docs/config.md drifted; run {GENERATOR}"


def test_every_config_key_has_one_key_doc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every key of every section (nested ones too) has a KeyDoc, and no KeyDoc outlives
    its key; the generator refuses to write a page with a key missing."""
    from policytool import config
    from policytool.engine.config_docs import render_config_md, sections, undocumented

    assert undocumented() == []
    assert {s.table for s in sections()} >= {"", "spdx", "lock", "lock.variants", "sweep"}
    from policytool.rules._source_config import SpdxConfig

    spdx = config.SECTION_DOCS[SpdxConfig]
    keys = {k: v for k, v in spdx.keys.items() if k != "license"}
    keys["licence"] = spdx.keys["license"]
    monkeypatch.setitem(config.SECTION_DOCS, SpdxConfig, dataclasses.replace(spdx, keys=keys))
    assert undocumented() == [
        "[tool.policytool.spdx] license: no KeyDoc",
        "[tool.policytool.spdx] licence: documented, not a key",
    ]
    with pytest.raises(ValueError, match="license: no KeyDoc"):
        render_config_md("@sections@\n", "")


def test_config_md_defaults_come_from_the_dataclasses() -> None:
    """A default the KeyDoc does not put in words is the field's own default, as TOML."""
    text = (DOCS / "config.md").read_text(encoding="utf-8")
    assert '| `kinds` | list of kinds | `["python"]` |' in text
    assert "| `mergify` | boolean | `true` |" in text
    assert "| `modules` | list of module names | required, not empty |" in text
    assert "| `output` | path | required |" in text
    assert "| `copyright` | string | none |" in text


def _tour(*flags: str) -> dict[str, str]:
    """Run ``docs/tour.sh FLAGS`` with this environment's ``policytool``: its blocks."""
    import os
    import subprocess
    import sys

    from tests.readme_tour import parse_output

    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_", "GIT_"))}
    proc = subprocess.run(
        ["bash", str(DOCS / "tour.sh"), *flags],
        cwd=ROOT,
        env={**env, "PATH": path},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return parse_output(proc.stdout)


def _drifted(blocks: dict[str, str]) -> list[str]:
    """The names of ``blocks`` whose README.md block differs (with both texts)."""
    from tests.readme_tour import readme_blocks

    readme = readme_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    return [
        f"{name}:\n--- README.md\n{readme.get(name)}--- docs/tour.sh\n{text}"
        for name, text in blocks.items()
        if readme.get(name) != text
    ]


@pytest.mark.slow
def test_readme_tour_offline_blocks_are_real_runs() -> None:
    """Every tour block that needs no network, rerun in a copy of this checkout, is what
    README.md shows; regenerate with `docs/tour.sh --write`."""
    from tests.readme_tour import readme_blocks

    blocks = _tour("--offline")
    readme = readme_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert set(blocks) == set(readme) - {"bump"}
    drifted = _drifted(blocks)
    assert not drifted, "README tour drifted; run docs/tour.sh --write\n" + "\n".join(drifted)


@pytest.mark.network
def test_readme_tour_network_blocks_are_real_runs() -> None:
    """The whole tour, `bump` resolving from PyPI included, is what README.md shows."""
    blocks = _tour()
    assert "bump" in blocks
    drifted = _drifted(blocks)
    assert not drifted, "README tour drifted; run docs/tour.sh --write\n" + "\n".join(drifted)


def test_readme_tour_blocks_are_marked_and_rewritten() -> None:
    """README.md's console blocks of the tour sit between markers; replacing one block
    leaves the rest of the file byte for byte."""
    from tests.readme_tour import parse_output, readme_blocks, replace_blocks

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    names = {"check", "new-file", "rules", "sweep", "lock", "bump", "sync-init-baseline"}
    assert set(readme_blocks(readme)) == names
    tour = (DOCS / "tour.sh").read_text(encoding="utf-8")
    assert {n for n in names if f"block {n}\n" in tour} == names
    output = "<!-- tour:check -->\n$ policytool check\nno findings in 7 files\n"
    assert parse_output(output) == {"check": "$ policytool check\nno findings in 7 files\n"}
    new = replace_blocks(readme, parse_output(output))
    assert readme_blocks(new)["check"] == "$ policytool check\nno findings in 7 files\n"
    assert {k: v for k, v in readme_blocks(new).items() if k != "check"} == {
        k: v for k, v in readme_blocks(readme).items() if k != "check"
    }
    assert replace_blocks(new, readme_blocks(readme)) == readme
    with pytest.raises(SystemExit, match="no tour markers for: nope"):
        replace_blocks(readme, {"nope": "x\n"})


def test_rule_pages_list_the_keys_of_the_config_they_read() -> None:
    """A rule declares the [tool.policytool.X] tables it reads (``config``): every one its
    doc's Configuration names, each a real section; its page (and `policytool rules ID`)
    ends with their key tables, generated from the config definitions."""
    from policytool.engine.config_docs import key_table, sections
    from policytool.engine.docs import render_rule
    from policytool.engine.registry import rule_infos

    tables = {s.table for s in sections()}
    wrong = []
    for info in rule_infos().values():
        configuration = info.doc.partition("## Configuration")[2]
        named = set(re.findall(r"tool\.policytool\.([a-z-]+)", configuration))
        if not named <= set(info.config) or not set(info.config) <= tables:
            wrong.append(f"{info.id}: config={info.config}, its doc names {sorted(named)}")
    assert not wrong, "\n".join(wrong)
    spdx = rule_infos()["spdx-header"]
    assert spdx.config == ("spdx",)
    page = render_rule(spdx)
    assert page.endswith(key_table("spdx").split("\n", 2)[2])
    assert (
        "Keys of `[tool.policytool.spdx]` ([configuration reference](../config.md#toolpolicytoolspdx))"
        in page
    )
    assert '| `kinds` | list of kinds | `["python"]` |' in page
    lock_page = (DOCS / "rules" / "lock-stale.md").read_text(encoding="utf-8")
    assert "| `index-strategy` |" in lock_page
