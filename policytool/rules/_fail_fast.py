# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The pattern's fail-fast paths for ``broad-except`` beyond the shared ``fail-fast``
list, and its swallow forms beyond ``pass`` / ``continue`` / ``return None``.

The pattern lists five fail-fast paths for a swallowing broad catch: "init, config
validation, weight loading, request handling, connector setup". The first three are the
shared ``[tool.policytool.sweep] fail-fast`` globs (``kwargs-lookup`` reads them too,
whose own ✗ names only those three); request handling and connector setup are
broad-except's alone, here. A handler that only assigns a default (``self.x = None``, ``{}``,
``[]``) with nothing re-raised or logged swallows the error as surely as ``pass``; a
failure flag (``self.ok = False``) records it and is not one.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

# Request handling and connector setup (names of the function or one enclosing it).
REQUEST_AND_CONNECTOR = (
    "*handle*request*",
    "*process*request*",
    "*add_request*",
    "*submit_request*",
    "*serve_request*",
    "*request_handler*",
    "connect",
    "_connect",
    "*_connect",
    "*connect_to*",
    "*create_connector*",
    "*make_connector*",
    "*register_connector*",
    "*handshake*",
)
# Weight loading beyond the shared ``fail-fast`` globs, for ``kwargs-lookup``: diffusers'
# ``lora_state_dict(cls, path, **kwargs)`` fetches and converts the LoRA weights.
WEIGHT_LOADING_MORE = ("*lora_state_dict*",)
# Best effort by the pattern's own words (metrics, signal handlers) and by nature
# (aborting a request, disconnecting): never ✗.
BEST_EFFORT_MORE = ("*metric*", "*signal*", "*abort*", "*disconnect*")


def _default_value(value: ast.expr | None) -> bool:
    """``None`` or an empty display/``dict()``-like call: a default standing in for the
    value that failed (``self.ok = False`` is a failure flag someone checks: not this)."""
    if isinstance(value, ast.Constant):
        return value.value is None
    if isinstance(value, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return not (value.keys if isinstance(value, ast.Dict) else value.elts)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("dict", "list", "tuple", "set")
        and not value.args
        and not value.keywords
    )


def imports_only(try_stmt: ast.stmt | None) -> bool:
    """Whether a ``try`` body only imports (``import x``, ``x = importlib.import_module(...)``):
    an optional dependency, best effort by nature."""
    body: list[ast.stmt] = getattr(try_stmt, "body", [])
    if not body:
        return False
    for stmt in body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            continue
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.Expr)) else None
        if isinstance(value, ast.Call):
            func = value.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__"):
                continue
        return False
    return True


def assigns_default(body: list[ast.stmt], has_comment: Callable[[int], bool]) -> bool:
    """Whether a handler only assigns defaults (``x = None``; ``pass``/``continue``/an
    empty ``return`` around them): the error is swallowed, nothing re-raised or logged.
    A comment in the handler saying why (``# never fail startup over this``) makes it a
    deliberate fallback (``has_comment``: whether a line carries one)."""
    if not body:
        return False
    last = body[-1].end_lineno or body[-1].lineno
    if any(has_comment(line) for line in range(body[0].lineno - 1, last + 1)):
        return False
    assigned = False
    for stmt in body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            if not _default_value(stmt.value):
                return False
            assigned = True
        elif isinstance(stmt, ast.Return):
            if stmt.value is not None and not (
                isinstance(stmt.value, ast.Constant) and stmt.value.value is None
            ):
                return False
        elif not (
            isinstance(stmt, (ast.Pass, ast.Continue))
            or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        ):
            return False
    return assigned
