# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The dependency-bump PR body: the template ``init`` writes and ``bump`` fills.

The dependency-bump PR template
-------------------------------
``.github/PULL_REQUEST_TEMPLATE/dependency-bump.md`` is what ``policytool bump`` fills
into a PR body. Placeholders are ``{{ name }}`` (double braces, spaces inside
optional, lowercase name; ``${{ ... }}`` GitHub expressions are never touched):

- ``{{ title }}``: one line, e.g. ``Bump torch 2.4.0 -> 2.5.1``;
- ``{{ packages }}``: a Markdown table of every package that moved: package, from, to,
  the locks it moved in, direct (named in an input or pyproject) or transitive;
- ``{{ why }}``: the ``--why`` text;
- ``{{ locks }}``: a bullet list of the locks that were regenerated;
- ``{{ jobs }}``: a checklist of the ``jobs`` each touched lock names (each job once,
  with the locks that want it);
- ``{{ command }}``: the command that made the bump;
- ``{{ release }}``: what Dependabot tells a reviewer, from PyPI's JSON API: the project
  and changelog links, the version range, ``requires-python`` before and after, known
  vulnerabilities fixed or introduced, packages added or removed (offline: that it could
  not look);
- ``{{ untouched }}``: pins of the package in files no lock reads, left as they were.

:func:`render_bump_body` substitutes them in one pass (text inserted for one
placeholder is never expanded again). Unknown placeholders are left as written;
:func:`unknown_placeholders` lists them so the caller can warn. A repository may edit
its copy of the template freely: headings, wording and order are its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from policytool.pypi import Release, ReleaseNotes

BUMP_TEMPLATE_PATH = ".github/PULL_REQUEST_TEMPLATE/dependency-bump.md"
PLACEHOLDERS = ("title", "packages", "why", "locks", "jobs", "command", "release", "untouched")
_PLACEHOLDER_RE = re.compile(r"(?<!\$)\{\{\s*([a-z][a-z0-9_]*)\s*\}\}")


BUMP_TEMPLATE = """\
<!-- Dependency bump. `policytool bump PKG[==VER] --why TEXT` fills the double-brace
     placeholders below; opening this PR by hand, replace them yourself. -->
# {{ title }}

## Packages

{{ packages }}

## Why

{{ why }}

## Release

{{ release }}

## Locks regenerated

{{ locks }}

## Pins left alone

{{ untouched }}

## Jobs to re-validate

Every job the touched locks name in `jobs`; tick each one once it passed on this PR.

{{ jobs }}

## Upgrade procedure

- [ ] Pins bumped and locks regenerated with `{{ command }}`, not by hand
      (`policytool lock --check` passes)
- [ ] CI image rebuilt from the new locks (no cached dependency layer reused)
- [ ] Targeted retest: the jobs above ran on the rebuilt image
- [ ] Failures caused by the bump are linked here, or the bump is reverted
"""


@dataclass(frozen=True)
class PackageMove:
    """One package whose pin changed; ``old``/``new`` None when it was added/removed."""

    name: str
    old: str | None
    new: str | None
    locks: tuple[str, ...]
    direct: bool  # named in an input of some lock it moved in, or the bumped package
    direct_in: tuple[str, ...] | None = None  # the locks naming it in an input (None: all)


@dataclass(frozen=True)
class ReleaseFacts:
    """The release data of the bumped package: each side a Release or why it is missing."""

    package: str
    old: tuple[str, ...]  # the versions pinned before (one per lock, usually one)
    new: str
    before: Release | str | None = None  # None: not looked up (--offline)
    after: Release | str | None = None
    pythons: tuple[tuple[str, str], ...] = ()  # (lock, the Python it resolves for)
    notes: ReleaseNotes | None = None  # GitHub compare link and release notes


@dataclass(frozen=True)
class BumpBody:
    """What a dependency-bump PR body says.

    ``jobs`` maps each touched lock's name to the jobs it names (``LockConfig.jobs``);
    ``locks`` lists the regenerated locks in order (default: the keys of ``jobs``).
    """

    moves: Sequence[PackageMove]
    why: str
    command: str
    jobs: Mapping[str, Sequence[str]] = field(default_factory=dict)
    locks: Sequence[str] = ()
    title: str | None = None
    release: ReleaseFacts | None = None
    untouched: Sequence[tuple[str, str]] = ()  # (path, version) of pins left alone
    releases: Sequence[ReleaseFacts] = ()  # one per bumped package (a group: several)


def _version(value: str | None) -> str:
    """A version for the table; ``(none)`` for an added or removed package."""
    return value if value is not None else "(none)"


