# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Whether one class of the repository certainly does not derive from another.

A class's bases are followed through the modules of the work tree as written (the
syntax tree, never imported): a base defined in a repository module is read in turn, a
base defined outside the repository (an installed package, one that is absent) ends the
walk, since a package outside cannot derive from a repository class. Any link that is
not certain (a name bound twice or by an assignment, a star import, a base computed by a
call, a module of the repository the finder cannot read) makes the answer "unsure", and
a hierarchy of more than :data:`MAX_DEPTH` classes too. A cycle (two modules each
deriving from the other's class, which cannot import) ends where it meets itself.
"""

from __future__ import annotations

import ast
import builtins
import os
from dataclasses import dataclass

from policytool.formats.pyimports import package_of_path, resolve_relative
from policytool.rules import _fakes as fakes

# Classes read from one class to the last ancestor; a deeper hierarchy is "unsure".
MAX_DEPTH = 12

_BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass(frozen=True)
class ClassId:
    """A class of the repository: the dotted module defining it (as the file's path
    spells it, relative to the work tree) and its name there."""

    module: str
    name: str


@dataclass(frozen=True)
class _Scope:
    """A module's top-level bindings: each name -> the statements binding it (a class,
    an import, an assignment...), read once; ``star``: it has ``from m import *``."""

    module: str
    package: str
    bindings: dict[str, list[ast.stmt]]
    star: bool


def _scope_of(tree: ast.Module, module: str, package: str) -> _Scope:
    """The top-level bindings of ``tree``, ``if`` / ``try`` bodies included (a fallback
    import there is a second binding: unsure)."""
    bindings: dict[str, list[ast.stmt]] = {}
    star = False
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        stmt = stack.pop()
        names: list[str] = []
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names = [stmt.name]
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                if alias.name == "*":
                    star = True
                elif isinstance(stmt, ast.Import) and alias.asname is None:
                    names.append(alias.name.split(".", 1)[0])
                else:
                    names.append(alias.asname or alias.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                names.extend(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        else:
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and not isinstance(stmt, ast.With):
                    stack.extend(reversed(inner))
            for handler in getattr(stmt, "handlers", None) or ():
                stack.extend(reversed(handler.body))
            continue
        for name in names:
            bindings.setdefault(name, []).append(stmt)
    return _Scope(module, package, bindings, star)


def _imported_as(scope: _Scope, name: str) -> str:
    """The name ``name`` has where ``scope`` imports it from (``from typing import
    Protocol as P``: ``Protocol``); ``name`` itself otherwise."""
    for stmt in scope.bindings.get(name, []):
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if (alias.asname or alias.name) == name:
                    return alias.name
    return name


class Ancestry:
    """The repository's classes and their ancestors, read through one module finder."""

    def __init__(self, finder: fakes.Finder) -> None:
        """``finder``: the work tree's module finder (shared by the rules)."""
        self.finder = finder
        self._scopes: dict[str, _Scope | None] = {}
        self._ancestors: dict[ClassId, frozenset[ClassId] | None] = {}

    def add_module(self, module: str, path: str, tree: ast.Module) -> None:
        """Read module ``module`` (at repository-relative ``path``) from ``tree``: the
        file being swept, whose text is the change's, not the work tree's."""
        package = package_of_path(path)
        self._scopes[module] = _scope_of(tree, module, package or "")

    def resolve(self, module: str, name: str) -> ClassId | None | bool:
        """What ``name`` is at the top of ``module``: its :class:`ClassId` when a class
        of the repository, False when certainly a class from outside it (a builtin, an
        installed or absent package), None when unsure."""
        return self._resolve(module, name, 0)

    def ancestors(self, cls: ClassId) -> frozenset[ClassId] | None:
        """``cls`` and every repository class it derives from; None when unsure."""
        if cls not in self._ancestors:
            self._ancestors[cls] = self._walk(cls)
        return self._ancestors[cls]

    def structural(self, cls: ClassId) -> bool:
        """Whether ``cls`` or a repository ancestor is a ``Protocol`` (a class matches it
        by shape, not by deriving from it), or its ancestry is unsure."""
        lineage = self.ancestors(cls)
        if lineage is None:
            return True
        for member in lineage:
            node = self._class_node(member)
            scope = self._scope(member.module)
            if node is None or scope is None:
                return True
            for base in node.bases:
                named = base.value if isinstance(base, ast.Subscript) else base
                if isinstance(named, ast.Attribute) and named.attr == "Protocol":
                    return True
                if isinstance(named, ast.Name) and _imported_as(scope, named.id) == "Protocol":
                    return True
        return False

    def _walk(self, cls: ClassId) -> frozenset[ClassId] | None:
        """:meth:`ancestors`, breadth first, at most :data:`MAX_DEPTH` classes."""
        seen: set[ClassId] = {cls}
        queue = [cls]
        while queue:
            current = queue.pop()
            node = self._class_node(current)
            if node is None:
                return None
            for base in node.bases:
                found = self._base(current.module, base)
                if found is None:
                    return None
                if not isinstance(found, ClassId) or found in seen:
                    continue
                if len(seen) >= MAX_DEPTH:
                    return None
                seen.add(found)
                queue.append(found)
        return frozenset(seen)

    def _class_node(self, cls: ClassId) -> ast.ClassDef | None:
        """The ``class`` statement of ``cls`` (its only top-level binding)."""
        scope = self._scope(cls.module)
        if scope is None:
            return None
        bound = scope.bindings.get(cls.name, [])
        if len(bound) != 1 or not isinstance(bound[0], ast.ClassDef):
            return None
        return bound[0]

    def _base(self, module: str, base: ast.expr) -> ClassId | None | bool:
        """What a base expression of a class of ``module`` is (``Base[T]`` is ``Base``;
        ``pkg.mod.Base`` through an ``import``)."""
        if isinstance(base, ast.Subscript):
            base = base.value
        if isinstance(base, ast.Name):
            return self._resolve(module, base.id, 0)
        if isinstance(base, ast.Attribute):
            parts: list[str] = []
            node: ast.expr = base
            while isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            if not isinstance(node, ast.Name):
                return None
            target = self._module_alias(module, node.id)
            if target is None:
                return None
            parts.reverse()
            dotted = ".".join([target, *parts[:-1]])
            return self._in_module(dotted, parts[-1], 0, relative=False)
        return None

    def _module_alias(self, module: str, name: str) -> str | None:
        """The module ``name`` stands for in ``module`` (``import torch.nn as nn``,
        ``import torch``), else None."""
        scope = self._scope(module)
        if scope is None:
            return None
        bound = scope.bindings.get(name, [])
        if len(bound) != 1 or not isinstance(bound[0], ast.Import):
            return None
        for alias in bound[0].names:
            if alias.asname == name:
                return alias.name
            if alias.asname is None and alias.name.split(".", 1)[0] == name:
                return name
        return None

    def _resolve(self, module: str, name: str, hops: int) -> ClassId | None | bool:
        """:meth:`resolve`, ``hops`` re-exports deep."""
        if hops > MAX_DEPTH:
            return None
        scope = self._scope(module)
        if scope is None:
            return None
        bound = scope.bindings.get(name, [])
        if not bound:
            if scope.star:
                return None
            return False if name in _BUILTIN_NAMES else None
        if len(bound) != 1:
            return None
        stmt = bound[0]
        if isinstance(stmt, ast.ClassDef):
            return ClassId(module, name)
        if not isinstance(stmt, ast.ImportFrom):
            return None
        original = next(
            (a.name for a in stmt.names if (a.asname or a.name) == name and a.name != "*"), None
        )
        if original is None:
            return None
        source = resolve_relative(scope.package, stmt.level, stmt.module)
        if source is None:
            return None
        return self._in_module(source, original, hops + 1, relative=bool(stmt.level))

    def _in_module(
        self, module: str, name: str, hops: int, relative: bool
    ) -> ClassId | None | bool:
        """``name`` as module ``module`` binds it: followed when the module is the
        repository's, a class from outside when it is installed or absent."""
        found = self.finder.find(module)
        if found is None:
            if relative or self._repository_package(module):
                return None  # a repository module the finder cannot read
            return False  # an absent package: it cannot derive from a repository class
        if not self._in_repository(found[0]):
            return False
        return self._resolve(module, name, hops)

    def _scope(self, module: str) -> _Scope | None:
        """The top-level bindings of repository module ``module``, read once."""
        if module in self._scopes:
            return self._scopes[module]
        scope: _Scope | None = None
        found = self.finder.find(module)
        if found is not None and self._in_repository(found[0]):
            tree = self.finder.tree(module)
            if tree is not None:
                is_package = os.path.basename(found[0]) == "__init__.py"
                package = module if is_package else module.rpartition(".")[0]
                scope = _scope_of(tree, module, package)
        self._scopes[module] = scope
        return scope

    def _in_repository(self, path: str) -> bool:
        """Whether ``path`` (a module file the finder found) is in the work tree."""
        root = self.finder.root
        return root is not None and os.path.realpath(path).startswith(root + os.sep)

    def _repository_package(self, module: str) -> bool:
        """Whether the top package of ``module`` is one of the repository's."""
        top = self.finder.find(module.split(".", 1)[0])
        return top is not None and self._in_repository(top[0])
