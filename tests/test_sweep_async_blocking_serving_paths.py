# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""async-blocking, serving paths: a server under ``server/`` or a router is a serving path;
a sync helper an ``async def`` of the module calls directly runs on the event loop (two
calls deep); a lock held across ``await`` in a helper the request path awaits is on the
request path; an awaited queue read is not blocking, and an old lock/await pair is not
new because a keyword was added inside it."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found, rows


def test_server_directories_and_modules_are_serving_paths(feature: Repo, run: Run) -> None:
    """lightllm ``lightllm/server/api_http.py``: ``requests.get`` in ``async def
    chat_completions`` is ✗ (server/, serve/, serving/, ``*_server.py``); elsewhere ⚠."""
    body = (
        "import requests\n"
        "\n\n"
        "async def chat_completions(request):\n"
        "    return requests.get(request.url, timeout=2)\n"
    )
    for path in (
        "pkg/server/api_http.py",
        "pkg/serve/openai.py",
        "pkg/serving/chat.py",
        "pkg/api_server.py",
        "pkg/utils/fetch.py",
        "tests/server/test_api.py",
    ):
        feature.write(path, body)
    rows = sorted((r[0], r[2]) for r in found(run, "async-blocking"))
    assert rows == [
        ("pkg/api_server.py", "error"),
        ("pkg/serve/openai.py", "error"),
        ("pkg/server/api_http.py", "error"),
        ("pkg/serving/chat.py", "error"),
        ("pkg/utils/fetch.py", "warning"),
        ("tests/server/test_api.py", "warning"),
    ]


HELPERS = (
    "import asyncio\n"
    "import time\n"
    "import requests\n"
    "\n\n"
    "def fetch_config(url):\n"
    "    return requests.get(url, timeout=2)\n"  # 7: ✗ (one call below `generate`)
    "\n\n"
    "def worker_only(url):\n"
    "    time.sleep(1)\n"  # 11: run by to_thread / an executor: no finding
    "\n\n"
    "def startup_script(url):\n"
    "    time.sleep(1)\n"  # 15: called by nobody async: no finding
    "\n\n"
    "class Ids:\n"
    "    def next_id(self):\n"
    "        return self._refill()\n"
    "\n"
    "    def _refill(self):\n"
    "        time.sleep(3)\n"  # 23: ✗ (two calls below `generate`, through `next_id`)
    "        self.three_deep()\n"
    "        return requests.get('http://config', timeout=2)\n"  # 25: ✗
    "\n"
    "    def three_deep(self):\n"
    "        time.sleep(3)\n"  # 28: three calls below `generate`: not followed
    "\n"
    "    async def generate(self, req):\n"
    "        cfg = fetch_config(req.url)\n"
    "        await asyncio.to_thread(worker_only, req.url)\n"
    "        await asyncio.get_running_loop().run_in_executor(None, lambda: worker_only(1))\n"
    "        return self.next_id(), cfg\n"
    "\n"
    "    async def health(self):\n"
    "        self._ping()\n"
    "\n"
    "    def _ping(self):\n"
    "        time.sleep(0.1)\n"  # 40: reached from an admin endpoint: ⚠
    "\n"
    "    async def execute(self, req):\n"
    "        if not hasattr(self, 'client'):\n"
    "            self._init_server()\n"
    "\n"
    "    def _init_server(self):\n"
    "        self._start_server()\n"
    "\n"
    "    def _start_server(self):\n"
    "        time.sleep(1)\n"  # 50: a lazy start-up (through `_init_server`): no finding
)


def test_a_sync_helper_an_async_def_calls_runs_on_the_loop(feature: Repo, run: Run) -> None:
    """lightllm: ``requests.get``/``time.sleep`` in a sync helper the async ``generate``
    calls on the loop is ✗ on a serving path, two calls deep; a helper handed to
    ``to_thread``/``run_in_executor``, called by no ``async def`` or only through an init
    function (openrlhf: ``execute`` -> ``_init_server`` -> ``_start_server`` polls the new
    server once) is not reported, an admin caller's helper is ⚠, and off serving paths
    the helper's blocking HTTP is ⚠ while its ``time.sleep`` stays ✗ (it has a
    non-blocking twin)."""
    feature.write("pkg/server/manager.py", HELPERS)
    feature.write("pkg/utils/manager.py", HELPERS)
    rows = found(run, "async-blocking")
    served = [(r[1], r[2]) for r in rows if r[0] == "pkg/server/manager.py"]
    assert served == [(7, "error"), (23, "error"), (25, "error"), (40, "warning")]
    assert "`requests.get` in `fetch_config`, which `async def generate` calls" in rows[0][3]
    other = [(r[1], r[2]) for r in rows if r[0] == "pkg/utils/manager.py"]
    assert other == [(7, "warning"), (23, "error"), (25, "warning"), (40, "warning")]


