# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What the CI rules share about scanning workflows: the ones that cannot be read."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from policytool.engine.findings import Finding
from policytool.errors import FileProblem


def broken_findings(problems: Sequence[FileProblem], rule: str) -> Iterator[Finding]:
    """Workflows that cannot be read, as findings of ``rule``."""
    for problem in problems:
        yield Finding(problem.relpath, problem.line, 1, rule, problem.message)
