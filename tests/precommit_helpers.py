# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Helpers shared by the pre-commit, CI and Mergify rule tests."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from pre_commit.clientlib import (
    InvalidConfigError,
    load_config,
)

PRECOMMIT_RULES = (
    "precommit-config",
    "precommit-final-hook",
    "precommit-default-stages",
    "precommit-manual-only",
    "precommit-required",
    "precommit-rev",
)
REPO_RULES = (*PRECOMMIT_RULES, "ci-hook-stage", "mypy-wired", "mergify-drift", "codeql-workflow")
ONLY_REPO = ",".join(REPO_RULES)


def precommit_accepts(path: Path) -> str | None:
    """None when pre-commit's own loader accepts the config, else its error text."""
    try:
        load_config(str(path))
    except InvalidConfigError as exc:
        return str(exc)
    return None


def comments(text: str) -> list[str]:
    """Every comment in a YAML text (full-line and trailing), stripped, in order."""
    out = []
    for line in text.splitlines():
        match = re.search(r"(?:^|\s)(#.*)$", line)
        if match:
            out.append(match.group(1).strip())
    return sorted(out)


def rule_lines(out: str, rule: str) -> list[tuple[str, int]]:
    """(path, line) of every finding of ``rule`` in text output."""
    found = []
    for line in out.splitlines():
        match = re.match(r"(.+?):(\d+):\d+: (\S+) ", line)
        if match and match.group(3) == rule:
            found.append((match.group(1), int(match.group(2))))
    return found


def check_jsonschema(schema: str, *paths: Path) -> subprocess.CompletedProcess[str]:
    """Run the real check-jsonschema CLI with one of its vendored schemas."""
    exe = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    return subprocess.run(
        [exe, "--builtin-schema", f"vendor.{schema}", *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
    )


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing ``needle``."""
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in text")
