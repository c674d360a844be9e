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

# How a fake found here says so (data flow, no name): see ``any_annotation``.
REPLACED = "what the replaced `"

_MOCK_CALLS = frozenset(
    {"MagicMock", "Mock", "AsyncMock", "NonCallableMagicMock", "create_autospec"}
)


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
    """(return annotation text, module it is seen from) of a module function ``a.b.f``
    (``-> HfApi``), re-exports followed a few hops."""
    module, _dot, func = dotted.rpartition(".")
    return fakes.function_return(finder, module, func) if module else None


def _method_return(
    finder: fakes.Finder, cls: str, module: str, method: str
) -> tuple[str, str] | None:
    """(return annotation text, module) of the method ``cls.method``."""
    defined = fakes.define(finder, cls, module)
    found = finder.find(defined.module) if defined is not None else None
    if defined is None or found is None:
        return None
    try:
        info = os.stat(found[0])
    except OSError:
        return None
    text = fakes._method_returns(found[0], info.st_mtime_ns, info.st_size, cls, method)
    return (text, defined.module) if text else None


def returned_text(finder: fakes.Finder, callable_: Stands) -> tuple[str, str] | None:
    """(return annotation text, module) of a replaced function or method."""
    if callable_.kind == "func":
        return _func_return(finder, callable_.ref)
    if callable_.kind == "method":
        return _method_return(finder, callable_.ref, callable_.module, callable_.method)
    return None


def _declares(finder: fakes.Finder, module: str, callee: str, param: str) -> bool:
    """Whether ``module`` defines ``def callee(...)`` (or class ``callee``'s
    ``__init__``) with a parameter ``param``."""
    return any(param in params for params in fakes.signatures_in(finder, module, callee))


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
        found = returned_text(self.finder, callable_)
        returned = fakes._type_name(found[0]) if found is not None else None
        return Stands("instance", returned, found[1]) if found is not None and returned else None

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
            for node in fakes.walked(self.scope)
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
                return self._built(value) or self._passed(value, expr.id)
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

    def _passed(self, call: ast.Call, var: str) -> Stands | None:
        """A bare ``MagicMock()`` bound to ``var`` and passed to a parameter of the code
        under test annotated with a class (``Controller(scheduler=scheduler)``, ``def
        __init__(self, scheduler: Scheduler)``): an instance of that class, read in the
        module that defines the callee."""
        if fakes._callee(call) not in _MOCK_CALLS or call.args or call.keywords:
            return None
        stmt = self.parents.get(id(call))
        if stmt is None:
            return None
        modules = [*self.modules, *self.finder.second_tier(self.modules)]
        for callee, where in fakes.passed_as(var, stmt, self.parents)[:4]:
            if callee in fakes.SETTERS or callee == "patch" or callee in _MOCK_CALLS:
                continue
            if isinstance(where, int):
                named = fakes.parameter_names(self.finder, modules, callee, where)
            else:
                named = [(where, m) for m in modules if _declares(self.finder, m, callee, where)]
            for param, module in named[:2]:
                loaded = self.finder.load(module)
                texts = loaded[0].annotations.get(param, ()) if loaded is not None else ()
                classes = {fakes._type_name(t) for t in texts[:8]}
                if len(classes) != 1:
                    continue
                cls = classes.pop()
                defined = fakes.define(self.finder, cls, module) if cls else None
                if cls and defined is not None:
                    return Stands("instance", cls, defined.module)
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
    """Whether ``node`` is the fake or the local ``var`` it is bound to."""
    return node is fake or (bool(var) and isinstance(node, ast.Name) and node.id == var)


def _given(value: ast.expr, fake: ast.expr, var: str, effect: bool) -> bool | None:
    """How a ``return_value`` (``effect`` False) or ``side_effect`` value gives the
    fake: True as an element of what one call returns (``return_value=[fake]``), False
    as what a call returns (``return_value=fake``, ``side_effect=[fake, ...]``), None
    when it does not."""
    if not effect and _uses(value, fake, var):
        return False
    if isinstance(value, (ast.List, ast.Tuple)) and any(_uses(e, fake, var) for e in value.elts):
        return effect is False
    return None


