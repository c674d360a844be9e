# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``any-annotation`` fakes found through a decorator, a docstring, a nested class or a mock
(torchtitan, lerobot shapes): a fake passed through ``func.__wrapped__(...)`` (the
undecorated function), to a parameter whose type only the docstring names, or standing in
for a class nested in another."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_SETUP = (
    "from dataclasses import dataclass\n\n\n"
    "def wrap():\n"
    "    def deco(fn):\n"
    "        return fn\n"
    "    return deco\n\n\n"
    "@dataclass\n"
    "class SetupConfig:\n"
    "    teleop: object = None\n"
    "    robot: object = None\n\n"
    "    def __post_init__(self):\n"
    "        self.device = self.robot or self.teleop\n\n\n"
    "@wrap()\n"
    "def setup_motors(cfg: SetupConfig):\n"
    "    return cfg.device\n"
)


def test_a_fake_passed_through_wrapped_reaches_the_annotated_parameter(
    feature: Repo, run: Run
) -> None:
    """lerobot ``test_setup_motors.py``: ``motors.setup_motors.__wrapped__(cfg)`` calls the
    undecorated ``setup_motors(cfg: SetupConfig)``: its annotation names the class (✗)."""
    feature.write("robo/__init__.py", "")
    feature.write("robo/setup.py", _SETUP)
    feature.write(
        "tests/test_setup.py",
        "from types import SimpleNamespace\n\n"
        "import robo.setup as motors\n\n\n"
        "def test_setup():\n"
        "    fake = SimpleNamespace(device=SimpleNamespace(type='x'))\n"  # 7
        "    motors.setup_motors.__wrapped__(fake)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows if r[2] == "error"] == [(7, "error")]
    assert "`SetupConfig`" in next(r[3] for r in rows if r[2] == "error")


_CONFIGURABLE = (
    "from dataclasses import dataclass\n\n\n"
    "class Configurable:\n"
    "    @dataclass(kw_only=True)\n"
    "    class Config:\n"
    "        name: str = ''\n"
)
_TRAINER = (
    "from dataclasses import dataclass, field\n\n"
    "from titan.configurable import Configurable\n\n\n"
    "@dataclass\n"
    "class TrainingConfig:\n"
    "    max_norm: float = 1.0\n"
    "    disable_cuda_graphs: bool = False\n\n\n"
    "class Trainer(Configurable):\n"
    "    @dataclass(kw_only=True)\n"
    "    class Config(Configurable.Config):\n"
    "        training: TrainingConfig = field(default_factory=TrainingConfig)\n"
    "        seed: int = 0\n\n"
    "    config: Config\n\n"
    "    def __init__(self, config: Config):\n"
    "        self.config = config\n"
)


def _titan(feature: Repo) -> None:
    feature.write("titan/__init__.py", "")
    feature.write("titan/configurable.py", _CONFIGURABLE)
    feature.write("titan/trainer.py", _TRAINER)
    feature.write(
        "titan/build.py",
        "from titan.trainer import Trainer\n\n\n"
        "def build_model(job: Trainer.Config) -> int:\n"
        "    return job.seed\n",
    )


def test_a_fake_of_a_nested_class_an_annotation_names_inside_its_outer_class(
    feature: Repo, run: Run
) -> None:
    """torchtitan ``test_trainer.py``: ``cast(Trainer, SimpleNamespace(config=
    SimpleNamespace(training=...)))``: ``Trainer`` annotates ``config: Config``, the
    ``Config`` nested in it (a data class): the inner fake is ✗ naming it."""
    _titan(feature)
    feature.write(
        "tests/test_trainer.py",
        "from types import SimpleNamespace\nfrom typing import cast\n\n"
        "from titan.trainer import Trainer\n\n\n"
        "def test_step():\n"
        "    trainer = cast(\n"
        "        Trainer,\n"
        "        SimpleNamespace(\n"
        "            config=SimpleNamespace(training=SimpleNamespace(max_norm=1.0)),\n"  # 11
        "        ),\n"
        "    )\n"
        "    assert trainer\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/") and r[1] == 11]
    errors = [r[3] for r in rows if r[2] == "error"]
    assert any("stands in for `Trainer.Config` (titan/trainer.py;" in m for m in errors), rows


