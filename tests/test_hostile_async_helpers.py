# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""async-blocking is linear in a module's helpers: for each sync function holding a
``time.sleep`` it looked for an ``async def`` of another module reaching it, and each
step of that upward search read the callees of every function of the module again to
find the callers of one, so a pull request adding thousands of sleeping helpers that
call each other made the sweep quadratic (4,000: 37 s). The callers are indexed once a
module."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings

FEATURE_BASE = {"pkg/__init__.py": ""}


def _helpers(count: int) -> str:
    """``count`` helpers that sleep, each calling the one before."""
    lines = ["import time", "", ""]
    for i in range(count):
        lines += [f"def helper{i}():", "    time.sleep(1)"]
        lines += [f"    helper{i - 1}()" if i else "    pass", "", ""]
    return "\n".join(lines) + "\n"


@pytest.mark.timing
def test_thousands_of_sleeping_helpers_stay_fast(feature: Repo, run: Run) -> None:
    feature.write("pkg/helpers.py", _helpers(6000))
    feature.write(
        "pkg/server.py", "from pkg.helpers import helper3\n\n\nasync def handle():\n    helper3()\n"
    )
    feature.commit("add")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "async-blocking"]
    elapsed = time.perf_counter() - start
    # ``handle`` reaches helper3 and, within the call depth followed, helper2 and helper1:
    # a ``time.sleep`` outside tests that runs on the loop is ✗ on any path.
    assert [(f["path"], f["line"], f["severity"]) for f in found] == [
        ("pkg/helpers.py", line, "error") for line in (10, 15, 20)
    ]
    assert "(via `helper3` -> `helper2`)" in found[0]["message"]
    assert elapsed < 30, elapsed
