# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool bump PKG[==VER]``: one reviewed upgrade, everywhere the package is pinned.

1. The target version is ``VER`` or, without it, the newest version the lock's index
   offers for its Python (the backend resolves ``PKG`` alone, with the lock's index
   settings and isolation).
2. Every exact pin of PKG (``==`` / ``===``) in the lock inputs (requirement files, their
   includes, constraint files that are not locks) and in the ``pyproject.toml`` dependency
   lists is rewritten to the target; only the version characters change, so comments,
   layout, markers and line endings stay byte for byte.
3. Every lock that contains PKG (pinned, or named by its inputs) is recompiled with only
   PKG upgraded (``--upgrade-package PKG==VER``); other packages move only when the new
   version requires it (they are reported as transitive moves).
4. The PR body is rendered from ``.github/PULL_REQUEST_TEMPLATE/dependency-bump.md`` (the
   built-in template when the repository has none).

A bump that cannot resolve changes no file: inputs and locks are restored byte for byte
and the resolver's explanation is the error (exit 2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from policytool.config import Config
from policytool.errors import PolicyError
from policytool.files import decode_text, encode_like, write_atomic
from policytool.formats.pyproject import move_pins
from policytool.formats.requirement import move_exact_pin, requirement_name
from policytool.formats.requirements import (
    CONSTRAINT,
    INCLUDE,
    parse_lines,
    rewrite_requirements,
)
from policytool.lock.backends import CompileRequest, compile_lock
from policytool.lock.inputs import (
    InputSpec,
    Lock,
    direct_requirements,
    input_lines_of,
    resolve_locks,
)
from policytool.lock.pr_body import (
    BUMP_TEMPLATE,
    BUMP_TEMPLATE_PATH,
    BumpBody,
    PackageMove,
    render_bump_body,
)
from policytool.lock.run import WRITTEN, Outcome, lock, pin_versions, split_upgrade


@dataclass(frozen=True)
class BumpResult:
    """What a bump did: the target, the edited inputs, the lock outcomes, the PR body."""

    package: str
    version: str
    edited: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    body: str

    @property
    def moved(self) -> bool:
        """Whether any input or lock changed."""
        return bool(self.edited) or any(o.status == WRITTEN for o in self.outcomes)


def repin_requirements_text(text: str, package: str, version: str) -> str:
    """A requirement file with every exact pin of ``package`` moved to ``version``."""
    edits = []
    for line in parse_lines(text):
        entry = line.requirement
        if entry is None or entry.editable or entry.span is None:
            continue
        new = move_exact_pin(entry.text, package, version)
        if new is not None:
            edits.append((entry, new))
    return rewrite_requirements(text, edits)


def _editable_files(config: Config, locks: dict[str, Lock]) -> list[str]:
    """Every input, included file, non-lock constraint file and pyproject, repo-relative."""
    outputs = {item.output for item in locks.values()}
    files: dict[str, None] = {}
    if config.source is not None:
        try:
            files[config.source.relative_to(config.root).as_posix()] = None
        except ValueError:
            pass
    for item in locks.values():
        for spec in item.inputs:
            files[spec.path] = None
            if not spec.is_pyproject:
                for line in input_lines_of(config.root, spec):
                    if line.kind in (INCLUDE, CONSTRAINT) and line.target:
                        files[line.target] = None
        for path in item.constraint_files:
            files[path] = None
    return [f for f in files if f not in outputs and (config.root / f).is_file()]


def _contains(config: Config, item: Lock, package: str) -> bool:
    """Whether ``item``'s lock pins ``package`` or its inputs name it."""
    path = config.root / item.output
    if path.is_file() and package in pin_versions(decode_text(path.read_bytes(), item.output)):
        return True
    return package in _direct_names(config, item)


def _direct_names(config: Config, item: Lock) -> set[str]:
    names = (requirement_name(line.text) for line in direct_requirements(config.root, item))
    return {name for name in names if name}


