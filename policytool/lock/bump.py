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

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from policytool.config import Config
from policytool.core.atomic import write_atomic
from policytool.core.boundary import read_bounded
from policytool.core.text import decode_text, encode_like
from policytool.engine.lock_config import BumpGroup, LockConfig
from policytool.engine.locks import (
    InputSpec,
    Lock,
    direct_requirements,
    input_lines,
    input_lines_of,
    resolve_locks,
    select,
    watched_files,
)
from policytool.errors import PolicyError
from policytool.formats import lockfile
from policytool.formats.pyproject import move_pins
from policytool.formats.requirement import (
    exact_version,
    is_excluded,
    move_exact_pin,
    parse,
    raise_bound,
    requirement_name,
)
from policytool.formats.requirements import (
    CONSTRAINT,
    INCLUDE,
    REQUIREMENT,
    ReqLine,
    parse_lines,
    read_lines,
    rewrite_requirements,
)
from policytool.lock.backends import (
    CompileRequest,
    check_index_env,
    compile_lock,
    make_temp_dir,
)
from policytool.lock.pr_body import (
    BUMP_TEMPLATE,
    BUMP_TEMPLATE_PATH,
    BumpBody,
    PackageMove,
    ReleaseFacts,
    render_bump_body,
)
from policytool.lock.run import (
    WRITTEN,
    Outcome,
    lock,
    pin_versions,
    sigterm_restores,
    split_upgrade,
)


@dataclass(frozen=True)
class BumpResult:
    """What a bump did (or, with ``dry_run``, would do)."""

    package: str
    version: str
    edited: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    body: str
    regenerated: tuple[str, ...] = ()  # the locks compiled (or to compile)
    untouched: tuple[tuple[str, str], ...] = ()  # (path, version) pins no lock reads
    notes: tuple[str, ...] = ()  # e.g. a bound that holds the newest release back
    dry_run: bool = False
    already: bool = False  # every lock already pins the version: nothing was (or would be) done
    targets: tuple[tuple[str, str], ...] = ()  # (package, version) of every package moved

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


def raise_bounds_text(text: str, package: str, version: str, lines: Sequence[int]) -> str:
    """A requirement file with the requirements on ``package`` that start on ``lines``
    (1-based) raised to allow ``version`` (:func:`raise_bound`); the rest byte for byte."""
    edits = []
    for line in parse_lines(text):
        entry = line.requirement
        if entry is None or entry.editable or entry.span is None or entry.line not in lines:
            continue
        new = raise_bound(entry.text, package, version)
        if new is not None:
            edits.append((entry, new))
    return rewrite_requirements(text, edits)


def _editable_files(config: Config, locks: dict[str, Lock]) -> list[str]:
    """Every input, included file, non-lock constraint file and pyproject, repo-relative."""
    outputs = _lock_outputs(config)
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
    if path.is_file():
        text = decode_text(read_bounded(path, item.output), item.output)
        if package in pin_versions(text):
            return True
    return package in _direct_names(config, item)


