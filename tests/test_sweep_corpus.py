# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The labelled corpus of sweep findings on real release diffs: complete, and the
precision it gives meets the targets (``after``: ✗ >= 0.9 per rule, ⚠ >= 0.75, kept as
history; ``current``: ✗ >= 0.9, ⚠ >= 0.95 per rule, the gaps named with their cause)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from types import ModuleType

from tests.bench_modules import load_bench

BENCH = Path(__file__).resolve().parents[1] / "bench" / "sweep_corpus.py"


def _load() -> ModuleType:
    return load_bench("sweep_corpus")


def test_every_entry_has_a_verdict_a_seed_condition_and_a_reason() -> None:
    corpus = _load()
    entries = corpus.load()
    assert len(entries) >= 100
    for entry in entries:
        assert entry["verdict"] in ("right", "wrong")
        assert str(entry["condition"]).startswith(("⚠", "✗")), entry
        assert len(str(entry["reason"])) > 10, entry
        assert entry["rule"] in corpus.RULES and entry["severity"] in ("error", "warning")
        assert entry["label"] in ("before", "after", "current")
    assert {str(e["tree"]) for e in entries} == {
        "vllm 0.32.0 -> 0.33.0",
        "vllm-omni 0.18.0 -> 0.20.0",
    }


# Cells below target, each with its cause; the test fails when one is fixed (remove it)
# or when another cell falls below.
KNOWN_GAPS: set[tuple[str, str]] = set()


def test_after_meets_the_precision_targets() -> None:
    corpus = _load()
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for entry in corpus.load():
        if entry["label"] == "after":
            cell = counts[(str(entry["rule"]), str(entry["severity"]))]
            cell[1] += 1
            cell[0] += entry["verdict"] == "right"
    for (rule, severity), (right, judged) in counts.items():
        target = 0.9 if severity == "error" else 0.75
        meets = right / judged >= target
        assert meets != ((rule, severity) in KNOWN_GAPS), (rule, severity, right, judged)
    table = corpus.precision_table(corpus.load())
    assert table.splitlines()[0].startswith("| rule | sev | before ")


# Cells of the "current" labels (today's rules) below target, each with its cause; the
# test fails when a gap closes (remove it here) or when another cell falls below.
CURRENT_KNOWN_GAPS: dict[tuple[str, str], str] = {}


def test_current_labels_meet_the_seed_targets_or_name_the_gap() -> None:
    corpus = _load()
    entries = [e for e in corpus.load() if e["label"] == "current"]
    assert {str(e["tree"]) for e in entries} == {
        "vllm 0.32.0 -> 0.33.0",
        "vllm-omni 0.18.0 -> 0.20.0",
    }
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for entry in entries:
        cell = counts[(str(entry["rule"]), str(entry["severity"]))]
        cell[1] += 1
        cell[0] += entry["verdict"] == "right"
    below = {
        cell
        for cell, (right, judged) in counts.items()
        if right / judged < (0.9 if cell[1] == "error" else 0.95)
    }
    closed = set(CURRENT_KNOWN_GAPS) - below
    new = below - set(CURRENT_KNOWN_GAPS)
    assert not closed, f"gap closed, remove it from CURRENT_KNOWN_GAPS: {sorted(closed)}"
    assert not new, f"below target: {[(c, counts[c]) for c in sorted(new)]}"
    table = corpus.precision_table(corpus.load())
    assert table.splitlines()[0].endswith("| current right/judged (precision) |")
