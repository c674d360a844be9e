# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for ``-> tuple[str]`` (a tuple of exactly one item) returning a
tuple of another length: compressed-tensors' ``compression_param_names(...) ->
tuple[str]`` builds ``param_names = ("weight_packed", "weight_scale", ...)`` and extends
it with ``+=``; ``tuple[str, ...]`` was meant. Not a one-item return, a ``tuple[X,
...]``, a local bound twice or grown from ``()``, or a stub."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

NAMES = """\
from typing import Tuple


class Compressor:
    @classmethod
    def param_names(cls) -> tuple[str]:
        raise NotImplementedError


class Packed(Compressor):
    @classmethod
    def param_names(cls, symmetric: bool = True) -> tuple[str]:
        names = ("weight_packed", "weight_scale")
        if not symmetric:
            names += ("weight_zero_point",)
        return names


def shape() -> Tuple[int]:
    return 3, 4


def nothing() -> tuple[int]:
    return ()


def one() -> tuple[str]:
    return ("weight",)


def many() -> tuple[str, ...]:
    return "a", "b", "c"


def grown(flag: bool) -> tuple[str]:
    names = ()
    if flag:
        names += ("a",)
    return names


def rebound(flag: bool) -> tuple[str]:
    names = ("a", "b")
    if flag:
        names = ("a",)
    return names
"""


def test_a_one_item_tuple_returning_more_is_wrong(feature: Repo, run: Run) -> None:
    feature.write("pkg/names.py", NAMES)
    feature.commit("add")
    rows = [r for r in found(run, "any-annotation") if r[2] == "error"]
    assert [r[1] for r in rows] == [12, 19, 23]
    assert rows[0][3] == (
        "`param_names` is annotated `-> tuple[str]` (line 12) but returns 2 or more items "
        "(`names`) on line 16; annotate `-> tuple[str, ...]`"
    )
    assert "returns 2 items (`3, 4`)" in rows[1][3]
    assert "annotate `-> tuple[int, ...]`" in rows[1][3]
    assert "returns 0 items (`()`)" in rows[2][3]


ARITY = """\
from typing import Optional, Tuple

import torch


def attention(x: torch.Tensor) -> tuple[torch.Tensor, Optional[torch.Tensor], Optional[tuple]]:
    out, weights = x, None
    return out, weights


def boxes(text: str) -> Tuple[list, list, list, Optional[list], Optional[list]]:
    if not text:
        return [], [], [], None
    return [], [], [], None, None


def pair(x: int) -> tuple[int, int]:
    rest = (x, x)
    if x:
        return (x, x)
    return (*rest,)


def varied(x: int) -> tuple[int, ...]:
    return x, x, x
"""


def test_a_fixed_length_tuple_returning_another_length_is_wrong(feature: Repo, run: Run) -> None:
    # optimum-executorch 732b1131 whisper_attention.py:94 (`-> tuple[Tensor,
    # Optional[Tensor], Optional[tuple[Tensor]]]` returning `attn_output, attn_weights`)
    # and supervision c7ebfeb4 vlm.py:405 (a 5-tuple annotation over early 4-tuple
    # returns), both labelled ✗. A `*` item or `tuple[int, ...]` proves nothing.
    feature.write("pkg/shapes.py", ARITY)
    feature.commit("add")
    rows = [r for r in found(run, "any-annotation") if r[2] == "error"]
    assert [r[1] for r in rows] == [6, 11]
    assert "returns 2 items (`out, weights`) on line 8; return 3 items" in rows[0][3]
    assert "returns 4 items" in rows[1][3] and "line 13" in rows[1][3]
