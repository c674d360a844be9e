# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""ruff's conventions where they fit: ``fix --diff``, ``--exit-zero``, ``-v``, SARIF rules
with their page and full help, and a progress line only on runs longer than a second."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policytool.cli import progress_printer
from tests.conftest import Repo, Result

Run = Callable[..., Result]
SPDX = '[tool.policytool.spdx]\nlicense = "MIT"\n'


def test_fix_diff_shows_the_edit_and_writes_nothing(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", SPDX)
    repo.write("a.py", "x = 1\n")
    repo.write("b.py", "# SPDX-License-Identifier: MIT\ny = 2\n")
    repo.commit()
    result = run("fix", "--diff")
    assert result.code == 1
    assert result.out == (
        "--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n+# SPDX-License-Identifier: MIT\n x = 1\n"
    )
    assert result.err == "would fix 1 file\n"
    assert repo.read("a.py") == b"x = 1\n"
    assert repo.git("status", "--porcelain") == ""
    assert run("fix", "--diff", "--exit-zero").code == 0
    # After the real fix there is nothing left to show.
    assert run("fix").code == 1
    after = run("fix", "--diff")
    assert (after.code, after.out, after.err) == (0, "", "nothing to fix\n")


def test_writes_are_made_again_after_a_diff_run(repo: Repo, run: Run) -> None:
    """The recording ends with the `fix --diff` run: a later fix in the process writes."""
    repo.write("pyproject.toml", SPDX)
    repo.write("a.py", "x = 1\n")
    repo.commit()
    run("fix", "--diff")
    run("fix")
    assert repo.read("a.py").startswith(b"# SPDX-License-Identifier: MIT\n")


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.lists(
        st.sampled_from(
            [
                "x = 1",
                "#!/usr/bin/env python",
                "# -*- coding: utf-8 -*-",
                "",
                '"""doc"""',
                "# SPDX-License-Identifier: Apache-2.0",
            ]
        ),
        min_size=0,
        max_size=5,
    ),
    newline=st.sampled_from(["\n", "\r\n"]),
    final=st.booleans(),
)
def test_fix_diff_applied_is_what_fix_writes(
    repo: Repo, run: Run, tmp_path: Path, body: list[str], newline: str, final: bool
) -> None:
    """Property: `git apply` of the `fix --diff` output gives the bytes `fix` writes."""
    text = newline.join(body) + (newline if final and body else "")
    repo.write("pyproject.toml", SPDX)
    repo.write("a.py", text.encode())
    repo.commit()
    diff = run("fix", "--diff").out
    assert repo.read("a.py") == text.encode()
    if diff:
        patch = tmp_path / "fix.diff"
        patch.write_bytes(diff.encode())
        subprocess.run(
            ["git", "apply", "--whitespace=nowarn", str(patch)], cwd=repo.root, check=True
        )
        applied = repo.read("a.py")
        repo.git("checkout", "--", "a.py")
    else:
        applied = text.encode()
    run("fix")
    assert applied == repo.read("a.py")
    repo.git("checkout", "--", "a.py")


