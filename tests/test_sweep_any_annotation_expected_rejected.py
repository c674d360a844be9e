# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation in tests: a function the test builds to be rejected is no contract.
warp 2abd428d test_codegen.py:610/626 defines kernels with a return annotation their
body contradicts (``def f4(x: float) -> float: return``) and launches each under
``test.assertRaisesRegex(wp.WarpCodegenTypeError, ...)``: the wrong annotation is what
the test checks (labelled '-'). A helper the test merely calls keeps its ✗."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

CODEGEN = """\
import pytest


def test_kernel_returns(test, device):
    @wp.kernel(module="unique")
    def f4(x: float) -> float:
        return

    with test.assertRaisesRegex(wp.WarpCodegenTypeError, "return"):
        wp.launch(f4, dim=1, inputs=[3.0], device=device)


def test_pytest_raises():
    def bad(x: int) -> int:
        return

    with pytest.raises(TypeError):
        compile_kernel(bad)


def make_value(x: float) -> float:
    return


def test_helper():
    assert make_value(1.0) is None


def test_helper_outside_the_block():
    def helper(x: int) -> int:
        return

    helper(1)
    with pytest.raises(ValueError):
        parse("x")
"""


def test_a_function_built_to_be_rejected_is_no_contract(feature: Repo, run: Run) -> None:
    feature.write("tests/test_codegen.py", CODEGEN)
    feature.commit("kernels")
    rows = [(r[1], r[2]) for r in found(run, "any-annotation") if r[0] == "tests/test_codegen.py"]
    # f4 (line 6) and bad (line 14) are what the blocks expect to fail; make_value
    # (line 21) and helper (line 30) are ordinary helpers with a wrong annotation.
    assert rows == [(21, "error"), (30, "error")]
