# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Configuration: typed frozen dataclasses, defaults, and precise errors."""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from policytool.config import Config, load_config
from policytool.engine.lock_config import LockConfig
from policytool.errors import ConfigError
from policytool.rules._repo_config import PreCommitConfig
from policytool.rules._source_config import ForbiddenImportConfig, SpdxConfig
from tests.conftest import Repo, Result

Run = Callable[..., Result]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(text)
    return path


def test_no_pyproject_gives_defaults(tmp_path: Path) -> None:
    config = load_config(cwd=tmp_path)
    assert config.section(SpdxConfig) == SpdxConfig()
    assert config.root == tmp_path.resolve()


def test_found_upward_from_a_subdirectory(tmp_path: Path) -> None:
    write(tmp_path, '[tool.policytool]\nexclude = ["vendor/**"]\n')
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    config = load_config(cwd=sub)
    assert config.exclude == ("vendor/**",)
    assert config.root == tmp_path.resolve()


def test_a_pyproject_above_the_git_repo_is_not_its_config(tmp_path: Path) -> None:
    # ~/pyproject.toml (or any config above the work tree) never configures a repo.
    write(tmp_path, '[tool.policytool]\nexclude = ["vendor/**"]\n')
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for cwd in (repo, repo / "src"):
        config = load_config(cwd=cwd)
        assert config.exclude == ()
        assert config.root == repo.resolve()
    (repo / ".git").rename(repo / "not-git")  # outside git: the nearest one, as before
    assert load_config(cwd=repo / "src").exclude == ("vendor/**",)