def _did_you_mean(config: Config, items: Sequence[Lock], package: str) -> str:
    """``; did you mean 'NAME'?`` for the closest package the locks pin or name, or ``""``."""
    import difflib  # only for the message

    known: set[str] = set()
    for item in items:
        path = config.root / item.output
        if path.is_file():
            known |= set(pin_versions(decode_text(read_bounded(path, item.output), item.output)))
        known |= _direct_names(config, item)
    close = difflib.get_close_matches(package, sorted(known), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def _direct_names(config: Config, item: Lock) -> set[str]:
    names = (requirement_name(line.text) for line in direct_requirements(config.root, item))
    return {name for name in names if name}


def bounds_of(config: Config, item: Lock, package: str) -> list[ReqLine]:
    """The non-exact requirement lines naming ``package`` a lock must honour.

    Lines of the inputs (their includes and ``-c`` files too) and of the constraint
    files that are not locks; exact pins are what bump moves, so they are left out.
    """
    lines = list(input_lines(config.root, item))
    for path in item.constraint_files:
        if path not in _lock_outputs(config):
            lines += read_lines(config.root, path)
    return [
        line
        for line in lines
        if line.kind == REQUIREMENT
        and requirement_name(line.text) == package
        and exact_version(line.text) is None
    ]


def _lock_outputs(config: Config) -> set[str]:
    """Every configured lock output, repo-relative."""
    return {lock.output.removeprefix("./") for lock in config.entries(LockConfig)}


def newest_version(config: Config, item: Lock, package: str, bounds: Sequence[str] = ()) -> str:
    """The newest version of ``package`` the lock's index offers, within ``bounds``."""
    tmp_dir = make_temp_dir("policytool-bump-", "bump")
    try:
        probe = Path(tmp_dir) / "probe.in"
        try:
            probe.write_text("".join(f"{line}\n" for line in (package, *bounds)), "utf-8")
        except OSError as exc:
            raise PolicyError(
                f"bump: cannot write in the temporary directory {tmp_dir}: {exc.strerror or exc}"
            ) from None
        probe_config = replace(item.config, hashes=False, exclude=())
        probe_lock = Lock(probe_config, (InputSpec(str(probe), str(probe)),), (), ())
        body = compile_lock(config.root, CompileRequest(probe_lock))
    finally:
        import shutil

        shutil.rmtree(tmp_dir, ignore_errors=True)
    version = pin_versions(body).get(package)
    if version is None:
        raise PolicyError(f"{package}: the index of lock '{item.name}' offers no version of it")
    return version


def _choose_version(
    config: Config,
    touched: Sequence[Lock],
    package: str,
    version: str | None,
    raise_bounds: bool = False,
    context: Mapping[str, Sequence[str]] | None = None,
    series: Sequence[str] = (),
    explain_holds: bool = False,
) -> tuple[str, list[str], tuple[tuple[ReqLine, str], ...]]:
    """The target version, notes, and the input bounds to raise to allow it.

    The target is the given version, else the newest every touched lock allows within
    its bounds, the ``context`` requirements per lock name (what the lock's other
    packages are resolved with: a dependent's cap on ``package`` holds it back too) and
    the ``series`` specifiers (``--patch``); with ``raise_bounds``, the newest release
    those other requirements allow, and the bounds that exclude it are raised
    (Dependabot's ``increase``). A given version a bound excludes is a PolicyError naming
    the bound unless ``raise_bounds``; without a version, a bound holding the newest
    release back is reported in the notes, and with ``explain_holds`` so is a newer
    release the lock's other requirements hold back (one more probe per lock).
    """
    from packaging.version import InvalidVersion, Version

    bounds = {item.name: bounds_of(config, item, package) for item in touched}
    held = [line for lines in bounds.values() for line in lines]
    notes: list[str] = []
    if version is None:
        allowed = {
            item.name: newest_version(
                config,
                item,
                package,
                [
                    *(line.text for line in bounds[item.name]),
                    *(context or {}).get(item.name, ()),
                    *series,
                ],
            )
            for item in touched
        }
        chosen = min(allowed.values(), key=_version_key)
        if series:
            return chosen, notes, ()
        # Per lock, the newest its other requirements allow, the input bounds aside.
        within = allowed
        if held:
            within = {
                item.name: newest_version(config, item, package, (context or {}).get(item.name, ()))
                for item in touched
            }
        newest = max(within.values(), key=_version_key)
        if explain_holds:
            notes += _held_by_requirements(config, touched, package, within, context or {})
        if not held or newest == chosen:
            return chosen, notes, ()
        if not raise_bounds:
            where = ", ".join(f"{line.path}:{line.line} '{line.text}'" for line in held)
            notes.append(
                f"{package} {newest} is out, but {where} holds it at {chosen}; "
                f"run `policytool bump {package} --raise-bound` to move the bound and take it"
            )
            return chosen, notes, ()
        # raising a bound takes what every lock's other requirements allow, no further
        reachable = min(within.values(), key=_version_key)
        if reachable == chosen:
            return chosen, notes, ()
        version = reachable
    try:
        wanted = Version(version)
    except InvalidVersion:
        raise PolicyError(f"bump {package}=={version}: not a valid version") from None
    raised: list[tuple[ReqLine, str]] = []
    for line in held:
        req = parse(line.text)
        if req is None or req.marker is not None:
            continue
        if req.specifier.contains(wanted, prereleases=True):
            continue
        where = f"{line.path}:{line.line}"
        if not raise_bounds:
            raise PolicyError(
                f"bump {package}=={version}: {where} requires '{line.text}', which excludes "
                f"{version}; move that bound first, or pass --raise-bound"
            )
        if line.path.rsplit("/", 1)[-1] == "pyproject.toml":
            raise PolicyError(
                f"bump {package}=={version}: {where} requires '{line.text}', which excludes "
                f"{version}; --raise-bound edits requirement files only: move it by hand"
            )
        new = raise_bound(line.text, package, version)
        if new is None:
            raise PolicyError(
                f"bump {package}=={version}: {where} requires '{line.text}', which excludes "
                f"{version} and is not a bound --raise-bound can move; edit it by hand"
            )
        notes.append(f"{where}: '{line.text}' raised to '{new}' to allow {version}")
        raised.append((line, version))
    return version, notes, tuple(raised)


def _held_by_requirements(
    config: Config,
    touched: Sequence[Lock],
    package: str,
    within: Mapping[str, str],
    context: Mapping[str, Sequence[str]],
) -> list[str]:
    """A note per lock whose other requirements (``context``) hold ``package`` at
    ``within`` while its index has a newer release (a dependent's cap on it)."""
    notes = []
    for item in touched:
        if not context.get(item.name):
            continue  # nothing else to resolve with: nothing holds it but the bounds
        released = newest_version(config, item, package)
        if _version_key(released) > _version_key(within[item.name]):
            notes.append(
                f"{package} {released} is out, but the other requirements of lock "
                f"'{item.name}' hold it at {within[item.name]}; `policytool outdated` "
                "names the dependent that caps it"
            )
    return notes


def layered_above(locks: Mapping[str, Lock], names: Sequence[str]) -> list[str]:
    """``names`` and every lock layered on one of them, transitively (configured order)."""
    wanted = set(names)
    changed = True
    while changed:
        changed = False
        for item in locks.values():
            if item.name not in wanted and wanted & set(item.constraint_locks):
                wanted.add(item.name)
                changed = True
    return [name for name in locks if name in wanted]


def untouched_pins(config: Config, package: str, skip: Sequence[str]) -> list[tuple[str, str]]:
    """(path, version) of exact pins of ``package`` in tracked requirement files no lock reads.

    vLLM's ``requirements/rocm.txt`` is such a file: bump leaves it and says so.
    """
    from policytool.core.git import git_ls_files, git_root
    from policytool.errors import FileError
    from policytool.formats.lockfile import pinned_versions

    if git_root(config.root) is None:
        return []  # not a git work tree: nothing is "tracked" to report
    skipped = set(skip) | _lock_outputs(config)
    found: list[tuple[str, str]] = []
    for path in git_ls_files(config.root):
        if path in skipped or not path.endswith((".txt", ".in")):
            continue
        if "requirements" not in path and "constraints" not in path:
            continue
        try:
            text = decode_text(read_bounded(config.root / path, path), path)
        except (FileError, OSError):
            continue
        for version in sorted(pinned_versions(text).get(package, ())):
            found.append((path, version))
    return found


def bump(
    config: Config,
    spec: str,
    why: str = "",
    command: str | None = None,
    report: Callable[[Outcome], None] | None = None,
    only: Sequence[str] = (),
    dry_run: bool = False,
    online: bool = True,
    progress: Callable[[str], None] | None = None,
    raise_bounds: bool = False,
) -> BumpResult:
    """Bump ``spec`` (``PKG`` or ``PKG==VER``) everywhere; every file restored on failure.

    ``only`` limits the bump to the named locks (and the locks layered on them, which
    must be regenerated to stay valid); ``dry_run`` computes the plan and changes
    nothing; ``online`` lets the PR body ask PyPI for the release facts;
    ``raise_bounds`` rewrites an input bound that excludes the target (else an error).
    """
    with sigterm_restores():
        package, version = split_upgrade(spec)
        locks = _locks_for(config, only)
        touched = _touched(config, locks, only, package)
        if not touched:
            where = ", ".join(only) if only else ", ".join(locks)
            hint = _did_you_mean(config, [locks[n] for n in (only or locks) if n in locks], package)
            raise PolicyError(f"{package}: no lock contains it (locks: {where}){hint}")
        # What the lock's other packages are resolved with, so that the target is one
        # their caps allow (``delta`` needing ``alpha<2`` holds ``bump alpha`` at 1.x).
        context = {item.name: _probe_context(config, item, {package: None}) for item in touched}
        chosen, notes, bounds = _choose_version(
            config, touched, package, version, raise_bounds, context, explain_holds=True
        )
        target = _Target(package, chosen, tuple(touched), _old_versions(config, touched, package))
        plan = _Plan((target,), tuple(notes), bounds, None)
        return _apply(config, locks, plan, why, command, report, dry_run, online, progress)


def bump_group(
    config: Config,
    group: str | None,
    patch: bool = False,
    why: str = "",
    command: str | None = None,
    report: Callable[[Outcome], None] | None = None,
    only: Sequence[str] = (),
    dry_run: bool = False,
    online: bool = True,
    progress: Callable[[str], None] | None = None,
) -> BumpResult:
    """Bump every member of bump group ``group`` (or, with ``patch``, every pin with a
    newer patch-level release) in one change: one re-lock, one PR body.

    A member is a package pinned in a (selected) lock whose canonical name matches the
    group's ``patterns`` and none of its ``exclude-patterns``; its target is the newest
    version every lock holding it allows (the same ``X.Y`` for ``update = "patch"`` or
    ``patch``). Members already there are left out; a failure restores every file.
    """
    with sigterm_restores():
        locks = _locks_for(config, only)
        chosen_group = _group(config, group) if group is not None else None
        patch = patch or (chosen_group is not None and chosen_group.update == "patch")
        selected = [item for item in locks.values() if not only or item.name in only]
        names: dict[str, None] = {}
        for item in selected:
            for name in sorted(_pins_of(config, item)):
                if chosen_group is None or _member(chosen_group, name):
                    names[name] = None
        label = f"group '{group}'" if group is not None else "every patch-level update"
        if not names:
            raise PolicyError(
                f"bump {label}: no lock pins a package of it"
                + (f" (patterns: {', '.join(chosen_group.patterns)})" if chosen_group else "")
            )
        targets: list[_Target] = []
        notes: list[str] = []
        for name in names:
            touched = _touched(config, locks, only, name)
            old = _old_versions(config, touched, name)
            series = _patch_bounds(name, old) if patch else []
            if patch and not series:
                continue  # no X.Y version to stay within
            context = {item.name: _probe_context(config, item, names) for item in touched}
            chosen, more, _ = _choose_version(config, touched, name, None, False, context, series)
            notes += more
            if old == [chosen] or any(_version_key(chosen) < _version_key(v) for v in old):
                continue
            targets.append(_Target(name, chosen, tuple(touched), old))
        plan = _Plan(tuple(targets), tuple(notes), (), label)
        if not targets:
            return BumpResult(label, "", (), (), "", (), (), tuple(notes), dry_run, True)
        return _apply(config, locks, plan, why, command, report, dry_run, online, progress)


def _group(config: Config, name: str) -> BumpGroup:
    """The configured bump group ``name``; a PolicyError with a suggestion otherwise."""
    import difflib  # only for the message

    groups = {group.name: group for group in config.entries(BumpGroup)}
    if name in groups:
        return groups[name]
    if not groups:
        raise PolicyError(
            f"--group {name}: {config.source or 'pyproject.toml'} declares no "
            "[[tool.policytool.bump-group]]"
        )
    close = difflib.get_close_matches(name, sorted(groups), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise PolicyError(f"--group {name}: no such bump group (groups: {', '.join(groups)}){hint}")


def _member(group: BumpGroup, name: str) -> bool:
    """Whether canonical ``name`` is in ``group``."""
    return is_excluded(name, group.patterns) and not is_excluded(name, group.exclude_patterns)


def _probe_context(config: Config, item: Lock, members: Mapping[str, None]) -> list[str]:
    """The requirements of ``item``'s inputs that do not name a member, so the probe for a
    member's newest version honours what the lock's other packages require of it (plain
    name-and-specifier requirements only: paths and URLs do not resolve in a probe)."""
    lines = []
    for line in direct_requirements(config.root, item):
        req = parse(line.text)
        name = requirement_name(line.text)
        if req is None or req.url or name is None or name in members:
            continue
        lines.append(line.text)
    return lines


def _patch_bounds(package: str, old: Sequence[str]) -> list[str]:
    """``PKG>=OLD``, ``PKG==X.Y.*`` for the highest pinned version (none for a non-PEP 440
    one)."""
    from packaging.version import InvalidVersion, Version

    try:
        newest = max((Version(v) for v in old), default=None)
    except InvalidVersion:
        return []
    if newest is None:
        return []
    major, minor = (*newest.release, 0)[:2]
    return [f"{package}>={newest}", f"{package}=={major}.{minor}.*"]


def _pins_of(config: Config, item: Lock) -> set[str]:
    """The packages lock ``item`` pins now."""
    path = config.root / item.output
    if not path.is_file():
        return set()
    return set(pin_versions(decode_text(read_bounded(path, item.output), item.output)))


@dataclass(frozen=True)
class _Target:
    """One package a bump moves: to ``version``, in the ``touched`` locks."""

    package: str
    version: str
    touched: tuple[Lock, ...]
    old: list[str]


@dataclass(frozen=True)
class _Plan:
    """What a bump moves: the targets, notes, input bounds to raise, a group label."""

    targets: tuple[_Target, ...]
    notes: tuple[str, ...]
    bounds: tuple[tuple[ReqLine, str], ...]  # (line, version to allow) with --raise-bound
    group: str | None


def _locks_for(config: Config, only: Sequence[str]) -> dict[str, Lock]:
    """The configured locks (``only`` checked), each index environment checked."""
    locks = resolve_locks(config)
    if not locks:
        raise PolicyError(
            f"{config.source or 'pyproject.toml'}: no [[tool.policytool.lock]] is configured"
        )
    if only:
        select(locks, only)  # unknown names: a PolicyError with a suggestion
    for item in locks.values():
        check_index_env(item)  # before any index is asked
    return locks


def _touched(
    config: Config, locks: Mapping[str, Lock], only: Sequence[str], package: str
) -> list[Lock]:
    """The (selected) locks that contain ``package``."""
    return [
        item
        for item in locks.values()
        if (not only or item.name in only) and _contains(config, item, package)
    ]


def _old_versions(config: Config, touched: Sequence[Lock], package: str) -> list[str]:
    """The versions the touched locks pin ``package`` to now."""
    return sorted({v for item in touched for v in [_pinned(config, item, package)] if v})


def _apply(
    config: Config,
    locks: Mapping[str, Lock],
    plan: _Plan,
    why: str,
    command: str | None,
    report: Callable[[Outcome], None] | None,
    dry_run: bool,
    online: bool,
    progress: Callable[[str], None] | None,
) -> BumpResult:
    """Repin, raise bounds, re-lock once with every target upgraded, render the body."""
    targets = plan.targets
    first = targets[0]
    name = plan.group or first.package
    version = "" if plan.group else first.version
    touched = {item.name: item for t in targets for item in t.touched}
    edited_paths = _editable_files(config, touched)
    originals: dict[str, bytes] = {}
    for path in edited_paths:
        originals[path] = read_bounded(config.root / path, path)
    raised: dict[str, list[int]] = {}
    for line, _version in plan.bounds:
        raised.setdefault(line.path, []).append(line.line)
    for path in raised:
        if path not in originals:
            originals[path] = read_bounded(config.root / path, path)
    new_texts: dict[str, bytes] = {}
    for path, data in originals.items():
        text = decode_text(data, path)
        new = text
        for target in targets:
            if path.rsplit("/", 1)[-1] == "pyproject.toml":
                new = move_pins(new, target.package, target.version, path)
            else:
                new = repin_requirements_text(new, target.package, target.version)
        if path in raised:
            new = raise_bounds_text(new, first.package, first.version, raised[path])
        if new != text:
            new_texts[path] = encode_like(data, new)
    # Every lock reading an edited file, every lock holding a package, and every lock
    # layered on one of them (its constraints change): the whole graph above.
    readers = [
        item.name
        for item in locks.values()
        if item.name in touched or set(watched_files(config.root, item)) & set(new_texts)
    ]
    regenerate = layered_above(locks, readers)
    skip = [
        *edited_paths,
        *(f for item in locks.values() for f in watched_files(config.root, item)),
    ]
    untouched = [
        (path, f"{t.package}=={v}" if plan.group else v)
        for t in targets
        for path, v in untouched_pins(config, t.package, skip)
    ]
    pairs = tuple((t.package, t.version) for t in targets)
    if (
        all(t.old == [t.version] for t in targets)
        and not new_texts
        and not _hand_edited(config, touched.values())
    ):
        # Already there: no lock is re-resolved, no hold recorded, nothing announced.
        # A lock whose body no longer matches its header (a bot moved the pin by hand)
        # is not "there": it is regenerated, so its hashes come from the index.
        return BumpResult(
            name, version, (), (), "", (), tuple(untouched), plan.notes, dry_run, True, pairs
        )
    if dry_run:
        return BumpResult(
            name,
            version,
            tuple(new_texts),
            (),
            "",
            tuple(regenerate),
            tuple(untouched),
            plan.notes,
            dry_run=True,
            targets=pairs,
        )
    edited: list[str] = []
    try:
        for path, data in new_texts.items():
            try:
                write_atomic(config.root / path, data, inside=config.root)
            except OSError as exc:
                raise PolicyError(f"{path}: cannot write: {exc.strerror or exc}") from None
            edited.append(path)
        if edited:
            config = _reload(config)
        outcomes = lock(
            config,
            regenerate,
            upgrade_packages=[f"{p}=={v}" for p, v in pairs],
            progress=progress,
        )
    except BaseException:
        # Put every input back (the locks were restored by lock()); re-raised below.
        for path in edited:
            write_atomic(config.root / path, originals[path], inside=config.root)
        raise
    if report is not None:
        for outcome in outcomes:
            report(outcome)
    facts = [_release_facts(t.package, tuple(t.old), t.version, online, t.touched) for t in targets]
    default_command = (
        f"policytool bump {first.package}=={first.version}"
        if plan.group is None
        else "policytool bump " + " ".join(f"{p}=={v}" for p, v in pairs)
    )
    body = render_body(
        config,
        [p for p, _v in pairs],
        outcomes,
        why,
        command or default_command,
        facts,
        untouched,
        title=_group_title(plan.group, pairs),
    )
    return BumpResult(
        name,
        version,
        tuple(edited),
        tuple(outcomes),
        body,
        tuple(regenerate),
        tuple(untouched),
        plan.notes,
        targets=pairs,
    )


def _group_title(group: str | None, pairs: Sequence[tuple[str, str]]) -> str | None:
    """``Bump the pytest group: 3 packages`` for a group (None: the usual title)."""
    if group is None:
        return None
    count = len(pairs)
    return f"Bump {group}: {count} package{'s' if count != 1 else ''}"


def _hand_edited(config: Config, touched: Iterable[Lock]) -> bool:
    """Whether a touched lock's body no longer matches the body hash in its header."""
    for item in touched:
        path = config.root / item.output
        if not path.is_file():
            continue
        parsed = lockfile.parse(decode_text(read_bounded(path, item.output), item.output))
        if parsed.has_header and lockfile.body_hash(parsed.body) != parsed.body_hash:
            return True
    return False


def _pinned(config: Config, item: Lock, package: str) -> str | None:
    """The version lock ``item`` pins ``package`` to now (None when absent)."""
    path = config.root / item.output
    if not path.is_file():
        return None
    return pin_versions(decode_text(read_bounded(path, item.output), item.output)).get(package)


def _release_facts(
    package: str, old: tuple[str, ...], new: str, online: bool, touched: Sequence[Lock] = ()
) -> ReleaseFacts:
    """PyPI's facts about the old and new release (not looked up when offline), and the
    Python each touched lock resolves for."""
    pythons = tuple((item.name, _lock_python(item)) for item in touched)
    if not online:
        return ReleaseFacts(package, old, new, pythons=pythons)
    from policytool.pypi import release

    after = release(package, new)
    before = release(package, old[0]) if old else None
    if isinstance(after, str):
        before = None
    notes = None
    if not isinstance(after, str) and old:
        from policytool.pypi import release_notes

        notes = release_notes(after, old[0])
    return ReleaseFacts(package, old, new, before, after, pythons, notes)


def _lock_python(item: Lock) -> str:
    """The Python lock ``item`` resolves for: its ``python-version`` (``X.Y and up`` when
    universal), else the running one."""
    import sys

    version = item.config.python_version or f"{sys.version_info[0]}.{sys.version_info[1]}"
    return f"{version} and up" if item.config.universal else version


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
    direct_in: list[str]


def moves_of(
    config: Config, outcomes: Sequence[Outcome], packages: Sequence[str]
) -> list[PackageMove]:
    """Every package whose pin changed: from, to, the locks, direct or transitive (the
    bumped ``packages`` are direct)."""
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
            move = moves.setdefault(name, _Move(old, new, [], False, []))
            move.locks.append(outcome.name)
            move.direct = move.direct or name in packages or name in direct
            if name in direct:
                move.direct_in.append(outcome.name)
    return [
        PackageMove(name, m.old, m.new, tuple(m.locks), m.direct, tuple(m.direct_in))
        for name, m in moves.items()
    ]


def render_body(
    config: Config,
    packages: Sequence[str],
    outcomes: Sequence[Outcome],
    why: str,
    command: str,
    releases: Sequence[ReleaseFacts] = (),
    untouched: Sequence[tuple[str, str]] = (),
    title: str | None = None,
) -> str:
    """The PR body from the repository's dependency-bump template (or the built-in one)."""
    path = config.root / BUMP_TEMPLATE_PATH
    template = (
        decode_text(read_bounded(path, BUMP_TEMPLATE_PATH), BUMP_TEMPLATE_PATH)
        if path.is_file()
        else BUMP_TEMPLATE
    )
    locks = resolve_locks(config)
    touched = [o.name for o in outcomes if o.status == "written"]
    body = BumpBody(
        moves=moves_of(config, outcomes, packages),
        why=why,
        command=command,
        jobs={name: list(locks[name].config.jobs) for name in touched},
        locks=touched,
        title=title,
        releases=tuple(releases),
        untouched=untouched,
    )
    return render_bump_body(template, body)
