# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Benchmark ``policytool lock``: the offline check, and the compile next to the raw backend.

Everything resolves from wheels this script writes into a temporary directory (the
helper of ``tests/wheelhouse.py``), so no network is used and runs are comparable:

1. ``policytool lock --check`` of 5 locks (target: under 0.3 s wall, start-up included),
   next to what it replaces: recompiling each lock with ``uv pip compile`` and diffing.
2. ``policytool lock NAME`` (a fresh compile: the lock file is removed before each run)
   next to the raw backend command with the same flags on the same wheels, for uv and
   pip-tools, on a tiny index (5 packages) and a larger synthetic one (300 packages,
   900 wheels, dependency chains). Printed as ratios (policytool / raw); the target is
   an overhead under 10 %.

Run: ``/work/venv/bin/python bench/bench_lock.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
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

from tests.wheelhouse import INDEX, build_wheelhouse  # noqa: E402

BIN = Path(sys.executable).parent
POLICYTOOL = [str(BIN / "policytool")]


CACHE = Path(tempfile.gettempdir()) / "bench-lock-uv-cache"


def isolated_env() -> dict[str, str]:
    """The environment the backends get from policytool (no PIP_*/UV_*, no config files).

    Both sides share a private uv cache, so other uv users of the machine do not contend.
    """
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("PIP_", "UV_"))}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["UV_NO_CONFIG"] = "1"
    env["UV_CACHE_DIR"] = str(CACHE)
    return env


def timed(cmd: Sequence[str], cwd: Path, runs: int, before: Sequence[Path] = ()) -> float:
    """Median wall time of ``cmd`` over ``runs`` (deleting ``before`` files first)."""
    samples = []
    env = isolated_env()
    for _ in range(runs):
        for path in before:
            path.unlink(missing_ok=True)
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, check=False)
        samples.append(time.perf_counter() - start)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr.decode()}")
    return statistics.median(samples)


def paired(
    first: Sequence[str],
    second: Sequence[str],
    cwd: Path,
    runs: int,
    before: tuple[Sequence[Path], Sequence[Path]] = ((), ()),
) -> tuple[float, float]:
    """Median wall times of two commands run alternately (so load drift hits both alike).

    ``before`` holds the files to delete before each run of the first and second command.
    """
    a: list[float] = []
    b: list[float] = []
    for _ in range(runs):
        a.append(timed(first, cwd, 1, before[0]))
        b.append(timed(second, cwd, 1, before[1]))
    return statistics.median(a), statistics.median(b)


def big_index(packages: int) -> dict[str, dict[str, tuple[str, ...]]]:
    """``packages`` packages x 3 versions; package i depends on i+1 and i+7 (chains)."""
    index: dict[str, dict[str, tuple[str, ...]]] = {}
    for i in range(packages):
        deps = tuple(f"pkg{j}>=1.0" for j in (i + 1, i + 7) if j < packages)
        index[f"pkg{i}"] = {"1.0": deps, "1.1": deps, "2.0": deps}
    return index


def write_repo(
    root: Path,
    wheels: Path,
    locks: dict[str, tuple[str, str, str]],
    backend: str,
    hashes: bool = True,
) -> None:
    """A git repo with one ``.in`` per lock.

    ``locks`` maps name -> (requirements, constraint lock or "", unused).
    """
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    (root / "requirements").mkdir()
    tables = ["[tool.policytool]\n"]
    for name, (requirements, constraint, _extra) in locks.items():
        (root / "requirements" / f"{name}.in").write_text(requirements)
        tables.append(
            "[[tool.policytool.lock]]\n"
            f'name = "{name}"\n'
            f'inputs = ["requirements/{name}.in"]\n'
            f'output = "requirements/{name}.txt"\n'
            f'backend = "{backend}"\n'
            f"hashes = {'true' if hashes else 'false'}\n"
            "no-index = true\n"
            f'find-links = ["{wheels.as_posix()}"]\n'
            + (f'constraints = ["{constraint}"]\n' if constraint else "")
        )
    (root / "pyproject.toml").write_text("\n".join(tables))


