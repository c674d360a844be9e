# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The config sections of the CI pinning rules: ``[tool.policytool.ci-floating-install]``
(``ci-floating-install``) and ``[tool.policytool.action-pin]`` (``action-pin``).

Declared apart from the rule modules so that reading the configuration imports no rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from policytool.config import KeyDoc, document, register_section


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
        "**/Dockerfile-*",
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


register_section("ci-floating-install", CiFloatingInstallConfig)


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
        "**/Dockerfile-*",
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


register_section("action-pin", ActionPinConfig)
