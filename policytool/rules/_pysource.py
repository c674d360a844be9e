# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""One changed Python file: its tree, the added lines, import aliases and node context.

The walk visits only statements that overlap an added line (so cost follows the diff)
and records for every node the context the patterns need: the enclosing functions,
whether it runs once per loop iteration, and which locks are held around it.
"""

from __future__ import annotations

import ast
import bisect
import fnmatch
import io
import re
import sys
import tokenize
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TypeVar, cast

from policytool.config import Config
from policytool.core.globs import match_any
from policytool.core.text import BOM, PYTHON_PARSE_ERRORS
from policytool.engine.source import SourceFile
from policytool.rules import _kwreads as kwreads
from policytool.rules._pyast import last_name
from policytool.rules._sweep_config import SweepConfig

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
# ``try``, and ``try``/``except*`` where the running Python has it (3.11+).
TRY_NODES: tuple[type[ast.stmt], ...] = tuple(
    t for t in (ast.Try, getattr(ast, "TryStar", None)) if isinstance(t, type)
)
# Statements holding statements; the others hold only expressions (and names).
_COMPOUND: tuple[type[ast.stmt], ...] = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Match,
    *TRY_NODES,
)
# Statements always walked: those holding statements and the recorded ``x: T = v``; a
# simple statement holds only expressions and is walked only when one is wanted.
_KEPT_STATEMENTS = (*_COMPOUND, ast.AnnAssign)
# The node types the patterns look up (``of_type``); others are walked, not recorded.
_RECORDED = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ExceptHandler,
    ast.AnnAssign,
    ast.Call,
    ast.Await,
    ast.Yield,
)
# A loop over these is a per-step loop (diffusion / autoregressive steps).
_STEP_RE = re.compile(r"step|sigma|\bts\b|denois", re.IGNORECASE)
# A training loop (``for global_step in range(max_steps)``, ``for epoch in ...``, a
# gradient-accumulation loop ``for _ in range(args.gradient_accumulation_steps)`` over
# micro-batches) runs an optimisation step (or part of one) per iteration: not the
# AR/diffusion step loop whose per-step copies add up (its copies are a loop's, ⚠).
_TRAINING_RE = re.compile(r"global_step|epoch|(?<![a-z])train|accum|micro", re.IGNORECASE)


def training_name(name: str) -> bool:
    """Whether a function's name says it runs training (``train_step``,
    ``_train_microbatch``, ``training_step``): its loops are an optimisation step's."""
    return _TRAINING_RE.search(name) is not None


def step_loop_head(looped: str, target: str = "") -> bool:
    """Whether a loop over ``looped`` (a ``for``'s iterable, a ``while``'s test) bound to
    ``target`` runs per step: it names steps, sigmas or denoising, and no training loop."""
    return _STEP_RE.search(looped) is not None and _TRAINING_RE.search(f"{target} {looped}") is None


# Words of a ``with``/``acquire`` target's name that make it a lock (snake and camel case).
_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_LOCK_WORDS = frozenset({"lock", "rlock", "mutex"})
# Outside ``async def`` code the patterns look at only these calls in expressions:
# ``x.clone()`` and ``deepcopy`` (hot-copy, production code), ``SimpleNamespace(...)``
# (any-annotation, tests). The walk descends into an expression there only when its
# lines name one of them (or an import alias of one).
CLONE_ATTR = "clone"
DEEPCOPY_CALLS = frozenset({"copy.deepcopy", "deepcopy"})
SIMPLE_NAMESPACE_CALLS = frozenset({"SimpleNamespace", "types.SimpleNamespace"})


@dataclass(frozen=True)
class Ctx:
    """Where a node sits: enclosing functions, per-iteration, locks held (innermost function)."""

    funcs: tuple[FunctionNode, ...] = ()
    loop: bool = False
    locks: tuple[ast.expr, ...] = ()
    # Inside a loop over steps (``for t in timesteps``, ``range(num_steps)``).
    step_loop: bool = False
    # Inside the body of a ``for``/``while`` statement (not only a comprehension).
    stmt_loop: bool = False

    @property
    def innermost(self) -> FunctionNode | None:
        """The function the node runs in, or None at module or class level."""
        return self.funcs[-1] if self.funcs else None

    @property
    def in_async(self) -> bool:
        """Whether the node runs on the event loop (its innermost function is ``async def``)."""
        return isinstance(self.innermost, ast.AsyncFunctionDef)

    def names(self) -> list[str]:
        """Names of the enclosing named functions, outermost first."""
        return [f.name for f in self.funcs if not isinstance(f, ast.Lambda)]


