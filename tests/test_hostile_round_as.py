# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Round AS's readings stay linear in what a pull request can write: a test of
thousands of comprehensions of fakes, each list handed to a typed parameter
(any-annotation follows each list once), and a module of thousands of status-answering
loaders each tested by a caller (broad-except counts the module's calls once a file)."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings, timed

FEATURE_BASE = {"pkg/__init__.py": ""}


@pytest.mark.timing
def test_thousands_of_comprehension_fakes_stay_fast(feature: Repo, run: Run) -> None:
    count = 2000
    feature.write(
        "pkg/calc.py",
        "from dataclasses import dataclass\nfrom typing import List\n\n\n"
        "@dataclass\nclass Worker:\n    name: str\n\n\n"
        "def count(workers: List[Worker]) -> int:\n    return len(workers)\n",
    )
    feature.commit("base")
    lines = ["from types import SimpleNamespace", "", "from pkg.calc import count", "", ""]
    lines.append("def test_many():")
    for i in range(count):
        lines.append(f"    workers{i} = [SimpleNamespace(name=str(j)) for j in range({i})]")
        lines.append(f"    assert count(workers{i}) == {i}")
    feature.write("tests/test_many.py", "\n".join(lines) + "\n")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "any-annotation"]
    elapsed = time.perf_counter() - start
    assert len(found) == count
    named = [f for f in found if f["severity"] == "error"]
    # the file's fakes are named up to its bound, and the rest say so (never silent)
    assert len(named) >= 50
    assert all(
        "this file's new fakes are read up to" in f["message"]
        for f in found
        if f["severity"] != "error"
    )
    assert elapsed < 20, elapsed


@pytest.mark.timing
def test_thousands_of_status_answering_loaders_stay_fast(feature: Repo, run: Run) -> None:
    count = 3000
    lines = ["import logging", "import sys", "", "logger = logging.getLogger(__name__)", ""]
    for i in range(count):
        lines += [
            "",
            f"def load_model{i}():",
            "    try:",
            f"        open('m{i}')",
            "        return True",
            "    except Exception as e:",
            "        logger.error(e)",
            "        return False",
        ]
    lines += ["", "", "def main():"]
    for i in range(count):
        lines += [f"    if not load_model{i}():", "        sys.exit(1)"]
    feature.write("pkg/serve.py", "\n".join(lines) + "\n")
    found, elapsed = timed(run, "broad-except")
    assert len(found) == count and {sev for _l, sev in found} == {"warning"}
    assert elapsed < 15, elapsed
