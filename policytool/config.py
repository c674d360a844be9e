# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``[tool.policytool]`` of ``pyproject.toml`` -> typed, frozen dataclasses.

Every section is a frozen dataclass whose field names are the TOML keys with ``-``
turned into ``_``. :func:`build_section` converts a TOML table into one of them
generically from the field annotations, so a new section is declared, not parsed by
hand. Unknown keys and wrong types raise :class:`ConfigError` naming the file, the
key, its line and (for unknown keys) the nearest valid key.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Literal, NamedTuple, TypeVar

from policytool.core.kinds import CommentKind
from policytool.core.memo import RunMemo
from policytool.errors import ConfigError, DecodeError, FileError, PolicyError
from policytool.formats.pylock import is_pylock_name
from policytool.formats.toml import KeyPath, key_line, key_lines

# The resolvers `policytool lock` drives.
Backend = Literal["uv", "pip-tools"]
# What pre-commit's manual stage means in a repo, and how a repo runs CodeQL.
ManualStage = Literal["ci", "opt-in"]
CodeqlSetup = Literal["workflow", "default-setup"]


class KeyDoc(NamedTuple):
    """One key of a ``[tool.policytool...]`` section as docs/config.md shows it."""

    # What the value is, in words ("list of globs").
    kind: str
    # What the key does, one line of Markdown.
    meaning: str
    # The default in words; None: the field's own default, shown as TOML ("required" when
    # it has none).
    default: str | None = None


@dataclass(frozen=True)
class SectionDoc:
    """The docs of one section dataclass: prose around its table and one row per key."""

    intro: str
    keys: dict[str, KeyDoc]
    outro: str = ""


# Section dataclass -> its docs, filled by :func:`document` next to each dataclass; the
# generator (``policytool.engine.config_docs``) renders docs/config.md from it and a test
# fails when a key has no row.
SECTION_DOCS: dict[type, SectionDoc] = {}


def document(cls: type, intro: str, keys: dict[str, KeyDoc], outro: str = "") -> None:
    """Record the docs of section dataclass ``cls`` (TOML key -> :class:`KeyDoc`)."""
    SECTION_DOCS[cls] = SectionDoc(intro.strip(), keys, outro.strip())


@dataclass(frozen=True)
class SpdxConfig:
    """``[tool.policytool.spdx]``: the SPDX header lines every source file carries.

    ``spdx-header`` runs only when the table is written (``configured``): a license
    in ``[project]`` alone is no SPDX header policy.
    """

    # None: any ``SPDX-License-Identifier`` line is accepted (and fix cannot insert one).
    # Without the key, ``project.license`` of the same pyproject.toml.
    license: str | None = None
    copyright: str | None = None
    replaces: tuple[str, ...] = ()
    # File kinds (see files.CommentKind) the header is required in.
    kinds: tuple[CommentKind, ...] = ("python",)
    # Path globs exempt from the header (vendored code); ``baseline spdx-header`` adds to it.
    exclude: tuple[str, ...] = ()
    # Set by the builder when the table is present, never a TOML key.
    configured: bool = False


document(
    SpdxConfig,
    "The `spdx-header` rule ([source-rules.md](source-rules.md#spdx-header)), off until this "
    "table is written (an empty table turns it on with `project.license`).",
    {
        "license": KeyDoc(
            "string",
            "the `SPDX-License-Identifier` value; without it any identifier passes and `fix` "
            "cannot insert one",
            "`project.license` when it is a string, else none",
        ),
        "copyright": KeyDoc(
            "string", "the `SPDX-FileCopyrightText` value, required in every header when set"
        ),
        "replaces": KeyDoc(
            "list of strings",
            "old copyright texts (`# <text>` or `# SPDX-FileCopyrightText: <text>`) that `fix` "
            "rewrites to `copyright`",
        ),
        "kinds": KeyDoc(
            "list of kinds",
            "file kinds that need the header: `python`, `stub`, `shell`, `yaml`, `toml` (`#` "
            "comments), `rust`, `proto`, `c`, `cpp`, `cuda`, `js`, `ts` (`//` comments)",
        ),
        "exclude": KeyDoc(
            "list of globs",
            "files exempt from the header (vendored code); `policytool baseline spdx-header` "
            "adds to it",
        ),
    },
)


