# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: ``-> List[Dict]`` whose last statement returns a local the body set to
None and rebinds only under an ``if`` with no ``else`` returns None whenever the condition
does not hold: the seed's ``-> bool`` that returns ``Optional[bool]`` (set zzzs: ChatLearn
ae1e823b ``generate``, ✗ twice, on the ranks that are no engine)."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, errors

FEATURE_BASE = {"pkg/__init__.py": ""}

_GENERATE = (
    "from typing import Dict, List\n"
    "\n"
    "\n"
    "class Module:\n"
    "    def generate(self, query: List[Dict]) -> List[Dict]:\n"  # 5
    "        outputs = None\n"
    "{between}"
    "        return outputs\n"
)


def test_a_local_left_none_unless_an_if_runs_is_a_wrong_return(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/module.py",
        _GENERATE.format(
            between=(
                "        if self.is_engine:\n"  # 7
                "            outputs = self.llm.generate(query)\n"
                "        self.flush_cache()\n"
            )
        ),
    )
    feature.commit("add")
    found = errors(run, "any-annotation")
    assert list(found) == [5]
    assert "returns `outputs` (None unless the `if` on line 7 runs)" in found[5]
    assert "annotate `-> List[Dict] | None`" in found[5]


@pytest.mark.parametrize(
    "between",
    [
        pytest.param(
            "        if self.is_engine:\n"
            "            outputs = self.llm.generate(query)\n"
            "        else:\n"
            "            outputs = []\n",
            id="an-else-binds-it",
        ),
        pytest.param(
            "        if self.is_engine:\n"
            "            outputs = self.llm.generate(query)\n"
            "        if outputs is None:\n"
            "            raise RuntimeError('no engine')\n",
            id="a-test-narrows-it",
        ),
        pytest.param(
            "        for item in query:\n            outputs = [item]\n",
            id="a-loop-binds-it",
        ),
        pytest.param(
            "        outputs = self.llm.generate(query)\n",
            id="rebound-unconditionally",
        ),
        pytest.param(
            "        if self.is_engine:\n"
            "            outputs = self.llm.generate(query)\n"
            "        outputs = outputs or []\n",
            id="read-after-the-if",
        ),
    ],
)
def test_a_local_every_path_sets_or_tests_is_no_wrong_return(
    feature: Repo, run: Run, between: str
) -> None:
    feature.write("pkg/module.py", _GENERATE.format(between=between))
    feature.commit("add")
    assert errors(run, "any-annotation") == {}


def test_an_optional_annotation_is_kept(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/module.py",
        _GENERATE.format(
            between="        if self.is_engine:\n            outputs = self.llm.generate(query)\n"
        )
        .replace("-> List[Dict]:", "-> Optional[List[Dict]]:")
        .replace("import Dict, List", "import Dict, List, Optional"),
    )
    feature.commit("add")
    assert errors(run, "any-annotation") == {}
