# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``mergify-drift``, ``policytool sync`` and the ``init`` scaffolds on real files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytool.engine.lock_config import LockConfig
from tests.conftest import Repo, Result
from tests.precommit_helpers import (
    ONLY_REPO,
    check_jsonschema,
    line_of,
    precommit_accepts,
    rule_lines,
)

Run = Callable[..., Result]

PRECOMMIT = """\
default_stages: [pre-commit, manual]
repos:
  - repo: https://github.com/DavidAnson/markdownlint-cli2
    rev: v0.17.2
    hooks:
      - id: markdownlint-cli2
  - repo: local
    hooks:
      - id: mypy-3.12
        name: Run mypy for Python 3.12
        entry: python tools/mypy.py
        language: python
        language_version: python3.12
        additional_dependencies: [mypy==1.11.1, types-PyYAML]
        stages: [manual]
"""

# The Mergify tip of RFC section 9: names hooks that do not exist, misses the stage.
MERGIFY = """\
pull_request_rules:
  - name: label-documentation
    conditions:
      - files~=^docs/
    actions:
      label:
        add: [documentation]
  # Tell contributors how to reproduce a pre-commit failure.
  - name: comment-pre-commit-failure
    description: Comment on PRs whose pre-commit check failed
    conditions:
      - check-failure=pre-commit
      - -closed
      - -draft
    actions:
      comment:
        message: |
          ## Pre-commit checks failed

          Hi @{{author}}, the pre-commit checks have failed. Please run:

          ```bash
          uv pip install pre-commit
          pre-commit install
          pre-commit run --all-files --hook-stage manual
          ```

          For `mypy` errors, run `pre-commit run --hook-stage manual mypy-3.10 --all-files`.
          For markdown errors, run `pre-commit run --hook-stage manual markdownlint --all-files`.

          > [!TIP]
          > Is `mypy` failing? Run `pre-commit run mypy-3.12 --all-files`.
"""


# A message that says nothing about how to reproduce: `sync` adds the block to it.
BARE = MERGIFY.split("          Hi @{{author}}")[0] + (
    "          Hi @{{author}}, the pre-commit checks have failed.\n"
)

# A message already right in the maintainers' own words (vLLM's, with the manual stage).
OWN_WORDS = MERGIFY.split("          Hi @{{author}}")[0] + (
    "          Hi @{{author}}, the pre-commit checks have failed. Please run:\n"
    "\n"
    "          ```bash\n"
    "          uv pip install pre-commit==4.0.1\n"
    "          pre-commit install\n"
    "          pre-commit run --all-files --hook-stage manual\n"
    "          ```\n"
    "\n"
    "          For mypy alone: `pre-commit run mypy-3.12 --hook-stage manual --all-files`.\n"
)


@pytest.fixture
def mergify_repo(repo: Repo) -> Repo:
    """A repo with the config, a pre-commit pin and the drifted Mergify file."""
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    repo.write(".github/mergify.yml", MERGIFY)
    repo.write("requirements/lint.txt", "pre-commit==4.0.1\n")
    repo.write("pyproject.toml", '[tool.policytool.ci]\nskip-reasons = { "mypy-3.12" = "slow" }\n')
    repo.commit()
    return repo


@pytest.fixture
def bare_repo(mergify_repo: Repo) -> Repo:
    """The same repo whose comment gives no instructions yet."""
    mergify_repo.write(".github/mergify.yml", BARE)
    mergify_repo.commit()
    return mergify_repo


def test_drifted_tip_is_caught(mergify_repo: Repo, run: Run) -> None:
    result = run("check", "--only=mergify-drift")
    assert result.code == 1
    path = ".github/mergify.yml"
    # The maintainers' own words are checked as they are: no block is asked for.
    assert rule_lines(result.out, "mergify-drift") == [
        (path, line_of(MERGIFY, "uv pip install pre-commit")),
        (path, line_of(MERGIFY, "mypy-3.10")),
        (path, line_of(MERGIFY, "markdownlint --all")),
        (path, line_of(MERGIFY, "Is `mypy` failing")),
    ]
    assert (
        "names hook 'mypy-3.10', which is not in "
        ".pre-commit-config.yaml (did you mean 'mypy-3.12'?)" in result.out
    )
    assert (
        "names hook 'markdownlint', which is not in "
        ".pre-commit-config.yaml (did you mean 'markdownlint-cli2'?)" in result.out
    )
    assert (
        "does not run 'mypy-3.12', which runs only at manual; add `--hook-stage manual`"
        in result.out
    )
    assert "should pin `pre-commit==4.0.1`" in result.out
    assert "policytool:sync" not in result.out


