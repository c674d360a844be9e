# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, ``-> float`` over the return of a call annotated ``-> float |
tuple[float, dict]``: "a **wrong** annotation (actively misleading)".

trulens' new feedback methods (set zzzm) are annotated ``-> float`` and return
``self.generate_score(...)``, which returns ``(score, {"reason": ...})`` whenever the
judge answers in JSON. The callee is read only where it is certain (a module-level
``def`` of the file, a function an imported module defines, ``self.method`` of the
class, defined once); its annotation must name a builtin kind the declared builtin
rejects. Only a signature the change writes is judged."""

from __future__ import annotations

from functools import partial

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

FEATURE_BASE = {"pkg/__init__.py": ""}

rows = partial(found, rule="any-annotation")

PROVIDER = """\
from typing import List, Optional, Union, overload


def ids() -> Union[int, List[int]]:
    return 1


def number() -> float | int:
    return 1


class Provider:
    def generate_score(self, prompt: str) -> float | tuple[float, dict]:
        return 1.0

    @overload
    def pick(self, flag: bool) -> float: ...

    @overload
    def pick(self, flag: int) -> tuple[float, dict]: ...

    def pick(self, flag: bool | int) -> float | tuple[float, dict]:
        return 1.0

    def helpfulness(self, text: str) -> float:
        return self.generate_score(text)

    def first_id(self) -> int:
        return ids()

    def widened(self) -> float:
        return number()

    def picked(self) -> float:
        return self.pick(True)

    def passed(self, ids: object) -> int:
        return ids()

    def g_pass(self) -> float:
        metrics = {}
        metrics["g"] = 1.0
        return metrics

    def compute(self) -> dict[str, float]:
        return self.g_pass()
"""


def test_a_call_annotated_with_a_rejected_kind_is_one_x(feature: Repo, run: Run) -> None:
    """A method's and a module function's union naming a tuple / list under ``-> float``
    / ``-> int``: ✗ each, naming the callee's annotation. An int under ``-> float``, an
    overloaded method and a name the function binds itself: no finding. A callee whose
    own returns contradict its annotation (lighteval's ``g_pass_at_k(...) -> float``
    returning a dict) is the wrong one: ✗ there, none at its caller."""
    feature.write("pkg/provider.py", PROVIDER)
    feature.commit("new")
    got = {line: message for _p, line, sev, message in rows(run) if sev == "error"}
    assert sorted(got) == [25, 28, 40]
    assert "`g_pass` is annotated `-> float`" in got[40]
    assert "annotated `-> float | tuple[float, dict]` (a tuple is not a float)" in got[25]
    assert "returns `self.generate_score(text)`" in got[25]
    assert "(a list is not an int)" in got[28]


OLD = """\
class Provider:
    def generate_score(self, prompt: str) -> float | tuple[float, dict]:
        return 1.0

    def helpfulness(self, text: str) -> float:
        return 0.0
"""


def test_a_body_edit_of_an_old_signature_is_not_reported(feature: Repo, run: Run) -> None:
    """The change rewrites the return of an old ``-> float`` method: the annotation is
    not the change's (an old mismatch at most), no ✗."""
    feature.on_main({"pkg/old.py": OLD})
    feature.write("pkg/old.py", OLD.replace("return 0.0", "return self.generate_score(text)"))
    feature.commit("body")
    assert [sev for _p, _l, sev, _m in rows(run) if sev == "error"] == []
