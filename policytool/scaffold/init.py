# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool init``: a starting ``[tool.policytool]`` config and the scaffolding.

First the config: :mod:`policytool.scaffold.propose` reads the repository (its header
and torch.cuda hook scripts, the headers its files carry, its workflows) and each table
it has evidence for is added to ``pyproject.toml`` with tomlkit (comments and layout
kept; a table already there is left alone; ``--dry-run`` prints instead of writing).

Then the files. A scaffold is a repo-relative path plus a function that renders its content from the
config (:class:`Scaffold`). :func:`register` adds one to :data:`SCAFFOLDS` (in
declaration order); :func:`init` writes each one that is missing and never touches an
existing path (a file, directory or symlink there is reported "exists, left alone").
To add a scaffold (CodeQL workflow, Mergify rule, pre-commit block...), write its
render function and ``register(Scaffold(path, summary, render))`` below the existing
ones.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from policytool.config import Config

if TYPE_CHECKING:
    from tomlkit import TOMLDocument
    from tomlkit.items import AoT, Table

    from policytool.scaffold.propose import Table as Proposed
from policytool.core.atomic import write_atomic
from policytool.core.boundary import read_bounded, resolve_inside
from policytool.core.git import git_ls_files, git_root
from policytool.errors import PolicyError
from policytool.lock.pr_body import BUMP_TEMPLATE, BUMP_TEMPLATE_PATH
from policytool.rules._repo_config import CiConfig, PreCommitConfig
from policytool.scaffold import ci as ci_scaffold

CREATED = "created"
EXISTS = "exists, left alone"
NOT_WANTED = "left out (the repository has its own pre-commit, CI or CodeQL setup)"
NOT_REQUESTED = "offered: `policytool init --schedule` writes it"
WOULD_CREATE = "would be created"


def _fresh(root: Path, config: Config) -> bool:
    """A repository without its own pre-commit config or workflows: it gets everything."""
    return (
        not (root / config.section(PreCommitConfig).file).exists()
        and not (root / ".github" / "workflows").is_dir()
    )


def _always(root: Path, config: Config) -> bool:
    """Wanted in every repository."""
    return True


def _codeql_wanted(root: Path, config: Config) -> bool:
    """The CodeQL workflow: fresh repositories, or ``[tool.policytool.ci] codeql = "workflow"``."""
    return config.section(CiConfig).codeql == "workflow" or (
        config.section(CiConfig).codeql is None and _fresh(root, config)
    )


def _mergify_wanted(root: Path, config: Config) -> bool:
    """The Mergify rule: fresh repositories without a Mergify config under any of the
    names Mergify reads (a second one would stop Mergify evaluating pull requests)."""
    from policytool.formats.mergify import find_mergify

    return _fresh(root, config) and find_mergify(root) is None


@dataclass(frozen=True)
class Scaffold:
    """One file ``init`` can write: where, what it is for, its content, and whether here."""

    path: str  # repo-relative, ``/``-separated
    summary: str
    render: Callable[[Config], str]
    # Whether the repository wants it: a repository with its own CI setup does not get
    # a second pre-commit workflow or a Mergify rule it never asked for.
    wanted: Callable[[Path, Config], bool] = _always
    # Written only when asked for (``init --schedule``): a workflow that opens pull
    # requests on its own is the maintainer's decision, not a default.
    on_request: bool = False


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
        # With its workflow only: a repository with CI of its own and no pre-commit
        # config does not use pre-commit, and nothing would run this one.
        _fresh,
    )
)
register(
    Scaffold(
        ci_scaffold.PRECOMMIT_WORKFLOW_PATH,
        "CI workflow running every hook with --all-files --hook-stage manual",
        ci_scaffold.render_precommit_workflow,
        _fresh,
    )
)
register(
    Scaffold(
        ci_scaffold.CODEQL_WORKFLOW_PATH,
        "CodeQL for python (build-mode: none) on push, pull_request and weekly",
        ci_scaffold.render_codeql_workflow,
        _codeql_wanted,
    )
)
register(
    Scaffold(
        ci_scaffold.MERGIFY_PATH,
        "Mergify rule commenting how to reproduce a pre-commit failure (with the sync block)",
        ci_scaffold.render_mergify,
        _mergify_wanted,
    )
)
register(
    Scaffold(
        ci_scaffold.BUMP_WORKFLOW_PATH,
        "weekly workflow: `policytool outdated`, then `bump` and a pull request per package",
        ci_scaffold.render_bump_workflow,
        on_request=True,
    )
)