def test_sync_never_writes_a_second_set_under_their_instructions(
    mergify_repo: Repo, run: Run
) -> None:
    for args in (("sync",), ("sync", "--check")):
        result = run(*args)
        assert result.code == 2
        assert result.err.startswith(
            f"policytool: error: .github/mergify.yml:{line_of(MERGIFY, 'mypy-3.10')}: "
            "the message gives its own `pre-commit run` instructions and they are out of date"
        )
        assert "`policytool fix --only mergify-drift` mends them in place" in result.err
    assert mergify_repo.read(".github/mergify.yml").decode() == MERGIFY


# What `fix` makes of MERGIFY: every command mended in the maintainers' own words.
MENDED = (
    MERGIFY.replace("uv pip install pre-commit\n", "uv pip install pre-commit==4.0.1\n")
    .replace("manual mypy-3.10 --all-files", "manual mypy-3.12 --all-files")
    .replace("manual markdownlint --all-files", "manual markdownlint-cli2 --all-files")
    .replace("Run `pre-commit run mypy-3.12", "Run `pre-commit run --hook-stage manual mypy-3.12")
)


def test_fix_mends_their_own_instructions_in_place(mergify_repo: Repo, run: Run) -> None:
    # Issue 21 item 10: renamed hooks, a missing stage and the pin, every other word kept.
    fixed = run("fix", "--only=mergify-drift")
    assert fixed.code == 1 and "fixed .github/mergify.yml" in fixed.err
    assert mergify_repo.read(".github/mergify.yml").decode() == MENDED
    assert run("check", "--only=mergify-drift").code == 0
    assert run("fix", "--only=mergify-drift").code == 0  # idempotent
    assert mergify_repo.read(".github/mergify.yml").decode() == MENDED


def test_fix_drops_a_dead_hook_and_adds_the_stage_ci_runs(mergify_repo: Repo, run: Run) -> None:
    tip = OWN_WORDS.replace(
        "pre-commit run --all-files --hook-stage manual\n",
        "pre-commit run --all-files && \\\n            pre-commit run clang-format -a\n",
    )
    workflow = "on: [pull_request]\njobs:\n  pre-commit:\n    runs-on: x\n    steps:\n"
    workflow += "      - run: pre-commit run -a --hook-stage manual\n"
    mergify_repo.write(".github/mergify.yml", tip)
    mergify_repo.write(".github/workflows/lint.yml", workflow)
    mergify_repo.commit()
    result = run("check", "--only=mergify-drift")
    assert "leaves out the manual-stage hooks CI runs" in result.out
    assert "names hook 'clang-format'" in result.out
    assert run("fix", "--only=mergify-drift").code == 1  # two commands, one logical line
    assert mergify_repo.read(".github/mergify.yml").decode() == tip.replace(
        "pre-commit run --all-files && \\\n            pre-commit run clang-format -a\n",
        "pre-commit run --hook-stage manual --all-files && \\\n"
        "            pre-commit run --hook-stage manual -a\n",
    )
    assert run("check", "--only=mergify-drift").code == 0
    assert run("fix", "--only=mergify-drift").code == 0


def test_prose_commands_are_reported_not_rewritten(mergify_repo: Repo, run: Run) -> None:
    # Outside code (no backticks, no fence) a command's end is a guess: no fix.
    tip = OWN_WORDS.replace(
        "          For mypy alone:",
        "          Or run pre-commit run mypy-3.10 before pushing.\n          For mypy alone:",
    )
    mergify_repo.write(".github/mergify.yml", tip)
    mergify_repo.commit()
    result = run("check", "--only=mergify-drift")
    assert "names hook 'mypy-3.10'" in result.out and "fixable" not in result.out
    assert run("fix", "--only=mergify-drift").code == 1
    assert mergify_repo.read(".github/mergify.yml").decode() == tip


