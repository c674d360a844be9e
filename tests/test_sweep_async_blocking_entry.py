# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""async-blocking, ``time.sleep`` under a program's entry coroutine: verifiers b3b8f51e's
browser harness (``program.py``, run as ``asyncio.run(main())``) polls for Chromium with
``time.sleep(0.1)`` in ``ensure_chromium``, which ``async def main`` calls at start-up.
What that stalls is the program's own start-up, not a service: ⚠ (set zzzf's labeller,
blind). The same sleep under any other ``async def`` off the serving paths stays ✗, and
on a serving path an entry named ``main`` is still ✗."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

HARNESS = """\
import asyncio
import time


def ensure_chromium(state_dir):
    while not ready(state_dir):
        time.sleep(0.1)
    return state_dir


async def {name}():
    endpoint = ensure_chromium("/tmp/state")
    await run_agent(endpoint)
{tail}"""


@pytest.mark.parametrize(
    ("name", "tail"),
    [
        pytest.param("main", "", id="named-main"),
        pytest.param("_main", "", id="named-_main"),
        pytest.param(
            "run_program",
            '\n\nif __name__ == "__main__":\n    asyncio.run(run_program())\n',
            id="handed-to-asyncio-run",
        ),
        pytest.param("start", "\n\nanyio.run(start)\n", id="handed-to-anyio-run"),
    ],
)
def test_a_sleep_under_a_programs_entry_is_a_warning(
    feature: Repo, run: Run, name: str, tail: str
) -> None:
    """The helper runs on the loop (reported), under the program's entry: ⚠."""
    feature.write("harnesses/browser_use/program.py", HARNESS.format(name=name, tail=tail))
    rows = found(run, "async-blocking")
    assert [(r[1], r[2]) for r in rows] == [(7, "warning")]
    assert f"which `async def {name}` calls on the loop" in rows[0][3]


def test_a_direct_sleep_in_main_is_a_warning(feature: Repo, run: Run) -> None:
    """``time.sleep`` written in ``async def main`` itself: ⚠ as well."""
    feature.write(
        "scripts/probe.py",
        "import asyncio\nimport time\n\n\nasync def main():\n    time.sleep(1)\n"
        "    await asyncio.sleep(0)\n",
    )
    assert [(r[1], r[2]) for r in found(run, "async-blocking")] == [(6, "warning")]


@pytest.mark.parametrize(
    ("path", "name", "tail"),
    [
        # Not an entry: a coroutine of a module whose runner starts another one.
        pytest.param(
            "harnesses/program.py", "poll", "\n\nasyncio.run(main())\n", id="another-coroutine"
        ),
        # An entry named ``main`` on a serving path: the serving ✗ comes first.
        pytest.param("src/server/app.py", "main", "", id="serving-path"),
    ],
)
def test_other_sleeps_on_the_loop_stay_errors(
    feature: Repo, run: Run, path: str, name: str, tail: str
) -> None:
    feature.write(path, HARNESS.format(name=name, tail=tail))
    assert [(r[1], r[2]) for r in found(run, "async-blocking")] == [(7, "error")]
