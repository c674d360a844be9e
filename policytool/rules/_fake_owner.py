# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""A fake set as an attribute of a real object of the code under test
(``recipe = Recipe.__new__(Recipe); recipe.dist_env = SimpleNamespace(...)``): the
object's class is known from how the test builds it, and that class (or a base) declares
the attribute's type: ``attr: T`` in its body, ``self.attr: T = ...``, or ``self.attr =
f(...)`` with ``f``'s ``-> T`` (or its docstring's ``Returns:`` type). Data flow only: the
attribute's name says nothing by itself."""

from __future__ import annotations

import ast
import re

from policytool.rules import _fakes as fakes

# Bases followed from the object's class to the one declaring the attribute.
MAX_BASES = 4

# A Google-style docstring's ``Returns:`` section whose first line names the type.
_RETURNS_DOC_RE = re.compile(
    r"^[ \t]*Returns?:[ \t]*\n[ \t]+`{0,2}([A-Za-z_][A-Za-z0-9_.]*)`{0,2}[ \t]*(?::|\n|$)",
    re.M,
)


def _class_name(node: ast.expr | None) -> str:
    """``Cls`` of a CamelCase name (or ``pkg.Cls``), else ""."""
    name = fakes._terminal(node) if node is not None else ""
    return name if name[:1].isupper() else ""


def _built_class(value: ast.expr) -> str:
    """The class an expression builds an instance of: ``Cls(...)``, ``Cls.__new__(Cls)``,
    ``object.__new__(Cls)``, ``Mock(spec=Cls)``; ""."""
    if not isinstance(value, ast.Call):
        return ""
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr == "__new__":
        return _class_name(value.args[0]) if value.args else ""
    if fakes._callee(value) in fakes._MOCKS:
        return fakes.spec_class(value)
    if isinstance(func, ast.Name) and func.id[:1].isupper():
        return func.id
    return ""


def owner_class(
    obj: ast.expr, func: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module
) -> str:
    """The class of the object ``obj`` names in the test function ``func``: a local bound
    once to an instance it builds (or to the call of a helper of the test file annotated
    ``-> Cls``), or a parameter annotated with a class; ""."""
    if not isinstance(obj, ast.Name):
        return ""
    values = [
        node.value
        for node in fakes.walked(func)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == obj.id
    ]
    if len(values) > 1:
        return ""
    if not values:
        args = func.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if arg.arg == obj.id:
                return _class_name(arg.annotation)
        return ""
    value = values[0]
    built = _built_class(value)
    if built or not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return built
    helper = value.func.id
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == helper:
            return _class_name(node.returns)
    return ""


def _tree(finder: fakes.Finder, module: str) -> tuple[ast.Module, str] | None:
    """(syntax tree, path to show) of a module the finder finds."""
    found = finder.find(module)
    if found is None:
        return None
    tree = fakes.module_tree(found[0])
    return (tree, found[1]) if tree is not None else None


def _returns(
    finder: fakes.Finder, module: str, name: str, depth: int = 0
) -> tuple[str, str, str] | None:
    """(module the text is read in, return type's text, how) of the module-level function
    ``name`` as seen from ``module`` (defined there or imported): its ``-> T``, else its
    docstring's ``Returns:`` type; None."""
    loaded = _tree(finder, module)
    if loaded is None:
        return None
    for node in loaded[0].body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            if node.returns is not None:
                text = ast.unparse(node.returns)
                return module, text, f"`{name}` -> `{text}`"
            doc = ast.get_docstring(node) or ""
            match = _RETURNS_DOC_RE.search(doc)
            if match is None:
                return None
            return module, match.group(1), f"`{name}`'s docstring returns `{match.group(1)}`"
    parsed = finder.load(module)
    target = parsed[0].imports.get(name) if parsed is not None else None
    if target is None or depth >= fakes.MAX_HOPS:
        return None
    source, _colon, original = target.partition(":")
    absolute = fakes.absolute_module(source, module, loaded[1].endswith("__init__.py"))
    return _returns(finder, absolute, original, depth + 1)


def _declared(
    finder: fakes.Finder, module: str, node: ast.ClassDef, attr: str
) -> tuple[str, str, str] | None:
    """(type text, module it is read in, how) of ``attr`` in the body of class ``node``
    of ``module``: one type for every typed assignment (None aside); None when none or
    several."""
    found: set[tuple[str, str, str]] = set()
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if stmt.target.id == attr:
                text = ast.unparse(stmt.annotation)
                found.add((text, module, f"`{attr}: {text}`"))
    for item in fakes.walked(node):
        if isinstance(item, ast.AnnAssign):
            target: ast.expr = item.target
            value = None
        elif isinstance(item, ast.Assign) and len(item.targets) == 1:
            target = item.targets[0]
            value = item.value
        else:
            continue
        if not (
            isinstance(target, ast.Attribute)
            and target.attr == attr
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
        ):
            continue
        if isinstance(item, ast.AnnAssign):
            text = ast.unparse(item.annotation)
            found.add((text, module, f"`self.{attr}: {text}`"))
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            callee = value.func.id
            if callee[:1].isupper():
                found.add((callee, module, f"`self.{attr} = {callee}(...)`"))
                continue
            returned = _returns(finder, module, callee)
            if returned is None:
                return None  # an untyped call: what it holds is not known
            where, text, how = returned
            found.add((text, where, f"`self.{attr} = {callee}(...)`, {how}"))
        elif not (isinstance(value, ast.Constant) and value.value is None):
            return None  # another value: the declared type is not the only one
    types = {fakes._type_name(text) for text, _m, _h in found}
    if len(types) != 1 or None in types:
        return None
    return min(found)


def _class_node(tree: ast.Module, name: str) -> ast.ClassDef | None:
    """The top-level class ``name`` of a module."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    return None


def attribute_type(
    finder: fakes.Finder, modules: list[str], cls: str, attr: str
) -> tuple[fakes.Defined, str, str] | None:
    """(the class, its name, how) that class ``cls`` (defined in or imported by one of
    ``modules``) or one of its bases declares its attribute ``attr`` to hold."""
    owner = next(
        (d for d in (fakes.define(finder, cls, m) for m in modules) if d is not None), None
    )
    pending = [(cls, owner.module)] if owner is not None else []
    seen: set[tuple[str, str]] = set()
    while pending and len(seen) <= MAX_BASES:
        name, module = pending.pop(0)
        if (name, module) in seen:
            continue
        seen.add((name, module))
        loaded = _tree(finder, module)
        node = _class_node(loaded[0], name) if loaded is not None else None
        if loaded is None or node is None:
            continue
        declared = _declared(finder, module, node, attr)
        if declared is not None:
            text, where, how = declared
            type_name = fakes._type_name(text)
            defined = fakes.define(finder, type_name, where) if type_name else None
            if defined is None or not type_name:
                return None
            return defined, type_name, f"the attribute `{attr}` of `{cls}`: {how} in {loaded[1]}"
        for base in node.bases:
            base_name = _class_name(base)
            inherited = fakes.define(finder, base_name, module) if base_name else None
            if inherited is not None:
                pending.append((base_name, inherited.module))
    return None
