# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, test fakes of a plain typed class of the repository: evalscope's
``task_state = SimpleNamespace(sample_id=2)`` stands in for ``TaskState``, no dataclass
but a class whose ``sample_id`` is a typed property. Every attribute the fake sets must
be one the class declares with a type (``x: T`` in its body, ``self.x: T = ...``, a
``@property`` with ``-> T``), and the class must be shaped like a record: no base but
``Generic``, no more public methods (a ``__call__`` among them) than typed attributes,
no name of a service object (vLLM's ``GroupCoordinator`` is a service a test fakes for
want of a process group)."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_STATE = (
    "class TaskState:\n"
    "    label: str\n\n"
    "    def __init__(self, sample_id: int) -> None:\n"
    "        self._sample_id = sample_id\n"
    "        self.score: float = 0.0\n"
    "        self.notes = []\n\n"
    "    @property\n"
    "    def sample_id(self) -> int:\n"
    "        return self._sample_id\n\n"
    "    @property\n"
    "    def raw(self):\n"
    "        return self._sample_id\n\n\n"
    "class TaskRunner:\n"
    "    @property\n"
    "    def sample_id(self) -> int:\n"
    "        return 0\n\n\n"
    "class GroupCoordinator:\n"
    "    rank: int\n\n"
    "    def all_gather(self, x: int) -> int:\n"
    "        return x\n\n"
    "    def barrier(self) -> None:\n"
    "        pass\n\n\n"
    "class Base:\n"
    "    pass\n\n\n"
    "class SubState(Base):\n"
    "    rank: int\n\n\n"
    "class Layers:\n"
    "    rank: int\n\n"
    "    def __call__(self, x: int) -> int:\n"
    "        return x\n\n\n"
    "def review(task_state: TaskState, runner: TaskRunner) -> int:\n"
    "    return task_state.sample_id + runner.sample_id\n\n\n"
    "def gather(group: GroupCoordinator, state: SubState, layers: Layers) -> int:\n"
    "    return group.rank + state.rank + layers.rank\n"
)


def _rows(feature: Repo, run: Run, imports: str, body: str) -> list[tuple[int, str, str]]:
    """Commit ``pkg/state.py`` and a test file importing ``imports`` from it whose
    ``test_review`` body (line 6 on) is ``body``: (line, severity, message) of the
    any-annotation findings in the test file."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/state.py", _STATE)
    feature.write(
        "tests/test_review.py",
        f"from types import SimpleNamespace\n\nfrom pkg.state import {imports}\n\n\n"
        f"def test_review():\n{body}",
    )
    feature.commit("tests")
    return [(r[1], r[2], r[3]) for r in found(run, "any-annotation") if r[0].startswith("tests/")]


def test_a_fake_of_typed_attributes_only_stands_in_for_the_plain_class(
    feature: Repo, run: Run
) -> None:
    rows = _rows(
        feature,
        run,
        "review",
        "    task_state = SimpleNamespace(sample_id=2)\n"  # 7: ✗ by the name, a property
        "    other = SimpleNamespace(score=1.0, label='a')\n"  # 8: ⚠ (no slot names it)
        "    review(task_state=SimpleNamespace(score=1.0, label='a'), runner=None)\n"  # 9: ✗
        "    assert task_state and other\n",
    )
    assert [(line, severity) for line, severity, _m in rows] == [
        (7, "error"),
        (8, "warning"),
        (9, "error"),
    ]
    assert "`TaskState` (pkg/state.py" in rows[0][2]
    assert "`TaskState`" in rows[2][2]


def test_an_untyped_attribute_or_a_service_class_keeps_the_fake_a_warning(
    feature: Repo, run: Run
) -> None:
    rows = _rows(
        feature,
        run,
        "gather, review",
        "    task_state = SimpleNamespace(sample_id=2, notes=[])\n"  # 7: `notes` untyped
        "    state = SimpleNamespace(raw=1)\n"  # 8: a property without `->`
        "    review(task_state=state, runner=SimpleNamespace(sample_id=1))\n"  # 9: a runner
        "    gather(group=SimpleNamespace(rank=0), state=None, layers=None)\n"  # 10: service
        "    gather(group=None, state=SimpleNamespace(rank=0), layers=None)\n"  # 11: a base
        "    gather(group=None, state=None, layers=SimpleNamespace(rank=0))\n"  # 12: callable
        "    assert task_state\n",
    )
    assert [(line, severity) for line, severity, _m in rows] == [
        (7, "warning"),
        (8, "warning"),
        (9, "warning"),
        (10, "warning"),
        (11, "warning"),
        (12, "warning"),
    ]
