# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The ``precommit-*`` fixers return edits (fixes as data) and the engine writes them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from policytool.config import Config
from policytool.engine.registry import RepoContext, repo_rules
from policytool.rules import precommit_default_stages, precommit_final_hook, precommit_manual_only
from policytool.rules._repo_config import PreCommitConfig
from tests.conftest import Repo, Result

Run = Callable[..., Result]
FIXERS = ("precommit-final-hook", "precommit-default-stages", "precommit-manual-only")
ONLY = "--only=" + ",".join(FIXERS)

CONFIG = """\
# hooks
repos:
  - repo: local
    hooks:
      - id: last
        name: last
        entry: echo
        language: system
      # slow one
      - id: slow
        name: slow
        entry: echo
        language: system
"""

POLICY = """\
[tool.policytool.pre-commit]
final-hook = "last"
default-stages = ["pre-commit", "manual"]
manual-only = ["slow"]
"""

# The three fixes one after the other, each on the text the previous one wrote.
FIXED = """\
# hooks
default_stages: [pre-commit, manual]
repos:
  - repo: local
    hooks:
      # slow one
      - id: slow
        stages: [manual]
        name: slow
        entry: echo
        language: system
      - id: last
        name: last
        entry: echo
        language: system
"""


@pytest.fixture
def violating(repo: Repo) -> Repo:
    """A repo whose config breaks all three fixable rules."""
    repo.write("pyproject.toml", POLICY)
    repo.write(".pre-commit-config.yaml", CONFIG)
    repo.commit()
    return repo


def test_precommit_fixers_return_fixes_not_writes() -> None:
    rules = repo_rules(list(FIXERS))
    for rule_id in FIXERS:
        assert rules[rule_id].fixes is not None, rule_id
        assert not hasattr(rules[rule_id], "fix"), rule_id


def test_one_fix_run_chains_the_three_fixes_in_index_order(violating: Repo, run: Run) -> None:
    result = run("fix", ONLY)
    assert (result.code, result.out, result.err) == (
        1,
        "no findings\n",
        "fixed .pre-commit-config.yaml\n",
    )
    assert violating.read(".pre-commit-config.yaml").decode() == FIXED
    assert run("check", ONLY).code == 0


def test_each_fixer_returns_one_verified_edit(violating: Repo) -> None:
    config = Config(
        root=violating.root,
        sections=(
            PreCommitConfig(
                final_hook="last", default_stages=("pre-commit", "manual"), manual_only=("slow",)
            ),
        ),
    )
    ctx = RepoContext(config, [], True)
    for fixes in (
        precommit_final_hook.fixes_final_hook,
        precommit_default_stages.fixes_default_stages,
        precommit_manual_only.fixes_manual_only,
    ):
        (finding,) = list(fixes(ctx))
        fix = finding.fix
        assert fix is not None and fix.verify is not None
        (edit,) = fix.edits
        assert edit.path == ".pre-commit-config.yaml"
        new = CONFIG[: edit.start] + edit.new + CONFIG[edit.end :]
        assert fix.verify(CONFIG, new) is None
        # Read before someone else changed the file: refused.
        assert fix.verify(CONFIG + "# later\n", new) is not None
        # An edit that drops a hook: refused.
        dropped = new.replace("- id: slow", "- id: other").replace("name: slow", "name: other")
        assert fix.verify(CONFIG, dropped) is not None
    assert violating.read(".pre-commit-config.yaml").decode() == CONFIG  # nothing written


def test_read_only_config_is_left_with_the_reason(violating: Repo, run: Run) -> None:
    path = violating.root / ".pre-commit-config.yaml"
    path.chmod(0o444)
    try:
        result = run("fix", ONLY)
    finally:
        path.chmod(0o644)
    assert result.code == 1, result.out + result.err
    assert "(not fixed: it is read-only" in result.out
    assert "Traceback" not in result.err
    assert violating.read(".pre-commit-config.yaml").decode() == CONFIG
