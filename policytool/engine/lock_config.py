# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The locks' config: ``[[tool.policytool.lock]]`` and its ``variants``.

Here, in the engine, not in ``policytool/lock/``: the lock rules (``lock-stale``,
``lock-skew``, ``floating-pin``, ``ci-floating-install``) and :mod:`policytool.engine.locks`
read it, and they sit below the ``lock`` command (tests/test_layers.py).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import ClassVar, Literal, TypeVar

from policytool.config import ConfigContext, KeyDoc, document, register_section
from policytool.formats.pylock import is_pylock_name
from policytool.formats.toml import KeyPath

# The resolvers `policytool lock` drives.
Backend = Literal["uv", "pip-tools"]
# uv's --index-strategy, --prerelease and --resolution values.
IndexStrategy = Literal["first-index", "unsafe-first-match", "unsafe-best-match"]
Prerelease = Literal["disallow", "allow", "if-necessary", "explicit", "if-necessary-or-explicit"]
Resolution = Literal["highest", "lowest", "lowest-direct"]


@dataclass(frozen=True)
class LockVariant:
    """One ``variants`` entry of a lock: what differs for one accelerator (cpu, cuda...).

    Every key left out is inherited from the lock; ``{variant}`` in the lock's ``name``,
    ``output``, ``inputs`` and ``constraints`` is replaced by the variant's name (a name
    without it gets ``-VARIANT`` appended).
    """

    name: str
    inputs: tuple[str, ...] | None = None
    output: str | None = None
    constraints: tuple[str, ...] | None = None
    python_version: str | None = None
    platform: str | None = None
    index_url: str | None = None
    extra_index_urls: tuple[str, ...] | None = None
    find_links: tuple[str, ...] | None = None
    index_strategy: IndexStrategy | None = None
    torch_backend: str | None = None
    exclude: tuple[str, ...] | None = None
    jobs: tuple[str, ...] | None = None
    # The resolver's options may differ per accelerator too (a nightly index needs
    # prereleases; a CPU lock may use pip-tools).
    backend: Backend | None = None
    hashes: bool | None = None
    universal: bool | None = None
    no_index: bool | None = None
    prerelease: Prerelease | None = None
    resolution: Resolution | None = None
    # An accelerator index (the PyTorch one) may publish no upload dates.
    exclude_newer: bool | None = None


document(
    LockVariant,
    "One table per variant of a lock (`[[tool.policytool.lock]] variants`), any number: "
    "every key left out is inherited from the lock ([lock-config.md](lock-config.md)).",
    {
        "name": KeyDoc(
            "string",
            "the variant (`cpu`, `cu128`...): replaces `{variant}` in the lock's `name`, "
            "`output`, `inputs` and `constraints` (a name without it gets `-NAME` appended)",
        ),
        **{
            _key: KeyDoc("as for the lock", f"the lock's `{_key}` for this variant", "the lock's")
            for _key in (
                "inputs",
                "output",
                "constraints",
                "python-version",
                "platform",
                "index-url",
                "extra-index-urls",
                "find-links",
                "index-strategy",
                "torch-backend",
                "exclude",
                "jobs",
                "backend",
                "hashes",
                "universal",
                "no-index",
                "prerelease",
                "resolution",
                "exclude-newer",
            )
        },
    },
)


@dataclass(frozen=True)
class LockConfig:
    """One ``[[tool.policytool.lock]]`` entry: inputs compiled into an exact-pinned file."""

    name: str
    inputs: tuple[str, ...]
    output: str
    constraints: tuple[str, ...] = ()
    python_version: str | None = None
    # Resolve for every Python from python-version up (uv --universal): one lock, markers.
    universal: bool = False
    platform: str | None = None
    hashes: bool = False
    backend: Backend = "uv"
    index_url: str | None = None
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    no_index: bool = False
    index_strategy: IndexStrategy | None = None
    torch_backend: str | None = None
    prerelease: Prerelease | None = None
    resolution: Resolution | None = None
    # Record a cut-off date the resolver honours (uv --exclude-newer, pip
    # --uploaded-prior-to); false for an index that publishes no upload dates.
    exclude_newer: bool = True
    # Apply the repository's [tool.uv] exclude-/override-/constraint-dependencies (uv).
    uv_config: bool = True
    # Keep ``pkg[extra]`` in the lock (uv/pip-compile --no-strip-extras).
    strip_extras: bool = True
    # Packages left out of the lock (uv/pip-compile --no-emit-package); globs allowed.
    exclude: tuple[str, ...] = ()
    jobs: tuple[str, ...] = ()
    variants: tuple[LockVariant, ...] = ()
    # Set on the locks a ``variants`` entry fans out to (not a TOML key).
    variant: str | None = None

    # The backend's own option names, for the "did you mean" of an unknown key.
    KEY_HINTS: ClassVar[dict[str, str]] = {
        "no-emit-package": "exclude",
        "no-emit-packages": "exclude",
        "extra-index-url": "extra-index-urls",
        "find-link": "find-links",
        "python-platform": "platform",
        "generate-hashes": "hashes",
        "constraint": "constraints",
        "output-file": "output",
        "python": "python-version",
        "pre": "prerelease",
    }


