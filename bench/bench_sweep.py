# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool sweep`` cost follows the diff, not the repo.

Takes the vLLM 0.33.0 source release (bench/_vllm.py downloads and extracts it once
into bench/.cache), makes two git repositories of it under bench/.cache/sweep-bench:

- ``x1``: the release tree as one commit on ``main``;
- ``x10``: the same tree copied 10 times in subdirectories (10x the files);

then commits the same synthetic 50-file change on a ``feature`` branch of each (every
file gets a block with all five patterns, so every check, the cross-file kwargs key
check included, has work to do) and times the sweep as a user runs it (a new process
each run, start-up included) for the committed head, the index and the working tree:
once cold (no key map cached yet, as in a fresh CI clone), then warm, interleaving the
two trees so load from other jobs hits both alike. ``git grep -F`` of one key shows what
the key check would cost if it grepped the tree.

    python bench/bench_sweep.py [--runs 5] [--rebuild] [--release]

With ``--release`` it also times the real release diff vLLM 0.32.0 -> 0.33.0 (both
source releases, ``bench/.cache``; about +244k Python lines in 2,100 files): the sweep
warm (key map cached) with its parallel parsing and with ``--jobs 1``, beside the
code-review checklist's five ``git diff | grep`` pipelines it replaces, in one run.

Targets: a 50-file change under 1 s warm on x1, x10 not slower (same diff, 10x the
tree); the release diff under 10 s warm.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _vllm import CACHE, VERSION, vllm_tree  # noqa: E402

WORK = CACHE / "sweep-bench"
CHANGED_FILES = 50
COPIES = 10
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}

BLOCK = """

# --- synthetic change {i} (bench/bench_sweep.py) ---
import time as _bench_time  # noqa: E402
from typing import Any as _BenchAny  # noqa: E402


class _SweepBench{i}:
    def forward(self, **kwargs: object) -> object:
        return kwargs.get("bench_key_{key}")

    def load_config(self) -> None:
        try:
            self.value = {i}
        except Exception:
            pass

    def step(self, x: object, steps: list[int]) -> list[object]:
        out = []
        for _ in steps:
            out.append(x.clone())
        return out

    async def handle_bench(self, url: str) -> None:
        _bench_time.sleep(0.01)


def bench_helper_{i}(a: _BenchAny, b):
    return a
"""


