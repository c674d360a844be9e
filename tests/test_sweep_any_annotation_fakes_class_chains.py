# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, test fakes and class chains: a fake whose keywords fit a base class and
its subclass names the base (one class chain), and a fake with one keyword that only one
class chain declares, passed to the code under test (``validation_config: Any``), is ✗."""

from __future__ import annotations

from policytool.rules import _fakes as fakes
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_ARGS = (
    "from dataclasses import dataclass, field\n\n\n"
    "@dataclass\nclass EncoderConfig:\n    hidden_size: int = 0\n\n\n"
    "@dataclass\nclass PipelineConfig:\n"
    "    text_encoder_configs: tuple[EncoderConfig, ...] = field(default_factory=tuple)\n"
    "    flow_shift: float = 1.0\n\n\n"
    "@dataclass\nclass WanPipelineConfig(PipelineConfig):\n"
    "    text_encoder_configs: tuple[EncoderConfig, ...] = field(default_factory=tuple)\n"
    "    boundary_ratio: float = 0.0\n\n\n"
    "@dataclass\nclass FastArgs:\n"
    "    output_type: str = 'pil'\n    pin_cpu_memory: bool = False\n"
    "    vsa_sparsity: float = 0.0\n    pipeline_config: PipelineConfig | None = None\n\n\n"
    "@dataclass\nclass TrainingArgs(FastArgs):\n    learning_rate: float = 0.0\n\n\n"
    "@dataclass\nclass StreamA:\n    all_gather: int = 0\n\n\n"
    "@dataclass\nclass StreamB:\n    all_gather: int = 0\n"
)
_CODE = (
    "from typing import Any\n\n\n"
    "class ValidationCallback:\n"
    "    @staticmethod\n"
    "    def keep_widths(validation_config: Any, loaded_config: Any) -> None:\n"
    "        loaded = getattr(loaded_config, 'text_encoder_configs', ())\n"
    "        for enc in loaded:\n"
    "            validation_config.text_encoder_configs[0].hidden_size = enc.hidden_size\n\n\n"
    "def render(args: Any) -> str:\n"
    "    return str(args.output_type)\n"
)


def _tree(feature: Repo) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/configs.py", _ARGS)
    feature.write("pkg/validation.py", _CODE)


def test_fields_of_a_base_and_its_subclass_name_the_base(feature: Repo, run: Run) -> None:
    """FastVideo ``_single_video_args()``: every keyword is a field of ``FastArgs`` and
    of ``TrainingArgs(FastArgs)``: one chain, a reviewer names the base (✗). Two
    unrelated classes with the fields stay ⚠ (which one is a guess)."""
    _tree(feature)
    feature.write(
        "tests/test_render.py",
        "from types import SimpleNamespace\n\nfrom pkg.validation import render\n\n\n"
        "def _args():\n"
        "    return SimpleNamespace(\n"  # 7: ✗ FastArgs
        "        output_type='pil', pin_cpu_memory=False, vsa_sparsity=0.0,\n"
        "        pipeline_config=None,\n    )\n\n\n"
        "def test_render():\n"
        "    assert render(_args()) == 'pil'\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "error")]
    assert "stands in for `FastArgs` (pkg/configs.py;" in rows[0][3]
    assert "only of its subclasses" in rows[0][3]


def test_one_keyword_of_one_class_chain_passed_to_the_code_names_the_base(
    feature: Repo, run: Run
) -> None:
    """FastVideo ``test_validation.py``: ``SimpleNamespace(text_encoder_configs=...)``
    passed to ``keep_widths(validation_config: Any, ...)``: the one keyword is declared by
    ``PipelineConfig`` and a subclass re-declaring it only: ✗ ``PipelineConfig``. The same
    fake not passed to the code (an attribute of a test object), a keyword two unrelated
    classes declare (``all_gather``), or a keyword no class declares, stay ⚠."""
    _tree(feature)
    feature.write(
        "tests/test_validation.py",
        "from types import SimpleNamespace\n\nfrom pkg.validation import ValidationCallback\n\n\n"
        "def test_keep():\n"
        "    validation = SimpleNamespace(text_encoder_configs=())\n"  # 7: ✗
        "    loaded = SimpleNamespace(text_encoder_configs=())\n"  # 8: ✗
        "    ValidationCallback.keep_widths(validation, loaded)\n"
        "    holder = SimpleNamespace()\n"  # 10: ⚠ (empty, bound to nothing typed)
        "    holder.args = SimpleNamespace(text_encoder_configs=())\n"  # 11: ⚠ not passed
        "    group = SimpleNamespace(all_gather=1)\n"  # 12: ⚠ two classes
        "    ValidationCallback.keep_widths(group, loaded)\n"
        "    other = SimpleNamespace(unknown_field=1)\n"  # 14: ⚠ no class
        "    ValidationCallback.keep_widths(other, loaded)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (7, "error"),
        (8, "error"),
        (10, "warning"),
        (11, "warning"),
        (12, "warning"),
        (14, "warning"),
    ]
    assert "stands in for `PipelineConfig` (pkg/configs.py;" in rows[0][3]
    assert "its keyword `text_encoder_configs`" in rows[0][3]
    assert "passed to the code under test" in rows[0][3]


def test_by_fields_needs_a_slot_for_fewer_names(feature: Repo) -> None:
    """The API: one keyword names the chain's base only when the fake fills a slot of the
    code under test."""
    _tree(feature)
    finder = fakes.Finder(str(feature.root))
    keywords = frozenset({"text_encoder_configs"})
    assert fakes.by_fields(finder, keywords, (), False, []) is None
    got = fakes.by_fields(finder, keywords, (), False, [], "", True)
    assert got is not None and got[0].name == "PipelineConfig"
    two = fakes.by_fields(finder, frozenset({"all_gather"}), (), False, [], "", True)
    assert two is None


def test_a_fake_returned_by_a_function_patched_over_subprocess_run(feature: Repo, run: Run) -> None:
    """FastVideo ``test_pr_test.py``: ``fake_run`` returns ``SimpleNamespace(returncode=0)``
    and is patched over ``subprocess.run`` (``monkeypatch.setattr(module.subprocess,
    "run", fake_run)``, ``patch("subprocess.run", side_effect=...)``): the stdlib function
    has no annotation, its ``return`` builds a ``CompletedProcess``: ✗ naming it. A
    keyword ``CompletedProcess`` lacks, or a repository function returning a plain
    (non-record) class, stay ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/runner.py",
        "import subprocess\n\n\nclass Layer:\n    def __init__(self):\n        self.size = 1\n\n\n"
        "def make_layer():\n    return Layer()\n\n\n"
        "def checkout() -> int:\n    return subprocess.run(['git']).returncode\n",
    )
    feature.write(
        "tests/test_runner.py",
        "import types\nfrom unittest import mock\n\nimport pkg.runner as module\n\n\n"
        "def test_checkout(monkeypatch):\n"
        "    def fake_run(command, **kwargs):\n"
        "        return types.SimpleNamespace(returncode=0)\n"  # 9: ✗
        "    monkeypatch.setattr(module.subprocess, 'run', fake_run)\n"
        "    assert module.checkout() == 0\n\n\n"
        "def test_patch():\n"
        "    def other(*args, **kwargs):\n"
        "        return types.SimpleNamespace(returncode=1, stdout='')\n"  # 16: ✗
        "    def odd(*args, **kwargs):\n"
        "        return types.SimpleNamespace(returncode=1, pid=3)\n"  # 18: ⚠ no such field
        "    def layer():\n"
        "        return types.SimpleNamespace(size=2)\n"  # 20: ⚠ a plain class
        "    with mock.patch('subprocess.run', side_effect=other):\n"
        "        assert module.checkout() == 1\n"
        "    with mock.patch('subprocess.run', side_effect=odd):\n"
        "        assert module.checkout() == 1\n"
        "    with mock.patch('pkg.runner.make_layer', side_effect=layer):\n"
        "        pass\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (9, "error"),
        (16, "error"),
        (18, "warning"),
        (20, "warning"),
    ]
    assert "stands in for `CompletedProcess`" in rows[0][3]
    assert "what the patched `subprocess.run` returns" in rows[0][3]


