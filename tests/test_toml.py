# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""formats/toml.py: the one TOML reader, bounded in size and nesting depth."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from policytool.core.boundary import MAX_CONFIG_BYTES
from policytool.errors import PolicyError, TomlError
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


@pytest.mark.timing
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


def test_allow_glob_lines_use_the_shared_key_lines(repo: Repo, run: Run) -> None:
    """stale-allow names the line of the glob in its own [[table]], not a comment above it."""
    repo.write(
        "pyproject.toml",
        "[[tool.policytool.forbidden-import]]\n"
        'modules = ["pickle"]\n'
        'allow = ["a/**"]\n'
        "\n"
        "[[tool.policytool.forbidden-import]]\n"
        'modules = ["marshal"]\n'
        "allow = [\n"
        '    "b/**",  # "a/**" is mentioned in this comment\n'
        '    "a/**",\n'
        "]\n",
    )
    repo.write("a/x.py", "import pickle\n")
    repo.write("b/y.py", "import marshal\n")
    repo.commit()
    result = run("check", "--only", "stale-allow")
    assert result.code == 1
    assert result.out.splitlines()[0].startswith(
        "pyproject.toml:9:1: stale-allow allow entry `a/**` of forbidden-import entry 2"
    )


def test_skip_reason_line_uses_the_shared_key_lines(repo: Repo, run: Run) -> None:
    """ci-hook-stage points at the skip-reasons key itself, not the first line naming it."""
    repo.write(
        "pyproject.toml",
        "[tool.policytool.pre-commit]\n"
        '# "mypy" runs in CI only\n'
        "[tool.policytool.ci.skip-reasons]\n"
        'mypy = "slow"\n',
    )
    repo.write(
        ".pre-commit-config.yaml",
        "repos:\n- repo: local\n  hooks:\n  - {id: mypy, name: m, entry: mypy, language: system}\n",
    )
    repo.write(
        ".github/workflows/pre-commit.yml",
        "on: [push]\njobs:\n  p:\n    runs-on: ubuntu-latest\n    steps:\n"
        "    - run: pre-commit run --all-files --hook-stage manual\n",
    )
    repo.commit()
    result = run("check", "--only", "ci-hook-stage")
    assert "pyproject.toml:4:1: ci-hook-stage skip-reasons explains 'mypy'" in result.out, (
        result.out
    )


# --- property: every key tomllib reads has its line --------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_KEYS = st.sampled_from(["a", "b-c", "d_e", "x.y", "q r", "[k]", "#h", "1"])
_STRINGS = st.text(alphabet="ab[]{}#'\"\\\n=,. ", max_size=12)
_SCALARS = st.one_of(st.integers(-5, 5), st.booleans(), _STRINGS)
_VALUES = st.one_of(_SCALARS, st.lists(_SCALARS, max_size=4))
_TABLES = st.recursive(
    st.dictionaries(_KEYS, _VALUES, max_size=4),
    lambda inner: st.dictionaries(
        _KEYS, st.one_of(_VALUES, inner, st.lists(inner, min_size=1, max_size=3)), max_size=4
    ),
    max_leaves=12,
)


def _paths(table: dict[str, object], prefix: toml.KeyPath = ()) -> list[toml.KeyPath]:
    """Every key path below ``table``: through tables and arrays of tables."""
    out: list[toml.KeyPath] = []
    for key, value in table.items():
        path = (*prefix, key)
        out.append(path)
        if isinstance(value, dict):
            out += _paths(value, path)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for index, item in enumerate(value):
                out += _paths(item, (*path, index))
    return out


@settings(max_examples=300, deadline=None)
@given(_TABLES)
def test_key_lines_find_every_key_tomlkit_writes(data: dict[str, object]) -> None:
    import tomlkit

    text = tomlkit.dumps(data)
    parsed = toml.loads(text, "gen.toml")
    assert parsed == data
    lines = toml.key_lines(text)
    rows = text.splitlines()
    for path in _paths(parsed):
        line = toml.key_line(lines, path)
        assert line is not None, (path, text)
        key = path[-1]
        assert isinstance(key, str)
        assert key in rows[line - 1] or f'"{key}"' in rows[line - 1] or "{" in rows[line - 1], (
            path,
            line,
            text,
        )
