# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What counts as a string-key read of a ``**kwargs`` dict: one home for the pattern
(``kwargs-lookup`` on added lines) and the cross-file key index (``keys``).

A *kwargs dict* in a function is its ``**NAME`` parameter, a parameter called
``kwargs`` / ``*_kwargs`` annotated as a dict (``kwargs: dict[str, Any]``, the dict
passed on whole), or a parameter of a function of the same file that a kwargs dict is
passed to (``self._setup(kwargs)`` -> ``def _setup(self, cfg)``). A *read* is
``NAME["k"]`` (not an assignment or ``del``), ``NAME.get("k")``, ``NAME.pop("k")`` or
``"k" [not] in NAME``; ``NAME.setdefault("k", v)`` and ``NAME["k"] = v`` are writes, and
``if "k" not in NAME: NAME["k"] = v`` (the test alone or a term of an ``and``) sets a
default. :func:`callee_declares` tells whether a function or class of the module a key
goes on to declares that parameter.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from policytool.rules._pyast import last_name

FunctionDef = ast.FunctionDef | ast.AsyncFunctionDef

READ_METHODS = frozenset({"get", "pop"})
_DICT_ANNOTATIONS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "typing.Dict"})
# A plain parameter with this name and a dict annotation is a kwargs dict passed on whole.
_KWARGS_NAME_RE = re.compile(r"(?:^|_)kwargs$")


@dataclass(frozen=True)
class Read:
    """One string-key read of a kwargs dict."""

    func: FunctionDef
    name: str
    key: str
    node: ast.expr


def _dict_annotation(annotation: ast.expr | None) -> bool:
    """Whether an annotation says dict (``dict``, ``dict[str, Any]``, ``Mapping[...]``)."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.split("[", 1)[0].strip() in _DICT_ANNOTATIONS
    base = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    if isinstance(base, ast.Attribute):
        return base.attr in _DICT_ANNOTATIONS
    return isinstance(base, ast.Name) and base.id in _DICT_ANNOTATIONS


def typed_kwargs(annotation: ast.expr | None) -> bool:
    """Whether a ``**kwargs`` annotation is ``Unpack[SomeTypedDict]`` (PEP 692): a type
    checker checks each caller's keywords against the TypedDict and flags a read of a
    key it does not declare, so a misspelt key is an error, never a silent default."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.split("[", 1)[0].strip().rpartition(".")[2] == "Unpack"
    return isinstance(annotation, ast.Subscript) and last_name(annotation.value) == "Unpack"


def named_params(func: FunctionDef) -> list[ast.arg]:
    """Positional (after self/cls for methods, kept: callers pass it implicitly) and
    keyword parameters in order."""
    return [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]


def own_dicts(func: FunctionDef, plain: bool = True) -> set[str]:
    """The kwargs dicts a function has by its own signature (``plain=False``: its
    ``**`` parameter only, not a ``*_kwargs: dict`` parameter)."""
    names = {func.args.kwarg.arg} if func.args.kwarg is not None else set()
    for arg in named_params(func) if plain else ():
        if _KWARGS_NAME_RE.search(arg.arg) and _dict_annotation(arg.annotation):
            names.add(arg.arg)
    return names


# Calls whose result holds a record's fields, not the keys of the dict they were built
# from: pydantic's ``model_dump`` / ``dict``, ``dataclasses.asdict``, ``_asdict``.
_RECORD_DUMPS = frozenset({"model_dump", "dict", "to_dict", "_asdict"})


def _record_dump(value: ast.expr) -> bool:
    """``Params(**kwargs).model_dump()``, ``asdict(cfg)``, or a dict display merging only
    such dumps (``{**p.model_dump(), **p.retry.model_dump()}``): a record's fields."""
    if isinstance(value, ast.Dict):
        return bool(value.keys) and all(
            key is None and _record_dump(part)
            for key, part in zip(value.keys, value.values, strict=True)
        )
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute):
        return func.attr in _RECORD_DUMPS
    return isinstance(func, ast.Name) and func.id == "asdict"


