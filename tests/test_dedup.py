# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The helpers that give one home to logic two places wrote out: each keeps what both
callers reported, byte for byte."""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.conftest import Repo, Result

Run = Callable[..., Result]


def test_lock_rules_report_an_unresolvable_lock_table_alike(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        '[project]\nname = "x"\n\n[[tool.policytool.lock]]\nname = "base"\n'
        'output = "requirements/base.txt"\ninputs = []\n',
    )
    repo.commit()
    result = run("check", "--only", "lock-stale,lock-skew", "--format", "json")
    assert result.code == 1, result.out + result.err
    got = [
        (f["path"], f["line"], f["col"], f["rule"], f["message"]) for f in json.loads(result.out)
    ]
    message = "lock 'base': inputs is empty"
    assert got == [
        ("pyproject.toml", 1, 1, "lock-skew", message),
        ("pyproject.toml", 1, 1, "lock-stale", message),
    ]
