# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""First run of policytool on real source releases: before, after init, after baseline, drift.

Run: ``python bench/first_run.py [TREE_DIR...]`` (default: the unpacked sdists under
``/work/trees`` listed in :data:`TREES`; fetch others with ``/work/trees/fetch.sh NAME
VERSION``). For each tree it copies the sdist to ``$TMPDIR/policytool-first-run/NAME``
as a fresh git repository (the tree itself is never written), then:

1. ``policytool check``: the findings a new user sees with no configuration;
2. ``policytool init``: the tables it proposed from the repository's own files;
3. ``policytool check`` again: each remaining finding is printed for review;
4. ``policytool baseline``, then ``policytool check``: zero findings expected;
5. each drift of :data:`DRIFTS` that applies to the tree, injected alone on top of the
   baselined commit: whether ``check`` reports it under the expected rule.

It prints a Markdown table (the one in docs/first-run.md) and, with ``--findings``,
every finding left after ``init`` so each can be judged. No network is used.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

TREES_DIR = Path("/work/trees")
TREES = [
    "vllm-0.33.0",
    "vllm-0.32.0",
    "vllm-ascend-0.23.0.post1",
    "vllm-omni-0.20.0",
    "pytest-9.0.0",
    "pre_commit-4.5.0",
    "attrs-26.1.0",
    "black-26.10.1",
]
# Outside this checkout: a tree without pyproject.toml must not find policytool's own.
WORK = Path(os.environ.get("TMPDIR", "/tmp")) / "policytool-first-run"
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]


def git(cwd: Path, *args: str) -> str:
    """Run git quietly in ``cwd``; its stdout."""
    proc = subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True, check=True)
    return proc.stdout


def policytool(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m policytool ARGS`` in ``cwd``."""
    return subprocess.run(
        [sys.executable, "-m", "policytool", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def findings(cwd: Path) -> list[dict[str, object]]:
    """The findings of a full ``check`` (JSON), or one pseudo-finding for an error."""
    proc = policytool(cwd, "check", "--format", "json", "-q")
    if proc.returncode == 2:
        return [{"rule": "ERROR", "path": "", "line": 0, "message": proc.stderr.strip()}]
    out = proc.stdout.strip()
    return json.loads(out) if out else []


def by_rule(found: list[dict[str, object]]) -> str:
    """``rule N, rule M`` (most first), or ``0``."""
    if not found:
        return "0"
    counts = Counter(str(f["rule"]) for f in found)
    return ", ".join(f"{rule} {n}" for rule, n in counts.most_common())


@dataclass(frozen=True)
class Drift:
    """A change a maintainer would want caught, and the rule that must catch it."""

    name: str
    rule: str
    applies: Callable[[Path], bool]
    inject: Callable[[Path], str]  # returns the path it touched


def _config(root: Path) -> str:
    path = root / "pyproject.toml"
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


def _new_py(root: Path, body: str) -> str:
    relpath = "policytool_drift_new.py"
    package = next((p for p in sorted(root.iterdir()) if (p / "__init__.py").is_file()), None)
    if package is None and (root / "src").is_dir():
        package = next(
            (p for p in sorted((root / "src").iterdir()) if (p / "__init__.py").is_file()), None
        )
    if package is not None:
        relpath = f"{package.relative_to(root).as_posix()}/policytool_drift_new.py"
    (root / relpath).write_text(body, encoding="utf-8")
    return relpath


def _workflow(root: Path, body: str) -> str:
    relpath = ".github/workflows/policytool-drift.yml"
    (root / relpath).parent.mkdir(parents=True, exist_ok=True)
    (root / relpath).write_text(body, encoding="utf-8")
    return relpath


def _precommit_key(root: Path) -> str:
    path = root / ".pre-commit-config.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text("defualt_stages: [pre-commit]\n" + text, encoding="utf-8")
    return ".pre-commit-config.yaml"


WORKFLOW_PIP = """\
name: drift
on: pull_request
permissions: {}
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: pip install ruff
"""
WORKFLOW_ACTION = """\
name: drift
on: pull_request
permissions: {}
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@main
"""

DRIFTS = [
    Drift(
        "new file without the SPDX header",
        "spdx-header",
        lambda root: "[tool.policytool.spdx]" in _config(root),
        lambda root: _new_py(root, "VALUE = 1\n"),
    ),
    Drift(
        "new torch.cuda.synchronize() outside the allowlist",
        "torch-cuda",
        lambda root: "[tool.policytool.torch-cuda]" in _config(root),
        lambda root: _new_py(
            root,
            "# SPDX-License-Identifier: Apache-2.0\n"
            "# SPDX-FileCopyrightText: Copyright contributors to the vLLM project\n"
            "import torch\n\ntorch.cuda.synchronize()\n",
        ),
    ),
    Drift(
        "workflow step `pip install ruff` (unpinned)",
        "ci-floating-install",
        lambda root: True,
        lambda root: _workflow(root, WORKFLOW_PIP),
    ),
    Drift(
        "workflow `uses: actions/checkout@main`",
        "action-pin",
        lambda root: True,
        lambda root: _workflow(root, WORKFLOW_ACTION),
    ),
    Drift(
        "misspelt root key `defualt_stages` in .pre-commit-config.yaml",
        "precommit-config",
        lambda root: (root / ".pre-commit-config.yaml").is_file(),
        _precommit_key,
    ),
]


@dataclass
class Row:
    """One tree's first run."""

    name: str
    files: int = 0
    before: list[dict[str, object]] = field(default_factory=list)
    init_lines: list[str] = field(default_factory=list)
    after_init: list[dict[str, object]] = field(default_factory=list)
    after_baseline: list[dict[str, object]] = field(default_factory=list)
    drifts: list[tuple[str, str, bool]] = field(default_factory=list)
    seconds: float = 0.0


def run_tree(source: Path) -> Row:
    """The whole first run on a fresh copy of ``source``."""
    row = Row(source.name)
    work = WORK / source.name
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(source, work, symlinks=True)
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "--no-verify", "-m", "sdist")
    row.files = len(git(work, "ls-files").splitlines())
    started = time.perf_counter()
    row.before = findings(work)
    init = policytool(work, "init")
    row.init_lines = [
        line for line in init.stdout.splitlines() if "pyproject.toml" in line or ": created" in line
    ] + ([f"ERROR {init.stderr.strip()}"] if init.returncode else [])
    git(work, "add", "-A")
    git(work, "commit", "-q", "--no-verify", "--allow-empty", "-m", "policytool init")
    row.after_init = findings(work)
    baseline = policytool(work, "baseline")
    if baseline.returncode:
        row.init_lines.append(f"baseline ERROR {baseline.stderr.strip()}")
    git(work, "add", "-A")
    git(work, "commit", "-q", "--no-verify", "--allow-empty", "-m", "policytool baseline")
    row.after_baseline = findings(work)
    row.seconds = time.perf_counter() - started
    for drift in DRIFTS:
        if not drift.applies(work):
            continue
        touched = drift.inject(work)
        git(work, "add", "-A")
        found = findings(work)
        caught = any(f["rule"] == drift.rule and f["path"] == touched for f in found)
        row.drifts.append((drift.name, drift.rule, caught))
        git(work, "reset", "-q", "--hard", "HEAD")
        git(work, "clean", "-q", "-fd")
    return row


