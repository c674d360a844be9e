# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""async-blocking: a lock held at a generator's ``yield`` (an async context manager, a
FastAPI dependency) is held across everything its caller awaits inside ``async with``.
llama-cpp-python's server (set zzzq) takes its model lock in ``get_llama_proxy`` and
yields the proxy while holding it; each route enters it with ``async with
contextlib.asynccontextmanager(get_llama_proxy)() as proxy:`` and awaits the whole
completion under it. And a lock held across an ``await`` in a serving path's module, or
in an HTTP route, serializes the requests it serves: ✗ as a blocking call there is (an
RL weight push, on purpose, stays ⚠)."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

# The server's dependency, lines 1-14 of srv/server/app.py in every version.
APP_HEAD = (
    "import contextlib\n"  # 1
    "from anyio import Lock\n"
    "\n"
    "inner_lock = Lock()\n"
    "\n"  # 5
    "\n"
    "async def get_proxy():\n"
    "    await inner_lock.acquire()\n"
    "    try:\n"
    "        yield object()\n"  # 10
    "    finally:\n"
    "        inner_lock.release()\n"
    "\n\n"
)

FEATURE_BASE = {
    "README.md": "base\n",
    # An old route whose ``async with`` the change wraps in the dependency's lock.
    "srv/server/app.py": APP_HEAD
    + (
        "async def publish(chan, call):\n"  # 15
        "    async with chan:\n"
        "        await chan.send(await call())\n"
    ),
}

DEPENDENCY = (
    "import contextlib\n"  # 1
    "from anyio import Lock\n"
    "\n"
    "outer_lock = Lock()\n"
    "inner_lock = Lock()\n"  # 5
    "\n\n"
    "async def get_proxy():\n"
    "    await outer_lock.acquire()\n"  # 9: ✗, held across the inner acquire's await
    "    release_outer = True\n"  # 10
    "    try:\n"
    "        await inner_lock.acquire()\n"  # 12: ✗, held across the yield
    "        try:\n"
    "            outer_lock.release()\n"
    "            release_outer = False\n"  # 15
    "            yield object()\n"
    "        finally:\n"
    "            inner_lock.release()\n"
    "    finally:\n"
    "        if release_outer:\n"  # 20
    "            outer_lock.release()\n"
    "\n\n"
    "async def complete(body):\n"
    "    async with contextlib.asynccontextmanager(get_proxy)() as proxy:\n"  # 25: ✗
    "        return await proxy.run(body)\n"
)


def _rows(run: Run) -> list[tuple[str, int, str]]:
    """(path, line, severity) of each async-blocking finding."""
    return [(path, line, sev) for path, line, sev, _msg in found(run, "async-blocking")]


def _messages(run: Run) -> dict[int, str]:
    """Line -> message of each async-blocking finding."""
    return {line: msg for _path, line, _sev, msg in found(run, "async-blocking")}


def test_a_dependency_holding_its_lock_at_yield_is_reported_in_a_server(
    feature: Repo, run: Run
) -> None:
    feature.write("srv/server/deps.py", DEPENDENCY)
    feature.commit("dependency")
    assert _rows(run) == [
        ("srv/server/deps.py", 9, "error"),
        ("srv/server/deps.py", 12, "error"),
        ("srv/server/deps.py", 25, "error"),
    ]
    messages = _messages(run)
    assert (
        "`inner_lock` is held across `yield` (line 16), so across its caller's awaits"
        in (messages[12])
    )
    assert messages[25].startswith(
        "the lock `get_proxy()` holds at its `yield` is held across `await` (line 26)"
    )
    assert "`complete` (a serving path's coroutine)" in messages[25]


def test_off_the_serving_paths_the_same_dependency_is_a_warning(feature: Repo, run: Run) -> None:
    feature.write("srv/lib/deps.py", DEPENDENCY)
    feature.commit("dependency")
    assert _rows(run) == [
        ("srv/lib/deps.py", 9, "warning"),
        ("srv/lib/deps.py", 12, "warning"),
        ("srv/lib/deps.py", 25, "warning"),
    ]


