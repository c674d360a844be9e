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
