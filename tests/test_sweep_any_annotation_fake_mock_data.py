# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, ``Mock``/``MagicMock`` data fakes given their data after creation: a
mock set as an attribute (``backend._cfg = Mock()``) and then given data through that
attribute (``backend._cfg.trainer.strategy = ...``) is a data fake of the attribute's
annotated record. A specced mock (given data or not) and an attribute mock given only
methods are the ordinary test double: no finding. And a keyword match is no evidence
where the repository annotates the slot the fake fills with a plain class."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_CONFIG = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass TrainerConfig:\n    strategy: str = 'fsdp'\n    epochs: int = 1\n\n\n"
    "@dataclass\nclass TransformerConfig:\n"
    "    num_layers: int = 2\n    num_moe_experts: int | None = None\n"
    "    moe_token_dispatcher_type: str = 'alltoall'\n\n\n"
    "@dataclass\nclass TrainConfig:\n    trainer: TrainerConfig\n    seed: int = 0\n"
)
_BACKEND = (
    "from pkg.config import TrainConfig, TransformerConfig\n\n\n"
    "class Client:\n    def unload(self, name: str) -> None:\n        pass\n\n\n"
    "class Backend:\n"
    "    def __init__(self, cfg: TrainConfig, client: Client) -> None:\n"
    "        self._cfg: TrainConfig = cfg\n"
    "        self._client: Client = client\n\n"
    "    def strategy(self) -> str:\n        return self._cfg.trainer.strategy\n\n\n"
    "def apply_dispatcher(config: TransformerConfig) -> int:\n"
    "    return config.num_moe_experts or 0\n"
)


def _repo(feature: Repo) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/config.py", _CONFIG)
    feature.write("pkg/backend.py", _BACKEND)


def _rows(run: Run) -> list[tuple[int, str, str]]:
    return [(r[1], r[2], r[3]) for r in found(run, "any-annotation") if r[0].startswith("tests/")]


def test_specced_mocks_are_no_finding(feature: Repo, run: Run) -> None:
    """``MagicMock(spec=Client)`` (a service class) given an attribute, and specced records
    given nothing, a method's return value or data (``MagicMock(spec=TransformerConfig)``
    given ``num_moe_experts``: sets b and k label a specced mock no fake, and vLLM specs
    its heavy configs so): the ordinary test double."""
    _repo(feature)
    feature.write(
        "tests/test_services.py",
        "from unittest.mock import MagicMock, Mock\n\n"
        "from pkg.backend import Client, apply_dispatcher\n"
        "from pkg.config import TransformerConfig\n\n\n"
        "def test_services() -> None:\n"
        "    client = MagicMock(spec=Client)\n"
        "    client.name = 'c'\n"
        "    placeholder = MagicMock(spec=TransformerConfig)\n"
        "    configured = Mock(spec=TransformerConfig)\n"
        "    configured.validate.return_value = True\n"
        "    configured.num_layers = 2\n"
        "    outside = MagicMock(spec=TransformerConfig)\n"
        "    outside.not_a_field = 1\n"
        "    data = MagicMock(spec=TransformerConfig)\n"
        "    data.num_moe_experts = 8\n"
        "    apply_dispatcher(data)\n"
        "    apply_dispatcher(placeholder)\n"
        "    apply_dispatcher(configured)\n"
        "    apply_dispatcher(outside)\n"
        "    assert client\n",
    )
    assert _rows(run) == []


def test_a_mock_set_as_an_attribute_then_given_data_through_it(feature: Repo, run: Run) -> None:
    """SkyRL: ``backend._cfg = Mock()`` then ``backend._cfg.trainer.strategy = strategy``:
    a data fake of ``TrainConfig`` (the annotation of ``_cfg``); ``backend._client = Mock()``
    given only a method and a bare ``Mock()`` attribute are no finding."""
    _repo(feature)
    feature.write(
        "tests/test_backend.py",
        "from unittest.mock import AsyncMock, Mock\n\n"
        "from pkg.backend import Backend\n\n\n"
        "def _backend(strategy: str) -> Backend:\n"
        "    backend = object.__new__(Backend)\n"
        "    backend._cfg = Mock()\n"  # 8
        "    backend._cfg.trainer.strategy = strategy\n"
        "    backend._client = Mock()\n"
        "    backend._client.unload = AsyncMock()\n"
        "    backend._other = Mock()\n"
        "    return backend\n\n\n"
        "def test_strategy() -> None:\n"
        "    assert _backend('megatron').strategy() == 'megatron'\n",
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(8, "error")]
    assert "new `Mock` data fake stands in for `TrainConfig` (pkg/config.py;" in rows[0][2]


