# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``async-blocking`` (sweep, added lines): blocking calls and ``await`` under a lock in
``async def`` code.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import register
from policytool.engine.source import SourceFile
from policytool.rules._pysource import Ctx, SourceInfo, names_match, sweep_info, unparse
from policytool.rules._sweep import BLOCK, CONFIG_DOC, WARN, finding, short, sweep_rule

DOC = f"""\
## What it checks
Inside `async def` code, on added lines: a blocking call (`time.sleep`, `requests.*`,
`urllib.request.urlopen`, `subprocess.run`/`check_output`/`call`, a blocking
`queue.get()` (not awaited nor handed to `asyncio.wait_for` / `create_task`, not
`block=False`), `future.result()` of a thread or
process future, `open(...).read()`, `path.read_text()`/`read_bytes()`), or an `await`
while a lock is held (`with self._lock:`, `async with lock:`, `lock.acquire()` ...
`release()`) when the change created the lock statement or the `await` (its first line
is added; a keyword added inside an old `await` is not a new one). Tests report only
`time.sleep` and blocking HTTP.

✗ for a blocking call on a serving path (`serving-paths`), or a lock held across an
`await` in a request-path function on a serving path. Admin paths (profiling,
`start_profile`, `stop_profile`, health and metrics endpoints) are ⚠.

## Why
The server runs one asyncio event loop: any blocking work on it stalls every
concurrent request, and a lock held across an `await` serializes the whole pipeline.

## Example
```python
async def handle(self, req):
    async with self._lock:
        resp = await self._client.call(req)  # ✗ on a serving path
    time.sleep(0.1)  # ✗ on a serving path
```

## Fix
Move blocking work off the loop with `asyncio.to_thread(...)` or `run_in_executor`, or
use an async client (`httpx.AsyncClient`, `aiohttp`). Release the lock before the
`await`, or restructure so the critical section holds no `await`. Not fixable by
`policytool fix`.

## Configuration
{CONFIG_DOC}"""


_HTTP_VERBS = frozenset({"get", "post", "put", "delete", "patch", "head", "options", "request"})
_URLLIB_CALLS = frozenset({"urllib.request.urlopen", "urllib.request.urlretrieve", "urlopen"})

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


# Calls that take a coroutine or awaitable: ``asyncio.wait_for(queue.get(), t)`` awaits it.
_AWAIT_RE = re.compile(rb"\bawait\b")
_WITH_RE = re.compile(rb"\bwith\b|\.acquire\(")
_TAKES_AWAITABLE = frozenset(
    {"wait_for", "create_task", "ensure_future", "shield", "gather", "wait", "timeout"}
)


def _handed_to_await(src: SourceInfo, call: ast.Call) -> Iterator[int]:
    """ids of the arguments of an ``asyncio`` call that awaits them (a coroutine, not a
    blocking read): ``asyncio.wait_for(self.queue.get(), timeout=t)``."""
    name = src.qualname(call.func)
    func = call.func
    attr = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
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
    word = _AWAIT_RE if isinstance(node, ast.Await) else _WITH_RE
    return word.search(src.replaced_text(first)) is None


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
                if id(lock) not in sections and (_created(src, node) or _created(src, lock)):
                    sections[id(lock)] = (lock, ctx, node)
            continue
        assert isinstance(node, ast.Call)
        awaited.update(_handed_to_await(src, node))
        found = _blocking_call(src, node, id(node) in awaited)
        if found is None or not src.node_added(node):
            continue
        api, listed = found
        if src.is_test and not listed:
            continue  # a test's own file or queue reads do not stall a server
        function = ctx.names()[-1]
        if src.is_serving and listed and not names_match(ctx.names(), ADMIN):
            yield finding(
                src,
                node,
                "async-blocking",
                BLOCK,
                f"`{api}` in `async def {function}` on a serving path stalls every request",
            )
        else:
            yield finding(
                src,
                node,
                "async-blocking",
                WARN,
                f"`{api}` in `async def {function}` blocks the event loop",
            )
    for lock, ctx, await_node in sections.values():
        text = short(src, lock, 40)
        held = f"`{text}` is held across `await` (line {await_node.lineno})"
        request = names_match(ctx.names(), src.config.request_path)
        admin = names_match(ctx.names(), ADMIN)
        if request and not admin:
            yield finding(
                src,
                lock,
                "async-blocking",
                BLOCK,
                f"{held} on request path `{request}`: it serializes every request",
            )
        else:
            yield finding(
                src, lock, "async-blocking", WARN, f"{held} in `async def {ctx.names()[-1]}`"
            )


def check(source: SourceFile, config: Config) -> list[Finding]:
    """Blocking calls and awaits under a lock on the lines the sweep looks at."""
    return list(async_blocking(sweep_info(source, config)))


RULE = register(
    sweep_rule(
        "async-blocking",
        "in `async def`: a blocking call or an `await` under a lock; ✗ on serving paths",
        check,
        DOC,
        prefilter=lambda data, config: b"async" in data,
    )
)
