# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation's implicit-Optional reading is linear in a function's size: each
parameter's question walked the whole body again, so a pull request adding one function
of thousands of `x: int = None` parameters, each handed on in one call, made the sweep
quadratic (3,000 parameters: 100 s before round N, 70 s after it). The body is now walked
once per function for all its parameters."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings


def _forward(params: int, receiver: str) -> str:
    """A class whose ``forward`` takes ``params`` implicit Optionals and hands each to
    ``receiver(...)``, and a caller that leaves them all at None."""
    names = [f"p{i}" for i in range(params)]
    return (
        "class Layer:\n"
        "    def inner(self, **kwargs: object) -> object:\n"
        "        return kwargs\n\n"
        "    def forward(\n"
        "        self,\n"
        + "".join(f"        {n}: int = None,\n" for n in names)
        + "    ) -> object:\n"
        f"        return {receiver}(" + ", ".join(f"{n}={n}" for n in names) + ")\n\n\n"
        "def call() -> object:\n"
        "    return Layer().forward()\n"
    )


def _optionals(run: Run) -> list[str]:
    return [
        str(f["message"])
        for f in sweep_findings(run, "--jobs", "1")
        if f["rule"] == "any-annotation" and "does not admit None" in str(f["message"])
    ]


@pytest.mark.timing
def test_a_function_of_thousands_of_implicit_optionals_stays_fast(feature: Repo, run: Run) -> None:
    feature.write("pkg/layer.py", _forward(3000, "self.model"))
    feature.commit("add")
    start = time.perf_counter()
    found = _optionals(run)
    elapsed = time.perf_counter() - start
    assert found == []  # handed to a submodule's call: its signature says what it takes
    assert elapsed < 30, elapsed


def test_the_same_parameters_handed_to_a_method_of_the_module_are_each_judged(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/layer.py", _forward(40, "self.inner"))
    feature.commit("add")
    found = _optionals(run)
    assert len(found) == 40
    assert found[0].startswith("`p0: int = None` (line 7): `int` does not admit None")
