# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool outdated``: every pin with a newer release, per lock, and what holds it back.

For each pin of each lock (requirements or ``pylock.toml``): the newest release on PyPI
(``{base}/{project}/json``, yanked and pre-releases left out), the known vulnerabilities
of the pinned version (``{base}/{project}/{version}/json``, PyPI's OSV data), and when a
newer release is not pinned, the first thing that excludes it: a requirement of the
lock's inputs, a constraint file (or the lock below a layered one), or another pin of
the lock whose own requirements (``requires_dist`` of its pinned version, extras left
out) exclude it. Nothing holding it back means the lock's cut-off date does: ``policytool
bump PKG`` moves it.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from policytool.config import Config
from policytool.core.boundary import read_bounded
from policytool.core.memo import RunMemo
from policytool.core.text import decode_text
from policytool.engine.locks import Lock, direct_requirements, resolve_locks, select
from policytool.errors import PolicyError
from policytool.formats.lockfile import Pin, pinned_versions
from policytool.formats.requirement import canonical_name
from policytool.rules._lockfiles import read_lock

if TYPE_CHECKING:
    from packaging.version import Version

WORKERS = 8  # PyPI requests in flight


@dataclass(frozen=True)
class Entry:
    """One pin of one lock that has a newer release or a known vulnerability."""

    lock: str
    output: str
    line: int
    package: str
    pinned: str
    newest: str | None  # None: PyPI could not say (``note``)
    held_by: str  # what excludes the newest release; "" when nothing does
    vulnerabilities: tuple[str, ...]  # ``ID (fixed in X)``
    note: str = ""

    @property
    def behind(self) -> bool:
        """Whether a newer release exists."""
        from packaging.version import InvalidVersion, Version

        if self.newest is None:
            return False
        try:
            return Version(self.newest) > Version(self.pinned)
        except InvalidVersion:
            return self.newest != self.pinned

    def describe(self) -> str:
        """One line: ``path:line: pkg 1.0 -> 2.0 (held by ...) [vulnerable: ...]``."""
        text = f"{self.output}:{self.line}: {self.package} {self.pinned}"
        if self.behind:
            why = (
                f"held by {self.held_by}"
                if self.held_by
                else (f"nothing holds it back: `policytool bump {self.package}`")
            )
            text += f" -> {self.newest} ({why})"
        if self.note:
            text += f" ({self.note})"
        if self.vulnerabilities:
            text += f" [vulnerable: {', '.join(self.vulnerabilities)}]"
        return text


@dataclass(frozen=True)
class _Facts:
    """What PyPI says about one pinned release."""

    requires: tuple[str, ...]  # requires_dist without extra-only entries
    vulnerabilities: tuple[str, ...]
    known: bool = True  # False: the per-version document could not be read


def _facts(project: str, version: str) -> _Facts:
    """``requires_dist`` and vulnerabilities of ``project==version`` (empty when unknown)."""
    from policytool.httpjson import get_json
    from policytool.pypi import MAX_RELEASE_BYTES, RELEASE_DEADLINE, pypi_base

    url = (
        f"{pypi_base()}/{urllib.parse.quote(project, safe='')}/"
        f"{urllib.parse.quote(version, safe='')}/json"
    )
    data, why = get_json(url, RELEASE_DEADLINE, MAX_RELEASE_BYTES)
    if why is not None or not isinstance(data, dict):
        return _Facts((), (), known=False)
    info = data.get("info")
    raw = info.get("requires_dist") if isinstance(info, dict) else None
    requires = tuple(
        r for r in raw or () if isinstance(r, str) and "extra" not in r.partition(";")[2]
    )
    found: list[str] = []
    for item in data.get("vulnerabilities") or ():
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        fixed = [str(v) for v in item.get("fixed_in") or () if isinstance(v, str)]
        found.append(f"{item['id']} (fixed in {', '.join(fixed)})" if fixed else item["id"])
    return _Facts(requires, tuple(found))


def _excludes(requirement: str, package: str, version: str) -> bool:
    """Whether ``requirement`` names ``package`` and its specifier excludes ``version``."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion

    try:
        parsed = Requirement(requirement)
    except InvalidRequirement:
        return False
    if canonical_name(parsed.name) != package or not parsed.specifier:
        return False
    try:
        return not parsed.specifier.contains(version, prereleases=True)
    except InvalidVersion:
        return False


def _held_by(
    root_bounds: Sequence[tuple[str, str]],
    constraint_pins: Sequence[tuple[str, dict[str, set[str]]]],
    dependents: dict[str, tuple[str, _Facts]],
    package: str,
    newest: str,
) -> str:
    """What excludes ``newest`` of ``package``: an input bound, a constraint, a dependent."""
    for where, text in root_bounds:
        if _excludes(text, package, newest):
            return f"{where} '{text}'"
    for path, versions in constraint_pins:
        if package in versions and newest not in versions[package]:
            return f"{path} (constraints: {package}=={', '.join(sorted(versions[package]))})"
    for name, (version, facts) in sorted(dependents.items()):
        for requirement in facts.requires:
            if name != package and _excludes(requirement, package, newest):
                return f"{name} {version} (requires '{requirement.strip()}')"
    unknown = sorted(
        name for name, (_v, facts) in dependents.items() if not facts.known and name != package
    )
    if unknown:
        shown = ", ".join(unknown[:3]) + (
            f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
        )
        return f"no input or constraint; the requirements of {shown} could not be read"
    return ""


def outdated(
    config: Config,
    names: Sequence[str] = (),
    memo: RunMemo | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[Entry]:
    """Every pin of the named locks (all when none) that is behind PyPI or vulnerable."""
    from policytool.pypi import newest_on_pypi

    memo = memo if memo is not None else RunMemo()
    locks = resolve_locks(config)
    if not locks:
        raise PolicyError(
            f"{config.source or 'pyproject.toml'}: no [[tool.policytool.lock]] is configured"
        )
    chosen = [item for item in select(locks, names) if not names or item.name in names]
    entries: list[Entry] = []
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        for item in chosen:
            parsed = read_lock(config.root, item)
            if parsed is None:
                continue
            pins = [p for p in parsed.pins() if p.version is not None]
            if progress is not None:
                progress(f"outdated: lock '{item.name}': asking PyPI about {len(pins)} pins")
            newest = dict(
                zip(
                    [p.name for p in pins],
                    pool.map(lambda p: newest_on_pypi(p.name, memo), pins),
                    strict=True,
                )
            )
            facts = dict(
                zip(
                    [p.name for p in pins],
                    pool.map(lambda p: _facts(p.name, str(p.version)), pins),
                    strict=True,
                )
            )
            entries += _entries(config, item, pins, newest, facts)
    return entries


def _entries(
    config: Config,
    item: Lock,
    pins: Sequence[Pin],
    newest: dict[str, tuple[Version | None, str | None]],
    facts: dict[str, _Facts],
) -> list[Entry]:
    """The entries of one lock (``pins``: its exact pins), from what PyPI said."""
    try:
        bounds = [(f"{r.path}:{r.line}", r.text) for r in direct_requirements(config.root, item)]
    except PolicyError:
        bounds = []
    constraint_pins: list[tuple[str, dict[str, set[str]]]] = []
    for path in item.constraint_files:
        try:
            text = decode_text(read_bounded(config.root / path, path), path)
        except (OSError, PolicyError):
            continue
        constraint_pins.append((path, pinned_versions(text)))
    dependents = {p.name: (str(p.version), facts[p.name]) for p in pins}
    out: list[Entry] = []
    for pin in pins:
        version, why = newest[pin.name]
        latest = str(version) if version is not None else None
        entry = Entry(
            item.name,
            item.output,
            pin.line,
            pin.name,
            str(pin.version),
            latest,
            "",
            facts[pin.name].vulnerabilities,
            why
            or (
                "" if facts[pin.name].known else "vulnerabilities unknown: no per-version document"
            ),
        )
        if entry.behind and latest is not None:
            held = _held_by(bounds, constraint_pins, dependents, pin.name, latest)
            entry = dataclasses.replace(entry, held_by=held)
        if entry.behind or entry.vulnerabilities or latest is None:
            out.append(entry)
    return out
