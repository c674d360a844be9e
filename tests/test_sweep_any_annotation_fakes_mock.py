# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, mocks are no fakes of the rule: the seed's ✗ names ``SimpleNamespace``,
and typeshed declares ``NonCallableMock(Base, Any)``, so a ``Mock``/``MagicMock`` passed
where a typed class is expected forces no ``Any`` into the code under test (mypy accepts
it; it rejects the ``SimpleNamespace``). Each mock below is given data in a slot typed
with a record class and is no finding; the same data as a ``SimpleNamespace`` is ✗ naming
the class, so each test fails if either reading moves.
Also ``cast(Any, fake)``: the cast hides nothing, the fake still fills its slot."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_INSTANCE = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass Instance:\n"
    "    request_type: str\n    arguments: tuple\n    idx: int = 0\n\n"
    "    @property\n    def args(self) -> tuple:\n        return self.arguments\n"
)
_LM = (
    "from pkg.instance import Instance\n\n\n"
    "class LM:\n"
    "    def loglikelihood_rolling(\n"
    "        self, requests: list[Instance], disable_tqdm: bool = False\n"
    "    ) -> list[float]:\n"
    "        return [float(len(r.args)) for r in requests]\n"
)


def _lm_repo(feature: Repo) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/instance.py", _INSTANCE)
    feature.write("pkg/lm.py", _LM)


def _rows(run: Run) -> list[tuple[int, str, str]]:
    return [(r[1], r[2], r[3]) for r in found(run, "any-annotation") if r[0].startswith("tests/")]


# (test file, line of the fake, class the SimpleNamespace twin is named for)
_LIST_SLOT = (
    "from unittest.mock import MagicMock\nfrom types import SimpleNamespace\n\n"
    "from pkg.lm import LM\n\n\n"
    "def test_rolling() -> None:\n"
    "    mock_lm = MagicMock(spec=LM)\n"
    "    mock_lm.max_length = 10\n"
    "    request = {fake}\n"  # 10
    '    request.args = ("test string",)\n'
    "    LM.loglikelihood_rolling(mock_lm, [request], disable_tqdm=True)\n"
)
_KEYWORDS = (
    "from unittest.mock import MagicMock\nfrom types import SimpleNamespace\n\n"
    "from pkg.lm import LM\n\n\n"
    "def test_rolling() -> None:\n"
    '    req = {fake}(request_type="loglikelihood_rolling", arguments=("s",))\n'  # 8
    "    LM().loglikelihood_rolling(requests=[req])\n"
)


@pytest.mark.parametrize(
    ("template", "line"),
    [
        # lm-eval: ``mock_request = MagicMock(); mock_request.args = (...)`` in a list passed
        # to ``loglikelihood_rolling(requests: list[Instance])``
        (_LIST_SLOT, 10),
        # keywords put in the typed list slot by keyword
        (_KEYWORDS, 8),
    ],
)
def test_a_mock_given_a_records_data_in_a_typed_slot_is_no_finding(
    feature: Repo, run: Run, template: str, line: int
) -> None:
    _lm_repo(feature)
    fake = "MagicMock()" if template is _LIST_SLOT else "MagicMock"
    feature.write("tests/test_lm.py", template.replace("{fake}", fake))
    feature.commit("mock")
    assert _rows(run) == []
    twin = "SimpleNamespace()" if template is _LIST_SLOT else "SimpleNamespace"
    if template is _LIST_SLOT:
        # a SimpleNamespace is given its data by keywords
        text = template.replace("{fake}", 'SimpleNamespace(args=("test string",))')
        text = text.replace('    request.args = ("test string",)\n', "")
    else:
        text = template.replace("{fake}", twin)
    feature.write("tests/test_lm.py", text)
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(line, "error")]
    assert "new `SimpleNamespace` fake stands in for `Instance` (pkg/instance.py;" in rows[0][2]