def test_instructions_right_in_their_own_words_pass(mergify_repo: Repo, run: Run) -> None:
    mergify_repo.write(".github/mergify.yml", OWN_WORDS)
    mergify_repo.commit()
    result = run("check", "--only=mergify-drift")
    assert result.code == 0, result.out
    assert run("sync", "--check").out == ".github/mergify.yml: up to date\n"
    assert run("sync").code == 0
    assert mergify_repo.read(".github/mergify.yml").decode() == OWN_WORDS


def test_sync_writes_only_between_markers_and_check_exit_codes(bare_repo: Repo, run: Run) -> None:
    check = run("check", "--only=mergify-drift")
    assert rule_lines(check.out, "mergify-drift") == [
        (".github/mergify.yml", line_of(BARE, "## Pre-commit"))
    ]
    assert "does not say how to reproduce the failure" in check.out
    assert run("sync", "--check").code == 1
    original = bare_repo.read(".github/mergify.yml").decode()
    result = run("sync")
    assert result.code == 0
    assert result.out == ".github/mergify.yml: updated\n"
    text = bare_repo.read(".github/mergify.yml").decode()
    assert text.startswith(original)  # appended after the message; nothing before changed
    added = text[len(original) :]
    assert added.startswith("\n          <!-- policytool:sync begin")
    assert "          pip install pre-commit==4.0.1\n" in added
    assert "          pre-commit run --all-files --hook-stage manual\n" in added
    assert (
        "          - `mypy-3.12` (Run mypy for Python "
        "3.12): `pre-commit run mypy-3.12 --hook-stage manual"
        " --all-files` (needs python3.12; installs mypy==1.11.1, types-PyYAML)\n"
    ) in added
    assert "          - `mypy-3.12`: slow\n" in added
    assert added.endswith("          <!-- policytool:sync end -->\n")
    assert run("sync", "--check").out == ".github/mergify.yml: up to date\n"
    assert run("sync").code == 0
    assert bare_repo.read(".github/mergify.yml").decode() == text  # idempotent
    assert run("check", "--only=mergify-drift").code == 0


def test_synced_file_validates_against_mergify_schema(bare_repo: Repo, run: Run) -> None:
    assert run("sync").code == 0
    result = check_jsonschema("mergify", bare_repo.root / ".github/mergify.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_stale_block_after_config_change_and_edits_outside_survive(
    bare_repo: Repo, run: Run
) -> None:
    run("sync")
    # A contributor edits text around the block; then a new manual hook lands.
    text = bare_repo.read(".github/mergify.yml").decode()
    text = text.replace("Hi @{{author}}", "Hello @{{author}}") + "          Thanks!\n"
    bare_repo.write(".github/mergify.yml", text)
    bare_repo.write(
        ".pre-commit-config.yaml",
        PRECOMMIT
        + (
            "      - id: shellcheck\n        name: shellcheck\n        entry: shellcheck\n"
            "        language: system\n        stages: [manual]\n"
        ),
    )
    bare_repo.commit()
    result = run("check", "--only=mergify-drift")
    stale = [line for line in result.out.splitlines() if "generated block is stale" in line]
    assert len(stale) == 1
    assert stale[0].startswith(f".github/mergify.yml:{line_of(text, 'policytool:sync begin')}:")
    assert run("sync", "--check").code == 1
    fixed = run("fix", "--only=mergify-drift")
    assert fixed.code == 1 and "fixed .github/mergify.yml" in fixed.err
    new = bare_repo.read(".github/mergify.yml").decode()
    assert "Hello @{{author}}" in new and new.endswith("          Thanks!\n")
    assert (
        "`pre-commit run shellcheck --hook-stage manual --all-files` (needs `shellcheck` on PATH)"
        in new
    )
    before_block = text.split("<!-- policytool:sync begin")[0]
    after_block = text.split("<!-- policytool:sync end -->")[1]
    assert new.startswith(before_block) and new.endswith(after_block)
    assert "generated block" not in run("check", "--only=mergify-drift").out


