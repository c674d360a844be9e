# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except ✗ for a check that fails open: the ``try`` raises its own verdict, an
earlier handler lets that type through, and the broad one swallows every other error, so
a failure to run the check lets the guarded operation go on. feast f9923bc9 (set zzzza):
``teardown()`` and ``delete_project()`` of a protected project go ahead when the
registry cannot be read."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, by_marker

CHECKS = """\
import asyncio


class Store:
    def teardown(self):
        try:
            current = self.registry.get_project(self.project)
            if current and current.tags.get("protected") == "true":
                raise ValueError("teardown is not allowed on a protected project")
        except ValueError:
            raise
        except Exception:  # m:teardown
            pass
        self.infra.destroy()

    def delete(self, name):
        try:
            self.guard(name)
            if self.locked(name):
                raise (PermissionError("locked"))
        except (KeyError, PermissionError):
            raise
        except Exception:  # m:tuple
            return None
        return self.registry.delete(name)

    async def poll(self):
        try:
            if await self.done():
                raise asyncio.CancelledError()
        except asyncio.CancelledError:
            raise
        except Exception:  # m:cancel
            pass

    def logged(self):
        try:
            if self.locked():
                raise ValueError("locked")
        except ValueError:
            raise
        except Exception as e:  # m:logged
            print(f"check failed: {e}")

    def other(self):
        try:
            self.registry.refresh()
        except ValueError:
            raise
        except Exception:  # m:no_verdict
            pass
"""


def test_a_check_that_lets_its_verdict_through_and_swallows_the_rest(
    feature: Repo, run: Run
) -> None:
    """The verdict raised and let through, alone or in a tuple: ✗. A cancellation let
    through, a handler that logs, a ``try`` that raises no verdict of its own: not this
    reading (⚠)."""
    feature.write("pkg/store.py", CHECKS)
    assert by_marker(feature, "pkg/store.py", run) == {
        "teardown": "error",
        "tuple": "error",
        "cancel": "warning",
        "logged": "warning",
        "no_verdict": "warning",
    }


FALLBACKS = """\
class Prompt:
    def checkbox(self, choices):
        try:
            answer = self.ui.checkbox(choices).ask()
            if answer is None:
                raise AuthFlowError("Selection cancelled.")
            return list(answer)
        except AuthFlowError:
            raise
        except Exception:  # m:answers
            pass
        return self.numbered(choices)

    def teardown(self):
        try:
            if self.registry.protected(self.project):
                raise ValueError("protected")
        except ValueError:
            raise
        except Exception:  # m:commented
            # the registry may not exist yet on a first teardown: nothing to protect
            pass
        self.infra.destroy()
"""


def test_a_try_that_answers_or_a_commented_catch_is_a_fallback(feature: Repo, run: Run) -> None:
    """deepeval 77c468ff (set zzk) flow.py:234: the `try` returns the selection, and the
    broad catch degrades to the numbered prompt (labelled ⚠); a catch whose comment says
    why the check may be skipped is a choice on the record: not the fail-open ✗."""
    feature.write("pkg/prompt.py", FALLBACKS)
    assert by_marker(feature, "pkg/prompt.py", run) == {
        "answers": "warning",
        "commented": "warning",
    }
