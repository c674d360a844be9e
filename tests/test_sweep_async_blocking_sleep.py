# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""async-blocking, ``time.sleep`` off the serving paths: ``await asyncio.sleep(...)`` is its
exact non-blocking twin, so a ``time.sleep`` that runs on an event loop in code that is not
a test is ✗ wherever the file lives (LitServe's batching loop under ``loops/``, a log
service's retry back-off under ``log_analyzer/``). Blocking HTTP off the serving paths
stays ⚠ (a blocking client may be all a library offers), and so do tests, QA models and
vLLM's sleep-mode endpoints."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found


def test_a_sleep_in_an_async_def_off_the_serving_paths_is_an_error(feature: Repo, run: Run) -> None:
    """LitServe 8216ee7b ``loops/continuous_batching_loop.py``: ``time.sleep(0.01)`` in
    ``async def run`` when a step returns nothing stalls the loop that schedules new
    requests: ✗, and the message names the twin. A blocking HTTP call beside it is ⚠."""
    feature.write(
        "src/litserve/loops/continuous_batching_loop.py",
        "import time\n"
        "import requests\n"
        "\n\n"
        "class ContinuousBatchingLoop:\n"
        "    async def run(self, lit_api):\n"
        "        while True:\n"
        "            if not await self.step(lit_api):\n"
        "                time.sleep(0.01)\n"  # 9: ✗
        "            requests.get(self.url, timeout=1)\n",  # 10: ⚠
    )
    rows = found(run, "async-blocking")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("src/litserve/loops/continuous_batching_loop.py", 9, "error"),
        ("src/litserve/loops/continuous_batching_loop.py", 10, "warning"),
    ]
    assert "`await asyncio.sleep(...)` yields instead" in rows[0][3]
    assert "async def run" in rows[0][3]


def test_a_sleeping_helper_an_async_def_calls_is_an_error(feature: Repo, run: Run) -> None:
    """nvidia-resiliency-ext a146d54f: the retry back-off ``_sleep_with_backoff`` calls
    ``time.sleep`` and ``async def analyze_logs`` calls it on the loop: ✗ (a helper named
    for sleeping is not vLLM's sleep-mode endpoint)."""
    feature.write(
        "src/attribution/log_analyzer/logsage.py",
        "import time\n"
        "\n\n"
        "def _sleep_with_backoff(attempt):\n"
        "    time.sleep(2**attempt)\n"  # 5: ✗
        "\n\n"
        "async def analyze_logs(path):\n"
        "    for attempt in range(3):\n"
        "        _sleep_with_backoff(attempt)\n",
    )
    rows = found(run, "async-blocking")
    assert [(r[1], r[2]) for r in rows] == [(5, "error")]
    assert "`_sleep_with_backoff`, which `async def analyze_logs` calls on the loop" in rows[0][3]


def test_tests_qa_models_and_sleep_mode_stay_warnings(feature: Repo, run: Run) -> None:
    """A test's ``async def`` (langfuse), a Triton QA model under ``qa/`` that sleeps to
    stand in for work, and vLLM's ``sleep`` / ``is_sleeping`` endpoints (an admin path)
    are ⚠; a fake's method a test function defines is not reported at all."""
    sleeping = "import time\n\n\nasync def {name}(self):\n    time.sleep(1)\n"
    feature.write("tests/test_propagate.py", sleeping.format(name="test_propagates"))
    feature.write("qa/L0_metrics/decoupled/1/model.py", sleeping.format(name="execute"))
    feature.write("pkg/worker/sleep_mode.py", sleeping.format(name="sleep"))
    feature.write("pkg/worker/state.py", sleeping.format(name="is_sleeping"))
    feature.write(
        "tests/test_fake.py",
        "import time\n"
        "\n\n"
        "def test_slow_analyzer():\n"
        "    class SlowFake:\n"
        "        async def run(self):\n"
        "            time.sleep(1)\n",
    )
    rows = sorted((r[0], r[1], r[2]) for r in found(run, "async-blocking"))
    assert rows == [
        ("pkg/worker/sleep_mode.py", 5, "warning"),
        ("pkg/worker/state.py", 5, "warning"),
        ("qa/L0_metrics/decoupled/1/model.py", 5, "warning"),
        ("tests/test_propagate.py", 5, "warning"),
    ]


def test_a_sleep_handed_to_a_thread_is_not_reported(feature: Repo, run: Run) -> None:
    """``await asyncio.to_thread(time.sleep, 1)`` and a helper run in an executor do not
    block the loop: no finding, whatever the path."""
    feature.write(
        "pkg/jobs/poll.py",
        "import asyncio\n"
        "import time\n"
        "\n\n"
        "def wait_a_bit():\n"
        "    time.sleep(1)\n"
        "\n\n"
        "async def poll():\n"
        "    await asyncio.to_thread(wait_a_bit)\n"
        "    await asyncio.get_running_loop().run_in_executor(None, wait_a_bit)\n",
    )
    assert found(run, "async-blocking") == []
