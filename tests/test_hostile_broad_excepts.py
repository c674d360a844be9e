# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except is linear in a function's size: each broad handler asked whether its
``try`` ends the function (every statement of the function walked to find the blocks
holding it), whether a later ``raise`` ends the attempts (the function walked again for
its raises) and which earlier handler of its ``try`` gives the same answer (all of them
read again), so a pull request adding one function of thousands of ``try`` blocks, or one
``try`` of thousands of handlers, made the sweep quadratic (2,000 logged ``try`` blocks
in a set-up function: over a minute; 2,000 handlers of one ``try``: 43 s). The blocks,
the raises and the handlers' answers are indexed once a function / a ``try``."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings

_HEAD = ["import logging", "", "logger = logging.getLogger(__name__)", "", ""]


def _attempts(count: int) -> str:
    """A set-up method of ``count`` logged ``try`` blocks and a ``raise`` under a test of
    something else, then one whose ``try`` is followed by a raise testing what it binds."""
    lines = [*_HEAD, "class M:", "    def setup_device(self, flags):"]
    for i in range(count):
        lines.append("        try:")
        lines.append(f"            self.x{i} = f{i}()")
        lines.append("        except Exception as e:")
        lines.append("            logger.warning('failed %s', e)")
    lines += ["        if flags.bad:", "            raise RuntimeError('bad')"]
    lines += ["", "    def setup_rate(self):", "        try:", "            self.rate = read()"]
    lines += ["        except Exception as e:", "            logger.warning('no rate %s', e)"]
    lines += ["        if self.rate is None:", "            raise RuntimeError('no rate')"]
    return "\n".join(lines) + "\n"


def _handlers(count: int) -> str:
    """One ``try`` of ``count`` specific handlers answering differently, then ``count``
    broad ones answering ``None`` after a warning; one specific handler answers ``None``."""
    lines = [*_HEAD, "def fetch(c):", "    try:", "        return c.get()"]
    for i in range(count):
        lines += [f"    except E{i}:", "        logger.warning('x')", f"        return {i}"]
    lines += ["    except NotFound:", "        logger.warning('none')", "        return None"]
    for _ in range(count):
        lines += [
            "    except Exception:",
            "        logger.warning('failed')",
            "        return None",
        ]
    return "\n".join(lines) + "\n"


@pytest.mark.timing
def test_a_function_of_thousands_of_try_blocks_stays_fast(feature: Repo, run: Run) -> None:
    feature.write("pkg/engine/m.py", _attempts(4000))
    feature.commit("add")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "broad-except"]
    elapsed = time.perf_counter() - start
    # Each logged catch on the set-up path carries on half set up (✗); the one whose
    # attempt a later raise tests is only the logged catch-all (⚠).
    errors = [f["line"] for f in found if f["severity"] == "error"]
    assert errors == [10 + 4 * i for i in range(4000)]
    assert [(f["line"], f["severity"]) for f in found[4000:]] == [(10 + 4 * 4000 + 4, "warning")]
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_a_try_of_thousands_of_handlers_stays_fast(feature: Repo, run: Run) -> None:
    feature.write("pkg/h.py", _handlers(2000))
    feature.commit("add")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "broad-except"]
    elapsed = time.perf_counter() - start
    # Every broad handler gives the answer of ``except NotFound:`` (✗).
    assert len(found) == 2000
    assert {f["severity"] for f in found} == {"error"}
    assert all("after `except NotFound:`" in f["message"] for f in found)
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_thousands_of_handlers_setting_an_exit_status_stay_fast(feature: Repo, run: Run) -> None:
    """Each handler sets ``code = 1`` and the exit after its ``try`` is looked for a few
    statements on, not through the rest of the block: 4,000 in one function stay linear."""
    lines = ["import os", "", "", "def child(work):"]
    for _ in range(4000):
        lines += ["    try:", "        work()", "    except Exception:", "        code = 1"]
    lines += ["    os._exit(code)"]
    feature.write("pkg/fork.py", "\n".join(lines) + "\n")
    feature.commit("add")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "broad-except"]
    elapsed = time.perf_counter() - start
    # Only the last handler's status reaches the exit; every other one is a catch-all.
    assert len(found) == 3999
    assert 4 + 4 * 4000 - 1 not in {f["line"] for f in found}
    assert elapsed < 30, elapsed


def _nested(count: int) -> str:
    """A set-up function registering ``count`` nested callbacks, each a ``try`` whose
    handler holds a cleanup ``try`` with a catch of its own."""
    lines = [*_HEAD, "def setup_handlers(bus):"]
    for i in range(count):
        lines += [
            f"    def on_{i}(event):",
            "        try:",
            "            event.apply()",
            "        except Exception as e:",
            "            logger.warning('failed %s', e)",
            "            try:",
            "                event.undo()",
            "            except Exception:",
            "                pass",
            f"    bus.subscribe(on_{i})",
        ]
    return "\n".join(lines) + "\n"


@pytest.mark.timing
def test_thousands_of_nested_callbacks_with_cleanup_stay_fast(feature: Repo, run: Run) -> None:
    """Whether a nested function runs after its set-up returned (its name called there)
    and whether a ``try`` sits in another handler are indexed once a function: 2,000
    callbacks of one set-up, each with a nested cleanup catch, stay linear. None runs on
    the set-up path (each is handed away), so no ✗."""
    feature.write("pkg/bus.py", _nested(2000))
    feature.commit("add")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "broad-except"]
    elapsed = time.perf_counter() - start
    assert len(found) == 4000
    assert {f["severity"] for f in found} == {"warning"}
    assert elapsed < 30, elapsed
