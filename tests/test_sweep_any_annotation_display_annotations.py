# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for an annotation that is a literal display (forge's ``get_info(self)
-> [str, str]``): no type; the message says the type it meant. Not a display nested in a
real type (``Callable[[int], str]``); an old one is not new
(``test_sweep_any_annotation_none_and_bool_defaults``)."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

DISPLAYS = """\
from typing import Callable


class Provisioner:
    def get_info(self) -> [str, str]:
        return "host", "port"

    def place(self, ids: (int, str), hook: Callable[[int], str]) -> dict[str, int]:
        return {}


state: {str: int} = {}
ok: list[int] = []
"""


def test_a_display_annotation_is_no_type(feature: Repo, run: Run) -> None:
    feature.write("pkg/provisioner.py", DISPLAYS)
    feature.commit("add")
    rows = [r for r in found(run, "any-annotation") if r[2] == "error"]
    assert [r[1] for r in rows] == [5, 8, 12]
    assert rows[0][3] == (
        "`get_info`'s return is annotated with a list display `[str, str]` (line 5), which "
        "is no type: annotate `tuple[str, str]`"
    )
    assert "parameter `ids` is annotated with a tuple display `(int, str)`" in rows[1][3]
    assert "annotate `dict[str, int]`" in rows[2][3]


TUPLE_RETURNS = """\
def kept(path) -> (dict, bool):
    if not path:
        return {}, False
    return {"path": path}, True


def more(path) -> (list, list, list, list):
    return [], [], [], [], []


def none_slot(path) -> (list, bool):
    if not path:
        return None, False
    return [path], True


def other(path) -> (str, dict):
    return convert(path)


def caller(path) -> dict:
    return kept(path)


def convert(path):
    return path
"""


def test_a_tuple_display_its_returns_keep_is_a_warning(feature: Repo, run: Run) -> None:
    """SWE-bench 2794fa3d ``get_logs_eval -> (dict, bool)`` returning ``{}, False`` and
    ``log_parser(content), True``: no type, but no reader is misled about the shape (⚠,
    as its labeller judged). Five lists under four, ``None`` where a ``list`` is stated,
    or a value whose shape is not shown stays ✗; and a function returning ``kept(...)``
    under ``-> dict`` returns the tuple the display states (✗)."""
    feature.write("pkg/metrics.py", TUPLE_RETURNS)
    feature.commit("add")
    rows = {
        line: (severity, message) for _p, line, severity, message in found(run, "any-annotation")
    }
    displays = {
        line: severity for line, (severity, message) in rows.items() if "display" in message
    }
    assert displays == {1: "warning", 7: "error", 11: "error", 17: "error"}, rows
    assert rows[1][1].endswith("(every return gives the tuple it states)")
    assert rows[21][0] == "error", rows
    assert "annotated `-> (dict, bool)` (a tuple is not a dict)" in rows[21][1]
