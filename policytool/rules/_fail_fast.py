# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The pattern's fail-fast paths for ``broad-except`` beyond the shared ``fail-fast``
list, and its swallow forms beyond ``pass`` / ``continue`` / ``return None``.

The pattern lists five fail-fast paths for a swallowing broad catch: "init, config
validation, weight loading, request handling, connector setup". The first three are the
shared ``[tool.policytool.sweep] fail-fast`` globs (``kwargs-lookup`` reads them too,
whose own ✗ names only those three); request handling and connector setup are
broad-except's alone, here. A handler that only assigns a default (``self.x = None``, ``{}``,
``[]``) with nothing re-raised or logged swallows the error as surely as ``pass``; a
failure flag (``self.ok = False``) records it and is not one.

Two more ways onto a fail-fast path, read the way a reviewer reads the code around the
catch: a private helper (``_name``) that only fail-fast code calls is on that path (a
config built for the engine by ``_get_hf_config_overrides``, which only ``__init__``
reaches); and a function that patches what it imports (``*patch*``) is not best effort
about that import: a broad catch around it skips the patch silently when the import
fails for any reason but a missing module. Beyond one module, :class:`TreeCalls` reads who
calls a function in the work tree (a bounded tree, read whole or not at all) and follows
the callers up to three calls to fail-fast code; :func:`route_names` gives the HTTP routes
a private helper may be reached from.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence

from policytool.core.text import PYTHON_PARSE_ERRORS
from policytool.rules._pyast import last_name

# Connector setup (names of the function or one enclosing it): opening a connection, a
# handshake, an SSH tunnel to a started server.
CONNECTOR_SETUP = (
    "connect",
    "_connect",
    "*_connect",
    "*connect_to*",
    "*create_connector*",
    "*make_connector*",
    "*register_connector*",
    "*handshake*",
    "*tunnel*",
)
# Request handling and connector setup.
REQUEST_AND_CONNECTOR = (
    "*handle*request*",
    "*process*request*",
    "*add_request*",
    "*submit_request*",
    "*serve_request*",
    "*request_handler*",
    *CONNECTOR_SETUP,
)
# Functions that patch what they import: an import-only ``try`` there is not optional.
PATCHES = ("*patch*",)
# ... but undoing a patch is not patching: when the import fails, nothing was patched to
# undo (unsloth-zoo's ``unpatch_muse_glimmer_banded_sliding_attention`` restoring sdpa).
UNPATCHES = ("*unpatch*",)
# A helper named for an attempt or an option is best effort by its own name: it does not
# inherit its callers' fail-fast path.
ATTEMPTS = ("try_*", "_try_*", "*maybe*", "*optional*", "*best_effort*", "*fallback*")
# Weight loading beyond the shared ``fail-fast`` globs, for ``kwargs-lookup``: diffusers'
# ``lora_state_dict(cls, path, **kwargs)`` fetches and converts the LoRA weights.
WEIGHT_LOADING_MORE = ("*lora_state_dict*",)
# Best effort by the pattern's own words (metrics, signal handlers) and by nature
# (aborting a request, disconnecting): never ✗.
BEST_EFFORT_MORE = ("*metric*", "*signal*", "*abort*", "*cancel*", "*disconnect*")
# A UI's server: its routes feed a display (feast's ``ui_server.py`` MLflow panels), best
# effort by the brief's reading, not request handling whose client must hear of a failure.
UI_PATHS = (
    "**/ui/**",
    "**/webui/**",
    "**/dashboard/**",
    "**/ui.py",
    "**/*_ui.py",
    "**/ui_*.py",
    "**/webui.py",
    "**/dashboard.py",
)
# Telemetry, tracing and profiling modules (infinity's ``telemetry.py``, the
# OpenTelemetry instrumentations under ``instrumentation/``, grain's ``profiler.py``
# starting a profiler server in each worker): best effort by nature, a failure there
# must never take down the code it observes (the brief's "telemetry" boundary).
TELEMETRY_PATHS = (
    "**/telemetry/**",
    "**/*telemetry*.py",
    "**/instrumentation/**",
    "**/tracing/**",
    "**/profiler/**",
    "**/profiling/**",
    "**/*profiler*.py",
)
# Words of a call that only makes working code faster or leaner (``torch.compile``,
# ``enable_cudagraph``, ``warmup_compile``, ``enable_vae_slicing``): when it fails the
# model runs as before, eagerly: a complete fallback, not a half set-up model.
OPTIMISATIONS = frozenset(
    {"compile", "cudagraph", "cudagraphs", "warmup", "slicing", "tiling", "xformers"}
)
_OPTIMISATION_PAIRS = frozenset({("cuda", "graph"), ("cuda", "graphs"), ("warm", "up")})
# Words of a call that builds or loads what the model needs: not only an optimisation.
_BUILDS = frozenset({"load", "pretrained", "connect", "connector", "init", "initialize"})
# A log message or comment that declares the failure harmless ("non-fatal", "best-effort").
HARMLESS = re.compile(r"non[- ]?fatal|best[- ]effort", re.IGNORECASE)
# A log message naming what failed as a warm-up or a CUDA graph ("Failed to warmup
# DynamoDB connection pool"): an optimisation the code runs without. Not "compile" in a
# message, which names grammars and kernels built for the work as often.
OPTIMISATION_LOGGED = re.compile(r"warm[- ]?up|pre-?warm|cuda[- ]?graph", re.IGNORECASE)
# Decorators that make a function an HTTP route (``@app.post("/tokenize")``): request
# handling by the pattern's words.
_ROUTES = frozenset({"get", "post", "put", "delete", "patch", "route", "api_route", "websocket"})


