# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Annotations that are provably wrong without a type checker (``any-annotation`` ✗).

Four shapes, each judged on the syntax tree alone and skipped whenever unsure:

* an implicit ``Optional``: a parameter, attribute, variable or dataclass field
  ``x: T = None`` where ``T`` cannot hold None (ruff RUF013, mypy's
  ``no_implicit_optional``);
* ``-> T`` (``T`` cannot hold None; the builtins are :mod:`any_annotation`'s own check)
  with an explicit ``return None`` or a bare ``return``;
* ``-> dict[...]`` / ``list`` / ``tuple`` / ``set`` / ``bool`` / ``int`` / ``str`` /
  ``float`` / ``bytes`` whose function returns a literal of another kind (a tuple display
  under ``-> dict``, ``{}`` under ``-> set``), or a call of a builtin that always gives
  one builtin type (``dict.fromkeys(...)`` under ``-> float``, ``tuple(...)`` under
  ``-> List[X]``) where the file and function leave that builtin's name unbound, or a
  local name every binding of which gives one such kind (``rewards = []`` then
  ``return rewards`` under ``-> float``), or ``-> tuple[X]`` (exactly one item)
  returning a tuple of another length;
* ``typing.Self`` in the signature of a function no class encloses (PEP 673: it names
  no class there).

"Cannot hold None" is decided only for what is certain: builtins, the ``typing`` and
``collections.abc`` generics, ``torch.Tensor`` and ``numpy.ndarray``, a class the file
defines, and a class defined (``class X``) in a module imported (absolutely or relatively,
:func:`~policytool.formats.pyimports.resolve_relative`) from the repository or the
installed packages (read as text, nothing imported); for a parameter, a class-like name
imported from a module that is neither (read as its dotted spelling is). A ``TypeVar``,
a type alias, a name that cannot be resolved or an unparsable string answers "unsure".
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import functools
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from policytool.core.globs import match_any
from policytool.core.text import PYTHON_PARSE_ERRORS
from policytool.engine.findings import Finding
from policytool.formats.pyimports import package_of_path, resolve_relative
from policytool.rules import _ancestry as ancestry
from policytool.rules import _fakes as fakes
from policytool.rules import _kwreads as kwreads
from policytool.rules import _parametrize as parametrize
from policytool.rules._fail_fast import module_name, read_py_files
from policytool.rules._pyast import last_name, parameter_defaults
from policytool.rules._pysource import (
    COMPREHENSIONS,
    TRY_NODES,
    SourceInfo,
    union_items,
    union_members,
    unparse,
    unquoted,
)
from policytool.rules._sweep import BLOCK, WARN, finding, short

RULE = "any-annotation"

# Builtins that can never hold None (any-annotation's return check reads them too).
BUILTINS = frozenset(
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
        "type",
        "range",
        "slice",
        "memoryview",
    }
)
# The legacy typed tensors (``torch.LongTensor``): classes, never None, never a literal.
_LEGACY_TENSORS = tuple(
    f"torch.{kind}Tensor"
    for kind in (
        "Long",
        "Int",
        "Short",
        "Char",
        "Byte",
        "Bool",
        "Float",
        "Double",
        "Half",
        "BFloat16",
    )
)
# Types from modules that can never hold None (qualified names).
_KNOWN_NOT_NONE = frozenset(
    {
        *(
            f"{module}.{name}"
            for module in ("typing", "typing_extensions")
            for name in (
                "List",
                "Dict",
                "Set",
                "FrozenSet",
                "Tuple",
                "Type",
                "Callable",
                "Sequence",
                "MutableSequence",
                "Mapping",
                "MutableMapping",
                "Iterable",
                "Iterator",
                "Generator",
                "AsyncIterator",
                "AsyncIterable",
                "AsyncGenerator",
                "Awaitable",
                "Coroutine",
                "Collection",
                "Container",
                "AbstractSet",
                "MutableSet",
                "Deque",
                "DefaultDict",
                "OrderedDict",
                "Counter",
                "Pattern",
                "Match",
            )
        ),
        *(
            f"collections.abc.{name}"
            for name in (
                "Callable",
                "Sequence",
                "MutableSequence",
                "Mapping",
                "MutableMapping",
                "Iterable",
                "Iterator",
                "Generator",
                "AsyncIterator",
                "AsyncIterable",
                "AsyncGenerator",
                "Awaitable",
                "Coroutine",
                "Collection",
                "Container",
                "Set",
                "MutableSet",
            )
        ),
        "collections.deque",
        "collections.defaultdict",
        "collections.OrderedDict",
        "collections.Counter",
        "pathlib.Path",
        "torch.Tensor",
        *_LEGACY_TENSORS,
        "torch.device",
        "torch.dtype",
        "torch.nn.Module",
        "numpy.ndarray",
        "re.Pattern",
    }
)
# Types whose values are never a literal display (a tuple, dict, list, str...): tensors,
# arrays and the stdlib's paths (``-> Path`` returning ``folder, rel``; on Python 3.13
# ``pathlib`` is a package that re-exports ``Path``, so its class is not read there).
_NEVER_A_DISPLAY = frozenset(
    {
        "torch.Tensor",
        "torch.nn.Module",
        "torch.device",
        "torch.dtype",
        "numpy.ndarray",
        *_LEGACY_TENSORS,
        *(
            f"pathlib.{name}"
            for name in ("Path", "PurePath", "PosixPath", "WindowsPath", "PurePosixPath")
        ),
    }
)
_ADMITS_NONE = frozenset(
    {
        "Any",
        "object",
        "None",
        "typing.Any",
        "typing_extensions.Any",
        "typing.Optional",
        "typing_extensions.Optional",
        "typing.NoReturn",
        "typing.Never",
        "builtins.object",
        "types.NoneType",
    }
)
_WRAPPERS = frozenset(
    {
        "typing.Annotated",
        "typing_extensions.Annotated",
        "typing.ClassVar",
        "typing.Final",
        "typing_extensions.Final",
        "typing.Required",
        "typing.NotRequired",
        "typing_extensions.Required",
        "typing_extensions.NotRequired",
        "typing.ReadOnly",
        "typing_extensions.ReadOnly",
        "dataclasses.InitVar",
    }
)
_LITERALS = frozenset({"typing.Literal", "typing_extensions.Literal"})
# The kinds of literal a plain builtin return annotation accepts.
_ACCEPTS = {
    "dict": {"dict"},
    "list": {"list"},
    "tuple": {"tuple"},
    "set": {"set"},
    "frozenset": {"frozenset"},
    "bool": {"bool"},
    "int": {"int", "bool"},
    "float": {"float", "int", "bool"},
    "str": {"str"},
    "bytes": {"bytes"},
}
_TYPING_BUILTIN = {
    "typing.Dict": "dict",
    "typing.List": "list",
    "typing.Tuple": "tuple",
    "typing.Set": "set",
    "typing.FrozenSet": "frozenset",
}
# Modules whose dotted names are typing constructs (aliases, protocols that may hold None).
_TYPING_MODULES = frozenset(
    {"typing", "typing_extensions", "collections", "types", "_typeshed", "builtins", "abc"}
)
# A class name as written: CamelCase with a lower-case letter (not ``T``, ``DTYPE``, ``_x``).
_CLASS_NAME_RE = re.compile(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*")
# Names that read as an alias or a type variable, not a class: ``DTypeLike`` (numpy's
# holds None), ``PathType``, ``OptionalTensor``, ``MaybeConfig``, ``ModelT``, ``TModel``.
# ``Constexpr`` (CUTLASS' DSL) marks a compile-time value of any type, ``None`` included.
_ALIAS_NAME_RE = re.compile(
    r"(Like|Type|Types|Alias|OrNone|T)$|^(Optional|Maybe|Nullable|Union|Any|T[A-Z])|^Constexpr$"
)
# Modules of type aliases (``torch.types``, ``numpy.typing``, ``x._typing``, ``x.aliases``).
_ALIAS_MODULE_RE = re.compile(r"_?(types?|typing|typedefs?|type_hints|type_aliases|aliases)")


def _literal_kind(value: ast.expr) -> str | None:
    """The builtin type of a literal display or constant (None: not a literal)."""
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return "dict"
    if isinstance(value, (ast.List, ast.ListComp)):
        return "list"
    if isinstance(value, ast.Tuple):
        return "tuple"
    if isinstance(value, (ast.Set, ast.SetComp)):
        return "set"
    if isinstance(value, ast.JoinedStr):
        return "str"
    if isinstance(value, ast.Constant) and value.value is not None and value.value is not ...:
        return type(value.value).__name__
    return None


# Builtins whose call always gives one builtin type (a constructor, ``sorted``, ``len``):
# ``return dict.fromkeys(keys, 0)`` under ``-> float`` is as certain as a ``{}`` display.
_BUILTIN_CALLS = {
    "dict": "dict",
    "list": "list",
    "tuple": "tuple",
    "set": "set",
    "frozenset": "frozenset",
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "bytes": "bytes",
    "sorted": "list",
    "len": "int",
    "repr": "str",
}
# Class methods of those builtins that build an instance of the class itself.
_BUILTIN_FACTORIES = {("dict", "fromkeys"): "dict", ("bytes", "fromhex"): "bytes"}


def _call_kind(value: ast.expr, shadowed: frozenset[str] | set[str]) -> tuple[str, str] | None:
    """(builtin type, builtin name) of a call of a builtin whose result's type is certain:
    ``dict(...)``, ``dict.fromkeys(...)``, ``sorted(...)``, ``"-".join(...)``; None for any
    other call, or when the file (or function) binds that builtin's name itself."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    if isinstance(func, ast.Name):
        kind = _BUILTIN_CALLS.get(func.id)
        return (kind, func.id) if kind is not None and func.id not in shadowed else None
    if not isinstance(func, ast.Attribute):
        return None
    receiver = func.value
    if isinstance(receiver, ast.Name):
        kind = _BUILTIN_FACTORIES.get((receiver.id, func.attr))
        if kind is not None and receiver.id not in shadowed:
            return kind, receiver.id
        return None
    if (
        isinstance(receiver, ast.Constant)
        and isinstance(receiver.value, str)
        and func.attr in ("join", "format")
    ):
        return "str", ""
    return None


def _bound_names(node: ast.AST) -> set[str]:
    """The names ``node`` binds anywhere inside it (parameters, assignments, ``def``,
    ``class``, imports): a builtin name among them is not the builtin there."""
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            out.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(sub.name)
        elif isinstance(sub, ast.arg):
            out.add(sub.arg)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".", 1)[0] for a in sub.names)
    return out


# Awaited calls whose result is certainly a builtin: ``await asyncio.gather(...)`` is a
# list of the results (a ``-> Tuple[Any, dict]`` over it is wrong).
_AWAITED_KINDS = {"asyncio.gather": "list"}


def _value_kind(
    value: ast.expr, shadowed: frozenset[str] | set[str], src: SourceInfo | None = None
) -> str | None:
    """:func:`_literal_kind`, or the builtin type a builtin call certainly gives (or, with
    the file ``src`` to resolve its imports, an awaited :data:`_AWAITED_KINDS` call)."""
    kind = _literal_kind(value)
    if kind is not None:
        return kind
    if isinstance(value, ast.Await):
        call = value.value
        if src is None or not isinstance(call, ast.Call):
            return None
        head = call.func
        while isinstance(head, ast.Attribute):
            head = head.value
        # the module imports the name and never rebinds it: the standard library's
        if not (
            isinstance(head, ast.Name)
            and head.id in src.aliases
            and head.id not in _types(src).rebound
        ):
            return None
        return _AWAITED_KINDS.get(src.qualname(call.func) or "")
    called = _call_kind(value, shadowed)
    return called[0] if called is not None else None


# Kinds an augmented assignment keeps (``rows += [...]``, ``seen |= {...}``).
_AUGMENTED_KEEP = frozenset({"list", "tuple", "set", "dict"})


def _local_kinds(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    shadowed: frozenset[str] | set[str],
    src: SourceInfo | None = None,
) -> dict[str, str]:
    """The local names of ``node`` whose every binding in its own scope gives one builtin
    kind (``metrics = []`` then ``metrics.append(...)``: a list); a parameter, a
    ``global``/``nonlocal`` name or one bound any other way (a loop, ``with``, unpacking,
    walrus) is left out."""
    arguments = node.args
    params = {
        a.arg
        for a in (
            *arguments.posonlyargs,
            *arguments.args,
            *arguments.kwonlyargs,
            *(x for x in (arguments.vararg, arguments.kwarg) if x is not None),
        )
    }
    kinds: dict[str, set[str]] = {}
    excluded: set[str] = set(params)
    stack: list[ast.AST] = list(node.body)
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            excluded.add(current.name)
            continue
        if isinstance(current, (ast.Lambda, *COMPREHENSIONS)):
            continue
        if isinstance(current, (ast.Global, ast.Nonlocal)):
            excluded.update(current.names)
        elif isinstance(current, ast.Assign) and (
            len(current.targets) == 1 and isinstance(current.targets[0], ast.Name)
        ):
            kind = _value_kind(current.value, shadowed, src)
            kinds.setdefault(current.targets[0].id, set()).add(kind or "other")
            stack.append(current.value)
            continue
        elif isinstance(current, ast.Assign) and _paired_display(current):
            # ``relax, keep = {}, {}``: each name bound to its own item of the display
            target, value = current.targets[0], current.value
            assert isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple)
            for bound, item in zip(target.elts, value.elts, strict=True):
                assert isinstance(bound, ast.Name)
                kind = _value_kind(item, shadowed, src)
                kinds.setdefault(bound.id, set()).add(kind or "other")
            stack.append(current.value)
            continue
        elif isinstance(current, ast.AnnAssign) and isinstance(current.target, ast.Name):
            if current.value is None:
                continue
            kind = _value_kind(current.value, shadowed, src)
            kinds.setdefault(current.target.id, set()).add(kind or "other")
            stack.append(current.value)
            continue
        elif isinstance(current, ast.AugAssign) and isinstance(current.target, ast.Name):
            kinds.setdefault(current.target.id, set()).add("augmented")
            stack.append(current.value)
            continue
        elif isinstance(current, ast.Name) and isinstance(current.ctx, (ast.Store, ast.Del)):
            excluded.add(current.id)
        stack.extend(ast.iter_child_nodes(current))
    out: dict[str, str] = {}
    for name, found in kinds.items():
        plain = found - {"augmented"}
        if name in excluded or len(plain) != 1:
            continue
        (kind,) = plain
        if kind == "other" or ("augmented" in found and kind not in _AUGMENTED_KEEP):
            continue
        out[name] = kind
    return out


def _paired_display(assign: ast.Assign) -> bool:
    """Whether ``assign`` is ``a, b = x, y``: plain names, a tuple display of as many
    items, no starred item."""
    if len(assign.targets) != 1:
        return False
    target, value = assign.targets[0], assign.value
    return (
        isinstance(target, ast.Tuple)
        and isinstance(value, ast.Tuple)
        and len(target.elts) == len(value.elts)
        and all(isinstance(e, ast.Name) for e in target.elts)
        and not any(isinstance(e, ast.Starred) for e in value.elts)
    )


def _parameter_kinds(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> dict[str, str]:
    """The parameters of ``node`` annotated with a plain builtin (``discrete_dims:
    dict[int, list[float]]``) that its own scope never rebinds: what they hold when
    returned."""
    arguments = node.args
    kinds = {
        arg.arg: builtin
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
        if arg.annotation is not None and (builtin := _builtin_of(src, arg.annotation))
    }
    if kinds:
        for sub in kwreads.body_nodes(node):
            if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load):
                kinds.pop(sub.id, None)
            elif isinstance(sub, (ast.Global, ast.Nonlocal)):
                for name in sub.names:
                    kinds.pop(name, None)
    return kinds


class _Types:
    """Whether annotations of one file admit None (True / False / None for unsure)."""

    def __init__(self, src: SourceInfo) -> None:
        """Index the file's module-level classes and its other module-level names."""
        self.src = src
        classes: set[str] = set()
        other: set[str] = set()
        # Module-level classes with no base (``object`` aside): hold no literal display.
        self.baseless: set[str] = set()
        for stmt in src.tree.body:
            if isinstance(stmt, ast.ClassDef):
                classes.add(stmt.name)
                if all(isinstance(b, ast.Name) and b.id == "object" for b in stmt.bases):
                    self.baseless.add(stmt.name)
            else:
                for node in ast.walk(stmt) if not isinstance(stmt, ast.FunctionDef) else [stmt]:
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                        other.add(node.id)
                    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        other.add(node.name)
        # A name also assigned at module level (``X = None`` fallback, an alias) is unsure.
        self.classes = classes - other
        self.rebound = other
        self._lineages: dict[str, frozenset[str] | None] = {}
        self._top: (
            tuple[dict[str, list[str]], dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]]
            | None
        ) = None
        self.imported: dict[str, tuple[str, str]] = {}
        # Names imported relatively: from the repository's own package, never absent.
        self.relative: set[str] = set()
        # ``try: from deep_ep import Buffer`` (an optional dependency): read only for
        # a module global's annotation (:meth:`uninstalled_class`).
        self.guarded: dict[str, str] = {}
        for stmt in src.tree.body:
            if isinstance(stmt, TRY_NODES):
                for inner in getattr(stmt, "body", []):
                    if isinstance(inner, ast.ImportFrom) and inner.module and not inner.level:
                        for alias in inner.names:
                            self.guarded[alias.asname or alias.name] = inner.module
            if not isinstance(stmt, ast.ImportFrom):
                continue
            module = stmt.module
            if stmt.level:
                package = package_of_path(src.path)
                module = None
                if package is not None:
                    module = resolve_relative(package, stmt.level, stmt.module)
            if module:
                for alias in stmt.names:
                    self.imported[alias.asname or alias.name] = (module, alias.name)
                    if stmt.level:
                        self.relative.add(alias.asname or alias.name)

    def admits_none(self, annotation: ast.expr) -> bool | None:
        """True when the annotation holds None, False when it certainly does not."""
        if isinstance(annotation, ast.Constant):
            if annotation.value is None:
                return True
            if isinstance(annotation.value, str):
                parsed = unquoted(annotation)
                return None if parsed is None else self.admits_none(parsed)
            return None
        members = union_items(self.src, annotation)
        if members is not None:
            return self._any_of(members)
        if isinstance(annotation, ast.Subscript):
            outer = self.src.qualname(annotation.value)
            items = (
                annotation.slice.elts
                if isinstance(annotation.slice, ast.Tuple)
                else [annotation.slice]
            )
            if outer in _ADMITS_NONE:
                return True
            if outer in _WRAPPERS:
                return self.admits_none(items[0]) if items else None
            if outer in _LITERALS:
                return any(isinstance(i, ast.Constant) and i.value is None for i in items)
            return self._name(annotation.value)
        if isinstance(annotation, (ast.Name, ast.Attribute)):
            return self._name(annotation)
        return None

    def holds_literal(self, annotation: ast.expr, kind: str) -> bool | None:
        """Whether a literal display of builtin ``kind`` (``tuple``, ``dict``...) fits the
        annotation: False only when every member of a union certainly rejects it (a builtin
        of another kind, a tensor, an array, a path, a class without bases); None when
        unsure."""
        if isinstance(annotation, ast.Constant):
            if annotation.value is None:
                return False
            if isinstance(annotation.value, str):
                parsed = unquoted(annotation)
                return None if parsed is None else self.holds_literal(parsed, kind)
            return None
        members = union_items(self.src, annotation)
        if members is not None:
            return self._all_reject(members, kind)
        base: ast.expr = annotation
        if isinstance(annotation, ast.Subscript):
            outer = self.src.qualname(annotation.value)
            items = (
                annotation.slice.elts
                if isinstance(annotation.slice, ast.Tuple)
                else [annotation.slice]
            )
            if outer in _WRAPPERS:
                return self.holds_literal(items[0], kind) if items else None
            base = annotation.value
        if not isinstance(base, (ast.Name, ast.Attribute)):
            return None
        name = self.src.qualname(base)
        if name is None:
            return None
        name = _TYPING_BUILTIN.get(name, name)
        if name in _ACCEPTS:
            if name in self.rebound or name in self.src.aliases:
                return None
            return kind in _ACCEPTS[name]
        if name in _NEVER_A_DISPLAY:
            return False
        if "." not in name and name in self.classes:
            return False if name in self.baseless else None
        if isinstance(base, ast.Name) and base.id in self.imported:
            module, original = self.imported[base.id]
            loaded = self._finder().load(module)
            if loaded is None or original not in loaded[0].classes:
                return None
            if original in loaded[0].imports:
                return None
            bases = [b for b in loaded[0].bases.get(original, ()) if b != "object"]
            return False if not bases else None
        return None

    def _all_reject(self, items: list[ast.expr], kind: str) -> bool | None:
        """A union: True if a member holds the literal, False if every member rejects it."""
        answers = [self.holds_literal(item, kind) for item in items]
        if True in answers:
            return True
        return False if answers and all(a is False for a in answers) else None

    def _any_of(self, items: list[ast.expr]) -> bool | None:
        """A union: True if a member admits None, False if none can, else unsure."""
        answers = [self.admits_none(item) for item in items]
        if True in answers:
            return True
        return False if answers and all(a is False for a in answers) else None

    def _name(self, node: ast.expr) -> bool | None:
        """A (dotted) type name: builtins, known library types, classes of the file or of
        an imported module; unsure otherwise."""
        name = self.src.qualname(node)
        if name is None:
            return None
        if name in _ADMITS_NONE:
            return True
        if name in _KNOWN_NOT_NONE:
            return False
        if "." not in name:
            if name in BUILTINS and name not in self.rebound and name not in self.src.aliases:
                return False
            if name in self.classes:
                return False
        if isinstance(node, ast.Name) and node.id in self.imported:
            module, original = self.imported[node.id]
            return False if self._defines_class(module, original) else None
        if isinstance(node, ast.Attribute):
            return self._dotted_class(node, name)
        return None

    def _dotted_class(self, node: ast.Attribute, name: str) -> bool | None:
        """``mod.sub.ClassName`` written dotted through an imported module: a class, which
        cannot hold None, when its module is not on the path (``ray.actor.ActorHandle``)
        or defines it there as a class; unsure for a name that reads as an alias or a type
        variable (``npt.DTypeLike``, ``mod.OptionalX``, ``mod.ModelT``), the typing
        modules, and a name the module on the path binds otherwise (an alias, a re-export)."""
        root: ast.expr = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or root.id not in self.src.aliases:
            return None  # ``self.Inner``, a local: not a module path
        module, last = name.rsplit(".", 1)
        parts = module.split(".")
        if parts[0] in _TYPING_MODULES or any(_ALIAS_MODULE_RE.fullmatch(p) for p in parts):
            return None  # ``torch.types.Device`` is ``Optional[...]``
        if not _CLASS_NAME_RE.fullmatch(last) or _ALIAS_NAME_RE.search(last):
            return None
        finder = self._finder()
        if finder.find(module) is None:
            return False if finder.find(name) is None else None  # ``a.b.C`` a module: unsure
        loaded = finder.load(module)
        if loaded is None:
            return None
        return False if last in loaded[0].classes and last not in loaded[0].imports else None

    def uninstalled_class(self, annotation: ast.expr) -> bool:
        """Whether ``annotation`` is a name imported (``from m import Name``, a ``try``
        import too) from a module that is neither in the repository nor installed, and
        reads as a class (``Buffer``; not ``DTypeLike``, ``ModelT``): the reading
        :meth:`_dotted_class` gives a dotted name of an absent module."""
        parsed = unquoted(annotation)
        if not isinstance(parsed, ast.Name) or parsed.id in self.rebound:
            return False
        name = parsed.id
        if name in self.relative:
            return False  # a module of the package the finder does not read (a symlink)
        if name in self.imported:
            module, original = self.imported[name]
        elif name in self.guarded:
            module, original = self.guarded[name], name
        else:
            return False
        parts = module.split(".")
        if parts[0] in _TYPING_MODULES or any(_ALIAS_MODULE_RE.fullmatch(p) for p in parts):
            return False
        if not _CLASS_NAME_RE.fullmatch(original) or _ALIAS_NAME_RE.search(original):
            return False
        finder = self._finder()
        return finder.find(module) is None and finder.find(f"{module}.{original}") is None

    def class_lineage(self, name: str, depth: int = 0) -> frozenset[str] | None:
        """``name`` and the names of its bases, transitively, when ``name`` is certainly
        a class: a module-level class of the file (not rebound) or one an imported
        module defines (:meth:`_defines_class`); None when it may be anything else.
        Once per name: a display of thousands of class names reads each class once."""
        if depth > 4:
            return None
        if name in self._lineages:
            return self._lineages[name]
        found: frozenset[str] | None = None
        if name in self.classes:
            seen = {name}
            for base in self._top_level()[0].get(name, ())[:4]:
                if base != name:
                    seen.add(base)
                    seen |= self.class_lineage(base, depth + 1) or frozenset()
            found = frozenset(seen)
        elif name in self.imported and name not in self.rebound:
            module, original = self.imported[name]
            if self._defines_class(module, original):
                lineage = fakes.lineage(self._finder(), original, module)
                found = frozenset({name, original}) | lineage
        if depth == 0:
            self._lineages[name] = found
        return found

    def returned_type(self, name: str) -> str | None:
        """The return annotation's text of function ``name``: a module-level ``def`` of
        the file (the only binding of the name) or one an imported module defines."""
        defs = self._top_level()[1].get(name)
        if defs:
            only = defs[0]
            if len(defs) > 1 or only.returns is None or name in self.classes:
                return None
            return unparse(only.returns, 200)
        if name in self.imported and name not in self.rebound:
            module, original = self.imported[name]
            found = fakes.function_return(self._finder(), module, original)
            return found[0] if found is not None else None
        return None

    def only_def(self, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The module-level ``def`` of the file named ``name``, when it is the name's only
        binding (not a class, not redefined)."""
        defs = self._top_level()[1].get(name)
        if not defs or len(defs) > 1 or name in self.classes:
            return None
        return defs[0]

    def _top_level(
        self,
    ) -> tuple[dict[str, list[str]], dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]]:
        """The written base names of each module-level class of the file and its
        module-level ``def``s by name, read in one pass the first time they are asked."""
        if self._top is None:
            bases: dict[str, list[str]] = {}
            defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
            for stmt in self.src.tree.body:
                if isinstance(stmt, ast.ClassDef):
                    bases.setdefault(stmt.name, []).extend(
                        last_name(base)
                        for base in stmt.bases
                        if isinstance(base, (ast.Name, ast.Attribute))
                    )
                elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs.setdefault(stmt.name, []).append(stmt)
            self._top = (bases, defs)
        return self._top

    def _finder(self) -> fakes.Finder:
        """The module finder of the file's repository (shared by the rules)."""
        return fakes.finder_for(self.src.root)

    def _defines_class(self, module: str, name: str) -> bool:
        """Whether module ``module`` (repository or installed, read as text) has ``class
        name``, or re-exports it: imports it (``from .modeling_utils import
        PreTrainedModel`` in a package's ``__init__``, a ``TYPE_CHECKING`` import too) from
        a module that does, followed :data:`MAX_REEXPORTS` imports deep. A name reached
        this way is the class itself, not an alias: an import binds the name to what the
        other module defines."""
        finder = self._finder()
        for _hop in range(MAX_REEXPORTS + 1):
            loaded = finder.load(module)
            if loaded is None:
                return False
            parsed, relpath = loaded
            if name in parsed.classes and name not in parsed.imports:
                return True
            source = parsed.imports.get(name)
            if source is None or name in parsed.aliases:
                return False
            written, _sep, original = source.partition(":")
            target = fakes.absolute_module(written, module, relpath.endswith("__init__.py"))
            if not target or not original or (target, original) == (module, name):
                return False
            module, name = target, original
        return False


# Imports followed from a module to the one that defines a class it re-exports (a
# package's ``__init__`` -> its submodule, or a compatibility shim in between).
MAX_REEXPORTS = 3


def _types(src: SourceInfo) -> _Types:
    """The file's :class:`_Types`, built once."""
    cached = src.cache.get("wrong_types")
    if not isinstance(cached, _Types):
        cached = _Types(src)
        src.cache["wrong_types"] = cached
    return cached


# FastAPI's request parameters: ``p: str = Form(None)`` gives ``p`` None when the request
# leaves it out, as ``p: str = None`` would.
_REQUEST_PARAMS = frozenset({"Form", "Query", "Body", "Header", "Cookie", "File"})


def _is_none(value: ast.expr | None) -> bool:
    """``None`` as written (``field(default=None)`` too, and ``field(default_factory=None)``,
    which leaves the field without a value, and FastAPI's ``Form(None)`` /
    ``Query(default=None)``)."""
    if isinstance(value, ast.Constant):
        return value.value is None
    if isinstance(value, ast.Call) and last_name(value.func) in _REQUEST_PARAMS:
        first = value.args[0] if value.args else None
        if first is None:
            first = next((k.value for k in value.keywords if k.arg == "default"), None)
        return isinstance(first, ast.Constant) and first.value is None
    if isinstance(value, ast.Call) and not value.args:
        func = value.func
        name = last_name(func)
        if name == "field":
            return any(
                k.arg in ("default", "default_factory") and _is_none(k.value)
                for k in value.keywords
            )
    return False


def gives_none(value: ast.expr) -> bool:
    """Whether a returned expression is or may be ``None`` as written: ``None``, or a
    conditional with a branch that is (the pattern's ``-> bool`` returning
    ``Optional[bool]``: ``return flag if known else None``)."""
    stack = [value]  # a chain of conditionals is a deep tree: no recursion
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Constant) and item.value is None:
            return True
        if isinstance(item, ast.IfExp):
            stack.extend((item.orelse, item.body))
    return False


