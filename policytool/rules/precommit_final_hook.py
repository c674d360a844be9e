# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``precommit-final-hook``: the hook named by ``[tool.policytool.pre-commit]
final-hook`` is the last hook of the last repo. The fix moves it, with its comments, by
editing the text (see :mod:`policytool.formats.yamldoc`), so every comment, anchor and
key order survives; the engine applies the edit once the re-parsed result has the same
hooks with this one last.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from policytool.core.text import split_lines
from policytool.engine.findings import Finding
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.formats.precommit import Model
from policytool.formats.yamldoc import is_blank, item_pos, item_span, key_pos, reindent
from policytool.formats.yamledit import ensure_line_end, newline_of
from policytool.rules._precommit_model import applier, config_fix, precommit_triggers, usable_model
from policytool.rules._repo_config import PreCommitConfig

RULE_ID = "precommit-final-hook"
SUMMARY = "the configured final hook (e.g. suggestion) is the last hook of the last repo"


def check_final_hook(ctx: RepoContext) -> Iterator[Finding]:
    """The configured final hook is the last hook of the last repo."""
    final = ctx.config.section(PreCommitConfig).final_hook
    model = usable_model(ctx.config) if final else None
    if model is None or not final:
        return
    found = model.find(final)
    if not found:
        yield Finding(
            model.relpath,
            model.repos_line,
            1,
            RULE_ID,
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
            RULE_ID,
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


def fixes_final_hook(ctx: RepoContext) -> Iterator[Finding]:
    """The finding with the fix moving the configured final hook, with its comments, to
    the end (verified: same hooks, this one last)."""
    final = ctx.config.section(PreCommitConfig).final_hook
    for finding in check_final_hook(ctx):
        model = usable_model(ctx.config) if finding.fixable else None
        text = _move_final(model, final) if model is not None and final else None
        if model is not None and text is not None:
            fix = config_fix(
                model, text, f"move '{final}' last", lambda new: new.hooks[-1].id == final
            )
            yield replace(finding, fix=fix)


# ``fixes_final_hook`` applied outside a run (the engine writes); the paths changed.
fix_final_hook = applier(fixes_final_hook)


DOC = """\
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


register(
    RepoRule(
        id=RULE_ID,
        summary=SUMMARY,
        check=check_final_hook,
        triggers=precommit_triggers,
        fixes=fixes_final_hook,
        doc=DOC,
        group="repo",
        config=("pre-commit",),
    )
)
