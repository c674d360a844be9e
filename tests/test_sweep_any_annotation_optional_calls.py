# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a return annotation that cannot hold None over a ``return`` of a
call whose function is annotated to return an Optional: the checklist's own example, ``-> bool``
that returns ``Optional[bool]``, one call away (mergekit's ``-> str`` property handing on
an Optional, marker's extractors). The callee must be certain: a module-level ``def`` of
the file (its only binding), a function an imported module of the repository defines, or
``self.method(...)`` of the same class."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

FIND = """\
from typing import List, Optional, Union


class Page:
    pass


def find(name: str) -> Optional[str]:
    return name or None


def pages(name: str) -> "Optional[Page]":
    return Page() if name else None


def new_style(name: str) -> str | None:
    return name or None


def none_first(name: str) -> Union[None, str]:
    return name or None


def listed(name: str) -> List[Optional[str]]:
    return [name or None]
"""


def errors(run: Run) -> list[tuple[int, str]]:
    """(line, message) of each any-annotation ✗ in ``pkg/use.py``."""
    return sorted(
        (line, m)
        for path, line, severity, m in found(run, "any-annotation")
        if severity == "error" and path == "pkg/use.py"
    )


def _write(feature: Repo, body: str, find: str = FIND) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/find.py", find)
    feature.write("pkg/use.py", body)
    feature.commit("use")


@pytest.mark.parametrize(
    ("callee", "annotation"),
    [
        ("find", "str"),
        ("pages", "Page"),
        ("new_style", "str"),
        ("none_first", "str"),
    ],
)
def test_a_return_of_an_imported_optional_call_is_blocking(
    feature: Repo, run: Run, callee: str, annotation: str
) -> None:
    _write(
        feature,
        f"from pkg.find import Page, {callee}\n\n\n"
        f"def must(name: str) -> {annotation}:\n"
        f"    return {callee}(name)\n",
    )
    [(line, message)] = errors(run)
    assert line == 4
    assert f"returns `{callee}(name)`, annotated `-> " in message
    assert f"annotate `-> {annotation} | None`" in message


def test_a_module_function_of_the_file_is_read(feature: Repo, run: Run) -> None:
    _write(
        feature,
        "from typing import Optional\n\n\n"
        "def lookup(key: str) -> Optional[int]:\n"
        "    return {'a': 1}.get(key)\n\n\n"
        "def count(key: str) -> int:\n"
        "    return lookup(key)\n",
    )
    assert [line for line, _m in errors(run)] == [8]


def test_a_method_of_the_class_is_read(feature: Repo, run: Run) -> None:
    _write(
        feature,
        "from typing import Optional\n\n\n"
        "class Definition:\n"
        "    def _key(self) -> Optional[str]:\n"
        "        return None\n\n"
        "    @property\n"
        "    def num_layers_key(self) -> str:\n"
        "        return self._key()\n",
    )
    [(line, message)] = errors(run)
    assert line == 9
    assert "returns `self._key()`, annotated `-> Optional[str]`" in message


@pytest.mark.parametrize(
    "body",
    [
        # the caller's annotation admits None
        "from pkg.find import find\n\n\ndef maybe(name: str) -> str | None:\n"
        "    return find(name)\n",
        # an Optional inside a container is not the return's None
        "from typing import List\nfrom pkg.find import listed\n\n\n"
        "def all_of(name: str) -> List[str]:\n    return listed(name)\n",
        # a default handles the None
        "from pkg.find import find\n\n\ndef must(name: str) -> str:\n    return find(name) or ''\n",
        # the name is the function's own parameter, not the module's function
        "def must(name: str, find) -> str:\n    return find(name)\n",
        # a local rebinding
        "from pkg.find import find\n\n\ndef must(name: str) -> str:\n"
        "    find = str.upper\n    return find(name)\n",
        # a generator's annotation is about what it yields
        "from typing import Iterator\nfrom pkg.find import find\n\n\n"
        "def each(name: str) -> Iterator[str]:\n    yield name\n    return find(name)\n",
    ],
)
def test_no_finding_when_none_is_handled_or_the_callee_uncertain(
    feature: Repo, run: Run, body: str
) -> None:
    _write(feature, body)
    assert errors(run) == []


def test_a_function_defined_twice_is_not_certain(feature: Repo, run: Run) -> None:
    _write(
        feature,
        "from typing import Optional\n\n\n"
        "def lookup(key: str) -> Optional[int]:\n    return None\n\n\n"
        "def lookup(key: str) -> int:\n    return 1\n\n\n"
        "def count(key: str) -> int:\n    return lookup(key)\n",
    )
    assert errors(run) == []


def test_an_old_return_in_an_old_function_is_not_reported(feature: Repo, run: Run) -> None:
    feature.git("checkout", "-q", "main")
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/find.py", FIND)
    body = "from pkg.find import find\n\n\ndef must(name: str) -> str:\n    return find(name)\n"
    feature.write("pkg/use.py", body)
    feature.commit("old")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write("pkg/use.py", body + "\n\ndef other() -> int:\n    return 1\n")
    feature.commit("unrelated")
    assert errors(run) == []


ARCH = """\
from typing import Optional

from pydantic import BaseModel


class Definition(BaseModel):
    num_layers_config_key: Optional[str] = None
    name: str = ""


class ArchitectureInfo(BaseModel):
    definition: Definition
    cached: Optional[int] = None

    def __init__(self, **data):
        super().__init__(**data)
        self.loaded: "Optional[dict]" = None

{method}
"""


@pytest.mark.parametrize(
    ("method", "declared"),
    [
        (
            "    def num_layers_config_key(self) -> str:\n"
            "        return self.definition.num_layers_config_key\n",
            "Optional[str]",
        ),
        ("    def size(self) -> int:\n        return self.cached\n", "Optional[int]"),
        ("    def state(self) -> dict:\n        return self.loaded\n", "Optional[dict]"),
    ],
)
def test_a_return_of_an_optional_attribute_is_blocking(
    feature: Repo, run: Run, method: str, declared: str
) -> None:
    _write(feature, ARCH.format(method=method))
    [(line, message)] = errors(run)
    assert line == 19
    assert f"declared `{declared}`" in message


@pytest.mark.parametrize(
    "method",
    [
        # narrowed before the return
        "    def size(self) -> int:\n"
        "        assert self.cached is not None\n        return self.cached\n",
        "    def size(self) -> int:\n"
        "        if self.cached is None:\n            raise ValueError\n        return self.cached\n",
        # a field that is not Optional
        "    def name(self) -> str:\n        return self.definition.name\n",
        # an attribute of an attribute the class does not annotate with a module class
        "    def other(self) -> str:\n        return self.missing.num_layers_config_key\n",
        # the annotation admits None
        "    def size(self) -> Optional[int]:\n        return self.cached\n",
        # None only until a set-up method sets it (forge's `policy_version`)
        "    def setup(self):\n        self.cached = 0\n\n"
        "    def size(self) -> int:\n        return self.cached\n",
    ],
)
def test_no_finding_for_a_narrowed_or_unknown_attribute(
    feature: Repo, run: Run, method: str
) -> None:
    _write(feature, ARCH.format(method=method))
    assert errors(run) == []


@pytest.mark.timing
def test_thousands_of_optional_properties_stay_fast(feature: Repo, run: Run) -> None:
    """A class's attributes are read in one walk of its methods, kept for the module: a
    class of 2,000 Optional fields and 2,000 properties returning them is not 2,000 walks
    of 2,000 methods."""
    count = 2000
    fields = "".join(f"    f{i}: Optional[int] = None\n" for i in range(count))
    props = "".join(
        f"    @property\n    def p{i}(self) -> int:\n        return self.f{i}\n\n"
        for i in range(count)
    )
    _write(feature, f"from typing import Optional\n\n\nclass Wide:\n{fields}\n{props}")
    start = time.perf_counter()
    found = errors(run)
    elapsed = time.perf_counter() - start
    assert len(found) == count
    assert elapsed < 10, elapsed
