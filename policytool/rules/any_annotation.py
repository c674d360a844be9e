# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``any-annotation`` (sweep, added lines): ``Any`` and untyped signatures, provably
wrong return annotations, and ``SimpleNamespace`` test fakes of real classes.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
from collections.abc import Iterator

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import register
from policytool.engine.source import SourceFile
from policytool.rules import _fakes as fakes
from policytool.rules import _kwreads as kwreads
from policytool.rules import _wrong_annotation as wrong
from policytool.rules._pysource import TRY_NODES, SourceInfo, sweep_info
from policytool.rules._sweep import BLOCK, CONFIG_DOC, WARN, finding, short, sweep_rule

DOC = f"""\
## What it checks
In production code (not `test-paths`), on added lines: a `: Any` parameter or
variable (`*args: Any` / `**kwargs: Any` too: name the parameters or use
`Unpack[TypedDict]`), a `-> Any` return, or a function with no annotation at all (⚠):
public or private, module-level, method or nested, whose `def` line the change adds
(a parameter added to an old `def` does not make it new). A function with no parameters
(besides `self`/`cls`) that only lacks its return type gets "add `-> None`" (or its
return type). A module's `__getattr__`/`__dir__` returning `Any` (PEP 562 lazy exports)
is not reported. `**kwargs: dict[...]` is ✗: it says every *value* is a dict, which is
almost never meant (`**kwargs: Unpack[SomeTypedDict]` is). A provably wrong return
annotation is ✗: `-> bool` (any builtin that cannot hold None) that returns None (or
`x if c else None`) or falls off its end, `-> None` that returns a value, `-> T` (a
class, `torch.Tensor`, a `typing` generic) with an explicit `return None`, a bare
`return` or a conditional None, and `-> dict[...]`
(`list`, `tuple`, `set`, `bool`, `int`, `str`, `float`, `bytes`) returning a literal of
another kind (`return a, b`); a new `-> T` or `-> A | B` (not a dunder's) returning a
literal no member can hold (`-> torch.Tensor | IntermediateTensors` returning
`hidden, aux`: a member holds it when it is `tuple`, `Sequence`, a class with bases or
an unknown name). A wrong return is reported once, at the `def` line when the change
adds the annotation (its returns listed), else at each added return. So is an implicit
Optional, `x: T = None` (or `field(default=None)` / `field(default_factory=None)`) as an
attribute or dataclass field where `T` cannot hold None, or as a parameter whose body
gives None a meaning (`x is None`, `if not x`, `x or default`; a parameter only passed
on or used unconditionally has a dead default, not a misleading type): the message
says `T | None`;
and a bool default under a number, `flag: int = True` (or `float`): "annotate bool".
Only what is certain counts: builtins, `typing`/`collections.abc` generics, classes the
file defines or an import (absolute or relative) defines as `class`, and a class named
dotted through
an imported module (`ray.actor.ActorHandle`: a CamelCase last part, its module not on
the path or defining it as `class` there); a `TypeVar`, an alias (a name ending in
`Like`/`Type`/`T`, starting `Optional`/`Maybe`, or from a types module such as
`torch.types`, `numpy.typing`), an unresolvable name, generators, abstract or stub
bodies and a line with `# type: ignore` or `# noqa` are skipped.

In tests: a new `SimpleNamespace(...)` that stands in for a typed data class (a
`@dataclass`, vLLM `@config`, `TypedDict`, `Protocol`, `NamedTuple`, pydantic model,
`msgspec.Struct` or a `*Config` class) is ✗, and the message names the class. What it
stands in for is found the way a reviewer does: from what it is bound to (`vllm_config
= SimpleNamespace(...)`, `runner.moe_config = ...`, `monkeypatch.setattr(obj, "config",
...)`, a keyword `f(kv_cache_spec=...)`, a list element, the return of a
`make_vllm_config()` helper, `cast(T, ...)`, a mock's return value: `mock_get_config.
return_value = ...` under `@patch("pkg.get_ascend_config")`, `with patch(...) as m`,
`patch(..., return_value=...)` or `MagicMock(return_value=...)` bound to a getter is what
`get_ascend_config` returns, an `ascend_config`), read against the annotations of that name
in the modules the test imports and the modules those import (`vllm_config: VllmConfig`,
`self.rl_config = RlConfig(...)`), a class named like it (`kv_cache_config` ->
`KVCacheConfig`), and the field annotations of the class an enclosing fake stands in
for (`SimpleNamespace(cache_config=SimpleNamespace(...))` inside a `VllmConfig` fake,
directly or through a local name), what a patched function returns (`patch("pkg.
get_config", return_value=cfg)`: its `def`'s `-> AppConfig`), the `__init__` parameter
of a class the fake is passed to; or from its keywords: all attributes of a class the
test defines or imports, or all data fields of the one record class (`@dataclass`,
`TypedDict`, `NamedTuple`, attrs, `msgspec.Struct`, pydantic) of the repository that has
them, at least three names counting those of the fakes it holds that fit the fields'
types (two when it is passed to a record class's constructor); not a private class, a
field only a property has, two classes of different names, a fake named like a plain
class beside the record (`input_buffers`, `InputBuffers`) or named as a service object
(`stage0_client`). Attributes the code sets on the object (`self.moe_config.tp_group =
...`) count as its class's. Modules
are read from the repository, else from the installed packages on `sys.path` (as text:
nothing is imported); at least half of the fake's keywords must be attributes of the
class, and a fake passed as one of its keywords must fit that field's type when the
type is a record (`@dataclass`, `TypedDict`, `msgspec.Struct`...: a layer whose
`compressor` sub-layer has a `prefix` is not the metadata class with a `compressor`
field). Any other new `SimpleNamespace` (a module of functions, a duck-typed layer or
service object, an empty placeholder) is ⚠.

## Why
`Any` turns the type checker off for that position; a wrong annotation is worse, it
misleads. Test fakes built from `SimpleNamespace` force `Any` into the code under test.

## Example
```python
def _extract_mm_output(engine_outputs: Any) -> dict[str, Any]:  # ⚠
    ...

def is_ready(flag: int) -> bool:  # ✗ when a path returns None
    if flag:
        return True
```

## Fix
Replace `Any` with the concrete type, a `Protocol` or a `Union`; for truly dynamic
values use `object` and `isinstance` narrowing. In tests use the real class, a small
`@dataclass`/`TypedDict` or a `Protocol` and a fake. Not fixable by `policytool fix`.

## Configuration
{CONFIG_DOC}"""


