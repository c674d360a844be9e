# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Every labelled sweep corpus, rebuilt and re-recorded from this checkout on a new machine.

The labels live in ``bench/sweep_blind_*.json``, ``bench/sweep_unseen.json`` and
``bench/sweep_commits.json`` (a *set* is the part of the name after ``sweep_``'s prefix:
``a`` .. ``ze``, ``unseen``, ``commits``); the clones and packages they were recorded
with do not: this script brings them back, records every tree with this checkout's code
and sums the figures.

    # clone each tree's repository from a directory of mirrors (``owner+name/repo`` git
    # directories, as the search tool's fetch leaves them, or plain clones)
    python bench/sweep_corpora.py clones --mirrors /work/.mirror [SET ...]
    # record every tree (findings written into the set's JSON), two sets at a time
    python bench/sweep_corpora.py record --jobs 2 [SET ...]
    # ✗ recall, ✗ precision and ⚠ precision summed over sets, per rule
    python bench/sweep_corpora.py totals [--reading blind|post-run] [SET ...]
    # findings that differ between this checkout's JSONs and another checkout's
    python bench/sweep_corpora.py diff OTHER_CHECKOUT [SET ...]
    # each judged site where the sweep and the labels disagree (miss, wrong ✗, wrong ⚠)
    python bench/sweep_corpora.py misses [--reading blind|post-run] [--rule RULE] [SET ...]
    # the findings of the two release diffs (vLLM 0.32.0 -> 0.33.0, vllm-omni 0.18.0 ->
    # 0.20.0; the source releases made into git repos), and what moved between two runs
    python bench/sweep_corpora.py releases OUT.json
    python bench/sweep_corpora.py releases-diff BEFORE.json AFTER.json

Without SET every set is meant. Clones go to ``bench/.cache/clones/owner+name`` and
packages to ``bench/.cache/packages`` (``pip download --no-deps NAME==VERSION``, the
wheel unzipped; vLLM from its source release as ``bench/_vllm.py`` fetches it): nothing
is installed or imported. A tree's ``packages`` entries keep the directory they were
first recorded with; the rebuilt directories go on the sweep's ``PYTHONPATH`` after
them, so the JSONs do not change with the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _vllm  # noqa: E402
import bench_sweep  # noqa: E402
import sweep_commits  # noqa: E402
import sweep_unseen  # noqa: E402

CACHE = HERE / ".cache"
CLONES = CACHE / "clones"
PACKAGES = CACHE / "packages"
METRICS = ("x-recall", "x-precision", "w-precision")
# The release diffs every rule change is checked on: (project, old, new) source releases.
RELEASES = (("vllm", "0.32.0", "0.33.0"), ("vllm-omni", "0.18.0", "0.20.0"))
# A snapshot that lacks a blob outside the Python sources (docling, datatrove) is
# checked out sparsely: what the sweep reads; without YAML and Markdown when a blob of
# those is missing too (pydantic-ai's test cassettes).
SPARSE = (
    ("*.py", "*.pyi", "py.typed", "*.toml", "*.cfg", "*.ini", "*.yaml", "*.yml", "*.md"),
    ("*.py", "*.pyi", "py.typed", "*.toml", "*.cfg", "*.ini"),
)


def set_path(name: str) -> Path:
    """The JSON of set ``name``."""
    if name in ("unseen", "commits"):
        return HERE / f"sweep_{name}.json"
    return HERE / f"sweep_blind_{name}.json"


def all_sets() -> list[str]:
    """Every set, blind sets in the order they were sealed, then the older two."""
    blind = sorted(
        (p.stem.removeprefix("sweep_blind_") for p in HERE.glob("sweep_blind_*.json")),
        key=lambda s: (len(s), s),
    )
    return [*blind, "unseen", "commits"]


def _trees(name: str) -> dict[str, dict[str, object]]:
    doc = sweep_commits.load(set_path(name))
    trees = doc["trees"]
    assert isinstance(trees, dict)
    return trees


# What a repository and a package spec may be: the JSONs come from pull requests too, and
# each names a directory under bench/.cache.
_REPO_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*")
_SPEC_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*==[A-Za-z0-9][A-Za-z0-9_.+!-]*")


