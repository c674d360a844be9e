# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``precommit-config``: the ``.pre-commit-config.yaml`` parses round-trip and
pre-commit's own schema accepts it (``pre_commit.clientlib.CONFIG_SCHEMA``, imported
lazily; when pre-commit is not installed the schema step is skipped with a warning).

The other ``precommit-*`` rules look only at a config that passes this one. With no
``.pre-commit-config.yaml`` in the repo it reports nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from policytool.engine.findings import Finding, Severity
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import FileProblem
from policytool.formats.precommit import (
    Hook,
    Model,
    load_model,
    normalize_url,
    pre_commit_importable,
    schema_warnings,
)
from policytool.formats.yamldoc import key_line
from policytool.rules._precommit_model import precommit_triggers
from policytool.rules._repo_config import PreCommitConfig

RULE_ID = "precommit-config"
SUMMARY = "the .pre-commit-config.yaml parses and pre-commit's own schema accepts it"


def check_config(ctx: RepoContext) -> Iterator[Finding]:
    """The config parses and pre-commit's schema accepts it."""
    try:
        model = load_model(ctx.root, ctx.config.section(PreCommitConfig).file, memo=ctx.config.memo)
    except FileProblem as exc:
        # Every other pre-commit and CI-hook rule is blind while this stands: never accepted.
        yield Finding(exc.relpath, exc.line, 1, RULE_ID, exc.message, acceptable=False)
        return
    if model is None:
        return
    for duplicate in model.doc.duplicates:
        yield Finding(
            model.relpath,
            duplicate.line,
            1,
            RULE_ID,
            f"`{duplicate.key}` is written twice (first at line {duplicate.first}): pre-commit "
            "reads only the last one and ignores the other; write it once",
        )
    yield from _twice(model)
    for hook in model.hooks:
        script = hook.entry_script()
        if script is not None and not (ctx.root / script).exists():
            yield Finding(
                model.relpath,
                key_line(hook.node, "entry", hook.line),
                1,
                RULE_ID,
                f"hook '{hook.id}' runs {script}, which does not exist",
            )
    for warning in schema_warnings(model, ctx.config.memo):
        yield Finding(
            model.relpath,
            warning.line,
            1,
            RULE_ID,
            warning.message,
            severity=Severity.WARNING if warning.deprecated else Severity.ERROR,
        )
    if not pre_commit_importable():
        yield Finding(
            model.relpath,
            1,
            1,
            RULE_ID,
            "pre-commit is not installed here, so its schema was not checked "
            "(`pip install pre-commit`)",
            severity=Severity.WARNING,
        )


# Arguments that only make a run fix what it finds: the rest of the run is the same check.
FIX_FLAGS = frozenset(
    {
        "--fix",
        "--fix-only",
        "--exit-non-zero-on-fix",
        "--unsafe-fixes",
        "--show-fixes",
        "--write",
        "--write-changes",
        "-w",
        "--in-place",
        "--inplace",
        "--autofix",
    }
)
# Keys that give a hook's entry a run of its own: other files, file types or stages.
_OWN_RUN_KEYS = ("files", "types", "types_or", "stages")
# Keys that only label an entry; a "bare" entry has nothing else besides its ``id``.
_LABEL_KEYS = frozenset({"id", "name"})


def _fix_run(hook: Hook) -> bool:
    """Whether ``hook``'s only settings are fix flags: the fix half of a fix-then-check pair."""
    keys = set(hook.node) - _LABEL_KEYS
    args = hook.text_list("args")
    return keys == {"args"} and bool(args) and all(arg in FIX_FLAGS for arg in args)


def _bare_copy_of(bare: Hook, other: Hook) -> list[str] | None:
    """The settings of ``other`` that the bare entry ``bare`` drops, when ``bare`` is a copy
    that lost them: None when ``bare`` is not bare, when ``other`` is the fix run of a
    fix-then-check pair (``ruff --fix``, then ``ruff``), or when ``other`` has a run of its own
    (other ``files``, ``types`` or ``stages``: a narrowed extra run)."""
    if set(bare.node) - _LABEL_KEYS:
        return None
    dropped = sorted(set(other.node) - _LABEL_KEYS)
    if not dropped or _fix_run(other) or any(key in other.node for key in _OWN_RUN_KEYS):
        return None
    return dropped