document(
    LockConfig,
    "One table per lock ([lock.md](lock.md#configuration); every key, variants, credentials "
    "and bump's options: [lock-config.md](lock-config.md)).",
    {
        "name": KeyDoc(
            "string", "the lock's name on the command line and in its header", "required, unique"
        ),
        "inputs": KeyDoc(
            "list of inputs",
            "requirement files, `pyproject.toml`, `pyproject.toml[extra,...]` or "
            "`pyproject.toml:GROUP`",
        ),
        "output": KeyDoc(
            "path",
            "the lock file written: requirements text, or PEP 751 when named "
            "`pylock.toml` / `pylock.<name>.toml` (uv only)",
        ),
        "constraints": KeyDoc(
            "list",
            "other locks (by `name` or `output`, compiled first and layered on) or constraint "
            "files",
        ),
        "python-version": KeyDoc(
            "string",
            "the `X.Y` (or `X.Y.Z`) resolved for; validated",
            "the running Python (recorded in the header)",
        ),
        "universal": KeyDoc(
            "boolean",
            "one lock for every Python from `python-version` up, with markers (uv "
            "`--universal`; uv only)",
        ),
        "platform": KeyDoc(
            "string",
            "uv `--python-platform`; not available with pip-tools",
            "the current platform",
        ),
        "hashes": KeyDoc("boolean", "`--hash` on every pin"),
        "backend": KeyDoc('`"uv"` or `"pip-tools"`', "the resolver"),
        "index-url": KeyDoc(
            "string",
            "the index (`${VAR}` read from the environment, never written to the lock)",
            "the backend's default",
        ),
        "extra-index-urls": KeyDoc("list of strings", "more indexes (`${VAR}` as above)"),
        "find-links": KeyDoc(
            "list of paths or URLs",
            "local wheel directories (relative to the repository root) or pages (`${VAR}` as "
            "above)",
        ),
        "no-index": KeyDoc("boolean", "resolve from `find-links` only"),
        "index-strategy": KeyDoc(
            '`"first-index"`, `"unsafe-first-match"` or `"unsafe-best-match"`',
            "uv `--index-strategy`",
            "uv's (`first-index`)",
        ),
        "torch-backend": KeyDoc("string", "uv `--torch-backend` (`cpu`, `cu128`, `cu130`...)"),
        "prerelease": KeyDoc(
            '`"disallow"`, `"allow"`, `"if-necessary"`, `"explicit"` or '
            '`"if-necessary-or-explicit"`',
            'uv `--prerelease` (pip-tools: `"allow"` only, as `--pre`)',
            "the backend's",
        ),
        "resolution": KeyDoc(
            '`"highest"`, `"lowest"` or `"lowest-direct"`',
            "uv `--resolution`",
            '`"highest"`',
        ),
        "exclude": KeyDoc(
            "list of package names or globs",
            "packages left out of the lock (`--no-emit-package`; `nvidia-*` works)",
        ),
        "uv-config": KeyDoc(
            "boolean",
            "apply the repository's `pyproject.toml` `[tool.uv]` `exclude-dependencies`, "
            "`override-dependencies` and `constraint-dependencies` (uv reads them itself in "
            "`uv pip compile`); they enter the fingerprint and the header. uv only",
            "`true`",
        ),
        "strip-extras": KeyDoc(
            "boolean",
            "write `celery` for `celery[redis]` (the dependencies of the extra are pinned "
            "either way); `false` keeps `celery[redis]` (`--no-strip-extras`)",
            "`true`",
        ),
        "exclude-newer": KeyDoc(
            "boolean",
            "record a cut-off date in the header that the resolver honours (uv "
            "`--exclude-newer`, pip `--uploaded-prior-to`), so `lock --check --resolve` "
            "derives the lock again; `false` for an index that publishes no upload dates",
            "`true`",
        ),
        "jobs": KeyDoc(
            "list of strings",
            "CI jobs to re-run when this lock changes (the checklist of `policytool bump`); "
            "`ci-floating-install` pins an install only from the locks naming its job, a "
            "job that runs its file, or its file as a glob",
        ),
        "variants": KeyDoc(
            "list of tables",
            "per-accelerator locks: each `{ name = ..., ... }` overrides some keys and "
            "inherits the rest ([below](#toolpolicytoollockvariants))",
        ),
    },
    "`variant` is not a key: it is the variant a fanned-out lock came from (`policytool lock "
    "--variant NAME`). The full behaviour of these keys, the variant keys and the index "
    "credentials (`${VAR}`) is in [lock-config.md](lock-config.md).",
)


