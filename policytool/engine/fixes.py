# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Fixes as data: a rule's fixer returns :class:`Fix` es of :class:`Edit` s; the engine
applies them (the one write path of repo-rule fixers).

An :class:`Edit` replaces a range of a file's text as read (UTF-8, a BOM dropped;
offsets in characters). :func:`apply_fixes` groups the fixes of a run by file, keeps a
fix only when none of its edits overlaps an edit of an earlier fix (the others are left
for the next run), runs each fix's own verification (the rule's structural comparison of
the old and the new text), computes every new text before the first write, writes
through :func:`policytool.core.write_atomic` inside the repository, and reports the
paths it changed. A file whose fixes all fail verification is left byte-identical.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from policytool.core.atomic import unwritable_reason, write_atomic
from policytool.core.boundary import read_bounded
from policytool.core.text import decode_text, encode_like
from policytool.errors import DecodeError, FileError

if TYPE_CHECKING:
    from policytool.engine.source import SourceFile

# The rule's verification of one fix: (old text, new text) -> None when the new text
# changes only what the fix means to change, else the reason it does not.
Verify = Callable[[str, str], str | None]


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` of the file ``path`` (repo-relative) with ``new``.

    ``start == end`` inserts; ``new == ""`` deletes.
    """

    path: str
    start: int
    end: int
    new: str

    def __post_init__(self) -> None:
        """Refuse a range that is not one."""
        if not 0 <= self.start <= self.end:
            raise ValueError(f"{self.path}: edit range {self.start}..{self.end} is not a range")

    @classmethod
    def between(cls, path: str, old: str, new: str) -> Edit:
        """The one edit that turns ``old`` into ``new``: their differing middle."""
        limit = min(len(old), len(new))
        head = 0
        while head < limit and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
            tail += 1
        return cls(path, head, len(old) - tail, new[head : len(new) - tail])


@dataclass(frozen=True)
class Fix:
    """What a fixer proposes for one finding: its edits, a short description, and the
    rule's verification (None: the edits need none)."""

    description: str
    edits: tuple[Edit, ...]
    verify: Verify | None = field(default=None, compare=False)

    @property
    def paths(self) -> list[str]:
        """The files the fix edits, in order of first edit."""
        return list(dict.fromkeys(edit.path for edit in self.edits))


def overlaps(a: Edit, b: Edit) -> bool:
    """Whether two edits of one file touch the same text (two inserts at one offset do:
    their order would be a guess)."""
    if a.path != b.path:
        return False
    if a.start == a.end and b.start == b.end:
        return a.start == b.start
    return (a.start < b.end and b.start < a.end) or a.start == b.start


def splice(text: str, edits: Sequence[Edit]) -> str:
    """``text`` with ``edits`` (of one file, none overlapping) applied.

    Raises ValueError when two edits overlap or one reaches past the end of ``text``.
    """
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    out: list[str] = []
    last = 0
    previous: Edit | None = None
    for edit in ordered:
        if edit.end > len(text):
            raise ValueError(f"{edit.path}: edit ends at {edit.end}, past the text's end")
        if previous is not None and overlaps(previous, edit):
            raise ValueError(f"{edit.path}: edits at {previous.start} and {edit.start} overlap")
        out.append(text[last : edit.start])
        out.append(edit.new)
        last = edit.end
        previous = edit
    out.append(text[last:])
    return "".join(out)


def fixed_text(text: str, fixes: Sequence[Fix]) -> str:
    """``text`` with the fixes a file rule proposes for it: the first of overlapping ones,
    each verified on ``text`` with its own edits (a refused fix changes nothing)."""
    kept, _left = select(fixes)
    edits = [
        edit
        for fix in kept
        if fix.verify is None or fix.verify(text, splice(text, fix.edits)) is None
        for edit in fix.edits
    ]
    return splice(text, edits)


def fixed_data(source: SourceFile, fix: Fix | None) -> bytes | None:
    """The bytes of ``source`` with a file rule's ``fix`` (verified) applied, in the file's
    encoding with its BOM; None when nothing changes or the encoding cannot hold it."""
    if fix is None:
        return None
    new_text = fixed_text(source.text, [fix])
    new = source.encoded(new_text) if new_text != source.text else None
    return new if new != source.data else None


def select(fixes: Sequence[Fix]) -> tuple[list[Fix], list[Fix]]:
    """(kept, left): a fix is kept when none of its edits overlaps one of an earlier kept
    fix (or another of its own); the others are left for the next run."""
    kept: list[Fix] = []
    left: list[Fix] = []
    taken: list[Edit] = []
    for fix in fixes:
        own = list(fix.edits)
        clash = any(overlaps(a, b) for a in own for b in taken) or any(
            overlaps(a, b) for i, a in enumerate(own) for b in own[i + 1 :]
        )
        if clash:
            left.append(fix)
        else:
            kept.append(fix)
            taken += own
    return kept, left


@dataclass
class Applied:
    """What :func:`apply_fixes` did: the paths written, the fixes left for the next run
    (overlapping an earlier one), and the fixes refused with the reason."""

    changed: list[str] = field(default_factory=list)
    left: list[Fix] = field(default_factory=list)
    refused: list[tuple[Fix, str]] = field(default_factory=list)
    # Paths never written because of what they are (a symlink, a read-only file): the
    # reason, for the findings there to say ``(not fixed: REASON)``.
    unwritable: dict[str, str] = field(default_factory=dict)


def _file_text(root: Path, relpath: str) -> tuple[bytes, str] | str:
    """(raw bytes, text as read) of a file to fix, or why it cannot be read."""
    try:
        raw = read_bounded(root / relpath, relpath)
        return raw, decode_text(raw, relpath)
    except (FileError, DecodeError) as exc:
        return str(exc)


def _verified(fix: Fix, path: str, text: str) -> str | None:
    """Why ``fix`` does not hold on ``text`` (its edits of ``path`` alone), or None."""
    try:
        new = splice(text, [e for e in fix.edits if e.path == path])
    except ValueError as exc:
        return str(exc)
    if fix.verify is None:
        return None
    return fix.verify(text, new)


def apply_fixes(root: Path, fixes: Sequence[Fix]) -> Applied:
    """Apply the non-overlapping ``fixes`` to the files under ``root``; the paths changed.

    Each kept fix is verified on its own edits (the rule's structural comparison of old
    and new text); a fix that fails is refused and its file keeps the other fixes' edits.
    A symlink or read-only file is never written (its fixes are refused, the reason in
    ``unwritable``). Every new text is computed before the first write; writes are
    atomic and confined to ``root`` (a :class:`~policytool.errors.WriteError` stops the
    run, one sentence).
    """
    kept, left = select(fixes)
    result = Applied(left=left)
    by_path: dict[str, list[Fix]] = {}
    for fix in kept:
        for path in fix.paths:
            by_path.setdefault(path, []).append(fix)
    refused: set[int] = set()
    reads: dict[str, tuple[bytes, str]] = {}
    for path, path_fixes in by_path.items():
        reason = unwritable_reason(root / path)
        if reason is not None:
            result.unwritable[path] = reason
        read = _file_text(root, path) if reason is None else reason
        if isinstance(read, str):
            for fix in path_fixes:
                if id(fix) not in refused:
                    refused.add(id(fix))
                    result.refused.append((fix, read))
            continue
        reads[path] = read
        for fix in path_fixes:
            reason = None if id(fix) in refused else _verified(fix, path, read[1])
            if reason is not None:
                refused.add(id(fix))
                result.refused.append((fix, reason))
    writes: list[tuple[str, bytes]] = []
    for path, (raw, text) in reads.items():
        edits = [
            e for f in by_path[path] if id(f) not in refused for e in f.edits if e.path == path
        ]
        new = splice(text, edits)
        if new != text:
            writes.append((path, encode_like(raw, new)))
    for path, data in writes:
        write_atomic(root / path, data, inside=root)
        result.changed.append(path)
    return result