def raw_command(backend: str, wheels: Path, source: str, output: str) -> list[str]:
    """The backend command a user would type for the same lock."""
    if backend == "uv":
        return [
            str(BIN / "uv"),
            "pip",
            "compile",
            "--quiet",
            "--no-header",
            "--no-config",
            "--python-version",
            f"{sys.version_info.major}.{sys.version_info.minor}",
            "--python",
            sys.executable,
            "--generate-hashes",
            "--no-index",
            "--find-links",
            str(wheels),
            "--output-file",
            output,
            source,
        ]
    return [
        str(BIN / "pip-compile"),
        "--no-config",
        "--quiet",
        "--no-header",
        "--allow-unsafe",
        "--strip-extras",
        "--generate-hashes",
        "--no-index",
        "--find-links",
        str(wheels),
        "--output-file",
        output,
        source,
    ]


def main() -> None:
    """Run the benchmarks and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-lock-"))
    try:
        small = build_wheelhouse(base / "small", INDEX)
        big = build_wheelhouse(base / "big", big_index(300))
        print(f"python {sys.version.split()[0]}, {args.runs} runs each, median wall time")

        # 1. lock --check of 5 locks.
        five = {
            "common": ("alpha<2\n", "", ""),
            "test": ("delta\nepsilon<2\n", "common", ""),
            "docs": ("gamma\n", "common", ""),
            "lint": ("beta<2\n", "common", ""),
            "e2e": ("epsilon\n", "", ""),
        }
        repo = base / "five"
        write_repo(repo, small, five, "uv")
        subprocess.run([*POLICYTOOL, "lock"], cwd=repo, check=True, capture_output=True)
        recompile_cmds = [
            raw_command("uv", small, f"requirements/{n}.in", os.devnull) for n in five
        ]
        script = " && ".join(" ".join(c) for c in recompile_cmds)
        check, recompile = paired(
            [*POLICYTOOL, "lock", "--check"], ["sh", "-c", script], repo, args.runs
        )
        noop = timed([*POLICYTOOL, "lock"], repo, args.runs)
        startup = timed([sys.executable, "-c", "import policytool.cli"], repo, args.runs)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print("\n== lock --check, 5 locks ==")
        print(f"policytool lock --check          {check * 1000:7.1f} ms   (target < 300 ms)")
        print(
            f"  of which `import policytool.cli` {startup * 1000:5.1f} ms (Python + CLI start-up)"
        )
        print(f"policytool lock (all up to date) {noop * 1000:7.1f} ms   (the no-op)")
        print(
            f"5 x uv pip compile (recompile)   {recompile * 1000:7.1f} ms   "
            f"(check / recompile = {check / recompile:.2f}x; the check needs no index)"
        )

        # 2. compile next to the raw backend.
        print("\n== policytool lock NAME vs the raw backend (fresh compile, hashes) ==")
        print(
            f"{'backend':<10} {'index':<22} {'raw':>9} {'policytool':>11} "
            f"{'ratio':>7} {'overhead':>9}"
        )
        cases = [("small", small, "delta\nepsilon\n"), ("big", big, "pkg0\npkg150\n")]
        for backend in ("uv", "pip-tools"):
            for label, wheels, requirements in cases:
                root = base / f"{backend}-{label}"
                write_repo(root, wheels, {"test": (requirements, "", "")}, backend)
                lock_file = root / "requirements/test.txt"
                raw_out = root / "raw.txt"
                runs = args.runs if backend == "uv" else max(3, args.runs // 2)
                raw_cmd = raw_command(backend, wheels, "requirements/test.in", str(raw_out))
                raw, ours = paired(
                    raw_cmd, [*POLICYTOOL, "lock", "test"], root, runs, ([raw_out], [lock_file])
                )
                count = len(list(wheels.glob("*.whl")))
                where = f"{label} ({count} wheels)"
                print(
                    f"{backend:<10} {where:<22} {raw * 1000:7.1f}ms {ours * 1000:9.1f}ms "
                    f"{ours / raw:6.2f}x {(ours - raw) * 1000:7.1f}ms"
                )
                body = lock_file.read_text().split("# body: ", 1)[1].split("\n", 1)[1]
                if body.strip() != raw_out.read_text().strip() and backend == "uv":
                    print("   note: policytool's body differs from the raw output (normalisation)")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
