# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a retry loop that ends on its last round does not fall off its
function's end. ``for attempt in range(retries):`` over a ``try`` that returns, whose
handler raises on the last round, falls off only when it runs no round at all (zero
retries, which no caller passes). MLServer eafe728a (set zzzza) ``send_requests(...) ->
InferResult`` and lmms-eval f2edda34 (set zzw) ``evaluate(...) -> Response`` were two
wrong ✗."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, errors

RETRIES = """\
import asyncio
import logging
import time

logger = logging.getLogger(__name__)


async def send(client: object, retries: int) -> str:
    for i in range(retries):
        try:
            return await client.infer()
        except Exception as e:
            logger.error(f"retry {i + 1}/{retries}: {e}")
            if i + 1 == retries:
                raise
            await asyncio.sleep(1)


def evaluate(client: object, config: object) -> str:
    for attempt in range(config.num_retries):
        try:
            return client.post()
        except Exception:
            if attempt < config.num_retries - 1:
                time.sleep(config.retry_delay)
            else:
                raise


def fetch(client: object, retries: int) -> str:
    for attempt in range(retries):
        try:
            return client.get()
        except ValueError:
            raise
        except OSError:
            if attempt == retries - 1:
                raise RuntimeError("gave up")
            continue
"""


def test_a_retry_loop_raising_on_its_last_round_does_not_fall_off(feature: Repo, run: Run) -> None:
    """``if i + 1 == retries: raise``, ``if attempt < n - 1: sleep else: raise``, a
    handler that re-raises at once next to one that raises on the last round and
    ``continue``s otherwise: no ✗."""
    feature.write("pkg/client.py", RETRIES)
    assert errors(run, "any-annotation") == {}


FALLS_OFF = """\
import logging

logger = logging.getLogger(__name__)


def swallow(client: object, retries: int) -> str:
    for attempt in range(retries):
        try:
            return client.get()
        except OSError:
            logger.warning("attempt %d failed", attempt)


def other_test(client: object, retries: int, fatal: bool) -> str:
    for attempt in range(retries):
        try:
            return client.get()
        except OSError:
            if fatal:
                raise


def skips(client: object, retries: int) -> str:
    for attempt in range(retries):
        if client.busy():
            continue
        try:
            return client.get()
        except OSError:
            if attempt == retries - 1:
                raise


def no_range(client: object, hosts: list[str]) -> str:
    for host in hosts:
        try:
            return client.get(host)
        except OSError:
            if host == hosts[-1]:
                raise
"""


def test_loops_that_can_run_out_still_fall_off(feature: Repo, run: Run) -> None:
    """A handler that only logs (after the last round the function returns None), a
    raise on a test other than the counter, a round skipped by ``continue`` before the
    ``try`` (the last one may be), a loop over a list (empty, it runs no round): ✗."""
    feature.write("pkg/client.py", FALLS_OFF)
    found = errors(run, "any-annotation")
    assert sorted(found) == [6, 14, 23, 34]
    assert all("can fall off its end" in message for message in found.values())
