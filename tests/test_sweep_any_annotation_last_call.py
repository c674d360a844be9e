# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a return annotation over a body that ends in a plain call: the
call returns, so the function falls off its end and returns None, unless the callee is
one that ends the run (``sys.exit``, ``parser.error``, a raise helper of the module).
RD-Agent (set zzzz): ``def extract_tar(tar_path: str, to_dir: str = "log") -> str:``
whose body is only ``with tarfile.open(...) as tar: tar.extractall(path=to_dir)``."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, errors, land_on_main

FALLS_OFF = """\
import tarfile


def extract_tar(tar_path: str, to_dir: str = "log") -> str:
    with tarfile.open(tar_path, mode="r:*") as tar:
        tar.extractall(path=to_dir)


class Head:
    def forward(self, x: int) -> int:
        if x > 0:
            return x
        self.reset(x)


class Sub(Head):
    def forward(self, x: int) -> int:
        super().forward(x)
"""


def test_a_body_ending_in_a_returning_call_falls_off(feature: Repo, run: Run) -> None:
    """Each of the three ends in a call that returns (a method of an opened archive, the
    class's own method, the base class's method): ✗ on the line carrying ``->``."""
    feature.write("pkg/archive.py", FALLS_OFF)
    found = errors(run, "any-annotation")
    assert sorted(found) == [4, 10, 17]
    assert "`extract_tar` is annotated `-> str` but can fall off its end" in found[4]


ENDS_THE_RUN = {
    "sys.exit": "import sys\n\n\ndef pick(x: int) -> int:\n    if x:\n        return x\n    sys.exit(1)\n",
    "os.execv": (
        "import os\n\n\ndef pick(x: int) -> int:\n    if x:\n        return x\n"
        '    os.execv("/bin/sh", ["sh"])\n'
    ),
    "parser.error": (
        "def pick(parser: object, x: int) -> int:\n    if x:\n        return x\n"
        '    parser.error("no x")\n'
    ),
    "a raise helper of the module": (
        "def _bad(x: int) -> None:\n    raise ValueError(x)\n\n\n"
        "def _worse(x: int) -> None:\n    _bad(x)\n\n\n"
        "def pick(x: int) -> int:\n    if x:\n        return x\n    _worse(x)\n"
    ),
    "a NoReturn function of the module": (
        "from typing import NoReturn\n\n\n"
        "def give_up(x: int) -> NoReturn:\n    import os\n    os._exit(x)\n\n\n"
        "def pick(x: int) -> int:\n    if x:\n        return x\n    give_up(x)\n"
    ),
    "an unknown call in an except": (
        "def pick(x: int) -> int:\n    try:\n        return int(x)\n"
        "    except ValueError as e:\n        handle_exception(e)\n"
    ),
    "typing's assert_never": (
        "from typing import Literal, assert_never\n\n\n"
        'def pick(x: Literal["a", "b"]) -> int:\n    if x == "a":\n        return 1\n'
        '    if x == "b":\n        return 2\n    assert_never(x)\n'
    ),
    "flask's abort": (
        "from flask import abort\n\n\ndef pick(x: int) -> int:\n    if x:\n        return x\n"
        "    abort(404)\n"
    ),
}


@pytest.mark.parametrize("callee", sorted(ENDS_THE_RUN))
def test_a_last_call_that_may_end_the_run_is_no_fall_off(
    feature: Repo, run: Run, callee: str
) -> None:
    """A callee named for ending the run, or one of the module's own functions that
    never returns (``raise`` on every path, through another such helper too, or
    ``-> NoReturn``), may not return: nothing is reported."""
    feature.write("pkg/pick.py", ENDS_THE_RUN[callee])
    assert errors(run, "any-annotation") == {}


def test_an_old_function_ending_in_a_call_is_not_the_change(feature: Repo, run: Run) -> None:
    """A function that already ended in that call before the change (an edit inside its
    body) keeps an old mismatch: not reported."""
    feature.write("pkg/archive.py", FALLS_OFF)
    land_on_main(feature)
    feature.write(
        "pkg/archive.py",
        FALLS_OFF.replace("        tar.extractall(path=to_dir)", "        tar.extractall(to_dir)"),
    )
    feature.commit("edit")
    assert errors(run, "any-annotation") == {}
