# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a parameter whose default is a type (torchchat's
``decode_n_tokens(..., batch=Optional[Dict[str, Any]], ...)``: ``=`` typed for ``:``). The
default is the typing object, never None, so ``if batch is not None`` always holds, and a
type checker sees no annotation. Not a value that merely looks like one (a class, a
subscripted dict), not a name the module rebinds; an old one is not new
(``test_sweep_any_annotation_none_and_bool_defaults``)."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

TYPED = """\
import typing
from typing import Any, Dict, Optional, Union


def decode_n_tokens(model, cur_token, batch=Optional[Dict[str, Any]], need_probs: bool = False):
    return batch is not None


def build(
    tools=Union[list[dict], None],
    ids=list[int],
    kind=typing.List[str],
    alt=int | Optional[str],
):
    return tools, ids, kind, alt


DEFAULTS = {"a": 1}


def fine(cls=dict, table=DEFAULTS["a"], factory=Optional, types=(int, str)):
    return cls, table, factory, types
"""


def test_a_type_written_as_a_default_is_wrong(feature: Repo, run: Run) -> None:
    feature.write("pkg/generate.py", TYPED)
    feature.commit("add")
    rows = [r for r in found(run, "any-annotation") if r[2] == "error"]
    assert [(r[1], r[3].split("`")[1]) for r in rows] == [
        (5, "batch=Optional[Dict[str, Any]]"),
        (10, "tools=Union[list[dict], None]"),
        (11, "ids=list[int]"),
        (12, "kind=typing.List[str]"),
        (13, "alt=int | Optional[str]"),
    ]
    assert rows[0][3] == (
        "parameter `batch=Optional[Dict[str, Any]]` (line 5): its default is a type, not a "
        "value (`=` written for `:`): annotate `batch: Optional[Dict[str, Any]]` and give "
        "it a default value"
    )


@pytest.mark.parametrize(
    "source",
    [
        # a module that rebinds ``list`` subscripts its own object
        "list = {1: 'a'}\n\n\ndef f(x=list[1]):\n    return x\n",
        # ``# type: ignore`` on the line silences it
        "from typing import Optional\n\n\ndef f(x=Optional[int]):  # type: ignore\n    return x\n",
    ],
)
def test_no_finding_for_a_rebound_name_or_a_silenced_line(
    feature: Repo, run: Run, source: str
) -> None:
    feature.write("pkg/mod.py", source)
    feature.commit("add")
    assert [r for r in found(run, "any-annotation") if r[2] == "error"] == []