@dataclass(frozen=True)
class ForbiddenImportConfig:
    """One ``[[tool.policytool.forbidden-import]]`` entry."""

    modules: tuple[str, ...]
    reason: str = ""
    allow: tuple[str, ...] = ()
    allowlist_file: str | None = None


document(
    ForbiddenImportConfig,
    "One table per ban, any number ([source-rules.md](source-rules.md#configuration)).",
    {
        "modules": KeyDoc(
            "list of module names",
            "banned modules; each bans its submodules too",
            "required, not empty",
        ),
        "reason": KeyDoc("string", "appended to each finding"),
        "allow": KeyDoc("list of globs", "files where the ban does not apply"),
        "allowlist-file": KeyDoc(
            "path inside the repository",
            "a file of more allow globs, one a line (`#` comments); `policytool baseline` "
            "creates and appends to it",
        ),
    },
)


@dataclass(frozen=True)
class TorchCudaConfig:
    """``[tool.policytool.torch-cuda]``: banned ``torch.cuda`` calls and where they may stay.

    ``torch-cuda`` runs only when the table is written (``configured``).
    """

    allow: tuple[str, ...] = ()
    allowlist_file: str | None = None
    # api name -> replacement hint; empty means the built-in default set.
    banned: dict[str, str] = field(default_factory=dict)
    # Set by the builder when the table is present, never a TOML key.
    configured: bool = False


document(
    TorchCudaConfig,
    "The `torch-cuda` rule, off until this table is written (an empty table turns it on "
    "with the built-in set).",
    {
        "allow": KeyDoc("list of globs", "files where `torch-cuda` does not apply"),
        "allowlist-file": KeyDoc("path", "a file of more allow globs, as for `forbidden-import`"),
        "banned": KeyDoc(
            "table: API name -> hint",
            "the banned `torch.cuda` APIs and the replacement each finding names; replaces "
            "the built-in set",
            "the built-in set",
        ),
    },
)


@dataclass(frozen=True)
class PreCommitConfig:
    """``[tool.policytool.pre-commit]``: the ``.pre-commit-config.yaml`` policy."""

    file: str = ".pre-commit-config.yaml"
    final_hook: str | None = None
    # The stages ``default_stages`` must hold. None: not chosen; then [pre-commit, manual]
    # is asked for only where CI already runs ``--hook-stage manual``.
    default_stages: tuple[str, ...] | None = None
    # What the manual stage means here: "ci" (CI runs it: vLLM's pattern) or "opt-in"
    # (run on request only). None: "ci" when CI runs ``--hook-stage manual`` or
    # ``default_stages`` lists manual, else "opt-in".
    manual_stage: ManualStage | None = None
    manual_only: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    min_rev: dict[str, str] = field(default_factory=dict)
    # repo URL -> regex its release tags match (overrides the built-in schemes).
    rev_pattern: dict[str, str] = field(default_factory=dict)


document(
    PreCommitConfig,
    "The `precommit-*` rules ([repo-rules.md](repo-rules.md)).",
    {
        "file": KeyDoc("path", "the pre-commit config"),
        "final-hook": KeyDoc("string", "the hook id that must run last"),
        "default-stages": KeyDoc(
            "list of stages",
            "stages `default_stages` must hold (`[]` turns the check off)",
            'not set: `["pre-commit", "manual"]` where CI runs `--hook-stage manual`, else nothing',
        ),
        "manual-stage": KeyDoc(
            '`"ci"` or `"opt-in"`',
            "what pre-commit's manual stage means here: run by CI (`ci-hook-stage` asks CI to "
            "run it) or on request only",
            'not set: `"ci"` when CI runs `--hook-stage manual` or `default_stages` lists '
            '`manual`, else `"opt-in"`',
        ),
        "manual-only": KeyDoc(
            "list of hook ids", "hooks that must have exactly `stages: [manual]` (CI only)"
        ),
        "required": KeyDoc("list of hook ids", "hooks that must be in the config"),
        "min-rev": KeyDoc(
            "table: repo URL -> rev", "the lowest accepted `rev` of a hook repository"
        ),
        "rev-pattern": KeyDoc(
            "table: repo URL -> regex",
            "what a release tag of that repository looks like (overrides the built-in schemes)",
        ),
    },
)


