# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The unseen split (issue 22): ✗ recall, ✗ precision and ⚠ precision of the sweep per
rule on 112 commits of four repositories no one has tuned it on (peft, verl, accelerate,
ms-swift), labelled blind before the first run. Each cell, for the blind labels and for
the post-run reading, meets its target or is a known gap with its cause; the test fails
when a gap closes (remove it) or another cell drops. The findings are recorded by
``python bench/sweep_unseen.py record REPO TREE``; re-record after changing a rule."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from tests.bench_modules import load_bench

BENCH = Path(__file__).resolve().parents[1] / "bench"
TARGETS = {"x-recall": 0.9, "x-precision": 0.9, "w-precision": 0.95}


def _load() -> ModuleType:
    return load_bench("sweep_unseen")


def test_unseen_corpus_is_new_repositories_labelled_blind() -> None:
    corpus = _load()
    doc = corpus.load()
    trees = doc["trees"]
    assert len(trees) >= 3
    tuned = json.loads((BENCH / "sweep_commits.json").read_text(encoding="utf-8"))["trees"]
    tuned_names = {name.lower() for name in tuned} | {
        str(info["repo"]).lower() for info in tuned.values()
    }
    commits = []
    for info in trees.values():
        owner_name = str(info["repo"]).lower()
        assert owner_name.count("/") == 1
        assert owner_name.split("/")[1] not in tuned_names, owner_name
        assert info["labelled_at"]
        commits.extend(info["unseen"])
    assert len(commits) >= 60 and len(set(commits)) == len(commits)
    for site in doc["sites"]:
        assert site["seed"] in ("✗", "⚠", "-"), site
        assert site.get("post_run", "⚠") in ("✗", "⚠", "-"), site
        assert site["rule"] in corpus.RULES, site
        assert len(site["reason"]) > 10, site
        assert site["commit"] in commits, site
    for reading in corpus.READINGS:
        corpus.figures(doc, reading)  # every ✗ and every sampled ⚠ finding has a label


_ANNOTATION = (
    "7/9 (0/7 on main 721537c, before the wrong-annotation check; 5/9 at 1a3a9ad): every "
    "one of the 7 sites is caught, but two of the 9 rows are the same site labelled twice, "
    "blind at its def line and after the run at the return line where the sweep reports "
    "it (verl's `build_profile_args -> dict` returning a tuple; `prepare(self) -> "
    "MasterMetadata` returning `... if self.is_master else None`), and recall counts the "
    "def-line rows as missed. No longer an unseen result: the last two sites "
    "(`self.server_handle: ray.actor.ActorHandle = None`, a dotted class off the path; "
    "`del_local_after_load: int = True`, a bool under int) were caught (h/unseen22) after "
    "their miss was reported here. The SimpleNamespace ✗ part has no instance here"
)
# (reading, rule, metric) -> why the cell is below target. broad-except's x-recall gap
# (1/3) closed in h/unseen22 after its misses were reported (a broad catch around the
# import a patch function patches; a private helper only `__init__` reaches): 3/3, no
# longer an unseen figure.
KNOWN_GAPS: dict[tuple[str, str, str], str] = {
    ("blind", "any-annotation", "x-recall"): _ANNOTATION,
    ("post-run", "any-annotation", "x-recall"): _ANNOTATION,
}


def test_each_unseen_cell_meets_its_target_or_is_a_known_gap() -> None:
    corpus = _load()
    doc = corpus.load()
    for reading in corpus.READINGS:
        figures = corpus.figures(doc, reading)
        assert figures, "no figures"
        for (_split, rule, metric), (hits, total) in sorted(figures.items()):
            meets = hits / total >= TARGETS[metric]
            gap = (reading, rule, metric) in KNOWN_GAPS
            assert meets != gap, (reading, rule, metric, hits, total)
