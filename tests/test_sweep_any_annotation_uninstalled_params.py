# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a parameter's implicit Optional whose class is imported by name
(``from torch.distributed import ProcessGroup``) from a module that is neither in the
repository nor installed is read as its dotted spelling (``dist.ProcessGroup``) is: a
class, which cannot hold None, reported when None reaches the parameter."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, blocking

ULYSSES = """\
from typing import Optional

import torch.distributed as dist
from torch.distributed import ProcessGroup
from elsewhere import DTypeLike, ModelT

_GROUP = None


def get_group() -> Optional[dist.ProcessGroup]:
    return _GROUP


def world_size(group: ProcessGroup = None) -> int:
    group = get_group() if group is None else group
    return dist.get_world_size(group) if group else 1


def rank(group: dist.ProcessGroup = None) -> int:
    group = get_group() if group is None else group
    return dist.get_rank(group) if group else 0


def never_none(group: ProcessGroup = None) -> int:
    return group.size()


def cast(value: int, dtype: DTypeLike = None, model: ModelT = None) -> int:
    if dtype is None or model is None:
        return value
    return value + 1
"""


def test_a_class_imported_by_name_from_an_absent_module(feature: Repo, run: Run) -> None:
    # LLaMA-Factory ulysses.py: ``group: ProcessGroup = None`` tested for None beside
    # ``dist.ProcessGroup = None``; both spellings name the same class. ``never_none``
    # dereferences it on every path (a dead default); ``DTypeLike`` / ``ModelT`` read as
    # an alias and a type variable (unsure, no finding).
    feature.write("pkg/ulysses.py", ULYSSES)
    feature.commit("add")
    found = sorted(
        (line, m.split(":", 1)[0].strip("`")) for _p, line, m in blocking(run, "any-annotation")
    )
    assert found == [(14, "group"), (19, "group")]
    message = next(m for _p, line, m in blocking(run, "any-annotation") if line == 14)
    assert "annotate `group: ProcessGroup | None`" in message


GRAPH = """\
from langgraph.graph import StateGraph
from elsewhere import GraphT


class MathAgent:
    def build_graph(self) -> StateGraph:
        workflow = StateGraph(dict)
        workflow.add_node("agent", self.call_model)
        self.graph = workflow.compile()

    def build_generic(self) -> GraphT:
        self.graph = StateGraph(dict).compile()

    def build_stub(self) -> StateGraph:
        raise NotImplementedError
"""


def test_a_return_class_from_an_absent_module_that_the_body_never_returns(
    feature: Repo, run: Run
) -> None:
    # ChatLearn 854668fa / fbd819dd agent graphs (set zzzs, ✗ twice): `-> StateGraph`
    # (langgraph, not installed where the sweep runs) over a body that only stores the
    # compiled graph: it returns None. `GraphT` reads as a type variable (unsure); a body
    # that raises never falls off.
    feature.write("pkg/agent.py", GRAPH)
    feature.commit("add")
    found = blocking(run, "any-annotation")
    assert [line for _p, line, _m in found] == [6]
    assert "`build_graph` is annotated `-> StateGraph` but can fall off its end" in found[0][2]
