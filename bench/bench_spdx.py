# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Time ``policytool check --only spdx-header`` against vLLM's own SPDX hook script.

Run: ``python bench/bench_spdx.py [--repeat N]``. It downloads the vLLM 0.33.0 source
release once (bench/_vllm.py), copies it into ``bench/.cache/spdx-work`` as a git
repository, and on the same files (``*.py``, ``*.rs``, ``*.proto``, as vLLM's hook is
configured) times:

- vLLM's ``tools/pre_commit/check_spdx_header.py FILES...`` (check, and it fixes in place;
  the work tree is already clean so nothing is written);
- ``policytool check --only spdx-header FILES...`` (the pre-commit style call);
- ``policytool check --only spdx-header`` (the full run over ``git ls-files``);
- the interpreter start-up alone, to show the work beyond it.

It prints the best wall time of N runs for each, and the ratio to vLLM's script.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _vllm import git_work_tree  # noqa: E402

CONFIG = """\
[tool.policytool.spdx]
license = "Apache-2.0"
copyright = "Copyright contributors to the vLLM project"
kinds = ["python", "rust", "proto"]
"""


def work_tree() -> Path:
    """A git copy of the vLLM tree with the bench config."""
    return git_work_tree("spdx-work", CONFIG)


def best_of(
    repeat: int, command: list[str], cwd: Path
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """The best wall time of ``repeat`` runs, and the last run's result."""
    best = float("inf")
    proc: subprocess.CompletedProcess[str] | None = None
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
        best = min(best, time.perf_counter() - start)
    assert proc is not None
    return best, proc


def main() -> int:
    """Run the comparison and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    work = work_tree()
    files = sorted(
        p
        for p in subprocess.run(
            ["git", "ls-files"], cwd=work, capture_output=True, text=True, check=True
        ).stdout.split()
        if p.endswith((".py", ".rs", ".proto"))
    )
    py = sys.executable
    policytool = [
        py,
        "-m",
        "policytool",
        "check",
        "--only",
        "spdx-header",
        "--config",
        "policytool-bench.toml",
    ]
    rows = [
        ("python start-up (baseline)", [py, "-c", "pass"]),
        ("vllm check_spdx_header.py FILES", [py, "tools/pre_commit/check_spdx_header.py", *files]),
        ("policytool check FILES", [*policytool, *files]),
        ("policytool check (git ls-files)", policytool),
    ]
    print(f"vLLM 0.33.0: {len(files)} files (*.py, *.rs, *.proto); best of {args.repeat}")
    times = {}
    for name, command in rows:
        seconds, proc = best_of(args.repeat, command, work)
        times[name] = seconds
        tail = (proc.stdout.strip().splitlines() or [""])[-1]
        print(f"  {name:<34} {seconds:7.3f} s   exit {proc.returncode}   {tail[:70]}")
    vllm = times["vllm check_spdx_header.py FILES"]
    ours = times["policytool check FILES"]
    startup = times["python start-up (baseline)"]
    print(f"ratio vllm / policytool (same files): {vllm / ours:.2f}x")
    print(f"policytool work beyond interpreter start-up: {ours - startup:.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
