# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``async-blocking`` (sweep, added lines): blocking calls and ``await`` under a lock in
``async def`` code.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterator

from policytool.config import Config
from policytool.core.globs import match_any
from policytool.engine.findings import Finding
from policytool.engine.registry import register
from policytool.engine.source import SourceFile
from policytool.formats.pyimports import resolve_relative
from policytool.rules import _fail_fast as tree
from policytool.rules import _fakes as fakes
from policytool.rules import _kwreads as kwreads
from policytool.rules._pyast import last_name
from policytool.rules._pysource import (
    Ctx,
    SourceInfo,
    lines_holding,
    names_match,
    sweep_info,
    unparse,
)
from policytool.rules._sweep import BLOCK, CONFIG_DOC, WARN, finding, short, sweep_rule
from policytool.rules._sync_clients import client_request

DOC = f"""\
## What it checks
Inside `async def` code, on added lines: a blocking call (`time.sleep`, `requests.*`, a
verb of a session a call gives (`requests.Session().get(...)`, huggingface_hub's
`get_session().get(...)`), a request through a synchronous SDK client the module binds
(`self.client.query(...)` where the class sets `self.client = boto3.client(...)`; a name
bound to `OpenAI()`, `Anthropic()`, `httpx.Client()` (its HTTP verbs), `HfApi()`,
`InferenceClient()`, or a parameter annotated as one, botocore's `BaseClient` or a
mypy-boto3 `...Client` too, and an attribute set from such a parameter; only
when every binding of the name is such a client; not a boto3 call that makes no request,
`get_paginator`, `exceptions`; not in a test, whose client talks to a mock transport),
`urllib.request.urlopen`,
`subprocess.run`/`check_output`/`call`, a blocking `queue.get()` (not awaited nor
handed to `asyncio.wait_for` / `create_task`, not `block=False`), `future.result()` of a
thread or process future, `open(...).read()`, `path.read_text()`/`read_bytes()`), or an `await`
while a lock is held (`with self._lock:`, `async with lock:`, `lock.acquire()` ...
`release()`) when the change created the lock statement or the `await` (its first line
is added; a keyword added inside an old `await` is not a new one; an old `with` of
another object that the change wraps in a lock does not make the lock old), or put an old
`await` under an old lock (dataset-viewer moved its `async with AsyncFileLock(...)`
outward over `await index_path.is_file()`: the function's base version awaited that
callee, but under no `with` of that lock; an await of the same callee only re-indented or
given other arguments under the same lock was held before, and one whose callee the
change renames is an edit). A generator
of the module that still holds a lock at its `yield` (an async context manager, a
FastAPI dependency: llama-cpp-python's `get_llama_proxy` takes its model lock, then
`yield proxy`) holds it across everything its caller awaits: the lock is reported held
across the `yield`, and `async with get_proxy():`, `async with self._slot():` or `async
with contextlib.asynccontextmanager(get_proxy)():` is a lock statement whose awaits are
held under it (a lock taken with a new `await lock.acquire()` counts as new, though its
`yield` is an old line). Not in a test file (a fixture, or a fake of the lock), and not
when every `async with` of the generator in its module awaits nothing and the module
hands it nowhere else (AReaL's `_locked_active_state`, whose handlers only read state).
Tests report only `time.sleep` and blocking HTTP, and not the `time.sleep` of a fake's
method (an `async def` taking `self`, not a `test*`, of a class a test function defines:
`BlockingFakeLogAnalyzer.run` sleeps to stand in for the slow synchronous work the test
exercises; a module-level class, a QA model the tests serve, is still read).

A sync function of the same module that an `async def` calls directly (not handed to
`asyncio.to_thread` / `run_in_executor`, not in a nested `def` or `lambda`) runs on the
event loop too: its added `time.sleep` and blocking HTTP calls are reported, up to two
calls below the `async def` (`generate` -> `self.next_id()` -> `self._refill()`).
Module-level functions are followed by name, methods through `self.`/`cls.`; not a call
into an init or set-up function (`fail-fast` names: a lazy start-up the first request
triggers runs once). Across modules, within three calls: a method reached through an
attribute the caller's class binds to its class in `__init__` (`self.id_gen =
ReqIDGenerator()` ... `self.id_gen.generate_id()` in `async def generate`), and a function
reached through its `from ... import`; read from the same bounded work tree as
`broad-except`'s callers (at most 1,500 modules and 24 MB, else not followed).

✗ for `time.sleep` or blocking HTTP on a serving path (`serving-paths`: by default
`engine/`, `entrypoints/`, `connectors/`, `server/`, `serve/`, `serving/`, the request
routers `router/`, `routers/`, `routes/`, `server.py`, `*_server.py`; and, in any
file but a test, an `async def` an HTTP route decorator registers, `@app.post("/v1/...")`),
in an `async def` or in a helper it calls; or a lock held across an
`await` in a request-path function (`request-path`), or in an `async def` such a
function awaits (up to two levels: `generate` -> `_encode` -> the lock), or in any
`async def` of a serving path's module or of an HTTP route (what it serializes is the
requests it serves, as a blocking call there stalls them; not a coroutine the module
only starts as a background task, `asyncio.create_task(self._refresh())`). A
module-level `async def` that an HTTP route of another module, or any coroutine of a
serving path's module, awaits directly is on the request path too, wherever its file sits
(its blocking calls and the locks it holds across awaits): dstack's
`@router.post(".../set_id")` awaiting `registry_services.set_service_id(...)`,
dataset-viewer's `routes/search.py` endpoint (built in a factory, undecorated) awaiting
the index builder of `libapi/duckdb.py` (the caller's module imports the function, or its
module: `import pkg.services.registry as registry_services`, `from pkg.services import
registry`; not a route of a test module, nor an admin route). ✗ too for a
`time.sleep` on the loop in any file but a test, on any path: `await asyncio.sleep(...)`
is its exact non-blocking twin, so it is never a trade-off, only a stall of everything
the loop runs (LitServe's batching loop, a service's retry back-off). Not under a
program's entry coroutine (`async def main`, `_main`, `async_main`, `amain`, or what its
module hands `asyncio.run`/`anyio.run`): there the sleep stalls the program's own
start-up (a harness polling for its browser), ⚠. Blocking HTTP off the serving paths
stays ⚠. Admin paths (profiling, `start_profile`, `stop_profile`,
health and metrics endpoints, vLLM's `sleep` mode, an RL trainer's weight push:
`update_weights`, `_run_weights_update`; any function of a module named for one, such
as lmdeploy's `serve/core/health.py`) are ⚠, and so
is a lock whose only awaits are its own `await cond.wait()` / `wait_for(...)`: an
`asyncio.Condition` releases its lock while it waits (`async with self.request_lock:
await self.request_lock.wait_for(ready)`), so no request queues behind it. A test
function (`test_*` in a test file) that holds a lock across an `await` is exercising the
lock (that unloading waits for it, that a request meanwhile gets a 409): no finding; its
blocking calls are still reported.

## Why
The server runs one asyncio event loop: any blocking work on it stalls every
concurrent request, and a lock held across an `await` serializes the whole pipeline.

## Example
```python
async def handle(self, req):
    async with self._lock:
        resp = await self._client.call(req)  # ✗ on a serving path
    time.sleep(0.1)  # ✗ on a serving path
    self._next_id()  # ✗ below, on a serving path: it runs on the loop

def _next_id(self):
    return requests.get(self.id_server_url, timeout=2)
```

## Fix
Move blocking work off the loop with `asyncio.to_thread(...)` or `run_in_executor`, or
use an async client (`httpx.AsyncClient`, `aiohttp`, `AsyncOpenAI`, `AsyncAnthropic`,
aioboto3, `AsyncInferenceClient`). Release the lock before the
`await`, or restructure so the critical section holds no `await`. Not fixable by
`policytool fix`.

## Configuration
{CONFIG_DOC}"""


