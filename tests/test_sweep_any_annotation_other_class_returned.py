# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, ``-> C`` over ``return D(...)`` where ``D`` does not derive from ``C``:
"a **wrong** annotation (actively misleading)".

Megatron-Energon's ``to_cache(...) -> FileCacheLazy`` returning a sibling
``CacheFileLazy``, SWE-agent's ``_run_attempt(...) -> StepOutput`` returning an
``AgentRunResult``. The hierarchy is read from the repository's modules as written
(``Base[T]`` is ``Base``); a class from outside the repository cannot derive from one
inside it, and any link the reading is unsure of (a star import, a base computed by a
call, a module it cannot read, a ``Protocol``) makes no finding."""

from __future__ import annotations

import time
from functools import partial

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

FEATURE_BASE = {"pkg/__init__.py": ""}

rows = partial(found, rule="any-annotation")

BASE = """\
from typing import Generic, TypeVar

T = TypeVar("T")


class Lazy(Generic[T]):
    pass


class MockLazy(Lazy[T]):
    pass
"""

POOL = """\
from collections import OrderedDict

from pkg.base import Lazy, MockLazy, T


class FileCacheLazy(Lazy[T]):
    pass


class CacheFileLazy(Lazy[T]):
    pass


class SpecialFileCacheLazy(FileCacheLazy[T]):
    pass


class Ordered(OrderedDict):
    pass


def to_cache(name: str) -> FileCacheLazy:
    return CacheFileLazy()


def to_mock(name: str) -> "FileCacheLazy | None":
    if not name:
        return None
    return MockLazy()


def special(name: str) -> FileCacheLazy:
    return SpecialFileCacheLazy()


def ordered(name: str) -> FileCacheLazy:
    return Ordered()


def base(name: str) -> Lazy:
    return CacheFileLazy()
"""


def test_a_class_outside_the_annotated_hierarchy_is_one_x(feature: Repo, run: Run) -> None:
    """A sibling (same generic base), a class of another module, a class deriving from
    an installed one: ✗ each, naming both classes. A subclass, and the shared base as
    the annotation: no finding."""
    feature.write("pkg/base.py", BASE)
    feature.write("pkg/pool.py", POOL)
    feature.commit("new")
    got = {line: message for _p, line, sev, message in rows(run) if sev == "error"}
    assert sorted(got) == [22, 26, 36]
    assert "returns `CacheFileLazy()` on line 23" in got[22]
    assert "`CacheFileLazy` is not a `FileCacheLazy`" in got[22]
    assert "`MockLazy` is not a `FileCacheLazy`" in got[26]
    assert "`Ordered` is not a `FileCacheLazy`" in got[36]


UNSURE = """\
from pkg.star import *
from pkg.missing import Gone


class Wanted:
    pass


class Shape(Protocol):
    pass


def make_class():
    return object


class Computed(make_class()):
    pass


class FromGone(Gone):
    pass


class Plain:
    pass


def a() -> Wanted:
    return Starred()


def b() -> Wanted:
    return Computed()


def c() -> Wanted:
    return FromGone()


def d() -> Shape:
    return Plain()


def e() -> dict:
    return Plain()


def f() -> Wanted:
    Plain = Wanted
    return Plain()
"""


def test_an_unsure_hierarchy_is_no_finding(feature: Repo, run: Run) -> None:
    """A class from a star import, a base computed by a call, a base from a repository
    module that is not there, a ``Protocol`` annotation, a builtin annotation and a
    name the function rebinds: no ✗."""
    feature.write("pkg/star.py", "class Starred:\n    pass\n")
    feature.write("pkg/unsure.py", UNSURE.replace("class Shape(Protocol)", "class Shape(P)"))
    feature.write(
        "pkg/unsure.py",
        "from typing import Protocol as P\n" + UNSURE.replace("(Protocol)", "(P)"),
    )
    feature.commit("new")
    assert [(line, m) for _p, line, sev, m in rows(run) if sev == "error"] == []


OLD = """\
class Out:
    pass


class Other:
    pass


def build(flag: bool) -> Out:
    return Out()
"""


def test_a_body_edit_of_an_old_signature_is_not_reported(feature: Repo, run: Run) -> None:
    """The change adds the return to an old function whose signature it leaves alone:
    the annotation is not the change's. Rewriting the signature states it anew: ✗."""
    feature.on_main({"pkg/old.py": OLD})
    feature.write(
        "pkg/old.py",
        OLD.replace("    return Out()", "    if flag:\n        return Other()\n    return Out()"),
    )
    feature.commit("body")
    assert [sev for _p, _l, sev, _m in rows(run)] == []
    feature.write(
        "pkg/old.py",
        OLD.replace(
            "    return Out()", "    if flag:\n        return Other()\n    return Out()"
        ).replace("def build(flag: bool)", "def build(flag: bool, name: str)"),
    )
    feature.commit("signature")
    got = [(line, sev) for _p, line, sev, _m in rows(run)]
    assert got == [(9, "error")]


@pytest.mark.timing
def test_a_deep_or_cyclic_hierarchy_is_bounded(feature: Repo, run: Run) -> None:
    """A 3,000-class chain: unsure past the bound, no ✗. A cycle across two modules
    ends where it meets itself: ``A`` derives from no ``T`` either way, one ✗. The sweep
    ends in seconds."""
    chain = ["class C0:\n    pass\n"]
    chain += [f"class C{i}(C{i - 1}):\n    pass\n" for i in range(1, 3000)]
    chain.append("class Target:\n    pass\n")
    chain.append("def deep() -> Target:\n    return C2999()\n")
    feature.write("pkg/deep.py", "\n\n".join(chain))
    feature.write("pkg/ring_a.py", "from pkg.ring_b import B\n\n\nclass A(B):\n    pass\n")
    feature.write(
        "pkg/ring_b.py",
        "from pkg.ring_a import A\n\n\nclass B(A):\n    pass\n\n\nclass T:\n    pass\n\n\n"
        "def ring() -> T:\n    return A()\n",
    )
    feature.commit("hostile")
    start = time.monotonic()
    got = [(p, line) for p, line, sev, _m in rows(run) if sev == "error"]
    assert time.monotonic() - start < 30
    assert got == [("pkg/ring_b.py", 12)]
