# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Names read off Python expressions, shared by the sweep rules and the modules under
them (``_kwreads`` sits below ``_pysource``, so this holds no rule knowledge at all)."""

from __future__ import annotations

import ast


def last_name(node: ast.AST | None) -> str:
    """The name an expression ends in: ``g`` for ``g`` and for ``obj.g`` (so a call's
    callee, ``self.g(...)`` included), ``""`` for anything else (a subscript, a call)."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def parameter_defaults(args: ast.arguments) -> list[tuple[ast.arg, ast.expr | None]]:
    """Each named parameter (positional, then keyword-only) with its default, or None
    when it has none: ``*args`` and ``**kwargs`` aside."""
    positional = [*args.posonlyargs, *args.args]
    padded: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    return [
        *zip(positional, [*padded, *args.defaults], strict=True),
        *zip(args.kwonlyargs, args.kw_defaults, strict=True),
    ]
