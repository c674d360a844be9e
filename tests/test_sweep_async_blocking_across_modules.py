# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``async-blocking`` across modules: a sync method of a class another module's ``async
def`` reaches through an attribute its ``__init__`` binds to that class
(``self.id_gen = ReqIDGenerator()`` ... ``self.id_gen.generate_id()``) runs on the loop."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

IDS = (
    "import time\n"
    "import requests\n"
    "\n\n"
    "class ReqIDGenerator:\n"
    "    def __init__(self, url):\n"
    "        self.url = url\n"
    "        self.next = 0\n"
    "\n"
    "    def _refill(self):\n"
    "        while True:\n"
    "            reply = requests.get(self.url, timeout=2)\n"
    "            if reply.ok:\n"
    "                return reply.json()\n"
    "            time.sleep(3)\n"
    "\n"
    "    def generate_id(self):\n"
    "        self._refill()\n"
    "        self.next += 1\n"
    "        return self.next\n"
)
MANAGER = (
    "from ..ids import ReqIDGenerator\n"
    "\n\n"
    "class HttpServerManager:\n"
    "    def __init__(self, url):\n"
    "        self.id_gen = ReqIDGenerator(url)\n"
    "\n"
    "    def alloc_req_id(self):\n"
    "        return self.id_gen.generate_id()\n"
    "\n"
    "    async def generate(self, prompt):\n"
    "        rid = self.alloc_req_id()\n"
    "        return rid, prompt\n"
)


def test_a_method_reached_through_an_attribute_bound_in_init_runs_on_the_loop(
    feature: Repo, run: Run
) -> None:
    """lightllm 7066b69c ``req_id_generator.py``: ``requests.get`` and ``time.sleep`` in
    ``ReqIDGenerator._refill``, reached from ``HttpServerManager.generate`` in another
    module through ``self.alloc_req_id()`` -> ``self.id_gen.generate_id()``: ✗ on a
    serving path, and the message names the chain."""
    feature.write("pkg/server/ids.py", IDS)
    feature.write("pkg/server/http/manager.py", MANAGER)
    rows = found(run, "async-blocking")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("pkg/server/ids.py", 12, "error"),
        ("pkg/server/ids.py", 15, "error"),
    ]
    assert (
        "`requests.get` in `_refill`, which `async def HttpServerManager.generate` in "
        "`pkg.server.http.manager` reaches on the loop (via `alloc_req_id` -> `generate_id`)"
    ) in rows[0][3]


def test_a_class_no_async_def_reaches_stays_unreported(feature: Repo, run: Run) -> None:
    """The same class bound in a sync worker (an rpyc service, a thread), an attribute
    bound to another class of the same method name, or a call handed to ``to_thread``:
    nothing runs on the loop."""
    feature.write("pkg/server/ids.py", IDS)
    feature.write(
        "pkg/server/cache.py",
        "from .ids import ReqIDGenerator\n"
        "\n\n"
        "class CacheService:\n"
        "    def __init__(self, url):\n"
        "        self.id_gen = ReqIDGenerator(url)\n"
        "\n"
        "    def exposed_alloc(self):\n"
        "        return self.id_gen.generate_id()\n",
    )
    feature.write(
        "pkg/server/other.py",
        "import asyncio\n"
        "from .local_ids import LocalIDs\n"
        "from .ids import ReqIDGenerator\n"
        "\n\n"
        "class Manager:\n"
        "    def __init__(self, url):\n"
        "        self.id_gen = LocalIDs()\n"
        "        self.remote = ReqIDGenerator(url)\n"
        "\n"
        "    async def generate(self):\n"
        "        await asyncio.to_thread(self.remote.generate_id)\n"
        "        return self.id_gen.generate_id()\n",
    )
    assert found(run, "async-blocking") == []
