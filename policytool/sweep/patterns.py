# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The five sweep patterns as checks over a :class:`SourceInfo`.

Each check yields findings only for nodes that overlap added lines, with the pattern's
warning (⚠, ``Severity.WARNING``) and blocking (✗, ``Severity.ERROR``) conditions.
``kwargs-lookup`` also yields :class:`KeyUse` records: whether a key is repeated in
another file is decided once for the whole change (one ``git grep``), in ``run``.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import os
import re
import stat
from collections.abc import Callable, Iterator

from policytool.config import Config
from policytool.engine.findings import Finding, Severity
from policytool.engine.source import SourceFile
from policytool.sweep import kwreads
from policytool.sweep.source import (
    Ctx,
    KeyUse,
    SourceInfo,
    SweepSource,
    names_match,
    sweep_info,
    unparse,
)

WARN = Severity.WARNING
BLOCK = Severity.ERROR

_ANY_NAMES = frozenset({"Any", "typing.Any", "typing_extensions.Any"})
_SIMPLE_NAMESPACE = frozenset({"SimpleNamespace", "types.SimpleNamespace"})
_DEEPCOPY = frozenset({"copy.deepcopy", "deepcopy"})
_HTTP_VERBS = frozenset({"get", "post", "put", "delete", "patch", "head", "options", "request"})
_URLLIB_CALLS = frozenset({"urllib.request.urlopen", "urllib.request.urlretrieve", "urlopen"})
_SCHEDULER_RE = re.compile(r"sched|sampling", re.IGNORECASE)
# Return annotations that can never hold None: a ``return None`` there is provably wrong.
_NEVER_NONE = frozenset(
    {
        "bool",
        "int",
        "str",
        "float",
        "complex",
        "bytes",
        "bytearray",
        "list",
        "dict",
        "set",
        "frozenset",
        "tuple",
        "typing.List",
        "typing.Dict",
        "typing.Set",
        "typing.FrozenSet",
        "typing.Tuple",
    }
)
# ``try``, and ``try``/``except*`` where the running Python has it (3.11+).
_TRY_NODES: tuple[type[ast.stmt], ...] = tuple(
    t for t in (ast.Try, getattr(ast, "TryStar", None)) if isinstance(t, type)
)
_NEVER_NONE_VALUES = (
    ast.List,
    ast.Tuple,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.JoinedStr,
    ast.Compare,
)


def _finding(
    src: SourceInfo, node: ast.AST, rule: str, severity: Severity, message: str
) -> Finding:
    """A finding at ``node`` (1-based column)."""
    return Finding(
        src.path,
        getattr(node, "lineno", 1),
        getattr(node, "col_offset", 0) + 1,
        rule,
        message,
        severity,
    )