def rebound(func: FunctionDef, names: set[str]) -> dict[str, int]:
    """Name -> the last line of the statement from which one of ``names`` holds a
    record's fields: the first statement of the body itself (not one in a branch, which
    may not run) assigning the name a record's dump (nv-ingest's ``kwargs =
    resolved.model_dump(...)``, ``kwargs = Params(**kwargs).model_dump()``). Later reads
    are of validated fields, not the caller's keywords. Any other value may still hold
    them (``kwargs = merged`` after ``merged.update(kwargs)``, ``{**kwargs, "k": v}``)."""
    found: dict[str, int] = {}
    for stmt in func.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target, value = stmt.target, stmt.value
        else:
            continue
        if (
            isinstance(target, ast.Name)
            and target.id in names
            and target.id not in found
            and _record_dump(value)
        ):
            found[target.id] = stmt.end_lineno or stmt.lineno
    return found


def live(node: ast.AST, name: str, rebound_at: dict[str, int]) -> bool:
    """Whether ``node`` (a read or call using ``name``) comes before ``name`` is rebound
    (:func:`rebound`), so it still sees the caller's keywords."""
    at = rebound_at.get(name)
    return at is None or getattr(node, "lineno", 0) <= at


def with_lambdas(func: FunctionDef, names: set[str]) -> Iterator[ast.AST]:
    """:func:`body_nodes`, and the nodes of each ``lambda`` of the body that none of
    ``names`` is a parameter of: a deferred call closes over the function's dict
    (vllm-omni's ``default_stage_cfg_factory=lambda:
    self._create_default_diffusion_stage_cfg(kwargs)``)."""
    for node in body_nodes(func):
        yield node
        if isinstance(node, ast.Lambda):
            params = {a.arg for a in (*node.args.posonlyargs, *node.args.args)}
            params |= {a.arg for a in node.args.kwonlyargs}
            if not names & params:
                yield from ast.walk(node.body)