def test_a_mock_set_as_what_a_patched_function_returns_is_no_finding(
    feature: Repo, run: Run
) -> None:
    """open-instruct: ``mock_result = MagicMock(); mock_result.content = [...]`` then
    ``mock_call.return_value = mock_result`` under ``@patch("pkg.tool._call_tool")``, whose
    ``def`` returns the pydantic ``CallToolResult``: no finding; the ``SimpleNamespace``
    set as that return value is ✗ naming ``CallToolResult``."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/tool.py",
        "from pydantic import BaseModel\n\n\n"
        "class TextContent(BaseModel):\n    type: str\n    text: str\n\n\n"
        "class CallToolResult(BaseModel):\n"
        "    content: list[TextContent]\n    structuredContent: dict | None = None\n"
        "    isError: bool = False\n\n\n"
        "async def _call_tool(name: str) -> CallToolResult:\n    raise NotImplementedError\n",
    )
    test = (
        "import unittest\nfrom types import SimpleNamespace\n"
        "from unittest.mock import MagicMock, patch\n\n\n"
        "class TestTool(unittest.TestCase):\n"
        '    @patch("pkg.tool._call_tool")\n'
        "    def test_execute(self, mock_call):\n"
        "        {result}\n"  # 9
        "        mock_call.return_value = mock_result\n"
    )
    feature.write(
        "tests/test_tool.py",
        test.replace(
            "{result}",
            "mock_result = MagicMock()\n"
            '        mock_result.content = [MagicMock(type="text", text="result text")]\n'
            "        mock_result.structuredContent = None",
        ),
    )
    feature.commit("mock")
    assert _rows(run) == []
    feature.write(
        "tests/test_tool.py",
        test.replace("{result}", "mock_result = SimpleNamespace(content=[], isError=False)"),
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(9, "error")]
    assert "stands in for `CallToolResult` (pkg/tool.py;" in rows[0][2]
    assert "what the replaced `pkg.tool._call_tool` returns" in rows[0][2]


_TRAIN_CONFIG = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass TrainerConfig:\n    strategy: str = 'fsdp'\n    epochs: int = 1\n\n\n"
    "@dataclass\nclass TrainConfig:\n    trainer: TrainerConfig\n    seed: int = 0\n\n\n"
    "class Backend:\n"
    "    def __init__(self, cfg: TrainConfig) -> None:\n"
    "        self._cfg: TrainConfig = cfg\n\n"
    "    def strategy(self) -> str:\n        return self._cfg.trainer.strategy\n"
)


def test_a_mock_set_as_an_attribute_then_given_data_is_no_finding(feature: Repo, run: Run) -> None:
    """SkyRL: ``backend._cfg = Mock()`` then ``backend._cfg.trainer.strategy = strategy``,
    the attribute annotated ``TrainConfig``: no finding; the ``SimpleNamespace`` set as
    that attribute is ✗ naming ``TrainConfig``."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/backend.py", _TRAIN_CONFIG)
    test = (
        "from types import SimpleNamespace\nfrom unittest.mock import Mock\n\n"
        "from pkg.backend import Backend\n\n\n"
        "def _backend(strategy: str) -> Backend:\n"
        "    backend = object.__new__(Backend)\n"
        "    {cfg}\n"  # 9
        "    return backend\n"
    )
    feature.write(
        "tests/test_backend.py",
        test.replace(
            "{cfg}", "backend._cfg = Mock()\n    backend._cfg.trainer.strategy = strategy"
        ),
    )
    feature.commit("mock")
    assert _rows(run) == []
    feature.write(
        "tests/test_backend.py",
        test.replace("{cfg}", "backend._cfg = SimpleNamespace(trainer=None, seed=1)"),
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(9, "error")]
    assert "stands in for `TrainConfig` (pkg/backend.py;" in rows[0][2]


def test_mocks_of_every_shape_are_no_finding(feature: Repo, run: Run) -> None:
    """A placeholder, a specced mock given data, ``create_autospec``, a configured callable,
    a mock with a configured method, a mock given an attribute the class lacks, a mock of a
    plain service class: none is a finding, nor any ⚠ (mocks are everywhere in tests)."""
    _lm_repo(feature)
    feature.write(
        "tests/test_lm.py",
        "from unittest.mock import MagicMock, Mock, create_autospec\n\n"
        "from pkg.instance import Instance\nfrom pkg.lm import LM\n\n\n"
        "def test_rolling() -> None:\n"
        "    lm = LM()\n"
        "    lm.loglikelihood_rolling([MagicMock()])\n"
        "    lm.loglikelihood_rolling([Mock(spec=Instance, args=(1,))])\n"
        "    lm.loglikelihood_rolling([create_autospec(Instance, args=(1,))])\n"
        "    lm.loglikelihood_rolling([MagicMock(return_value=1)])\n"
        "    lm.loglikelihood_rolling(requests=[MagicMock(side_effect=ValueError)])\n"
        "    configured = MagicMock()\n"
        "    configured.args = (1,)\n"
        "    configured.idx.return_value = 3\n"
        "    lm.loglikelihood_rolling([configured])\n"
        "    stranger = MagicMock()\n"
        "    stranger.args = (1,)\n"
        "    stranger.tokens = [1]\n"
        "    lm.loglikelihood_rolling([stranger])\n"
        "    lm.loglikelihood_rolling([MagicMock(arguments=(1,), **{'idx': 1})])\n"
        "    service = MagicMock()\n"
        "    service.max_length = 10\n"
        "    LM.loglikelihood_rolling(service, [])\n",
    )
    assert _rows(run) == []


def test_a_fake_cast_to_any_still_fills_its_typed_field(feature: Repo, run: Run) -> None:
    """xtuner: ``Info(rollout_config=cast(Any, SimpleNamespace(...)))``: the cast silences
    the checker, the fake still stands in for the field's ``RolloutConfig``."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/info.py",
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass RolloutConfig:\n"
        "    expert_parallel_size: int = 1\n    tensor_parallel_size: int = 1\n"
        "    gpus: int = 1\n\n\n"
        "@dataclass\nclass Info:\n    rollout_config: RolloutConfig\n    rank: int = 0\n",
    )
    feature.write(
        "tests/test_info.py",
        "from types import SimpleNamespace\nfrom typing import Any, cast\n\n"
        "from pkg.info import Info\n\n\n"
        "def test_info() -> None:\n"
        "    Info(\n"
        "        rollout_config=cast(\n"
        "            Any,\n"
        "            SimpleNamespace(expert_parallel_size=2, tensor_parallel_size=1),\n"  # 11
        "        ),\n"
        "    )\n",
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(11, "error")]
    assert "stands in for `RolloutConfig` (pkg/info.py;" in rows[0][2]
