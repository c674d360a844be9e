# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Time every published hook call on vLLM 0.33.0, side by side with the tool it replaces.

Run: ``python bench/bench_hooks.py [--repeat N] [--before REV] [--write-docs]``.

It installs policytool the way pre-commit installs a ``language: python`` hook repo
(``pip install .``, not editable, into its own venv under ``bench/.cache``, with
``pre-commit`` and ``regex`` as the hooks' additional dependencies), makes a git copy of
the vLLM 0.33.0 source release with a ``[tool.policytool]`` config equivalent to vLLM's
own hook scripts appended to its ``pyproject.toml``, and runs each hook's ``entry``
from ``.pre-commit-hooks.yaml`` the way pre-commit calls it (the console script, the
entry's arguments, then the file names the hook's ``files``/``types`` select).
Each call is timed next to the tool it replaces, in the same run:

- ``spdx-header``: vLLM's ``tools/pre_commit/check_spdx_header.py``;
- ``forbidden-import``: vLLM's ``tools/pre_commit/check_forbidden_imports.py`` and
  ``ruff check --select TID251`` with the same bans as ``banned-api``;
- ``torch-cuda``: vLLM's ``tools/pre_commit/check_torch_cuda.py``;
- ``policytool-repo`` on ``.pre-commit-config.yaml``: ``pre-commit validate-config``.

Single-file calls use one large module; ``--all-files`` calls pass every file the hook
selects in one process (pre-commit would split them over the cores: this is the
slower, serial figure). ``policytool check`` with every configured rule also runs on a
git copy of vllm-omni 0.20.0. Figures are the best wall time of N runs (and the CPU
time of that run); ratios are policytool / the other tool. ``--before REV`` installs
policytool from git revision REV into a second venv and adds its figures. The machine
load (``/proc/loadavg``) is recorded before and after. ``--write-docs`` writes the
table to ``docs/benchmarks-hooks.md``. Needs network once (PyPI) to build the venvs.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _vllm import CACHE, TREES, VERSION, vllm_tree  # noqa: E402
from bench_imports import CONFIG as IMPORTS_CONFIG  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "benchmarks-hooks.md"
OMNI = "vllm-omni-0.20.0"
BIG_MODULE = "vllm/engine/arg_utils.py"  # ~2,400 lines: a heavy single-file call
NOT_APPLICABLE = "docs/README.md"  # text, so spdx-header's `types: [text]` passes it
ONE_WORKFLOW = ".github/workflows/pre-commit.yml"

SPDX_CONFIG = """
[tool.policytool.spdx]
license = "Apache-2.0"
copyright = "Copyright contributors to the vLLM project"
kinds = ["python"]
"""
PRECOMMIT_CONFIG = """
[tool.policytool.pre-commit]
final-hook = "suggestion"
manual-only = []
required = ["mypy", "markdownlint-cli2", "shellcheck", "typos", "suggestion"]
"""
CONFIG = IMPORTS_CONFIG.replace("[tool.policytool]\n", "") + SPDX_CONFIG + PRECOMMIT_CONFIG
RUFF_TID251 = """\
[lint.flake8-tidy-imports.banned-api]
"pickle".msg = "avoid pickle and cloudpickle"
"cloudpickle".msg = "avoid pickle and cloudpickle"
"re".msg = "use 'import regex as re' or 'import regex'"
"triton".msg = "use 'from vllm.triton_utils import triton'"
"""
SOURCE_RULES = "spdx-header,forbidden-import,torch-cuda,stale-allow"

# Would a cache of parsed repo files (under .git/, keyed by content hash) pay across the
# hook calls of one pre-commit run? Run inside the hook venv, in the vLLM copy: what a
# call spends parsing the files such a cache would hold, next to what reading the
# cache back would cost (read every file to hash it, then unpickle).
CACHE_STUDY = """
import glob, hashlib, json, pickle, time, tomllib
from pathlib import Path
from policytool.formats import yamldoc
def best(fn, n=30):
    b = 9.0
    for _ in range(n):
        yamldoc._CACHE.clear(); s = time.perf_counter(); fn(); b = min(b, time.perf_counter() - s)
    return b * 1000
root = Path(".")
yaml_files = [".pre-commit-config.yaml", ".github/mergify.yml"]
yaml_files += sorted(glob.glob(".github/workflows/*.yml"))
parse = best(lambda: [yamldoc.load(root, f) for f in yaml_files])
blob = pickle.dumps([yamldoc.load(root, f).data for f in yaml_files], protocol=5)
def cached():
    raw = b"".join((root / f).read_bytes() for f in yaml_files)
    hashlib.sha256(raw).hexdigest()
    pickle.loads(blob)
hit = best(cached)
toml = best(lambda: tomllib.loads(Path("pyproject.toml").read_text()))
size = sum((root / f).stat().st_size for f in yaml_files)
print(json.dumps({"files": len(yaml_files), "bytes": size, "parse_ms": parse,
                  "hit_ms": hit, "pyproject_ms": toml}))
"""


@dataclass
class Row:
    """One hook call and what it is compared with."""

    label: str
    target: float | None  # seconds, None: no target
    ours: list[str]
    theirs: dict[str, list[str]] = field(default_factory=dict)
    cwd: str = "vllm"
    times: dict[str, tuple[float, float]] = field(default_factory=dict)  # name -> (wall, cpu)
    exit_codes: dict[str, int] = field(default_factory=dict)


def run(command: list[str], cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run a setup command, failing loudly."""
    return subprocess.run(command, cwd=cwd, check=True, text=True, capture_output=True, **kwargs)  # type: ignore[call-overload, no-any-return]


def git_copy(source: Path, name: str, config: str) -> Path:
    """A committed git copy of ``source`` with ``config`` appended to its pyproject.toml."""
    work = CACHE / name
    stamp = work / ".git" / "policytool-bench-config"
    if stamp.is_file() and stamp.read_text() == config:
        return work
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(source, work, symlinks=True)
    with (work / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write("\n" + config)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b"}
    env |= {"GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    run(["git", "init", "-q", "-b", "main"], work)
    run(["git", "add", "-A"], work)
    run(["git", "commit", "-qm", "tree", "--no-verify"], work, env=env)
    stamp.write_text(config)
    return work


def hook_env(name: str, source: Path) -> Path:
    """A venv with policytool installed from ``source`` as pre-commit would (not editable)."""
    venv = CACHE / f"hookenv-{name}"
    python = venv / "bin" / "python"
    if not python.exists():
        run([sys.executable, "-m", "venv", str(venv)], ROOT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    run(
        [uv, "pip", "install", "-q", "--compile-bytecode", "--python", str(python)]
        + ["--reinstall-package", "policytool"]
        + [str(source), "pre-commit", "regex"],
        ROOT,
        env=env,
    )
    return venv


def source_at(rev: str) -> Path:
    """The tree of git revision ``rev`` of this repository, unpacked under bench/.cache."""
    sha = run(["git", "rev-parse", rev], ROOT).stdout.strip()
    target = CACHE / f"src-{sha[:12]}"
    if not (target / "pyproject.toml").is_file():
        target.mkdir(parents=True, exist_ok=True)
        archive = CACHE / f"src-{sha[:12]}.tar"
        run(["git", "archive", "-o", str(archive), sha], ROOT)
        with tarfile.open(archive) as tar:
            tar.extractall(target, filter="data")
        archive.unlink()
    return target


def hook_files(work: Path, hook: dict[str, object]) -> list[str]:
    """The tracked files pre-commit would pass this hook with ``--all-files``."""
    from identify.identify import tags_from_path

    files = run(["git", "ls-files"], work).stdout.splitlines()
    include = re.compile(str(hook.get("files", "")))
    exclude = re.compile(str(hook.get("exclude", "^$")))
    types = set(hook.get("types", ["file"]))  # type: ignore[call-overload]
    types_or = set(hook.get("types_or", []))  # type: ignore[call-overload]
    out = []
    for name in files:
        if not include.search(name) or exclude.search(name):
            continue
        path = work / name
        if path.is_symlink() or not path.is_file():
            continue
        tags = tags_from_path(str(path))
        if types <= tags and (not types_or or types_or & tags):
            out.append(name)
    return out


def timed(command: list[str], cwd: Path, repeat: int) -> tuple[float, float, int]:
    """Best wall time of ``repeat`` runs, that run's CPU time (user+sys), the exit code."""
    best = (float("inf"), 0.0)
    code = 0
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(command, cwd=cwd, capture_output=True, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, (wall, cpu))
        code = proc.returncode
        if wall > 3.0:
            break  # a slow tool: one run says enough, and keeps the bench short
    return best[0], best[1], code


def loadavg() -> str:
    """The 1/5/15-minute load averages."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def rows_for(venv: Path, vllm: Path, omni: Path | None) -> list[Row]:
    """Every timed call: policytool's command and the commands it is compared with."""
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    bindir = venv / "bin"

    def entry(hook_id: str) -> list[str]:
        words = shlex.split(str(hooks[hook_id]["entry"]))
        return [str(bindir / words[0]), *words[1:]]

    py = str(bindir / "python")
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
    ruff_config = CACHE / "ruff-tid251.toml"
    ruff_config.write_text(RUFF_TID251)
    tid251 = [ruff, "check", "--no-cache", "--config", str(ruff_config), "--select", "TID251"]
    script = "tools/pre_commit/"
    spdx_files = hook_files(vllm, hooks["spdx-header"])
    py_files = hook_files(vllm, hooks["forbidden-import"])
    vllm_spdx = hook_files(vllm, {"types_or": ["python", "rust", "proto"]})
    ci_files = hook_files(vllm, hooks["ci-pins"])
    one = [BIG_MODULE]
    rows = [
        Row("interpreter start-up (`python -c pass`)", None, [py, "-c", "pass"]),
        Row(
            "spdx-header, one file",
            0.3,
            entry("spdx-header") + one,
            {"vLLM check_spdx_header.py": [py, script + "check_spdx_header.py", *one]},
        ),
        Row(
            "spdx-header, a file the rule does not cover (README)",
            0.3,
            entry("spdx-header") + [NOT_APPLICABLE],
        ),
        Row(
            "forbidden-import, one file",
            0.3,
            entry("forbidden-import") + one,
            {
                "vLLM check_forbidden_imports.py": [py, script + "check_forbidden_imports.py"]
                + one,
                "ruff TID251": tid251 + one,
            },
        ),
        Row(
            "torch-cuda, one file",
            0.3,
            entry("torch-cuda") + one,
            {"vLLM check_torch_cuda.py": [py, script + "check_torch_cuda.py", *one]},
        ),
        Row(
            "policytool-repo (.pre-commit-config.yaml changed)",
            0.3,
            entry("policytool-repo"),
            {"pre-commit validate-config": [str(bindir / "pre-commit"), "validate-config"]},
        ),
        Row(
            "ci-pins, one workflow changed",
            0.3,
            entry("ci-pins") + [ONE_WORKFLOW],
        ),
        Row(
            f"ci-pins --all-files ({len(ci_files)} files)",
            None,
            entry("ci-pins") + ci_files,
        ),
        Row("stale-allow (whole tree)", 0.7, entry("stale-allow")),
        Row(
            f"spdx-header --all-files ({len(spdx_files)} files)",
            0.7,
            entry("spdx-header") + spdx_files,
            {
                f"vLLM check_spdx_header.py ({len(vllm_spdx)} files)": [
                    py,
                    script + "check_spdx_header.py",
                    *vllm_spdx,
                ]
            },
        ),
        Row(
            f"forbidden-import --all-files ({len(py_files)} files)",
            0.7,
            entry("forbidden-import") + py_files,
            {
                "vLLM check_forbidden_imports.py": [py, script + "check_forbidden_imports.py"]
                + py_files,
                "ruff TID251": tid251 + py_files,
            },
        ),
        Row(
            f"torch-cuda --all-files ({len(py_files)} files)",
            0.7,
            entry("torch-cuda") + py_files,
            {"vLLM check_torch_cuda.py": [py, script + "check_torch_cuda.py", *py_files]},
        ),
        Row(
            "the four source rules, whole tree (`check --only " + SOURCE_RULES + "`)",
            0.7,
            [str(bindir / "policytool"), "check", "-q", "--only", SOURCE_RULES],
        ),
        Row(
            "`policytool check`, every configured rule (vLLM)",
            None,
            [str(bindir / "policytool"), "check", "-q"],
        ),
    ]
    if omni is not None:
        rows.append(
            Row(
                "`policytool check`, every configured rule (vllm-omni 0.20.0)",
                1.0,
                [str(bindir / "policytool"), "check", "-q"],
                cwd="omni",
            )
        )
    return rows


def measure(
    rows: list[Row], before: Path | None, after: Path, works: dict[str, Path], repeat: int
) -> None:
    """Time each row's commands (ours, the "before" install's, theirs) one after another."""
    for row in rows:
        cwd = works[row.cwd]
        commands = {"policytool": row.ours}
        if before is not None and row.ours[0].startswith(str(after)):
            commands["before"] = [row.ours[0].replace(str(after), str(before)), *row.ours[1:]]
        commands.update(row.theirs)
        for name, command in commands.items():
            wall, cpu, code = timed(command, cwd, repeat)
            row.times[name] = (wall, cpu)
            row.exit_codes[name] = code
        print(f"  {row.label}: " + ", ".join(f"{k} {v[0]:.3f}s" for k, v in row.times.items()))


HEAVY = ("click", "packaging", "tomlkit", "ruamel", "yaml", "cfgv", "pre_commit", "multiprocessing")


def import_profile(row: Row, cwd: Path, repeat: int) -> tuple[float, set[str]]:
    """Import time of a call (sum of each module's best self time, ms) and the heavy
    libraries it loads (``PYTHONPROFILEIMPORTTIME``, as ``-X importtime``)."""
    best: dict[str, int] = {}
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    for _ in range(repeat):
        err = subprocess.run(row.ours, cwd=cwd, env=env, capture_output=True, text=True).stderr
        for line in err.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, _cumulative, name = line.split(":", 1)[1].split("|")
            module = name.strip()
            best[module] = min(best.get(module, 1 << 40), int(self_us))
    loaded = {m.split(".")[0] for m in best} & set(HEAVY)
    return sum(best.values()) / 1000, loaded


def import_table(rows: list[Row], works: dict[str, Path], repeat: int) -> str:
    """Per single-file or config-only hook call: import time and heavy libraries loaded."""
    head = "| hook call | imports (ms) | " + " | ".join(f"`{h}`" for h in HEAVY) + " |\n"
    head += "|---|---:|" + "---|" * len(HEAVY) + "\n"
    lines = []
    for row in rows:
        if row.target != 0.3:
            continue
        ms, loaded = import_profile(row, works[row.cwd], repeat)
        marks = " | ".join("✓" if h in loaded else "" for h in HEAVY)
        lines.append(f"| {row.label} | {ms:.0f} | {marks} |")
    return head + "\n".join(lines) + "\n"


def table(rows: list[Row], with_before: bool) -> str:
    """The results as a Markdown table."""
    head = "| hook call | policytool | " + ("before | " if with_before else "")
    head += "target | compared with | its time | ratio |\n"
    head += "|---|---:|" + ("---:|" if with_before else "") + "---:|---|---:|---:|\n"
    lines = []
    for row in rows:
        wall, cpu = row.times["policytool"]
        ours = f"{wall:.3f} s (cpu {cpu:.2f})"
        if row.target is not None:
            ours += " ✓" if wall <= row.target else " ✗"
        target = f"≤ {row.target:.1f} s" if row.target is not None else ""
        before = ""
        if with_before:
            before = f"{row.times['before'][0]:.3f} s | " if "before" in row.times else "| "
        others = [(k, v) for k, v in row.times.items() if k not in ("policytool", "before")]
        if not others:
            lines.append(f"| {row.label} | {ours} | {before}{target} | | | |")
        for index, (name, (twall, _tcpu)) in enumerate(others):
            first = (
                f"| {row.label} | {ours} | {before}{target} |"
                if index == 0
                else "| | | " + ("| " if with_before else "") + "|"
            )
            lines.append(f"{first} {name} | {twall:.3f} s | {wall / twall:.2f}x |")
    return head + "\n".join(lines) + "\n"


def cache_study(venv: Path, work: Path) -> str:
    """The cache question, answered with this run's figures (Markdown)."""
    import json

    out = run([str(venv / "bin" / "python"), "-c", CACHE_STUDY], work).stdout
    f = json.loads(out)
    return (
        "## A cache of parsed repo files across the calls of one pre-commit run?\n\n"
        f"Not built: it does not pay. In one pre-commit run only `policytool-repo` reads the\n"
        f"YAML files (once: it is `pass_filenames: false`); the file hooks share nothing but\n"
        f"`pyproject.toml`. Parsing every YAML file a repo rule may read in vLLM\n"
        f"({f['files']} files, {f['bytes']:,} bytes) takes {f['parse_ms']:.1f} ms; a cache hit "
        f"(read and hash\nthe files, unpickle) would take {f['hit_ms']:.1f} ms, so at best "
        f"{f['parse_ms'] - f['hit_ms']:.1f} ms once per run,\nand only for the files that did "
        f"not change since the previous run (pre-commit calls\n`policytool-repo` only when one "
        f"of them changed). vLLM's `pyproject.toml` (the config\nevery call reads) "
        f"parses in {f['pyproject_ms']:.1f} ms. Neither is worth a cache under `.git/` that "
        "must stay\ncorrect with two processes writing it at once.\n"
    )


def write_docs(text: str, meta: dict[str, str]) -> None:
    """docs/benchmarks-hooks.md, generated."""
    DOCS.parent.mkdir(exist_ok=True)
    body = f"""# Hook call timings on vLLM

<!-- Generated by `python bench/bench_hooks.py --write-docs`; do not edit by hand. -->

Each published hook (`.pre-commit-hooks.yaml`) runs the way pre-commit runs it: the
console script of a non-editable install in its own venv, the hook's `entry`, then the
file names its `files`/`types` select, in a git copy of the vLLM {VERSION} source
release with a `[tool.policytool]` config equivalent to vLLM's own hook scripts. Each
call is timed next to the tool it replaces, in the same run: best wall time of
{meta["repeat"]} runs (CPU time of that run in brackets); ratio = policytool / the
other tool. `--all-files` rows pass every selected file to one process (pre-commit
would split them over the cores). Targets: a single-file or config-only hook call
≤ 0.3 s with start-up; the source rules over the whole tree ≤ 0.7 s; `policytool
check` with every configured rule on a vllm-omni-sized tree ≤ 1 s.

{text}
Machine: {meta["machine"]}; Python {meta["python"]}; PyYAML with libyaml:
{meta["libyaml"]}. Load average (1/5/15 min) before: {meta["load_before"]}, after:
{meta["load_after"]} (a shared machine: the ratios, measured side by side, move less
than the absolute figures). {meta["before_note"]}

{meta["cache"]}"""
    DOCS.write_text(body, encoding="utf-8")


def main() -> int:
    """Build the venvs and trees, time every call, print (and optionally write) the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", metavar="REV", help="also time policytool at git REV")
    parser.add_argument("--write-docs", action="store_true", help=f"write {DOCS.relative_to(ROOT)}")
    parser.add_argument("--only", help="only rows whose label contains this text")
    args = parser.parse_args()
    print("building venvs and trees ...")
    after = hook_env("current", ROOT)
    before = hook_env("before", source_at(args.before)) if args.before else None
    works = {"vllm": git_copy(vllm_tree(), "hooks-vllm", CONFIG)}
    omni_source = TREES / OMNI
    if omni_source.is_dir():
        works["omni"] = git_copy(omni_source, "hooks-omni", CONFIG)
    rows = rows_for(after, works["vllm"], works.get("omni"))
    if args.only:
        rows = [r for r in rows if args.only in r.label]
    load_before = loadavg()
    measure(rows, before, after, works, args.repeat)
    load_after = loadavg()
    text = table(rows, before is not None)
    text += (
        "\nWhat each single-file or config-only call imports (`-X importtime`, sum of the "
        "best self\ntimes; ✓: the library is loaded). The `policytool-repo` row counts the "
        "imports of the child\nit forks on Linux to check pre-commit's schema on the other "
        "core (`pre_commit`, `cfgv`):\nthe main process does not import them.\n\n"
    )
    text += import_table(rows, works, args.repeat)
    print()
    print(text)
    print(f"load average before: {load_before}; after: {load_after}")
    if args.write_docs:
        import yaml as pyyaml

        write_docs(
            text,
            {
                "repeat": str(args.repeat),
                "machine": f"{os.cpu_count()} cores, {platform.platform()}",
                "python": platform.python_version(),
                "libyaml": str(bool(getattr(pyyaml, "__with_libyaml__", False))),
                "load_before": load_before,
                "load_after": load_after,
                "cache": cache_study(after, works["vllm"]),
                "before_note": (
                    f"The `before` column is policytool at `{args.before}`, installed the same way."
                    if args.before
                    else ""
                ),
            },
        )
        print(f"wrote {DOCS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