def _call_words(call: ast.Call) -> list[str]:
    """The lower-case ``_`` words of a call's callee name (``enable_vae_slicing``)."""
    func = call.func
    name = last_name(func)
    return [w for w in str(name).lower().split("_") if w]


def optimisation_only(try_stmt: ast.stmt | None) -> bool:
    """Whether a ``try`` body calls an optimisation (compile, CUDA graph, warm-up, VAE
    slicing/tiling) and nothing that builds or loads: its failure leaves a working model."""
    body: list[ast.stmt] = getattr(try_stmt, "body", [])
    optimised = False
    for stmt in body:
        for node in ast.walk(stmt):
            if not isinstance(node, ast.Call):
                continue
            words = _call_words(node)
            if not _BUILDS.isdisjoint(words):
                return False
            pairs = set(zip(words, words[1:], strict=False))
            if not OPTIMISATIONS.isdisjoint(words) or not _OPTIMISATION_PAIRS.isdisjoint(pairs):
                optimised = True
    return optimised


# What a ``generate_*`` function makes when it is no model generation: a file written for a
# person or a launcher (FlagScale's ``generate_patch_file``, ``_generate_run_script_serve``).
_ARTIFACTS = frozenset(
    {
        "file", "files", "script", "scripts", "patch", "patches", "dockerfile",
        "makefile", "readme", "manifest", "cmd", "command", "commands", "launcher",
    }
)  # fmt: skip
# (not ``json``, ``yaml`` or ``report``: ``generate_json(prompt)`` is a model's output)
_GENERATES = frozenset({"gen", "generate"})


def artifact_generator(name: str) -> bool:
    """Whether a function's name says it generates a file artifact (``generate_patch_file``,
    ``_generate_run_script_serve``, ``gen_launch_cmd``): a ``*generate*`` name that is no
    model's generation, run once per artifact, not per request or step."""
    words = [w for w in name.lower().split("_") if w]
    for index, word in enumerate(words):
        if word in _GENERATES:
            return not _ARTIFACTS.isdisjoint(words[index + 1 :])
    return False


def optimisation_name(name: str) -> bool:
    """Whether a function's own name says it only optimises (``_warmup``,
    ``_capture_cudagraphs``, ``maybe_compile``): what fails there leaves a working model."""
    words = [w for w in name.lower().split("_") if w]
    pairs = set(zip(words, words[1:], strict=False))
    return not OPTIMISATIONS.isdisjoint(words) or not _OPTIMISATION_PAIRS.isdisjoint(pairs)


