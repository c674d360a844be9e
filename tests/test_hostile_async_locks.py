# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""async-blocking is linear in the locks an ``async def`` holds: each ``X.release()``
unparsed every lock still held to find the ones it releases, and each lock held across
an ``await`` outside the request path asked again which request-path function awaits its
function (every function of the module matched against the request-path globs), so a
pull request adding thousands of ``acquire()``/``release()`` pairs in one ``async def``
(4,000: 36 s; 5,000 here: about a minute) or thousands of ``async with lock:`` helpers (4,000: over a minute) made
the sweep quadratic. A held lock's text is unparsed once; the request-path answer is
computed once a module."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings


def _acquires(count: int) -> str:
    """One request-path ``async def`` acquiring ``count`` locks, awaiting, releasing them."""
    lines = ["class S:", "    async def generate(self):"]
    lines += [f"        await self.lock{i}.acquire()" for i in range(count)]
    lines += [f"        await self.q{i}()" for i in range(count)]
    lines += [f"        self.lock{i}.release()" for i in range(count)]
    lines += ["        await self.done()"]
    return "\n".join(lines) + "\n"


def _helpers(count: int) -> str:
    """``count`` helpers, each holding a lock across an await; ``generate`` awaits the last."""
    lines = ["class S:"]
    for i in range(count):
        lines += [f"    async def _helper{i}(self):", "        async with self.lock:"]
        lines += [f"            await self.q{i}()", ""]
    lines += ["    async def generate(self):", f"        await self._helper{count - 1}()"]
    return "\n".join(lines) + "\n"


@pytest.mark.timing
def test_thousands_of_acquired_locks_stay_fast(feature: Repo, run: Run) -> None:
    feature.write("pkg/acquire.py", _acquires(5000))
    feature.commit("add")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "async-blocking"]
    elapsed = time.perf_counter() - start
    # Each lock is held across the next await on the request path (✗), at most once.
    assert [f["line"] for f in found] == list(range(3, 5003))
    assert {f["severity"] for f in found} == {"error"}
    assert all(f"across `await` (line {f['line'] + 1})" in f["message"] for f in found)
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_thousands_of_locked_helpers_stay_fast(feature: Repo, run: Run) -> None:
    feature.write("pkg/helpers.py", _helpers(6000))
    feature.commit("add")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "async-blocking"]
    elapsed = time.perf_counter() - start
    # Each helper's lock is held across its await (⚠); the one ``generate`` awaits is on
    # the request path (✗).
    assert [f["line"] for f in found] == [3 + 4 * i for i in range(6000)]
    assert [f["severity"] for f in found] == ["warning"] * 5999 + ["error"]
    assert "`generate` (it awaits `_helper5999`)" in found[-1]["message"]
    assert elapsed < 30, elapsed


def _generator(count: int) -> str:
    """A generator taking ``count`` locks then releasing all but the last before its
    ``yield``, and ``count`` coroutines entering it with ``async with``."""
    lines = ["async def get_proxy():"]
    lines += [f"    await lock{i}.acquire()" for i in range(count)]
    lines += [f"    lock{i}.release()" for i in range(count - 1)]
    lines += ["    yield object()", ""]
    for i in range(count):
        lines += [f"async def use{i}():", "    async with get_proxy() as p:", "        await p()"]
    return "\n".join(lines) + "\n"


@pytest.mark.timing
def test_a_lock_holding_generator_with_thousands_of_locks_stays_fast(
    feature: Repo, run: Run
) -> None:
    # Which lock a generator holds at its ``yield`` is read once, with each release a
    # dictionary removal: thousands of acquires and releases stay linear.
    count = 4000
    feature.write("pkg/proxy.py", _generator(count))
    feature.commit("add")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "async-blocking"]
    elapsed = time.perf_counter() - start
    held = [f for f in found if "holds at its `yield`" in f["message"]]
    assert len(held) == count
    assert any(f"`lock{count - 1}` is held across `yield`" in f["message"] for f in found)
    assert elapsed < 30, elapsed
