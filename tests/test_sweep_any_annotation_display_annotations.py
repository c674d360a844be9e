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