@dataclass(frozen=True)
class MergifyConfig:
    """``[tool.policytool.mergify]``: where the pre-commit failure comment lives."""

    file: str = ".github/mergify.yml"
    rule: str = "comment-pre-commit-failure"
    # Checks reported by apps other than this repo's workflows (DCO, Buildkite...), as
    # globs. None: only the configured rule's check conditions are compared with the
    # workflows' jobs; a list: every rule's are, and these names are also known.
    external_checks: tuple[str, ...] | None = None


document(
    MergifyConfig,
    "The `mergify-drift` rule and `policytool sync`.",
    {
        "file": KeyDoc("path", "the Mergify config"),
        "rule": KeyDoc(
            "string",
            "the name of the rule whose comment message carries the pre-commit tip",
        ),
        "external-checks": KeyDoc(
            "list of globs",
            'checks reported by other apps (`"dco"`, `"buildkite/*"`); once set, every '
            "rule's `check-*` conditions must name a workflow job or one of these",
            "not set: only `rule`'s check conditions are compared with the workflows' jobs",
        ),
    },
)


@dataclass(frozen=True)
class CiConfig:
    """``[tool.policytool.ci]``: why CI skips the hooks it skips."""

    # hook id -> why CI skips it. None: not chosen (a SKIP needs no recorded reason).
    skip_reasons: dict[str, str] | None = None
    # The branch CodeQL must scan on push/pull_request; None: origin's HEAD, else main.
    default_branch: str | None = None
    # How CodeQL runs: "workflow" (a workflow in the repo, checked by codeql-workflow) or
    # "default-setup" (GitHub's default setup, nothing in the repo). None: not chosen.
    codeql: CodeqlSetup | None = None


document(
    CiConfig,
    "The `ci-hook-stage` and `codeql-workflow` rules.",
    {
        "skip-reasons": KeyDoc(
            "table: hook id -> reason",
            "why CI skips a hook (`SKIP=`, pre-commit.ci's `ci: skip:`); once set, every "
            "skipped hook needs one and every reason must still be used",
            "not set: a skip needs no reason",
        ),
        "default-branch": KeyDoc(
            "string",
            "the branch CodeQL must scan on push and pull_request",
            "`origin`'s HEAD, else `main`",
        ),
        "codeql": KeyDoc(
            '`"workflow"` or `"default-setup"`',
            "how CodeQL scans the repo: a workflow here (also checked for push, pull_request "
            "and a schedule), or GitHub's default setup (no workflow; one running CodeQL too "
            "is a finding)",
            "not set: a CodeQL workflow is checked except for its triggers; none is one "
            "finding saying how to choose",
        ),
    },
)


@dataclass(frozen=True)
class FloatingPinConfig:
    """``[tool.policytool.floating-pin]``: requirement lists that must be exact pins.

    Nothing is checked until ``files`` or ``pyproject`` names something: loose install
    requirements (vLLM's ``requirements/*.txt``) are a choice, not a mistake.
    """

    files: tuple[str, ...] = ()
    pyproject: tuple[str, ...] = ()


