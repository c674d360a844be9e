# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What the ``precommit-*`` rules share: their triggers, and the check every fixer of the
``.pre-commit-config.yaml`` runs on its edit before writing it (re-parse, same hooks,
pre-commit's schema still accepts it)."""

from __future__ import annotations

from collections.abc import Sequence

from policytool.config import Config
from policytool.core.text import split_lines
from policytool.errors import FileProblem, YamlError
from policytool.formats.precommit import Model, build_model, schema_problem
from policytool.formats.yamldoc import YamlDoc, parse_text


def precommit_triggers(config: Config) -> Sequence[str]:
    """The pre-commit config and pyproject.toml (where the rules' settings live)."""
    return (config.pre_commit.file, "pyproject.toml")


def verify_same_hooks(old: Model, text: str) -> Model | None:
    """The re-parsed model when ``text`` has exactly the hooks of ``old`` (order aside)."""
    try:
        doc = YamlDoc(
            old.doc.relpath,
            old.doc.path,
            old.doc.raw,
            text,
            parse_text(text, old.relpath),
            split_lines(text),
        )
        new = build_model(doc)
    except (YamlError, FileProblem):
        return None
    if sorted((h.id, h.repo) for h in new.hooks) != sorted((h.id, h.repo) for h in old.hooks):
        return None
    if schema_problem(doc) is not None:
        return None
    return new