def test_sync_keeps_their_installer_and_version_floor(bare_repo: Repo, run: Run) -> None:
    # vLLM's words, put between the markers for sync to own; no pin in the repo.
    bare_repo.write("requirements/lint.txt", "ruff\n")
    marked = BARE + (
        "\n"
        "          <!-- policytool:sync begin -->\n"
        "          ```bash\n"
        "          uv pip install pre-commit>=4.5.1\n"
        "          pre-commit run --all-files\n"
        "          ```\n"
        "          <!-- policytool:sync end -->\n"
    )
    bare_repo.write(".github/mergify.yml", marked)
    bare_repo.commit()
    assert run("sync").code == 0
    text = bare_repo.read(".github/mergify.yml").decode()
    # The floor is kept, quoted so the shell no longer reads `>=4.5.1` as a redirect.
    assert "          uv pip install 'pre-commit>=4.5.1'\n" in text
    assert text.count("policytool:sync begin") == 1
    assert text.count("pre-commit run --all-files --hook-stage manual\n") == 1
    assert run("sync", "--check").code == 0


def test_crlf_mergify_file_keeps_its_line_endings(bare_repo: Repo, run: Run) -> None:
    bare_repo.write(".github/mergify.yml", BARE.replace("\n", "\r\n"))
    bare_repo.commit()
    assert run("sync").code == 0
    data = bare_repo.read(".github/mergify.yml")
    assert data.startswith(BARE.replace("\n", "\r\n").encode())
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert run("sync", "--check").code == 0


def test_no_mergify_file_no_findings_but_sync_errors(repo: Repo, run: Run) -> None:
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    repo.commit()
    assert run("check", "--only=mergify-drift").code == 0
    result = run("sync")
    assert result.code == 2
    assert (
        result.err
        == "policytool: error: .github/mergify.yml: not found; `policytool init` writes one\n"
    )


MERGIFY_RULE = '[tool.policytool.mergify]\nrule = "comment-pre-commit-failure"\n'


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ("pull_request_rules: [\n", 2, "invalid YAML"),
        ("- a\n", 1, "must be a YAML mapping"),
        ("queue_rules: []\n", 1, "no `pull_request_rules` list"),
        (
            "pull_request_rules:\n  - name: comment-pre-commit-failur\n"
            "    conditions: []\n    actions: {}\n",
            1,
            "no pull_request_rules entry named "
            "'comment-pre-commit-failure' ([tool.policytool.mergify] rule); "
            "did you mean 'comment-pre-commit-failur'?",
        ),
        (
            "pull_request_rules:\n  - name: x\n  - name: comment-pre-commit-failure\n    actions:\n"
            "      label: {add: [a]}\n",
            3,
            "has no `actions: comment: message:`",
        ),
    ],
)
def test_bad_mergify_files_are_findings_and_sync_errors(
    repo: Repo, run: Run, content: str, line: int, message: str
) -> None:
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    repo.write(".github/mergify.yml", content)
    repo.commit()
    result = run("check", "--only=mergify-drift")
    if "YAML" not in message:
        # Issue 21: a repository that never named its rule is not told that a rule named
        # after vLLM's default is missing; once it names it, it must exist.
        assert result.code == 0, result.out
        repo.write("pyproject.toml", MERGIFY_RULE)
        repo.commit()
        result = run("check", "--only=mergify-drift")
    assert rule_lines(result.out, "mergify-drift") == [(".github/mergify.yml", line)]
    assert message in result.out
    synced = run("sync")
    assert synced.code == 2
    assert synced.err.startswith(f"policytool: error: .github/mergify.yml:{line}: ")
    assert repo.read(".github/mergify.yml").decode() == content


def test_message_that_is_not_a_literal_block(repo: Repo, run: Run) -> None:
    content = (
        "pull_request_rules:\n  - name: comment-pre-commit-failure\n    conditions: []\n"
        '    actions:\n      comment:\n        message: "pre-commit failed"\n'
    )
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    repo.write(".github/mergify.yml", content)
    repo.commit()
    result = run("sync")
    assert result.code == 2
    assert "must be a literal block (`message: |`)" in result.err
    assert repo.read(".github/mergify.yml").decode() == content
    assert run("fix", "--only=mergify-drift").code == 1
    assert repo.read(".github/mergify.yml").decode() == content


def test_unbalanced_markers(mergify_repo: Repo, run: Run) -> None:
    content = MERGIFY + "          <!-- policytool:sync begin -->\n          stray\n"
    mergify_repo.write(".github/mergify.yml", content)
    mergify_repo.commit()
    result = run("sync")
    assert result.code == 2 and "unbalanced" in result.err
    assert mergify_repo.read(".github/mergify.yml").decode() == content


