# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""vLLM's real locks: ``policytool lock`` next to vLLM's own uv command lines.

Uses the network (PyPI, and whatever index a lock names). For each lock hook of vLLM
0.33.0's ``.pre-commit-config.yaml`` (``/work/trees/vllm-0.33.0`` or ``--tree``):

1. copies the whole tree (``pyproject.toml`` with its ``[tool.uv]`` settings included)
   into a scratch git repository and appends to its ``pyproject.toml`` the
   ``[tool.policytool]`` configuration shown in ``docs/lock-migration-vllm.md`` (read
   from that page, so the page and the measurement cannot drift apart);
2. runs vLLM's own command line (``uv pip compile ...`` with the hook's arguments, the
   output sent to a scratch file, in the tree, reading its ``[tool.uv]`` as the hook
   does) and ``policytool lock NAME`` with the same uv executable, both from an empty
   output, alternately, ``--runs`` times after one untimed warm-up of the uv cache;
3. compares the pins (``name==version`` and markers) of both outputs, and prints the
   median times and their ratio.

A lock neither side can resolve (an index that is not reachable from this machine) is
reported with the resolver's first line, not counted.

Run: ``python bench/bench_lock_vllm.py [--runs 3] [--only rocm,docs]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from policytool.formats.lockfile import parse_pins  # noqa: E402

BIN = Path(sys.executable).parent
UV = str(BIN / "uv")
DOC = ROOT / "docs" / "lock-migration-vllm.md"
NVIDIA = [
    f"nvidia-{name}{suffix}"
    for suffix in ("", "-cu12", "-cu13")
    for name in (
        "cublas",
        "cuda-cupti",
        "cuda-nvrtc",
        "cuda-runtime",
        "cudnn",
        "cufft",
        "cufile",
        "curand",
        "cusolver",
        "cusparse",
        "cusparselt",
        "nccl",
        "nvjitlink",
        "nvshmem",
        "nvtx",
    )
]
ROCM_NO_EMIT = [
    "torch",
    "torchvision",
    "torchaudio",
    "triton",
    "cuda-bindings",
    "cuda-pathfinder",
    "cuda-toolkit",
    "cupy-cuda12x",
    *NVIDIA,
]
COMMON = ["--python-platform", "x86_64-manylinux_2_28", "--python-version", "3.12"]
BEST = ["--index-strategy", "unsafe-best-match"]
# lock name -> vLLM's arguments after `uv pip compile` (output path replaced by -o below).
HOOKS: dict[str, tuple[list[str], str]] = {
    "test-cuda": (
        ["requirements/test/cuda.in", "-c", "requirements/cuda.txt", *BEST]
        + ["--torch-backend", "cu130", *COMMON],
        "requirements/test/cuda.txt",
    ),
    "test-rocm": (
        ["requirements/test/rocm.in", "-c", "requirements/rocm.txt", *BEST, *COMMON]
        + [arg for name in ROCM_NO_EMIT for arg in ("--no-emit-package", name)],
        "requirements/test/rocm.txt",
    ),
    "test-xpu": (
        ["requirements/test/xpu.in", "-c", "requirements/xpu.txt", *BEST]
        + ["--python-platform", "x86_64-manylinux_2_39", "--python-version", "3.12"],
        "requirements/test/xpu.txt",
    ),
    "test-cpu": (
        ["requirements/test/cuda.in", *BEST, "--torch-backend", "cpu", *COMMON],
        "requirements/test/cpu.txt",
    ),
    "docs": (["requirements/docs.in", *COMMON], "requirements/docs.txt"),
}


def doc_config() -> str:
    """The TOML block of the migration page."""
    match = re.search(r"```toml\n(.*?)```", DOC.read_text("utf-8"), re.S)
    if match is None:
        raise SystemExit(f"{DOC}: no ```toml block")
    return match.group(1)