_HTTP_VERBS = frozenset({"get", "post", "put", "delete", "patch", "head", "options", "request"})
_URLLIB_CALLS = frozenset({"urllib.request.urlopen", "urllib.request.urlretrieve", "urlopen"})
# Calls giving a blocking HTTP session whose verbs block like ``requests.get``: requests'
# own, and huggingface_hub's shared session (a ``requests.Session`` before 1.0, an
# ``httpx.Client`` since; sync either way).
_SESSIONS = frozenset(
    {
        "requests.Session",
        "requests.session",
        "requests.sessions.Session",
        "huggingface_hub.get_session",
        "huggingface_hub.utils.get_session",
        "huggingface_hub.utils._http.get_session",
    }
)

# Admin endpoints and tools: a lock held there does not serialize the request path.
ADMIN = (
    "*profile*",
    "*profiler*",
    "*health*",
    "*metric*",
    "*stats*",
    "*admin*",
    "*debug*",
    # vLLM's sleep mode (``sleep``, ``is_sleeping``), not a helper that sleeps on the
    # loop (``_sleep_with_backoff``).
    "sleep",
    "*_sleep",
    "*sleeping*",
    "*sleep_mode*",
    "*wake_up*",
    "*reset*cache*",
    "*shutdown*",
    # An RL trainer's weight push pauses generation on purpose (forge's
    # ``update_weights``, lmdeploy's ``_run_weights_update``).
    "*update_weight*",
    "*weights_update*",
    "*weight_update*",
)
# A program's entry coroutine (``asyncio.run(main())``): what a ``time.sleep`` there
# stalls is the program's own start-up, before it has anything running beside it on the
# loop, not a service (verifiers' browser harness polls for Chromium from ``main``).
ENTRY_POINTS = ("main", "_main", "async_main", "amain")
_LOOP_RUNNERS = frozenset({"asyncio.run", "anyio.run", "trio.run", "uvloop.run"})
_SUBPROCESS = frozenset(
    {"run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"}
)
# ``@app.post("/v1/...")``, ``@router.get(...)``: an HTTP route of a web framework
# (FastAPI, Starlette, aiohttp, Flask, Sanic): its ``async def`` serves requests.
_ROUTE_VERBS = frozenset(
    {"get", "post", "put", "delete", "patch", "route", "api_route", "websocket", "view"}
)


def is_route(function: ast.AST | None) -> bool:
    """Whether ``function`` is an ``async def`` an HTTP route decorator registers
    (``@app.post("/generate")``): a request handler of the server, on its serving path."""
    if not isinstance(function, ast.AsyncFunctionDef):
        return False
    for decorator in function.decorator_list:
        if (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr in _ROUTE_VERBS
            and isinstance(decorator.func.value, ast.Name)
            and decorator.args
            and isinstance(decorator.args[0], ast.Constant)
            and isinstance(decorator.args[0].value, str)
            and decorator.args[0].value.startswith("/")
        ):
            return True
    return False


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
    if attr in _HTTP_VERBS and isinstance(receiver, ast.Call):
        session = src.qualname(receiver.func)
        if session in _SESSIONS:
            return f"{session}().{attr}", True
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


# Calls that take a coroutine or awaitable: ``asyncio.wait_for(queue.get(), t)`` awaits it.
_AWAIT_RE = re.compile(rb"\bawait\b")
_WITH_RE = re.compile(rb"\bwith\b|\.acquire\(")
_YIELD_RE = re.compile(rb"\byield\b")
# Calls that start a coroutine in the background (:meth:`_Module.started_as_tasks`).
_TASK_STARTERS = frozenset(
    {"create_task", "ensure_future", "run_coroutine_threadsafe", "start_soon", "spawn"}
)
_TAKES_AWAITABLE = frozenset(
    {"wait_for", "create_task", "ensure_future", "shield", "gather", "wait", "timeout"}
)