def test_custom_rule_name_and_file(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", '[tool.policytool.mergify]\nfile = ".mergify.yml"\nrule = "tip"\n')
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    repo.write(
        ".mergify.yml",
        "pull_request_rules:\n- name: tip\n  conditions: [check-failure=pre-commit]\n"
        "  actions:\n    comment:\n      message: |\n        Fix it.\n",
    )
    repo.commit()
    assert run("sync").out == ".mergify.yml: updated\n"
    text = repo.read(".mergify.yml").decode()
    assert text.startswith(
        "pull_request_rules:\n- name: tip\n  conditions: [check-failure=pre-commit]\n"
        "  actions:\n    comment:\n      message: |\n        Fix it.\n\n"
        "        <!-- policytool:sync begin"
    )
    assert check_jsonschema("mergify", repo.root / ".mergify.yml").returncode == 0
    assert run("check", "--only=mergify-drift").code == 0


# --- init ---------------------------------------------------------------------------------


def test_init_scaffolds_pass_every_repo_rule_and_schemas(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[project]\nname = 'x'\n")
    result = run("init")
    assert result.code == 0
    for path in (
        ".pre-commit-config.yaml",
        ".github/workflows/pre-commit.yml",
        ".github/workflows/codeql.yml",
        ".github/mergify.yml",
    ):
        assert f"{path}: created" in result.out
    repo.commit()
    check = run("check", f"--only={ONLY_REPO}")
    assert check.code == 0, check.out
    assert precommit_accepts(repo.root / ".pre-commit-config.yaml") is None
    assert check_jsonschema("mergify", repo.root / ".github/mergify.yml").returncode == 0
    workflows = check_jsonschema(
        "github-workflows",
        repo.root / ".github/workflows/pre-commit.yml",
        repo.root / ".github/workflows/codeql.yml",
    )
    assert workflows.returncode == 0, workflows.stdout
    assert run("sync", "--check").code == 0


def test_init_never_overwrites(repo: Repo, run: Run) -> None:
    repo.write(".pre-commit-config.yaml", "repos: []\n")
    repo.write(".github/workflows/codeql.yml", "# mine\n")
    result = run("init")
    assert ".pre-commit-config.yaml: exists, left alone" in result.out
    assert ".github/workflows/codeql.yml: exists, left alone" in result.out
    assert repo.read(".pre-commit-config.yaml") == b"repos: []\n"
    assert repo.read(".github/workflows/codeql.yml") == b"# mine\n"


@pytest.mark.parametrize(
    ("command", "flagged"),
    [
        ('uv pip install "pre-commit>=4.0"', True),
        ("pip install pre_commit==4.0.0", True),
        ("pip install -U pre-commit==4.0.1 ruff", False),
        ("pipx install pre-commit[extra]==4.0.1", False),
        ("pip install ruff", False),
    ],
)
def test_install_command_names_the_pinned_version(
    mergify_repo: Repo, run: Run, command: str, flagged: bool
) -> None:
    mergify_repo.write(".github/mergify.yml", MERGIFY.replace("uv pip install pre-commit", command))
    mergify_repo.commit()
    result = run("check", "--only=mergify-drift")
    assert ("should pin `pre-commit==4.0.1`" in result.out) is flagged, result.out


# --- check conditions that name no job --------------------------------------------------

PRECOMMIT_WORKFLOW = """\
on: [pull_request]
jobs:
  pre-commit:
    runs-on: ubuntu-latest
    steps:
      - uses: pre-commit/action@v3.0.1
  test:
    strategy:
      matrix:
        python: ["3.10", "3.12"]
    runs-on: ubuntu-latest
    steps:
      - run: pytest
"""


def test_check_condition_naming_no_job(mergify_repo: Repo, run: Run) -> None:
    mergify_repo.write(".github/mergify.yml", OWN_WORDS)
    mergify_repo.write(".github/workflows/lint.yml", PRECOMMIT_WORKFLOW)
    mergify_repo.commit()
    assert run("check", "--only=mergify-drift").code == 0  # check-failure=pre-commit: a job
    # The job is renamed: the comment rule is dead.
    mergify_repo.write(
        ".github/workflows/lint.yml", PRECOMMIT_WORKFLOW.replace("  pre-commit:", "  lint:")
    )
    mergify_repo.commit()
    result = run("check", "--only=mergify-drift")
    assert rule_lines(result.out, "mergify-drift") == [
        (".github/mergify.yml", line_of(OWN_WORDS, "check-failure=pre-commit"))
    ]
    assert (
        "`check-failure=pre-commit` names no job of any workflow in .github/workflows, so the "
        "pre-commit failure comment is never posted" in result.out
    )


def test_every_rules_checks_are_compared_with_the_jobs(mergify_repo: Repo, run: Run) -> None:
    # Issue 21: a `check-failure =` naming a renamed job is caught in every rule, with
    # nothing configured; well-known apps' checks (DCO, Buildkite) are known.
    rules = (
        "pull_request_rules:\n"
        "  - name: automerge\n"
        "    conditions:\n"
        "      - check-success=test (3.10)\n"
        "      - check-success=DCO\n"
        "      - check-success = buildkite/ci/pr\n"
        "      - or:\n"
        "        - check-success = tests (3.12)\n"
        "        - check-success=jenkins/pr\n"
        "        - label=ready\n"
        "    actions: {merge: {}}\n"
    )
    mergify_repo.write(".github/mergify.yml", OWN_WORDS.replace("pull_request_rules:\n", rules))
    mergify_repo.write(".github/workflows/lint.yml", PRECOMMIT_WORKFLOW)
    mergify_repo.commit()
    result = run("check", "--only=mergify-drift")
    assert rule_lines(result.out, "mergify-drift") == [
        (".github/mergify.yml", 8),
        (".github/mergify.yml", 9),
    ]
    assert "`check-success = tests (3.12)`" in result.out
    assert "did you mean 'test (3.12)'" in result.out
    assert "so rule 'automerge' never matches" in result.out
    mergify_repo.write(
        "pyproject.toml",
        '[tool.policytool.ci]\nskip-reasons = { "mypy-3.12" = "slow" }\n'
        '[tool.policytool.mergify]\nexternal-checks = ["jenkins/*"]\n',
    )
    mergify_repo.commit()
    result = run("check", "--only=mergify-drift")
    assert rule_lines(result.out, "mergify-drift") == [(".github/mergify.yml", 8)]


def test_universal_lock_pins_the_newest_pre_commit_compared_as_versions(tmp_path: Path) -> None:
    """A universal lock pins one pre-commit per Python range; the tip names the newest.

    Compared as versions: 4.10.0 is newer than 4.9.0 although it sorts lower as text.
    """
    from policytool.config import Config
    from policytool.rules.mergify_drift import pinned_precommit

    (tmp_path / "requirements").mkdir()
    lock = tmp_path / "requirements" / "test.txt"
    config = Config(
        root=tmp_path,
        sections=(LockConfig("test", ("requirements/test.in",), "requirements/test.txt"),),
    )
    for older, newer in (("4.6.2", "4.7.0"), ("4.9.0", "4.10.0")):
        lock.write_text(
            f"pre-commit=={older} ; python_full_version < '3.11'\n"
            "    # via -r requirements/test.in\n"
            f"pre-commit=={newer} ; python_full_version >= '3.11'\n"
            "    # via -r requirements/test.in\n"
        )
        assert pinned_precommit(config) == newer


# Issue 21: a repository that never configured the rule, whose own tip lives in a rule of
# another name, next to a DCO comment that gives no instructions.
OWN_TIP = """\
pull_request_rules:
  - name: tell-author-about-lint
    conditions:
      - check-failure = lint
    actions:
      comment:
        message: |
          Linting failed. Run `pre-commit run --all-files --hook-stage manual`, and for
          markdown `pre-commit run markdownlint --all-files` before you push.
  - name: dco
    conditions:
      - check-failure=DCO
    actions:
      comment:
        message: Please sign off your commits.
"""


def test_unconfigured_reads_the_repositorys_own_tip_rules(mergify_repo: Repo, run: Run) -> None:
    mergify_repo.write(".github/mergify.yml", OWN_TIP)
    mergify_repo.write(".github/workflows/lint.yml", PRECOMMIT_WORKFLOW)
    mergify_repo.commit()
    result = run("check", "--only=mergify-drift")
    assert "comment-pre-commit-failure" not in result.out  # no rule named after vLLM's
    assert "'dco'" not in result.out and "DCO" not in result.out
    assert rule_lines(result.out, "mergify-drift") == [
        (".github/mergify.yml", 4),
        (".github/mergify.yml", 9),
    ]
    assert "`check-failure = lint` names no job" in result.out
    assert "so the pre-commit failure comment is never posted" in result.out
    assert "names hook 'markdownlint', which is not in .pre-commit-config.yaml" in result.out
    assert "did you mean 'markdownlint-cli2'?" in result.out


# docling's newer Mergify sections: merge protections, their settings, queue rules.
PROTECTIONS = """\
merge_protections:
  - name: Require three reviewers for breaking changes
    if:
      - base = main
      - "title ~= !:"
    success_conditions:
      - "#approved-reviews-by >= 3"
      - check-success = tests
      - or:
          - check-success = lint
          - check-skipped = lint
merge_protections_settings:
  reporting_method: check-runs
  auto_merge_conditions:
    - check-success = build
queue_rules:
  - name: default
    queue_conditions:
      - check-success=lint
    merge_conditions:
      - status-success=docs
"""


def test_check_names_are_read_in_merge_protections_and_queue_rules(
    mergify_repo: Repo, run: Run
) -> None:
    """A check name in `merge_protections` (docling), `auto_merge_conditions` or
    `queue_rules` that no job reports is reported with what it does there."""
    mergify_repo.write(".github/mergify.yml", PROTECTIONS)
    mergify_repo.write(
        ".github/workflows/lint.yml", PRECOMMIT_WORKFLOW.replace("pre-commit:", "lint:")
    )
    mergify_repo.commit()
    result = run("check", "--only=mergify-drift")
    found = [line for line in result.out.splitlines() if " mergify-drift " in line]
    assert [line.split(" mergify-drift ")[0] for line in found] == [
        ".github/mergify.yml:8:1:",
        ".github/mergify.yml:15:1:",
        ".github/mergify.yml:21:1:",
    ], result.out
    assert "`check-success = tests` names no job" in found[0]
    assert (
        "so merge protection 'Require three reviewers for breaking changes' never passes"
        in (found[0])
    )
    assert "`check-success = build` names no job" in found[1]
    assert "so auto-merge never applies" in found[1]
    assert "`status-success=docs` names no job" in found[2]
    assert "so queue 'default' never merges" in found[2]


# --- the in-place mend, as properties (issue 21 item 10) -------------------------------

_HOOKS = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4})?", fullmatch=True).filter(
    lambda h: h not in ("manual", "run", "commit")
)
_FLAGS = st.lists(
    st.sampled_from(["--all-files", "-a", "--verbose", "--show-diff-on-failure", "--color=always"]),
    max_size=3,
)
_PROSE = st.lists(st.sampled_from(["Please", "run:", "then", "push.", "(mypy)", "->"]), max_size=3)


