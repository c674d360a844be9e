# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a generator function annotated with a builtin (SWE-bench
2794fa3d ``get_all_loop(...) -> list`` over ``yield from values``): calling it gives a
generator. So does a function returning its call (``get_all_issues -> list`` returning
``issues = self.get_all_loop(...)``). Not an iterator annotation, not a generator a
decorator wraps (``@contextmanager``), not an old annotation the change leaves alone."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

GENERATORS = """\
from contextlib import contextmanager
from typing import Iterator, List


def pages(fetch) -> list:
    for page in fetch():
        yield from page


async def chunks(stream) -> List[bytes]:
    async for chunk in stream:
        yield chunk


def lines(path) -> Iterator[str]:
    yield from open(path)


@contextmanager
def opened(path) -> list:
    yield [path]


class Repo:
    def get_all_loop(self, fetch) -> list:
        yield from fetch()

    def get_all_issues(self, fetch) -> list:
        issues = self.get_all_loop(fetch)
        return issues

    def get_all_pulls(self, fetch) -> dict:
        return self.get_all_loop(fetch)

    def get_some(self, fetch) -> list:
        pulls = self.get_all_loop(fetch)
        pulls = list(pulls)
        return pulls

    def get_opened(self, path) -> list:
        return opened(path)
"""


def _rows(run: Run) -> list[tuple[int, str, str]]:
    """(line, severity, message) of each any-annotation ✗ in ``pkg/collect.py``."""
    return [
        (line, severity, message)
        for path, line, severity, message in found(run, "any-annotation")
        if path == "pkg/collect.py" and severity == "error"
    ]


def test_a_generator_annotated_with_a_builtin_and_its_callers(feature: Repo, run: Run) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/collect.py", GENERATORS)
    feature.commit("collect")
    rows = _rows(run)
    assert [(line, severity) for line, severity, _m in rows] == [
        (5, "error"),
        (10, "error"),
        (25, "error"),
        (28, "error"),
        (32, "error"),
    ], rows
    assert "is a generator (it yields on line 7)" in rows[0][2]
    assert "annotate `-> Iterator[...]`" in rows[0][2]
    assert "annotate `-> AsyncIterator[...]`" in rows[1][2]
    assert "returns `issues`, a generator (`get_all_loop` yields)" in rows[3][2]


def test_an_old_generator_annotation_is_not_the_changes(feature: Repo, run: Run) -> None:
    """The generator and its annotation are the base's; the change edits another line of
    its body that does not yield: no new evidence, no finding."""
    feature.on_main(
        {
            "pkg/__init__.py": "",
            "pkg/collect.py": "def pages(fetch) -> list:\n    yield from fetch()\n",
        },
        "old",
    )
    feature.write(
        "pkg/collect.py", "def pages(fetch) -> list:\n    fetch = fetch\n    yield from fetch()\n"
    )
    feature.commit("edit")
    assert _rows(run) == []


OLD_STREAM = """\
from typing import Tuple


async def generate(queue, grouped) -> Tuple[int, str]:
    async for item in queue:
        if grouped:
            yield item, "x"


def collect(pages) -> list:
    out = []
    for page in pages:
        out.append(page)
    return out
"""

NEW_STREAM = """\
from typing import Tuple


async def generate(queue, grouped) -> Tuple[int, str]:
    async for item in queue:
        yield item, "x"


def collect(pages) -> list:
    for page in pages:
        yield page
"""


def test_a_yield_the_change_reindents_is_the_bases_a_new_one_is_the_changes(
    feature: Repo, run: Run
) -> None:
    """lightllm 7066b69c ``generate -> Tuple[...]``: an async generator before the
    change, whose ``yield`` the change only moves out of an ``if``: the base's mismatch,
    no finding. ``collect -> list`` returned a list before; the change makes it yield:
    ✗."""
    feature.on_main({"pkg/__init__.py": "", "pkg/collect.py": OLD_STREAM}, "old")
    feature.write("pkg/collect.py", NEW_STREAM)
    feature.commit("stream")
    rows = _rows(run)
    assert [(line, severity) for line, severity, _m in rows] == [(9, "error")], rows
    assert "is a generator (it yields on line 11)" in rows[0][2]
