# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What the code under test gets in a fake's place when the fake is what a *replaced*
callable returns: a mock's ``return_value`` (``api.run_job.return_value = job``,
``patch.object(HfApi, "get_endpoint", return_value=fake)``) or an element of its
``side_effect`` list. The replaced callable is read through the mocks the test builds
(``patch("pkg.get_hf_api") as api_cls``; ``api = api_cls.return_value``; ``api.run_job``):
a patched function (by its dotted path), a class's method (``patch.object(Cls, "m")``,
``patch.object(obj, "m")`` with ``obj = Cls(...)``, ``Mock(spec=Cls).m``, a method of what
a patched function returns). The real callable's return annotation names what the fake
mimics. Data flow only: names say nothing; every step is bounded (a few hops)."""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass

from policytool.rules import _fakes as fakes

# Hops through local names and ``.return_value`` chains.
MAX_DEPTH = 5

_MOCK_CALLS = frozenset({"MagicMock", "Mock", "NonCallableMagicMock", "create_autospec"})


@dataclass(frozen=True)
class Stands:
    """What a mock expression stands for: ``kind`` ``func`` (a module function, ``ref``
    its dotted path), ``method`` (``ref`` the class, ``method`` its name, ``module``
    where the class is seen), ``instance``/``class`` (``ref`` the class)."""

    kind: str
    ref: str
    module: str = ""
    method: str = ""


def _func_return(finder: fakes.Finder, dotted: str) -> tuple[str, str] | None:
    """(class name, module it is seen from) a module function ``a.b.f`` is annotated to
    return (``-> HfApi``), re-exports followed a few hops."""
    module, _dot, func = dotted.rpartition(".")
    if not module or finder.find(module) is None:
        return None
    for _hop in range(fakes.MAX_HOPS + 1):
        found = finder.find(module)
        loaded = finder.load(module)
        if found is None or loaded is None:
            return None
        try:
            info = os.stat(found[0])
        except OSError:
            return None
        text = fakes._return_annotation(found[0], info.st_mtime_ns, info.st_size, func)
        if text is not None:
            cls = fakes._type_name(text)
            return (cls, module) if cls else None
        imported = loaded[0].imports.get(func)
        if imported is None:
            return None
        source, _colon, original = imported.partition(":")
        module = fakes._resolve_relative(source, module, found[1].endswith("__init__.py"))
        func = original
    return None


def _method_return(
    finder: fakes.Finder, cls: str, module: str, method: str
) -> tuple[str, str] | None:
    """(class name, module) the method ``cls.method`` is annotated to return."""
    defined = fakes.define(finder, cls, module)
    found = finder.find(defined.module) if defined is not None else None
    if defined is None or found is None:
        return None
    try:
        info = os.stat(found[0])
    except OSError:
        return None
    text = fakes._method_returns(found[0], info.st_mtime_ns, info.st_size, cls, method)
    returned = fakes._type_name(text) if text else None
    return (returned, defined.module) if returned else None


def _class_of(name: str, modules: list[str], finder: fakes.Finder) -> str:
    """The module (of ``modules``) from which the class ``name`` is defined; ""."""
    for module in modules:
        if fakes.define(finder, name, module) is not None:
            return module
    return ""


class Reader:
    """Reads what mock expressions of one test function stand for."""

    def __init__(
        self,
        finder: fakes.Finder,
        modules: list[str],
        scope: ast.FunctionDef | ast.AsyncFunctionDef,
        parents: dict[int, ast.AST],
    ) -> None:
        self.finder = finder
        self.modules = modules
        self.scope = scope
        self.parents = parents

    def _patched(self, patcher: ast.Call, depth: int) -> Stands | None:
        """What a ``patch(...)`` / ``patch.object(...)`` call replaces."""
        dotted = fakes.patch_target(patcher)
        if dotted:
            last = dotted.rpartition(".")[2]
            kind = "class" if last[:1].isupper() else "func"
            return Stands(kind, dotted)
        if fakes._callee(patcher) == "object" and len(patcher.args) >= 2:
            attr = patcher.args[1]
            if not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)):
                return None
            owner = self.stands(patcher.args[0], patcher, depth + 1)
            if owner is not None and owner.kind in ("instance", "class"):
                return Stands("method", owner.ref, owner.module, attr.value)
        return None

    def _returned(self, callable_: Stands) -> Stands | None:
        """The instance a replaced callable's real counterpart returns."""
        if callable_.kind == "class":
            module, _dot, cls = callable_.ref.rpartition(".")
            return Stands("instance", cls, module)
        found = None
        if callable_.kind == "func":
            found = _func_return(self.finder, callable_.ref)
        elif callable_.kind == "method":
            found = _method_return(self.finder, callable_.ref, callable_.module, callable_.method)
        return Stands("instance", found[0], found[1]) if found is not None else None

    def stands(self, expr: ast.expr, at: ast.AST, depth: int = 0) -> Stands | None:
        """What ``expr`` (read at the node ``at`` of the test function) stands for."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, ast.Attribute):
            owner = self.stands(expr.value, at, depth + 1)
            if owner is None:
                return None
            if expr.attr == "return_value":
                return self._returned(owner)
            if owner.kind in ("instance", "class"):
                return Stands("method", owner.ref, owner.module, expr.attr)
            return None
        if not isinstance(expr, ast.Name):
            return None
        patcher = fakes.patch_of_mock(expr, at, self.parents)
        if patcher is not None:
            return self._patched(patcher, depth)
        bound = [
            node.value
            for node in ast.walk(self.scope)
            if isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == expr.id
        ]
        if len(bound) == 1:
            value = bound[0]
            if isinstance(value, ast.Attribute):
                return self.stands(value, at, depth + 1)
            if isinstance(value, ast.Call):
                return self._built(value)
            return None
        if not bound:
            return self._parameter(expr.id) or self._class(expr.id)
        return None

    def _built(self, call: ast.Call) -> Stands | None:
        """``Cls(...)`` (a real instance) or ``Mock(spec=Cls)`` / ``create_autospec(Cls)``."""
        callee = fakes._callee(call)
        if callee in _MOCK_CALLS:
            spec = next((k.value for k in call.keywords if k.arg in ("spec", "spec_set")), None)
            if callee == "create_autospec" and call.args:
                spec = call.args[0]
            name = fakes._terminal(spec) if spec is not None else ""
            module = _class_of(name, self.modules, self.finder) if name[:1].isupper() else ""
            return Stands("instance", name, module) if module else None
        if isinstance(call.func, ast.Name) and callee[:1].isupper():
            module = _class_of(callee, self.modules, self.finder)
            return Stands("instance", callee, module) if module else None
        return None

    def _parameter(self, name: str) -> Stands | None:
        """A parameter of the test annotated with a class (``api: HfApi``)."""
        args = self.scope.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if arg.arg == name and arg.annotation is not None:
                cls = fakes._annotation_name(arg.annotation)
                if cls and cls[:1].isupper():
                    module = _class_of(cls, self.modules, self.finder)
                    return Stands("instance", cls, module) if module else None
        return None

    def _class(self, name: str) -> Stands | None:
        """A class the test imports (``patch.object(HfApi, "m")``)."""
        if not name[:1].isupper():
            return None
        module = _class_of(name, self.modules, self.finder)
        return Stands("class", name, module) if module else None


def _named(stands: Stands) -> str:
    """The replaced callable as text (``HfApi.get_endpoint``, ``pkg.get_config``)."""
    return f"{stands.ref}.{stands.method}" if stands.kind == "method" else stands.ref


def _uses(node: ast.expr, fake: ast.expr, var: str) -> bool:
    """Whether ``node`` is the fake (or the local ``var`` it is bound to), or a list/
    tuple display holding it (a ``side_effect`` sequence)."""
    if node is fake or (var and isinstance(node, ast.Name) and node.id == var):
        return True
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_uses(e, fake, var) for e in node.elts)
    return False


def replaced_callables(
    finder: fakes.Finder,
    modules: list[str],
    call: ast.Call,
    parents: dict[int, ast.AST],
) -> list[tuple[Stands, str]]:
    """Each replaced callable whose return ``call`` (a fake) is, with the text of the
    replacement (``api.run_job.return_value``): the fake (or the local name it is bound
    to) is given as ``return_value=``/``side_effect=[...]`` of a ``patch(...)``, or
    assigned to ``<mock>.return_value`` / ``<mock>.side_effect = [...]``."""
    scope = fakes._enclosing_function(call, parents)
    if scope is None:
        return []
    stmt = parents.get(id(call))
    var = ""
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        var = stmt.targets[0].id
    reader = Reader(finder, modules, scope, parents)
    out: list[tuple[Stands, str]] = []
    for node in ast.walk(scope):
        if len(out) >= 4:
            break
        if isinstance(node, ast.Call) and fakes._callee(node) in ("patch", "object"):
            given = [k.value for k in node.keywords if k.arg in ("return_value", "side_effect")]
            if any(_uses(v, call, var) for v in given):
                replaced = reader._patched(node, 0)
                if replaced is not None:
                    out.append((replaced, _named(replaced)))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if not (
                isinstance(target, ast.Attribute)
                and target.attr in ("return_value", "side_effect")
                and _uses(node.value, call, var)
            ):
                continue
            if target.attr == "side_effect" and not isinstance(node.value, (ast.List, ast.Tuple)):
                continue
            replaced = reader.stands(target.value, node)
            if replaced is not None and replaced.kind in ("func", "method"):
                out.append((replaced, ast.unparse(target)))
    return out


def replaced_return(
    finder: fakes.Finder,
    modules: list[str],
    call: ast.Call,
    parents: dict[int, ast.AST],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """The typed data class a fake stands in for as what a replaced callable returns
    (see :func:`replaced_callables`): the real callable's return annotation, when every
    keyword of the fake fits it (:func:`fakes.mimicked`)."""
    for replaced, text in replaced_callables(finder, modules, call, parents):
        if replaced.kind == "func":
            found = fakes.patched_return(finder, replaced.ref, keywords, nested)
        elif replaced.kind == "method":
            found = fakes.method_return(
                finder, replaced.ref, replaced.method, [replaced.module], keywords, nested
            )
        else:
            found = None
        if found is not None:
            mimics, defined = found
            how = f"what the replaced `{text}` returns: {mimics.how}"
            return fakes.Mimicked(mimics.name, mimics.where, how), defined
    return None