def _handed_to_await(src: SourceInfo, call: ast.Call) -> Iterator[int]:
    """ids of the arguments of an ``asyncio`` call that awaits them (a coroutine, not a
    blocking read): ``asyncio.wait_for(self.queue.get(), timeout=t)``."""
    name = src.qualname(call.func)
    func = call.func
    attr = last_name(func)
    if (name is not None and name.startswith("asyncio.")) or attr in ("create_task",):
        if attr in _TAKES_AWAITABLE:
            yield from (id(arg) for arg in call.args)


def _created(src: SourceInfo, node: ast.AST) -> bool:
    """Whether the change created ``node`` (not only edited it): its first line is added
    and that hunk did not replace a line holding the same construct. An old ``await`` or
    ``async with`` with a keyword argument added inside it is not new."""
    first = getattr(node, "lineno", None)
    if first is None or not src.overlaps(first, first):
        return False
    replaced = src.replaced_text(first)
    if isinstance(node, ast.Await):
        return _AWAIT_RE.search(replaced) is None
    if isinstance(node, (ast.Yield, ast.YieldFrom)):
        return _YIELD_RE.search(replaced) is None
    if _WITH_RE.search(replaced) is None:
        return True
    # A lock the replaced lines never named is new, though they held another ``with``
    # (llama-cpp-python wraps its old ``async with inner_send_chan:`` in the
    # dependency's lock).
    name = (src.lock_generator(node) if isinstance(node, ast.expr) else None) or last_name(
        node.func if isinstance(node, ast.Call) else node
    )
    return bool(name) and name.encode() not in replaced


def _moved_under(src: SourceInfo, ctx: Ctx, lock: ast.expr, node: ast.AST) -> bool:
    """Whether the change puts the old ``await`` ``node`` under the old ``lock``: its line
    is added, and the base version of the function awaited the same callee, but under no
    ``with`` of a lock of that name (dataset-viewer moved its ``async with
    AsyncFileLock(...)`` outward over ``await index_path.is_file()``). An await of the same
    callee under the same lock was held before (dstack re-indents its retry loop's ``await
    asyncio.sleep(...)`` under an ``if`` and names the interval): not moved; nor is an
    await whose callee the change renames (forge's ``setup_metric_logger`` turned
    ``get_or_create_metric_logger`` under its provisioner's lock)."""
    line = getattr(node, "lineno", None)
    if not isinstance(node, ast.Await) or line is None or not src.overlaps(line, line):
        return False
    func = ctx.innermost
    if not isinstance(func, ast.AsyncFunctionDef):
        return False
    base = src.base_function(func)
    if base is None:
        return False  # a new function: :func:`_created` reads its lines
    awaited, held = _base_awaits(src, base, _lock_name(lock))
    callee = _awaited_callee(node)
    # Awaited in the base version, but not under the lock: moved in. One the base never
    # awaited replaced another await on its line (:func:`_created`): an edit, not a move.
    return callee in awaited and callee not in held


def _base_awaits(
    src: SourceInfo, base: ast.AsyncFunctionDef | ast.FunctionDef, lock: str
) -> tuple[frozenset[str], frozenset[str]]:
    """The callees the base version of a function awaits, and those it awaits under a
    ``with`` of the lock named ``lock``; read once per function and lock, not once per
    await of the section."""
    key = f"base_awaits:{id(base)}:{lock}"
    cached = src.cache.get(key)
    if isinstance(cached, tuple):
        return cached
    held: set[str] = set()
    awaited: set[str] = set()
    for stmt in kwreads.body_nodes(base):
        if isinstance(stmt, ast.Await):
            awaited.add(_awaited_callee(stmt))
        if isinstance(stmt, (ast.With, ast.AsyncWith)) and any(
            _lock_name(item.context_expr) == lock for item in stmt.items
        ):
            held.update(
                _awaited_callee(sub)
                for inner in stmt.body
                for sub in ast.walk(inner)
                if isinstance(sub, ast.Await)
            )
    found = (frozenset(awaited), frozenset(held))
    src.cache[key] = found
    return found


def _awaited_callee(node: ast.Await) -> str:
    """What an ``await`` calls (``asyncio.sleep`` for ``await asyncio.sleep(0.5)``), or
    its whole text when it awaits no call: an await whose arguments the change edits
    (``asyncio.sleep(_LOCK_RETRY_INTERVAL)`` for ``asyncio.sleep(0.5)``) is the same."""
    value = node.value
    return unparse(value.func if isinstance(value, ast.Call) else value, 200)


def _lock_name(lock: ast.expr) -> str:
    """The name a lock is taken by: ``AsyncFileLock`` for ``AsyncFileLock(path,
    timeout=60)``, ``self._lock`` for ``self._lock``."""
    return unparse(lock.func if isinstance(lock, ast.Call) else lock, 200)


def _module_stem(path: str) -> str:
    """``health`` for ``pkg/serve/core/health.py``."""
    return path.rpartition("/")[2].removesuffix(".py")


def _entered_without_await(src: SourceInfo, generator: str) -> bool:
    """Whether the module enters lock-holding ``generator`` only with ``with``/``async
    with`` blocks that await nothing, and names it nowhere else (no ``Depends(gen)``,
    no handing it on): then the lock it holds at its ``yield`` is held across no await.
    False when the module never enters it (its callers are elsewhere)."""
    entered = 0
    for node in ast.walk(src.tree):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            if not any(src.lock_generator(item.context_expr) == generator for item in node.items):
                continue
            entered += 1
            if any(isinstance(sub, ast.Await) for stmt in node.body for sub in ast.walk(stmt)):
                return False
    if not entered:
        return False
    named = sum(
        1
        for node in ast.walk(src.tree)
        if (isinstance(node, ast.Name) and node.id == generator)
        or (isinstance(node, ast.Attribute) and node.attr == generator)
    )
    # Each ``with gen()`` names it once; any other mention hands it on.
    return named <= entered


