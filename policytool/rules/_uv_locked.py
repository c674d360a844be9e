# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``uv sync`` / ``uv run`` in CI that may re-resolve ``uv.lock`` (part of ``ci-floating-install``).

Both commands lock before they install: when ``uv.lock`` no longer matches
``pyproject.toml`` (a PR changed a dependency and did not run ``uv lock``), uv resolves
again and installs whatever is newest, and the stale lock is merged. ``--locked`` makes
that an error, ``--frozen`` installs the lock as written; the ``UV_LOCKED`` /
``UV_FROZEN`` variables do the same for every command that sees them. A command is only
judged in a uv project that commits its lock (a ``uv.lock`` in its directory or one
above it, inside the repository), and the repository as a whole is left alone when some
CI step already checks the lock (:func:`lock_checked`): then a stale lock fails that
step, and the others run what the lock says once it is fixed.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from policytool.core.boundary import resolve_inside
from policytool.errors import PolicyError
from policytool.formats import shell

# Variables that settle what a uv project command installs (``UV_NO_SYNC`` only for run).
SETTLING_VARIABLES = frozenset({"UV_LOCKED", "UV_FROZEN"})
_RUN_SETTLING_VARIABLES = SETTLING_VARIABLES | {"UV_NO_SYNC"}
# Flags that keep the lock as it is: ``sync --check`` / ``--dry-run`` install nothing; a
# ``run`` without the project (``--no-project``, ``--script``) or its sync does not lock.
_SETTLING_FLAGS = frozenset({"--locked", "--frozen"})
_SYNC_SETTLING = _SETTLING_FLAGS | {"--check", "--dry-run"}
_RUN_SETTLING = _SETTLING_FLAGS | {"--no-sync", "--no-project", "--script", "-s"}
# Options of ``uv``, ``uv sync`` and ``uv run`` that take a value (the next word).
_VALUE_OPTIONS = frozenset(
    """
    --directory --project --extra --no-extra --group --no-group --only-group --package
    --with --with-editable --with-requirements --env-file --python -p --index
    --default-index --index-url -i --extra-index-url --find-links -f --upgrade-package -P
    --reinstall-package --no-build-isolation-package --no-binary-package
    --only-binary-package --no-build-package --config-setting -C --resolution --prerelease
    --index-strategy --keyring-provider --exclude-newer --link-mode --python-platform
    --cache-dir --config-file --color --allow-insecure-host --refresh-package --module -m
    --no-install-package --fork-strategy --python-preference --torch-backend
    --output-format --script-path
    """.split()
)
_PROJECT_OPTIONS = frozenset({"--directory", "--project"})
# How many directories deep a project's lock is looked for (the PR writes the path).
MAX_PROJECT_DEPTH = 32
# A CI line that checks the lock: ``uv lock --check``, any uv command with ``--locked``,
# ``UV_LOCKED`` set, or pre-commit's ``uv-lock`` hook (it fails when it rewrites the lock).
_LOCK_CHECK_RE = re.compile(
    rb"\buv\b[^\n]*?\s--locked\b|\buv\s+lock\b[^\n]*?\s--check\b|\bUV_LOCKED\b"
    rb"|\bid:\s*['\"]?uv-lock\b"
)
_SETTLED_RE = re.compile(rb"\bUV_(?:FROZEN|NO_SYNC)\b")
# ``echo "UV_FROZEN=1" >> "$GITHUB_ENV"``: a step that sets a variable for the job's
# later steps.
_GITHUB_ENV_RE = re.compile(r"\b(UV_[A-Z_]+)=[^\n]*\bGITHUB_ENV\b")
_OFF_VALUES = frozenset({"", "0", "false", "no", "off"})


@dataclass(frozen=True)
class UvProjectCommand:
    """``uv sync`` or ``uv run`` as one command runs it."""

    command: shell.Command
    verb: shell.Word  # the ``sync`` / ``run`` word (the fix writes ``--locked`` after it)
    directory: str | None  # ``--directory``/``--project`` value ("" without), None if dynamic
    settled: bool  # a flag or a variable on the command itself keeps the lock as it is


def set_names(env: Mapping[str, object] | None) -> frozenset[str]:
    """The names an ``env:`` mapping (or a Dockerfile's ARG/ENV scope) sets to a value
    that is not off (``UV_FROZEN: "0"`` is off; an expression counts as set)."""
    if not env:
        return frozenset()
    return frozenset(
        str(name)
        for name, value in env.items()
        if str(value if value is not None else "").strip().lower() not in _OFF_VALUES
    )


def exported_names(texts: Iterable[str]) -> frozenset[str]:
    """The ``UV_*`` names steps write to ``$GITHUB_ENV`` (set for the job's later steps)."""
    return frozenset(m.group(1) for text in texts for m in _GITHUB_ENV_RE.finditer(text))


