# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except ✗ for a handler that returns inside a function a retry decorator wraps
(SWE-bench 925e5416 ``@retry(...)`` ``call_anthropic_v2``: ``except Exception as e:``
logs, sleeps and returns None): the decorator retries only what the function raises, so
no error is ever retried. Only a decorator a retry package defines (tenacity, backoff,
...), only a handler that returns, not a test."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

RETRIED = """\
import logging

import backoff
from tenacity import retry, stop_after_attempt

logger = logging.getLogger(__name__)


@retry(stop=stop_after_attempt(6))
def call_api(client, prompt):
    try:
        return client.create(prompt)
    except Exception as e:
        logger.error(e)
        return None


@backoff.on_exception(backoff.expo, Exception)
def fetch(session, url):
    try:
        return session.get(url)
    except Exception:
        return ""


@retry
def call_raising(client, prompt):
    try:
        return client.create(prompt)
    except Exception as e:
        logger.error(e)
        raise


@retry(stop=stop_after_attempt(3))
def call_logged(client, prompt):
    try:
        client.warm_up()
    except Exception as e:
        logger.warning("warm-up failed: %s", e)
    return client.create(prompt)
"""

LOCAL = """\
def retry(func):
    return func


@retry
def call_api(client, prompt):
    try:
        return client.create(prompt)
    except Exception:
        return None
"""


def test_a_handler_returning_in_a_retried_function_defeats_the_retry(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/api.py", RETRIED)
    feature.write("pkg/local.py", LOCAL)
    feature.write("tests/test_api.py", RETRIED)
    feature.commit("retry")
    rows = {
        (path, line): (severity, message)
        for path, line, severity, message in found(run, "broad-except")
    }
    errors = sorted(key for key, (severity, _m) in rows.items() if severity == "error")
    assert errors == [("pkg/api.py", 13), ("pkg/api.py", 22)], rows
    assert "returns from `@retry`-decorated `call_api`" in rows[("pkg/api.py", 13)][1]
    assert "`@backoff.on_exception`-decorated `fetch`" in rows[("pkg/api.py", 22)][1]
    # the logged warm-up carries on to the call the decorator retries: the catch's ⚠
    assert rows[("pkg/api.py", 39)][0] == "warning"
    # a decorator of the file's own, not a retry package's: the catch's ⚠
    assert rows[("pkg/local.py", 9)][0] == "warning"
    assert rows[("tests/test_api.py", 13)][0] == "warning"