def _url_path(node: ast.expr | None) -> bool:
    """Whether ``node`` is a string literal spelling a URL path (``"/v1/jobs"``)."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value[:1] == "/"


def route_handler(func: ast.AST | None) -> str | None:
    """The function's name when it is decorated as an HTTP route (``@app.post("/tokenize")``,
    ``@router.get("/health")``: a path, so not ``@mock.patch("x")``; or a service
    framework's registration naming its endpoint, OPEA's ``@register_microservice(...,
    endpoint="/v1/fine_tuning/jobs")``), or None. Only the function the code runs in: a
    generator defined inside a route runs later."""
    if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for deco in func.decorator_list:
            if not isinstance(deco, ast.Call):
                continue
            if (
                isinstance(deco.func, ast.Attribute)
                and deco.func.attr in _ROUTES
                and _url_path(deco.args[0] if deco.args else None)
            ):
                return func.name
            if any(k.arg == "endpoint" and _url_path(k.value) for k in deco.keywords):
                return func.name
    return None


def route_names(tree: ast.Module) -> tuple[str, ...]:
    """The names of the module's functions decorated as HTTP routes (:func:`route_handler`),
    for :func:`called_from`: a private helper only routes call answers their clients."""
    return tuple(
        sorted(
            {
                node.name
                for node in ast.walk(tree)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and route_handler(node) is not None
            }
        )
    )


def _default_value(value: ast.expr | None) -> bool:
    """``None`` or an empty display/``dict()``-like call: a default standing in for the
    value that failed (``self.ok = False`` is a failure flag someone checks: not this)."""
    if isinstance(value, ast.Constant):
        return value.value is None
    if isinstance(value, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return not (value.keys if isinstance(value, ast.Dict) else value.elts)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("dict", "list", "tuple", "set")
        and not value.args
        and not value.keywords
    )


def imports_only(try_stmt: ast.stmt | None) -> bool:
    """Whether a ``try`` body only imports (``import x``, ``x = importlib.import_module(...)``):
    an optional dependency, best effort by nature."""
    body: list[ast.stmt] = getattr(try_stmt, "body", [])
    if not body:
        return False
    imported = False
    for stmt in body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imported = True
            continue
        if isinstance(stmt, ast.Pass) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, (ast.Name, ast.Attribute))
        ):
            continue  # a bare ``torchaudio``: the name used, nothing run
        if isinstance(stmt, ast.Return) and (
            stmt.value is None or isinstance(stmt.value, ast.Constant)
        ):
            continue  # ``return`` once the imports succeeded
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.Expr)) else None
        if isinstance(value, ast.Call):
            func = value.func
            name = last_name(func)
            if name in ("import_module", "__import__"):
                imported = True
                continue
        return False
    return imported


def skips_patch(try_stmt: ast.stmt | None, body: list[ast.stmt]) -> bool:
    """Whether a failed import skips what follows: the handler returns, continues or
    assigns a default, or the patch sits in the ``try``'s ``else:``. A handler that only
    passes on to a fallback (``torchaudio`` missing: patch its loader) skips nothing."""
    if getattr(try_stmt, "orelse", None):
        return True
    return any(isinstance(stmt, (ast.Return, ast.Continue, ast.Assign)) for stmt in body)


def gives_up(body: list[ast.stmt], has_comment: Callable[[int], bool]) -> bool:
    """A handler that assigns a default or returns nothing (``return`` / ``return None``):
    the shapes a helper's catch must have to count on its callers' fail-fast path. A
    ``pass`` that falls through to a fallback value (``return 8``) or a ``return False``
    (a probe's answer) is a fallback by design, not a swallowed failure."""
    if assigns_default(body, has_comment):
        return True
    returned = False
    for stmt in body:
        if isinstance(stmt, ast.Return) and (
            stmt.value is None
            or (isinstance(stmt.value, ast.Constant) and stmt.value.value is None)
        ):
            returned = True
        elif not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            return False
    return returned


def assigns_default(body: list[ast.stmt], has_comment: Callable[[int], bool]) -> bool:
    """Whether a handler only assigns defaults (``x = None``; ``pass``/``continue``/an
    empty ``return`` around them): the error is swallowed, nothing re-raised or logged.
    A comment in the handler saying why (``# never fail startup over this``) makes it a
    deliberate fallback (``has_comment``: whether a line carries one)."""
    if not body:
        return False
    last = body[-1].end_lineno or body[-1].lineno
    if any(has_comment(line) for line in range(body[0].lineno - 1, last + 1)):
        return False
    assigned = False
    for stmt in body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            if not _default_value(stmt.value):
                return False
            assigned = True
        elif isinstance(stmt, ast.Return):
            if stmt.value is not None and not (
                isinstance(stmt.value, ast.Constant) and stmt.value.value is None
            ):
                return False
        elif not (
            isinstance(stmt, (ast.Pass, ast.Continue))
            or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        ):
            return False
    return assigned


def _matches(name: str, globs: Sequence[str]) -> bool:
    """Whether ``name`` matches one of ``globs``."""
    return any(fnmatch.fnmatchcase(name, glob) for glob in globs)


def called_from(tree: ast.Module, globs: Sequence[str]) -> dict[str, str]:
    """Private functions of the module (``_name``, not dunder) on a fail-fast path by
    their callers: every use of the name in the file is a call made directly in a
    function matching ``globs`` or in another such helper (transitively). Name -> the
    fail-fast function the calls come from. A name used any other way (passed as a
    callback, called at module level or from other code) is not one, nor one called to
    word the error a ``raise`` raises (timm's ``_checkpoint_unsafe_globals`` in the
    message of the ``RuntimeError`` a failed load raises): the raise happens whatever
    the helper does, so the set-up does not go on without it."""
    defined: set[str] = set()
    # name -> (whether the use is a call, the function it runs in: None at module level,
    # in a class body, a lambda or a ``raise``) for each use
    uses: dict[str, list[tuple[bool, str | None]]] = {}
    callees: set[int] = set()
    for child, function in _nodes_by_function(tree):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(child.name)
        elif isinstance(child, ast.Call):
            callees.add(id(child.func))  # parents come first: the callee is seen next
        used = None
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            used = child.id
        elif isinstance(child, ast.Attribute) and isinstance(child.ctx, ast.Load):
            used = child.attr
        if used is not None and used.startswith("_") and not used.endswith("__"):
            uses.setdefault(used, []).append((id(child) in callees, function))
    found: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for name in sorted(defined & uses.keys()):
            if name in found or not name.startswith("_") or _matches(name, ATTEMPTS):
                continue
            origin = None
            for is_call, function in uses[name]:
                # The function the call runs in: a wrapper defined inside ``__init__``
                # runs later, not on ``__init__``'s path.
                caller = function or ""
                fail_fast = caller if caller and _matches(caller, globs) else None
                inherited = found.get(caller)
                if not is_call or (fail_fast or inherited) is None:
                    origin = None
                    break
                origin = origin or fail_fast or inherited
            if origin is not None:
                found[name] = origin
                changed = True
    return found


# How far up the tree's calls a helper's fail-fast path is looked for, and how many
# modules may call it (a name called from more is a shared utility, not one path's step).
MAX_CALL_DEPTH = 3
MAX_CALLING_MODULES = 12
# The work trees whose calls are read: a tree with more Python files or bytes outside
# tests, docs and examples is not read at all (its helpers keep their ⚠), so the reading
# costs a fraction of a second and never concludes from part of the callers.
MAX_TREE_FILES = 1500
MAX_TREE_BYTES = 24_000_000


def read_py_files(
    root: str, keep_dir: Callable[[str], bool], keep_file: Callable[[str], bool]
) -> dict[str, bytes] | None:
    """Relative path -> bytes of each ``.py`` file of the work tree under the directories
    ``keep_dir`` keeps (dot-directories never) whose names ``keep_file`` keeps: regular
    files only, no symlink followed; None when there are more than
    :data:`MAX_TREE_FILES` such files or :data:`MAX_TREE_BYTES` bytes, so no reading
    ever concludes from part of the tree. The one bounded read of a whole tree."""
    paths: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and keep_dir(d))
        paths.extend(
            os.path.join(dirpath, f)
            for f in sorted(filenames)
            if f.endswith(".py") and keep_file(f)
        )
        if len(paths) > MAX_TREE_FILES:
            return None
    out: dict[str, bytes] = {}
    total = 0
    for path in paths:
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            with open(path, "rb") as handle:
                data = handle.read(MAX_TREE_BYTES + 1)
        except OSError:
            continue
        total += len(data)
        if total > MAX_TREE_BYTES:
            return None
        out[os.path.relpath(path, root)] = data
    return out