def repo_of(info: dict[str, object], tree: str) -> str:
    """``owner/name`` of a tree (the first corpus stored ``sweep22-owner+name``)."""
    repo = str(info.get("repo", tree)).removeprefix("sweep22-").replace("+", "/")
    if not _REPO_RE.fullmatch(repo) or ".." in repo:
        raise SystemExit(f"{tree}: not an owner/name repository: {repo!r}")
    return repo


def clone_dir(repo: str) -> Path:
    """Where the clone of ``owner/name`` lives."""
    return CLONES / repo.replace("/", "+")


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, check=False)


def make_clone(repo: str, mirrors: Path) -> Path:
    """Clone ``owner/name`` from its mirror once; a snapshot missing a blob is checked
    out sparsely (see :data:`SPARSE`); nothing is left behind when every way fails."""
    target = clone_dir(repo)
    if (target / ".git").is_dir():
        return target
    source = mirrors / repo.replace("/", "+")
    if (source / "repo").is_dir():
        source = source / "repo"
    if not source.is_dir():
        raise SystemExit(f"{repo}: no mirror at {source}")
    target.parent.mkdir(parents=True, exist_ok=True)
    proc = _run("git", "clone", "-q", str(source), str(target))
    if proc.returncode == 0:
        return target
    for patterns in SPARSE:
        _run("rm", "-rf", str(target))
        proc = _run("git", "clone", "-q", "--no-checkout", str(source), str(target))
        if proc.returncode != 0:
            break
        _run("git", "sparse-checkout", "set", "--no-cone", *patterns, cwd=target)
        proc = _run("git", "checkout", "-q", "-f", "HEAD", cwd=target)
        if proc.returncode == 0:
            print(f"{repo}: sparse checkout of {' '.join(patterns)}", file=sys.stderr)
            return target
    _run("rm", "-rf", str(target))
    raise SystemExit(f"{repo}: {proc.stderr.strip()[-500:]}")


def package_dir(spec: str) -> Path:
    """The unpacked ``NAME==VERSION`` (the part of a tree's ``packages`` entry before
    its ``=DIR``), downloaded once."""
    if not _SPEC_RE.fullmatch(spec) or ".." in spec:
        raise SystemExit(f"not a NAME==VERSION package: {spec!r}")
    name, version = spec.split("==", 1)
    if name == "vllm":
        return _vllm.vllm_tree(version)
    target = PACKAGES / f"{name}-{version}"
    if target.is_dir():
        return target
    PACKAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=PACKAGES) as tmp:
        # Only the Python sources are read, so a wheel built for another CPython or a
        # newer manylinux serves as well (megatron-core 0.19.2 has cp312+ wheels only).
        for target_python in ((), *(("--python-version", v) for v in ("3.12", "3.13"))):
            platforms = ("--platform", "manylinux_2_28_x86_64") if target_python else ()
            proc = _run(
                sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                "--only-binary", ":all:", *target_python, *platforms,
                f"{name}=={version}", "-d", tmp,
            )  # fmt: skip
            wheels = list(Path(tmp).glob("*.whl"))
            if wheels:
                break
        else:
            raise SystemExit(f"{spec}: no wheel ({proc.stderr.strip()[-300:]})")
        unpacked = Path(tmp) / "unpacked"
        with zipfile.ZipFile(wheels[0]) as wheel:
            wheel.extractall(unpacked)
        os.replace(unpacked, target)
    return target


def _specs(info: dict[str, object]) -> list[str]:
    entries = info.get("packages") or []
    assert isinstance(entries, list)
    return [str(entry).rsplit("=", 1)[0] for entry in entries]


def record_set(name: str) -> str:
    """Record every tree of set ``name`` from its clone; a line for the log."""
    path = set_path(name)
    for tree, info in _trees(name).items():
        repo = clone_dir(repo_of(info, tree))
        if not (repo / ".git").is_dir():
            raise SystemExit(f"{name}/{tree}: no clone at {repo} (run `clones` first)")
        dirs = [str(package_dir(spec)) for spec in _specs(info)]
        kept = os.environ.get("PYTHONPATH", "")
        # after the stored directories (which record() puts first), so that a machine
        # that still has them reads the very files the set was recorded with
        os.environ["PYTHONPATH"] = os.pathsep.join([*dirs, *([kept] if kept else [])])
        try:
            if name == "commits":
                sweep_commits.record(repo, tree, None)
            else:
                sweep_unseen.record(repo, tree, path)
        finally:
            os.environ["PYTHONPATH"] = kept
    return f"{name}: recorded"


