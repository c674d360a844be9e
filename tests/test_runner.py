# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The file-rule runner: forked workers, what they send back, their errors, no leftovers."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from policytool.config import Config
from policytool.engine import runner
from policytool.engine.findings import Finding
from policytool.engine.registry import FileRule
from policytool.engine.source import SourceFile
from policytool.errors import PolicyError
from tests.conftest import FORK_WARNING

pytestmark = [
    pytest.mark.skipif(sys.platform != "linux", reason="forked workers: Linux only"),
    pytest.mark.usefixtures("forks_allowed"),
    pytest.mark.filterwarnings(FORK_WARNING),
]

FILES = 600  # above PARALLEL_THRESHOLD


@pytest.fixture
def tree(tmp_path: Path) -> list[str]:
    """FILES small Python files, one binary and one that is not valid UTF-8."""
    names = []
    for index in range(FILES):
        name = f"pkg/m{index:03}.py"
        (tmp_path / "pkg").mkdir(exist_ok=True)
        (tmp_path / name).write_text(f"x = {index}\n" + "# mark\n" * (index % 3))
        names.append(name)
    (tmp_path / "pkg" / "blob.py").write_bytes(b"\0\1\2")
    (tmp_path / "pkg" / "bad.py").write_bytes(b"x = '\xff'\n")
    return [*names, "pkg/blob.py", "pkg/bad.py"]


def marks(source: SourceFile, config: Config) -> list[Finding]:
    """One finding per ``# mark`` line."""
    return [
        Finding(source.relpath, number, 1, "mark", "marked")
        for number, line in enumerate(source.text.splitlines(), start=1)
        if line == "# mark"
    ]


MARK = FileRule(id="mark", summary="marks", check=marks)


def test_forked_run_matches_the_serial_one(
    tmp_path: Path, tree: list[str], no_leftovers: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = Config(root=tmp_path)
    seen: list[tuple[int, int]] = []
    parallel = runner.run_file_rules(
        config, tree, [MARK], progress=lambda d, t: seen.append((d, t))
    )
    monkeypatch.setattr(runner, "PARALLEL_THRESHOLD", 10**6)
    serial = runner.run_file_rules(Config(root=tmp_path), tree, [MARK])
    assert sorted(parallel.findings, key=Finding.sort_key) == sorted(
        serial.findings, key=Finding.sort_key
    )
    rules = [f.rule for f in parallel.findings]
    assert rules.count("mark") == FILES // 3 * 3  # 0 + 1 + 2 marks for each three files
    assert rules.count("undecodable") == 1
    assert parallel.files_checked == serial.files_checked == FILES + 1  # not the binary
    assert seen[-1] == (len(tree), len(tree))
    assert len(no_leftovers) == min(os.cpu_count() or 1, 8) - 1  # the serial run forked none


def _boom_in_a_worker(
    parent: int, error: BaseException, root: Path, tree: Sequence[str]
) -> FileRule:
    """A rule that raises ``error`` in every process but ``parent``.

    The parent deals itself chunks too: on a loaded machine it could take every chunk
    before a forked worker takes one, and nothing would raise. So after the first chunk
    (checked before the fork) the parent waits, boundedly, until a worker has started one.
    """
    first = set(runner._chunks(tree, runner._CHUNKS)[0])
    started = root / "worker-started"

    def check(source: SourceFile, config: Config) -> list[Finding]:
        if os.getpid() != parent:
            started.touch()
            raise error
        deadline = time.monotonic() + 30
        while source.relpath not in first and not started.exists():
            if time.monotonic() > deadline:
                break
            time.sleep(0.005)
        return []

    return FileRule(id="boom", summary="boom", check=check)


def test_a_policy_error_in_a_worker_is_raised_here(
    tmp_path: Path, tree: list[str], no_leftovers: list[int]
) -> None:
    error = PolicyError("pkg/m001.py: cannot write the fix")
    rule = _boom_in_a_worker(os.getpid(), error, tmp_path, tree)
    with pytest.raises(PolicyError, match=r"^pkg/m001.py: cannot write the fix$"):
        runner.run_file_rules(Config(root=tmp_path), tree, [rule])


def test_a_rule_crashing_in_a_worker_is_a_finding_for_its_file(
    tmp_path: Path, tree: list[str], no_leftovers: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule's bug costs that rule's reading of each file it raises on (rule-error)."""
    monkeypatch.delenv("POLICYTOOL_DEBUG", raising=False)
    rule = _boom_in_a_worker(os.getpid(), ZeroDivisionError("worker bug"), tmp_path, tree)
    result = runner.run_file_rules(Config(root=tmp_path), tree, [rule])
    crashed = [f for f in result.findings if f.rule == "rule-error"]
    assert crashed and all("boom stopped on an internal error" in f.message for f in crashed)
    assert result.files_checked == FILES + 1


def test_a_crash_in_a_worker_is_raised_here_with_its_traceback(
    tmp_path: Path, tree: list[str], no_leftovers: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under ``POLICYTOOL_DEBUG`` the rule's error is raised, with the worker's traceback."""
    monkeypatch.setenv("POLICYTOOL_DEBUG", "1")
    rule = _boom_in_a_worker(os.getpid(), ZeroDivisionError("worker bug"), tmp_path, tree)
    with pytest.raises(RuntimeError, match="ZeroDivisionError: worker bug") as caught:
        runner.run_file_rules(Config(root=tmp_path), tree, [rule])
    assert "a worker process failed" in str(caught.value)
    assert "Traceback" in str(caught.value)


def test_an_error_here_stops_and_reaps_the_workers(
    tmp_path: Path, tree: list[str], no_leftovers: list[int]
) -> None:
    parent = os.getpid()

    def check(source: SourceFile, config: Config) -> list[Finding]:
        if os.getpid() == parent and source.relpath == "pkg/m599.py":
            raise PolicyError("here")
        return []

    rule = FileRule(id="here", summary="here", check=check)
    with pytest.raises(PolicyError, match="^here$"):
        runner.run_file_rules(Config(root=tmp_path), sorted(tree, reverse=True), [rule])


def test_without_fork_the_work_is_done_here(
    tmp_path: Path, tree: list[str], no_leftovers: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """fork refused (no process to spare): the parent checks every chunk itself."""

    def refuse() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refuse)
    result = runner.run_file_rules(Config(root=tmp_path), tree, [MARK])
    assert len(result.findings) == FILES // 3 * 3 + 1  # and bad.py's undecodable
    assert result.files_checked == FILES + 1


@pytest.mark.parametrize(
    ("data", "cookie"),
    [
        (b"# -*- coding: latin-1 -*-\nx = 1\n", "latin-1"),
        (b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n", "cp1252"),
        (b"# coding=utf-8", "utf-8"),  # no newline at all
        (b"#!/bin/sh\n# coding: euc-jp", "euc-jp"),  # line 2 without a newline
        (b"x = 1\n# coding: latin-1\n", None),  # below code
        (b"\n\n# coding: latin-1\n", None),  # line 3
        (b"import os\n" * 1000 + b"# coding: latin-1\n", None),
        (b"s = 'coding: latin-1'\n", None),  # not a comment
    ],
)
def test_coding_cookie_lines_one_and_two_only(data: bytes, cookie: str | None) -> None:
    from policytool.engine.source import coding_cookie

    assert coding_cookie(data) == cookie