@given(
    hook=_HOOKS,
    rename=st.one_of(st.none(), _HOOKS),
    flags=_FLAGS,
    at=st.integers(0, 3),
    old_stage=st.sampled_from([None, "manual", "pre-commit"]),
    stage=st.sampled_from([None, "manual", "pre-commit"]),
    before=_PROSE,
    after=_PROSE,
    inline=st.booleans(),
)
@settings(max_examples=300, deadline=None)
def test_mend_command_changes_only_the_hook_and_stage(
    hook: str,
    rename: str | None,
    flags: list[str],
    at: int,
    old_stage: str | None,
    stage: str | None,
    before: list[str],
    after: list[str],
    inline: bool,
) -> None:
    from policytool.formats.precommit_run import parse_run_commands
    from policytool.rules.mergify_drift import mend_command

    args = list(flags)
    if old_stage is not None:
        args.insert(min(at, len(args)), f"--hook-stage {old_stage}")
    args.insert(min(at, len(args)), hook)
    command = " ".join(["pre-commit", "run", *args])
    head = " ".join(before) + (" " if before else "")
    tail = (" " if after else "") + " ".join(after)
    text = f"{head}`{command}`{tail}" if inline else f"{command}"
    mended = mend_command(text, 0, hook, rename, stage)
    assert mended is not None
    # Every other character stays: the prose around it, the other arguments in order.
    if inline:
        assert mended.startswith(head + "`pre-commit run") and mended.endswith("`" + tail)
    changed = (hook, rename, "--hook-stage", old_stage, stage)
    new_args = mended.split("`")[1 if inline else 0].split()[2:]
    assert [a for a in new_args if a not in changed] == [
        a for a in " ".join(args).split() if a not in changed
    ]
    # The mended command reads as meant: the new hook, the wanted stage, the same scope.
    ((_, parsed),) = parse_run_commands(mended)
    (_, original), *_ = parse_run_commands(text)
    assert parsed.hook == rename
    assert parsed.stage == (stage or old_stage)
    assert parsed.all_files == original.all_files
    # Idempotent: mending the mended command to the same target changes nothing.
    assert mend_command(mended, 0, rename, rename, stage) == mended if rename else True
    assert mend_command(mended, 0, None, None, stage) == mended


