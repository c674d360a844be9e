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

    python bench/bench_sweep.py [--runs 5] [--rebuild] [--release | --release-only]
                                [--baseline DIR]

With ``--release`` it also times the real release diff vLLM 0.32.0 -> 0.33.0 (both
source releases, ``bench/.cache``; about +244k Python lines in 2,100 files): the sweep
warm (key map cached) with its parallel parsing and with ``--jobs 1``, beside the
code-review checklist's five ``git diff | grep`` pipelines it replaces, in one run, with
each run's wall time, CPU time (user + sys, git and worker processes included) and peak
resident memory of the largest process. ``--release-only`` skips the 50-file trees.
``--baseline DIR`` runs another policytool (``DIR`` holds its ``policytool`` package,
e.g. ``git archive REV policytool | tar -x -C DIR``) alternately with this one on the
release diff, for before/after ratios under the same load. The load average (``uptime``)
is printed before and after: wall times on a shared machine move with it.

Targets: a 50-file change under 1 s warm on x1, x10 not slower (same diff, 10x the
tree); the release diff under 10 s warm.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _vllm import CACHE, VERSION, source_tree, vllm_tree  # noqa: E402

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


@dataclass(frozen=True)
class Timing:
    """One sweep run: wall and CPU seconds, peak RSS in MB, the report's last line."""

    wall: float
    cpu: float
    rss_mb: float
    last: str


def compile_bytecode(package: Path) -> None:
    """Byte-compile ``package`` as ``pip install`` does for a wheel's modules.

    Without it a machine that sets ``PYTHONDONTWRITEBYTECODE`` (this one and many CI
    images do) would time Python compiling policytool's source on every run, which no
    installed copy does: an installed copy reads the ``.pyc`` files pip wrote.
    """
    if not compileall.compile_dir(str(package), quiet=1):
        raise SystemExit(f"byte-compiling {package} failed")


def sweep_once(root: Path, args: list[str], pythonpath: Path | None = None) -> Timing:
    """``policytool sweep ARGS`` in a new process (``pythonpath``: another policytool).

    CPU and peak RSS come from ``wait4``: the sweep with its git and worker processes.
    """
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "policytool", "sweep", *args],
            cwd=root,
            env=env,
            stdout=out,
            stderr=err,
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"sweep failed in {root}: {stderr}")
    last = stdout.strip().splitlines()[-1] if stdout.strip() else ""
    return Timing(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, last)


def load() -> str:
    """The load averages over 1, 5 and 15 minutes, and the CPU count."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


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


def build_release(
    rebuild: bool, project: str = "vllm", old_version: str = "0.32.0", new_version: str = VERSION
) -> Path:
    """A repo with ``project``'s ``old_version`` source release on ``main`` and
    ``new_version`` on ``feature`` (vLLM 0.32.0 -> 0.33.0 by default)."""
    default = (project, old_version, new_version) == ("vllm", "0.32.0", VERSION)
    root = WORK / ("release" if default else f"release-{project}-{old_version}-{new_version}")
    marker = root / ".bench-ready"
    if marker.is_file() and not rebuild:
        return root
    if root.exists():
        shutil.rmtree(root)
    old, new = source_tree(project, old_version), source_tree(project, new_version)
    root.mkdir(parents=True)
    for child in old.iterdir():
        (_copy if child.is_dir() else os.link)(child, root / child.name)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A", "-f")
    git(root, "commit", "-q", "-m", f"{project} {old_version}")
    git(root, "checkout", "-q", "-b", "feature")
    for child in root.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    for child in new.iterdir():
        (_copy if child.is_dir() else os.link)(child, root / child.name)
    git(root, "add", "-A", "-f")
    git(root, "commit", "-q", "-m", f"{project} {new_version}")
    marker.write_text("ready")
    return root


def checklist_greps_once(root: Path) -> float:
    """Wall seconds of the checklist's five diff-scoped grep pipelines, run as it writes them."""
    diff = "git diff main...feature -- '*.py' | grep '^+[^+]'"
    script = "; ".join(f"{diff} | {grep} > /dev/null" for grep in CHECKLIST_GREPS)
    start = time.perf_counter()
    subprocess.run(["bash", "-c", script], cwd=root, check=False)
    return time.perf_counter() - start