def names_bound_to(nodes: Iterable[ast.AST], value: ast.AST) -> set[str]:
    """The plain names an ``=`` statement among ``nodes`` binds to ``value`` itself
    (``tokenizer = kwargs.pop("tokenizer")``, ``fake = SimpleNamespace(...)``)."""
    return {
        target.id
        for node in nodes
        if isinstance(node, ast.Assign) and node.value is value
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def body_nodes(func: FunctionDef) -> Iterator[ast.AST]:
    """Every node of ``func``'s body, not descending into nested functions or classes."""
    stack: list[ast.AST] = list(reversed(func.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def string_key(node: ast.AST, names: set[str]) -> tuple[str, str] | None:
    """``(dict name, key)`` when ``node`` reads a literal string key from one of ``names``."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name)
        and node.value.id in names
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    ):
        return node.value.id, node.slice.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in READ_METHODS
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in names
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.func.value.id, node.args[0].value
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], (ast.In, ast.NotIn))
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
        and isinstance(node.comparators[0], ast.Name)
        and node.comparators[0].id in names
    ):
        return node.comparators[0].id, node.left.value
    return None


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def statements(
    body: list[ast.stmt], keep: Callable[[ast.stmt], bool] | None = None, scopes: bool = True
) -> Iterator[ast.stmt]:
    """Every statement, nested ones included, without visiting expressions (cheap): a
    statement, then the statements it holds, its later parts (handlers, ``else``) first.

    With ``keep``, a statement it refuses is neither yielded nor entered; with
    ``scopes=False``, a nested ``def`` or ``class`` is yielded but not entered.
    """
    stack = list(reversed(body) if keep is None else filter(keep, reversed(body)))
    while stack:
        stmt = stack.pop()
        yield stmt
        if not scopes and isinstance(stmt, _SCOPES):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if inner:
                stack.extend(reversed(inner) if keep is None else filter(keep, reversed(inner)))
        for holder in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ():
            inner = holder.body
            stack.extend(reversed(inner) if keep is None else filter(keep, reversed(inner)))


def _functions(tree: ast.Module) -> list[FunctionDef]:
    """Every function and method of the module (nested ones too)."""
    return [
        node
        for node in statements(tree.body)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def _callee_name(call: ast.Call) -> str | None:
    """``g`` for ``g(...)`` and ``self.g(...)`` / ``cls.g(...)`` / ``obj.g(...)``."""
    return last_name(call.func) or None


# Bytes that a file with a kwargs dict parameter must hold (a cheap test before the walk).
_PARAM_RE = re.compile(rb"\*\*[ \t]*[A-Za-z_]|kwargs[ \t]*:")


def may_have_dicts(data: bytes) -> bool:
    """False when ``data`` cannot declare a kwargs dict parameter (no walk needed)."""
    return _PARAM_RE.search(data) is not None


def kwargs_dicts(tree: ast.Module, plain: bool = True) -> dict[FunctionDef, set[str]]:
    """Each function's kwargs dicts: its own, and parameters a kwargs dict of another
    function of the file is passed to whole (followed to a fixpoint, at most 5 hops).

    ``plain=False``: only the dicts a ``**`` parameter reaches (its own, and those it is
    passed to whole), not a plain ``*_kwargs: dict`` parameter."""
    functions = _functions(tree)
    dicts = {func: own_dicts(func, plain) for func in functions}
    if not any(dicts.values()):
        return {}
    by_name = _by_name(functions)
    callees = _Callees(by_name, dicts)
    # Only functions holding a kwargs dict are walked for calls passing it on; a
    # function that receives one joins the work list (at most 5 hops deep).
    calls_of: dict[FunctionDef, list[ast.Call]] = {}
    rebound_in: dict[FunctionDef, dict[str, int]] = {}
    work = [(func, 0) for func, names in dicts.items() if names]
    while work:
        func, depth = work.pop()
        if func not in calls_of:
            calls_of[func] = [
                node
                for node in with_lambdas(func, dicts[func])
                if isinstance(node, ast.Call) and (_callee_name(node) or "") in by_name
            ]
        if depth >= 5:
            continue
        if func not in rebound_in:
            rebound_in[func] = rebound(func, dicts[func])
        for call in calls_of[func]:
            at = rebound_in[func]
            names = {n for n in dicts[func] if live(call, n, at)} if at else dicts[func]
            grown = callees.pass_on(call, names)
            work.extend((t, depth + 1) for t in grown)
    return {func: names for func, names in dicts.items() if names}


class _Callees:
    """Passing kwargs dicts on to the functions of a name, each parameter a call fills
    marked once: a dict passed at a position (of a method call or not) or under a keyword
    to the functions of one name marks the same parameters whichever call passes it, so
    a second such call marks nothing and is skipped (thousands of functions of one name
    calling it stay linear)."""

    def __init__(
        self, by_name: dict[str, list[FunctionDef]], dicts: dict[FunctionDef, set[str]]
    ) -> None:
        """Index nothing yet: a name's parameters are read when a call passes a dict."""
        self.by_name = by_name
        self.dicts = dicts
        # (name, method call, position) and (name, keyword) already passed on.
        self.done: set[tuple[str, bool, int | str]] = set()
        # (name, method call) -> position -> (function, its parameter there), in order.
        self._positions: dict[tuple[str, bool], list[list[tuple[FunctionDef, str]]]] = {}
        # name -> keyword -> the functions of the name declaring it, in order.
        self._keywords: dict[str, dict[str, list[FunctionDef]]] = {}
        # id(function) -> its position among the functions of its name.
        self._order = {id(f): i for funcs in by_name.values() for i, f in enumerate(funcs)}

    def _at(self, name: str, method: bool) -> list[list[tuple[FunctionDef, str]]]:
        """The parameters of the functions of ``name`` by position (after ``self``/``cls``
        for a method call)."""
        found = self._positions.get((name, method))
        if found is None:
            found = self._positions[(name, method)] = []
            for target in self.by_name[name]:
                params = [*target.args.posonlyargs, *target.args.args]
                if method and params and params[0].arg in ("self", "cls"):
                    params = params[1:]
                for index, param in enumerate(params):
                    if index == len(found):
                        found.append([])
                    found[index].append((target, param.arg))
        return found

    def _declaring(self, name: str) -> dict[str, list[FunctionDef]]:
        """The functions of ``name`` by the keywords they declare."""
        found = self._keywords.get(name)
        if found is None:
            found = self._keywords[name] = {}
            for target in self.by_name[name]:
                for arg in {a.arg for a in named_params(target)}:
                    found.setdefault(arg, []).append(target)
        return found

    def _mark(
        self, pairs: Iterator[tuple[FunctionDef, str]], grown: dict[int, FunctionDef]
    ) -> None:
        """Add each parameter to its function's dicts (``grown``: the functions changed)."""
        for target, param in pairs:
            if param not in self.dicts[target]:
                self.dicts[target].add(param)
                grown[id(target)] = target

    def pass_on(self, call: ast.Call, names: set[str]) -> list[FunctionDef]:
        """Mark the parameters of the functions ``call`` names that it passes a kwargs
        dict (one of ``names``) to; the functions whose dicts grew, in their order."""
        name = _callee_name(call) or ""
        method = isinstance(call.func, ast.Attribute)
        grown: dict[int, FunctionDef] = {}
        for index, arg in enumerate(call.args):
            if isinstance(arg, ast.Name) and arg.id in names:
                if (name, method, index) in self.done:
                    continue
                self.done.add((name, method, index))
                at = self._at(name, method)
                self._mark(iter(at[index] if index < len(at) else ()), grown)
        for keyword in call.keywords:
            value = keyword.value
            if keyword.arg and isinstance(value, ast.Name) and value.id in names:
                if (name, False, keyword.arg) in self.done:
                    continue
                self.done.add((name, False, keyword.arg))
                targets = self._declaring(name).get(keyword.arg, [])
                self._mark(((t, keyword.arg) for t in targets), grown)
        return sorted(grown.values(), key=lambda t: self._order[id(t)])


def keyword_params(tree: ast.Module) -> dict[str, list[frozenset[str]]]:
    """Name -> the parameters a keyword can fill, of each function and class of the module
    with that name (a class: its own ``__init__``'s; a class without one is not listed,
    its parameters are not known from this file)."""
    index: dict[str, list[frozenset[str]]] = {}
    for node in statements(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            func: FunctionDef | None = node
        elif isinstance(node, ast.ClassDef):
            func = next(
                (
                    stmt
                    for stmt in node.body
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and stmt.name == "__init__"
                ),
                None,
            )
        else:
            continue
        if func is not None:
            names = frozenset(a.arg for a in [*func.args.args, *func.args.kwonlyargs])
            index.setdefault(node.name, []).append(names)
    return index


def callee_declares(
    call: ast.Call, key: str, index: dict[str, list[frozenset[str]]]
) -> bool | None:
    """Whether the callee of ``call`` declares a parameter ``key`` a keyword can fill:
    None when the callee is not a function or class of this module (``index``: from
    :func:`keyword_params`), True when every one of that name declares it."""
    found = index.get(_callee_name(call) or "")
    if not found:
        return None
    return all(key in params for params in found)


def declaring_calls(
    calls: list[ast.Call], index: dict[str, list[frozenset[str]]]
) -> dict[str, ast.Call]:
    """Key -> the first of ``calls`` whose callee declares it (:func:`callee_declares`
    True), for every key at once: a function of thousands of reads and ``f(**d)`` calls
    asks each call's callee once, not once a read."""
    first: dict[str, ast.Call] = {}
    asked: set[str] = set()
    for call in calls:
        name = _callee_name(call) or ""
        if name in asked:
            continue  # a later call of the same callee declares the same keys
        asked.add(name)
        found = index.get(name)
        if found:
            for key in frozenset.intersection(*found):
                first.setdefault(key, call)
    return first


def defaulted(
    node: ast.AST,
    parent_if: ast.If | None,
    memo: dict[int, tuple[frozenset[int], frozenset[tuple[str, object]]]] | None = None,
) -> bool:
    """``if "k" not in kwargs: kwargs["k"] = v``: a default being set, not a key read
    (also when the absence is one term of an ``and``: ``if m and "k" not in kwargs:``,
    and when the key is set in a block nested in the ``if``). ``memo``: the ``if``
    statements' terms and assignments read once (one ``if`` of thousands of terms)."""
    if parent_if is None or not isinstance(node, ast.Compare):
        return False
    if not isinstance(node.ops[0], ast.NotIn):
        return False
    facts = memo.get(id(parent_if)) if memo is not None else None
    if facts is None:
        facts = _if_defaults(parent_if)
        if memo is not None:
            memo[id(parent_if)] = facts
    terms, assigned = facts
    if id(node) not in terms:
        return False
    key = node.left.value if isinstance(node.left, ast.Constant) else None
    dict_name = node.comparators[0].id if isinstance(node.comparators[0], ast.Name) else None
    return dict_name is not None and (dict_name, key) in assigned


def _if_defaults(parent_if: ast.If) -> tuple[frozenset[int], frozenset[tuple[str, object]]]:
    """(ids of the terms of the ``if``'s test, (dict, key) of each ``d[key] = ...`` its
    block holds, nested blocks included) for :func:`defaulted`."""
    assigned: set[tuple[str, object]] = set()
    for stmt in statements(parent_if.body):
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and isinstance(target.slice, ast.Constant)
                ):
                    assigned.add((target.value.id, target.slice.value))
    terms = frozenset(id(t) for t in _conjuncts(parent_if.test))
    return terms, frozenset(assigned)


def _conjuncts(test: ast.expr) -> list[ast.expr]:
    """The terms that must all hold for ``test``: itself, or an ``and``'s operands."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return list(test.values)
    return [test]


def if_tests(func: FunctionDef) -> dict[int, ast.If]:
    """id(test term) -> its ``if`` statement, for :func:`defaulted`."""
    return {
        id(term): node
        for node in body_nodes(func)
        if isinstance(node, ast.If)
        for term in _conjuncts(node.test)
    }


def key_reads(
    func: FunctionDef, names: set[str], rebound_at: dict[str, int]
) -> Iterator[tuple[Read, bool]]:
    """Each string-key read of one of ``names`` in ``func``'s body that is not a default
    being set (:func:`defaulted`), with whether it still sees the caller's keywords
    (:func:`live`): the one reading of a function's key reads, for :func:`reads` and
    the rule's own walk (which also counts a dead read's names as used)."""
    ifs = if_tests(func)
    memo: dict[int, tuple[frozenset[int], frozenset[tuple[str, object]]]] = {}
    for node in body_nodes(func):
        found = string_key(node, names)
        if found is not None and not defaulted(node, ifs.get(id(node)), memo):
            assert isinstance(node, ast.expr)
            yield Read(func, found[0], found[1], node), live(node, found[0], rebound_at)


def reads(tree: ast.Module, dicts: dict[FunctionDef, set[str]] | None = None) -> Iterator[Read]:
    """Every string-key read of a kwargs dict in the module (``dicts``: already computed)
    that sees the caller's keywords."""
    for func, names in (kwargs_dicts(tree) if dicts is None else dicts).items():
        for read, is_live in key_reads(func, names, rebound(func, names)):
            if is_live:
                yield read


# Methods whose arguments are only shown (logged, printed), never used: a dict passed
# to one is not passed on (``logger.info(f"... {kwargs}")``, ``print(kwargs)``).
_SHOW_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "print"}
)


