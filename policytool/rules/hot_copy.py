# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``hot-copy`` (sweep, added lines): a tensor ``.clone()`` or ``deepcopy`` in per-step or
per-request code.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import register
from policytool.engine.source import SourceFile
from policytool.rules._pysource import SourceInfo, names_match, sweep_info, unparse
from policytool.rules._sweep import BLOCK, CONFIG_DOC, WARN, finding, short, sweep_rule

DOC = f"""\
## What it checks
A new `.clone()` or `copy.deepcopy(...)` inside any `for`/`while` loop (a comprehension
only when it runs over steps), or inside a per-step or per-request function
(`request-path` and `hot-path` names; vLLM's `execute_model`, `_preprocess` by
default), in production code. `dst.copy_(src)` into a pre-allocated
buffer is the recommended fix, not a finding; functions that run once (`__init__`,
weight loading and post-load hooks such as `process_weights_after_loading`,
`profile_run`, benchmarks) are not hot paths. ⚠ for each such copy.

✗ for a `.clone()` inside a step loop (a `for`/`while`/comprehension over steps,
timesteps or sigmas, or any loop of a per-step function) with no comment on the line or
the two lines above saying why, or a `copy.deepcopy` of a scheduler or sampling config
on a request path.

## Why
A clone of a GPU tensor is an allocation and a memcpy on every step; a deepcopy of a
config walks its whole object graph on every request. Across 50 diffusion steps it
dominates latency and memory bandwidth.

## Example
```python
def denoise(self, x_t, timesteps):
    for t in timesteps:
        trajectory.append(x_t.clone())  # ✗: copies the full latent every step
```

## Fix
Use a view (`x[..., :k]`, `torch.narrow`) or write into a pre-allocated buffer with
`dst.copy_(src)`; build a fresh lightweight config per request instead of a deepcopy.
If the copy is needed, keep it and add a one-line comment saying why. Not fixable by
`policytool fix`.

## Configuration
{CONFIG_DOC}"""


_DEEPCOPY = frozenset({"copy.deepcopy", "deepcopy"})
_SCHEDULER_RE = re.compile(r"sched|sampling", re.IGNORECASE)

# Functions that run once (set-up, weight loading, profiling, warm-up): never a hot path.
COLD = (
    "__init__",
    "__post_init__",
    "*load_weight*",
    "*load_model*",
    # post-load hooks: vLLM's ``process_weights_after_loading`` runs once per model
    "*after_load*",
    "*post_load*",
    "profile_run",
    "*profile*",
    "*warmup*",
    "*warm_up*",
    "*dummy*",
    "*capture*",
    "*init_*",
    "*setup*",
    "*benchmark*",
    "*test*",
)


def _copy_kind(src: SourceInfo, call: ast.Call) -> str | None:
    """``clone`` / ``deepcopy`` for the copy calls the pattern looks at.

    ``dst.copy_(src)`` into a pre-allocated buffer is the recommended fix, not a copy.
    """
    if isinstance(call.func, ast.Attribute) and call.func.attr == "clone":
        return "clone"
    if src.qualname(call.func) in _DEEPCOPY:
        return "deepcopy"
    return None


def _why_comment(src: SourceInfo, node: ast.AST) -> bool:
    """A comment on the call's lines or the two lines above it (the pattern's "aware" case)."""
    first = getattr(node, "lineno", 1)
    last = getattr(node, "end_lineno", None) or first
    return any(src.has_comment(line) for line in range(first - 2, last + 1))


def hot_copy(src: SourceInfo) -> Iterator[Finding]:
    """Copies in per-step / per-request code (tests and run-once functions are not hot)."""
    if src.is_test:
        return
    hot_names = (*src.config.request_path, *src.config.hot_path)
    for node, ctx in src.of_type(ast.Call):
        assert isinstance(node, ast.Call)
        kind = _copy_kind(src, node)
        if kind is None or not src.node_added(node):
            continue
        names = ctx.names()
        if names_match(names, COLD) or names_match(names, src.config.fail_fast):
            continue
        hot = names_match(names, hot_names)
        if not (ctx.stmt_loop or ctx.step_loop) and hot is None:
            continue  # a comprehension over a list copies once per element, not per step
        text = short(src, node)
        in_loop = ctx.loop and (ctx.step_loop or hot is not None)
        where = (
            f"inside a step loop{f' of `{hot}`' if hot else ''}"
            if in_loop
            else f"in per-step/per-request function `{hot}`"
            if hot
            else "inside a loop"
        )
        if kind == "clone" and in_loop and not _why_comment(src, node):
            yield finding(
                src,
                node,
                "hot-copy",
                BLOCK,
                f"`{text}` {where} allocates and copies a tensor every iteration, "
                "with no comment saying why",
            )
            continue
        request = names_match(names, src.config.request_path)
        if (
            kind == "deepcopy"
            and request is not None
            and node.args
            and _SCHEDULER_RE.search(unparse(node.args[0]))
        ):
            yield finding(
                src,
                node,
                "hot-copy",
                BLOCK,
                f"`{text}` deep-copies a scheduler/sampling config on request path `{request}`",
            )
            continue
        what = "allocates a copy" if kind == "clone" else "walks the whole object graph"
        yield finding(src, node, "hot-copy", WARN, f"`{text}` {where} {what} each time")


def check(source: SourceFile, config: Config) -> list[Finding]:
    """Copies in hot code on the lines the sweep looks at."""
    return list(hot_copy(sweep_info(source, config)))


RULE = register(
    sweep_rule(
        "hot-copy",
        "a new `.clone()` / `deepcopy` in a loop or per-step/per-request function; ✗ for an "
        "uncommented clone in a step loop or a config deepcopy on a request path",
        check,
        DOC,
        prefilter=lambda data, config: b"clone" in data or b"deepcopy" in data,
    )
)
