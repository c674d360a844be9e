# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The unseen split (issue 22): ✗ recall, ✗ precision and ⚠ precision of the sweep per
rule on 112 commits of four repositories no one has tuned it on (peft, verl, accelerate,
ms-swift), labelled blind before the first run. Each cell, for the blind labels and for
the post-run reading, meets its target or is a known gap with its cause; the test fails
when a gap closes (remove it) or another cell drops. The findings are recorded by
``python bench/sweep_unseen.py record REPO TREE``; re-record after changing a rule."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[1] / "bench"
TARGETS = {"x-recall": 0.9, "x-precision": 0.9, "w-precision": 0.95}


def _load() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("sweep_unseen", BENCH / "sweep_unseen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["sweep_unseen"] = module
    spec.loader.exec_module(module)
    return module


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
    "0/7: no wrong annotation is detected: `x: str = None`-style implicit Optional "
    "(parameters and a dataclass field/attribute, 4 sites in verl), a bool flag typed `int`, "
    "`-> dict[str, Any]` on a function returning a tuple, and `-> MasterMetadata` on one "
    "returning None (the seed's own example); the SimpleNamespace ✗ part has no instance "
    "here (the four repositories add no SimpleNamespace fake in these commits)"
)
_EXCEPT = (
    "0/3 reported ⚠: `except Exception: return` (noqa BLE001) around a torch_npu import on "
    "ms-swift's NPU bootstrap, `except Exception: disk_config = None` while building the "
    "vLLM engine kwargs (init), `except Exception: pass` in verl's megatron "
    "`load_checkpoint` (weight loading) -- issue 22 item 3, fail-fast paths"
)
_KWARGS = (
    "2/4: a pre-existing key on a changed line is ✗ because other files read it too, but "
    'the diff does not introduce it: `_ = kwargs.pop("bias", False)` in peft\'s pvera (was '
    "`bias = ...`), ms-swift's `kwargs.get('position_ids')` (re-indented out of an `if`)"
)
# (reading, rule, metric) -> why the cell is below target.
KNOWN_GAPS: dict[tuple[str, str, str], str] = {
    ("blind", "any-annotation", "x-recall"): _ANNOTATION,
    ("post-run", "any-annotation", "x-recall"): _ANNOTATION,
    ("blind", "broad-except", "x-recall"): _EXCEPT,
    ("post-run", "broad-except", "x-recall"): _EXCEPT,
    ("blind", "kwargs-lookup", "x-precision"): _KWARGS,
    ("post-run", "kwargs-lookup", "x-precision"): _KWARGS,
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
