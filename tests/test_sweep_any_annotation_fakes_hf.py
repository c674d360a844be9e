# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a test fake of transformers' model config (``SimpleNamespace(
num_hidden_layers=32)`` bound to ``config``) or of a model ``forward``'s ``ModelOutput``
(``return SimpleNamespace(logits=logits)`` in a fake ``forward``), in a repository whose
code imports transformers; the classes are read from the installed package. A config
slot whose keywords no config has, a ``tokenizer`` with config-like keywords, an output
fake outside a ``forward`` and a repository without transformers stay ⚠."""

from __future__ import annotations

from pathlib import Path

import pytest

from policytool.rules import _fake_hf, _fake_packages
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

CONFIG_UTILS = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass PreTrainedConfig:\n"
    "    model_type = ''\n"
    "    architectures: list[str] | None = None\n"
    "    output_hidden_states: bool = False\n\n"
    "    def __post_init__(self) -> None:\n"
    "        self._attn_implementation = None\n\n\n"
    "PretrainedConfig = PreTrainedConfig\n"
)
QWEN_CONFIG = (
    "from ...configuration_utils import PreTrainedConfig\n\n\n"
    "class QwenTextConfig(PreTrainedConfig):\n"
    "    num_hidden_layers: int = 32\n    hidden_size: int = 4096\n\n\n"
    "class QwenVisionConfig(PreTrainedConfig):\n    depth: int = 24\n\n\n"
    "class QwenConfig(PreTrainedConfig):\n"
    "    text_config: QwenTextConfig | None = None\n"
    "    vision_config: QwenVisionConfig | None = None\n"
)
OUTPUTS = (
    "from dataclasses import dataclass\n\nfrom .utils import ModelOutput\n\n\n"
    "@dataclass\nclass BaseModelOutput(ModelOutput):\n"
    "    last_hidden_state: object = None\n    hidden_states: object = None\n\n\n"
    "@dataclass\nclass CausalLMOutput(ModelOutput):\n"
    "    loss: object = None\n    logits: object = None\n    hidden_states: object = None\n\n\n"
    "@dataclass\nclass CausalLMOutputWithPast(ModelOutput):\n"
    "    loss: object = None\n    logits: object = None\n"
    "    past_key_values: object = None\n    hidden_states: object = None\n"
)


@pytest.fixture
def transformers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed ``transformers`` (outside the repository) with a config base, one
    model's configs and the output dataclasses."""
    root = tmp_path / "site" / "transformers"
    (root / "models" / "qwen").mkdir(parents=True)
    (root / "__init__.py").write_text("from .configuration_utils import PreTrainedConfig\n")
    (root / "utils.py").write_text("class ModelOutput(dict):\n    pass\n")
    (root / "configuration_utils.py").write_text(CONFIG_UTILS)
    (root / "modeling_outputs.py").write_text(OUTPUTS)
    (root / "models" / "__init__.py").write_text("")
    (root / "models" / "qwen" / "__init__.py").write_text("")
    (root / "models" / "qwen" / "configuration_qwen.py").write_text(QWEN_CONFIG)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    _fake_packages._package_texts.cache_clear()
    _fake_hf._classes.cache_clear()
    _fake_hf._model_configs.cache_clear()
    return root


CODE = (
    "from transformers import PreTrainedConfig\n\n\n"
    "def n_layers(config, model_type):\n"
    "    return config.text_config.num_hidden_layers\n\n\n"
    "def step(model, ids):\n"
    "    return model(ids).logits\n"
)