def _newly_awaited(src: SourceInfo, lock: ast.expr) -> bool:
    """Whether the line taking ``lock`` is an ``await`` the change created
    (``lock.acquire()`` made ``await lock.acquire()``: an asyncio lock now, held on the
    loop)."""
    line = lock.lineno
    return (
        src.overlaps(line, line)
        and _AWAIT_RE.search(src.byte_lines[line - 1]) is not None
        and _AWAIT_RE.search(src.replaced_text(line)) is None
    )


_Key = tuple[str | None, str]
_Def = ast.FunctionDef | ast.AsyncFunctionDef
# How many calls deep a function reached from ``async def`` code is followed (the sync
# helper the async function calls, and the helper's own helper).
DEPTH = 2
# The words of a listed blocking call (:func:`_blocking_call`'s ✗ set) in the bytes.
_LISTED_WORDS = (b"sleep", b"requests", b"urlopen", b"urlretrieve", b"get_session")


class _Module:
    """The module's functions and methods and their direct calls to each other: which
    sync function runs on the event loop (called, not handed to ``to_thread``, from an
    ``async def``) and which ``async def`` a request-path function awaits."""

    def __init__(self, tree: ast.Module) -> None:
        """Index the module-level functions and the methods of module-level classes."""
        self.defs: dict[_Key, _Def] = {}
        self.owner: dict[int, str | None] = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                self.defs[(None, stmt.name)] = stmt
                self.owner[id(stmt)] = None
            elif isinstance(stmt, ast.ClassDef):
                for item in stmt.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        self.defs[(stmt.name, item.name)] = item
                        self.owner[id(item)] = stmt.name
        self._callees: dict[int, list[tuple[_Def, bool]]] = {}
        # (class, name) -> the functions calling it (:meth:`callers`).
        self._callers: dict[_Key, list[_Key]] | None = None
        # :meth:`awaited_by_request` by request-path globs: asked once a held lock.
        self._awaited: dict[tuple[str, ...], dict[str, str]] = {}
        self._tree = tree
        self._tasks: frozenset[str] | None = None

    def started_as_tasks(self) -> frozenset[str]:
        """Names of the coroutines the module starts as background tasks
        (``asyncio.create_task(self._refresh())``, ``ensure_future``,
        ``run_coroutine_threadsafe``, a task group's ``start_soon``): no request awaits
        them, so a lock they hold serializes no request by itself. Read once."""
        if self._tasks is None:
            self._tasks = frozenset(
                last_name(node.args[0].func if isinstance(node.args[0], ast.Call) else node.args[0])
                for node in ast.walk(self._tree)
                if isinstance(node, ast.Call)
                and node.args
                and last_name(node.func) in _TASK_STARTERS
            )
        return self._tasks

    def callees(self, func: _Def) -> list[tuple[_Def, bool]]:
        """The functions of this module ``func`` calls directly in its own body (not in a
        nested ``def``/``lambda``, which may run elsewhere): ``helper(...)`` for a
        module-level function, ``self.helper(...)``/``cls.helper(...)`` for a method of
        its class, each with whether the call is awaited. A function handed over
        uncalled (``to_thread(self.helper)``) is not a call."""
        cached = self._callees.get(id(func))
        if cached is not None:
            return cached
        cls = self.owner.get(id(func))
        out: list[tuple[_Def, bool]] = []
        for call, awaited in body_calls(func):
            target = call.func
            key: _Key | None = None
            if isinstance(target, ast.Name):
                key = (None, target.id)
            elif (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id in ("self", "cls")
                and cls is not None
            ):
                key = (cls, target.attr)
            callee = self.defs.get(key) if key is not None else None
            if callee is not None and callee is not func:
                out.append((callee, awaited))
        self._callees[id(func)] = out
        return out

    def callers(self, key: _Key) -> list[_Key]:
        """The functions of this module that call the function ``key`` directly
        (:meth:`callees` read backwards), in the order of :attr:`defs`; indexed once, not
        once for each function asked about."""
        if self._callers is None:
            self._callers = {}
            for caller, func in self.defs.items():
                for callee, _awaited in self.callees(func):
                    found = self._callers.setdefault((self.owner.get(id(callee)), callee.name), [])
                    if not found or found[-1] != caller:
                        found.append(caller)
        return self._callers.get(key, [])

    def on_loop(self, once: tuple[str, ...]) -> dict[int, tuple[_Def, str]]:
        """id(sync function) -> (the function, the ``async def`` whose call runs it on
        the loop), at most :data:`DEPTH` calls below the ``async def``. A function whose
        name matches ``once`` (init and set-up, the ``fail-fast`` names) is not followed:
        a lazy set-up the first request triggers runs once, not per request."""
        reached: dict[int, tuple[_Def, str]] = {}
        for func in self.defs.values():
            if not isinstance(func, ast.AsyncFunctionDef):
                continue
            frontier: list[_Def] = [func]
            for _level in range(DEPTH):
                below: list[_Def] = []
                for caller in frontier:
                    for callee, _call in self.callees(caller):
                        if not isinstance(callee, ast.FunctionDef) or id(callee) in reached:
                            continue
                        if names_match([callee.name], once) is not None:
                            continue
                        reached[id(callee)] = (callee, func.name)
                        below.append(callee)
                frontier = below
        return reached

    def awaited_by_request(self, request_path: tuple[str, ...]) -> dict[str, str]:
        """``async def`` name -> the request-path function that awaits it, directly or
        through one more ``async def`` (:data:`DEPTH` levels); computed once."""
        cached = self._awaited.get(request_path)
        if cached is not None:
            return cached
        reached: dict[str, str] = {}
        self._awaited[request_path] = reached
        for func in self.defs.values():
            if not isinstance(func, ast.AsyncFunctionDef):
                continue
            if names_match([func.name], request_path) is None:
                continue
            frontier: list[_Def] = [func]
            for _level in range(DEPTH):
                below: list[_Def] = []
                for caller in frontier:
                    for callee, awaited in self.callees(caller):
                        if not isinstance(callee, ast.AsyncFunctionDef):
                            continue
                        if callee.name in reached or not awaited:
                            continue
                        reached[callee.name] = func.name
                        below.append(callee)
                frontier = below
        return reached


