# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except in a telemetry, tracing or profiling module: a tracer must never take down what it
traces, so its ``__init__`` or request hook that logs a failure and carries on is best
effort (⚠), where the same code in the engine is ✗ (infinity's PostHog start-up in
``telemetry.py``; an OpenInference instrumentation's request-attribute extractor)."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

INIT = (
    "import logging\n"
    "\n"
    "logger = logging.getLogger(__name__)\n"
    "\n\n"
    "class Client:\n"
    "    def __init__(self, key):\n"
    "        try:\n"
    "            self._client = connect_to(key)\n"
    "        except Exception:\n"  # 10
    '            logger.warning("Failed to start up the client")\n'
)
REQUEST = (
    "import logging\n"
    "\n"
    "logger = logging.getLogger(__name__)\n"
    "\n\n"
    "def get_attributes_from_embed_request(params):\n"
    "    yield 'kind', 'embedding'\n"
    "    try:\n"
    "        yield from input_attributes(params).items()\n"
    "    except Exception:\n"  # 10
    '        logger.exception("Failed to get input attributes")\n'
)


@pytest.mark.parametrize(
    ("body", "engine_message"),
    [
        (INIT, "on fail-fast path `__init__`"),
        (REQUEST, "in request path `get_attributes_from_embed_request` only logs"),
    ],
)
def test_a_telemetry_module_is_on_no_init_or_request_path(
    feature: Repo, run: Run, body: str, engine_message: str
) -> None:
    for path in (
        "pkg/engine/client.py",
        "pkg/telemetry.py",
        "pkg/product_telemetry.py",
        "pkg/telemetry/posthog.py",
        "python/instrumentation/openinference-cohere/src/oi/cohere/_extractor.py",
        "pkg/tracing/spans.py",
        "grain/_src/core/profiler.py",  # grain c06d4565: a worker's profiler server
        "pkg/profiling/trace.py",
    ):
        feature.write(path, body)
    rows = {r[0]: (r[1], r[2], r[3]) for r in found(run, "broad-except")}
    line, severity, message = rows.pop("pkg/engine/client.py")
    assert (line, severity) == (10, "error")
    assert engine_message in message
    assert sorted(rows) == [
        "grain/_src/core/profiler.py",
        "pkg/product_telemetry.py",
        "pkg/profiling/trace.py",
        "pkg/telemetry.py",
        "pkg/telemetry/posthog.py",
        "pkg/tracing/spans.py",
        "python/instrumentation/openinference-cohere/src/oi/cohere/_extractor.py",
    ]
    assert {(line, severity) for line, severity, _message in rows.values()} == {(10, "warning")}


def test_a_silent_swallow_in_a_telemetry_module_is_still_reported(feature: Repo, run: Run) -> None:
    """Best effort is no licence to swallow silently: a bare ``pass`` is still ⚠."""
    feature.write(
        "pkg/telemetry.py",
        "class Client:\n"
        "    def __init__(self, key):\n"
        "        try:\n"
        "            self._client = connect_to(key)\n"
        "        except Exception:\n"
        "            pass\n",
    )
    assert [(r[1], r[2]) for r in found(run, "broad-except")] == [(5, "warning")]