def bump_title(moves: Sequence[PackageMove]) -> str:
    """``Bump a 1 -> 2, b 3 -> 4`` from the direct moves (all moves if none is direct)."""
    chosen = [m for m in moves if m.direct] or list(moves)
    if not chosen:
        return "Dependency bump"
    parts = [f"{m.name} {_version(m.old)} -> {_version(m.new)}" for m in chosen[:3]]
    more = f" and {len(chosen) - 3} more" if len(chosen) > 3 else ""
    return f"Bump {', '.join(parts)}{more}"


def packages_table(moves: Sequence[PackageMove]) -> str:
    """The Markdown table of package moves, direct ones first."""
    if not moves:
        return "_No package moved._"
    rows = ["| Package | From | To | Locks | Kind |", "| --- | --- | --- | --- | --- |"]
    for move in sorted(moves, key=lambda m: (not m.direct, m.name.lower())):
        locks = ", ".join(f"`{name}`" for name in move.locks) or "-"
        kind = _kind(move)
        rows.append(
            f"| `{move.name}` | {_version(move.old)} | {_version(move.new)} | {locks} | {kind} |"
        )
    return "\n".join(rows)


def _kind(move: PackageMove) -> str:
    """``direct``, ``transitive``, or which of both per lock."""
    if move.direct_in is None:
        return "direct" if move.direct else "transitive"
    direct = [lock for lock in move.locks if lock in move.direct_in]
    transitive = [lock for lock in move.locks if lock not in move.direct_in]
    if not transitive:
        return "direct"
    if not direct:
        return "transitive"
    return (
        f"direct in {', '.join(f'`{lock}`' for lock in direct)}; "
        f"transitive in {', '.join(f'`{lock}`' for lock in transitive)}"
    )


def jobs_checklist(jobs: Mapping[str, Sequence[str]]) -> str:
    """``- [ ] job (locks: a, b)`` for each job once, in first-seen order."""
    wanted: dict[str, list[str]] = {}
    for lock, names in jobs.items():
        for job in names:
            wanted.setdefault(job, []).append(lock)
    if not wanted:
        return (
            "- [ ] No jobs are named for the touched locks; list them in `jobs` of their "
            "`[[tool.policytool.lock]]` entry and name here what was retested."
        )
    return "\n".join(
        f"- [ ] `{job}` (locks: {', '.join(f'`{lock}`' for lock in locks)})"
        for job, locks in wanted.items()
    )


def _locks_list(locks: Sequence[str]) -> str:
    """The bullet list of regenerated locks."""
    if not locks:
        return "_No lock was regenerated._"
    return "\n".join(f"- `{name}`" for name in locks)


def _vulns(items: Sequence[str]) -> str:
    """A comma list of vulnerability ids, or ``none known``."""
    return ", ".join(items) if items else "none known"


def release_section(
    facts: ReleaseFacts | None, moves: Sequence[PackageMove], summary: bool = True
) -> str:
    """Dependabot's facts for a reviewer, from the :class:`ReleaseFacts` (Markdown);
    ``summary``: with the packages added and removed (once, after the last package)."""
    from policytool.pypi import Release

    if facts is None:
        return "_No release data._"
    old = ", ".join(facts.old) or "(none)"
    after = facts.after if isinstance(facts.after, Release) else None
    before = facts.before if isinstance(facts.before, Release) else None
    name = (
        f"[{facts.package}]({after.project_url})"
        if after and after.project_url
        else (f"`{facts.package}`")
    )
    lines = [f"Bumps {name} from {old} to {facts.new}."]
    if facts.after is None:
        lines.append("- Release data: not looked up (offline).")
    elif after is None:
        lines.append(f"- Release data: {facts.after}.")
    else:
        if after.from_project:
            lines.append(
                f"- Release data: from the project's page (PyPI has no page for "
                f"{facts.new} itself); its vulnerabilities are not known."
            )
        if after.changelog_url:
            lines.append(f"- Changelog / release notes: {after.changelog_url}")
        else:
            lines.append("- Changelog / release notes: the package metadata names none.")
        old_python = before.requires_python if before else None
        if before is None:
            lines.append(
                f"- `requires-python`: `{after.requires_python or 'any'}` "
                "(the old release could not be looked up)"
            )
        elif old_python != after.requires_python:
            lines.append(
                f"- `requires-python` changed: `{old_python or 'any'}` -> "
                f"`{after.requires_python or 'any'}`"
            )
        else:
            lines.append(f"- `requires-python` unchanged: `{after.requires_python or 'any'}`")
        lines += compatibility_lines(facts.new, after.requires_python, facts.pythons)
        lines += notes_lines(facts.notes)
        if after.from_project:
            if summary:
                lines += _added_removed(moves)
            return "\n".join(lines)
        new_ids = {v.id for v in after.vulnerabilities}
        if before is not None:
            fixed = sorted(v.id for v in before.vulnerabilities if v.id not in new_ids)
            lines.append(f"- Vulnerabilities fixed: {_vulns(fixed)}")
            old_ids = {v.id for v in before.vulnerabilities}
            introduced = sorted(new_ids - old_ids)
        else:
            introduced = sorted(new_ids)
        lines.append(f"- Vulnerabilities in {facts.new}: {_vulns(introduced)}")
    if summary:
        lines += _added_removed(moves)
    return "\n".join(lines)


