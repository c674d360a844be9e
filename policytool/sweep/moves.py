# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Code a change moves from one file to another: not a new instance of a pattern.

A block removed from one file and added to another in the same change (a class moved
into a new module, a helper moved into a shared one) adds nothing the base did not
have; the checklist's sweep counts what a change introduces. A finding is on moved code
when its line and the added lines next to it, :data:`SHINGLE` non-blank lines in a row
within its run of added lines, appear in that order, indented alike, among the lines the
change removes from another file. A line moved within its own file still counts as
added (a block moved into a loop or an ``if`` is code in a new place), and so does a
lone line: ``except Exception:`` removed here and added there is no block. Code moved
out of a test file into production code (a test helper made a launcher) is new there:
the ⚠ for untyped signatures is production code's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence

# Lines in a row that make a block: fewer could match by chance (``try:`` /
# ``except Exception:`` / ``pass``), and a finding's line is moved only inside one.
SHINGLE = 4
CONTEXT = SHINGLE - 1
Shingle = tuple[bytes, ...]


def _normal(line: bytes) -> bytes:
    """A line as moved code keeps it: trailing whitespace (a carriage return too) aside. Its
    indent counts: a method moved out of its class to module level (``-> "Self"`` then
    names no class) is code in a new context, as a block moved into a loop is."""
    return line.rstrip()


def _shingles(texts: Sequence[bytes]) -> Iterator[Shingle]:
    """Every :data:`SHINGLE` lines in a row of ``texts``."""
    for start in range(len(texts) - SHINGLE + 1):
        yield tuple(texts[start : start + SHINGLE])


def _added_runs(lines: Sequence[bytes], added: frozenset[int] | None) -> Iterator[list[bytes]]:
    """The non-blank lines of each run of consecutive added lines (``added`` None: the
    whole file is one run)."""
    numbers = range(1, len(lines) + 1) if added is None else sorted(added)
    run: list[bytes] = []
    last = -1
    for number in numbers:
        if number > len(lines):
            break
        if number != last + 1 and run:
            yield run
            run = []
        last = number
        text = _normal(lines[number - 1])
        if text:
            run.append(text)
    if run:
        yield run


class MovedCode:
    """Which added blocks the change removed from another file (built once per sweep).

    A block added more often than the other files lose it is not moved: of a helper moved
    into a new module and copied once more beside it, neither copy is told apart.
    """

    def __init__(self, removed: Iterable[tuple[str, Sequence[bytes]]]) -> None:
        """Index each path's removed lines (``removed``: the path and its lines, in order)
        by every :data:`SHINGLE` non-blank lines in a row."""
        self._removed: dict[Shingle, Counter[str]] = {}
        self._added: Counter[Shingle] = Counter()
        for path, lines in removed:
            for shingle in _shingles([n for n in map(_normal, lines) if n]):
                self._removed.setdefault(shingle, Counter())[path] += 1

    def __bool__(self) -> bool:
        """Whether the change removes any block at all."""
        return bool(self._removed)

    def count_added(self, files: Iterable[tuple[Sequence[bytes], frozenset[int] | None]]) -> None:
        """Count how often the change adds each removed block: ``files`` holds each
        changed file's lines and its added line numbers (None: every line)."""
        for lines, added in files:
            for run in _added_runs(lines, added):
                for shingle in _shingles(run):
                    if shingle in self._removed:
                        self._added[shingle] += 1

    def moved(
        self,
        lines: Sequence[bytes],
        added: frozenset[int] | None,
        line: int,
        own: set[str],
        alike: Callable[[str], bool],
    ) -> bool:
        """Whether head line ``line`` (1-based) of a file whose lines are ``lines`` sits in
        a block the change removed from a file other than ``own`` (its head and base
        paths) that ``alike`` accepts, at least as often as it adds it. ``added`` holds
        the file's added line numbers (None: every line); :meth:`count_added` has seen
        every file."""

        def is_added(number: int) -> bool:
            return 1 <= number <= len(lines) and (added is None or number in added)

        def neighbours(step: int) -> list[bytes]:
            """Up to :data:`CONTEXT` non-blank added lines from ``line`` in one direction."""
            found: list[bytes] = []
            number = line + step
            while len(found) < CONTEXT and is_added(number):
                text = _normal(lines[number - 1])
                if text:
                    found.append(text)
                number += step
            return found

        here = _normal(lines[line - 1]) if is_added(line) else b""
        if not here:
            return False
        before = neighbours(-1)[::-1]
        window = [*before, here, *neighbours(1)]
        at = len(before)  # the finding's line in ``window``
        for first in range(max(0, at - SHINGLE + 1), min(at, len(window) - SHINGLE) + 1):
            shingle = tuple(window[first : first + SHINGLE])
            paths = self._removed.get(shingle)
            lost = sum(n for p, n in paths.items() if p not in own and alike(p)) if paths else 0
            if lost and lost >= self._added[shingle]:
                return True
        return False
