# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``any-annotation`` ✗ for a parameter annotated as a builtin whose attribute the body
uses though no such builtin has it: tritonparse's ``entry: str`` whose body calls
``entry.setdefault(...)`` (its one caller passes a trace dict, set zzzy), a ``question:
dict`` read as a pandas row (``question.to_dict()``). Not when the function rebinds the
parameter, tests what it is, catches ``AttributeError``, or the name is not the builtin."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

# Old functions with builtin-annotated parameters: the change only adds uses.
FEATURE_BASE = {
    "pkg/old.py": "def visit(entry: str):\n    return entry\n",
    "pkg/silenced.py": "def visit(entry: str):  # type: ignore\n    return 1\n",
}


def _rows(run: Run) -> list[tuple[int, str, str]]:
    return [(line, sev, msg) for _p, line, sev, msg in found(run, "any-annotation")]


@pytest.mark.parametrize(
    ("signature", "use", "attribute"),
    [
        ("entry: str", 'entry.setdefault("payload", {})', "setdefault"),
        ("question: dict", "question.to_dict()", "to_dict"),
        ("ids: List[int]", "ids.new_ones(3)", "new_ones"),
        ("names: 'list[str]'", "names.add('x')", "add"),
        ("count: int", "count.item()", "item"),
        ("row: Dict[str, int]", "row.value = 1", "value"),
    ],
)
def test_an_attribute_no_builtin_has(
    feature: Repo, run: Run, signature: str, use: str, attribute: str
) -> None:
    feature.write(
        "pkg/analysis.py",
        f"from typing import Dict, List\n\n\ndef visit({signature}) -> None:\n    {use}\n",
    )
    feature.commit("visit")
    rows = _rows(run)
    assert [(line, sev) for line, sev, _m in rows] == [(4, "error")]
    name = signature.split(":")[0]
    assert f"reads `{name}.{attribute}` (line 5)" in rows[0][2]


@pytest.mark.parametrize(
    "body",
    [
        # an attribute the builtin has
        "return entry.upper()",
        # rebound: no longer the value the callers passed
        "entry = json.loads(entry)\n    return entry.setdefault('k', 1)",
        # the body tests what it is
        "if isinstance(entry, dict):\n        entry.setdefault('k', 1)",
        "if hasattr(entry, 'setdefault'):\n        entry.setdefault('k', 1)",
        # duck typing
        "try:\n        entry.setdefault('k', 1)\n    except AttributeError:\n        pass",
    ],
)
def test_no_finding_when_the_body_allows_it(feature: Repo, run: Run, body: str) -> None:
    feature.write("pkg/analysis.py", f"import json\n\n\ndef visit(entry: str):\n    {body}\n")
    feature.commit("visit")
    # (an ``isinstance`` branch handling a dict is the ✗ of its own reading)
    assert [m for _l, _s, m in _rows(run) if "is used as another type" in m] == []


def test_a_name_that_is_not_the_builtin(feature: Repo, run: Run) -> None:
    # gymnasium's ``Dict`` space has ``.spaces``: the name is the space's, not typing's
    feature.write(
        "pkg/spaces.py",
        "from gymnasium.spaces import Dict\n\n\n"
        "def sizes(space: Dict) -> int:\n    return len(space.spaces)\n",
    )
    feature.commit("spaces")
    assert _rows(run) == []


def test_an_old_annotation_is_not_judged_again(feature: Repo, run: Run) -> None:
    feature.write("pkg/old.py", "def visit(entry: str):\n    return entry.setdefault('k', 1)\n")
    feature.commit("use it")
    assert _rows(run) == []


def test_a_silenced_annotation(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/fresh.py",
        "def visit(entry: str):  # type: ignore\n    return entry.setdefault('k', 1)\n",
    )
    feature.commit("silenced")
    assert _rows(run) == []