def test_a_name_the_repository_annotates_with_one_class_names_it(feature: Repo, run: Run) -> None:
    """tpu-inference ``_vllm_config()`` returns ``SimpleNamespace(additional_config=...,
    model_config=...)`` for ``resolve_generation_strategy(vllm_config: Any)``; the code it
    tests imports no ``VllmConfig``, but the repository annotates ``vllm_config:
    VllmConfig`` everywhere else: ✗ naming it (and its ``model_config`` through the field).
    A name annotated with two classes, or too seldom, stays ⚠; an empty fake is never
    typed by a name alone."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/defs.py",
        "from dataclasses import dataclass, field\n\n\n"
        "@dataclass\nclass ModelConfig:\n    hf_config: object = None\n\n\n"
        "@dataclass\nclass EngineConfig:\n    additional_config: dict = field(default_factory=dict)\n"
        "    model_config: ModelConfig = field(default_factory=ModelConfig)\n\n\n"
        "@dataclass\nclass OtherConfig:\n    additional_config: dict = field(default_factory=dict)\n",
    )
    users = "".join(
        f"def use{i}(engine_config: EngineConfig, mixed_config: "
        f"{'EngineConfig' if i % 2 else 'OtherConfig'}) -> None:\n    pass\n\n\n"
        for i in range(6)
    )
    feature.write("pkg/users.py", "from pkg.defs import EngineConfig, OtherConfig\n\n\n" + users)
    feature.write(
        "pkg/strategy.py",
        "from typing import Any\n\n\ndef resolve(engine_config: Any, mixed_config: Any) -> dict:\n"
        "    return engine_config.additional_config\n",
    )
    feature.write(
        "tests/test_strategy.py",
        "from types import SimpleNamespace\n\nfrom pkg.strategy import resolve\n\n\n"
        "def _engine_config(extra=None):\n"
        "    return SimpleNamespace(\n"  # 7: ✗ EngineConfig
        "        additional_config=extra or {},\n"
        "        model_config=SimpleNamespace(hf_config=None),\n"  # 9: ✗ ModelConfig
        "    )\n\n\n"
        "def _mixed_config():\n"
        "    return SimpleNamespace(additional_config={})\n\n\n"  # 14: ⚠ two classes
        "def _engine_config_empty():\n"
        "    engine_config = SimpleNamespace()\n"  # 18: ⚠ a name alone
        "    return engine_config\n\n\n"
        "def test_resolve():\n"
        "    assert resolve(_engine_config(), _mixed_config()) == {}\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (7, "error"),
        (9, "error"),
        (14, "warning"),
        (18, "warning"),
    ]
    assert "the name `engine_config`, annotated `EngineConfig` 6 times" in rows[0][3]
    assert "stands in for `ModelConfig`" in rows[1][3]


def test_a_parametrized_fake_reaches_the_code_through_the_test_parameter(
    feature: Repo, run: Run
) -> None:
    """FastVideo: ``@pytest.mark.parametrize("validation, loaded", [(SimpleNamespace(),
    SimpleNamespace(text_encoder_configs=())), ...])`` and the test passes ``loaded`` to
    ``keep_widths(..., loaded_config: Any)``: the fake fills that slot (✗
    ``PipelineConfig``); an empty one stays ⚠, and so does the fake of a parameter the test
    passes to nothing of the code."""
    _tree(feature)
    feature.write(
        "tests/test_param.py",
        "from types import SimpleNamespace\n\nimport pytest\n\n"
        "from pkg.validation import ValidationCallback\n\n\n"
        "@pytest.mark.parametrize(\n"
        "    'validation, loaded',\n"
        "    [\n"
        "        (SimpleNamespace(), SimpleNamespace(text_encoder_configs=())),\n"  # 11
        "    ],\n)\n"
        "def test_noop(validation, loaded):\n"
        "    ValidationCallback.keep_widths(validation, loaded)\n\n\n"
        "@pytest.mark.parametrize('cfg', [SimpleNamespace(text_encoder_configs=())])\n"  # 18
        "def test_unused(cfg):\n"
        "    assert cfg\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert sorted((r[1], r[2]) for r in rows) == [
        (11, "error"),
        (11, "warning"),
        (18, "warning"),
    ]


_ENCODERS = (
    "from dataclasses import dataclass, field\n\n\n"
    "@dataclass\nclass ArchConfig:\n    mapping: list = field(default_factory=list)\n\n\n"
    "@dataclass\nclass TextArchConfig(ArchConfig):\n    hidden_size: int = 0\n    text_len: int = 0\n\n\n"
    "@dataclass\nclass ImageArchConfig(ArchConfig):\n    patch: int = 0\n\n\n"
    "@dataclass\nclass ModelConfig:\n    arch_config: ArchConfig = field(default_factory=ArchConfig)\n\n\n"
    "@dataclass\nclass TextConfig(ModelConfig):\n"
    "    arch_config: ArchConfig = field(default_factory=TextArchConfig)\n\n\n"
    "@dataclass\nclass ImageConfig(ModelConfig):\n"
    "    arch_config: ArchConfig = field(default_factory=ImageArchConfig)\n"
)


def test_fits_of_sibling_subclasses_name_their_nearest_common_base(feature: Repo, run: Run) -> None:
    """FastVideo ``_encoder()``: ``SimpleNamespace(arch_config=SimpleNamespace(hidden_size=
    ..., text_len=...))``: the classes whose ``arch_config`` type has both fields are the
    text encoders (``T5Config``, ``LlamaConfig``), siblings under ``TextConfig``, which
    declares ``arch_config``: ✗ naming it (and the inner fake, through that field's
    subclasses, ``TextArchConfig``)."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/base.py", _ENCODERS)
    for name in ("t5", "llama"):
        feature.write(
            f"pkg/{name}.py",
            "from dataclasses import dataclass, field\n\n"
            "from pkg.base import TextArchConfig, TextConfig\n\n\n"
            f"@dataclass\nclass {name.title()}Arch(TextArchConfig):\n    vocab: int = 0\n\n\n"
            f"@dataclass\nclass {name.title()}Config(TextConfig):\n"
            f"    arch_config: TextArchConfig = field(default_factory={name.title()}Arch)\n",
        )
    feature.write(
        "tests/test_enc.py",
        "from types import SimpleNamespace\n\n\n"
        "def _encoder(hidden_size):\n"
        "    return SimpleNamespace(arch_config=SimpleNamespace(hidden_size=hidden_size, text_len=0))\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    errors = [r for r in rows if r[2] == "error"]
    assert [r[1] for r in errors] == [5, 5], rows
    assert any("stands in for `TextConfig` (pkg/base.py;" in r[3] for r in errors), errors
    assert any("stands in for `TextArchConfig`" in r[3] for r in errors), errors


def test_a_fake_of_an_enum_member_in_an_enum_typed_field(feature: Repo, run: Run) -> None:
    """FastVideo: ``workload_type=SimpleNamespace(value="t2v")`` inside a ``FastArgs``
    fake, whose field is ``workload_type: WorkloadType`` (a ``str, Enum``): an enum member
    is a real typed object (✗, use ``WorkloadType.T2V``). A keyword no member has stays ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/args.py",
        "from dataclasses import dataclass\nfrom enum import Enum\n\n\n"
        "class WorkloadType(str, Enum):\n    T2V = 't2v'\n    I2V = 'i2v'\n\n\n"
        "@dataclass\nclass FastArgs:\n    output_type: str = 'pil'\n"
        "    workload_type: WorkloadType = WorkloadType.T2V\n",
    )
    feature.write(
        "tests/test_args.py",
        "from types import SimpleNamespace\n\nfrom pkg.args import FastArgs\n\n\n"
        "def test_args():\n"
        "    args: FastArgs = SimpleNamespace(\n"  # 7: ✗ FastArgs
        "        output_type='pil', workload_type=SimpleNamespace(value='t2v')\n"  # 8: ✗
        "    )\n"
        "    other: FastArgs = SimpleNamespace(\n"  # 10: ✗ FastArgs
        "        output_type='pil', workload_type=SimpleNamespace(mode='t2v')\n"  # 11: ⚠
        "    )\n"
        "    assert args and other\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (7, "error"),
        (8, "error"),
        (10, "error"),
        (11, "warning"),
    ]
    assert "stands in for `WorkloadType`" in rows[1][3]