def release(runs: int, rebuild: bool, baseline: Path | None = None) -> bool:
    """Time the release diff; print the table; True when under the 10 s target."""
    root = build_release(rebuild)
    stat = git(root, "diff", "--shortstat", "main", "feature", "--", "*.py").strip()
    base_args = ["--base", "main", "--head", "feature", "-q"]
    print(f"\nrelease diff: {load()} before")
    shutil.rmtree(root / ".git" / "policytool-sweep", ignore_errors=True)
    cold = sweep_once(root, base_args)
    rows: dict[str, list[Timing]] = {"sweep": [], "sweep --jobs 1": []}
    if baseline is not None:
        rows.update({"baseline sweep": [], "baseline sweep --jobs 1": []})
    greps: list[float] = []
    for _ in range(runs):
        for label, jobs in (("sweep", []), ("sweep --jobs 1", ["--jobs", "1"])):
            rows[label].append(sweep_once(root, [*base_args, *jobs]))
            if baseline is not None:
                rows[f"baseline {label}"].append(sweep_once(root, [*base_args, *jobs], baseline))
        greps.append(checklist_greps_once(root))
    after = load()
    med = {k: statistics.median(t.wall for t in v) for k, v in rows.items()}
    grep = statistics.median(greps)
    print(f"release diff vLLM 0.32.0 -> {VERSION} ({stat}), {runs} runs, median\n")
    print("| run | wall | CPU (user + sys) | peak RSS | / checklist's 5 greps |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(
        f"| sweep cold (no key map) | {cold.wall:.1f} s | {cold.cpu:.1f} s | "
        f"{cold.rss_mb:.0f} MB | {cold.wall / grep:.1f}x |"
    )
    for label, timings in rows.items():
        wall = med[label]
        cpu = statistics.median(t.cpu for t in timings)
        rss = max(t.rss_mb for t in timings)
        print(f"| {label}, warm | {wall:.1f} s | {cpu:.1f} s | {rss:.0f} MB | {wall / grep:.1f}x |")
    print(f"| checklist's 5 `git diff \\| grep` | {grep:.2f} s | | | 1x |")
    if baseline is not None:
        for label in ("sweep", "sweep --jobs 1"):
            cpu_new = statistics.median(t.cpu for t in rows[label])
            cpu_old = statistics.median(t.cpu for t in rows[f"baseline {label}"])
            print(
                f"\n{label} / baseline: wall {med[label] / med[f'baseline {label}']:.2f}x, "
                f"CPU {cpu_new / cpu_old:.2f}x",
                end="",
            )
        print()
    print(f"\nreport row: {rows['sweep'][-1].last}")
    print(f"{after} after")
    return med["sweep"] < 10.0


def main() -> int:
    """Build both trees, time the sweeps, print tables; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description="policytool sweep: cost follows the diff")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rebuild", action="store_true", help="rebuild the bench repositories")
    parser.add_argument("--release", action="store_true", help="also time the release diff")
    parser.add_argument("--release-only", action="store_true", help="time only the release diff")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a directory holding another policytool package, run beside this one",
    )
    args = parser.parse_args()
    import policytool  # the copy the timed processes run (`python -m policytool`)

    compile_bytecode(Path(policytool.__file__).parent)
    if args.baseline is not None:
        compile_bytecode(args.baseline / "policytool")
    print("bytecode compiled first, as `pip install` does (.pyc read, not rebuilt per run)")
    if args.release_only:
        return 0 if release(args.runs, args.rebuild, args.baseline) else 1
    print(f"{load()} before")
    trees = {
        name: build(name, copies, args.rebuild) for name, copies in (("x1", 1), ("x10", COPIES))
    }
    python_files = {
        name: sum(1 for f in git(root, "ls-files").splitlines() if f.endswith(".py"))
        for name, (root, _tracked) in trees.items()
    }
    cold: dict[str, Timing] = {}
    rows: dict[tuple[str, str], list[Timing]] = {}
    gits: dict[tuple[str, str], list[float]] = {}
    for name, (root, _tracked) in trees.items():
        # Cold: no key map yet (a fresh clone in CI): every Python blob is scanned once.
        shutil.rmtree(root / ".git" / "policytool-sweep", ignore_errors=True)
        cold[name] = sweep_once(root, MODES["--head HEAD"])
    # Warm runs interleave the trees so load from other jobs hits both alike.
    for _ in range(args.runs):
        for label, sweep_args in MODES.items():
            for name, (root, _tracked) in trees.items():
                rows.setdefault((name, label), []).append(sweep_once(root, sweep_args))
        for label, git_args in GIT_PARTS.items():
            for name, (root, _tracked) in trees.items():
                gits.setdefault((name, label), []).append(git_once(root, git_args))
    med = {key: statistics.median(t.wall for t in times) for key, times in rows.items()}
    low = {key: min(t.wall for t in times) for key, times in rows.items()}
    cpu = {key: statistics.median(t.cpu for t in times) for key, times in rows.items()}
    print(f"policytool sweep, {CHANGED_FILES}-file change, new process per run, {args.runs} runs\n")
    print(
        "| tree | tracked files | Python files | cold key map | "
        + " | ".join(f"{m} (median / min; CPU)" for m in MODES)
        + " | report row |"
    )
    print("| --- | ---: | ---: | ---: |" + " ---: |" * len(MODES) + " --- |")
    for name, (_root, tracked) in trees.items():
        cells = " | ".join(
            f"{med[(name, m)]:.2f} s / {low[(name, m)]:.2f} s; {cpu[(name, m)]:.2f} s"
            for m in MODES
        )
        head = f"| {name} | {tracked} | {python_files[name]} | {cold[name].wall:.2f} s"
        row = cold[name].last.strip("| ").replace(" | ", ", ")  # no `|` inside a table cell
        print(f"{head} | {cells} | {row} |")
    print("\nfor scale, git alone on the same trees (median):\n")
    print("| tree | " + " | ".join(GIT_PARTS) + " |")
    print("| --- |" + " ---: |" * len(GIT_PARTS))
    for name in trees:
        cells = " | ".join(f"{statistics.median(gits[(name, p)]):.3f} s" for p in GIT_PARTS)
        print(f"| {name} | {cells} |")
    ratios = ", ".join(f"{m} {med[('x10', m)] / med[('x1', m)]:.2f}x" for m in MODES)
    print(f"\nx10 / x1 (median): {ratios}")
    print(f"{load()} after")
    fast = all(med[("x1", m)] < 1.0 for m in MODES)
    if args.release:
        fast = release(args.runs, args.rebuild, args.baseline) and fast
    return 0 if fast else 1


if __name__ == "__main__":
    sys.exit(main())
