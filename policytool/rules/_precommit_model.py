# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What the ``precommit-*`` rules share: their triggers, and the fix of the
``.pre-commit-config.yaml`` each fixer returns with its verification (re-parse, same
hooks, pre-commit's schema still accepts it); the engine applies it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext
from policytool.errors import FileProblem, YamlError
from policytool.formats.precommit import Model, build_model, schema_problem
from policytool.formats.precommit import usable_model as model_at
from policytool.rules._repo_config import PreCommitConfig

if TYPE_CHECKING:
    from policytool.engine.fixes import Fix


def precommit_triggers(config: Config) -> Sequence[str]:
    """The pre-commit config and pyproject.toml (where the rules' settings live)."""
    return (config.section(PreCommitConfig).file, "pyproject.toml")


def usable_model(config: Config) -> Model | None:
    """The model of the configured pre-commit config for rules that need a valid one;
    None if absent or invalid (memoized for the run)."""
    return model_at(config.root, config.section(PreCommitConfig).file, config.memo)


def verify_same_hooks(old: Model, text: str) -> Model | None:
    """The re-parsed model when ``text`` has exactly the hooks of ``old`` (order aside)."""
    try:
        doc = old.doc.reparsed(text)
        new = build_model(doc)
    except (YamlError, FileProblem):
        return None
    if sorted((h.id, h.repo) for h in new.hooks) != sorted((h.id, h.repo) for h in old.hooks):
        return None
    if schema_problem(doc) is not None:
        return None
    return new


def config_fix(
    model: Model, text: str, description: str, holds: Callable[[Model], bool] | None = None
) -> Fix:
    """The fix turning the config as read into ``text`` (one edit, its differing middle).

    Its verification: the file is still the text ``model`` was read from, and the new
    text passes :func:`verify_same_hooks` and ``holds`` (what the fix set out to do).
    """
    from policytool.engine.fixes import Edit, Fix  # only a fix run builds edits

    def verify(old: str, new: str) -> str | None:
        """None when the new text has the same hooks and does what the fix meant to."""
        if old != model.doc.text:
            return "changed since it was read; run the fix again"
        checked = verify_same_hooks(model, new)
        if checked is None:
            return "the edit would change the hooks or break the config"
        if holds is not None and not holds(checked):
            return "the edit would not mend the finding"
        return None

    return Fix(description, (Edit.between(model.relpath, model.doc.text, text),), verify)


def applier(
    fixes: Callable[[RepoContext], Iterable[Finding]],
) -> Callable[[RepoContext], list[str]]:
    """A function applying ``fixes``' fixes the way ``policytool fix`` does (the engine's
    :func:`~policytool.engine.fixes.apply_fixes`, the one write path), for a caller
    outside a run; it returns the paths changed."""

    def apply(ctx: RepoContext) -> list[str]:
        from policytool.engine.fixes import apply_fixes

        return apply_fixes(ctx.root, [f.fix for f in fixes(ctx) if f.fix is not None]).changed

    return apply
