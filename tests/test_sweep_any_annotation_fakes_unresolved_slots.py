# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a test fake in a slot only a reviewer's reading resolves.

- Passed to a function the test reaches through an object nothing resolves (a fixture
  that loads a script as a module: ``recipe_runner.sync_model_pipeline_layout(config,
  ...)``, Megatron-Bridge 546021ac): the one ``def`` of that name in the work tree, as a
  reviewer greps for it. A name defined twice names neither, and a callee the test's
  imports define is read there, not by name.
- Set with ``object.__setattr__(obj, "name", fake)``: the attribute it replaces, as for
  ``setattr``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policytool.rules import _fakes as fakes
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

CONFIG = """\
from dataclasses import dataclass


@dataclass
class ModelConfig:
    num_layers: int
    pipeline_stages: int


@dataclass
class ConfigContainer:
    model: ModelConfig
    seed: int = 0
"""

RUNNER = """\
from pkg.config import ConfigContainer


def sync_model_pipeline_layout(config: ConfigContainer, stages: int) -> None:
    config.model.pipeline_stages = stages
"""

TEST = """\
import importlib.util
from types import ModuleType, SimpleNamespace

import pytest


@pytest.fixture
def recipe_runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("runner", "scripts/runner.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_layout(recipe_runner: ModuleType) -> None:
    config = SimpleNamespace(model=None, seed=1)
    recipe_runner.sync_model_pipeline_layout(config, 2)
"""
FAKE_LINE = TEST.splitlines().index("    config = SimpleNamespace(model=None, seed=1)") + 1


def test_a_fake_passed_to_the_one_function_of_that_name_is_an_error(
    feature: Repo, run: Run
) -> None:
    """``scripts/runner.py`` is imported by nothing the test imports: its ``def`` is found
    by name, and its ``config: ConfigContainer`` names the class the fake stands in for."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/config.py", CONFIG)
    feature.write("scripts/runner.py", RUNNER)
    feature.write("tests/test_runner.py", TEST)
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(FAKE_LINE, "error")]
    assert "stands in for `ConfigContainer`" in rows[0][3]
    assert (
        "the parameter `config` of `sync_model_pipeline_layout` it is passed to: "
        "`config: ConfigContainer` in scripts/runner.py" in rows[0][3]
    )


def test_a_name_defined_twice_names_no_function(feature: Repo, run: Run) -> None:
    """A second ``def sync_model_pipeline_layout`` elsewhere in the tree (unannotated):
    which one the fixture loads is not known, so the fake stays ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/config.py", CONFIG)
    feature.write("scripts/runner.py", RUNNER)
    feature.write(
        "scripts/legacy_runner.py",
        "def sync_model_pipeline_layout(config, stages):\n    config.stages = stages\n",
    )
    feature.write("tests/test_runner.py", TEST)
    rows = [r for r in found(run, "any-annotation") if r[0] == "tests/test_runner.py"]
    assert [(r[1], r[2]) for r in rows] == [(FAKE_LINE, "warning")]


