# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What a ``SimpleNamespace`` test fake stands in for, found the way a reviewer does.

A fake is bound somewhere: a name (``vllm_config = SimpleNamespace(...)``), an
attribute (``runner.moe_config = ...``, ``monkeypatch.setattr(obj, "config", ...)``),
a keyword (``f(kv_cache_spec=...)``), an element of a list bound to a name, the return
value of a ``make_vllm_config()`` helper or of a ``lambda`` patched over
``get_ascend_config``. The code under test annotates that name (``vllm_config:
VllmConfig``, ``self.moe_config: FusedMoEConfig``): the modules the test imports are
read (from the repository, its ``src/`` layout included, else from the installed
packages on ``sys.path``; text only, nothing is imported or run) for such annotations and
for class names matching the bound name (``kv_cache_config`` -> ``KVCacheConfig``),
following re-exports a few hops to the class definition. A class is a *typed data class*
when it is a ``@dataclass`` (or vLLM's ``@config``), a ``TypedDict``, ``Protocol``,
``NamedTuple``, pydantic model, ``msgspec.Struct``, or a ``*Config`` class, or derives
from one (a pydantic model's subclass in another module). A parameter annotated with a
plain class of a ``py.typed`` installed package (starlette's ``Request``) is a typed
stub too, when the fake's keywords are all its attributes.
"""

from __future__ import annotations

import ast
import bisect
import collections
import dataclasses
import functools
import itertools
import os
import re
import stat
import sys
import sysconfig
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

from policytool.core.text import PYTHON_PARSE_ERRORS
from policytool.formats.pyimports import package_of_path, resolve_relative
from policytool.rules._pyast import last_name

MAX_MODULE_BYTES = 2_000_000
# Hops followed from an annotation to the class definition (re-exports).
MAX_HOPS = 3

_IDENT = rb"[A-Za-z_][A-Za-z0-9_]*"
# ``name: Annotation`` (a parameter, a class field, ``self.name: T = ...``).
_ANNOTATION_RE = re.compile(
    rb"(?<![A-Za-z0-9_])(" + _IDENT + rb")[ \t]*:[ \t]*(?!=)"
    rb"([\"']?(?:[A-Za-z_][A-Za-z0-9_.]*)(?:\[[^\]\n:=]*\])?(?:[ \t]*\|[ \t]*None)?[\"']?)"
)
# A docstring's type of a parameter, read as its annotation: Google style ``name (T):``
# / ``name (T, optional):`` and Sphinx ``:param T name:`` (Sphinx ``:type name: T`` and
# numpy ``name : T`` are read by the pattern above).
_DOC_GOOGLE_RE = re.compile(
    rb"^[ \t]+(" + _IDENT + rb")[ \t]*\(`{0,2}([A-Za-z_][A-Za-z0-9_.]*)`{0,2}"
    rb"(?:,[ \t]*optional)?\)[ \t]*:",
    re.M,
)
_DOC_SPHINX_RE = re.compile(
    rb":param[ \t]+([A-Za-z_][A-Za-z0-9_.]*)[ \t]+(" + _IDENT + rb")[ \t]*:"
)
_CLASS_RE = re.compile(rb"^class[ \t]+(" + _IDENT + rb")[ \t]*(\([^)]*\))?[ \t]*:", re.M)
# ``self.name = ClassName(`` (the class an attribute holds).
_SELF_NEW_RE = re.compile(rb"\bself\.(" + _IDENT + rb")[ \t]*=[ \t]*([A-Z][A-Za-z0-9_]*)\(")
_TOP_LEVEL_RE = re.compile(rb"^(?:class|def|async|@|[A-Za-z_][A-Za-z0-9_.]*[ \t]*[=:(])", re.M)
_INDENT_RE = re.compile(rb"^([ \t]+)\S", re.M)
# ``self.moe_config.tp_group = ...``: an attribute the code sets on the object it holds.
_SET_ON_RE = re.compile(rb"\.(" + _IDENT + rb")\.(" + _IDENT + rb")[ \t]*=(?!=)")
_SELF_RE = re.compile(rb"\bself\.([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=)")
_FROM_IMPORT_RE = re.compile(
    rb"^[ \t]*from[ \t]+(\.*[A-Za-z0-9_.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.M
)
# ``import anthropic`` / ``import openai.types as t, httpx``: the top-level packages (led
# by the literal, fast to scan for; a match counts only with nothing but indentation
# before it on its line, so ``from a import b`` is none).
_PLAIN_IMPORT_RE = re.compile(rb"import[ \t]+([A-Za-z_][A-Za-z0-9_., \t]*)")
# A package imported by name at run time: ``importlib.import_module("anthropic")``,
# ``__import__("openai")``, a project's ``require_dependency("anthropic", ...)``. Two
# patterns, each led by a literal (``mport``, ``equire``) that ``re`` scans for fast: one
# pattern led by an alternation or ``\w*`` reads every module ten times slower.
_DYNAMIC_IMPORT_RES = tuple(
    re.compile(word + rb"[A-Za-z_]*[ \t]*\([ \t\n]*[\"']([A-Za-z_][A-Za-z0-9_]*)[\"'.]")
    for word in (rb"mport", rb"equire")
)
_TYPEVAR_RE = re.compile(
    rb"^("
    + _IDENT
    + rb")[ \t]*=[ \t]*(?:typing\.)?TypeVar\([ \t]*([\"'])"
    + _IDENT
    + rb"\2[^)\n]*?\bbound[ \t]*=[ \t]*([\"']?[A-Za-z_][A-Za-z0-9_.]*[\"']?)",
    re.M,
)
_DATA_DECORATORS = re.compile(
    rb"@(?:dataclasses\.)?dataclass\b|@config\b|@attr\.s\b|@attrs\.define\b|@define\b|"
    rb"@frozen\b|@pydantic_dataclass\b"
)
# The bases that make a class a typed record. ``SQLModel`` is pydantic's ``BaseModel``
# with table columns (gpustack's ``Cluster``).
RECORD_BASE_NAMES = ("TypedDict", "NamedTuple", "BaseModel", "SQLModel", "Struct")
_RECORD_BASES = re.compile(rb"\b(?:" + "|".join(RECORD_BASE_NAMES).encode() + rb")\b")
_DATA_BASES = re.compile(
    rb"\b(?:Protocol|PretrainedConfig|PreTrainedConfig|"
    + "|".join(RECORD_BASE_NAMES).encode()
    + rb"|"
    rb"[A-Za-z0-9_]*Config|[A-Za-z0-9_]*Metadata|[A-Za-z0-9_]*Spec|[A-Za-z0-9_]*Params)\b"
)
_ENUM_BASES = re.compile(rb"\b(?:Enum|IntEnum|StrEnum|Flag|IntFlag)\b")
# The attributes of an enum member.
_ENUM_MEMBER = frozenset({"value", "name"})
# Names a fake is bound to that say nothing about what it fakes.
_NAMELESS = frozenset(
    {"return_value", "side_effect", "new", "self", "obj", "value", "x", "fake", "mock", "_"}
)
_PREFIXES = ("make_", "build_", "create_", "fake_", "mock_", "dummy_", "get_", "new_", "stub_")
_GENERIC_TYPES = frozenset(
    {
        "Any",
        "object",
        "Optional",
        "Union",
        "list",
        "dict",
        "tuple",
        "set",
        "List",
        "Dict",
        "Tuple",
        "Sequence",
        "Mapping",
        "Callable",
        "Iterable",
        "Tensor",
        "str",
        "int",
        "float",
        "bool",
        "bytes",
        "None",
        "type",
        "Type",
        "Module",
        "MagicMock",
        "Mock",
        "SimpleNamespace",
    }
)


@dataclass(frozen=True)
class Mimicked:
    """The class a fake stands in for: its name, the file defining it (or where it was
    named), and how it was found (for the message)."""

    name: str
    where: str
    how: str


@dataclass(frozen=True)
class _Module:
    """What the text of one module says: annotations by name, classes, imports."""

    annotations: dict[str, tuple[str, ...]]
    # class name -> is a typed data class
    classes: dict[str, bool]
    # imported name -> (module text as written, e.g. ".sub" or "vllm.config")
    imports: dict[str, str]
    # class name -> its attribute names (fields, methods, ``self.x =``; bases of the module)
    fields: dict[str, frozenset[str]]
    # class name -> the names of its bases
    bases: dict[str, tuple[str, ...]]
    # classes whose attributes are exactly their declared fields (``@dataclass``,
    # ``TypedDict``, ``NamedTuple``, ``msgspec.Struct``, pydantic): not a ``*Config``
    # known by name only, such as transformers' ``PretrainedConfig``, which takes any
    # attribute a model's config sets
    records: frozenset[str] = frozenset()
    # ``M = TypeVar("M", bound=X)``: M -> X (an annotation ``attn_metadata: M`` takes an X)
    typevars: tuple[tuple[str, str], ...] = ()
    # ``x.name.attr = ...``: name -> the attributes the module sets on what ``name`` holds
    set_on: dict[str, frozenset[str]] = dataclasses.field(default_factory=dict)
    # a nested class's bare name -> its qualified one (``Config`` -> ``Trainer.Config``)
    qualified: dict[str, str] = dataclasses.field(default_factory=dict)
    # ``PretrainedConfig = PreTrainedConfig`` at module level: a class's other name
    aliases: dict[str, str] = dataclasses.field(default_factory=dict)
    # top-level packages imported whole (``import anthropic``) or by name at run time
    # (``importlib.import_module("anthropic")``): where the module's objects come from,
    # though it names none of their classes
    packages: tuple[str, ...] = ()

    @functools.cached_property
    def lowered(self) -> tuple[tuple[str, str], ...]:
        """(lower-case name, name) of each class defined or imported (name lookups)."""
        return tuple((n.lower(), n) for n in (*self.classes, *self.imports))


@functools.lru_cache(maxsize=256)
def walked(node: ast.AST) -> tuple[ast.AST, ...]:
    """``ast.walk(node)`` as a tuple, kept for the last 256 nodes asked: every fake of a
    test function reads that function's nodes (where it is bound, patched, passed), and a
    test with hundreds of fakes walked the same function hundreds of times per reading.
    The trees are never changed after parsing, so the walk stays true."""
    return tuple(ast.walk(node))


def outer_call(call: ast.Call, parents: dict[int, ast.AST]) -> ast.Call | None:
    """The call whose keyword (directly, or through a list/dict) ``call`` is."""
    node: ast.AST = call
    for _ in range(4):
        parent = parents.get(id(node))
        if isinstance(parent, ast.keyword):
            grand = parents.get(id(parent))
            return grand if isinstance(grand, ast.Call) else None
        if not isinstance(parent, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
            return None
        node = parent
    return None


def _comprehended(parent: ast.AST, node: ast.AST) -> bool:
    """Whether ``node`` is what comprehension ``parent`` builds each element from:
    ``[SimpleNamespace(name=f"w{i}") for i in range(5)]`` holds fakes as a display does
    (not a fake in the ``for`` or ``if`` part)."""
    if isinstance(parent, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return node is parent.elt
    return isinstance(parent, ast.DictComp) and node is parent.value


def binding(call: ast.Call, parents: dict[int, ast.AST]) -> tuple[str, bool, str | None] | None:
    """(bound name, is an element of a container bound to it, explicit class) of a
    ``SimpleNamespace(...)`` call; None when it is bound to nothing that names it."""
    node: ast.AST = call
    element = False
    for _ in range(6):
        parent = parents.get(id(node))
        if parent is None:
            return None
        if isinstance(parent, ast.keyword):
            if parent.arg == "return_value":
                # ``patch("pkg.get_config", return_value=fake)``, ``MagicMock(
                # return_value=fake)`` bound to ``get_config``: what the callable returns.
                called = parents.get(id(parent))
                name = _returned_by(called, parents) if isinstance(called, ast.Call) else ""
                return (name, element, None) if name else None
            return (parent.arg, element, None) if parent.arg else None
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            if isinstance(parent, ast.AnnAssign):
                explicit = _annotation_name(parent.annotation)
                target: ast.expr = parent.target
            else:
                explicit = None
                target = parent.targets[0]
            if isinstance(target, ast.Attribute) and target.attr == "return_value":
                # ``mock_get_config.return_value = fake``: the patched callable's return.
                name = _mock_name(target.value, parent, parents)
                return (name, element, explicit) if name or explicit else None
            name = _target_name(target)
            return (name, element, explicit) if name or explicit else None
        if (
            isinstance(parent, (ast.List, ast.Tuple, ast.Set))
            or (isinstance(parent, ast.Dict) and node in parent.values)
            or _comprehended(parent, node)
        ):
            element = True
            node = parent
            continue
        if isinstance(parent, ast.Call) and silencing_cast(parent, node):
            node = parent  # ``cast(Any, fake)`` hides the fake's type, not its slot
            continue
        if isinstance(parent, ast.Call):
            found = _call_binding(parent, node, element)
            if found is not None and isinstance(node, ast.Lambda) and found[0]:
                # ``setattr(mod, "get_ascend_config", lambda: fake)``: what it returns.
                return (_strip_callable(found[0]), found[1], found[2])
            return found
        if isinstance(parent, ast.Lambda):
            node = parent
            continue
        if isinstance(parent, ast.Return):
            func = _enclosing_function(parent, parents)
            if func is None:
                return None
            name = func.name.lstrip("_")
            for prefix in _PREFIXES:
                name = name.removeprefix(prefix)
            return (name, element, _annotation_name(func.returns)) if name else None
        return None
    return None


# Calls that set an attribute by name, ``(obj, "name", value)``: ``setattr``,
# ``monkeypatch.setattr``, ``patch.object`` and ``object.__setattr__`` (the bypass of a
# frozen dataclass's or a pydantic model's own ``__setattr__``).
SETTERS = frozenset({"setattr", "object", "__setattr__"})
_PATCHERS = frozenset({"patch", "object", "patch.object", "mock.patch", "mock.patch.object"})
_MOCKS = frozenset({"MagicMock", "Mock", "AsyncMock", "NonCallableMagicMock", "create_autospec"})


def _unwrapped(func: ast.expr) -> ast.expr:
    """``f`` of ``f.__wrapped__``: a call through it runs the undecorated ``f``, whose
    parameters are the ones ``f`` declares."""
    while isinstance(func, ast.Attribute) and func.attr == "__wrapped__":
        func = func.value
    return func


def _callee(call: ast.Call) -> str:
    func = _unwrapped(call.func)
    return last_name(func)


def spec_class(call: ast.Call) -> str:
    """The class a specced mock stands for: ``Mock(spec=Cls)`` (``spec_set=``, any mock
    class of :data:`_MOCKS`) or ``create_autospec(Cls)``; "" when the call is no specced
    mock or its spec is no class name."""
    callee = _callee(call)
    if callee not in _MOCKS:
        return ""
    spec = next((k.value for k in call.keywords if k.arg in ("spec", "spec_set")), None)
    if callee == "create_autospec" and call.args:
        spec = call.args[0]
    name = _terminal(spec) if spec is not None else ""
    return name if name[:1].isupper() else ""


def called_on_class(call: ast.Call) -> bool:
    """Whether the call is ``Cls.meth(...)`` (its first argument is the receiver)."""
    func = _unwrapped(call.func)
    return isinstance(func, ast.Attribute) and _terminal(func.value)[:1].isupper()


def _strip_callable(name: str) -> str:
    """``get_ascend_config`` -> ``ascend_config``: the object a callable returns."""
    name = name.rsplit(".", 1)[-1].lstrip("_")
    for prefix in _PREFIXES:
        name = name.removeprefix(prefix)
    return name


def _patched_name(call: ast.Call) -> str:
    """The attribute a ``patch("a.b.name")`` / ``patch.object(obj, "name")`` /
    ``mocker.patch(...)`` call replaces; "" for any other call."""
    if _callee(call) not in ("patch", "object"):
        return ""
    index = 1 if _callee(call) == "object" else 0
    if len(call.args) > index:
        arg = call.args[index]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value.rsplit(".", 1)[-1]
    return ""


def _returned_by(call: ast.Call, parents: dict[int, ast.AST], depth: int = 0) -> str:
    """The object a patched or mock callable returns, by the callable's name: the patch
    target (``patch("pkg.get_config", ...)``) or the name the mock is bound to."""
    patched = _patched_name(call)
    if patched:
        return _strip_callable(patched)
    if _callee(call) not in _MOCKS or depth > 2:
        return ""
    parent = parents.get(id(call))
    if isinstance(parent, ast.Assign):
        return _strip_callable(_target_name(parent.targets[0]))
    if isinstance(parent, ast.keyword) and parent.arg and parent.arg != "return_value":
        return _strip_callable(parent.arg)
    if isinstance(parent, ast.Call):
        found = _call_binding(parent, call, False)
        return _strip_callable(found[0]) if found is not None and found[0] else ""
    return ""


def _mock_name(mock: ast.expr, stmt: ast.AST, parents: dict[int, ast.AST]) -> str:
    """The object the mock ``mock`` returns when called (``mock.return_value``): by the
    attribute it is (``obj.get_config``), or by the patch that made it (see
    :func:`patch_of_mock`)."""
    if isinstance(mock, ast.Attribute):
        return _strip_callable(mock.attr)
    patcher = patch_of_mock(mock, stmt, parents)
    return _strip_callable(_patched_name(patcher)) if patcher is not None else ""


def patch_of_mock(mock: ast.expr, stmt: ast.AST, parents: dict[int, ast.AST]) -> ast.Call | None:
    """The ``patch(...)`` call that made the mock named ``mock`` in the function holding
    ``stmt``: a ``@patch`` decorator of the test (bottom-most first, after ``self``),
    ``with patch(...) as mock``, ``mock = patch(...).start()`` / ``mocker.patch(...)``."""
    if not isinstance(mock, ast.Name):
        return None
    func = _enclosing_function(stmt, parents)
    if func is None:
        return None
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    injecting = [
        d
        for d in reversed(func.decorator_list)
        if isinstance(d, ast.Call)
        and _patched_name(d)
        and len(d.args) <= (2 if _callee(d) == "object" else 1)
        and not any(k.arg == "new" for k in d.keywords)
    ]
    if mock.id in params:
        index = params.index(mock.id)
        return injecting[index] if index < len(injecting) else None
    for node in walked(func):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                var = item.optional_vars
                if isinstance(var, ast.Name) and var.id == mock.id:
                    if isinstance(item.context_expr, ast.Call):
                        return item.context_expr if _patched_name(item.context_expr) else None
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == mock.id for t in node.targets
        ):
            value = node.value
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr == "start"
                and isinstance(value.func.value, ast.Call)
            ):
                value = value.func.value
            if isinstance(value, ast.Call) and _patched_name(value):
                return value
    return None


def _call_binding(
    call: ast.Call, arg: ast.AST, element: bool
) -> tuple[str, bool, str | None] | None:
    """``setattr(obj, "name", fake)`` / ``monkeypatch.setattr(obj, "name", fake)`` /
    ``patch.object(obj, "name", fake)`` / ``cast(T, fake)``."""
    func = call.func
    callee = last_name(func)
    if callee == "cast" and len(call.args) == 2 and call.args[1] is arg:
        explicit = _annotation_name(call.args[0])
        return ("", element, explicit) if explicit else None
    if callee in SETTERS and len(call.args) >= 3 and call.args[2] is arg:
        name = call.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            attr = name.value.rsplit(".", 1)[-1]
            return (attr, element, None)
    return None


# What ``cast(T, x)`` turns ``x`` into when it says nothing of its class.
_SILENT_TYPES = frozenset({"Any", "typing.Any", "object"})


def silencing_cast(call: ast.Call, arg: ast.AST) -> bool:
    """Whether ``call`` is ``cast(Any, arg)`` (or ``cast(object, arg)``): it turns the
    checker off for ``arg`` and leaves it in the slot the cast fills, which still says
    what ``arg`` stands in for."""
    if _callee(call) != "cast" or len(call.args) != 2 or call.args[1] is not arg:
        return False
    kind = call.args[0]
    text = kind.value if isinstance(kind, ast.Constant) else ast.unparse(kind)
    return isinstance(text, str) and text.strip() in _SILENT_TYPES


def _target_name(target: ast.expr) -> str:
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Subscript):
        return _target_name(target.value)
    return ""


def _enclosing_function(node: ast.AST, parents: dict[int, ast.AST]) -> ast.FunctionDef | None:
    current = parents.get(id(node))
    while current is not None:
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return current  # type: ignore[return-value]
        current = parents.get(id(current))
    return None


def _annotation_name(annotation: ast.expr | None) -> str | None:
    """``X`` of ``X``, ``mod.X``, ``"X"``, ``Optional[X]``, ``X | None``; None for the rest."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return _type_name(annotation.value)
    try:
        return _type_name(ast.unparse(annotation))
    except RecursionError:
        return None


def _split_top(text: str, separator: str) -> list[str]:
    """``text`` split at each ``separator`` outside brackets (one pass)."""
    if separator not in text:
        return [text]
    parts: list[str] = []
    depth = 0
    start = 0
    for index, char in enumerate(text):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


# At most this many ``Optional[...]`` / ``Union[...]`` of one annotation's text are opened.
MAX_UNION_EXPANSIONS = 8
# ``Optional[...]`` / ``Union[...]``, bare or from typing / typing_extensions.
_UNION_TEXT_RE = re.compile(r"(?:typing(?:_extensions)?\.)?(Optional|Union)\[(.*)\]", re.S)


def union_text_members(text: str) -> list[str]:
    """The members of an annotation's text, left to right, without quotes: ``A | B``,
    ``Union[A, B]`` and ``Optional[A]`` (``A`` and ``None``), nested ones too
    (``Optional[A | B]``); the text itself when it is no union. The text reading of
    :func:`_pysource.union_items`, for the annotations the module index keeps as text.
    At most :data:`MAX_UNION_EXPANSIONS` unions are opened (each is a pass over its
    text): deeper ones stay whole."""
    members: list[str] = []
    stack = [text.strip().strip("\"'").strip()]
    opened = 0
    while stack:
        parts = _split_top(stack.pop(), "|")
        if len(parts) > 1:
            stack.extend(reversed(parts))
            continue
        part = parts[0].strip()
        match = _UNION_TEXT_RE.fullmatch(part) if opened < MAX_UNION_EXPANSIONS else None
        if match is None:
            members.append(part)
            continue
        opened += 1
        items = [item.strip() for item in _split_top(match.group(2), ",")]
        if match.group(1) == "Optional":
            items.append("None")
        stack.extend(reversed(items))
    return members


def _first_member(text: str) -> str:
    """The first member of an annotation's text that is not ``None`` ("" for none)."""
    return next((m for m in union_text_members(text) if m and m != "None"), "")


def _type_name(text: str) -> str | None:
    """The class a type annotation's text names (``Optional[X]``, ``X | None``)."""
    text = _first_member(text)
    if "[" in text:
        return None
    parts = text.split(".")
    name = parts[-1]
    # a private class (``_H2DTransfer``) the code annotates is as real as a public one
    if not name.lstrip("_")[:1].isupper() or name in _GENERIC_TYPES or not name.isidentifier():
        return None
    if len(parts) > 1 and parts[-2][:1].isupper() and parts[-2].isidentifier():
        return f"{parts[-2]}.{name}"  # a class nested in another (``Trainer.Config``)
    return name


def _element_type(text: str) -> str | None:
    """``X`` of ``list[X]`` / ``Sequence[X]`` / ``dict[K, X]``."""
    match = re.fullmatch(r"\s*[\w.]+\[(?:[^,\[\]]+,\s*)?([\w.\"']+)\]\s*", text.strip("\"'"))
    return _type_name(match.group(1)) if match else None


# Containers whose elements a list or tuple display fills (``list[list[X]]``).
_SEQUENCES = frozenset(
    {"list", "List", "Sequence", "tuple", "Tuple", "Iterable", "set", "Set", "frozenset"}
)


def balanced(text: str) -> str:
    """An annotation's text with the closing brackets the module index cuts (it keeps one
    bracket level: ``Optional[List[X]``)."""
    return text + "]" * (text.count("[") - text.count("]"))


def _field_class(text: str) -> str | None:
    """The class a field's annotation holds: ``usage: Optional[Usage]`` for ``usage=fake``,
    ``choices: List[Choice]`` for ``choices=[fake]``."""
    return _type_name(text) or nested_element_type(text, 1)


def nested_element_type(text: str, depth: int) -> str | None:
    """``X`` of ``list[X]`` at ``depth`` 1, of ``list[list[X]]`` at 2 (``Optional`` or
    ``| None`` around each level, ``tuple[X, ...]``); None for other shapes."""
    text = balanced(text.strip().strip("\"'"))
    for _level in range(depth):
        text = _first_member(text)
        match = re.fullmatch(r"(?:typing\.)?(\w+)\[(.*)\]", text, re.S)
        if match is None or match.group(1) not in _SEQUENCES:
            return None
        inner = match.group(2).strip().removesuffix("...").strip().removesuffix(",").strip()
        flat = inner
        while "[" in flat and flat != (flat := re.sub(r"\[[^\[\]]*\]", "", flat)):
            pass  # the commas inside brackets are an inner type's
        if "," in flat:
            return None  # a heterogeneous tuple: which element is meant is unknown
        text = inner
    return _type_name(text)


def module_file(root: str, base: str) -> tuple[str, str, os.stat_result] | None:
    """(relpath, path, stat) of module path ``base`` (``a/b``) under ``root``:
    ``a/b.py`` or ``a/b/__init__.py``, a regular file that stays inside ``root`` (a
    symlink out of it is not followed); None when there is none."""
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
            continue  # a symlink out of its root
        return relpath, path, info
    return None


# A class body cut inside a string (an unindented docstring line looks top-level) is
# read from the AST of the class alone: the cut moves to the next top-level line outside
# any triple-quoted string, within this many bytes.
MAX_CLASS_BYTES = 400_000
_TRIPLE_RE = re.compile(rb'"""|\'\'\'')
# A triple-quoted string: a class docstring's example (``model = ColPaliForRetrieval(
# config)`` at the body's indentation) names no attribute.
_TRIPLE_STRING_RE = re.compile(rb'[rRbBuUfF]{0,2}(?:"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\')')


def _class_end(data: bytes, start: int) -> int:
    """Where the text reader cuts the class body that starts at ``start``."""
    after = _TOP_LEVEL_RE.search(data, start + 1)
    return after.start() if after else len(data)


def _fields_of_classdef(node: ast.ClassDef) -> frozenset[str]:
    """Fields of a class definition: names assigned or annotated in its body, its
    methods, and ``self.x =`` anywhere in it."""
    names: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
        elif isinstance(item, ast.Assign):
            names.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(item.name)
    for sub in walked(node):
        if (
            isinstance(sub, ast.Attribute)
            and isinstance(sub.ctx, ast.Store)
            and isinstance(sub.value, ast.Name)
            and sub.value.id == "self"
        ):
            names.add(sub.attr)
    return frozenset(names)


def _parsed_class(data: bytes, start: int, end: int, triples: list[int]) -> ast.ClassDef | None:
    """The class at ``start`` parsed from its text alone, the cut ``end`` moved to the
    first top-level line after an even number of triple quotes (``triples``: their
    offsets); None when that is over ``MAX_CLASS_BYTES`` away or the text does not parse."""
    while (bisect.bisect_left(triples, end) - bisect.bisect_left(triples, start)) % 2:
        if end >= len(data) or end - start > MAX_CLASS_BYTES:
            return None
        end = _class_end(data, end)
    if end - start > MAX_CLASS_BYTES:
        return None
    try:
        tree = ast.parse(data[start:end])
    except PYTHON_PARSE_ERRORS:
        return None
    node = tree.body[0] if tree.body else None
    return node if isinstance(node, ast.ClassDef) else None


def _class_fields_ast(
    data: bytes, start: int, end: int, triples: list[int]
) -> frozenset[str] | None:
    """The fields of the class at ``start`` from the AST of its text alone
    (:func:`_parsed_class`)."""
    node = _parsed_class(data, start, end, triples)
    return _fields_of_classdef(node) if node is not None else None


def _class_node(path: str, cls: str) -> ast.ClassDef | None:
    """The module-level ``class cls`` of the module at ``path``, parsed from its own text
    alone (cut as :func:`class_fields_text` cuts it, :func:`_parsed_class`): a module's
    whole tree is not parsed, nor kept, for one class."""
    data = _module_bytes(path)
    if data is None:
        return None
    match = re.search(rb"^class[ \t]+" + re.escape(cls.encode()) + rb"\b", data, re.M)
    if match is None:
        return None
    triples = [m.start() for m in _TRIPLE_RE.finditer(data)]
    node = _parsed_class(data, match.start(), _class_end(data, match.end()), triples)
    return node if node is not None and node.name == cls else None


def class_fields_text(data: bytes) -> dict[str, frozenset[str]]:
    """Module-level classes and their attribute names, read from the text (fast): names
    assigned or annotated at the class body's own indentation, its methods, and
    ``self.x =`` anywhere in the body. An imported module is only looked at for names;
    parsing it whole would cost more than the test it serves. A body the text cuts
    inside a string (an odd number of triple quotes: a docstring with an unindented
    line) is read from the AST of the class alone (:func:`_class_fields_ast`)."""
    classes: dict[str, frozenset[str]] = {}
    triples: list[int] | None = None
    for match in _CLASS_RE.finditer(data):
        start = match.end()
        end = _class_end(data, start)
        body = data[start:end]
        if len(_TRIPLE_RE.findall(body)) % 2:
            if triples is None:
                triples = [m.start() for m in _TRIPLE_RE.finditer(data)]
            from_ast = _class_fields_ast(data, match.start(), end, triples)
            if from_ast is not None:
                classes[match.group(1).decode()] = from_ast
                continue
        # Strings keep their lines (the indentation below is read from code lines).
        body = _TRIPLE_STRING_RE.sub(lambda m: b"\n" * m.group().count(b"\n"), body)
        # The own indentation is the first indented line's after the header line (a
        # comment after ``):`` is no member).
        newline = body.find(b"\n")
        indent = _INDENT_RE.search(body, newline + 1) if newline >= 0 else None
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


_SUBSCRIPT_RE = re.compile(r"\[[^\[\]]*\]")
_NESTED_CLASS_RE = re.compile(
    rb"^([ \t]+)class[ \t]+(" + _IDENT + rb")[ \t]*(\([^)]*\))?[ \t]*:", re.M
)
# Nested classes read per module (each is parsed alone).
MAX_NESTED_CLASSES = 64


def _nested_classes(
    data: bytes,
) -> dict[str, tuple[frozenset[str], list[str], bool, bool, str]]:
    """Classes defined in a module-level class's body (``Trainer.Config``), keyed by the
    qualified name, and by the bare name too when no other class of the module has it
    (an annotation written inside the outer class says ``Config``): (fields, bases,
    typed data class, record, qualified name). A body that does not parse alone is left
    out."""
    tops = [(m.start(), m.group(1).decode()) for m in _CLASS_RE.finditer(data)]
    found: dict[str, tuple[frozenset[str], list[str], bool, bool, str]] = {}
    bare: dict[str, list[str]] = {}
    for match in itertools.islice(_NESTED_CLASS_RE.finditer(data), MAX_NESTED_CLASSES):
        before = [name for start, name in tops if start < match.start()]
        if not before:
            continue
        outer_start = max(start for start, _name in tops if start < match.start())
        if _class_end(data, outer_start) <= match.start():
            continue  # a class inside a function, not in the outer class's body
        indent = match.group(1)
        stop = re.compile(rb"^(?!" + re.escape(indent) + rb"[ \t])(?=[ \t]*[^\s#])", re.M)
        after = stop.search(data, data.find(b"\n", match.end()) + 1 or len(data))
        end = after.start() if after else len(data)
        if end - match.start() > MAX_CLASS_BYTES:
            continue
        head = data[max(0, match.start() - 400) : match.start()].rstrip(b"\n").split(b"\n")
        decorators = list(
            itertools.takewhile(lambda line: line.strip().startswith(b"@"), reversed(head))
        )
        text = b"".join(line + b"\n" for line in reversed(decorators)) + data[match.start() : end]
        try:
            tree = ast.parse(textwrap.dedent(text.decode("utf-8", "replace")))
        except PYTHON_PARSE_ERRORS:
            continue
        node = tree.body[0] if tree.body else None
        if not isinstance(node, ast.ClassDef):
            continue
        bases = (match.group(3) or b"").decode("ascii", "replace")
        record = any(_DATA_DECORATORS.search(line) for line in decorators) or bool(
            _RECORD_BASES.search(bases.encode())
        )
        data_class = bool(
            record or _DATA_BASES.search(bases.encode()) or node.name.endswith("Config")
        )
        name = node.name
        qualified = f"{before[-1]}.{name}"
        found[qualified] = (
            _fields_of_classdef(node),
            re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", _SUBSCRIPT_RE.sub("", bases)),
            data_class,
            record,
            qualified,
        )
        bare.setdefault(name, []).append(qualified)
    top_names = {name for _start, name in tops}
    for name, nesting in bare.items():
        if len(nesting) == 1 and name not in top_names:
            found[name] = found[nesting[0]]
    return found


# A module-level ``NewName = OldName`` of CamelCase names (a deprecated or short name).
_CLASS_ALIAS_RE = re.compile(rb"^([A-Z][A-Za-z0-9_]*) *= *([A-Z][A-Za-z0-9_]*) *(?:#.*)?$", re.M)


def parse_module(data: bytes) -> _Module:
    """The annotations, classes and ``from`` imports of a module's text."""
    annotations: dict[str, list[str]] = {}
    for match in _ANNOTATION_RE.finditer(data):
        name = match.group(1).decode()
        annotations.setdefault(name, []).append(match.group(2).decode())
    for match in _SELF_NEW_RE.finditer(data):
        annotations.setdefault(match.group(1).decode(), []).append(match.group(2).decode())
    for match in _DOC_GOOGLE_RE.finditer(data):
        annotations.setdefault(match.group(1).decode(), []).append(match.group(2).decode())
    for match in _DOC_SPHINX_RE.finditer(data):
        annotations.setdefault(match.group(2).decode(), []).append(match.group(1).decode())
    fields = class_fields_text(data)
    bases_of: dict[str, list[str]] = {}
    classes: dict[str, bool] = {}
    records: set[str] = set()
    for match in _CLASS_RE.finditer(data):
        name = match.group(1).decode()
        start = match.start()
        # The decorator lines right above the class.
        head = data[max(0, start - 400) : start].rstrip(b"\n").split(b"\n")
        decorators: list[bytes] = []
        for line in reversed(head):
            if line.startswith(b"@") or (decorators and line.startswith((b" ", b"\t", b")"))):
                decorators.append(line)
                continue
            break
        bases = match.group(2) or b""
        # a base's type parameters (``Generic[TInitInfo]``, ``Base[_T]``) are no bases
        outer = bases.decode("ascii", "replace")
        for _ in range(4):
            outer = _SUBSCRIPT_RE.sub("", outer)
        bases_of[name] = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", outer)
        # ``@strict(accept_kwargs=True)`` (transformers 5's ``PreTrainedConfig``) takes
        # any attribute: a data class, not a record.
        record = not any(b"accept_kwargs" in d for d in decorators) and (
            any(_DATA_DECORATORS.search(d) for d in decorators) or bool(_RECORD_BASES.search(bases))
        )
        # an ``Enum``: its members are typed objects a fake of ``.value`` / ``.name`` mimics
        enum = bool(_ENUM_BASES.search(bases))
        if enum:
            fields[name] = fields.get(name, frozenset()) | _ENUM_MEMBER
        data_class = bool(record or enum or _DATA_BASES.search(bases) or name.endswith("Config"))
        classes[name] = data_class
        if record:
            records.add(name)
    qualified: dict[str, str] = {}
    for name, nested in _nested_classes(data).items():
        fields[name], bases_of[name], classes[name], record, full = nested
        if record:
            records.add(name)
        if full != name:
            qualified[name] = full
    set_on: dict[str, set[str]] = {}
    for match in _SET_ON_RE.finditer(data):
        set_on.setdefault(match.group(1).decode(), set()).add(match.group(2).decode())
    imports = {local: f"{module}:{name}" for module, name, local in from_imports(data)}
    merged: dict[str, frozenset[str]] = {}

    def merge(name: str, depth: int) -> frozenset[str]:
        # A base of the same module, and its bases there (``MLAAttentionSpec(
        # FullAttentionSpec)``, ``FullAttentionSpec(AttentionSpec)``), a few levels.
        if name in merged:
            return merged[name]
        own = fields.get(name, frozenset())
        if depth < 6:
            inherited = [merge(base, depth + 1) for base in bases_of.get(name, []) if base != name]
            own = own.union(*inherited)
        if depth == 0:
            merged[name] = own
        return own

    for name in fields:
        merge(name, 0)
    return _Module(
        {k: tuple(v) for k, v in annotations.items()},
        classes,
        imports,
        merged,
        {k: tuple(v) for k, v in bases_of.items()},
        frozenset(records),
        tuple(
            (m.group(1).decode(), m.group(3).decode().strip("\"'").rsplit(".", 1)[-1])
            for m in _TYPEVAR_RE.finditer(data)
        ),
        {k: frozenset(v) for k, v in set_on.items()},
        qualified,
        {m.group(1).decode(): m.group(2).decode() for m in _CLASS_ALIAS_RE.finditer(data)},
        _whole_packages(data),
    )


def from_imports(data: bytes) -> Iterator[tuple[str, str, str]]:
    """(module, name, the name it is bound to) of each ``from module import name [as
    local]`` in ``data``, at any indentation, parenthesised lists included. Bytes that
    are not UTF-8 (a hostile or broken file) read as replacement characters: no name."""
    for match in _FROM_IMPORT_RE.finditer(data):
        module = match.group(1).decode("ascii")  # the pattern's own characters
        names = match.group(2).decode("utf-8", "replace").strip("()")
        # A comment ends at its line (huggingface_hub's ``__init__`` ends every name of
        # an import list with a noqa comment naming F401): strip each before the lines
        # are joined.
        names = " ".join(line.split("#", 1)[0] for line in names.split("\n"))
        for part in names.split(","):
            words = part.split()
            if not words:
                continue
            local = words[-1] if len(words) == 3 and words[1] == "as" else words[0]
            yield module, words[0], local


# At most this many packages imported whole are kept per module: each is looked up on
# ``sys.path`` when a test's fakes are matched.
MAX_WHOLE_PACKAGES = 64


def _whole_packages(data: bytes) -> tuple[str, ...]:
    """The top-level packages ``data`` imports whole or by a literal name at run time
    (:data:`_PLAIN_IMPORT_RE`, :data:`_DYNAMIC_IMPORT_RES`), in the order written, at most
    :data:`MAX_WHOLE_PACKAGES`."""
    found: dict[str, None] = {}
    names = itertools.chain(
        (
            words[0].split(".", 1)[0]
            for match in _PLAIN_IMPORT_RE.finditer(data)
            if not data[data.rfind(b"\n", 0, match.start()) + 1 : match.start()].strip()
            for part in match.group(1).decode("ascii", "replace").split(",")
            if (words := part.split())
        ),
        (
            match.group(1).decode()
            for pattern in _DYNAMIC_IMPORT_RES
            for match in pattern.finditer(data)
        ),
    )
    for name in names:
        found.setdefault(name, None)
        if len(found) >= MAX_WHOLE_PACKAGES:
            break
    return tuple(found)


@functools.lru_cache(maxsize=4096)
def _module_at(path: str, mtime_ns: int, size: int) -> _Module | None:
    """:func:`parse_module` of a file, cached by its stat."""
    del mtime_ns, size
    data = _module_bytes(path)
    return None if data is None else parse_module(data)


# Folders of the work tree that hold its importable packages besides the root itself
# (``src/guidellm/``, ``src/vllm_router/``: the test imports ``guidellm``).
SRC_LAYOUTS = ("src", "python")
# Top-level folders whose name is no identifier (``mooncake-wheel/mooncake/``) cannot be
# imported as packages: they can only be module roots, as their tests' ``sys.path`` makes
# them. At most this many are read.
MAX_FOLDER_ROOTS = 32


# A folder with more entries than this is read no further for module roots.
MAX_LISTED = 4096


def _listed(path: str) -> list[os.DirEntry[str]]:
    """The folders of ``path`` (no symlink, not hidden, not a folder of tests or
    builds), sorted by name; none when it cannot be read or is too large to list."""
    try:
        with os.scandir(path) as entries:
            listed = list(itertools.islice(entries, MAX_LISTED + 1))
    except OSError:
        return []
    if len(listed) > MAX_LISTED:
        return []
    return sorted(
        (
            entry
            for entry in listed
            if not entry.name.startswith(".")
            and entry.name not in _SKIP_DIRS
            and entry.is_dir(follow_symlinks=False)
        ),
        key=lambda entry: entry.name,
    )


def folder_roots(root: str) -> list[str]:
    """The top-level folders of ``root`` that are module roots by their name (not an
    identifier; not hidden, no symlink: :func:`_listed`), sorted, at most
    :data:`MAX_FOLDER_ROOTS`."""
    found = [entry.path for entry in _listed(root) if not entry.name.isidentifier()]
    return found[:MAX_FOLDER_ROOTS]


# A folder holding one of these is a project of its own (``python/aibrix/pyproject.toml``
# in a monorepo): CI installs it, so its packages import from that folder.
PROJECT_FILES = ("pyproject.toml", "setup.py")


def _is_project(path: str) -> bool:
    """Whether ``path`` holds a project file and is no package itself."""
    return not os.path.isfile(os.path.join(path, "__init__.py")) and any(
        os.path.isfile(os.path.join(path, name)) for name in PROJECT_FILES
    )


def project_roots(root: str) -> list[str]:
    """The folders one or two levels below ``root`` that are projects of their own
    (:data:`PROJECT_FILES`: ``python/aibrix/``, ``sdk/``), their ``src/`` when they
    have one, sorted, at most :data:`MAX_FOLDER_ROOTS`."""
    found: list[str] = []
    for top in _listed(root):
        for folder in (top, *_listed(top.path)):
            if not _is_project(folder.path):
                continue
            inner = os.path.join(folder.path, "src")
            # a ``src`` that links elsewhere would read modules outside the repository
            inside = os.path.isdir(inner) and not os.path.islink(inner)
            found.append(inner if inside else folder.path)
            if len(found) == MAX_FOLDER_ROOTS:
                return found
    return found


class Finder:
    """Finds modules by dotted name in the repository root, then on ``sys.path``."""

    def __init__(self, root: str | None) -> None:
        """``root``: the work tree (None: only installed packages)."""
        self.root = os.path.realpath(root) if root is not None else None
        roots = [self.root] if self.root is not None else []
        # ``mooncake-wheel/``: module roots by their name (listed once per finder)
        self.folder_roots = folder_roots(self.root) if self.root is not None else []
        if self.root is not None:
            # a ``src`` layout (``src/pkg/``): the package the tests import lives there
            for layout in SRC_LAYOUTS:
                inner = os.path.join(self.root, layout)
                if os.path.isdir(inner) and not os.path.islink(inner):
                    roots.append(inner)
            roots.extend(self.folder_roots)
            roots.extend(r for r in project_roots(self.root) if r not in roots)
        self.src_roots = frozenset(roots[1:])
        for entry in sys.path:
            if not entry or not os.path.isdir(entry):
                continue
            real = os.path.realpath(entry)
            if self.root is not None and (real == self.root or real.startswith(self.root + os.sep)):
                continue
            if real not in roots:
                roots.append(real)
        self.roots = roots
        self._found: dict[str, tuple[str, str] | None] = {}
        self._loaded: dict[str, tuple[_Module, str] | None] = {}
        # Per test file: the second tier of modules, and the answers already given.
        self.second: dict[tuple[str, ...], list[str]] = {}
        # (package, its directory) of the installed packages read for those modules.
        self.packages: dict[tuple[str, ...], list[tuple[str, str]]] = {}
        self.answers: dict[tuple[object, ...], tuple[Mimicked, Defined] | None] = {}
        # The plain class the work tree annotates a slot name with (``_fake_slots``).
        self.slot_classes: dict[str, str | None] = {}
        # The work tree's module texts, and the modules declaring a field (``by_fields``).
        self.sources: dict[str, bytes] | None = None
        self.probes: dict[str, list[str]] = {}
        self.field_index: dict[str, list[str]] | None = None
        # Each ``name: Type`` of the work tree by name (``by_consensus``), the same way.
        self.annotation_probes: dict[str, list[tuple[str, bytes]]] = {}
        self.annotation_index: dict[str, list[tuple[str, bytes]]] | None = None
        # The work tree modules that call a name (``name(``), and what the calls of a
        # callee pass for one of its parameters (class, caller module): ``callers_pass``.
        self.calling: dict[str, list[str]] = {}
        # The work tree modules that define a name (``def name(``): ``defining_modules``,
        # probed a name at a time, then from the index of every module's ``def`` names.
        self.defining: dict[str, list[str]] = {}
        self.def_index: dict[bytes, list[str]] | None = None
        self.passed: dict[tuple[str, str, str], tuple[str, str] | None] = {}
        # An installed package the work tree's code imports -> its directory (``_fake_hf``).
        self.tops: dict[str, str | None] = {}
        # (module, class) -> the attributes it declares with a type (``typed_attributes``)
        self.typed: dict[tuple[str, str], frozenset[str]] = {}

    def second_tier(self, modules: list[str]) -> list[str]:
        """The modules ``modules`` import from (:func:`imports_of`), read once per test
        file's modules: every reading sees the same tier, whatever asked first."""
        key = tuple(modules)
        if key not in self.second:
            self.second[key] = imports_of(self, modules)
        return self.second[key]

    def find(self, module: str) -> tuple[str, str] | None:
        """(path, path to show) of module ``a.b``: ``a/b.py`` or ``a/b/__init__.py``."""
        if module in self._found:
            return self._found[module]
        found = None
        base = module.replace(".", "/")
        if module and all(p.isidentifier() for p in module.split(".")):
            for root in self.roots:
                hit = module_file(root, base)
                if hit is not None:
                    shown = hit[0]
                    if self.root is not None and root != self.root and root in self.src_roots:
                        shown = os.path.relpath(hit[1], self.root)  # ``src/pkg/mod.py``
                    found = (hit[1], shown)
                    break
        self._found[module] = found
        return found

    def tree(self, module: str) -> ast.Module | None:
        """The parsed module ``a.b`` (:func:`module_tree`, bounded and cached), or None."""
        found = self.find(module)
        return module_tree(found[0]) if found is not None else None

    def load(self, module: str) -> tuple[_Module, str] | None:
        """The parsed module and its path to show (looked up once per finder)."""
        if module in self._loaded:
            return self._loaded[module]
        self._loaded[module] = loaded = self._load(module)
        return loaded

    def _load(self, module: str) -> tuple[_Module, str] | None:
        """:meth:`load`, not memoized."""
        found = self.find(module)
        if found is None:
            return None
        path, relpath = found
        try:
            info = os.stat(path)
        except OSError:
            return None
        parsed = _module_at(path, info.st_mtime_ns, info.st_size)
        return (parsed, relpath) if parsed is not None else None


# The finders kept per process, one per work tree and ``sys.path`` (a few: tests sweep
# many small trees in one process).
_FINDERS: dict[tuple[str | None, tuple[str, ...]], Finder] = {}
MAX_FINDERS = 8


def finder_for(root: str | None) -> Finder:
    """The module finder of work tree ``root`` and the current ``sys.path``, shared by
    every rule of the process: the files of a change ask about the same modules."""
    key = (root, tuple(sys.path))
    finder = _FINDERS.get(key)
    if finder is None:
        if len(_FINDERS) >= MAX_FINDERS:
            _FINDERS.clear()
        finder = _FINDERS[key] = Finder(root)
    return finder


def absolute_module(module: str, current: str, is_package: bool) -> str:
    """``..x`` from module ``current`` (a package's ``__init__`` when ``is_package``) ->
    absolute dotted name (:func:`resolve_relative`); "" when the dots climb above the top."""
    dots = len(module) - len(module.lstrip("."))
    if not dots:
        return module
    package = current if is_package else current.rpartition(".")[0]
    return resolve_relative(package, dots, module[dots:]) or ""


@dataclass(frozen=True)
class Defined:
    """A class definition found: where, whether a typed data class, its attribute names."""

    relpath: str
    module: str
    data_class: bool
    fields: frozenset[str]
    # its attributes are exactly its declared fields (see ``_Module.records``)
    record: bool = False


def define(
    finder: Finder, name: str, module: str, hops: int = MAX_HOPS, depth: int = 0
) -> Defined | None:
    """The definition of class ``name`` as seen from ``module``: defined there, or
    imported there (followed up to ``hops`` times)."""
    loaded = finder.load(module)
    if loaded is None:
        return None
    parsed, relpath = loaded
    if name in parsed.classes:
        fields = parsed.fields.get(name, frozenset())
        data_class = parsed.classes[name]
        record = name in parsed.records
        for base in parsed.bases.get(name, ()):
            if base == name or depth >= MAX_HOPS:
                continue
            inherited = define(finder, base, module, MAX_HOPS, depth + 1)
            if inherited is None:
                continue
            if base not in parsed.classes:
                fields = fields | inherited.fields  # a base of the same module is merged
            # a subclass of a typed data class is one (``Benchmark(StandardBaseDict)``,
            # ``StandardBaseDict(StandardBaseModel)``, ``StandardBaseModel(BaseModel)``)
            data_class = data_class or inherited.data_class
            record = record or inherited.record
        return Defined(relpath, module, data_class, fields, record)
    if "." in name:
        # ``Trainer.Config``: the class nested in ``Trainer``, where ``Trainer`` is defined.
        head, _dot, tail = name.partition(".")
        outer = define(finder, head, module, hops, depth + 1) if depth < MAX_HOPS else None
        if outer is not None and outer.module != module:
            return define(finder, name, outer.module, 0, depth + 1)
        return None if outer is not None else define(finder, tail, module, hops, depth + 1)
    alias = parsed.aliases.get(name)
    if alias is not None and alias != name and depth < MAX_HOPS:
        return define(finder, alias, module, hops, depth + 1)
    bound = dict(parsed.typevars).get(name)
    if bound is not None and bound != name and depth < MAX_HOPS:
        return define(finder, bound, module, hops, depth + 1)
    target = parsed.imports.get(name)
    if target is None or hops <= 0:
        return None
    source, _colon, original = target.partition(":")
    absolute = absolute_module(source, module, relpath.endswith("__init__.py"))
    found = define(finder, original, absolute, hops - 1, depth)
    if found is None:
        found = define(finder, original, f"{absolute}.{original}", hops - 1, depth)
    return found


def _camel(name: str) -> str:
    return name.replace("_", "").lower()


# The nodes that can hold a statement: an import is found without visiting expressions.
_STATEMENT_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def _imports_in(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The module's import statements, nested ones included, in :func:`ast.walk`'s order
    (breadth first; expressions, which hold no statement, are skipped)."""
    found: list[ast.Import | ast.ImportFrom] = []
    queue: collections.deque[ast.AST] = collections.deque([tree])
    while queue:
        node = queue.popleft()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
            continue
        queue.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, _STATEMENT_HOLDERS))
    return found


def imported_modules(tree: ast.Module, path: str = "") -> Iterator[str]:
    """The absolute modules a test imports (``from a.b import c`` gives ``a.b`` and
    ``a.b.c``: c may be a module); a relative import (``from ..diffusers import M`` in
    ``pkg/video/tests/test_x.py``) is resolved from the test's ``path`` in the tree."""
    seen: set[str] = set()
    package = package_of_path(path) if path.endswith(".py") else None
    # Imports anywhere in the test (tests often import the code under test in a function).
    nodes = _imports_in(tree)
    for node in nodes:
        found: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level and package is not None:
            base = resolve_relative(package, node.level, node.module)
            if base:
                found.append(base)
                found.extend(f"{base}.{a.name}" for a in node.names if a.name != "*")
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module)
            found.extend(f"{node.module}.{a.name}" for a in node.names if a.name != "*")
        elif isinstance(node, ast.Import):
            found.extend(a.name for a in node.names)
        for module in found:
            if module not in seen:
                seen.add(module)
                yield module


# Second-tier modules that never declare what a test fakes: the standard library's and
# the test runner's (``import pytest`` brings some thirty ``_pytest`` modules).
_TIERLESS = frozenset({*sys.stdlib_module_names, "pytest", "_pytest"})


def in_tree(finder: Finder, module: str) -> bool:
    """Whether ``module`` is found in the work tree (a package of the repository named
    like a module of the standard library: ``profile``, ``code``)."""
    found = finder.find(module)
    root = finder.root
    return bool(root and found and found[0].startswith(root + os.sep))


def imports_of(finder: Finder, modules: list[str], limit: int = 80) -> list[str]:
    """The modules that ``modules`` import from (one hop, at most ``limit``, not those of
    :data:`_TIERLESS`): the code under test annotates the names a fake is bound to, or
    the modules it imports do. The repository's own modules are read first."""
    out: list[str] = []
    seen = set(modules)
    root = finder.root
    ordered = sorted(
        modules, key=lambda m: not (root and (finder.find(m) or ("", ""))[0].startswith(root))
    )
    for module in ordered:
        loaded = finder.load(module)
        if loaded is None:
            continue
        parsed, relpath = loaded
        for target in parsed.imports.values():
            source, _, name = target.partition(":")
            absolute = absolute_module(source, module, relpath.endswith("__init__.py"))
            if not absolute:
                continue
            found = (
                absolute,
                _submodule(finder, absolute, name),
                *_reexported(finder, absolute, name),
            )
            for imported in found:
                if not imported or imported in seen:
                    continue
                seen.add(imported)
                top = imported.partition(".")[0]
                if top in _TIERLESS and not in_tree(finder, top):
                    continue
                out.append(imported)
                if len(out) >= limit:
                    return out
    return out


def whole_packages_of(finder: Finder, modules: list[str]) -> list[str]:
    """The top-level packages the work tree's ``modules`` import whole or by name at
    run time (``import anthropic``, ``require_dependency("anthropic")``): the objects
    the code under test gets from such a package are what its tests fake, though no
    ``from`` import names their classes."""
    out: dict[str, None] = {}
    for module in modules:
        if not in_tree(finder, module):
            continue
        loaded = finder.load(module)
        if loaded is not None:
            out.update(dict.fromkeys(loaded[0].packages))
    return list(out)


# Re-exports followed for one imported name (``camel.types`` -> ``.openai_types`` ->
# ``openai.types.chat``).
MAX_REEXPORT_HOPS = 3


def _reexported(finder: Finder, module: str, name: str) -> list[str]:
    """The modules a name imported from the work tree's ``module`` comes from, when the
    module only re-exports it (``from camel.types import ChatCompletion``, which
    ``camel/types/__init__.py`` imports from ``.openai_types``, which imports it from
    ``openai.types.chat``): the code under test holds that class, so the module that
    defines it is read as if imported directly. Stops at the first module outside the
    tree or that defines the name."""
    out: list[str] = []
    current = module
    for _ in range(MAX_REEXPORT_HOPS):
        if not in_tree(finder, current):
            break
        loaded = finder.load(current)
        if loaded is None:
            break
        parsed, relpath = loaded
        target = parsed.imports.get(name)
        if target is None:
            break
        source, _, name = target.partition(":")
        current = absolute_module(source, current, relpath.endswith("__init__.py"))
        if not current or current in out:
            break
        out.append(current)
    return out


def _submodule(finder: Finder, package: str, name: str) -> str | None:
    """``package.name`` when ``from package import name`` imports a module of the
    package (``from maxtext.configs import types``), else None: one ``stat`` per
    lower-case name imported from a package, none for a module's classes."""
    if not name.islower() or not name.isidentifier():
        return None
    found = finder.find(package)
    if found is None or not found[0].endswith("__init__.py"):
        return None
    hit = module_file(os.path.dirname(found[0]), name)
    return f"{package}.{name}" if hit is not None else None


def plausible(
    defined: Defined, keywords: frozenset[str], misfit: frozenset[str] = frozenset()
) -> bool:
    """Whether a fake with these keywords can stand in for the class: at least half of
    them (and at least one) are its attribute names, when those are known; a keyword in
    ``misfit`` (its nested fake does not fit the field's type) is not one."""
    if not keywords or not defined.fields:
        return True
    known = len((keywords - misfit) & defined.fields)
    return known >= 1 and 2 * known >= len(keywords)


def mimicked(
    finder: Finder,
    modules: list[str],
    name: str,
    element: bool,
    explicit: str | None,
    keywords: frozenset[str] = frozenset(),
    outer: Defined | None = None,
    nested: tuple[tuple[str, frozenset[str]], ...] = (),
) -> tuple[Mimicked, Defined] | None:
    """The typed data class that a fake bound to ``name`` stands in for, or None.

    ``outer``: the class the enclosing fake stands in for (``vllm_config=SimpleNamespace(
    cache_config=SimpleNamespace(...))``): its module's annotation of the name comes first.
    ``nested``: (keyword, its fake's keywords) of each fake passed as a keyword of this
    one: a class whose field of that name is a data class the nested fake cannot stand
    in for is not what this fake mimics (a layer with a ``compressor`` attribute is not
    the metadata class with a ``compressor`` field).
    """
    memo_key = (tuple(modules), name, element, explicit, keywords, outer, nested)
    if memo_key in finder.answers:
        return finder.answers[memo_key]
    answer = _mimicked(finder, modules, name, element, explicit, keywords, outer, nested)
    finder.answers[memo_key] = answer
    return answer


def _mimicked(
    finder: Finder,
    modules: list[str],
    name: str,
    element: bool,
    explicit: str | None,
    keywords: frozenset[str],
    outer: Defined | None,
    nested: tuple[tuple[str, frozenset[str]], ...] = (),
) -> tuple[Mimicked, Defined] | None:
    """:func:`mimicked`, not memoized."""
    wanted: list[tuple[str, str, str]] = []  # (class, module seen from, how)
    if explicit:
        wanted.extend((explicit, module, "its annotation") for module in modules)
    nameful = bool(name) and name not in _NAMELESS
    # attributes the code sets on what the name holds (``self.moe_config.tp_group = ...``)
    extra: frozenset[str] = frozenset()
    if nameful:
        tiers: list[list[str]] = [[outer.module]] if outer is not None else []
        second = finder.second_tier(modules)
        tiers.append(modules)
        tiers.append(second)
        for tier in tiers:
            for module in tier:
                loaded = finder.load(module)
                if loaded is None:
                    continue
                parsed, relpath = loaded
                extra |= parsed.set_on.get(name, frozenset())
                for text in parsed.annotations.get(name, ()):
                    # ``tool_calls: Optional[List[ChoiceDeltaToolCall]]`` for an element
                    cls = (
                        _element_type(text) or nested_element_type(text, 1)
                        if element
                        else _type_name(text)
                    )
                    if cls:
                        shown = balanced(text.strip())
                        wanted.append((cls, module, f"`{name}: {shown}` in {relpath}"))
        key = _camel(name)
        # ``moe_config`` -> ``FusedMoEConfig``, ``config`` -> any ``*Config`` (the
        # keyword check below decides which, if any, the fake can stand in for).
        suffix = key.endswith("config")
        # A CamelCase binding (``monkeypatch.setattr(mod, "PeftConfig", fake)``) holds a
        # class, not an instance: its name says nothing about what an instance is.
        if len(key) >= 6 and not element and not name[:1].isupper():
            # A package's ``config`` module re-exports its config classes (vLLM's
            # ``vllm.config``): where a reviewer looks up ``scheduler_config``; a module
            # named after the object defines its class (``vllm.sampling_params``).
            tops = {m.split(".", 1)[0] for m in (*modules, *second)}
            packages = [
                f"{top}{tail}" for top in sorted(tops) for tail in ("", ".config", f".{name}")
            ]
            for module in (*modules, *second, *packages):
                loaded = finder.load(module)
                if loaded is None:
                    continue
                for low, cls in loaded[0].lowered:
                    if low == key or (suffix and low.endswith(key)):
                        wanted.append((cls, module, f"the name `{name}`"))
    seen: set[tuple[str, str]] = set()
    for cls, module, how in wanted:
        if (cls, module) in seen:
            continue
        seen.add((cls, module))
        defined = define(finder, cls, module)
        if defined is None:
            continue
        if not defined.data_class:
            # a plain class whose attributes the fake sets are all typed: a typed stub
            if typed_class(finder, cls, defined, keywords):
                return Mimicked(cls, defined.relpath, how), defined
            continue
        widened = defined
        if extra and defined.fields and how.startswith("`"):
            widened = dataclasses.replace(defined, fields=defined.fields | extra)
        if plausible(widened, keywords, misfits(finder, defined, nested)):
            # ``attn_metadata: T`` with ``T = TypeVar("T", bound=X)``: the class is X
            loaded = finder.load(module)
            bound = dict(loaded[0].typevars).get(cls) if loaded is not None else None
            if loaded is not None and bound is None:
                bound = loaded[0].qualified.get(cls)  # ``Config`` inside ``Trainer``
            return Mimicked(bound or cls, defined.relpath, how), defined
        sub = _subclass(finder, cls, module, keywords, nested)
        if sub is not None:
            return Mimicked(sub[0], sub[1].relpath, f"{how}, its subclass"), sub[1]
    return None


def _subclass(
    finder: Finder,
    cls: str,
    module: str,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[str, Defined] | None:
    """A data class of ``module`` derived from ``cls`` (or from a TypeVar's bound) that
    the fake can stand in for when ``cls`` itself cannot: ``attn_metadata: M`` with
    ``M = TypeVar("M", bound=AscendSFAMetadata)``, a fake with the ``dsa_cp_context`` of
    ``AscendSFADSACPMetadata(AscendSFAMetadata)``."""
    loaded = finder.load(module)
    if loaded is None or not keywords:
        return None
    parsed = loaded[0]
    base = dict(parsed.typevars).get(cls, cls)
    for name, bases in parsed.bases.items():
        if base not in bases or name == base:
            continue
        defined = define(finder, name, module)
        if (
            defined is not None
            and defined.data_class
            and defined.fields
            and plausible(defined, keywords, misfits(finder, defined, nested))
        ):
            return name, defined
    return None


def misfits(
    finder: Finder, defined: Defined, nested: tuple[tuple[str, frozenset[str]], ...]
) -> frozenset[str]:
    """The keywords whose nested fake cannot stand in for the type ``defined``'s module
    annotates that keyword with, when that type is a record (a ``@dataclass``,
    ``TypedDict``...: its attributes are its fields) with known fields: such a keyword
    does not count as one of the class's attributes (one level; an unknown or open type,
    e.g. ``PretrainedConfig``, does not count against it)."""
    if not nested:
        return frozenset()
    loaded = finder.load(defined.module)
    if loaded is None:
        return frozenset()
    parsed = loaded[0]
    out: set[str] = set()
    for keyword, inner in nested:
        for text in parsed.annotations.get(keyword, ())[:4]:
            cls = _field_class(text)
            if not cls:
                continue
            field_type = define(finder, cls, defined.module)
            if field_type is not None and field_type.record and not plausible(field_type, inner):
                out.add(keyword)
                break
    return frozenset(out)


# ``def name(`` of a function or method, at any indentation.
_DEF_TEXT = rb"^[ \t]*(?:async[ \t]+)?def[ \t]+%s[ \t]*\("
# Signatures read per callee and module (the first few definitions of that name).
MAX_SIGNATURES = 4
MAX_SIGNATURE_BYTES = 4000


def _terminal(node: ast.expr) -> str:
    """``Cls`` of ``Cls`` / ``mod.Cls``; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def passed_as(var: str, stmt: ast.AST, parents: dict[int, ast.AST]) -> list[tuple[str, int | str]]:
    """Where the function holding ``stmt`` passes the variable ``var`` to a call: (callee
    name, positional index or keyword) of each ``f(var)`` / ``obj.meth(a, var)`` /
    ``f(name=var)`` (a fake bound to a local name stands in for the parameter it is
    passed to)."""
    func = _enclosing_function(stmt, parents)
    if func is None:
        return []
    out: list[tuple[str, int | str]] = []
    for node in walked(func):
        if not isinstance(node, ast.Call):
            continue
        callee = _callee(node)
        if callee in SETTERS and len(node.args) >= 3:
            # ``monkeypatch.setattr(mod, "get_forward_context", lambda: var)`` /
            # ``setattr(obj, "config", var)``: the attribute it replaces.
            attr, value = node.args[1], node.args[2]
            returned = isinstance(value, ast.Lambda)
            if isinstance(value, ast.Lambda):
                value = value.body
            if (
                isinstance(attr, ast.Constant)
                and isinstance(attr.value, str)
                and isinstance(value, ast.Name)
                and value.id == var
            ):
                name = attr.value.rsplit(".", 1)[-1]
                out.append((callee, _strip_callable(name) if returned else name))
            continue
        if callee in ("patch", "object") or callee in _MOCKS:
            # ``patch("pkg.get_config", return_value=var)``: what the callable returns.
            for keyword in node.keywords:
                value = keyword.value
                if (
                    keyword.arg == "return_value"
                    and isinstance(value, ast.Name)
                    and value.id == var
                ):
                    returned_name = _returned_by(node, parents)
                    if returned_name:
                        # the full path when known: its ``def`` says what it returns
                        out.append((patch_target(node) or callee, returned_name))
            continue
        if not callee or callee == "SimpleNamespace":
            continue
        # ``Worker.meth(fake, meta)``: called on the class, the first argument is ``self``
        # (the fake stands in for the receiver, not for a parameter).
        unbound = called_on_class(node)
        for index, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                break
            if isinstance(arg, ast.Name) and arg.id == var:
                if not unbound:
                    out.append((callee, index))
                elif index:
                    out.append((callee, index - 1))
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg and isinstance(value, ast.Name) and value.id == var:
                out.append((callee, keyword.arg))
    return out[:8]


def _past_signature(data: bytes, start: int) -> int | None:
    """The offset just past the ``)`` closing the parameter list opened before ``start``;
    None when it does not close within :data:`MAX_SIGNATURE_BYTES`."""
    depth = 1
    end = start
    limit = min(len(data), end + MAX_SIGNATURE_BYTES)
    while end < limit and depth:
        char = data[end : end + 1]
        if char == b"(":
            depth += 1
        elif char == b")":
            depth -= 1
        end += 1
    return None if depth else end


_DEF_ANY_RE = re.compile(_DEF_TEXT % (b"(" + _IDENT + b")"), re.M)
_CLASS_HEAD_RE = re.compile(rb"^class[ \t]+(" + _IDENT + rb")", re.M)


# Files whose text and ``def`` lines are kept (up to MAX_MODULE_BYTES each: bounded memory).
DEFINITION_FILES = 64


@functools.lru_cache(maxsize=DEFINITION_FILES)
def _definitions(
    path: str, mtime_ns: int, size: int
) -> tuple[bytes, dict[str, list[tuple[int, int]]], dict[str, int]] | None:
    """A file's text, the (start, end) of each ``def name(`` by name and where each
    top-level ``class Name`` head ends (the first one): read and scanned once per file,
    however many callees are looked up in it. None: unreadable or past the bound."""
    del mtime_ns, size
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_MODULE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_MODULE_BYTES:
        return None
    defs: dict[str, list[tuple[int, int]]] = {}
    for match in _DEF_ANY_RE.finditer(data):
        defs.setdefault(match.group(1).decode(), []).append(match.span())
    heads: dict[str, int] = {}
    for match in _CLASS_HEAD_RE.finditer(data):
        heads.setdefault(match.group(1).decode(), match.end())
    return data, defs, heads


# Files whose defined names are kept: a few kB each, where a file's text is up to 2 MB.
DEFINED_NAME_FILES = 4096


@functools.lru_cache(maxsize=DEFINED_NAME_FILES)
def _defined_names(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    """The names of a file's ``def``s and top-level classes. A callee is looked up in
    hundreds of modules and defined in few: the files that do not define it are answered
    from this set, without reading their text again once it left :func:`_definitions`."""
    found = _definitions(path, mtime_ns, size)
    if found is None:
        return frozenset()
    return frozenset(found[1]).union(found[2])


@functools.lru_cache(maxsize=4096)
def _signature_args(
    path: str, mtime_ns: int, size: int, callee: str
) -> tuple[tuple[str, ast.arguments], ...]:
    """(source parsed, parameters) of the first few ``def callee(...)`` in a file (text
    only: the parameter list is cut at its closing parenthesis and parsed alone as
    ``def f(...): pass``); a class's are its ``__init__``'s."""
    if callee not in _defined_names(path, mtime_ns, size):
        return ()
    found = _definitions(path, mtime_ns, size)
    if found is None:
        return ()
    data, defs, heads = found
    out: list[tuple[str, ast.arguments]] = []
    start, stop = 0, len(data)
    if callee[:1].isupper():
        # ``Cls(config, ...)``: the parameters of its ``__init__`` (in its own body).
        if callee not in heads:
            return ()
        start = heads[callee]
        stop = _class_end(data, start)
        callee = "__init__"
    for def_start, def_end in defs.get(callee, ()):
        if def_start < start or def_end > stop:
            continue
        end = _past_signature(data, def_end)
        if end is None:
            continue
        text = data[def_end : end - 1].decode("utf-8", "replace")
        source = f"def f({text}): pass"
        try:
            node = ast.parse(source).body[0]
        except PYTHON_PARSE_ERRORS:
            continue
        assert isinstance(node, ast.FunctionDef)
        out.append((source, node.args))
        if len(out) >= MAX_SIGNATURES:
            break
    return tuple(out)


def module_signatures(
    finder: Finder, module: str, callee: str
) -> tuple[tuple[str, ast.arguments], ...]:
    """:func:`_signature_args` of ``def callee(...)`` in ``module`` (none when the module
    is not found or cannot be read)."""
    found = finder.find(module)
    if found is None:
        return ()
    try:
        info = os.stat(found[0])
    except OSError:
        return ()
    return _signature_args(found[0], info.st_mtime_ns, info.st_size, callee)


def signatures_in(finder: Finder, module: str, callee: str) -> tuple[tuple[str, ...], ...]:
    """The parameter names of the first few ``def callee(...)`` in ``module``: the
    positional ones, then ``*`` and the keyword-only ones when it has some."""
    out: list[tuple[str, ...]] = []
    for _source, args in module_signatures(finder, module, callee):
        params = tuple(a.arg for a in (*args.posonlyargs, *args.args))
        if args.kwonlyargs:
            # keyword-only parameters (``def __init__(self, *, config)``) are slots a
            # keyword fills too; ``*`` ends the ones a position reaches
            params += ("*", *(a.arg for a in args.kwonlyargs))
        out.append(params)
    return tuple(out)


def parameter_annotations(finder: Finder, module: str, callee: str, name: str) -> tuple[str, ...]:
    """The annotations of parameter ``name`` in each ``def callee(...)`` of ``module``, as
    written (none for an unannotated parameter: what another function of the module
    annotates a parameter of the same name with is not this one's)."""
    texts: list[str] = []
    for source, args in module_signatures(finder, module, callee):
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if arg.arg == name and arg.annotation is not None:
                text = ast.get_source_segment(source, arg.annotation)  # as written
                if text:
                    texts.append(text)
    return tuple(texts)


def parameter_names(
    finder: Finder, modules: list[str], callee: str, index: int, unbound: bool = False
) -> list[tuple[str, str]]:
    """(name, module) of the parameter a positional argument at ``index`` reaches in each
    ``def callee(...)`` in the modules: a bound call skips ``self``/``cls`` (the call passes
    the receiver); with ``unbound`` (``Cls.meth(obj, x)``) the call passes ``self`` itself,
    and a classmethod's ``cls`` is still implied."""
    names: list[tuple[str, str]] = []
    for module in modules:
        for params in signatures_in(finder, module, callee):
            if "*" in params:
                params = params[: params.index("*")]
            at = index
            if params and (params[0] == "cls" or (params[0] == "self" and not unbound)):
                at += 1
            if at < len(params) and params[at] not in ("self", "cls"):
                if (params[at], module) not in names:
                    names.append((params[at], module))
    return names


# The attributes of ``torch.Tensor`` a fake of one sets (``TensorBase`` in torch's
# ``_C/__init__.pyi``). torch ships ``py.typed``: a fake made only of them, passed where
# the code under test declares ``torch.Tensor``, mimics a class with a real typed stub
# (a meta tensor, ``torch.empty(shape, dtype=dtype, device="meta")``, is the real one).
TENSOR_ATTRIBUTES = frozenset(
    {
        "dtype",
        "shape",
        "device",
        "ndim",
        "layout",
        "requires_grad",
        "grad",
        "grad_fn",
        "data",
        "is_leaf",
        "is_cuda",
        "is_cpu",
        "is_meta",
        "is_sparse",
        "is_quantized",
        "is_nested",
        "itemsize",
        "nbytes",
        "names",
    }
)


def _names_tensor(text: str, parsed: _Module) -> bool:
    """Whether an annotation's text is ``torch.Tensor`` (also ``Optional[...]``, ``| None``,
    or a ``Tensor`` the module imports from torch)."""
    members = set(union_text_members(text)) - {"None"}
    if len(members) != 1:
        return False
    (member,) = members
    if member == "torch.Tensor":
        return parsed.imports.get("torch", "torch") == "torch"
    return member == "Tensor" and parsed.imports.get("Tensor", "").split(":")[0] == "torch"


def annotated_in(
    finder: Finder,
    module: str,
    name: str,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
    callee: str = "",
) -> tuple[Mimicked, Defined] | None:
    """The typed data class the module defining a callee annotates its parameter
    ``name`` with (there, not in the modules it imports: an unannotated parameter of a
    duck-typed helper is not the class another package annotates that name with), or
    ``torch.Tensor`` for a fake made of tensor attributes only, when ``callee``'s own
    ``def`` annotates ``name`` so (``Tensor`` is too common a word to borrow from
    another function). ``callee``'s own annotations are read first."""
    loaded = finder.load(module)
    if loaded is None:
        return None
    parsed, relpath = loaded
    own = parameter_annotations(finder, module, callee, name) if callee else ()
    texts = [*own, *(t for t in parsed.annotations.get(name, ()) if t not in own)]
    for text in texts[:8]:
        if (
            text in own
            and keywords
            and keywords <= TENSOR_ATTRIBUTES
            and _names_tensor(text, parsed)
        ):
            how = f"`{name}: {text.strip()}` in {relpath}"
            tensor = Defined(relpath, module, data_class=False, fields=TENSOR_ATTRIBUTES)
            return Mimicked("torch.Tensor", relpath, how), tensor
        cls = _type_name(text)
        if not cls:
            continue
        found = mimicked(finder, [module], "", False, cls, keywords, None, nested)
        if found is None:
            found = typed_stub(finder, cls, module, keywords)
        if found is not None:
            how = f"`{name}: {text.strip()}` in {relpath}"
            return Mimicked(found[0].name, found[0].where, how), found[1]
    return None


def _typed_package(finder: Finder, module: str) -> bool:
    """Whether ``module`` is of an installed package (outside the work tree) that ships a
    ``py.typed`` marker in its package folder (PEP 561: its classes are typed stubs)."""
    found = finder.find(module)
    if found is None:
        return False
    path = os.path.realpath(found[0])
    if finder.root is not None and path.startswith(finder.root + os.sep):
        return False
    # The marker sits in the distribution's own package: the top-level folder, or for a
    # namespace package (``azure.ai.agents``, ``google.cloud.storage``) the subpackage
    # under it; any folder from the module's up to the top-level one.
    top = module.split(".", 1)[0]
    folder = os.path.dirname(path)
    for _ in range(module.count(".") + 1):
        if os.path.isfile(os.path.join(folder, "py.typed")):
            return True
        if os.path.basename(folder) == top:
            return False
        folder = os.path.dirname(folder)
    return False


def typed_stub(
    finder: Finder, cls: str, module: str, keywords: frozenset[str]
) -> tuple[Mimicked, Defined] | None:
    """A class of a typed installed package (``py.typed``: starlette's ``Request``) that
    a parameter is annotated with, when every keyword of the fake is one of its
    attributes: a real typed stub the fake mimics, though no data class (not a service
    object: a class named a worker, engine, layer, model...)."""
    defined = define(finder, cls, module)
    if defined is None or not _stub_like(cls, defined, keywords):
        return None
    if not _typed_package(finder, defined.module) and not keywords <= typed_attributes(
        finder, cls, defined.module
    ):
        return None
    return Mimicked(cls, defined.relpath, "its annotation"), defined


def _stub_like(cls: str, defined: Defined, keywords: frozenset[str]) -> bool:
    """Whether a fake setting ``keywords`` may mimic the plain class ``cls``: each is one
    of its attributes, and its name is no service word (a worker, engine, layer...: a
    service object, not a typed record)."""
    words = {w.lower() for w in re.findall(r"[A-Z]+[a-z0-9]*|[a-z0-9]+", cls)}
    return bool(keywords) and not words & _SERVICE_WORDS and keywords <= defined.fields


def typed_class(finder: Finder, cls: str, defined: Defined, keywords: frozenset[str]) -> bool:
    """Whether ``cls``, a plain class of the work tree, is a typed stub for a fake
    setting ``keywords``: :func:`_stub_like`, and the class declares each with a type
    (:func:`typed_attributes`)."""
    return _stub_like(cls, defined, keywords) and keywords <= typed_attributes(
        finder, cls, defined.module
    )


def typed_attributes(finder: Finder, cls: str, module: str) -> frozenset[str]:
    """The attributes class ``cls`` of a work-tree ``module`` declares with a type: ``x:
    T`` in its body, ``self.x: T = ...`` in a method, a ``@property`` with ``-> T``, when
    the class is shaped like a record: no base but ``Generic`` (a subclass, an ``ABC`` or
    an ``nn.Module`` is an interface or a service), and no more public methods than typed
    attributes (vLLM's ``GroupCoordinator``, 37 methods over 15 typed attributes, is a
    service object a test fakes for want of a process group), and no ``__call__`` (a
    callable class runs something). A fake setting only such
    attributes mimics a typed class (evalscope's ``TaskState``, 15 typed properties and
    6 methods), though no data class; installed packages are typed stubs by their
    ``py.typed`` marker instead (:func:`_typed_package`)."""
    key = (module, cls)
    if key not in finder.typed:
        finder.typed[key] = _typed_attributes(finder, cls, module)
    return finder.typed[key]


def _typed_attributes(finder: Finder, cls: str, module: str) -> frozenset[str]:
    """:func:`typed_attributes`, not memoized."""
    found = finder.find(module)
    if found is None or finder.root is None:
        return frozenset()
    if not os.path.realpath(found[0]).startswith(finder.root + os.sep):
        return frozenset()
    node = _class_node(found[0], cls)
    if node is None or node.keywords:
        return frozenset()
    for base in node.bases:
        head = base.value if isinstance(base, ast.Subscript) else base
        if _terminal(head) not in ("object", "Generic"):
            return frozenset()
    typed: set[str] = set()
    methods = 0
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            typed.add(stmt.target.id)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decorators = {_terminal(d) for d in stmt.decorator_list}
            if "property" in decorators or "cached_property" in decorators:
                if stmt.returns is not None:
                    typed.add(stmt.name)
                continue
            if stmt.name == "__call__":
                return frozenset()  # a callable class runs something: no record
            methods += not stmt.name.startswith("_")
            for sub in ast.walk(stmt):
                if (
                    isinstance(sub, ast.AnnAssign)
                    and isinstance(sub.target, ast.Attribute)
                    and isinstance(sub.target.value, ast.Name)
                    and sub.target.value.id == "self"
                ):
                    typed.add(sub.target.attr)
    public = sum(not name.startswith("_") for name in typed)
    return frozenset(typed) if methods <= public else frozenset()


# The repository's record classes, found by the fields a fake sets (a reviewer greps the
# tree for ``full_compress_cos:``): the walk's bounds, and the directories it skips.
MAX_SCAN_FILES = 8000
MAX_SCAN_BYTES = 120_000_000
_SKIP_DIRS = frozenset(
    {
        "tests",
        "test",
        "testing",
        "node_modules",
        "build",
        "dist",
        "site-packages",
        "__pycache__",
        "docs",
        "examples",
        "benchmarks",
    }
)
# The directories the scans skip, for other rules that read the tree (``broad-except``).
SKIP_DIRS = _SKIP_DIRS
# Text that a module declaring a record class holds (a cheap prefilter: ``in``).
_RECORD_MARKS = (
    b"dataclass",
    b"TypedDict",
    b"NamedTuple",
    b"BaseModel",
    b"SQLModel",
    b"Struct",
    b"@attr",
    b"@define",
    b"@frozen",
    b"@config",
)
# A fake matched by its fields alone needs this many attribute names (its own keywords
# and those of the fakes it holds that fit the fields' types), or one fewer when it is
# passed to a record class's constructor (``AscendCompressorMetadata(cache=fake)``: the
# slot is real, only its annotation, ``Any``, says nothing).
MIN_FIELD_MATCH = 3
# Names looked up by reading every module (a few ``in`` tests each) before the field
# index of the record modules is built instead (a change with many fakes).
LAZY_PROBES = 16
# More modules than this declaring every keyword of a fake: no one class is meant.
MAX_FIELD_MODULES = 12
# Up to this many when they may all be one class chain (a field each subclass re-declares).
MAX_CHAIN_MODULES = 64
# Words of a fake's name that say it is a service or layer object, not a record.
_SERVICE_WORDS = frozenset(
    {
        "client",
        "worker",
        "engine",
        "runner",
        "manager",
        "model",
        "layer",
        "module",
        "processor",
        "server",
        "handler",
        "connector",
        "executor",
        "pipeline",
        "tokenizer",
        "backend",
        "impl",
        "proc",
        "pool",
        "service",
    }
)


def _sources(finder: Finder) -> dict[str, bytes]:
    """Dotted module -> text of each module of the work tree outside tests, docs and
    examples (read once per finder, bounded: no symlink followed, at most
    ``MAX_SCAN_FILES`` files and ``MAX_SCAN_BYTES`` bytes)."""
    if finder.sources is not None:
        return finder.sources
    out: dict[str, bytes] = {}
    finder.sources = out
    root = finder.root
    if root is None:
        return out
    seen = 0
    total = 0
    # Each module root: the tree, then each folder named as no package can be, whose
    # modules are named from it (``mooncake-wheel/mooncake/x.py`` is ``mooncake.x``).
    for base in (root, *finder.folder_roots):
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(
                d
                for d in dirnames
                if not d.startswith(".") and d not in _SKIP_DIRS and d.isidentifier()
            )
            for filename in sorted(filenames):
                if not filename.endswith(".py") or filename.startswith("test_"):
                    continue
                seen += 1
                if seen > MAX_SCAN_FILES or total > MAX_SCAN_BYTES:
                    return out
                path = os.path.join(dirpath, filename)
                try:
                    if not stat.S_ISREG(os.lstat(path).st_mode):
                        continue  # no symlink followed out of the tree
                    with open(path, "rb") as handle:
                        data = handle.read(MAX_MODULE_BYTES + 1)
                except OSError:
                    continue
                total += len(data)
                if len(data) > MAX_MODULE_BYTES:
                    continue
                rel = os.path.relpath(path, base)[: -len(".py")].replace(os.sep, ".")
                module = rel.removesuffix(".__init__")
                if all(p.isidentifier() for p in module.split(".")):
                    out.setdefault(module, data)
    return out


# An indented ``name:`` (a field), and an indented ``def name(`` (a method or property).
_DECLARED_RE = re.compile(rb"^[ \t]+(" + _IDENT + rb")[ \t]*:", re.M)
_METHOD_TEXT = rb"^[ \t]+(?:async[ \t]+)?def[ \t]+%s[ \t]*\("


def _declaring(finder: Finder, name: str) -> list[str]:
    """The work tree's modules that declare ``name`` as a field (an indented ``name:``):
    for the first ``LAZY_PROBES`` names by reading each module for it, then from an
    index of every record module's declarations, built once per finder."""
    if finder.field_index is None and len(finder.probes) >= LAZY_PROBES:
        index: dict[str, list[str]] = {}
        for module, data in _sources(finder).items():
            if any(mark in data for mark in _RECORD_MARKS):
                for found in set(_DECLARED_RE.findall(data)):
                    index.setdefault(found.decode(), []).append(module)
        finder.field_index = index
    if finder.field_index is not None:
        return finder.field_index.get(name, [])
    if name not in finder.probes:
        word = name.encode()
        pattern = re.compile(rb"^[ \t]+" + re.escape(word) + rb"[ \t]*:", re.M)
        finder.probes[name] = [
            module
            for module, data in _sources(finder).items()
            if word in data and any(mark in data for mark in _RECORD_MARKS) and pattern.search(data)
        ]
    return finder.probes[name]


def _has_method(finder: Finder, module: str, names: frozenset[str]) -> bool:
    """Whether the work tree's ``module`` defines one of ``names`` as a method or
    property (an indented ``def name(``)."""
    data = _sources(finder).get(module)
    if data is None:
        return False
    return any(
        name.encode() in data and re.search(_METHOD_TEXT % re.escape(name.encode()), data, re.M)
        for name in names
    )


def _field_type(finder: Finder, defined: Defined, field: str) -> Defined | None:
    """The record class ``defined``'s module annotates ``field`` with (first such)."""
    loaded = finder.load(defined.module)
    if loaded is None:
        return None
    for text in loaded[0].annotations.get(field, ())[:4]:
        cls = _field_class(text)
        if cls:
            found = define(finder, cls, defined.module)
            if found is not None and found.record and found.fields:
                return found
    return None


def by_fields(
    finder: Finder,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
    in_record: bool,
    modules: list[str],
    name: str = "",
    slot: bool = False,
) -> tuple[Mimicked, Defined] | None:
    """The one record class (``@dataclass``, ``TypedDict``, ``NamedTuple``, attrs,
    ``msgspec.Struct``, pydantic) of the repository, or of the modules the test reads,
    that has every keyword of the fake as a field, and for each nested fake a field whose
    record type has all of that fake's keywords. It takes ``MIN_FIELD_MATCH`` names (one
    fewer when ``in_record``); classes of one name (copies in two modules) count once, the
    one with the fewest fields named; two names that fit is no answer."""
    if not keywords or not finder.root:
        return None
    memo_key = ("by_fields", keywords, nested, in_record, tuple(modules), name, slot)
    if memo_key in finder.answers:
        return finder.answers[memo_key]
    answer = _by_fields(finder, keywords, nested, in_record, modules, name, slot)
    if answer is None:
        # not a record of the repository: one of a package the code under test imports
        from policytool.rules import _fake_packages

        answer = _fake_packages.by_package_fields(finder, keywords, nested, modules, name)
    finder.answers[memo_key] = answer
    return answer


def _by_fields(
    finder: Finder,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
    in_record: bool,
    modules: list[str],
    name: str,
    slot: bool,
) -> tuple[Mimicked, Defined] | None:
    """:func:`by_fields`, not memoized."""
    need = MIN_FIELD_MATCH - (1 if in_record else 0)
    # Fewer names than that: a reviewer still greps the keyword, and a field declared by
    # one class chain only (a base and the subclasses that re-declare it) names the base.
    few = len(keywords) + sum(len(inner) for _k, inner in nested) < need
    # ... or when the name the fake is bound to names the class (checked below).
    named_fake = bool(name) and len(keywords) >= MIN_NAMED_FIELDS
    if few and (not keywords or not (slot or named_fake)):
        return None
    # Modules declaring every keyword as a field (``name:``), found from the longest one
    # (the likeliest to be rare): only those are parsed.
    probe = max(sorted(keywords), key=len)
    sources = _sources(finder)
    patterns = [
        re.compile(rb"^[ \t]+" + re.escape(k.encode()) + rb"[ \t]*:", re.M)
        for k in sorted(keywords - {probe})
    ]
    candidates = [
        module
        for module in _declaring(finder, probe)
        if all(p.search(sources.get(module, b"")) for p in patterns)
    ]
    if len(candidates) > (MAX_CHAIN_MODULES if few or len(keywords) == 1 else MAX_FIELD_MODULES):
        return None  # fields that common single out no class (and parsing them costs)
    chain_only = few or len(candidates) > MAX_FIELD_MODULES
    for module in (*modules, *finder.second_tier(modules)):
        if module not in candidates and finder.find(module) is not None:
            loaded = finder.load(module)
            if loaded is not None and probe in loaded[0].annotations:
                candidates.append(module)
    fits: dict[str, tuple[int, str, Defined]] = {}
    for module in candidates:
        loaded = finder.load(module)
        if loaded is None:
            continue
        parsed = loaded[0]
        if _has_method(finder, module, keywords):
            # a keyword its module defines as a method or property: a wrapper's
            # delegating attribute (``OmniRequestOutput.prompt_token_ids``), no field
            continue
        for cls in parsed.records:
            if cls.startswith("_"):
                continue  # a module's private record is no class a test should build
            defined = define(finder, cls, module)
            if defined is None or not defined.record or not keywords <= defined.fields:
                continue
            score = len(keywords)
            for keyword, inner in nested:
                field_type = _field_type(finder, defined, keyword)
                if field_type is None:
                    continue
                if not inner <= field_type.fields:
                    score = -1
                    break
                score += len(inner)
            if score < (1 if few else need):
                continue
            best = fits.get(cls)
            if best is None or len(defined.fields) < best[0]:
                fits[cls] = (len(defined.fields), module, defined)
    if not fits:
        return None
    root = _chain_root(finder, fits, keywords)
    if root is None:
        return None
    cls, defined = root
    by_name = few and len(keywords) >= MIN_NAMED_FIELDS and names_class(name, cls, slot)
    if by_name and _camel(name) != cls.lower():
        # a name ending the class's (``config``, ``output``) says little: a field no other
        # module declares (``update_weight_bucket_size_in_gb``) must single it out too
        by_name = any(len(_declaring(finder, k)) == 1 for k in sorted(keywords))
    if (chain_only and len(fits) < 2 and not by_name) or (few and not slot and not by_name):
        return None
    words = set(re.split(r"[_0-9]+", name.lower()))
    if any(w in _SERVICE_WORDS and w not in cls.lower() for w in words):
        # ``stage0_client = SimpleNamespace(stage_type=...)``: a client (a service object
        # that copies a few fields of the record), not the record itself.
        return None
    if name and _camel(name) != cls.lower():
        # ``input_buffers = SimpleNamespace(...)`` beside a plain ``InputBuffers`` class:
        # the name says what it fakes (a duck-typed object), not the record that shares
        # its fields.
        for module in (*candidates[:64], *modules):
            loaded = finder.load(module)
            if loaded is not None and any(n.lower() == _camel(name) for n in loaded[0].classes):
                return None
    how = "its keywords (all fields of the class)"
    if few or len(fits) > 1:
        named = ", ".join(f"`{k}`" for k in sorted(keywords))
        plural = "s" if len(keywords) > 1 else ""
        how = (
            f"its keyword{plural} {named}, fields of `{cls}` and only of its subclasses"
            if len(fits) > 1
            else f"its keyword{plural} {named}, fields of this class only"
        )
        if by_name:
            how += f", named by `{name}`"
        if few and slot:
            how += ", and it is passed to the code under test"
    return Mimicked(cls, defined.relpath, how), defined


# Two fields of one record class name it when the fake's name names the class too.
MIN_NAMED_FIELDS = 2


def names_class(name: str, cls: str, slot: bool) -> bool:
    """Whether the name a fake is bound to names the class ``cls``: its letters, case
    and underscores aside (``vllm_config``, ``VLLMConfig``), or, for a fake that fills a
    slot of the code under test, its last words (``config``, ``WorkerConfig``)."""
    key = _camel(name)
    if not key or name in _NAMELESS or name[:1].isupper():
        return False
    if key == cls.lower():
        return True
    start = len(cls) - len(key)
    # the name's words end the class's name: ``config`` ends ``WorkerConfig`` at a word
    # start, ``data`` does not end ``Metadata``
    return slot and start > 0 and cls.lower().endswith(key) and cls[start].isupper()


# A name the work tree's code annotates with one class at least this many times, and in
# at least this share of its annotations naming a class (``vllm_config: VllmConfig`` in 102
# of 115): what a fake bound to that name stands in for, where no import reaches it.
MIN_CONSENSUS = 5
CONSENSUS_SHARE = 0.8


def by_consensus(
    finder: Finder,
    name: str,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[Mimicked, Defined] | None:
    """The typed data class the repository annotates ``name`` with nearly everywhere (a
    reviewer greps ``vllm_config:``), when the fake can stand in for it; memoized."""
    memo_key = ("consensus", name, keywords, nested)
    if memo_key in finder.answers:
        return finder.answers[memo_key]
    answer = None
    found = _consensus(finder, name)
    if found is not None:
        cls, module, count = found
        defined = define(finder, cls, module)
        if (
            defined is not None
            and defined.data_class
            and plausible(defined, keywords, misfits(finder, defined, nested))
        ):
            how = f"the name `{name}`, annotated `{cls}` {count} times in the repository"
            answer = Mimicked(cls, defined.relpath, how), defined
    finder.answers[memo_key] = answer
    return answer


# ``name: Type`` with the type's text (a quoted forward reference, a subscript, ``| None``).
_ANNOTATED_TEXT = (
    rb"[ \t]*:[ \t]*(?!=)"
    rb"([\"']?[A-Za-z_][A-Za-z0-9_.]*(?:\[[^\]\n:=]*\])?(?:[ \t]*\|[ \t]*None)?[\"']?)"
)
_ANNOTATED_RE = re.compile(rb"(?<![A-Za-z0-9_.])(" + _IDENT + rb")" + _ANNOTATED_TEXT)
# Names looked up by reading every module before one pass indexes every ``name: Type``
# (a pass costs about what six lookups do).
CONSENSUS_PROBES = 8


def _annotations(finder: Finder, name: str) -> list[tuple[str, bytes]]:
    """(module, type text) of each ``name: Type`` in the work tree's modules: for the
    first ``CONSENSUS_PROBES`` names by reading each module for it, then from an index
    of every annotation, built once per finder."""
    if finder.annotation_index is None and len(finder.annotation_probes) >= CONSENSUS_PROBES:
        index: dict[str, list[tuple[str, bytes]]] = {}
        for module, data in _sources(finder).items():
            for match in _ANNOTATED_RE.finditer(data):
                index.setdefault(match.group(1).decode(), []).append((module, match.group(2)))
        finder.annotation_index = index
    if finder.annotation_index is not None:
        return finder.annotation_index.get(name, [])
    if name not in finder.annotation_probes:
        word = name.encode()
        pattern = re.compile(rb"(?<![A-Za-z0-9_.])" + re.escape(word) + _ANNOTATED_TEXT)
        finder.annotation_probes[name] = [
            (module, match.group(1))
            for module, data in _sources(finder).items()
            if word in data
            for match in pattern.finditer(data)
        ]
    return finder.annotation_probes[name]


def _consensus(finder: Finder, name: str) -> tuple[str, str, int] | None:
    """(class, a module annotating with it, how often) of :func:`by_consensus`."""
    if name in _NAMELESS or len(name) < 6 or not name.isidentifier():
        return None
    counts: dict[str, int] = {}
    where: dict[str, str] = {}
    total = 0
    for module, raw in _annotations(finder, name):
        text = raw.decode("utf-8", "replace")
        if not text.strip("\"'")[:1].isupper():
            continue  # ``name: int``, a docstring's ``name: the ...``
        total += 1
        cls = _type_name(text)
        if cls:
            counts[cls] = counts.get(cls, 0) + 1
            where.setdefault(cls, module)
    if not counts:
        return None
    cls, count = max(sorted(counts.items()), key=lambda item: item[1])
    if count < MIN_CONSENSUS or count < CONSENSUS_SHARE * total:
        return None
    return cls, where[cls], count


def lineage(finder: Finder, cls: str, module: str, depth: int = 0) -> frozenset[str]:
    """The names of the bases of class ``cls`` as seen from ``module``, transitively
    (through imports, :data:`MAX_HOPS` hops each, a few levels)."""
    loaded = finder.load(module)
    if loaded is None or depth > 6:
        return frozenset()
    parsed, relpath = loaded
    if cls not in parsed.classes:
        target = parsed.imports.get(cls)
        if target is None:
            return frozenset()
        source, _colon, original = target.partition(":")
        absolute = absolute_module(source, module, relpath.endswith("__init__.py"))
        return lineage(finder, original, absolute, depth + 1)
    out: set[str] = set()
    for base in parsed.bases.get(cls, ())[:4]:
        if base == cls or not base[:1].isupper():
            continue
        out.add(base)
        out |= lineage(finder, base, module, depth + 1)
    return frozenset(out)


def _chain_root(
    finder: Finder, fits: dict[str, tuple[int, str, Defined]], keywords: frozenset[str]
) -> tuple[str, Defined] | None:
    """The one class of ``fits`` that every other one derives from (a base and the
    subclasses that re-declare or inherit its fields: a reviewer names the most general
    class declaring them), else their nearest common base when it is a record declaring
    every keyword (``T5Config``, ``LlamaConfig``... -> ``TextEncoderConfig``); None when
    the fits are not of one chain."""
    if len(fits) == 1:
        cls, (_size, _module, defined) = next(iter(fits.items()))
        return cls, defined
    lineages = {other: lineage(finder, other, module) for other, (_s, module, _d) in fits.items()}
    for cls, (_size, _module, defined) in fits.items():
        if all(other == cls or cls in lineage for other, lineage in lineages.items()):
            return cls, defined
    common = frozenset.intersection(*lineages.values())
    if not common:
        return None
    _first, (_size, module, _defined) = next(iter(fits.items()))
    for base in sorted(common):
        found = define(finder, base, module)
        above = lineage(finder, base, found.module) if found is not None else frozenset()
        if found is not None and common - {base} <= above:
            # the nearest common base: every other common base is above it
            if found.record and keywords <= found.fields:
                return base, found
            return None
    return None


# ``-> T:`` ending its line, or a stub's ``-> T: ...`` (a ``Protocol``'s method). The
# annotation ends on a non-blank character: a lazy group that may end in blanks before
# ``[ \t]*`` retries every split of a long blank run (a hostile line of 80,000 spaces
# took 6 s; this is linear).
_RETURNS_RE = re.compile(
    rb"[ \t]*->[ \t]*([^\n#]*?[^\s#])[ \t]*:[ \t]*(?:(?:\.\.\.|pass)[ \t]*)?(?:#[^\n]*)?$",
    re.M,
)


def _module_def(path: str, func: str) -> tuple[bytes, re.Match[bytes]] | None:
    """A file's bytes (at most :data:`MAX_MODULE_BYTES`) and the match of its first
    module-level ``def func(`` line, or None."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_MODULE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_MODULE_BYTES:
        return None
    match = re.search(
        rb"^(?:async[ \t]+)?def[ \t]+" + re.escape(func.encode()) + rb"[ \t]*\(", data, re.M
    )
    return None if match is None else (data, match)


@functools.lru_cache(maxsize=1024)
def _return_annotation(path: str, mtime_ns: int, size: int, func: str) -> str | None:
    """The return annotation's text of the first module-level ``def func(...) -> T:`` of
    a file (text only: the parameter list is skipped to its closing parenthesis)."""
    del mtime_ns, size
    found = _module_def(path, func)
    if found is None:
        return None
    data, match = found
    end = _past_signature(data, match.end())
    if end is None:
        return None
    returns = _RETURNS_RE.match(data, end)
    return returns.group(1).decode("utf-8", "replace") if returns else None


@functools.lru_cache(maxsize=1024)
def _bound_alias(path: str, mtime_ns: int, size: int, func: str) -> tuple[str, str] | None:
    """(class, method) when a file binds the module-level name ``func`` to a method of a
    module-level instance (huggingface_hub's ``api = HfApi()`` ... ``model_info =
    api.model_info``) or of a class (``func = Cls.method``): the function a caller
    imports is that method."""
    del mtime_ns, size
    data = _module_bytes(path)
    if data is None:
        return None
    bound = re.search(
        rb"^" + re.escape(func.encode()) + rb"[ \t]*=[ \t]*(\w+)\.(\w+)[ \t]*(?:#[^\n]*)?$",
        data,
        re.M,
    )
    if bound is None:
        return None
    owner, method = bound.group(1).decode(), bound.group(2).decode()
    if not owner[:1].isupper():
        built = re.search(
            rb"^" + re.escape(bound.group(1)) + rb"[ \t]*=[ \t]*([A-Z]\w*)\(", data, re.M
        )
        if built is None:
            return None
        owner = built.group(1).decode()
    return owner, method


def _function_annotation(path: str, info: os.stat_result, func: str) -> tuple[str, str] | None:
    """(return annotation text, the callable's name for messages) of the module function
    ``func`` of a file: its own ``def``, or the method it is bound to
    (:func:`_bound_alias`)."""
    text = _return_annotation(path, info.st_mtime_ns, info.st_size, func)
    if text is not None:
        return text, func
    alias = _bound_alias(path, info.st_mtime_ns, info.st_size, func)
    if alias is None:
        return None
    text = _method_returns(path, info.st_mtime_ns, info.st_size, *alias)
    return (text, f"{alias[0]}.{alias[1]}") if text is not None else None


@functools.lru_cache(maxsize=1024)
def _method_returns(path: str, mtime_ns: int, size: int, cls: str, method: str) -> str | None:
    """The return annotation's text of ``def method(...) -> T:`` in the body of the
    module-level class ``cls`` of a file (text only, as :func:`_return_annotation`)."""
    del mtime_ns, size
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_MODULE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_MODULE_BYTES:
        return None
    head = re.search(rb"^class[ \t]+" + re.escape(cls.encode()) + rb"\b", data, re.M)
    if head is None:
        return None
    pattern = re.compile(_DEF_TEXT % re.escape(method.encode()), re.M)
    match = pattern.search(data, head.end(), _class_end(data, head.end()))
    end = _past_signature(data, match.end()) if match is not None else None
    returns = _RETURNS_RE.match(data, end) if end is not None else None
    return returns.group(1).decode("utf-8", "replace") if returns else None


def method_return(
    finder: Finder,
    cls: str,
    method: str,
    modules: list[str],
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[Mimicked, Defined] | None:
    """The typed data class the method ``cls.method`` is annotated to return (``def
    list_repo_refs(...) -> GitRefs``), ``cls`` seen from the modules: what a fake set
    as the return value of that method's mock stands in for."""
    for module in modules:
        defined = define(finder, cls, module)
        found = finder.find(defined.module) if defined is not None else None
        if defined is None or found is None:
            continue
        try:
            info = os.stat(found[0])
        except OSError:
            continue
        text = _method_returns(found[0], info.st_mtime_ns, info.st_size, cls, method)
        returned = _type_name(text) if text else None
        if not returned:
            return None
        hit = mimicked(finder, [defined.module], "", False, returned, keywords, None, nested)
        if hit is None:
            return None
        how = f"`{cls}.{method}() -> {text.strip() if text else ''}` in {found[1]}"
        return Mimicked(hit[0].name, hit[0].where, how), hit[1]
    return None


# The body of a function read for the class its ``return`` constructs (bytes).
MAX_FUNCTION_BYTES = 200_000


@functools.lru_cache(maxsize=1024)
def _constructed_return(path: str, mtime_ns: int, size: int, func: str) -> str | None:
    """The class the first module-level ``def func`` of a file constructs in a
    ``return Cls(...)`` (its text up to the next top-level line, at most
    :data:`MAX_FUNCTION_BYTES`, parsed alone): what an unannotated function returns
    (the stdlib's ``subprocess.run`` -> ``CompletedProcess``)."""
    del mtime_ns, size
    found = _module_def(path, func)
    if found is None:
        return None
    data, match = found
    end = _class_end(data, match.end())
    if end - match.start() > MAX_FUNCTION_BYTES:
        return None
    try:
        tree = ast.parse(data[match.start() : end])
    except PYTHON_PARSE_ERRORS:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
            name = _terminal(node.value.func)
            if name[:1].isupper():
                return name
    return None


def _stdlib(path: str) -> bool:
    """Whether ``path`` is a module of the running Python's standard library (its
    classes have typed stubs in typeshed), not an installed package."""
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    real = os.path.realpath(path)
    return real.startswith(stdlib + os.sep) and "site-packages" not in real.split(os.sep)


def patched_return(
    finder: Finder,
    target: str,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[Mimicked, Defined] | None:
    """The typed data class a function patched by its dotted path returns
    (``patch("vllm.config.get_current_vllm_config", return_value=fake)``: its ``->
    VllmConfig``), read where it is defined (re-exports followed a few hops)."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module, func = ".".join(parts[:cut]), parts[cut]
        if cut != len(parts) - 1 or finder.find(module) is None:
            continue
        for path, where, info, home, name in function_homes(finder, module, func):
            annotated = _function_annotation(path, info, name)
            text = annotated[0] if annotated is not None else None
            built = (
                _constructed_return(path, info.st_mtime_ns, info.st_size, name)
                if text is None
                else None
            )
            name = annotated[1] if annotated is not None else name
            if built is not None:
                # no annotation: the class its ``return`` builds, when that is a typed
                # data class or a stdlib class (typeshed types it), and every keyword
                # of the fake is one of its attributes
                defined = define(finder, built, home)
                if (
                    defined is None
                    or not (defined.data_class or _stdlib(path))
                    or not keywords
                    or not keywords <= defined.fields
                ):
                    return None
                how = f"`{name}()` returns a `{built}` in {where}"
                return Mimicked(built, defined.relpath, how), defined
            if text is not None:
                cls = _type_name(text)
                if not cls:
                    return None
                hit = mimicked(finder, [home], "", False, cls, keywords, None, nested)
                if hit is None:
                    # a data class that is no record takes attributes it does not
                    # declare (transformers' configs): the ``-> T`` alone names it
                    hit = mimicked(finder, [home], "", False, cls, frozenset(), None, nested)
                    if hit is None or hit[1].record:
                        return None
                how = f"`{name}() -> {text.strip()}` in {where}"
                return Mimicked(hit[0].name, hit[0].where, how), hit[1]
        return None
    return None


def function_homes(
    finder: Finder, module: str, func: str
) -> Iterator[tuple[str, str, os.stat_result, str, str]]:
    """(file, its name for messages, its stat, module, function name) of ``module`` and
    then of each module it re-exports ``func`` from (``from .x import f as func``), at
    most :data:`MAX_HOPS` hops: where a caller looks for the function's ``def`` until it
    finds what it reads there. Ends at a module that cannot be read or does not import
    the name."""
    for _hop in range(MAX_HOPS + 1):
        found = finder.find(module)
        loaded = finder.load(module)
        if found is None or loaded is None:
            return
        try:
            info = os.stat(found[0])
        except OSError:
            return
        yield found[0], found[1], info, module, func
        imported = loaded[0].imports.get(func)
        if imported is None:
            return
        source, _colon, original = imported.partition(":")
        module = absolute_module(source, module, found[1].endswith("__init__.py"))
        func = original


def function_return(finder: Finder, module: str, func: str) -> tuple[str, str] | None:
    """(return annotation text, module it is seen from) of module function ``func`` of
    ``module`` (``-> HfApi``), re-exports followed a few hops (:func:`function_homes`)."""
    if finder.find(module) is None:
        return None
    for path, _where, info, home, name in function_homes(finder, module, func):
        annotated = _function_annotation(path, info, name)
        if annotated is not None:
            return annotated[0], home
    return None


def bound_return(
    finder: Finder,
    cls: str,
    method: str,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[Mimicked, Defined] | None:
    """The typed data class the repository's own code binds what ``cls.method(...)``
    returns to (``config: PretrainedConfig = AutoConfig.from_pretrained(...)``), when
    every such binding names the same class: what a fake set as that method's return
    stands in for where the method itself is not annotated; memoized."""
    memo_key = ("bound", cls, method, keywords, nested)
    if memo_key in finder.answers:
        return finder.answers[memo_key]
    answer = None
    word = f"{cls}.{method}(".encode()
    pattern = re.compile(
        rb"(?<![A-Za-z0-9_.])" + _IDENT + _ANNOTATED_TEXT + rb"[ \t]*=[ \t]*"
        rb"(?:" + _IDENT + rb"\.)*" + re.escape(word)
    )
    found: dict[str, str] = {}
    for module, data in _sources(finder).items():
        if word not in data:
            continue
        for match in pattern.finditer(data):
            text = match.group(1).decode("utf-8", "replace")
            name = _type_name(text)
            if name:
                found.setdefault(name, module)
    if len(found) == 1:
        name, module = next(iter(found.items()))
        hit = mimicked(finder, [module], "", False, name, keywords, None, nested)
        if hit is None:
            # a data class that is no record takes attributes it does not declare
            hit = mimicked(finder, [module], "", False, name, frozenset(), None, nested)
            if hit is not None and hit[1].record:
                hit = None
        if hit is not None:
            how = f"`{cls}.{method}(...)` bound as a `{name}` in {module}"
            answer = Mimicked(hit[0].name, hit[0].where, how), hit[1]
    finder.answers[memo_key] = answer
    return answer


# Modules read for the calls that pass a value to a callee's untyped parameter, and the
# bytes of one such module (parsed whole).
MAX_CALLER_MODULES = 6
MAX_CALLER_BYTES = 400_000


_Function = ast.FunctionDef | ast.AsyncFunctionDef


@functools.lru_cache(maxsize=64)
def _calls_in(
    path: str, mtime_ns: int, size: int
) -> dict[str, tuple[tuple[ast.Call, _Function], ...]]:
    """Callee name -> (call, its innermost enclosing function) of each call in a
    function of a work tree module, parsed whole once (at most
    :data:`MAX_CALLER_BYTES`)."""
    del mtime_ns
    if size > MAX_CALLER_BYTES:
        return {}
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_CALLER_BYTES + 1)  # bounded: the file may have grown
        if len(data) > MAX_CALLER_BYTES:
            return {}
        tree = ast.parse(data)
    except (OSError, *PYTHON_PARSE_ERRORS):
        return {}
    out: dict[str, list[tuple[ast.Call, _Function]]] = {}
    stack: list[tuple[ast.AST, _Function | None]] = [(tree, None)]
    while stack:
        node, func = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            func = node
        elif isinstance(node, ast.Call) and func is not None:
            name = _callee(node)
            if name:
                out.setdefault(name, []).append((node, func))
        stack.extend((child, func) for child in ast.iter_child_nodes(node))
    return {name: tuple(calls) for name, calls in out.items()}


def calling_modules(finder: Finder, callee: str) -> list[str]:
    """The work tree's modules outside tests whose text calls ``callee(`` (not only
    ``def callee(``; at most :data:`MAX_CALLER_MODULES`), looked up once per finder."""
    memo = finder.calling
    if callee not in memo:
        word = callee.encode() + b"("
        called = re.compile(rb"(?<!def )(?<![A-Za-z0-9_])" + re.escape(word))
        found: list[str] = []
        for module, data in _sources(finder).items():
            if word in data and called.search(data):
                found.append(module)
                if len(found) >= MAX_CALLER_MODULES:
                    break
        memo[callee] = found
    return memo[callee]


# ``def name(`` led by its literal: ``re`` skips ahead to each ``def`` (led by ``^`` with
# MULTILINE it tries every line, by a lookbehind every byte: 17x slower over vLLM's 43 MB);
# a match inside a longer word (``undef f(``) is dropped after. A ``def`` after other text
# on its line (in a string or comment) counts, as for a grep: the index's names.
_DEF_WORD_RE = re.compile(rb"def[ \t]+(" + _IDENT + rb")[ \t]*\(")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.")


def _def_names(data: bytes) -> set[bytes]:
    """The names of ``data``'s ``def name(`` (:data:`_DEF_WORD_RE`, not inside a word)."""
    return {
        match.group(1)
        for match in _DEF_WORD_RE.finditer(data)
        if not match.start() or data[match.start() - 1] not in _WORD_BYTES
    }


def defining_modules(finder: Finder, callee: str) -> list[str]:
    """The work tree's modules outside tests that define ``callee`` (``def callee(`` at
    any indentation; at most two: a name defined twice names no one function). Where a
    reviewer greps for a function the test reaches through an object nothing resolves
    (a fixture's module, ``recipe_runner.sync_layout(...)``). The first ``LAZY_PROBES``
    names are looked up by reading each module for them, then from an index of every
    module's ``def`` names, built once per finder: a test of hundreds of such calls
    reads the tree once, not once a name."""
    memo = finder.defining
    if callee in memo:
        return memo[callee]
    if finder.def_index is None and len(memo) >= LAZY_PROBES:
        index: dict[bytes, list[str]] = {}
        for module, data in _sources(finder).items():
            for name in _def_names(data):
                held = index.setdefault(name, [])
                if len(held) < 2:
                    held.append(module)
        finder.def_index = index
    if finder.def_index is not None:
        found = finder.def_index.get(callee.encode(), [])
    else:
        word = callee.encode()
        found = []
        for module, data in _sources(finder).items():
            if word in data and word in _def_names(data):
                found.append(module)
                if len(found) >= 2:
                    break
    memo[callee] = found
    return found


def _value_class(finder: Finder, func: ast.AST, expr: ast.expr) -> str | None:
    """The class a caller's argument is known to be: a name the enclosing function
    annotates (``config: PretrainedConfig = ...``, a parameter's annotation), or binds
    once to a class's method call whose value the repository binds to one class
    (:func:`bound_return`)."""
    if not isinstance(expr, ast.Name):
        return None
    var = expr.id
    annotated: list[ast.expr] = []
    assigned: list[ast.expr] = []
    if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = func.args
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if a.arg == var and a.annotation is not None:
                annotated.append(a.annotation)
    for node in walked(func):
        if isinstance(node, ast.AnnAssign) and _terminal_name(node.target) == var:
            annotated.append(node.annotation)
        elif isinstance(node, ast.Assign) and any(_terminal_name(t) == var for t in node.targets):
            assigned.append(node.value)
    if annotated:
        names = {_type_name(ast.unparse(a)) for a in annotated}
        return names.pop() if len(names) == 1 else None
    if len(assigned) != 1 or not isinstance(assigned[0], ast.Call):
        return None
    called = assigned[0].func
    if not isinstance(called, ast.Attribute):
        return None
    owner = _terminal(called.value)
    if not owner[:1].isupper():
        return None
    found = bound_return(finder, owner, called.attr, frozenset(), ())
    return found[0].name if found is not None else None


def _terminal_name(node: ast.expr) -> str:
    """``v`` of a plain name target; "" for any other target."""
    return node.id if isinstance(node, ast.Name) else ""


def _passed_class(finder: Finder, callee: str, param: str, module: str) -> tuple[str, str] | None:
    """(class, a caller module) of :func:`callers_pass`: what every call whose argument
    for ``param`` is known passes, when they agree."""
    if not callee.isidentifier():
        return None
    params = next((p for p in signatures_in(finder, module, callee) if param in p), None)
    if params is None:
        return None
    position = params.index(param) if "*" not in params[: params.index(param)] else -1
    classes: dict[str, str] = {}
    for caller in calling_modules(finder, callee):
        where = finder.find(caller)
        if where is None:
            continue
        try:
            info = os.stat(where[0])
        except OSError:
            continue
        for node, func in _calls_in(where[0], info.st_mtime_ns, info.st_size).get(callee, ()):
            arg = next((k.value for k in node.keywords if k.arg == param), None)
            if arg is None and position >= 0:
                at = position
                unbound = called_on_class(node)
                if params[0] == "cls" or (params[0] == "self" and not unbound):
                    at -= 1
                if 0 <= at < len(node.args) and not any(
                    isinstance(a, ast.Starred) for a in node.args[: at + 1]
                ):
                    arg = node.args[at]
            if arg is None:
                continue
            cls = _value_class(finder, func, arg)
            if cls:
                classes.setdefault(cls, caller)
    if len(classes) != 1:
        return None
    return next(iter(classes.items()))


def callers_pass(
    finder: Finder,
    callee: str,
    param: str,
    module: str,
    keywords: frozenset[str],
    nested: tuple[tuple[str, frozenset[str]], ...],
) -> tuple[Mimicked, Defined] | None:
    """The typed data class the code under test's own calls pass for ``callee``'s
    parameter ``param`` (defined in ``module``, not annotated there): each call in the
    work tree's modules outside tests whose argument for it is known (a name its
    function annotates, or binds to a method call the repository binds to one class),
    when all those known agree; memoized."""
    memo_key = ("callers", callee, param, module, keywords, nested)
    if memo_key in finder.answers:
        return finder.answers[memo_key]
    finder.answers[memo_key] = None
    passed = finder.passed
    if (callee, param, module) not in passed:
        passed[(callee, param, module)] = _passed_class(finder, callee, param, module)
    value = passed[(callee, param, module)]
    if value is None:
        return None
    cls, caller = value
    hit = mimicked(finder, [caller], "", False, cls, keywords, None, nested)
    if hit is None:
        # a data class that is no record takes attributes it does not declare
        hit = mimicked(finder, [caller], "", False, cls, frozenset(), None, nested)
        if hit is not None and hit[1].record:
            hit = None
    if hit is None:
        return None
    how = f"what the code's calls of `{callee}` pass for `{param}` (a `{cls}` in {caller})"
    answer = Mimicked(hit[0].name, hit[0].where, how), hit[1]
    finder.answers[memo_key] = answer
    return answer


def patch_target(call: ast.Call) -> str:
    """The dotted path a ``patch("a.b.name", ...)`` replaces; "" for any other call."""
    if _callee(call) != "patch" or not call.args:
        return ""
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and "." in arg.value:
        return arg.value
    return ""


# Parsed modules kept (a base class's, the class declaring an attribute): many readings
# share one module, and each tree is up to MAX_MODULE_BYTES of source: bounded memory.
PARSED_MODULES = 256


def module_tree(path: str) -> ast.Module | None:
    """The parsed module at ``path``, cached by its stat; None when it cannot be read, is
    over :data:`MAX_MODULE_BYTES` or does not parse (nesting too deep included)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return _parsed_module(path, info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=PARSED_MODULES)
def _parsed_module(path: str, mtime_ns: int, size: int) -> ast.Module | None:
    """:func:`module_tree` for one stat of the file."""
    del mtime_ns
    if size > MAX_MODULE_BYTES:
        return None
    data = _module_bytes(path)
    if data is None:
        return None
    try:
        return ast.parse(data)
    except PYTHON_PARSE_ERRORS:
        return None


def _module_bytes(path: str) -> bytes | None:
    """A module's bytes, None when unreadable or over :data:`MAX_MODULE_BYTES`."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_MODULE_BYTES + 1)
    except OSError:
        return None
    return None if len(data) > MAX_MODULE_BYTES else data
