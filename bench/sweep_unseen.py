# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The unseen split: ✗ recall and precision of ``policytool sweep`` on commits of
repositories no one has tuned the sweep on or looked at while tuning it.

``bench/sweep_unseen.json`` has the schema of ``bench/sweep_commits.json`` with one split,
``unseen``: per tree the commits (``unseen``), the commits left out by the selection rule
(``skipped``) and when the tree was labelled (``labelled_at``). Its ``sites`` were
labelled *blind*: by reading each commit's added lines, committed before the first sweep
run on these commits (see the git history of the JSON). After a run, the findings that
needed a label (every ✗ and the sampled ⚠) were labelled as well; those sites carry
``"after_run": true``. A blind label is never edited: when reading the findings changed
the labeller's mind, the site has a ``post_run`` field (the new severity) and a
``post_run_reason``; ``figures`` gives both readings (``blind`` and ``post-run``).

    # the clones: the snapshots of huggingface/peft, volcengine/verl, huggingface/accelerate
    # and modelscope/ms-swift (the ``repo`` of each tree), e.g.
    #   git clone https://github.com/volcengine/verl /tmp/verl
    python bench/sweep_unseen.py record REPO_DIR TREE   # sweep the tree's commits, store findings
    python bench/sweep_unseen.py todo                   # findings that need a label
    python bench/sweep_unseen.py figures                # the tables (blind and post-run labels)

Every command takes ``--corpus PATH`` for another blind set of the same schema
(``bench/sweep_blind.json``: the set built after this one was consumed), and ``record``
takes ``--package NAME==VERSION=DIR`` as ``bench/sweep_commits.py`` does (stored in the
tree's ``packages``, reused when omitted).

The metrics are ``bench/sweep_commits.py``'s (same sample of ⚠ per tree and rule).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import cast

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import sweep_commits as base  # noqa: E402

CORPUS = HERE / "sweep_unseen.json"
RULES = base.RULES
SPLIT = "unseen"
READINGS = ("blind", "post-run")


def load(path: Path = CORPUS) -> dict[str, object]:
    """The unseen corpus document."""
    return base.load(path)


def save(doc: dict[str, object], path: Path = CORPUS) -> None:
    """Write the unseen corpus document."""
    base.save(doc, path)


def record(repo: Path, tree: str, corpus: Path = CORPUS, packages: list[str] | None = None) -> None:
    """Sweep each commit of ``tree`` against its parent and store the findings.

    ``packages``: ``NAME==VERSION=DIR`` of each package the repository's CI installs, its
    source or unpacked wheel put on the sweep's ``PYTHONPATH`` (nothing is imported)."""
    doc = load(corpus)
    info = doc["trees"][tree]  # type: ignore[index]
    if packages is not None:
        info["packages"] = packages
    env = dict(os.environ)
    dirs = [entry.rsplit("=", 1)[1] for entry in info.get("packages", [])]
    if dirs:
        # the caller's own path (the work tree whose code records) stays after them
        kept = [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []
        env["PYTHONPATH"] = os.pathsep.join(dirs + kept)
    findings = [f for f in doc["findings"] if f["tree"] != tree]  # type: ignore[attr-defined]
    start = base._git(repo, "rev-parse", "HEAD").strip()
    try:
        for commit in info[SPLIT]:
            for f in base.sweep_commit(repo, commit, env):
                findings.append(
                    {
                        "tree": tree,
                        "commit": commit,
                        "path": f["path"],
                        "line": f["line"],
                        "rule": f["rule"],
                        "severity": f["severity"],
                        "message": f["message"],
                    }
                )
    finally:
        base._git(repo, "checkout", "-q", "--detach", start)
    # in the order of the trees, whichever was recorded last: a re-record moves nothing
    order = {str(name): i for i, name in enumerate(cast("dict[str, object]", doc["trees"]))}
    findings.sort(key=lambda f: order.get(str(f["tree"]), len(order)))
    doc["findings"] = findings
    save(doc, corpus)


def labels(doc: dict[str, object], reading: str) -> dict[base.Site, str]:
    """Site -> seed severity: the blind label, or for ``post-run`` the changed mind."""
    out: dict[base.Site, str] = {}
    for s in doc["sites"]:  # type: ignore[attr-defined]
        seed = str(s["seed"])
        if reading == "post-run" and "post_run" in s:
            seed = str(s["post_run"])
        out[base._key(s)] = seed
    return out


def figures(
    doc: dict[str, object], reading: str = "blind"
) -> dict[tuple[str, str, str], tuple[int, int]]:
    """(split, rule, metric) -> (hits, total), split always ``unseen``; raises SystemExit
    when a judged finding (every ✗, the sampled ⚠) has no label."""
    sites = labels(doc, reading)
    out: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    findings = cast("list[dict[str, object]]", doc["findings"])
    errors = {base._key(f) for f in findings if f["severity"] == "error"}
    missing: list[base.Site] = []
    for f in findings:
        if f["severity"] != "error":
            continue
        seed = sites.get(base._key(f))
        if seed is None:
            missing.append(base._key(f))
            continue
        cell = out[(SPLIT, str(f["rule"]), "x-precision")]
        cell[1] += 1
        cell[0] += seed == "✗"
    for f in base.sampled_warnings(doc):
        seed = sites.get(base._key(f))
        if seed is None:
            missing.append(base._key(f))
            continue
        cell = out[(SPLIT, str(f["rule"]), "w-precision")]
        cell[1] += 1
        cell[0] += seed in ("⚠", "✗")
    for key, seed in sites.items():
        if seed != "✗":
            continue
        cell = out[(SPLIT, key[4], "x-recall")]
        cell[1] += 1
        cell[0] += key in errors
    if missing:
        raise SystemExit(f"{len(missing)} judged findings have no label, e.g. {missing[:3]}")
    return {k: (v[0], v[1]) for k, v in out.items()}


def table(doc: dict[str, object]) -> str:
    """A Markdown table per reading and rule."""
    lines = [
        "| labels | rule | ✗ recall | ✗ precision | ⚠ precision |",
        "| --- | --- | --- | --- | --- |",
    ]
    for reading in READINGS:
        figs = figures(doc, reading)
        for rule in RULES:
            cells = []
            for metric in ("x-recall", "x-precision", "w-precision"):
                hit, tot = figs.get((SPLIT, rule, metric), (0, 0))
                cells.append(f"{hit}/{tot} ({hit / tot:.2f})" if tot else "-")
            lines.append(f"| {reading} | `{rule}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the blind set's JSON")
    rec = sub.add_parser("record")
    rec.add_argument("repo", type=Path)
    rec.add_argument("tree")
    rec.add_argument(
        "--package",
        action="append",
        default=None,
        metavar="NAME==VERSION=DIR",
        help="a package the repository's CI installs: its source on PYTHONPATH",
    )
    sub.add_parser("todo")
    sub.add_parser("figures")
    args = parser.parse_args()
    if args.command == "record":
        record(args.repo, args.tree, args.corpus, args.package)
    elif args.command == "todo":
        doc = load(args.corpus)
        sites = {base._key(s) for s in doc["sites"]}  # type: ignore[attr-defined]
        judged = [f for f in doc["findings"] if f["severity"] == "error"]  # type: ignore[attr-defined]
        judged += base.sampled_warnings(doc)
        for f in judged:
            if base._key(f) not in sites:
                print(json.dumps(f, ensure_ascii=False))
    else:
        print(table(load(args.corpus)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