def test_config_and_output_fakes_name_the_transformers_class(
    feature: Repo, run: Run, transformers: Path
) -> None:
    """auto-round / gptqmodel / axolotl: a ``config`` fake whose keywords are attributes
    of a model config (nested ones too, by the keyword they fill), a ``*_config`` fake
    of the base's own attributes, and what a fake ``forward`` returns are ✗."""
    feature.write("pkg/gguf.py", CODE)
    feature.write(
        "tests/test_gguf.py",
        "from types import SimpleNamespace\n\nfrom pkg.gguf import n_layers, step\n\n\n"
        "def test_layers() -> None:\n"
        "    config = SimpleNamespace(\n"  # 7
        "        text_config=SimpleNamespace(num_hidden_layers=32),\n"  # 8
        "        vision_config=SimpleNamespace(depth=24),\n"  # 9
        "    )\n"
        "    assert n_layers(config, 'qwen') == 32\n"
        "    mixer_config = SimpleNamespace(_attn_implementation='eager')\n"  # 12
        "    assert mixer_config\n\n\n"
        "class Tiny:\n"
        "    def forward(self, ids):\n"
        "        return SimpleNamespace(logits=ids, past_key_values=None)\n"  # 18
        "\n"
        "    __call__ = forward\n\n\n"
        "def test_step() -> None:\n"
        "    assert step(Tiny(), 1) == 1\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (7, "error"),
        (8, "error"),
        (9, "error"),
        (12, "error"),
        (18, "error"),
    ]
    by_line = {r[1]: r[3] for r in rows}
    assert "stands in for `PreTrainedConfig` (transformers/configuration_utils.py;" in (by_line[7])
    assert "(as `QwenTextConfig`)" in by_line[8]
    assert "stands in for `PreTrainedConfig` (transformers/configuration_utils.py;" in (by_line[12])
    assert (
        "stands in for `CausalLMOutputWithPast` (transformers/modeling_outputs.py;" in (by_line[18])
    )


def test_a_cfg_slot_is_a_config_slot(feature: Repo, run: Run, transformers: Path) -> None:
    """TransformerLens 7f2ba97b / c624e734: ``cfg = SimpleNamespace(model_type="glm4_moe",
    architectures=[])`` handed to ``determine_architecture_from_hf_config(cfg)``, and
    ``layer0_cfg = SimpleNamespace(_attn_implementation="sdpa")``: ``cfg`` is a config's
    short name (✗, naming the slot); a ``*_cfg`` whose keywords no config has stays ⚠
    (axolotl's ``axolotl_cfg=SimpleNamespace(expert_parallel_size=2)``)."""
    feature.write("pkg/gguf.py", CODE)
    feature.write(
        "tests/test_arch.py",
        "from types import SimpleNamespace\n\nfrom pkg.gguf import n_layers\n\n\n"
        "def test_arch() -> None:\n"
        "    cfg = SimpleNamespace(model_type='glm4_moe', _attn_implementation='eager')\n"  # 7
        "    layer0_cfg = SimpleNamespace(_attn_implementation='sdpa')\n"  # 8
        "    trainer_cfg = SimpleNamespace(expert_parallel_size=2)\n"  # 9
        "    assert n_layers and cfg and layer0_cfg and trainer_cfg\n",
    )
    rows = {r[1]: r for r in found(run, "any-annotation") if r[0] == "tests/test_arch.py"}
    assert {line: row[2] for line, row in rows.items()} == {7: "error", 8: "error", 9: "warning"}
    assert "found by the config slot `cfg` it fills" in rows[7][3]
    assert "found by the config slot `layer0_cfg` it fills" in rows[8][3]


def test_other_slots_keywords_or_repositories_stay_warnings(
    feature: Repo, run: Run, transformers: Path, tmp_path: Path
) -> None:
    """A ``tokenizer`` with a config-like keyword, a ``config`` no config class has the
    keywords of, and an output returned by a function that is no ``forward`` are ⚠."""
    feature.write("pkg/gguf.py", CODE)
    feature.write(
        "tests/test_gguf.py",
        "from types import SimpleNamespace\n\nfrom pkg.gguf import n_layers\n\n\n"
        "def test_layers() -> None:\n"
        "    tokenizer = SimpleNamespace(hidden_size=7)\n"  # 7
        "    config = SimpleNamespace(num_hidden_layers=2, lr=0.1)\n"  # 8
        "    assert n_layers(config, tokenizer)\n\n\n"
        "def make_batch():\n"
        "    return SimpleNamespace(logits=1)\n",  # 13
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "warning"), (8, "warning"), (13, "warning")]


