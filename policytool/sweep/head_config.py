# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The configuration a sweep of ``--head REV`` (or ``--staged``) reads: ``[tool.policytool]``
as REV (or the index) has it.

The sweep judges REV's files, so it reads REV's exclude globs, test paths and target
Python too, not the work tree's (which may be another branch, or a tip whose
``pyproject.toml`` no longer parses while the older commit's did). The work tree only
says which ``pyproject.toml`` is meant (:func:`policytool.config.find_pyproject`, else the
one at the git root); its text comes from the commit, bounded like any config file. A
commit (or index) without that file as a regular file (absent, or a link, which is not
followed) has the defaults. ``--config FILE`` still reads FILE as it is.
"""

from __future__ import annotations

from pathlib import Path

from policytool.config import Config, config_from_document, find_pyproject, load_config
from policytool.core.boundary import MAX_CONFIG_BYTES
from policytool.core.git import git_root
from policytool.core.text import decode_text
from policytool.errors import ConfigError, PolicyError
from policytool.formats import toml
from policytool.sweep.diff import Head, HeadFiles, HeadKind, resolve_head


def load_config_of(head: Head, cwd: Path | None = None) -> Config:
    """``[tool.policytool]`` of the ``pyproject.toml`` the work tree points at, as the
    ``head`` swept has it: a commit (``--head REV``) or the index (``--staged``); the work
    tree's own for the work tree. The defaults when the head has no such file; outside
    git, or a pyproject outside the work tree: the work tree's, as :func:`load_config`
    reads it."""
    cwd = (cwd or Path.cwd()).resolve()
    root = git_root(cwd)
    if root is None or head.kind is HeadKind.WORKTREE:
        return load_config(None, cwd)
    head = resolve_head(root, head)  # REV's sha; an unmerged index is refused here
    found = find_pyproject(cwd)
    source = found.resolve() if found is not None else root / "pyproject.toml"
    if not source.is_relative_to(root):
        return load_config(None, cwd)
    relative = source.relative_to(root).as_posix()
    # git's own spelling: ``REV:path`` in a commit, ``:path`` in the index
    shown = f"{head.rev}:{relative}" if head.kind is HeadKind.REV else f":{relative}"
    files = HeadFiles(root, head, [relative])
    size = files.sizes.get(relative)
    if size is None:
        return Config(root=source.parent)
    if size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{shown}: {size} bytes, over the {MAX_CONFIG_BYTES}-byte limit")
    data = files.read([relative])[relative]
    if data is None:
        return Config(root=source.parent)
    try:
        text = decode_text(data, shown)
        document = toml.loads(text, shown)
    except PolicyError as exc:  # undecodable bytes, invalid TOML: one sentence naming it
        raise ConfigError(str(exc)) from None
    return config_from_document(text, document, source, Path(shown))
