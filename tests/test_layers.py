# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The import contract: layers only point down (design.md, "Shape of the code").

cli -> scaffold -> lock | sweep -> rules -> engine -> formats -> core. Every import counts,
also one inside a function (it is still a dependency). A package may import its own
modules and any layer below it, never one above; ``lock`` and ``sweep`` are independent
commands and do not import each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "policytool"

# Top to bottom. A top-level module or package of policytool -> its layer.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"__main__", "cli"}),
    frozenset({"scaffold"}),
    frozenset({"lock", "sweep"}),
    frozenset({"rules"}),
    frozenset({"engine", "config"}),
    frozenset({"formats"}),
    frozenset({"core", "httpjson", "pypi", "errors", "__init__"}),
)
# Layers whose members are independent of each other (no import sideways).
INDEPENDENT = frozenset({"lock", "sweep"})


def _top(module: str) -> str:
    """The top-level part of a ``policytool.x.y`` module name (``x``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _layer(module: str) -> int:
    """The index of ``module``'s layer in :data:`LAYERS`."""
    top = _top(module)
    for index, layer in enumerate(LAYERS):
        if top in layer:
            return index
    raise AssertionError(f"{module}: not in any layer of tests/test_layers.py")


def _imports() -> set[tuple[str, str]]:
    """(importer, imported) for every policytool import in the package."""
    edges: set[tuple[str, str]] = set()
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            edges.update((module, n) for n in names if n.startswith("policytool"))
    return edges


def _breaks(importer: str, imported: str) -> bool:
    """Whether ``importer`` may not import ``imported``: upward, or sideways across packages."""
    if _top(importer) == _top(imported):
        return False
    if _top(importer) in INDEPENDENT and _top(imported) in INDEPENDENT:
        return True
    return _layer(imported) < _layer(importer)


def test_every_module_is_in_a_layer() -> None:
    for importer, imported in _imports():
        _layer(importer)
        _layer(imported)


def test_layers_only_point_down() -> None:
    broken = sorted(edge for edge in _imports() if _breaks(*edge))
    assert broken == [], "imports against the layers (design.md)"


def test_the_contract_notices_an_upward_import() -> None:
    assert _breaks("policytool.formats.yamldoc", "policytool.rules.action_pin")
    assert _breaks("policytool.lock.run", "policytool.sweep.diff")  # sideways
    assert not _breaks("policytool.cli", "policytool.formats.yamldoc")
    assert not _breaks("policytool.rules.action_pin", "policytool.rules._allowlist")