def _added_removed(moves: Sequence[PackageMove]) -> list[str]:
    """``- Packages added: ...`` and ``- Packages removed: ...``."""
    added = [f"`{m.name}` {m.new}" for m in moves if m.old is None]
    removed = [f"`{m.name}` {m.old}" for m in moves if m.new is None]
    return [
        f"- Packages added: {', '.join(added) if added else 'none'}",
        f"- Packages removed: {', '.join(removed) if removed else 'none'}",
    ]


def compatibility_lines(
    version: str, requires: str | None, pythons: Sequence[tuple[str, str]]
) -> list[str]:
    """``- Compatibility: ...``: the new release's ``requires-python`` against the Python
    each touched lock resolves for (a universal lock: its lowest Python)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    if not pythons:
        return []
    if requires is None:
        return [f"- Compatibility: {version} declares no `requires-python`"]
    try:
        spec = SpecifierSet(requires)
    except InvalidSpecifier:
        return [f"- Compatibility: {version} declares an unreadable `requires-python`"]
    parts = []
    for lock, python in pythons:
        try:
            ok = spec.contains(Version(python.split()[0]), prereleases=True)
        except InvalidVersion:
            continue
        verdict = "ok" if ok else "**not satisfied**"
        parts.append(f"`{lock}` resolves for Python {python}: {verdict}")
    if not parts:
        return []
    return [f"- Compatibility: {version} requires Python `{requires}`; " + "; ".join(parts)]


def notes_lines(notes: ReleaseNotes | None) -> list[str]:
    """The compare link, the releases page and an excerpt of the new release's notes."""
    if notes is None:
        return []
    label = "Compare" if notes.tags_checked else "Compare (tag names guessed)"
    lines = [
        f"- {label}: {notes.compare_url}",
        f"- Releases: {notes.releases_url}",
    ]
    if notes.excerpt is None:
        lines.append(f"- Release notes: not fetched ({notes.why})")
        return lines
    quoted = "\n".join(f"> {line}" if line else ">" for line in notes.excerpt.split("\n"))
    lines.append(f"\n<details>\n<summary>Release notes</summary>\n\n{quoted}\n\n</details>\n")
    return lines


def untouched_list(untouched: Sequence[tuple[str, str]]) -> str:
    """The pins of the package in files no lock reads (left alone)."""
    if not untouched:
        return "_None: no requirement file outside the locks' inputs pins the package._"
    return "\n".join(
        f"- `{path}` pins {version} (read by no lock, not changed)" for path, version in untouched
    )


def unknown_placeholders(template: str) -> list[str]:
    """Placeholder names in ``template`` that :func:`render_bump_body` does not fill."""
    names = [m.group(1) for m in _PLACEHOLDER_RE.finditer(template)]
    return sorted({name for name in names if name not in PLACEHOLDERS})


def render_bump_body(template: str, body: BumpBody) -> str:
    """``template`` with every known placeholder filled from ``body`` in one pass."""
    locks = list(body.locks) if body.locks else list(body.jobs)
    releases = list(body.releases) or ([body.release] if body.release else [])
    values = {
        "title": body.title or bump_title(body.moves),
        "packages": packages_table(body.moves),
        "why": body.why.strip() or "_No reason given; say why this bump is needed._",
        "locks": _locks_list(locks),
        "jobs": jobs_checklist(body.jobs),
        "command": body.command,
        "release": "\n\n".join(
            release_section(facts, body.moves, number == len(releases) - 1)
            for number, facts in enumerate(releases)
        )
        or release_section(None, body.moves),
        "untouched": untouched_list(body.untouched),
    }

    def substitute(match: re.Match[str]) -> str:
        """The value of one placeholder, or the placeholder itself when unknown."""
        return values.get(match.group(1), match.group(0))

    return _PLACEHOLDER_RE.sub(substitute, template)
