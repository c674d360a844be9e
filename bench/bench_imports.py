# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Time ``forbidden-import`` + ``torch-cuda`` against vLLM's two hook scripts on vLLM 0.33.0.

Run: ``python bench/bench_imports.py [--repeat N]``. It downloads the vLLM 0.33.0 source
release once (bench/_vllm.py), copies it into ``bench/.cache/imports-work`` as a git
repository, writes a policytool config with rules equivalent to vLLM's
(pickle/cloudpickle, ``re`` -> regex, triton, and the torch.cuda set with vLLM's allowed
files), makes a venv with ``regex`` (which vLLM's scripts import) and, on the same files
(every tracked ``*.py``, as the hooks' ``types: [python]``), times:

- ``policytool check --only forbidden-import,torch-cuda`` (the full run);
- vLLM's ``tools/pre_commit/check_forbidden_imports.py FILES...`` as shipped (7 rules), and
  restricted to the 3 rules policytool is configured with here (same file, the other
  entries of its ``CHECK_IMPORTS`` dropped), for a like-for-like figure;
- vLLM's ``tools/pre_commit/check_torch_cuda.py FILES...``.

It prints the best wall and CPU time of N runs, the ratios, and every finding one side
reports and the other does not, each with the reason (a blind spot of the regexes), on
vLLM's tree and on a few seeded cases. ``--verify`` also cross-checks the fast scan
against a full ``ast`` walk of every file (imports of a wider set of bans, relative ones
included, and torch.cuda uses through every alias).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _vllm import CACHE, VERSION, git_work_tree, vllm_tree  # noqa: E402

# vLLM's allowlists, copied from tools/pre_commit/check_forbidden_imports.py and
# check_torch_cuda.py of the 0.33.0 release.
PICKLE_ALLOWED = [
    "vllm/multimodal/hasher.py",
    "vllm/transformers_utils/config.py",
    "vllm/model_executor/models/registry.py",
    "vllm/compilation/caching.py",
    "vllm/env_override.py",
    "vllm/compilation/piecewise_backend.py",
    "vllm/distributed/utils.py",
    "vllm/distributed/parallel_state.py",
    "vllm/distributed/device_communicators/all_reduce_utils.py",
    "vllm/distributed/device_communicators/shm_broadcast.py",
    "vllm/distributed/device_communicators/shm_object_storage.py",
    "vllm/distributed/device_communicators/shm_tensor_arena.py",
    "vllm/distributed/weight_transfer/ipc_engine.py",
    "vllm/distributed/weight_transfer/clients.py",
    "examples/rl/rlhf_http_ipc_no_vllm.py",
    "vllm/model_executor/model_loader/weight_cache/protocol.py",
    "tests/distributed/test_shm_broadcast.py",
    "tests/distributed/test_weight_transfer.py",
    "vllm/utils/hashing.py",
    "tests/multimodal/media/test_base.py",
    "tests/tokenizers_/test_hf.py",
    "tests/utils_/test_hashing.py",
    "tests/compile/test_aot_compile.py",
    "benchmarks/kernels/graph_machete_bench.py",
    "benchmarks/kernels/benchmark_lora.py",
    "benchmarks/kernels/benchmark_machete.py",
    "benchmarks/fused_kernels/layernorm_rms_benchmarks.py",
    "vllm/v1/executor/multiproc_executor.py",
    "vllm/entrypoints/llm.py",
    "tests/utils.py",
    "vllm/v1/serial_utils.py",
]
CUDA_ALLOWED = [
    "vllm/platforms/**",
    "vllm/device_allocator/**",
    "vllm/distributed/weight_transfer/ipc_engine.py",
    "vllm/distributed/weight_transfer/sharded_rdt_engine.py",
    "tests/distributed/test_packed_tensor.py",
]


def _toml_list(values: Iterable[str]) -> str:
    """A TOML list, one string a line."""
    return "[\n" + "".join(f"  {json.dumps(v)},\n" for v in values) + "]"


CONFIG = f"""\
[tool.policytool]

[[tool.policytool.forbidden-import]]
modules = ["pickle", "cloudpickle"]
reason = "avoid pickle and cloudpickle"
allow = {_toml_list(PICKLE_ALLOWED)}

[[tool.policytool.forbidden-import]]
modules = ["re"]
reason = "use 'import regex as re' or 'import regex'"
allow = ["setup.py"]

[[tool.policytool.forbidden-import]]
modules = ["triton"]
reason = "use 'from vllm.triton_utils import triton'"
allow = ["vllm/triton_utils/importing.py"]

[tool.policytool.torch-cuda]
allow = {_toml_list(CUDA_ALLOWED)}
"""

# vLLM's forbidden-imports script limited to the rules configured above.
RESTRICTED = """\
import runpy, sys
sys.argv[0] = "tools/pre_commit/check_forbidden_imports.py"
module = runpy.run_path(sys.argv[0], run_name="vllm_check")
keep = {"pickle/cloudpickle", "re", "triton"}
for name in list(module["CHECK_IMPORTS"]):
    if name not in keep:
        del module["CHECK_IMPORTS"][name]
sys.exit(module["main"]())
"""

# A small repository of known cases, checked by both sides after the timed runs, so the
# differences show on purpose (vLLM's own tree is clean under its own scripts).
SEEDED = {
    "seeded/import_list.py": "import os, pickle\n",
    "seeded/docstring.py": '"""How to load:\n\nimport pickle\n"""\n',
    "seeded/string.py": 'EXAMPLE = """\nimport re\n"""\n',
    "seeded/blank_lines.py": "x = 1\n\n\n\nimport pickle\n",
    "seeded/local_triton.py": "def kernel():\n    import triton\n    return triton\n",
    "seeded/dynamic.py": "import importlib\n\nmod = importlib.import_module('cloudpickle')\n",
    "seeded/cuda_alias.py": (
        "import torch as t\nfrom torch.cuda import synchronize\n\n"
        "t.cuda.empty_cache()\nsynchronize()\n"
    ),
    "seeded/cuda_two.py": "import torch\n\ntorch.cuda.synchronize()\ntorch.cuda.empty_cache()\n",
    "seeded/cuda_comment.py": "import torch\n\n# torch.cuda.synchronize() is banned here\n",
}

ANSI = re.compile(r"\x1b\[[0-9;]*m")
RULE_OF_MODULE = {
    "pickle": "pickle/cloudpickle",
    "cloudpickle": "pickle/cloudpickle",
    "re": "re",
    "triton": "triton",
}


def work_tree() -> Path:
    """A git copy of the vLLM tree with the bench config."""
    return git_work_tree("imports-work", CONFIG)


def regex_python() -> str:
    """A Python with the ``regex`` package vLLM's scripts import (a venv made once)."""
    venv = CACHE / "venv-regex"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
        env["PIP_CONFIG_FILE"] = os.devnull
        subprocess.run([str(python), "-m", "pip", "install", "-q", "regex"], env=env, check=True)
    return str(python)


def best_of(
    repeat: int, command: list[str], cwd: Path
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """The best wall time and the best CPU time (user + sys, all processes) of ``repeat`` runs.

    CPU time is shown too because wall time on a shared machine moves with its load.
    """
    best = best_cpu = float("inf")
    proc: subprocess.CompletedProcess[str] | None = None
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
        best = min(best, time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best_cpu = min(best_cpu, cpu)
    assert proc is not None
    return best, best_cpu, proc


Key = tuple[str, str, int]  # (rule, path, line)


def ours_findings(out: str) -> dict[Key, str]:
    """policytool's JSON findings keyed like vLLM's: (rule group, path, line) -> message."""
    found: dict[Key, str] = {}
    for f in json.loads(out):
        if f["rule"] == "torch-cuda":
            found[("torch-cuda", f["path"], f["line"])] = f["message"]
        elif f["rule"] == "forbidden-import":
            module = re.search(r"`([\w.]+)`", f["message"].split(" imports ")[-1])
            top = module.group(1).split(".")[0] if module else "?"
            found[(RULE_OF_MODULE.get(top, top), f["path"], f["line"])] = f["message"]
        else:
            found[(f["rule"], f["path"], f["line"])] = f["message"]
    return found


def theirs_findings(imports_out: str, cuda_out: str) -> dict[Key, str]:
    """vLLM's printed findings: ``path:line: error: ...``."""
    found: dict[Key, str] = {}
    for line in ANSI.sub("", imports_out).splitlines():
        match = re.match(r"(.+?):(\d+): error: Found forbidden import: (.+?)\. ", line)
        if match:
            found[(match.group(3), match.group(1), int(match.group(2)))] = line
    for line in ANSI.sub("", cuda_out).splitlines():
        match = re.match(r"(.+?):(\d+): error: (.*)", line)
        if match:
            found[("torch-cuda", match.group(1), int(match.group(2)))] = line
    return found


def explain_ours_only(key: Key, work: Path, theirs: dict[Key, str], message: str) -> str:
    """Why vLLM's scripts miss a finding policytool reports."""
    rule, path, line = key
    lines = (work / path).read_text(encoding="utf-8", errors="replace").splitlines()
    text = lines[line - 1]
    for other in theirs:
        if (
            other[:2] == (rule, path)
            and other[2] < line
            and not "".join(lines[other[2] - 1 : line - 1]).strip()
        ):
            return (
                f"the same import: their `^\\s*` spans blank lines, so they report line {other[2]}"
            )
    if rule == "torch-cuda":
        if any(k[0] == "torch-cuda" and k[1] == path for k in theirs):
            return "their script stops at the first hit in a file"
        if "torch.cuda." not in text.replace(" ", ""):
            return "alias form (t.cuda.f, tc.f, imported f): their regex reads only `torch.cuda.`"
        return "their pattern misses this call shape"
    if "dynamic import" in message:
        return "their regexes do not read importlib.import_module()/__import__()"
    if rule == "re" and re.match(r"\s*from\s+re\s+import\s+(_constants|_parser)", text):
        return (
            "not a bug: their `re` rule exempts `from re import _constants/_parser` on purpose "
            "(regex has no equivalent); here that is an allow glob or an ignore comment"
        )
    if rule == "triton" and text[:1].isspace():
        return (
            "their triton pattern is anchored at column 0: imports in functions/if/try are unseen"
        )
    if re.match(r"\s*import\s+\w+\s*,", text):
        return "`import a, b`: their pattern reads only the first module"
    return "their pattern misses this import form"


def explain_theirs_only(key: Key, work: Path, ours: dict[Key, str]) -> str:
    """Why policytool does not report a finding of vLLM's scripts."""
    from policytool.formats.pyimports import FileScan

    rule, path, line = key
    data = (work / path).read_bytes()
    lines = data.split(b"\n")
    text = lines[line - 1].decode("utf-8", "replace") if line <= len(lines) else ""
    if "cuda_device_count_stateless()" in text or "current_platform.mem_get_info()" in text:
        return "vLLM wrapper functions, not torch.cuda APIs (outside the torch.cuda set by design)"
    if not text.strip() and any(k[:2] == (rule, path) and line < k[2] <= line + 5 for k in ours):
        return "wrong line (a blank line above the import): their `^\\s*` spans blank lines"
    stripped = text.lstrip()
    offset = (
        sum(len(x) + 1 for x in lines[: line - 1]) + len(text.encode()) - len(stripped.encode())
    )
    if stripped.startswith("#"):
        return "a comment: their torch.cuda script does not skip comments"
    if stripped and not FileScan(path, data).is_code(offset):
        return "inside a string or docstring: their regex reads text, not code"
    return "UNEXPLAINED"


def seeded_tree(config: str) -> tuple[Path, list[str]]:
    """A small git repository with the seeded cases and vLLM's two scripts."""
    seeded = CACHE / "imports-seeded"
    shutil.rmtree(seeded, ignore_errors=True)
    (seeded / "tools" / "pre_commit").mkdir(parents=True)
    for name in ("check_forbidden_imports.py", "check_torch_cuda.py"):
        shutil.copy(
            vllm_tree() / "tools" / "pre_commit" / name, seeded / "tools" / "pre_commit" / name
        )
    for name, text in SEEDED.items():
        (seeded / name).parent.mkdir(parents=True, exist_ok=True)
        (seeded / name).write_text(text)
    (seeded / "policytool-bench.toml").write_text(config)
    subprocess.run(["git", "init", "-q"], cwd=seeded, check=True)
    subprocess.run(["git", "add", "-A"], cwd=seeded, check=True)
    return seeded, sorted(SEEDED)


def compare(label: str, work: Path, ours_out: str, imports_out: str, cuda_out: str) -> int:
    """Print the findings one side reports and the other does not; count unexplained ones."""
    ours = ours_findings(ours_out)
    theirs = theirs_findings(imports_out, cuda_out)
    print(f"\n{label}: policytool {len(ours)} findings, vLLM's scripts {len(theirs)}")
    only_ours = sorted(set(ours) - set(theirs))
    only_theirs = sorted(set(theirs) - set(ours))
    unexplained = 0
    print(f"  reported by policytool only ({len(only_ours)}):")
    for key in only_ours:
        why = explain_ours_only(key, work, theirs, ours[key])
        unexplained += why.startswith("their pattern misses")
        print(f"    {key[1]}:{key[2]} [{key[0]}] {why}")
    print(f"  reported by vLLM's scripts only ({len(only_theirs)}):")
    for key in only_theirs:
        why = explain_theirs_only(key, work, ours)
        unexplained += why == "UNEXPLAINED"
        print(f"    {key[1]}:{key[2]} [{key[0]}] {why}")
    return unexplained


# Bans for --verify: the vLLM set plus common modules and a package of the tree itself,
# so that every import form (relative ones included) is exercised.
VERIFY_BANS = {
    "pickle",
    "cloudpickle",
    "re",
    "triton",
    "torch.cuda",
    "os.path",
    "numpy",
    "json",
    "vllm.utils",
}


def verify(work: Path, files: list[str]) -> int:
    """Cross-check the fast scan against a full ``ast`` walk of every file; mismatches."""
    import ast

    from policytool.config import load_config
    from policytool.formats.pyimports import FileScan, ImportedName, Tokens
    from policytool.rules import torch_cuda

    config = load_config(work / "policytool-bench.toml")
    tokens = Tokens({part for module in VERIFY_BANS for part in module.split(".")})
    apis = set(torch_cuda.DEFAULT_BANNED)

    def banned(name: str) -> bool:
        """Whether ``name`` is banned by VERIFY_BANS."""
        parts = name.split(".")
        return any(".".join(parts[:i]) in VERIFY_BANS for i in range(1, len(parts) + 1))

    def relevant(imported: ImportedName) -> bool:
        """Whether an imported name is banned."""
        return banned(imported.name)

    mismatches = imports_seen = uses_seen = 0
    start = time.perf_counter()
    for rel in files:
        data = (work / rel).read_bytes()
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        lines = data.split(b"\n")

        def col(lineno: int, offset: int, lines: list[bytes] = lines) -> int:
            """1-based character column of an ast byte offset."""
            return len(lines[lineno - 1][:offset].decode("utf-8", "replace")) + 1

        scan = FileScan(rel, data, work / rel)
        expect: set[tuple[int, int, str]] = set()
        torch_names, cuda_names, funcs = {"torch"}, set(), {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if banned(alias.name):
                        expect.add((alias.lineno, col(alias.lineno, alias.col_offset), alias.name))
                    if alias.asname and alias.name == "torch":
                        torch_names.add(alias.asname)
                    if alias.asname and alias.name == "torch.cuda":
                        cuda_names.add(alias.asname)
            elif isinstance(node, ast.ImportFrom):
                module = scan.resolve(node.module, node.level)
                if banned(module):
                    expect.add((node.lineno, col(node.lineno, node.col_offset), module))
                for alias in node.names:
                    member = f"{module}.{alias.name}"
                    if alias.name != "*" and banned(member):
                        expect.add((alias.lineno, col(alias.lineno, alias.col_offset), member))
                    if module == "torch" and alias.name == "cuda":
                        cuda_names.add(alias.asname or "cuda")
                    if module == "torch.cuda" and alias.name in apis:
                        funcs[alias.asname or alias.name] = alias.name
        got = {(i.line, i.col, i.name) for i in scan.imports(tokens, relevant)}
        imports_seen += len(expect)
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        uses: set[tuple[int, int]] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in apis:
                value = node.value
                via_torch = (
                    isinstance(value, ast.Attribute)
                    and value.attr == "cuda"
                    and isinstance(value.value, ast.Name)
                    and value.value.id in torch_names
                )
                via_cuda = isinstance(value, ast.Name) and value.id in cuda_names
                if (via_torch or via_cuda) and (node.attr != "device" or id(node) in called):
                    uses.add((node.lineno, col(node.lineno, node.col_offset)))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in funcs
            ):
                uses.add((node.lineno, col(node.lineno, node.col_offset)))
        found = (
            {(f.line, f.col) for f in torch_cuda.violations(scan, config)}
            if b"cuda" in data
            else set()
        )
        uses_seen += len(uses)
        if got != expect or found != uses:
            mismatches += 1
            print(
                f"  MISMATCH {rel}: imports {sorted(expect ^ got)[:3]} "
                f"torch.cuda {sorted(uses ^ found)[:3]}"
            )
    print(
        f"\nverify: {len(files)} files cross-checked against a full ast walk in "
        f"{time.perf_counter() - start:.1f} s: {imports_seen} banned imports "
        f"({len(VERIFY_BANS)} bans), {uses_seen} torch.cuda uses, {mismatches} mismatching files"
    )
    return mismatches


def main() -> int:
    """Run the comparison and print the figures and the differences."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--verify",
        action="store_true",
        help="also cross-check every file against a full ast walk (~30 s)",
    )
    args = parser.parse_args()
    work = work_tree()
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=work, capture_output=True, check=True
    ).stdout
    files = sorted(p for p in tracked.decode().split("\0") if p.endswith(".py"))
    vpy = regex_python()
    only = "forbidden-import,torch-cuda"
    ours_cmd = [
        sys.executable,
        "-m",
        "policytool",
        "check",
        "--only",
        only,
        "--config",
        "policytool-bench.toml",
    ]
    ours_cmd += ["--format", "json", "-q"]
    runs = {
        f"policytool check --only {only}": ours_cmd,
        "vLLM check_forbidden_imports.py (as shipped, 7 rules)": [
            vpy,
            "tools/pre_commit/check_forbidden_imports.py",
            *files,
        ],
        "vLLM check_forbidden_imports.py (the same 3 rules)": [vpy, "-c", RESTRICTED, *files],
        "vLLM check_torch_cuda.py": [vpy, "tools/pre_commit/check_torch_cuda.py", *files],
        "python start-up + import policytool.cli (floor)": [
            sys.executable,
            "-c",
            "import policytool.cli",
        ],
    }
    times: dict[str, float] = {}
    cpu: dict[str, float] = {}
    procs: dict[str, subprocess.CompletedProcess[str]] = {}
    for label, command in runs.items():
        times[label], cpu[label], procs[label] = best_of(args.repeat, command, work)
    ours_label, full_label, same_label, cuda_label, _floor = runs
    if procs[ours_label].returncode not in (0, 1):
        print(procs[ours_label].stderr, file=sys.stderr)
        return 2
    cpus = os.cpu_count()
    print(
        f"vLLM {VERSION}: {len(files)} Python files, {cpus} CPUs, best wall time of {args.repeat}\n"
    )
    print("     wall      cpu")
    for label, seconds in times.items():
        print(f"  {seconds:7.3f} s {cpu[label]:6.3f} s  {label}")
    ours_time = times[ours_label]
    theirs_full = times[full_label] + times[cuda_label]
    theirs_same = times[same_label] + times[cuda_label]
    print(
        f"\n  vLLM's two scripts together: {theirs_full:.3f} s as shipped, "
        f"{theirs_same:.3f} s on the same rules"
    )
    print(
        f"  ratio: {theirs_full / ours_time:.1f}x as shipped, "
        f"{theirs_same / ours_time:.1f}x on the same rules"
    )
    cpu_full = cpu[full_label] + cpu[cuda_label]
    cpu_same = cpu[same_label] + cpu[cuda_label]
    print(
        f"  cpu ratio: {cpu_full / cpu[ours_label]:.1f}x as shipped, "
        f"{cpu_same / cpu[ours_label]:.1f}x on the same rules"
    )
    print(
        f"  target < 1.5 s wall: {'met' if ours_time < 1.5 else 'NOT met'} "
        f"(load average now {os.getloadavg()[0]:.1f})"
    )

    unexplained = compare(
        f"vLLM {VERSION}",
        work,
        procs[ours_label].stdout,
        procs[same_label].stdout,
        procs[cuda_label].stdout,
    )
    seeded, seeded_files = seeded_tree(CONFIG)
    results = [
        subprocess.run(command, cwd=seeded, capture_output=True, text=True, check=False)
        for command in (
            ours_cmd,
            [vpy, "-c", RESTRICTED, *seeded_files],
            [vpy, "tools/pre_commit/check_torch_cuda.py", *seeded_files],
        )
    ]
    unexplained += compare(
        "seeded cases (bench/.cache/imports-seeded)", seeded, *(r.stdout for r in results)
    )
    print(f"\nunexplained differences: {unexplained}")
    if args.verify:
        return 1 if verify(work, files) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
