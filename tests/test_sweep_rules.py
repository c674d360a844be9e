# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The five sweep patterns are rules of the one registry, scoped to the lines a change adds:
each registered by its own module under policytool/rules/ with its doc, refused by ``check --only``, reported
through the shared reporters (markdown with the Code quality row)."""

from __future__ import annotations

import json
from pathlib import Path

from policytool.engine import registry
from policytool.engine.findings import (
    Finding,
    Folded,
    Severity,
    group_repeats,
    quality_row,
    render,
    render_marked_text,
)
from policytool.engine.registry import DOC_SECTIONS, SCOPE_ADDED_LINES
from policytool.engine.source import SourceFile
from tests.conftest import Repo
from tests.sweep_fixture import Run

SWEEP_IDS = ("kwargs-lookup", "broad-except", "any-annotation", "hot-copy", "async-blocking")


def test_the_patterns_are_registered_file_rules_scoped_to_added_lines() -> None:
    rules = registry.file_rules(SWEEP_IDS)
    for rule_id in SWEEP_IDS:
        rule = rules[rule_id]
        assert rule.scope == SCOPE_ADDED_LINES
        module = rule_id.replace("-", "_")
        assert registry.RULE_INDEX[rule_id] == (module, "sweep")
        assert rule.check.__module__ == f"policytool.rules.{module}"
        headers = [line[3:] for line in rule.doc.splitlines() if line.startswith("## ")]
        assert headers == list(DOC_SECTIONS), rule_id
        assert "✗" in rule.doc and "⚠" in rule.doc


def test_the_sweep_keeps_no_second_list_of_its_rules() -> None:
    """The sweep runs the registry's group "sweep", in the index's order; no module of
    policytool/sweep/ names the rules (one of them may name the one it special-cases)."""
    import ast

    from policytool.sweep.run import sweep_rule_ids, sweep_rules

    assert tuple(sweep_rule_ids()) == SWEEP_IDS
    assert tuple(rule.id for rule in sweep_rules()) == SWEEP_IDS
    package = Path(__file__).resolve().parents[1] / "policytool" / "sweep"
    for path in sorted(package.glob("*.py")):
        named = {
            node.value
            for node in ast.walk(ast.parse(path.read_bytes()))
            if isinstance(node, ast.Constant) and node.value in SWEEP_IDS
        }
        assert len(named) <= 1, (path.name, sorted(named))


def test_a_registered_check_runs_on_a_whole_file_outside_a_sweep() -> None:
    """The registry entry is the real check: given a plain SourceFile it looks at every line."""
    from policytool.config import Config

    data = b"def f() -> None:\n    try:\n        pass\n    except Exception:\n        pass\n"
    source = SourceFile("pkg/a.py", "pkg/a.py", data, "python")
    rule = registry.file_rules(["broad-except"])["broad-except"]
    found = list(rule.check(source, Config()))
    assert [(f.line, f.rule) for f in found] == [(4, "broad-except")]


def test_check_only_a_sweep_rule_is_refused_in_one_sentence(repo: Repo, run: Run) -> None:
    repo.write(
        "a.py", "def f() -> None:\n    try:\n        pass\n    except Exception:\n        pass\n"
    )
    repo.commit("a")
    for rule_id in SWEEP_IDS:
        result = run("check", "--only", rule_id, "a.py")
        assert result.code == 2, result.out
        assert result.err.count("\n") == 1 and "Traceback" not in result.err
        assert f"--only {rule_id}: a sweep rule checks only the lines a change adds" in result.err
        assert "policytool sweep" in result.err
    assert run("fix", "--only", "hot-copy", "a.py").code == 2


def test_plain_check_does_not_run_the_sweep_rules(repo: Repo, run: Run) -> None:
    repo.write(
        "a.py", "def f() -> None:\n    try:\n        pass\n    except Exception:\n        pass\n"
    )
    repo.commit("a")
    result = run("check", "--format", "json", "a.py")
    assert not [f for f in json.loads(result.out) if f["rule"] in SWEEP_IDS]
    assert run("check", "--skip", "broad-except", "a.py").code in (0, 1)


def test_rules_lists_them_as_sweep_rules_with_their_scope(run: Run) -> None:
    infos = {i["id"]: i for i in json.loads(run("rules", "--format", "json").out)}
    for rule_id in SWEEP_IDS:
        assert infos[rule_id]["command"] == "sweep"
        assert infos[rule_id]["scope"] == "added-lines"
        assert infos[rule_id]["doc"].startswith("## What it checks\n")
    assert infos["spdx-header"]["scope"] == "file"


def _f(path: str, line: int, rule: str, message: str, error: bool = False) -> Finding:
    severity = Severity.ERROR if error else Severity.WARNING
    return Finding(path, line, 1, rule, message, severity)


def test_repeats_of_one_rule_and_message_are_folded_after_the_cap() -> None:
    many = [_f(f"t/test_{i % 3}.py", i, "any-annotation", "same", True) for i in range(1, 13)]
    other = _f("a.py", 1, "hot-copy", "different")
    grouped = group_repeats([other, *many], cap=2)
    assert grouped[:3] == [other, many[0], many[1]]
    assert grouped[3] == Folded("any-annotation", "same", Severity.ERROR, 10, 3)
    assert len(grouped) == 4
    assert group_repeats(many, cap=0) == many
    text = render_marked_text([other, *many], cap=2, quiet=True)
    assert "... 10 more any-annotation ✗ with the same message in 3 files" in text
    assert text.splitlines()[-1] == "| Code quality | 1 ⚠ | 12 ✗ |"


def test_markdown_reporter_row_escaping_and_notes() -> None:
    findings = [
        _f("a|b.py", 3, "broad-except", "`except Exception:` a | b", error=True),
        _f("c.py", 1, "hot-copy", "x"),
        _f("d.py", 1, "syntax-error", "cannot parse", error=True),
    ]
    out = render(findings, "markdown", {"broad-except": "broad catches"})
    assert out.startswith("## policytool findings\n")
    # check's report: its row is the policy dimension; the sweep's is the seed's Code quality.
    assert out.rstrip("\n").splitlines()[-1] == "| Policy | 1 ⚠ | 2 ✗ |"
    assert "| ✗ | `a\\|b.py:3` | `except Exception:` a \\| b |" in out
    from policytool.engine.findings import render_markdown

    noted = render_markdown(findings, {}, notes=frozenset({"syntax-error"}))
    assert noted.rstrip("\n").splitlines()[-1] == "| Code quality | 1 ⚠ | 1 ✗ |"
    assert "### Not checked\n\n- ✗ `d.py:1` syntax-error: cannot parse" in noted
    assert quality_row([]) == "| Code quality | 0 ⚠ | 0 ✗ |"


def test_check_has_the_markdown_format_too(repo: Repo, run: Run, tmp_path: Path) -> None:
    repo.write("pyproject.toml", '[tool.policytool.spdx]\nlicense = "MIT"\n')
    repo.write("a.py", "x = 1\n")
    repo.commit("a")
    result = run("check", "--only", "spdx-header", "--format", "markdown", "a.py")
    assert result.code == 1
    assert "| `spdx-header` | 0 | 1 |" in result.out
    assert result.out.rstrip("\n").splitlines()[-1] == "| Policy | 0 ⚠ | 1 ✗ |"
    assert "Code quality" not in result.out