# A return annotation's text that admits None as written: ``Optional[X]``, ``X | None``,
# ``Union[X, None]`` (read from text: an imported function's annotation names its own
# module's imports).
_OPTIONAL_TEXT_RE = re.compile(
    r"^(?:typing\.|t\.)?Optional\[|\|\s*None\s*(?:\||$)|^None\s*\||"
    r"^(?:typing\.|t\.)?Union\[(?:.*,\s*)?None\s*(?:,.*)?\]$"
)


def optional_value(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.expr
) -> str | None:
    """The annotation admitting None that ``value`` as written carries, else None: a call
    of a function annotated to return an Optional (:func:`_optional_call`), or an
    attribute of ``self`` (or of a field of ``self``) that the class annotates Optional
    and the function reads nowhere else, so no test narrows it
    (:func:`_optional_attribute`)."""
    if isinstance(value, ast.Call):
        return _optional_call(src, node, value)
    if isinstance(value, ast.Attribute):
        return _optional_attribute(src, node, value)
    return None


def _optional_attribute(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.Attribute
) -> str | None:
    """``self.key`` or ``self.definition.key`` where the class defining ``node`` annotates
    ``key`` (or ``definition`` with a class of the module that annotates ``key``) with an
    Optional, a class field or a ``self.key: T`` in a method; None when the function
    reads the attribute anywhere but this return (an ``if``, an ``assert`` narrows it)."""
    chain: list[str] = []
    base: ast.expr = value
    while isinstance(base, ast.Attribute) and len(chain) < 3:
        chain.insert(0, base.attr)
        base = base.value
    if not (isinstance(base, ast.Name) and base.id == "self") or len(chain) > 2:
        return None
    index = _module_index(src)
    owner = index.owner.get(id(node))
    for hop in chain[:-1]:
        annotation = _declared(src, owner, hop) if owner is not None else None
        owner = index.classes.get(annotation.id) if isinstance(annotation, ast.Name) else None
    declared = _declared(src, owner, chain[-1]) if owner is not None else None
    if declared is None or owner is None:
        return None
    if len(chain) == 1 and chain[0] in _class_attributes(src, owner).set_to_value:
        return None  # None until a set-up method sets it (forge's ``policy_version``)
    written = unparse(value, 200)
    reads = sum(
        1
        for sub in kwreads.body_nodes(node)
        if isinstance(sub, ast.Attribute) and unparse(sub, 200) == written
    )
    if reads != 1:
        return None
    text = unparse(declared, 200).strip("\"'")
    return text if _OPTIONAL_TEXT_RE.search(text) else None


@dataclass
class _ClassAttributes:
    """What one class says of its attributes: the annotations it gives each (a field of
    its body, a ``self.name: T`` in a method) and the names a method sets to a value that
    is not None (the Optional is then a state before that method runs: ``setup``, a lazy
    load). Read in one walk of the class's methods, once per class."""

    declared: dict[str, list[ast.expr]]
    set_to_value: frozenset[str]


