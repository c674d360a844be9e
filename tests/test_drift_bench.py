# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""bench/drift_recall.py on a tiny local repository: its injections and one whole run.

The bench runs on real GitHub repositories (docs/first-run.md); these tests keep its
machinery honest offline, so a broken injection cannot pass as a missed drift.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from tests.bench_modules import load_bench
from tests.conftest import GIT_ENV, Result

HERE = Path(__file__).resolve().parent.parent / "bench" / "drift_recall.py"


def _bench() -> ModuleType:
    return load_bench("drift_recall")


dr = _bench()

WORKFLOW = """\
name: lint
on:
  push:
  pull_request:
    branches: [main]
permissions: {}
jobs:
  pre-commit:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
      - name: Run pre-commit
        run: |
          pip install pre-commit==4.5.0
          pre-commit run --all-files
"""
PRECOMMIT = """\
repos:
-   repo: https://github.com/codespell-project/codespell
    rev: v2.4.1
    hooks:
    -   id: codespell
        args: [-w]
"""
FILES = {
    "pyproject.toml": '[project]\nname = "tiny"\nversion = "1"\n',
    "tiny/__init__.py": "",
    ".pre-commit-config.yaml": PRECOMMIT,
    ".github/workflows/lint.yml": WORKFLOW,
    "Dockerfile": "FROM python:3.12-slim\nRUN pip install tiny==1 requests\n",
}


def _tree(root: Path) -> Path:
    for relpath, text in FILES.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("drift", "check"),
    [
        (
            {
                "how": "new-step",
                "target": ".github/workflows/lint.yml",
                "step": "- run: pip install ruff",
            },
            lambda doc: doc["jobs"]["pre-commit"]["steps"][0] == {"run": "pip install ruff"},
        ),
        (
            {
                "how": "step-key",
                "target": ".github/workflows/lint.yml",
                "line": "pre-commit run --all-files",
                "key": "continue-on-error",
                "value": "true",
            },
            lambda doc: doc["jobs"]["pre-commit"]["steps"][1]["continue-on-error"] is True,
        ),
        (
            {
                "how": "job-key",
                "target": ".github/workflows/lint.yml",
                "line": "pre-commit run",
                "key": "if",
                "value": "false",
            },
            lambda doc: doc["jobs"]["pre-commit"]["if"] is False,
        ),
        (
            {
                "how": "delete-line",
                "target": ".github/workflows/lint.yml",
                "line": "^  pull_request:",
            },
            lambda doc: list(doc[True]) == ["push"],
        ),
        (
            {
                "how": "line-suffix",
                "target": ".github/workflows/lint.yml",
                "line": "pre-commit run --all",
                "suffix": " || true",
            },
            lambda doc: doc["jobs"]["pre-commit"]["steps"][1]["run"].endswith(
                "--all-files || true\n"
            ),
        ),
        (
            {
                "how": "step-key",
                "target": ".pre-commit-config.yaml",
                "line": "repo: https://github.com/codespell",
                "key": "rev",
                "value": "main",
            },
            lambda doc: doc["repos"][0]["rev"] == "main",
        ),
        (
            {"how": "dup-line", "target": ".pre-commit-config.yaml", "line": r"id: codespell"},
            lambda doc: [h["id"] for h in doc["repos"][0]["hooks"]] == ["codespell", "codespell"],
        ),
        (
            {"how": "hook-after-final", "target": ".pre-commit-config.yaml"},
            lambda doc: doc["repos"][-1]["hooks"][-1]["id"] == "late-hook",
        ),
        (
            {
                "how": "replace",
                "target": ".pre-commit-config.yaml",
                "old": "v2.4.1",
                "new": "v2.4.0",
            },
            lambda doc: doc["repos"][0]["rev"] == "v2.4.0",
        ),
    ],
)
def test_injections_keep_yaml_valid_and_change_what_they_say(
    tmp_path: Path, drift: dict[str, str], check: object
) -> None:
    root = _tree(tmp_path)
    touched = dr.inject(root, {"id": "d", "rule": "r", "what": "w", **drift})
    assert touched == [drift["target"]]
    doc = yaml.safe_load((root / drift["target"]).read_text(encoding="utf-8"))
    assert callable(check) and check(doc), (root / drift["target"]).read_text(encoding="utf-8")