def test_a_definition_in_a_test_module_is_not_read(feature: Repo, run: Run) -> None:
    """The one ``def`` of the name lives in a test helper: a fake's slot is the code
    under test's, not another test's, so nothing is found by name."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/config.py", CONFIG)
    feature.write("tests/helpers/runner.py", RUNNER)
    feature.write("tests/test_runner.py", TEST)
    rows = [r for r in found(run, "any-annotation") if r[0] == "tests/test_runner.py"]
    assert [(r[1], r[2]) for r in rows] == [(FAKE_LINE, "warning")]


def test_a_callee_the_imports_define_is_not_looked_up_by_name(feature: Repo, run: Run) -> None:
    """The test imports a module that defines the callee, unannotated: that definition
    is the one called, so an annotated function of the same name elsewhere says
    nothing (⚠)."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/config.py", CONFIG)
    feature.write("scripts/runner.py", RUNNER)
    feature.write(
        "pkg/layout.py", "def sync_model_pipeline_layout(config, stages):\n    return None\n"
    )
    feature.write(
        "tests/test_runner.py",
        "from types import SimpleNamespace\n\nfrom pkg import layout\n\n\n"
        "def test_layout() -> None:\n"
        "    config = SimpleNamespace(model=None, seed=1)\n"  # 7
        "    layout.sync_model_pipeline_layout(config, 2)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0] == "tests/test_runner.py"]
    assert [(r[1], r[2]) for r in rows] == [(7, "warning")]


@pytest.mark.parametrize(
    "call",
    [
        # imported by name from a module neither the tree nor the path holds: that
        # module's function, not the tree's namesake
        "from runnerlib import sync_model_pipeline_layout\n"
        "    sync_model_pipeline_layout(config, 2)\n",
        # called on an imported module: the same
        "import runnerlib\n    runnerlib.sync_model_pipeline_layout(config, 2)\n",
    ],
)
def test_a_callee_of_an_imported_module_is_not_looked_up_by_name(
    feature: Repo, run: Run, call: str
) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/config.py", CONFIG)
    feature.write("scripts/runner.py", RUNNER)
    feature.write(
        "tests/test_runner.py",
        "from types import SimpleNamespace\n\n\n"
        "def test_layout() -> None:\n"
        "    config = SimpleNamespace(model=None, seed=1)\n"  # 5
        "    " + call,
    )
    rows = [r for r in found(run, "any-annotation") if r[0] == "tests/test_runner.py"]
    assert [(r[1], r[2]) for r in rows] == [(5, "warning")]


PROVIDER = """\
from dataclasses import dataclass


@dataclass
class EndpointConfig:
    url: str
    retries: int = 3


class Provider:
    endpoint_config: EndpointConfig

    def __init__(self, url: str) -> None:
        self.endpoint_config = EndpointConfig(url)
"""


def _provider_test(feature: Repo, body: str) -> None:
    """A test of ``Provider`` whose body sets its attributes; pkg/provider.py written."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/provider.py", PROVIDER)
    feature.write(
        "tests/test_provider.py",
        "from types import SimpleNamespace\n\nfrom pkg.provider import Provider\n\n\n"
        "def test_provider() -> None:\n"
        "    provider = object.__new__(Provider)\n" + body,  # the body starts at line 8
    )


def test_a_fake_set_with_object_setattr_stands_in_for_the_attribute(
    feature: Repo, run: Run
) -> None:
    """``object.__setattr__(provider, "endpoint_config", SimpleNamespace(...))`` (the
    bypass of a frozen dataclass's or pydantic model's own ``__setattr__``, trulens
    2fe85d1d) replaces the attribute as ``setattr`` does: the class its annotation names."""
    _provider_test(
        feature,
        '    object.__setattr__(provider, "endpoint_config", SimpleNamespace(url="x"))\n'  # 8
        '    setattr(provider, "endpoint_config", SimpleNamespace(url="y"))\n'  # 9
        "    fake = SimpleNamespace(url='z', retries=1)\n"  # 10
        '    object.__setattr__(provider, "endpoint_config", fake)\n',
    )
    rows = [r for r in found(run, "any-annotation") if r[0] == "tests/test_provider.py"]
    assert [(r[1], r[2]) for r in rows] == [(8, "error"), (9, "error"), (10, "error")]
    assert all("stands in for `EndpointConfig`" in r[3] for r in rows)


def test_object_setattr_of_an_unannotated_attribute_stays_a_warning(
    feature: Repo, run: Run
) -> None:
    """The attribute ``object.__setattr__`` sets is annotated nowhere (and names no
    class): nothing says what the fake stands in for (⚠)."""
    _provider_test(
        feature, '    object.__setattr__(provider, "handle", SimpleNamespace(url="x"))\n'
    )
    rows = [r for r in found(run, "any-annotation") if r[0] == "tests/test_provider.py"]
    assert [(r[1], r[2]) for r in rows] == [(8, "warning")]


def test_the_def_index_answers_as_the_lazy_reads_do(tmp_path: Path) -> None:
    """After ``LAZY_PROBES`` names the index of every module's ``def`` names answers
    (built once: a test of hundreds of such calls reads the tree once): the same
    modules, a test module's ``def`` left out, two at most."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text(
        "def one(x):\n    return x\n\n\nclass C:\n    async def twice(self):\n        pass\n"
    )
    (tmp_path / "pkg" / "b.py").write_text("def twice():\n    pass\n\n\ndef thrice():\n    pass\n")
    (tmp_path / "pkg" / "c.py").write_text("def thrice():\n    pass\n")
    (tmp_path / "pkg" / "d.py").write_text("def thrice():\n    pass\n")
    (tmp_path / "tests" / "helpers.py").write_text("def one(x):\n    return x\n")
    names = ("one", "twice", "thrice", "none")
    lazy = fakes.Finder(str(tmp_path))
    answers = {name: fakes.defining_modules(lazy, name) for name in names}
    assert lazy.def_index is None
    assert answers["one"] == ["pkg.a"]
    assert sorted(answers["twice"]) == ["pkg.a", "pkg.b"]
    assert len(answers["thrice"]) == 2
    assert answers["none"] == []
    indexed = fakes.Finder(str(tmp_path))
    indexed.defining.update({f"zz{i}": [] for i in range(fakes.LAZY_PROBES)})
    assert {name: fakes.defining_modules(indexed, name) for name in names} == answers
    assert indexed.def_index is not None