def shown_only(func: FunctionDef, name: str) -> set[int]:
    """ids of the ``Name`` nodes of ``name`` in ``func``'s body that only show or discard
    the dict: inside an f-string, an argument of a logging call or ``print``,
    ``bool(name)`` / ``len(name)``, or ``_ = name`` (``del name`` too). Such a use
    neither forwards the dict nor rejects its leftover keys, so a function whose other
    uses are key reads drops unknown keys."""
    found: set[int] = set()
    for node in body_nodes(func):
        if isinstance(node, ast.JoinedStr):
            found.update(id(n) for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name)
        elif isinstance(node, ast.Call) and (_callee_name(node) or "") in _SHOW_METHODS:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                for n in ast.walk(arg):
                    if isinstance(n, ast.Name) and n.id == name:
                        found.add(id(n))
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
            and all(isinstance(t, ast.Name) and t.id == "_" for t in node.targets)
        ):
            found.add(id(node.value))
        elif isinstance(node, ast.Delete):
            found.update(id(t) for t in node.targets if isinstance(t, ast.Name))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("bool", "len")
            and len(node.args) == 1
            and _is_name(node.args[0], name)
        ):
            found.add(id(node.args[0]))  # whether there are keys: none goes on
    return found


def named_keys_only(func: FunctionDef, name: str) -> set[int]:
    """ids of the ``Name`` nodes of ``name`` in ``func``'s body that only take out keys
    the code names: a read under a computed key (``name.pop(key)``, ``name[key]``,
    ``key in name``), ``KNOWN & name.keys()``, and an iteration that keeps only keys in a
    named collection (``{k: name.pop(k) for k in list(name) if k in KNOWN}``, a ``for``
    whose body is one ``if k in KNOWN:``). Like a string-key read, none of them passes the
    keys left over on: rllm's Daytona sandbox pops its resource keys so and drops the
    rest (an ``if k not in SKIP`` filter passes the rest on, and is not one of these)."""
    found: set[int] = set()
    for node in body_nodes(func):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            if _is_name(node.value, name):
                found.add(id(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in READ_METHODS and _is_name(node.func.value, name) and node.args:
                found.add(id(node.func.value))
        elif isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, (ast.In, ast.NotIn)) and _is_name(right, name):
                    found.add(id(right))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
            for side in (node.left, node.right):
                held = _iterated_dict(side, name)
                if held is not None:
                    found.add(id(held))
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for gen in node.generators:
                held = _iterated_dict(gen.iter, name)
                if held is not None and any(
                    _kept_if_in(test, gen.target, name) for test in gen.ifs
                ):
                    found.add(id(held))
        elif isinstance(node, ast.For) and len(node.body) == 1 and not node.orelse:
            held = _iterated_dict(node.iter, name)
            if held is not None and _keyed_chain(node.body[0], node.target, name):
                found.add(id(held))
    return found


def _keyed_chain(stmt: ast.stmt, target: ast.expr, name: str) -> bool:
    """``stmt`` is an ``if``/``elif`` chain each of whose tests names the keys it keeps
    (:func:`_kept_if_in`) and that has no final ``else``: a key no test names is left
    alone. llama-models' ``QuantizationArgs.__init__`` sets ``scheme`` and each key with
    ``hasattr(self, k)``, and drops the rest."""
    while isinstance(stmt, ast.If) and _kept_if_in(stmt.test, target, name):
        if not stmt.orelse:
            return True
        if len(stmt.orelse) != 1:
            return False
        stmt = stmt.orelse[0]
    return False


def _by_name(functions: list[FunctionDef]) -> dict[str, list[FunctionDef]]:
    """``functions`` by name, each name's in order."""
    found: dict[str, list[FunctionDef]] = {}
    for func in functions:
        found.setdefault(func.name, []).append(func)
    return found


def functions_by_name(tree: ast.Module) -> dict[str, list[FunctionDef]]:
    """The module's functions and methods (nested ones too) by name."""
    return _by_name(_functions(tree))


def _handed(arg: ast.expr, name: str) -> ast.Name | None:
    """The ``Name`` of ``name`` when ``arg`` is the dict itself or a copy, ``dict(name)``."""
    if (
        isinstance(arg, ast.Call)
        and isinstance(arg.func, ast.Name)
        and arg.func.id == "dict"
        and len(arg.args) == 1
        and not arg.keywords
    ):
        arg = arg.args[0]
    return arg if isinstance(arg, ast.Name) and arg.id == name else None


def _param_at(call: ast.Call, target: FunctionDef, index: int | str) -> str | None:
    """The parameter of ``target`` that position ``index`` (after ``self``/``cls`` for a
    method call) or keyword ``index`` of ``call`` fills."""
    if isinstance(index, str):
        return index if index in {a.arg for a in named_params(target)} else None
    params = [*target.args.posonlyargs, *target.args.args]
    if isinstance(call.func, ast.Attribute) and params and params[0].arg in ("self", "cls"):
        params = params[1:]
    return params[index].arg if index < len(params) else None


def _reads_keys_only(target: FunctionDef, param: str) -> bool:
    """Every use of ``param`` in ``target``'s body takes out a key the code names (a
    string-key read, :func:`named_keys_only`) or only shows the dict: a check of named
    keys, which keeps none of the others."""
    uses = [n for n in body_nodes(target) if isinstance(n, ast.Name) and n.id == param]
    if not uses:
        return False
    keyed = {
        id(n)
        for node in body_nodes(target)
        if string_key(node, {param}) is not None
        for n in ast.walk(node)
        if isinstance(n, ast.Name)
    }
    keyed |= named_keys_only(target, param) | shown_only(target, param)
    return all(id(n) in keyed for n in uses)


def _memo_reads_keys_only(
    memo: dict[tuple[int, str], bool], target: FunctionDef, param: str
) -> bool:
    """:func:`_reads_keys_only`, asked once per function and parameter."""
    key = (id(target), param)
    if key not in memo:
        memo[key] = _reads_keys_only(target, param)
    return memo[key]


def checked_only(func: FunctionDef, name: str, by_name: dict[str, list[FunctionDef]]) -> set[int]:
    """ids of the ``Name`` nodes of ``name`` in ``func``'s body that hand the dict (or
    ``dict(name)``) to a function of the module whose parameter there only has keys read
    by name (``by_name``: :func:`functions_by_name`). nv-ingest's
    ``_assert_no_remote_endpoints(dict(kwargs), ...)`` reads the endpoint keys it names
    and raises on them: the keys it does not name are not passed on, so an
    ``__init__(**kwargs)`` calling it still drops them."""
    found: set[int] = set()
    # (id(target), param) -> the answer: a body of thousands of calls of one check reads
    # the check once.
    memo: dict[tuple[int, str], bool] = {}
    for node in body_nodes(func):
        if not isinstance(node, ast.Call):
            continue
        targets = by_name.get(_callee_name(node) or "", [])
        if not targets or any(t is func for t in targets):
            continue
        handed: list[tuple[ast.Name, int | str]] = [
            (held, index)
            for index, arg in enumerate(node.args)
            if (held := _handed(arg, name)) is not None
        ]
        handed += [
            (held, k.arg)
            for k in node.keywords
            if k.arg is not None and (held := _handed(k.value, name)) is not None
        ]
        for held, index in handed:
            params = [_param_at(node, target, index) for target in targets]
            if all(
                param is not None and _memo_reads_keys_only(memo, target, param)
                for target, param in zip(targets, params, strict=True)
            ):
                found.add(id(held))
    return found


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _iterated_dict(node: ast.expr, name: str) -> ast.Name | None:
    """The ``Name`` of ``name`` iterated by ``node``: ``name``, ``name.keys()`` /
    ``.items()``, either wrapped in ``list(...)``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "list"
        and len(node.args) == 1
    ):
        node = node.args[0]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("keys", "items")
        and not node.args
    ):
        node = node.func.value
    return node if isinstance(node, ast.Name) and node.id == name else None


def _kept_if_in(test: ast.expr, target: ast.expr, name: str) -> bool:
    """``test`` is ``<key> in KNOWN``, ``<key> == "k"`` or ``hasattr(obj, <key>)``,
    ``<key>`` being ``target`` (or its first item, for ``k, v in d.items()``) and
    ``KNOWN`` not the dict itself."""
    key = target.elts[0] if isinstance(target, ast.Tuple) and target.elts else target
    if not isinstance(key, ast.Name):
        return False
    if isinstance(test, ast.Call):
        return (
            isinstance(test.func, ast.Name)
            and test.func.id == "hasattr"
            and len(test.args) == 2
            and _is_name(test.args[1], key.id)
            and not _is_name(test.args[0], name)
        )
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not _is_name(test.left, key.id):
        return False
    known = test.comparators[0]
    if isinstance(test.ops[0], ast.Eq):
        return isinstance(known, ast.Constant) and isinstance(known.value, str)
    return isinstance(test.ops[0], ast.In) and not any(_is_name(n, name) for n in ast.walk(known))


@dataclass(frozen=True)
class Built:
    """What :func:`builds_filtered` found: the callable built, the filter's line, and the
    uses of the dict's own name that hold the filtered dict (a filter rebinding the name:
    its target and the ``**name`` after it)."""

    callee: str
    line: int
    kept: frozenset[int]


def builds_filtered(func: FunctionDef, name: str) -> Built | None:
    """The callable ``func`` builds from its dict ``name`` filtered down to the keys that
    callable takes: ``{k: v for k, v in name.items() if k in VALID}`` handed with ``**``
    to a call of ``C``, ``VALID`` computed from ``C`` (its ``dataclasses.fields``, its
    signature's parameters, through any names between). torchrec's
    ``create_model_config(model_name, **kwargs)`` keeps the fields of the config class it
    builds: a misspelt option is dropped on that class's init path."""
    # Each filter statement and its comprehension, by the name it binds.
    filters: dict[str, tuple[ast.Assign, ast.DictComp]] = {}
    for node in body_nodes(func):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.DictComp)
            and len(node.value.generators) == 1
        ):
            gen = node.value.generators[0]
            if _iterated_dict(gen.iter, name) is not None and any(
                isinstance(test, ast.Compare) and _kept_if_in(test, gen.target, name)
                for test in gen.ifs
            ):
                filters[node.targets[0].id] = (node, node.value)
    if not filters:
        return None
    bound: dict[str, set[str]] | None = None  # the names each assignment reads, once
    sources: dict[str, set[str]] = {}  # the names each filter's test reads, through those
    for node in body_nodes(func):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        for k in node.keywords:
            held = k.value if k.arg is None and isinstance(k.value, ast.Name) else None
            found = filters.get(held.id) if held is not None else None
            if held is None or found is None or held.lineno <= found[0].lineno:
                continue
            assign, comp = found
            if held.id not in sources:
                bound = _assignments(func) if bound is None else bound
                tests = [
                    t.comparators[0] for t in comp.generators[0].ifs if isinstance(t, ast.Compare)
                ]
                sources[held.id] = _sources(bound, tests)
            if node.func.id in sources[held.id]:
                kept = {id(assign.targets[0]), id(held)} if held.id == name else set()
                return Built(node.func.id, assign.lineno, frozenset(kept))
    return None


