# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``.policytool-baseline.json``: findings a repository accepted when it adopted policytool.

``policytool baseline`` writes the findings of every rule without an allowlist here
(one JSON object a kind: rule, path, message, count; not the line, so edits elsewhere in
the file keep them accepted); ``check`` and ``fix`` leave out as many findings of each
kind as were accepted, so a new one still fails. Light on purpose: every hook call
imports it.

It also records the locks ``baseline`` adopted: a configured lock without a policytool
header (a pip-compile or uv output not yet rewritten by ``policytool lock NAME``) is an
entry ``{"rule": "lock-stale", "path", "message", "count": 0, "lock", "from", "sha256"}``
holding the SHA-256 of the file's bytes; ``lock-stale`` accepts that lock only while its
bytes have that digest. ``count`` 0 keeps an older policytool from accepting anything
with it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from policytool.config import Config
from policytool.core.atomic import write_atomic
from policytool.core.boundary import MAX_CONFIG_BYTES, read_bounded, resolve_inside
from policytool.core.text import parse_json
from policytool.engine.findings import Finding, Severity
from policytool.errors import FileError, PolicyError

# Findings of rules without an allowlist that a repository accepted when it adopted
# policytool: one JSON object a finding kind, ``{"rule", "path", "message", "count"}``.
BASELINE_FILE = ".policytool-baseline.json"


def _key(finding: Finding) -> tuple[str, str, str]:
    """What identifies an accepted finding: rule, file and message (not the line)."""
    return (finding.rule, finding.path, finding.message)


ADOPTION_RULE = "lock-stale"


@dataclass(frozen=True)
class Adoption:
    """A header-less lock ``baseline`` took over as it was: its path, lock name, the tool
    that wrote it (``pip-compile``, ``uv`` or ``unknown``) and the SHA-256 of its bytes."""

    path: str
    lock: str
    source: str
    sha256: str

    @property
    def message(self) -> str:
        """The entry's message (also the note ``lock --check`` prints while it holds)."""
        return adopted_note(self.lock, self.source)

    def to_json(self) -> dict[str, object]:
        """The baseline entry."""
        return {
            "rule": ADOPTION_RULE,
            "path": self.path,
            "message": self.message,
            "count": 0,
            "lock": self.lock,
            "from": self.source,
            "sha256": self.sha256,
        }


def _origin(source: str) -> str:
    """``adopted from pip-compile`` (or ``adopted as it was`` when no tool is named)."""
    return f"adopted from {source}" if source != "unknown" else "adopted as it was"


def adopted_note(lock: str, source: str) -> str:
    """What an adopted lock that is still byte-identical says."""
    return (
        f"{_origin(source)}, not yet relocked: run `policytool lock {lock}` to take it over "
        "(until then any edit is a finding)"
    )


@dataclass(frozen=True)
class Baseline:
    """A baseline read: where from (shown in reports), its text, its entries and the locks
    it adopted (by path)."""

    shown: str  # ``.policytool-baseline.json`` or ``REV:.policytool-baseline.json``
    text: str
    entries: dict[tuple[str, str, str], int]
    adopted: dict[str, Adoption] = field(default_factory=dict)


def _parse(text: bytes, shown: str) -> Baseline:
    """The entries of a baseline file's bytes; one sentence naming ``shown`` if unusable."""
    try:
        decoded = text.decode("utf-8")
        entries = parse_json(decoded)
    except UnicodeDecodeError:
        raise PolicyError(f"{shown}: not a policytool baseline (not UTF-8)") from None
    except ValueError as exc:
        raise PolicyError(f"{shown}: not a policytool baseline (invalid JSON: {exc})") from None
    accepted: dict[tuple[str, str, str], int] = {}
    adopted: dict[str, Adoption] = {}
    if not isinstance(entries, list):
        raise PolicyError(f"{shown}: not a policytool baseline (expected a list)")
    for entry in entries:
        if not isinstance(entry, dict) or not all(
            isinstance(entry.get(k), str) for k in ("rule", "path", "message")
        ):
            raise PolicyError(f"{shown}: an entry lacks rule, path or message")
        if "sha256" in entry:
            adopted[entry["path"]] = _adoption(entry, shown)
            continue
        count = entry.get("count", 1)
        key = (entry["rule"], entry["path"], entry["message"])
        accepted[key] = accepted.get(key, 0) + (count if isinstance(count, int) else 1)
    return Baseline(shown, decoded, accepted, adopted)


