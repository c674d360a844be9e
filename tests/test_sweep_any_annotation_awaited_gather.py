# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a builtin return annotation over ``await asyncio.gather(...)``,
which is always a list (guardrails' ``async_partial_validate -> Tuple[Any, dict]``
returning ``results = await asyncio.gather(*coroutines)``): returned directly or through a
local. Not under an annotation that holds a list, not a ``gather`` of another module, and
not an ``asyncio`` the module binds to something else."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

GATHERED = """\
import asyncio
from typing import Any, Tuple

import other
from other import gather


async def partial(coroutines: list) -> Tuple[Any, dict]:
    results = await asyncio.gather(*coroutines)
    return results


async def direct(coroutines: list) -> dict:
    return await asyncio.gather(*coroutines)


async def listed(coroutines: list) -> list[int]:
    return await asyncio.gather(*coroutines)


async def sequence(coroutines: list) -> "list[Any] | None":
    results = await asyncio.gather(*coroutines)
    return results


async def elsewhere(coroutines: list) -> dict:
    return await other.gather(*coroutines)


async def bare(coroutines: list) -> dict:
    return await gather(*coroutines)
"""

REBOUND = """\
import asyncio as _asyncio

asyncio = object()


async def partial(coroutines: list) -> dict:
    return await asyncio.gather(*coroutines)


async def aliased(coroutines: list) -> dict:
    return await _asyncio.gather(*coroutines)
"""


def test_a_gathered_list_contradicts_a_builtin_annotation(feature: Repo, run: Run) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/run.py", GATHERED)
    feature.commit("gather")
    rows = [
        (line, severity, message)
        for path, line, severity, message in found(run, "any-annotation")
        if path == "pkg/run.py" and "returns a list" in message
    ]
    assert [(line, severity) for line, severity, _m in rows] == [(8, "error"), (13, "error")]
    assert "`-> Tuple[Any, dict]`" in rows[0][2]
    assert "return a tuple or fix the annotation" in rows[0][2]


def test_an_asyncio_the_module_rebinds_is_not_the_standard_library(feature: Repo, run: Run) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/run.py", REBOUND)
    feature.commit("gather")
    rows = [
        (line, severity)
        for path, line, severity, message in found(run, "any-annotation")
        if path == "pkg/run.py" and "returns a list" in message
    ]
    assert rows == [(10, "error")]
