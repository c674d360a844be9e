# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The rule registry: the static id -> module table matches what the modules register."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import policytool.hooks
from policytool.engine import registry as rules


def test_every_module_registers_exactly_the_ids_the_table_names() -> None:
    modules = sorted(m.name for m in pkgutil.iter_modules(policytool.hooks.__path__))
    for module in modules:
        importlib.import_module(f"policytool.hooks.{module}")
    registered = set(rules._FILE_RULES) | set(rules._REPO_RULES) | set(rules._INFO)
    assert registered == set(rules.RULE_MODULES) | rules.ENGINE_RULE_IDS
    assert set(rules.RULE_MODULES.values()) <= set(modules)


def test_each_module_alone_registers_its_ids() -> None:
    """Importing only the table's module for an id is enough to get that rule."""
    code = (
        "import importlib, json, sys; from policytool.engine import registry as rules;"
        "importlib.import_module('policytool.hooks.' + sys.argv[1]);"
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
        "print(sorted(m for m in sys.modules if m.startswith('policytool.hooks.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_only_loads_the_modules_of_the_selected_rules() -> None:
    code = (
        "import sys; from policytool.engine.runner import select_rules;"
        "files, repos = select_rules(('spdx-header',), ());"
        "assert [r.id for r in files] == ['spdx-header'] and repos == [];"
        "print(sorted(m for m in sys.modules if m.startswith('policytool.hooks.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['policytool.hooks.spdx']"