def test_check_exit_zero_keeps_the_findings_but_not_the_exit_code(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", SPDX)
    repo.write("a.py", "x = 1\n")
    repo.commit()
    assert run("check").code == 1
    result = run("check", "--exit-zero")
    assert result.code == 0 and "spdx-header" in result.out
    # An error is still an error.
    repo.write("pyproject.toml", SPDX + "nope = 1\n")
    assert run("check", "--exit-zero").code == 2


def test_verbose_names_the_config_and_the_counts(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", SPDX)
    repo.write("a.py", "x = 1\n")
    repo.commit()
    result = run("check", "-v")
    assert result.code == 1
    (line,) = [line for line in result.err.splitlines() if line.startswith("policytool: config")]
    assert line.startswith(
        f"policytool: config {repo.root / 'pyproject.toml'}; files checked: 2; findings: 1;"
    )
    assert "policytool: config" not in run("check").err


def test_sarif_rules_link_their_page_and_carry_their_documentation(repo: Repo, run: Run) -> None:
    from policytool.engine.registry import rule_infos

    repo.write("pyproject.toml", SPDX)
    repo.write("a.py", "x = 1\n")
    repo.commit()
    sarif = json.loads(run("check", "--format", "sarif").out)
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    spdx = rules["spdx-header"]
    assert spdx["helpUri"] == (
        "https://github.com/policytool/policytool/blob/main/docs/rules/spdx-header.md"
    )
    doc = rule_infos()["spdx-header"].doc
    assert spdx["help"] == {"text": doc, "markdown": doc}
    assert "## What it checks" in doc
    # Every helpUri names a page this repository has.
    root = Path(__file__).resolve().parent.parent
    for rule in rules.values():
        assert (root / rule["helpUri"].split("/blob/main/")[1]).is_file(), rule["id"]


def test_rule_page_url_names_the_release_tag_for_a_release() -> None:
    from policytool.engine.findings import rule_page_url

    assert rule_page_url("x", "1.2.3").endswith("/blob/v1.2.3/docs/rules/x.md")
    assert rule_page_url("x", "1.2.4.dev0").endswith("/blob/main/docs/rules/x.md")


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_line_only_after_a_second(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    clock = _Clock()
    show = progress_printer(False, clock=clock)
    assert show is not None
    for done in range(1, 16):  # a 15-file run in 0.4 s: nothing at all
        clock.now = done * 0.4 / 15
        show(done, 15)
    assert capsys.readouterr().err == ""
    clock = _Clock()
    show = progress_printer(False, clock=clock)
    assert show is not None
    show(1, 3)
    clock.now = 1.5
    show(2, 3)
    show(3, 3)
    assert capsys.readouterr().err == "\rpolicytool: 2/3 files\r\x1b[K"
    assert progress_printer(True) is None


# --- hooks in a consumer repository ------------------------------------------------------


def test_under_pre_commit_a_hook_call_prints_its_findings_only(
    repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pre-commit (PRE_COMMIT=1) calls a hook once per batch of files: no batch prints a
    summary, so a failing hook's output is its findings, not "no findings in 4 files"."""
    repo.write("pyproject.toml", SPDX)
    repo.write("a.py", "# SPDX-License-Identifier: MIT\nx = 1\n")
    repo.write("b.py", "y = 2\n")
    repo.commit()
    assert run("check", "a.py").out == "no findings in 1 file\n"  # by hand: the summary
    monkeypatch.setenv("PRE_COMMIT", "1")
    clean = run("check", "--only", "spdx-header", "a.py")
    assert (clean.code, clean.out) == (0, "")
    bad = run("check", "--only", "spdx-header", "b.py")
    assert bad.code == 1
    assert (
        bad.out
        == "b.py:1:1: spdx-header missing `SPDX-License-Identifier: MIT` in the file header\n"
    )


def test_the_manual_sweep_hook_shows_its_warnings() -> None:
    """A passing hook's output shows only when it is verbose: sweep's ⚠ warnings pass."""
    import yaml

    root = Path(__file__).resolve().parent.parent
    hooks = {h["id"]: h for h in yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["sweep"]["stages"] == ["manual"]
    assert hooks["sweep"]["verbose"] is True


BOTH_VARIANTS = """\
repos:
  - repo: https://github.com/policytool/policytool
    rev: v0.1.0
    hooks:
      - id: spdx-header-fix
      - id: spdx-header
"""


def test_a_fix_hook_beside_its_check_hook_reports_only_what_it_changed(
    repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With both variants in the config, the check hook reports the findings, once."""
    repo.write("pyproject.toml", SPDX)
    repo.write("a.py", "x = 1\n")  # fixable
    repo.write("b.sh", "")
    repo.write("c.py", "# SPDX-License-Identifier: BSD-3-Clause\ny = 2\n")  # not fixable
    repo.commit()
    monkeypatch.setenv("PRE_COMMIT", "1")
    alone = run("fix", "--only", "spdx-header", "--check-hook", "spdx-header", "c.py")
    assert "c.py:1:1: spdx-header license is 'BSD-3-Clause'" in alone.out  # no sibling
    repo.write(".pre-commit-config.yaml", BOTH_VARIANTS)
    fixed = run("fix", "--only", "spdx-header", "--check-hook", "spdx-header", "a.py", "c.py")
    assert (fixed.code, fixed.out, fixed.err) == (1, "", "fixed a.py\n")
    again = run("fix", "--only", "spdx-header", "--check-hook", "spdx-header", "a.py", "c.py")
    assert (again.code, again.out) == (0, "")
    checked = run("check", "--only", "spdx-header", "a.py", "c.py")
    assert checked.code == 1 and checked.out.count("spdx-header") == 1


def test_every_fix_hook_names_its_check_hook() -> None:
    """A `-fix` hook whose check variant is published names it with --check-hook."""
    import shlex

    import yaml

    root = Path(__file__).resolve().parent.parent
    hooks = {h["id"]: h for h in yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())}
    for hook_id, hook in hooks.items():
        if not hook_id.endswith("-fix"):
            continue
        args = shlex.split(hook["entry"])
        sibling = hook_id.removesuffix("-fix")
        assert args[:2] == ["policytool", "fix"], hook_id
        assert args[args.index("--check-hook") + 1] == sibling, hook_id
        assert hooks[sibling]["entry"].startswith("policytool check"), hook_id