def _second_entry(earlier: Hook, hook: Hook) -> tuple[int, str] | None:
    """(line, message) when ``hook`` lists ``earlier``'s hook again by mistake."""
    if dict(earlier.node) == dict(hook.node):
        return hook.line, (
            f"hook '{hook.id}' is listed twice with the same settings (first at line "
            f"{earlier.line}): pre-commit runs it twice; remove one"
        )
    for bare, other in ((hook, earlier), (earlier, hook)):
        dropped = _bare_copy_of(bare, other)
        if dropped is not None:
            names = ", ".join(f"`{name}`" for name in dropped)
            them = "them" if len(dropped) > 1 else "it"
            return bare.line, (
                f"hook '{hook.id}' is listed twice: the bare entry drops the {names} of its "
                f"entry at line {other.line}, so pre-commit runs it twice, once without {them}; "
                "remove the bare one"
            )
    return None


def _twice(model: Model) -> Iterator[Finding]:
    """A hook listed again (same repository, id and alias) with the same settings, or as a
    bare ``- id:`` line that drops the settings of its other entry."""
    first: dict[tuple[str, str, str], list[Hook]] = {}
    for hook in model.hooks:
        key = (normalize_url(hook.repo), hook.id, hook.text("alias"))
        for earlier in first.get(key, []):
            found = _second_entry(earlier, hook)
            if found is not None:
                yield Finding(model.relpath, found[0], 1, RULE_ID, found[1])
                break
        first.setdefault(key, []).append(hook)


DOC = """\
## What it checks

The `.pre-commit-config.yaml` (`[tool.policytool.pre-commit] file`) as pre-commit itself
reads it:

- it parses as YAML and pre-commit's own schema (`pre_commit.clientlib.CONFIG_SCHEMA`,
  through cfgv) accepts it; the finding names the line of the offending key. While the
  file does not parse or is rejected, the other `precommit-*` and CI-hook rules cannot
  look at it, so `policytool baseline` never accepts that finding;
- a key written twice (two `repos:`, two `rev:` in one repo): pre-commit reads the last
  one and `pre-commit validate-config` says nothing. One finding at the second key, and
  every other rule reads the file as pre-commit does (the last one wins);
- what pre-commit only *warns* about and then ignores: unknown keys at the top level, in a
  repo or in a hook (`defualt_stages`, `stagess`), with the nearest known key; a top-level
  key that holds an anchor (`x-common: &common`) is the usual idiom and is accepted, and so
  are the keys prek adds (`priority`, `env`, `shell`, `minimum_prek_version`...);
- a hook listed twice (same repository, id and `alias`): pre-commit runs it twice. Reported
  when both entries have the same settings, and when one is a bare `- id:` line next to an
  entry with settings (`args`, `additional_dependencies`, `exclude`...): the copy runs the
  hook again without them. Two entries that each say what their run is for are the usual
  idiom and are accepted: other `args`, `files` or an `alias` (vLLM's `pip-compile`
  entries); a bare entry next to one with its own `files`, `types` or `stages` (a narrowed
  extra run); and a bare entry next to one whose only settings are fix flags (`--fix`,
  `--fix-only`, `--exit-non-zero-on-fix`, `--write`, `--write-changes`...), the
  fix-then-check pair (`ruff --fix`, then `ruff`);
- legacy stage names (`commit`, `push`, `merge-commit`): a warning, they still work;
- a local hook whose entry runs a repo script that does not exist (`python
  tools/check_x.py`, `tools/lint.sh`, or the entry of a `language: script` hook);
- aliases that expand past 100,000 values (an alias bomb) are refused before anything
  walks the file.

With pre-commit not installed, the schema steps are skipped with a warning.

## Why

pre-commit runs a config it accepts and silently drops what it does not know: a misspelt
`default_stages` means every hook runs at every stage, a misspelt `stages` means a
CI-only hook runs on every commit. The other `precommit-*` rules only look at a config
that passes this one.

## Example

```yaml
defualt_stages: [pre-commit, manual]
repos:
  - repo: local
    hooks:
      - id: check-imports
        name: check imports
        entry: python tools/check_imports.py
        language: python
```

```text
.pre-commit-config.yaml:1:1: precommit-config unknown top-level key `defualt_stages`: \
pre-commit ignores it; did you mean `default_stages`?
.pre-commit-config.yaml:7:1: precommit-config hook 'check-imports' runs \
tools/check_imports.py, which does not exist
```

## Fix

Correct the key or the path by hand; `pre-commit migrate-config` rewrites legacy stage
names. `policytool fix` does not change this rule's findings.

## Configuration

`[tool.policytool.pre-commit] file` (default `.pre-commit-config.yaml`).
"""


register(
    RepoRule(
        id=RULE_ID,
        summary=SUMMARY,
        check=check_config,
        triggers=precommit_triggers,
        doc=DOC,
        group="repo",
        config=("pre-commit",),
    )
)
