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
from dataclasses import dataclass
from pathlib import Path

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.errors import PolicyError
from policytool.files import discover, write_atomic
from policytool.formats.pyimports import FileScan
from policytool.hooks import imports, torch_cuda

BASELINE_RULES = (imports.RULE_ID, torch_cuda.RULE_ID)


@dataclass(frozen=True)
class Section:
    """One config section the baseline adds entries to."""

    label: str  # e.g. ``[[tool.policytool.forbidden-import]] #2 (re)``
    table: str  # the TOML table header to paste under
    allow: tuple[str, ...]
    allowlist_file: str | None
    new: tuple[str, ...]


def _without_missing_files(config: Config) -> Config:
    """``config`` with allowlist files that do not exist yet left out (baseline creates them)."""
    entries = tuple(
        e
        if e.allowlist_file is None or (config.root / e.allowlist_file).is_file()
        else dataclasses.replace(e, allowlist_file=None)
        for e in config.forbidden_import
    )
    cuda = config.torch_cuda
    if cuda.allowlist_file is not None and not (config.root / cuda.allowlist_file).is_file():
        cuda = dataclasses.replace(cuda, allowlist_file=None)
    return dataclasses.replace(config, forbidden_import=entries, torch_cuda=cuda)


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
            scan = FileScan(relpath, (config.root / relpath).read_bytes(), config.root / relpath)
            active = imports.active_entries(relpath, effective)
            for index, finding in imports.violations(scan, effective, active):
                if finding in found[imports.RULE_ID]:
                    per_entry.setdefault(index, set()).add(relpath)
        for index, paths in sorted(per_entry.items()):
            entry = config.forbidden_import[index]
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
            cuda = config.torch_cuda
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


def apply(config: Config, sections: list[Section]) -> list[str]:
    """Write allowlist files and return the report lines (with TOML to paste)."""
    out: list[str] = []
    for section in sections:
        count = len(section.new)
        noun = "file" if count == 1 else "files"
        if section.allowlist_file is not None:
            path = config.root / section.allowlist_file
            try:
                old = path.read_bytes()
            except FileNotFoundError:
                old = b""
            except OSError as exc:
                raise PolicyError(
                    f"{section.allowlist_file}: cannot read allowlist file: {exc.strerror}"
                ) from None
            newline = b"\r\n" if b"\r\n" in old else b"\n"
            prefix = old if not old or old.endswith(b"\n") else old + newline
            added = (
                newline.join(
                    [b"# added by `policytool baseline`", *(p.encode("utf-8") for p in section.new)]
                )
                + newline
            )
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, prefix + added)
            out.append(f"{section.label}: added {count} {noun} to {section.allowlist_file}")
        else:
            merged = list(dict.fromkeys([*section.allow, *section.new]))
            out.append(f"# {section.label}: {count} {noun} with violations; set its allow list to:")
            out.append(_toml_list(merged))
    return out
