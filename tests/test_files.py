# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""files: kinds, globs, atomic writes."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytool.core.atomic import write_atomic
from policytool.core.boundary import Boundary, read_bounded
from policytool.core.discovery import discover
from policytool.core.globs import glob_prefix, match_glob
from policytool.core.kinds import is_binary, kind_of
from policytool.core.text import split_lines
from policytool.errors import BoundaryError, FileError, PolicyError
from tests.conftest import Repo


@pytest.mark.parametrize(
    ("path", "head", "kind"),
    [
        ("a.py", b"", "python"),
        ("a.pyi", b"", "stub"),
        ("x/k.cu", b"", "cuda"),
        ("run", b"#!/usr/bin/env python3\n", "python"),
        ("run", b"#!/bin/bash -e\n", "shell"),
        ("run", b"#!/usr/bin/env -S node --flag\n", "js"),
        ("Makefile", b"all:\n", None),
        ("README.unknown", b"", None),
    ],
)
def test_kind_of(path: str, head: bytes, kind: str | None) -> None:
    assert kind_of(path, head) == kind


def test_is_binary() -> None:
    assert is_binary(b"abc\0def")
    assert not is_binary(b"plain text\n")


@pytest.mark.parametrize(
    ("path", "pattern", "matches"),
    [
        ("vllm/third_party/a/b.py", "vllm/third_party/**", True),
        ("vllm/third_party", "vllm/third_party/**", False),
        ("vllm/third_partyx/a.py", "vllm/third_party/**", False),
        ("a/b/c.py", "*.py", True),
        ("a/b/c.py", "a/*.py", False),
        ("a/b/c.py", "a/**/c.py", True),
        ("a/c.py", "a/**/c.py", True),
        ("a/b/c.py", "./a/b/c.py", True),
        ("x/engine/core.py", "*/engine/*", True),
        ("a/b", "a", True),
    ],
)
def test_match_glob(path: str, pattern: str, matches: bool) -> None:
    assert match_glob(path, pattern) is matches


@pytest.mark.parametrize(
    ("pattern", "prefix"),
    [
        ("vllm/third_party/**", "vllm/third_party/"),
        ("./a/b/c.py", "a/b/c.py"),
        ("a/*/c.py", "a/"),
        ("a/b?/c", "a/b"),
        ("a/[bc]/d", "a/"),
        ("**/x.py", ""),
        ("setup.py", ""),  # no slash: a file name in any directory
        ("*.py", ""),
    ],
)
def test_glob_prefix(pattern: str, prefix: str) -> None:
    assert glob_prefix(pattern) == prefix


_GLOB_PART = st.sampled_from(["a", "b", "ab", "*", "**", "?", "[ab]", "[", ".", "./"])


@settings(max_examples=300, deadline=None)
@given(
    pattern=st.lists(_GLOB_PART, min_size=1, max_size=4).map("/".join),
    path=st.lists(
        st.sampled_from(["a", "b", "ab", "ba", ".", "[", "x.py"]), min_size=1, max_size=5
    ).map("/".join),
)
def test_every_path_a_glob_matches_starts_with_its_prefix(pattern: str, path: str) -> None:
    """stale-allow picks a glob's candidates by its prefix: no match may lie outside."""
    if match_glob(path, pattern):
        assert path.startswith(glob_prefix(pattern))


def test_write_atomic_keeps_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "tool.sh"
    target.write_bytes(b"old")
    target.chmod(0o750)
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o750
    assert os.listdir(tmp_path) == ["tool.sh"]


