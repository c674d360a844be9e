# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What the CI rules share about scanning workflows: the ones that cannot be read, and
the split of a rule's analysis into those and the files it read."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from policytool.engine.findings import Finding
from policytool.errors import FileProblem

T = TypeVar("T")


def broken_findings(problems: Sequence[FileProblem], rule: str) -> Iterator[Finding]:
    """Workflows that cannot be read, as findings of ``rule``."""
    for problem in problems:
        yield Finding(problem.relpath, problem.line, 1, rule, problem.message)


def split_analysis(items: Iterable[T | Finding]) -> tuple[list[Finding], list[T]]:
    """(the findings about files that could not be read, the analyses of the others), each
    in order."""
    unread: list[Finding] = []
    analysed: list[T] = []
    for item in items:
        if isinstance(item, Finding):
            unread.append(item)
        else:
            analysed.append(item)
    return unread, analysed