# -- a keyword match against what the repository says the slot holds -------------------

_AXOLOTL = {
    "pkg/__init__.py": "",
    "pkg/dict.py": "class DictDefault(dict):\n    def __getattr__(self, name: str) -> object:\n"
    "        return self.get(name)\n",
    "pkg/schema.py": "from pydantic import BaseModel\n\n\n"
    "class InputConfig(BaseModel):\n"
    "    layer_offloading: bool = False\n    activation_offloading: str | None = None\n"
    "    gradient_checkpointing: bool = False\n",
    "pkg/builders.py": "from pkg.dict import DictDefault\n\n\n"
    # docstrings' ``cfg: The ...`` name no class: they do not dilute the consensus
    + "".join(
        f'def doc_{i}(cfg):\n    """Args:\n        cfg: The config.\n    """\n\n\n'
        for i in range(2)
    )
    + "class Builder:\n    def __init__(self, cfg):\n        self.cfg = cfg\n\n"
    "    def configure(self, kwargs: dict) -> None:\n"
    "        if self.cfg.layer_offloading:\n            kwargs['layer_offloading'] = True\n\n\n"
    + "".join(
        f"def step_{i}(cfg: DictDefault) -> bool:\n    return bool(cfg.get('x'))\n\n\n"
        for i in range(6)
    ),
}


def test_a_keyword_match_to_a_record_where_the_slot_holds_a_plain_class(
    feature: Repo, run: Run
) -> None:
    """axolotl: ``SimpleNamespace(layer_offloading=..., activation_offloading=...)`` passed
    to the test's ``_kwargs(cfg)``, whose keywords are all fields of the pydantic
    ``InputConfig`` the test imports, while the code annotates ``cfg`` as the plain
    ``DictDefault`` (six times, never the record): the field match is no evidence, ⚠."""
    for relpath, text in _AXOLOTL.items():
        feature.write(relpath, text)
    feature.write(
        "tests/test_builders.py",
        "from types import SimpleNamespace\n\n"
        "from pkg.builders import Builder\n"
        "from pkg.schema import InputConfig\n\n\n"
        "def _kwargs(cfg):\n"
        "    kwargs = {}\n"
        "    Builder.configure(SimpleNamespace(cfg=cfg), kwargs)\n"
        "    return kwargs\n\n\n"
        "def test_offload() -> None:\n"
        "    kwargs = _kwargs(\n"
        "        SimpleNamespace(layer_offloading=True, activation_offloading='x')\n"  # 15
        "    )\n"
        "    assert kwargs\n"
        "    assert InputConfig\n",
    )
    rows = [r for r in _rows(run) if r[0] == 15]
    assert [(r[0], r[1]) for r in rows] == [(15, "warning")]


def test_a_keyword_match_where_the_slot_has_no_plain_consensus_stays_an_error(
    feature: Repo, run: Run
) -> None:
    """The same fake passed to a helper whose parameter the code never annotates with a
    plain class (``options``): the keyword match to ``InputConfig`` stands, ✗."""
    for relpath, text in _AXOLOTL.items():
        feature.write(relpath, text)
    feature.write(
        "tests/test_builders.py",
        "from types import SimpleNamespace\n\n"
        "from pkg.builders import Builder\n"
        "from pkg.schema import InputConfig\n\n\n"
        "def _kwargs(options):\n"
        "    kwargs = {}\n"
        "    Builder.configure(SimpleNamespace(cfg=options), kwargs)\n"
        "    return kwargs\n\n\n"
        "def test_offload() -> None:\n"
        "    kwargs = _kwargs(\n"
        "        SimpleNamespace(layer_offloading=True, activation_offloading='x')\n"  # 15
        "    )\n"
        "    assert kwargs\n"
        "    assert InputConfig\n",
    )
    rows = [r for r in _rows(run) if r[0] == 15]
    assert [(r[0], r[1]) for r in rows] == [(15, "error")]
    assert "stands in for `InputConfig`" in rows[0][2]
