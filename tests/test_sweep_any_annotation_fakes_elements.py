# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, test fakes put in a record's sequence field: a fake held by a local
name that a list or tuple display puts into a record class's field annotated as a
sequence of a class (``Batch(states=[[sample]])`` with ``states: list[list[State]]``)
stands in for that element class (the field's annotation is the evidence, as a typed
parameter's is)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from policytool.rules import _fakes as fakes
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_RECORDS = (
    "from dataclasses import dataclass\n\n"
    "from pydantic import BaseModel\n\n\n"
    "class State(BaseModel):\n"
    "    group_id: int\n    rollout_id: int\n    session_id: int | None = None\n\n\n"
    "class Other(BaseModel):\n    name: str\n\n\n"
    "@dataclass\nclass Batch:\n"
    "    states: list[list[State]]\n    others: tuple[Other, ...] = ()\n"
    "    pairs: tuple[State, Other] | None = None\n    count: int = 0\n\n\n"
    "def release(groups: list[list[State]], names: list[str]) -> None:\n"
    "    pass\n"
)


def test_a_fake_put_in_a_records_sequence_field_is_its_element_class(
    feature: Repo, run: Run
) -> None:
    """xtuner (sealed set): ``ProduceBatchResult(rollout_states=[[train_sample]])`` with
    ``rollout_states: list[list[RolloutState]]``; two keywords, both fields of the
    element class: ✗ naming it, as for a fake with a keyword the element class lacks (the
    slot is typed). One in a heterogeneous tuple field, and one passed bare to a sequence
    field, stay ⚠. A parameter so annotated is a slot too (``release_and_discard_rollout_
    groups([[trace_owned, rollout_owned]])``): ✗; a list of ``str`` is no class: ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/records.py", _RECORDS)
    feature.write(
        "tests/test_batch.py",
        "from types import SimpleNamespace\n\n"
        "from pkg.records import Batch, release\n\n\n"
        "def test_batch():\n"  # 6
        "    sample = SimpleNamespace(group_id=1, rollout_id=2)\n"  # 7: ✗ State
        "    Batch(states=[[sample]])\n"
        "    odd = SimpleNamespace(group_id=1, layer=2)\n"  # 9: ✗ in a State slot
        "    Batch(states=[[odd]])\n"
        "    pair = SimpleNamespace(group_id=1, rollout_id=2)\n"  # 11: ⚠ which element?
        "    Batch(states=[], pairs=(pair, None))\n"
        "    bare = SimpleNamespace(group_id=1, rollout_id=2)\n"  # 13: ⚠ not an element
        "    Batch(states=bare)\n"
        "    held = SimpleNamespace(session_id=1, routed=2)\n"  # 15: ✗ State (parameter)
        "    release([[held]], names=[])\n"
        "    name = SimpleNamespace(session_id=1, routed=2)\n"  # 17: ⚠ a list of str
        "    release([], names=[name])\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (7, "error"),
        (9, "error"),
        (11, "warning"),
        (13, "warning"),
        (15, "error"),
        (17, "warning"),
    ]
    assert "stands in for `State`" in rows[0][3]
    assert "an element of `states: list[list[State]]` of `Batch`" in rows[0][3]


@given(
    depth=st.integers(min_value=1, max_value=3),
    wrapper=st.sampled_from(["list[{}]", "Sequence[{}]", "tuple[{}, ...]", "Optional[list[{}]]"]),
)
def test_the_element_type_is_read_at_the_displays_depth(depth: int, wrapper: str) -> None:
    """``X`` nested ``depth`` containers deep is found at that depth and no other."""
    text = "State"
    for _level in range(depth):
        text = wrapper.format(text)
    assert fakes.nested_element_type(text, depth) == "State"
    assert fakes.nested_element_type(text, depth - 1) is None
    assert fakes.nested_element_type(text, depth + 1) is None