def body_calls(func: _Def) -> Iterator[tuple[ast.Call, bool]]:
    """(call, whether an ``await`` takes it) in ``func``'s own body, not in a nested
    ``def``, ``lambda`` or class."""
    stack: list[ast.AST] = list(func.body)
    awaited: set[int] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Await):
            awaited.add(id(node.value))
        elif isinstance(node, ast.Call):
            yield node, id(node) in awaited
        stack.extend(ast.iter_child_nodes(node))


def _module(src: SourceInfo) -> _Module:
    """The file's :class:`_Module`, built once."""
    cached = src.cache.get("async_module")
    if not isinstance(cached, _Module):
        cached = _Module(src.tree)
        src.cache["async_module"] = cached
    return cached


def _listed_calls(src: SourceInfo, func: _Def) -> list[tuple[ast.Call, str]]:
    """The added ``time.sleep`` and blocking HTTP calls (:func:`_blocking_call`'s ✗ set)
    in ``func``'s own body, with the API each names."""
    out: list[tuple[ast.Call, str]] = []
    for call, _awaited in body_calls(func):
        found = _blocking_call(src, call, False)
        if found is not None and found[1] and src.node_added(call):
            out.append((call, found[0]))
    return out


def run_targets(src: SourceInfo) -> frozenset[str]:
    """The coroutine functions the module hands to an event loop's runner:
    ``asyncio.run(main())``, ``anyio.run(main)`` (walked once a file)."""
    cached = src.cache.get("run_targets")
    if not isinstance(cached, frozenset):
        cached = src.cache["run_targets"] = _handed_to_runners(src)
    return cached


