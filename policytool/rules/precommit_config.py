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


def _twice(model: Model) -> Iterator[Finding]:
    """A hook listed again with the same settings (same repository, id and alias)."""
    first: dict[tuple[str, str, str], list[Hook]] = {}
    for hook in model.hooks:
        key = (normalize_url(hook.repo), hook.id, hook.text("alias"))
        for earlier in first.get(key, []):
            if dict(earlier.node) == dict(hook.node):
                yield Finding(
                    model.relpath,
                    hook.line,
                    1,
                    RULE_ID,
                    f"hook '{hook.id}' is listed twice with the same settings (first at line "
                    f"{earlier.line}): pre-commit runs it twice; remove one",
                )
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
- a hook listed twice with the same settings (same repository, id and `alias`):
  pre-commit runs it twice. The same hook with other `args`, `files` or an `alias`
  (vLLM's `pip-compile` entries) is the usual idiom and is accepted;
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