def replaced_callables(
    finder: fakes.Finder,
    modules: list[str],
    call: ast.Call,
    parents: dict[int, ast.AST],
) -> list[tuple[Stands, bool]]:
    """Each replaced callable whose return ``call`` (a fake) is, and whether the fake is
    an element of that return: the fake (or the local name it is bound to) is given as
    ``return_value=``/``side_effect=[...]`` of a ``patch(...)``, or assigned to
    ``<mock>.return_value`` / ``<mock>.side_effect = [...]``, where the mock is read
    back to the real callable (:class:`Reader`)."""
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
    out: list[tuple[Stands, bool]] = []
    for node in fakes.walked(scope):
        if len(out) >= 4:
            break
        if isinstance(node, ast.Call) and fakes._callee(node) in ("patch", "object"):
            for k in node.keywords:
                if k.arg not in ("return_value", "side_effect"):
                    continue
                element = _given(k.value, call, var, k.arg == "side_effect")
                replaced = reader._patched(node, 0) if element is not None else None
                if replaced is not None and replaced.kind in ("func", "method"):
                    out.append((replaced, bool(element)))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if not (
                isinstance(target, ast.Attribute) and target.attr in ("return_value", "side_effect")
            ):
                continue
            element = _given(node.value, call, var, target.attr == "side_effect")
            replaced = reader.stands(target.value, node) if element is not None else None
            if replaced is not None and replaced.kind in ("func", "method"):
                out.append((replaced, bool(element)))
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
    (see :func:`replaced_callables`): the real callable's return annotation (its
    sequence's element type for an element), when the fake's keywords fit it
    (:func:`fakes.mimicked`)."""
    for replaced, element in replaced_callables(finder, modules, call, parents):
        found = None
        if replaced.kind == "func" and not element:
            found = fakes.patched_return(finder, replaced.ref, keywords, nested)
        elif replaced.kind == "method" and not element:
            found = fakes.method_return(
                finder, replaced.ref, replaced.method, [replaced.module], keywords, nested
            )
        else:
            text = returned_text(finder, replaced)
            head = text[0].strip().split("[", 1)[0].rsplit(".", 1)[-1] if text else ""
            cls = fakes._element_type(text[0]) if text and head in fakes._SEQUENCES else None
            hit = (
                fakes.mimicked(finder, [text[1]], "", False, cls, keywords, None, nested)
                if text and cls
                else None
            )
            if text and hit is not None:
                how = f"an element of `{_named(replaced)}() -> {text[0].strip()}`"
                found = fakes.Mimicked(hit[0].name, hit[0].where, how), hit[1]
        if found is not None:
            mimics, defined = found
            how = f"{REPLACED}{_named(replaced)}` returns: {mimics.how}"
            return fakes.Mimicked(mimics.name, mimics.where, how), defined
    return None


def _yields_class(node: ast.expr, cls: str) -> bool:
    """Whether an installed value is the class ``cls`` or a callable giving it or an
    instance of it (``FakeParser``, ``lambda name: FakeParser``, ``staticmethod(lambda
    *a: FakeParser())``)."""
    if isinstance(node, ast.Call) and fakes._callee(node) in ("staticmethod", "classmethod"):
        node = node.args[0] if len(node.args) == 1 else node
    if isinstance(node, ast.Lambda):
        node = node.body
        if isinstance(node, ast.Call) and not node.args and not node.keywords:
            node = node.func
    return isinstance(node, ast.Name) and node.id == cls


def _unwrapped_type(text: str) -> str | None:
    """``X`` of ``type[X]`` / ``Type[X]`` / ``X``."""
    text = text.strip().strip("\"'")
    for wrapper in ("type[", "Type[", "typing.Type["):
        if text.startswith(wrapper) and text.endswith("]"):
            text = text[len(wrapper) : -1]
    return fakes._type_name(text)


def installed_for(
    finder: fakes.Finder, modules: list[str], cls: str, scope: ast.AST
) -> tuple[str, str, str] | None:
    """(real class, module it is seen from, how) a hand-written fake class ``cls`` is
    installed for in ``scope``: set over a class (``monkeypatch.setattr(mod, "LLMEngine",
    FakeEngine)``), or as what a class's method returns (``monkeypatch.setattr(
    ToolParserManager, "get_tool_parser", staticmethod(lambda name: FakeParser))``,
    whose ``-> type[ToolParser]`` names the class)."""
    wide = [*modules, *finder.second_tier(modules)]
    for node in fakes.walked(scope):
        if not (
            isinstance(node, ast.Call)
            and fakes._callee(node) in fakes.SETTERS
            and len(node.args) >= 3
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            continue
        attr = node.args[1].value.rsplit(".", 1)[-1]
        value = node.args[2]
        if isinstance(value, ast.Name) and value.id == cls and attr[:1].isupper():
            module = _class_of(attr, wide, finder)
            if module:
                return attr, module, f"`{cls}` is set over `{attr}`"
            continue
        owner = fakes._terminal(node.args[0])
        if not (_yields_class(value, cls) and owner[:1].isupper()):
            continue
        module = _class_of(owner, wide, finder)
        found = _method_return(finder, owner, module, attr) if module else None
        real = _unwrapped_type(found[0]) if found is not None else None
        if found is not None and real:
            how = f"`{cls}` is installed as what `{owner}.{attr}() -> {found[0].strip()}` gives"
            return real, found[1], how
    return None


def installed_method_fake(
    finder: fakes.Finder,
    modules: list[str],
    call: ast.Call,
    parents: dict[int, ast.AST],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake a method of a hand-written fake class returns (``return SimpleNamespace(
    tools_called=True, ...)`` in ``FakeParser.extract_tool_calls``), where the test
    installs that class for a real one (:func:`installed_for`): what the real class's
    same-named method is annotated to return."""
    stmt = parents.get(id(call))
    if not isinstance(stmt, ast.Return) or not keywords:
        return None
    func = parents.get(id(stmt))
    holder = parents.get(id(func)) if func is not None else None
    if not (
        isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
        and isinstance(holder, ast.ClassDef)
    ):
        return None
    scope = fakes._enclosing_function(holder, parents) or parents.get(id(holder))
    if scope is None:
        return None
    real = installed_for(finder, modules, holder.name, scope)
    if real is None:
        return None
    found = fakes.method_return(finder, real[0], func.name, [real[1]], keywords, nested)
    if found is None:
        return None
    mimics, defined = found
    how = f"{REPLACED}{holder.name}.{func.name}` returns ({real[2]}): {mimics.how}"
    return fakes.Mimicked(mimics.name, mimics.where, how), defined