def test_an_injection_that_finds_nothing_is_a_harness_error(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with pytest.raises(dr.HarnessError, match="no line matches"):
        dr.inject(
            root,
            {
                "id": "d",
                "how": "line-suffix",
                "target": "Dockerfile",
                "line": "nope",
                "suffix": "x",
            },
        )
    with pytest.raises(dr.HarnessError, match="not found"):
        dr.inject(
            root, {"id": "d", "how": "replace", "target": "Dockerfile", "old": "nope", "new": "x"}
        )


def test_labels_match_rule_path_glob_and_message() -> None:
    labels = [
        {"rule": "action-pin", "path": ".github/*", "match": "tag", "label": "true", "reason": "r"},
        {"rule": "action-pin", "path": "*", "label": "false", "reason": "r"},
    ]
    pinned = {"rule": "action-pin", "path": ".github/workflows/a.yml", "message": "on a tag"}
    other = {"rule": "action-pin", "path": "action.yml", "message": "on a tag"}
    assert dr.label_of(pinned, labels) is labels[0]
    assert dr.label_of(other, labels) is labels[1]
    assert dr.label_of({**pinned, "rule": "mypy-wired"}, labels) is None


def test_a_whole_run_from_a_mirror_caches_labels_and_catches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Callable[..., Result]
) -> None:
    """Upstream in a bare "mirror", fetched into the cache, run, drifts judged, docs written.

    policytool runs in-process here (the bench runs it as a command) to keep the test fast.
    """

    def in_process(_tool: object, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
        monkeypatch.chdir(cwd)
        result = run(*args)
        return subprocess.CompletedProcess(list(args), result.code, result.out, result.err)

    monkeypatch.setattr(dr.Tool, "run", in_process)
    monkeypatch.setattr(dr, "WORK", tmp_path / "work")
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    upstream = _tree(tmp_path / "upstream")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=upstream, check=True)
    subprocess.run(["git", "add", "-A"], cwd=upstream, check=True)
    subprocess.run(["git", "commit", "-qm", "up"], cwd=upstream, check=True)
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=upstream, capture_output=True, text=True, check=True
    ).stdout.strip()
    mirror = tmp_path / "mirror"
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(upstream), str(mirror / "o+tiny" / "repo")], check=True
    )
    corpus = tmp_path / "corpus.json"
    entry = {
        "name": "tiny",
        "repo": "o/tiny",
        "commit": commit,
        "findings": [
            {
                "rule": "ci-floating-install",
                "path": "Dockerfile",
                "label": "false",
                "reason": "r",
                "cause": "issue 9 item 4 (requests on purpose)",
            }
        ],
        "init": {
            "wanted": [{"what": "a lock", "marker": "tool\\.policytool\\.lock", "cause": "c5"}]
        },
        "drifts": [
            {
                "id": "pip",
                "how": "new-step",
                "target": ".github/workflows/lint.yml",
                "step": "- run: pip install ruff",
                "rule": "ci-floating-install",
                "what": "pip",
            },
            {
                "id": "gone",
                "how": "replace",
                "target": "Dockerfile",
                "old": "absent",
                "new": "x",
                "rule": "r",
                "what": "w",
            },
        ],
    }
    corpus.write_text(json.dumps({"repos": [entry]}), encoding="utf-8")
    docs = tmp_path / "first-run.md"
    docs.write_text(f"# t\n{dr.BEGIN}\nold\n{dr.END}\ntail\n", encoding="utf-8")
    args = ["--corpus", str(corpus), "--cache", str(tmp_path / "cache"), "--mirror", str(mirror)]
    code = dr.main([*args, "--write-docs", str(docs)])
    assert code == 1  # the drift that cannot be injected is a harness error, not a miss
    text = docs.read_text(encoding="utf-8")
    assert "old" not in text and text.endswith(f"{dr.END}\ntail\n")
    assert "| 1/1 |" in text  # the unpinned pip step caught under ci-floating-install
    assert "**requests on purpose** (1)" in text and "issue 9" not in text  # no internal numbers
    assert "`init` missed a lock" in text and "gone: Dockerfile: 'absent' not found" in text
    assert (tmp_path / "cache" / "o+tiny.git").is_dir()
    assert dr.ensure_cached(tmp_path / "cache", "o/tiny", commit, None)[1] == commit  # cached now


@pytest.mark.parametrize("corpus", ["drift_corpus.json", "drift_unseen.json"])
def test_every_corpus_entry_is_well_formed(corpus: str) -> None:
    """Each label and drift of a corpus names a real rule and a known injection."""
    from policytool.engine.rule_index import RULE_INDEX

    data = json.loads((HERE.parent / corpus).read_text(encoding="utf-8"))
    names = [entry["name"] for entry in data["repos"]]
    assert len(names) == len(set(names))
    for entry in data["repos"]:
        assert len(entry["commit"]) == 40 and entry["repo"].count("/") == 1
        for label in entry["findings"]:
            assert label["rule"] in RULE_INDEX and label["label"] in ("true", "false")
            assert label["reason"]
        ids = [drift["id"] for drift in entry["drifts"]]
        assert len(ids) == len(set(ids))
        for drift in entry["drifts"]:
            assert drift["how"] in dr.INJECT, drift["id"]
            assert all(rule in RULE_INDEX for rule in drift["rule"].split("|")), drift["id"]


def test_a_named_section_is_written_between_its_own_markers(tmp_path: Path) -> None:
    # docs/first-run.md holds the tuned corpus's table and the unseen corpus's: writing
    # one never touches the other.
    bench = dr
    plain_begin, plain_end = bench.markers(None)
    named_begin, named_end = bench.markers("drift_unseen")
    page = tmp_path / "page.md"
    page.write_text(
        f"intro\n{plain_begin}\nold tuned\n{plain_end}\nmiddle\n{named_begin}\nold\n{named_end}\n"
    )
    bench.write_docs(page, "new unseen\n", "drift_unseen")
    text = page.read_text()
    assert "old tuned" in text and "new unseen" in text and "\nold\n" not in text
    bench.write_docs(page, "new tuned\n")
    text = page.read_text()
    assert "old tuned" not in text and "new tuned" in text and "new unseen" in text
    with pytest.raises(bench.HarnessError):
        bench.write_docs(page, "x\n", "no_such_section")
