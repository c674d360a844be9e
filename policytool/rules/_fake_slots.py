# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The name a test fake fills, and what the repository says that name holds: a fake
whose keywords match a record class is not a fake of it when the code under test
annotates the slot it fills with a plain (non-record) class nearly everywhere (axolotl's
``cfg: DictDefault``, 166 times): the code consumes the dict-like config, not the record
that happens to declare the same field names."""

from __future__ import annotations

import ast

from policytool.rules import _fakes as fakes

# The repository annotates a name with one class this often, and this share of its
# annotations, before that class says what the name holds (as ``by_consensus``).
MIN_SLOT_CONSENSUS = 5
SLOT_SHARE = 0.8


def slot_names(call: ast.Call, parents: dict[int, ast.AST]) -> list[str]:
    """The names of the slot a fake fills: what it is bound to (a keyword, an assigned
    name or attribute), or the parameter of the test module's own function it is passed
    to positionally (``_kwargs_for(SimpleNamespace(...))`` with ``def _kwargs_for(cfg)``)."""
    bound = fakes.binding(call, parents)
    if bound is not None and bound[0] and not bound[1]:
        return [bound[0]]
    outer = parents.get(id(call))
    if not isinstance(outer, ast.Call) or call not in outer.args:
        return []
    index = outer.args.index(call)
    if any(isinstance(a, ast.Starred) for a in outer.args[: index + 1]):
        return []
    callee = outer.func
    if not isinstance(callee, ast.Name):
        return []
    node: ast.AST | None = outer
    while node is not None and not isinstance(node, ast.Module):
        node = parents.get(id(node))
    if node is None:
        return []
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == callee.id:
            params = [*stmt.args.posonlyargs, *stmt.args.args]
            return [params[index].arg] if index < len(params) else []
    return []


def plain_consensus(finder: fakes.Finder, names: list[str], cls: str) -> str | None:
    """The class other than ``cls`` the work tree annotates one of ``names`` (or its
    ``_name`` attribute) with nearly everywhere, when that class is no record (a dict
    subclass, a service): the slot holds that, not ``cls``."""
    for name in names:
        if not name.isidentifier() or name in fakes._NAMELESS:
            continue
        if name not in finder.slot_classes:
            finder.slot_classes[name] = _slot_class(finder, name)
        top = finder.slot_classes[name]
        if top is not None and top != cls:
            return top
    return None


def _slot_class(finder: fakes.Finder, name: str) -> str | None:
    """The plain class of :func:`plain_consensus` for one name, whatever the record. Only
    annotations naming a class defined or imported where they are written count (a
    docstring's ``cfg: The config`` names none)."""
    counts: dict[str, int] = {}
    where: dict[str, str] = {}
    for key in (name, f"_{name.lstrip('_')}"):
        for module, raw in fakes._annotations(finder, key):
            text = raw.decode("utf-8", "replace")
            if not text.strip("\"'")[:1].isupper():
                continue
            found = fakes._type_name(text)
            if found:
                counts[found] = counts.get(found, 0) + 1
                where.setdefault(found, module)
    kinds: dict[str, fakes.Defined] = {}
    for found in sorted(counts, key=lambda c: -counts[c])[:6]:
        defined = fakes.define(finder, found, where[found])
        if defined is not None:
            kinds[found] = defined
    total = sum(counts[c] for c in kinds)
    if not kinds:
        return None
    top = max(sorted(kinds), key=lambda c: counts[c])
    if counts[top] < MIN_SLOT_CONSENSUS or counts[top] < SLOT_SHARE * total:
        return None
    defined = kinds[top]
    if defined.record or defined.data_class:
        return None  # another record (a base, a sibling): the keyword match decides
    return top