def test_full_sketch_parses_into_dataclasses(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[tool.policytool]
exclude = ["vllm/third_party/**"]
[tool.policytool.spdx]
license = "Apache-2.0"
copyright = "Copyright contributors to the vLLM project"
replaces = ["old"]
[[tool.policytool.forbidden-import]]
modules = ["pickle", "cloudpickle"]
reason = "unsafe deserialization"
allow = ["vllm/distributed/**"]
[tool.policytool.pre-commit]
final-hook = "suggestion"
min-rev = { "https://github.com/crate-ci/typos" = "v1.43.0" }
[[tool.policytool.lock]]
name = "test"
inputs = ["requirements/test.in"]
output = "requirements/test.txt"
hashes = true
jobs = ["unit-tests"]
""",
    )
    config = load_config(path)
    assert config.entries(ForbiddenImportConfig)[0].modules == ("pickle", "cloudpickle")
    assert config.section(PreCommitConfig).final_hook == "suggestion"
    assert config.section(PreCommitConfig).min_rev == {
        "https://github.com/crate-ci/typos": "v1.43.0"
    }
    assert (
        config.entries(LockConfig)[0].hashes is True
        and config.entries(LockConfig)[0].backend == "uv"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.section(SpdxConfig).license = "MIT"  # type: ignore[misc]
    assert isinstance(config, Config)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[tool.policytool.spdx]\nlicence = 'MIT'\n",
            "pyproject.toml:2: tool.policytool.spdx: unknown key 'licence'; did you mean 'license'?",
        ),
        (
            "[tool.policytool]\nexclud = []\n",
            "pyproject.toml:2: tool.policytool: unknown key 'exclud'; did you mean 'exclude'?",
        ),
        (
            "[tool.policytool.spdx]\nlicense = 3\n",
            "tool.policytool.spdx.license: expected a string, got 3",
        ),
        ("[tool.policytool]\nexclude = 'a/**'\n", "expected a list of strings, got a string"),
        (
            "[[tool.policytool.lock]]\nname = 'x'\ninputs = ['a.in']\noutput = 'a.txt'\nhashes = 'yes'\n",
            "expected true or false, got 'yes'",
        ),
        (
            "[[tool.policytool.lock]]\nname = 'x'\ninputs = ['a.in']\n",
            "missing required key 'output'",
        ),
        (
            "[[tool.policytool.lock]]\nname = 'x'\ninputs = ['a.in']\noutput = 'a'\nbackend = 'poetry'\n",
            "expected one of 'uv', 'pip-tools', got 'poetry'",
        ),
        (
            "[tool.policytool.spdx]\nkinds = ['pythn']\n",
            "tool.policytool.spdx.kinds[0]: expected one of 'python', 'stub', 'shell', "
            "'yaml', 'toml', 'rust', 'proto', 'c', 'cpp', 'cuda', 'js', 'ts', "
            "got 'pythn'; did you mean 'python'?",
        ),
        (
            "[tool.policytool.spdx]\nkinds = ['markdown']\n",  # a kind, but without comments
            "kinds[0]: expected one of 'python',",
        ),
        ("[tool.policytool]\nspdx = 'x'\n", "tool.policytool.spdx: expected a table"),
    ],
)
def test_bad_config_is_one_precise_error(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert expected in str(info.value)
    assert str(path) in str(info.value)


def test_error_line_is_searched_below_the_right_table(tmp_path: Path) -> None:
    path = write(tmp_path, '[project]\nname = "x"\n\n[[tool.policytool.lock]]\nname = 3\n')
    with pytest.raises(
        ConfigError, match=r"pyproject.toml:5: tool.policytool.lock\[0\].name: expected a string"
    ):
        load_config(path)


def test_malformed_toml_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "[tool.policytool\nexclude = []\n")
    with pytest.raises(ConfigError, match=r"invalid TOML: .*line 1"):
        load_config(path)


def test_cli_config_errors_exit_2_without_traceback(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[tool.policytool.spdx]\nlicence = 'MIT'\n")
    repo.write("a.py", "x = 1\n")
    result = run("check", "a.py")
    assert result.code == 2
    assert result.err.startswith("policytool: error: ")
    assert "did you mean 'license'?" in result.err
    assert "Traceback" not in result.err
    assert result.err.count("\n") == 1


def test_explicit_config_path_missing_is_exit_2(repo: Repo, run: Run) -> None:
    result = run("check", "--config", "nope.toml")
    assert result.code == 2
    assert "nope.toml: cannot read config" in result.err


def test_error_in_second_repeated_table_names_its_own_line(tmp_path: Path) -> None:
    """Regression: a key of the second [[forbidden-import]] was reported at the first's line."""
    path = write(
        tmp_path,
        "[[tool.policytool.forbidden-import]]\n"
        'modules = ["pickle"]\n'
        'reason = "unsafe"\n'
        "\n"
        "[[tool.policytool.forbidden-import]]\n"
        'modules = ["re"]\n'
        "reason = 3\n",
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (
        f"{path}:7: tool.policytool.forbidden-import[1].reason: expected a string, got 3"
    )


def test_error_in_a_list_item_names_the_item_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[tool.policytool]\nexclude = [\n  "a/**",\n  # why\n  3,\n]\n'
        "[tool.policytool.pre-commit]\n"
        'min-rev = { "https://github.com/a/b.c" = 1 }\n',
    )
    with pytest.raises(ConfigError, match=r":5: tool\.policytool\.exclude\[1\]: expected a string"):
        load_config(path)
    path.write_text(
        "[tool.policytool.pre-commit]\n"
        '# "https://github.com/a/b.c" = 1\n'
        'min-rev = { "https://github.com/a/b.c" = 1 }\n'
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(
        f"{path}:3: tool.policytool.pre-commit.min-rev.https://github.com/a/b.c: expected a string"
    )


def test_duplicate_lock_name_points_at_the_second(tmp_path: Path) -> None:
    entry = '[[tool.policytool.lock]]\nname = "x"\ninputs = ["a.in"]\noutput = "{}"\n'
    path = write(tmp_path, entry.format("a.txt") + entry.format("b.txt"))
    with pytest.raises(ConfigError, match=r":6: tool\.policytool\.lock\[1\]\.name: duplicate"):
        load_config(path)
