# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except: a test's catch that hands the error to ``self.fail(...)`` or
``pytest.fail(...)`` raises the test's failure with it, like a ``raise``: no finding
(Triton's readiness tests, torchrec's ITEP tests, Lightning's throughput test). A catch
that only logs in a test, or a ``fail`` of another object, is still reported. A script's
catch that reports and ends the process with a failing status (``sys.exit(1)``,
``os._exit(1)``) fails as loudly: no finding; an ``exit`` of another object, or
``sys.exit(0)``, which reports success, is still reported."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

UNITTEST = """\
import logging
import unittest

import pytest

logger = logging.getLogger(__name__)


class ReadyTest(unittest.TestCase):
    def test_ready(self) -> None:
        try:
            self.client.is_server_ready()
        except Exception as ex:
            self.fail(f"unexpected error {ex}")

    def test_logged(self) -> None:
        try:
            self.client.is_server_ready()
        except Exception as ex:  # 19
            logger.warning("not ready: %s", ex)


def test_monitor(monitor) -> None:
    try:
        monitor.compute()
    except Exception as e:
        pytest.fail(f"compute raised {e}")


def test_other(monitor, job) -> None:
    try:
        monitor.compute()
    except Exception as e:  # 33
        job.fail(str(e))
"""


def test_a_test_catch_that_fails_the_test_is_not_reported(feature: Repo, run: Run) -> None:
    feature.write("tests/test_ready.py", UNITTEST)
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(19, "warning"), (33, "warning")]


SCRIPT = """\
import os
import sys


def main(config) -> None:
    try:
        validate(config)
    except Exception as e:
        print(f"invalid config: {e}", file=sys.stderr)
        sys.exit(1)


def serve(server) -> None:
    try:
        server.run()
    except Exception:
        os._exit(1)


def run_job(job) -> None:
    try:
        job.start()
    except Exception as e:  # 25
        print(e)
        job.exit(1)


def probe(host) -> None:
    try:
        host.ping()
    except Exception:  # 31
        sys.exit(0)


def stop(host) -> None:
    try:
        host.stop()
    except Exception:  # 38
        sys.exit()


def drain(host) -> None:
    try:
        host.drain()
    except Exception:  # 45
        sys.exit(None)


def check(host) -> None:
    try:
        host.check()
    except Exception:
        sys.exit("check failed")


def script(host) -> None:
    try:
        host.run()
    except Exception as e:
        print(e)
        exit(1)


def prompt(host) -> None:
    try:
        host.ask()
    except Exception:  # 67
        quit()
"""


def test_a_catch_that_ends_the_process_is_not_reported(feature: Repo, run: Run) -> None:
    feature.write("pkg/cli.py", SCRIPT)
    rows = found(run, "broad-except")
    # 23: another object's exit; 31, 38, 45, 67: sys.exit(0), sys.exit(), sys.exit(None),
    # quit() report success. sys.exit(1), os._exit(1), sys.exit("message") and the
    # builtin exit(1) fail loudly.
    assert [(r[1], r[2]) for r in rows] == [
        (23, "warning"),
        (31, "warning"),
        (38, "warning"),
        (45, "warning"),
        (67, "warning"),
    ]


HIDDEN = """\
import sys


def load(path, errors) -> object:
    try:
        return open(path).read()
    except Exception:  # 7
        def _never() -> None:
            sys.exit(1)

        return None


def read(path, errors) -> object:
    try:
        return open(path).read()
    except Exception:  # 17
        _ = lambda: pytest.fail("x")
        return None


def parse(path, errors) -> object:
    try:
        return open(path).read()
    except Exception as e:  # 25
        class _Keep:
            def keep(self) -> None:
                errors.append(e)
                raise ValueError

        return None
"""


def test_a_raise_or_exit_in_a_helper_the_handler_never_calls_hides_nothing(
    feature: Repo, run: Run
) -> None:
    """A hostile change cannot silence a swallow by defining, inside the handler, a
    function, lambda or class that would raise, exit or hand the error on: only the
    handler's own code is read."""
    feature.write("pkg/loaders.py", HIDDEN)
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(7, "warning"), (17, "warning"), (25, "warning")]


# logfire 3f689314 tests/test_configure.py:1434 (labelled '-'): a forked child reports
# the error through a pipe and ends with the failing status its handler set.
STATUS = """\
import os


def child(write_fd, work) -> None:
    try:
        result = work()
        exit_code = 0
    except BaseException as error:
        result = repr(error)
        exit_code = 1
    os.write(write_fd, result.encode())
    os._exit(exit_code)


def passing(write_fd, work) -> None:
    try:
        result = work()
        code = 1
    except BaseException as error:  # 19
        result = repr(error)
        code = 0
    os.write(write_fd, result.encode())
    os._exit(code)


def rebound(write_fd, work) -> None:
    try:
        result = work()
        code = 0
    except BaseException as error:  # 30
        result = repr(error)
        code = 1
    code = 0
    os._exit(code)


def guarded(work, strict) -> None:
    try:
        work()
    except Exception:  # 40
        status = 1
    if strict:
        os._exit(status)
"""


def test_a_failing_status_set_for_the_exit_after_the_try_is_not_reported(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/fork.py", STATUS)
    rows = found(run, "broad-except")
    # 19: the handler's status is 0; 30: bound again before the exit; 40: the exit is
    # conditional. Only the handler whose `1` reaches `os._exit` is no finding.
    assert [r[1] for r in rows] == [19, 30, 40]