def test_a_context_manager_method_holding_a_lock_is_entered_through_self(
    feature: Repo, run: Run
) -> None:
    feature.write(
        "srv/agent/activity.py",
        "import asyncio\n"  # 1
        "from contextlib import asynccontextmanager\n"
        "\n\n"
        "class Activity:\n"  # 5
        "    def __init__(self):\n"
        "        self._task_lock = asyncio.Lock()\n"
        "\n"
        "    @asynccontextmanager\n"
        "    async def _task_slot(self):\n"  # 10
        "        async with self._task_lock:\n"  # 11: ⚠, held across the yield
        "            yield\n"
        "\n"
        "    async def handle_turn(self, task):\n"
        "        async with self._task_slot():\n"  # 15: ✗, a request-path name
        "            await task.run()\n"
        "\n"
        "    async def warm(self, task):\n"
        "        async with self._task_slot():\n"  # 19: ⚠, no request path
        "            await task.run()\n",  # 20
    )
    feature.commit("slot")
    assert _rows(run) == [
        ("srv/agent/activity.py", 11, "warning"),
        ("srv/agent/activity.py", 15, "error"),
        ("srv/agent/activity.py", 19, "warning"),
    ]


def test_a_generator_that_releases_before_its_yield_holds_nothing(feature: Repo, run: Run) -> None:
    feature.write(
        "srv/server/free.py",
        "from anyio import Lock\n"
        "\n"
        "lock = Lock()\n"
        "\n\n"
        "async def get_proxy():\n"
        "    await lock.acquire()\n"
        "    proxy = object()\n"
        "    lock.release()\n"
        "    yield proxy\n"
        "\n\n"
        "async def complete(body):\n"
        "    async with get_proxy() as proxy:\n"
        "        return await proxy.run(body)\n"
        "\n\n"
        "def build():\n"
        "    with lock_factory() as made:\n"  # a sync generator call: not a lock
        "        yield made\n",
    )
    feature.commit("free")
    assert _rows(run) == []


def test_an_old_with_wrapped_in_a_new_lock_is_new(feature: Repo, run: Run) -> None:
    # ``async with chan:`` was there; the change wraps it in the dependency's lock: the
    # replaced lines held a ``with``, but never this lock.
    feature.write(
        "srv/server/app.py",
        APP_HEAD
        + (
            "async def publish(chan, call):\n"  # 15
            "    async with contextlib.asynccontextmanager(get_proxy)() as proxy:\n"  # 16: ✗
            "        async with chan:\n"
            "            await chan.send(await call(proxy))\n"
        ),
    )
    feature.commit("wrap")
    assert _rows(run) == [("srv/server/app.py", 16, "error")]


def test_an_old_lock_reindented_is_not_new(feature: Repo, run: Run) -> None:
    # The same ``async with chan:`` re-indented under a new ``if``: no lock is new.
    feature.write(
        "srv/server/app.py",
        APP_HEAD
        + (
            "async def publish(chan, call, ready=True):\n"
            "    if ready:\n"
            "        async with chan:\n"
            "            await chan.send(await call())\n"
        ),
    )
    feature.commit("reindent")
    assert _rows(run) == []


def test_a_lock_acquire_made_awaited_holds_across_the_old_yield(feature: Repo, run: Run) -> None:
    # ``inner_lock.acquire()`` (a threading lock) becomes ``await inner_lock.acquire()``: the
    # yield is an old line, the lock is now held on the loop across it.
    feature.git("checkout", "-q", "main")
    feature.write(
        "srv/server/sync_dep.py",
        "from threading import Lock\n"  # 1
        "\n"
        "inner_lock = Lock()\n"
        "\n\n"
        "def get_proxy():\n"  # 6
        "    inner_lock.acquire()\n"
        "    try:\n"
        "        yield object()\n"
        "    finally:\n"  # 10
        "        inner_lock.release()\n",
    )
    feature.commit("sync dependency")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write(
        "srv/server/sync_dep.py",
        "from anyio import Lock\n"
        "\n"
        "inner_lock = Lock()\n"
        "\n\n"
        "async def get_proxy():\n"
        "    await inner_lock.acquire()\n"  # 7: ✗
        "    try:\n"
        "        yield object()\n"
        "    finally:\n"
        "        inner_lock.release()\n",
    )
    feature.commit("anyio")
    assert _rows(run) == [("srv/server/sync_dep.py", 7, "error")]


SERVER_LOCKS = (
    "import asyncio\n"  # 1
    "\n"
    "\n"
    "class Engine:\n"
    "    async def run_batch(self, batch):\n"  # 5
    "        async with self._lock:\n"  # 6: ✗ in a server module, ⚠ elsewhere
    "            return await self._model(batch)\n"
    "\n"
    "    async def update_weights(self, weights):\n"
    "        async with self._lock:\n"  # 10: ⚠, a weight push pauses on purpose
    "            await self._load(weights)\n"
    "\n"
    "    async def _refresh(self):\n"
    "        async with self._lock:\n"  # 14: ⚠, a background task no request awaits
    "            await self._reload()\n"
    "\n"
    "    def start(self):\n"
    "        asyncio.create_task(self._refresh())\n"
)