def git(root: Path, *args: str) -> str:
    """Run git in ``root``; return stdout."""
    proc = subprocess.run(
        ["git", *args],
        cwd=root,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


def _copy(src: Path, dst: Path) -> None:
    """Hard-link copy (cheap); changed files are replaced, never written through."""
    shutil.copytree(src, dst, copy_function=os.link)


def _pick(files: list[str]) -> list[str]:
    """50 Python files spread over the package, serving paths included."""
    py = sorted(
        f for f in files if f.startswith("vllm/") and f.endswith(".py") and "/third_party/" not in f
    )
    serving = [f for f in py if "/engine/" in f or "/entrypoints/" in f][:10]
    rest = [f for f in py if f not in serving]
    step = max(1, len(rest) // (CHANGED_FILES - len(serving)))
    return sorted(serving + rest[::step][: CHANGED_FILES - len(serving)])


def _apply_change(root: Path, prefix: str, picked: list[str]) -> None:
    """Append the synthetic block to each picked file under ``prefix``."""
    for i, rel in enumerate(picked):
        path = root / prefix / rel
        data = path.read_bytes() + BLOCK.format(i=i, key=i % 7).encode()
        tmp = path.with_name(path.name + ".bench-tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)  # breaks the hard link: the shared tree stays untouched


def build(name: str, copies: int, rebuild: bool) -> tuple[Path, int]:
    """The repo ``name`` with ``main`` (the tree, ``copies`` times) and ``feature`` (the change)."""
    root = WORK / name
    marker = root / ".bench-ready"
    if marker.is_file() and not rebuild:
        return root, int(marker.read_text())
    if root.exists():
        shutil.rmtree(root)
    tree = vllm_tree()
    root.mkdir(parents=True)
    if copies == 1:
        for child in tree.iterdir():
            (_copy if child.is_dir() else os.link)(child, root / child.name)
        prefix = ""
    else:
        for n in range(copies):
            _copy(tree, root / f"copy{n}")
        prefix = "copy0"
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "vllm source release")
    files = [f for f in git(root, "ls-files").splitlines()]
    picked = _pick([f.removeprefix(prefix + "/") for f in files if f.startswith(prefix)])
    git(root, "checkout", "-q", "-b", "feature")
    _apply_change(root, prefix, picked)
    git(root, "commit", "-q", "-a", "-m", "synthetic 50-file change")
    git(root, "update-ref", "refs/remotes/origin/main", "main")
    marker.write_text(str(len(files)))
    return root, len(files)


def sweep_once(root: Path, args: list[str]) -> tuple[float, str]:
    """Wall seconds of ``policytool sweep ARGS`` in a new process, and its last line."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "policytool", "sweep", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"sweep failed in {root}: {proc.stderr}")
    return seconds, proc.stdout.strip().splitlines()[-1]


def git_once(root: Path, args: list[str]) -> float:
    """Wall seconds of one git command."""
    start = time.perf_counter()
    subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    return time.perf_counter() - start


MODES = {
    "--head HEAD": ["--head", "HEAD", "-q"],
    "--staged": ["--staged", "-q"],
    "working tree": ["-q"],
}
GIT_PARTS = {
    "git grep -F (one key, HEAD)": ["grep", "-F", "-n", "-z", "-I", "-e", '"bench_key_1"', "HEAD"],
    "git diff -U0 main HEAD": ["diff", "-U0", "-M", "main", "HEAD", "--", "*.py"],
}


# A code-review checklist's diff-scoped grep pipelines, for the release-diff comparison.
CHECKLIST_GREPS = (
    r"""grep -E '\*\*kwargs|kwargs(\.get|\[)|"[a-z_]+"\s+in\s+kwargs'""",
    r"""grep -E 'except\s*(Exception|BaseException)?\s*:'""",
    r"""grep -E ':\s*Any\b|->\s*Any\b'""",
    r"""grep -E '\.clone\(\)|\.copy_\(|copy\.deepcopy|deepcopy\('""",
    r"""grep -E 'time\.sleep|requests\.(get|post|put|delete)|urllib\.request|urlopen'""",
)


def build_release(rebuild: bool) -> Path:
    """A repo with vLLM 0.32.0 on ``main`` and 0.33.0 on ``feature``."""
    root = WORK / "release"
    marker = root / ".bench-ready"
    if marker.is_file() and not rebuild:
        return root
    if root.exists():
        shutil.rmtree(root)
    old, new = vllm_tree("0.32.0"), vllm_tree(VERSION)
    root.mkdir(parents=True)
    for child in old.iterdir():
        (_copy if child.is_dir() else os.link)(child, root / child.name)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A", "-f")
    git(root, "commit", "-q", "-m", "vllm 0.32.0")
    git(root, "checkout", "-q", "-b", "feature")
    for child in root.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    for child in new.iterdir():
        (_copy if child.is_dir() else os.link)(child, root / child.name)
    git(root, "add", "-A", "-f")
    git(root, "commit", "-q", "-m", "vllm 0.33.0")
    marker.write_text("ready")
    return root


def checklist_greps_once(root: Path) -> float:
    """Wall seconds of the checklist's five diff-scoped grep pipelines, run as it writes them."""
    diff = "git diff main...feature -- '*.py' | grep '^+[^+]'"
    script = "; ".join(f"{diff} | {grep} > /dev/null" for grep in CHECKLIST_GREPS)
    start = time.perf_counter()
    subprocess.run(["bash", "-c", script], cwd=root, check=False)
    return time.perf_counter() - start


def release(runs: int, rebuild: bool) -> bool:
    """Time the release diff; print the table; True when under the 10 s target."""
    root = build_release(rebuild)
    stat = git(root, "diff", "--shortstat", "main", "feature", "--", "*.py").strip()
    base_args = ["--base", "main", "--head", "feature", "-q"]
    shutil.rmtree(root / ".git" / "policytool-sweep", ignore_errors=True)
    cold, row = sweep_once(root, base_args)
    times: dict[str, list[float]] = {"sweep": [], "sweep --jobs 1": [], "checklist greps": []}
    for _ in range(runs):
        times["sweep"].append(sweep_once(root, base_args)[0])
        times["sweep --jobs 1"].append(sweep_once(root, [*base_args, "--jobs", "1"])[0])
        times["checklist greps"].append(checklist_greps_once(root))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\nrelease diff vLLM 0.32.0 -> {VERSION} ({stat}), {runs} runs, median\n")
    print("| sweep cold | sweep warm | sweep warm --jobs 1 | checklist's 5 greps | sweep / greps |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    print(
        f"| {cold:.1f} s | {med['sweep']:.1f} s | {med['sweep --jobs 1']:.1f} s | "
        f"{med['checklist greps']:.2f} s | {med['sweep'] / med['checklist greps']:.0f}x |"
    )
    print(f"\nreport row: {row}")
    return med["sweep"] < 10.0


def main() -> int:
    """Build both trees, time the sweeps, print tables; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description="policytool sweep: cost follows the diff")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rebuild", action="store_true", help="rebuild the bench repositories")
    parser.add_argument("--release", action="store_true", help="also time the release diff")
    args = parser.parse_args()
    trees = {
        name: build(name, copies, args.rebuild) for name, copies in (("x1", 1), ("x10", COPIES))
    }
    python_files = {
        name: sum(1 for f in git(root, "ls-files").splitlines() if f.endswith(".py"))
        for name, (root, _tracked) in trees.items()
    }
    cold: dict[str, float] = {}
    rows: dict[tuple[str, str], list[float]] = {}
    last: dict[str, str] = {}
    for name, (root, _tracked) in trees.items():
        # Cold: no key map yet (a fresh clone in CI): every Python blob is scanned once.
        shutil.rmtree(root / ".git" / "policytool-sweep", ignore_errors=True)
        cold[name], last[name] = sweep_once(root, MODES["--head HEAD"])
    # Warm runs interleave the trees so load from other jobs hits both alike.
    for _ in range(args.runs):
        for label, sweep_args in MODES.items():
            for name, (root, _tracked) in trees.items():
                rows.setdefault((name, label), []).append(sweep_once(root, sweep_args)[0])
        for label, git_args in GIT_PARTS.items():
            for name, (root, _tracked) in trees.items():
                rows.setdefault((name, label), []).append(git_once(root, git_args))
    med = {key: statistics.median(times) for key, times in rows.items()}
    low = {key: min(times) for key, times in rows.items()}
    print(f"policytool sweep, {CHANGED_FILES}-file change, new process per run, {args.runs} runs\n")
    print(
        "| tree | tracked files | Python files | cold key map | "
        + " | ".join(f"{m} (median / min)" for m in MODES)
        + " | report row |"
    )
    print("| --- | ---: | ---: | ---: |" + " ---: |" * len(MODES) + " --- |")
    for name, (_root, tracked) in trees.items():
        cells = " | ".join(f"{med[(name, m)]:.2f} s / {low[(name, m)]:.2f} s" for m in MODES)
        head = f"| {name} | {tracked} | {python_files[name]} | {cold[name]:.2f} s"
        row = last[name].strip("| ").replace(" | ", ", ")  # no `|` inside a table cell
        print(f"{head} | {cells} | {row} |")
    print("\nfor scale, git alone on the same trees (median):\n")
    print("| tree | " + " | ".join(GIT_PARTS) + " |")
    print("| --- |" + " ---: |" * len(GIT_PARTS))
    for name in trees:
        print(f"| {name} | " + " | ".join(f"{med[(name, p)]:.3f} s" for p in GIT_PARTS) + " |")
    ratios = ", ".join(f"{m} {med[('x10', m)] / med[('x1', m)]:.2f}x" for m in MODES)
    print(f"\nx10 / x1 (median): {ratios}")
    fast = all(med[("x1", m)] < 1.0 for m in MODES)
    if args.release:
        fast = release(args.runs, args.rebuild) and fast
    return 0 if fast else 1


if __name__ == "__main__":
    sys.exit(main())
