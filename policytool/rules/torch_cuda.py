# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``torch-cuda``: banned ``torch.cuda`` APIs are not used outside allowed paths.

The default set is the device, memory, synchronize and seed calls that have a
``torch.accelerator`` (or platform) equivalent; each finding names the replacement.
Uses are found through every alias: ``torch.cuda.f``, ``import torch as t; t.cuda.f``,
``from torch import cuda [as c]; c.f``, ``import torch.cuda as tc; tc.f``,
``from torch.cuda import f [as g]; g(...)`` and ``with torch.cuda.device(i):``.
An attribute use is reported whether it is called or passed on
(``fn = torch.cuda.synchronize``), except ``torch.cuda.device``, a class that is
reported only when called (``with torch.cuda.device(i):``), not in annotations; a
name imported from ``torch.cuda`` is reported where it is called. Aliases are
resolved per file (an import anywhere in the file binds its name for the whole
file). Comments and strings never count.
"""

from __future__ import annotations

import re

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import FileRule, register
from policytool.engine.source import SourceFile
from policytool.formats.pyimports import (
    FileScan,
    ImportedName,
    ScanSyntaxError,
    Use,
    word_regex,
)
from policytool.rules._allowlist import AllowList, allow_entries, is_allowed
from policytool.rules._pyscan import packages_memo, scan_of
from policytool.rules._source_config import TorchCudaConfig

RULE_ID = "torch-cuda"
PYTHON_KINDS = frozenset({"python", "stub"})

_SEED_HINT = "torch.manual_seed(), which seeds every device (or the platform's seed helper)"

# torch.cuda API -> what to use instead.
DEFAULT_BANNED: dict[str, str] = {
    "empty_cache": "torch.accelerator.empty_cache()",
    "synchronize": "torch.accelerator.synchronize()",
    "device_count": "torch.accelerator.device_count()",
    "current_device": "torch.accelerator.current_device_index()",
    "set_device": "torch.accelerator.set_device_index()",
    "device": "the torch.accelerator.device_index() context manager",
    "memory_allocated": "torch.accelerator.memory_allocated()",
    "memory_reserved": "torch.accelerator.memory_reserved()",
    "max_memory_allocated": "torch.accelerator.max_memory_allocated()",
    "max_memory_reserved": "torch.accelerator.max_memory_reserved()",
    "reset_peak_memory_stats": "torch.accelerator.reset_peak_memory_stats()",
    "memory_stats": "torch.accelerator.memory_stats()",
    "mem_get_info": "torch.accelerator.get_memory_info() (or current_platform.mem_get_info())",
    "manual_seed": _SEED_HINT,
    "manual_seed_all": _SEED_HINT,
}

# Classes in the default set: a call or ``with`` is a use, a type annotation is not.
CALL_ONLY = frozenset({"device"})

_TORCH_TOKENS = word_regex({"torch"})
_CUDA_TOKENS = word_regex({"cuda"})

DOC = """\
## What it checks
Calls of the `torch.cuda` device, memory, synchronize and seed APIs that have a
`torch.accelerator` (or platform) equivalent, outside the allowed paths: through every
alias (`import torch as t`, `from torch import cuda`, `from torch.cuda import f as g`,
`with torch.cuda.device(i):`), never in comments or strings. Each finding names the
replacement. `torch.cuda.device` counts when called, not in annotations.

The rule is off until `[tool.policytool.torch-cuda]` is in `pyproject.toml`: code
that may use CUDA directly (a platform layer) is for the repository to name.
`policytool init` writes the table, with the allowlist of an existing
`check_torch_cuda.py`-style hook, when the repository has one.

## Why
Code written against `torch.cuda` runs on NVIDIA GPUs only; the accelerator API keeps
one code path for CUDA, ROCm, XPU and the rest, with the device-specific code in one
allowed place.

## Example
```python
import torch

torch.cuda.synchronize()
```
fails: ``use torch.accelerator.synchronize()``.

## Fix
Use the named replacement. To keep today's uses and stop new ones, run
`policytool baseline torch-cuda`: it adds the files to the allowlist, and
`stale-allow` reports each entry once its file is clean.

