# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool init``: the files a repository without policy scaffolding gets.

A scaffold is a repo-relative path plus a function that renders its content from the
config (:class:`Scaffold`). :func:`register` adds one to :data:`SCAFFOLDS` (in
declaration order); :func:`init` writes each one that is missing and never touches an
existing path (a file, directory or symlink there is reported "exists, left alone").
To add a scaffold (CodeQL workflow, Mergify rule, pre-commit block...), write its
render function and ``register(Scaffold(path, summary, render))`` below the existing
ones.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from policytool.config import Config
from policytool.errors import PolicyError
from policytool.files import git_root, write_atomic
from policytool.lock.pr_body import BUMP_TEMPLATE, BUMP_TEMPLATE_PATH
from policytool.scaffold import ci as ci_scaffold

CREATED = "created"
EXISTS = "exists, left alone"


@dataclass(frozen=True)
class Scaffold:
    """One file ``init`` can write: where, what it is for, and its content."""

    path: str  # repo-relative, ``/``-separated
    summary: str
    render: Callable[[Config], str]


SCAFFOLDS: dict[str, Scaffold] = {}


def register(scaffold: Scaffold) -> Scaffold:
    """Add a scaffold; a path may be registered once."""
    if scaffold.path in SCAFFOLDS:
        raise ValueError(f"scaffold registered twice: {scaffold.path}")
    SCAFFOLDS[scaffold.path] = scaffold
    return scaffold


def render_bump_template(config: Config) -> str:
    """The dependency-bump PR template (the same for every config)."""
    return BUMP_TEMPLATE


register(
    Scaffold(
        path=BUMP_TEMPLATE_PATH,
        summary="PR template `policytool bump` fills: packages, why, jobs, upgrade procedure",
        render=render_bump_template,
    )
)

# pre-commit, CI, CodeQL and Mergify (policytool/scaffold/ci.py); the pre-commit config
# comes first so the Mergify block is rendered from it.
register(
    Scaffold(
        ci_scaffold.PRECOMMIT_CONFIG_PATH,
        "pre-commit config: policytool hooks, default_stages, the final suggestion hook",
        ci_scaffold.render_precommit_config,
    )
)
register(
    Scaffold(
        ci_scaffold.PRECOMMIT_WORKFLOW_PATH,
        "CI workflow running every hook with --all-files --hook-stage manual",
        ci_scaffold.render_precommit_workflow,
    )
)
register(
    Scaffold(
        ci_scaffold.CODEQL_WORKFLOW_PATH,
        "CodeQL for python (build-mode: none) on push, pull_request and weekly",
        ci_scaffold.render_codeql_workflow,
    )
)
register(
    Scaffold(
        ci_scaffold.MERGIFY_PATH,
        "Mergify rule commenting how to reproduce a pre-commit failure (with the sync block)",
        ci_scaffold.render_mergify,
    )
)


# --------------------------------------------------------------------------------------
# init
# --------------------------------------------------------------------------------------


def init_root(config: Config, cwd: Path) -> Path:
    """Where ``init`` writes: the config's directory, else the git root, else ``cwd``."""
    if config.source is not None:
        return config.root
    return git_root(cwd) or cwd


def init(root: Path, config: Config) -> list[tuple[str, str]]:
    """Write every missing scaffold under ``root``; (path, ``created`` or ``exists...``)."""
    results: list[tuple[str, str]] = []
    for scaffold in SCAFFOLDS.values():
        target = root / scaffold.path
        if os.path.lexists(target):
            results.append((scaffold.path, EXISTS))
            continue
        content = scaffold.render(config)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, content.encode("utf-8"))
        except OSError as exc:
            raise PolicyError(f"{target}: cannot create: {exc.strerror or exc}") from None
        results.append((scaffold.path, CREATED))
    return results
