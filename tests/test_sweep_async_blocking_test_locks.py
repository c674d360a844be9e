# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""async-blocking in tests: a test function that holds a lock across an ``await`` is
exercising the lock (AReaL's data-service tests take the worker's lock and check that an
unload waits, or that a fetch meanwhile gets a 409): no finding. A helper of the test file
that holds one is still reported, and so is a blocking call in a test."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

TEST = (
    "import asyncio\n"  # 1
    "import time\n"
    "\n\n"
    "async def test_unload_waits_for_the_state_lock(worker):\n"  # 5
    "    await worker.state.lock.acquire()\n"  # 6: the test's subject
    "    task = asyncio.create_task(worker.unload())\n"
    "    await asyncio.sleep(0.05)\n"
    "    assert not task.done()\n"
    "    worker.state.lock.release()\n"  # 10
    "\n\n"
    "class TestFetch:\n"
    "    async def test_fetch_gets_409_while_unloading(self, worker):\n"
    "        async with worker.datasets_lock:\n"  # 15: the test's subject
    "            reply = await worker.fetch('d')\n"
    "        assert reply.status == 409\n"
    "\n\n"
    "async def _hold(worker):\n"  # 20
    "    async with worker.lock:\n"  # 21: ⚠, a helper's lock
    "        await asyncio.sleep(1)\n"
    "\n\n"
    "async def test_blocking_sleep(worker):\n"  # 25
    "    time.sleep(1)\n"  # 26: ⚠, still blocks the loop
)


def test_a_test_holding_a_lock_across_an_await_is_no_finding(feature: Repo, run: Run) -> None:
    feature.write("tests/test_worker.py", TEST)
    feature.commit("tests")
    rows = [(line, severity) for _path, line, severity, _msg in found(run, "async-blocking")]
    assert rows == [(21, "warning"), (26, "warning")]


def test_the_same_lock_outside_a_test_file_is_reported(feature: Repo, run: Run) -> None:
    feature.write("pkg/worker_checks.py", TEST)
    feature.commit("code")
    lines = sorted(line for _path, line, _sev, _msg in found(run, "async-blocking"))
    assert {6, 15, 21, 26} <= set(lines)


def _severities(run: Run) -> list[tuple[int, str]]:
    """(line, severity) of each async-blocking finding."""
    return [(line, severity) for _p, line, severity, _m in found(run, "async-blocking")]


FAKES = (
    "import time\n"  # 1
    "import requests\n"
    "\n\n"
    "def test_runner_times_out(runner):\n"  # 5
    "    class BlockingFakeAnalyzer:\n"
    "        async def run(self, kwargs):\n"
    "            time.sleep(0.5)\n"  # 8: the slow work the fake stands in for
    "            return []\n"
    "\n"  # 10
    "    class FetchingFake:\n"
    "        async def run(self, url):\n"
    "            return requests.get(url)\n"  # 13: HTTP is no stand-in
    "\n"
    "    runner.analyzer = BlockingFakeAnalyzer()\n"  # 15
    "\n"
    "class TestSleep:\n"
    "    async def test_sleeps(self):\n"
    "        time.sleep(0.1)\n"  # 19: the test itself blocks its loop
    "\n\n"
    "class TritonPythonModel:\n"
    "    async def execute(self, requests):\n"
    "        time.sleep(0.2)\n"  # 24: a QA model the tests serve is code under test
)


def test_a_fake_s_sleep_stands_in_for_slow_work(feature: Repo, run: Run) -> None:
    """nvidia-resiliency-ext's ``BlockingFakeLogAnalyzer.run``, a class its test defines,
    sleeps to simulate the synchronous work the change moves off the loop: no finding.
    Blocking HTTP in a fake, a test method's own sleep and a module-level model of a QA
    directory (triton's ``qa/`` models, labelled ⚠) are still reported."""
    feature.write("tests/test_runner.py", FAKES)
    assert _severities(run) == [(13, "warning"), (19, "warning"), (24, "warning")]


CONDITION = (
    "import asyncio\n"  # 1
    "\n\n"
    "class Policy:\n"
    "    async def generate(self, request):\n"  # 5
    "        async with self.request_lock:\n"  # 6: only the condition's own wait: ⚠
    "            await self.request_lock.wait_for(lambda: self.accepting_requests)\n"
    "            self.scheduler.add_request(request)\n"
    "        async with self.request_lock:\n"  # 9: waits on another condition: held
    "            await self.other_lock.wait()\n"
    "        async with self.request_lock:\n"  # 11: a real await under the lock
    "            await self.request_lock.wait()\n"
    "            await self.engine.step()\n"
)


def test_a_condition_s_own_wait_releases_it(feature: Repo, run: Run) -> None:
    """forge's ``async with self.request_lock: await self.request_lock.wait_for(...)`` on
    the request path: an ``asyncio.Condition`` releases its lock while it waits, so no
    request is serialized behind it: ⚠ (an await in the critical section, as labelled),
    not ✗. Another awaitable under the lock still holds it."""
    feature.write("pkg/policy.py", CONDITION)
    assert _severities(run) == [(6, "warning"), (9, "error"), (11, "error")]
    message = found(run, "async-blocking")[0][3]
    assert "its own `self.request_lock.wait_for(" in message
    assert "(it releases the lock)" in message
