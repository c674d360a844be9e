# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a chain of one-keyword fakes of an installed SDK's response
models, built bottom-up through local names (graphiti's OpenAI client tests, set zzzr):

    message = SimpleNamespace(content=...)
    choice = SimpleNamespace(message=message)
    return SimpleNamespace(choices=[choice])

``choices`` alone is declared by several models, but the fake it holds has a
``message``, a field of one model's element type alone: the outer fake is that
``ChatCompletion``, and ``choice``, an element of its ``choices``, is that module's
``Choice``, whose ``message`` field types ``message``. A fake of one keyword holding nothing, or holding a fake whose keywords no
candidate's field type declares, still names no class (⚠)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Repo
from tests.sweep_fixture import Run, found
from tests.test_sweep_any_annotation_fakes_packages import _write_wrap_test, sdk

__all__ = ["sdk"]  # the installed ``sdklib`` fixture, shaped like openai's models


def test_a_one_keyword_fake_told_by_the_fake_it_holds(feature: Repo, run: Run, sdk: Path) -> None:
    del sdk
    _write_wrap_test(
        feature,
        "class Completions:\n"
        "    async def create(self, **kwargs):\n"
        "        message = SimpleNamespace(content='{}')\n"  # 8
        "        choice = SimpleNamespace(message=message)\n"  # 9
        "        return SimpleNamespace(choices=[choice])\n"  # 10
        "\n\n"
        "def test_plain() -> None:\n"
        "    assert text_of(SimpleNamespace(choices=[]))\n"  # 14: holds nothing
        "    odd = SimpleNamespace(colour='red')\n"  # 15
        "    assert text_of(SimpleNamespace(choices=[odd]))\n",  # 16: no model's choice
    )
    rows = [(r[1], r[2], r[3]) for r in found(run, "any-annotation")]
    assert [(line, severity) for line, severity, _m in rows] == [
        (8, "error"),
        (9, "error"),
        (10, "error"),
        (14, "warning"),
        (15, "warning"),
        (16, "warning"),
    ]
    # the message a choice holds: the field of the class ``choice`` stands in for
    assert "stands in for `ChatCompletionMessage` (sdklib/types/message.py;" in rows[0][2]
    assert "stands in for `Choice` (sdklib/types/chat_completion.py;" in rows[1][2]
    assert "found by `choices: List[Choice]` in sdklib/types/chat_completion.py" in rows[1][2]
    assert "stands in for `ChatCompletion` (sdklib/types/chat_completion.py;" in rows[2][2]
    assert "its keywords `choices`, fields of `ChatCompletion`" in rows[2][2]