# --------------------------------------------------------------------------------------
# init
# --------------------------------------------------------------------------------------


def init_root(config: Config, cwd: Path) -> Path:
    """Where ``init`` writes: the config's directory, else the git root, else ``cwd``.

    A pyproject.toml found above the git work tree belongs to another project: the git
    root is used then, so init never writes into a parent directory's project.
    """
    top = git_root(cwd)
    if config.source is not None and (
        top is None or config.root == top or top in config.root.parents
    ):
        return config.root
    return top or cwd


def scaffold_targets(root: Path) -> dict[str, Path]:
    """Where each scaffold would be written, symlinks followed; BoundaryError if outside.

    A committed ``.github -> ../outside`` link must not make ``init`` write (or create a
    directory) outside the repository: every path is checked before anything is written.
    """
    return {path: resolve_inside(root, path, "init") for path in SCAFFOLDS}


def init(
    root: Path, config: Config, dry_run: bool = False, schedule: bool = False
) -> list[tuple[str, str]]:
    """Write every missing scaffold under ``root``; (path, ``created`` or why not).

    ``schedule``: also the scaffolds written only on request (the bump workflow).
    """
    results: list[tuple[str, str]] = []
    # Decided before anything is written: the pre-commit config written first must not
    # make the repository look like one with its own CI setup to the later scaffolds.
    wanted = {path: scaffold.wanted(root, config) for path, scaffold in SCAFFOLDS.items()}
    targets = scaffold_targets(root)  # every target checked before the first write
    for scaffold in SCAFFOLDS.values():
        target = targets[scaffold.path]
        if os.path.lexists(root / scaffold.path):
            results.append((scaffold.path, EXISTS))
            continue
        if not wanted[scaffold.path]:
            results.append((scaffold.path, NOT_WANTED))
            continue
        if scaffold.on_request and not schedule:
            results.append((scaffold.path, NOT_REQUESTED))
            continue
        if dry_run:
            results.append((scaffold.path, WOULD_CREATE))
            continue
        content = scaffold.render(config)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, content.encode("utf-8"))
        except OSError as exc:
            raise PolicyError(f"{target}: cannot create: {exc.strerror or exc}") from None
        results.append((scaffold.path, CREATED))
    return results


# --------------------------------------------------------------------------------------
# the starting config
# --------------------------------------------------------------------------------------

PYPROJECT = "pyproject.toml"


def _tracked(root: Path) -> list[str]:
    """The repository's tracked files (none outside a git work tree)."""
    if git_root(root) is None:
        return []
    return git_ls_files(root)


def _toml_item(table: Proposed) -> Table | AoT:
    """The tomlkit item of a proposed table: a table, or ``[[...]]`` entries."""
    import tomlkit

    if not table.entries:
        return _toml_table(table.values, table.note)
    entries = tomlkit.aot()
    for entry in table.entries:
        entries.append(_toml_table(entry, table.note))
    return entries


def _toml_table(values: dict[str, object], note: str) -> Table:
    """A tomlkit table of ``values`` with a ``# policytool init: note`` line above its keys."""
    import tomlkit

    item = tomlkit.table()
    item.add(tomlkit.comment(f"policytool init: {note}"))
    for key, value in values.items():
        if isinstance(value, list) and len(value) > 2:
            array = tomlkit.array()
            array.multiline(True)
            array.extend(value)
            item.add(key, array)
        else:
            item.add(key, value)
    return item