def _record_apart(name: str) -> int:
    """Record set ``name`` in a process of its own; its exit status."""
    return subprocess.run(
        [sys.executable, __file__, "record", "--jobs", "1", name], check=False
    ).returncode


def totals(names: list[str], reading: str) -> str:
    """The figures of ``names`` summed per rule (``commits`` by its own metric, both
    splits together), as a Markdown table."""
    sums: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for name in names:
        doc = sweep_commits.load(set_path(name))
        if name == "commits":
            figs = sweep_commits.figures(doc)
        else:
            figs = sweep_unseen.figures(doc, reading)
        # a corpus with two splits (commits: tune, held-out) adds both to the rule's cell
        for (_split, rule, metric), (hit, tot) in figs.items():
            sums[(rule, metric)][0] += hit
            sums[(rule, metric)][1] += tot
    lines = ["| rule | ✗ recall | ✗ precision | ⚠ precision |", "| --- | --- | --- | --- |"]
    for rule in [*sweep_commits.RULES, "all"]:
        cells = []
        for metric in METRICS:
            if rule == "all":
                hit = sum(v[0] for k, v in sums.items() if k[1] == metric)
                tot = sum(v[1] for k, v in sums.items() if k[1] == metric)
            else:
                hit, tot = sums.get((rule, metric), (0, 0))
            cells.append(f"{hit}/{tot} ({hit / tot:.2f})" if tot else "-")
        lines.append(f"| `{rule}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _findings(path: Path) -> set[tuple[object, ...]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {
        (f["tree"], f["commit"], f["path"], f["line"], f["rule"], f["severity"], f["message"])
        for f in doc["findings"]
    }


def diff(other: Path, names: list[str]) -> int:
    """Print the findings that differ from ``other``'s JSONs; the number of differences."""
    count = 0
    for name in names:
        theirs = other / "bench" / set_path(name).name
        if not theirs.is_file():
            continue
        mine, old = _findings(set_path(name)), _findings(theirs)
        for sign, group in (("-", old - mine), ("+", mine - old)):
            for f in sorted(group, key=str):
                print(f"{name} {sign} {f[0]} {str(f[1])[:10]} {f[2]}:{f[3]} {f[4]} {f[5]}: {f[6]}")
                count += 1
    return count


def disagreements(doc: dict[str, object], reading: str, rule: str | None = None) -> list[str]:
    """One line per judged site where the sweep and the labels (``reading``) disagree,
    the label's reason and the finding's message under it: ``miss`` (labelled ✗, no ✗
    there), ``wrong-x`` (a ✗ labelled otherwise), ``wrong-w`` (a sampled ⚠ labelled
    '-'). What a round reads before it changes a rule."""
    labels = sweep_unseen.labels(doc, reading)
    reasons = {
        sweep_commits._key(s): str(s.get("reason", ""))
        for s in doc["sites"]  # type: ignore[attr-defined]
    }
    messages = {
        sweep_commits._key(f): str(f["message"])
        for f in doc["findings"]  # type: ignore[attr-defined]
    }
    errors = {
        sweep_commits._key(f)
        for f in doc["findings"]  # type: ignore[attr-defined]
        if f["severity"] == "error"
    }
    found: list[tuple[str, tuple[str, str, str, int, str], str]] = []
    for site, label in labels.items():
        if label == "✗" and site not in errors:
            found.append(("miss", site, label))
    for site in errors:
        if labels.get(site, "unlabelled") != "✗":
            found.append(("wrong-x", site, labels.get(site, "unlabelled")))
    for f in sweep_commits.sampled_warnings(doc):
        site = sweep_commits._key(f)
        if labels.get(site, "unlabelled") not in ("⚠", "✗"):
            found.append(("wrong-w", site, labels.get(site, "unlabelled")))
    lines: list[str] = []
    for kind, (tree, commit, path, line, rule_name), label in sorted(found):
        if rule is not None and rule_name != rule:
            continue
        site = (tree, commit, path, line, rule_name)
        lines.append(f"{kind} {rule_name} {tree} {commit[:8]} {path}:{line} label {label}")
        lines.append(f"    label: {reasons.get(site, '')[:300]}")
        if site in messages:
            lines.append(f"    found: {messages[site][:300]}")
    return lines


