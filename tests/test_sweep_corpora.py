# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``bench/sweep_corpora.py``: the labelled corpora rebuilt on a new machine (clones from
mirrors, a snapshot missing a blob checked out sparsely) and their figures summed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.bench_modules import load_bench

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _load() -> ModuleType:
    return load_bench("sweep_corpora")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def _mirror(root: Path, files: dict[str, str]) -> Path:
    """A ``owner+name/repo`` git directory as the fetch leaves it, holding ``files``."""
    work = root / "work"
    work.mkdir()
    _git(work, "init", "-q")
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    _git(work, "add", ".")
    _git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    mirror = root / "mirrors" / "owner+name" / "repo"
    # the git directory itself: its objects loose, so one can go missing
    shutil.copytree(work / ".git", mirror)
    return mirror


def _drop_blob(mirror: Path, path: str) -> None:
    """Delete one file's blob from the mirror: a snapshot that did not arrive whole."""
    blob = _git(mirror, "rev-parse", f"HEAD:{path}")
    (mirror / "objects" / blob[:2] / blob[2:]).unlink()


def test_sets_are_every_labelled_json() -> None:
    corpora = _load()
    names = corpora.all_sets()
    assert names[0] == "a" and names[-2:] == ["unseen", "commits"]
    assert names.index("z") < names.index("za") < names.index("ze")
    for name in names:
        assert corpora.set_path(name).is_file(), name
    assert corpora.repo_of({"repo": "sweep22-vllm-project+vllm-ascend"}, "x") == (
        "vllm-project/vllm-ascend"
    )


def test_totals_sum_each_sets_figures() -> None:
    corpora = _load()
    unseen = sys.modules["sweep_unseen"]
    figs = [unseen.figures(unseen.load(corpora.set_path(name)), "blind") for name in ("zc", "zd")]
    table = corpora.totals(["zc", "zd"], "blind")
    for rule in corpora.sweep_commits.RULES:
        hit = sum(f.get(("unseen", rule, "x-precision"), (0, 0))[0] for f in figs)
        tot = sum(f.get(("unseen", rule, "x-precision"), (0, 0))[1] for f in figs)
        row = next(line for line in table.splitlines() if line.startswith(f"| `{rule}` |"))
        cell = row.split(" | ")[2]
        assert cell == (f"{hit}/{tot} ({hit / tot:.2f})" if tot else "-"), (rule, row)


def test_totals_add_both_splits_of_the_commits_corpus() -> None:
    """``commits`` has two splits (tune, held-out): a rule's cell is their sum, not the
    last split read."""
    corpora = _load()
    doc = corpora.sweep_commits.load(corpora.set_path("commits"))
    figs = corpora.sweep_commits.figures(doc)
    table = corpora.totals(["commits"], "post-run")
    for rule in corpora.sweep_commits.RULES:
        for column, metric in enumerate(("x-recall", "x-precision", "w-precision"), start=1):
            cells = [v for (_split, r, m), v in figs.items() if (r, m) == (rule, metric)]
            hit, tot = sum(c[0] for c in cells), sum(c[1] for c in cells)
            row = next(line for line in table.splitlines() if line.startswith(f"| `{rule}` |"))
            cell = row.strip("| ").split(" | ")[column]
            assert cell == (f"{hit}/{tot} ({hit / tot:.2f})" if tot else "-"), (rule, metric)
    splits = {split for split, _r, _m in figs}
    assert splits == {"tune", "held-out"}


