# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""policytool forks a copy of itself only with one thread alive: with another thread (its
own ``fix --online`` calls, a program embedding it), the file-rule workers are spawned,
the sweep pool spawns, and pre-commit's schema child is not started (the run computes the
verdict itself). The findings are the same either way."""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from policytool.config import load_config
from policytool.core.forking import single_threaded, thread_count
from policytool.core.memo import RunMemo
from policytool.engine import runner
from policytool.engine.registry import file_rules
from policytool.formats import precommit
from tests.conftest import Repo

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="fork: Linux only")


@pytest.fixture
def other_thread() -> Iterator[threading.Thread]:
    """A second thread, alive for the test."""
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    yield thread
    stop.set()
    thread.join()


def test_the_thread_count_is_the_kernels(other_thread: threading.Thread) -> None:
    assert thread_count() >= 2 and not single_threaded()


def fork_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if "multi-threaded" in str(w.message)]


def test_file_workers_are_spawned_not_forked_while_a_thread_is_alive(
    repo: Repo, no_leftovers: list[int], other_thread: threading.Thread
) -> None:
    repo.write("pyproject.toml", '[tool.policytool.spdx]\nlicense = "MIT"\n')
    relpaths = [f"m{index}.py" for index in range(runner.PARALLEL_THRESHOLD + 20)]
    for relpath in relpaths:
        repo.write(relpath, "x = 1\n")
    config = load_config(cwd=repo.root)
    rules = [file_rules(["spdx-header"])["spdx-header"]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pooled = runner.run_file_rules(config, relpaths, rules)
    assert no_leftovers == [] and fork_warnings(caught) == []  # nothing forked
    assert len(pooled.findings) == len(relpaths) and pooled.files_checked == len(relpaths)


def test_the_sweep_pool_spawns_while_a_thread_is_alive(other_thread: threading.Thread) -> None:
    assert runner._pool_context().get_start_method() == "spawn"


def test_the_sweep_pool_forks_with_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "single_threaded", lambda: True)
    assert runner._pool_context().get_start_method() == "fork"


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="the child needs two cores")
def test_no_schema_child_is_forked_while_a_thread_is_alive(
    repo: Repo, no_leftovers: list[int], other_thread: threading.Thread
) -> None:
    repo.write(".pre-commit-config.yaml", "repos: []\n")
    memo = RunMemo()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        precommit.prefetch_schema(Path(repo.root), ".pre-commit-config.yaml", memo)
    precommit.end_prefetch(memo)
    assert no_leftovers == [] and fork_warnings(caught) == []