_ANY_NAMES = frozenset({"Any", "typing.Any", "typing_extensions.Any"})
_SIMPLE_NAMESPACE = frozenset({"SimpleNamespace", "types.SimpleNamespace"})

# Return annotations that can never hold None: a ``return None`` there is provably wrong.
_NEVER_NONE = wrong.BUILTINS | frozenset(
    f"typing.{name}" for name in ("List", "Dict", "Set", "FrozenSet", "Tuple")
)
# ``try``, and ``try``/``except*`` where the running Python has it (3.11+).
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
    return short(src, annotation).strip("\"'") if name in _NEVER_NONE else None


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
    if isinstance(last, TRY_NODES):
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


def _contradiction(src: SourceInfo, ret: ast.Return, declared: str | None) -> str | None:
    """How ``ret`` contradicts the annotation: a value under ``-> None`` (``declared``
    None), None under ``-> declared``; None when it does not."""
    value = ret.value
    if declared is None:
        if isinstance(value, _NEVER_NONE_VALUES) or (
            isinstance(value, ast.Constant) and value.value is not None
        ):
            return f"returns `{short(src, value)}`"
        return None
    if value is None or wrong.gives_none(value):
        return "may return None" if isinstance(value, ast.IfExp) else "returns None"
    return None


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
    # Its own returns, not those of nested functions or classes.
    own = kwreads.statements(node.body, scopes=False)
    returns = [n for n in own if isinstance(n, ast.Return)]
    annotation_added = src.node_added(node.returns)
    declared = None if is_none else _never_none(src, node.returns)
    contradictions: list[tuple[ast.Return, str, str]] = []
    for ret in returns:
        how = _contradiction(src, ret, declared)
        if how is not None and (annotation_added or src.node_added(ret)):
            fix = "fix the annotation" if declared is None else f"annotate `-> {declared} | None`"
            contradictions.append((ret, how, fix))
    yield from wrong.wrong_returns(src, node, declared or "None", contradictions, annotation_added)
    if declared is None:
        return
    if not _terminates(node.body) and (annotation_added or src.node_added(node.body[-1])):
        yield finding(
            src,
            node if annotation_added else node.returns,
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
            # An imported class counts when it is a typed data class (a dataclass, a
            # config, a TypedDict...): a layer or service class faked by a few attributes
            # is a duck-typed stand-in, the ⚠ case.
            loaded = _finder(src).load(node.module)
            kinds = loaded[0].classes if loaded is not None else {}
            found.extend(
                (n, relpath, classes[n]) for n in sorted(wanted) if n in classes and kinds.get(n)
            )
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


@functools.lru_cache(maxsize=256)
def _parsed_classes(path: str, mtime_ns: int, size: int) -> dict[str, frozenset[str]]:
    """:func:`class_fields_text` of a file, cached by its stat (a sweep reads a module once)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_MODULE_BYTES + 1)
    except OSError:
        return {}
    return {} if len(data) > MAX_MODULE_BYTES else fakes.class_fields_text(data)


MAX_MODULE_BYTES = 2_000_000


def _module_classes(root: str, module: str) -> tuple[str, dict[str, frozenset[str]]] | None:
    """The classes of module ``a.b`` read from ``root/a/b.py`` or ``root/a/b/__init__.py``,
    staying inside ``root`` (no symlink out)."""
    hit = fakes.module_file(root, module.replace(".", "/"))
    if hit is None:
        return None
    relpath, path, info = hit
    return relpath, _parsed_classes(path, info.st_mtime_ns, info.st_size)


def _parents(src: SourceInfo, call: ast.AST) -> dict[int, ast.AST]:
    """id(node) -> parent, over the top-level statement holding ``call`` (each such
    statement walked once: the parent links a binding needs never leave it)."""
    parents = src.cache.setdefault("parents", {})
    walked = src.cache.setdefault("parents_walked", set())
    assert isinstance(parents, dict) and isinstance(walked, set)
    line = getattr(call, "lineno", 0)
    for stmt in src.tree.body:
        if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            if id(stmt) not in walked:
                walked.add(id(stmt))
                parents[id(stmt)] = src.tree
                for parent in ast.walk(stmt):
                    for child in ast.iter_child_nodes(parent):
                        parents[id(child)] = parent
            break
    return parents


_FINDERS: dict[tuple[str | None, tuple[str, ...]], fakes.Finder] = {}


def _finder(src: SourceInfo) -> fakes.Finder:
    """The module finder of the file's repository (one per process, root and sys.path):
    the modules it reads are the same for every test file of a change."""
    import sys

    key = (src.root, tuple(sys.path))
    finder = _FINDERS.get(key)
    if finder is None:
        if len(_FINDERS) > 8:
            _FINDERS.clear()
        finder = _FINDERS[key] = fakes.Finder(src.root)
    return finder


def fake_of(src: SourceInfo, call: ast.Call) -> fakes.Mimicked | None:
    """The typed class a ``SimpleNamespace(...)`` in a test stands in for: by what it is
    bound to (the annotation of that name in the code under test, a class named like it,
    the field of the class an enclosing fake stands in for) or by its keywords (all
    fields of a class the test defines or imports, or of the one record class of the
    repository that has them all)."""
    found = _fake_of(src, call, 0)
    if found is not None:
        return found[0]
    by_fields = mimicked_class(src, call)
    if by_fields is None:
        return None
    return fakes.Mimicked(by_fields[0], by_fields[1], "its keywords (all fields of the class)")


def _is_fake(src: SourceInfo, node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and bool(node.keywords)
        and src.qualname(node.func) in _SIMPLE_NAMESPACE
    )


def _local_fakes(
    src: SourceInfo, call: ast.AST, parents: dict[int, ast.AST]
) -> dict[str, ast.Call]:
    """Local name -> the ``SimpleNamespace(...)`` the function holding ``call`` binds it to
    (names bound once only)."""
    func = fakes._enclosing_function(call, parents)
    if func is None:
        return {}
    memo = src.cache.setdefault("local_fakes", {})
    assert isinstance(memo, dict)
    if id(func) in memo:
        cached: dict[str, ast.Call] = memo[id(func)]
        return cached
    bound: dict[str, ast.Call] = {}
    twice: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                if target.id in bound or target.id in twice:
                    twice.add(target.id)
                    bound.pop(target.id, None)
                elif _is_fake(src, node.value):
                    assert isinstance(node.value, ast.Call)
                    bound[target.id] = node.value
                else:
                    twice.add(target.id)
    memo[id(func)] = bound
    return bound


def _nested(
    src: SourceInfo, call: ast.Call, parents: dict[int, ast.AST]
) -> tuple[tuple[str, frozenset[str]], ...]:
    """(keyword, its fake's keywords) of each fake passed as a keyword of ``call``,
    directly or through a local name bound to it."""
    out: list[tuple[str, frozenset[str]]] = []
    local: dict[str, ast.Call] | None = None
    for k in call.keywords:
        if not k.arg:
            continue
        value: ast.AST = k.value
        if isinstance(value, ast.Name):
            if local is None:
                local = _local_fakes(src, call, parents)
            value = local.get(value.id, value)
        if isinstance(value, ast.Call) and _is_fake(src, value):
            out.append((k.arg, frozenset(n.arg for n in value.keywords if n.arg)))
    return tuple(out)


def _in_record(
    src: SourceInfo, call: ast.Call, parents: dict[int, ast.AST], modules: list[str]
) -> bool:
    """Whether the fake is a keyword of a call of a record class
    (``AscendCompressorMetadata(cache=fake)``): a real slot, whatever its annotation."""
    keyword = parents.get(id(call))
    outer = parents.get(id(keyword)) if isinstance(keyword, ast.keyword) else None
    if not isinstance(outer, ast.Call):
        return False
    name = src.qualname(outer.func) or ""
    cls = name.rsplit(".", 1)[-1]
    if not cls[:1].isupper() or cls in _SIMPLE_NAMESPACE:
        return False
    module = name.rpartition(".")[0]
    finder = _finder(src)
    for where in [module] if module else modules:
        defined = fakes.define(finder, cls, where)
        if defined is not None:
            return defined.record
    return False


def _fake_of(
    src: SourceInfo, call: ast.Call, depth: int
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """:func:`fake_of` by binding, else by its fields, memoized per call (nested fakes ask
    for their outer)."""
    memo = src.cache.setdefault("fakes", {})
    assert isinstance(memo, dict)
    if id(call) in memo:
        cached: tuple[fakes.Mimicked, fakes.Defined] | None = memo[id(call)]
        return cached
    memo[id(call)] = None  # a cycle through local names ends here
    result = None
    if call.keywords:
        parents = _parents(src, call)
        modules = src.cache.get("modules")
        if not isinstance(modules, list):
            modules = list(fakes.imported_modules(src.tree))
            src.cache["modules"] = modules
        keywords = frozenset(k.arg for k in call.keywords if k.arg)
        nested = _nested(src, call, parents)
        bound = fakes.binding(call, parents)
        if bound is not None:
            name, element, explicit = bound
            outer = fakes.outer_call(call, parents)
            outer_found = (
                _fake_of(src, outer, depth + 1)
                if outer is not None and depth < 4 and src.qualname(outer.func) in _SIMPLE_NAMESPACE
                else None
            )
            result = fakes.mimicked(
                _finder(src),
                modules,
                name,
                element,
                explicit,
                keywords,
                outer_found[1] if outer_found is not None else None,
                nested,
            )
            if result is None and name and not element and not explicit:
                result = _passed_fake(src, call, parents, name, modules, keywords, nested)
            if result is None and name and not element and not explicit and depth < 4:
                result = _held_fake(src, call, parents, name, modules, keywords, nested, depth)
        if result is None:
            result = fakes.by_fields(
                _finder(src),
                keywords,
                nested,
                _in_record(src, call, parents, modules),
                modules,
                bound[0] if bound is not None else "",
            )
    memo[id(call)] = result
    return result


def _held_fake(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    var: str,
    modules: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
    depth: int,
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake bound to a local name that another fake holds as a keyword
    (``cache = SimpleNamespace(req_metadata=req)``): the field of that keyword in the
    class the outer fake stands in for."""
    stmt = parents.get(id(call))
    if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Name):
        return None
    func = fakes._enclosing_function(stmt, parents)
    if func is None:
        return None
    for node in ast.walk(func):
        if node is call or not _is_fake(src, node):
            continue
        assert isinstance(node, ast.Call)
        for k in node.keywords:
            if k.arg and isinstance(k.value, ast.Name) and k.value.id == var:
                outer_found = _fake_of(src, node, depth + 1)
                if outer_found is None:
                    continue
                return fakes.mimicked(
                    _finder(src), modules, k.arg, False, None, keywords, outer_found[1], nested
                )
    return None


_MOCK_CALLS = frozenset(
    {"MagicMock", "Mock", "AsyncMock", "NonCallableMagicMock", "create_autospec"}
)


def _passed_fake(
    src: SourceInfo,
    call: ast.Call,
    parents: dict[int, ast.AST],
    var: str,
    modules: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[fakes.Mimicked, fakes.Defined] | None:
    """A fake bound to a local variable (``common_metadata = SimpleNamespace(...)``) that
    names no class stands in for the parameter the test passes it to
    (``builder.build(0, common_metadata)`` -> ``build``'s ``common_attn_metadata``,
    read from ``def build(`` in the modules the test imports or those they import)."""
    stmt = parents.get(id(call))
    if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Name):
        return None
    finder = _finder(src)
    second = finder.second.get(tuple(modules)) or []
    tried = {var}
    for callee, where in fakes.passed_as(var, stmt, parents):
        found: tuple[fakes.Mimicked, fakes.Defined] | None = None
        if isinstance(where, str) and "." in callee:
            # ``patch("pkg.get_config", return_value=var)``: what ``get_config`` returns.
            found = fakes.patched_return(finder, callee, keywords, nested)
            if found is not None:
                mimics, defined = found
                how = f"what the patched `{callee}` returns: {mimics.how}"
                return fakes.Mimicked(mimics.name, mimics.where, how), defined
            callee = "patch"
        if isinstance(where, str):
            label = f"`{where}`, what `{callee}(...)` binds it to"
            if callee not in ("setattr", "object", "patch") and callee not in _MOCK_CALLS:
                label = f"the keyword `{where}` of `{callee}` it is passed as"
            if where not in tried:
                tried.add(where)
                found = fakes.mimicked(finder, modules, where, False, None, keywords, None, nested)
        else:
            for name, module in fakes.parameter_names(finder, [*modules, *second], callee, where):
                label = f"the parameter `{name}` of `{callee}` it is passed to"
                found = fakes.annotated_in(finder, module, name, keywords, nested)
                if found is not None:
                    break
        if found is not None:
            mimics, defined = found
            return fakes.Mimicked(mimics.name, mimics.where, f"{label}: {mimics.how}"), defined
    return None


def any_annotation(src: SourceInfo) -> Iterator[Finding]:
    """``Any`` and untyped signatures in production code, wrong returns, test fakes."""
    if src.is_test:
        for node, _ctx in src.of_type(ast.Call):
            assert isinstance(node, ast.Call)
            if src.qualname(node.func) in _SIMPLE_NAMESPACE and src.node_added(node):
                mimics = fake_of(src, node)
                if mimics is not None:
                    yield finding(
                        src,
                        node,
                        "any-annotation",
                        BLOCK,
                        f"new `SimpleNamespace` fake stands in for `{mimics.name}` "
                        f"({mimics.where}; found by {mimics.how}), a real typed class: "
                        f"build a `{mimics.name}` or a typed fake",
                    )
                else:
                    yield finding(
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
            yield finding(
                src,
                node.annotation,
                "any-annotation",
                WARN,
                f"`{short(src, node.target)}: {short(src, node.annotation)}` "
                "turns the type checker off",
            )
        yield from wrong.annassign_findings(src, node)
    for node, _ctx in src.of_type(ast.FunctionDef, ast.AsyncFunctionDef):
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
                yield finding(
                    src,
                    arg.annotation,
                    "any-annotation",
                    BLOCK,
                    f"`{star}{arg.arg}: {short(src, arg.annotation)}` says every {each} is a "
                    f"{container}; annotate one {each}'s type (or use `Unpack[TypedDict]`)",
                )
            elif _is_any(src, arg.annotation):
                message = (
                    f"`{star}{arg.arg}: {short(src, arg.annotation)}` of `{node.name}` "
                    "passes every value unchecked; name the parameters or use "
                    "`Unpack[TypedDict]`"
                    if star
                    else f"parameter `{arg.arg}: {short(src, arg.annotation)}` "
                    f"of `{node.name}` has no contract"
                )
                yield finding(src, arg.annotation, "any-annotation", WARN, message)
        lazy_exports = node.name in ("__getattr__", "__dir__") and node in src.tree.body
        if (
            node.returns is not None
            and src.node_added(node.returns)
            and _is_any(src, node.returns)
            and not lazy_exports  # a module's ``__getattr__(name) -> Any``: PEP 562's form
        ):
            yield finding(
                src,
                node.returns,
                "any-annotation",
                WARN,
                f"`{node.name}` returns `{short(src, node.returns)}`: callers get no type checking",
            )
        checked = node.returns is not None and _never_none(src, node.returns) is not None
        yield from _merged(
            node.lineno, [*_wrong_return(src, node), *wrong.function_findings(src, node, checked)]
        )
        params = [a for a in args if a.arg not in ("self", "cls")]
        typed = node.returns is not None or any(a.annotation is not None for a in params)
        if typed or not src.overlaps(node.lineno, node.lineno) or _def_edited(src, node):
            continue  # judged on the ``def`` line the change adds, not on an old def
        if params:
            yield finding(
                src,
                node,
                "any-annotation",
                WARN,
                f"function `{node.name}` has a fully unannotated signature",
            )
        else:
            returns = any(
                isinstance(n, ast.Return) and n.value is not None
                for n in kwreads.statements(node.body, scopes=False)
            )
            hint = "add its return type" if returns or _is_generator(node) else "add `-> None`"
            yield finding(
                src,
                node,
                "any-annotation",
                WARN,
                f"`{node.name}` takes no arguments but has no return annotation: {hint}",
            )


def _merged(line: int, found: list[Finding]) -> Iterator[Finding]:
    """``found``, with the ✗ of one function's ``def`` line joined into one finding (one
    site: its wrong returns, its falling off the end)."""
    at_def = [f for f in found if f.line == line and f.severity == BLOCK]
    yield from (f for f in found if not (f.line == line and f.severity == BLOCK))
    if len(at_def) == 1:
        yield at_def[0]
    elif at_def:
        first = at_def[0]
        yield dataclasses.replace(first, message="; ".join(f.message for f in at_def))


def _is_generator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function yields (its own body, not nested functions)."""
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in kwreads.body_nodes(node))


def _def_edited(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the hunk adding the ``def`` line replaced an old ``def`` of that name."""
    old = src.replaced_text(node.lineno)
    name = node.name.encode()
    return name in old and re.search(rb"def\s+" + re.escape(name) + rb"\b", old) is not None


def check(source: SourceFile, config: Config) -> list[Finding]:
    """``Any``, untyped and wrong signatures, test fakes, on the lines the sweep looks at."""
    return list(any_annotation(sweep_info(source, config)))


RULE = register(
    sweep_rule(
        "any-annotation",
        "a new `Any` / untyped signature; ✗ for a wrong annotation or a "
        "`SimpleNamespace` test fake of a real class",
        check,
        DOC,
    )
)
