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
- ``{{ command }}``: the command that made the bump.

:func:`render_bump_body` substitutes them in one pass (text inserted for one
placeholder is never expanded again). Unknown placeholders are left as written;
:func:`unknown_placeholders` lists them so the caller can warn. A repository may edit
its copy of the template freely: headings, wording and order are its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

BUMP_TEMPLATE_PATH = ".github/PULL_REQUEST_TEMPLATE/dependency-bump.md"
PLACEHOLDERS = ("title", "packages", "why", "locks", "jobs", "command")
_PLACEHOLDER_RE = re.compile(r"(?<!\$)\{\{\s*([a-z][a-z0-9_]*)\s*\}\}")


BUMP_TEMPLATE = """\
<!-- Dependency bump. `policytool bump PKG[==VER] --why TEXT` fills the double-brace
     placeholders below; opening this PR by hand, replace them yourself. -->
# {{ title }}

## Packages

{{ packages }}

## Why

{{ why }}

## Locks regenerated

{{ locks }}

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
    direct: bool


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
        kind = "direct" if move.direct else "transitive"
        rows.append(
            f"| `{move.name}` | {_version(move.old)} | {_version(move.new)} | {locks} | {kind} |"
        )
    return "\n".join(rows)


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


def unknown_placeholders(template: str) -> list[str]:
    """Placeholder names in ``template`` that :func:`render_bump_body` does not fill."""
    names = [m.group(1) for m in _PLACEHOLDER_RE.finditer(template)]
    return sorted({name for name in names if name not in PLACEHOLDERS})


def render_bump_body(template: str, body: BumpBody) -> str:
    """``template`` with every known placeholder filled from ``body`` in one pass."""
    locks = list(body.locks) if body.locks else list(body.jobs)
    values = {
        "title": body.title or bump_title(body.moves),
        "packages": packages_table(body.moves),
        "why": body.why.strip() or "_No reason given; say why this bump is needed._",
        "locks": _locks_list(locks),
        "jobs": jobs_checklist(body.jobs),
        "command": body.command,
    }

    def substitute(match: re.Match[str]) -> str:
        """The value of one placeholder, or the placeholder itself when unknown."""
        return values.get(match.group(1), match.group(0))

    return _PLACEHOLDER_RE.sub(substitute, template)