def _handed_to_runners(src: SourceInfo) -> frozenset[str]:
    """:func:`run_targets`, walked."""
    if b"run(" not in src.data:
        return frozenset()
    found: set[str] = set()
    for node in ast.walk(src.tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        if src.qualname(node.func) not in _LOOP_RUNNERS:
            continue
        target = node.args[0]
        if isinstance(target, ast.Call):
            target = target.func
        if isinstance(target, ast.Name):
            found.add(target.id)
    return frozenset(found)


def is_entry(src: SourceInfo | None, name: str) -> bool:
    """Whether the ``async def`` ``name`` is a program's entry coroutine: named so
    (:data:`ENTRY_POINTS`), or handed to ``asyncio.run`` by its module ``src`` (None: a
    module not read here)."""
    return names_match([name], ENTRY_POINTS) is not None or (
        src is not None and name in run_targets(src)
    )


def _blocking_finding(
    src: SourceInfo,
    call: ast.Call,
    api: str,
    where: str,
    names: list[str],
    serving: bool,
    entry: bool = False,
) -> Finding:
    """The finding for a listed blocking call ``api`` that runs on the loop (``where``);
    ``entry``: the ``async def`` it runs under is a program's entry (:func:`is_entry`).

    ✗ on a serving path unless an admin function is on the way (``names``); ✗ too for a
    ``time.sleep`` in code that is not a test, wherever it runs, but from a program's
    entry coroutine (``main``, or what the module hands ``asyncio.run``): it has an
    exact non-blocking twin, ``await asyncio.sleep(...)``, so on an event loop it is
    never a trade-off, only a stall of everything the loop runs (LitServe's batching
    loop, a service's retry back-off). ⚠ otherwise: a blocking HTTP client off the
    serving path may be all a library offers."""
    if names_match(names, ADMIN) is None:
        if serving:
            return finding(
                src,
                call,
                "async-blocking",
                BLOCK,
                f"{where} on a serving path stalls every request",
            )
        if api == "time.sleep" and not src.is_test and not entry:
            return finding(
                src,
                call,
                "async-blocking",
                BLOCK,
                f"{where} stalls everything the event loop runs; "
                "`await asyncio.sleep(...)` yields instead",
            )
    return finding(src, call, "async-blocking", WARN, f"{where} blocks the event loop")


def _helpers_on_loop(src: SourceInfo) -> Iterator[Finding]:
    """Listed blocking calls (``time.sleep``, blocking HTTP) on added lines of a sync
    function of this module that an ``async def`` calls directly, so that it runs on
    the event loop (at most :data:`DEPTH` calls below it), or that an ``async def`` of
    another module reaches (:func:`_reached_elsewhere`). Tests are left out."""
    if src.is_test:
        return
    words = list(_LISTED_WORDS)
    # ``import requests as rq``: ``rq.get(...)`` names none of the words.
    words.extend(
        name.encode()
        for name, target in src.aliases.items()
        if target.split(".", 1)[0] in ("requests", "urllib") or target == "time.sleep"
    )
    lines = [n for n in lines_holding(src.data, words) if src.overlaps(n, n)]
    if not lines:
        return
    module = _module(src)
    # Only a sync function spanning such a line can hold one: most files have none, and
    # then the calls of the async functions are not walked again.
    holding = [
        func
        for func in module.defs.values()
        if isinstance(func, ast.FunctionDef) and _spans(lines, func.lineno, func.end_lineno)
    ]
    if not holding:
        return
    reached = module.on_loop(src.config.fail_fast) if b"async def" in src.data else {}
    for helper, caller in reached.values():
        for call, api in _listed_calls(src, helper):
            where = f"`{api}` in `{helper.name}`, which `async def {caller}` calls on the loop,"
            yield _blocking_finding(
                src,
                call,
                api,
                where,
                [caller, helper.name],
                src.is_serving,
                is_entry(src, caller),
            )
    for helper in holding:
        if id(helper) in reached or names_match([helper.name], src.config.fail_fast):
            continue
        calls = _listed_calls(src, helper)
        chain = _reached_elsewhere(src, module, helper) if calls else None
        if chain is None:
            continue
        via = " -> ".join(f"`{step}`" for step in chain[2:])
        for call, api in calls:
            where = (
                f"`{api}` in `{helper.name}`, which `async def {chain[1]}` in `{chain[0]}` "
                f"reaches on the loop{f' (via {via})' if via else ''},"
            )
            names = [chain[1], *chain[2:], helper.name]
            yield _blocking_finding(
                src, call, api, where, names, src.is_serving, is_entry(None, chain[1])
            )


def _spans(lines: list[int], first: int, last: int | None) -> bool:
    """Whether one of the sorted ``lines`` lies in ``first..last``."""
    index = bisect.bisect_left(lines, first)
    return index < len(lines) and lines[index] <= (last or first)


# A node of the upward search: (module, class or None, function name).
_Node = tuple[str, str | None, str]


def _reached_elsewhere(src: SourceInfo, module: _Module, helper: _Def) -> tuple[str, ...] | None:
    """(module, ``Class.async_def``, step, ...) when an ``async def`` reaches ``helper``
    within :data:`_fail_fast.MAX_CALL_DEPTH` direct calls through at least one call from
    another module of the work tree: a method through an attribute the caller's class
    binds to the helper's class in ``__init__`` (``self.id_gen = ReqIDGenerator()`` ...
    ``self.id_gen.generate_id()``), a module-level function through its import. Calls in
    this module are followed as :meth:`_Module.on_loop` does; an init or set-up function
    (the ``fail-fast`` names) is not followed. The tree is the bounded one
    :func:`_fail_fast.tree_calls` reads (None when it is too large)."""
    calls = tree.tree_calls(src.root, fakes.SKIP_DIRS)
    if calls is None:
        return None
    home = tree.module_name(src.path)
    modules: dict[str, _Module | None] = {home: module}

    def module_of(name: str) -> _Module | None:
        if name not in modules:
            parsed = calls.parsed(name) if name in calls.sources else None
            modules[name] = _Module(parsed) if parsed is not None else None
        return modules[name]

    start: _Node = (home, module.owner.get(id(helper)), helper.name)
    frontier: list[tuple[_Node, tuple[str, ...], bool]] = [(start, (), False)]
    seen = {start}
    for _level in range(tree.MAX_CALL_DEPTH):
        below: list[tuple[_Node, tuple[str, ...], bool]] = []
        for node, steps, crossed in frontier:
            for caller, elsewhere in _callers_of(node, module_of, calls):
                name = f"{caller[1]}.{caller[2]}" if caller[1] else caller[2]
                found = module_of(caller[0])
                func = found.defs.get((caller[1], caller[2])) if found is not None else None
                if func is None or names_match([caller[2]], src.config.fail_fast):
                    continue
                if isinstance(func, ast.AsyncFunctionDef):
                    if crossed or elsewhere:
                        return (caller[0], name, *steps)
                    continue  # in this module: :meth:`_Module.on_loop`'s reading
                if caller not in seen:
                    seen.add(caller)
                    below.append((caller, (caller[2], *steps), crossed or elsewhere))
        frontier = below
    return None


def _callers_of(
    node: _Node, module_of: Callable[[str], _Module | None], calls: tree.TreeCalls
) -> Iterator[tuple[_Node, bool]]:
    """The functions that call ``node`` directly: in its own module (:meth:`_Module.callees`)
    and in the other modules whose text names it, each with whether it is elsewhere."""
    home, cls, name = node
    own = module_of(home)
    if own is not None:
        for key in own.callers((cls, name)):
            yield (home, key[0], key[1]), False
    others = calls.naming(name, home)
    for other in others or []:
        found = module_of(other)
        parsed = calls.parsed(other)
        if found is None or parsed is None:
            continue
        imported = _imported_from(parsed, other, home)
        target = cls if cls is not None else name
        local = {alias for alias, real in imported.items() if real == target}
        if not local:
            continue
        for key, func in found.defs.items():
            bound = _bound_to(found, key[0], local) if cls is not None else set()
            for call, _awaited in body_calls(func):
                if _calls_through(call, name, local if cls is None else None, bound):
                    yield (other, key[0], key[1]), True
                    break


def _imported_from(parsed: ast.Module, module: str, home: str) -> dict[str, str]:
    """Local name -> imported name of each ``from <home> import X [as Y]`` in ``module``
    (relative or absolute; a tree under ``src/`` imports without the prefix)."""
    package = module.rpartition(".")[0]
    out: dict[str, str] = {}
    for node in ast.walk(parsed):
        if not isinstance(node, ast.ImportFrom):
            continue
        resolved = resolve_relative(package, node.level, node.module)
        if not resolved or not (resolved == home or home.endswith("." + resolved)):
            continue
        for alias in node.names:
            out[alias.asname or alias.name] = alias.name
    return out


def _bound_to(module: _Module, cls: str | None, local: set[str]) -> set[str]:
    """The attributes ``cls.__init__`` binds to an instance of one of the ``local`` class
    names (``self.id_gen = ReqIDGenerator(...)``)."""
    init = module.defs.get((cls, "__init__")) if cls is not None else None
    out: set[str] = set()
    for stmt in ast.walk(init) if init is not None else ():
        if (
            isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name)
            and stmt.value.func.id in local
        ):
            for target in stmt.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    out.add(target.attr)
    return out


def _calls_through(
    call: ast.Call, name: str, functions: set[str] | None, attributes: set[str]
) -> bool:
    """Whether ``call`` is ``alias(...)`` of an imported function (``functions``) or
    ``self.<attribute>.<name>(...)`` through one of the bound ``attributes``."""
    func = call.func
    if functions is not None:
        return isinstance(func, ast.Name) and func.id in functions
    return (
        isinstance(func, ast.Attribute)
        and func.attr == name
        and isinstance(func.value, ast.Attribute)
        and func.value.attr in attributes
        and isinstance(func.value.value, ast.Name)
        and func.value.value.id == "self"
    )


