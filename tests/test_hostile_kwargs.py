# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup is linear in a function's reads and in the functions of one name: each
read of a ``(*args, **kwargs)`` function walked the whole function for the statement
holding it (4,000 reads: over a minute), each read of a dict forwarded with ``f(**d)``
asked every such call's callee again (4,000: 21 s; 10,000 over a minute), and each call passing a dict on to
a name marked the parameters of every function of that name again (4,000 functions
``f`` calling ``f``: over a minute); one line of thousands of reads was normalised
again for each (8,000: 11 s) and each term of an ``if`` of thousands of ``"k" not in
kwargs`` read the whole test and block again (8,000: 52 s). The statements holding a
function's nodes are indexed once a function, the keys each dict's callees declare once
a dict, a (name, position or keyword) a dict is passed to is marked once, a line's
normalised text once a line and an ``if``'s terms and defaults once an ``if``."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings


def _positional(count: int) -> str:
    """A ``(*args, **kwargs)`` function of ``count`` reads; the last also reads ``args``."""
    lines = ["def forward(self, *args, **kwargs):"]
    lines += [f"    a{i} = kwargs.get('key{i}')" for i in range(count)]
    lines += ["    dim = args[0] if args else kwargs.get('dim')", "    return dim"]
    return "\n".join(lines) + "\n"


def _forwarded(count: int) -> str:
    """``count`` reads, each followed by ``target(**kwargs)``; ``target`` declares key0."""
    lines = [
        "def target(key0=None, **kw):",
        "    return kw",
        "",
        "",
        "def forward(self, **kwargs):",
    ]
    for i in range(count):
        lines += [f"    a{i} = kwargs.get('key{i}')", "    target(**kwargs)"]
    return "\n".join(lines) + "\n"


def _same_name(count: int) -> str:
    """``count`` functions ``f``, each passing its ``**kwargs`` to ``f`` whole."""
    lines = []
    for i in range(count):
        lines += ["def f(x, **kwargs):", f"    f(kwargs, k{i}=kwargs)"]
        lines += [f"    return kwargs.get('k{i}')", "", ""]
    return "\n".join(lines) + "\n"


# Another file of the change reading the same keys: a key repeated across files is the ✗,
# unless the read is a callee's or a mirrored signature's parameter.
_OTHER = """\
def other(**kwargs):
    return kwargs.get('key0'), kwargs.get('key1'), kwargs.get('dim')
"""


def _kwargs_findings(run: Run, path: str) -> tuple[list[tuple[int, str, str]], float]:
    """(line, severity, message) of the kwargs-lookup findings in ``path``; the seconds."""
    start = time.perf_counter()
    found = sweep_findings(run, "--jobs", "1")
    elapsed = time.perf_counter() - start
    return [
        (f["line"], f["severity"], f["message"])
        for f in found
        if f["rule"] == "kwargs-lookup" and f["path"] == path
    ], elapsed


