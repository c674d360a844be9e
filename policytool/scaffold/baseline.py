# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool baseline [RULE...]``: allow today's violations so a rule can go on now.

Runs the named rules (``forbidden-import``, ``torch-cuda``; both by default) over every
tracked file, then for each config section with violations outside its allow globs:
appends the files to the section's ``allowlist-file`` (created if missing; existing
lines and comments kept) or, without one, prints the ``allow = [...]`` TOML to paste.
New violations elsewhere are still findings, and ``stale-allow`` reports entries once
their file is clean, so the allowlist only shrinks.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

from policytool.config import Config
from policytool.core.atomic import write_atomic
from policytool.core.boundary import MAX_SOURCE_BYTES, read_bounded
from policytool.core.discovery import discover
from policytool.engine.findings import Finding
from policytool.errors import FileError, PolicyError
from policytool.formats.pyimports import FileScan
from policytool.rules import forbidden_import as imports
from policytool.rules import torch_cuda
from policytool.rules._allowlist import allowlist_path
from policytool.rules._source_config import ForbiddenImportConfig, TorchCudaConfig

BASELINE_RULES = (imports.RULE_ID, torch_cuda.RULE_ID)


@dataclass(frozen=True)
class Section:
    """One config section the baseline adds entries to."""

    label: str  # e.g. ``[[tool.policytool.forbidden-import]] #2 (re)``
    table: str  # the TOML table header to paste under
    allow: tuple[str, ...]
    allowlist_file: str | None
    new: tuple[str, ...]


def _exists(config: Config, name: str | None, label: str) -> bool:
    """Whether allowlist file ``name`` exists (it must lie inside the repository)."""
    return name is not None and allowlist_path(config, name, label).is_file()


def _without_missing_files(config: Config) -> Config:
    """``config`` with allowlist files that do not exist yet left out (baseline creates them)."""
    entries = tuple(
        e
        if e.allowlist_file is None
        or _exists(config, e.allowlist_file, f"[[tool.policytool.forbidden-import]] #{i + 1}")
        else dataclasses.replace(e, allowlist_file=None)
        for i, e in enumerate(config.entries(ForbiddenImportConfig))
    )
    cuda = config.section(TorchCudaConfig)
    if cuda.allowlist_file is not None and not _exists(
        config, cuda.allowlist_file, "[tool.policytool.torch-cuda] allowlist-file"
    ):
        cuda = dataclasses.replace(cuda, allowlist_file=None)
    return config.with_sections(*entries, cuda)


def compute(config: Config, rule_ids: tuple[str, ...], cwd: Path) -> list[Section]:
    """The sections that need new allow entries for ``rule_ids`` (all when empty)."""
    from policytool.engine.registry import file_rules
    from policytool.engine.runner import run_file_rules

    for rule_id in rule_ids:
        if rule_id not in BASELINE_RULES:
            raise PolicyError(
                f"baseline: rule '{rule_id}' has no allowlist; "
                f"choose from {', '.join(BASELINE_RULES)}"
            )
    wanted = rule_ids or BASELINE_RULES
    effective = _without_missing_files(config)
    files = discover(config.root, None, cwd, config.exclude)
    registry = file_rules(wanted)
    result = run_file_rules(effective, files, [registry[r] for r in wanted])
    sections: list[Section] = []
    found: dict[str, set[Finding]] = {}
    for finding in result.findings:
        found.setdefault(finding.rule, set()).add(finding)
    if imports.RULE_ID in wanted:
        per_entry: dict[int, set[str]] = {}
        dirty = sorted({f.path for f in found.get(imports.RULE_ID, ())})
        for relpath in dirty:
            data = read_bounded(config.root / relpath, relpath, MAX_SOURCE_BYTES)
            scan = FileScan(relpath, data, config.root / relpath)
            active = imports.active_entries(relpath, effective)
            for index, finding in imports.violations(scan, effective, active):
                if finding in found[imports.RULE_ID]:
                    per_entry.setdefault(index, set()).add(relpath)
        for index, paths in sorted(per_entry.items()):
            entry = config.entries(ForbiddenImportConfig)[index]
            sections.append(
                Section(
                    f"[[tool.policytool.forbidden-import]] #{index + 1} "
                    f"({', '.join(entry.modules)})",
                    "[[tool.policytool.forbidden-import]]",
                    entry.allow,
                    entry.allowlist_file,
                    tuple(sorted(paths)),
                )
            )
    if torch_cuda.RULE_ID in wanted:
        paths_cuda = sorted({f.path for f in found.get(torch_cuda.RULE_ID, ())})
        if paths_cuda:
            cuda = config.section(TorchCudaConfig)
            sections.append(
                Section(
                    "[tool.policytool.torch-cuda]",
                    "[tool.policytool.torch-cuda]",
                    cuda.allow,
                    cuda.allowlist_file,
                    tuple(paths_cuda),
                )
            )
    return sections


def _toml_list(values: list[str]) -> str:
    """``allow = [...]`` with one quoted glob a line."""
    import json

    body = "".join(f"    {json.dumps(v)},\n" for v in values)
    return f"allow = [\n{body}]"


def _allowlist_update(config: Config, section: Section) -> tuple[Path, bytes | None, bytes]:
    """(path, old bytes or None when missing, new bytes) of one section's allowlist file."""
    name = section.allowlist_file or ""
    path = allowlist_path(config, name, f"{section.table} allowlist-file")
    try:
        old: bytes | None = read_bounded(path, name) if os.path.lexists(path) else None
    except FileError as exc:
        raise PolicyError(f"{exc}; baseline changed nothing") from None
    before = old or b""
    newline = b"\r\n" if b"\r\n" in before else b"\n"
    prefix = before if not before or before.endswith(b"\n") else before + newline
    added = newline.join(
        [b"# added by `policytool baseline`", *(p.encode("utf-8") for p in section.new)]
    )
    return path, old, prefix + added + newline


def _write_all(config: Config, updates: list[tuple[Path, bytes | None, bytes]]) -> None:
    """Write every update or none: a failure restores what was already written."""
    done: list[tuple[Path, bytes | None, list[Path]]] = []
    try:
        for path, old, new in updates:
            made = [p for p in reversed(path.parents) if not p.exists()]
            done.append((path, old, made))
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, new)
    except OSError as exc:
        for path, old, made in reversed(done):
            try:
                if old is None:
                    path.unlink(missing_ok=True)
                else:
                    write_atomic(path, old)
                for directory in reversed(made):
                    directory.rmdir()
            except OSError:
                pass  # best effort: the first error is the one reported
        shown = os.path.relpath(done[-1][0], config.root) if done else "allowlist"
        message = f"{shown}: cannot write the allowlist: {exc.strerror or exc}; nothing changed"
        raise PolicyError(message) from None


def apply(config: Config, sections: list[Section]) -> list[str]:
    """Write allowlist files (all or none) and return the report lines (with TOML to paste)."""
    out: list[str] = []
    updates: list[tuple[Path, bytes | None, bytes]] = []
    for section in sections:
        count = len(section.new)
        noun = "file" if count == 1 else "files"
        if section.allowlist_file is not None:
            updates.append(_allowlist_update(config, section))
            out.append(f"{section.label}: added {count} {noun} to {section.allowlist_file}")
        else:
            merged = list(dict.fromkeys([*section.allow, *section.new]))
            out.append(f"# {section.label}: {count} {noun} with violations; set its allow list to:")
            out.append(_toml_list(merged))
    _write_all(config, updates)
    return out