def route_elsewhere(src: SourceInfo, ctx: Ctx) -> tuple[str, str] | None:
    """(module, route) when ``ctx``'s function is a module-level ``async def`` that an
    HTTP route, or a coroutine of a serving path's module (``serving-paths``), of another
    module of the work tree awaits directly: dstack's
    ``@router.post(".../set_id") async def set_service_id(...)`` in ``routers/registry.py``
    awaiting ``registry_services.set_service_id(...)`` of ``services/registry.py``. The
    route's module names this one by an import (``import pkg.services.registry as
    registry_services``, ``from pkg.services import registry``) or names the function
    (``from pkg.services.registry import set_service_id``). Not for tests, nor a route a
    test module defines; None when the work tree is too large to read
    (:func:`_fail_fast.tree_calls`)."""
    if src.is_test or len(ctx.funcs) != 1:
        return None
    func = ctx.funcs[0]
    owner = _module(src).owner
    # A module-level function: a method is reached through its instance, not by name.
    if not isinstance(func, ast.AsyncFunctionDef) or id(func) not in owner or owner[id(func)]:
        return None
    key = f"route_elsewhere:{func.name}"
    if key in src.cache:
        found = src.cache[key]
        return found if isinstance(found, tuple) else None
    src.cache[key] = None
    calls = tree.tree_calls(src.root, fakes.SKIP_DIRS)
    if calls is None:
        return None
    home = tree.module_name(src.path)
    for other in calls.naming(func.name, home) or []:
        # A test's app routing to the function exercises it: no request path of the code.
        if match_any(other.replace(".", "/") + ".py", src.config.test_paths):
            continue
        parsed = calls.parsed(other)
        if parsed is None:
            continue
        functions = {
            alias
            for alias, real in _imported_from(parsed, other, home).items()
            if real == func.name
        }
        modules = _module_aliases(parsed, other, home)
        if not functions and not modules:
            continue
        # Every coroutine of a serving path's module serves requests (dataset-viewer's
        # ``routes/search.py`` builds its endpoint in a factory, undecorated).
        serving = match_any(other.replace(".", "/") + ".py", src.config.serving_paths)
        for node in ast.walk(parsed):
            if not isinstance(node, ast.AsyncFunctionDef) or not (serving or is_route(node)):
                continue
            for call, awaited in body_calls(node):
                if awaited and _names_function(call, func.name, functions, modules):
                    src.cache[key] = (other, node.name)
                    return other, node.name
    return None


def _module_aliases(parsed: ast.Module, module: str, home: str) -> set[str]:
    """The names ``module`` reads the module ``home`` by: ``import a.b.home as x`` (x),
    ``from a.b import home [as x]`` (home or x), ``import a.b.home`` (``a.b.home``);
    relative or absolute, a tree under ``src/`` importing without the prefix."""
    package = module.rpartition(".")[0]

    def is_home(dotted: str) -> bool:
        return bool(dotted) and (dotted == home or home.endswith("." + dotted))

    out: set[str] = set()
    for node in ast.walk(parsed):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_home(alias.name):
                    out.add(alias.asname or alias.name)
        elif isinstance(node, ast.ImportFrom):
            resolved = resolve_relative(package, node.level, node.module)
            for alias in node.names:
                if resolved and is_home(f"{resolved}.{alias.name}"):
                    out.add(alias.asname or alias.name)
    return out


