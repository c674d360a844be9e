# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The seed's grep pipelines beside ``policytool sweep`` on the same change.

Builds the test fixture repository (tests/sweep_fixture.py: a backlog of old
violations on ``main``, a change on ``feature`` with new ones next to look-alikes),
runs the seed's own ``git diff ${BASE}...HEAD | grep`` pipelines word for word and
``policytool sweep --head HEAD``, and classifies every line each reports against the
fixture's ground truth (``EXPECTED``).

    python bench/sweep_vs_grep.py [--verbose]

sweep must find every true case the greps find and none of their false ones.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from policytool.sweep.diff import parse_patch  # noqa: E402
from tests.sweep_fixture import EXPECTED, GIT_ENV, build, line_of  # noqa: E402

PATTERNS = ("kwargs-lookup", "broad-except", "any-annotation", "hot-copy", "async-blocking")
_ADDED = 'git diff ${BASE}...HEAD -- "*.py" | grep "^+[^+]"'
# The detections of seed 000, word for word (BASE as the seed defines it).
PIPELINES: dict[str, list[str]] = {
    "kwargs-lookup": [
        _ADDED + r""" | grep -E '\*\*kwargs|kwargs(\.get|\[)|"[a-z_]+"\s+in\s+kwargs'""",
    ],
    "broad-except": [_ADDED + r""" | grep -E 'except\s*(Exception|BaseException)?\s*:'"""],
    "any-annotation": [
        _ADDED + r""" | grep -E ':\s*Any\b|->\s*Any\b'""",
        r"""git diff ${BASE}...HEAD -- "tests/" | grep "^+[^+]" | grep "SimpleNamespace" """,
    ],
    "hot-copy": [_ADDED + r""" | grep -E '\.clone\(\)|\.copy_\(|copy\.deepcopy|deepcopy\('"""],
    "async-blocking": [
        _ADDED
        + r""" | grep -E 'time\.sleep|requests\.(get|post|put|delete)|urllib\.request|urlopen'""",
        _ADDED + r""" | grep -E 'async with|\.acquire\(\)'""",
    ],
}

Loc = tuple[str, int]


@dataclass
class Row:
    """One pattern's comparison."""

    pattern: str
    grep_lines: set[Loc] = field(default_factory=set)
    grep_true: set[Loc] = field(default_factory=set)
    grep_false: set[Loc] = field(default_factory=set)
    sweep_lines: set[Loc] = field(default_factory=set)
    truth: set[Loc] = field(default_factory=set)
    sweep_findings: int = 0

    @property
    def missed_by_sweep(self) -> set[Loc]:
        """True cases the greps find that sweep does not (must be empty)."""
        return {loc for loc in self.grep_true if loc not in self.sweep_lines}

    @property
    def false_reported_by_sweep(self) -> set[Loc]:
        """Grep false positives sweep also reports (must be empty)."""
        return self.grep_false & self.sweep_lines

    @property
    def sweep_only(self) -> set[Loc]:
        """True findings sweep reports that no grep line points at."""
        return self.truth - self.grep_true


def _env() -> dict[str, str]:
    """The environment with a fixed git identity and no global config."""
    return {**os.environ, **GIT_ENV}