def _short(src: SourceInfo, node: ast.AST, limit: int = 60) -> str:
    """The node's source text on one line, shortened for a message."""
    text = " ".join(src.segment(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- 1. kwargs-lookup ------------------------------------------------------------------


# A key read from kwargs in more other files than this is an established convention of
# the code base, not a copy the change introduces: ⚠ with the count, not ✗.
MAX_CLUSTER = 4


def kwargs_lookup(src: SourceInfo) -> Iterator[KeyUse]:
    """String-key reads of kwargs dicts (see :mod:`kwreads`) the change adds.

    A read is new when its line is added, or when the dict parameter itself is new: its
    line is added and the hunk did not just edit an old line already declaring it (a
    change to the annotation of an old ``**kwargs`` does not make the old reads new).
    """
    contexts = {id(node): ctx for node, ctx in src.of_type(ast.FunctionDef, ast.AsyncFunctionDef)}
    dicts = src.kwargs_dicts()
    seen: set[tuple[int, str]] = set()
    params: dict[str, list[frozenset[str]]] | None = None  # the module's callees, when needed
    for func, names in dicts.items():
        ctx = contexts.get(id(func))
        if ctx is None:
            continue  # the function does not overlap an added line
        new_params = {name for name in names if _param_is_new(src, func, name)}
        reads: list[tuple[str, str, ast.AST]] = []
        consumed: set[int] = set()
        # id(value) -> (keyword, call) of each ``f(k=value)``; the calls forwarding a
        # dict whole with ``f(**d)``, by the dict's name.
        keywords: dict[int, tuple[str, ast.Call]] = {}
        star_calls: dict[str, list[ast.Call]] = {}
        ifs = kwreads.if_tests(func)
        for sub in kwreads.body_nodes(func):
            found = kwreads.string_key(sub, names)
            if found is not None and not kwreads.defaulted(sub, ifs.get(id(sub))):
                reads.append((found[0], found[1], sub))
                consumed.update(id(n) for n in ast.walk(sub) if isinstance(n, ast.Name))
            elif isinstance(sub, ast.Call):
                for k in sub.keywords:
                    if k.arg is not None:
                        keywords[id(k.value)] = (k.arg, sub)
                    elif isinstance(k.value, ast.Name) and k.value.id in names:
                        star_calls.setdefault(k.value.id, []).append(sub)
        star = func.args.kwarg.arg if func.args.kwarg is not None else None
        passed_on = star is not None and any(
            isinstance(sub, ast.Name) and sub.id == star and id(sub) not in consumed
            for sub in kwreads.body_nodes(func)
        )
        # ``super().__init__(**kwargs)`` / ``X.from_pretrained(**kwargs)``: the dict is
        # forwarded to a base class or a hub API whose parameters the keys are
        # (``tokenizer``, ``vision_config``...): their repetition is that API's, not a
        # string protocol of the code base.
        forwarded = star is not None and any(
            _forwards_to_api(call) for call in star_calls.get(star, ())
        )
        fail_fast = names_match([*ctx.names(), func.name], src.config.fail_fast)
        dropped_on = fail_fast if fail_fast and star is not None and not passed_on else None
        for name, key, read in reads:
            line = getattr(read, "lineno", func.lineno)
            if (line, key) in seen:
                continue  # `"k" in kwargs and kwargs["k"]`: one finding a key a line
            if name in new_params or src.node_added(read):
                seen.add((line, key))
                reason = _FORWARDED if forwarded and name == star else ""
                goes_on = id(read) in keywords and keywords[id(read)][0] == key
                if not reason and (goes_on or name in star_calls) and not _pops(read):
                    params = kwreads.keyword_params(src.tree) if params is None else params
                    reason = _callee_reason(read, key, keywords, star_calls.get(name, []), params)
                yield KeyUse(
                    src.path,
                    line,
                    getattr(read, "col_offset", 0) + 1,
                    key,
                    _short(src, read),
                    func.name,
                    dropped_on if name == star else None,
                    src.is_test,
                    reason,
                )


_FORWARDED = "the dict is forwarded with `**`, so the key is the callee's parameter"


def _pops(read: ast.AST) -> bool:
    """``d.pop("k")``: the key is taken out of the dict (a callee the dict goes on to
    never receives it: this function is the key's reader)."""
    return (
        isinstance(read, ast.Call)
        and isinstance(read.func, ast.Attribute)
        and read.func.attr == "pop"
    )


def _callee_reason(
    read: ast.AST,
    key: str,
    keywords: dict[int, tuple[str, ast.Call]],
    star_calls: list[ast.Call],
    params: dict[str, list[frozenset[str]]],
) -> str:
    """Why a read that leaves its key in the dict is a callee's parameter, or ``""``.

    ``f(k=d.get("k"))``: the value goes on under the key's own name, a keyword a type
    checker matches to ``f``'s signature (unless ``f`` is a function of this file that
    does not declare ``k``). ``f(**d)`` after the read: the key still reaches ``f``,
    which must be a function or class of this file declaring ``k`` (a callee taking
    ``**kwargs`` or one this file cannot see proves nothing).
    """
    keyword = keywords.get(id(read))
    if keyword is not None and keyword[0] == key and not isinstance(read, ast.Compare):
        if kwreads.callee_declares(keyword[1], key, params) is not False:
            return f"the value goes on as `{key}=`, so the key is the callee's parameter"
    for call in star_calls:
        if kwreads.callee_declares(call, key, params):
            callee = unparse(call.func, 60)
            return (
                f"the dict is forwarded with `**` to `{callee}`, "
                "so the key is the callee's parameter"
            )
    return ""


_API_SUFFIXES = ("from_pretrained", "from_config")


def _forwards_to_api(call: ast.Call) -> bool:
    """``super().f(...)``, ``X.from_pretrained(...)``, ``X.from_config(...)``."""
    func = call.func
    if isinstance(func, ast.Attribute):
        base = func.value
        if (
            isinstance(base, ast.Call)
            and isinstance(base.func, ast.Name)
            and base.func.id == "super"
        ):
            return True
        return func.attr.endswith(_API_SUFFIXES)
    return isinstance(func, ast.Name) and func.id.endswith(_API_SUFFIXES)


def _param_is_new(src: SourceInfo, func: kwreads.FunctionDef, name: str) -> bool:
    """Whether the change adds parameter ``name`` (its line added, not merely edited)."""
    params = [*kwreads._params(func), func.args.kwarg, func.args.vararg]
    for param in params:
        if param is None or param.arg != name:
            continue
        if not src.node_added(param):
            return False
        old = src.replaced_text(param.lineno)
        return re.search(rb"\b" + re.escape(name.encode()) + rb"\b", old) is None
    return False


def kwargs_finding(use: KeyUse, other_files: list[str], constants: list[str]) -> Finding:
    """The finding for one key read, given the other non-test files reading the same key
    from a kwargs dict and the module constants holding it."""
    if use.in_test:
        # A test's fake kwargs are neither the duplicated production key nor a fail-fast path.
        other_files = []
        use = dataclasses.replace(use, dropped_on=None)
    if 1 <= len(other_files) <= MAX_CLUSTER and not constants and not use.forwarded:
        shown = ", ".join(other_files[:3]) + (" ..." if len(other_files) > 3 else "")
        message = (
            f'`{use.text}`: key "{use.key}" is also read from **kwargs in {shown} '
            "with no shared module constant"
        )
        return Finding(use.path, use.line, use.col, "kwargs-lookup", message, BLOCK)
    message = f"`{use.text}` in `{use.function}(**...)` reads a string key no type checker sees"
    if use.dropped_on:
        message += f"; unknown keys are silently dropped on fail-fast path `{use.dropped_on}`"
    elif constants:
        message += f"; use the constant at {constants[0]}"
    elif other_files and use.forwarded:
        message += f"; {use.forwarded}"
    elif other_files:
        message += f"; {len(other_files)} other files read the same key from **kwargs"
    return Finding(
        use.path, use.line, use.col, "kwargs-lookup", message, BLOCK if use.dropped_on else WARN
    )


# -- 2. broad-except -------------------------------------------------------------------


def _broad_name(src: SourceInfo, handler: ast.ExceptHandler) -> str | None:
    """``Exception`` / ``BaseException`` / ``""`` (bare) when the handler catches broadly."""
    if handler.type is None:
        return ""
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for item in types:
        name = src.qualname(item)
        if name in ("Exception", "BaseException", "builtins.Exception", "builtins.BaseException"):
            return name.rsplit(".", 1)[-1]
    return None


def _is_empty_value(value: ast.expr | None) -> bool:
    """``None``, ``{}``, ``[]``, ``()``, ``""``, ``False``: a return that says nothing."""
    if value is None:
        return True
    if isinstance(value, ast.Constant):
        return value.value in (None, False, "", b"") or value.value is ...
    if isinstance(value, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return not (value.keys if isinstance(value, ast.Dict) else value.elts)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("dict", "list", "tuple", "set")
        and not value.args
        and not value.keywords
    )


def _is_log_call(stmt: ast.stmt) -> bool:
    """``logger.warning(...)``, ``print(...)``, ``warnings.warn(...)``: a logging call."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in _LOG_METHODS


_LOG_METHODS = frozenset(
    {
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "log",
        "print",
        "print_exc",
        "warning_once",
        "info_once",
        "debug_once",
    }
)


def _swallows(body: list[ast.stmt]) -> bool:
    """Whether a handler body only passes, continues or returns nothing (None, {}, [])."""
    for stmt in body:
        if isinstance(stmt, (ast.Pass, ast.Continue)):
            continue
        if isinstance(stmt, ast.Return) and _is_empty_value(stmt.value):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a docstring-like string or ``...``
        return False
    return True


def _logs_then_gives_up(body: list[ast.stmt]) -> bool:
    """Logging calls, then ``continue`` / ``return`` of nothing (or the end of the body)."""
    rest = list(body)
    if not rest or not _is_log_call(rest[0]):
        return False
    while rest and _is_log_call(rest[0]):
        rest.pop(0)
    return bool(rest) and _swallows(rest)


def _raises(body: list[ast.stmt]) -> bool:
    """Whether the handler raises somewhere (a fallback that re-raises is not a swallow)."""
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Raise):
                return True
    return False


def _raises_later(func: ast.AST | None, handler: ast.ExceptHandler) -> bool:
    """Whether the function raises after the handler (a ``continue`` to the next
    fallback that ends in a ``raise``: the error is not swallowed for good)."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    end = handler.end_lineno or handler.lineno
    return any(
        isinstance(node, ast.Raise) and node.lineno > end for node in kwreads.body_nodes(func)
    )


def _removes_files(try_stmt: ast.stmt | None) -> bool:
    """Whether the ``try`` body only removes files (temp-file cleanup is best effort)."""
    body: list[ast.stmt] = getattr(try_stmt, "body", [])
    if not body:
        return False
    for stmt in body:
        value = stmt.value if isinstance(stmt, ast.Expr) else None
        if not isinstance(value, ast.Call):
            return False
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name not in ("remove", "unlink", "rmtree", "rmdir", "removedirs", "cleanup"):
            return False
    return True


# Functions whose broad catch is best effort by nature: never ✗.
BEST_EFFORT = (
    "__del__",
    "__exit__",
    "__aexit__",
    "close",
    "aclose",
    "*cleanup*",
    "*shutdown*",
    "*teardown*",
    "*_exit*",
    "atexit*",
    "*finalize*",
    "*release*",
    "stop",
    "*terminate*",
    "*kill*",
)


def broad_except(src: SourceInfo) -> Iterator[Finding]:
    """New broad ``except`` clauses that do not re-raise, with the pattern's severities."""
    for node, ctx in src.of_type(ast.ExceptHandler):
        assert isinstance(node, ast.ExceptHandler)
        last = node.type.end_lineno if node.type is not None else node.lineno
        if not src.overlaps(node.lineno, last or node.lineno):
            continue
        caught = _broad_name(src, node)
        if caught is None or _raises(node.body):
            continue
        clause = f"except {_short(src, node.type)}" if node.type is not None else "except"
        if node.name:
            clause += f" as {node.name}"
        names = ctx.names()
        uses_error = bool(node.name) and any(
            isinstance(n, ast.Name) and n.id == node.name
            for stmt in node.body
            for n in ast.walk(stmt)
        )
        if uses_error:
            # ``as e`` and e is used (logged, wrapped): not silent. Still ⚠ when it then
            # gives up quietly or carries on in a request path.
            request = None if src.is_test else names_match(names, src.config.request_path)
            if _logs_then_gives_up(node.body) or request:
                where = f" in request path `{request}`" if request else ""
                yield _finding(
                    src,
                    node,
                    "broad-except",
                    WARN,
                    f"`{clause}:` logs every error type and carries on{where}; "
                    "catch the specific types",
                )
            continue
        fail_fast = names_match(names, src.config.fail_fast)
        best_effort = names_match(names, BEST_EFFORT) or _removes_files(src.try_of.get(id(node)))
        if (
            _swallows(node.body)
            and fail_fast
            and not best_effort
            and not _raises_later(ctx.innermost, node)
        ):
            yield _finding(
                src,
                node,
                "broad-except",
                BLOCK,
                f"`{clause}:` on fail-fast path `{fail_fast}` silently swallows every error",
            )
            continue
        what = (
            "catches everything, even KeyboardInterrupt"
            if not caught
            else "silently swallows every error type"
            if _swallows(node.body)
            else "catches every error type"
        )
        yield _finding(
            src, node, "broad-except", WARN, f"`{clause}:` {what}; catch the specific types"
        )


# -- 3. any-annotation -----------------------------------------------------------------


def _is_any(src: SourceInfo, annotation: ast.expr | None) -> bool:
    """Whether an annotation is ``Any`` (also ``Optional[Any]``, ``Any | None``, ``"Any"``)."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            parsed = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
        return _is_any(src, parsed)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _is_any(src, annotation.left) or _is_any(src, annotation.right)
    if isinstance(annotation, ast.Subscript):
        outer = src.qualname(annotation.value)
        if outer in ("Optional", "Union", "typing.Optional", "typing.Union"):
            inner = (
                annotation.slice.elts
                if isinstance(annotation.slice, ast.Tuple)
                else [annotation.slice]
            )
            return any(_is_any(src, item) for item in inner)
        return False
    return src.qualname(annotation) in _ANY_NAMES


def _annotation_base(src: SourceInfo, annotation: ast.expr) -> str | None:
    """The qualified name an annotation is built on (``dict`` of ``dict[str, int]``).

    A string annotation is parsed first; one that does not parse names nothing.
    """
    node = annotation
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    base = node.value if isinstance(node, ast.Subscript) else node
    return src.qualname(base) if isinstance(base, (ast.Name, ast.Attribute)) else None


def _never_none(src: SourceInfo, annotation: ast.expr) -> str | None:
    """The annotation's text when it is a builtin type that cannot hold None."""
    name = _annotation_base(src, annotation)
    return _short(src, annotation).strip("\"'") if name in _NEVER_NONE else None


def _is_stub(body: list[ast.stmt]) -> bool:
    """``...`` / ``pass`` / docstring / ``raise NotImplementedError`` bodies."""
    for stmt in body:
        if isinstance(stmt, ast.Pass) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        ):
            continue
        if isinstance(stmt, ast.Raise):
            continue
        return False
    return True


def _breaks_out(body: list[ast.stmt]) -> bool:
    """Whether a ``break`` in ``body`` leaves *this* loop (not a nested loop or function)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(node.orelse)  # a break in a nested loop's else leaves this loop
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _terminates(body: list[ast.stmt]) -> bool:
    """Whether control can never fall off the end of ``body`` (conservatively True)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _terminates(last.body) and _terminates(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _terminates(last.body)
    if isinstance(last, _TRY_NODES):
        if _terminates(getattr(last, "finalbody", [])):
            return True
        try_body: list[ast.stmt] = getattr(last, "body", [])
        orelse: list[ast.stmt] = getattr(last, "orelse", [])
        handlers: list[ast.ExceptHandler] = getattr(last, "handlers", [])
        return _terminates(try_body + orelse) and all(_terminates(h.body) for h in handlers)
    if isinstance(last, ast.While):
        forever = isinstance(last.test, ast.Constant) and bool(last.test.value)
        return forever and not _breaks_out(last.body)
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        return True  # may be a NoReturn call (sys.exit, a raise helper): not provable
    if isinstance(last, ast.Match):
        return True  # exhaustiveness is not provable here
    return (
        isinstance(last, ast.Assert) and isinstance(last.test, ast.Constant) and not last.test.value
    )


def _signature_end(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Last line of the ``def`` signature."""
    ends = [node.lineno]
    for child in ast.walk(node.args):
        ends.append(getattr(child, "end_lineno", None) or node.lineno)
    if node.returns is not None:
        ends.append(node.returns.end_lineno or node.lineno)
    return max(ends)


def _own_statements(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.stmt]:
    """The statements of ``func``, not those of nested functions or classes (no
    expression is visited: a ``return`` is a statement)."""
    stack: list[ast.stmt] = list(reversed(func.body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if inner:
                stack.extend(reversed(inner))
        for holder in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ():
            stack.extend(reversed(holder.body))


def _wrong_return(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Finding]:
    """``-> bool`` (any never-None builtin) that returns None, or ``-> None`` returning a value."""
    if node.returns is None or _is_stub(node.body):
        return
    is_none = isinstance(node.returns, ast.Constant) and node.returns.value is None
    if not is_none and _never_none(src, node.returns) is None:
        return  # only these two can be proven wrong: skip the body walk
    text = b"\n".join(src.byte_lines[node.lineno - 1 : node.end_lineno or node.lineno])
    if b"yield" in text and any(
        isinstance(n, (ast.Yield, ast.YieldFrom)) for n in kwreads.body_nodes(node)
    ):
        return  # a generator: its annotation is about what it yields
    returns = [n for n in _own_statements(node) if isinstance(n, ast.Return)]
    annotation_added = src.node_added(node.returns)
    is_none = isinstance(node.returns, ast.Constant) and node.returns.value is None
    if is_none:
        for ret in returns:
            if isinstance(ret.value, _NEVER_NONE_VALUES) or (
                isinstance(ret.value, ast.Constant) and ret.value.value is not None
            ):
                if annotation_added or src.node_added(ret):
                    yield _finding(
                        src,
                        ret,
                        "any-annotation",
                        BLOCK,
                        f"`{node.name}` is annotated `-> None` "
                        f"but returns `{_short(src, ret.value)}`",
                    )
        return
    declared = _never_none(src, node.returns)
    if declared is None:
        return
    for ret in returns:
        if ret.value is None or (isinstance(ret.value, ast.Constant) and ret.value.value is None):
            if annotation_added or src.node_added(ret):
                yield _finding(
                    src,
                    ret,
                    "any-annotation",
                    BLOCK,
                    f"`{node.name}` is annotated `-> {declared}` but returns None here",
                )
    if not _terminates(node.body) and (annotation_added or src.node_added(node.body[-1])):
        yield _finding(
            src,
            node.returns,
            "any-annotation",
            BLOCK,
            f"`{node.name}` is annotated `-> {declared}` but can fall off its end and return None",
        )


_CONTAINERS = {
    "dict": "dict",
    "typing.Dict": "dict",
    "list": "list",
    "typing.List": "list",
    "tuple": "tuple",
    "typing.Tuple": "tuple",
    "collections.abc.Mapping": "mapping",
    "typing.Mapping": "mapping",
}


def _container(src: SourceInfo, annotation: ast.expr) -> str | None:
    """``dict`` / ``list`` / ... when a ``*args``/``**kwargs`` annotation is a container."""
    return _CONTAINERS.get(_annotation_base(src, annotation) or "")


def mimicked_class(src: SourceInfo, call: ast.Call) -> tuple[str, str] | None:
    """(class, where) when a ``SimpleNamespace(a=..., b=...)`` has only attributes of a
    class the test defines or imports from the repository (at least two of them)."""
    wanted = {k.arg for k in call.keywords if k.arg}
    if len(wanted) < 2:
        return None
    for name, where, fields in _known_classes(src):
        if wanted <= fields:
            return name, where
    return None


def _known_classes(src: SourceInfo) -> list[tuple[str, str, frozenset[str]]]:
    """Classes of the test file and those it imports from modules of the repository."""
    cached = src.cache.get("classes")
    if isinstance(cached, list):
        return cached
    found: list[tuple[str, str, frozenset[str]]] = [
        (name, src.path, fields) for name, fields in class_fields(src.tree).items()
    ]
    if src.root is not None:
        for node in src.tree.body:
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            wanted = {a.name for a in node.names if a.name[:1].isupper()}
            if not wanted:
                continue
            module = _module_classes(src.root, node.module)
            if module is None:
                continue
            relpath, classes = module
            found.extend((n, relpath, classes[n]) for n in sorted(wanted) if n in classes)
    src.cache["classes"] = found
    return found


def class_fields(tree: ast.Module) -> dict[str, frozenset[str]]:
    """Each module-level class: its annotated fields, methods, ``self.x`` set in ``__init__``."""
    classes: dict[str, frozenset[str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        fields: set[str] = set()
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                fields.add(item.target.id)
            elif isinstance(item, ast.Assign):
                fields.update(t.id for t in item.targets if isinstance(t, ast.Name))
            elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                fields.add(item.name)
                if item.name not in ("__init__", "__post_init__"):
                    continue
                for sub in kwreads.body_nodes(item):
                    if (
                        isinstance(sub, ast.Attribute)
                        and isinstance(sub.ctx, ast.Store)
                        and isinstance(sub.value, ast.Name)
                        and sub.value.id == "self"
                    ):
                        fields.add(sub.attr)
        classes[node.name] = frozenset(fields)
    return classes


_CLASS_RE = re.compile(rb"^class[ \t]+([A-Za-z_][A-Za-z0-9_]*)\b", re.M)
_TOP_LEVEL_RE = re.compile(rb"^(?:class|def|async|@|[A-Za-z_][A-Za-z0-9_.]*[ \t]*[=:(])", re.M)
_INDENT_RE = re.compile(rb"^([ \t]+)\S", re.M)
_SELF_RE = re.compile(rb"\bself\.([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=)")


def class_fields_text(data: bytes) -> dict[str, frozenset[str]]:
    """Module-level classes and their attribute names, read from the text (fast): names
    assigned or annotated at the class body's own indentation, its methods, and
    ``self.x =`` anywhere in the body. An imported module is only looked at for names;
    parsing it whole would cost more than the test it serves."""
    classes: dict[str, frozenset[str]] = {}
    for match in _CLASS_RE.finditer(data):
        start = match.end()
        after = _TOP_LEVEL_RE.search(data, start + 1)
        body = data[start : after.start() if after else len(data)]
        indent = _INDENT_RE.search(body)
        names: set[bytes] = set(_SELF_RE.findall(body))
        if indent is not None:
            own = re.escape(indent.group(1))
            member = re.compile(
                rb"^" + own + rb"(?:(?:async[ \t]+)?def[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)"
                rb"[ \t]*(?:[:(=]|$)",
                re.M,
            )
            names |= set(member.findall(body))
        classes[match.group(1).decode()] = frozenset(n.decode() for n in names)
    return classes


@functools.lru_cache(maxsize=256)
def _parsed_classes(path: str, mtime_ns: int, size: int) -> dict[str, frozenset[str]]:
    """:func:`class_fields_text` of a file, cached by its stat (a sweep reads a module once)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_MODULE_BYTES + 1)
    except OSError:
        return {}
    return {} if len(data) > MAX_MODULE_BYTES else class_fields_text(data)


MAX_MODULE_BYTES = 2_000_000


def _module_classes(root: str, module: str) -> tuple[str, dict[str, frozenset[str]]] | None:
    """The classes of module ``a.b`` read from ``root/a/b.py`` or ``root/a/b/__init__.py``,
    staying inside ``root`` (no symlink out)."""
    base = module.replace(".", "/")
    real_root = os.path.realpath(root)
    for relpath in (f"{base}.py", f"{base}/__init__.py"):
        path = os.path.join(root, relpath)
        try:
            info = os.stat(path)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        if not os.path.realpath(path).startswith(real_root + os.sep):
            continue
        return relpath, _parsed_classes(path, info.st_mtime_ns, info.st_size)
    return None


def any_annotation(src: SourceInfo) -> Iterator[Finding]:
    """``Any`` and untyped signatures in production code, wrong returns, test fakes."""
    if src.is_test:
        for node, _ctx in src.of_type(ast.Call):
            assert isinstance(node, ast.Call)
            if src.qualname(node.func) in _SIMPLE_NAMESPACE and src.node_added(node):
                mimics = mimicked_class(src, node)
                if mimics is not None:
                    yield _finding(
                        src,
                        node,
                        "any-annotation",
                        BLOCK,
                        f"new `SimpleNamespace` fake mimics `{mimics[0]}` ({mimics[1]}), a real "
                        "class: use it or a typed fake",
                    )
                else:
                    yield _finding(
                        src,
                        node,
                        "any-annotation",
                        WARN,
                        "new `SimpleNamespace` fake in a test: it forces `Any` into the code "
                        "under test",
                    )
        return
    for node, _ctx in src.of_type(ast.AnnAssign):
        assert isinstance(node, ast.AnnAssign)
        if src.node_added(node.annotation) and _is_any(src, node.annotation):
            yield _finding(
                src,
                node.annotation,
                "any-annotation",
                WARN,
                f"`{_short(src, node.target)}: {_short(src, node.annotation)}` "
                "turns the type checker off",
            )
    for node, ctx in src.of_type(ast.FunctionDef, ast.AsyncFunctionDef):
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        args += [a for a in (node.args.vararg, node.args.kwarg) if a is not None]
        for arg in args:
            if arg.annotation is None or not src.node_added(arg.annotation):
                continue
            star = "**" if arg is node.args.kwarg else "*" if arg is node.args.vararg else ""
            container = _container(src, arg.annotation) if star else None
            if container is not None:
                each = "value" if star == "**" else "positional argument"
                yield _finding(
                    src,
                    arg.annotation,
                    "any-annotation",
                    BLOCK,
                    f"`{star}{arg.arg}: {_short(src, arg.annotation)}` says every {each} is a "
                    f"{container}; annotate one {each}'s type (or use `Unpack[TypedDict]`)",
                )
            elif _is_any(src, arg.annotation):
                yield _finding(
                    src,
                    arg.annotation,
                    "any-annotation",
                    WARN,
                    f"parameter `{arg.arg}: {_short(src, arg.annotation)}` "
                    f"of `{node.name}` has no contract",
                )
        if node.returns is not None and src.node_added(node.returns) and _is_any(src, node.returns):
            yield _finding(
                src,
                node.returns,
                "any-annotation",
                WARN,
                f"`{node.name}` returns `{_short(src, node.returns)}`: "
                "callers get no type checking",
            )
        yield from _wrong_return(src, node)
        dunder = node.name.startswith("__") and node.name.endswith("__")
        public = (dunder or not node.name.startswith("_")) and not ctx.funcs
        typed = node.returns is not None or any(
            a.annotation is not None for a in args if a.arg not in ("self", "cls")
        )
        if (
            public
            and not typed
            and src.overlaps(node.lineno, _signature_end(node))
            and not _def_edited(src, node)
        ):
            yield _finding(
                src,
                node,
                "any-annotation",
                WARN,
                f"public function `{node.name}` has a fully unannotated signature",
            )


def _def_edited(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the hunk adding the ``def`` line replaced an old ``def`` of that name."""
    old = src.replaced_text(node.lineno)
    name = node.name.encode()
    return name in old and re.search(rb"def\s+" + re.escape(name) + rb"\b", old) is not None


# -- 4. hot-copy -----------------------------------------------------------------------

# Functions that run once (set-up, weight loading, profiling, warm-up): never a hot path.
COLD = (
    "__init__",
    "__post_init__",
    "*load_weight*",
    "*load_model*",
    "profile_run",
    "*profile*",
    "*warmup*",
    "*warm_up*",
    "*dummy*",
    "*capture*",
    "*init_*",
    "*setup*",
    "*benchmark*",
    "*test*",
)


def _copy_kind(src: SourceInfo, call: ast.Call) -> str | None:
    """``clone`` / ``deepcopy`` for the copy calls the pattern looks at.

    ``dst.copy_(src)`` into a pre-allocated buffer is the recommended fix, not a copy.
    """
    if isinstance(call.func, ast.Attribute) and call.func.attr == "clone":
        return "clone"
    if src.qualname(call.func) in _DEEPCOPY:
        return "deepcopy"
    return None


def _why_comment(src: SourceInfo, node: ast.AST) -> bool:
    """A comment on the call's lines or the two lines above it (the pattern's "aware" case)."""
    first = getattr(node, "lineno", 1)
    last = getattr(node, "end_lineno", None) or first
    return any(src.has_comment(line) for line in range(first - 2, last + 1))


def hot_copy(src: SourceInfo) -> Iterator[Finding]:
    """Copies in per-step / per-request code (tests and run-once functions are not hot)."""
    if src.is_test:
        return
    hot_names = (*src.config.request_path, *src.config.hot_path)
    for node, ctx in src.of_type(ast.Call):
        assert isinstance(node, ast.Call)
        kind = _copy_kind(src, node)
        if kind is None or not src.node_added(node):
            continue
        names = ctx.names()
        if names_match(names, COLD) or names_match(names, src.config.fail_fast):
            continue
        hot = names_match(names, hot_names)
        if not ctx.step_loop and hot is None:
            continue
        text = _short(src, node)
        in_loop = ctx.loop and (ctx.step_loop or hot is not None)
        where = (
            f"inside a step loop{f' of `{hot}`' if hot else ''}"
            if in_loop
            else f"in per-step/per-request function `{hot}`"
        )
        if kind == "clone" and in_loop and not _why_comment(src, node):
            yield _finding(
                src,
                node,
                "hot-copy",
                BLOCK,
                f"`{text}` {where} allocates and copies a tensor every iteration, "
                "with no comment saying why",
            )
            continue
        request = names_match(names, src.config.request_path)
        if (
            kind == "deepcopy"
            and request is not None
            and node.args
            and _SCHEDULER_RE.search(unparse(node.args[0]))
        ):
            yield _finding(
                src,
                node,
                "hot-copy",
                BLOCK,
                f"`{text}` deep-copies a scheduler/sampling config on request path `{request}`",
            )
            continue
        what = "allocates a copy" if kind == "clone" else "walks the whole object graph"
        yield _finding(src, node, "hot-copy", WARN, f"`{text}` {where} {what} each time")


# -- 5. async-blocking -----------------------------------------------------------------

# Admin endpoints and tools: a lock held there does not serialize the request path.
ADMIN = (
    "*profile*",
    "*profiler*",
    "*health*",
    "*metric*",
    "*stats*",
    "*admin*",
    "*debug*",
    "*sleep*",
    "*wake_up*",
    "*reset*cache*",
    "*shutdown*",
)
_SUBPROCESS = frozenset(
    {"run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"}
)
_QUEUE_RE = re.compile(r"(?:^|[._])(?:q|queue|[a-z_]*_queue|queue_[a-z_]*)$", re.IGNORECASE)


def _blocking_call(src: SourceInfo, call: ast.Call, awaited: bool) -> tuple[str, bool] | None:
    """(the blocking API a call names, whether the pattern makes it ✗ on serving paths)."""
    name = src.qualname(call.func)
    if name is not None:
        if name == "time.sleep" or name in _URLLIB_CALLS:
            return name, True
        head, _dot, verb = name.rpartition(".")
        if head == "requests" and verb in _HTTP_VERBS:
            return name, True
        if head == "subprocess" and verb in _SUBPROCESS:
            return name, False
    if awaited or not isinstance(call.func, ast.Attribute):
        return None
    attr = call.func.attr
    receiver = call.func.value
    if attr in ("read", "readlines") and isinstance(receiver, ast.Call):
        if src.qualname(receiver.func) == "open":
            return f"open(...).{attr}() (file I/O)", False
    if attr in ("read_text", "read_bytes") and not call.args:
        return f".{attr}() (file I/O)", False
    receiver_text = unparse(receiver, 200)
    if attr == "result" and not call.args and not call.keywords:
        submitted = (
            isinstance(receiver, ast.Call)
            and isinstance(receiver.func, ast.Attribute)
            and receiver.func.attr == "submit"
        )
        if submitted or "fut" in receiver_text.lower():
            return f"{receiver_text}.result() (waits for a thread/process future)", False
    keyed = bool(call.args) and not (
        isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, bool)
    )
    if attr == "get" and not keyed and _QUEUE_RE.search(receiver_text.split("(")[0]):
        blocking = not any(
            (k.arg == "block" and isinstance(k.value, ast.Constant) and not k.value.value)
            for k in call.keywords
        ) and not (call.args and isinstance(call.args[0], ast.Constant) and not call.args[0].value)
        if blocking:
            return f"{receiver_text}.get() (a blocking queue read)", False
    return None


def async_blocking(src: SourceInfo) -> Iterator[Finding]:
    """Blocking calls and awaits under a lock, in ``async def`` code only.

    A lock held across awaits is reported once, at the ``with``/``acquire`` line, when
    the lock statement or one of the awaits under it is new.
    """
    sections: dict[int, tuple[ast.expr, Ctx, ast.Await]] = {}
    awaited: set[int] = set()
    for node, ctx in src.of_type(ast.Call, ast.Await):
        if not ctx.in_async:
            continue
        if isinstance(node, ast.Await):
            awaited.add(id(node.value))
            for lock in ctx.locks:
                if id(lock) not in sections and (src.node_added(node) or src.node_added(lock)):
                    sections[id(lock)] = (lock, ctx, node)
            continue
        assert isinstance(node, ast.Call)
        found = _blocking_call(src, node, id(node) in awaited)
        if found is None or not src.node_added(node):
            continue
        api, listed = found
        if src.is_test and not listed:
            continue  # a test's own file or queue reads do not stall a server
        function = ctx.names()[-1]
        if src.is_serving and listed and not names_match(ctx.names(), ADMIN):
            yield _finding(
                src,
                node,
                "async-blocking",
                BLOCK,
                f"`{api}` in `async def {function}` on a serving path stalls every request",
            )
        else:
            yield _finding(
                src,
                node,
                "async-blocking",
                WARN,
                f"`{api}` in `async def {function}` blocks the event loop",
            )
    for lock, ctx, await_node in sections.values():
        text = _short(src, lock, 40)
        held = f"`{text}` is held across `await` (line {await_node.lineno})"
        request = names_match(ctx.names(), src.config.request_path)
        admin = names_match(ctx.names(), ADMIN)
        if request and not admin:
            yield _finding(
                src,
                lock,
                "async-blocking",
                BLOCK,
                f"{held} on request path `{request}`: it serializes every request",
            )
        else:
            yield _finding(
                src, lock, "async-blocking", WARN, f"{held} in `async def {ctx.names()[-1]}`"
            )


def _kwargs_check(source: SourceFile, config: Config) -> list[Finding]:
    """kwargs-lookup on its own: each read with the verdict one file can give.

    In a sweep the reads are also left on the source (``key_uses``): the run decides
    the cross-file ✗ once for the whole change and replaces these findings.
    """
    uses = list(kwargs_lookup(sweep_info(source, config)))
    if isinstance(source, SweepSource):
        source.key_uses.extend(uses)
    return [kwargs_finding(use, [], []) for use in uses]


def _each(
    pattern: Callable[[SourceInfo], Iterator[Finding]],
) -> Callable[[SourceFile, Config], list[Finding]]:
    """A registry check running ``pattern`` over the source's shared walk."""

    def check(source: SourceFile, config: Config) -> list[Finding]:
        """The pattern's findings on the lines the sweep looks at."""
        return list(pattern(sweep_info(source, config)))

    return check


# Rule id -> check, for policytool.rules._sweep_rules (the rules' registry entries).
CHECKS: dict[str, Callable[[SourceFile, Config], list[Finding]]] = {
    "kwargs-lookup": _kwargs_check,
    "broad-except": _each(broad_except),
    "any-annotation": _each(any_annotation),
    "hot-copy": _each(hot_copy),
    "async-blocking": _each(async_blocking),
}
