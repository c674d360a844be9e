# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for an array or tensor annotation over ``x.item()`` / ``x.tolist()``
(optuna's ``_1D_wrapper(...) -> tuple[np.ndarray, np.ndarray]`` returning
``fval.item(), grad.ravel()``, set zzzt): ``.item()`` gives a Python number and
``.tolist()`` a list, never the array the annotation promises. Only on an annotation or
signature the change writes; not for a class of the file's own that happens to have an
``item`` method, nor for an ``.item(key)`` call."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

OPTIM = """\
import numpy as np
import torch


def wrapper(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    fval = x.sum()
    grad = x * 2
    return fval.item(), grad.ravel()


def loss_of(x: torch.Tensor) -> torch.Tensor:
    return x.mean().item()


def logits_of(x: torch.Tensor) -> torch.FloatTensor:
    return x.tolist()


def fine(x: torch.Tensor) -> float:
    return x.item()


def fine_pair(x: np.ndarray) -> tuple[float, np.ndarray]:
    return x.sum().item(), x


def keyed(table: "Table") -> np.ndarray:
    return table.item("weights")


class Table:
    def item(self, key: str) -> np.ndarray:
        return np.zeros(1)
"""


def _blocking(run: Run) -> list[tuple[int, str]]:
    return [
        (line, message)
        for _p, line, severity, message in found(run, "any-annotation")
        if severity == "error"
    ]


def test_a_python_number_returned_where_an_array_is_declared(feature: Repo, run: Run) -> None:
    feature.write("pkg/optim.py", OPTIM)
    blocking = _blocking(run)
    assert [line for line, _m in blocking] == [5, 11, 15]
    assert "returns a Python number as item 1 (`fval.item(), grad.ravel()`)" in blocking[0][1]
    assert "annotate item 1 `float` (not `np.ndarray`)" in blocking[0][1]
    assert "returns `x.mean().item()`, a Python number" in blocking[1][1]
    assert "annotate `-> float`" in blocking[1][1]
    assert "annotate `-> list[float]`" in blocking[2][1]


def test_an_old_annotation_is_not_the_changes(feature: Repo, run: Run) -> None:
    """A change that only edits the body under an old `-> torch.Tensor` states nothing
    new about the return: no ✗ (the old annotation was wrong before)."""
    old = "import torch\n\n\ndef loss_of(x: torch.Tensor) -> torch.Tensor:\n    return x\n"
    feature.on_main({"pkg/optim.py": old})
    feature.write("pkg/optim.py", old.replace("return x\n", "return x.item()\n"))
    assert _blocking(run) == []