@given(
    pin=st.from_regex(r"[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{1,2}", fullmatch=True),
    token=st.sampled_from(["pre-commit", "pre-commit>=3", "'pre-commit>=4.5.1'", "pre_commit"]),
    installer=st.sampled_from(["pip install", "uv pip install", "pipx install", "pip3 install -U"]),
    extra=st.sampled_from(["", " pre-commit-hooks", " tox"]),
)
@settings(max_examples=200, deadline=None)
def test_mend_install_pins_only_the_pre_commit_word(
    pin: str, token: str, installer: str, extra: str
) -> None:
    from policytool.rules.mergify_drift import _INSTALL_RE, mend_install

    line = f"    {installer} {token}{extra}  # then run it"
    match = _INSTALL_RE.search(line)
    assert match is not None
    start, end = match.span("args")
    mended = mend_install(line, start, end, token, pin)
    assert mended == line.replace(f" {token}", f" pre-commit=={pin}", 1)
    again = _INSTALL_RE.search(mended)
    assert again is not None
    assert mend_install(mended, *again.span("args"), f"pre-commit=={pin}", pin) == mended


@pytest.mark.parametrize(
    "path", [".mergify.yml", ".mergify.yaml", ".mergify/config.yml", ".github/mergify.yaml"]
)
def test_unconfigured_reads_the_file_mergify_reads(repo: Repo, run: Run, path: str) -> None:
    # tenacity keeps `.mergify.yml`; nothing configures `[tool.policytool.mergify] file`.
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    repo.write("requirements/lint.txt", "pre-commit==4.0.1\n")
    repo.write(path, MERGIFY)
    repo.commit()
    result = run("check", "--only=mergify-drift")
    assert result.code == 1
    assert (path, line_of(MERGIFY, "mypy-3.10")) in rule_lines(result.out, "mergify-drift")


