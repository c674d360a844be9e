# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except: a handler that records the failure (``failures.append((path, exc))``,
``failed += 1``) which its function then turns into a failing end (``if failures:
return 1`` under ``sys.exit(main())``, ``return 1 if failed else 0``, ``if failures:
raise``) reports every failure: no finding, as ``sys.exit(1)`` in the handler gives none
(Arize phoenix's CI scripts, set zzzu, labelled '-'). A record nothing turns into a
failure, a test another operand can keep false, a `raise SystemExit(0)` (success), or a
returned status nobody exits with keeps the ⚠."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, by_marker

SCRIPT = """\
import sys


def main() -> int:
    failures = []
    for path in sys.argv[1:]:
        try:
            compile_file(path)
        except Exception as exc:  # m:appended
            failures.append((path, exc))
    if failures:
        print(f"{len(failures)} failed")
        return 1
    return 0


def rollover() -> int:
    moved = failed = 0
    for ticket in tickets():
        try:
            move(ticket)
            moved += 1
        except Exception as exc:  # m:counted
            failed += 1
            print(exc)
    return 1 if failed else 0


def check() -> None:
    bad = []
    for path in sys.argv[1:]:
        try:
            compile_file(path)
        except Exception:  # m:raised
            bad.append(path)
    if len(bad) > 0:
        raise SystemExit(f"bad: {bad}")


def quiet(dry_run: bool) -> None:
    bad = []
    for path in sys.argv[1:]:
        try:
            compile_file(path)
        except Exception:  # m:and-test
            bad.append(path)
    if bad and dry_run:
        raise SystemExit(1)


def exits_zero() -> None:
    bad = []
    for path in sys.argv[1:]:
        try:
            compile_file(path)
        except Exception:  # m:exit-zero
            bad.append(path)
    if bad:
        raise SystemExit(0)


def exits_message() -> None:
    bad = []
    for path in sys.argv[1:]:
        try:
            compile_file(path)
        except Exception:  # m:exit-message
            bad.append(path)
    if bad:
        raise SystemExit(f"bad: {bad}")


def report_only() -> None:
    bad = []
    for path in sys.argv[1:]:
        try:
            compile_file(path)
        except Exception:  # m:printed
            bad.append(path)
    if bad:
        print(bad)


if __name__ == "__main__":
    if sys.argv[1] == "rollover":
        sys.exit(rollover())
    sys.exit(main())
"""


def test_a_failure_collected_then_turned_into_a_failing_end(feature: Repo, run: Run) -> None:
    feature.write("scripts/check.py", SCRIPT)
    assert by_marker(feature, "scripts/check.py", run) == {
        "appended": "-",
        "counted": "-",
        "raised": "-",
        "and-test": "warning",
        # success reported: the catch stays (a change cannot hide it by exiting 0)
        "exit-zero": "warning",
        "exit-message": "-",
        "printed": "warning",
    }


def test_a_returned_status_needs_the_process_to_exit_with_it(feature: Repo, run: Run) -> None:
    """Without ``sys.exit(main())`` the ``return 1`` is an answer a caller may drop."""
    feature.write(
        "scripts/check.py",
        SCRIPT.replace("sys.exit(rollover())", "rollover()").replace("sys.exit(main())", "main()"),
    )
    marks = by_marker(feature, "scripts/check.py", run)
    assert marks["appended"] == "warning"
    assert marks["counted"] == "warning"
    assert marks["raised"] == "-"