T = TypeVar("T")


def _pick(value: T | None, inherited: T) -> T:
    """A variant's value when it sets one, else the lock's."""
    return inherited if value is None else value


def expand_variants(locks: tuple[LockConfig, ...]) -> tuple[LockConfig, ...]:
    """Every lock with ``variants`` replaced by one lock per variant (the rest inherited)."""
    out: list[LockConfig] = []
    for lock in locks:
        if not lock.variants:
            out.append(lock)
            continue
        for v in lock.variants:

            def fill(text: str, name: str = v.name) -> str:
                """``text`` with ``{variant}`` replaced."""
                return text.replace("{variant}", name)

            name = fill(lock.name) if "{variant}" in lock.name else f"{lock.name}-{v.name}"
            out.append(
                dataclasses.replace(
                    lock,
                    name=name,
                    output=v.output or fill(lock.output),
                    inputs=tuple(fill(i) for i in _pick(v.inputs, lock.inputs)),
                    constraints=tuple(fill(c) for c in _pick(v.constraints, lock.constraints)),
                    python_version=_pick(v.python_version, lock.python_version),
                    platform=_pick(v.platform, lock.platform),
                    index_url=_pick(v.index_url, lock.index_url),
                    extra_index_urls=_pick(v.extra_index_urls, lock.extra_index_urls),
                    find_links=_pick(v.find_links, lock.find_links),
                    index_strategy=_pick(v.index_strategy, lock.index_strategy),
                    torch_backend=_pick(v.torch_backend, lock.torch_backend),
                    exclude=_pick(v.exclude, lock.exclude),
                    jobs=_pick(v.jobs, lock.jobs),
                    backend=_pick(v.backend, lock.backend),
                    hashes=_pick(v.hashes, lock.hashes),
                    universal=_pick(v.universal, lock.universal),
                    no_index=_pick(v.no_index, lock.no_index),
                    prerelease=_pick(v.prerelease, lock.prerelease),
                    resolution=_pick(v.resolution, lock.resolution),
                    exclude_newer=_pick(v.exclude_newer, lock.exclude_newer),
                    variants=(),
                    variant=v.name,
                )
            )
    return tuple(out)


_PYTHON_VERSION_RE = re.compile(r"^3\.(?:[0-9]|[1-9][0-9])(?:\.(?:0|[1-9][0-9]*))?$")


def _validate_lock(lock: LockConfig, where: KeyPath, ctx: ConfigContext) -> None:
    """A lock's python-version is ``3.N`` (or ``3.N.M``); variants fan out with ``{variant}``."""
    if lock.python_version is not None and not _PYTHON_VERSION_RE.match(lock.python_version):
        raise ctx.error(
            (*where, "python-version"),
            f"expected a Python version such as '3.12', got {lock.python_version!r}",
        )
    if lock.universal and lock.backend != "uv":
        raise ctx.error((*where, "universal"), "universal locks need backend = 'uv'")
    leaf = lock.output.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if is_pylock_name(lock.output):
        if lock.backend != "uv":
            raise ctx.error(
                (*where, "output"),
                f"'{lock.output}' is a PEP 751 pylock.toml, which backend "
                f"'{lock.backend}' cannot write (pip-compile writes requirements files "
                "only): use backend = 'uv' or name a .txt output",
            )
    elif leaf.endswith(".toml") or leaf == "uv.lock":
        raise ctx.error(
            (*where, "output"),
            f"'{lock.output}' names a TOML lock that is not PEP 751's 'pylock.toml' or "
            "'pylock.<name>.toml' (uv.lock is uv's project lock): name a pylock.toml or "
            "a .txt output",
        )


