# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``ci-floating-install`` and ``action-pin`` on vLLM's CI, next to zizmor and Scorecard.

Run: ``python bench/bench_ci_pins.py [--tree PATH] [--zizmor PATH] [--repeat N]``. It
copies ``.github/``, ``.buildkite/`` and ``docker/`` of the vLLM 0.33.0 source release
(``--tree``, else downloaded once by bench/_vllm.py) into
``bench/.cache/ci-pins-work`` as a git repository and prints:

- the best and median wall time of N runs of ``policytool check --only
  ci-floating-install``, ``--only action-pin``, a hook call on one workflow, zizmor
  (``--offline``, when given or on PATH) and the interpreter start-up alone;
- the findings by kind;
- what OpenSSF Scorecard's Pinned-Dependencies check would count on the same files,
  emulated from its documented rules with policytool's own parsers (Scorecard is a Go
  program that needs the network; it is not run): actions not pinned by SHA, Dockerfile
  ``FROM`` without a digest, download-then-run (``curl ... | sh``, versioned or not),
  and ``pip install`` of a package without ``--require-hashes``. Scorecard reads
  workflows, ``*.sh`` files and Dockerfiles, not Buildkite YAML or Mergify comments.
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _vllm import CACHE, vllm_tree  # noqa: E402

COPIED = (".github", ".buildkite", "docker")


def work_tree(source: Path) -> Path:
    """A git repo holding vLLM's CI files."""
    work = CACHE / "ci-pins-work"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for name in COPIED:
        if (source / name).is_dir():
            shutil.copytree(source / name, work / name, symlinks=True)
    (work / "pyproject.toml").write_text('[project]\nname = "copy"\nversion = "0"\n')
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=work, check=True)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    return work


def timed(command: list[str], cwd: Path, repeat: int) -> tuple[float, float]:
    """Best and median wall time of ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def kind_of(message: str) -> str:
    """A short label for a finding message."""
    for needle, label in (
        ("redirect", "unquoted specifier read as a redirect"),
        ("serves today", "download-then-run (curl | sh)"),
        ("VCS requirement", "VCS requirement on a branch or tag"),
        ("URL without a hash", "URL without a hash"),
        ("with the ARG/ENV values", "floating via a Dockerfile ARG default"),
        ("--upgrade", "--upgrade of an unpinned package"),
        ("has no version", "package without a version"),
        ("not an exact pin", "range, not an exact pin"),
        ("follows the", "action on a branch"),
        ("tag or branch", "action on a tag"),
        ("without a `# vX.Y.Z`", "SHA without a tag comment"),
    ):
        if needle in message:
            return label
    return message[:60]


def scorecard_counts(work: Path) -> dict[str, int]:
    """Scorecard Pinned-Dependencies categories, emulated (see the module docstring)."""
    from policytool.formats import dockerfile, shell
    from policytool.formats.yamldoc import parse_text
    from policytool.rules.ci_floating_install import install_of

    counts: collections.Counter[str] = collections.Counter()
    scripts: list[shell.Script] = []
    for path in sorted(work.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        rel = path.relative_to(work).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        if rel.startswith(".github/workflows/") and rel.endswith((".yml", ".yaml")):
            data = parse_text(text, rel)
            jobs = data.get("jobs") if isinstance(data, dict) else None
            for job in jobs.values() if isinstance(jobs, dict) else ():
                if not isinstance(job, dict):
                    continue
                uses = [job.get("uses")] + [
                    s.get("uses") for s in job.get("steps") or [] if isinstance(s, dict)
                ]
                for value in uses:
                    if isinstance(value, str) and not value.startswith("./"):
                        ref = value.partition("@")[2]
                        if not (len(ref) == 40 and all(c in "0123456789abcdef" for c in ref)):
                            counts["GitHub action not pinned by SHA"] += 1
                for step in job.get("steps") or []:
                    if isinstance(step, dict) and isinstance(step.get("run"), str):
                        scripts.append(shell.parse(step["run"]))
        elif rel.endswith(".sh"):
            scripts.append(shell.parse(text))
        elif path.name.startswith("Dockerfile"):
            parsed = dockerfile.parse(text)
            stages: set[str] = set()
            for instruction in parsed.instructions:
                found = parsed.from_image(instruction)
                if found is not None:
                    image, stage = found
                    if "@sha256:" not in image.value and image.value.lower() not in stages:
                        if image.value != "scratch":
                            counts["Dockerfile FROM without a digest"] += 1
                    if stage:
                        stages.add(stage.lower())
                scripts.extend(parsed.run_scripts(instruction))
    for script in scripts:
        for pipeline in script.pipelines():
            for first, second in zip(pipeline, pipeline[1:], strict=False):
                a, b = shell.unwrap(first), shell.unwrap(second)
                if a and b and a[0].value.rsplit("/", 1)[-1] in ("curl", "wget"):
                    if b[0].value.rsplit("/", 1)[-1] in ("sh", "bash", "python", "python3"):
                        counts["download-then-run"] += 1
        for command in script.commands:
            install = install_of(command)
            if install is None or install.tool not in ("pip", "uv pip"):
                continue
            argv = [w.value for w in command.words]
            named = [w for w in install.requirements if not w.value.startswith((".", "/"))]
            if named and "--require-hashes" not in argv:
                counts["pip install without --require-hashes"] += 1
    return dict(counts)


def main() -> int:
    """Run the comparison and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="an unpacked vLLM source release")
    parser.add_argument("--zizmor", help="the zizmor executable (default: on PATH)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    work = work_tree(args.tree or vllm_tree())
    policytool = [sys.executable, "-m", "policytool"]
    zizmor = args.zizmor or shutil.which("zizmor")
    runs = {
        "interpreter start-up": [sys.executable, "-c", "pass"],
        "policytool check --only ci-floating-install": [
            *policytool,
            "check",
            "--only",
            "ci-floating-install",
        ],
        "policytool check --only action-pin": [*policytool, "check", "--only", "action-pin"],
        "hook: both rules on .github/workflows/pre-commit.yml": [
            *policytool,
            "check",
            "--only",
            "ci-floating-install,action-pin",
            ".github/workflows/pre-commit.yml",
        ],
    }
    if zizmor:
        runs["zizmor --offline . (workflows and actions only)"] = [zizmor, "--offline", "."]
    for label, command in runs.items():
        best, median = timed(command, work, args.repeat)
        print(f"{best:6.3f} s best  {median:6.3f} s median  {label}")
    out = subprocess.run(
        [*policytool, "check", "--only", "ci-floating-install,action-pin", "--format", "json"],
        cwd=work,
        capture_output=True,
        text=True,
    ).stdout
    findings = json.loads(out)
    print(f"\npolicytool: {len(findings)} findings")
    by_area = collections.Counter(f["path"].split("/")[0] for f in findings)
    print("  by directory:", dict(sorted(by_area.items())))
    for label, count in collections.Counter(kind_of(f["message"]) for f in findings).most_common():
        print(f"  {count:4d}  {label}")
    if zizmor:
        raw = subprocess.run(
            [zizmor, "--offline", "--persona=auditor", "--format", "json", "."],
            cwd=work,
            capture_output=True,
            text=True,
        ).stdout
        idents = collections.Counter(f["ident"] for f in json.loads(raw or "[]"))
        print(f"\nzizmor (auditor persona): {dict(idents.most_common())}")
    print("\nScorecard Pinned-Dependencies, emulated:")
    for label, count in sorted(scorecard_counts(work).items()):
        print(f"  {count:4d}  {label}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
