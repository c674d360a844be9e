# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Huge repository files: every reader is bounded. A 2 GB sparse ``.py`` (made with
``truncate``, so the tests stay fast) or a 10-million-line file is one finding or note
naming it, never read whole, never a hang."""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Callable

import pytest

from policytool.core.boundary import MAX_SOURCE_BYTES
from policytool.sweep.diff import MAX_ADDED_LINES, MAX_FILE_BYTES, parse_patch, read_base
from tests.conftest import Repo, Result

Run = Callable[..., Result]

CONFIG = """\
[tool.policytool.spdx]
license = "MIT"

[[tool.policytool.forbidden-import]]
modules = ["pickle"]
"""
TWO_GB = 2 * 1024**3
HEAD = b"# SPDX-License-Identifier: MIT\nimport os\n" * 200  # 8 KB of text, then NULs


def sparse(repo: Repo, relpath: str, size: int, head: bytes = HEAD) -> None:
    """A file of ``size`` bytes that starts with ``head`` (the rest a hole: no disk)."""
    path = repo.write(relpath, head)
    os.truncate(path, size)


def grown_mb(before: int) -> float:
    """How far this process's peak memory rose above ``before`` (ru_maxrss, KiB), in MB."""
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024


def peak() -> int:
    """This process's peak memory so far (KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def track_unread(repo: Repo, relpath: str) -> None:
    """Put ``relpath`` in the index without git reading it (a placeholder blob id)."""
    blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # the empty blob
    repo.git("update-index", "--add", "--cacheinfo", f"100644,{blob},{relpath}")


@pytest.fixture
def configured(repo: Repo) -> Repo:
    repo.write("pyproject.toml", CONFIG)
    repo.write("ok.py", "# SPDX-License-Identifier: MIT\nx = 1\n")
    repo.commit()
    return repo


def test_check_reports_a_2gb_source_file_as_not_checked_without_reading_it(
    configured: Repo, run: Run
) -> None:
    sparse(configured, "big.py", TWO_GB)
    track_unread(configured, "big.py")
    before, started = peak(), time.monotonic()
    result = run("check")
    assert time.monotonic() - started < 10 and grown_mb(before) < 100  # never read whole
    assert result.code == 1, result.err
    assert result.out.splitlines()[0] == (
        "big.py:1:1: undecodable not checked: 2,147,483,648 bytes, over the 4 MiB limit for "
        "a source file (leave generated files out with `exclude`)"
    )
    assert "1 finding (1 error) in 3 files" in result.out


def test_a_hook_call_naming_the_huge_file_reports_it_too(configured: Repo, run: Run) -> None:
    sparse(configured, "tools/run", TWO_GB, b"#!/usr/bin/env python3\n" + HEAD)
    result = run("check", "--format", "json", "tools/run", "ok.py")
    (finding,) = json.loads(result.out)
    assert (finding["path"], finding["rule"]) == ("tools/run", "undecodable")
    assert "over the 4 MiB limit" in finding["message"] and result.code == 1


def test_a_ten_million_line_file_is_one_finding(configured: Repo, run: Run) -> None:
    configured.write("lines.py", b"\n" * 10_000_000)
    before = peak()
    result = run("check", "lines.py")
    assert grown_mb(before) < 100
    assert "lines.py:1:1: undecodable not checked: 10,000,000 bytes" in result.out
    assert result.code == 1


def test_a_huge_binary_file_is_skipped_as_before(configured: Repo, run: Run) -> None:
    sparse(configured, "weights.py", TWO_GB, b"")  # all NULs: git's binary test
    result = run("check", "weights.py", "ok.py")
    assert (result.code, result.out.strip()) == (0, "no findings in 1 file")


def test_a_huge_file_of_a_kind_no_rule_reads_is_not_reported(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", '[[tool.policytool.forbidden-import]]\nmodules = ["pickle"]\n')
    sparse(repo, "data.csv", TWO_GB, b"a,b\n" * 2000)
    result = run("check", "data.csv")
    assert result.code == 0, result.out


def test_a_file_at_the_limit_is_checked(configured: Repo, run: Run) -> None:
    body = b"# SPDX-License-Identifier: MIT\nimport pickle\n"
    configured.write("edge.py", body + b"\n" * (MAX_SOURCE_BYTES - len(body)))
    result = run("check", "--format", "json", "edge.py")
    assert [f["rule"] for f in json.loads(result.out)] == ["forbidden-import"]


def test_stale_allow_does_not_read_a_huge_file_its_glob_matches(configured: Repo, run: Run) -> None:
    configured.write("pyproject.toml", CONFIG + 'allow = ["gen/**"]\n')
    sparse(configured, "gen/big.py", TWO_GB, b"import pickle\n" * 600)
    track_unread(configured, "gen/big.py")
    before = peak()
    result = run("check", "--format", "json")
    assert grown_mb(before) < 100
    rules = sorted(f["rule"] for f in json.loads(result.out))
    assert rules == ["stale-allow", "undecodable"]  # the file was not checked: nothing shielded


def test_sweep_notes_a_huge_new_file_without_reading_it(configured: Repo, run: Run) -> None:
    configured.git("checkout", "-q", "-b", "feature")
    sparse(configured, "pkg/big.py", TWO_GB, b"def f(a):\n    return a\n" * 400)
    before = peak()
    result = run("sweep", "--format", "json", "--base", "main")
    assert grown_mb(before) < 100
    (finding,) = json.loads(result.out)
    assert (finding["path"], finding["rule"]) == ("pkg/big.py", "undecodable")
    assert "2,147,483,648 bytes, over the 4,000,000-byte sweep limit" in finding["message"]


def test_a_patch_adding_millions_of_lines_keeps_no_line_set() -> None:
    lines = MAX_ADDED_LINES * 10
    patch = (
        b"diff --git a/big.py b/big.py\nnew file mode 100644\n--- /dev/null\n+++ b/big.py\n"
        + f"@@ -0,0 +1,{lines} @@\n".encode()
    )
    (changed,) = parse_patch(patch).files
    assert (changed.path, changed.whole, changed.added) == ("big.py", True, frozenset())


def test_a_patch_under_the_line_bound_keeps_its_lines() -> None:
    patch = b"diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -3,0 +4,2 @@\n+x\n+y\n"
    (changed,) = parse_patch(patch).files
    assert (changed.whole, changed.added) == (False, frozenset({4, 5}))


def test_sweep_of_a_committed_ten_million_line_file_reads_no_patch_of_it(
    configured: Repo, run: Run
) -> None:
    configured.git("checkout", "-q", "-b", "feature")
    configured.write("pkg/lines.py", b"x = 1\n" * 2_000_000)  # 12 MB, 2 million lines
    configured.commit("big")
    configured.write("pkg/lines.py", b"x = 1\n" * 2_000_001)
    configured.commit("bigger")
    before = peak()
    for base in ("main", "HEAD~1"):  # a new file, then an edit of it
        result = run("sweep", "--format", "json", "--base", base, "--head", "HEAD")
        (finding,) = json.loads(result.out)
        assert (finding["path"], finding["rule"]) == ("pkg/lines.py", "undecodable")
        assert "12,000,006 bytes, over the 4,000,000-byte sweep limit" in finding["message"]
    assert grown_mb(before) < 100  # the old --text patch alone was 14 MB, its lines 2 million ints


@pytest.mark.parametrize(
    ("line", "path"),
    [
        (b"Binary files /dev/null and b/new.py differ", "new.py"),
        (b"Binary files a/gone.py and /dev/null differ", None),
        (b"Binary files a/x and b.py and b/x and b.py differ", "x and b.py"),
        (b'Binary files "a/t\\tb.py" and "b/t\\tb.py" differ', "t\tb.py"),
        (b'Binary files /dev/null and "b/n\\nb.py" differ', "n\nb.py"),
    ],
)
def test_the_head_path_of_a_binary_line(line: bytes, path: str | None) -> None:
    from policytool.sweep.diff import _binary_path

    assert _binary_path(line, None) == path


def test_a_binary_line_after_a_rename_names_the_new_path() -> None:
    patch = (
        b"diff --git a/old.py b/new.py\nsimilarity index 99%\nrename from old.py\n"
        b"rename to new.py\nBinary files a/old.py and b/new.py differ\n"
    )
    (changed,) = parse_patch(patch).files
    assert (changed.path, changed.whole) == ("new.py", True)
    assert parse_patch(patch).touched == {"old.py", "new.py"}


def test_a_base_version_is_read_bounded_and_only_as_a_regular_file(repo: Repo) -> None:
    """``read_base`` (a rule asking for a changed file's base version): the file's bytes;
    None for a path missing there, a symlink (it may point outside the repository), a
    file over the sweep's size limit (never read whole), or a commit git cannot list."""
    repo.write("pkg/mod.py", "def f() -> int:\n    return 1\n")
    os.symlink("/etc/passwd", repo.root / "pkg" / "link.py")
    sparse(repo, "pkg/huge.py", MAX_FILE_BYTES + 1)
    repo.commit("base")
    sha = repo.git("rev-parse", "HEAD").strip()
    assert read_base(repo.root, sha, "pkg/mod.py") == b"def f() -> int:\n    return 1\n"
    assert read_base(repo.root, sha, "pkg/missing.py") is None
    assert read_base(repo.root, sha, "pkg/link.py") is None
    assert read_base(repo.root, sha, "pkg/huge.py") is None
    assert read_base(repo.root, "0" * 40, "pkg/mod.py") is None