def _placed_locks(written: tuple[LockConfig, ...]) -> list[tuple[LockConfig, KeyPath]]:
    """Every lock after variants fan out, with the TOML table that declares it.

    The place of a variant's lock is its ``[[tool.policytool.lock.variants]]`` entry, so
    an error names the table the user wrote, not the position in the expanded list.
    """
    placed: list[tuple[LockConfig, KeyPath]] = []
    for index, lock in enumerate(written):
        where: KeyPath = ("tool", "policytool", "lock", index)
        if not lock.variants:
            placed.append((lock, where))
            continue
        for number, expanded in enumerate(expand_variants((lock,))):
            placed.append((expanded, (*where, "variants", number)))
    return placed


def _finish_locks(written: tuple[LockConfig, ...], ctx: ConfigContext) -> tuple[LockConfig, ...]:
    """Names and outputs unique after variants fan out, each lock valid; the fanned-out
    locks (``written``: the locks as declared)."""
    placed = _placed_locks(written)
    names = [lock.name for lock, _where in placed]
    for number, (lock, where) in enumerate(placed):
        if names.count(lock.name) > 1 and names.index(lock.name) != number:
            raise ctx.error((*where, "name"), f"duplicate lock name '{lock.name}'")
    outputs = [lock.output.removeprefix("./") for lock, _where in placed]
    for number, (lock, where) in enumerate(placed):
        _validate_lock(lock, where, ctx)
        if outputs.count(outputs[number]) > 1:
            raise ctx.error(
                (*where, "output"),
                f"locks write the same output '{outputs[number]}' (lock '{lock.name}'); "
                "give each variant its own output, e.g. 'requirements/{variant}.txt'",
            )
    return expand_variants(written)


register_section("lock", LockConfig, repeated=True, finish=_finish_locks)


@dataclass(frozen=True)
class BumpGroup:
    """One ``[[tool.policytool.bump-group]]``: packages ``policytool bump --group`` moves together.

    Like a Dependabot ``groups:`` entry: ``patterns`` (and ``exclude-patterns``) are globs
    on canonical package names, matched against every pin of the locks.
    """

    name: str
    patterns: tuple[str, ...]
    exclude_patterns: tuple[str, ...] = ()
    # "patch": only patch-level releases (same X.Y) of the members; "any": the newest allowed.
    update: Literal["any", "patch"] = "any"


document(
    BumpGroup,
    "One table per group of packages bumped together in one change and one PR body "
    "(`policytool bump --group NAME`, like Dependabot's `groups:`; "
    "[bump.md](bump.md#grouped-bumps)).",
    {
        "name": KeyDoc("string", "the group's name on the command line", "required, unique"),
        "patterns": KeyDoc(
            "list of globs",
            "canonical package names of the group (`pytest*`, `opentelemetry-*`); matched "
            "against every pin of the locks",
            "required",
        ),
        "exclude-patterns": KeyDoc("list of globs", "names left out of the group"),
        "update": KeyDoc(
            '`"any"` or `"patch"`',
            "`patch` takes only patch-level releases (the same `X.Y`) of the members",
            '`"any"`',
        ),
    },
)


def _finish_groups(written: tuple[BumpGroup, ...], ctx: ConfigContext) -> tuple[BumpGroup, ...]:
    """Group names unique, each with at least one pattern."""
    seen: set[str] = set()
    for index, group in enumerate(written):
        where: KeyPath = ("tool", "policytool", "bump-group", index)
        if group.name in seen:
            raise ctx.error((*where, "name"), f"duplicate bump group name '{group.name}'")
        seen.add(group.name)
        if not group.patterns:
            raise ctx.error((*where, "patterns"), "a bump group needs at least one pattern")
    return written


register_section("bump-group", BumpGroup, repeated=True, finish=_finish_groups)