def read_tree(root: str, skip: frozenset[str]) -> dict[str, bytes] | None:
    """Dotted module -> text of each module of the work tree outside the ``skip``
    directories and ``test_*.py`` files (:func:`read_py_files`, its bounds)."""
    files = read_py_files(
        root,
        lambda d: d not in skip and d.isidentifier(),
        lambda f: not f.startswith("test_"),
    )
    if files is None:
        return None
    out: dict[str, bytes] = {}
    for rel, data in files.items():
        module = rel[: -len(".py")].replace(os.sep, ".").removesuffix(".__init__")
        if all(p.isidentifier() for p in module.split(".")):
            out[module] = data
    return out


_TREES: dict[tuple[str, frozenset[str]], TreeCalls | None] = {}


def tree_calls(root: str | None, skip: frozenset[str]) -> TreeCalls | None:
    """The work tree's :class:`TreeCalls` (one per repository root and process; None: no
    root, or a tree too large to read, :func:`read_tree`)."""
    if root is None:
        return None
    key = (root, skip)
    if key not in _TREES:
        if len(_TREES) > 8:
            _TREES.clear()
        sources = read_tree(root, skip)
        _TREES[key] = TreeCalls(sources) if sources is not None else None
    return _TREES[key]


def module_name(path: str) -> str:
    """``pkg/utils/device.py`` -> ``pkg.utils.device`` (``__init__`` dropped), the name
    :func:`read_tree` gives the module at that repository-relative path."""
    return path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


