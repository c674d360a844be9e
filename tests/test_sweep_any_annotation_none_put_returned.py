# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a local container returned under ``-> list[X]`` (``set[X]``,
``dict[K, V]``) after the function puts a literal ``None`` in it, where the item type
holds no None: open-r1's ``code_reward(...) -> list[float]`` appending ``None`` for a
reward it could not compute (set zh, labelled ✗). At the ``->`` line when the change
writes the annotation, else at the ``None`` the change adds; an Optional item type, a
parameter, a local the function annotates itself, or a ``None`` put in another list say
nothing here."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, blocking, found

REWARDS = """\
from typing import Dict, List


def code_reward(completions: list[str]) -> list[float]:
    rewards = []
    for c in completions:
        try:
            rewards.append(float(len(c)))
        except Exception:
            rewards.append(None)
    return rewards


def by_name(names: list[str]) -> Dict[str, int]:
    table = {}
    for n in names:
        table[n] = None
    return table


def seen(names: list[str]) -> "set[str]":
    out = set()
    out.add(None)
    return out
"""

FINE = """\
from typing import List, Optional


def optional_items(xs: list[int]) -> list[Optional[float]]:
    out = []
    out.append(None)
    return out


def handed(out: list[float]) -> list[float]:
    out.append(None)
    return out


def annotated_local(xs: list[int]) -> list[float]:
    out: List[Optional[float]] = []
    out.append(None)
    return out


def other_list(xs: list[int]) -> list[float]:
    out = []
    skipped = []
    skipped.append(None)
    return out


def silenced(xs: list[int]) -> list[float]:  # type: ignore[return-value]
    out = []
    out.append(None)
    return out
"""


def test_a_returned_local_given_none_under_an_item_type_without_none(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/rewards.py", REWARDS)
    rows = blocking(run, "any-annotation")
    assert [(path, line) for path, line, _m in rows] == [
        ("pkg/rewards.py", 4),
        ("pkg/rewards.py", 14),
        ("pkg/rewards.py", 21),
    ]
    assert rows[0][2] == (
        "`code_reward` is annotated `-> list[float]` (line 4) but the `rewards` it returns "
        "is given `None` (line 10): `float` does not admit None; annotate `float | None` as "
        "its item type"
    )


def test_an_optional_item_a_parameter_or_another_list_is_nothing(feature: Repo, run: Run) -> None:
    feature.write("pkg/fine.py", FINE)
    assert [row for row in found(run, "any-annotation") if row[2] == "error"] == []


def test_an_old_annotation_is_reported_at_the_none_the_change_adds(feature: Repo, run: Run) -> None:
    """The brief: when an added line makes an old annotation false, the site is the added
    line that contradicts it (open-r1's router branch appending None)."""
    old = REWARDS.replace("            rewards.append(None)\n", "            pass\n")
    feature.on_main({"pkg/rewards.py": old})
    feature.write("pkg/rewards.py", REWARDS)
    assert [(path, line) for path, line, _m in blocking(run, "any-annotation")] == [
        ("pkg/rewards.py", 10)
    ]
