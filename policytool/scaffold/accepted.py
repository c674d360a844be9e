# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``.policytool-baseline.json``: findings a repository accepted when it adopted policytool.

``policytool baseline`` writes the findings of every rule without an allowlist here
(one JSON object a kind: rule, path, message, count; not the line, so edits elsewhere in
the file keep them accepted); ``check`` and ``fix`` leave out as many findings of each
kind as were accepted, so a new one still fails. Light on purpose: every hook call
imports it.
"""

from __future__ import annotations

import os
from collections.abc import Collection

from policytool.config import Config
from policytool.engine.findings import Finding, Severity
from policytool.errors import FileError, PolicyError
from policytool.files import read_bounded, resolve_inside, write_atomic

# Findings of rules without an allowlist that a repository accepted when it adopted
# policytool: one JSON object a finding kind, ``{"rule", "path", "message", "count"}``.
BASELINE_FILE = ".policytool-baseline.json"


def _key(finding: Finding) -> tuple[str, str, str]:
    """What identifies an accepted finding: rule, file and message (not the line)."""
    return (finding.rule, finding.path, finding.message)


def load_accepted(config: Config) -> dict[tuple[str, str, str], int]:
    """The accepted findings of ``.policytool-baseline.json`` (empty when there is none)."""
    import json

    path = config.root / BASELINE_FILE
    if not os.path.lexists(path):
        return {}
    try:
        where = resolve_inside(config.root, BASELINE_FILE, BASELINE_FILE)
        data = read_bounded(where, BASELINE_FILE)
        entries = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise PolicyError(f"{BASELINE_FILE}: not a policytool baseline (invalid JSON)") from None
    except FileError as exc:
        raise PolicyError(str(exc)) from None
    accepted: dict[tuple[str, str, str], int] = {}
    if not isinstance(entries, list):
        raise PolicyError(f"{BASELINE_FILE}: not a policytool baseline (expected a list)")
    for entry in entries:
        if not isinstance(entry, dict) or not all(
            isinstance(entry.get(k), str) for k in ("rule", "path", "message")
        ):
            raise PolicyError(f"{BASELINE_FILE}: an entry lacks rule, path or message")
        count = entry.get("count", 1)
        key = (entry["rule"], entry["path"], entry["message"])
        accepted[key] = accepted.get(key, 0) + (count if isinstance(count, int) else 1)
    return accepted


STALE_RULE = "baseline-stale"


def without_accepted(
    config: Config, findings: list[Finding], judged: Collection[str] = ()
) -> list[Finding]:
    """``findings`` less those ``.policytool-baseline.json`` accepts (each as many times).

    ``judged`` are the rules this run ran over every file: an entry of one of them that
    accepts more than it found is a ``baseline-stale`` warning (its spare count would
    accept the same finding written again).
    """
    if not os.path.lexists(config.root / BASELINE_FILE):
        return findings
    left = load_accepted(config)
    kept = []
    for finding in findings:
        key = _key(finding)
        if left.get(key, 0) > 0:
            left[key] -= 1
        else:
            kept.append(finding)
    stale = sorted(key for key, count in left.items() if count > 0 and key[0] in judged)
    if stale:
        kept += _stale_findings(config, stale, left)
    return kept


def _stale_findings(
    config: Config, stale: list[tuple[str, str, str]], left: dict[tuple[str, str, str], int]
) -> list[Finding]:
    """One warning per entry accepting findings that no longer occur, at the entry's line."""
    import json

    try:
        text = read_bounded(config.root / BASELINE_FILE, BASELINE_FILE).decode("utf-8")
    except (FileError, UnicodeDecodeError):
        text = ""
    out = []
    for rule, path, message in stale:
        count = left[(rule, path, message)]
        line = _entry_line(text, json.dumps(path, ensure_ascii=False), message)
        noun = "finding" if count == 1 else "findings"
        verb = "occurs" if count == 1 else "occur"
        out.append(
            Finding(
                BASELINE_FILE,
                line,
                1,
                STALE_RULE,
                f"{count} accepted {rule} {noun} in {path} no longer {verb}; "
                "run `policytool baseline` to shrink the baseline",
                severity=Severity.WARNING,
            )
        )
    return out


def _entry_line(text: str, encoded_path: str, message: str) -> int:
    """The line of the entry with this path and message (1 when it cannot be found)."""
    import json

    encoded_message = json.dumps(message, ensure_ascii=False)
    start = text.find(encoded_path)
    while start != -1:
        end = text.find("}", start)
        entry = text[start : end if end != -1 else len(text)]
        if encoded_message in entry:
            opening = text.rfind("{", 0, start)
            return text.count("\n", 0, max(opening, 0)) + 1
        start = text.find(encoded_path, start + 1)
    return 1


def record(config: Config, findings: list[Finding], rule_ids: tuple[str, ...]) -> list[str]:
    """Write ``findings`` as accepted (for ``rule_ids``, every rule when empty); report lines.

    Entries of rules not in ``rule_ids`` are kept; the file is written atomically.
    """
    import json

    if not findings and not os.path.lexists(config.root / BASELINE_FILE):
        return []
    accepted = {
        key: count
        for key, count in load_accepted(config).items()
        if rule_ids and key[0] not in rule_ids
    }
    for finding in findings:
        key = _key(finding)
        accepted[key] = accepted.get(key, 0) + 1
    entries = [
        {"rule": rule, "path": path, "message": message, "count": count}
        for (rule, path, message), count in sorted(accepted.items())
    ]
    text = json.dumps(entries, indent=1, ensure_ascii=False) + "\n"
    target = resolve_inside(config.root, BASELINE_FILE, BASELINE_FILE)
    try:
        write_atomic(target, text.encode("utf-8"))
    except OSError as exc:
        raise PolicyError(f"{BASELINE_FILE}: cannot write: {exc.strerror or exc}") from None
    rules = sorted({f.rule for f in findings})
    if not findings:
        return [f"{BASELINE_FILE}: no other findings to accept"]
    return [f"{BASELINE_FILE}: accepted {len(findings)} findings of {', '.join(rules)}"]
