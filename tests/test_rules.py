# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The rule registry: the static id -> module table matches what the modules register."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import policytool.rules
from policytool.engine import registry as rules


def test_rule_index_is_generated_from_the_rule_modules() -> None:
    """engine/rule_index.py is what the modules register (rules and config sections);
    regenerate with GENERATOR."""
    from policytool.engine.docs import (
        GENERATOR,
        INDEX_PATH,
        discovered_rules,
        discovered_sections,
        render_rule_index,
    )

    discovered = discovered_rules()
    assert set(discovered) | rules.ENGINE_RULE_IDS == set(rules.rule_infos())
    modules = discovered_sections()
    assert INDEX_PATH.read_text(encoding="utf-8") == render_rule_index(discovered, modules), (
        f"policytool/engine/rule_index.py drifted from the rule modules; run {GENERATOR}"
    )


def test_each_config_section_is_registered_by_one_module_below_the_commands() -> None:
    """Every ``[tool.policytool.X]`` table a rule reads is registered (with its dataclass,
    docs and checks) by a module of the rules or the engine, never by config.py."""
    from policytool.config import load_sections

    sections = load_sections()
    declared = {table for info in rules.rule_infos().values() for table in info.config}
    assert declared <= set(sections)
    for table, section in sections.items():
        module = section.cls.__module__
        assert module.startswith(("policytool.rules._", "policytool.engine.")), (table, module)


def test_each_rule_lives_in_the_module_named_after_its_id() -> None:
    """`policytool/rules/<id with _>.py` holds rule <id>; private `_x` modules are helpers."""
    misplaced = {
        rule_id: module
        for rule_id, (module, _group) in rules.RULE_INDEX.items()
        if module != rule_id.replace("-", "_")
    }
    assert not misplaced, misplaced
    modules = {m.name for m in pkgutil.iter_modules(policytool.rules.__path__)}
    public = {m for m in modules if not m.startswith("_")}
    assert public == {m for m, _g in rules.RULE_INDEX.values() if not m.startswith("_")}


def test_each_module_alone_registers_its_ids() -> None:
    """Importing only the index's module for an id is enough to get that rule."""
    code = (
        "import importlib, json, sys; from policytool.engine import registry as rules;"
        "importlib.import_module('policytool.rules.' + sys.argv[1]);"
        "print(json.dumps(sorted(set(rules._FILE_RULES) | set(rules._REPO_RULES) | set(rules._INFO))))"
    )
    for module in sorted(set(rules.RULE_MODULES.values())):
        proc = subprocess.run(
            [sys.executable, "-c", code, module], capture_output=True, text=True, check=True
        )
        registered = set(json.loads(proc.stdout))
        wanted = {i for i, m in rules.RULE_MODULES.items() if m == module}
        assert wanted <= registered, (module, wanted - registered)


