# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, ``-> None`` over a returned value: "a **wrong** annotation (actively
misleading)".

NeMo's ``save_checkpoint(...) -> None`` that returns the async save request its caller
finalises, datasets' ``set_json_types_in_feature(...) -> None`` whose callers reassign
what it returns: the annotation tells callers there is nothing to use. ✗ when the value
is certainly not None (a literal, a class built, a name the function binds); a call of
anything else may be None (``return logger.warning(...)``) and is left alone."""

from __future__ import annotations

from functools import partial

from tests.conftest import Repo
from tests.sweep_fixture import Run, found, sweep_findings

FEATURE_BASE = {"pkg/__init__.py": ""}

rows = partial(found, rule="any-annotation")

NEW = """\
class Request:
    pass


def save(path: str) -> None:
    request = Request()
    return request


def convert(feature: dict) -> None:
    feature["kind"] = "json"
    return feature


def describe(flag: bool) -> None:
    if flag:
        return {"flag": flag}
    return
"""


def test_a_none_annotation_over_a_value_is_one_x_at_the_annotation(feature: Repo, run: Run) -> None:
    """A local bound to a built class, a parameter, a dict display: each function gets
    one ✗ on its ``-> None`` line naming the returned value and its line."""
    feature.write("pkg/save.py", NEW)
    feature.commit("new")
    got = {(line, sev): message for _p, line, sev, message in rows(run)}
    assert sorted(got) == [(5, "error"), (10, "error"), (15, "error")]
    assert (
        "`save` is annotated `-> None` (line 5) but returns `request` on line 7" in got[5, "error"]
    )
    assert "returns `feature` on line 12" in got[10, "error"]
    assert 'returns `{"flag": flag}` on line 17' in got[15, "error"]


UNSURE = """\
import logging

logger = logging.getLogger(__name__)


def warn(flag: bool) -> None:
    if flag:
        return logger.warning("flag set")
    return None


def passthrough(value=None) -> None:
    return value


def cleared() -> None:
    state = None
    return state


def gen() -> None:
    yield 1
    return 2


def untyped(x):
    return x


class Trainer:
    async def _legacy(self, version: int) -> None:
        pass

    async def push(self, version: int) -> None:
        result = await self._legacy(version)
        return result
"""


def test_a_value_that_may_be_none_is_no_finding(feature: Repo, run: Run) -> None:
    """A call of a function (it may return None), a parameter defaulting to None, a local
    bound only to None or to what a ``-> None`` method gives (forge's ``result = await
    self._push_weights_DEPRECATED(...)``), a generator and an unannotated function: no ✗."""
    feature.write("pkg/unsure.py", UNSURE)
    feature.commit("new")
    assert [(line, sev) for _p, line, sev, _m in rows(run) if sev == "error"] == []


OLD = """\
def finish(path: str) -> None:
    result = [path]
    return result
"""


def test_an_old_mismatch_the_change_does_not_touch_is_not_reported(feature: Repo, run: Run) -> None:
    """The change edits another line of an old function that already returned a value:
    no new evidence. Rewriting the ``return`` line to another value is: one ✗ there."""
    feature.write("pkg/old.py", OLD)
    base = feature.commit("old")
    feature.write("pkg/old.py", OLD.replace("[path]", "[path, path]"))
    edited = feature.commit("edit")
    assert since(run, base) == []
    feature.write("pkg/old.py", OLD.replace("return result", "return {'path': path}"))
    feature.commit("value")
    got = since(run, edited)
    assert [line for line, _m in got] == [3]
    assert "returns `{'path': path}` on line 3" in got[0][1]


def since(run: Run, base: str) -> list[tuple[int, str]]:
    """(line, message) of each any-annotation ✗ of the commits after ``base``."""
    return [
        (f["line"], f["message"])
        for f in sweep_findings(run, "--base", base)
        if f["rule"] == "any-annotation" and f["severity"] == "error"
    ]
