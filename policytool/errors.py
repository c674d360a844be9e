# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The user-facing errors: what the CLI turns into exit code 2 and a one-sentence message."""

from __future__ import annotations


class PolicyError(Exception):
    """A usage, configuration or environment error; ``str()`` is the whole message."""


class FileProblem(PolicyError):
    """A file the repo rules read (a pre-commit config, a workflow, a Mergify file) is unusable.

    Carries where (``relpath``, 1-based ``line``) and why (``message``): a rule reports it
    as one finding of its own id, a command (``sync``) as one sentence with exit 2.
    """

    def __init__(self, relpath: str, line: int, message: str) -> None:
        """Name the file, the line and the reason."""
        super().__init__(f"{relpath}:{line}: {message}")
        self.relpath = relpath
        self.line = line
        self.message = message
