# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""One requirement string (PEP 508): its name, its exact version, re-pinning it.

The one home of these questions for every command and rule (lock, bump, floating-pin,
mergify-drift):

- :func:`canonical_name`: the PEP 503 name (``Foo_Bar.baz`` -> ``foo-bar-baz``);
- :func:`requirement_name`: the canonical name a requirement string starts with;
- :func:`exact_version`: the version of an exact pin (``==1.0`` or ``===1.0``; a
  ``==1.*`` wildcard is not exact), through ``packaging``;
- :func:`repin`: the requirement with its version set, extras, marker and the spacing
  around them kept as written; the result is re-parsed by ``packaging`` and must keep
  the same name, extras and marker.

``canonical_name`` / ``requirement_name`` are plain text (the offline lock check calls
them for every pin before it needs ``packaging``); ``packaging`` is imported on first use
of the others.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from packaging.requirements import Requirement
    from packaging.version import Version

# PEP 503: runs of -, _ and . are one -, compared lower case (packaging.utils'
# canonicalize_name without its validation; tests prove they agree).
_SEPARATORS_RE = re.compile(r"[-_.]+")
_NAME_RE = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
# ``name==V`` / ``name===V`` with a PEP 440-shaped V and an optional marker: the lines a
# resolver writes. Anything else (extras, several specifiers, URLs) is left to packaging.
_PLAIN_PIN_RE = re.compile(
    r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?\s*===?\s*"
    r"([0-9][0-9A-Za-z.+!-]*[0-9A-Za-z])\s*(?:;.*)?$"
)
# The name and extras part of a requirement (what repin keeps).
_NAME_EXTRAS_RE = re.compile(r"\s*[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?\s*(?:\[[^\]]*\])?")


def canonical_name(name: str) -> str:
    """PEP 503 normalised project name (PEP 685 for extra and group names)."""
    return _SEPARATORS_RE.sub("-", name).lower()


def requirement_name(text: str) -> str | None:
    """The canonical name of the project requirement ``text`` starts with, if any."""
    match = _NAME_RE.match(text)
    return canonical_name(match.group(1)) if match else None


def is_excluded(name: str, patterns: Sequence[str]) -> bool:
    """Whether package ``name`` matches an ``exclude`` name or glob (``nvidia-*``).

    Both sides are compared as PEP 503 names, so ``nvidia_*`` and ``NVIDIA-*`` work too.
    """
    key = canonical_name(name)
    return any(fnmatch.fnmatchcase(key, canonical_name(pattern)) for pattern in patterns)