document(
    FloatingPinConfig,
    "The `floating-pin` rule ([lock.md](lock.md#exact-pins-for-ci-floating-pin)).",
    {
        "files": KeyDoc(
            "list of globs",
            "requirement files whose requirements must be exact pins (`-r`/`-c` includes followed)",
            "`[]` (the rule is quiet until configured)",
        ),
        "pyproject": KeyDoc(
            "list of list names",
            "dependency lists of `pyproject.toml`: `project.dependencies`, "
            "`optional-dependencies.NAME`, `dependency-groups.NAME` (`NAME` may be `*`)",
        ),
    },
)


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
class CiFloatingInstallConfig:
    """``[tool.policytool.ci-floating-install]``: where CI installs packages, and exceptions.

    GitHub workflows and composite actions are always read; the globs name the other
    places CI runs shell (pipeline YAML, shell scripts, Dockerfiles).
    """

    pipelines: tuple[str, ...] = (
        ".buildkite/**/*.yml",
        ".buildkite/**/*.yaml",
        ".gitlab-ci.yml",
        ".circleci/config.yml",
    )
    # Files under these globs are read when they are shell scripts (suffix or shebang).
    scripts: tuple[str, ...] = (".github/**", ".buildkite/**", ".ci/**", ".circleci/**")
    dockerfiles: tuple[str, ...] = (
        "**/Dockerfile",
        "**/Dockerfile.*",
        "**/*.Dockerfile",
        "**/*.dockerfile",
    )
    # Also read the shell code blocks of the Mergify file's comments ([tool.policytool.mergify]).
    mergify: bool = True
    # ``curl ... | sh`` and ``bash <(curl ...)`` installers are findings.
    download_run: bool = True
    allow: tuple[str, ...] = ()
    allowlist_file: str | None = None
    # Package names that may be installed unpinned (``pip``, say).
    allow_packages: tuple[str, ...] = ()


document(
    CiFloatingInstallConfig,
    "The `ci-floating-install` rule ([pinned-ci.md](pinned-ci.md)). GitHub workflows and "
    "composite actions are always read.",
    {
        "pipelines": KeyDoc(
            "list of path globs",
            "other CI pipeline YAML whose `command`/`commands`/`script`/`run` strings are shell",
        ),
        "scripts": KeyDoc(
            "list of path globs", "files read when they are shell scripts (suffix or `#!` line)"
        ),
        "dockerfiles": KeyDoc("list of path globs", "Dockerfiles whose `RUN`s are read"),
        "mergify": KeyDoc(
            "boolean",
            "read the shell code blocks of the Mergify comments (`[tool.policytool.mergify] file`)",
        ),
        "download-run": KeyDoc(
            "boolean",
            "`curl ... \\| sh` and `bash <(curl ...)` installers from an unversioned URL are "
            "findings",
        ),
        "allow": KeyDoc("list of path globs", "files where the rule does not apply"),
        "allowlist-file": KeyDoc("path", "a file of more such globs, one a line"),
        "allow-packages": KeyDoc(
            "list of names", "packages that may be installed unpinned (`pip`, say)"
        ),
    },
)


@dataclass(frozen=True)
class ActionPinConfig:
    """``[tool.policytool.action-pin]``: actions pinned by commit SHA (with a tag comment)."""

    # ``owner/repo`` globs (``actions/*``) that may stay on a tag; ``@main`` is still a finding.
    trusted: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    allowlist_file: str | None = None
    # Opt-in: container images (Dockerfile FROM, ``docker://``, job containers) need a digest.
    docker_digest: bool = False
    dockerfiles: tuple[str, ...] = (
        "**/Dockerfile",
        "**/Dockerfile.*",
        "**/*.Dockerfile",
        "**/*.dockerfile",
    )
    # Where ``policytool fix --online`` runs ``git ls-remote BASE/OWNER/REPO``.
    git_base_url: str = "https://github.com"


