# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The commit corpus: ✗ recall and precision of ``policytool sweep`` on single commits
of repositories nobody tuned the sweep for.

``bench/sweep_commits.json`` holds, per repository, the commits swept (each one against
its parent) and the *sites*: places on a commit's added lines where the seed's pattern
applies, each labelled with the seed's severity (``✗``, ``⚠``, or ``-`` for a finding
that is not an instance) and a reason. Sites come from two sources: every ✗ finding and
a sample of ⚠ findings of the sweep, and the seed-✗ sites found by reading the commits'
added lines (``candidates`` lists every added line that may hold one, with context:
broad catches, copies, SimpleNamespace in tests, kwargs reads, annotations). The
commits are split: ``tune`` (the ones the sweep was tuned on) and ``held-out`` (labelled
before any tuning and never looked at while tuning); figures are reported for each.

``findings`` in the JSON are the sweep's findings on every commit, as of the version
that recorded them (``record``); ``figures`` computes from the JSON alone:

    python bench/sweep_commits.py record  REPO_DIR TREE [--count N] [--package NAME=DIR]
    python bench/sweep_commits.py candidates REPO_DIR TREE            # added lines to read
    python bench/sweep_commits.py todo                                # findings needing a label
    python bench/sweep_commits.py figures                             # the tables

Metrics per rule: ✗ recall = seed-✗ sites reported ✗ / seed-✗ sites; ✗ precision =
✗ findings at a ✗ site / ✗ findings (every ✗ finding must be labelled); ⚠ precision =
sampled ⚠ findings at a ⚠ or ✗ site / sampled ⚠ findings (a ✗ site reported ⚠ is right
as a warning and counts against ✗ recall).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import cast

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "sweep_commits.json"
RULES = ("kwargs-lookup", "broad-except", "any-annotation", "hot-copy", "async-blocking")
# ⚠ findings sampled per tree, rule (deterministic by hash of the site).
WARN_SAMPLE = 6

Site = tuple[str, str, str, int, str]  # tree, commit, path, line, rule


def load(path: Path = CORPUS) -> dict[str, object]:
    """The corpus document."""
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def save(doc: dict[str, object], path: Path = CORPUS) -> None:
    """Write the corpus document (stable order)."""
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True
    ).stdout


def commits_of(repo: Path, count: int) -> list[str]:
    """The newest ``count`` non-merge commits that change a ``.py`` file."""
    out = _git(repo, "log", "--no-merges", "--format=%H", f"-{count}", "--", "*.py")
    return out.split()


def sweep_commit(
    repo: Path, commit: str, env: dict[str, str] | None = None
) -> list[dict[str, object]]:
    """The sweep's findings of ``commit`` against its parent (the work tree at ``commit``)."""
    _git(repo, "checkout", "-q", "--detach", commit)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "policytool",
            "sweep",
            "--base",
            f"{commit}^",
            "--two-dot",
            "--head",
            commit,
            "--format",
            "json",
            "--fail-on",
            "never",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if proc.returncode == 2 and proc.stderr.startswith("policytool: error:"):
        # The tool refused the commit with a user-facing error (the commit's own
        # pyproject.toml is invalid TOML): what a maintainer would see, no findings; its
        # labelled sites count as misses. A traceback or any other failure still stops.
        print(
            f"{commit}: no findings, the sweep refused it: {proc.stderr.strip()}", file=sys.stderr
        )
        return []
    if proc.returncode != 0:
        raise SystemExit(f"{commit}: {proc.stderr.strip()}")
    found: list[dict[str, object]] = json.loads(proc.stdout)
    for crash in (f for f in found if f["rule"] == "rule-error"):
        # A rule's own bug, reported for one file: said here, since only the five rules'
        # findings are stored (its labelled sites in that file count as misses).
        print(f"{commit}: rule-error in {crash['path']}: {crash['message']}", file=sys.stderr)
    return [f for f in found if f["rule"] in RULES]


