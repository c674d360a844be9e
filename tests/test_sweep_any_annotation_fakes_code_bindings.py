# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a fake of what an unannotated class method returns, or passed to an
untyped parameter, is named by what the code under test itself says: the class the
repository binds that method's value to (``config: PretrainedConfig =
AutoConfig.from_pretrained(...)``), and the class its own calls of the function pass
for that parameter, when every such binding agrees."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Repo
from tests.sweep_fixture import Run, found
from tests.test_sweep_any_annotation_fakes_patched_lambdas import CONFIG as PACKAGE_CONFIG

# The package stub of test_sweep_any_annotation_fakes_patched_lambdas, with two
# unannotated class methods that return the config.
CONFIG = (
    PACKAGE_CONFIG
    + """

class AutoConfig:
    @classmethod
    def from_pretrained(cls, path, **kwargs):
        return PreTrainedConfig()


class AutoThing:
    @classmethod
    def from_pretrained(cls, path, **kwargs):
        return PreTrainedConfig()
"""
)

LOADER = """\
from enginelib.hf import AutoConfig, AutoThing, PretrainedConfig

from pkg.base import Model


def load(path: str) -> list[str]:
    config: PretrainedConfig = AutoConfig.from_pretrained(path)
    return Model.layer_modules(config, None)


def write(path: str) -> list[str]:
    config = AutoConfig.from_pretrained(path)
    other = AutoThing.from_pretrained(path)
    return Model.layer_modules(model_config=config, quantize_config=other)


def detect(path: str) -> str:
    config = AutoConfig.from_pretrained(path)
    return config.model_type
"""

BASE = """\
class Model:
    @classmethod
    def layer_modules(cls, model_config, quantize_config, strict: bool = False):
        return [str(getattr(model_config, "n_experts", 0))]

    @classmethod
    def other_modules(cls, model_config):
        return []
"""

TEST = """\
from types import SimpleNamespace

from pkg import loader
from pkg.base import Model


def test_detect(monkeypatch) -> None:
    fake_config = SimpleNamespace(model_type="tiny")
    monkeypatch.setattr(loader.AutoConfig, "from_pretrained", lambda *a, **k: fake_config)
    monkeypatch.setattr(loader.AutoThing, "from_pretrained", lambda *a, **k: SimpleNamespace(model_type="x"))
    assert loader.detect("p") == "tiny"


def test_layers() -> None:
    config = SimpleNamespace()
    assert Model.layer_modules(config, None)
    assert Model.layer_modules(model_config=SimpleNamespace(n_experts=3), quantize_config=SimpleNamespace(bits=4))
    assert Model.other_modules(SimpleNamespace(n_experts=3)) == []
"""


def test_a_fake_named_by_the_code_bindings(feature: Repo, run: Run, site: Path) -> None:
    # gptqmodel (set t): ``AutoConfig.from_pretrained`` has no ``-> T``; the loader binds
    # its value as ``config: PretrainedConfig`` (the only class it is bound to), so a
    # fake the patched method returns is one (line 8). ``AutoThing.from_pretrained`` is
    # bound to no annotated name: ⚠ (line 10). ``layer_modules``' ``model_config`` is
    # untyped; the code passes it ``config`` annotated ``PretrainedConfig`` and
    # ``config`` bound to ``AutoConfig.from_pretrained(...)`` (both that class): ✗ for
    # the local empty fake and the keyword one (lines 15, 17). ``quantize_config`` gets
    # an unknown value (its fake on line 17 stays ⚠), and ``other_modules`` has no
    # caller in the code (⚠, line 18).
    (site / "enginelib" / "hf.py").write_text(CONFIG)
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/base.py", BASE)
    feature.write("pkg/loader.py", LOADER)
    feature.write("tests/test_loader.py", TEST)
    feature.commit("add")
    rows = [
        (line, severity, message)
        for path, line, severity, message in found(run, "any-annotation")
        if path.startswith("tests/")
    ]
    errors = [(line, message) for line, severity, message in rows if severity == "error"]
    assert [line for line, _m in errors] == [8, 15, 17], rows
    for _line, message in errors:
        assert "stands in for `PretrainedConfig`" in message, message
    assert "bound as a `PretrainedConfig`" in errors[0][1]
    assert "calls of `layer_modules` pass for `model_config`" in errors[1][1]
    assert [line for line, severity, _m in rows if severity == "warning"] == [10, 17, 18], rows