class TreeCalls:
    """Who calls a function, read from the work tree's modules the way a reviewer greps
    for ``name(``: the modules whose text holds the name are parsed (once each) and each
    use is attributed to the function it sits in."""

    def __init__(self, sources: Mapping[str, bytes]) -> None:
        """``sources``: dotted module -> text (the fake finder's bounded scan)."""
        self.sources = sources
        self._indexes: dict[str, dict[str, list[str | None]] | None] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._callers: dict[tuple[str, str], tuple[str, ...] | None] = {}
        self._strings: dict[str, str | None] = {}
        # The dotted names modules sit in: a package when it is a module itself (an
        # ``__init__.py``), a plain directory of scripts otherwise.
        self._parents = {module.rpartition(".")[0] for module in sources}

    def packaged(self, module: str) -> bool:
        """Whether ``module`` belongs to a package: it is one (an ``__init__.py`` with
        modules below) or its directory's ``__init__.py`` is in the tree. A file outside
        any (``benchmarks/decoders/run.py``, ``.github/get_info.py``) is a script."""
        parent = module.rpartition(".")[0]
        return bool(parent and parent in self.sources) or module in self._parents

    def parsed(self, module: str) -> ast.Module | None:
        """The module's syntax tree, parsed once (None: it does not parse)."""
        if module not in self._trees:
            try:
                self._trees[module] = ast.parse(self.sources[module])
            except PYTHON_PARSE_ERRORS:
                self._trees[module] = None
        return self._trees[module]

    def _index(self, module: str, tree: ast.Module | None) -> dict[str, list[str | None]] | None:
        """The module's call index (``tree``: already parsed; None: it does not parse)."""
        if module not in self._indexes:
            if tree is None:
                tree = self.parsed(module)
            self._indexes[module] = (
                _call_index(tree, self.packaged(module)) if tree is not None else None
            )
        return self._indexes[module]

    def naming(self, name: str, home: str) -> list[str] | None:
        """The modules other than ``home`` whose text holds ``name`` as a word, as a
        reviewer greps for it; None when more than :data:`MAX_CALLING_MODULES` do (a
        shared utility: no need to find the rest)."""
        raw = name.encode()
        word = re.compile(rb"\b" + re.escape(raw) + rb"\b")
        modules: list[str] = []
        for module, text in self.sources.items():
            if module != home and raw in text and word.search(text):
                modules.append(module)
                if len(modules) > MAX_CALLING_MODULES:
                    return None
        return modules

    def callers(self, name: str, home: str, home_tree: ast.Module) -> tuple[str, ...] | None:
        """The names of the functions that call ``name`` (``home`` read from ``home_tree``),
        or None when it is used any other way (passed on, called at module or class
        level), in a module that does not parse, or from too many modules."""
        key = (home, name)
        if key in self._callers:
            return self._callers[key]
        modules = self.naming(name, home)
        found: tuple[str, ...] | None = None
        if modules is not None:
            names: list[str] = []
            for module in (home, *modules):
                index = self._index(module, home_tree if module == home else None)
                uses = [] if index is None else index.get(name, [])
                if index is None or None in uses:
                    names = []
                    break
                names.extend(use for use in uses if use is not None)
            found = tuple(names) if names else None
        self._callers[key] = found
        return found

    def named_in_strings(self, name: str, home: str, home_tree: ast.Module) -> bool:
        """Whether a string of ``home`` or of a module naming ``name`` holds it as a word
        (``getattr(self, "copy_latents")``, a registry's ``"pkg.m.copy_latents"``): a
        caller no call index sees, so none of :meth:`callers` is the whole story. True
        when too many modules name it to look."""
        modules = self.naming(name, home)
        if modules is None:
            return True
        word = re.compile(r"\b" + re.escape(name) + r"\b")
        for module in (home, *modules):
            if module not in self._strings:
                tree = home_tree if module == home else self.parsed(module)
                self._strings[module] = (
                    None
                    if tree is None
                    else "\n".join(
                        node.value
                        for node in ast.walk(tree)
                        if isinstance(node, ast.Constant) and isinstance(node.value, str)
                    )
                )
            strings = self._strings[module]  # a module's strings joined, read once
            if strings is None or word.search(strings) is not None:
                return True
        return False

    def reached_from(
        self,
        name: str,
        home: str,
        home_tree: ast.Module,
        globs: Sequence[str],
        strings_call: bool = False,
    ) -> tuple[str, ...] | None:
        """(fail-fast function, ..., caller of ``name``) when every chain of calls to
        ``name`` in the tree starts in a function matching ``globs`` within
        :data:`MAX_CALL_DEPTH` calls; None otherwise (a caller that is not, an attempt
        or fallback by its name, a use that is not a call, no caller at all). With
        ``strings_call``, a string naming a function on the way
        (:meth:`named_in_strings`) is a caller no index sees: None."""
        return self._reached(name, home, home_tree, globs, MAX_CALL_DEPTH, {name}, strings_call)

    def _reached(
        self,
        name: str,
        home: str,
        home_tree: ast.Module,
        globs: Sequence[str],
        depth: int,
        seen: set[str],
        strings_call: bool,
    ) -> tuple[str, ...] | None:
        """:meth:`reached_from`, ``depth`` calls left."""
        if strings_call and self.named_in_strings(name, home, home_tree):
            return None
        callers = self.callers(name, home, home_tree)
        if not callers:
            return None
        chain: tuple[str, ...] | None = None
        for caller in sorted(set(callers)):
            if (caller == IMPORT_TIME and depth == MAX_CALL_DEPTH) or _matches(caller, globs):
                # The import counts only as the direct caller: a helper three calls
                # below a module's top level may be an app's run (a streamlit page).
                chain = chain or (caller,)
                continue
            if caller == IMPORT_TIME:
                return None
            if depth <= 1 or caller in seen or _matches(caller, ATTEMPTS):
                return None
            above = self._reached(
                caller, home, home_tree, globs, depth - 1, seen | {caller}, strings_call
            )
            if above is None:
                return None
            chain = chain or (*above, caller)
        return chain