def _adoption(entry: dict[str, object], shown: str) -> Adoption:
    """An adoption entry; one sentence naming ``shown`` and the path if it is malformed."""
    path, digest = entry["path"], entry.get("sha256")
    lock, source = entry.get("lock"), entry.get("from", "unknown")
    if (
        entry.get("rule") != ADOPTION_RULE
        or not isinstance(digest, str)
        or re.fullmatch(r"[0-9a-f]{64}", digest) is None
        or not isinstance(lock, str)
        or not isinstance(source, str)
    ):
        raise PolicyError(
            f"{shown}: the adoption entry for {path} needs rule 'lock-stale', a lock name "
            "and a 64-digit lowercase hex sha256"
        )
    return Adoption(str(path), lock, source, digest)


def _from_rev(config: Config, rev: str) -> Baseline | None:
    """The baseline committed at ``rev`` (None when that commit has none), read with git:
    a regular blob no larger than :data:`MAX_CONFIG_BYTES`."""
    from policytool.core.git import blob_sizes, cat_blobs, commit_sha, run_git

    shown = f"{rev}:{BASELINE_FILE}"
    sha = commit_sha(config.root, rev)
    if sha is None:
        raise PolicyError(f"--baseline-from {rev}: not a commit of this repository")
    proc = run_git(config.root, ["ls-tree", "-z", sha, "--", BASELINE_FILE])
    if proc.returncode != 0:
        raise PolicyError(f"--baseline-from {rev}: git ls-tree failed")
    entry = proc.stdout.split(b"\0")[0]
    if not entry:
        return None
    fields = entry.split(b"\t")[0].split(b" ")
    if len(fields) != 3 or fields[0] not in (b"100644", b"100755") or fields[1] != b"blob":
        raise PolicyError(f"{shown}: not a regular file")
    blob = fields[2].decode("ascii")
    size = blob_sizes(config.root, [blob]).get(blob)
    if size is None or size > MAX_CONFIG_BYTES:
        raise PolicyError(f"{shown}: {size} bytes, over the {MAX_CONFIG_BYTES}-byte limit")
    return _parse(cat_blobs(config.root, [blob])[blob], shown)


def read_baseline(config: Config, rev: str | None = None) -> Baseline | None:
    """The baseline of the work tree, or the one committed at ``rev``; None without one."""
    if rev is not None:
        return _from_rev(config, rev)
    if not os.path.lexists(config.root / BASELINE_FILE):
        return None
    try:
        where = resolve_inside(config.root, BASELINE_FILE, BASELINE_FILE)
        data = read_bounded(where, BASELINE_FILE)
    except FileError as exc:
        raise PolicyError(str(exc)) from None
    return _parse(data, BASELINE_FILE)


def load_adopted(config: Config, rev: str | None = None) -> dict[str, Adoption]:
    """The locks the baseline adopted, by path (the work tree's, or committed at ``rev``)."""
    baseline = read_baseline(config, rev)
    return dict(baseline.adopted) if baseline is not None else {}


def load_accepted(config: Config) -> dict[tuple[str, str, str], int]:
    """The accepted findings of ``.policytool-baseline.json`` (empty when there is none)."""
    baseline = read_baseline(config)
    return dict(baseline.entries) if baseline is not None else {}


STALE_RULE = "baseline-stale"


@dataclass(frozen=True)
class Judged:
    """Findings after the baseline: those kept, those it accepted, and which baseline."""

    kept: list[Finding]
    accepted: list[Finding] = field(default_factory=list)
    shown: str = BASELINE_FILE


