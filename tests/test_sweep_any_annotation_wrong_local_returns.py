# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a builtin return annotation whose function returns a local name
every binding of which gives another builtin kind (open-r1's rewards: ``rewards = []``,
appended to, ``return rewards`` under ``-> float``; ``first, rest = [], []`` binds each
name to its own item of the display). Not a name bound also another way (a call, a loop,
unpacking anything but a display of as many items, a parameter), nor a kind the
annotation accepts."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

LOCALS = """\
def len_reward(completions: list[str], **kwargs: object) -> float:
    rewards = []
    for completion in completions:
        rewards.append(float(len(completion)))
    return rewards


def merged(a: dict[str, int], b: dict[str, int]) -> list[str]:
    out = {}
    out |= a
    out |= b
    return out


def scores(items: list[float]) -> float:
    total = 0
    for item in items:
        total += item
    return total


def rebound(items: list[str]) -> dict[str, int]:
    counts = []
    counts = build(items)
    return counts


def looped(items: list[list[int]]) -> dict[str, int]:
    for row in items:
        pass
    row = []
    return row


def parameter(rows: list[int]) -> dict[str, int]:
    rows = []
    return rows


def unpacked(items: list[int]) -> str:
    first, rest = [], []
    return first


def unpacked_call(items: list[int]) -> str:
    first, rest = split(items)
    return first


def build(items: list[str]) -> dict[str, int]:
    return {}
"""


def test_a_local_of_one_other_kind_contradicts_the_annotation(feature: Repo, run: Run) -> None:
    feature.write("pkg/rewards.py", LOCALS)
    feature.commit("add")
    rows = [r for r in found(run, "any-annotation") if r[2] == "error"]
    assert [r[1] for r in rows] == [1, 8, 40]
    assert "returns a list (`rewards`)" in rows[0][3]
    assert "returns a dict (`out`)" in rows[1][3]
    assert "returns a list (`first`)" in rows[2][3]
