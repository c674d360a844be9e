# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ of round AV (set zzzw, kornia): a caller hands its own parameter
defaulting to None to a helper that annotates it without None and tests it for None,
and rebinds the name only with the helper's result, after the value went in
(``mask = self.fix_mask(mask, reference_signal)``). What runs before the call decides:
a test or a rebinding above it (or a guard in the same statement) narrows the value, and
a call in a loop is judged on the whole body, as before."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, blocking

MUTUAL = """\
import torch


class MutualInformation:
    def __init__(self, signal: torch.Tensor, mask: torch.Tensor | None = None) -> None:
        mask = self.fix_mask(mask, signal)
        self.mask = mask

    @staticmethod
    def fix_mask(mask: torch.Tensor, masked: torch.Tensor) -> torch.Tensor:
        if mask is None:
            mask = torch.ones(masked.shape[-1], dtype=torch.bool)
        return mask.to(masked.device)
"""


def test_the_callers_rebinding_by_the_call_itself_still_hands_none(feature: Repo, run: Run) -> None:
    feature.write("pkg/mi.py", MUTUAL)
    rows = blocking(run, "any-annotation")
    assert [line for _p, line, _m in rows] == [10]
    assert "`mask: torch.Tensor` of `fix_mask` is contradicted by a caller" in rows[0][2]
    assert "passes `mask`, its own parameter defaulting to None" in rows[0][2]


@pytest.mark.parametrize(
    "caller",
    [
        # narrowed above the call
        "        if mask is None:\n            mask = torch.ones(1)\n"
        "        mask = self.fix_mask(mask, signal)\n",
        # rebound above the call
        "        mask = mask if mask is not None else torch.ones(1)\n"
        "        mask = self.fix_mask(mask, signal)\n",
        # guarded in the call's own statement
        "        mask = self.fix_mask(mask, signal) if mask is not None else signal\n",
        # inside a guard around the call
        "        if mask is not None:\n            mask = self.fix_mask(mask, signal)\n",
        # a loop: a rebinding below the call reaches it on the next turn
        "        for _ in range(2):\n            self.fix_mask(mask, signal)\n"
        "            mask = torch.ones(1)\n",
    ],
)
def test_a_value_narrowed_before_the_call_is_no_contradiction(
    feature: Repo, run: Run, caller: str
) -> None:
    old = "        mask = self.fix_mask(mask, signal)\n"
    feature.write("pkg/mi.py", MUTUAL.replace(old, caller))
    assert blocking(run, "any-annotation") == []


def test_a_helper_that_never_tests_for_none_is_left_alone(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/mi.py",
        MUTUAL.replace(
            "        if mask is None:\n"
            "            mask = torch.ones(masked.shape[-1], dtype=torch.bool)\n",
            "",
        ),
    )
    assert blocking(run, "any-annotation") == []