def nodes_by_function(tree: ast.Module) -> Iterator[tuple[ast.AST, str | None]]:
    """:func:`_nodes_by_function`, for the rules."""
    return _nodes_by_function(tree)


def _nodes_by_function(tree: ast.Module) -> Iterator[tuple[ast.AST, str | None]]:
    """Every node below ``tree``, parents before children, with the name of the innermost
    function whose body runs it: None at module level, in a class body (it runs at
    import), in a lambda (it is passed on, not run there) and in a ``raise`` (a call
    wording the error raised, timm's ``_checkpoint_unsafe_globals`` in a failed load's
    message, is no step of the function's path: the raise happens whatever it does)."""
    stack: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while stack:
        node, function = stack.pop()
        for child in ast.iter_child_nodes(node):
            yield child, function
            inner = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = child.name
            elif isinstance(child, (ast.ClassDef, ast.Lambda, ast.Raise)):
                inner = None
            stack.append((child, inner))


# The caller of a call the module makes as it is imported (its top-level statements, a
# class body): the package's set-up, a fail-fast path (kernels' ``__init__.py`` calling
# ``_add_additional_dll_paths()``, flash-attention setting a config default from
# ``_is_cuda_12()``).
IMPORT_TIME = "<import>"


def _import_time_calls(tree: ast.Module) -> set[int]:
    """ids of the calls ``tree`` runs as it is imported: in its top-level statements and
    class bodies (an ``if``, ``try`` or ``with`` block too), not in a function, a
    ``lambda`` (called later) or a ``raise`` (wording an error). None in a script (a
    module with an ``if __name__ == "__main__":`` block): its top level is the program's
    run, whose probes and reports are no package's set-up."""
    found: set[int] = set()
    if any(_main_guard(stmt) for stmt in tree.body):
        return found
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Raise)):
            continue
        if isinstance(node, ast.Call):
            found.add(id(node))
        stack.extend(ast.iter_child_nodes(node))
    return found


