# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The config sections the pre-commit and CI rules share: ``[tool.policytool.pre-commit]``
(the ``precommit-*`` rules, ``ci-hook-stage``, ``mypy-wired``, ``mergify-drift``),
``[tool.policytool.mergify]`` (``mergify-drift``, ``ci-floating-install``, ``sync``) and
``[tool.policytool.ci]`` (``ci-hook-stage``, ``codeql-workflow``, ``mergify-drift``).

Declared apart from the rule modules so that reading the configuration imports no rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from policytool.config import Config, ConfigContext, KeyDoc, document, register_section
from policytool.engine.registry import Prefetch, register_prefetch
from policytool.formats.toml import KeyPath

# What pre-commit's manual stage means in a repo, and how a repo runs CodeQL.
ManualStage = Literal["ci", "opt-in"]
CodeqlSetup = Literal["workflow", "default-setup"]


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


def _finish_pre_commit(
    entries: tuple[PreCommitConfig, ...], ctx: ConfigContext
) -> tuple[PreCommitConfig, ...]:
    """``rev-pattern`` values compile as regexes; ``min-rev`` values are versions."""
    table: KeyPath = ("tool", "policytool", "pre-commit")
    for section in entries:
        _check_revs(section, table, ctx)
    return entries


def _check_revs(section: PreCommitConfig, table: KeyPath, ctx: ConfigContext) -> None:
    """Raise on the first ``rev-pattern`` that is no regex or ``min-rev`` that is no version."""
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


register_section("pre-commit", PreCommitConfig, finish=_finish_pre_commit)


@dataclass(frozen=True)
class MergifyConfig:
    """``[tool.policytool.mergify]``: where the pre-commit failure comment lives."""

    # None: the file Mergify reads (formats.mergify.MERGIFY_FILES); see mergify_file().
    file: str | None = None
    # The rule whose comment carries the pre-commit tip. None: every rule whose comment
    # gives ``pre-commit run`` instructions (and one named comment-pre-commit-failure).
    rule: str | None = None
    # Checks reported by apps other than this repo's workflows, as globs, besides the
    # built-in well-known apps (DCO, Buildkite...; rules/mergify_drift.py).
    external_checks: tuple[str, ...] | None = None


document(
    MergifyConfig,
    "The `mergify-drift` rule and `policytool sync`.",
    {
        "file": KeyDoc(
            "path",
            "the Mergify config",
            "not set: the file Mergify reads, the first of `.mergify.yml`, `.mergify.yaml`, "
            "`.mergify/config.yml`, `.mergify/config.yaml`, `.github/mergify.yml` and "
            "`.github/mergify.yaml` that exists (`.github/mergify.yml` when none does)",
        ),
        "rule": KeyDoc(
            "string",
            "the name of the rule whose comment message carries the pre-commit tip (it must exist)",
            "not set: every rule whose comment gives `pre-commit run` instructions, and "
            "one named `comment-pre-commit-failure` if there is one",
        ),
        "external-checks": KeyDoc(
            "list of globs",
            "checks reported by other apps than the built-in ones (DCO, Buildkite, Codecov, "
            "Read the Docs...), known besides the workflows' jobs when every rule's "
            "`check-*` conditions are compared with them",
            "not set: only the built-in apps",
        ),
    },
)


register_section("mergify", MergifyConfig)

# Where ``init`` and ``sync`` write a Mergify config when the repository has none.
MERGIFY_DEFAULT = ".github/mergify.yml"


def mergify_file(config: Config) -> str:
    """The Mergify config the rules read: ``[tool.policytool.mergify] file``, else the one
    Mergify itself reads (the first of its names that exists), else :data:`MERGIFY_DEFAULT`."""
    from policytool.formats.mergify import find_mergify

    configured = config.section(MergifyConfig).file
    if configured is not None:
        return configured
    return find_mergify(config.root) or MERGIFY_DEFAULT


def mergify_triggers(config: Config) -> tuple[str, ...]:
    """The paths whose change can change what :func:`mergify_file` reads."""
    from policytool.formats.mergify import MERGIFY_FILES

    configured = config.section(MergifyConfig).file
    return (configured,) if configured is not None else MERGIFY_FILES


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
            "not set: a CodeQL workflow for python is checked except for its triggers; "
            "without one the rule is quiet (`policytool init` prints how to choose)",
        ),
    },
)


register_section("ci", CiConfig)


def _start_schema_check(config: Config) -> None:
    """Start pre-commit's verdict on the configured pre-commit config in a child."""
    from policytool.formats.precommit import prefetch_schema

    prefetch_schema(config.root, config.section(PreCommitConfig).file, config.memo)


def _end_schema_check(config: Config) -> None:
    """Reap that child if no rule asked for its answer."""
    from policytool.formats.precommit import end_prefetch

    end_prefetch(config.memo)


register_prefetch(Prefetch(_start_schema_check, _end_schema_check))
