# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy is linear in a function's size: each `deepcopy` asked the type of what it
copies (the function's whole body walked, and its class found by walking the module) and
whether a loop around it runs once (every loop of the function again), so a pull request
adding one function of thousands of deep copies made the sweep quadratic (3,000 in one
loop: 4 min 18 s). The loops, the assignments and the method owners are indexed once."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings


def _copies(count: int) -> str:
    """A method whose loop deep-copies a name, a distinct attribute and a distinct local
    ``count`` times each."""
    lines = ["import copy", "", "", "class C:", "    def f(self, items):"]
    lines.append("        for item in items:")
    for i in range(count):
        lines.append(f"            v{i} = copy.deepcopy(item)")
        lines.append(f"            w{i} = copy.deepcopy(self.a{i})")
        lines.append(f"            u{i} = copy.deepcopy(v{i})")
    lines += ["", "", "def step(history, state, num_steps):"]
    lines.append("    for step in range(num_steps):")
    lines.append("        history.append(copy.deepcopy(state))")
    return "\n".join(lines) + "\n"


@pytest.mark.timing
def test_a_function_of_thousands_of_deepcopies_stays_fast(feature: Repo, run: Run) -> None:
    feature.write("pkg/copies.py", _copies(3000))
    feature.commit("add")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "hot-copy"]
    elapsed = time.perf_counter() - start
    # the plain loop's copies are set-up work; the step loop's one is still reported
    assert [(f["line"], f["severity"]) for f in found] == [(9011, "warning")]
    assert elapsed < 30, elapsed