def _main_guard(stmt: ast.stmt) -> bool:
    """``if __name__ == "__main__":``."""
    test = stmt.test if isinstance(stmt, ast.If) else None
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _call_index(tree: ast.Module, packaged: bool) -> dict[str, list[str | None]]:
    """Every name called or used in the module (``name(...)``, ``x.name(...)``, ``name``)
    -> the innermost function of each call; :data:`IMPORT_TIME` for a call run at
    import of a module of a package (``packaged``); None for a use that is not a call or
    any other call outside a function (one walk a module, whatever name is asked for)."""
    out: dict[str, list[str | None]] = {}
    called: set[int] = set()
    at_import = _import_time_calls(tree) if packaged else set()
    for child, function in _nodes_by_function(tree):
        if isinstance(child, ast.Call):
            func = child.func
            callee = last_name(func)
            if callee:
                caller = function
                if caller is None and id(child) in at_import:
                    caller = IMPORT_TIME
                out.setdefault(callee, []).append(caller)
                called.add(id(func))  # the callee itself: not another use
        elif (
            isinstance(child, (ast.Name, ast.Attribute))
            and id(child) not in called
            and isinstance(child.ctx, ast.Load)
        ):
            used = last_name(child)
            out.setdefault(used, []).append(None)  # passed on or stored
    return out


# The load calls that name a model, its config or its weights by themselves: a logged
# give-up around these counts; :data:`LOAD_CALLS` adds the ones that read a file that may
# hold anything (an uploaded voice, a cached JSON), where only a silent give-up counts.
MODEL_LOADS = frozenset(
    {
        "from_pretrained",
        "from_single_file",
        "load_state_dict",
        "load_checkpoint",
        "load_weights",
        "load_model",
        "load_config",
        "load_pretrained",
    }
)
# Loading what the model needs, read from the ``try`` body the way a reviewer reads it:
# a call that loads a model, config, weights or checkpoint puts the
# catch on the pattern's "weight loading" path whatever its function is called
# (``NeuronConfig.from_pretrained`` in ``fetch_model``, ``AutoConfig.from_pretrained`` in
# ``is_vlm_model``). Callee names, exactly (``safe_open``, ``hf_hub_download``,
# ``snapshot_download`` and ``cached_file`` read any file):
LOAD_CALLS = MODEL_LOADS | {"safe_open", "hf_hub_download", "snapshot_download", "cached_file"}
# ... and ``load``/``loads`` of ``torch`` or ``safetensors`` (qualified: not ``json.load``,
# whose file may be anything), ``*load*`` names with one of these words.
_LOAD_OBJECTS = frozenset(
    {"weight", "weights", "checkpoint", "ckpt", "state", "pretrained", "safetensors"}
)
_LOAD_MODULES = ("torch.", "safetensors.")


def load_call(call: ast.Call, qualname: Callable[[ast.expr], str | None]) -> str | None:
    """The callee's name when ``call`` loads a model, config, weights or checkpoint
    (:data:`LOAD_CALLS`, ``torch.load``, ``safetensors.torch.load_file``,
    ``load_sharded_weights``, a ``*load*`` call of a hub repository id such as
    ``evaluate.load("org/metric")``), or None."""
    func = call.func
    name = last_name(func)
    if not isinstance(name, str) or not name:
        return None
    if name in LOAD_CALLS:
        return name
    words = [w for w in name.lower().split("_") if w]
    if "load" not in words:
        return None
    if not _LOAD_OBJECTS.isdisjoint(words):
        return name
    if name in ("load", "load_file"):
        dotted = qualname(func) or ""
        if dotted.startswith(_LOAD_MODULES):
            return dotted
    if call.args and _hub_id(call.args[0]):
        return name  # ``evaluate.load("org/metric")``: a model hub's repository
    return None


# A model hub repository id, ``owner/name``: no file extension, no further path.
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w-]*(?:[.-][\w-]+)*")
_FILE_SUFFIX = re.compile(r"\.[A-Za-z]{1,5}$")


def _hub_id(arg: ast.expr) -> bool:
    """Whether ``arg`` is a string literal naming a model hub repository (``"org/name"``)."""
    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
        return False
    text = arg.value
    return _HUB_ID.fullmatch(text) is not None and _FILE_SUFFIX.search(text) is None


def loads_in(
    try_stmt: ast.stmt | None,
    qualname: Callable[[ast.expr], str | None],
    only: frozenset[str] | None = None,
) -> str | None:
    """The first load call (:func:`load_call`) in a ``try`` body (not its handlers, ``else:``
    or ``finally:``; not inside a nested definition), or None. ``only``: the callee names
    that count (:data:`MODEL_LOADS`), all loads when None."""
    body: list[ast.stmt] = getattr(try_stmt, "body", [])
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Call):
            found = load_call(node, qualname)
            if found is not None and (only is None or found in only):
                return found
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return None