def test_repository_not_importing_transformers_stays_warning(
    feature: Repo, run: Run, transformers: Path
) -> None:
    """transformers installed, but neither the test nor the code it imports uses it: a
    ``config`` with ``num_hidden_layers`` is the repository's own object (⚠)."""
    feature.write("pkg/gguf.py", "def n_layers(config):\n    return config.num_hidden_layers\n")
    feature.write(
        "tests/test_gguf.py",
        "from types import SimpleNamespace\n\nfrom pkg.gguf import n_layers\n\n\n"
        "def test_layers() -> None:\n"
        "    config = SimpleNamespace(num_hidden_layers=2)\n"  # 7
        "    assert n_layers(config)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "warning")]


def test_output_keywords_of_several_classes_name_the_base(
    feature: Repo, run: Run, transformers: Path
) -> None:
    """diffusers: ``return SimpleNamespace(logits=logits)`` from a monkeypatched
    ``forward``: ``logits`` is a field of several ``ModelOutput`` dataclasses, so the
    message names the base and lists them."""
    feature.write("pkg/gguf.py", CODE)
    feature.write(
        "tests/test_gguf.py",
        "from types import SimpleNamespace\n\nfrom pkg.gguf import step\n\n\n"
        "def test_step(monkeypatch) -> None:\n"
        "    def fake_forward(ids):\n"
        "        return SimpleNamespace(logits=ids)\n"  # 8
        "\n"
        "    assert step(fake_forward, 1) == 1\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(8, "error")]
    assert "stands in for `ModelOutput` (transformers/modeling_outputs.py;" in rows[0][3]
    assert "`CausalLMOutput`, `CausalLMOutputWithPast`" in rows[0][3]


def test_code_imported_through_importorskip_reads_the_tree_imports(
    feature: Repo, run: Run, transformers: Path
) -> None:
    """axolotl: the test reaches the trainer through ``pytest.importorskip(...)`` (no
    import statement); the work tree's code imports transformers, so the fake model's
    ``forward`` output is a ``ModelOutput``."""
    feature.write("pkg/gguf.py", CODE)
    feature.write(
        "tests/test_kd.py",
        "from types import SimpleNamespace\n\nimport pytest\n\n"
        'trainer = pytest.importorskip("pkg.gguf")\n\n\n'
        "class Tiny:\n"
        "    def forward(self, ids):\n"
        "        return SimpleNamespace(loss=None, logits=ids, past_key_values=None)\n"  # 10
        "\n\n"
        "def test_step() -> None:\n"
        "    assert trainer.step(Tiny().forward, 1) == 1\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(10, "error")]
    assert "stands in for `CausalLMOutputWithPast`" in rows[0][3]


def test_a_record_of_the_repository_with_the_keywords_wins(
    feature: Repo, run: Run, transformers: Path
) -> None:
    """fastvideo: the repository's own ``@dataclass BaseEncoderOutput`` has the fake
    encoder ``forward``'s keywords; it is named, not transformers' ``ModelOutput``."""
    feature.write("pkg/gguf.py", CODE)
    feature.write(
        "pkg/records.py",
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass EncoderOutput:\n"
        "    last_hidden_state: object = None\n    hidden_states: object = None\n",
    )
    feature.write(
        "tests/test_enc.py",
        "from types import SimpleNamespace\n\nfrom pkg.gguf import step\n"
        "from pkg.records import EncoderOutput\n\n\n"
        "def forward(ids):\n"
        "    return SimpleNamespace(last_hidden_state=ids, hidden_states=None)\n"  # 8
        "\n\n"
        "def test_step() -> None:\n"
        "    assert step(forward, 1) and EncoderOutput\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(8, "error")]
    assert "stands in for `EncoderOutput`" in rows[0][3]