def test_a_lock_in_a_server_module_serializes_its_requests(feature: Repo, run: Run) -> None:
    feature.write("srv/serving/engine.py", SERVER_LOCKS)
    feature.write("srv/batching/engine.py", SERVER_LOCKS)
    feature.commit("locks")
    assert _rows(run) == [
        ("srv/batching/engine.py", 6, "warning"),
        ("srv/batching/engine.py", 10, "warning"),
        ("srv/batching/engine.py", 14, "warning"),
        ("srv/serving/engine.py", 6, "error"),
        ("srv/serving/engine.py", 10, "warning"),
        ("srv/serving/engine.py", 14, "warning"),
    ]


def test_a_lock_in_an_http_route_serializes_its_requests(feature: Repo, run: Run) -> None:
    feature.write(
        "srv/api/app.py",
        "import asyncio\n"  # 1
        "from fastapi import FastAPI\n"
        "\n"
        "app = FastAPI()\n"
        "lock = asyncio.Lock()\n"  # 5
        "\n\n"
        '@app.post("/v1/embeddings")\n'
        "async def embeddings(body):\n"
        "    async with lock:\n"  # 10: ✗, an HTTP route
        "        return await model.embed(body)\n"
        "\n\n"
        "async def warm():\n"
        "    async with lock:\n"  # 15: ⚠
        "        await model.embed('')\n",
    )
    feature.commit("route")
    assert _rows(run) == [("srv/api/app.py", 10, "error"), ("srv/api/app.py", 15, "warning")]
    assert "`embeddings` (an HTTP route)" in _messages(run)[10]


def test_a_generator_every_caller_enters_without_awaiting_holds_across_nothing(
    feature: Repo, run: Run
) -> None:
    # AReaL's worker app: ``_locked_active_state`` yields the state under its lock to
    # handlers that only read it. Handed to ``Depends`` it would hold across the route.
    state = (
        "import contextlib\n"  # 1
        "\n\n"
        "@contextlib.asynccontextmanager\n"
        "async def _locked_state(state):\n"  # 5
        "    async with state.lock:\n"  # 6: ⚠ only when handed on
        "        yield state\n"
        "\n\n"
        "async def fetch(state):\n"  # 10
        "    async with _locked_state(state) as s:\n"
        "        return s.samples\n"
        "\n\n"
        "async def reset(state):\n"  # 15
        "    async with _locked_state(state) as s:\n"
        "        s.epoch = 0\n"
    )
    feature.write("srv/worker/app.py", state)
    feature.write("srv/worker/deps.py", state + "\n\nDEPENDENCY = Depends(_locked_state)\n")
    feature.commit("state")
    assert _rows(run) == [("srv/worker/deps.py", 6, "warning")]


def test_a_tests_lock_holding_generator_is_a_fixture_or_a_fake(feature: Repo, run: Run) -> None:
    feature.write(
        "tests/test_locking.py",
        "import contextlib\n"
        "\n\n"
        "class FakeBus:\n"
        "    @contextlib.asynccontextmanager\n"
        "    async def acquire_lock(self, key):\n"
        "        async with self._test_lock:\n"
        "            yield\n",
    )
    feature.commit("fake")
    assert _rows(run) == []


def test_a_module_named_for_health_is_admin(feature: Repo, run: Run) -> None:
    body = (
        "class Probe:\n"
        "    async def probe_once(self):\n"
        "        async with self._probe_lock:\n"  # 3: ✗ in a server module, ⚠ in health.py
        "            await self._probe()\n"
    )
    feature.write("srv/serve/core/health.py", body)
    feature.write("srv/serve/core/prober.py", body)
    feature.commit("probes")
    assert _rows(run) == [
        ("srv/serve/core/health.py", 3, "warning"),
        ("srv/serve/core/prober.py", 3, "error"),
    ]


def test_a_nested_generator_entered_without_awaiting_holds_across_nothing(
    feature: Repo, run: Run
) -> None:
    # AReaL's ``_locked_active_state`` is nested in its app factory; its routes enter it
    # and only read state.
    feature.write(
        "srv/worker/app.py",
        "import contextlib\n"
        "\n\n"
        "def create_app(state):\n"
        "    @contextlib.asynccontextmanager\n"
        "    async def _locked_state():\n"
        "        async with state.lock:\n"
        "            yield state\n"
        "\n"
        "    async def fetch():\n"
        "        async with _locked_state() as s:\n"
        "            return s.samples\n"
        "\n"
        "    return fetch\n",
    )
    feature.commit("nested")
    assert _rows(run) == []
