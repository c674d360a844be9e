# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Real repositories' pip-compile locks: ``policytool lock`` next to their own command.

Uses the network (PyPI). For each lock of a repository checkout, ``--repo KIND=PATH``:

- ``warehouse``: a clone of pypa/warehouse, whose locks say ``pip-compile
  --allow-unsafe --generate-hashes --output-file=requirements/X.txt requirements/X.in``
  (``hashes = true``, ``strip-extras = false``: pip-compile 7 keeps extras);
- ``aiohttp``: a clone of aio-libs/aiohttp, whose locks say ``pip-compile
  --allow-unsafe --strip-extras --output-file=requirements/X.txt requirements/X.in``;

1. copies the checkout into a scratch git repository and appends to its
   ``pyproject.toml`` one ``[[tool.policytool.lock]]`` per lock (``backend =
   "pip-tools"`` and the keys above);
2. runs the project's own command line (output to a scratch file) and ``policytool lock
   NAME``, both from an empty output, alternately, ``--runs`` times;
3. compares pins (with extras and markers) and the set of hashes of every pin, prints the
   median times and their ratio, then ``policytool lock --check --resolve NAME``.

Run: ``python bench/bench_lock_repos.py --repo warehouse=/tmp/warehouse --only docs,deploy``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_lock_vllm import timed as timed_with  # noqa: E402

from policytool.formats.lockfile import parse_pins  # noqa: E402

BIN = Path(sys.executable).parent
# kind -> (pip-compile flags of the project's own command, policytool keys)
KINDS = {
    "warehouse": (["--allow-unsafe", "--generate-hashes"], "hashes = true\nstrip-extras = false\n"),
    "aiohttp": (["--allow-unsafe", "--strip-extras"], ""),
}


def env() -> dict[str, str]:
    """No PIP_*/UV_* settings and no pip.conf for either side."""
    out = {k: v for k, v in os.environ.items() if not k.upper().startswith(("PIP_", "UV_"))}
    out["PIP_CONFIG_FILE"] = os.devnull
    return out


def config(names: list[str], keys: str) -> str:
    """The ``[[tool.policytool.lock]]`` tables of the selected locks."""
    tables = [
        "[[tool.policytool.lock]]\n"
        f'name = "{name}"\ninputs = ["requirements/{name}.in"]\n'
        f'output = "requirements/{name}.txt"\nbackend = "pip-tools"\n{keys}'
        for name in names
    ]
    return "\n[tool.policytool]\n\n" + "\n".join(tables)


def pins(path: Path) -> dict[str, tuple[str, frozenset[str]]]:
    """``requirement (extras, marker) -> (version, hashes)`` of a lock."""
    out: dict[str, tuple[str, frozenset[str]]] = {}
    for pin in parse_pins(path.read_text("utf-8")):
        head = pin.text.split("==", 1)[0].strip()
        marker = pin.text.split(";", 1)[1].strip() if ";" in pin.text else ""
        out[f"{head} {marker}".strip().lower()] = (pin.version or pin.text, frozenset(pin.hashes))
    return out


def main() -> None:
    """Measure every selected lock and print one table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True, help="KIND=PATH (warehouse, aiohttp)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", required=True, help="comma-separated lock names")
    args = parser.parse_args()
    kind, _eq, where = args.repo.partition("=")
    flags, keys = KINDS[kind]
    wanted = [n for n in args.only.split(",") if n]
    version = subprocess.run(
        [str(BIN / "pip-compile"), "--version"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"{version}; python {sys.version.split()[0]}; load average {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} CPUs; {args.runs} runs each, median wall time"
    )
    with tempfile.TemporaryDirectory(prefix="bench-repos-") as scratch:
        repo = Path(scratch) / kind
        shutil.copytree(Path(where), repo, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        project = repo / "pyproject.toml"
        project.write_text(
            (project.read_text("utf-8") if project.exists() else "") + config(wanted, keys),
            "utf-8",
        )
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
        print(f"{kind}: pip-compile {' '.join(flags)}")
        print(
            f"{'lock':8} {'pins':>5} {'hashes':>6} {'extras':>6} {'identical':>9} "
            f"{'pip-compile':>11} {'policytool':>10} {'ratio':>6} {'rederived':>9}"
        )
        for name in wanted:
            raw_out = Path(scratch) / f"{name}.txt"
            raw_cmd = [str(BIN / "pip-compile"), *flags]
            raw_cmd += ["--no-header", "--output-file", str(raw_out), f"requirements/{name}.in"]
            ours_cmd = [str(BIN / "policytool"), "lock", name, "-q"]
            ours_out = repo / "requirements" / f"{name}.txt"
            raw_times: list[float] = []
            our_times: list[float] = []
            failed = ""
            for _ in range(args.runs):
                seconds, proc = timed_with(raw_cmd, repo, raw_out, env())
                if proc.returncode != 0:
                    failed = "pip-compile: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
                    break
                raw_times.append(seconds)
                seconds, proc = timed_with(ours_cmd, repo, ours_out, env())
                if proc.returncode != 0:
                    failed = "policytool: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
                    break
                our_times.append(seconds)
            if failed:
                print(f"{name:8} failed: {failed[:160]}")
                continue
            theirs, ours = pins(raw_out), pins(ours_out)
            hashes = sum(len(h) for _v, h in ours.values())
            extras = sum(1 for key in ours if "[" in key)
            same = "yes" if theirs == ours else "NO"
            again = subprocess.run(
                [str(BIN / "policytool"), "lock", "--check", "--resolve", name],
                cwd=repo,
                env=env(),
                capture_output=True,
                text=True,
                check=False,
            )
            raw_median, our_median = statistics.median(raw_times), statistics.median(our_times)
            print(
                f"{name:8} {len(ours):5} {hashes:6} {extras:6} {same:>9} {raw_median:10.2f}s "
                f"{our_median:9.2f}s {our_median / raw_median:5.2f}x "
                f"{'yes' if again.returncode == 0 else 'NO':>9}"
            )
            if theirs != ours:
                for key in sorted(set(theirs) | set(ours)):
                    if theirs.get(key) != ours.get(key):
                        print(
                            f"    {key}: pip-compile {theirs.get(key)} / policytool {ours.get(key)}"
                        )
            if again.returncode != 0:
                print("    " + (again.stdout or again.stderr).strip()[:600].replace("\n", "\n    "))


if __name__ == "__main__":
    main()