def _assignments(func: FunctionDef) -> dict[str, set[str]]:
    """The names each name ``func`` assigns is computed from (all its assignments)."""
    bound: dict[str, set[str]] = {}
    for node in body_nodes(func):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            used = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            bound.setdefault(node.targets[0].id, set()).update(used)
    return bound


def _sources(bound: dict[str, set[str]], exprs: list[ast.expr]) -> set[str]:
    """The names ``exprs`` read, and those the assignments to them read (``bound``:
    :func:`_assignments`), through up to eight names between (``_valid =
    set(fields(cls))``, ``_valid = _valid | params``): a bounded walk, so a hostile body
    of chained assignments costs eight passes."""
    found = {n.id for e in exprs for n in ast.walk(e) if isinstance(n, ast.Name)}
    frontier = set(found)
    for _ in range(8):
        frontier = {u for name in frontier for u in bound.get(name, ())} - found
        if not frontier:
            break
        found |= frontier
    return found


def builds_cls(func: FunctionDef) -> bool:
    """An alternate constructor: a ``@classmethod`` whose body returns ``cls(...)``
    (``Fp8Linear.from_fp8(cls, weight, ..., **kwargs)``): it is the class's init path."""
    if not any(isinstance(d, ast.Name) and d.id == "classmethod" for d in func.decorator_list):
        return False
    return any(
        isinstance(node, ast.Return)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "cls"
        for node in body_nodes(func)
    )


def stub(func: FunctionDef) -> bool:
    """A body with nothing to run: a docstring, ``pass``, ``...`` or ``raise`` only (an
    abstract or interface method, whose ``**kwargs`` is the overriders' to read)."""
    for stmt in func.body:
        if isinstance(stmt, ast.Pass | ast.Raise):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        return False
    return True


def scoped_functions(tree: ast.Module) -> dict[tuple[str, ...], list[FunctionDef]]:
    """Every function of ``tree`` by the names of the classes and functions holding it
    and its own (``("Batcher", "_generate_output")``); a name defined twice in one scope
    (an ``if``/``else`` pair, ``@overload``s) lists each definition."""
    found: dict[tuple[str, ...], list[FunctionDef]] = {}
    todo: list[tuple[tuple[str, ...], list[ast.stmt]]] = [((), tree.body)]
    while todo:
        path, body = todo.pop()
        for stmt in statements(body, scopes=False):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                key = (*path, stmt.name)
                if not isinstance(stmt, ast.ClassDef):
                    found.setdefault(key, []).append(stmt)
                todo.append((key, stmt.body))
    return found
