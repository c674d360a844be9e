# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation's fake naming is bounded per file: each fake's readings walk the test
function it sits in, so a pull request adding one test function of thousands of fakes
made the sweep quadratic (500 `SimpleNamespace` + 500 mocks: 75 s; 4,000 of each: more
than 10 minutes). Past the bound a fake is reported unnamed: nothing is hidden. Mocks
are no fakes of the rule (a mock is typed as ``Any``): they cost the budget nothing."""

from __future__ import annotations

import time

import pytest

from policytool.rules import any_annotation
from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings

FEATURE_BASE = {
    "pkg/__init__.py": "",
    "pkg/records.py": (
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\n"
        "class Point:\n"
        "    x: int\n"
        "    y: int\n\n\n"
        "def norm(point: Point) -> int:\n"
        "    return point.x + point.y\n"
    ),
}


def _test_file(fakes: int) -> str:
    """One test function: ``fakes`` SimpleNamespace fakes of ``Point`` passed to ``norm``,
    and as many bare mocks given a return value."""
    lines = [
        "from types import SimpleNamespace",
        "from unittest.mock import MagicMock",
        "from pkg.records import norm",
        "",
        "",
        "def test_many():",
    ]
    for i in range(fakes):
        lines.append(f"    assert norm(SimpleNamespace(x={i}, y=1)) == {i + 1}")
        lines.append(f"    m{i} = MagicMock()")
        lines.append(f"    m{i}.run.return_value = {i}")
    return "\n".join(lines) + "\n"


def _fakes_found(run: Run) -> list[tuple[int, str, str]]:
    return [
        (f["line"], f["severity"], f["message"])
        for f in sweep_findings(run, "--jobs", "1")
        if f["rule"] == "any-annotation"
    ]


def test_fakes_past_the_budget_are_reported_unnamed(
    feature: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The function spans 3 * 8 + 1 lines: a budget of 100 fake-lines names 4 fakes.
    monkeypatch.setattr(any_annotation, "MAX_FAKE_READING", 100)
    feature.write("tests/test_many.py", _test_file(8))
    feature.commit("add")
    found = _fakes_found(run)
    named = [line for line, sev, msg in found if sev == "error" and "`Point`" in msg]
    unnamed = [line for line, sev, msg in found if "not named" in msg]
    assert named == [7, 10, 13, 16]
    assert unnamed == [19, 22, 25, 28]
    assert not [msg for _line, _sev, msg in found if "mock" in msg.lower()]


def test_the_real_budget_names_every_fake_of_an_ordinary_test(feature: Repo, run: Run) -> None:
    feature.write("tests/test_many.py", _test_file(60))
    feature.commit("add")
    found = _fakes_found(run)
    assert len([1 for _l, sev, _m in found if sev == "error"]) == 60
    assert not [m for _l, _s, m in found if "not named" in m or "not read" in m]


@pytest.mark.timing
def test_a_thousand_fakes_in_one_function_stay_fast(feature: Repo, run: Run) -> None:
    feature.write("tests/test_many.py", _test_file(1000))
    feature.commit("add")
    start = time.perf_counter()
    found = _fakes_found(run)
    elapsed = time.perf_counter() - start
    assert len([1 for _l, _s, m in found if "SimpleNamespace" in m]) == 1000
    assert elapsed < 60, elapsed


@pytest.mark.timing
def test_a_display_of_thousands_of_fakes_stays_linear(feature: Repo, run: Run) -> None:
    """A module-level list of 30,000 fakes, each with keywords of its own: each element's
    holder was found by a linear search of the display (quadratic: 18 s here against
    2 s), and the outer fake's nested fakes were deduplicated the same way; each is
    reported ⚠."""
    elements = ",\n".join(f"    SimpleNamespace(k{i}=1)" for i in range(30000))
    feature.write(
        "tests/test_display.py",
        "from types import SimpleNamespace\n\nfrom pkg.records import norm\n\n"
        f"X = SimpleNamespace(a=1, items=[\n{elements},\n])\n",
    )
    feature.commit("add")
    start = time.perf_counter()
    found = _fakes_found(run)
    elapsed = time.perf_counter() - start
    assert len([1 for _l, sev, _m in found if sev == "warning"]) == 30001
    assert elapsed < 8, elapsed


@pytest.mark.timing
def test_a_thousand_calls_on_unresolved_objects_stay_linear(feature: Repo, run: Run) -> None:
    """2,000 fakes, each passed to its own method of a fixture's object
    (``runner.callee_7(fake)``): each callee is looked up by its one ``def`` in the work
    tree, and whether the test imports what it is called on was read by a walk of the
    whole file per callee (quadratic: 1,500 callees took 35 s, against 1.2 s). One walk of the file
    answers every callee now, and past ``LAZY_PROBES`` names one index of the tree's
    ``def`` names answers the lookups."""
    lines = ["from types import SimpleNamespace", ""]
    for i in range(2000):
        lines += ["", f"def test_{i}(runner):", f"    runner.callee_{i}(SimpleNamespace(a={i}))"]
    feature.write("tests/test_calls.py", "\n".join(lines) + "\n")
    feature.commit("add")
    start = time.perf_counter()
    found = _fakes_found(run)
    elapsed = time.perf_counter() - start
    assert len(found) == 2000
    assert all(severity == "warning" for _line, severity, _message in found)
    assert elapsed < 30, elapsed
