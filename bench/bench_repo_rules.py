# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Time the pre-commit / CI / Mergify / CodeQL repo rules on vLLM's own files.

Run: ``python bench/bench_repo_rules.py [--repeat N]``. It downloads the vLLM 0.33.0
source release once (bench/_vllm.py) and copies the files these rules read
(``.pre-commit-config.yaml``, ``.github/``, ``pyproject.toml``, ``setup.cfg``, ``tools/``,
``docker/``, ``requirements/``) into ``bench/.cache/repo-rules-work`` as a git repository. It times:

- ``pre-commit validate-config`` (what pre-commit itself checks of the config);
- ``policytool check --only repo .pre-commit-config.yaml`` (the hook
  call when the config changed: the same schema plus the policy, workflows, Mergify);
- ``policytool check --only repo`` (the full run);
- the interpreter start-up alone.

It prints the best wall time of N runs of each and what the policytool run reported.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _vllm import CACHE, vllm_tree  # noqa: E402

RULES = "repo"  # the group of the repo rules (policytool rules repo)
CONFIG = """
[tool.policytool.pre-commit]
final-hook = "suggestion"
manual-only = []
required = ["mypy", "markdownlint-cli2", "shellcheck", "typos", "suggestion"]
"""
COPIED = (
    ".pre-commit-config.yaml",
    ".github",
    "pyproject.toml",
    "setup.cfg",
    "requirements",
    "tools",  # the scripts local hooks run (a missing one is a finding)
    "docker",
)


def work_tree() -> Path:
    """A git repo holding the vLLM files the repo rules read."""
    source = vllm_tree()
    work = CACHE / "repo-rules-work"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for name in COPIED:
        src = source / name
        if src.is_dir():
            shutil.copytree(src, work / name)
        elif src.is_file():
            shutil.copy2(src, work / name)
    with (work / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write(CONFIG)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=work, check=True)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    return work


def best(command: list[str], cwd: Path, repeat: int) -> tuple[float, str]:
    """Best wall time of ``repeat`` runs, and the output of the last one."""
    times = []
    out = ""
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - start)
        out = proc.stdout + proc.stderr
    return min(times), out


def main() -> None:
    """Run the comparison and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    work = work_tree()
    bindir = Path(sys.executable).parent
    runs = {
        "python -c pass (start-up)": [sys.executable, "-c", "pass"],
        "pre-commit validate-config": [str(bindir / "pre-commit"), "validate-config"],
        "policytool check --only <repo rules> .pre-commit-config.yaml": [
            sys.executable,
            "-m",
            "policytool",
            "check",
            "-q",
            f"--only={RULES}",
            ".pre-commit-config.yaml",
        ],
        "policytool check --only <repo rules>": [
            sys.executable,
            "-m",
            "policytool",
            "check",
            f"--only={RULES}",
        ],
    }
    last = ""
    for label, command in runs.items():
        seconds, last = best(command, work, args.repeat)
        print(f"{seconds * 1000:8.0f} ms  {label}")
    print("\npolicytool reported:\n" + last)


if __name__ == "__main__":
    main()