def env() -> dict[str, str]:
    """Both sides see the same environment: no UV_*/PIP_* settings, a shared cache.

    uv reads the project's ``pyproject.toml`` (``[tool.uv]``), as vLLM's hook does;
    ``XDG_CONFIG_HOME`` points at an empty directory so no user-level ``uv.toml`` does.
    """
    out = {k: v for k, v in os.environ.items() if not k.upper().startswith(("PIP_", "UV_"))}
    out["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="bench-vllm-xdg-")
    out["PIP_CONFIG_FILE"] = os.devnull
    cache = os.environ.get("UV_CACHE_DIR")
    if cache:
        out["UV_CACHE_DIR"] = cache
    out["POLICYTOOL_UV"] = UV
    return out


def timed(
    cmd: Sequence[str], cwd: Path, remove: Path, environ: dict[str, str] | None = None
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall time of ``cmd`` after deleting ``remove`` (a fresh compile), and its result;
    run with ``environ`` (default: :func:`env`)."""
    remove.unlink(missing_ok=True)
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=cwd, env=environ or env(), capture_output=True, text=True, check=False
    )
    return time.perf_counter() - start, proc


def pins(path: Path) -> dict[str, str]:
    """``name -> version (marker)`` of a lock's exact pins."""
    out: dict[str, str] = {}
    for pin in parse_pins(path.read_text("utf-8")):
        marker = pin.text.split(";", 1)[1].strip() if ";" in pin.text else ""
        out[f"{pin.name} {marker}".strip()] = pin.version or pin.text
    return out


def first_error(proc: subprocess.CompletedProcess[str]) -> str:
    """The first meaningful line of a failed run."""
    for line in (proc.stderr or proc.stdout).splitlines():
        line = line.strip()
        if line and not line.startswith(("policytool: lock '", "warning:")):
            return line[:160]
    return f"exit {proc.returncode}"


def main() -> None:
    """Measure every selected lock and print one table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", type=Path, default=Path("/work/trees/vllm-0.33.0"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated lock names")
    args = parser.parse_args()
    wanted = [n for n in args.only.split(",") if n] or list(HOOKS)
    version = subprocess.run([UV, "--version"], capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()[0]
    print(
        f"{version}; python {sys.version.split()[0]}; load average {load:.1f} on "
        f"{os.cpu_count()} CPUs; {args.runs} runs each, median wall time, warm uv cache"
    )
    with tempfile.TemporaryDirectory(prefix="bench-vllm-") as scratch:
        repo = Path(scratch) / "vllm"
        shutil.copytree(args.tree, repo, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        project = (repo / "pyproject.toml").read_text("utf-8")
        (repo / "pyproject.toml").write_text(project + "\n" + doc_config(), "utf-8")
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
        raw_dir = Path(scratch) / "raw"
        raw_dir.mkdir()
        print(
            f"{'lock':10} {'pins':>5} {'identical':>9} {'raw uv':>9} {'policytool':>10} "
            f"{'ratio':>6} {'rederived':>9} {'--resolve':>9}"
        )
        for name in wanted:
            hook_args, output = HOOKS[name]
            raw_out = raw_dir / f"{name}.txt"
            # --python: the interpreter uv runs the resolution with, as policytool passes
            # it; without it uv searches (and here tries to download) a 3.12 first. It
            # does not change the pins (--python-version does).
            raw_cmd = [UV, "pip", "compile", *hook_args, "-o", str(raw_out)]
            raw_cmd += ["--python", sys.executable]
            ours_cmd = [str(BIN / "policytool"), "lock", name, "-q"]
            ours_out = repo / output
            _, warm = timed(raw_cmd, repo, raw_out)  # fills the uv cache for both sides
            if warm.returncode != 0:
                print(f"{name:10} not resolvable here by uv itself: {first_error(warm)}")
                continue
            raw_times: list[float] = []
            our_times: list[float] = []
            failed = ""
            for _ in range(args.runs):
                seconds, proc = timed(raw_cmd, repo, raw_out)
                raw_times.append(seconds)
                seconds, proc = timed(ours_cmd, repo, ours_out)
                if proc.returncode != 0:
                    failed = first_error(proc)
                    break
                our_times.append(seconds)
            if failed:
                print(f"{name:10} policytool failed: {failed}")
                continue
            theirs, ours = pins(raw_out), pins(ours_out)
            same = "yes" if theirs == ours else "NO"
            raw_median, our_median = statistics.median(raw_times), statistics.median(our_times)
            # Derived again from nothing at the recorded cut-off, compared byte for byte.
            start = time.perf_counter()
            again = subprocess.run(
                [str(BIN / "policytool"), "lock", "--check", "--resolve", name],
                cwd=repo,
                env=env(),
                capture_output=True,
                text=True,
                check=False,
            )
            resolve_seconds = time.perf_counter() - start
            rederived = "yes" if again.returncode == 0 else "NO"
            print(
                f"{name:10} {len(ours):5} {same:>9} {raw_median:8.2f}s {our_median:9.2f}s "
                f"{our_median / raw_median:5.2f}x {rederived:>9} {resolve_seconds:8.2f}s"
            )
            if again.returncode != 0:
                print("    " + (again.stdout or again.stderr).strip().replace("\n", "\n    "))
            if theirs != ours:
                for key in sorted(set(theirs) | set(ours)):
                    if theirs.get(key) != ours.get(key):
                        print(f"    {key}: uv {theirs.get(key)} / policytool {ours.get(key)}")
        check = subprocess.run(
            [str(BIN / "policytool"), "lock", "--check", *("--only=lock-stale",)],
            cwd=repo,
            env=env(),
            capture_output=True,
            text=True,
            check=False,
        )
        start = time.perf_counter()
        for _ in range(5):
            subprocess.run(
                [str(BIN / "policytool"), "lock", "--check"],
                cwd=repo,
                env=env(),
                capture_output=True,
                check=False,
            )
        per_check = (time.perf_counter() - start) / 5
        print(
            f"policytool lock --check over these locks: {per_check * 1000:.0f} ms "
            f"(last: {check.stdout.strip().splitlines()[-1] if check.stdout.strip() else ''})"
        )


if __name__ == "__main__":
    main()