def test_an_old_helper_line_is_not_reported(feature: Repo, run: Run) -> None:
    """Only the helper's added lines count: a new ``async def`` calling an old helper
    that sleeps reports nothing (the old line is the backlog)."""
    feature.write(
        "pkg/server/ids.py",
        "import time\n\n\ndef refill():\n    time.sleep(3)\n",
    )
    feature.commit("old helper")
    feature.git("checkout", "-q", "-b", "feature2")
    feature.write(
        "pkg/server/ids.py",
        "import time\n\n\ndef refill():\n    time.sleep(3)\n\n\n"
        "async def generate():\n    refill()\n",
    )
    result = run("sweep", "--base", "feature", "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    assert '"async-blocking"' not in result.out


def test_a_lock_in_a_helper_the_request_path_awaits_is_on_it(feature: Repo, run: Run) -> None:
    """lightllm ``_alloc_multimodal_resources``: ``async with self._resource_lock:``
    around ``await self._alloc_resource(img)``, awaited by ``_encode``, awaited by
    ``generate``: ✗. A helper only started as a task, or awaited by an admin endpoint,
    stays ⚠."""
    feature.write(
        "pkg/server/manager.py",
        "import asyncio\n"
        "\n\n"
        "class Manager:\n"
        "    async def _alloc_resources(self, params):\n"
        "        async with self._resource_lock:\n"  # 6: ✗
        "            for img in params.images:\n"
        "                await self._alloc(img)\n"
        "\n"
        "    async def _encode(self, params):\n"
        "        await self._alloc_resources(params)\n"
        "\n"
        "    async def generate(self, params):\n"
        "        await self._encode(params)\n"
        "        asyncio.create_task(self._refresh())\n"
        "        await self.stats()\n"
        "\n"
        "    async def _refresh(self):\n"
        "        async with self._lock:\n"  # 19: ⚠ (a task, not awaited)
        "            await self._reload()\n"
        "\n"
        "    async def stats(self):\n"
        "        async with self._stats_lock:\n"  # 23: ⚠ (admin)
        "            await self._collect()\n",
    )
    rows = found(run, "async-blocking")
    assert [(r[1], r[2]) for r in rows] == [(6, "error"), (19, "warning"), (23, "warning")]
    assert "request path `generate` (it awaits `_alloc_resources`)" in rows[0][3]


def test_an_aliased_blocking_import_in_a_helper_is_seen(feature: Repo, run: Run) -> None:
    """``import requests as rq`` / ``from urllib.request import urlopen as fetch``: the
    helper's call names no listed word; it is still ✗ on a serving path."""
    feature.write(
        "pkg/serving/ids.py",
        "import requests as rq\n"
        "from urllib.request import urlopen as fetch\n"
        "\n\n"
        "def refill(url):\n"
        "    fetch(url)\n"  # 6: ✗
        "    return rq.get(url, timeout=2)\n"  # 7: ✗
        "\n\n"
        "async def generate(url):\n"
        "    return refill(url)\n",
    )
    rows = found(run, "async-blocking")
    assert [(r[1], r[2]) for r in rows] == [(6, "error"), (7, "error")]


def test_awaited_queue_get_is_not_blocking(feature: Repo, run: Run) -> None:
    """xinference: ``await asyncio.wait_for(self.queue.get(), timeout=t)`` on an
    ``asyncio.Queue`` hands the coroutine to the loop; a bare ``self.queue.get()`` in
    async code still blocks (⚠)."""
    feature.write(
        "pkg/batch.py",
        "import asyncio\n"
        "\n\n"
        "class Batcher:\n"
        "    async def process(self):\n"
        "        item = await asyncio.wait_for(self.queue.get(), timeout=0.1)\n"
        "        task = asyncio.create_task(self.queue.get())\n"
        "        other = self.queue.get()\n"  # 8: ⚠
        "        return item, task, other\n",
    )
    rows = found(run, "async-blocking")
    assert [(r[1], r[2]) for r in rows] == [(8, "warning")]


def test_an_old_lock_and_await_are_not_new_for_an_added_keyword(feature: Repo, run: Run) -> None:
    """vLLM async_llm.py 1144 / xinference process_manager.py 518: the change adds a
    keyword argument inside an old ``await`` under an old ``async with self._lock:``: no
    finding. A new ``await`` line under the old lock is reported."""
    body = (
        "class Engine:\n"
        "    async def start_profile(self, prefix):\n"
        "        async with self._profile_lock:\n"
        "            await self.engine.profile(\n"
        "                prefix,\n"
        "            )\n"
        "\n"
        "    async def handle_request(self, req):\n"
        "        async with self._lock:\n"
        "            x = req.x\n"
        "        return x\n"
    )
    feature.write("pkg/engine/core.py", body)
    feature.commit("base")
    feature.git("checkout", "-q", "-b", "feature2")
    changed = body.replace(
        "                prefix,\n", "                prefix,\n                kwargs=None,\n"
    ).replace("            x = req.x\n", "            x = req.x\n            await self.flush()\n")
    feature.write("pkg/engine/core.py", changed)
    result = run("sweep", "--base", "feature", "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    import json

    rows = [
        (f["line"], f["severity"]) for f in json.loads(result.out) if f["rule"] == "async-blocking"
    ]
    assert rows == [(10, "error")]


def test_a_router_or_an_http_route_is_on_the_serving_path(feature: Repo, run: Run) -> None:
    """production-stack b275117e routers/routing_logic.py:306: ``requests.post`` inside
    ``async def route_request`` under ``routers/`` is ✗; so is a blocking call in an
    ``async def`` registered as an HTTP route (``@app.post("/v1/...")``) in any file but
    a test. Blocking HTTP in an undecorated ``async def`` elsewhere, and a test's route,
    stay ⚠."""
    feature.write(
        "src/vllm_router/routers/routing_logic.py",
        "import requests\n\n\n"
        "async def route_request(url, body):\n"
        "    return requests.post(url, json=body, timeout=10)\n",  # 5: ✗
    )
    feature.write(
        "pkg/app.py",
        "import requests\n\n\n"
        '@app.post("/v1/generate")\n'
        "async def generate(body):\n"
        "    requests.get(body.url, timeout=1)\n"  # 6: ✗
        "\n\n"
        "async def poll(body):\n"
        "    requests.get(body.url, timeout=1)\n",  # 10: ⚠
    )
    feature.write(
        "tests/test_app.py",
        "import time\n\n\n"
        '@app.post("/v1/generate")\n'
        "async def fake_generate(body):\n"
        "    time.sleep(0.1)\n",  # 6: ⚠ (a test)
    )
    rows = [(r[0], r[1], r[2]) for r in found(run, "async-blocking")]
    assert sorted(rows) == [
        ("pkg/app.py", 6, "error"),
        ("pkg/app.py", 10, "warning"),
        ("src/vllm_router/routers/routing_logic.py", 5, "error"),
        ("tests/test_app.py", 6, "warning"),
    ], rows


def test_blocking_calls_beyond_sleep_and_requests(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/engine/a.py",
        "import queue\nimport subprocess\n\n"
        "async def serve(self, fut, pool):\n"
        "    subprocess.run(['ls'])\n"
        "    item = self.output_queue.get()\n"
        "    value = fut.result()\n"
        "    other = pool.submit(len, 'x').result()\n"
        "    data = open('big.bin').read()\n"
        "    ok = await self.async_queue.get()\n"  # awaited: an asyncio queue
        "    none = self.output_queue.get(block=False)\n"
        "    return item, value, other, data, ok, none\n",
    )
    found = [(r[1], r[3]) for r in rows(run, rule="async-blocking")]
    assert found == [(5, "warning"), (6, "warning"), (7, "warning"), (8, "warning"), (9, "warning")]
    keyed = "async def get_result(self, rid):\n    return self._out_queue.get(rid)\n"
    feature.write("pkg/engine/dict_of_futures.py", keyed)
    feature.write("tests/test_io.py", "async def test_it(p):\n    return open(p).read()\n")
    assert [r[0] for r in rows(run, rule="async-blocking")] == ["pkg/engine/a.py"] * 5


def test_lock_on_an_admin_path_is_a_warning(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/entrypoints/api.py",
        "import asyncio\n\nclass S:\n"
        "    async def start_profile(self):\n"
        "        async with self._profile_lock:\n            await asyncio.sleep(0)\n"
        "    async def handle_request(self):\n"
        "        async with self._lock:\n            await asyncio.sleep(0)\n",
    )
    assert [(r[1], r[3]) for r in rows(run, rule="async-blocking")] == [
        (5, "warning"),
        (8, "error"),
    ]