def without_accepted(
    config: Config, findings: list[Finding], judged: Collection[str] = (), rev: str | None = None
) -> Judged:
    """``findings`` less those the baseline accepts (each as many times), kept apart.

    The baseline is the work tree's, or the one committed at ``rev`` (``check
    --baseline-from``: a pull request is judged against its base branch's baseline, so
    it cannot accept its own findings). A finding that is not ``acceptable`` is kept
    whatever the baseline says. ``judged`` are the rules this run ran over every
    file: an entry of one of them that accepts more than it found is a ``baseline-stale``
    warning (its spare count would accept the same finding written again).
    """
    baseline = read_baseline(config, rev)
    if baseline is None:
        return Judged(findings)
    left = dict(baseline.entries)
    kept = []
    accepted = []
    refused: set[tuple[str, str, str]] = set()
    for finding in findings:
        key = _key(finding)
        if left.get(key, 0) > 0 and not finding.acceptable:
            refused.add(key)
            kept.append(finding)
        elif left.get(key, 0) > 0:
            left[key] -= 1
            accepted.append(finding)
        else:
            kept.append(finding)
    stale = sorted(
        key for key, count in left.items() if count > 0 and (key[0] in judged or key in refused)
    )
    if stale:
        kept += _stale_findings(baseline, stale, left, refused)
    return Judged(kept, accepted, baseline.shown)


def _stale_findings(
    baseline: Baseline,
    stale: list[tuple[str, str, str]],
    left: dict[tuple[str, str, str], int],
    refused: Collection[tuple[str, str, str]] = (),
) -> list[Finding]:
    """One warning per entry accepting findings that no longer occur (or that a baseline
    never accepts: ``refused``), at the entry's line."""
    import json

    text = baseline.text
    out = []
    for rule, path, message in stale:
        count = left[(rule, path, message)]
        line = _entry_line(text, json.dumps(path, ensure_ascii=False), message)
        noun = "finding" if count == 1 else "findings"
        verb = "occurs" if count == 1 else "occur"
        if (rule, path, message) in refused:
            said = (
                f"an entry for a {rule} finding in {path} that no baseline accepts "
                "(it stops other checks from looking); remove the entry"
            )
        else:
            said = (
                f"{count} accepted {rule} {noun} in {path} no longer {verb}; "
                "run `policytool baseline` to shrink the baseline"
            )
        out.append(Finding(BASELINE_FILE, line, 1, STALE_RULE, said, severity=Severity.WARNING))
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


def record(
    config: Config,
    findings: list[Finding],
    rule_ids: tuple[str, ...],
    adopted: Collection[Adoption] = (),
) -> list[str]:
    """Write ``findings`` as accepted (for ``rule_ids``, every rule when empty) and the
    ``adopted`` locks; report lines.

    Entries of rules not in ``rule_ids`` are kept; the file is written atomically. A
    finding that is not ``acceptable`` is left out (``policytool baseline`` then says
    what is left).
    """
    import json

    findings = [f for f in findings if f.acceptable]
    if not findings and not adopted and not os.path.lexists(config.root / BASELINE_FILE):
        return []
    old = read_baseline(config)

    def keep(rule: str) -> bool:
        """Whether this run leaves entries of ``rule`` as they are."""
        return bool(rule_ids) and rule not in rule_ids

    accepted = {key: count for key, count in (old.entries if old else {}).items() if keep(key[0])}
    adoptions = {path: a for path, a in (old.adopted if old else {}).items() if keep(ADOPTION_RULE)}
    adoptions.update((a.path, a) for a in adopted)
    for finding in findings:
        key = _key(finding)
        accepted[key] = accepted.get(key, 0) + 1
    entries = [
        {"rule": rule, "path": path, "message": message, "count": count}
        for (rule, path, message), count in sorted(accepted.items())
    ] + [adoptions[path].to_json() for path in sorted(adoptions)]
    text = json.dumps(entries, indent=1, ensure_ascii=False) + "\n"
    target = resolve_inside(config.root, BASELINE_FILE, BASELINE_FILE)
    try:
        write_atomic(target, text.encode("utf-8"))
    except OSError as exc:
        raise PolicyError(f"{BASELINE_FILE}: cannot write: {exc.strerror or exc}") from None
    rules = sorted({f.rule for f in findings})
    lines = [
        f"{a.path}: {_origin(a.source)} as lock '{a.lock}' "
        f"(sha256 {a.sha256[:12]}…); `policytool lock {a.lock}` takes it over"
        for a in sorted(adopted, key=lambda a: a.path)
    ]
    if not findings:
        return [*lines, f"{BASELINE_FILE}: no other findings to accept"]
    return [*lines, f"{BASELINE_FILE}: accepted {len(findings)} findings of {', '.join(rules)}"]
