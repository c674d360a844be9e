# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a fixed-length tuple annotation whose return puts None where an
item cannot hold it: ComfyUI 33bd9ed9 comfy/ldm/models/autoencoder.py:33, ``def
forward(self, z: torch.Tensor) -> Tuple[torch.Tensor, dict]:`` returning ``z, None``
(labelled ✗ in set zzzk). An item that admits None, one the file cannot decide (a
``TypeVar``, an unknown name), a ``tuple[X, ...]`` or a return of another length (its own
reading) is not this finding."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

FEATURE_BASE = {
    "pkg/old.py": (
        "import torch\n\n\ndef split(z: torch.Tensor) -> tuple[torch.Tensor, dict]:\n"
        "    return z, {}\n"
    ),
}

ITEMS = """\
from typing import Optional, Tuple, TypeVar

import torch

T = TypeVar("T")


class Bottleneck:
    def forward(self, z: torch.Tensor) -> Tuple[torch.Tensor, dict]:
        return z, None

    def optional(self, z: torch.Tensor) -> Tuple[torch.Tensor, Optional[dict]]:
        return z, None

    def generic(self, z: T) -> tuple[T, T]:
        return z, None

    def unknown(self, z: torch.Tensor) -> tuple[torch.Tensor, Unknown]:
        return z, None

    def varied(self, z: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return z, None

    def first(self, z: torch.Tensor) -> tuple[int, str, torch.Tensor]:
        if z is None:
            return 0, "", z
        return 1, None, z
"""


def test_a_none_item_the_annotation_does_not_admit_is_wrong(feature: Repo, run: Run) -> None:
    feature.write("pkg/vae.py", ITEMS)
    feature.commit("add")
    rows = [r for r in found(run, "any-annotation") if r[2] == "error"]
    assert [r[1] for r in rows] == [9, 24]
    assert rows[0][3] == (
        "`forward` is annotated `-> Tuple[torch.Tensor, dict]` (line 9) but returns None "
        "as item 2 (`z, None`) on line 10; annotate item 2 `dict | None`"
    )
    assert "returns None as item 2 (`1, None, z`) on line 27" in rows[1][3]
    assert "annotate item 2 `str | None`" in rows[1][3]


def test_an_old_annotation_is_reported_at_the_new_return(feature: Repo, run: Run) -> None:
    # The signature is the base's (FEATURE_BASE); the change adds the return that breaks
    # it: the finding goes on the added return line.
    feature.write(
        "pkg/old.py",
        "import torch\n\n\ndef split(z: torch.Tensor) -> tuple[torch.Tensor, dict]:\n"
        "    if z.numel() == 0:\n        return z, None\n    return z, {}\n",
    )
    feature.commit("change")
    rows = [r for r in found(run, "any-annotation") if r[2] == "error"]
    assert [r[1] for r in rows] == [6]
    assert "returns None as item 2 (`z, None`) on line 6" in rows[0][3]
