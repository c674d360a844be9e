# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except ⚠, not ✗, for a silent catch on a fail-fast path that leaves the code set
up either way (set zzzp, aider and data-juicer):

- the ``try`` only upgrades working defaults set before it (aider's Spinner: ASCII
  glyphs, then the Unicode ones when the terminal takes them);
- the comment introducing the ``try`` calls it best-effort (``Commands.__init__``'s
  realpath of a path already stored), as a logged fallback's comment already did;
- the function is named for an attempt (``maybe_init_submodules``, whose docstring says
  "Initialize"): best effort by its own name.

A default of None or False, a ``try`` that builds or loads what the object needs, an
``else:`` the failure skips, and an init helper named for no attempt stay ✗."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

SPINNER = """\
import sys


class Spinner:
    def __init__(self):
        self.head = "#"
        self.width = 7
        if sys.stdout.isatty():
            try:
                sys.stdout.write("\\u2261")
                sys.stdout.flush()
{upgrade}
            except Exception:
                pass
"""


def _clause_line(text: str) -> int:
    """The line of the spinner's ``except Exception:``."""
    return text.splitlines().index("            except Exception:") + 1


def _spinner(upgrade: str) -> str:
    return SPINNER.format(upgrade=upgrade)


def test_an_upgrade_of_working_defaults_is_a_warning(feature: Repo, run: Run) -> None:
    text = _spinner('                self.head = "\\u2261"\n                self.width = 9')
    feature.write("pkg/spin.py", text)
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(_clause_line(text), "warning")]


@pytest.mark.parametrize(
    "upgrade",
    [
        # what the try binds was never set before it: the object lacks it on failure
        "                self.tail = '-'",
        # a literal of another type than the default's
        "                self.width = 'wide'",
        # the try builds what the object needs, not a literal
        "                self.head = sys.stdout.encoding.upper()",
    ],
)
def test_what_is_no_upgrade_of_defaults_stays_blocking(
    feature: Repo, run: Run, upgrade: str
) -> None:
    text = _spinner(upgrade)
    feature.write("pkg/spin.py", text)
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(_clause_line(text), "error")]


def test_a_none_default_is_no_working_default(feature: Repo, run: Run) -> None:
    """``self.head = None`` then ``try: self.head = "x"``: None is no working
    value, the object is half set up on failure (✗)."""
    text = _spinner('                self.head = "x"').replace(
        'self.head = "#"', "self.head = None"
    )
    feature.write("pkg/spin.py", text)
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(_clause_line(text), "error")]


def test_an_else_the_failure_skips_stays_blocking(feature: Repo, run: Run) -> None:
    text = _spinner('                self.head = "\\u2261"').replace(
        "            except Exception:\n                pass\n",
        "            except Exception:\n                pass\n"
        "            else:\n                self.ready = sys.stdout.isatty()\n",
    )
    feature.write("pkg/spin.py", text)
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(_clause_line(text), "error")]


COMMANDS = """\
import os


class Commands:
    def __init__(self, names):
        self.names = set()
        for name in names:
            self.names.add(str(name))
            # Canonical path{note}
            try:
                self.names.add(os.path.realpath(name))
            except Exception:
                pass
"""


@pytest.mark.parametrize(("note", "severity"), [(" (best-effort)", "warning"), ("", "error")])
def test_a_silent_catch_the_code_calls_best_effort(
    feature: Repo, run: Run, note: str, severity: str
) -> None:
    feature.write("pkg/commands.py", COMMANDS.format(note=note))
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(12, severity)]


SUBMODULES = """\
import subprocess


def {name}(root):
    \"\"\"Initialize submodules in the worktree if the repository uses them.\"\"\"
    try:
        subprocess.run(["git", "submodule", "update", "--init"], cwd=root, check=True)
    except Exception as e:
        print(f"[WARN] submodule init failed: {{e}}")
"""


@pytest.mark.parametrize(
    ("name", "severity"),
    [("maybe_init_submodules", "warning"), ("init_submodules", "error")],
)
def test_a_function_named_for_an_attempt_is_on_no_fail_fast_path(
    feature: Repo, run: Run, name: str, severity: str
) -> None:
    feature.write("pkg/docs.py", SUBMODULES.format(name=name))
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(8, severity)]


WARM_UP = """\
import logging

logger = logging.getLogger(__name__)


class Store:
    async def initialize(self, config):
        self.client = await self.make_client(config)
        if config.warmup_connections:
            try:
                await self.client.describe_limits()
            except Exception:
                logger.warning("Failed to warmup DynamoDB connection pool", exc_info=True)

    async def initialize_index(self, config):
        try:
            self.index = await self.client.open_index(config.index)
        except Exception:
            logger.warning("Failed to open the index", exc_info=True)
"""


def test_a_logged_warm_up_failure_is_a_complete_fallback(feature: Repo, run: Run) -> None:
    """feast 89240fad (set zzzza) dynamodb.py:166: `initialize` logs "Failed to warmup
    DynamoDB connection pool" and goes on with the client already built: an optimisation
    that failed, the object set up either way (⚠, labelled ⚠). A log naming a part the
    object needs stays ✗."""
    feature.write("pkg/store.py", WARM_UP)
    got = {line: sev for _p, line, sev, _m in found(run, "broad-except")}
    assert got == {12: "warning", 18: "error"}
