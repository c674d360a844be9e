# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a return annotation is not contradicted by a fall-through that only a
value outside an enum reaches. supervision 7e19c633 / e804a01e / 6b48881d core.py:
``from_vlm(...) -> Detections`` validates ``vlm`` into a ``VLM`` and then returns in one
``if vlm == VLM.X:`` block per member (labelled ⚠ and '-'). A chain missing a member,
or over a class that is no ``Enum``, still falls off."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, messages

KINDS = """\
from enum import Enum


class VLM(Enum):
    PALIGEMMA = "paligemma"
    FLORENCE_2 = "florence_2"
    QWEN = "qwen"


class Plain:
    A = 1
    B = 2
"""

DETECTIONS = """\
from pkg.kinds import VLM, Plain
from pkg.kinds import VLM as Kind


class Local(Enum):
    X = 1
    Y = 2


class Detections:
    @classmethod
    def from_vlm(cls, vlm: VLM | str, result: str) -> "Detections":
        vlm = validate(vlm)
        if vlm == VLM.PALIGEMMA:
            return cls()
        if vlm is VLM.QWEN:
            return cls()
        if vlm == VLM.FLORENCE_2:
            return cls()

    @classmethod
    def grouped(cls, vlm: VLM) -> "Detections":
        if vlm in (VLM.PALIGEMMA, VLM.QWEN):
            return cls()
        elif vlm == VLM.FLORENCE_2:
            return cls()

    @classmethod
    def local(cls, kind: "Local") -> "Detections":
        if kind == Local.X:
            return cls()
        if kind == Local.Y:
            return cls()

    @classmethod
    def renamed(cls, kind: Kind) -> "Detections":
        if kind in (Kind.PALIGEMMA, Kind.QWEN, Kind.FLORENCE_2):
            return cls()

    @classmethod
    def missing(cls, vlm: VLM) -> "Detections":
        if vlm == VLM.PALIGEMMA:
            return cls()
        if vlm == VLM.QWEN:
            return cls()

    @classmethod
    def plain(cls, kind: int) -> "Detections":
        if kind == Plain.A:
            return cls()
        if kind == Plain.B:
            return cls()

    @classmethod
    def mixed(cls, vlm: VLM, other: VLM) -> "Detections":
        if vlm == VLM.PALIGEMMA:
            return cls()
        if other == VLM.QWEN:
            return cls()
        if vlm == VLM.FLORENCE_2:
            return cls()
"""


def test_a_dispatch_over_every_enum_member_does_not_fall_off(feature: Repo, run: Run) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/kinds.py", KINDS)
    feature.write(
        "pkg/detections.py", DETECTIONS.replace("from pkg", "from enum import Enum\nfrom pkg")
    )
    feature.commit("add")
    falls = sorted(m.split("`")[1] for m in messages(run, rule="any-annotation") if "fall off" in m)
    assert falls == ["missing", "mixed", "plain"]


@pytest.mark.timing
def test_thousands_of_dispatching_functions_stay_fast(feature: Repo, run: Run) -> None:
    # Round AH's enum reading first scanned the module's statements for the enum class
    # once per function: 3,000 functions dispatching over an imported enum took 30 s.
    # Each module's classes and imports are indexed once, each enum answered once.
    body = "".join(
        f"\n\ndef f{i}(kind: VLM) -> Plain:\n"
        "    if kind == VLM.PALIGEMMA:\n        return Plain()\n"
        "    if kind == VLM.FLORENCE_2:\n        return Plain()\n"
        "    if kind == VLM.QWEN:\n        return Plain()\n"
        for i in range(4000)
    )
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/kinds.py", KINDS)
    feature.write("pkg/many.py", "from pkg.kinds import VLM, Plain\n" + body)
    feature.commit("add")
    started = time.perf_counter()
    falls = [m for m in messages(run, rule="any-annotation") if "fall off" in m]
    assert time.perf_counter() - started < 30
    assert falls == []