document(
    ActionPinConfig,
    "The `action-pin` rule ([pinned-ci.md](pinned-ci.md)).",
    {
        "trusted": KeyDoc(
            "list of `owner/repo` globs",
            "actions that may stay on a tag (`actions/*`); `@main`/`@master` are still findings",
        ),
        "allow": KeyDoc("list of path globs", "files where the rule does not apply"),
        "allowlist-file": KeyDoc("path", "a file of more such globs, one a line"),
        "docker-digest": KeyDoc(
            "boolean",
            "opt-in: also require an `@sha256:` digest on Dockerfile `FROM`, `docker://` "
            "actions and job `container:`/`services:` images",
        ),
        "dockerfiles": KeyDoc("list of path globs", "Dockerfiles read with `docker-digest`"),
        "git-base-url": KeyDoc(
            "URL",
            "where `policytool fix --online` runs `git ls-remote BASE/OWNER/REPO` (https "
            "only; a mirror is set outside the repository with `POLICYTOOL_GIT_BASE_URL`, "
            "which wins)",
        ),
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
            "CI jobs to re-run when this lock changes (the checklist of `policytool bump`)",
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


@dataclass(frozen=True)
class SweepConfig:
    """``[tool.policytool.sweep]``: what counts as fail-fast, request and serving code."""

    fail_fast: tuple[str, ...] = (
        "__init__",
        "__post_init__",
        "load_weights",
        "*load_weight*",
        "*validate_config*",
        "*verify*",
        "*check_config*",
        "*setup*",
    )
    request_path: tuple[str, ...] = (
        "*request*",
        "*forward*",
        "*step*",
        "*generate*",
        "*handle*",
        "*infer*",
    )
    # Per-step functions whose name says nothing of a request (vLLM's model runner).
    hot_path: tuple[str, ...] = (
        "execute_model",
        "_preprocess",
        "*_process",
        "*denoise*",
        "*sample*",
        "*decode*",
    )
    # Path globs (``**`` spans directories): engine/, entrypoints/, connectors/ anywhere.
    serving_paths: tuple[str, ...] = ("**/engine/**", "**/entrypoints/**", "**/connectors/**")
    test_paths: tuple[str, ...] = ("**/tests/**", "**/test_*.py", "**/*_test.py", "**/conftest.py")
    # Not swept: examples, benchmarks, tools and generated code (the top-level exclude too).
    exclude: tuple[str, ...] = (
        "examples/**",
        "benchmarks/**",
        "tools/**",
        "**/examples/**",
        "**/benchmarks/**",
        "**/_generated/**",
        "**/generated/**",
        "**/*_pb2.py",
        "**/*_pb2_grpc.py",
    )
    # "3.10": parse for this Python; default the lower bound of [project] requires-python.
    target_version: str | None = None


document(
    SweepConfig,
    "`policytool sweep` ([sweep.md](sweep.md)).",
    {
        "fail-fast": KeyDoc(
            "list of name globs",
            "functions that must fail loudly (init, config validation, weight loading, set-up)",
        ),
        "request-path": KeyDoc("list of name globs", "functions on a per-request or per-step path"),
        "hot-path": KeyDoc("list of name globs", "more per-step functions, for `hot-copy`"),
        "serving-paths": KeyDoc("list of path globs", "files on the serving path"),
        "test-paths": KeyDoc("list of path globs", "test files (never a hot or serving path)"),
        "exclude": KeyDoc(
            "list of path globs", "files not swept (the top-level `exclude` applies too)"
        ),
        "target-version": KeyDoc(
            "string",
            'the Python the swept code is parsed for, `"3.10"`',
            "the lower bound of `[project] requires-python`",
        ),
    },
)


@dataclass(frozen=True)
class Config:
    """The whole ``[tool.policytool]`` table plus where it came from."""

    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None
    exclude: tuple[str, ...] = ()
    spdx: SpdxConfig = field(default_factory=SpdxConfig)
    forbidden_import: tuple[ForbiddenImportConfig, ...] = ()
    torch_cuda: TorchCudaConfig = field(default_factory=TorchCudaConfig)
    pre_commit: PreCommitConfig = field(default_factory=PreCommitConfig)
    mergify: MergifyConfig = field(default_factory=MergifyConfig)
    ci: CiConfig = field(default_factory=CiConfig)
    floating_pin: FloatingPinConfig = field(default_factory=FloatingPinConfig)
    ci_floating_install: CiFloatingInstallConfig = field(default_factory=CiFloatingInstallConfig)
    action_pin: ActionPinConfig = field(default_factory=ActionPinConfig)
    lock: tuple[LockConfig, ...] = ()
    sweep: SweepConfig = field(default_factory=SweepConfig)
    # The run's memo (see core/memo.py): a new Config, a new run, an empty memo.
    memo: RunMemo = field(default_factory=RunMemo, init=False, compare=False, repr=False)


document(
    Config,
    "",
    {
        "exclude": KeyDoc(
            "list of globs", "paths no rule looks at, with or without paths on the command line"
        )
    },
)


# Fields of Config that are not TOML keys; ``configured`` marks a section built from
# a table the repository wrote (policies nobody chose stay off).
_INTERNAL_FIELDS = frozenset({"root", "source", "memo", "variant", "configured"})


# Control characters and the characters str.splitlines() breaks on (U+2028, U+0085...).
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class _Context:
    """Where a table came from, for error messages."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        self._lines: dict[KeyPath, int] | None = None

    def line_of(self, where: KeyPath) -> int | None:
        """The line of the key at ``where`` (or of its nearest written parent)."""
        if self._lines is None:
            self._lines = key_lines(self.text)
        return key_line(self._lines, where)

    def error(self, where: KeyPath, message: str, at: KeyPath | None = None) -> ConfigError:
        """A ConfigError naming the file, the line of the key at ``at`` (default ``where``)
        and the path ``where``."""
        line = self.line_of(at if at is not None else where)
        shown = f"{self.path}:{line}" if line else str(self.path)
        return ConfigError(f"{shown}: {show_path(where)}: {message}")


def show_path(where: KeyPath) -> str:
    """``("tool", "policytool", "lock", 0, "name")`` -> ``tool.policytool.lock[0].name``."""
    out = ""
    for part in where:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _one_line(value: str, where: KeyPath, ctx: _Context) -> None:
    """Config strings end up in files (SPDX lines), findings and PR bodies: one line each."""
    bad = _CONTROL_RE.search(value)
    if bad is not None:
        raise ctx.error(
            where,
            f"must be one line without control characters (found {bad.group()!r} "
            f"at offset {bad.start()})",
        )


def _toml_key(field_name: str) -> str:
    return field_name.replace("_", "-")


def _type_name(tp: object) -> str:
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(c) for c in typing.get_args(tp))
    if origin is tuple:
        return "a list"
    if origin is dict:
        return "a table"
    if origin in (typing.Union, types.UnionType):
        names = [_type_name(a) for a in typing.get_args(tp) if a is not type(None)]
        return " or ".join(names)
    if dataclasses.is_dataclass(tp):
        return "a table"
    labels: dict[object, str] = {str: "a string", bool: "a boolean", int: "an integer"}
    return labels.get(tp, str(tp))


def _convert(value: object, tp: object, where: KeyPath, ctx: _Context) -> object:
    """Convert one TOML value to the annotated type ``tp`` or raise a ConfigError."""
    if isinstance(value, str):
        _one_line(value, where, ctx)
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        choices = typing.get_args(tp)
        if value not in choices:
            import difflib  # only for the message: a run with a valid config never loads it

            shown = ", ".join(repr(c) for c in choices)

            close = (
                difflib.get_close_matches(value, [str(c) for c in choices], n=1)
                if isinstance(value, str)
                else []
            )
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ctx.error(where, f"expected one of {shown}, got {value!r}{hint}")
        return value
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        for arg in args:
            try:
                return _convert(value, arg, where, ctx)
            except ConfigError:
                continue
        raise ctx.error(where, f"expected {_type_name(tp)}, got {value!r}")
    if origin is tuple:
        (item_type, _ellipsis) = typing.get_args(tp)
        if isinstance(value, str) and item_type is str:
            # A single string where a list is expected is a common slip; be strict.
            raise ctx.error(where, f'expected a list of strings, got a string (write ["{value}"])')
        if not isinstance(value, list):
            raise ctx.error(where, f"expected a list, got {type(value).__name__}")
        return tuple(_convert(item, item_type, (*where, i), ctx) for i, item in enumerate(value))
    if origin is dict:
        (key_type, value_type) = typing.get_args(tp)
        if not isinstance(value, dict):
            raise ctx.error(where, f"expected a table, got {type(value).__name__}")
        return {str(k): _convert(v, value_type, (*where, str(k)), ctx) for k, v in value.items()}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ctx.error(where, f"expected a table, got {type(value).__name__}")
        return build_section(tp, value, where, ctx)
    if tp is bool:
        if not isinstance(value, bool):
            raise ctx.error(where, f"expected true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ctx.error(where, f"expected an integer, got {value!r}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise ctx.error(where, f"expected a string, got {value!r}")
        return value
    raise TypeError(f"unsupported config annotation {tp!r}")  # a bug in a section declaration


def build_section(cls: type[T], table: Mapping[str, object], where: KeyPath, ctx: _Context) -> T:
    """Build dataclass ``cls`` from a TOML table, rejecting unknown keys and wrong types."""
    hints = typing.get_type_hints(cls)
    by_key = {
        _toml_key(f.name): f
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.name not in _INTERNAL_FIELDS
    }
    kwargs: dict[str, object] = {}
    for key, value in table.items():
        f = by_key.get(key)
        if f is None:
            import difflib  # only for the message: a run with a valid config never loads it

            # A close spelling only (``torch-backend`` is not ``backend``), or the key a
            # backend's own option name maps to (``no-emit-package`` -> ``exclude``).
            key_hints: dict[str, str] = getattr(cls, "KEY_HINTS", {})
            close = [key_hints[key]] if key in key_hints else []
            close = close or difflib.get_close_matches(key, list(by_key), n=1, cutoff=0.8)
            hint = (
                f"; did you mean '{close[0]}'?"
                if close
                else f"; valid keys: {', '.join(sorted(by_key))}"
            )
            raise ctx.error(where, f"unknown key '{key}'{hint}", at=(*where, key))
        kwargs[f.name] = _convert(value, hints[f.name], (*where, key), ctx)
    missing = [
        _toml_key(f.name)
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.name not in kwargs
        and f.name not in _INTERNAL_FIELDS
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise ctx.error(where, f"missing required key '{missing[0]}'")
    if "configured" in hints:
        kwargs["configured"] = True
    return cls(**kwargs)


def _upward(start: Path) -> list[Path]:
    """``start`` and its parents up to the top of the git work tree holding it (if any).

    A config above the repository (``~/pyproject.toml``) is never the repo's config.
    """
    chain: list[Path] = []
    for directory in (start, *start.parents):
        chain.append(directory)
        if (directory / ".git").exists():
            break
    else:
        return [start, *start.parents]  # not in a git work tree: the nearest one anywhere up
    return chain


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start``, not above its git work tree."""
    for directory in _upward(start):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


_PYTHON_VERSION_RE = re.compile(r"^3\.(?:[0-9]|[1-9][0-9])(?:\.(?:0|[1-9][0-9]*))?$")


def _validate_lock(lock: LockConfig, where: KeyPath, ctx: _Context) -> None:
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


def _validate(config: Config, written: tuple[LockConfig, ...], ctx: _Context) -> None:
    """Cross-field checks the types alone cannot express (``written``: locks as declared)."""
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
    _validate_pre_commit(config.pre_commit, ctx)
    for index, rule in enumerate(config.forbidden_import):
        if not rule.modules:
            raise ctx.error(
                ("tool", "policytool", "forbidden-import", index, "modules"), "modules is empty"
            )


def _validate_pre_commit(section: PreCommitConfig, ctx: _Context) -> None:
    """``rev-pattern`` values compile as regexes; ``min-rev`` values are versions."""
    table: KeyPath = ("tool", "policytool", "pre-commit")
    for url, pattern in section.rev_pattern.items():
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ctx.error(
                (*table, "rev-pattern"),
                f"{pattern!r} for {url} is not a valid regular expression ({exc})",
                at=(*table, "rev-pattern", url),
            ) from None
    if not section.min_rev:
        return
    from packaging.version import InvalidVersion, Version  # only when there is one to read

    for url, minimum in section.min_rev.items():
        try:
            Version(minimum.removeprefix("v"))
        except InvalidVersion:
            raise ctx.error(
                (*table, "min-rev"),
                f"{minimum!r} for {url} is not a version",
                at=(*table, "min-rev", url),
            ) from None


def load_config(config_path: Path | None = None, cwd: Path | None = None) -> Config:
    """Load ``[tool.policytool]`` from ``config_path`` or the nearest pyproject upward."""
    cwd = (cwd or Path.cwd()).resolve()
    if config_path is None:
        config_path = find_pyproject(cwd)
        if config_path is None:
            top = _upward(cwd)[-1]
            return Config(root=top if (top / ".git").exists() else cwd)
    config_path = config_path.resolve()
    from policytool.formats.toml import load_file

    try:
        text, data = load_file(config_path, str(config_path))
    except DecodeError as exc:
        raise ConfigError(str(exc)) from None
    except FileError as exc:
        raise ConfigError(f"{config_path}: cannot read config: {exc.reason}") from None
    except PolicyError as exc:
        raise ConfigError(str(exc)) from None
    tool = data.get("tool", {})
    table = tool.get("policytool", {}) if isinstance(tool, dict) else {}
    ctx = _Context(config_path, text)
    if not isinstance(table, dict):
        raise ctx.error(("tool", "policytool"), "[tool.policytool] must be a table")
    # Defaults that come from the rest of pyproject.toml.
    spdx_table = table.get("spdx", {})
    base = build_section(Config, table, ("tool", "policytool"), ctx)
    if isinstance(spdx_table, dict) and "spdx" in table and "license" not in spdx_table:
        project_license = _project_license(data)
        if project_license:
            _one_line(project_license, ("project", "license"), ctx)
            base = dataclasses.replace(
                base, spdx=dataclasses.replace(base.spdx, license=project_license)
            )
    config = dataclasses.replace(
        base, root=config_path.parent, source=config_path, lock=expand_variants(base.lock)
    )
    _validate(config, base.lock, ctx)
    return config


def _project_license(data: Mapping[str, object]) -> str | None:
    """``project.license`` when it is an SPDX expression string (PEP 639)."""
    project = data.get("project")
    if isinstance(project, dict):
        value = project.get("license")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def key_place(config: Config, where: KeyPath) -> tuple[str, int]:
    """(repo-relative config file, line) of the key at ``where``, for findings about it.

    The line of the key or of its nearest written parent (``formats.toml.key_lines``,
    right for repeated ``[[tables]]`` and list items), 1 when the file has no such key or
    cannot be read; the file is scanned once a run.
    """
    source = config.source
    if source is None:
        return "pyproject.toml", 1
    try:
        shown = source.relative_to(config.root).as_posix()
    except ValueError:
        shown = source.as_posix()
    lines = config.memo.value(("config.key_lines",), lambda: _key_lines_of(source))
    return shown, key_line(lines, where) or 1


def _key_lines_of(source: Path) -> dict[KeyPath, int]:
    """:func:`key_lines` of the config file (empty when it cannot be read)."""
    from policytool.core.boundary import read_bounded
    from policytool.core.text import decode_text

    try:
        return key_lines(decode_text(read_bounded(source, str(source)), str(source)))
    except PolicyError:
        return {}
