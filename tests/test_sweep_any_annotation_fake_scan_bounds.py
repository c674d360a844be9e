# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, test fakes: the work-tree scan behind a fake's keyword match is bounded
and stays in the tree: a pull request controls every file it reads (docs/security.md,
"Limits")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from policytool.rules import _fakes

RECORD = "from dataclasses import dataclass\n\n@dataclass\nclass Spec:\n    a: int\n    b: int\n"


def test_a_symlinked_module_or_directory_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(RECORD)
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "own.py").write_text(RECORD)
    os.symlink(outside / "secret.py", repo / "pkg" / "linked.py")
    os.symlink(outside, repo / "pkg" / "linkdir")
    sources = _fakes._sources(_fakes.Finder(str(repo)))
    assert set(sources) == {"pkg.own"}


def test_tests_docs_and_oversized_modules_are_not_read(tmp_path: Path) -> None:
    for rel in ("tests/m.py", "docs/conf.py", "pkg/test_x.py", "pkg/ok.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(RECORD)
    (tmp_path / "pkg" / "huge.py").write_bytes(b"x = 1\n" * (_fakes.MAX_MODULE_BYTES // 6 + 1))
    assert set(_fakes._sources(_fakes.Finder(str(tmp_path)))) == {"pkg.ok"}


@pytest.mark.parametrize("bound", ["MAX_SCAN_FILES", "MAX_SCAN_BYTES"])
def test_the_scan_stops_at_its_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bound: str
) -> None:
    (tmp_path / "pkg").mkdir()
    for index in range(20):
        (tmp_path / "pkg" / f"m{index:02}.py").write_text(RECORD)
    monkeypatch.setattr(_fakes, bound, 5 if bound == "MAX_SCAN_FILES" else 5 * len(RECORD))
    sources = _fakes._sources(_fakes.Finder(str(tmp_path)))
    assert 0 < len(sources) <= 6 < 20
