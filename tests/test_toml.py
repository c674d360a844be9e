# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""formats/toml.py: the one TOML reader, bounded in size and nesting depth."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from policytool.errors import PolicyError, TomlError
from policytool.files import MAX_CONFIG_BYTES
from policytool.formats import toml
from tests.conftest import Repo, Result

Run = Callable[..., Result]


def test_loads_parses_and_names_the_file_on_error() -> None:
    assert toml.loads('a = [1, {b = "]]]"}]\n', "x.toml") == {"a": [1, {"b": "]]]"}]}
    with pytest.raises(TomlError, match=r"^x\.toml: invalid TOML: "):
        toml.loads("a = \n", "x.toml")


def test_brackets_in_strings_and_comments_do_not_count() -> None:
    text = "a = '" + "[" * 500 + "'\n# " + "{" * 500 + '\nb = """' + "[" * 500 + '"""\n'
    assert toml.nesting_depth(text)[0] <= 1
    assert toml.loads(text, "x.toml")["a"] == "[" * 500


@pytest.mark.parametrize("opener,closer", [("[", "]"), ("{a = ", "}")])
def test_3000_deep_is_one_sentence_not_recursion_error(opener: str, closer: str) -> None:
    text = "x = 1\nk = " + opener * 3000 + "1" + closer * 3000 + "\n"
    start = time.perf_counter()
    with pytest.raises(TomlError, match=r"^p\.toml:2: invalid TOML: nested deeper than 64"):
        toml.loads(text, "p.toml")
    assert time.perf_counter() - start < 0.5


def test_load_file_is_bounded(tmp_path: Path) -> None:
    big = tmp_path / "pyproject.toml"
    big.write_bytes(b"# " + b"x" * MAX_CONFIG_BYTES + b"\n")
    with pytest.raises(PolicyError, match="over the .*-byte limit"):
        toml.load_file(big, "pyproject.toml")


def test_deep_pyproject_is_exit_2_one_sentence(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[tool.policytool]\nexclude = " + "[" * 3000 + "]" * 3000 + "\n")
    repo.write("a.py", "x = 1\n")
    start = time.perf_counter()
    result = run("check")
    assert time.perf_counter() - start < 1.0
    assert result.code == 2
    assert result.err.count("\n") == 1
    assert "pyproject.toml:2: invalid TOML: nested deeper than 64 levels" in result.err
    assert "Traceback" not in result.err + result.out


def test_huge_pyproject_is_exit_2_one_sentence(repo: Repo, run: Run) -> None:
    with open(repo.root / "pyproject.toml", "wb") as handle:
        handle.write(b"[tool.policytool]\n")
        handle.write((b"# " + b"x" * 1022 + b"\n") * (MAX_CONFIG_BYTES // 1024 + 1))
    repo.write("a.py", "x = 1\n")
    start = time.perf_counter()
    result = run("check")
    assert time.perf_counter() - start < 1.0
    assert result.code == 2
    assert result.err.count("\n") == 1
    assert "pyproject.toml: " in result.err and "-byte limit" in result.err


def test_config_not_utf8_names_the_line(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", b"[tool.policytool]\nexclude = ['\xff']\n")
    result = run("check")
    assert result.code == 2
    assert "pyproject.toml:2: not valid UTF-8" in result.err


def test_key_lines_count_repeated_tables_and_items() -> None:
    text = (
        "[[a.b]]\n"  # 1
        "k = 1\n"  # 2
        "[[a.b]]\n"  # 3
        'x.y = """two\n'  # 4
        '[not.a.header]"""\n'  # 5
        "k = [\n"  # 6
        "  1, # [\n"  # 7
        "  [2, 3],\n"  # 8
        "]\n"  # 9
        "[a.b.c]\n"  # 10
        "'q.r' = {s = 1}\n"  # 11
    )
    lines = toml.key_lines(text)
    assert lines[("a", "b", 0, "k")] == 2
    assert lines[("a", "b", 1)] == 3
    assert lines[("a", "b", 1, "x", "y")] == 4
    assert ("not", "a", "header") not in lines
    assert lines[("a", "b", 1, "k")] == 6
    assert lines[("a", "b", 1, "k", 0)] == 7
    assert lines[("a", "b", 1, "k", 1)] == 8
    assert lines[("a", "b", 1, "c")] == 10  # a sub-table of the last [[a.b]]
    assert lines[("a", "b", 1, "c", "q.r")] == 11
    assert toml.key_line(lines, ("a", "b", 1, "c", "q.r", "s")) == 11  # inside an inline table
    assert toml.key_line(lines, ("nowhere",)) is None