def _assigned(words: Sequence[shell.Word], names: frozenset[str]) -> bool:
    """Whether one of ``words`` is ``NAME=value`` for one of ``names`` (not off)."""
    for word in words:
        name, eq, value = word.value.partition("=")
        if eq and name in names and value.strip().lower() not in _OFF_VALUES:
            return True
    return False


def script_settles(command: shell.Command) -> frozenset[str]:
    """The ``UV_*`` names a command sets for the commands after it in the script
    (``export UV_FROZEN=1``, a bare ``UV_LOCKED=1``)."""
    values = [w.value for w in command.words]
    if values and values[0] != "export":
        return frozenset()
    words = [*command.assignments, *command.words[1:]]
    names = {w.value.partition("=")[0] for w in words if "=" in w.value}
    return frozenset(n for n in names if n.startswith("UV_") and _assigned(words, frozenset({n})))


def uv_project_command(command: shell.Command) -> UvProjectCommand | None:
    """The ``uv sync`` / ``uv run`` (also ``python -m uv ...``) ``command`` runs, if any."""
    words = shell.unwrap(command)
    if not words or words[0].dynamic:
        return None
    program = words[0].value.rsplit("/", 1)[-1]
    index = 1
    if program != "uv":
        if not shell.PYTHON_RE.fullmatch(program):
            return None
        found = shell.python_module([w.value for w in words], 1)
        if found is None or found[0] != "uv":
            return None
        index = found[1]
    directory: str | None = ""
    verb: shell.Word | None = None
    settled = False
    while index < len(words):
        word = words[index]
        value = word.value
        index += 1
        if word.dynamic:
            return None  # ``uv sync ${{ inputs.args }}``: the flags are decided at run time
        if verb is None and not value.startswith("-"):
            if value not in ("sync", "run"):
                return None
            verb = word
            continue
        if not value.startswith("-"):
            if verb is not None and verb.value == "run":
                break  # ``uv run CMD ...``: the rest is the command's own
            continue  # ``sync`` takes no positional word (uv refuses one): read on
        option, eq, inline = value.partition("=")
        # The word after an option that takes a value is that value, unless it is an
        # option itself: uv (clap) refuses ``--directory --locked`` ("a value is
        # required"), so ``--locked`` there is still read as the flag.
        following = words[index] if index < len(words) else None
        if following is not None and following.value.startswith("-"):
            following = None
        if option in _PROJECT_OPTIONS:
            given = word if eq else following
            if given is None or given.dynamic:
                directory = None
            elif directory is not None:
                text = inline if eq else given.value
                directory = posixpath.join(directory, text) if directory else text
        if verb is not None and option in (
            _SYNC_SETTLING if verb.value == "sync" else _RUN_SETTLING
        ):
            settled = True
        if not eq and option in _VALUE_OPTIONS and following is not None:
            index += 1
    if verb is None:
        return None
    names = _RUN_SETTLING_VARIABLES if verb.value == "run" else SETTLING_VARIABLES
    settled = settled or _assigned((*command.assignments, *command.words), names)
    return UvProjectCommand(command, verb, directory, settled)


def settling_names(verb: str) -> frozenset[str]:
    """The variables that keep the lock as it is for ``uv VERB``."""
    return _RUN_SETTLING_VARIABLES if verb == "run" else SETTLING_VARIABLES


def committed_lock(root: Path, cwd: str, directory: str) -> str | None:
    """The ``uv.lock`` a uv project command run in ``cwd`` with ``--directory`` /
    ``--project`` ``directory`` uses: in that directory or the nearest one above it (a
    workspace member syncs the workspace's lock), never above the repository root; None
    when there is none (a project that does not commit its lock is not judged)."""
    joined = posixpath.normpath(posixpath.join(cwd, directory)) if (cwd or directory) else "."
    if joined.startswith("../") or joined == ".." or posixpath.isabs(joined):
        return None
    parts = [] if joined == "." else joined.split("/")
    if len(parts) > MAX_PROJECT_DEPTH:
        return None  # deeper than any project: not looked up (each level costs a stat)
    while True:
        relpath = "/".join([*parts, "uv.lock"])
        try:
            if resolve_inside(root, relpath, relpath).is_file():
                return relpath
        except PolicyError:
            return None  # a symlink out of the repository: not read
        if not parts:
            return None
        parts.pop()


def lock_checked(texts: Iterable[bytes]) -> bool:
    """Whether some CI text checks the lock (:data:`_LOCK_CHECK_RE`): the repository's
    workflows, actions, pipelines, scripts and pre-commit config."""
    return any(_LOCK_CHECK_RE.search(text) for text in texts)


def settled_somewhere(texts: Iterable[bytes]) -> bool:
    """Whether some CI text sets ``UV_FROZEN`` or ``UV_NO_SYNC``: a script or Dockerfile
    may run with them, from a workflow step this rule cannot tie it to."""
    return any(_SETTLED_RE.search(text) for text in texts)
