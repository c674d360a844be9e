# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool lock``: compile each lock in dependency order, write only what changed."""

from __future__ import annotations

import contextlib
import datetime
import difflib
import re
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType

from policytool.config import Config
from policytool.core.atomic import write_atomic
from policytool.core.boundary import read_bounded
from policytool.engine.findings import Finding
from policytool.engine.locks import (
    Lock,
    direct_requirements,
    fingerprint,
    resolve_locks,
    running_python,
    select,
    uv_dependency_settings,
)
from policytool.errors import BackendError, PolicyError, Terminated
from policytool.formats import lockfile, pylock
from policytool.formats.requirement import canonical_name, requirement_name
from policytool.lock.backends import CompileRequest, check_index_env, compile_lock, needs_build
from policytool.lock.check import STALE
from policytool.rules._lockfiles import read_lock

UP_TO_DATE = "up to date"
WRITTEN = "written"
UNCHANGED = "unchanged"
MAX_SHOWN = 8  # moved packages listed on the terminal line


@dataclass
class Outcome:
    """What ``lock`` did to one lock file."""

    name: str
    output: str
    status: str
    before: dict[str, str] = field(default_factory=dict)  # package -> version
    after: dict[str, str] = field(default_factory=dict)

    def changes(self) -> list[str]:
        """``+pkg 1.0``, ``-pkg 1.0``, ``pkg 1.0 -> 1.1`` for every moved package."""
        out = []
        for name in sorted(set(self.before) | set(self.after)):
            old, new = self.before.get(name), self.after.get(name)
            if old == new:
                continue
            if old is None:
                out.append(f"+{name} {new}")
            elif new is None:
                out.append(f"-{name} {old}")
            else:
                out.append(f"{name} {old} -> {new}")
        return out

    def describe(self) -> str:
        """One line for the terminal."""
        if self.status != WRITTEN:
            return f"{self.output}: {self.status} (lock '{self.name}')"
        moved = self.changes()
        shown = moved[:MAX_SHOWN]
        if len(moved) > MAX_SHOWN:
            shown.append(f"and {len(moved) - MAX_SHOWN} more")
        detail = f": {', '.join(shown)}" if moved else " (pins unchanged)"
        return f"{self.output}: written, {len(self.after)} pins{detail}"


def pin_versions(text: str | None) -> dict[str, str]:
    """``package -> version`` of the exact pins in a lock text."""
    if text is None:
        return {}
    parsed = lockfile.parse(text)
    return {p.name: p.version for p in parsed.pins() if p.version is not None}


def _up_to_date(parsed: lockfile.LockFile | None, lock: Lock, current: str) -> bool:
    return (
        parsed is not None
        and parsed.has_header
        and parsed.name == lock.name
        and parsed.fingerprint == current
        and lockfile.body_hash(parsed.body) == parsed.body_hash
    )


def split_upgrade(spec: str) -> tuple[str, str | None]:
    """``PKG[==VER]`` -> (canonical name, version or None); a PolicyError when malformed."""
    name, sep, version = spec.partition("==")
    name = name.strip()
    if not name or (sep and not version.strip()) or any(c in name for c in "<>=!~ ;[@"):
        raise PolicyError(f"--upgrade-package '{spec}': write PKG or PKG==VERSION")
    return canonical_name(name), version.strip() or None


def _mentions(config: Config, lock: Lock, package: str, previous: str | None) -> bool:
    if package in pin_versions(previous):
        return True
    try:
        reqs = direct_requirements(config.root, lock)
    except PolicyError:
        return False
    return any(requirement_name(line.text) == package for line in reqs)


def render_lock(
    root_lock: Lock,
    current: str,
    body: str,
    resolution: lockfile.Settings | None = None,
    root: Path | None = None,
) -> str:
    """The full text of a lock with its header (``root``: to name its ``[tool.uv]`` settings)."""
    cfg = root_lock.config
    tool_uv = uv_dependency_settings(root, cfg) if root is not None else {}
    return lockfile.render(
        cfg.name,
        [s.raw for s in root_lock.inputs],
        root_lock.constraint_files,
        cfg.backend,
        current,
        body,
        None if cfg.python_version else running_python(),
        resolution,
        cfg.exclude,
        sorted(tool_uv.items()),
    )


_TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$")
_NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")  # canonical names only
_HOLD_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.!+_-]+$")


def utc_now() -> datetime.datetime:
    """The current time (UTC), to the second."""
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def _stamp(when: datetime.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def recorded_settings(item: Lock, parsed: lockfile.LockFile | None) -> lockfile.Settings:
    """The cut-offs and holds ``parsed``'s header records; a PolicyError when malformed.

    A lock of another tool, of another lock or without a header records none.
    """
    if parsed is None or not parsed.has_header or parsed.name != item.name:
        return lockfile.Settings()
    recorded = lockfile.settings(parsed)

    def bad(key: str, value: str, what: str) -> PolicyError:
        line = parsed.field_line(key)
        return PolicyError(
            f"{item.output}:{line}: header key {key} '{value}' is not {what}; "
            f"run `policytool lock {item.name} --upgrade` to record a new one"
        )

    if recorded.exclude_newer and not _TIMESTAMP_RE.match(recorded.exclude_newer):
        raise bad(lockfile.EXCLUDE_NEWER, recorded.exclude_newer, "a YYYY-MM-DDTHH:MM:SSZ date")
    for name, when in recorded.exclude_newer_packages:
        if not _TIMESTAMP_RE.match(when) or not _NAME_RE.match(name):
            raise bad(lockfile.EXCLUDE_NEWER_PACKAGE, f"{name}={when}", "PACKAGE=DATE")
    for hold in recorded.holds:
        if not _HOLD_RE.match(hold):
            raise bad(lockfile.HOLDS, hold, "PACKAGE==VERSION")
    return recorded


def keeps_preferences(
    item: Lock, recorded: lockfile.Settings, packages: Sequence[tuple[str, str | None]]
) -> bool:
    """Whether the old lock's pins are handed to the backend as preferences.

    Only where the header records no cut-off (a lock of pip-compile or uv being taken
    over: its pins are kept), and for ``--upgrade-package`` on pip-tools (no per-package
    cut-off). Otherwise the lock is derived from nothing, exactly as ``lock --check
    --resolve`` derives it again: the recorded cut-off is what keeps its pins.
    """
    return not recorded.exclude_newer or (item.config.backend != "uv" and bool(packages))


def next_settings(
    item: Lock,
    recorded: lockfile.Settings,
    upgrade: bool,
    packages: Sequence[tuple[str, str | None]],
    now: datetime.datetime,
) -> lockfile.Settings:
    """The cut-offs and holds a new resolution of ``item`` records.

    A new lock, a lock without a recorded cut-off and ``--upgrade`` take the start of
    today (UTC) as cut-off and drop every hold; otherwise the recorded cut-off is kept,
    so the same inputs resolve to the same pins. Each ``--upgrade-package PKG`` gets its
    own cut-off, now (uv; pip-tools has none per package, so its cut-off moves to now
    while the old pins stay preferred), and ``PKG==VER`` is recorded as a hold.
    """
    today = _stamp(now.replace(hour=0, minute=0, second=0))
    dated = item.config.exclude_newer
    if upgrade:
        return lockfile.Settings(today if dated else None)
    cut_off = (recorded.exclude_newer or today) if dated else None
    per_package = dict(recorded.exclude_newer_packages) if dated else {}
    holds = {hold.split("==", 1)[0]: hold for hold in recorded.holds}
    for package, version in packages:
        holds.pop(package, None)
        if version is not None:
            holds[package] = f"{package}=={version}"
        if not dated:
            continue
        if item.config.backend == "uv":
            per_package[package] = _stamp(now)
        else:
            cut_off = _stamp(now)
    return lockfile.Settings(
        cut_off, tuple(sorted(per_package.items())), tuple(holds[name] for name in sorted(holds))
    )


@contextlib.contextmanager
def sigterm_restores() -> Iterator[None]:
    """Within the block SIGTERM raises :class:`Terminated`, so restores run as on Ctrl-C.

    Outside the main thread (no signal handlers there) the block runs unchanged.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    fired = False

    def terminated(signum: int, frame: FrameType | None) -> None:
        """Stop the run; further SIGTERMs wait until the files are restored."""
        nonlocal fired
        fired = True
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Terminated(
            "terminated (SIGTERM): stopped the resolver; every file this run had changed "
            "was restored"
        )

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        # After a SIGTERM an enclosing block (bump around lock) is still restoring its
        # files: keep ignoring SIGTERM until the outermost block ends.
        outermost = not (callable(previous) and getattr(previous, "__name__", "") == "terminated")
        if not fired or outermost:
            signal.signal(signal.SIGTERM, previous)


def lock(
    config: Config,
    names: Sequence[str] = (),
    upgrade: bool = False,
    upgrade_packages: Sequence[str] = (),
    report: Callable[[Outcome], None] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[Outcome]:
    """Compile the named locks (all when none) and the locks they are layered on.

    See :func:`lock_all`; SIGTERM is handled like Ctrl-C (files restored, temporary
    directory removed).
    """
    with sigterm_restores():
        return lock_all(config, names, upgrade, upgrade_packages, report, progress)


def lock_all(
    config: Config,
    names: Sequence[str] = (),
    upgrade: bool = False,
    upgrade_packages: Sequence[str] = (),
    report: Callable[[Outcome], None] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[Outcome]:
    """Compile the named locks (all when none) and the locks they are layered on.

    A lock whose fingerprint and body hash match is left alone unless an upgrade asks
    for it. Each lock is written atomically as soon as it is compiled (the locks layered
    on it read it as a constraint); when any lock fails, the ones already rewritten in
    this run are restored byte for byte and the error (BackendError / PolicyError) is
    raised, so a failed run changes no file.
    """
    locks = resolve_locks(config)
    if not locks:
        raise PolicyError(
            f"{config.source or 'pyproject.toml'}: no [[tool.policytool.lock]] is configured"
        )
    ordered = select(locks, names)
    for item in ordered:
        check_index_env(item)  # a refused ${VAR}: nothing is requested at all
    wanted_packages = [split_upgrade(spec) for spec in upgrade_packages]
    previous_texts = {}
    for item in ordered:
        parsed_previous = read_lock(config.root, item)
        previous_texts[item.name] = parsed_previous.text if parsed_previous else None
    for package, _version in wanted_packages:
        if not any(_mentions(config, item, package, previous_texts[item.name]) for item in ordered):
            raise PolicyError(f"--upgrade-package {package}: no selected lock contains it")
    outcomes: list[Outcome] = []
    now = utc_now()
    written: list[tuple[Path, bytes | None]] = []  # what to restore if a later lock fails
    try:
        for position, item in enumerate(ordered, start=1):
            previous = read_lock(config.root, item)
            previous_text = previous.text if previous else None
            current = fingerprint(config.root, item)
            moving = [
                (package, version)
                for package, version in wanted_packages
                if _mentions(config, item, package, previous_text)
            ]
            packages = tuple(
                f"{package}=={version}" if version else package for package, version in moving
            )
            forced = item.name in names  # named: always re-resolved (the repair)
            if not (upgrade or packages or forced) and _up_to_date(previous, item, current):
                outcomes.append(Outcome(item.name, item.output, UP_TO_DATE))
                continue
            recorded = recorded_settings(item, previous)
            resolution = next_settings(item, recorded, upgrade, moving, now)
            request = CompileRequest(
                item,
                previous_text if keeps_preferences(item, recorded, moving) else None,
                upgrade,
                packages,
                resolution=resolution,
            )
            if progress is not None:
                progress(
                    f"lock '{item.name}' ({position}/{len(ordered)}): resolving with "
                    f"{item.config.backend}"
                )
            body = compile_lock(config.root, request, progress)
            text = render_lock(item, current, body, resolution, config.root)
            status = UNCHANGED
            if text != previous_text:
                target = config.root / item.output
                written.append(
                    (target, read_bounded(target, item.output) if target.exists() else None)
                )
                try:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    write_atomic(target, text.encode("utf-8"), inside=config.root)
                except OSError as exc:
                    raise PolicyError(
                        f"{item.output}: cannot write the lock: {exc.strerror or exc}"
                    ) from None
                status = WRITTEN
            before, after = pin_versions(previous_text), pin_versions(text)
            outcomes.append(Outcome(item.name, item.output, status, before, after))
    except BaseException:
        # All or nothing: a lock layered on one that was just rewritten failed, so put
        # the earlier ones back byte for byte (re-raised below).
        for target, data in reversed(written):
            if data is None:
                target.unlink(missing_ok=True)
            else:
                write_atomic(target, data, inside=config.root)
        raise
    if report is not None:
        for outcome in outcomes:
            report(outcome)
    return outcomes


def resolve_diff(config: Config, names: Sequence[str] = ()) -> tuple[list[Finding], str]:
    """Derive each lock again from nothing; findings and a unified diff.

    No preference comes from the current lock: the resolver gets the inputs, the config
    and the cut-off dates and holds the header records (uv ``--offline`` first), so any
    byte of the body it does not derive (a pin, a hash, a package, an annotation) is a
    finding. Nothing is written and nothing is built: the resolver runs with building
    forbidden (uv ``--no-build``, pip ``--only-binary :all:``), and a lock whose inputs
    name a local path, a VCS or a source URL (which pip-compile would build anyway) is
    one finding instead, its resolver never started. A lock that does not exist yet is
    left to the offline check.
    """
    locks = resolve_locks(config)
    selected = [item for item in select(locks, names) if not names or item.name in names]
    for item in selected:
        check_index_env(item)  # a refused ${VAR}: nothing is requested at all
    findings: list[Finding] = []
    diffs: list[str] = []
    for item in selected:
        previous = read_lock(config.root, item)
        if previous is None:
            continue
        building = needs_build(config.root, item)
        if building is not None:
            findings.append(
                _cannot_check(
                    item,
                    f"{building.path}:{building.line} "
                    f"'{building.text}' is a local path, VCS or source URL",
                )
            )
            continue
        request = CompileRequest(
            item,
            None,
            offline=item.config.backend == "uv",
            no_build=True,
            resolution=recorded_settings(item, previous),
        )
        try:
            try:
                body = compile_lock(config.root, request)
            except BackendError:
                if not request.offline:
                    raise
                body = compile_lock(config.root, replace(request, offline=False))
        except BackendError as exc:
            if BUILD_DISABLED not in str(exc):
                raise
            findings.append(
                _cannot_check(item, "a package is only available as a source distribution")
            )
            continue
        if item.config.backend == "pip-tools" and item.config.hashes:
            body = _with_sdist_hashes(item, previous.body.replace("\r\n", "\n"), body)
        elif pylock.is_pylock_name(item.output):
            body = _with_pylock_sdists(item, previous.body.replace("\r\n", "\n"), body)
        old = previous.body.replace("\r\n", "\n").splitlines(keepends=True)
        new = body.splitlines(keepends=True)
        diff = list(
            difflib.unified_diff(
                old, new, f"{item.output} (current)", f"{item.output} (re-resolved)"
            )
        )
        if diff:
            diffs.append("".join(diff))
            moved = Outcome(
                item.name, item.output, WRITTEN, pin_versions(previous.text), pin_versions(body)
            ).changes()
            what = ", ".join(moved) if moved else "annotations or hashes"
            findings.append(
                Finding(
                    item.output,
                    1,
                    1,
                    STALE,
                    f"derived again from nothing, the lock differs ({what}); "
                    f"run `policytool lock {item.name}`",
                )
            )
    return findings, "".join(diffs)


def _without_hashes(body: str) -> str:
    """``body`` without its ``--hash`` options (the rest byte for byte)."""
    from policytool.lock.backends import preferences

    return preferences(body)


def _with_sdist_hashes(item: Lock, current: str, resolved: str) -> str:
    """``resolved`` (pip-compile with ``--only-binary``, so without the hashes of source
    distributions) as pip-compile writes it with building allowed: every pin carrying
    the hash of every file of its version on PyPI's JSON API, sorted.

    Only for the default index (PyPI), and only when the lock differs from ``resolved``
    in hashes alone; otherwise (or when the files cannot be listed) ``resolved`` as it is.
    The files of all pins are listed concurrently (:func:`policytool.pypi.many_file_hashes`).
    """
    from policytool.pypi import many_file_hashes

    cfg = item.config
    if cfg.index_url or cfg.no_index or cfg.extra_index_urls or cfg.find_links:
        return resolved
    if _without_hashes(current) != _without_hashes(resolved):
        return resolved
    # Each pin with its --hash lines, its (name, version) and hashes; other lines alone.
    groups: list[tuple[list[str], tuple[str, str] | None, tuple[str, ...]]] = []
    lines = resolved.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.endswith(" \\") or line[:1].isspace() or line.startswith("#"):
            groups.append(([line], None, ()))
            continue
        block = [line]
        while index < len(lines) and lines[index].lstrip().startswith("--hash="):
            block.append(lines[index])
            index += 1
            if not block[-1].endswith(" \\"):
                break
        pins = lockfile.parse_pins("\n".join(block) + "\n")
        if len(pins) != 1 or pins[0].version is None:
            groups.append((block, None, ()))
        else:
            groups.append((block, (pins[0].name, pins[0].version), tuple(pins[0].hashes)))
    files = many_file_hashes([release for _b, release, _h in groups if release is not None])
    out: list[str] = []
    for block, release, pinned in groups:
        if release is None:
            out += block
            continue
        found = files.get(release)
        if not isinstance(found, set):
            return resolved
        hashes = sorted(set(pinned) | found)
        out.append(block[0])
        out += [
            f"    --hash={digest}" + (" \\" if number < len(hashes) - 1 else "")
            for number, digest in enumerate(hashes)
        ]
    return "\n".join(out)


def _with_pylock_sdists(item: Lock, current: str, resolved: str) -> str:
    """``resolved`` (uv with ``--no-build``, which lists no sdist) given the lock's
    ``sdist`` tables when the rest is identical and each sdist's hash is a file of that
    very version on PyPI's JSON API; else ``resolved`` unchanged (the diff shows them).

    Only for the default index (PyPI): another index cannot be asked for its files.
    """
    from policytool.pypi import many_file_hashes

    cfg = item.config
    if cfg.index_url or cfg.no_index or cfg.extra_index_urls or cfg.find_links:
        return resolved
    try:
        if pylock.without_sdists(current) != resolved:
            return resolved
    except pylock.PylockError:
        return resolved
    sdists = pylock.sdist_hashes(current)
    files = many_file_hashes([(name, version) for name, version, _hashes in sdists])
    for name, version, hashes in sdists:
        found = files.get((name, version))
        if not hashes or not isinstance(found, set) or not set(hashes) <= found:
            return resolved
    return current


# What uv says when --no-build stops it ("Building source distributions for `x` is disabled").
BUILD_DISABLED = "is disabled"


def _cannot_check(item: Lock, why: str) -> Finding:
    """The one finding of a lock ``--check --resolve`` cannot re-resolve without a build."""
    return Finding(
        item.output,
        1,
        1,
        STALE,
        f"lock '{item.name}' cannot be re-resolved without building ({why}); "
        f"--check --resolve never builds: run `policytool lock {item.name}` where building "
        "that code is safe",
    )