def _names_function(call: ast.Call, name: str, functions: set[str], modules: set[str]) -> bool:
    """Whether ``call`` is ``f(...)`` of an imported alias of the function (``functions``)
    or ``m.name(...)`` through a name of its module (``modules``)."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in functions
    return isinstance(func, ast.Attribute) and func.attr == name and unparse(func.value) in modules


def async_blocking(src: SourceInfo) -> Iterator[Finding]:
    """Blocking calls and awaits under a lock, in ``async def`` code and in the sync
    functions of the module an ``async def`` calls directly.

    A lock held across awaits is reported once, at the ``with``/``acquire`` line, when
    the lock statement or one of the awaits under it is new.
    """
    # lock -> (lock, where, the await shown, whether every await so far is the held
    # condition's own wait)
    sections: dict[int, tuple[ast.expr, Ctx, ast.expr, bool]] = {}
    awaited: set[int] = set()
    for node, ctx in src.of_type(ast.Call, ast.Await, ast.Yield):
        if not ctx.in_async:
            continue
        if isinstance(node, (ast.Await, ast.Yield)):
            # A ``yield`` under a lock (an async context manager, a FastAPI dependency)
            # holds it across every await of the caller's ``async with`` body.
            if isinstance(node, ast.Await):
                awaited.add(id(node.value))
            for lock in ctx.locks:
                known = sections.get(id(lock))
                if known is not None and not known[3]:
                    continue  # settled: an await other than its condition's own wait
                waits = isinstance(node, ast.Await) and _waits_on(node, lock)
                if known is not None and waits:
                    continue
                if _created(src, node) or _created(src, lock) or _moved_under(src, ctx, lock, node):
                    sections[id(lock)] = (lock, ctx, node, waits)
            continue
        assert isinstance(node, ast.Call)
        awaited.update(_handed_to_await(src, node))
        if not src.node_added(node):
            continue
        found = _blocking_call(src, node, id(node) in awaited)
        if found is None and id(node) not in awaited and not src.is_test:
            # A test's synchronous SDK client talks to a mock transport, not a server.
            cls = _module(src).owner.get(id(ctx.funcs[0])) if ctx.funcs else None
            request = client_request(src, node, ctx, cls)
            found = (request, True) if request is not None else None
        if found is None:
            continue
        api, listed = found
        if src.is_test and not listed:
            continue  # a test's own file or queue reads do not stall a server
        if src.is_test and api == "time.sleep" and _fake_method(ctx):
            continue  # a test's fake sleeps on purpose: the slow work it stands in for
        where = f"`{api}` in `async def {ctx.names()[-1]}`"
        if not listed:
            yield finding(src, node, "async-blocking", WARN, f"{where} blocks the event loop")
            continue
        serving = src.is_serving or (not src.is_test and is_route(ctx.innermost))
        if not serving:
            route = route_elsewhere(src, ctx)
            serving = route is not None and names_match([route[1]], ADMIN) is None
        entry = is_entry(src, ctx.names()[-1])
        yield _blocking_finding(src, node, api, where, ctx.names(), serving, entry)
    yield from _helpers_on_loop(src)
    for function, (lock, yielded) in src.lock_generators.values():
        # The ``yield`` of a lock-holding generator may be an old line: a new lock taken
        # before it is held across it all the same.
        if (
            isinstance(function, ast.AsyncFunctionDef)
            and id(lock) not in sections
            and (_created(src, lock) or _created(src, yielded) or _newly_awaited(src, lock))
        ):
            sections[id(lock)] = (lock, Ctx((function,)), yielded, False)
    for lock, ctx, await_node, only_waits in sections.values():
        if src.is_test and any(name.startswith("test") for name in ctx.names()):
            # A test holding a lock across an await is exercising it (that a second
            # request waits, or gets a 409): the contention is what the test is about.
            continue
        if isinstance(await_node, (ast.Yield, ast.YieldFrom)) and (
            src.is_test or _entered_without_await(src, ctx.names()[-1])
        ):
            # A test's generator holding a lock is a fixture or a fake of the lock; a
            # module whose every ``async with`` of it awaits nothing (AReaL's
            # ``_locked_active_state``, whose handlers only read state) holds it across
            # no await.
            continue
        generator = src.lock_generator(lock)
        text = (
            f"the lock `{generator}()` holds at its `yield`"
            if generator is not None
            else f"`{short(src, lock, 40)}`"
        )
        across = (
            f"`yield` (line {await_node.lineno}), so across its caller's awaits,"
            if isinstance(await_node, (ast.Yield, ast.YieldFrom))
            else f"`await` (line {await_node.lineno})"
        )
        held = f"{text} is held across {across}"
        names = ctx.names()
        request = names_match(names, src.config.request_path)
        # A module named for an admin concern (lmdeploy's ``serve/core/health.py``) is
        # admin whatever its functions are called (``probe_once``).
        admin = names_match([*names, _module_stem(src.path)], ADMIN)
        path = f"`{request}`"
        if request is None and not admin:
            # A helper the request path awaits (``generate`` -> ``_encode`` -> here).
            caller = _module(src).awaited_by_request(src.config.request_path).get(names[-1])
            if caller is not None and names_match([caller], ADMIN) is None:
                request = caller
                path = f"`{caller}` (it awaits `{names[-1]}`)"
        if (
            request is None
            and not admin
            and (src.is_serving or is_route(ctx.innermost))
            and names[-1] not in _module(src).started_as_tasks()
        ):
            # A server module's coroutine, or an HTTP route's: what it serializes is the
            # requests it serves, as a blocking call there stalls them.
            request = names[-1]
            kind = "a serving path's coroutine" if src.is_serving else "an HTTP route"
            path = f"`{request}` ({kind})"
        if request is None and not admin:
            route = route_elsewhere(src, ctx)
            if route is not None and names_match([route[1]], ADMIN) is None:
                request = route[1]
                route_module = route[0].removeprefix("src.")
                path = f"`{route[1]}` (in `{route_module}`, it awaits `{names[-1]}`)"
        if only_waits and isinstance(await_node, ast.Await):
            # A condition's own wait releases the lock while it waits: nothing queues
            # behind it (⚠, an await in the critical section, never ✗).
            held += f", its own `{short(src, await_node.value, 40)}` (it releases the lock)"
        if request and not admin and not only_waits:
            yield finding(
                src,
                lock,
                "async-blocking",
                BLOCK,
                f"{held} on request path {path}: it serializes every request",
            )
        else:
            yield finding(
                src, lock, "async-blocking", WARN, f"{held} in `async def {ctx.names()[-1]}`"
            )


def _waits_on(node: ast.Await, lock: ast.expr) -> bool:
    """Whether ``node`` awaits the held lock's own ``wait()`` / ``wait_for()``: an
    ``asyncio.Condition`` releases its lock while it waits (forge's ``async with
    self.request_lock: await self.request_lock.wait_for(...)``), so no request queues
    behind that await."""
    call = node.value
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in ("wait", "wait_for")
        and unparse(call.func.value, 200) == unparse(lock, 200)
    )


def _fake_method(ctx: Ctx) -> bool:
    """Whether the node's function is a method (``self`` first, not a ``test*``) of a
    class a test function defines: a fake (``BlockingFakeLogAnalyzer.run`` sleeps to
    stand in for the slow synchronous work the test exercises). A module-level class of a
    test directory (a QA model served for the tests) is code under test."""
    function = ctx.innermost
    if not isinstance(function, ast.AsyncFunctionDef) or function.name.startswith("test"):
        return False
    positional = [*function.args.posonlyargs, *function.args.args]
    return len(ctx.funcs) >= 2 and bool(positional) and positional[0].arg == "self"


def check(source: SourceFile, config: Config) -> list[Finding]:
    """Blocking calls and awaits under a lock on the lines the sweep looks at."""
    return list(async_blocking(sweep_info(source, config)))


RULE = register(
    sweep_rule(
        "async-blocking",
        "in `async def`: a blocking call or an `await` under a lock; ✗ on serving paths",
        check,
        DOC,
        # A file without ``async`` may hold a helper another module's ``async def`` reaches.
        prefilter=lambda data, config: b"async" in data or any(w in data for w in _LISTED_WORDS),
    )
)