def test_a_fake_passed_to_a_parameter_annotated_with_a_dotted_nested_class(
    feature: Repo, run: Run
) -> None:
    """``build_model(job: Trainer.Config)`` in another module: a fake passed to it is ✗
    naming ``Trainer.Config``, found in the module defining ``Trainer``."""
    _titan(feature)
    feature.write(
        "tests/test_build.py",
        "from types import SimpleNamespace\n\n"
        "from titan.build import build_model\n\n\n"
        "def test_build():\n"
        "    fake = SimpleNamespace(seed=3, training=None)\n"  # 7
        "    assert build_model(fake) == 3\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "error")]
    assert "stands in for `Trainer.Config` (titan/trainer.py;" in rows[0][3]


def test_an_ambiguous_nested_name_names_no_class(feature: Repo, run: Run) -> None:
    """Two classes of one module each nest a ``Config``: a bare ``Config`` names neither
    (the fake stays ⚠)."""
    feature.write("two/__init__.py", "")
    feature.write(
        "two/models.py",
        "from dataclasses import dataclass\n\n\n"
        "class A:\n    @dataclass\n    class Config:\n        seed: int = 0\n\n\n"
        "class B:\n    @dataclass\n    class Config:\n        seed: int = 0\n\n\n"
        "def run(job: 'Config') -> int:\n    return job.seed\n",
    )
    feature.write(
        "tests/test_two.py",
        "from types import SimpleNamespace\n\n"
        "from two.models import run\n\n\n"
        "def test_run():\n"
        "    fake = SimpleNamespace(seed=3)\n"  # 7
        "    assert run(fake) == 3\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "warning")]


_HUB = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\n"
    "class GitRefs:\n"
    "    branches: list\n"
    "    tags: list\n\n\n"
    "class HfApi:\n"
    "    def __init__(self, token=None):\n"
    "        self.token = token\n\n"
    "    def list_repo_refs(\n"
    "        self, repo_id: str, *, repo_type: str | None = None\n"
    "    ) -> GitRefs:\n"
    "        raise NotImplementedError\n"
)


def _hub(feature: Repo) -> None:
    feature.write("hub/__init__.py", "from .api import GitRefs, HfApi\n")
    feature.write("hub/api.py", _HUB)
    feature.write("robo/__init__.py", "")
    feature.write(
        "robo/utils.py",
        "from hub import HfApi\n\n\ndef versions(repo):\n"
        "    return HfApi().list_repo_refs(repo).branches\n",
    )


@pytest.mark.parametrize(
    "make",
    [
        "    api = Mock()\n",
        "    api = Mock(spec=HfApi)\n",
    ],
)
def test_a_fake_a_mocked_method_returns_is_what_the_real_method_returns(
    feature: Repo, run: Run, make: str
) -> None:
    """lerobot ``test_dataset_utils.py``: ``api.list_repo_refs.return_value = fake``
    where ``api`` is what the patched ``HfApi`` returns (or a ``Mock(spec=HfApi)``):
    the fake stands in for what ``HfApi.list_repo_refs`` returns, ``-> GitRefs`` (✗)."""
    _hub(feature)
    feature.write(
        "tests/test_utils.py",
        "from types import SimpleNamespace\nfrom unittest.mock import Mock\n\n"
        "from hub import HfApi\nfrom robo import utils\n\n\n"
        "def test_versions(monkeypatch):\n"
        + make
        + "    api.list_repo_refs.return_value = SimpleNamespace(branches=[], tags=[])\n"  # 10
        "    monkeypatch.setattr(utils, 'HfApi', Mock(return_value=api))\n"
        "    assert utils.versions('r') == []\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(10, "error")]
    assert "stands in for `GitRefs` (hub/api.py;" in rows[0][3]
    assert "`HfApi.list_repo_refs`" in rows[0][3]


def test_a_fake_an_unknown_mock_method_returns_stays_a_warning(feature: Repo, run: Run) -> None:
    """A bare ``Mock()`` that stands for no class: its method's fake stays ⚠."""
    _hub(feature)
    feature.write(
        "tests/test_utils.py",
        "from types import SimpleNamespace\nfrom unittest.mock import Mock\n\n\n"
        "def test_versions():\n"
        "    api = Mock()\n"
        "    api.list_repo_refs.return_value = SimpleNamespace(branches=[], tags=[])\n"  # 7
        "    assert api.list_repo_refs().tags == []\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "warning")]


@pytest.mark.parametrize(
    "doc",
    [
        "    Args:\n        spec (RunSpec): the job's settings.\n",
        "    :param spec: the job's settings.\n    :type spec: RunSpec\n",
        "    :param RunSpec spec: the job's settings.\n",
    ],
    ids=["google", "sphinx-type", "sphinx-param"],
)
def test_a_fake_passed_to_a_parameter_its_docstring_types(
    feature: Repo, run: Run, doc: str
) -> None:
    """torchtitan ``update_from_config(config=...)``: the parameter has no annotation,
    its docstring names the type (Google or Sphinx style): a reviewer reads it as the
    annotation, so a fake passed there is ✗ naming the class."""
    feature.write("job/__init__.py", "")
    feature.write(
        "job/configs.py",
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass RunSpec:\n    steps: int = 1\n    seed: int = 0\n",
    )
    feature.write(
        "job/model.py",
        "from job.configs import RunSpec\n\n\n"
        "class Model:\n"
        "    def update_from_config(self, *, spec):\n"
        '        """Apply the job config.\n\n' + doc + '        """\n'
        "        self.steps = spec.steps\n",
    )
    feature.write(
        "tests/test_model.py",
        "from types import SimpleNamespace\n\nfrom job.model import Model\n\n\n"
        "def test_update():\n"
        "    runtime = SimpleNamespace(steps=3)\n"  # 7
        "    Model().update_from_config(spec=runtime)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "error")]
    assert "stands in for `RunSpec` (job/configs.py;" in rows[0][3]
