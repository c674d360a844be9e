# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The labelled sweep corpus: findings on real release diffs, each judged by hand.

``bench/sweep_corpus.json`` holds findings of ``policytool sweep`` on two real diffs
(vLLM 0.32.0 -> 0.33.0 and vllm-omni 0.18.0 -> 0.20.0, the source releases made into a
git repo: the old release committed on ``main``, the new one on ``feature``), sampled
per rule and severity, for the sweep before this work (``before``), after it
(``after``; kept as history, stale since the rules changed) and with today's rules
(``current``: 15 per ✗ cell, all when fewer, 8 per ⚠ cell); the ``after`` kwargs-lookup
✗ rows are a census (all on both diffs). Each
entry has the verdict (``right``: a maintainer would act on it at that severity;
``wrong``: dismissed, or the ✗ is over-escalated), the seed condition it meets and the
reason.

    python bench/sweep_corpus.py precision            # the tables, from the labels
    python bench/sweep_corpus.py sample REPO OUT.json --label current \
        --tree "vllm 0.32.0 -> 0.33.0" --per 8 --per-error 15 [--findings-json F.json]
        # run sweep in REPO (main...feature) or read its JSON, print a deterministic
        # sample with the context of each line (read from the head ref, not the work tree)

Targets: ✗ precision >= 0.9 per rule, ⚠ >= 0.95 (``current``; ``after`` had ⚠ >= 0.75).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "sweep_corpus.json"
LABELS = ("before", "after", "current")
RULES = ("kwargs-lookup", "broad-except", "any-annotation", "hot-copy", "async-blocking")
MARK = {"error": "✗", "warning": "⚠"}


def load(path: Path = CORPUS) -> list[dict[str, object]]:
    """The labelled entries."""
    entries: list[dict[str, object]] = json.loads(path.read_text(encoding="utf-8"))
    for entry in entries:
        if entry.get("verdict") not in ("right", "wrong"):
            raise SystemExit(f"{path}: unlabelled entry {entry.get('path')}:{entry.get('line')}")
        if entry.get("label") not in LABELS:
            raise SystemExit(f"{path}: unknown label {entry.get('label')!r}")
    return entries


def precision_table(entries: list[dict[str, object]]) -> str:
    """A Markdown table: per rule and severity, right/judged and precision, per version."""
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for entry in entries:
        key = (str(entry["label"]), str(entry["rule"]), str(entry["severity"]))
        counts[key][1] += 1
        if entry["verdict"] == "right":
            counts[key][0] += 1
    present = {str(e["label"]) for e in entries}
    labels = [label for label in LABELS if label in present]
    header = ["rule", "sev"] + [f"{label} right/judged (precision)" for label in labels]
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for rule in RULES:
        for severity in ("error", "warning"):
            cells = [f"`{rule}`", MARK[severity]]
            for label in labels:
                right, judged = counts.get((label, rule, severity), [0, 0])
                cells.append(f"{right}/{judged} ({right / judged:.2f})" if judged else "-")
            out.append("| " + " | ".join(cells) + " |")
    for severity in ("error", "warning"):
        cells = ["all", MARK[severity]]
        for label in labels:
            right = sum(counts[(label, r, severity)][0] for r in RULES)
            judged = sum(counts[(label, r, severity)][1] for r in RULES)
            cells.append(f"{right}/{judged} ({right / judged:.2f})" if judged else "-")
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def _order(finding: dict[str, object]) -> str:
    """A stable pseudo-random order (the sample does not depend on output order)."""
    text = f"{finding['path']}:{finding['line']}:{finding['rule']}:{finding['message']}"
    return hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()


def _show(repo: Path, head: str, path: str) -> list[str]:
    """The lines of ``path`` at ``head`` in ``repo`` (the work tree is left alone)."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "show", f"{head}:{path}"],
        capture_output=True,
        check=False,
    )
    return proc.stdout.decode("utf-8", "replace").splitlines()


def sample(
    repo: Path,
    out: Path,
    label: str,
    per: int,
    findings_json: Path | None,
    *,
    tree: str | None = None,
    per_error: int | None = None,
    head: str = "feature",
) -> None:
    """Sweep ``repo`` (main...head), keep ``per`` findings per rule and ⚠ cell and
    ``per_error`` (default ``per``) per ✗ cell; ``tree`` names the corpus tree."""
    if findings_json is not None:
        findings = json.loads(findings_json.read_text(encoding="utf-8"))
    else:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "policytool",
                "sweep",
                "--base",
                "main",
                "--head",
                head,
                "--format",
                "json",
                "--fail-on",
                "never",
            ],
            cwd=repo,
            capture_output=True,
            text=True,
            check=False,
        )
        findings = json.loads(proc.stdout)
    picked: list[dict[str, object]] = []
    groups: dict[tuple[str, str], list[dict[str, object]]] = defaultdict(list)
    for finding in findings:
        if finding["rule"] in RULES:
            groups[(finding["rule"], finding["severity"])].append(finding)
    for key in sorted(groups):
        size = per_error if key[1] == "error" and per_error is not None else per
        for finding in sorted(groups[key], key=_order)[:size]:
            picked.append(
                {
                    "label": label,
                    "tree": tree if tree is not None else repo.name,
                    "path": finding["path"],
                    "line": finding["line"],
                    "rule": finding["rule"],
                    "severity": finding["severity"],
                    "message": finding["message"],
                    "verdict": "",
                    "condition": "",
                    "reason": "",
                }
            )
            lines = _show(repo, head, str(finding["path"]))
            line = int(str(finding["line"]))
            mark = MARK[str(finding["severity"])]
            print(f"=== {finding['rule']} {mark} {finding['path']}:{line}")
            print(f"    {finding['message']}")
            for n in range(max(1, line - 6), min(len(lines), line + 4) + 1):
                print(f"{'>' if n == line else ' '}{n:5} {lines[n - 1]}")
    out.write_text(json.dumps(picked, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("precision", help="print the precision tables from the labels")
    sampler = sub.add_parser("sample", help="sample findings of a repo for labelling")
    sampler.add_argument("repo", type=Path)
    sampler.add_argument("out", type=Path)
    sampler.add_argument("--label", default="current", choices=LABELS)
    sampler.add_argument("--tree", default=None, help="the corpus tree name (default: REPO's)")
    sampler.add_argument("--head", default="feature", help="the head ref (default: feature)")
    sampler.add_argument("--per", type=int, default=6, help="findings per ⚠ cell")
    sampler.add_argument("--per-error", type=int, default=None, help="findings per ✗ cell")
    sampler.add_argument(
        "--findings-json", "--findings", type=Path, default=None, help="a sweep JSON to use"
    )
    args = parser.parse_args()
    if args.command == "precision":
        entries = load()
        print(f"{len(entries)} labelled findings from {sorted({str(e['tree']) for e in entries})}")
        print()
        print(precision_table(entries))
        return 0
    sample(
        args.repo,
        args.out,
        args.label,
        args.per,
        args.findings_json,
        tree=args.tree,
        per_error=args.per_error,
        head=args.head,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