def write_config(root: Path, config: Config, dry_run: bool = False) -> tuple[list[str], str]:
    """Add the proposed tables to ``pyproject.toml``; (report lines, the TOML added).

    Tables already under ``[tool.policytool]`` are left alone; nothing else in the file
    changes (tomlkit keeps comments and layout). A missing pyproject.toml is created
    with only the ``[tool.policytool]`` tables.
    """
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    from policytool.scaffold.propose import propose

    # The pre-commit config init writes (a fresh repository): its invariants configured.
    scaffolded = not os.path.lexists(root / config.section(PreCommitConfig).file) and _fresh(
        root, config
    )
    proposal = propose(dataclasses.replace(config, root=root), _tracked(root), scaffolded)
    path = root / PYPROJECT
    exists = os.path.lexists(path)
    try:
        text = (
            read_bounded(resolve_inside(root, PYPROJECT, PYPROJECT), PYPROJECT).decode("utf-8")
            if exists
            else ""
        )
        doc = tomlkit.parse(text)
    except UnicodeDecodeError:
        raise PolicyError(f"{PYPROJECT}: not valid UTF-8; init changed nothing") from None
    except TOMLKitError as exc:
        raise PolicyError(f"{PYPROJECT}: invalid TOML ({exc}); init changed nothing") from None
    existing = doc.unwrap().get("tool", {})
    ours = existing.get("policytool", {}) if isinstance(existing, dict) else {}
    ours = ours if isinstance(ours, dict) else {}
    # [tool.policytool] written as a table of its own: its new keys go in with tomlkit,
    # since a second header would be invalid; everything else is appended as text.
    own_table = any(not isinstance(v, dict) for v in ours.values())
    lines: list[str] = []
    appended = tomlkit.document()
    shown = tomlkit.document()
    count = 0
    for table in proposal.tables:
        header = f"[tool.policytool.{table.name}]" if table.name else "[tool.policytool]"
        keys = list(table.values) if not table.name else [table.name]
        if any(key in ours for key in keys):
            shown_keys = "" if table.name else " " + ", ".join(keys)
            lines.append(f"{PYPROJECT} {header}{shown_keys}: {EXISTS}")
            continue
        item = _toml_item(table)
        _add(shown, table.name, item)
        if not table.name and own_table and isinstance(item, dict):
            target = doc["tool"]["policytool"]
            for key, value in item.items():
                target[key] = value
        else:
            _add(appended, table.name, _toml_item(table))
        count += 1
        verb = "would add" if dry_run else "added"
        lines.append(f"{PYPROJECT} {header}: {verb} ({table.note})")
    if not proposal.tables:
        lines.append(f"{PYPROJECT}: no policy found to propose; every opt-in rule stays off")
    lines.extend(f"{PYPROJECT}: note: {hint}" for hint in proposal.hints)
    if dry_run or not count:
        return lines, tomlkit.dumps(shown) if count else ""
    new = tomlkit.dumps(doc)
    tail = tomlkit.dumps(appended)
    if tail:
        new = (new.rstrip("\n") + "\n\n" if new.strip() else "") + tail
    try:
        tomlkit.parse(new)
    except TOMLKitError as exc:  # a layout this merge cannot express: nothing is written
        raise PolicyError(
            f"{PYPROJECT}: cannot add the proposed tables ({exc}); init changed nothing; "
            "`policytool init --dry-run` prints them to paste"
        ) from None
    target = resolve_inside(root, PYPROJECT, PYPROJECT) if exists else path
    try:
        write_atomic(target, new.encode("utf-8"))
    except OSError as exc:
        reason = exc.strerror or exc
        raise PolicyError(f"{PYPROJECT}: cannot write: {reason}; init changed nothing") from None
    return lines, tomlkit.dumps(shown)


def _add(doc: TOMLDocument, name: str, item: Table | AoT) -> None:
    """Add ``[tool.policytool.NAME]`` (``[tool.policytool]`` keys for "") to a new document."""
    import tomlkit

    tool = doc.get("tool")
    if tool is None:
        tool = tomlkit.table(is_super_table=True)
        doc.add("tool", tool)
    ours = tool.get("policytool")
    if ours is None:
        ours = tomlkit.table(is_super_table=True)
        tool.add("policytool", ours)
    if name:
        ours.add(name, item)
    elif isinstance(item, dict):
        for key, value in item.items():
            ours.add(key, value)