def _class_attributes(src: SourceInfo, owner: ast.ClassDef) -> _ClassAttributes:
    """:class:`_ClassAttributes` of ``owner``, kept on the module index (a class of
    thousands of properties is walked once, not once per property)."""
    cache = _module_index(src).class_attributes
    found = cache.get(id(owner))
    if found is not None:
        return found
    declared: dict[str, list[ast.expr]] = {}
    set_to_value: set[str] = set()
    for stmt in owner.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            declared.setdefault(stmt.target.id, []).append(stmt.annotation)
        if not isinstance(stmt, FUNCTIONS):
            continue
        for sub in kwreads.body_nodes(stmt):
            if not isinstance(sub, (ast.Assign, ast.AnnAssign)):
                continue
            targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
            value = sub.value
            for target in targets:
                if not (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    continue
                if isinstance(sub, ast.AnnAssign):
                    declared.setdefault(target.attr, []).append(sub.annotation)
                if value is not None and not _is_none(value):
                    set_to_value.add(target.attr)
    found = cache[id(owner)] = _ClassAttributes(declared, frozenset(set_to_value))
    return found


def _declared(src: SourceInfo, owner: ast.ClassDef, name: str) -> ast.expr | None:
    """The one annotation class ``owner`` gives attribute ``name``, else None."""
    found = _class_attributes(src, owner).declared.get(name, [])
    return unquoted(found[0]) if len(found) == 1 else None


def _optional_call(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.Call
) -> str | None:
    """``value`` as written is a call of a function annotated to return an Optional: its
    ``-> ...`` text, else None (:func:`_called_function`)."""
    text = _called_function(src, node, value)[0]
    return text if text is not None and _OPTIONAL_TEXT_RE.search(text) else None


def _file_callee(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The file's own ``def`` that ``call`` certainly calls: a module-level ``def`` (the
    name's only binding, not a name ``node`` binds) or ``self.method(...)`` of the class
    defining ``node``, defined there once."""
    func = call.func
    if isinstance(func, ast.Name):
        if func.id in _module_index(src).bound_names(node):  # parameters and locals too
            return None
        return _types(src).only_def(func.id)
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    ):
        owner = _module_index(src).owner.get(id(node))
        if owner is None:
            return None
        defined = sum(isinstance(m, FUNCTIONS) and m.name == func.attr for m in owner.body)
        return _method(owner, func.attr) if defined == 1 else None
    return None


def _called_function(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.Call
) -> tuple[str | None, ast.FunctionDef | ast.AsyncFunctionDef | None]:
    """(the return annotation's text, the ``def`` when it is the file's) of the function
    ``value`` calls, when the callee is certain (:func:`_file_callee`), or a function an
    imported module defines (its text only); ``@overload`` variants answer by the call."""
    func = value.func
    text: str | None = None
    callee = _file_callee(src, node, value)
    if isinstance(func, ast.Name):
        if func.id in _module_index(src).bound_names(node):
            return None, None
        text = _types(src).returned_type(func.id)
    elif callee is not None and callee.returns is not None:
        returns = unquoted(callee.returns)
        text = unparse(returns, 200) if returns is not None else None
    else:
        callee = None
    return (None if text is None else text.strip().strip("\"'")), callee


# Builtin kinds a return annotation's member names as written (``Tuple[float, dict]``).
_KIND_NAMES = {
    **{name: name for name in _ACCEPTS},
    **{qualified.rsplit(".", 1)[1]: kind for qualified, kind in _TYPING_BUILTIN.items()},
}


def _article(kind: str) -> str:
    """``an`` before ``int``, ``a`` before ``float``."""
    return "an" if kind[:1] in "aeiou" else "a"


def _annotated_kinds(text: str) -> tuple[list[str], bool]:
    """The builtin kinds the members of a return annotation's text name as written
    (``float | tuple[float, dict]``: float, tuple), and whether every member names one
    (a member naming anything else gives none). Read from text: the callee may be
    another module's."""
    try:
        parsed = ast.parse(text, mode="eval").body
    except PYTHON_PARSE_ERRORS:
        return [], False
    if isinstance(parsed, ast.Tuple):
        return ["tuple"], True  # ``-> (dict, dict)``: no type, but it states a tuple
    members = union_members(parsed)
    if len(members) == 1 and isinstance(parsed, ast.Subscript):
        outer = last_name(parsed.value)
        if outer in ("Union", "Optional"):
            slice_ = parsed.slice
            members = list(slice_.elts) if isinstance(slice_, ast.Tuple) else [slice_]
    kinds: list[str] = []
    for member in members:
        base = member.value if isinstance(member, ast.Subscript) else member
        if isinstance(base, ast.Name) and base.id in _KIND_NAMES:
            kinds.append(_KIND_NAMES[base.id])
        elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
            if base.value.id in ("typing", "t") and base.attr in _KIND_NAMES:
                kinds.append(_KIND_NAMES[base.attr])
    return kinds, len(kinds) == len(members)


def _contradicts_itself(
    src: SourceInfo, callee: ast.FunctionDef | ast.AsyncFunctionDef, kinds: list[str]
) -> bool:
    """Whether ``callee``, whose annotation names only the builtin ``kinds``, returns a
    value of a kind none of them holds (lighteval's ``g_pass_at_k(...) -> float``
    returning its ``metrics`` dict): its own annotation is the wrong one, not the
    caller's that trusts the value."""
    shadowed = _types(src).rebound | _module_index(src).bound_names(callee) | set(src.aliases)
    locals_ = _local_kinds(callee, shadowed, src)
    for ret in kwreads.statements(callee.body, scopes=False):
        if not isinstance(ret, ast.Return) or ret.value is None:
            continue
        kind = _value_kind(ret.value, shadowed, src)
        if kind is None and isinstance(ret.value, ast.Name):
            kind = locals_.get(ret.value.id)
        if kind is not None and not any(kind in _ACCEPTS[k] for k in kinds):
            return True
    return False


def _rejected_call_kind(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.expr, builtin: str
) -> tuple[str, str] | None:
    """(kind, the callee's annotation text) when ``value`` calls a function whose return
    annotation names a builtin kind ``-> builtin`` rejects: ``-> float`` over ``return
    self.generate_score(...)`` annotated ``-> float | tuple[float, dict]``. Not when the
    callee (read when it is the file's) returns a kind its own annotation rejects: the
    callee's annotation is then the one to doubt."""
    if not isinstance(value, ast.Call):
        return None
    text, callee = _called_function(src, node, value)
    if text is None:
        return None
    kinds, complete = _annotated_kinds(text)
    rejected = next((kind for kind in kinds if kind not in _ACCEPTS[builtin]), None)
    # the callee's own returns are read only when its annotation would be reported
    if rejected is None or (
        callee is not None and complete and _contradicts_itself(src, callee, kinds)
    ):
        return None
    return rejected, text


def optional_how(src: SourceInfo, value: ast.expr, text: str) -> str:
    """How a return of an Optional call or attribute contradicts a never-None annotation."""
    declared = f"annotated `-> {text}`" if isinstance(value, ast.Call) else f"declared `{text}`"
    return f"returns `{short(src, value, 40)}`, {declared}"


def _none_of(value: ast.expr) -> ast.expr:
    """The ``None`` itself: the constant, or ``field(default=None)``'s keyword value."""
    if isinstance(value, ast.Call):
        for keyword in value.keywords:
            if keyword.arg in ("default", "default_factory"):
                return keyword.value
    return value


def _implicit_optional(
    src: SourceInfo, target: str, annotation: ast.expr, default: ast.expr, certain: bool = False
) -> Finding | None:
    """The finding for ``target: annotation = None`` when the annotation cannot hold None
    (``certain``: the caller decided so) (not when the line silences the checker:
    ``# type: ignore``, a sentinel on purpose)."""
    if _silenced(src, default.lineno):
        return None
    if not certain and _types(src).admits_none(annotation) is not False:
        return None
    text = short(src, annotation).strip("\"'")
    request_param = isinstance(default, ast.Call) and last_name(default.func) in _REQUEST_PARAMS
    written = short(src, default) if request_param else "None"
    return finding(
        src,
        annotation,
        RULE,
        BLOCK,
        f"`{target}: {text} = {written}` (line {default.lineno}): `{text}` does not admit "
        f"None; annotate `{target}: {text} | None`",
    )


# FastAPI's dependency markers: the parameter is given what the dependency returns.
_DEPENDS = frozenset({"fastapi.Depends", "fastapi.params.Depends", "fastapi.Security"})


def _injected_optional(
    src: SourceInfo,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    target: str,
    annotation: ast.expr,
    default: ast.expr,
) -> Finding | None:
    """``p: T = Depends(get_p)`` where ``get_p`` (a ``def`` of the file or one an imported
    module defines) is annotated ``-> T | None`` and the body tests ``p`` for None or
    truth: FastAPI hands ``p`` what ``get_p`` returns, None included, so ``T`` is the
    implicit Optional of a ``= None`` default (openhands' ``provider_tokens:
    PROVIDER_TOKEN_TYPE = Depends(get_provider_tokens)``). Only when ``T`` is the
    dependency's annotation without its None, as written: then the author wrote the two
    apart."""
    if not (
        isinstance(default, ast.Call)
        and default.args
        and src.qualname(default.func) in _DEPENDS
        and isinstance(default.args[0], (ast.Name, ast.Attribute))
    ):
        return None
    if _silenced(src, default.lineno) or not _body_tests_none(src, node, target):
        return None
    # the dependency called bare, as FastAPI calls it: its ``-> ...`` by the call reading
    call = ast.copy_location(ast.Call(func=default.args[0], args=[], keywords=[]), default)
    returned = _optional_call(src, node, call)
    if returned is None:
        return None
    text = short(src, annotation).strip("\"'")
    members = {m.strip() for m in returned.split("|")}
    if members != {text, "None"} and returned not in (
        f"Optional[{text}]",
        f"typing.Optional[{text}]",
    ):
        return None
    dependency = short(src, default.args[0])
    return finding(
        src,
        annotation,
        RULE,
        BLOCK,
        f"`{target}: {text}` is given what `Depends({dependency})` returns, `{returned}`, "
        f"and the body tests it for None; annotate `{target}: {text} | None`",
    )


def _silenced(src: SourceInfo, line: int) -> bool:
    """Whether line ``line`` tells the type checker or linter to accept it."""
    if not 1 <= line <= len(src.byte_lines):
        return False
    text = src.byte_lines[line - 1]
    return b"#" in text and (b"type: ignore" in text or b"noqa" in text or b"pyright:" in text)


# Types whose APIs take a string spelling of a value (``torch.device("cuda")`` and every
# ``.to("cuda")``): a ``"cuda"`` default under ``torch.device`` is narrow, not a lie.
_STRING_SPELLED = frozenset({"torch.device"})


def _rejects_literal(src: SourceInfo, annotation: ast.expr, kind: str) -> bool:
    """Whether the annotation certainly cannot hold a literal of builtin ``kind``, a
    string under ``torch.device`` aside (its APIs take the spelling)."""
    if _types(src).holds_literal(annotation, kind) is not False:
        return False
    return kind != "str" or not any(
        isinstance(node, (ast.Name, ast.Attribute)) and src.qualname(node) in _STRING_SPELLED
        for node in ast.walk(annotation)
    )


def _display_or_class_default(
    src: SourceInfo, target: str, annotation: ast.expr, value: ast.expr
) -> Finding | None:
    """The finding for a display or a class as a default or field value the annotation
    cannot hold: ``converter_block_types: List[BlockTypes] = (...)`` (a tuple under
    ``List``), ``Tuple[BlockTypes] = (a, b)`` (two items for a one-item tuple), or
    ``default_llm_service: BaseService = GoogleGeminiService`` (the class where an
    instance is annotated; ``Tuple[BaseProcessor, ...] = (EquationProcessor,)`` too)."""
    if not src.node_added(annotation) and (value.end_lineno or value.lineno) != value.lineno:
        # One more class in an old multi-line tuple (``default_processors`` gaining a
        # processor) is not the change writing the annotation or the value.
        return None
    what: str | None = None
    if isinstance(value, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        what = _contradicts(src, _unwrapped_annotation(src, annotation) or annotation, value, True)
        fix = "annotate what it holds or give a value of the annotated type"
    if what is None:
        held = _class_for_instance(src, annotation, value)
        if held is None:
            return None
        what, fix = held
    return _default_finding(src, target, annotation, value, f"its value is {what}: {fix}")


def _default_finding(
    src: SourceInfo, target: str, annotation: ast.expr, value: ast.expr, verdict: str
) -> Finding:
    """The ✗ at ``annotation`` for a default or field value it cannot hold: ``verdict``
    says what the value is and the fix."""
    declared = short(src, annotation)
    return finding(
        src,
        annotation,
        RULE,
        BLOCK,
        f"`{target}: {declared} = {short(src, value, 40)}` (line {value.lineno}): annotated "
        f"`{declared}`, {verdict}",
    )


def _unwrapped_annotation(src: SourceInfo, annotation: ast.expr) -> ast.expr | None:
    """The annotation without ``Annotated[...]`` and quotes."""
    node = unquoted(annotation)
    for _hop in range(4):
        if not (
            isinstance(node, ast.Subscript)
            and src.qualname(node.value) in _WRAPPERS
            and isinstance(node.slice, ast.Tuple)
            and node.slice.elts
        ):
            break
        node = unquoted(node.slice.elts[0])
    return node


# Annotations of instances only: what a class (a ``type``) can never be.
_ELEMENT_CONTAINERS = frozenset(
    {"tuple", "list", "set", "frozenset", "typing.Tuple", "typing.List", "typing.Set",
     "typing.FrozenSet", "typing.Sequence", "collections.abc.Sequence"}
)  # fmt: skip


def _class_for_instance(
    src: SourceInfo, annotation: ast.expr, value: ast.expr
) -> tuple[str, str] | None:
    """(what the value is, the fix) when ``value`` is a class, or a display of classes,
    where the annotation names an instance of the class or of one of its bases: the
    class object is no instance of its own bases (``type[Base]`` holds it)."""
    node = _unwrapped_annotation(src, annotation)
    if node is None:
        return None
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        outer = src.qualname(node.value) if isinstance(node, ast.Subscript) else None
        if not isinstance(node, ast.Subscript) or outer not in _ELEMENT_CONTAINERS:
            return None
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        element = items[0] if items else None
        if element is None or not value.elts:
            return None
        names = [e.id for e in value.elts if isinstance(e, ast.Name)]
        if len(names) != len(value.elts) or not all(
            _instance_of_base(src, element, name) for name in dict.fromkeys(names)
        ):
            return None
        shown = short(src, element)
        return (
            f"classes ({', '.join(f'`{n}`' for n in names[:3])}), not `{shown}` instances",
            f"annotate the element `type[{shown}]`",
        )
    if isinstance(value, ast.Name) and _instance_of_base(src, node, value.id):
        shown = short(src, node)
        return f"the class `{value.id}`, not an instance", f"annotate `type[{shown}]`"
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        # the annotation first: a class-typed local is common, a call returning a class rare
        returned = _types(src).returned_type(value.func.id) if _names_classes(src, node) else None
        returned = returned.strip("\"'") if returned else None
        if returned and _TYPE_OF_RE.fullmatch(returned):
            shown = short(src, node)
            return (
                f"a class (`{value.func.id}(...)` returns `{returned}`), not an instance",
                f"annotate `type[{shown}]`",
            )
    return None


# A return annotation of a class object: ``Type[Block]``, ``type[Block]``.
_TYPE_OF_RE = re.compile(r"(?:typing\.)?(?:Type|type)\[\s*[A-Za-z_][\w.]*\s*\]")


def _member_names(src: SourceInfo, annotation: ast.expr) -> list[ast.Name | ast.Attribute]:
    """The members of ``annotation`` (a union's, None aside) when each is a plain or
    dotted name; empty when one is anything else."""
    members = [m for m in union_items(src, annotation) or [annotation] if not _is_none(m)]
    named = [m for m in members if isinstance(m, (ast.Name, ast.Attribute))]
    return named if len(named) == len(members) else []


def _names_classes(src: SourceInfo, annotation: ast.expr) -> bool:
    """Whether every member of ``annotation`` (None aside) is a plain name of a class
    that is certainly a class and no metaclass (``type`` not among its bases)."""
    members = _member_names(src, annotation)
    types = _types(src)

    def certain_class(name: str) -> bool:
        lineage = types.class_lineage(name)
        return lineage is not None and "type" not in lineage and name not in _ACCEPTS

    return bool(members) and all(isinstance(m, ast.Name) and certain_class(m.id) for m in members)


def _instance_of_base(src: SourceInfo, annotation: ast.expr, name: str) -> bool:
    """Whether every member of ``annotation`` (None aside) names ``name`` or a base of
    it, ``name`` certainly being a class."""
    members = _member_names(src, annotation)
    lineage = _types(src).class_lineage(name) if members else None
    return lineage is not None and all(last_name(m) in lineage for m in members)


def _literal_default(
    src: SourceInfo, target: str, annotation: ast.expr, default: ast.expr
) -> Finding | None:
    """The finding for a constant default the annotation cannot hold: ``flag: int = True``
    (a type checker accepts it, a bool being an int; the reader is told a count), or
    ``torch_dtype: Optional[torch.dtype] = "auto"`` (the body must handle a value the
    annotation hides; mypy's "incompatible default")."""
    value = default
    if isinstance(value, ast.Call) and not value.args:
        func = value.func
        name = last_name(func)
        if name == "field":
            value = next((k.value for k in value.keywords if k.arg == "default"), value)
    if _silenced(src, value.lineno):
        return None
    if not isinstance(value, ast.Constant):
        return _display_or_class_default(src, target, annotation, value)
    kind = _literal_kind(value)
    if kind not in ("bool", "int", "float", "str", "bytes"):
        return None
    types = _types(src)
    if kind == "bool" and isinstance(annotation, ast.Name) and annotation.id in ("int", "float"):
        if annotation.id in types.rebound or annotation.id in src.aliases:
            return None
        return finding(
            src,
            annotation,
            RULE,
            BLOCK,
            f"`{target}: {annotation.id} = {value.value!r}` (line {value.lineno}): annotated "
            f"{annotation.id}, its default is a bool: annotate `{target}: bool`",
        )
    if not _rejects_literal(src, annotation, kind):
        return None
    return _default_finding(
        src,
        target,
        annotation,
        value,
        f"its default is a {kind}: add `{kind}` to the annotation or give a default of the "
        "annotated type",
    )


# Typing constructs that are only ever a type (a default of one is an annotation typed
# after ``=`` instead of ``:``); the builtin generics count when subscripted.
_TYPE_ONLY = frozenset(
    f"{module}.{name}"
    for module in ("typing", "typing_extensions")
    for name in (
        "Optional",
        "Union",
        "List",
        "Dict",
        "Tuple",
        "Set",
        "FrozenSet",
        "Callable",
        "Sequence",
        "Mapping",
        "Iterable",
        "Literal",
        "Type",
    )
)
_BUILTIN_GENERICS = frozenset({"list", "dict", "tuple", "set", "frozenset", "type"})


def _is_type_expression(src: SourceInfo, value: ast.expr) -> bool:
    """Whether ``value`` is certainly a type, never a value: ``Optional[Dict[str, Any]]``,
    ``typing.List[int]``, ``list[int]``, ``Union[list[dict], None]``, ``X | Optional[Y]``."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
        return any(_is_type_expression(src, member) for member in union_members(value))
    if not isinstance(value, ast.Subscript):
        return False
    base = value.value
    if isinstance(base, ast.Name) and base.id in _BUILTIN_GENERICS:
        return base.id not in _types(src).rebound and base.id not in src.aliases
    return src.qualname(base) in _TYPE_ONLY


def _type_as_default(src: SourceInfo, target: str, default: ast.expr) -> Finding | None:
    """The finding for an unannotated parameter whose default is a type (``batch=
    Optional[Dict[str, Any]]``: ``=`` typed for ``:``). The default is the typing object,
    never None, so ``if batch is not None`` always holds; a type checker sees no
    annotation."""
    if not src.node_added(default) or _silenced(src, default.lineno):
        return None
    if not _is_type_expression(src, default):
        return None
    written = short(src, default, 60)
    return finding(
        src,
        default,
        RULE,
        BLOCK,
        f"parameter `{target}={written}` (line {default.lineno}): its default is a type, "
        f"not a value (`=` written for `:`): annotate `{target}: {written}` and give it a "
        "default value",
    )


# A display written as an annotation and the type it meant.
_DISPLAY_TYPES = {ast.List: "tuple", ast.Tuple: "tuple", ast.Set: "set", ast.Dict: "dict"}


def display_annotation(src: SourceInfo, annotation: ast.expr | None, where: str) -> Finding | None:
    """The finding for an annotation that is a literal display, ``-> [str, str]`` or ``x:
    (int, str)``: no type (a type checker rejects it; the reader cannot tell a list from a
    tuple), when the change writes it."""
    if annotation is None or not src.node_added(annotation):
        return None
    meant = _DISPLAY_TYPES.get(type(annotation))
    if meant is None or _silenced(src, annotation.lineno):
        return None
    parts: list[ast.expr | None]
    if isinstance(annotation, ast.Dict):
        parts = [*annotation.keys[:1], *annotation.values[:1]]
    elif isinstance(annotation, (ast.List, ast.Tuple, ast.Set)):
        parts = list(annotation.elts)
    else:
        return None
    items = ", ".join(short(src, part) for part in parts if part is not None)
    return finding(
        src,
        annotation,
        RULE,
        BLOCK,
        f"{where} is annotated with a {type(annotation).__name__.lower()} display "
        f"`{short(src, annotation)}` (line {annotation.lineno}), which is no type: annotate "
        f"`{meant}[{items}]`",
    )


def _display_shape_kept(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``node``'s return annotation is a tuple display (``-> (dict, bool)``) that
    each of its own returns keeps: a tuple display of as many items, none of them a
    ``None`` where the display names a type that cannot hold it (``return {}, False``).
    The annotation is still no type (⚠), but it misleads no reader about the shape; a
    return of another shape, of None or of a value not shown (``converter(path)``) is
    the ✗."""
    annotation = node.returns
    if not isinstance(annotation, ast.Tuple):
        return False
    returns = [r for r in kwreads.statements(node.body, scopes=False) if isinstance(r, ast.Return)]
    if not returns or any(
        isinstance(n, (ast.Yield, ast.YieldFrom)) for n in kwreads.body_nodes(node)
    ):
        return False
    for ret in returns:
        value = ret.value
        if not isinstance(value, ast.Tuple) or _display_items(value) != len(annotation.elts):
            return False
        for item, given in zip(annotation.elts, value.elts, strict=True):
            if _is_none(given) and _types(src).admits_none(item) is not True:
                return False
    return True


# Builtin functions written where a type goes (``List[callable]``, ``x: any``): a type
# checker rejects them ("not valid as a type"), and the reader is told nothing. The type
# each one's writer meant.
_FUNCTIONS_AS_TYPES = {"callable": "Callable[..., T]", "any": "Any"}
# Well-known factories and modules written where their type belongs (by the dotted name
# the file's imports resolve them to): what it is, and the type meant.
_NOT_TYPES = {
    "torch.tensor": ("a function", "torch.Tensor"),
    "numpy.array": ("a function", "numpy.ndarray"),
    "PIL.Image": ("a module", "PIL.Image.Image"),
    # ``incompatible_keys: namedtuple`` (FlagScale): the factory, not the class it makes
    "collections.namedtuple": ("a function", "typing.NamedTuple"),
}


def function_as_type(src: SourceInfo, annotation: ast.expr | None, where: str) -> Finding | None:
    """The finding for an annotation that names a function or a module as a type, at any
    depth (:func:`_not_types`), when the change writes it."""
    if annotation is None or not src.node_added(annotation):
        return None
    if _silenced(src, annotation.lineno):
        return None
    for named in _not_types(src, annotation):
        return finding(
            src,
            annotation,
            RULE,
            BLOCK,
            f"{where} is annotated `{short(src, annotation)}` (line {annotation.lineno}): " + named,
        )
    return None


def _not_types(src: SourceInfo, annotation: ast.expr) -> Iterator[str]:
    """What is no type in ``annotation``, and the type meant: a ``lambda``, the builtin
    function ``callable`` or ``any`` (``List[callable]``, ``Dict[str, any]``) when the file binds
    neither name itself, and a well-known factory or module (:data:`_NOT_TYPES`) by the
    dotted name the file's imports resolve it to (`np.array`, `Image` imported with
    ``from PIL import Image``; whole dotted names only: ``Image.Image`` is the class)."""
    types = _types(src)
    inner = {id(node.value) for node in ast.walk(annotation) if isinstance(node, ast.Attribute)}
    for node in ast.walk(annotation):
        if isinstance(node, ast.Lambda):
            # a converter written where the type goes (``backend: lambda s: Backend[s]``):
            # no checker reads a function as a type
            yield "a `lambda` is a function, not a type: annotate the type it returns"
            continue
        if isinstance(node, ast.Name) and node.id in _FUNCTIONS_AS_TYPES:
            if node.id not in types.rebound and node.id not in src.aliases:
                yield (
                    f"`{node.id}` is a builtin function, not a type: annotate "
                    f"`{_FUNCTIONS_AS_TYPES[node.id]}`"
                )
            continue
        if not isinstance(node, (ast.Name, ast.Attribute)) or id(node) in inner:
            continue
        dotted = src.qualname(node)
        if dotted in _NOT_TYPES:
            what, meant = _NOT_TYPES[dotted]
            yield f"`{short(src, node)}` is {what} ({dotted}), not a type: annotate `{meant}`"


# Where ``typing``'s ``Self`` is imported from.
_SELF = frozenset({"typing.Self", "typing_extensions.Self"})


def class_functions(src: SourceInfo) -> set[int]:
    """The functions a class encloses, at any depth (a function is a statement: the
    statements alone hold them), once per file."""
    cached = src.cache.get("class_function_ids")
    if not isinstance(cached, set):
        cached = {
            id(stmt)
            for cls in kwreads.statements(src.tree.body)
            if isinstance(cls, ast.ClassDef)
            for stmt in kwreads.statements(cls.body)
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        src.cache["class_function_ids"] = cached
    return cached


def _names_self(src: SourceInfo, annotation: ast.expr | None) -> bool:
    """Whether an annotation (a string one parsed) names ``typing.Self``; a string
    inside it is a forward reference (``list["Self"]``), but not a ``Literal["Self"]``
    value nor ``Annotated``'s metadata after its type."""
    node = unquoted(annotation) if annotation is not None else None
    stack: list[ast.AST] = [node] if node is not None else []
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            if _names_self(src, sub):
                return True
            continue
        if isinstance(sub, ast.Name | ast.Attribute) and src.qualname(sub) in _SELF:
            return True
        if isinstance(sub, ast.Subscript):
            head = (src.qualname(sub.value) or "").rsplit(".", 1)[-1]
            if head == "Literal":
                continue
            if head == "Annotated" and isinstance(sub.slice, ast.Tuple) and sub.slice.elts:
                stack.append(sub.slice.elts[0])
                continue
        stack.extend(ast.iter_child_nodes(sub))
    return False


def self_outside_class(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Finding | None:
    """``Self`` in the signature the change writes for a function no class encloses
    (``def load(path) -> "Self"``, moved out of a class to module level): it names no
    class there (PEP 673; mypy and pyright reject it), so the reader cannot tell what
    comes back. Not for a module-level function whose first parameter is ``self`` or
    ``cls``: a method a class is given later (``cls.f = classmethod(f)``)."""
    if id(node) in class_functions(src):
        return None
    positional = [*node.args.posonlyargs, *node.args.args]
    if positional and positional[0].arg in ("self", "cls"):
        return None
    args = [*positional, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg]
    for annotation in [node.returns, *(a.annotation for a in args if a is not None)]:
        if annotation is None or not src.node_added(annotation):
            continue
        if _silenced(src, annotation.lineno) or not _names_self(src, annotation):
            continue
        # on the ``def`` line when the change writes it (the node it creates), where a
        # reviewer reads a signature; on the annotation when only that is edited
        where: ast.AST = node if src.overlaps(node.lineno, node.lineno) else annotation
        return finding(
            src,
            where,
            RULE,
            BLOCK,
            f"`{short(src, annotation)}` in `{node.name}` (line {annotation.lineno}), a "
            "function no class encloses: `Self` names no class there (type checkers "
            "reject it); annotate the class itself",
        )
    return None


def annassign_findings(src: SourceInfo, node: ast.AnnAssign) -> Iterator[Finding]:
    """An attribute, variable or dataclass field ``x: T = None`` (or ``x: int = True``)
    the change adds, or one annotated with a display, a function or a module
    (``model_kwargs: dict[str, any] = {}``: a type checker rejects it in a body too)."""
    name = f"`{short(src, node.target)}`"
    shown = display_annotation(src, node.annotation, name) or function_as_type(
        src, node.annotation, name
    )
    if shown is not None:
        yield shown
        return
    if node.value is not None and not _is_none(node.value):
        parts = (node.target, node.annotation, _none_of(node.value))
        if any(src.node_added(part) for part in parts):
            flag = _literal_default(src, short(src, node.target), node.annotation, node.value)
            if flag is not None:
                yield flag
        return
    if node.value is None:
        return
    # The annotation or its ``None`` must be new: a change inside ``field(...)``'s other
    # arguments (a help text's typo) does not make an old annotation new.
    if not any(
        src.node_added(part) for part in (node.target, node.annotation, _none_of(node.value))
    ):
        return
    found = _implicit_optional(src, short(src, node.target), node.annotation, node.value)
    if found is not None and not field_none_reaches(src, node):
        return  # a field no construction leaves None: the default is a placeholder
    if found is None and _global_left_none(src, node):
        found = _implicit_optional(
            src, short(src, node.target), node.annotation, node.value, certain=True
        )
    if found is not None:
        yield found


# Container annotations whose item (list, set) or value (dict) type a ``None`` put in
# them contradicts: ``qualname -> index of the item type among the subscript's items``.
_ITEM_TYPES = {
    "list": 0,
    "typing.List": 0,
    "set": 0,
    "typing.Set": 0,
    "dict": 1,
    "typing.Dict": 1,
}
# Methods putting their last argument into a list or set.
_PUTS = frozenset({"append", "add", "insert"})


def _container_item(src: SourceInfo, annotation: ast.Subscript) -> tuple[int, ast.expr] | None:
    """Where a ``None`` put in a container of this annotation lands: ``(0, X)`` for
    ``list[X]``/``set[X]`` (what ``append``/``add`` put), ``(1, V)`` for ``dict[K, V]``
    (what ``d[k] = ...`` sets); None for any other annotation."""
    index = _ITEM_TYPES.get(src.qualname(annotation.value) or "")
    items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    if index is None or len(items) != index + 1:
        return None
    return index, items[index]


def _none_item_advice(src: SourceInfo, item: ast.expr, put: ast.AST) -> str:
    """The end of a None-put finding: where the ``None`` is given, and the fix."""
    shown = short(src, item)
    return (
        f"is given `None` (line {getattr(put, 'lineno', 0)}): `{shown}` does not admit None; "
        f"annotate `{shown} | None` as its item type"
    )


def local_variable(node: ast.AnnAssign, func: ast.AST | None) -> bool:
    """Whether ``node`` is a local variable of function ``func``: a plain name in its own
    body (not ``self.x: Any``, an instance attribute, nor a class defined in it)."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or not isinstance(
        node.target, ast.Name
    ):
        return False
    return any(stmt is node for stmt in kwreads.statements(func.body, scopes=False))


def none_items(src: SourceInfo, node: ast.AnnAssign, func: ast.AST | None) -> Finding | None:
    """A local ``all_text: List[str] = []`` that its own function then gives ``None``
    (``all_text.append(None)``, ``.add(None)``, ``.insert(i, None)``, or ``d[k] = None``
    under ``Dict[K, V]``) while the item type certainly does not admit None: a container
    annotation whose values are another type (nv-ingest's OCR stages keep None as the
    "no text" sentinel). Only a new annotation, and only a literal ``None``."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    target, annotation = node.target, node.annotation
    if not isinstance(target, ast.Name) or not isinstance(annotation, ast.Subscript):
        return None
    if not src.node_added(annotation) or _silenced(src, annotation.lineno):
        return None
    slot = _container_item(src, annotation)
    if slot is None:
        return None
    index, item = slot
    puts = _none_puts(src, func)
    put = (puts.keyed if index == 1 else puts.listed).get(target.id)
    if put is None or id(node) not in puts.local or _silenced(src, put.lineno):
        return None  # no None put, or an attribute or a class's field (writers elsewhere)
    if _types(src).admits_none(item) is not False:
        return None
    declared = short(src, annotation)
    advice = _none_item_advice(src, item, put)
    return finding(src, annotation, RULE, BLOCK, f"`{target.id}: {declared}` {advice}")


# Receivers whose ``.get(x)`` is a request or another call that returns its result, not
# a lookup that misses: ``requests.get(url)``, ``self.session.get(url)``.
_NOT_MAPPINGS = frozenset({"requests", "httpx", "aiohttp", "session", "client", "api", "http"})
# Lookups that give None for a missing name whatever the program does.
_ENV_LOOKUPS = frozenset({"os.getenv", "os.environ.get"})


def _holds_no_none(src: SourceInfo, annotation: ast.expr) -> bool:
    """Whether ``annotation`` certainly holds no None, counting a generic class written
    with its parameters (``SequenceNotStr[str]``, imported from a package not read) as a
    class: a subscripted name that is no typing form is an instance's type, never None.
    Only for a lookup's annotation, whose ``T | None`` advice costs nothing when wrong."""
    parsed = unquoted(annotation) if isinstance(annotation, ast.Constant) else annotation
    if parsed is None:
        return False
    members = union_items(src, parsed) or [parsed]
    types = _types(src)
    for member in members:
        answer = types.admits_none(member)
        if answer is False:
            continue
        if answer is None and isinstance(member, ast.Subscript):
            outer = src.qualname(member.value) or ""
            if not (outer.startswith(("typing", "collections")) or outer in _ADMITS_NONE):
                continue
        return False
    return True


def optional_lookup(src: SourceInfo, node: ast.AnnAssign, func: ast.AST | None) -> Finding | None:
    """``x: T = d.get("k")`` (no default, or ``None`` spelled out) under an annotation that
    certainly rejects None, new in the change: the lookup gives None for a missing key, so the
    annotation lies when it is missing. ✗ for an environment lookup (``os.getenv("K")``,
    ``os.environ.get("K")``: unset is always possible), and for any other ``.get`` when
    its own function then tests the name for None or truth (sentry's ``messages: "Union[
    str, ...]" = kwargs.get("input")`` followed by ``if messages is None``; chainlit's
    ``spec: AskFileSpec = session.files_spec.get(ask_parent_id, None)`` followed by ``if
    not spec``): the code says None comes. Not a request (``requests.get(url)``,
    ``self.client.get(...)``)."""
    value = node.value
    if not (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and isinstance(node.target, ast.Name)
        and 1 <= len(value.args) <= 2
        and not value.keywords
        and not any(isinstance(arg, ast.Starred) for arg in value.args)
        # ``.get(k, None)``: the default spelled out is the same None
        and (
            len(value.args) == 1
            or (isinstance(value.args[1], ast.Constant) and value.args[1].value is None)
        )
    ):
        return None
    qualified = src.qualname(value.func)
    env = qualified in _ENV_LOOKUPS
    if not env:
        receiver = value.func.value
        root = receiver
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
            root = root.func if isinstance(root, ast.Call) else root.value
        # the object whose ``get`` it is; the chain's root too unless that object is an
        # attribute by name (``session.files_spec.get(k)`` is a mapping of a session)
        words = {last_name(receiver) or ""}
        if not isinstance(receiver, ast.Attribute) and isinstance(root, ast.Name):
            words.add(root.id)
        if value.func.attr != "get" or not _NOT_MAPPINGS.isdisjoint(w.lower() for w in words):
            return None
    if not (src.node_added(node.annotation) or src.node_added(value)):
        return None
    if _silenced(src, node.lineno) or not _holds_no_none(src, node.annotation):
        return None
    name = node.target.id
    if not env and not (
        isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
        and name in _body_facts(src, func).tested_names
    ):
        return None
    declared = short(src, node.annotation).strip("\"'")
    why = "unset" if env else "missing"
    return finding(
        src,
        node.annotation,
        RULE,
        BLOCK,
        f"`{name}: {declared}` is given `{short(src, value)}`, None when the key is {why}, "
        "which the annotation does not admit; add `| None` to it or give a default",
    )


@dataclass(frozen=True)
class _NonePuts:
    """What a function's body puts a literal ``None`` into, read in one walk: the first
    such node by list or set name (``x.append(None)``) and by dict name (``d[k] =
    None``), and the ids of its own annotated locals (:func:`local_variable`)."""

    listed: dict[str, ast.expr]
    keyed: dict[str, ast.stmt]
    local: frozenset[int]


def _none_puts(src: SourceInfo, func: ast.FunctionDef | ast.AsyncFunctionDef) -> _NonePuts:
    """:class:`_NonePuts` of ``func``, once per function (a pull request's thousands of
    annotated locals share one walk)."""
    memo = src.cache.setdefault("none_puts", {})
    assert isinstance(memo, dict)
    found = memo.get(id(func))
    if isinstance(found, _NonePuts):
        return found
    listed: dict[str, ast.expr] = {}
    keyed: dict[str, ast.stmt] = {}
    for sub in kwreads.body_nodes(func):
        if isinstance(sub, ast.Assign) and _is_none(sub.value):
            for t in sub.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    keyed.setdefault(t.value.id, sub)
        elif (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr in _PUTS
            and isinstance(sub.func.value, ast.Name)
            and sub.args
            and _is_none(sub.args[-1])
            and len(sub.args) == (2 if sub.func.attr == "insert" else 1)
        ):
            listed.setdefault(sub.func.value.id, sub)
    local = frozenset(
        id(stmt)
        for stmt in kwreads.statements(func.body, scopes=False)
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
    )
    found = memo[id(func)] = _NonePuts(listed, keyed, local)
    return found


def field_none_reaches(src: SourceInfo, node: ast.AnnAssign) -> bool:
    """Whether None really reaches field ``x: T = None`` of a module-level class that
    has no ``__init__`` of its own (a dataclass, a pydantic or attrs model: its
    constructor takes the fields), as it does for a parameter: False when the class's
    ``__post_init__`` rejects None (``if not isinstance(self.x, int): raise``,
    ``assert self.x is not None``: None is a required-field placeholder), or when every
    construction of the class in the module and the work tree passes ``x`` by keyword
    with a value that never holds None (``Meta(seq_lens=seq_lens, ...)``). True whenever
    unsure: no construction found, a positional or ``**`` argument, a subclass, ``cls(...)``
    in its methods, callers past :data:`MAX_CALLING_MODULES` or unreadable."""
    if not isinstance(node.target, ast.Name):
        return True
    index = _module_index(src)
    facts = _field_classes(src, index).get(id(node))
    if facts is None:
        return True
    klass = facts.klass
    name = node.target.id
    if facts.post_init is not None and _rejects_none(facts.post_init.body, name):
        return False
    if facts.own_init:
        return True
    if facts.builds_cls:
        return True  # an alternate constructor: what it passes is not read here
    found = _constructions(index.calls, klass.name, name)
    if found is None:
        return True
    word = re.compile(rb"\b" + re.escape(klass.name.encode()) + rb"\b")
    for calls in _other_modules_calls(src, word):
        more = None if calls is None else _constructions(calls, klass.name, name)
        if more is None:
            return True
        found += more
    return found == 0


@dataclass(frozen=True)
class _FieldClass:
    """What :func:`field_none_reaches` reads of the class holding a field, read once a
    class (not once for each of its fields)."""

    klass: ast.ClassDef
    post_init: ast.FunctionDef | ast.AsyncFunctionDef | None
    # An ``__init__`` or ``__new__`` of its own: the constructor is not the fields'.
    own_init: bool
    # A ``cls(...)`` call in it: an alternate constructor.
    builds_cls: bool


def _field_classes(src: SourceInfo, index: _ModuleIndex) -> dict[int, _FieldClass]:
    """id(statement) -> the facts of the module-level class whose body holds it (the
    first such class of ``index.classes``), built once a file."""
    cached = src.cache.get("field_classes")
    if isinstance(cached, dict):
        return cached
    found: dict[int, _FieldClass] = {}
    for klass in index.classes.values():
        facts: _FieldClass | None = None
        for stmt in klass.body:
            if id(stmt) in found:
                continue
            if facts is None:
                facts = _FieldClass(
                    klass,
                    _method(klass, "__post_init__"),
                    _method(klass, "__init__") is not None or _method(klass, "__new__") is not None,
                    any(
                        isinstance(sub, ast.Call) and _is_name("cls")(sub.func)
                        for sub in ast.walk(klass)
                    ),
                )
            found[id(stmt)] = facts
    src.cache["field_classes"] = found
    return found


def _constructions(calls: _Calls, klass: str, name: str) -> int | None:
    """How many calls of ``calls`` construct class ``klass`` passing field ``name`` by
    keyword a value that never holds None; None when one leaves it out, may pass None,
    passes arguments positionally or by ``**``, or the module subclasses ``klass``."""
    if klass in calls.bases():
        return None
    count = 0
    for call, function, owner in calls.named(klass):
        if call.args or any(k.arg is None for k in call.keywords):
            return None
        given = next((k.value for k in call.keywords if k.arg == name), None)
        if given is None or calls.may_be_none(given, function, owner):
            return None
        count += 1
    return count


def _rejects_none(body: list[ast.stmt], name: str) -> bool:
    """Whether one of ``body``'s own statements raises when ``self.<name>`` is None: an
    ``if`` testing it alone (``self.x is None``, ``not self.x``, ``not isinstance(self.x,
    T)``) whose block ends in ``raise``, or an ``assert`` (``self.x is not None``,
    ``self.x``, ``isinstance(self.x, T)``)."""
    attr = _is_self_attr(name)

    def holds(test: ast.expr) -> bool:
        """``test`` is true only when ``self.<name>`` is set."""
        if attr(test):
            return True
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            other = test.comparators[0]
            return (
                isinstance(test.ops[0], ast.IsNot)
                and attr(test.left)
                and isinstance(other, ast.Constant)
                and other.value is None
            )
        return (
            isinstance(test, ast.Call)
            and _is_name("isinstance")(test.func)
            and len(test.args) == 2
            and attr(test.args[0])
        )

    for stmt in body:
        if isinstance(stmt, ast.Assert) and holds(stmt.test):
            return True
        if isinstance(stmt, ast.If) and stmt.body and isinstance(stmt.body[-1], ast.Raise):
            test = stmt.test
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                if holds(test.operand):
                    return True
            elif (
                isinstance(test, ast.Compare)
                and len(test.ops) == 1
                and isinstance(test.ops[0], ast.Is)
                and attr(test.left)
                and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value is None
            ):
                return True
    return False


def exhaustive_dispatch(
    src: SourceInfo,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    terminates: Callable[[list[ast.stmt]], bool],
) -> bool:
    """Whether ``node`` can fall off its end only with a parameter of a type its own
    annotation excludes: the body ends in ``if``/``elif`` chains (no ``else``) of
    ``isinstance(p, ...)`` tests of one parameter, each branch ending the function
    (``terminates``), whose classes cover every member of ``p``'s annotation
    (``prompt: str | list[dict]`` and ``isinstance(prompt, str)`` / ``isinstance(prompt,
    list)``). Consecutive ``if`` statements whose branches end the function read as one
    chain (instructor's ``if isinstance(client, AsyncFireworks): return ...`` then ``if
    isinstance(client, Fireworks): return ...``). Under the declared types the
    fall-through is unreachable: the return annotation is not what misleads."""
    if _enum_dispatch(src, node, terminates):
        return True
    param: str | None = None
    covered: set[str] = set()
    for stmt in reversed(node.body):
        if not isinstance(stmt, ast.If):
            break
        chain = _isinstance_chain(stmt, param, terminates)
        if chain is None:
            break
        param, classes = chain
        covered |= classes
    if param is None:
        return False
    args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    arg = next((a for a in args if a.arg == param), None)
    if arg is None or arg.annotation is None:
        return False
    members = _members(src, arg.annotation)
    return members is not None and members <= covered


def _enum_dispatch(
    src: SourceInfo,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    terminates: Callable[[list[ast.stmt]], bool],
) -> bool:
    """Whether ``node``'s body ends in ``if`` chains comparing one name with members of
    one ``Enum`` (``if vlm == VLM.PALIGEMMA: return ...``, ``is``, ``in (VLM.A, VLM.B)``),
    each branch ending the function, that cover every member of that enum (supervision's
    ``from_vlm`` after ``vlm = validate_vlm_parameters(...)``): the fall-through is a
    value outside the enum, not a path the return annotation hides."""
    subject: str | None = None
    enum: str | None = None
    covered: set[str] = set()
    for stmt in reversed(node.body):
        if not isinstance(stmt, ast.If):
            break
        current: ast.If | None = stmt
        while current is not None:
            tested = _enum_test(current.test)
            if tested is None or not terminates(current.body):
                return False
            name, cls, compared = tested
            if subject not in (None, name) or enum not in (None, cls):
                return False
            subject, enum = name, cls
            covered |= compared
            if not current.orelse:
                current = None
            elif len(current.orelse) == 1 and isinstance(current.orelse[0], ast.If):
                current = current.orelse[0]
            else:
                return False
    if enum is None:
        return False
    members = _enum_members(src, enum)
    return members is not None and members <= covered


def _enum_test(test: ast.expr) -> tuple[str, str, set[str]] | None:
    """(name, enum class, members) of ``name == E.M`` / ``name is E.M`` / ``name in
    (E.A, E.B)``; None for any other test."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.left, ast.Name)
        and isinstance(test.ops[0], (ast.Eq, ast.Is, ast.In))
    ):
        return None
    right = test.comparators[0]
    if isinstance(test.ops[0], ast.In):
        if not isinstance(right, (ast.Tuple, ast.List, ast.Set)) or not right.elts:
            return None
        values = right.elts
    else:
        values = [right]
    classes: set[str] = set()
    members: set[str] = set()
    for value in values:
        if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)):
            return None
        classes.add(value.value.id)
        members.add(value.attr)
    if len(classes) != 1:
        return None
    return test.left.id, classes.pop(), members


# The standard library's enum bases: their class-level names are the members.
_ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})


def _enum_members(src: SourceInfo, name: str) -> frozenset[str] | None:
    """The members of enum class ``name``: defined in this module, or imported by ``from
    <module> import name`` (an absolute module of the work tree or the path, as the file's
    import aliases read it); None when it is not found or not an ``Enum``. Each module's
    classes are indexed once, and each name answered once (a file of thousands of
    dispatching functions)."""
    answers = src.per_node("enum_members", src.tree, dict[str, frozenset[str] | None])
    if name in answers:
        return answers[name]
    cls = _classes_by_name(src, src.tree).get(name)
    if cls is None:
        # ``from <module> import name`` (or ``... import Name as name``): src.aliases
        module, _dot, imported = src.aliases.get(name, "").rpartition(".")
        cls = _module_classes(src, module).get(imported) if module else None
    members: frozenset[str] | None = None
    if cls is not None and any(fakes._terminal(b) in _ENUM_BASES for b in cls.bases):
        members = (
            frozenset(
                target.id
                for stmt in cls.body
                if isinstance(stmt, (ast.Assign, ast.AnnAssign))
                for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                if isinstance(target, ast.Name) and not target.id.startswith("_")
            )
            or None
        )
    answers[name] = members
    return members


def _classes_by_name(src: SourceInfo, tree: ast.Module) -> dict[str, ast.ClassDef]:
    """The classes of this file's statements by name (the first of each), built once."""
    return src.per_node("classes_by_name", tree, lambda: _classes_of(tree))


def _module_classes(src: SourceInfo, module: str) -> dict[str, ast.ClassDef]:
    """The classes of an imported module (work tree or path) by name, read once per
    module name; empty when it is not found."""
    cache = src.cache.setdefault("module_classes", {})
    assert isinstance(cache, dict)
    found = cache.get(module)
    if not isinstance(found, dict):
        tree = fakes.finder_for(src.root).tree(module)
        found = cache[module] = _classes_of(tree) if tree is not None else {}
    return found


def _classes_of(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """The classes of a module's statements by name (the first of each)."""
    found: dict[str, ast.ClassDef] = {}
    for stmt in kwreads.statements(tree.body):
        if isinstance(stmt, ast.ClassDef):
            found.setdefault(stmt.name, stmt)
    return found


def _isinstance_chain(
    stmt: ast.If, param: str | None, terminates: Callable[[list[ast.stmt]], bool]
) -> tuple[str, set[str]] | None:
    """(parameter, classes) of an ``if``/``elif`` chain with no ``else`` of
    ``isinstance(p, ...)`` tests of one parameter (``param`` when given), each branch
    ending the function; None for any other statement."""
    covered: set[str] = set()
    while True:
        test = stmt.test
        if not (
            isinstance(test, ast.Call)
            and _is_name("isinstance")(test.func)
            and len(test.args) == 2
            and isinstance(test.args[0], ast.Name)
            and param in (None, test.args[0].id)
        ):
            return None
        param = test.args[0].id
        kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        for kind in kinds:
            name = _type_name(kind)
            if name is None:
                return None
            covered.add(name)
        if not terminates(stmt.body):
            return None
        if not stmt.orelse:
            return param, covered
        if len(stmt.orelse) != 1 or not isinstance(stmt.orelse[0], ast.If):
            return None
        stmt = stmt.orelse[0]


def _type_name(node: ast.expr) -> str | None:
    """``list`` for ``list`` / ``typing.List`` / ``list[int]`` / ``"List[int]"``, the last
    name of a dotted class, ``None`` for ``None``; None when not a plain class."""
    if isinstance(node, ast.Constant):
        if node.value is None:
            return "None"
        if isinstance(node.value, str):
            parsed = unquoted(node)
            return None if parsed is None else _type_name(parsed)
        return None
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        name = node.id
    elif isinstance(node, ast.Attribute):
        name = node.attr
    else:
        return None
    return _TYPING_BUILTIN.get(f"typing.{name}", name)


def _members(src: SourceInfo, annotation: ast.expr) -> set[str] | None:
    """The classes a parameter annotation admits (``str | list[dict]`` -> str, list;
    ``Optional[X]`` -> X, None); None when one is not a plain class."""
    node = unquoted(annotation)
    if node is None:
        return None
    members = union_items(src, node)
    if members is not None:
        union: set[str] = set()
        for member in members:
            admitted = _members(src, member)
            if admitted is None:
                return None
            union |= admitted
        return union
    name = _type_name(node)
    if name is None or name in ("Any", "object", "Union", "Optional"):
        return None
    return {name}


def _global_left_none(src: SourceInfo, node: ast.AnnAssign) -> bool:
    """A module global ``_buffer: Buffer = None`` whose class comes from a module that is
    not installed, and whose None the module reads: it tests it for None or a function
    rebinds it (``global _buffer``; a lazy init). The type is then a class (by its name),
    and None is its first value."""
    globals_ = _module_globals(src)
    if not isinstance(node.target, ast.Name) or id(node) not in globals_.statements:
        return False
    if not _types(src).uninstalled_class(node.annotation):
        return False
    name = node.target.id
    return name in globals_.tested or name in globals_.declared


@dataclass(frozen=True)
class _Globals:
    """What :func:`_global_left_none` reads of the whole module, read once a file (not
    once for each module global): its own statements, the names anything in it tests
    for None or truth (:func:`_tests_for_none`), and those a function declares
    ``global``."""

    statements: frozenset[int]
    tested: frozenset[str]
    declared: frozenset[str]


def _module_globals(src: SourceInfo) -> _Globals:
    """The file's :class:`_Globals`, built once."""
    cached = src.cache.get("module_globals")
    if isinstance(cached, _Globals):
        return cached
    tested: set[str] = set()
    declared: set[str] = set()
    for sub in ast.walk(src.tree):
        tested.update(t.id for t in _tested(sub) if isinstance(t, ast.Name))
        if isinstance(sub, FUNCTIONS):
            for stmt in kwreads.statements(sub.body, scopes=False):
                if isinstance(stmt, ast.Global):
                    declared.update(stmt.names)
    found = _Globals(
        frozenset(id(s) for s in src.tree.body), frozenset(tested), frozenset(declared)
    )
    src.cache["module_globals"] = found
    return found


def relies_on_none(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> bool:
    """Whether parameter ``name``'s None can mean something in the body: compared with
    None or tested for truth (``x is None``, ``if not x``, ``x or default``), or handed on
    (passed to a call, stored, returned: the receiver may test it), or dereferenced
    (``x.shape``, ``x[0]``, ``x + 1``, ``x(...)``) only on some paths: a guarded use
    (``if image_tokens: x.images[i]``, after an early ``return`` or ``break``) leaves the
    others running with None. Not when the body never reads it, or every path through it
    dereferences it (or rebinds it) before it ends: then the ``= None`` is a dead default
    or a crash, and ``T | None`` the wrong advice. A function nested in the body that
    tests it (a closure) relies on its None too."""
    if name in _body_facts(src, node).closure_tested:
        return True
    dereferenced = False
    for sub, parent in _module_index(src).reads(node).get(name, ()):
        if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is sub:
            dereferenced = True
            continue
        if isinstance(parent, ast.Call) and parent.func is sub:
            dereferenced = True
            continue
        if isinstance(parent, (ast.BinOp, ast.AugAssign)):
            dereferenced = True
            continue
        return True
    return dereferenced and bool(_Paths(name, _named(src)).run(node.body))


def _forwarded_to_attribute(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> bool:
    """Whether every read of parameter ``name`` passes it as is to a call of an instance
    attribute that no class of the module defines as a method: ``self.model(input_ids=
    input_ids)``, a submodule or a stored callable whose own signature the module does not
    show (an HF-style forward copied from upstream hands its inputs to the upstream model,
    whose parameters are Optional; a method inherited from another module's class reads
    the same here). Not ``self.<attr>.<method>(...)``, a method of the module's classes,
    ``super()``, ``cls.`` or a plain function: those receivers are read."""
    index = _module_index(src)
    reads = index.reads(node).get(name, ())
    receivers = index.attribute_call_args(node)
    return bool(reads) and all(id(read) in receivers for read, _parent in reads)


def _stored_in_dict_only(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> bool:
    """Whether every read of parameter ``name`` is a value of a dict display (a pipeline's
    ``inputs = {"seed": seed, ...}``): the body only stores it, which the settled reading
    of an implicit Optional does not call relying on None (the units that read the dict
    may test it, or not; the labellers of sets m to zzx label such a parameter '-')."""
    reads = _module_index(src).reads(node).get(name, ())
    return bool(reads) and all(
        isinstance(parent, ast.Dict) and any(value is read for value in parent.values)
        for read, parent in reads
    )


def none_reaches(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether None really reaches parameter ``name`` (the annotation then lies, not only
    the default): the body tests it for None (``x is None``, ``if x``, ``x or d``) or uses
    it on some paths only; it hands it to a function or method of the module, or stores it
    in ``self.<attr>``, and that one tests it; or a call in the module or the work tree
    leaves the default (or passes ``None``, or a name or ``self.<attr>`` holding None on
    some path)."""
    if _body_tests_none(src, node, name):
        return True
    index = _module_index(src)
    owner = index.owner.get(id(node))
    if _caller_leaves_none(owner, node, name, index.calls):
        return True
    if id(node) in index.nested:
        # A function defined inside another cannot be called by its name from another
        # module: a same-named call there is another function's (a CUTLASS host
        # ``fwd(..., stream: CUstream = None)`` closure), no evidence that None comes.
        return False
    return _tree_caller_leaves_none(src, owner, node, name)


def _body_tests_none(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> bool:
    """Whether the function expects None in parameter ``name``: its body (or a closure)
    tests it for None or truth, or uses it on some paths only; or it hands it to a
    function or ``self.`` method of the module, or stores it in ``self.<attr>``, and that
    one tests it."""
    facts = _body_facts(src, node)
    if name in facts.tested_names or name in facts.closure_tested:
        return True
    if _Paths(name, _named(src)).run(node.body) and _dereferenced(node, name):
        return True  # a guarded use: the other paths run with None
    index = _module_index(src)
    owner = index.owner.get(id(node))
    for callee, param in _handed_to(index, owner, facts, name):
        if param in _body_facts(src, callee).tested_names:
            return True
    if owner is not None:
        for attr in facts.stored.get(name, ()):
            # The method storing it tests it after the store (``self.cfg = cfg`` then
            # ``if self.cfg is not None:`` in one ``__init__``); a test before it reads
            # the attribute's older value (``if self.cache is None: self.cache = c``).
            if facts.attr_tested_at.get(attr, 0) > facts.stored_at.get((name, attr), 0):
                return True
            methods = [m for m in _methods(src, owner) if m is not node]
            if any(attr in _body_facts(src, method).tested_attrs for method in methods):
                return True
    return False


def _tree_caller_leaves_none(
    src: SourceInfo,
    owner: ast.ClassDef | None,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
) -> bool:
    """Whether a call in another module of the work tree (tests included) leaves parameter
    ``name`` at its default or passes ``None``; True when the callers cannot all be read
    (no root, a tree past the bounds, more than :data:`MAX_CALLING_MODULES` calling
    modules, a module that does not parse): the value is handed on, and the receiver
    may test it."""
    called = _called_name(owner, node)
    word = re.compile(rb"\b" + re.escape(called.encode()) + rb"\s*\(")
    return any(
        calls is None or _caller_leaves_none(owner, node, name, calls, foreign=True)
        for calls in _other_modules_calls(src, word)
    )


def _other_modules_calls(src: SourceInfo, word: re.Pattern[bytes]) -> Iterator[_Calls | None]:
    """The calls of each other module of the work tree whose text ``word`` matches, parsed
    one at a time (a caller stops at its first answer); a single None when they cannot all
    be read: no root, a tree past the bounds, more than :data:`MAX_CALLING_MODULES` such
    modules, or (in its turn) a module that does not parse. The one caller scan of
    parameters and fields alike."""
    tree = _work_tree(src.root)
    if tree is None:
        yield None
        return
    # The modules a word names, and the calls of the last modules read, are kept for
    # the file: every field and parameter of a class asks with the class's name again.
    searched = src.cache.setdefault("calling_modules", {})
    assert isinstance(searched, dict)
    modules = searched.get(word.pattern)
    if not isinstance(modules, list):
        home = os.path.normpath(src.path)
        modules = [path for path, text in tree.items() if path != home and word.search(text)]
        searched[word.pattern] = modules
    yield from _modules_calls(src, tree, modules)


def _importing_modules_calls(src: SourceInfo, name: str) -> Iterator[_Calls | None]:
    """:func:`_other_modules_calls` for the other modules of the work tree that import
    ``name`` by a ``from`` import (as itself, not aliased), found in an index of the
    tree's ``from`` imports built once per tree: no scan of the tree per name."""
    tree = _work_tree(src.root)
    importers = _importers(src.root)
    if tree is None or importers is None:
        yield None
        return
    home = os.path.normpath(src.path)
    parts = home.removesuffix(".py").split(os.sep)
    # ``from pkg.lib import f`` / ``from .lib import f`` for pkg/lib.py, or ``from pkg
    # import f`` (re-exported by the package): a same-named import of another module's
    # function is not this one's call
    homes = {parts[-1], parts[-2] if len(parts) > 1 else ""} - {"__init__", ""}
    modules = [
        path
        for path, module in importers.get(name, ())
        if path != home and module.rsplit(".", 1)[-1] in homes
    ]
    yield from _modules_calls(src, tree, modules)


def _modules_calls(
    src: SourceInfo, tree: dict[str, bytes], modules: list[str]
) -> Iterator[_Calls | None]:
    """The calls of each of ``modules``, parsed one at a time and kept for the file; a
    single None past :data:`MAX_CALLING_MODULES` modules, or (in its turn) for a module
    that does not parse."""
    parsed = src.cache.setdefault("calling_parsed", {})
    assert isinstance(parsed, dict)
    if len(modules) > MAX_CALLING_MODULES:
        yield None
        return
    for path in modules:
        if path not in parsed:
            if len(parsed) >= 2 * MAX_CALLING_MODULES:
                parsed.clear()  # bounded: a tree's parsed modules would not all fit
            try:
                parsed[path] = _Calls(ast.parse(tree[path]), path)
            except PYTHON_PARSE_ERRORS:
                parsed[path] = None
        calls = parsed[path]
        yield calls
        if calls is None:
            return


# Modules that may call one function before it counts as a shared utility whose callers
# are not all read; the work tree read for callers has broad-except's bounds.
MAX_CALLING_MODULES = 12
_NOT_SOURCE_DIRS = frozenset({"node_modules", "build", "dist", "site-packages", "docs"})
_TREE_TEXTS: dict[str, dict[str, bytes] | None] = {}


_IMPORTERS: dict[str, dict[str, tuple[tuple[str, str], ...]] | None] = {}


def _importers(root: str | None) -> dict[str, tuple[tuple[str, str], ...]] | None:
    """Each name the work tree's modules import by a ``from`` import, unaliased -> (the
    importing module's relative path, the module named in the import), read once per
    root; None without a readable tree."""
    if root is None:
        return None
    if root not in _IMPORTERS:
        if len(_IMPORTERS) > 8:
            _IMPORTERS.clear()
        tree = _work_tree(root)
        found: dict[str, dict[tuple[str, str], None]] | None = None
        if tree is not None:
            found = {}
            for path, text in tree.items():
                if b"import" in text:
                    for module, name, local in fakes.from_imports(text):
                        if local == name:
                            found.setdefault(name, {})[(path, module)] = None
        _IMPORTERS[root] = None if found is None else {k: tuple(v) for k, v in found.items()}
    return _IMPORTERS[root]


def _work_tree(root: str | None) -> dict[str, bytes] | None:
    """Relative path -> text of each ``.py`` file of the work tree (tests included, no
    symlink followed), read once per root; None without a root or past
    ``_fail_fast.MAX_TREE_FILES`` files or ``MAX_TREE_BYTES`` bytes (never judged on part
    of the callers)."""
    if root is None:
        return None
    if root in _TREE_TEXTS:
        return _TREE_TEXTS[root]
    if len(_TREE_TEXTS) > 8:
        _TREE_TEXTS.clear()
    _TREE_TEXTS[root] = found = _read_work_tree(root)
    return found


def _read_work_tree(root: str) -> dict[str, bytes] | None:
    """:func:`_work_tree`, uncached."""
    return read_py_files(root, lambda d: d not in _NOT_SOURCE_DIRS, lambda _f: True)


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
LOOPS = (ast.For, ast.AsyncFor, ast.While)
_Matcher = Callable[[ast.expr], bool]


def _is_name(name: str) -> _Matcher:
    """Matches the local ``name``."""
    return lambda expr: isinstance(expr, ast.Name) and expr.id == name


def _is_self_attr(attr: str) -> _Matcher:
    """Matches ``self.<attr>``."""
    return lambda expr: (
        isinstance(expr, ast.Attribute)
        and expr.attr == attr
        and isinstance(expr.value, ast.Name)
        and expr.value.id == "self"
    )


def _tests_for_none(nodes: Iterable[ast.AST], matches: _Matcher) -> bool:
    """Whether one of ``nodes`` tests a matching expression for None or for truth: compared
    with None, an ``if``/``while``/conditional/``assert`` test, ``not x``, ``x or d``, or
    narrows it by class (``isinstance(x, str)``: unsloth's route hands ``provider_id`` on
    only under that test)."""
    for sub in nodes:
        if (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Name)
            and sub.func.id == "isinstance"
            and sub.args
            and matches(sub.args[0])
        ):
            return True
        if isinstance(sub, ast.Compare):
            sides = [sub.left, *sub.comparators]
            if any(matches(e) for e in sides) and any(
                isinstance(e, ast.Constant) and e.value is None for e in sides
            ):
                return True
        elif isinstance(sub, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            if matches(sub.test):
                return True
        elif isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.Not):
            if matches(sub.operand):
                return True
        elif isinstance(sub, ast.BoolOp) and any(matches(v) for v in sub.values):
            return True
    return False


def _dereferenced(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether the body reads an attribute or an item of ``name``, calls it or computes
    with it."""
    for sub in kwreads.body_nodes(node):
        if isinstance(sub, (ast.Attribute, ast.Subscript)) and _is_name(name)(sub.value):
            return True
        if isinstance(sub, ast.Call) and _is_name(name)(sub.func):
            return True
        if isinstance(sub, ast.BinOp) and (_is_name(name)(sub.left) or _is_name(name)(sub.right)):
            return True
    return False


class _ModuleIndex:
    """The module's functions by name, its classes' methods, and each method's class."""

    def __init__(self, tree: ast.Module) -> None:
        """Read the module's top-level functions and classes (one level of methods)."""
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.owner: dict[int, ast.ClassDef] = {}
        # :func:`_class_attributes` of each class asked, by id
        self.class_attributes: dict[int, _ClassAttributes] = {}
        self.tree = tree
        self._bodies: dict[int, tuple[list[ast.Compare], list[ast.Call]]] = {}
        self._compared: dict[int, dict[str, list[ast.Compare]]] = {}
        self._reads: dict[int, dict[str, list[tuple[ast.Name, ast.AST | None]]]] = {}
        self._attribute_args: dict[int, frozenset[int]] = {}
        self._bound: dict[int, frozenset[str]] = {}
        for stmt in tree.body:
            if isinstance(stmt, FUNCTIONS):
                self.functions[stmt.name] = stmt
            elif isinstance(stmt, ast.ClassDef):
                self.classes[stmt.name] = stmt
                for member in stmt.body:
                    if isinstance(member, FUNCTIONS):
                        self.owner[id(member)] = stmt

    def bound_names(self, node: ast.AST) -> frozenset[str]:
        """:func:`_bound_names` of ``node``, walked once (a function is asked once per
        parameter, call and return it holds)."""
        found = self._bound.get(id(node))
        if found is None:
            found = self._bound[id(node)] = frozenset(_bound_names(node))
        return found

    @functools.cached_property
    def nested(self) -> frozenset[int]:
        """The ids of the functions defined inside another function (at any depth)."""
        return frozenset(self._scopes)

    @functools.cached_property
    def _scopes(self) -> dict[int, tuple[str, int, int]]:
        """Each function defined inside another (at any depth) -> (its name, the first and
        last line of the function that defines it): where its name is bound."""
        found: dict[int, tuple[str, int, int]] = {}
        stack: list[tuple[ast.AST, ast.FunctionDef | ast.AsyncFunctionDef | None]] = [
            (self.tree, None)
        ]
        while stack:
            node, inside = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, FUNCTIONS):
                    if inside is not None:
                        end = inside.end_lineno or inside.lineno
                        found[id(child)] = (child.name, inside.lineno, end)
                    stack.append((child, child))
                elif isinstance(child, ast.ClassDef):
                    # its methods may be called by attribute on an instance handed out
                    stack.append((child, None))
                elif isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                    stack.append((child, inside))
        return found

    def binds_here(self, node: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> bool:
        """Whether ``call``, by ``node``'s name, is within the scope that binds ``node``:
        a nested function is called inside the function defining it, and a module-level
        one not inside a function that defines its own function of that name (two test
        functions each defining a helper ``_fetch`` call each their own)."""
        scope = self._scopes.get(id(node))
        if scope is not None:
            return scope[1] <= call.lineno <= scope[2] and not any(
                name == node.name
                and other != id(node)
                and first <= call.lineno <= last
                and scope[1] <= first
                for other, (name, first, last) in self._scopes.items()
            )
        return not any(
            name == node.name and first <= call.lineno <= last
            for name, first, last in self._scopes.values()
        )

    @functools.cached_property
    def calls(self) -> _Calls:
        """The module's calls, walked on the first question about them (most files ask none)."""
        return _Calls(self.tree)

    def body(
        self, func: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> tuple[list[ast.Compare], list[ast.Call]]:
        """The comparisons and calls of ``func``'s own body (nested scopes not entered),
        collected once: each parameter's question reads these, not the whole body."""
        cached = self._bodies.get(id(func))
        if cached is None:
            compares: list[ast.Compare] = []
            calls: list[ast.Call] = []
            for sub in kwreads.body_nodes(func):
                if isinstance(sub, ast.Compare):
                    compares.append(sub)
                elif isinstance(sub, ast.Call):
                    calls.append(sub)
            cached = self._bodies[id(func)] = (compares, calls)
        return cached

    def compared(
        self, func: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> dict[str, list[ast.Compare]]:
        """Each name a comparison of ``func``'s own body has as one of its sides -> those
        comparisons, in body order, each once: a parameter's question reads its own."""
        cached = self._compared.get(id(func))
        if cached is None:
            cached = self._compared[id(func)] = {}
            for sub in self.body(func)[0]:
                names = {
                    side.id for side in (sub.left, *sub.comparators) if isinstance(side, ast.Name)
                }
                for name in names:
                    cached.setdefault(name, []).append(sub)
        return cached

    def reads(
        self, func: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> dict[str, list[tuple[ast.Name, ast.AST | None]]]:
        """Each name ``func``'s own body reads -> (the ``Name``, its parent node) per read,
        in body order: one walk for all its parameters (a function of thousands of
        parameters is not walked once per parameter)."""
        cached = self._reads.get(id(func))
        if cached is None:
            nodes = list(kwreads.body_nodes(func))
            parents: dict[int, ast.AST] = {}
            for sub in nodes:
                for child in ast.iter_child_nodes(sub):
                    parents[id(child)] = sub
            cached = {}
            for sub in nodes:
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                    cached.setdefault(sub.id, []).append((sub, parents.get(id(sub))))
            self._reads[id(func)] = cached
        return cached

    @functools.cached_property
    def method_names(self) -> frozenset[str]:
        """The names of the methods of the module's top-level classes."""
        return frozenset(
            member.name
            for klass in self.classes.values()
            for member in klass.body
            if isinstance(member, FUNCTIONS)
        )

    def attribute_call_args(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[int]:
        """The ids of the values ``func`` passes as is to a call of ``self.<attr>(...)``
        whose ``attr`` no class of the module defines as a method."""
        cached = self._attribute_args.get(id(func))
        if cached is None:
            found: set[int] = set()
            for call in self.body(func)[1]:
                callee = call.func
                if (
                    isinstance(callee, ast.Attribute)
                    and isinstance(callee.value, ast.Name)
                    and callee.value.id == "self"
                    and callee.attr not in self.method_names
                ):
                    found.update(id(v) for v in (*call.args, *(k.value for k in call.keywords)))
            cached = self._attribute_args[id(func)] = frozenset(found)
        return cached


def _module_index(src: SourceInfo) -> _ModuleIndex:
    """The file's :class:`_ModuleIndex`, built once."""
    cached = src.cache.get("wrong_module_index")
    if not isinstance(cached, _ModuleIndex):
        cached = _ModuleIndex(src.tree)
        src.cache["wrong_module_index"] = cached
    return cached


def _method(owner: ast.ClassDef | None, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """Method ``name`` of class ``owner``."""
    if owner is None:
        return None
    return next((m for m in owner.body if isinstance(m, FUNCTIONS) and m.name == name), None)


def _callee(
    index: _ModuleIndex, owner: ast.ClassDef | None, call: ast.Call
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool] | None:
    """The module's function (or ``self.``/``cls.`` method of ``owner``) ``call`` calls,
    with whether its first parameter is bound (``self``)."""
    func = call.func
    if isinstance(func, ast.Name):
        target = index.functions.get(func.id)
        return (target, False) if target is not None else None
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in ("self", "cls")
    ):
        method = _method(owner, func.attr)
        return (method, True) if method is not None else None
    return None


def _parameter_for(
    callee: ast.FunctionDef | ast.AsyncFunctionDef, bound: bool, call: ast.Call, value: ast.expr
) -> str | None:
    """The name of ``callee``'s parameter that receives argument ``value`` of ``call``."""
    positional = [*callee.args.posonlyargs, *callee.args.args][1 if bound else 0 :]
    for position, arg in enumerate(call.args):
        if arg is value:
            if isinstance(arg, ast.Starred) or position >= len(positional):
                return None
            return positional[position].arg
    for keyword in call.keywords:
        if keyword.value is value:
            return keyword.arg
    return None


def _handed_to(
    index: _ModuleIndex,
    owner: ast.ClassDef | None,
    facts: _BodyFacts,
    name: str,
) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """Each (function of the module, parameter) that ``name`` is passed to as is, by the
    calls of the function whose :class:`_BodyFacts` are ``facts``."""
    for sub, passed in facts.handed.get(name, ()):
        found = _callee(index, owner, sub)
        if found is None:
            continue
        for value in passed:
            param = _parameter_for(found[0], found[1], sub, value)
            if param is not None:
                yield found[0], param


class _BodyFacts:
    """What :func:`none_reaches` asks of a function's body for each of its parameters,
    read in one walk (not one walk a parameter): the names and ``self.<attr>`` it tests
    for None or truth (:func:`_tests_for_none`), the calls each name is passed to as is,
    and the ``self.<attr>`` each name is stored in."""

    def __init__(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """Walk ``func``'s body once."""
        self.tested_names: set[str] = set()
        self.tested_attrs: set[str] = set()
        # ``self.<attr>`` tested -> the last line testing it (read after a store?)
        self.attr_tested_at: dict[str, int] = {}
        # name -> (call, the values of the call that are the name), in body order.
        self.handed: dict[str, list[tuple[ast.Call, list[ast.expr]]]] = {}
        # name -> each ``self.<attr>`` it is assigned to as is.
        self.stored: dict[str, list[str]] = {}
        # (name, attr) -> the first line storing the name in ``self.<attr>``
        self.stored_at: dict[tuple[str, str], int] = {}
        # The names a function or lambda nested in the body tests for None or truth,
        # other than its own parameters: a closure reading the parameter (``def
        # _load(): if split is not None: ...``) tests the value the outer call got.
        self.closure_tested: set[str] = set()
        for sub in kwreads.body_nodes(func):
            for tested in _tested(sub):
                if isinstance(tested, ast.Name):
                    self.tested_names.add(tested.id)
                elif _is_self_attr(tested.attr)(tested):
                    self.tested_attrs.add(tested.attr)
                    line = self.attr_tested_at.get(tested.attr, 0)
                    self.attr_tested_at[tested.attr] = max(line, tested.lineno)
            if isinstance(sub, (*FUNCTIONS, ast.Lambda)):
                own = {a.arg for a in ast.walk(sub.args) if isinstance(a, ast.arg)}
                for inner in ast.walk(sub):
                    self.closure_tested.update(
                        t.id for t in _tested(inner) if isinstance(t, ast.Name) and t.id not in own
                    )
            if isinstance(sub, ast.Call):
                values = [*sub.args, *(k.value for k in sub.keywords)]
                passed: dict[str, list[ast.expr]] = {}
                for value in values:
                    if isinstance(value, ast.Name):
                        passed.setdefault(value.id, []).append(value)
                for passed_name, given in passed.items():
                    self.handed.setdefault(passed_name, []).append((sub, given))
        for stmt in kwreads.statements(func.body, scopes=False):
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(stmt.value, ast.Name):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        self.stored.setdefault(stmt.value.id, []).append(target.attr)
                        self.stored_at.setdefault((stmt.value.id, target.attr), stmt.lineno)


def _tested(sub: ast.AST) -> Iterator[ast.Name | ast.Attribute]:
    """The names and attributes ``sub`` tests for None or for truth, as
    :func:`_tests_for_none` reads a node."""
    candidates: list[ast.expr] = []
    if isinstance(sub, ast.Compare):
        sides = [sub.left, *sub.comparators]
        if any(isinstance(e, ast.Constant) and e.value is None for e in sides):
            candidates = sides
    elif isinstance(sub, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        candidates = [sub.test]
    elif isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.Not):
        candidates = [sub.operand]
    elif isinstance(sub, ast.BoolOp):
        candidates = sub.values
    for expr in candidates:
        if isinstance(expr, (ast.Name, ast.Attribute)):
            yield expr


def _named(src: SourceInfo) -> dict[int, frozenset[str]]:
    """The file's memo of :meth:`_Paths.touches`: id(node) -> the names it holds."""
    cached = src.cache.setdefault("touched_names", {})
    assert isinstance(cached, dict)
    return cached


def _body_facts(src: SourceInfo, func: ast.FunctionDef | ast.AsyncFunctionDef) -> _BodyFacts:
    """``func``'s :class:`_BodyFacts`, read once a file."""
    return src.per_node("body_facts", func, lambda: _BodyFacts(func))


def _methods(src: SourceInfo, owner: ast.ClassDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods of class ``owner``, listed once a file."""
    return src.per_node(
        "class_methods", owner, lambda: [m for m in owner.body if isinstance(m, FUNCTIONS)]
    )


def _called_name(owner: ast.ClassDef | None, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The name a call of ``node`` is written with: its class's for ``C.__init__``."""
    return owner.name if owner is not None and node.name == "__init__" else node.name


def _caller_leaves_none(
    owner: ast.ClassDef | None,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    calls: _Calls,
    foreign: bool = False,
) -> bool:
    """Whether one of ``calls`` to ``node`` leaves parameter ``name`` at its default or
    passes ``None``, or a name or ``self.<attr>`` that holds None on some path (see
    :meth:`_Calls.may_be_none`; a call with ``*args``/``**kwargs`` is unsure, not counted);
    ``foreign``: the calls are another module's (a function is then also called as
    ``module.name(...)``)."""
    return any(
        given is None or calls.may_be_none(given, function, klass)
        for _call, given, function, klass in _arguments(owner, node, name, calls, foreign)
    )


def _arguments(
    owner: ast.ClassDef | None,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    calls: _Calls,
    foreign: bool = False,
    strict: bool = False,
) -> Iterator[_Given]:
    """Each call of ``calls`` that may call ``node``, with the value it gives parameter
    ``name`` (None: it leaves the default) and the function and class the call sits in; a
    call with ``*args``/``**kwargs`` is skipped (its values cannot be placed). ``foreign``:
    another module's calls (a function is then also called as ``module.name(...)``).
    ``strict``: only calls that certainly call ``node`` (the caller picks modules that
    define or import it): ``f(...)``, ``C(...)`` for ``C.__init__``, and ``self.m(...)`` /
    ``cls.m(...)`` / ``C.m(...)`` in the home module's class ``C``."""
    method = owner is not None and not _decorated(node, ("staticmethod",))
    called = _called_name(owner, node)
    positional = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
    if method:
        positional = positional[1:]
    plain = owner is None or node.name == "__init__"
    if strict and foreign and not plain:
        return  # a method is called by ``self.`` in its own module only
    sites = calls.named(called)
    if owner is not None and node.name == "__init__":
        sites = [*sites, *calls.super_inits(owner.name)]
    for call, function, klass in sites:
        func = call.func
        if isinstance(func, ast.Name):
            if func.id != called or not plain:
                continue
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "__init__"
            and owner is not None
            and called != "__init__"
        ):
            # ``super().__init__(...)`` in a class of the module deriving from ``owner``
            if not (_super_call(func.value) and klass is not None and _derives(klass, owner)):
                continue
        elif isinstance(func, ast.Attribute):
            if func.attr != called or (plain and not foreign):
                continue
            if strict and not (
                not plain
                and klass is owner
                and isinstance(func.value, ast.Name)
                and func.value.id in ("self", "cls", owner.name if owner is not None else "")
            ):
                continue
        else:
            continue
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            continue
        given: ast.expr | None = None
        if name in positional and positional.index(name) < len(call.args):
            given = call.args[positional.index(name)]
        given = next((k.value for k in call.keywords if k.arg == name), given)
        yield call, given, function, klass


def _super_call(value: ast.expr) -> bool:
    """``super()`` (no arguments)."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "super"
        and not value.args
    )


def _derives(klass: ast.ClassDef, owner: ast.ClassDef) -> bool:
    """Whether ``klass`` names ``owner`` among its bases (``class B(A)`` /
    ``class B(m.A)``): its ``super().__init__`` is ``owner.__init__``."""
    return klass is not owner and any(last_name(base) == owner.name for base in klass.bases)


def caller_contradictions(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Finding]:
    """Parameters whose annotation, new in the change, a call certainly made to the
    function contradicts with what it passes as written: ``None`` where the annotation
    holds no None (and the default is not None: that one is the implicit Optional's
    finding), a literal or display of a builtin kind it rejects (a string for
    ``torch.Tensor``, an int for ``list[int]``; not a string for ``torch.device``, whose
    APIs take its spelling, and not an int for ``bool``), a tuple display of other than
    one item for ``tuple[X]``. The callers read are the module's own calls and those of
    the work tree's modules that import the function by name (a same-named call
    elsewhere may be another function's); past :data:`MAX_CALLING_MODULES` modules the
    tree is not read. One finding a parameter, at its first contradicting call."""
    if _decorated(node, ("overload", "abstractmethod")):
        return
    index = _module_index(src)
    owner = index.owner.get(id(node))
    arguments = node.args
    params = [*arguments.posonlyargs, *arguments.args]
    if owner is not None and not _decorated(node, ("staticmethod",)):
        params = params[1:]
    defaults = {id(arg): default for arg, default in _defaults(node)}
    checked = [
        arg
        for arg in (*params, *arguments.kwonlyargs)
        if arg.annotation is not None
        and src.node_added(arg.annotation)
        and not _silenced(src, arg.annotation.lineno)
    ]
    if not checked:
        return
    plain = owner is None or node.name == "__init__"
    called = _called_name(owner, node)
    home = _called_in_text(src, called, method=not plain) or _super_inits(src, owner, node)
    if not home and (not plain or _work_tree(src.root) is None):
        return  # no call in the module, and no other module read: nothing to judge
    if owner is None and index.functions.get(node.name) is not node:
        if id(node) not in index.nested:
            return  # redefined (``if``/``else`` variants): a call's target is unsure
    for arg in checked:
        default = defaults.get(id(arg))
        none_default = default is not None and _is_none(default)
        found = _contradicting_call(src, owner, node, arg, none_default, index, home)
        if found is not None:
            yield found


def parametrized_contradictions(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Finding]:
    """Parameters of a test whose annotation, new in the change, one of its
    ``@pytest.mark.parametrize`` rows contradicts: pytest calls the test with each row, so
    a row is a call certainly made (nunchaku's ``lora_name: str`` given ``None`` by both
    rows, the body branching on ``lora_name is None``). Read as a caller's argument is
    (:func:`_contradicts`; not a tuple row for a ``list`` or the other way round, one
    sequence for another), but a None counts whatever the body does with it: a row is
    written to run the test with that value (MLServer's ``inference_pool_gid: str``
    given ``None`` to see the model go to the default pool). One finding a parameter, at
    its first contradicting row."""
    if not any(parametrize.is_parametrize(d) for d in node.decorator_list):
        return
    arguments = node.args
    defaults = {id(arg): default for arg, default in _defaults(node)}
    checked = {
        arg.arg: arg
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
        if arg.annotation is not None
        and src.node_added(arg.annotation)
        and not _silenced(src, arg.annotation.lineno)
    }
    done: set[str] = set()
    for name, value in parametrize.given(node):
        arg = checked.get(name)
        if arg is None or name in done:
            continue
        assert arg.annotation is not None
        default = defaults.get(id(arg))
        why = _contradicts(src, arg.annotation, value, default is not None and _is_none(default))
        if why is None:
            continue
        if why in ("a tuple", "a list") and _builtin_of(src, arg.annotation) in ("list", "tuple"):
            continue  # one sequence for another (``probs: list[float]`` given ``(0.5, 0.5)``)
        done.add(name)
        declared = short(src, arg.annotation).strip("\"'")
        fix = (
            f"annotate `{name}: {declared} | None`"
            if why == "None"
            else "annotate what the rows pass or fix the row"
        )
        yield finding(
            src,
            arg.annotation,
            RULE,
            BLOCK,
            f"`{name}: {declared}` of `{node.name}` is contradicted by its `parametrize` row "
            f"at line {value.lineno}, which passes {why}; {fix}",
        )


# A generator's annotation: what a yield fixture's function returns, never what pytest
# hands a test that asks for the fixture.
_GENERATORS = frozenset(
    f"{module}.{name}"
    for module in ("typing", "collections.abc", "typing_extensions")
    for name in ("Generator", "AsyncGenerator", "Iterator", "AsyncIterator")
)


def _is_fixture(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``node`` is decorated ``@pytest.fixture`` (called or not)."""
    return any(
        last_name(d.func if isinstance(d, ast.Call) else d) == "fixture"
        for d in node.decorator_list
    )


# pytest's own fixtures and the class of what each hands a test.
_PYTEST_FIXTURES = {
    "tmp_path": "pathlib.Path",
    "tmp_path_factory": "pytest.TempPathFactory",
    "monkeypatch": "pytest.MonkeyPatch",
    "capsys": "pytest.CaptureFixture[str]",
    "capfd": "pytest.CaptureFixture[str]",
    "caplog": "pytest.LogCaptureFixture",
    "request": "pytest.FixtureRequest",
}


def _builtin_fixture(
    src: SourceInfo, index: _ModuleIndex, arg: ast.arg, given: set[str]
) -> Finding | None:
    """``tmp_path: str``: one of pytest's own fixtures annotated with a builtin its value
    is not (MLServer's ``online_drift_detector_uri(tmp_path: str)``, a ``pathlib.Path``),
    when the change writes the annotation and neither the module nor a ``parametrize``
    row supplies that name."""
    cls = _PYTEST_FIXTURES.get(arg.arg)
    if (
        cls is None
        or arg.annotation is None
        or arg.arg in given
        or arg.arg in index.functions
        or not src.node_added(arg.annotation)
        or _silenced(src, arg.annotation.lineno)
        or _builtin_of(src, arg.annotation) is None
    ):
        return None
    declared = short(src, arg.annotation).strip("\"'")
    return finding(
        src,
        arg.annotation,
        RULE,
        BLOCK,
        f"`{arg.arg}: {declared}`: pytest's `{arg.arg}` fixture is a `{cls}`, not "
        f"{_article(declared)} {declared}; annotate `{arg.arg}: {cls}`",
    )


def injected_fixture_values(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Finding]:
    """Parameters of a test (or of a fixture) the change annotates as something pytest
    never hands it: one of pytest's own fixtures as a builtin (:func:`_builtin_fixture`),
    or a generator (``inference_service_stub: AsyncGenerator[Stub, None]``): pytest hands a test the
    value its fixture yields, the ``Stub``, never the generator (MLServer's gRPC tests
    call ``inference_service_stub.ModelInfer(...)``). Not a parameter a ``parametrize``
    row gives, nor one whose fixture this module defines without ``yield`` (a fixture
    may return an iterator)."""
    if not src.is_test or not (node.name.startswith("test") or _is_fixture(node)):
        return
    given = {
        name
        for d in node.decorator_list
        if isinstance(d, ast.Call) and parametrize.is_parametrize(d)
        for name in parametrize.argnames(d) or ()
    }
    index = _module_index(src)
    for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
        builtin = _builtin_fixture(src, index, arg, given)
        if builtin is not None:
            yield builtin
            continue
        annotation = unquoted(arg.annotation) if arg.annotation is not None else None
        if (
            arg.annotation is None
            or not isinstance(annotation, ast.Subscript)
            or src.qualname(annotation.value) not in _GENERATORS
            or arg.arg in given
            or arg.arg in ("self", "cls")
            or not src.node_added(arg.annotation)
            or _silenced(src, arg.annotation.lineno)
        ):
            continue
        fixture = index.functions.get(arg.arg)
        if fixture is not None and not any(
            isinstance(n, (ast.Yield, ast.YieldFrom)) for n in kwreads.body_nodes(fixture)
        ):
            continue  # the module's own fixture returns what the annotation says
        items = (
            annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        )
        value = unparse(items[0], 200)  # a quoted annotation's node has no place in the file
        declared = short(src, arg.annotation).strip("\"'")
        yield finding(
            src,
            arg.annotation,
            RULE,
            BLOCK,
            f"`{arg.arg}: {declared}` of `{node.name}`: pytest hands it what the "
            f"`{arg.arg}` fixture yields, not a generator; annotate `{arg.arg}: {value}`",
        )


def _super_inits(
    src: SourceInfo, owner: ast.ClassDef | None, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> bool:
    """Whether ``node`` is ``owner.__init__`` and a class of the module deriving from
    ``owner`` writes ``super().__init__(``: calls of it the text search for ``owner(``
    does not see."""
    if owner is None or node.name != "__init__" or b"super().__init__(" not in src.data:
        return False
    bases = src.cache.get("top_level_bases")
    if not isinstance(bases, frozenset):
        bases = src.cache["top_level_bases"] = frozenset(
            last_name(base)
            for c in src.tree.body
            if isinstance(c, ast.ClassDef)
            for base in c.bases
        )
    return owner.name in bases


def _home_calls(
    src: SourceInfo,
    index: _ModuleIndex,
    owner: ast.ClassDef | None,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
) -> _Calls:
    """The module's calls that may call ``node``: all of them when another question has
    walked them already or past :data:`_TEXT_QUESTIONS` names, else those on the lines
    where its name is followed by ``(`` (kept per name for the file)."""
    kept = src.cache.setdefault("home_calls", {})
    assert isinstance(kept, dict)
    if "calls" in index.__dict__ or len(kept) >= _TEXT_QUESTIONS or _super_inits(src, owner, node):
        # the walk of every call, made already or now, once past a few names: a module
        # of thousands of functions is walked once, not searched and pruned once each
        return index.calls
    plain = owner is None or node.name == "__init__"
    word = (b"" if plain else b".") + _called_name(owner, node).encode() + b"("
    found = kept.get(word)
    if not isinstance(found, _Calls):
        data = src.data
        lines: list[int] = []
        line, last, at = 1, 0, data.find(word)
        while at != -1:
            line += data.count(b"\n", last, at)
            last = at
            if not lines or lines[-1] != line:
                lines.append(line)
            at = data.find(word, at + 1)
        found = kept[word] = _Calls(src.tree, lines=lines)
    return found


class _TextCalls:
    """How often a module's text writes ``name(``: as a call, after ``def `` / ``class ``
    (a definition), and after ``.`` (a method or attribute call), counted per name
    for the module's first :data:`_TEXT_QUESTIONS` questions (one byte count each), then
    read in one pass (a module of thousands of functions asked about each of them would
    otherwise be searched once per function)."""

    def __init__(self, data: bytes) -> None:
        """Keep the text; count nothing yet."""
        self.data = data
        self.asked = 0
        self._counts: tuple[dict[bytes, int], dict[bytes, int], dict[bytes, int]] | None = None

    def written(self, name: str) -> tuple[int, int, int]:
        """(times ``name(`` is written, of those after ``def ``/``class ``, after ``.``)."""
        word = name.encode()
        self.asked += 1
        if self._counts is None and self.asked <= _TEXT_QUESTIONS:
            call = word + b"("
            data = self.data
            defined = data.count(b"def " + call) + data.count(b"class " + call)
            return data.count(call), defined, data.count(b"." + call)
        if self._counts is None:
            self._counts = self._count_all()
        calls, defs, attrs = self._counts
        return calls.get(word, 0), defs.get(word, 0), attrs.get(word, 0)

    def _count_all(self) -> tuple[dict[bytes, int], dict[bytes, int], dict[bytes, int]]:
        """:meth:`written` for every name, in one pass over the text."""
        calls: dict[bytes, int] = {}
        defs: dict[bytes, int] = {}
        attrs: dict[bytes, int] = {}
        data = self.data
        for match in _NAME_CALLED_RE.finditer(data):
            name, start = match.group(1), match.start()
            calls[name] = calls.get(name, 0) + 1
            if data[start - 4 : start] == b"def " or data[start - 6 : start] == b"class ":
                defs[name] = defs.get(name, 0) + 1
            elif data[start - 1 : start] == b".":
                attrs[name] = attrs.get(name, 0) + 1
        return calls, defs, attrs


# Questions a module's text answers by byte counts before it is read in one pass.
_TEXT_QUESTIONS = 16
_NAME_CALLED_RE = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)\(")


def _text_calls(src: SourceInfo) -> _TextCalls:
    """The file's :class:`_TextCalls`, made once."""
    found = src.cache.get("text_calls")
    if not isinstance(found, _TextCalls):
        found = src.cache["text_calls"] = _TextCalls(src.data)
    return found


def _called_in_text(src: SourceInfo, called: str, method: bool) -> bool:
    """Whether the module's text may call ``called``: ``called(`` beyond its ``def`` and
    ``class`` lines (``.called(`` for a method). It spares walking the module's calls
    for the many functions it never calls (a call written ``f (x)``, with a space, is
    not seen; ``my_f(`` is, and the walk then finds no call)."""
    calls, defined, attribute = _text_calls(src).written(called)
    return attribute > 0 if method else calls > defined


def _contradicting_call(
    src: SourceInfo,
    owner: ast.ClassDef | None,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    arg: ast.arg,
    none_default: bool,
    index: _ModuleIndex,
    home: bool,
) -> Finding | None:
    """:func:`caller_contradictions` for one parameter: the home module's calls first
    (``home``: its text may call the function), then the tree's importing modules (the
    function's own name, or its class's for ``__init__``)."""
    assert arg.annotation is not None
    annotation = arg.annotation
    modules: list[_Calls | None] = [_home_calls(src, index, owner, node)] if home else []
    # Scopes matter for a function not at the module's top level, or whose name another
    # ``def`` binds too; a lone top-level function is what every call of its name calls.
    scoped = owner is None and (
        index.functions.get(node.name) is not node or _text_calls(src).written(node.name)[1] > 1
    )
    nested = id(node) in index.nested
    expects_none: list[bool] = []  # read once, on the first None a caller passes

    def contradicts(
        given: ast.expr | None,
        function: ast.FunctionDef | ast.AsyncFunctionDef | None,
        call: ast.Call,
    ) -> str | None:
        """:func:`_contradicts`, or the calling function's own parameter defaulting to
        None handed on as it came (``super().__init__(model, posterior_transform)``); a
        None counts only where the function expects it (a body that only stores or
        forwards it is the implicit Optional's '-', the pattern's reading of a None that
        means nothing)."""
        why = _contradicts(src, annotation, given, none_default)
        forwarded = (
            why is None
            and not none_default
            and isinstance(given, ast.Name)
            and function is not None
            and _forwards_none_default(function, given.id, call)
            and _types(src).admits_none(annotation) is False
        )
        if why == "None" or forwarded:
            if not expects_none:
                expects_none.append(_body_tests_none(src, node, arg.arg))
            if not expects_none[0]:
                return None
        if forwarded:
            assert isinstance(given, ast.Name)
            return f"`{given.id}`, its own parameter defaulting to None"
        return why

    for calls in modules:
        assert calls is not None
        for call, given, function, _klass in _arguments(
            owner, node, arg.arg, calls, foreign=False, strict=True
        ):
            if scoped and not index.binds_here(node, call):
                continue
            if _shadowed(call, function, calls):
                continue
            why = contradicts(given, function, call)
            if why is not None:
                return _contradiction(src, owner, arg, node, call, calls, why)
    if nested or (owner is not None and node.name != "__init__"):
        return None  # a method is called by ``self.`` in its own module only (strict)
    called = _called_name(owner, node)
    for calls in _importing_modules_calls(src, called):
        if calls is None:
            return None
        if not src.is_test and match_any(calls.path, src.config.test_paths):
            continue  # a test passes a wrong value on purpose, to see it rejected
        for call, given, function, _klass in _arguments(
            owner, node, arg.arg, calls, foreign=True, strict=True
        ):
            if _shadowed(call, function, calls):
                continue
            why = contradicts(given, function, call)
            if why is not None:
                return _contradiction(src, owner, arg, node, call, calls, why)
    return None


def _forwards_none_default(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, call: ast.Call | None = None
) -> bool:
    """Whether ``name`` is a parameter of ``function`` defaulting to None that its body
    hands on as it came: not rebound, not tested for None or truth (a caller that narrows
    it first passes no None). With ``call`` (not in a loop), only what runs before it
    counts: the statements above the call's own and the tests inside that statement
    (``self.f(m) if m is not None else d``); the call's own assignment rebinds the name
    after the value went in (kornia's ``mask = self.fix_mask(mask, reference_signal)``)."""
    if not any(arg.arg == name and _is_none(default) for arg, default in _defaults(function)):
        return False
    nodes = list(kwreads.body_nodes(function))
    chain = _statement_chain(function.body, call) if call is not None else None
    if chain is not None and not any(isinstance(s, LOOPS) for s in chain):
        statement = chain[-1]
        start = (statement.lineno, statement.col_offset)
        inside = {id(sub) for sub in ast.walk(statement)}
        earlier = [
            sub
            for sub in nodes
            if id(sub) not in inside
            and (getattr(sub, "lineno", 0), getattr(sub, "col_offset", 0)) < start
        ]
        # a compound statement holding the call (an ``if`` around it) tests before it
        tests = [*earlier, *(sub for sub in nodes if id(sub) in inside), *chain[:-1]]
        rebinds = earlier
    else:
        tests = rebinds = nodes
    if any(
        isinstance(sub, ast.Name) and sub.id == name and not isinstance(sub.ctx, ast.Load)
        for sub in rebinds
    ):
        return False
    return not _tests_for_none(tests, _is_name(name))


def _statement_chain(body: list[ast.stmt], target: ast.AST) -> list[ast.stmt] | None:
    """The statements from ``body`` down to the innermost one holding ``target`` (nested
    functions and classes not entered), or None when no statement of ``body`` holds it."""
    for statement in body:
        if isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
            continue
        if not any(sub is target for sub in ast.walk(statement)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list):
                stmts = [s for s in inner if isinstance(s, ast.stmt)]
                for handler in inner:
                    if isinstance(handler, ast.ExceptHandler):
                        stmts.extend(handler.body)
                found = _statement_chain(stmts, target)
                if found is not None:
                    return [statement, *found]
        if isinstance(statement, ast.Match):
            for case in statement.cases:
                found = _statement_chain(case.body, target)
                if found is not None:
                    return [statement, *found]
        return [statement]
    return None


def _shadowed(
    call: ast.Call, function: ast.FunctionDef | ast.AsyncFunctionDef | None, calls: _Calls
) -> bool:
    """Whether ``name(...)`` calls a name the calling function binds itself (a parameter,
    an assignment): pytest's ``def test_x(tokenizer): tokenizer([...])`` calls the value
    the ``tokenizer`` fixture gave, not the fixture. Each calling function's names are
    read once per module (kept by ``calls``, whose tree holds the function)."""
    if function is None or not isinstance(call.func, ast.Name):
        return False
    names = calls.value_names.get(id(function))
    if names is None:
        names = calls.value_names[id(function)] = _value_names(function)
    return call.func.id in names


def _value_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names ``function`` binds to a value in its own scope: its parameters, and what
    its statements assign, loop over, import or take from ``with`` (statements only, not
    every expression: a function of thousands of lines is asked once per module); not a
    nested ``def`` or ``class`` (a call of that is a call of the nested function, judged
    by its scope)."""
    arguments = function.args
    names = {
        a.arg
        for a in (
            *arguments.posonlyargs,
            *arguments.args,
            *arguments.kwonlyargs,
            *(x for x in (arguments.vararg, arguments.kwarg) if x is not None),
        )
    }
    for stmt in kwreads.statements(function.body, scopes=False):
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = [stmt.target]
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".", 1)[0] for a in stmt.names)
        for target in targets:
            names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return frozenset(names)


def _contradicts(
    src: SourceInfo, annotation: ast.expr, given: ast.expr | None, none_default: bool
) -> str | None:
    """What ``given`` is when the annotation certainly cannot hold it (``"None"``, ``"a
    str"``, ``"a tuple of 2 items"``); None when it may."""
    if given is None:
        return None
    types = _types(src)
    if _is_none(given):
        if none_default or types.admits_none(annotation) is not False:
            return None
        return "None"
    if isinstance(given, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in given.elts):
        if len(given.elts) != 1 and any(
            _builtin_of(src, member) == "tuple" and _single_item_tuple(src, member) is not None
            for member in union_items(src, annotation) or [annotation]
        ):
            return f"a tuple of {len(given.elts)} items"
    kind = _literal_kind(given)
    if kind is None:
        return None
    if isinstance(given, (ast.List, ast.Tuple, ast.Set)) and _candidates(types, annotation, given):
        return None
    if kind in _NUMBERS and _names_number(src, annotation):
        # ``flag=1`` for a ``bool``, ``execution_timeout=60.0`` for an ``int``: a number
        # for a number, which reads the same; not a contradiction worth a ✗
        return None
    if not _rejects_literal(src, annotation, kind):
        return None
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _candidates(types: _Types, annotation: ast.expr, given: ast.List | ast.Tuple | ast.Set) -> bool:
    """Whether a display lists values each of which the annotation holds: candidates for
    a search space (Intel Neural Compressor's ``RTNConfig(use_sym=[True, False])`` under
    ``use_sym: bool`` builds its tuning grid), a convention of the API, not a mistake."""
    kinds = [
        _literal_kind(item.operand if isinstance(item, ast.UnaryOp) else item)  # ``-1``
        for item in given.elts
    ]
    return bool(kinds) and all(
        kind is not None and types.holds_literal(annotation, kind) is True for kind in kinds
    )


_NUMBERS = frozenset({"bool", "int", "float", "complex"})


def _names_number(src: SourceInfo, annotation: ast.expr) -> bool:
    """Whether a builtin number is a member of the annotation (``bool``, ``int``,
    ``Optional[float]``)."""
    members = union_items(src, annotation) or [annotation]
    return any(isinstance(m, ast.Name) and m.id in _NUMBERS for m in members)


def _contradiction(
    src: SourceInfo,
    owner: ast.ClassDef | None,
    arg: ast.arg,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    call: ast.Call,
    calls: _Calls,
    what: str,
) -> Finding:
    """The finding at ``arg``'s annotation for a call passing ``what``."""
    assert arg.annotation is not None
    declared = short(src, arg.annotation).strip("\"'")
    where = f"line {call.lineno}" if not calls.path else f"{calls.path}:{call.lineno}"
    name = _called_name(owner, node)
    fix = (
        f"annotate `{arg.arg}: {declared} | None`"
        if what == "None"
        else "annotate what the callers pass or fix the call"
    )
    return finding(
        src,
        arg.annotation,
        RULE,
        BLOCK,
        f"`{arg.arg}: {declared}` of `{name}` is contradicted by a caller: the call at "
        f"{where} passes {what}; {fix}",
    )


def _spans(node: ast.AST, lines: Sequence[int]) -> bool:
    """Whether ``node`` spans one of the sorted ``lines`` (a node without a position,
    ``ast.arguments`` or an operator, may hold one)."""
    first: int | None = getattr(node, "lineno", None)
    if first is None:
        return True
    last: int = getattr(node, "end_lineno", None) or first
    at = bisect.bisect_left(lines, first)
    return at < len(lines) and lines[at] <= last


# A call, with the function and the class it sits in (innermost).
_Site = tuple[ast.Call, ast.FunctionDef | ast.AsyncFunctionDef | None, ast.ClassDef | None]
# A call, the value it gives one parameter (None: the default), its function and class.
_Given = tuple[
    ast.Call, ast.expr | None, ast.FunctionDef | ast.AsyncFunctionDef | None, ast.ClassDef | None
]


class _Calls:
    """A module's calls, each with the function and the class it sits in (innermost), and
    the names and ``self.`` attributes those assign None on some path."""

    def __init__(
        self, tree: ast.Module, path: str = "", lines: Sequence[int] | None = None
    ) -> None:
        """Walk the module once (iteratively: deep expressions do not recurse); ``path``
        names another module of the work tree in a message (empty: the file itself);
        ``lines`` (sorted): only the nodes spanning one of them are entered, the calls a
        text search placed there (a walk of a few branches, not of the module)."""
        self.tree = tree
        self.path = path
        self.sites: list[
            tuple[ast.Call, ast.FunctionDef | ast.AsyncFunctionDef | None, ast.ClassDef | None]
        ] = []
        self._none: dict[int, tuple[frozenset[str], frozenset[str]]] = {}
        # Called name -> its sites (:meth:`named`).
        self._named: dict[str, list[_Site]] | None = None
        self._bases: frozenset[str] | None = None
        self._super_inits: dict[str, list[_Site]] | None = None
        # Calling function id -> the names it binds to a value (:func:`_shadowed`).
        self.value_names: dict[int, frozenset[str]] = {}
        stack: list[
            tuple[ast.AST, ast.FunctionDef | ast.AsyncFunctionDef | None, ast.ClassDef | None]
        ] = [(tree, None, None)]
        while stack:
            node, function, klass = stack.pop()
            for child in ast.iter_child_nodes(node):
                if lines is not None and not _spans(child, lines):
                    continue
                if isinstance(child, ast.Call):
                    self.sites.append((child, function, klass))
                if isinstance(child, FUNCTIONS):
                    stack.append((child, child, klass))
                elif isinstance(child, ast.ClassDef):
                    stack.append((child, None, child))
                else:
                    stack.append((child, function, klass))

    def named(self, name: str) -> list[_Site]:
        """The :attr:`sites` calling ``name`` (``name(...)``, ``x.name(...)``), in order;
        indexed once, so asking for each parameter of each function stays linear."""
        if self._named is None:
            self._named = {}
            for site in self.sites:
                called = last_name(site[0].func)
                if called:
                    self._named.setdefault(called, []).append(site)
        return self._named.get(name, [])

    def super_inits(self, base: str) -> list[_Site]:
        """The :attr:`sites` writing ``super().__init__(...)`` in a class that names
        ``base`` among its bases, indexed once (a module of thousands of subclasses asked
        about each ``__init__`` stays linear)."""
        if self._super_inits is None:
            self._super_inits = {}
            for site in self.named("__init__"):
                call, _function, klass = site
                func = call.func
                if (
                    klass is None
                    or not isinstance(func, ast.Attribute)
                    or not _super_call(func.value)
                ):
                    continue
                for name in {last_name(b) for b in klass.bases}:
                    if name:
                        self._super_inits.setdefault(name, []).append(site)
        return self._super_inits.get(base, [])

    def bases(self) -> frozenset[str]:
        """The names of the classes the module's classes derive from (``B`` for ``(B)``
        and ``(m.B)``), read once: asked for each field of each class."""
        if self._bases is None:
            self._bases = frozenset(
                last_name(base)
                for stmt in ast.walk(self.tree)
                if isinstance(stmt, ast.ClassDef)
                for base in stmt.bases
                if isinstance(base, (ast.Name, ast.Attribute))
            )
        return self._bases

    def may_be_none(
        self,
        value: ast.expr,
        function: ast.FunctionDef | ast.AsyncFunctionDef | None,
        klass: ast.ClassDef | None,
    ) -> bool:
        """Whether an argument is ``None``, a name the calling function (or, when the
        function does not bind it, the module) assigns None on some path or takes as a
        parameter defaulting to None, or ``self.<attr>`` the calling class assigns None."""
        if isinstance(value, ast.Constant):
            return value.value is None
        if isinstance(value, ast.Name):
            if function is not None:
                held, bound = self._scope(function)
                if value.id in bound:
                    return value.id in held
            return value.id in self._scope(self.tree)[0]
        if isinstance(value, ast.Attribute) and klass is not None:
            return _is_self_attr(value.attr)(value) and value.attr in self._scope(klass)[0]
        return False

    def _scope(self, scope: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
        """(names holding None, names bound) of a function, a class (its ``self.``
        attributes and class attributes) or the module, read once."""
        cached = self._none.get(id(scope))
        if cached is None:
            cached = self._none[id(scope)] = _none_held(scope)
        return cached


def _none_held(scope: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
    """:meth:`_Calls._scope`, uncached: a function's or module's own statements (nested
    scopes not entered), a class's body and its methods' ``self.<attr> = ...``."""
    held: set[str] = set()
    bound: set[str] = set()
    if isinstance(scope, FUNCTIONS):
        bound.update(a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg))
        held.update(arg.arg for arg, default in _defaults(scope) if _is_none(default))
    body: list[ast.stmt] = getattr(scope, "body", [])
    in_class = isinstance(scope, ast.ClassDef)
    for stmt in kwreads.statements(body, scopes=in_class):
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        for target in targets:
            if in_class and isinstance(target, ast.Attribute):
                name = target.attr if _is_self_attr(target.attr)(target) else ""
            else:
                name = target.id if isinstance(target, ast.Name) else ""
            if name:
                bound.add(name)
                if gives_none(value):
                    held.add(name)
    if isinstance(scope, FUNCTIONS):
        # a name bound any other way (a loop, ``with``, a tuple) is still the function's
        bound.update(
            sub.id
            for sub in kwreads.body_nodes(scope)
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store)
        )
    return frozenset(held), frozenset(bound)


def _dispatch(stmt: ast.If, paths: _Paths) -> bool:
    """Whether the rest of an ``if``/``elif`` chain ends without an ``else`` and every
    branch of it uses the parameter on all its paths (its implicit ``else`` is then no
    path that runs with None: the cases are meant to be exhaustive)."""
    while True:
        if paths.touches(stmt.test):
            return True
        if paths.run(stmt.body):
            return False
        if not stmt.orelse:
            return True
        if len(stmt.orelse) != 1 or not isinstance(stmt.orelse[0], ast.If):
            return False
        stmt = stmt.orelse[0]


# How a path through statements ends without having touched the parameter.
_NORMAL, _BREAK, _CONTINUE, _RETURN = "normal", "break", "continue", "return"


class _Paths:
    """The ways a block can end on a path that never reads or rebinds one name (an
    exception ends a path: a ``raise``, or an ``except`` handler, which is left out)."""

    def __init__(self, name: str, named: dict[int, frozenset[str]] | None = None) -> None:
        """``name``: the parameter; ``named``: the names each node holds, shared by the
        parameters of a file (each parameter asks of the same statements)."""
        self.name = name
        self.named = {} if named is None else named

    def touches(self, node: ast.AST) -> bool:
        """Whether ``node`` (not descending into nested functions) names the parameter."""
        names = self.named.get(id(node))
        if names is None:
            found: set[str] = set()
            stack: list[ast.AST] = [node]
            while stack:
                sub = stack.pop()
                if isinstance(sub, ast.Name):
                    found.add(sub.id)
                if sub is not node and isinstance(
                    sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
                ):
                    continue
                stack.extend(ast.iter_child_nodes(sub))
            names = self.named[id(node)] = frozenset(found)
        return self.name in names

    def run(self, body: list[ast.stmt]) -> frozenset[str]:
        """How ``body`` can end without touching the parameter (empty: never)."""
        ends: set[str] = set()
        going = True  # a path reaches the next statement untouched
        for stmt in body:
            if not going:
                break
            out = self.statement(stmt)
            ends |= out - {_NORMAL}
            going = _NORMAL in out
        if going:
            ends.add(_NORMAL)
        return frozenset(ends)

    def statement(self, stmt: ast.stmt) -> frozenset[str]:
        """How one statement can end without touching the parameter."""
        if isinstance(stmt, ast.If):
            if self.touches(stmt.test):
                return frozenset()
            body = self.run(stmt.body)
            rest = stmt.orelse
            if not body and len(rest) == 1 and isinstance(rest[0], ast.If):
                # ``if kind == "a": ... x ... elif kind == "b": ... x ...`` with no
                # ``else``: a dispatch whose every case uses it, not a guard.
                if _dispatch(rest[0], self):
                    return frozenset()
            return body | self.run(rest)
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            head = stmt.iter if not isinstance(stmt, ast.While) else stmt.test
            if self.touches(head) or (
                not isinstance(stmt, ast.While) and self.touches(stmt.target)
            ):
                return frozenset()
            # The body runs at least once (a loop that may not run is still read as one
            # that does: no path is invented).
            inner = self.run(stmt.body)
            forever = (
                isinstance(stmt, ast.While)
                and isinstance(stmt.test, ast.Constant)
                and bool(stmt.test.value)
            )
            out = {_RETURN} & inner
            if _BREAK in inner or (not forever and inner & {_NORMAL, _CONTINUE}):
                out.add(_NORMAL)
            return frozenset(out)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            if any(self.touches(item) for item in stmt.items):
                return frozenset()
            return self.run(stmt.body)
        if isinstance(stmt, TRY_NODES):
            final: list[ast.stmt] = getattr(stmt, "finalbody", [])
            if final and _NORMAL not in self.run(final):
                return frozenset()
            inner = self.run(getattr(stmt, "body", []))
            orelse: list[ast.stmt] = getattr(stmt, "orelse", [])
            if orelse and _NORMAL in inner:
                inner = (inner - {_NORMAL}) | self.run(orelse)
            return inner
        if isinstance(stmt, ast.Match):
            if self.touches(stmt.subject):
                return frozenset()
            cases: set[str] = set()
            for case in stmt.cases:
                cases |= self.run(case.body)
            return frozenset(cases)
        if self.touches(stmt):
            return frozenset()
        if isinstance(stmt, ast.Return):
            return frozenset({_RETURN})
        if isinstance(stmt, ast.Raise):
            return frozenset()
        if isinstance(stmt, ast.Break):
            return frozenset({_BREAK})
        if isinstance(stmt, ast.Continue):
            return frozenset({_CONTINUE})
        return frozenset({_NORMAL})


def _defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[ast.arg, ast.expr]]:
    """Each parameter with its default value."""
    for arg, default in parameter_defaults(node.args):
        if default is not None:
            yield arg, default


def _decorated(node: ast.FunctionDef | ast.AsyncFunctionDef, names: tuple[str, ...]) -> bool:
    """Whether a decorator's last name is one of ``names``."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        last = last_name(target)
        if last in names:
            return True
    return False


def is_stub(body: list[ast.stmt]) -> bool:
    """``...`` / ``pass`` / docstring / ``raise`` (``NotImplementedError``) bodies: no
    return to judge (any-annotation's return checks skip them)."""
    return all(
        isinstance(stmt, (ast.Pass, ast.Raise))
        or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        for stmt in body
    )


def _builtin_of(src: SourceInfo, annotation: ast.expr) -> str | None:
    """``dict`` for ``dict[str, int]`` / ``Dict[...]`` / ``"dict"``: a plain builtin."""
    node = unquoted(annotation)
    if node is None:
        return None
    base = node.value if isinstance(node, ast.Subscript) else node
    if not isinstance(base, ast.Name | ast.Attribute):
        return None
    name = src.qualname(base)
    if name is None:
        return None
    name = _TYPING_BUILTIN.get(name, name)
    types = _types(src)
    if name in _ACCEPTS and name not in types.rebound and name not in src.aliases:
        return name
    return None


def function_findings(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, builtin_none_checked: bool
) -> Iterator[Finding]:
    """Implicit-Optional parameters, ``return None`` under a non-None class or generic
    (``builtin_none_checked``: the caller already judged the builtins), and returned
    literals of another kind than a builtin return annotation."""
    arguments = node.args
    # The parameter lines already reported: a caller's contradiction adds no second ✗.
    reported: set[int] = set()
    for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
        shown = display_annotation(src, arg.annotation, f"parameter `{arg.arg}`")
        if shown is None:
            shown = function_as_type(src, arg.annotation, f"parameter `{arg.arg}`")
        if shown is not None:
            reported.add(shown.line)
            yield shown
    for star in (arguments.vararg, arguments.kwarg):
        if star is not None:
            shown = function_as_type(src, star.annotation, f"parameter `{star.arg}`")
            if shown is not None:
                yield shown
    shown = display_annotation(src, node.returns, f"`{node.name}`'s return")
    if shown is not None and _display_shape_kept(src, node):
        shown = dataclasses.replace(
            shown,
            severity=WARN,
            message=shown.message + " (every return gives the tuple it states)",
        )
    if shown is None:
        shown = function_as_type(src, node.returns, f"`{node.name}`'s return")
    if shown is not None:
        yield shown
        return
    outside = self_outside_class(src, node)
    if outside is not None:
        yield outside
    for arg, default in _defaults(node):
        if arg.annotation is None:
            typo = _type_as_default(src, arg.arg, default)
            if typo is not None:
                yield typo
            continue
        if not (src.node_added(arg.annotation) or src.node_added(default)):
            continue
        if not _is_none(default):
            flag = _literal_default(src, arg.arg, arg.annotation, default)
            if flag is None:
                flag = _injected_optional(src, node, arg.arg, arg.annotation, default)
            if flag is not None:
                reported.add(flag.line)
                yield flag
            continue
        if not relies_on_none(src, node, arg.arg):
            continue  # a dead default: ``T | None`` would be the wrong advice
        if _forwarded_to_attribute(src, node, arg.arg):
            continue  # the receiver's own signature says what it takes
        if _stored_in_dict_only(src, node, arg.arg):
            continue  # only stored: whoever reads the dict decides what None means
        if not none_reaches(src, node, arg.arg):
            continue  # None is possible but never comes: an inexact default, no lie
        # A class imported by name from an absent module is read as its dotted
        # spelling is (``ProcessGroup`` as ``dist.ProcessGroup``): a class.
        absent = _types(src).uninstalled_class(arg.annotation)
        found = _implicit_optional(src, arg.arg, arg.annotation, default, certain=absent)
        if found is not None:
            reported.add(found.line)
            yield found
    for contradicted in caller_contradictions(src, node):
        if contradicted.line not in reported:
            yield contradicted
    for contradicted in (
        *parametrized_contradictions(src, node),
        *injected_fixture_values(src, node),
    ):
        if contradicted.line not in reported:
            yield contradicted
    yield from _string_compared(src, node)
    yield from _isinstance_handled(src, node)
    for used in _missing_attribute(src, node):
        if used.line not in reported:
            yield used
    for held in _single_tuple_as_sequence(src, node):
        if held.line not in reported:
            yield held
    yield from _none_put_returned(src, node)
    if node.returns is None or is_stub(node.body):
        return
    if _decorated(node, ("abstractmethod", "overload", "abstractproperty")):
        return
    declared = short(src, node.returns).strip("\"'")
    annotation_added = src.node_added(node.returns)
    builtin = _builtin_of(src, node.returns)
    yield from _generator_as_builtin(src, node, declared, builtin, annotation_added)
    returns = [
        ret
        for ret in kwreads.statements(node.body, scopes=False)
        if isinstance(ret, ast.Return)
        and (annotation_added or src.node_added(ret))
        and not _silenced(src, ret.lineno)
    ]
    if not returns:
        return
    # builtin names the file binds (module level, or anywhere in this function)
    shadowed = _types(src).rebound | _module_index(src).bound_names(node) | set(src.aliases)
    # ``return metrics`` after ``metrics = []``: the local's one kind is the returned kind
    locals_ = _local_kinds(node, shadowed, src) if builtin is not None else {}
    if builtin == "tuple":
        # ``return discrete_dims, fn`` under ``-> tuple[list[int], ...]``: a parameter's
        # own builtin annotation is what it holds (an item's kind, below)
        locals_ = {**_parameter_kinds(src, node), **locals_}

    def returned_kind(value: ast.expr) -> str | None:
        """The builtin kind ``value`` certainly gives: a literal, a builtin call, or a local
        every binding of which gives one kind (judged against a builtin annotation)."""
        kind = _value_kind(value, shadowed, src)
        if kind is None and isinstance(value, ast.Name):
            kind = locals_.get(value.id)
        return kind

    # The None verdict may read an imported module: only when a return gives None.
    optional = {
        id(ret): text
        for ret in returns
        if ret.value is not None and (text := optional_value(src, node, ret.value)) is not None
    }
    none_wrong = (
        not builtin_none_checked
        and (optional or any(ret.value is None or gives_none(ret.value) for ret in returns))
        and _types(src).admits_none(node.returns) is False
    )
    # A union (``-> torch.Tensor | IntermediateTensors``) is judged only against literals.
    literals = builtin is None and any(
        ret.value is not None and returned_kind(ret.value) is not None for ret in returns
    )
    if not none_wrong and builtin is None and not literals:
        if annotation_added or signature_added(src, node):
            scalars = [
                (ret, f"returns `{short(src, ret.value, 40)}`, a Python number", fix)
                for ret in returns
                if ret.value is not None
                and (fix := _scalar_for_array(src, node.returns, ret.value)) is not None
            ]
            yield from wrong_returns(
                src,
                node,
                declared,
                scalars or _other_classes_built(src, node, returns),
                annotation_added,
            )
        return
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in kwreads.body_nodes(node)):
        return  # a generator: its annotation is about what it yields
    # ``-> tuple[str]``: exactly one item (``tuple[str, ...]`` is any number)
    single = _single_item_tuple(src, node.returns) if builtin == "tuple" else None
    lengths = _tuple_lengths(node) if single is not None else {}
    # ``-> tuple[A, B, C]``: exactly that many items
    arity = _tuple_arity(node.returns) if builtin == "tuple" else None
    wrong: list[tuple[ast.Return, str, str]] = []
    # items of another kind written into an old return: reported at that return (the
    # change's evidence), even when the change edits the signature too
    edited_items: list[tuple[ast.Return, str, str]] = []
    for ret in returns:
        if not annotation_added:
            given = (
                "None"
                if ret.value is None or gives_none(ret.value)
                else returned_kind(ret.value) or "other"
            )
            if rewritten_return(src, ret, given):
                # an old return the change edited: no new evidence, but for an item of
                # another kind the change wrote into it
                # only a display of the declared arity pairs its items (another length is
                # the arity reading's, and this return is as old as before)
                paired = (
                    arity is not None
                    and ret.value is not None
                    and _display_items(ret.value) == arity
                )
                edited = (
                    _kind_item(src, node.returns, ret.value, returned_kind)
                    if paired and ret.value is not None
                    else None
                )
                if edited is not None and new_item(src, ret, edited[0]):
                    edited_items.append(_item_of_kind(src, ret, edited))
                slot = (
                    _none_item(src, node.returns, ret.value)
                    if paired and ret.value is not None and edited is None
                    else None
                )
                if slot is not None and ret.value is not None and new_item(src, ret, slot[0]):
                    edited_items.append(
                        (
                            ret,
                            f"returns None as item {slot[0]} (`{short(src, ret.value, 40)}`)",
                            f"annotate item {slot[0]} `{slot[1]} | None`",
                        )
                    )
                continue
        if none_wrong and (ret.value is None or gives_none(ret.value)):
            how = "may return None" if isinstance(ret.value, ast.IfExp) else "returns None"
            wrong.append((ret, how, f"annotate `-> {declared} | None`"))
            continue
        if none_wrong and id(ret) in optional and ret.value is not None:
            how = optional_how(src, ret.value, optional[id(ret)])
            wrong.append((ret, how, f"annotate `-> {declared} | None` or handle the None"))
            continue
        if ret.value is None:
            continue
        items = _returned_items(ret.value, lengths) if single is not None else None
        if items is not None:
            wrong.append(
                (
                    ret,
                    f"returns {items} (`{short(src, ret.value, 40)}`)",
                    f"annotate `-> tuple[{single}, ...]`",
                )
            )
            continue
        count = _display_items(ret.value) if arity is not None else None
        if count is not None and count != arity:
            wrong.append(
                (
                    ret,
                    f"returns {count} items (`{short(src, ret.value, 40)}`)",
                    f"return {arity} items or fix the annotation",
                )
            )
            continue
        scalar = _scalar_item(src, node.returns, ret.value) if count is not None else None
        if scalar is not None and (annotation_added or signature_added(src, node)):
            place, item = scalar
            wrong.append(
                (
                    ret,
                    f"returns a Python number as item {place} (`{short(src, ret.value, 40)}`)",
                    f"annotate item {place} `float` (not `{item}`) or return the array",
                )
            )
            continue
        slot = _none_item(src, node.returns, ret.value) if count is not None else None
        if slot is not None:
            place, item = slot
            wrong.append(
                (
                    ret,
                    f"returns None as item {place} (`{short(src, ret.value, 40)}`)",
                    f"annotate item {place} `{item} | None`",
                )
            )
            continue
        mismatched = _kind_item(src, node.returns, ret.value, returned_kind) if count else None
        if mismatched is not None:
            wrong.append(_item_of_kind(src, ret, mismatched))
            continue
        kind = returned_kind(ret.value)
        generator = (
            _called_generator(src, node, ret.value)
            if kind is None
            and builtin is not None
            and (annotation_added or signature_added(src, node))
            else None
        )
        if generator is not None and builtin is not None:
            wrong.append(
                (
                    ret,
                    f"returns `{short(src, ret.value, 40)}`, a generator (`{generator}` yields)",
                    f"annotate `-> Iterator[...]` or return {_article(builtin)} {builtin}",
                )
            )
            continue
        if kind is None and builtin is not None:
            rejected = (
                _rejected_call_kind(src, node, ret.value, builtin)
                if annotation_added or signature_added(src, node)
                else None
            )
            if rejected is not None:
                other, text = rejected
                wrong.append(
                    (
                        ret,
                        f"returns `{short(src, ret.value, 40)}`, annotated `-> {text}` "
                        f"({_article(other)} {other} is not {_article(builtin)} {builtin})",
                        f"return {_article(builtin)} {builtin} or fix the annotation",
                    )
                )
            continue
        if kind is None:
            continue
        if builtin is not None:
            if kind in _ACCEPTS[builtin]:
                continue
            fix = f"return a {builtin} or fix the annotation"
        elif (
            (annotation_added or signature_added(src, node))
            and not (isinstance(node.returns, ast.Constant) and node.returns.value is None)
            and not (node.name.startswith("__") and node.name.endswith("__"))
            and _types(src).holds_literal(node.returns, kind) is False
        ):
            # A new annotation or signature only (an old ``-> torch.Tensor`` whose tuple
            # return the change reshapes in the body alone is not the change's; a change
            # that rewrites the signature and keeps the annotation over a new return kind
            # states it anew), and no dunder: ``__call__`` /
            # ``__getitem__`` follow their base's or protocol's signature (diffusers'
            # blocks are all ``__call__(...) -> PipelineState`` returning a tuple).
            fix = f"add `{kind}` to the annotation or return one of its types"
        else:
            continue
        wrong.append((ret, f"returns a {kind} (`{short(src, ret.value, 40)}`)", fix))
    yield from wrong_returns(src, node, declared, wrong, annotation_added)
    for ret, how, fix in edited_items:
        yield _at_return(src, node, declared, ret, how, fix)


# Decorators that leave a generator function a generator function when called.
_PLAIN_METHOD_DECORATORS = ("staticmethod", "classmethod")


def _plain_generator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.expr | None:
    """The first ``yield`` of ``node`` when calling it gives a generator: its body yields
    and no decorator but ``staticmethod``/``classmethod`` wraps it (``@contextmanager``,
    a pytest fixture: the caller gets what the decorator makes of it)."""
    if any(
        last_name(d.func if isinstance(d, ast.Call) else d) not in _PLAIN_METHOD_DECORATORS
        for d in node.decorator_list
    ):
        return None
    return next(
        (n for n in kwreads.body_nodes(node) if isinstance(n, (ast.Yield, ast.YieldFrom))),
        None,
    )


def _first_yield(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.expr | None:
    """:func:`_plain_generator`, read once per function (thousands of returns may call
    one function of a pull request's making, whose body is walked for a ``yield``)."""
    return src.per_node("first-yield", node, lambda: _plain_generator(node))


def _generator_as_builtin(
    src: SourceInfo,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    declared: str,
    builtin: str | None,
    annotation_added: bool,
) -> Iterator[Finding]:
    """A generator function annotated with a builtin (``-> list`` over ``yield from
    values``, SWE-bench's ``get_all_loop``): calling it gives a generator, never that
    builtin (a type checker rejects the annotation). When the change writes the
    annotation or the signature, or makes the function a generator."""
    if builtin is None:
        return
    first = _first_yield(src, node)
    if first is None:
        return
    if not (annotation_added or signature_added(src, node) or _made_a_generator(src, node)):
        return
    site = return_site(src, node)
    if _silenced(src, getattr(site, "lineno", node.lineno)):
        return
    iterator = "AsyncIterator" if isinstance(node, ast.AsyncFunctionDef) else "Iterator"
    yield finding(
        src,
        site,
        RULE,
        BLOCK,
        f"`{node.name}` is annotated `-> {declared}` but is a generator (it yields on line "
        f"{first.lineno}): calling it gives a generator, not {_article(builtin)} {builtin}; "
        f"annotate `-> {iterator}[...]`",
    )


def _made_a_generator(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the change adds a ``yield`` to a function its base version (the same name
    in the same classes) did not make a generator: one re-indented under a new block
    (lightllm's ``generate -> Tuple[...]``, an async generator before) is the base's."""
    if not any(
        isinstance(n, (ast.Yield, ast.YieldFrom)) and src.node_added(n)
        for n in kwreads.body_nodes(node)
    ):
        return False
    old = src.base_function(node)
    return old is None or _first_yield(src, old) is None


def _called_generator(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.expr
) -> str | None:
    """The name of the generator function ``value`` calls, when the callee is certain (a
    module-level ``def`` of the file, the name's only binding, or ``self.method(...)`` of
    the class defining ``node``, defined there once) and calling it gives a generator; a
    local bound once to such a call (``issues = self.get_all_loop(...)``) too."""
    call = _only_binding(node, value.id) if isinstance(value, ast.Name) else value
    if not isinstance(call, ast.Call):
        return None
    callee = _file_callee(src, node, call)
    if callee is None or _first_yield(src, callee) is None:
        return None
    return callee.name


def _only_binding(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    """The value of ``name = value``, when that is the function's only binding of
    ``name`` (no parameter, loop target, other assignment or ``global``)."""
    params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    if name in params:
        return None
    value: ast.expr | None = None
    stores = 0
    for sub in kwreads.body_nodes(node):
        if isinstance(sub, (ast.Global, ast.Nonlocal)) and name in sub.names:
            return None
        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Store):
            stores += 1
        elif isinstance(sub, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in sub.targets
        ):
            value = sub.value if len(sub.targets) == 1 else None
    return value if stores == 1 else None


def _other_classes_built(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, returns: list[ast.Return]
) -> list[tuple[ast.Return, str, str]]:
    """The returns of ``node`` that build a repository class (``return CacheFileLazy(...)``)
    deriving from no class its return annotation names (``-> FileCacheLazy``), each
    member of which is a repository class too (:mod:`_ancestry`: a class from outside
    could be a base of anything, a ``Protocol`` is structural). A dunder follows its
    base's or protocol's signature: none."""
    if node.returns is None or (node.name.startswith("__") and node.name.endswith("__")):
        return []
    built = [
        (ret, ret.value.func.id)
        for ret in returns
        if isinstance(ret.value, ast.Call) and isinstance(ret.value.func, ast.Name)
    ]
    annotation = unquoted(node.returns)
    if not built or annotation is None:
        return []
    members = union_items(src, annotation) or [annotation]
    declared = [m for m in members if not _is_none(m)]
    if not declared or not all(isinstance(m, ast.Name) for m in declared):
        return []
    names = {m.id for m in declared if isinstance(m, ast.Name)}
    bound = _module_index(src).bound_names(node)
    # ``-> C`` returning ``C(...)``, or a call of a function (a lower-case name): nothing
    # to read; the hierarchy is read only for another class's construction
    built = [
        (ret, called)
        for ret, called in built
        if called not in bound | names and called[:1].isupper()
    ]
    if not built:
        return []
    module = module_name(src.path)
    family = _family(src)
    classes: list[ancestry.ClassId] = []
    for member in declared:
        assert isinstance(member, ast.Name)
        found = family.resolve(module, member.id)
        if not isinstance(found, ancestry.ClassId) or family.structural(found):
            return []
        classes.append(found)
    shown = " or ".join(f"`{m.id}`" for m in declared if isinstance(m, ast.Name))
    wrong: list[tuple[ast.Return, str, str]] = []
    for ret, called in built:
        made = family.resolve(module, called)
        if not isinstance(made, ancestry.ClassId):
            continue
        lineage = family.ancestors(made)
        if lineage is None or any(c in lineage for c in classes):
            continue
        assert ret.value is not None
        wrong.append(
            (
                ret,
                f"returns `{short(src, ret.value, 40)}`",
                f"`{called}` is not a {shown}: annotate the class it returns (or a shared base)",
            )
        )
    return wrong


def _family(src: SourceInfo) -> ancestry.Ancestry:
    """The class hierarchy reader of the file's repository, with the file's own text
    (the change's) read for its module; built once per file."""
    cached = src.cache.get("ancestry")
    if not isinstance(cached, ancestry.Ancestry):
        cached = ancestry.Ancestry(fakes.finder_for(src.root))
        cached.add_module(module_name(src.path), src.path, src.tree)
        src.cache["ancestry"] = cached
    return cached


def constructs_class(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.expr | None
) -> bool:
    """Whether ``value`` builds an instance of a class: a call of a name that is certainly
    a class (of the file, or one an imported module defines) and that ``node`` does not
    rebind. Never None, unlike a call of anything else (``return logger.warning(...)``
    ends a ``-> None`` function early)."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return False
    name = value.func.id
    if name in _module_index(src).bound_names(node):
        return False
    return _types(src).class_lineage(name) is not None


def _name_uses(stmt: ast.stmt, name: str) -> tuple[bool, bool]:
    """(binds, reads): whether ``stmt`` stores or loads the local ``name``, nested
    functions and classes left out (their names are their own)."""
    binds = reads = False
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and node.id == name:
            if isinstance(node.ctx, ast.Load):
                reads = True
            else:
                binds = True
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            binds = True
        if node is not stmt and isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return binds, reads


def left_none(node: ast.FunctionDef | ast.AsyncFunctionDef, ret: ast.Return) -> int | None:
    """The line of the first ``if`` when ``ret`` (the function's last statement) returns
    a local the body set to None and then rebinds only in ``if`` statements without an
    ``else`` (``outputs = None``, ``if self.is_engine: outputs = ...``, ``return
    outputs``): when no condition holds, None is returned. None when anything else binds
    or reads the name after the ``= None`` (a test narrows it, a loop may bind it)."""
    value = ret.value
    if not (isinstance(value, ast.Name) and node.body and node.body[-1] is ret):
        return None
    name = value.id
    first: int | None = None
    initialised = False
    for stmt in node.body[:-1]:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id == name
            and _is_none(stmt.value)
        ):
            initialised, first = True, None  # set (again) to None: what follows decides
            continue
        binds, reads = _name_uses(stmt, name)
        if not (binds or reads):
            continue
        if not initialised or reads or not isinstance(stmt, ast.If) or stmt.orelse:
            return None
        first = first or stmt.lineno
    return first


def binds_value(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``name`` is a parameter of ``node`` without a None default (``self`` and
    ``cls`` aside: the caller judges a receiver), or a local it binds to something other
    than ``None`` at least once (an assignment, a loop, ``with``): returned, a value. A
    call (awaited or not) of a function annotated ``-> None`` gives None: forge's
    ``result = await self._push_weights_DEPRECATED(...)`` holds nothing."""
    if name in ("self", "cls"):
        return False
    arguments = node.args
    if name in {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}:
        return not any(arg.arg == name and _is_none(default) for arg, default in _defaults(node))

    def value(given: ast.expr | None) -> bool:
        """Whether an assigned expression may be other than None."""
        if given is None or _is_none(given):
            return False
        called = given.value if isinstance(given, ast.Await) else given
        if isinstance(called, ast.Call):
            text = _called_function(src, node, called)[0]
            return text != "None"
        return True

    for sub in kwreads.statements(node.body, scopes=False):
        if isinstance(sub, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == name for t in sub.targets):
                if value(sub.value):
                    return True
        elif isinstance(sub, ast.AnnAssign):
            if isinstance(sub.target, ast.Name) and sub.target.id == name:
                if value(sub.value):
                    return True
        elif isinstance(sub, (ast.For, ast.AsyncFor)):
            if isinstance(sub.target, ast.Name) and sub.target.id == name:
                return True
        elif isinstance(sub, (ast.With, ast.AsyncWith)):
            if any(
                isinstance(item.optional_vars, ast.Name) and item.optional_vars.id == name
                for item in sub.items
            ):
                return True
    return False


def _single_item_tuple(src: SourceInfo, annotation: ast.expr) -> str | None:
    """``str`` for ``-> tuple[str]`` / ``Tuple[str]``: a tuple of exactly one item, which
    a type checker holds every return to (``tuple[str, ...]`` is the one of any length);
    None for any other annotation."""
    node = unquoted(annotation)
    if not isinstance(node, ast.Subscript) or isinstance(node.slice, ast.Tuple):
        return None
    if isinstance(node.slice, ast.Constant) and node.slice.value is ...:
        return None
    return short(src, node.slice)


def _sequence_use(node: ast.Name, name: str, parent: ast.AST | None) -> str | None:
    """How ``node``, a read of the name ``name`` whose parent node is ``parent``, treats it
    as a tuple of any length (``for x in name``, ``len(name)``, ``name[1]``, ``name[i]``,
    ``name[1:]``, ``*name``, ``x in name``), or None: ``name[0]`` and a plain pass-on say
    nothing."""
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
        return f"`for ... in {name}`"
    if (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id == "len"
        and parent.args == [node]
    ):
        return f"`len({name})`"
    if isinstance(parent, ast.Starred):
        return f"`*{name}`"
    if isinstance(parent, ast.Compare) and node in parent.comparators:
        place = parent.comparators.index(node)
        if isinstance(parent.ops[place], (ast.In, ast.NotIn)):
            return f"`... in {name}`"
    if isinstance(parent, ast.Subscript) and parent.value is node:
        index = parent.slice
        if isinstance(index, ast.Slice):
            return f"`{name}[...:...]`"
        if isinstance(index, ast.Constant) and isinstance(index.value, int):
            return None if index.value == 0 else f"`{name}[{index.value}]`"
        if isinstance(index, ast.UnaryOp) and isinstance(index.operand, ast.Constant):
            return f"`{name}[{unparse(index)}]`"
        if isinstance(index, ast.Name):
            return f"`{name}[{index.id}]`"
    return None


def _none_put_returned(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Finding]:
    """A local list or set the function returns under ``-> list[X]`` (``set[X]``) after
    putting a literal ``None`` in it (``rewards.append(None)`` for a reward it could not
    compute: open-r1's ``code_reward -> list[float]``), or a local dict under ``-> dict[K,
    V]`` given ``d[k] = None``, where the item type certainly holds no None: a container
    annotation whose values are another type. Reported at the ``->`` line when the change
    writes the annotation, else at the ``None`` put the change adds; one a function. A
    local the function annotates itself is :func:`none_items`' (at its own annotation)."""
    returns = node.returns
    annotation = unquoted(returns) if returns is not None else None
    if returns is None or not isinstance(annotation, ast.Subscript):
        return
    if _silenced(src, returns.lineno):
        return
    slot = _container_item(src, annotation)
    if slot is None:
        return
    index, item = slot
    puts = _none_puts(src, node)
    put_in = puts.keyed if index == 1 else puts.listed
    if not put_in:
        return
    params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    annotated = {
        stmt.target.id
        for stmt in kwreads.statements(node.body, scopes=False)
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
    }
    bound = _module_index(src).bound_names(node)
    for ret in kwreads.statements(node.body, scopes=False):
        if not (isinstance(ret, ast.Return) and isinstance(ret.value, ast.Name)):
            continue
        name = ret.value.id
        put = put_in.get(name)
        if put is None or name in params or name in annotated or name not in bound:
            continue
        site: ast.AST | None = (
            returns
            if src.node_added(returns)
            else put
            if src.node_added(put) and not _silenced(src, put.lineno)
            else None
        )
        if site is None or _types(src).admits_none(item) is not False:
            continue
        declared = short(src, annotation)
        advice = _none_item_advice(src, item, put)
        message = f"`{node.name}` is annotated `-> {declared}` (line {returns.lineno}) but "
        yield finding(src, site, RULE, BLOCK, message + f"the `{name}` it returns {advice}")
        return


def _single_tuple_as_sequence(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Finding]:
    """A parameter annotated ``tuple[X]`` (exactly one item; also inside ``Optional``),
    new in the change, that the function's own body treats as a tuple of any length: it
    loops over it, takes its ``len``, indexes past its one item, slices, unpacks or
    searches it. The author meant ``tuple[X, ...]``; a type checker rejects every caller
    passing two items."""
    params = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    checked: dict[str, ast.expr] = {}
    items: dict[str, str] = {}
    for arg in params:
        annotation = arg.annotation
        if annotation is None or not src.node_added(annotation):
            continue
        if _silenced(src, annotation.lineno):
            continue
        members = union_items(src, unquoted(annotation) or annotation) or [annotation]
        for member in members:
            item = _single_item_tuple(src, member) if _builtin_of(src, member) == "tuple" else None
            if item is not None:
                checked[arg.arg] = annotation
                items[arg.arg] = item
    if not checked:
        return
    reads = _module_index(src).reads(node)
    # a name the body rebinds: the annotation no longer speaks for it
    rebound = {
        sub.id
        for sub in kwreads.body_nodes(node)
        if isinstance(sub, ast.Name) and sub.id in checked and not isinstance(sub.ctx, ast.Load)
    }
    for name, annotation in checked.items():
        if name in rebound:
            continue
        use = next(
            (
                u
                for read, parent in reads.get(name, ())
                if (u := _sequence_use(read, name, parent)) is not None
            ),
            None,
        )
        if use is None:
            continue
        text = short(src, annotation).strip("\"'")
        yield finding(
            src,
            annotation,
            RULE,
            BLOCK,
            f"`{name}: {text}` (line {annotation.lineno}) is a tuple of exactly one item, "
            f"but `{node.name}` uses it as a tuple of any length ({use}): write "
            f"`tuple[{items[name]}, ...]`",
        )


def _tuple_arity(annotation: ast.expr) -> int | None:
    """3 for ``-> tuple[A, B, C]`` / ``Tuple[A, B, C]``: a tuple of exactly that many
    items (two or more; ``tuple[A, ...]`` is any number); None for any other annotation."""
    node = unquoted(annotation)
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple):
        return None
    items = node.slice.elts
    if any(isinstance(e, ast.Constant) and e.value is ... for e in items):
        return None
    return len(items) if len(items) >= 2 else None


def _paired_items(
    annotation: ast.expr, value: ast.expr
) -> Iterator[tuple[int, ast.expr, ast.expr]]:
    """(1-based place, item annotation, returned item) of a returned tuple display under
    ``-> tuple[A, B]``; nothing for another annotation or value. Only a display of the
    declared arity is read (the callers check it)."""
    node = unquoted(annotation)
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Tuple)
        and isinstance(value, ast.Tuple)
    ):
        for place, (item, given) in enumerate(
            zip(node.slice.elts, value.elts, strict=True), start=1
        ):
            yield place, item, given


def _none_item(src: SourceInfo, annotation: ast.expr, value: ast.expr) -> tuple[int, str] | None:
    """(1-based place, item annotation) of the first ``None`` a returned tuple display
    puts where ``-> tuple[A, B]`` declares an item that cannot hold None (``return z,
    None`` under ``-> Tuple[torch.Tensor, dict]``); None when every item fits or is
    unsure."""
    types = _types(src)
    for place, item, given in _paired_items(annotation, value):
        if not (isinstance(given, ast.Constant) and given.value is None):
            continue
        admits = types.admits_none(item)
        # a class imported from a package not installed here (gpytorch's ``Kernel``) is
        # read as a class, as a parameter's is
        if admits is False or (admits is None and types.uninstalled_class(item)):
            return place, short(src, item)
    return None


def _kind_item(
    src: SourceInfo,
    annotation: ast.expr,
    value: ast.expr,
    kind_of: Callable[[ast.expr], str | None],
) -> tuple[int, str, str] | None:
    """(1-based place, item annotation, the kind given) of the first item of a returned
    tuple display whose builtin annotation (``list[int]`` in ``-> tuple[list[int],
    ...]``) cannot hold the kind ``kind_of`` certainly gives for it (a dict display, a
    local only ever bound to one, a parameter annotated ``dict``); None when none."""
    for place, item, given in _paired_items(annotation, value):
        builtin = _builtin_of(src, item)
        if builtin is None:
            continue
        kind = kind_of(given)
        if kind is not None and kind != "None" and kind not in _ACCEPTS[builtin]:
            return place, short(src, item), kind
    return None


def _item_of_kind(
    src: SourceInfo, ret: ast.Return, mismatched: tuple[int, str, str]
) -> tuple[ast.Return, str, str]:
    """The wrong return (statement, what it returns, the fix) for :func:`_kind_item`."""
    place, item, kind = mismatched
    assert ret.value is not None
    return (
        ret,
        f"returns {_article(kind)} {kind} as item {place} (`{short(src, ret.value, 40)}`)",
        f"annotate item {place} `{kind}` (not `{item}`) or return the annotated kind",
    )


# Array and tensor classes whose ``.item()`` / ``.tolist()`` give Python numbers or lists.
_ARRAYS = frozenset({"numpy.ndarray", "torch.Tensor", "jax.Array", *_LEGACY_TENSORS})
_UNBOXES = frozenset({"item", "tolist"})


def _names_array(src: SourceInfo, annotation: ast.expr) -> bool:
    """Whether an annotation is an array or tensor class (``np.ndarray``,
    ``torch.Tensor``, ``torch.FloatTensor``) by the dotted name the imports give it."""
    node = unquoted(annotation)
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return False
    return src.qualname(node) in _ARRAYS


def _unboxed(value: ast.expr) -> bool:
    """``x.item()`` or ``x.tolist()``: a Python number or list out of an array."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _UNBOXES
        and not value.args
        and not value.keywords
    )


def _scalar_for_array(src: SourceInfo, annotation: ast.expr, value: ast.expr) -> str | None:
    """The fix when ``-> np.ndarray`` / ``-> torch.Tensor`` returns ``x.item()`` (a Python
    number) or ``x.tolist()`` (a list); None otherwise."""
    if not (_unboxed(value) and _names_array(src, annotation)):
        return None
    assert isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
    meant = "float" if value.func.attr == "item" else "list[float]"
    return f"annotate `-> {meant}` or return the array"


def _scalar_item(src: SourceInfo, annotation: ast.expr, value: ast.expr) -> tuple[int, str] | None:
    """(1-based place, item annotation) of the first item of a returned tuple display that
    is ``x.item()`` / ``x.tolist()`` where ``-> tuple[A, B]`` declares an array or tensor
    (optuna's ``return fval.item(), grad.ravel()`` under ``-> tuple[np.ndarray,
    np.ndarray]``)."""
    for place, item, given in _paired_items(annotation, value):
        if _unboxed(given) and _names_array(src, item):
            return place, short(src, item)
    return None


def _display_items(value: ast.expr) -> int | None:
    """How many items a returned tuple display holds (``return out, weights``: 2); None
    for anything else or a display with a ``*`` item."""
    if isinstance(value, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in value.elts):
        return len(value.elts)
    return None


def _tuple_lengths(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, tuple[int, bool]]:
    """The local names of ``node`` bound once to a tuple display (``names = ("w", "s")``)
    and otherwise only extended with ``+=`` of displays: name -> (its fewest items,
    whether that count is exact: no ``+=``). A parameter or a name bound any other way
    is left out."""
    arguments = node.args
    dropped = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    found: dict[str, tuple[int, bool]] = {}
    for stmt in kwreads.statements(node.body, scopes=False):
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
            targets = [stmt.target]
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            # the names the statement itself binds (its body's statements come next)
            bound = (
                [stmt.target]
                if isinstance(stmt, (ast.For, ast.AsyncFor))
                else [i.optional_vars for i in stmt.items if i.optional_vars is not None]
            )
            targets = [
                t
                for b in bound
                for t in ast.walk(b)
                if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)
            ]
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            dropped.add(stmt.name)
            continue
        else:
            continue
        value = getattr(stmt, "value", None)
        display = isinstance(value, ast.Tuple) and not any(
            isinstance(e, ast.Starred) for e in value.elts
        )
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            name = target.id
            if isinstance(stmt, ast.Assign) and len(targets) == 1 and display and name not in found:
                assert isinstance(value, ast.Tuple)
                found[name] = (len(value.elts), True)
            elif (
                isinstance(stmt, ast.AugAssign)
                and isinstance(stmt.op, ast.Add)
                and display
                and name in found
            ):
                found[name] = (found[name][0], False)
            else:
                dropped.add(name)
    return {name: seen for name, seen in found.items() if name not in dropped}


def _returned_items(value: ast.expr, lengths: dict[str, tuple[int, bool]]) -> str | None:
    """How many items a returned tuple certainly holds when that cannot be one: a display
    (``return "a", "b"``) or a local of :func:`_tuple_lengths`; None when it may be one."""
    if isinstance(value, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in value.elts):
        count = len(value.elts)
        return None if count == 1 else f"{count} items"
    if isinstance(value, ast.Name) and value.id in lengths:
        fewest, exact = lengths[value.id]
        if exact and fewest != 1:
            return f"{fewest} items"
        if not exact and fewest >= 2:
            return f"{fewest} or more items"
    return None


def wrong_returns(
    src: SourceInfo,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    declared: str,
    wrong: list[tuple[ast.Return, str, str]],
    annotation_added: bool,
) -> Iterator[Finding]:
    """The findings for returns that contradict ``-> declared``: one at the signature
    (:func:`return_site`) when the change adds the annotation or edits the signature (the
    wrong annotation is on the def the author was rewriting, where a reviewer puts it;
    its returns are listed), else one at each added return."""
    if not wrong:
        return
    wrong = sorted(wrong, key=lambda item: item[0].lineno)
    if annotation_added or signature_added(src, node):
        parts = [f"{how} on line {ret.lineno}" for ret, how, _fix in wrong]
        at = node.returns.lineno if node.returns is not None else node.lineno
        fixes = list(dict.fromkeys(fix for _ret, _how, fix in wrong))
        yield finding(
            src,
            return_site(src, node),
            RULE,
            BLOCK,
            f"`{node.name}` is annotated `-> {declared}` (line {at}) "
            f"but {', '.join(parts)}; {'; '.join(fixes)}",
        )
        return
    for ret, how, fix in wrong:
        yield _at_return(src, node, declared, ret, how, fix)


def _at_return(
    src: SourceInfo,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    declared: str,
    ret: ast.Return,
    how: str,
    fix: str,
) -> Finding:
    """The ✗ at one added ``return`` that contradicts ``-> declared``."""
    return finding(
        src,
        ret,
        RULE,
        BLOCK,
        f"`{node.name}` is annotated `-> {declared}` but {how} on line {ret.lineno}; {fix}",
    )


def return_site(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
    """Where a wrong return annotation of a signature the change writes is reported: the
    line carrying ``->`` when the change adds it (where a reviewer and the labelling
    brief put it; a multi-line signature has it lines below the ``def``), else the
    ``def`` line."""
    if node.returns is not None and src.node_added(node.returns):
        return node.returns
    return node


def signature_added(src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the change adds (or rewrites) a line of the signature: the ``def`` line
    through the return annotation (a parameter added to an old ``def`` edits it too)."""
    last = node.lineno
    if node.returns is not None:
        last = max(last, node.returns.end_lineno or node.returns.lineno)
    return src.overlaps(node.lineno, last)


# A statement that ends a path: what the base text of a hunk loses when it drops one.
_OLD_END_RE = re.compile(rb"^[ \t]*(return|raise)\b", re.M)


def falls_off_newly(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, annotation_added: bool
) -> bool:
    """Whether the change can be what makes ``node`` fall off its end: it adds the return
    annotation, or it edits the last statement and either rewrites the signature or
    removes a ``return`` / ``raise`` inside the function. An old function that already
    fell off (the change only edits inside its last loop) keeps an old mismatch."""
    if annotation_added:
        return True
    if not src.node_added(node.body[-1]):
        return False
    if signature_added(src, node):
        return True
    last = node.end_lineno or node.lineno
    return any(
        first <= last and node.lineno <= end and _OLD_END_RE.search(text) is not None
        for first, end, text in src.replaced
    )


def types_of(src: SourceInfo) -> _Types:
    """The file's :class:`_Types` (whether its annotations admit None), built once."""
    return _types(src)


def silenced(src: SourceInfo, line: int) -> bool:
    """Whether line ``line`` has ``# type: ignore`` or ``# noqa``."""
    return _silenced(src, line)


def decorated(node: ast.FunctionDef | ast.AsyncFunctionDef, names: tuple[str, ...]) -> bool:
    """Whether a decorator's last name is one of ``names``."""
    return _decorated(node, names)


_OLD_RETURN_RE = re.compile(rb"^[ \t]*return\b(.*)$", re.M)


@dataclass(frozen=True)
class _OldReturns:
    """What the ``return`` statements one hunk removed were: their kinds
    (:func:`_literal_kind`, ``"None"``, ``"other"``), the (1-based place, text) of each
    item of those that were tuple displays, and whether one did not parse."""

    kinds: frozenset[str]
    items: frozenset[tuple[int, str]]
    unparsed: bool


_NO_OLD_RETURNS = _OldReturns(frozenset(), frozenset(), False)


def _old_returns(src: SourceInfo, line: int) -> _OldReturns:
    """:class:`_OldReturns` of the hunk holding head ``line``, read once a hunk (asked
    for each added return, a hunk of thousands of them was parsed thousands of times): a
    continuation line is joined until the value parses (a few lines at most)."""
    text = src.replaced_text(line)
    if b"return" not in text:
        return _NO_OLD_RETURNS
    memo = src.cache.setdefault("old_returns", {})
    assert isinstance(memo, dict)
    # the hunk's bytes object, kept alive by the source: its identity names the hunk
    cached = memo.get(id(text))
    if isinstance(cached, _OldReturns):
        return cached
    lines = text.splitlines()
    kinds: set[str] = set()
    items: set[tuple[int, str]] = set()
    unparsed = False
    for index, raw in enumerate(lines):
        match = _OLD_RETURN_RE.match(raw)
        if match is None:
            continue
        parsed: ast.Return | None = None
        for end in range(index + 1, min(index + 12, len(lines)) + 1):
            chunk = b"\n".join(lines[index:end]).strip()
            try:
                stmt = ast.parse(chunk.decode("utf-8", "replace")).body
            except PYTHON_PARSE_ERRORS:
                continue
            if stmt and isinstance(stmt[0], ast.Return):
                parsed = stmt[0]
            break
        if parsed is None:
            kinds.add("other")
            unparsed = True
            continue
        value = parsed.value
        if value is None or gives_none(value):
            kinds.add("None")
        else:
            kinds.add(_value_kind(value, frozenset(), src) or "other")
        if isinstance(value, ast.Tuple):
            items.update((place, unparse(e)) for place, e in enumerate(value.elts, start=1))
    found = memo[id(text)] = _OldReturns(frozenset(kinds), frozenset(items), unparsed)
    return found


def _old_return_kinds(src: SourceInfo, line: int) -> frozenset[str]:
    """The kinds (:func:`_literal_kind`, ``"None"``, ``"other"``) of the ``return``
    statements the hunk holding head ``line`` removed."""
    return _old_returns(src, line).kinds


def new_item(src: SourceInfo, ret: ast.Return, place: int) -> bool:
    """Whether item ``place`` (1-based) of an added ``return a, b`` is new text: no
    ``return`` display the hunk removed held the same text there (``return keep, fn``
    replacing ``return dims, fn``: item 1 is the change's; item 2 is as old as before)."""
    if not src.overlaps(ret.lineno, ret.lineno) or not isinstance(ret.value, ast.Tuple):
        return False
    old = _old_returns(src, ret.lineno)
    if old.unparsed:
        return False
    return (place, unparse(ret.value.elts[place - 1])) not in old.items


def rewritten_return(src: SourceInfo, ret: ast.Return, kind: str) -> bool:
    """Whether an added ``return`` is no new evidence against an old annotation: its
    ``return`` line is not added (the change edited inside an old one), or the hunk
    adding it removed a ``return`` of the same ``kind`` (``return a, b`` rewritten as
    ``return a, b, c``: the mismatch is as old as the old return)."""
    if not src.overlaps(ret.lineno, ret.lineno):
        return True
    return kind in _old_return_kinds(src, ret.lineno)


def literal_kind(value: ast.expr) -> str | None:
    """The builtin type of a literal display or constant (None: not a literal)."""
    return _literal_kind(value)


def _strings_only(
    index: _ModuleIndex, node: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> list[str] | None:
    """The string literals parameter ``name`` is compared to (``x == "fp32"``, ``x !=
    "a"``, ``x in ("a", "b")``) when every comparison of it in the body is one of those
    or a None test (``x is None``); None when it is compared to anything else or to no
    string."""
    strings: list[str] = []
    is_param = _is_name(name)
    for sub in index.compared(node).get(name, ()):
        sides = [sub.left, *sub.comparators]
        for position, op in enumerate(sub.ops):
            left, right = sides[position], sides[position + 1]
            if is_param(left):
                other = right
            elif is_param(right) and isinstance(op, (ast.Eq, ast.NotEq)):
                other = left
            else:
                continue
            if isinstance(op, (ast.Is, ast.IsNot)) and _is_none(other):
                continue
            if isinstance(op, (ast.Eq, ast.NotEq)) and _is_str(other):
                assert isinstance(other, ast.Constant)
                strings.append(str(other.value))
                continue
            if (
                isinstance(op, (ast.In, ast.NotIn))
                and isinstance(other, (ast.Tuple, ast.List, ast.Set))
                and other.elts
                and all(_is_str(e) for e in other.elts)
            ):
                strings.extend(str(e.value) for e in other.elts if isinstance(e, ast.Constant))
                continue
            return None
    return strings or None


def _is_str(node: ast.expr) -> bool:
    """A string literal."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _constructor(
    index: _ModuleIndex, call: ast.Call
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool] | None:
    """The ``__init__`` of the module's class that ``call`` instantiates (``Exporter(...)``)."""
    if not isinstance(call.func, ast.Name) or call.func.id not in index.classes:
        return None
    init = _method(index.classes[call.func.id], "__init__")
    return (init, True) if init is not None else None


def _names_handed(calls: Iterable[ast.Call]) -> dict[str, list[tuple[ast.Call, list[ast.Name]]]]:
    """Name -> each call handing it on as an argument (positional or keyword), with
    those arguments: read once per function, so asking for each of thousands of
    parameters stays linear."""
    out: dict[str, list[tuple[ast.Call, list[ast.Name]]]] = {}
    for call in calls:
        by_name: dict[str, list[ast.Name]] = {}
        for value in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(value, ast.Name):
                by_name.setdefault(value.id, []).append(value)
        for name, values in by_name.items():
            out.setdefault(name, []).append((call, values))
    return out


def _forwarded_to_strings(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> tuple[str, str, list[str]] | None:
    """(callee, its parameter, the strings) when ``name`` is handed as is to a function,
    ``self.`` method or class of the module whose parameter of the same name is compared
    only to strings."""
    index = _module_index(src)
    owner = index.owner.get(id(node))
    handed = src.per_node("names_handed", node, lambda: _names_handed(index.body(node)[1]))
    for sub, values in handed.get(name, ()):
        found = _callee(index, owner, sub) or _constructor(index, sub)
        if found is None or found[0] is node:
            continue
        bound = found[1] and not _decorated(found[0], ("staticmethod",))
        for value in values:
            # the same name handed on (``moe_router_dtype=moe_router_dtype``): one value
            # under one meaning, not a tensor passed next to a string selector
            if _parameter_for(found[0], bound, sub, value) != name:
                continue
            strings = _strings_only(index, found[0], name)
            if strings is not None:
                callee = sub.func.id if isinstance(sub.func, ast.Name) else found[0].name
                return callee, name, strings
    return None


def _string_compared(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Finding]:
    """A parameter whose annotation holds no str (``moe_router_dtype: torch.dtype | None``)
    that the body compares only to string literals (``== "fp32"``), or hands to a function
    of the module that does: the annotation says what the code never accepts (a
    ``torch.dtype`` passed is never equal to ``"fp32"`` and silently ignored; a type
    checker's strict equality reports the comparison)."""
    args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    for arg in args:
        if arg.annotation is None or not src.node_added(arg.annotation):
            continue
        if _silenced(src, arg.annotation.lineno):
            continue
        strings = _strings_only(_module_index(src), node, arg.arg)
        via = None
        if strings is None:
            via = _forwarded_to_strings(src, node, arg.arg)
            if via is None:
                continue
            strings = via[2]
        if _types(src).holds_literal(arg.annotation, "str") is not False:
            continue
        text = short(src, arg.annotation).strip("\"'")
        shown = ", ".join(f'"{s}"' for s in dict.fromkeys(strings))
        where = (
            f"is compared only to strings ({shown})"
            if via is None
            else f"is handed to `{via[0]}`, whose `{via[1]}` is compared only to strings ({shown})"
        )
        yield finding(
            src,
            arg.annotation,
            RULE,
            BLOCK,
            f"`{arg.arg}: {text}` (line {arg.annotation.lineno}) {where}: a `{text}` never "
            f"equals them and is silently ignored; annotate the strings it takes "
            f"(`str` / `Literal[...]`) or compare `{text}` values",
        )


# An instance of each builtin a parameter annotation may name, to ask for an attribute
# (on an instance: ``str.mro`` is the class's, not a string's).
_INSTANCES: dict[str, object] = {
    "dict": {},
    "list": [],
    "tuple": (),
    "set": set(),
    "frozenset": frozenset(),
    "bool": False,
    "int": 0,
    "float": 0.0,
    "str": "",
    "bytes": b"",
}
# Attributes these builtins gained in a Python later than the oldest this runs on: had
# on every version, so the verdict does not depend on the interpreter.
_NEWER_ATTRIBUTES = frozenset({"bit_count", "is_integer", "from_number"})
# Calls that test what a value is: a body asking them duck-types its parameter.
_TYPE_TESTS = frozenset({"isinstance", "hasattr", "getattr", "type", "callable", "issubclass"})


_IDENTIFIER_RE = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _text_attributes(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> set[str]:
    """The attributes the function's text reads from ``name`` (``entry.setdefault``):
    a search of its bytes, far cheaper than a walk. A name written with non-ASCII
    letters is not found: its parameter is then not judged (a missed ✗, never a wrong
    one)."""
    text = src.per_node(
        "function_bytes",
        node,
        lambda: b"\n".join(src.byte_lines[node.lineno - 1 : node.end_lineno or node.lineno]),
    )
    needle = name.encode() + b"."
    found: set[str] = set()
    at = text.find(needle)
    while at != -1:
        before = text[at - 1 : at]
        if not (before.isalnum() or before in (b"_", b".")):
            attr = _IDENTIFIER_RE.match(text, at + len(needle))
            if attr is not None:
                found.add(attr.group().decode())
        at = text.find(needle, at + len(needle))
    return found


def _lacks(kind: str, attr: str) -> bool:
    """Whether no ``kind`` builtin has attribute ``attr`` on any Python this runs on."""
    return attr not in _NEWER_ATTRIBUTES and not hasattr(_INSTANCES[kind], attr)


def _missing_attribute(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Finding]:
    """A parameter annotated as a builtin (``entry: str``, ``question: dict``) whose
    attribute the body reads or sets though no such builtin has it (``entry.setdefault``,
    ``question.to_dict()``): its callers pass something else (tritonparse's ``entry:
    str``, given a trace dict; a ``dict`` that is a pandas row); a type checker reports
    the attribute. Not when the function rebinds the parameter, tests what it is
    (``isinstance``, ``hasattr``, ``getattr``, ``type``) or catches ``AttributeError``."""
    annotated = _builtin_parameters(src, node, _INSTANCES)
    # Most parameters are never read by an attribute a builtin lacks: the function's text
    # says so (:func:`_text_attributes`) before any walk of it.
    annotated = {
        name: (annotation, kind)
        for name, (annotation, kind) in annotated.items()
        if any(_lacks(kind, attr) for attr in _text_attributes(src, node, name))
    }
    if not annotated:
        return
    used: dict[str, ast.Attribute] = {}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
            annotated.pop(sub.id, None)  # rebound: no longer what the callers passed
        elif (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Name)
            and sub.func.id in _TYPE_TESTS
            and sub.args
            and isinstance(sub.args[0], ast.Name)
        ):
            annotated.pop(sub.args[0].id, None)
        elif isinstance(sub, ast.ExceptHandler) and "AttributeError" in unparse(
            sub.type or ast.Constant(None), 200
        ):
            return  # duck typing: the function expects attributes to be missing
        elif isinstance(sub, ast.Match):
            return
    if not annotated:
        return
    for sub in kwreads.body_nodes(node):
        if (
            isinstance(sub, ast.Attribute)
            and isinstance(sub.value, ast.Name)
            and sub.value.id in annotated
            and sub.value.id not in used
            and _lacks(annotated[sub.value.id][1], sub.attr)
        ):
            used[sub.value.id] = sub
    for name, attribute in used.items():
        annotation, kind = annotated[name]
        text = short(src, annotation).strip("\"'")
        yield finding(
            src,
            annotation,
            RULE,
            BLOCK,
            f"`{name}: {text}` (line {annotation.lineno}) is used as another type: the body "
            f"reads `{name}.{attribute.attr}` (line {attribute.lineno}), which no `{kind}` "
            f"has; annotate what the callers pass",
        )


def _builtin_parameters(
    src: SourceInfo,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    kinds: Iterable[str],
) -> dict[str, tuple[ast.expr, str]]:
    """Name -> (annotation, builtin) of each parameter the change annotates as one of the
    builtin ``kinds`` (``entry: str``, ``n: Dict[str, int]``), not silenced."""
    params = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    return {
        arg.arg: (arg.annotation, kind)
        for arg in params
        if arg.annotation is not None
        and src.node_added(arg.annotation)
        and not _silenced(src, arg.annotation.lineno)
        and (kind := _builtin_of(src, arg.annotation)) is not None
        and kind in kinds
    }


# The builtin containers and scalars an ``isinstance`` branch may handle: disjoint from
# each other but for the numeric tower (``int`` where ``float`` is annotated is PEP 484's
# promotion, ``bool`` is an ``int``), which :data:`_ACCEPTS` already spells.
_HANDLED_KINDS = frozenset({"dict", "list", "tuple", "set", "frozenset", "str", "bytes"})


def _raises_only(body: list[ast.stmt]) -> bool:
    """Whether a branch only rejects (``raise``, ``assert``, a docstring or ``pass``):
    a guard against misuse, which the annotation agrees with."""
    return all(
        isinstance(stmt, (ast.Raise, ast.Assert, ast.Pass))
        or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        for stmt in body
    )


def _isinstance_handled(
    src: SourceInfo, node: ast.FunctionDef | ast.AsyncFunctionDef
) -> Iterator[Finding]:
    """A parameter annotated as one builtin container or string kind (``n: dict``) that
    the body tests for another (``if isinstance(n, list): return [visit(x) for x in n]``)
    and handles in that branch: the function takes what its annotation rejects, by
    design (llama-cpp-python's JSON-schema ``visit(n: dict)``, called on every list and
    scalar of the schema). A branch that only raises is a guard the annotation agrees
    with; a parameter the function rebinds is not the value its callers passed."""
    annotated = _builtin_parameters(src, node, _HANDLED_KINDS)
    if not annotated:
        return
    shadowed = _types(src).rebound | set(src.aliases)
    tests: list[tuple[ast.If, str, list[str]]] = []
    for stmt in kwreads.statements(node.body, scopes=False):
        if not isinstance(stmt, ast.If) or _raises_only(stmt.body):
            continue
        test = stmt.test
        if not (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance"
            and test.func.id not in shadowed
            and len(test.args) == 2
            and isinstance(test.args[0], ast.Name)
            and test.args[0].id in annotated
        ):
            continue
        name = test.args[0].id
        kind = annotated[name][1]
        kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        other = [
            k.id
            for k in kinds
            if isinstance(k, ast.Name)
            and k.id in _HANDLED_KINDS
            and k.id != kind
            and k.id not in shadowed
        ]
        if other:
            tests.append((stmt, name, other))
    if not tests:
        return
    # A parameter the function rebinds (``n = json.loads(n)``) is no longer the value
    # its callers passed.
    rebound = {
        target.id
        for target in ast.walk(node)
        if isinstance(target, ast.Name) and isinstance(target.ctx, (ast.Store, ast.Del))
    }
    reported: set[str] = set()
    for stmt, name, other in tests:
        if name in rebound or name in reported:
            continue
        reported.add(name)
        annotation = annotated[name][0]
        text = short(src, annotation).strip("\"'")
        handled = " | ".join(dict.fromkeys(other))
        yield finding(
            src,
            annotation,
            RULE,
            BLOCK,
            f"`{name}: {text}` (line {annotation.lineno}) is handled as `{handled}` "
            f"too (`{short(src, stmt.test, 60)}`, line {stmt.lineno}): the function takes what "
            f"its annotation rejects; annotate `{text} | {handled}`",
        )
