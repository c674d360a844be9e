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


def _runs_within(texts: Sequence[bytes], kept: set[bytes]) -> Iterator[list[bytes]]:
    """The runs of at least :data:`SHINGLE` lines of ``texts`` that are all in ``kept``."""
    run: list[bytes] = []
    for text in texts:
        if text in kept:
            run.append(text)
            continue
        if len(run) >= SHINGLE:
            yield run
        run = []
    if len(run) >= SHINGLE:
        yield run


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

    def __init__(
        self,
        removed: Iterable[tuple[str, Sequence[bytes]]],
        added: Iterable[tuple[Sequence[bytes], frozenset[int] | None]],
    ) -> None:
        """Index the removed blocks the change also adds, and count how often it adds each.

        ``removed`` holds each path the change removes lines from with those lines, in
        order; ``added`` each changed file's lines with its added line numbers (None: every
        line), read once, one file at a time. Only a run of added lines that some file
        also removes can be a moved block: the rest (most of a large change) is dropped
        line by line before any block is formed.
        """
        lost = [(path, [n for n in map(_normal, lines) if n]) for path, lines in removed]
        lost_lines = {text for _path, texts in lost for text in texts}
        fragments: list[list[bytes]] = []  # runs of added lines every one of which is lost
        for lines, numbers in added:
            for run in _added_runs(lines, numbers):
                fragments.extend(_runs_within(run, lost_lines))
        found_lines = {text for fragment in fragments for text in fragment}
        # shingle -> path -> how often that path loses it (plain dicts: tens of thousands)
        self._removed: dict[Shingle, dict[str, int]] = {}
        for path, texts in lost:
            for run in _runs_within(texts, found_lines):
                for shingle in _shingles(run):
                    where = self._removed.get(shingle)
                    if where is None:
                        self._removed[shingle] = {path: 1}
                    else:
                        where[path] = where.get(path, 0) + 1
        self._added: Counter[Shingle] = Counter(
            shingle
            for fragment in fragments
            for shingle in _shingles(fragment)
            if shingle in self._removed
        )

    def __bool__(self) -> bool:
        """Whether the change adds any block it removes elsewhere."""
        return bool(self._removed)

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
        the file's added line numbers (None: every line)."""

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