def table(rows: list[Row]) -> str:
    """The Markdown table of every tree."""
    out = [
        "| tree | files | `check` before | `init` wrote | after `init` | after `baseline` "
        "| drifts caught |",
        "| --- | ---: | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        wrote = "<br>".join(
            line.replace("pyproject.toml ", "").split(": ")[0]
            for line in row.init_lines
            if "added" in line or "ERROR" in line
        )
        caught = sum(1 for *_x, ok in row.drifts if ok)
        missed = [name for name, _rule, ok in row.drifts if not ok]
        drift = f"{caught}/{len(row.drifts)}" + (
            f" (missed: {'; '.join(missed)})" if missed else ""
        )
        out.append(
            f"| {row.name} | {row.files} | {by_rule(row.before)} | {wrote or '(nothing)'} "
            f"| {by_rule(row.after_init)} | {by_rule(row.after_baseline)} | {drift} |"
        )
    return "\n".join(out)


def main() -> int:
    """Run every tree and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", help="unpacked sdists (default: TREES)")
    parser.add_argument("--findings", action="store_true", help="print findings left by init")
    args = parser.parse_args()
    sources = [Path(t) for t in args.trees] or [TREES_DIR / t for t in TREES]
    WORK.mkdir(parents=True, exist_ok=True)
    rows = []
    for source in sources:
        if not source.is_dir():
            print(f"skipped {source}: not found (fetch it with /work/trees/fetch.sh)")
            continue
        row = run_tree(source)
        rows.append(row)
        print(f"{row.name}: {row.seconds:.1f} s", file=sys.stderr)
        if args.findings:
            for line in row.init_lines:
                print(f"  init: {line}")
            for f in row.after_init:
                print(f"  {row.name}: {f['path']}:{f['line']} {f['rule']} {f['message']}")
            for name, rule, ok in row.drifts:
                print(f"  drift {'caught' if ok else 'MISSED'}: {name} ({rule})")
    print(table(rows))
    print(f"\nload: {os.getloadavg()[0]:.1f} (1-min average), python {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
