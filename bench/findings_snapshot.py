# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Every finding and every fix of one policytool build on real trees, for a before/after diff.

Run: ``python bench/findings_snapshot.py OUT_DIR [TREE_DIR...]`` with the policytool to
measure first on PATH (or ``--policytool PATH``). For each tree (default: the unpacked
source releases and the cloned GitHub repositories under ``/work/trees`` named in
:data:`TREES`) it copies the tree to a fresh git repository under ``$TMPDIR`` (the tree
itself is never written), runs ``policytool init`` and commits, then writes to
``OUT_DIR/NAME/``:

- ``check.<format>`` for text, json, sarif and github;
- ``fix.diff``: what ``policytool fix`` changed (``git diff``), and its exit code.

Run it with the old build and the new build into two directories, then ``diff -r``:
a restructuring that changes no behaviour leaves no difference. No network is used.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TREES_DIR = Path("/work/trees")
TREES = [
    "vllm-0.33.0",
    "vllm-0.32.0",
    "vllm-omni-0.30.0",
    "vllm-omni-0.20.0",
    "pytest-8.4.2",
    "pre-commit-4.5.0",
    "gh-vllm-omni",
    "gh-pytest",
    "gh-pre-commit",
]
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
FORMATS = ("text", "json", "sarif", "github")


def copy_as_repo(source: Path, work: Path) -> Path:
    """A fresh one-commit git repository holding ``source``'s files (its .git left out)."""
    target = work / source.name
    shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=target, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=target, check=True)
    subprocess.run([*GIT, "commit", "-qm", "tree", "--no-verify"], cwd=target, check=True)
    return target


def run(policytool: str, cwd: Path, *args: str) -> tuple[int, str]:
    """``policytool ARGS`` in ``cwd``: exit code and stdout+stderr."""
    proc = subprocess.run(
        [policytool, *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=600
    )
    return proc.returncode, proc.stdout + proc.stderr


def snapshot(policytool: str, source: Path, out: Path, work: Path) -> None:
    """Write every format's findings and the fix diff of ``source`` under ``out``."""
    repo = copy_as_repo(source, work)
    out.mkdir(parents=True, exist_ok=True)
    code, text = run(policytool, repo, "init")
    (out / "init.txt").write_text(f"exit {code}\n{text}")
    subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "init", "--no-verify"], cwd=repo, check=False)
    for fmt in FORMATS:
        code, text = run(policytool, repo, "check", "--format", fmt)
        (out / f"check.{fmt}").write_text(f"exit {code}\n{text}")
    code, text = run(policytool, repo, "fix")
    diff = subprocess.run(
        [*GIT, "diff", "--binary"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout
    (out / "fix.diff").write_text(f"exit {code}\n{text}\n{diff}")


def main() -> int:
    """Snapshot each tree; print one line per tree."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--policytool", default=shutil.which("policytool") or "policytool")
    args = parser.parse_args()
    trees = args.trees or [TREES_DIR / name for name in TREES if (TREES_DIR / name).is_dir()]
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        for tree in trees:
            snapshot(args.policytool, tree, args.out / tree.name, Path(tmp))
            print(f"{tree.name}: {args.out / tree.name}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
