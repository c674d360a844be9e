# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗: a parameter annotated as one builtin container or string kind that
the body tests for another and handles there. llama-cpp-python's JSON-schema resolver
(set zzzq) declares ``def visit(n: dict):`` and opens with ``if isinstance(n, list):
return [visit(x) for x in n]``: it walks every list of the schema by design, and the
annotation says it takes none. A branch that only raises is a guard the annotation
agrees with; a parameter the function rebinds, a union, the numeric tower and an old
annotation are not read."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

RESOLVER = (
    "def resolve_refs(schema: dict, url: str):\n"  # 1
    "    def visit(n: dict):\n"  # 2: ✗, handled as a list too
    "        if isinstance(n, list):\n"
    "            return [visit(x) for x in n]\n"
    "        elif isinstance(n, dict):\n"  # 5
    "            return {k: visit(v) for k, v in n.items()}\n"
    "        return n\n"
    "\n"
    "    return visit(schema)\n"
    "\n\n"  # 10
    "def batch_size(prompt: str) -> int:\n"  # 12: ✗, a tuple of kinds
    "    if isinstance(prompt, (list, tuple)):\n"
    "        return len(prompt)\n"
    "    return 1\n"  # 15
    "\n\n"
    "def checked(config: dict) -> dict:\n"
    "    if isinstance(config, str):\n"
    '        raise TypeError("pass the parsed config")\n'  # 20: a guard: no finding
    "    return config\n"
    "\n\n"
    "def coerced(items: list) -> list:\n"
    "    if isinstance(items, tuple):\n"  # 25: rebound below: no finding
    "        items = list(items)\n"
    "    return items\n"
    "\n\n"
    "def either(n: dict | list):\n"  # 30: the union says it: no finding
    "    if isinstance(n, list):\n"
    "        return n\n"
    "    return n\n"
    "\n\n"  # 35
    "def scale(x: float) -> float:\n"
    "    if isinstance(x, int):\n"  # an int is a float by PEP 484: no finding
    "        return float(x)\n"
    "    return x\n"
    "\n\n"  # 40
    "class Schema:\n"
    "    pass\n"
    "\n\n"
    "def typed(n: Schema):\n"  # 45: a class, not a builtin kind: no finding
    "    if isinstance(n, list):\n"
    "        return n\n"
    "    return n\n"
)


def _rows(run: Run) -> list[tuple[int, str, str]]:
    """(line, severity, message) of each any-annotation finding naming a handled kind."""
    return [
        (line, sev, msg)
        for _p, line, sev, msg in found(run, "any-annotation")
        if "is handled as" in msg
    ]


def test_a_parameter_handled_as_another_builtin_kind_is_a_wrong_annotation(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/grammar.py", RESOLVER)
    feature.commit("resolver")
    rows = _rows(run)
    assert [(line, sev) for line, sev, _msg in rows] == [(2, "error"), (12, "error")]
    assert rows[0][2] == (
        "`n: dict` (line 2) is handled as `list` too (`isinstance(n, list)`, line 3): "
        "the function takes what its annotation rejects; annotate `dict | list`"
    )
    assert "annotate `str | list | tuple`" in rows[1][2]


def test_an_old_annotation_is_not_read(feature: Repo, run: Run) -> None:
    feature.git("checkout", "-q", "main")
    feature.write("pkg/grammar.py", RESOLVER)
    feature.commit("resolver")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write("pkg/grammar.py", RESOLVER + "\n\ndef added(x: int) -> int:\n    return x\n")
    feature.commit("added")
    assert _rows(run) == []


def test_a_shadowed_isinstance_or_kind_is_not_the_builtin(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/shadow.py",
        "from pkg.checks import isinstance\n"
        "\n\n"
        "def visit(n: dict):\n"
        "    if isinstance(n, list):\n"
        "        return n\n"
        "    return n\n",
    )
    feature.write(
        "pkg/kinds.py",
        "list = tuple\n"
        "\n\n"
        "def visit(n: dict):\n"
        "    if isinstance(n, list):\n"
        "        return n\n"
        "    return n\n",
    )
    feature.commit("shadowed")
    assert _rows(run) == []