def added_text(root: Path) -> dict[str, list[Loc]]:
    """Added line text -> every (path, line) where the change adds it."""
    base = subprocess.run(
        ["git", "merge-base", "HEAD", "origin/main"],
        cwd=root,
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    patch = subprocess.run(
        ["git", "-c", "core.quotepath=off", "diff", "-U0", "-M", f"{base}...HEAD", "--", "*.py"],
        cwd=root,
        env=_env(),
        capture_output=True,
        check=True,
    ).stdout
    index: dict[str, list[Loc]] = {}
    for changed in parse_patch(patch).files:
        lines = (root / changed.path).read_text(encoding="utf-8").splitlines()
        for number in changed.added:
            index.setdefault(lines[number - 1], []).append((changed.path, number))
    return index


def run_greps(root: Path) -> dict[str, list[str]]:
    """Pattern -> the added lines (without the ``+``) the seed's pipelines print."""
    out: dict[str, list[str]] = {}
    for pattern, commands in PIPELINES.items():
        for command in commands:
            script = f'BASE="$(git merge-base HEAD origin/main)"\n{command}'
            proc = subprocess.run(
                ["bash", "-c", script],
                cwd=root,
                env=_env(),
                capture_output=True,
                text=True,
                check=False,
            )
            out.setdefault(pattern, []).extend(line[1:] for line in proc.stdout.splitlines())
    return out


def run_sweep(root: Path) -> list[dict[str, object]]:
    """``policytool sweep --head HEAD --format json`` as a user runs it."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "policytool",
            "sweep",
            "--head",
            "HEAD",
            "--format",
            "json",
            "--fail-on",
            "never",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    findings: list[dict[str, object]] = json.loads(proc.stdout)
    return findings


def _kwargs_spans(root: Path, path: str) -> dict[int, range]:
    """``def`` line -> line span of every ``**kwargs`` function in a head file."""
    tree = ast.parse((root / path).read_bytes())
    return {
        node.lineno: range(node.lineno, (node.end_lineno or node.lineno) + 1)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.args.kwarg is not None
    }


def compare(root: Path) -> list[Row]:
    """Classify every grep line and every sweep finding against the fixture's truth."""
    index = added_text(root)
    greps = run_greps(root)
    findings = run_sweep(root)
    rows = []
    for pattern in PATTERNS:
        row = Row(pattern)
        row.truth = {
            (p, line_of(root, p, text)) for p, text, rule, _sev in EXPECTED if rule == pattern
        }
        row.sweep_lines = {
            (str(f["path"]), int(str(f["line"]))) for f in findings if f["rule"] == pattern
        }
        row.sweep_findings = sum(1 for f in findings if f["rule"] == pattern)
        for text in greps.get(pattern, []):
            row.grep_lines.update(index.get(text, []))
        for path, line in row.grep_lines:
            true = (path, line) in row.truth
            if not true and pattern == "kwargs-lookup":
                span = _kwargs_spans(root, path).get(line)
                # A new **kwargs signature is a true case when its body has a true finding;
                # sweep reports it at the lookups, so count those as "found".
                hits = {(path, n) for n in span or ()} & row.truth
                if hits:
                    true = True
                    if hits <= row.sweep_lines:
                        row.sweep_lines.add((path, line))
            (row.grep_true if true else row.grep_false).add((path, line))
        rows.append(row)
    return rows


def table(rows: list[Row]) -> str:
    """The comparison as a Markdown table."""
    out = [
        "| pattern | grep lines | grep true | grep false | sweep findings "
        "| grep true missed by sweep | grep false reported by sweep "
        "| true cases only sweep finds |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        out.append(
            f"| {r.pattern} | {len(r.grep_lines)} | {len(r.grep_true)} | {len(r.grep_false)} | "
            f"{r.sweep_findings} | {len(r.missed_by_sweep)} | {len(r.false_reported_by_sweep)} "
            f"| {len(r.sweep_only)} |"
        )
    return "\n".join(out)


def main() -> int:
    """Build the fixture, compare, print the table; exit 1 if sweep misses or over-reports."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--verbose", action="store_true", help="list every grep false positive and sweep-only case"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "fixture"
        build(root)
        rows = compare(root)
        print(table(rows))
        if args.verbose:
            for r in rows:
                for label, locs in (("grep false", r.grep_false), ("sweep only", r.sweep_only)):
                    for path, number in sorted(locs):
                        text = (
                            (root / path)
                            .read_text(encoding="utf-8")
                            .splitlines()[number - 1]
                            .strip()
                        )
                        print(f"{r.pattern:15} {label:10} {path}:{number}: {text}")
    bad = any(r.missed_by_sweep or r.false_reported_by_sweep for r in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