def releases(out: Path) -> None:
    """Sweep each release diff of :data:`RELEASES` (``main`` the old release, ``feature``
    the new) with this checkout's code; write ``{"PROJECT OLD -> NEW": findings}``."""
    found: dict[str, list[dict[str, object]]] = {}
    for project, old, new in RELEASES:
        root = bench_sweep.build_release(False, project, old, new)
        start = time.perf_counter()
        proc = _run(
            sys.executable, "-m", "policytool", "sweep", "--base", "main", "--two-dot",
            "--head", "feature", "--format", "json", "--fail-on", "never", cwd=root,
        )  # fmt: skip
        if proc.returncode != 0:
            raise SystemExit(f"{project}: {proc.stderr.strip()[-500:]}")
        name = f"{project} {old} -> {new}"
        found[name] = json.loads(proc.stdout)
        counts = sorted(Counter(f"{f['rule']} {f['severity']}" for f in found[name]).items())
        took = time.perf_counter() - start
        print(f"{name}: {len(found[name])} findings in {took:.1f} s: {dict(counts)}")
    out.write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def releases_diff(before: Path, after: Path) -> int:
    """Print the release-diff findings that moved between two ``releases`` files; how many."""
    old = json.loads(before.read_text(encoding="utf-8"))
    new = json.loads(after.read_text(encoding="utf-8"))
    count = 0
    for name in sorted(set(old) | set(new)):
        key = ("path", "line", "rule", "severity", "message")
        mine = {tuple(f[k] for k in key) for f in new.get(name, [])}
        theirs = {tuple(f[k] for k in key) for f in old.get(name, [])}
        for sign, group in (("-", theirs - mine), ("+", mine - theirs)):
            for f in sorted(group, key=str):
                print(f"{name} {sign} {f[0]}:{f[1]} {f[2]} {f[3]}: {f[4]}")
                count += 1
    print(f"{count} findings moved", file=sys.stderr)
    return count


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    clones = sub.add_parser("clones", help="clone each tree's repository from its mirror")
    clones.add_argument("--mirrors", type=Path, required=True)
    record = sub.add_parser("record", help="record every tree with this checkout's code")
    record.add_argument("--jobs", type=int, default=2)
    tot = sub.add_parser("totals", help="figures summed over sets")
    tot.add_argument("--reading", choices=sweep_unseen.READINGS, default="post-run")
    other = sub.add_parser("diff", help="findings that differ from another checkout's")
    other.add_argument("other", type=Path)
    miss = sub.add_parser("misses", help="judged sites where the sweep and the labels differ")
    miss.add_argument("--reading", choices=sweep_unseen.READINGS, default="post-run")
    miss.add_argument("--rule", choices=sweep_commits.RULES)
    for command in (clones, record, tot, other, miss):
        command.add_argument("sets", nargs="*", metavar="SET")
    rel = sub.add_parser("releases", help="sweep the release diffs into a JSON file")
    rel.add_argument("out", type=Path)
    rel_diff = sub.add_parser("releases-diff", help="release-diff findings that moved")
    rel_diff.add_argument("before", type=Path)
    rel_diff.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "releases":
        releases(args.out)
        return 0
    if args.command == "releases-diff":
        return 1 if releases_diff(args.before, args.after) else 0
    names: list[str] = args.sets or all_sets()
    unknown = [n for n in names if not set_path(n).is_file()]
    if unknown:
        parser.error(f"no such set: {', '.join(unknown)} (known: {' '.join(all_sets())})")
    if args.command == "clones":
        for name in names:
            for tree, info in _trees(name).items():
                print(f"{name}/{tree}: {make_clone(repo_of(info, tree), args.mirrors)}")
                for spec in _specs(info):
                    print(f"  {spec}: {package_dir(spec)}")
    elif args.command == "record" and args.jobs <= 1:
        for name in names:
            print(record_set(name), flush=True)
    elif args.command == "record":
        # one process per set: a set's trees share its JSON, sets share nothing
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            failed = [
                name
                for name, code in zip(names, pool.map(_record_apart, names), strict=True)
                if code != 0
            ]
        if failed:
            print(f"failed: {' '.join(failed)}", file=sys.stderr)
            return 1
    elif args.command == "totals":
        print(totals(names, args.reading))
    elif args.command == "misses":
        for name in names:
            doc = sweep_commits.load(set_path(name))
            for line in disagreements(doc, args.reading, args.rule):
                print(f"{name} {line}" if not line.startswith(" ") else line)
    else:
        return 1 if diff(args.other, names) else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