def test_the_first_name_mergify_reads_wins_and_init_adds_no_second(repo: Repo, run: Run) -> None:
    # Mergify reads `.mergify.yml` before `.github/mergify.yml`; a second file would stop it.
    repo.write(".mergify.yml", MERGIFY)
    repo.write(".github/mergify.yml", "pull_request_rules: []\n")
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    repo.write("requirements/lint.txt", "pre-commit==4.0.1\n")
    repo.commit()
    result = run("check", "--only=mergify-drift")
    lines = rule_lines(result.out, "mergify-drift")
    # The drift findings are all in the file Mergify reads; the second file is one finding.
    assert {path for path, _ in lines} == {".mergify.yml", ".github/mergify.yml"}
    assert [line for path, line in lines if path == ".github/mergify.yml"] == [1]
    assert "a second Mergify configuration next to .mergify.yml" in result.out


def test_one_mergify_config_is_no_second_config_finding(repo: Repo, run: Run) -> None:
    repo.write(".mergify/config.yml", "pull_request_rules: []\n")
    repo.commit()
    assert "second Mergify" not in run("check", "--only=mergify-drift").out


def test_init_writes_no_second_mergify_config(repo: Repo, run: Run) -> None:
    # A fresh repository (no pre-commit, no workflows) with `.mergify/config.yml`.
    repo.write(".mergify/config.yml", "pull_request_rules: []\n")
    repo.commit()
    assert run("init").code == 0
    assert not (repo.root / ".github" / "mergify.yml").exists()
