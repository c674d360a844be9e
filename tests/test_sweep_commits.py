# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The commit corpus (issue 22): ✗ recall, ✗ precision and ⚠ precision of the sweep per
rule on 150 commits of four repositories nobody tuned it for, split into the commits it
was tuned on and the held-out ones. Each cell meets its target or is a known gap with
its cause; the test fails when a gap closes (remove it) or another cell drops."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tests.bench_modules import load_bench

BENCH = Path(__file__).resolve().parents[1] / "bench" / "sweep_commits.py"
TARGETS = {"x-recall": 0.9, "x-precision": 0.9, "w-precision": 0.95}


def _load() -> ModuleType:
    return load_bench("sweep_commits")


def test_corpus_is_at_least_100_commits_of_three_new_repositories_all_labelled() -> None:
    corpus = _load()
    doc = corpus.load()
    trees = doc["trees"]
    assert len(trees) >= 3
    commits = [c for info in trees.values() for c in (*info["tune"], *info["held-out"])]
    assert len(commits) >= 100 and len(set(commits)) == len(commits)
    for site in doc["sites"]:
        assert site["seed"] in ("✗", "⚠", "-"), site
        assert site["rule"] in corpus.RULES, site
        assert len(site["reason"]) > 10, site
        assert site["commit"] in commits, site
    corpus.figures(doc)  # every ✗ and every sampled ⚠ finding has a label


# (split, rule, metric) -> why the cell is below target. A seed-✗ site the sweep
# reports as ⚠ counts against ✗ recall.
# The held-out split was consumed at ddcb82b (integ): its any-annotation ✗ recall (27/48)
# was reported, then its misses were read and their causes fixed (round 3: a fake passed
# to a parameter, patched over a getter by a lambda, or annotated by a TypeVar whose
# bound's subclass it fits, 36/48; round 4: a fake the code annotates `Any` found by its
# fields, the one record class of the repository that has them all; a fake held by
# another through a local name; what a patched function returns; attributes the code
# sets on the object; fields inherited through bases in another module, 47/48). Its
# figures are no longer blind: bench/sweep_unseen.json is the blind measurement. The
# miss left: a DeepseekV4 `config` passed to a layer whose `__init__` annotates it with a
# union of three HF config classes the packages on the path do not define as text
# (transformers' lazy re-exports; a class newer than the stored vLLM source). Its ✗
# precision (48/51) counts three ⚠ labels made before any run as wrong: the offloading
# spec's `config`/`parallel` and the indexer's `request_metadata` (read after the run as
# the `AscendDSAReqMetadata` the compressor cache holds; the label is kept).
_OLD_FAKES = (
    "diff scope: a fake is new only when its `SimpleNamespace(` line is added; vllm-ascend "
    "2c72a26 test_ascend_config.py:61, 33657a2 test_lora.py:30, ... were labelled ✗ on old "
    "fakes where the commit only added a keyword inside. (It read 36/39 from round G to "
    "round V, when fourteen MagicMock data fakes of vllm-ascend's KV-cache and config "
    "records, labelled ✗ after the run, were ✗; since round W a mock is no fake of the "
    "rule and those sites read '-' (post_run: the settled convention).)"
)
_LORA_CONTEXTS = (
    "five `SimpleNamespace` contexts vllm-ascend 33657a2's test_lora.py passes to its MoE "
    "LoRA helpers (labelled ⚠ blind, ✗ after the run: vLLM's `MoELoRAContext` is a "
    "`@dataclass`) are given keywords the class does not declare, the "
    "`split_lora_indices`/`permuted_lora_indices`/`exchanged_lora_indices` the helpers "
    "set on it, so no class is read as theirs; eight others are ✗"
)
KNOWN_GAPS: dict[tuple[str, str, str], str] = {
    ("tune", "any-annotation", "x-recall"): "30/38: " + _OLD_FAKES + "; " + _LORA_CONTEXTS,
    ("all", "any-annotation", "x-recall"): "74/86 (held-out 44/48): the tune cell's misses",
}
# Closed: held-out hot-copy ⚠ precision (3/4: a clone in vLLM's run-once
# `process_weights_after_loading`) is 3/3 since post-load hooks are on the run-once list.


def test_each_cell_meets_its_target_or_is_a_known_gap() -> None:
    corpus = _load()
    figures = corpus.figures(corpus.load())
    assert figures, "no figures"
    cells = dict(figures)
    for rule in corpus.RULES:  # the "all" cells: both splits together
        for metric in TARGETS:
            parts = [figures.get((split, rule, metric), (0, 0)) for split in ("tune", "held-out")]
            if sum(total for _hits, total in parts):
                cells[("all", rule, metric)] = (
                    sum(hits for hits, _total in parts),
                    sum(total for _hits, total in parts),
                )
    for (split, rule, metric), (hits, total) in sorted(cells.items()):
        meets = hits / total >= TARGETS[metric]
        gap = (split, rule, metric) in KNOWN_GAPS
        assert meets != gap, (split, rule, metric, hits, total)
