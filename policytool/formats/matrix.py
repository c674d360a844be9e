# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""A GitHub Actions job's matrix, and the ``${{ }}`` expressions of a workflow's values.

:func:`matrix_rows` expands ``strategy.matrix`` (at most GitHub's 256 jobs; ``include``
entries are extra rows, ``exclude`` is ignored: a superset is enough to read commands);
:func:`resolve` replaces ``${{ matrix.x }}`` from one row and every other expression by
:data:`UNKNOWN`, a value known only when the workflow runs. :func:`is_false` and
:func:`is_true` read the literal ``if:`` and ``continue-on-error:`` values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from policytool.errors import FileProblem
from policytool.formats.yamldoc import key_line

# GitHub runs at most this many jobs of one matrix.
MAX_MATRIX_JOBS = 256
# A ``${{ ... }}`` expression, and the word that stands for one while a command is read.
_EXPR_RE = re.compile(r"\$\{\{.*?\}\}")
_MATRIX_RE = re.compile(r"\$\{\{\s*matrix\.([\w-]+(?:\.[\w-]+)?)\s*\}\}")
UNKNOWN = "\x00expr\x00"
# ``${{ expr }}``, the expression ending on a non-blank (``(.*?)\s*`` would retry every
# split of a long blank run).
_EXPRESSION_RE = re.compile(r"\$\{\{\s*((?:.*\S)?)\s*\}\}")


def scalar_text(value: object) -> str | None:
    """How GitHub prints a matrix value in ``${{ }}``; None for lists and mappings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def _items(key: str, value: object) -> dict[str, str] | None:
    """A matrix value as row entries: ``{key: text}`` for a scalar; for a mapping
    (``env: {TOXENV: mypy}``) one ``key.sub`` entry per scalar value, as
    ``${{ matrix.env.TOXENV }}`` reads it (see :func:`mapping_of`); None for a list."""
    text = scalar_text(value)
    if text is not None:
        return {key: text}
    if isinstance(value, dict):
        return {f"{key}.{sub}": s for sub, v in value.items() if (s := scalar_text(v)) is not None}
    return None


def mapping_of(value: object, row: Mapping[str, str]) -> dict[str, str] | None:
    """A mapping-valued key (a step's ``env:``) for one row: a literal mapping with its
    values resolved, or ``${{ matrix.X }}`` whose row value is a whole mapping (scrapy's
    ``env: ${{ matrix.env }}`` with rows ``env: {TOXENV: mypy}``); None otherwise."""
    if isinstance(value, dict):
        return {str(k): resolve(v, row) for k, v in value.items()}
    if not isinstance(value, str):
        return None
    match = _MATRIX_RE.fullmatch(value.strip())
    if match is None or "." in match.group(1):
        return None
    prefix = match.group(1) + "."
    return {k[len(prefix) :]: v for k, v in row.items() if k.startswith(prefix)}


def _matrix(job: Mapping[str, object]) -> dict[str, object] | None:
    strategy = job.get("strategy")
    matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
    return matrix if isinstance(matrix, dict) else None


def matrix_size(job: Mapping[str, object]) -> int:
    """How many jobs the matrix asks for at most (axes product plus includes)."""
    matrix = _matrix(job)
    if matrix is None:
        return 1
    size = 1
    axes = [v for k, v in matrix.items() if k not in ("include", "exclude") and isinstance(v, list)]
    for values in axes:
        size *= len(values)
    include = matrix.get("include")
    extra = len(include) if isinstance(include, list) else 0
    return (size if axes else 0) + extra or 1


def matrix_rows(job: Mapping[str, object], relpath: str, job_name: str) -> list[dict[str, str]]:
    """The matrix combinations of a job (``[{}]`` without a matrix).

    A matrix asking for more than GitHub's 256 jobs raises :class:`FileProblem` (at the
    ``matrix:`` key) before anything is expanded.
    """
    matrix = _matrix(job)
    if matrix is None:
        return [{}]
    size = matrix_size(job)
    if size > MAX_MATRIX_JOBS:
        strategy = job.get("strategy")
        raise FileProblem(
            relpath,
            key_line(strategy, "matrix") if isinstance(strategy, dict) else 1,
            f"the matrix of job '{job_name}' expands to {size} jobs; GitHub runs at most "
            f"{MAX_MATRIX_JOBS}, so this workflow is rejected",
        )
    rows: list[dict[str, str]] = [{}]
    has_axes = False
    for key, values in matrix.items():
        if key in ("include", "exclude") or not isinstance(values, list):
            continue
        has_axes = True
        # A mapping on an axis is shown in a job's name, how is not read here.
        shown = [
            {str(key): UNKNOWN, **s} if isinstance(v, dict) else s
            for v in values
            if (s := _items(str(key), v)) is not None
        ]
        shown = shown or [{str(key): UNKNOWN}]
        rows = [{**row, **items} for row in rows for items in shown]
    if not has_axes:
        rows = []
    include = matrix.get("include")
    if isinstance(include, list):
        for entry in include:
            if isinstance(entry, dict):
                row: dict[str, str] = {}
                for k, v in entry.items():
                    row.update(_items(str(k), v) or {})
                rows.append(row)
    return rows or [{}]


def expand(value: object, row: Mapping[str, str]) -> str:
    """``value`` with ``${{ matrix.x }}`` replaced from ``row``; other expressions kept."""
    text = value if isinstance(value, str) else (scalar_text(value) or "")
    return _MATRIX_RE.sub(lambda m: row.get(m.group(1), m.group(0)), text)


def resolve(value: object, row: Mapping[str, str]) -> str:
    """``value`` with the matrix expanded and every other expression as :data:`UNKNOWN`."""
    return _EXPR_RE.sub(UNKNOWN, expand(value, row))


def is_false(condition: object) -> bool:
    """Whether an ``if:`` is the literal false (``false``, ``${{ false }}``)."""
    if condition is False:
        return True
    if not isinstance(condition, str):
        return False
    text = condition.strip()
    match = _EXPRESSION_RE.fullmatch(text)
    return (match.group(1) if match else text) in ("false", "0")


def is_true(value: object) -> bool:
    """Whether a ``continue-on-error:`` is the literal true."""
    return value is True or (isinstance(value, str) and value.strip() in ("true", "${{ true }}"))