def newest_version(config: Config, item: Lock, package: str) -> str:
    """The newest version of ``package`` the lock's index offers for its Python."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="policytool-bump-") as tmp:
        probe = Path(tmp) / "probe.in"
        probe.write_text(f"{package}\n", "utf-8")
        probe_config = replace(item.config, hashes=False, exclude=())
        probe_lock = Lock(probe_config, (InputSpec(str(probe), str(probe)),), (), ())
        body = compile_lock(config.root, CompileRequest(probe_lock))
    version = pin_versions(body).get(package)
    if version is None:
        raise PolicyError(f"{package}: the index of lock '{item.name}' offers no version of it")
    return version


def bump(
    config: Config,
    spec: str,
    why: str = "",
    command: str | None = None,
    report: Callable[[Outcome], None] | None = None,
) -> BumpResult:
    """Bump ``spec`` (``PKG`` or ``PKG==VER``) everywhere; every file restored on failure."""
    package, version = split_upgrade(spec)
    locks = resolve_locks(config)
    if not locks:
        raise PolicyError(
            f"{config.source or 'pyproject.toml'}: no [[tool.policytool.lock]] is configured"
        )
    touched = [item for item in locks.values() if _contains(config, item, package)]
    if not touched:
        raise PolicyError(f"{package}: no lock contains it (configured: {', '.join(locks)})")
    if version is None:
        version = max((newest_version(config, item, package) for item in touched), key=_version_key)
    edited_paths = _editable_files(config, locks)
    originals: dict[str, bytes] = {path: (config.root / path).read_bytes() for path in edited_paths}
    edited: list[str] = []
    try:
        for path, data in originals.items():
            text = decode_text(data, path)
            if path.rsplit("/", 1)[-1] == "pyproject.toml":
                new = move_pins(text, package, version, path)
            else:
                new = repin_requirements_text(text, package, version)
            if new != text:
                write_atomic(config.root / path, encode_like(data, new))
                edited.append(path)
        if edited:
            config = _reload(config)
        names = [item.name for item in touched]
        outcomes = lock(config, names, upgrade_packages=[f"{package}=={version}"])
    except BaseException:
        # Put every input back (the locks were restored by lock()); re-raised below.
        for path in edited:
            write_atomic(config.root / path, originals[path])
        raise
    if report is not None:
        for outcome in outcomes:
            report(outcome)
    body = render_body(
        config, package, version, outcomes, why, command or f"policytool bump {package}=={version}"
    )
    return BumpResult(package, version, tuple(edited), tuple(outcomes), body)


def _reload(config: Config) -> Config:
    """The config re-read after an edit of pyproject.toml (inputs may live there)."""
    if config.source is None:
        return config
    from policytool.config import load_config

    return load_config(config.source)


def _version_key(version: str) -> tuple[int, object]:
    from packaging.version import InvalidVersion, Version

    try:
        return (1, Version(version))
    except InvalidVersion:
        return (0, version)


@dataclass
class _Move:
    """A package's move collected over the locks it moved in."""

    old: str | None
    new: str | None
    locks: list[str]
    direct: bool


def moves_of(config: Config, outcomes: Sequence[Outcome], package: str) -> list[PackageMove]:
    """Every package whose pin changed: from, to, the locks, direct or transitive."""
    locks = resolve_locks(config)
    moves: dict[str, _Move] = {}
    for outcome in outcomes:
        if outcome.status != WRITTEN:
            continue
        direct = _direct_names(config, locks[outcome.name])
        for name in sorted(set(outcome.before) | set(outcome.after)):
            old, new = outcome.before.get(name), outcome.after.get(name)
            if old == new:
                continue
            move = moves.setdefault(name, _Move(old, new, [], False))
            move.locks.append(outcome.name)
            move.direct = move.direct or name == package or name in direct
    return [PackageMove(name, m.old, m.new, tuple(m.locks), m.direct) for name, m in moves.items()]


def render_body(
    config: Config, package: str, version: str, outcomes: Sequence[Outcome], why: str, command: str
) -> str:
    """The PR body from the repository's dependency-bump template (or the built-in one)."""
    path = config.root / BUMP_TEMPLATE_PATH
    template = (
        decode_text(path.read_bytes(), BUMP_TEMPLATE_PATH) if path.is_file() else BUMP_TEMPLATE
    )
    locks = resolve_locks(config)
    touched = [o.name for o in outcomes if o.status == "written"]
    body = BumpBody(
        moves=moves_of(config, outcomes, package),
        why=why,
        command=command,
        jobs={name: list(locks[name].config.jobs) for name in touched},
        locks=touched,
    )
    return render_bump_body(template, body)
