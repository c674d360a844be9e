# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a fake set as an attribute of a real object the test builds
(``Recipe.__new__(Recipe)``, ``object.__new__(Backend)``): the type the object's class
(or a base) declares for that attribute (``self.dist_env = init_dist(...)`` with
``init_dist``'s ``-> DistInfo`` or its docstring's ``Returns:``) names what it mimics; a
plain service class declared there leaves the ⚠."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_DIST = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass DistInfo:\n"
    "    rank: int\n    world_size: int\n    is_main: bool\n\n\n"
    "def init_dist(backend):\n"
    '    """Set up the process group.\n\n'
    "    Returns:\n"
    "        DistInfo: the environment.\n"
    '    """\n'
    "    return DistInfo(0, 1, True)\n"
)
_BASE = (
    "from pkg.dist import init_dist\n\n\n"
    "class Scheduler:\n"
    "    def __init__(self, step):\n"
    "        self.step = step\n\n\n"
    "class BaseRecipe:\n"
    "    def setup(self):\n"
    '        self.dist_env = init_dist("nccl")\n'
    "        self.scheduler = Scheduler(0)\n"
)
_RECIPE = (
    "from pkg.base import BaseRecipe\n\n\n"
    "class SFTRecipe(BaseRecipe):\n"
    "    def step(self):\n"
    "        return self.dist_env.world_size\n"
)


def _rows(run: Run) -> list[tuple[int, str, str]]:
    return [(r[1], r[2], r[3]) for r in found(run, "any-annotation") if r[0].startswith("tests/")]


def test_a_fake_set_on_an_attribute_a_base_class_types(feature: Repo, run: Run) -> None:
    """Automodel: ``recipe = SFTRecipe.__new__(SFTRecipe); recipe.dist_env =
    SimpleNamespace(world_size=1)``, the base class sets ``self.dist_env =
    init_dist(...)`` whose docstring returns ``DistInfo`` (a ``@dataclass``): ✗ naming it;
    ``recipe.scheduler = SimpleNamespace(step=0)`` fakes a plain class: ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/dist.py", _DIST)
    feature.write("pkg/base.py", _BASE)
    feature.write("pkg/recipe.py", _RECIPE)
    feature.write(
        "tests/test_recipe.py",
        "from types import SimpleNamespace\n\nfrom pkg.recipe import SFTRecipe\n\n\n"
        "def test_step() -> None:\n"
        "    recipe = SFTRecipe.__new__(SFTRecipe)\n"
        "    recipe.dist_env = SimpleNamespace(world_size=1)\n"  # 8
        "    recipe.scheduler = SimpleNamespace(step=0)\n"  # 9
        "    assert recipe.step() == 1\n",
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(8, "error"), (9, "warning")]
    assert "new `SimpleNamespace` fake stands in for `DistInfo` (pkg/dist.py;" in rows[0][2]
    assert "the attribute `dist_env` of `SFTRecipe`" in rows[0][2]


def test_a_fake_set_on_an_attribute_a_return_annotation_types(feature: Repo, run: Run) -> None:
    """SkyRL: ``backend = object.__new__(Backend); backend._cfg = SimpleNamespace(trainer=
    ...)`` where ``Backend`` sets ``self._cfg = _build(...)`` and ``_build(...) ->
    TrainConfig`` (a ``@dataclass`` with ``trainer``): ✗; the same fake set on an attribute
    the class leaves untyped (``self._other = None``) is ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/backend.py",
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass TrainConfig:\n    trainer: str\n    seed: int = 0\n\n\n"
        "def _build(model: str) -> TrainConfig:\n"
        "    return TrainConfig(trainer=model)\n\n\n"
        "class Backend:\n"
        "    def __init__(self) -> None:\n"
        "        self._cfg = None\n"
        "        self._other = None\n\n"
        "    def create(self, model: str) -> None:\n"
        "        self._cfg = _build(model)\n",
    )
    feature.write(
        "tests/test_backend.py",
        "from types import SimpleNamespace\n\nfrom pkg.backend import Backend\n\n\n"
        "def _backend() -> Backend:\n"
        "    backend = object.__new__(Backend)\n"
        '    backend._cfg = SimpleNamespace(trainer="fsdp")\n'  # 8
        '    backend._other = SimpleNamespace(trainer="fsdp")\n'
        "    return backend\n",
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(8, "error"), (9, "warning")]
    assert "new `SimpleNamespace` fake stands in for `TrainConfig` (pkg/backend.py;" in rows[0][2]
    assert "`_build` -> `TrainConfig`" in rows[0][2]
