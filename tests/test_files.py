# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""files: kinds, globs, atomic writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from policytool.errors import FileError
from policytool.files import is_binary, kind_of, match_glob, read_bounded, write_atomic


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

    from policytool import files

    assert set(typing.get_args(files.Kind)) == set(files.KIND_BY_SUFFIX.values())
    assert set(typing.get_args(files.CommentKind)) == set(files.COMMENT_PREFIX_BY_KIND)


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