def parse(text: str) -> Requirement | None:
    """``text`` as a ``packaging`` Requirement, or None when it does not parse."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def exact_version_of(req: Requirement) -> str | None:
    """The version an exact ``==V`` / ``===V`` specifier of ``req`` names (not ``==V.*``)."""
    if req.url:
        return None
    for spec in req.specifier:
        if spec.operator == "===" or (spec.operator == "==" and not spec.version.endswith(".*")):
            return spec.version
    return None


def exact_version(text: str) -> str | None:
    """The exactly pinned version of requirement ``text``; None when not an exact pin.

    The plain ``name==1.2.3`` (a marker allowed) of every lock line is read by
    :data:`_PLAIN_PIN_RE` without building a ``packaging`` Requirement (the offline lock
    check reads thousands); anything else goes through ``packaging``.
    """
    plain = _PLAIN_PIN_RE.match(text)
    if plain is not None:
        return plain.group(1)
    if "==" not in text:
        return None  # no ``==``/``===``: not an exact pin (``pre-commit>=4``), no packaging
    req = parse(text)
    return exact_version_of(req) if req is not None else None


def repin(text: str, version: str, operator: str = "==") -> str | None:
    """``text`` with its version specifier replaced by ``==version``; None if unsafe.

    Name, extras, marker and the spacing before the marker stay as written; URL
    requirements and texts that do not parse give None. ``operator`` may be ``===``.
    """
    match = _NAME_EXTRAS_RE.match(text)
    if match is None or "@" in text.split(";", 1)[0]:
        return None
    head = match.group(0).rstrip()
    semicolon = text.find(";", match.end())
    if semicolon == -1:
        new = f"{head}{operator}{version}"
    else:
        gap = text[len(head) : semicolon]
        spacing = gap[len(gap.rstrip()) :]
        new = f"{head}{operator}{version}{spacing}{text[semicolon:]}"
    old_req, new_req = parse(text), parse(new)
    if old_req is None or new_req is None:
        return None
    if (
        new_req.name != old_req.name
        or new_req.extras != old_req.extras
        or str(new_req.marker) != str(old_req.marker)
        or str(new_req.specifier) != f"{operator}{version}"
    ):
        return None
    return new


def move_exact_pin(text: str, package: str, version: str) -> str | None:
    """``text`` with its exact pin of ``package`` set to ``version``; None when untouched.

    Only a requirement that names ``package`` (canonical) and is an exact pin moves; only
    the version characters change (``===`` stays ``===``, spacing, extras and marker stay
    byte for byte). A pin already at ``version`` gives None.
    """
    if requirement_name(text) != package:
        return None
    req = parse(text)
    if req is None:
        return None
    current = exact_version_of(req)
    if current is None or current == version:
        return None
    end = text.find(";")
    end = len(text) if end == -1 else end
    found = re.search(r"===?\s*(" + re.escape(current) + r")(?![\w.+!*-])", text[:end])
    if found is None:
        return None
    new = text[: found.start(1)] + version + text[found.end(1) :]
    new_req = parse(new)
    if (
        new_req is None
        or canonical_name(new_req.name) != package
        or new_req.extras != req.extras
        or str(new_req.marker) != str(req.marker)
        or exact_version_of(new_req) != version
    ):
        return None
    return new


_CLAUSE_RE = re.compile(r"(===|~=|==|!=|<=|>=|<|>)(\s*)([^\s,;]+)")


def _same_precision(old: str, target: Version, bump: bool = False) -> str:
    """``target``'s release cut to as many components as ``old`` has (``old`` may end in
    ``.*``). ``bump`` (an exclusive upper bound): one more at the place of ``old``'s last
    non-zero component, zeros after it (``<2.0`` and 2.1 give ``3.0``; ``<2.5`` and
    2.7.1 give ``2.8``)."""
    from packaging.version import InvalidVersion, Version

    try:
        parts = list(Version(old.removesuffix(".*")).release)
    except InvalidVersion:
        parts = [1] * len(old.split("."))
    count = len(parts)
    release = list((*target.release, *([0] * count)))[:count]
    if bump:
        place = max((i for i, part in enumerate(parts) if part), default=count - 1)
        release = [*release[:place], release[place] + 1, *([0] * (count - place - 1))]
    return ".".join(str(part) for part in release)


def raise_bound(text: str, package: str, version: str) -> str | None:
    """``text`` with its specifier moved so it allows ``version`` (Dependabot's ``increase``).

    Applies only to a requirement on ``package`` whose specifier excludes ``version``:
    ``>=`` and ``~=`` lower bounds and ``==X.*`` move to ``version`` (at their own
    precision), and an upper bound ``<`` / ``<=`` that excludes it moves just above it at
    its own precision (``pkg>=1.2,<2`` and 2.1 give ``pkg>=2.1,<3``). Only the operator
    and version characters change: name, extras, marker, spacing and comment stay. None
    when there is nothing to raise, or when a ``!=`` / exact clause excludes ``version``.
    """
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    if requirement_name(text) != package:
        return None
    req = parse(text)
    if req is None or req.url or exact_version_of(req) is not None:
        return None
    try:
        target = Version(version)
    except InvalidVersion:
        return None
    if req.specifier.contains(target, prereleases=True):
        return None
    end = text.find(";")
    end = len(text) if end == -1 else end
    head = _NAME_EXTRAS_RE.match(text)
    start = head.end() if head else 0
    out: list[str] = [text[:start]]
    last = start
    for clause in _CLAUSE_RE.finditer(text, start, end):
        op, gap, old = clause.group(1), clause.group(2), clause.group(3)
        new_op, new_version = op, old
        try:
            one = SpecifierSet(f"{op}{old}")
        except InvalidSpecifier:
            return None
        if op in (">=", "~="):
            new_version = _same_precision(old, target) if op == "~=" else version
        elif op == "==" and old.endswith(".*"):
            new_version = _same_precision(old, target) + ".*"
        elif not one.contains(target, prereleases=True):
            if op in ("<", "<="):
                new_version = version if op == "<=" else _same_precision(old, target, True)
            else:
                return None  # `!=V`, `>V`, `===V`: not a bound to move
        out.append(text[last : clause.start()] + new_op + gap + new_version)
        last = clause.end()
    new = "".join(out) + text[last:]
    new_req = parse(new)
    if (
        new == text
        or new_req is None
        or canonical_name(new_req.name) != package
        or new_req.extras != req.extras
        or str(new_req.marker) != str(req.marker)
        or not new_req.specifier.contains(target, prereleases=True)
    ):
        return None
    return new