## Configuration
```toml
[tool.policytool.torch-cuda]
allow = ["vllm/platforms/**"]            # globs where the APIs stay
allowlist-file = "tools/cuda_allow.txt"  # one glob a line, inside the repository
banned = { synchronize = "torch.accelerator.synchronize()" }  # replaces the default set
```
"""


def _alias_relevant(imported: ImportedName) -> bool:
    """Whether an import binds a name other than plain ``torch`` to torch or torch.cuda."""
    name = imported.name
    if imported.kind == "import":
        return imported.bound != "torch" and (name == "torch" or name == "torch.cuda")
    if imported.kind == "member":
        return name == "torch.cuda" or name.startswith("torch.cuda.")
    return imported.kind == "from" and imported.star and name == "torch.cuda"


def banned_apis(config: Config) -> dict[str, str]:
    """The banned API -> hint mapping in force (the configured one, else the default)."""
    return (
        dict(config.section(TorchCudaConfig).banned)
        if config.section(TorchCudaConfig).banned
        else dict(DEFAULT_BANNED)
    )


def _direct_uses(config: Config) -> re.Pattern[bytes]:
    """``cuda . <banned api>``, the shape of every ``<torch alias>.cuda.<api>`` use.

    Its boundaries are those of :meth:`FileScan.attribute_uses`; strings and comments
    are not told apart, so a file it does not find in has no such use.
    """

    def build() -> re.Pattern[bytes]:
        apis = sorted((re.escape(api.encode()) for api in banned_apis(config)), key=len)
        return re.compile(
            rb"cuda(?!\w)(?<!\wcuda)\s*\.\s*(?:" + b"|".join(reversed(apis)) + rb")(?!\w)"
        )

    return config.memo.value(("torch_cuda.direct",), build)


def allows(config: Config) -> AllowList:
    """The allow entries of ``[tool.policytool.torch-cuda]``."""
    section = config.section(TorchCudaConfig)
    return allow_entries(
        config, section.allow, section.allowlist_file, ("[tool.policytool.torch-cuda]", 0)
    )


def _finding(relpath: str, use: Use, api: str, hint: str, spelled: str) -> Finding:
    """The finding at ``use`` of ``api`` (written ``spelled``), with the replacement hint."""
    message = f"`{spelled}` is a banned torch.cuda API (torch.cuda.{api}); use {hint}"
    return Finding(relpath, use.line, use.col, RULE_ID, message)


def _counts(use: Use) -> bool:
    """Whether an attribute use of a banned API counts: a call, or one banned uncalled too."""
    return use.call or use.attr not in CALL_ONLY


def violations(scan: FileScan, config: Config) -> list[Finding]:
    """Every use of a banned API in the file, allow globs not applied.

    Raises :class:`ScanSyntaxError` when an import statement cannot be read because
    the file does not parse.
    """
    banned = banned_apis(config)
    if not banned:
        return []
    torch_names = {"torch"}
    cuda_names: set[str] = set()
    func_names: dict[str, str] = {}
    # Without a ``cuda.<api>`` anywhere, the aliases of torch cannot matter: only the
    # imports binding torch.cuda or its functions can, and each of those spells ``cuda``
    # (or is relative in a package whose path does), so only those statements are read.
    direct = _direct_uses(config).search(scan.data) is not None
    try:
        imported_names = scan.imports(_TORCH_TOKENS if direct else _CUDA_TOKENS, _alias_relevant)
    except ScanSyntaxError:
        if direct:
            raise
        # A statement that does not parse: report it only if the torch walk would.
        imported_names = scan.imports(_TORCH_TOKENS, _alias_relevant)
    for imported in imported_names:
        name = imported.name
        if imported.kind == "import":
            if imported.bound is not None and (name == "torch" or name.startswith("torch.")):
                if imported.bound != name.split(".")[0] and name == "torch.cuda":
                    cuda_names.add(imported.bound)  # import torch.cuda as tc
                elif imported.bound != name.split(".")[0] and name == "torch":
                    torch_names.add(imported.bound)  # import torch as t
        elif imported.kind == "member" and imported.bound is not None:
            if name == "torch.cuda":
                cuda_names.add(imported.bound)  # from torch import cuda [as c]
            elif name.startswith("torch.cuda.") and name.count(".") == 2:
                api = name.rsplit(".", 1)[1]
                if api in banned:
                    func_names[imported.bound] = api  # from torch.cuda import f [as g]
        elif imported.kind == "from" and imported.star and imported.name == "torch.cuda":
            func_names.update({api: api for api in banned})
    findings: list[Finding] = []
    direct_uses = (
        scan.attribute_uses(b"cuda", lambda base, attr: attr in banned and base in torch_names)
        if direct
        else []
    )
    for use in direct_uses:
        if use.attr in banned and use.base in torch_names and _counts(use):
            spelled = f"{use.base}.cuda.{use.attr}"
            findings.append(_finding(scan.relpath, use, use.attr, banned[use.attr], spelled))
    for alias in sorted(cuda_names):
        for use in scan.attribute_uses(
            alias.encode(), lambda base, attr: attr in banned and base is None
        ):
            if use.attr in banned and use.base is None and _counts(use):
                spelled = f"{alias}.{use.attr}"
                findings.append(_finding(scan.relpath, use, use.attr, banned[use.attr], spelled))
    for name, api in sorted(func_names.items()):
        for use in scan.called_names(name.encode()):
            findings.append(_finding(scan.relpath, use, api, banned[api], name))
    return findings


def check(source: SourceFile, config: Config) -> list[Finding]:
    """Findings for one file."""
    try:
        return violations(scan_of(source, packages_memo(config.memo)), config)
    except ScanSyntaxError as exc:
        return [Finding(source.relpath, exc.line, exc.col, "syntax-error", f"cannot parse: {exc}")]


def prefilter(data: bytes, config: Config) -> bool:
    """Every alias form spells ``cuda`` somewhere in the file."""
    return b"cuda" in data


def applies(relpath: str, config: Config) -> bool:
    """Whether the file is outside the allow globs."""
    return not is_allowed(relpath, allows(config))


def _kinds(config: Config) -> frozenset[str]:
    """The file kinds the rule reads: none until ``[tool.policytool.torch-cuda]`` is written."""
    return PYTHON_KINDS if config.section(TorchCudaConfig).configured else frozenset()


RULE = register(
    FileRule(
        id=RULE_ID,
        summary="banned torch.cuda device/memory/sync/seed APIs are not used outside allow globs",
        check=check,
        kinds=_kinds,
        prefilter=prefilter,
        applies=applies,
        doc=DOC,
        group="source",
        config=("torch-cuda",),
    )
)
