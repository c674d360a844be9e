# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a wrong annotation in a test file too: the seed's ✗ ("a **wrong**
annotation (actively misleading)") has no production-only limit, unlike the ⚠ for
``Any`` (still production code only). The same proofs as in production code: an implicit
Optional that None really reaches, a ``-> List[float]`` that falls off its end."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

HELPERS = """\
from typing import Any, List


def create_test_config(model_name: str, custom_parallel_plan: str = None) -> dict:
    config = {"model_name": model_name}
    if custom_parallel_plan is not None:
        config["plan"] = custom_parallel_plan
    return config


def test_default_plan() -> None:
    assert create_test_config("m") == {"model_name": "m"}


def post_stream(url: str) -> List[float]:
    try:
        times = [float(len(url))]
        return times
    except Exception:
        pass


def unread(size: int = None) -> int:
    return 1


def passes_it_on(value: Any, plan: str = None) -> None:
    assert value


def test_all() -> None:
    unread(2)
    passes_it_on(1, plan="x")


class Request:
    def __init__(self, headers: dict, body: dict = None):
        self.headers = headers
        self.body = body


class DummyStrategy:
    def make_dummy(self, batch_size: int, target_hidden_size: int = None) -> list:
        if target_hidden_size is not None:
            return [target_hidden_size]
        return []


def test_doubles() -> None:
    assert Request(headers={}).body is None
    assert DummyStrategy().make_dummy(1) == []
"""


def test_a_wrong_annotation_in_a_test_file(feature: Repo, run: Run) -> None:
    """nemo-rl ``test_dtensor_worker.py``: ``custom_parallel_plan: str = None`` of a
    test helper that ``create_test_config("m")`` leaves None and that tests ``is not
    None``: ✗. lightllm ``test/benchmark_qps.py``: ``-> List[float]`` whose ``except
    Exception: pass`` falls off: ✗. Not: a None default nothing relies on, one every
    caller passes, ``value: Any`` (the ⚠ for ``Any`` stays production-only), nor a
    method of a test double (production-stack's stub ``Request(headers, body: Dict =
    None)``, lmdeploy's ``DummyInputsStrategy.make_dummy`` mirroring the production
    signature): its signature is the API's it stands in for."""
    feature.write("tests/test_helpers.py", HELPERS)
    feature.commit("add")
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(4, "error"), (15, "error")], rows
    assert "`custom_parallel_plan: str = None`" in rows[0][3]
    assert "can fall off its end and return None" in rows[1][3]
