# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a parameter whose annotation holds no str but that the body compares
only to string literals (``moe_router_dtype: torch.dtype | None`` tested ``== "fp32"``)
is a wrong annotation (✗): a value of the annotated type never equals them and is
silently ignored; so is a parameter handed as is to a function of the module that does."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, blocking, land_on_main

EXPORTER = """\
import torch


class Exporter:
    def __init__(self, name: str, moe_router_dtype: torch.dtype | None = None) -> None:
        self.router_dtype = None
        if moe_router_dtype == "fp32":
            self.router_dtype = torch.float32
        elif moe_router_dtype == "fp64":
            self.router_dtype = torch.float64


def export(name: str, moe_router_dtype: torch.dtype | None = None) -> Exporter:
    return Exporter(name, moe_router_dtype=moe_router_dtype)
"""


def test_dtype_compared_to_strings(feature: Repo, run: Run) -> None:
    # Model-Optimizer a94f95dd: the exporter and the public function forwarding to it.
    feature.write("pkg/export.py", EXPORTER)
    feature.commit("add")
    found = blocking(run, "any-annotation")
    assert [line for _p, line, _m in found] == [5, 13]
    assert '"fp32", "fp64"' in found[0][2]
    assert "handed to `Exporter`" in found[1][2]


FINE = """\
import enum
from typing import Literal

import torch


class Mode(str, enum.Enum):
    FAST = "fast"


def pick(dtype: torch.dtype | str = "auto") -> torch.dtype:
    if dtype == "auto":
        return torch.float16
    return torch.float32 if dtype == torch.float32 else torch.bfloat16


def mode_of(mode: Mode = Mode.FAST) -> int:
    return 1 if mode == "fast" else 2


def level(kind: Literal["a", "b"] = "a") -> int:
    return 1 if kind == "a" else 2


def cast(dtype: torch.dtype = torch.float32) -> int:
    if dtype == torch.float32 or dtype == "fp32":
        return 4
    return 2
"""


def test_strings_the_type_holds_or_other_comparisons(feature: Repo, run: Run) -> None:
    # A union with str, a str enum, a Literal: the strings are values of the type; a
    # body that also compares real dtypes handles the annotated type.
    feature.write("pkg/fine.py", FINE)
    feature.commit("add")
    assert blocking(run, "any-annotation") == []


OLD = """\
import torch


def convert(x: int, dtype: torch.dtype = None) -> int:
    if dtype == "fp16":
        return x
    return x + 1
"""


def test_old_parameter_not_reported(feature: Repo, run: Run) -> None:
    # Only a parameter whose annotation the change adds: the body's edit is no new
    # annotation.
    feature.write("pkg/old.py", OLD)
    land_on_main(feature)
    feature.write("pkg/old.py", OLD.replace("return x + 1", "return x + 2"))
    feature.commit("edit")
    assert blocking(run, "any-annotation") == []


LOADER = """\
import torch


class Loader:
    def load(self, dst: torch.Tensor, src: torch.Tensor, shard_id: str) -> None:
        dst, src = self._layout(dst, src, shard_id)
        dst.copy_(src)

    @staticmethod
    def _layout(
        dst: torch.Tensor, src: torch.Tensor, shard_id: str
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if shard_id == "w2":
            return dst, src
        return dst.t(), src.t()
"""


def test_tensor_handed_next_to_a_string_selector(feature: Repo, run: Run) -> None:
    # vLLM's MegaMoE ``_load_weight``: ``src`` is handed to a staticmethod beside the
    # ``shard_id`` the callee compares to strings; only a value handed on under its own
    # name counts, and a staticmethod's first parameter is no receiver.
    feature.write("pkg/loader.py", LOADER)
    feature.commit("add")
    assert blocking(run, "any-annotation") == []
