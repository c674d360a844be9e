# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Round AR's readings stay linear in what a pull request can write: a function of
thousands of ``if`` statements rebinding the local it returns (any-annotation's "left
None" reading walks each statement once), thousands of FastAPI routes each taking a
``Depends(...)`` parameter (the dependency is looked up by the call reading, once a
name), and thousands of helpers a request-path function calls, each deep-copying a
sampling config (hot-copy reads the module's call chains once a file). The last one
found hot-copy asking every method of the class for ``self.sampling_params``'s type
once per copy, the cache of each method's bindings too small to hold them (2,000
methods: 101 s, on round AQ's code too); the class's attribute types are read once."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings

FEATURE_BASE = {"pkg/__init__.py": ""}


def _timed(run: Run, rule: str) -> tuple[list[tuple[int, str, str]], float]:
    """(line, severity, message) of ``rule``'s findings; the seconds the sweep took."""
    start = time.perf_counter()
    found = sweep_findings(run, "--jobs", "1")
    elapsed = time.perf_counter() - start
    return [(f["line"], f["severity"], f["message"]) for f in found if f["rule"] == rule], elapsed


@pytest.mark.timing
def test_thousands_of_ifs_rebinding_a_returned_local_stay_fast(feature: Repo, run: Run) -> None:
    count = 5000
    lines = ["def pick(flags: list) -> list:", "    outputs = None"]
    for i in range(count):
        lines += [f"    if flags[{i}]:", f"        outputs = [{i}]"]
    lines.append("    return outputs")
    feature.write("pkg/pick.py", "\n".join(lines) + "\n")
    feature.commit("add")
    found, elapsed = _timed(run, "any-annotation")
    assert [(line, sev) for line, sev, _m in found] == [(1, "error")]
    assert "(None unless the `if` on line 3 runs)" in found[0][2]
    assert elapsed < 10, elapsed


@pytest.mark.timing
def test_thousands_of_routes_with_an_optional_dependency_stay_fast(feature: Repo, run: Run) -> None:
    count = 2000
    lines = [
        "from fastapi import APIRouter, Depends",
        "",
        "app = APIRouter()",
        "",
        "",
        "def get_token(request) -> str | None:",
        "    return request.headers.get('token')",
        "",
        "",
    ]
    for i in range(count):
        lines += [
            f"@app.get('/r{i}')",
            f"def route{i}(token: str = Depends(get_token)) -> int:",
            f"    return {i} if token else 0",
            "",
            "",
        ]
    feature.write("pkg/routes.py", "\n".join(lines) + "\n")
    feature.commit("add")
    found, elapsed = _timed(run, "any-annotation")
    assert [line for line, _sev, _m in found] == [11 + 5 * i for i in range(count)]
    assert all(sev == "error" and "Depends(get_token)" in m for _l, sev, m in found)
    assert elapsed < 15, elapsed


@pytest.mark.timing
def test_thousands_of_request_helpers_copying_a_config_stay_fast(feature: Repo, run: Run) -> None:
    count = 2000
    lines = ["import copy", "", "", "class Api:"]
    for i in range(count):
        lines += [
            f"    def _kwargs{i}(self):",
            "        return copy.deepcopy(self.sampling_params)",
            "",
        ]
    calls = ", ".join(f"self._kwargs{i}()" for i in range(count))
    lines += [
        "    def generate(self, prompt):",
        f"        return self.llm.generate(prompt, [{calls}])",
    ]
    feature.write("pkg/api.py", "\n".join(lines) + "\n")
    feature.commit("add")
    found, elapsed = _timed(run, "hot-copy")
    assert len(found) == count and all(sev == "error" for _l, sev, _m in found)
    assert elapsed < 15, elapsed