@pytest.mark.timing
def test_thousands_of_reads_beside_args_stay_fast(feature: Repo, run: Run) -> None:
    feature.write("pkg/other.py", _OTHER)
    feature.write("pkg/positional.py", _positional(4000))
    feature.commit("add")
    found, elapsed = _kwargs_findings(run, "pkg/positional.py")
    # The read that also takes the value from ``*args`` mirrors a parameter: a key the
    # other file repeats stays ⚠ there; the others are ✗.
    assert [line for line, _severity, _message in found] == list(range(2, 4003))
    assert [(line, sev) for line, sev, _message in found if sev == "error"] == [
        (2, "error"),
        (3, "error"),
    ]
    assert "taken positionally" in found[-1][2]
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_thousands_of_forwarded_reads_stay_fast(feature: Repo, run: Run) -> None:
    feature.write("pkg/other.py", _OTHER)
    feature.write("pkg/forwarded.py", _forwarded(10000))
    feature.commit("add")
    found, elapsed = _kwargs_findings(run, "pkg/forwarded.py")
    # ``key0`` is a parameter of the callee the dict is forwarded to: ⚠ though the other
    # file reads it; ``key1`` is the ✗.
    assert len(found) == 10000
    assert [(line, sev) for line, sev, _message in found[:2]] == [(6, "warning"), (8, "error")]
    assert "forwarded with `**` to `target`" in found[0][2]
    assert all("forwarded" not in message for _line, _sev, message in found[1:])
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_thousands_of_functions_of_one_name_stay_fast(feature: Repo, run: Run) -> None:
    feature.write("pkg/same.py", _same_name(4000))
    feature.commit("add")
    found, elapsed = _kwargs_findings(run, "pkg/same.py")
    assert [line for line, _severity, _message in found] == [3 + 5 * i for i in range(4000)]
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_one_line_of_thousands_of_reads_stays_fast(feature: Repo, run: Run) -> None:
    count = 30000
    reads = ", ".join(f"'k{i}': kwargs['k{i}']" for i in range(count))
    feature.write("pkg/line.py", f"def forward(**kwargs):\n    return {{{reads}}}\n")
    feature.commit("add")
    found, elapsed = _kwargs_findings(run, "pkg/line.py")
    # Each read is reported, all on line 2 (its normalised text for move detection is
    # computed once for the line, not once a read).
    assert len(found) == count
    assert {line for line, _severity, _message in found} == {2}
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_an_if_of_thousands_of_absent_keys_stays_fast(feature: Repo, run: Run) -> None:
    count = 8000
    test = " and ".join(f"'k{i}' not in kwargs" for i in range(count))
    # Every key but the last gets its default in the block: only the last is a read.
    body = "".join(f"        kwargs['k{i}'] = {i}\n" for i in range(count - 1))
    source = f"def forward(**kwargs):\n    if {test}:\n{body}    return kwargs\n"
    feature.write("pkg/defaults.py", source)
    feature.commit("add")
    found, elapsed = _kwargs_findings(run, "pkg/defaults.py")
    assert [(line, severity) for line, severity, _message in found] == [(2, "warning")]
    assert f"'k{count - 1}'" in found[0][2]
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_thousands_of_new_keys_spelled_in_many_files_stay_fast(feature: Repo, run: Run) -> None:
    """Each new key is looked up in a set of each other file's quoted strings, and a file
    is parsed once for its kwargs spellings: 4,000 keys against 40 files that each write
    them all on a kwargs dict (and 40 more that only mention them) is not 160,000 scans
    of the files' text."""
    count = 4000
    reads = "\n".join(f"    a{i} = kwargs['key{i}']" for i in range(count))
    feature.write("pkg/reader.py", f"def step(**kwargs):\n{reads}\n")
    writes = "\n".join(f"    step_kwargs['key{i}'] = {i}" for i in range(count))
    mentions = "\n".join(f"    names.append('key{i}')" for i in range(count))
    for index in range(40):
        feature.write(f"pkg/writer{index}.py", f"def w(step_kwargs):\n{writes}\n")
        feature.write(f"pkg/mention{index}.py", f"def m(names):\n{mentions}\n")
    feature.commit("add")
    found, elapsed = _kwargs_findings(run, "pkg/reader.py")
    # Spelled in more than four other files: an established convention, ⚠.
    assert len(found) == count
    assert {severity for _line, severity, _message in found} == {"warning"}
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_thousands_of_pops_before_forwarding_stay_fast(feature: Repo, run: Run) -> None:
    # Round AH's pop reading first walked the function for each pop to find the name the
    # popped value is bound to: 3,000 pops before `AutoModel.from_pretrained(path,
    # **kwargs)` took 60 s. The names each value is bound to are read once a function.
    pops = "".join(f"    a{i} = kwargs.pop('key_{i}', None)\n" for i in range(4000))
    feature.write(
        "pkg/load.py",
        f"def load(path, **kwargs):\n{pops}    return AutoModel.from_pretrained(path, **kwargs)\n",
    )
    feature.commit("add")
    found, elapsed = _kwargs_findings(run, "pkg/load.py")
    # Each popped key is the loader's own (the callee never sees it): ⚠, no forwarding.
    assert len(found) == 4000
    assert all(sev == "warning" and "forwarded" not in msg for _line, sev, msg in found)
    assert elapsed < 30, elapsed


@pytest.mark.timing
def test_thousands_of_classes_with_unused_kwargs_stay_fast(feature: Repo, run: Run) -> None:
    # Each method's class, its siblings of one base and the module's classes by name
    # were found by scanning the module again for every method: 1,000 classes of
    # `__init__(self, d, **kwargs)` took 27 s (7.5 s before round AI's base lookups).
    # They are indexed once a module tree.
    feature.write("pkg/base.py", "class Base:\n    def run(self):\n        pass\n")
    classes = "".join(
        f"class B{i}(base.Base):\n    def __init__(self, d: int, **kwargs):\n        self.d = d\n"
        for i in range(4000)
    )
    feature.write("pkg/many.py", f"import pkg.base as base\n\n{classes}")
    # One class of another base, alone: its unused dict is its own (✗).
    feature.write(
        "pkg/alone.py",
        "class Lone:\n    def __init__(self, d: int, **kwargs):\n        self.d = d\n",
    )
    feature.commit("add")
    found, elapsed = _kwargs_findings(run, "pkg/many.py")
    # A family of 4,000 siblings leaving the dict unused: the dispatch's signature.
    assert found == []
    alone, _elapsed = _kwargs_findings(run, "pkg/alone.py")
    assert [(line, sev) for line, sev, _m in alone] == [(2, "error")]
    assert elapsed < 30, elapsed