# Log methods at DEBUG level: a line nobody reads in production is no report of the error.
DEBUG_LOGS = frozenset({"debug", "debug_once", "trace"})


def debug_log(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is a debug-level log call (``logger.debug(...)``)."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    return isinstance(func, ast.Attribute) and func.attr in DEBUG_LOGS


def loader_methods(
    tree: ast.Module, qualname: Callable[[ast.expr], str | None]
) -> dict[int, tuple[str, frozenset[str]]]:
    """id of each method of a weight-loading class -> (class name, its method names): a
    class whose own methods load a model, config, weights or checkpoint (TGI's ``Weights``
    opens the checkpoint with ``safe_open``): its methods are the loader's code, on the
    pattern's weight-loading path."""
    out: dict[int, tuple[str, frozenset[str]]] = {}
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        methods = [
            stmt for stmt in cls.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        loads = any(
            isinstance(node, ast.Call) and load_call(node, qualname) is not None
            for method in methods
            for node in ast.walk(method)
        )
        if loads:
            names = frozenset(m.name for m in methods)
            for method in methods:
                out[id(method)] = (cls.name, names)
    return out


def calls_own_method(try_stmt: ast.stmt | None, methods: frozenset[str]) -> str | None:
    """The first ``self.<method>(...)`` call of a ``try`` body naming one of ``methods``
    (the class's own code), or None."""
    for stmt in getattr(try_stmt, "body", []):
        for node in ast.walk(stmt):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "self"
                and node.func.attr in methods
            ):
                return node.func.attr
    return None


def reached_in_module(
    tree: ast.Module, globs: Sequence[str], packaged: bool
) -> dict[str, tuple[str, ...]]:
    """Functions of the module that fail-fast code (a function matching ``globs``) calls,
    directly or within :data:`MAX_CALL_DEPTH` calls, by a call made in the module
    (``helper(...)``, ``self.helper(...)``, ``cls.helper(...)``): name -> (fail-fast
    function, ..., the function's caller). On *a* path from set-up, whoever else calls it:
    what fails there while ``__init__`` runs leaves the object half set up all the same.
    Not a function named for an attempt (``try_*``, ``maybe_*``) or an optimisation
    (``_warmup``), nor through one; a call inside a nested function runs later, not on
    its enclosing function's path. A call run at import (:data:`IMPORT_TIME`) is set-up
    when the module belongs to a package (``packaged``: :meth:`TreeCalls.packaged`)."""
    defined: set[str] = set()
    calls: dict[str, set[str]] = {}  # caller -> callees
    at_import = _import_time_calls(tree) if packaged else set()
    for child, function in _nodes_by_function(tree):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(child.name)
        elif isinstance(child, ast.Call) and function is None and id(child) in at_import:
            if isinstance(child.func, ast.Name):
                calls.setdefault(IMPORT_TIME, set()).add(child.func.id)
        elif isinstance(child, ast.Call) and function is not None:
            func = child.func
            callee = None
            if isinstance(func, ast.Name):
                callee = func.id
            elif (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id in ("self", "cls")
            ):
                callee = func.attr
            if callee is not None:
                calls.setdefault(function, set()).add(callee)

    def on_path(callee: str) -> bool:
        """A function of the module a set-up step may be: not a dunder, not fail-fast
        itself (its own chain starts there), not named for an attempt or an
        optimisation."""
        return (
            callee in defined
            and not callee.startswith("__")
            and not _matches(callee, globs)
            and not _matches(callee, ATTEMPTS)
            and not optimisation_name(callee)
        )

    # What the module's import runs directly (not what that calls in turn: see
    # :meth:`TreeCalls._reached`).
    found: dict[str, tuple[str, ...]] = {
        callee: (IMPORT_TIME,) for callee in sorted(calls.get(IMPORT_TIME, ())) if on_path(callee)
    }
    frontier: list[tuple[str, tuple[str, ...]]] = [
        (caller, (caller,)) for caller in sorted(calls) if _matches(caller, globs)
    ]
    for _ in range(MAX_CALL_DEPTH):
        following: list[tuple[str, tuple[str, ...]]] = []
        for caller, chain in frontier:
            for callee in sorted(calls.get(caller, ())):
                if callee in found or not on_path(callee):
                    continue
                found[callee] = chain
                following.append((callee, (*chain, callee)))
        frontier = following
    return found
