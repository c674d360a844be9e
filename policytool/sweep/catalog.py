# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The five sweep patterns: id, title, one-line summary and fix hint.

Kept free of heavy imports: ``policytool.hooks.sweep_rules`` reads it on every start-up.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pattern:
    """One sweep pattern as the report and ``policytool rules`` show it."""

    id: str
    title: str
    summary: str
    fix: str


PATTERNS: tuple[Pattern, ...] = (
    Pattern(
        "kwargs-lookup",
        "`**kwargs` string-lookup passthrough",
        'a **kwargs function reads string keys (`kwargs["k"]`, `kwargs.get("k")`, `"k" in kwargs`) '
        "on lines the change adds; blocking when the key is repeated in another file or unknown "
        "keys are silently dropped on a fail-fast path",
        "Prefer explicit typed params (a `msgspec.Struct` with `forbid_unknown_fields=True`, a "
        "`@dataclass` or a `TypedDict`); if `**kwargs` is unavoidable, centralize the key strings "
        "as module-level constants behind one typed accessor instead of repeating the literal.",
    ),
    Pattern(
        "broad-except",
        "Broad exception swallow",
        "a new bare `except:` / `except Exception:` / `except BaseException:`; blocking when it "
        "only passes, continues or returns None, or sits on a fail-fast path",
        "Catch the specific types you expect (`ValueError`, `KeyError`, `OSError`, ...); at a "
        "genuine best-effort boundary at least log the exception; never swallow into "
        "`pass`/`return None` on a path that should fail loudly.",
    ),
    Pattern(
        "any-annotation",
        "`Any` / wrong type annotations",
        "a new `: Any` / `-> Any` / fully unannotated public function in production code; "
        "blocking for a provably wrong return annotation or a new `SimpleNamespace` in tests",
        "Replace `Any` with the concrete type, a `Protocol` or a `Union`; for truly dynamic "
        "values use `object` + `isinstance` narrowing. In tests use the real class, a small "
        "`@dataclass`/`TypedDict` or a `Protocol` + fake instead of `SimpleNamespace`.",
    ),
    Pattern(
        "hot-copy",
        "Unnecessary copy in hot paths",
        "a new `.clone()` / `.copy_()` / `copy.deepcopy()` inside a loop or a per-step/per-request "
        "function; blocking for a clone in a loop with no comment saying why, or a deepcopy of "
        "a scheduler / sampling config on a request path",
        "Tensors: use a view (`x[..., :k]`, `torch.narrow`) or write into a pre-allocated buffer "
        "with `dst.copy_(src)`. Schedulers/configs: build a fresh lightweight instance or split "
        "out the mutable per-request part. If a copy is required, keep it and add a one-line "
        "comment saying why.",
    ),
    Pattern(
        "async-blocking",
        "Blocking the asyncio event loop / lock held across `await`",
        "inside `async def`: a new `time.sleep`, blocking HTTP (`requests`, `urlopen`) or an "
        "`await` while holding a lock; blocking on serving paths and for locks on request paths",
        "Move blocking work off the loop with `asyncio.to_thread(...)` / `run_in_executor`, or "
        "use an async client (`httpx.AsyncClient`, `aiohttp`). Never `await` while holding a "
        "lock: release it before the `await` or restructure the critical section.",
    ),
)

BY_ID: dict[str, Pattern] = {p.id: p for p in PATTERNS}
