# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a wrong return annotation whose function returns a call of a
builtin that always gives one builtin type (``dict.fromkeys(...)``, ``list(...)``,
``sorted(...)``, ``"".join(...)``): as certain as a returned literal display of that
type. Not when the file or function binds the builtin's name itself, nor for a type the
annotation accepts (``int(...)`` under ``-> float``)."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

CALLS = """\
from typing import List, Sequence


class Metric:
    METRICS = ("acc", "f1")

    def compute(self, doc: str, score: float) -> float:
        res = score * 2
        return dict.fromkeys(self.METRICS, res)


def shard(items: list[int], n: int) -> List[int]:
    return tuple(items[:n])


def names(items: list[str]) -> str:
    return sorted(items)


def total(items: list[int]) -> float:
    return int(sum(items))


def joined(items: list[str]) -> str:
    return ", ".join(items)


def view(items: list[int]) -> Sequence[int]:
    return list(items)


def counted(items: list[int]) -> int:
    return len(items)


def keys(items: dict[str, int]) -> set[str]:
    return frozenset(items)


def other(items: list[int]) -> int:
    return max(items)
"""

SHADOWED = """\
def dict(**kwargs: int) -> int:
    return 0


def size(a: int) -> int:
    return dict(a=a)


def local(a: int) -> int:
    list = int
    return list(a)
"""


def test_a_returned_builtin_call_of_another_type(feature: Repo, run: Run) -> None:
    """lighteval ``tiny_benchmarks/main.py``: ``compute(...) -> float`` returning
    ``dict.fromkeys(self.METRICS, res)``: ✗. So are ``-> List[int]`` returning
    ``tuple(...)``, ``-> str`` returning ``sorted(...)``, ``-> set[str]`` returning a
    ``frozenset(...)``; not ``int(...)`` under ``-> float``, ``"".join`` under ``-> str``,
    ``list(...)`` under ``-> Sequence[int]``, ``len`` under ``-> int``, nor ``max``
    (its type is its argument's)."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/calls.py", CALLS)
    feature.write("pkg/shadowed.py", SHADOWED)
    feature.commit("add")
    errors = [
        (path, line, message)
        for path, line, severity, message in found(run, "any-annotation")
        if severity == "error"
    ]
    assert [(p, line) for p, line, _m in errors] == [
        ("pkg/calls.py", 7),
        ("pkg/calls.py", 12),
        ("pkg/calls.py", 16),
        ("pkg/calls.py", 36),
    ], errors
    assert errors[0][2] == (
        "`compute` is annotated `-> float` (line 7) but returns a dict "
        "(`dict.fromkeys(self.METRICS, res)`) on line 9; return a float or fix the annotation"
    )
    assert "returns a tuple" in errors[1][2]
    assert "returns a list" in errors[2][2]
    assert "returns a frozenset" in errors[3][2]
