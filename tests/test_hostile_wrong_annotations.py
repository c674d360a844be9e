# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation's ``x: T = None`` reading is linear in a module's size: for each
parameter or field defaulting to None it read every call of the module to find the
function's callers (5,000 functions of ten parameters calling each other: 36 s),
walked the function's body again for tests, hand-offs and paths (1,000 parameters stored
on ``self``: 29 s), read the class holding a field again (4,000 dataclass fields: 49 s),
searched and parsed the work tree's other modules again (1,000 fields built in three
other modules: 13 s), and walked the whole module for each module global (1,000: 7 s,
4,000 over a minute). The calls by name, a body's facts, a class's facts, the other
modules read and the module's tested names are indexed once a file."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings

FEATURE_BASE = {"pkg/__init__.py": ""}


def _annotation_findings(run: Run) -> tuple[list[tuple[str, int, str]], float]:
    """(path, line, message) of the any-annotation findings; the seconds the sweep took."""
    start = time.perf_counter()
    found = sweep_findings(run, "--jobs", "1")
    elapsed = time.perf_counter() - start
    return [
        (f["path"], f["line"], f["message"]) for f in found if f["rule"] == "any-annotation"
    ], elapsed


def _optional(found: list[tuple[str, int, str]]) -> list[tuple[str, int]]:
    """(path, line) of the implicit-Optional findings (a ``= None`` the type does not allow)."""
    return [(path, line) for path, line, message in found if "None" in message and "=" in message]


@pytest.mark.timing
def test_thousands_of_functions_calling_each_other_stay_fast(feature: Repo, run: Run) -> None:
    names = [f"p{k}" for k in range(10)]
    params = ", ".join(f"{name}: int = None" for name in names)
    lines = []
    for i in range(5000):
        lines.append(f"def f{i}({params}) -> int:")
        lines += [f"    return f{i - 1}({', '.join(names)})" if i else "    return 0", "", ""]
    feature.write("pkg/calls.py", "\n".join(lines) + "\n")
    feature.commit("add")
    found, elapsed = _annotation_findings(run)
    # f1 .. f4998 are called with parameters that may hold None (one finding a function,
    # naming the ten); f0 never reads its own, and nothing calls f4999.
    assert [line for _path, line, _message in found] == [1 + 4 * i for i in range(1, 4999)]
    assert all(message.count("does not admit None") == 10 for _p, _l, message in found)
    # 3.8 s before round AA; its caller reading first searched the module's text once a
    # function (27 s here, 31 s under CI's load), now once past a few questions
    assert elapsed < 15, elapsed