def test_write_atomic_failure_leaves_original(tmp_path: Path) -> None:
    target = tmp_path / "a.py"
    target.write_bytes(b"original")
    with pytest.raises(TypeError):
        write_atomic(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"original"
    assert os.listdir(tmp_path) == ["a.py"]


def test_write_atomic_new_file_uses_umask(tmp_path: Path) -> None:
    target = tmp_path / "new.txt"
    old = os.umask(0o022)
    try:
        write_atomic(target, b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644


def test_kind_literals_match_the_tables() -> None:
    """The Literal types the config builder validates against are the kinds files.py knows."""
    import typing

    from policytool.core import kinds as files

    assert set(typing.get_args(files.Kind)) == set(files.KIND_BY_SUFFIX.values())
    assert set(typing.get_args(files.CommentKind)) == set(files.COMMENT_PREFIX_BY_KIND)


@pytest.mark.parametrize("listing", [True, False], ids=["listed", "stat-each"])
def test_discover_keeps_regular_files_and_links_to_them_inside(
    repo: Repo,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    listing: bool,
) -> None:
    """Directories listed once instead of an lstat a file: the same answers."""
    import policytool.core.discovery

    monkeypatch.setattr(policytool.core.discovery, "LISTING_MIN_PATHS", 1 if listing else 10**6)
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.py").write_text("s = 1\n")
    (outside / "pkg").mkdir()
    (outside / "pkg" / "x.py").write_text("x = 1\n")
    repo.write("a.py", "a = 1\n")
    repo.write("sub/b.py", "b = 1\n")
    repo.write("sub/gone.py", "g = 1\n")
    repo.write("sub/now_a_dir.py", "d = 1\n")
    os.symlink("a.py", repo.root / "link_in.py")
    os.symlink(str(outside / "secret.py"), repo.root / "link_out.py")
    os.symlink(str(outside / "pkg"), repo.root / "vendor")
    os.symlink("sub", repo.root / "sub_link")
    repo.git("add", "-A")
    repo.git("add", "-f", "vendor", "sub_link")
    repo.commit()
    (repo.root / "sub" / "gone.py").unlink()  # deleted, not yet committed
    (repo.root / "sub" / "now_a_dir.py").unlink()
    (repo.root / "sub" / "now_a_dir.py").mkdir()
    kept = ["a.py", "link_in.py", "sub/b.py"]
    got = discover(repo.root, None, repo.root, ())
    assert [f for f in got if f != "pyproject.toml"] == kept
    boundary = Boundary(repo.root)
    tracked = [
        "a.py", "link_in.py", "link_out.py", "sub/b.py", "sub/gone.py", "sub/now_a_dir.py",
        "sub_link/b.py", "vendor/x.py", "missing_dir/y.py",
    ]  # fmt: skip
    assert boundary.files_inside(tracked) == [f for f in tracked if boundary.file_inside(f)]
    assert boundary.files_inside(tracked) == [*kept, "sub_link/b.py"]
    assert discover(repo.root, ["a.py", "sub/b.py", "link_in.py"], repo.root, ()) == [
        "a.py",
        "link_in.py",
        "sub/b.py",
    ]
    for refused in ("link_out.py", "vendor/x.py"):
        with pytest.raises(BoundaryError):
            discover(repo.root, [refused], repo.root, ())


def test_discover_outside_a_git_repository_says_so(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="not a git repository; pass the files"):
        discover(tmp_path, None, tmp_path, ())


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_read_bounded_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "allow.txt"
    if kind == "directory":
        target.mkdir()
    else:
        os.mkfifo(target)
    with pytest.raises(FileError, match="allow.txt: not a regular file"):
        read_bounded(target, "allow.txt")


def test_read_bounded_refuses_a_file_over_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 101)
    with pytest.raises(FileError, match="over the 100-byte limit"):
        read_bounded(big, "big.txt", limit=100)
    assert read_bounded(big, "big.txt", limit=101) == b"x" * 101


@given(st.text(alphabet="ab\r\n\x0c\x0b\x85\u2028", max_size=40))
def test_split_lines_ends_lines_where_python_does(text: str) -> None:
    lines = split_lines(text)
    assert "".join(lines) == text
    assert len(lines) == len(io.StringIO(text, newline="").readlines())
    bare = split_lines(text, keepends=False)
    assert bare == [line.rstrip("\r\n") for line in lines]
    assert all("\n" not in line and "\r" not in line for line in bare)
