# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation's fake reading is linear in a test file's statements: each
``SimpleNamespace`` fake looked for the top-level statement holding it by scanning the
module's statements (twice), so a pull request adding thousands of test functions of one
fake each made the sweep quadratic (4,000: 11 s; 10,000: about a minute). The first and
last lines of the top-level statements are listed once and searched by bisection."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings

FEATURE_BASE = {
    "pkg/__init__.py": "",
    "pkg/model.py": (
        "class Model:\n"
        "    def __init__(self, config):\n"
        "        self.h = config.hidden_size\n"
        "        self.n = config.num_layers\n"
    ),
}


def _tests(count: int) -> str:
    """``count`` test functions, each building a model from a fake config; two share a line."""
    lines = ["from types import SimpleNamespace", "from pkg.model import Model", "", ""]
    for i in range(count):
        lines += [f"def test_x{i}():", f"    cfg = SimpleNamespace(hidden_size={i}, num_layers=2)"]
        lines += ["    Model(cfg)", "", ""]
    lines += ["y = 1; z = SimpleNamespace(hidden_size=1, num_layers=2)"]
    return "\n".join(lines) + "\n"


@pytest.mark.timing
def test_thousands_of_test_functions_with_fakes_stay_fast(feature: Repo, run: Run) -> None:
    count = 10000
    feature.write("tests/test_fake.py", _tests(count))
    feature.commit("add")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "any-annotation"]
    elapsed = time.perf_counter() - start
    fakes = [f for f in found if "SimpleNamespace" in f["message"]]
    assert [f["line"] for f in fakes] == [6 + 5 * i for i in range(count)] + [5 + 5 * count]
    assert elapsed < 30, elapsed