def unquoted(annotation: ast.expr) -> ast.expr | None:
    """The annotation a string annotation (``"Optional[Foo]"``) holds, parsed; any other
    annotation as it is. None when the string is no expression: it does not parse, holds
    a NUL (``"\\x00"``: a ValueError on Python 3.10), or nests past the parser's depth."""
    if not (isinstance(annotation, ast.Constant) and isinstance(annotation.value, str)):
        return annotation
    try:
        return ast.parse(annotation.value, mode="eval").body
    except PYTHON_PARSE_ERRORS:
        return None


def union_members(node: ast.expr) -> list[ast.expr]:
    """The members of an ``A | B | C`` chain, left to right (``node`` itself when it is
    no ``|``), without recursion: a 2,000-member union is a tree 2,000 deep."""
    members: list[ast.expr] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.BinOp) and isinstance(item.op, ast.BitOr):
            stack.extend((item.right, item.left))
        else:
            members.append(item)
    return members


# The typing constructs that spell a union (``Union[A, B]``, ``Optional[A]``): resolved
# through the file's imports, or bare (``from typing import *``).
_UNIONS = frozenset({"typing.Union", "typing_extensions.Union", "Union"})
_OPTIONALS = frozenset({"typing.Optional", "typing_extensions.Optional", "Optional"})