@pytest.mark.timing
def test_a_thousand_stored_parameters_stay_fast(feature: Repo, run: Run) -> None:
    count = 1500
    params = ", ".join(f"a{i}: int = None" for i in range(count))
    lines = ["class M:", f"    def __init__(self, {params}) -> None:"]
    lines += [f"        self.a{i} = a{i}" for i in range(count)]
    lines += [
        "",
        "    def use(self) -> int:",
        "        if self.a0 is None:",
        "            return 0",
    ]
    lines += [f"        x{i} = self.a{i} + 1" for i in range(count)]
    lines += ["        return 1"]
    feature.write("pkg/stored.py", "\n".join(lines) + "\n")
    feature.commit("add")
    found, elapsed = _annotation_findings(run)
    # Only ``a0`` is tested for None where it is stored: its default is an implicit Optional.
    assert [(path, line) for path, line, _message in found] == [("pkg/stored.py", 2)]
    assert "`a0: int = None`" in found[0][2]
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_thousands_of_dataclass_fields_stay_fast(feature: Repo, run: Run) -> None:
    count = 2000
    fields = [f"    f{i}: int = None" for i in range(count)]
    head = ["from dataclasses import dataclass", "", "", "@dataclass", "class Cfg:"]
    feature.write("pkg/cfg.py", "\n".join([*head, *fields]) + "\n")
    every = ", ".join(f"f{i}={i + 1}" for i in range(count))
    but_last = ", ".join(f"f{i}={i + 1}" for i in range(count - 1))
    for j in range(3):
        built = every if j else but_last
        use = f"from pkg.cfg import Cfg\n\n\ndef make() -> Cfg:\n    return Cfg({built})\n"
        feature.write(f"pkg/use{j}.py", use)
    feature.write("pkg/more.py", "\n".join([*head[:4], "class More:", *fields]) + "\n")
    feature.commit("add")
    found, elapsed = _annotation_findings(run)
    # Every construction of Cfg passes each field but the last a number: only the last is
    # left None; More is never built, so each of its fields may be None.
    cfg = [line for path, line, _message in found if path == "pkg/cfg.py"]
    more = [line for path, line, _message in found if path == "pkg/more.py"]
    assert cfg == [5 + count]
    assert more == list(range(6, 6 + count))
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_thousands_of_module_globals_stay_fast(feature: Repo, run: Run) -> None:
    lines = ["from notinstalled_pkg_xyz import Buffer", ""]
    lines += [f"_buf{i}: Buffer = None" for i in range(4000)]
    lines += ["", "", "def get() -> Buffer:", "    global _buf0", "    if _buf0 is None:"]
    lines += ["        _buf0 = Buffer()", "    return _buf0"]
    feature.write("pkg/globals.py", "\n".join(lines) + "\n")
    feature.commit("add")
    found, elapsed = _annotation_findings(run)
    # The one global a function tests for None and rebinds holds None first (a lazy init).
    assert [(path, line) for path, line, _message in found] == [("pkg/globals.py", 3)]
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_thousands_of_annotated_functions_called_with_literals_stay_fast(
    feature: Repo, run: Run
) -> None:
    """The caller reading on 5,000 annotated functions each called with a literal of the
    wrong kind: every one reported, the module's text read and its calls walked once
    past a few names (1.2 s; a text search and a pruned walk for each function took
    6.5 s, and a search of the whole text for each name's counts 9 s)."""
    lines = []
    for i in range(5000):
        lines.append(f"def f{i}(x: int, y: str) -> int:")
        lines += [f'    return f{i - 1}("{i}", y)' if i else "    return 0", "", ""]
    feature.write("pkg/literals.py", "\n".join(lines) + "\n")
    feature.commit("add")
    found, elapsed = _annotation_findings(run)
    contradicted = [line for _p, line, message in found if "contradicted by a caller" in message]
    # f0 .. f4998 are each called once, by the next, with a string for ``x: int``
    assert contradicted == [1 + 4 * i for i in range(4999)]
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_thousands_of_class_valued_fields_stay_fast(feature: Repo, run: Run) -> None:
    # Round AB reads a field's value against its annotation, following each class's
    # bases: 2,000 subclasses, 2,000 fields each holding one, and a display of 50,000 class
    # names; each class is read once.
    lines = ["from typing import Tuple", "", "", "class Base:", "    pass", ""]
    for i in range(2000):
        lines += [f"class C{i}(Base):", "    pass", ""]
    lines += ["", "class Holder:"]
    lines += [f"    f{i}: Base = C{i}" for i in range(2000)]
    names = ", ".join(f"C{i % 2000}" for i in range(50000))
    lines += [f"    many: Tuple[Base, ...] = ({names},)"]
    feature.write("pkg/classes.py", "\n".join(lines) + "\n")
    feature.commit("add")
    found, elapsed = _annotation_findings(run)
    fields = [line for _path, line, message in found if "not an instance" in message]
    displays = [line for _path, line, message in found if "not `Base` instances" in message]
    assert (len(fields), len(displays)) == (2000, 1), (len(fields), len(displays))
    # 0.3 s; 7 s when each name of the display read the module's classes again (1ae5f11)
    assert elapsed < 4, elapsed


def test_a_tree_file_that_is_not_utf8_is_read_without_a_traceback(feature: Repo, run: Run) -> None:
    """The caller reading indexes every ``from`` import of the work tree: a module whose
    import line holds bytes that are not UTF-8 (``from x import a\\xff``) raised
    UnicodeDecodeError out of the sweep; it now names nothing and the sweep goes on."""
    feature.write("pkg/lib.py", "def label(name: str) -> str:\n    return name or '?'\n")
    feature.write("pkg/user.py", "from pkg.lib import label\n\nlabel(None)\n")
    feature.write("pkg/broken.py", b"from x import a\xff\xfe, b\n")
    found, _elapsed = _annotation_findings(run)
    assert [(path, line) for path, line, m in found if "contradicted by a caller" in m] == [
        ("pkg/lib.py", 1)
    ]


@pytest.mark.timing
def test_thousands_of_returns_of_one_large_generator_stay_fast(feature: Repo, run: Run) -> None:
    """A function of 20,000 statements that yields once at its end, called by the returns
    of 3,000 functions annotated ``-> list``: the callee's body is walked for a ``yield``
    once, not once a return (3,000 x 20,000 nodes)."""
    body = [f"    x{i} = {i}" for i in range(20000)]
    lines = ["def big() -> list:", *body, "    yield x0", "", ""]
    for i in range(3000):
        lines += [f"def f{i}() -> list:", "    return big()", "", ""]
    feature.write("pkg/gen.py", "\n".join(lines) + "\n")
    feature.commit("add")
    found, elapsed = _annotation_findings(run)
    generators = [line for _path, line, message in found if "generator" in message]
    assert len(generators) == 3001, len(generators)
    assert generators[0] == 1
    assert elapsed < 30, elapsed
