# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The verification the CI fixers share: a fix of a YAML file changes only what it means to.

``action-pin`` and ``ci-floating-install`` each return one fix an edit; each fix's
``verify`` re-parses the new text, reads from it what the rule reads (the ``uses:``
values, the shell snippets), and compares that with what it read from the old text (once
a file) with the fix's own change made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from policytool.engine.fixes import Verify
from policytool.errors import YamlError
from policytool.formats.yamldoc import YamlNode, parse_text

R = TypeVar("R")


class YamlFixCheck(Generic[R]):
    """The verification of the fixes of one YAML file, as read (``relpath``, ``text``).

    ``read(text, parsed)`` is what the rule reads from a text; the old text's is read on
    the first fix verified.
    """

    def __init__(self, relpath: str, text: str, read: Callable[[str, YamlNode], R]) -> None:
        """Verify fixes of the file ``relpath`` whose text was ``text``."""
        self.relpath = relpath
        self.text = text
        self.read = read
        self._old: R | None = None

    def old(self) -> R | None:
        """What the rule read from the old text (None when it does not parse)."""
        if self._old is None:
            try:
                self._old = self.read(self.text, parse_text(self.text, self.relpath))
            except YamlError:
                return None
        return self._old

    def verify(self, expected: Callable[[R], R], others: str) -> Verify:
        """The verification of a fix after which the rule must read ``expected(old)``;
        ``others`` names what else it would have changed, for the refusal."""

        def verify(old_text: str, new_text: str) -> str | None:
            """None when the new text reads as expected."""
            if old_text != self.text:
                return "changed since it was read; run the fix again"
            try:
                new_data = parse_text(new_text, self.relpath)
            except YamlError as exc:
                return f"the pinned file would not parse ({exc.message})"
            old = self.old()
            if old is None:
                return "the file does not parse"
            if self.read(new_text, new_data) != expected(old):
                return f"the pin would change {others}"
            return None

        return verify
