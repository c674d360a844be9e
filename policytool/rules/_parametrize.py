# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``@pytest.mark.parametrize``: which values each argument of a test is given.

pytest calls the decorated test once per row, so a row's values are what its parameters
receive, as surely as a call's arguments. Read from the syntax only: the argument names
as one comma-separated string or a list or tuple of strings, the rows as a list or tuple
display (``pytest.param(...)`` read as its values); ``indirect`` rows go to fixtures, not
to the test, and are not read.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

# Rows read for one decorator: a generated table of thousands says nothing more.
MAX_ROWS = 200


def is_parametrize(decorator: ast.expr) -> bool:
    """Whether ``decorator`` is a ``parametrize(...)`` call (``pytest.mark.parametrize``,
    ``mark.parametrize`` or the name imported bare)."""
    if not isinstance(decorator, ast.Call):
        return False
    func = decorator.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "parametrize"


def _names_node(decorator: ast.Call) -> ast.expr | None:
    """The ``argnames`` argument, positional or by keyword."""
    if decorator.args:
        return decorator.args[0]
    return next((k.value for k in decorator.keywords if k.arg == "argnames"), None)


def argnames(decorator: ast.Call) -> list[str] | None:
    """The argument names of a ``parametrize`` call, or None when they are computed."""
    names = _names_node(decorator)
    if isinstance(names, ast.Constant) and isinstance(names.value, str):
        return [n.strip() for n in names.value.split(",") if n.strip()]
    if isinstance(names, (ast.List, ast.Tuple)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in names.elts
    ):
        return [
            e.value for e in names.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
    return None


def _param_values(value: ast.expr) -> list[ast.expr] | None:
    """The values of a ``pytest.param(...)`` row, or None for another row."""
    if isinstance(value, ast.Call) and isinstance(value.func, (ast.Attribute, ast.Name)):
        name = value.func.attr if isinstance(value.func, ast.Attribute) else value.func.id
        if name == "param":
            return list(value.args)
    return None


def _indirect(decorator: ast.Call) -> bool:
    """Whether some rows go to fixtures (``indirect=True`` or a list of names)."""
    return any(
        k.arg == "indirect" and not (isinstance(k.value, ast.Constant) and not k.value.value)
        for k in decorator.keywords
    )


def given(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, ast.expr]]:
    """(argument name, value) for each value a ``parametrize`` row of ``func`` gives an
    argument, row by row. As pytest reads them: with one name spelled as a string a row
    is the value itself (a tuple included), otherwise a row is a tuple or list of one
    value a name; a row of another width is skipped."""
    for decorator in func.decorator_list:
        if not is_parametrize(decorator):
            continue
        assert isinstance(decorator, ast.Call)
        names = argnames(decorator)
        rows = decorator.args[1] if len(decorator.args) > 1 else None
        if rows is None:
            rows = next((k.value for k in decorator.keywords if k.arg == "argvalues"), None)
        if names is None or not isinstance(rows, (ast.List, ast.Tuple)) or _indirect(decorator):
            continue
        bare = len(names) == 1 and isinstance(_names_node(decorator), ast.Constant)
        for row in rows.elts[:MAX_ROWS]:
            values = _param_values(row)
            if values is None:
                if bare:
                    values = [row]
                elif isinstance(row, (ast.Tuple, ast.List)):
                    values = list(row.elts)
                else:
                    continue
            if len(values) != len(names) or any(isinstance(v, ast.Starred) for v in values):
                continue
            yield from zip(names, values, strict=True)