def union_items(src: SourceInfo, node: ast.expr) -> list[ast.expr] | None:
    """The members of a union annotation, left to right: ``A | B``, ``Union[A, B]``, and
    ``Optional[A]`` as ``A`` and a ``None`` constant. None when ``node`` is no union (a
    string annotation is read by the caller, :func:`unquoted`)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return union_members(node)
    if not isinstance(node, ast.Subscript):
        return None
    outer = src.qualname(node.value)
    items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if outer in _UNIONS:
        return items
    if outer in _OPTIONALS:
        return [*items, ast.copy_location(ast.Constant(value=None), node)]
    return None


def unparse(node: ast.AST, limit: int = 2000) -> str:
    """``ast.unparse`` of a node, bounded: a node nested too deep to unparse gives ``...``."""
    try:
        text = ast.unparse(node)
    except RecursionError:
        return "..."
    return text if len(text) <= limit else text[:limit] + "..."


def names_match(names: Iterable[str], globs: Sequence[str]) -> str | None:
    """The first function name that matches one of ``globs``, or None."""
    for name in names:
        for glob in globs:
            if fnmatch.fnmatchcase(name, glob):
                return name
    return None


def never_true(test: ast.expr) -> bool:
    """Whether an ``if`` test is a false constant (``if False:``, ``if 0:``): its body
    never runs. ``if TYPE_CHECKING:`` is a name, not a constant, and is not one."""
    return isinstance(test, ast.Constant) and not test.value


def is_lock_expr(expr: ast.expr) -> bool:
    """Whether a ``with`` item or ``acquire`` receiver looks like a lock.

    The name (of the object, or of the callee for ``with make_lock():``) must have a
    word ``lock``/``rlock``/``mutex``: ``self._lock``, ``asyncio.Lock()``, ``FileLock(p)``;
    not ``self.block_manager`` or ``open(lock_path)``, nor a file opened at a path that
    says lock (``Path("/tmp/gateway.lock").open("a")``: verifiers' ``fcntl.flock`` file,
    whose lock is the ``flock`` taken later, not the ``with``).
    """
    target = expr.func if isinstance(expr, ast.Call) else expr
    if isinstance(expr, ast.Call) and (
        (isinstance(target, ast.Name) and target.id == "open")
        or (isinstance(target, ast.Attribute) and target.attr == "open")
    ):
        return False
    text = unparse(target)
    words = {w.lower() for w in _WORD_RE.findall(text)}
    return not words.isdisjoint(_LOCK_WORDS)


def _acquired_lock(stmt: ast.stmt, method: str) -> ast.expr | None:
    """``X`` for a statement ``[await] X.acquire()`` / ``X.release()`` with a lock-like X."""
    if not isinstance(stmt, ast.Expr):
        return None
    value = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == method
        and is_lock_expr(value.func.value)
    ):
        return value.func.value
    return None


# A lock word in the bytes: only then can a generator of the module hold one.
_LOCK_BYTES_RE = re.compile(rb"(?i)lock|mutex")
# ``contextlib.asynccontextmanager(gen)()``: a generator made a context manager where
# it is entered.
_CONTEXT_WRAPPERS = frozenset({"asynccontextmanager", "contextmanager"})
_BODIES = ("body", "orelse", "finalbody")


# A generator's lock held at its ``yield``: (the lock, the ``yield``).
HeldYield = tuple[ast.expr, ast.expr]


def _yields_holding(body: Sequence[ast.stmt], outer: dict[str, ast.expr]) -> HeldYield | None:
    """The lock a statement list still holds at a ``yield`` (inside ``with lock:``, or
    after ``X.acquire()`` with no ``X.release()`` before it, in this list or one it is
    nested in; not in a nested ``def``) and that ``yield``; None when it holds none.
    ``outer``: the locks held on entry, by text."""
    held = dict(outer)
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        acquired = _acquired_lock(stmt, "acquire")
        if acquired is not None:
            held[unparse(acquired)] = acquired
            continue
        released = _acquired_lock(stmt, "release")
        if released is not None:
            held.pop(unparse(released), None)
            continue
        nested = [getattr(stmt, name, None) for name in _BODIES]
        nested += [handler.body for handler in getattr(stmt, "handlers", ())]
        nested += [case.body for case in getattr(stmt, "cases", ())]
        lists = [b for b in nested if isinstance(b, list) and b]
        body_list = getattr(stmt, "body", None)
        for block in lists:
            inner = held
            if block is body_list and isinstance(stmt, (ast.With, ast.AsyncWith)):
                items = [i.context_expr for i in stmt.items if is_lock_expr(i.context_expr)]
                inner = {**held, **{unparse(lock): lock for lock in items}}
            found = _yields_holding(block, inner)
            if found is not None:
                return found
        if lists or not held:
            continue
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                return next(reversed(held.values())), node
    return None


def _lock_generators(tree: ast.Module) -> dict[str, tuple[FunctionNode, HeldYield]]:
    """The module's functions, methods and nested functions that yield while they hold a
    lock, by name (llama-cpp-python's ``get_llama_proxy``: ``await lock.acquire()`` ...
    ``yield proxy`` ... ``lock.release()``; AReaL's ``_locked_active_state`` nested in
    its app factory), with the lock and the ``yield``: what a caller runs inside ``async
    with`` of one runs under that lock. Each statement is read once, by the function
    that holds it."""
    found: dict[str, tuple[FunctionNode, HeldYield]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            held = _yields_holding(node.body, {})
            if held is not None:
                found[node.name] = (node, held)
    return found


def lines_holding(data: bytes, words: Iterable[bytes]) -> list[int]:
    """The sorted numbers of the ``\\n``-separated lines of ``data`` that hold one of
    ``words`` (as a substring)."""
    found: set[int] = set()
    for word in words:
        line, pos = 1, 0
        start = data.find(word)
        while start >= 0:
            line += data.count(b"\n", pos, start)
            pos = start
            found.add(line)
            start = data.find(word, start + len(word))
    return sorted(found)


def _import_statements(body: list[ast.stmt], data: bytes) -> Iterator[ast.stmt]:
    """The statements of :func:`kwreads.statements` that may be imports, in its order.

    An import's span holds the keyword ``import`` (ASCII: keywords are never
    normalized), so only statements whose lines hold one are entered or yielded.
    """
    lines = lines_holding(data, [b"import"])
    if not lines:
        return
    if b"\r" in data:  # a lone \r ends a line for the parser: lines would not match
        yield from kwreads.statements(body)
        return

    def has_import(stmt: ast.stmt) -> bool:
        """Whether a line of ``stmt`` holds the word ``import``."""
        index = bisect.bisect_left(lines, stmt.lineno)
        return index < len(lines) and lines[index] <= (stmt.end_lineno or stmt.lineno)

    yield from kwreads.statements(body, has_import)


@dataclass(frozen=True)
class KeyUse:
    """A string-key read from ``**kwargs`` on an added line, pending the cross-file check."""

    path: str
    line: int
    col: int
    key: str
    text: str
    function: str
    # Set when the read is blocking on its own (unknown keys dropped on a fail-fast path).
    dropped_on: str | None
    # A read in a test file is never escalated by other files reading the key.
    in_test: bool = False
    # Why the key is a callee's parameter, not a string protocol of the code base (the
    # dict forwarded with ``f(**kwargs)``, the value passed on as ``f(k=kwargs.get("k"))``),
    # or "" when it is not.
    forwarded: str = ""
    # How the function takes the dict: ``**kwargs`` (its ``**`` parameter) or
    # ``mm_kwargs: dict`` (a plain parameter), as the message shows it.
    param: str = "**..."
    # The function's own line, not a read: its ``**`` dict is never passed on on a
    # fail-fast path (``dropped_on``), one ✗ for the function, not one a key.
    drop_site: bool = False
    # A plain ``*_kwargs: dict`` parameter that no ``**`` dict reaches: never reported
    # (its keys are fixed by whoever builds the dict), but another file's read of the
    # key for a ``**kwargs`` read's ✗.
    plain: bool = False
    # A plain parameter another function's ``**`` dict is handed to whole (a private
    # helper's ``def _setup(self, options)`` given ``self._setup(kwargs)``): not the ⚠
    # (its own signature is no ``**kwargs``), but the ✗ of a new key repeated in another
    # file, as a read of a stored kwargs dict is.
    handed: bool = False
    # The read's line as :func:`moved_line` normalises it: a change that removes as many
    # such lines as it adds moved the read (``git diff --color-moved``), it wrote none.
    code: bytes = b""
    # (path, line) of the base class method a fail-fast function hands the dict to with
    # ``super().f(**kwargs)``: when the change makes that method drop unknown keys, the
    # keys read here feed plumbing that drops the rest.
    base_def: tuple[str, int] | None = None
    # A drop site's function ``def`` line (its ✗ may sit on a ``**kwargs`` the change adds
    # to an old signature): what a subclass's ``base_def`` names.
    def_line: int = 0
    # A drop site's filter: the callable whose keys the function keeps from its dict
    # before building it (:func:`kwreads.builds_filtered`), "" for any other drop.
    filtered_for: str = ""
    # A read on a line the change does not touch, reported because the dict it reads is
    # a parameter the change adds (a new nested ``def f(shape, **kwargs)`` wrapping old
    # reads of the enclosing function's ``**kwargs``).
    unchanged: bool = False
    # A ``**kwargs: Unpack[SomeTypedDict]`` read: the key is still spelled as a string
    # (⚠), but a type checker checks it against the TypedDict, so it is never the ✗ of a
    # key that drifts silently.
    typed: bool = False

    def with_filter(self, callee: str) -> KeyUse:
        """This drop site, made by a filter keeping only the keys ``callee`` takes."""
        return replace(self, filtered_for=callee)


@dataclass
class SweepSource(SourceFile):
    """A changed file as the sweep rules see it: the file and the lines the change adds.

    ``added`` None means every line counts (a new untracked file). The parse uses the
    target Python version (``feature_version``) when it is older than the running one.
    The rules share one :class:`SourceInfo` walk; ``kwargs-lookup`` leaves its key reads
    in ``key_uses`` for the cross-file check the sweep makes once for the whole change.
    """

    added: frozenset[int] | None = None
    # The base lines each hunk replaced (see ChangedFile.replaced).
    replaced: tuple[tuple[int, int, bytes], ...] = ()
    # Reads the file's base version (None: it has none); only a rule that needs it calls.
    read_base: Callable[[], bytes | None] | None = None
    target: tuple[int, int] | None = None
    key_uses: list[KeyUse] = field(default_factory=list)
    _info: SourceInfo | None = field(default=None, repr=False)

    @property
    def tree(self) -> ast.Module:
        """The module parsed for the target version; raises ``SyntaxError``/``ValueError``."""
        if self._tree is None:
            version = self.target
            if version is not None and version >= sys.version_info[:2]:
                version = None
            self._tree = ast.parse(self.data, filename=self.relpath, feature_version=version)
        return self._tree


def sweep_info(source: SourceFile, config: Config) -> SourceInfo:
    """The walked view of ``source`` the patterns read (shared by the five rules).

    A plain :class:`SourceFile` (not from a sweep) is looked at whole.
    """
    if isinstance(source, SweepSource):
        if source._info is None:
            source._info = SourceInfo(
                source.relpath, source.data, source.tree, source.added, config.section(SweepConfig)
            )
            source._info.replaced = source.replaced
            source._info.read_base = source.read_base
            relpath = source.relpath
            abspath = str(source.abspath)
            if abspath.endswith(relpath):
                source._info.root = abspath[: len(abspath) - len(relpath)] or "."
        return source._info
    return SourceInfo(source.relpath, source.data, source.tree, None, config.section(SweepConfig))


# What :meth:`SourceInfo.per_node` builds.
_Built = TypeVar("_Built")


def clear_info(source: SweepSource) -> None:
    """Empty the per-rule cache of ``source``'s walked view when one was built (never
    builds one: a file whose walk failed has nothing to clear)."""
    if source._info is not None:
        source._info.clear_memos()


class SourceInfo:
    """A parsed changed file with the lines the change adds."""

    def __init__(
        self,
        path: str,
        data: bytes,
        tree: ast.Module,
        added: frozenset[int] | None,
        config: SweepConfig,
    ) -> None:
        """Index the file and walk the statements that overlap added lines."""
        self.path = path
        self.data = data
        self.tree = tree
        # None: every line counts (a new untracked file).
        self._added = sorted(added) if added is not None else None
        self.config = config
        self.is_test = match_any(path, config.test_paths)
        # Tests under e.g. tests/entrypoints/ drive the server; they are not the server.
        self.is_serving = not self.is_test and match_any(path, config.serving_paths)
        self.nodes: list[tuple[ast.AST, Ctx]] = []
        # Per-file memo of what the patterns derive once (e.g. known classes).
        self.cache: dict[str, object] = {}
        # Per-node memo (:meth:`per_node`): kind -> id(node) -> what was built from it.
        self._per_node: dict[str, dict[int, object]] = {}
        # id(except handler) -> its try statement.
        self.try_of: dict[int, ast.stmt] = {}
        # Where the file's modules are read from (class fields a test fake mimics).
        self.root: str | None = None
        # (first, last, base text) of each hunk that replaced base lines.
        self.replaced: tuple[tuple[int, int, bytes], ...] = ()
        # Reads the base version of the file (None: no base; see :meth:`base_tree`).
        self.read_base: Callable[[], bytes | None] | None = None
        self.aliases = self._collect_aliases()
        # Expressions are walked only when a pattern looks at calls in them (a copy, an
        # async def, a test fake): otherwise statements are enough, 5-10x fewer nodes.
        self.want_exprs = (
            b"clone" in data
            or b"deepcopy" in data
            or b"async" in data
            or (self.is_test and b"SimpleNamespace" in data)
        )
        # Outside async code, expressions are walked only on these lines (None: all).
        self._expr_lines = self._call_lines() if self.want_exprs else []
        # id(lock expression) -> its text (:meth:`_lock_text`).
        self._lock_texts: dict[int, str] = {}
        # The module's generators that yield while they hold a lock (a context manager
        # or a FastAPI dependency): ``async with`` of one holds that lock.
        self.lock_generators = (
            _lock_generators(tree)
            if self.want_exprs and b"yield" in data and _LOCK_BYTES_RE.search(data)
            else {}
        )
        self._walk_all(tree.body, Ctx())

    # -- added lines -------------------------------------------------------------------

    def overlaps(self, first: int, last: int) -> bool:
        """Whether any added line lies in ``first..last``."""
        if self._added is None:
            return True
        index = bisect.bisect_left(self._added, first)
        return index < len(self._added) and self._added[index] <= last

    def node_added(self, node: ast.AST) -> bool:
        """Whether ``node``'s span overlaps an added line."""
        first = getattr(node, "lineno", None)
        if first is None:
            return False
        last = getattr(node, "end_lineno", None) or first
        return self.overlaps(first, last)

    def lock_generator(self, expr: ast.expr) -> str | None:
        """The name of the module's lock-holding generator a ``with`` item enters:
        ``get_proxy()``, ``self._slot()``, ``contextlib.asynccontextmanager(get_proxy)()``
        (llama-cpp-python's server wraps its FastAPI dependency so); None otherwise."""
        if not self.lock_generators or not isinstance(expr, ast.Call):
            return None
        func = expr.func
        if isinstance(func, ast.Call) and len(func.args) == 1 and not expr.args:
            # ``asynccontextmanager(gen)()``: the wrapper called at once.
            if last_name(func.func) in _CONTEXT_WRAPPERS:
                func = func.args[0]
        if isinstance(func, ast.Name):
            name = func.id
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in ("self", "cls")
        ):
            name = func.attr
        else:
            return None
        return name if name in self.lock_generators else None

    def kwargs_dicts(self) -> dict[kwreads.FunctionDef, set[str]]:
        """:func:`kwreads.kwargs_dicts` of the tree, computed once (none without a
        ``**name`` or ``kwargs:`` in the bytes)."""
        cached = self.cache.get("kwargs_dicts")
        if not isinstance(cached, dict):
            cached = kwreads.kwargs_dicts(self.tree) if kwreads.may_have_dicts(self.data) else {}
            self.cache["kwargs_dicts"] = cached
        return cached

    def functions_by_name(self) -> dict[str, list[kwreads.FunctionDef]]:
        """:func:`kwreads.functions_by_name` of the tree, computed once."""
        cached = self.cache.get("functions_by_name")
        if not isinstance(cached, dict):
            cached = self.cache["functions_by_name"] = kwreads.functions_by_name(self.tree)
        return cached

    def star_dicts(self) -> dict[kwreads.FunctionDef, set[str]]:
        """The part of :meth:`kwargs_dicts` a ``**`` parameter reaches (its own and the
        parameters it is passed to whole): the rule's ⚠. A plain ``*_kwargs: dict``
        parameter no ``**`` dict reaches is reported only for the cross-file ✗."""
        cached = self.cache.get("star_dicts")
        if not isinstance(cached, dict):
            full = self.kwargs_dicts()
            plain = any(len(kwreads.own_dicts(f, False)) < len(kwreads.own_dicts(f)) for f in full)
            cached = kwreads.kwargs_dicts(self.tree, plain=False) if plain else full
            self.cache["star_dicts"] = cached
        return cached

    def replaced_text(self, line: int) -> bytes:
        """The base lines the hunk holding head ``line`` replaced (empty: a pure addition)."""
        for first, last, text in self.replaced:
            if first <= line <= last:
                return text
        return b""

    def base_tree(self) -> ast.Module | None:
        """The base version of the file, parsed once when a rule first asks (None: no
        base version, or one that does not parse)."""
        if "base_tree" not in self.cache:
            tree: ast.Module | None = None
            data = self.read_base() if self.read_base is not None else None
            if data is not None:
                try:
                    tree = ast.parse(data, filename=self.path)
                except PYTHON_PARSE_ERRORS:
                    tree = None
            self.cache["base_tree"] = tree
        cached = self.cache["base_tree"]
        return cached if isinstance(cached, ast.Module) else None

    def base_function(self, node: kwreads.FunctionDef) -> kwreads.FunctionDef | None:
        """The base version of ``node``: the one function of its name in the same classes
        and functions of the base file (None: no base file, none, or more than one, in
        either version)."""
        base = self.base_tree()
        if base is None:
            return None
        heads = self.per_node(
            "head_functions", self.tree, lambda: kwreads.scoped_functions(self.tree)
        )
        path = next((key for key, found in heads.items() if any(f is node for f in found)), None)
        if path is None or len(heads[path]) != 1:
            return None
        olds = self.per_node("base_functions", base, lambda: kwreads.scoped_functions(base))
        found = olds.get(path, [])
        return found[0] if len(found) == 1 else None

    # -- names -------------------------------------------------------------------------

    def clear_memos(self) -> None:
        """Forget what the rules derived (:attr:`cache`, :meth:`per_node`)."""
        self.cache.clear()
        self._per_node.clear()

    def per_node(self, kind: str, node: ast.AST, build: Callable[[], _Built]) -> _Built:
        """What ``build`` derives from ``node`` (a function's index of loops, blocks or
        statements), built once per file: a rule asks for it at every copy, handler or
        read of the function, and building it each time made a rule quadratic in a file a
        pull request controls."""
        memo = self._per_node.setdefault(kind, {})
        key = id(node)
        if key not in memo:
            memo[key] = build()
        return cast(_Built, memo[key])

    def _collect_aliases(self) -> dict[str, str]:
        """Local name -> dotted module path, from every import statement in the file."""
        aliases: dict[str, str] = {}
        for node in _import_statements(self.tree.body, self.data):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".", 1)[0]
                        aliases[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        return aliases

    def _call_lines(self) -> list[int] | None:
        """The lines naming a call the patterns look at outside async code (see
        :data:`CLONE_ATTR`); None (every line) when lines cannot be told apart cheaply.

        Identifiers are NFKC-normalized by the parser, so a file with non-ASCII bytes is
        searched in its normalized text; a ``\\r`` may end a line for the tokenizer, so
        such a file counts every line.
        """
        data = self.data
        if b"\r" in data:
            return None
        if self.is_test:
            wanted = SIMPLE_NAMESPACE_CALLS
            words = {"SimpleNamespace"}
        else:
            wanted = DEEPCOPY_CALLS
            words = {CLONE_ATTR, "deepcopy"}
        words.update(name for name, target in self.aliases.items() if target in wanted)
        text = data
        if not data.isascii():
            try:
                encoding, _lines = tokenize.detect_encoding(io.BytesIO(data).readline)
                text = unicodedata.normalize("NFKC", data.decode(encoding)).encode("utf-8")
            except (SyntaxError, LookupError, UnicodeError):
                return None
        return lines_holding(text, [w.encode() for w in words])

    def _wants(self, node: ast.AST, ctx: Ctx) -> bool:
        """Whether the walk descends into expression ``node``: in async code always,
        elsewhere when its lines name a call the patterns look at."""
        first: int = getattr(node, "lineno", 0)
        return self._wants_lines(first, getattr(node, "end_lineno", None) or first, ctx)

    def _wants_lines(self, first: int, last: int, ctx: Ctx) -> bool:
        """:meth:`_wants` for the expressions on lines ``first..last``."""
        if not self.want_exprs:
            return False
        lines = self._expr_lines
        if lines is None or ctx.in_async:
            return True
        index = bisect.bisect_left(lines, first)
        return index < len(lines) and lines[index] <= last

    def qualname(self, expr: ast.expr) -> str | None:
        """Dotted name of a Name/Attribute chain with import aliases resolved."""
        parts: list[str] = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        parts.append(self.aliases.get(expr.id, expr.id))
        return ".".join(reversed(parts))

    @cached_property
    def lines(self) -> list[str]:
        """The decoded source lines (for messages and comments)."""
        return self.data.decode("utf-8", "replace").splitlines()

    @cached_property
    def byte_lines(self) -> list[bytes]:
        """The lines as UTF-8 without a BOM: AST columns are offsets into exactly that."""
        data = self.data.removeprefix(BOM)
        try:
            encoding, _lines = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError:
            encoding = "utf-8"
        if encoding not in ("utf-8", "utf-8-sig"):
            try:
                data = data.decode(encoding).encode("utf-8")
            except (LookupError, UnicodeError):
                pass  # it parsed, so this does not happen; keep the raw bytes
        return data.splitlines()

    def segment(self, node: ast.AST) -> str:
        """The source text of a one-line node as written (quotes kept); else unparsed."""
        line: int | None = getattr(node, "lineno", None)
        end: int | None = getattr(node, "end_lineno", None)
        col: int | None = getattr(node, "col_offset", None)
        end_col: int | None = getattr(node, "end_col_offset", None)
        if line is not None and line == end and col is not None and end_col is not None:
            if line <= len(self.byte_lines):
                text = self.byte_lines[line - 1][col:end_col].decode("utf-8", "replace")
                if text.strip():
                    return text
        return unparse(node)

    def has_comment(self, number: int) -> bool:
        """Whether line ``number`` carries a real ``#`` comment (not a ``#`` in a string)."""
        if not 1 <= number <= len(self.byte_lines):
            return False
        line = self.byte_lines[number - 1]
        if b"#" not in line:
            return False
        try:
            tokens = list(tokenize.tokenize(io.BytesIO(line + b"\n").readline))
        except (tokenize.TokenError, SyntaxError):
            return True  # inside a multi-line construct: take the ``#`` at its word
        return any(t.type == tokenize.COMMENT for t in tokens)

    # -- the walk ----------------------------------------------------------------------

    def _stmt_added(self, stmt: ast.stmt) -> bool:
        """Whether a statement (decorators included) overlaps an added line."""
        first = stmt.lineno
        decorators = getattr(stmt, "decorator_list", None)
        if decorators:
            first = min(first, *(d.lineno for d in decorators))
        return self.overlaps(first, stmt.end_lineno or stmt.lineno)

    def _walk_body(self, body: Sequence[ast.stmt], ctx: Ctx) -> None:
        """Queue a statement list, tracking ``X.acquire()`` ... ``X.release()`` spans."""
        held = ctx
        queued: list[tuple[ast.AST, Ctx]] = []
        # Held locks matter only in async code (a nested def starts with none).
        tracking = ctx.in_async
        for stmt in body:
            if self._stmt_added(stmt) and (
                isinstance(stmt, _KEPT_STATEMENTS) or self._wants(stmt, held)
            ):
                queued.append((stmt, held))
            if not tracking:
                continue
            acquired = _acquired_lock(stmt, "acquire")
            if acquired is not None:
                held = replace(held, locks=(*held.locks, acquired))
            released = _acquired_lock(stmt, "release")
            if released is not None:
                text = self._lock_text(released)
                held = replace(
                    held, locks=tuple(x for x in held.locks if self._lock_text(x) != text)
                )
        self._stack.extend(reversed(queued))

    def _lock_text(self, lock: ast.expr) -> str:
        """A held lock's source text, unparsed once: each ``release()`` compares it with
        every lock still held (thousands of acquires then releases stay linear in text)."""
        text = self._lock_texts.get(id(lock))
        if text is None:
            text = self._lock_texts[id(lock)] = unparse(lock)
        return text

    def _walk_many(self, nodes: Iterable[ast.AST | None], ctx: Ctx) -> None:
        """Queue each node of ``nodes`` in ``ctx`` (None entries and expressions the
        patterns do not need skipped)."""
        self._stack.extend(
            reversed(
                [
                    (n, ctx)
                    for n in nodes
                    if n is not None and (not isinstance(n, ast.expr) or self._wants(n, ctx))
                ]
            )
        )

    def _walk_all(self, body: Sequence[ast.stmt], ctx: Ctx) -> None:
        """Walk a module body with an explicit stack (no recursion: any depth is fine)."""
        self._stack: list[tuple[ast.AST, Ctx]] = []
        self._walk_body(body, ctx)
        while self._stack:
            node, node_ctx = self._stack.pop()
            self._walk(node, node_ctx)

    def _walk(self, node: ast.AST, ctx: Ctx) -> None:
        """Record ``node`` with its context and queue its children in theirs.

        Children are queued in reverse so they pop in source order; a statement list
        is queued after the expressions before it (``_walk_body`` pushes first, so the
        order of recorded nodes is the source order within each construct).
        """
        if isinstance(node, _RECORDED):
            self.nodes.append((node, ctx))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._walk_body(node.body, Ctx((*ctx.funcs, node)))
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if self._wants_lines(first, node.body[0].lineno, ctx):
                self._walk_many([*node.decorator_list, node.args, node.returns], ctx)
        elif isinstance(node, ast.Lambda):
            self._walk_many([node.body], Ctx((*ctx.funcs, node)))
            self._walk_many([node.args], ctx)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            # Only a copy call in the loop reads ``step_loop``: unparse only then.
            step = ctx.step_loop or (
                self._wants(node, Ctx())
                and step_loop_head(unparse(node.iter, 300), unparse(node.target, 80))
            )
            self._walk_body(node.orelse, ctx)
            self._walk_body(node.body, replace(ctx, loop=True, step_loop=step, stmt_loop=True))
            self._walk_many([node.target, node.iter], ctx)
        elif isinstance(node, ast.While):
            # ``while step < num_steps:`` is a loop over steps (autoregressive decoding).
            step = ctx.step_loop or (
                self._wants(node, Ctx()) and step_loop_head(unparse(node.test, 300))
            )
            looping = replace(ctx, loop=True, step_loop=step, stmt_loop=True)
            self._walk_body(node.orelse, ctx)
            self._walk_body(node.body, looping)
            self._walk_many([node.test], looping)
        elif isinstance(node, COMPREHENSIONS):
            step = ctx.step_loop or (
                self._wants(node, Ctx())
                and any(
                    step_loop_head(unparse(g.iter, 300), unparse(g.target, 80))
                    for g in node.generators
                )
            )
            looping = replace(ctx, loop=True, step_loop=step)
            first_gen, *rest = node.generators
            if isinstance(node, ast.DictComp):
                self._walk_many([node.key, node.value], looping)
            else:
                self._walk_many([node.elt], looping)
            self._walk_many([first_gen.target, *first_gen.ifs, *rest], looping)
            self._walk_many([first_gen.iter], ctx)
        elif isinstance(node, ast.If) and never_true(node.test):
            # ``if False:`` / ``if 0:`` guards code that never runs (a debug block): only
            # its ``else`` branch is walked, so no pattern reports the dead lines.
            self._walk_body(node.orelse, ctx)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            # Held locks matter only in async code (a nested def starts with none).
            locks = (
                tuple(
                    item.context_expr
                    for item in node.items
                    if is_lock_expr(item.context_expr)
                    or self.lock_generator(item.context_expr) is not None
                )
                if ctx.in_async
                else ()
            )
            self._walk_body(node.body, replace(ctx, locks=(*ctx.locks, *locks)))
            self._walk_many(node.items, ctx)
        else:
            if isinstance(node, TRY_NODES):
                for handler in getattr(node, "handlers", ()):
                    self.try_of[id(handler)] = node
            fields = [getattr(node, name, None) for name in node._fields]
            for value in reversed(fields):
                if isinstance(value, list):
                    if value and isinstance(value[0], ast.stmt):
                        self._walk_body(value, ctx)
                    else:
                        self._walk_many([v for v in value if isinstance(v, ast.AST)], ctx)
                elif isinstance(value, ast.AST):
                    self._walk_many([value], ctx)

    def of_type(self, *types: type[ast.AST]) -> Iterable[tuple[ast.AST, Ctx]]:
        """The walked nodes of the given types with their context."""
        return ((node, ctx) for node, ctx in self.nodes if isinstance(node, types))