def test_misses_lists_each_kind_of_disagreement_under_each_reading() -> None:
    """A ✗ site with no ✗ is a miss, a ✗ on a site labelled otherwise is wrong, a
    sampled ⚠ labelled '-' is wrong; agreement is not listed; ``post_run`` decides only
    under the post-run reading; ``--rule`` keeps one rule."""
    corpora = _load()

    def entry(line: int, rule: str = "any-annotation") -> dict[str, object]:
        return {"tree": "t", "commit": "c" * 40, "path": "a.py", "line": line, "rule": rule}

    doc: dict[str, object] = {
        "sites": [
            {**entry(1), "seed": "✗", "reason": "missed fake"},
            {**entry(2), "seed": "⚠", "reason": "only a warning"},
            {**entry(3), "seed": "-", "reason": "not an instance"},
            {**entry(4), "seed": "✗", "reason": "found"},
            {**entry(5), "seed": "⚠", "post_run": "✗", "reason": "relabelled"},
            {**entry(6, "broad-except"), "seed": "✗", "reason": "missed handler"},
        ],
        "findings": [
            {**entry(2), "severity": "error", "message": "too strong"},
            {**entry(3), "severity": "warning", "message": "no instance"},
            {**entry(4), "severity": "error", "message": "right"},
            {**entry(5), "severity": "error", "message": "right after the run"},
        ],
    }
    blind = corpora.disagreements(doc, "blind")
    heads = [line.split(" label ")[0] for line in blind if not line.startswith(" ")]
    assert heads == [
        "miss any-annotation t cccccccc a.py:1",
        "miss broad-except t cccccccc a.py:6",
        "wrong-w any-annotation t cccccccc a.py:3",
        "wrong-x any-annotation t cccccccc a.py:2",
        "wrong-x any-annotation t cccccccc a.py:5",
    ]
    assert "    label: missed fake" in blind and "    found: too strong" in blind
    post = corpora.disagreements(doc, "post-run", "any-annotation")
    assert [line for line in post if "a.py:5" in line] == []
    assert not any("broad-except" in line for line in post)


def test_clone_from_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpora = _load()
    mirror = _mirror(tmp_path, {"pkg/a.py": "x = 1\n", "README.md": "hi\n"})
    monkeypatch.setattr(corpora, "CLONES", tmp_path / "clones")
    clone = corpora.make_clone("owner/name", mirror.parent.parent)
    assert (clone / "pkg" / "a.py").read_text(encoding="utf-8") == "x = 1\n"
    assert (clone / "README.md").is_file()
    assert corpora.make_clone("owner/name", tmp_path / "nowhere") == clone  # cloned once


def test_missing_blob_outside_python_is_checked_out_sparsely(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpora = _load()
    mirror = _mirror(tmp_path, {"pkg/a.py": "x = 1\n", "docs/cassette.yaml": "k: v\n"})
    _drop_blob(mirror, "docs/cassette.yaml")
    monkeypatch.setattr(corpora, "CLONES", tmp_path / "clones")
    clone = corpora.make_clone("owner/name", mirror.parent.parent)
    assert (clone / "pkg" / "a.py").read_text(encoding="utf-8") == "x = 1\n"
    assert not (clone / "docs" / "cassette.yaml").exists()


def test_missing_python_blob_fails_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpora = _load()
    mirror = _mirror(tmp_path, {"pkg/a.py": "x = 1\n"})
    _drop_blob(mirror, "pkg/a.py")
    monkeypatch.setattr(corpora, "CLONES", tmp_path / "clones")
    with pytest.raises(SystemExit, match="owner/name"):
        corpora.make_clone("owner/name", mirror.parent.parent)
    assert not (tmp_path / "clones" / "owner+name").exists()


def test_releases_diff_prints_what_moved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpora = _load()
    kept = {"path": "a.py", "line": 3, "rule": "hot-copy", "severity": "error", "message": "m"}
    moved = {**kept, "line": 4}
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    before.write_text(json.dumps({"vllm 1 -> 2": [kept, moved]}), encoding="utf-8")
    after.write_text(json.dumps({"vllm 1 -> 2": [kept, {**moved, "line": 5}]}), encoding="utf-8")
    assert corpora.releases_diff(before, after) == 2
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "vllm 1 -> 2 - a.py:4 hot-copy error: m",
        "vllm 1 -> 2 + a.py:5 hot-copy error: m",
    ]
    assert corpora.releases_diff(before, before) == 0


@pytest.mark.parametrize("repo", ["../../etc/x", "owner/..", "owner", "a/b/c", "/abs/path"])
def test_a_repository_name_that_leaves_the_cache_is_refused(repo: str) -> None:
    corpora = _load()
    with pytest.raises(SystemExit, match="not an owner/name"):
        corpora.repo_of({"repo": repo}, "tree")


@pytest.mark.parametrize("spec", ["../x==1", "x==../../1", "x", "x==1/2"])
def test_a_package_spec_that_leaves_the_cache_is_refused(spec: str) -> None:
    corpora = _load()
    with pytest.raises(SystemExit, match="not a NAME==VERSION"):
        corpora.package_dir(spec)