def test_known_ids_need_no_rule_module() -> None:
    code = (
        "import sys; from policytool.engine.registry import known_rule_ids; ids = known_rule_ids();"
        "assert 'spdx-header' in ids and 'mergify-drift' in ids;"
        "print(sorted(m for m in sys.modules if m.startswith('policytool.rules.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_only_loads_the_modules_of_the_selected_rules() -> None:
    code = (
        "import sys; from policytool.engine.runner import select_rules;"
        "files, repos = select_rules(('spdx-header',), ());"
        "assert [r.id for r in files] == ['spdx-header'] and repos == [];"
        "print(sorted(m for m in sys.modules if m.startswith('policytool.rules.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # The rule's module and the module of the config section it reads, no other rule.
    assert (
        out.stdout.strip() == "['policytool.rules._source_config', 'policytool.rules.spdx_header']"
    )


def test_docs_rules_pages_match_the_registry() -> None:
    """docs/rules/ is generated; regenerate with `python -m policytool.engine.docs docs/rules`."""
    from pathlib import Path

    from policytool.engine.docs import GENERATOR, pages

    directory = Path(__file__).resolve().parents[1] / "docs" / "rules"
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in directory.glob("*.md")}
    wanted = pages()
    stale = sorted(n for n in set(on_disk) | set(wanted) if on_disk.get(n) != wanted.get(n))
    assert not stale, f"docs/rules/ drifted from the registry ({', '.join(stale)}); run {GENERATOR}"


def test_every_rule_doc_has_the_sections() -> None:
    """Each rule's doc has the DOC_SECTIONS headings, in order (`policytool rules ID`)."""
    from policytool.engine.docs import missing_sections

    problems = {
        info.id: missing_sections(info.doc)
        for info in rules.rule_infos().values()
        if missing_sections(info.doc)
    }
    assert not problems, problems


def test_engine_docs_have_the_sections() -> None:
    from policytool.engine.docs import missing_sections

    for rule_id in sorted(rules.ENGINE_RULE_IDS):
        assert missing_sections(rules.rule_infos()[rule_id].doc) == [], rule_id


def test_missing_sections_notices_absent_and_misordered() -> None:
    from policytool.engine.docs import missing_sections

    good = "".join(f"## {s}\ntext\n" for s in rules.DOC_SECTIONS)
    assert missing_sections(good) == []
    assert missing_sections(good.replace("## Why\n", "")) == ["Why"]
    swapped = (
        good.replace("## Fix", "## TMP")
        .replace("## Example", "## Fix")
        .replace("## TMP", "## Example")
    )
    assert missing_sections(swapped) != []


def test_every_group_has_rules_and_every_rule_a_group() -> None:
    assert {group for _module, group in rules.RULE_INDEX.values()} == set(rules.GROUPS)


# Config-section modules (``rules/_*_config.py``: dataclasses and their docs, no rule) load
# with the config; the lists below are the rules and what they share. What click itself
# imports is not the run's doing: on Python 3.10 `import click` pulls in `subprocess`
# (through `uuid` and `platform`), on 3.11+ it does not.
NOT_SECTIONS = "not m.endswith('_config')"
HOOK_CALL = (
    "import sys, click; pre = set(sys.modules); from policytool.cli import main;"
    " code = main(sys.argv[1:]);"
    f"print(code, sorted(m for m in sys.modules if m not in pre and {NOT_SECTIONS} and (m.startswith('policytool.rules.')"
    " or m.split('.')[0] in ('tomlkit', 'packaging', 'ruamel', 'subprocess', 'tempfile',"
    " 'difflib', 'multiprocessing', 'concurrent'))))"
)


def _hook_call(root: object, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", HOOK_CALL, *args],
        cwd=str(root),
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout.splitlines()[-1]


def test_hook_call_over_files_its_rules_skip_loads_only_those_rules(tmp_path: object) -> None:
    """A hook call over files its rules do not read loads their modules and nothing heavy."""
    from pathlib import Path

    root = Path(str(tmp_path))
    (root / "pyproject.toml").write_text(
        '[tool.policytool.spdx]\nlicense = "MIT"\n[tool.policytool.pre-commit]\nfinal-hook = "x"\n'
    )
    (root / "notes.md").write_text("# notes\n")
    (root / "data.txt").write_text("x\n")
    (root / "run").write_text("#!/bin/sh\necho hi\n")  # a shell script by its shebang
    (root / "a.py").write_text("x = 1\n")
    assert _hook_call(root, "check", "--only", "spdx-header", "notes.md", "data.txt") == (
        "0 ['policytool.rules.spdx_header']"
    )
    assert _hook_call(root, "check", "--only", "forbidden-import,torch-cuda", "run") == (
        "0 ['policytool.rules._allowlist', 'policytool.rules._pyscan', "
        "'policytool.rules.forbidden_import', 'policytool.rules.torch_cuda']"
    )
    # The same call over a file the rule reads loads that rule and finds the problem.
    assert _hook_call(root, "check", "--only", "spdx-header", "notes.md", "a.py") == (
        "1 ['policytool.rules.spdx_header']"
    )
    # A repo rule's triggers need its module: no shortcut, but still nothing else.
    assert "policytool.rules.spdx_header" not in _hook_call(
        root, "check", "--only", "mergify-drift", "notes.md"
    )


RULE_MODULES_LOADED = (
    "import sys; from policytool.cli import main; code = main(sys.argv[1:]);"
    f"print(code, sorted(m for m in sys.modules if {NOT_SECTIONS} and m.startswith('policytool.rules.')))"
)


def test_a_repo_rule_loads_its_own_module_and_what_it_shares(tmp_path: object) -> None:
    """`check --only ID` imports that rule's module and its `_` helpers, not its family."""
    from pathlib import Path

    root = Path(str(tmp_path))
    (root / "pyproject.toml").write_text('[tool.policytool.pre-commit]\nfinal-hook = "b"\n')
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n"
        "      - {id: a, name: a, entry: 'true', language: system}\n"
        "      - {id: b, name: b, entry: 'true', language: system}\n"
    )
    loaded = [
        subprocess.run(
            [sys.executable, "-c", RULE_MODULES_LOADED, "check", "--only", rule_id],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()[-1]
        for rule_id in ("precommit-final-hook", "codeql-workflow")
    ]
    assert loaded == [
        "0 ['policytool.rules._precommit_model', 'policytool.rules.precommit_final_hook']",
        "0 ['policytool.rules._ci_scan', 'policytool.rules.codeql_workflow']",
    ]


def test_no_module_imports_a_private_name_of_a_rule_module() -> None:
    """What two rules share lives in a `_` module; a rule's `_` names stay in its module."""
    import ast
    from pathlib import Path

    package = Path(policytool.rules.__file__).resolve().parents[1]
    crossing = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_bytes())):
            if not (isinstance(node, ast.ImportFrom) and node.module):
                continue
            parts = node.module.split(".")
            if parts[:2] != ["policytool", "rules"] or len(parts) != 3 or parts[2][0] == "_":
                continue
            private = [a.name for a in node.names if a.name.startswith("_")]
            if private:
                crossing.append(f"{path.relative_to(package)}: {node.module} {private}")
    assert not crossing, crossing