def record(repo: Path, tree: str, count: int | None, packages: list[str] | None = None) -> None:
    """Sweep each commit of ``tree`` (newest ``count`` when new) and store the findings.

    ``packages``: ``NAME=DIR`` of each package the repository's CI installs (vLLM, the
    transformers version its requirements pin), its source or unpacked wheel put on the
    sweep's ``PYTHONPATH`` (``pip download --no-deps NAME==VERSION`` and unzip: nothing
    is installed or imported); stored in the tree's ``packages`` and reused when omitted."""
    doc = load() if CORPUS.exists() else {"trees": {}, "sites": [], "findings": []}
    trees = doc.setdefault("trees", {})
    assert isinstance(trees, dict)
    if tree not in trees:
        if count is None:
            raise SystemExit("--count is needed for a new tree")
        shas = commits_of(repo, count)
        # Split: every other commit (oldest first) is held out.
        ordered = list(reversed(shas))
        trees[tree] = {
            "repo": str(repo.name),
            "tune": ordered[0::2],
            "held-out": ordered[1::2],
        }
    info = trees[tree]
    if packages is not None:
        info["packages"] = packages
    env = dict(os.environ)
    dirs = [entry.rsplit("=", 1)[1] for entry in info.get("packages", [])]
    if dirs:
        # the caller's own path (the work tree whose code records) stays after them
        kept = [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []
        env["PYTHONPATH"] = os.pathsep.join(dirs + kept)
    stored = cast("list[dict[str, object]]", doc.get("findings", []))
    findings = [f for f in stored if f["tree"] != tree]
    start = _git(repo, "rev-parse", "HEAD").strip()
    try:
        for commit in [*info["tune"], *info["held-out"]]:
            for f in sweep_commit(repo, commit, env):
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
        _git(repo, "checkout", "-q", "--detach", start)
    # in the order of the trees, whichever was recorded last: a re-record moves nothing
    order = {str(name): i for i, name in enumerate(cast("dict[str, object]", doc["trees"]))}
    findings.sort(key=lambda f: order.get(str(f["tree"]), len(order)))
    doc["findings"] = findings
    save(doc)


def _key(entry: dict[str, object]) -> Site:
    return (
        str(entry["tree"]),
        str(entry["commit"]),
        str(entry["path"]),
        int(str(entry["line"])),
        str(entry["rule"]),
    )


def _order(entry: dict[str, object]) -> str:
    text = "|".join(str(x) for x in _key(entry))
    return hashlib.sha1(text.encode()).hexdigest()


def sampled_warnings(doc: dict[str, object]) -> list[dict[str, object]]:
    """The ⚠ findings judged: ``WARN_SAMPLE`` per tree and rule, by a stable hash order."""
    groups: dict[tuple[str, str], list[dict[str, object]]] = defaultdict(list)
    for f in doc["findings"]:  # type: ignore[attr-defined]
        if f["severity"] == "warning":
            groups[(f["tree"], f["rule"])].append(f)
    picked: list[dict[str, object]] = []
    for key in sorted(groups):
        picked.extend(sorted(groups[key], key=_order)[:WARN_SAMPLE])
    return picked


def split_of(doc: dict[str, object], tree: str, commit: str) -> str:
    """``tune`` or ``held-out``."""
    info = doc["trees"][tree]  # type: ignore[index]
    return "tune" if commit in info["tune"] else "held-out"


def _label(site: dict[str, object]) -> str:
    """The site's label: its ``post_run`` reading when it has one, else its ``seed``."""
    return str(site.get("post_run", site["seed"]))


def figures(doc: dict[str, object]) -> dict[tuple[str, str, str], tuple[int, int]]:
    """(split, rule, metric) -> (hits, total); metric: ``x-recall``, ``x-precision``,
    ``w-precision``. A site's ``post_run`` (a later reading with its ``post_run_reason``,
    such as a settled convention) replaces its ``seed``. Raises SystemExit when a judged
    finding has no label."""
    sites = {_key(s): _label(s) for s in doc["sites"]}  # type: ignore[attr-defined]
    out: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    errors = {
        _key(f)
        for f in doc["findings"]  # type: ignore[attr-defined]
        if f["severity"] == "error"
    }
    missing: list[Site] = []
    for f in doc["findings"]:  # type: ignore[attr-defined]
        if f["severity"] != "error":
            continue
        seed = sites.get(_key(f))
        if seed is None:
            missing.append(_key(f))
            continue
        cell = out[(split_of(doc, f["tree"], f["commit"]), f["rule"], "x-precision")]
        cell[1] += 1
        cell[0] += seed == "✗"
    for f in sampled_warnings(doc):
        seed = sites.get(_key(f))
        if seed is None:
            missing.append(_key(f))
            continue
        cell = out[(split_of(doc, str(f["tree"]), str(f["commit"])), str(f["rule"]), "w-precision")]
        cell[1] += 1
        cell[0] += seed in ("⚠", "✗")
    for s in doc["sites"]:  # type: ignore[attr-defined]
        if _label(s) != "✗":
            continue
        cell = out[(split_of(doc, s["tree"], s["commit"]), s["rule"], "x-recall")]
        cell[1] += 1
        cell[0] += _key(s) in errors
    if missing:
        raise SystemExit(f"{len(missing)} judged findings have no label, e.g. {missing[:3]}")
    return {k: (v[0], v[1]) for k, v in out.items()}


def table(doc: dict[str, object]) -> str:
    """A Markdown table of the figures per split and rule."""
    figs = figures(doc)
    lines = [
        "| split | rule | ✗ recall | ✗ precision | ⚠ precision |",
        "| --- | --- | --- | --- | --- |",
    ]
    for split in ("tune", "held-out", "all"):
        for rule in RULES:
            cells = []
            for metric in ("x-recall", "x-precision", "w-precision"):
                if split == "all":
                    hit = sum(figs.get((s, rule, metric), (0, 0))[0] for s in ("tune", "held-out"))
                    tot = sum(figs.get((s, rule, metric), (0, 0))[1] for s in ("tune", "held-out"))
                else:
                    hit, tot = figs.get((split, rule, metric), (0, 0))
                cells.append(f"{hit}/{tot} ({hit / tot:.2f})" if tot else "-")
            lines.append(f"| {split} | `{rule}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


_CANDIDATE_RE = re.compile(
    r"except\b|\.clone\(|deepcopy|copy_\(|SimpleNamespace|kwargs|\bAny\b|->|"
    r"time\.sleep|requests\.|urlopen|async with|\.acquire\(|^\s*(async\s+)?def\s"
)


def candidates(repo: Path, tree: str) -> None:
    """Print every added line of the tree's commits that may hold a seed pattern."""
    doc = load()
    info = doc["trees"][tree]  # type: ignore[index]
    for commit in [*info["tune"], *info["held-out"]]:
        diff = _git(repo, "diff", "-U0", f"{commit}^", commit, "--", "*.py")
        path = ""
        line = 0
        for text in diff.splitlines():
            if text.startswith("+++ "):
                path = text[6:] if text.startswith("+++ b/") else ""
            elif text.startswith("@@"):
                match = re.search(r"\+(\d+)", text)
                line = int(match.group(1)) if match else 0
            elif text.startswith("+"):
                if path and _CANDIDATE_RE.search(text[1:]):
                    print(f"{commit[:10]} {path}:{line}: {text[1:].rstrip()[:160]}")
                line += 1


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("repo", type=Path)
    rec.add_argument("tree")
    rec.add_argument("--count", type=int, default=None)
    rec.add_argument(
        "--package",
        action="append",
        default=None,
        metavar="NAME=DIR",
        help="a package the repository's CI installs: its source on PYTHONPATH",
    )
    cand = sub.add_parser("candidates")
    cand.add_argument("repo", type=Path)
    cand.add_argument("tree")
    sub.add_parser("todo")
    sub.add_parser("figures")
    args = parser.parse_args()
    if args.command == "record":
        record(args.repo, args.tree, args.count, args.package)
    elif args.command == "candidates":
        candidates(args.repo, args.tree)
    elif args.command == "todo":
        doc = load()
        sites = {_key(s) for s in doc["sites"]}  # type: ignore[attr-defined]
        judged = [f for f in doc["findings"] if f["severity"] == "error"]  # type: ignore[attr-defined]
        judged += sampled_warnings(doc)
        for f in judged:
            if _key(f) not in sites:
                print(json.dumps(f, ensure_ascii=False))
    else:
        print(table(load()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
