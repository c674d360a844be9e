# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, ``Mock``/``MagicMock`` data fakes: a mock given a typed record class's
fields (keywords or attribute assignments) where the slot it fills or the patched
function whose return it fakes is annotated with that class is ✗ naming the class; a
placeholder, a specced mock, a configured callable or a service mock is no finding.
Also ``cast(Any, fake)``: the cast hides nothing, the fake still fills its slot."""

from __future__ import annotations

from pathlib import Path

from policytool.rules import _fakes as fakes
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


def test_a_mock_given_a_records_attributes_in_a_typed_list_slot(feature: Repo, run: Run) -> None:
    """lm-eval: ``mock_request = MagicMock(); mock_request.args = (...)`` passed in a list to
    ``loglikelihood_rolling(requests: list[Instance])``: a data fake of ``Instance``."""
    _lm_repo(feature)
    feature.write(
        "tests/test_lm.py",
        "from unittest.mock import MagicMock\n\nfrom pkg.lm import LM\n\n\n"
        "def test_rolling() -> None:\n"
        "    mock_lm = MagicMock(spec=LM)\n"  # 7: specced: typed already
        "    mock_lm.max_length = 10\n"
        "    mock_request = MagicMock()\n"  # 9
        '    mock_request.args = ("test string",)\n'
        "    LM.loglikelihood_rolling(mock_lm, [mock_request], disable_tqdm=True)\n",
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(9, "error")]
    assert "new `MagicMock` data fake stands in for `Instance` (pkg/instance.py;" in rows[0][2]
    assert "an element of `requests: list[Instance]` of `loglikelihood_rolling`" in rows[0][2]


def test_mocks_that_are_no_data_fakes_are_not_reported(feature: Repo, run: Run) -> None:
    """A placeholder, a specced mock, ``return_value=``/``side_effect=`` configuration, a mock
    with a configured method, a mock of a function, a mock given an attribute the class
    lacks: '-' (no ⚠ either: mocks are everywhere in tests)."""
    _lm_repo(feature)
    feature.write(
        "tests/test_lm.py",
        "from unittest.mock import MagicMock, Mock, create_autospec\n\n"
        "from pkg.instance import Instance\nfrom pkg.lm import LM\n\n\n"
        "def test_rolling() -> None:\n"
        "    lm = LM()\n"
        "    lm.loglikelihood_rolling([MagicMock()])\n"  # a placeholder
        "    lm.loglikelihood_rolling([Mock(spec=Instance, args=(1,))])\n"
        "    lm.loglikelihood_rolling([create_autospec(Instance, args=(1,))])\n"
        "    lm.loglikelihood_rolling([MagicMock(return_value=1)])\n"
        "    lm.loglikelihood_rolling(requests=[MagicMock(side_effect=ValueError)])\n"
        "    configured = MagicMock()\n"
        "    configured.args = (1,)\n"
        "    configured.idx.return_value = 3\n"  # a method: not a data fake
        "    lm.loglikelihood_rolling([configured])\n"
        "    stranger = MagicMock()\n"
        "    stranger.args = (1,)\n"
        "    stranger.tokens = [1]\n"  # not an attribute of Instance
        "    lm.loglikelihood_rolling([stranger])\n"
        "    lm.loglikelihood_rolling([MagicMock(arguments=(1,), **{'idx': 1})])\n",
    )
    assert _rows(run) == []


def test_a_mock_keyword_fake_in_a_typed_slot(feature: Repo, run: Run) -> None:
    """``MagicMock(request_type="x", arguments=(...))`` put in the typed list slot by
    keyword: keywords are data attributes too."""
    _lm_repo(feature)
    feature.write(
        "tests/test_lm.py",
        "from unittest.mock import MagicMock\n\nfrom pkg.lm import LM\n\n\n"
        "def test_rolling() -> None:\n"
        '    req = MagicMock(request_type="loglikelihood_rolling", arguments=("s",))\n'  # 7
        "    LM().loglikelihood_rolling(requests=[req])\n",
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(7, "error")]
    assert "stands in for `Instance`" in rows[0][2]


def test_a_mock_set_as_what_a_patched_function_returns(feature: Repo, run: Run, site: Path) -> None:
    """open-instruct: ``mock_result = MagicMock(); mock_result.content = [...]`` then
    ``mock_call.return_value = mock_result`` under ``@patch("pkg.tool._call_tool")``
    whose ``def`` returns a pydantic ``CallToolResult`` of an installed package; the
    ``MagicMock(type=..., text=...)`` in its ``content: list[ContentBlock]`` is the one
    member of that union it fits, ``TextContent``."""
    (site / "enginelib" / "types.py").write_text(
        "from pydantic import BaseModel\n\n\n"
        "class TextContent(BaseModel):\n    type: str\n    text: str\n\n\n"
        "class ImageContent(BaseModel):\n    type: str\n    data: str\n\n\n"
        "class PromptMessage(BaseModel):\n    content: TextContent\n\n\n"
        "ContentBlock = TextContent | ImageContent\n\n\n"
        "class CallToolResult(BaseModel):\n"
        "    content: list[ContentBlock]\n    structuredContent: dict | None = None\n"
        "    isError: bool = False\n"
    )
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/tool.py",
        "from enginelib.types import CallToolResult\n\n\n"
        "async def _call_tool(name: str) -> CallToolResult:\n    raise NotImplementedError\n\n\n"
        "async def _ping(name: str):\n    return None\n",
    )
    feature.write(
        "tests/test_tool.py",
        "import unittest\nfrom unittest.mock import MagicMock, patch\n\n\n"
        "class TestTool(unittest.TestCase):\n"
        '    @patch("pkg.tool._call_tool")\n'
        "    def test_execute(self, mock_call):\n"
        "        mock_result = MagicMock()\n"  # 8
        '        mock_result.content = [MagicMock(type="text", text="result text")]\n'  # 9
        "        mock_result.structuredContent = None\n"
        "        mock_call.return_value = mock_result\n"
        "\n"
        '    @patch("pkg.tool._ping")\n'
        "    def test_ping(self, mock_ping):\n"
        "        pong = MagicMock()\n"  # 15: the patched function is not annotated
        "        pong.content = []\n"
        "        mock_ping.return_value = pong\n",
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(8, "error"), (9, "error")]
    assert "stands in for `CallToolResult` (" in rows[0][2]
    assert "what the patched `pkg.tool._call_tool` returns" in rows[0][2]
    assert "stands in for `TextContent` (" in rows[1][2]
    assert "`content: list[ContentBlock]` of `CallToolResult` in " in rows[1][2]
    assert "the member of `ContentBlock` it fits" in rows[1][2]


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


def test_a_mock_named_like_a_class_or_in_a_service_slot_is_no_finding(
    feature: Repo, run: Run
) -> None:
    """A data mock bound to a name a module annotates (``instance``) but put in no slot,
    and a mock with attributes passed to a parameter typed with a plain service class:
    no finding (a name match is not enough for a mock; a service is no record)."""
    _lm_repo(feature)
    feature.write(
        "pkg/runner.py",
        "from pkg.instance import Instance\nfrom pkg.lm import LM\n\n\n"
        "def run(lm: LM, instance: Instance) -> float:\n"
        "    return lm.loglikelihood_rolling([instance])[0]\n",
    )
    feature.write(
        "tests/test_runner.py",
        "from unittest.mock import MagicMock\n\nfrom pkg import runner\n\n\n"
        "def test_run() -> None:\n"
        "    instance = MagicMock()\n"
        "    instance.arguments = ('s',)\n"
        "    lm = MagicMock()\n"
        "    lm.max_length = 10\n"
        "    runner.run(lm, MagicMock(arguments=('s',), tokens=[1]))\n",
    )
    assert _rows(run) == []


def test_union_alias_members(tmp_path: Path) -> None:
    """``A | B``, ``X: TypeAlias = ...`` and ``Union[A, B]`` give their members; a single
    class or a subscripted type is no union alias."""
    path = tmp_path / "types.py"
    path.write_text(
        "Block = TextContent | ImageContent\n"
        "Alias: TypeAlias = A | mod.B\n"
        "Old = Union[A, B]\n"
        "One = TextContent\n"
        "Many = list[A] | B\n"
    )
    info = path.stat()
    members = {
        name: fakes._union_alias(str(path), info.st_mtime_ns, info.st_size, name)
        for name in ("Block", "Alias", "Old", "One", "Many", "Missing")
    }
    assert members == {
        "Block": ("TextContent", "ImageContent"),
        "Alias": ("A", "mod.B"),
        "Old": ("A", "B"),
        "One": (),
        "Many": (),
        "Missing": (),
    }


def test_a_mock_of_a_plain_config_class_is_no_finding(feature: Repo, run: Run) -> None:
    """A plain class named ``*Config`` whose ``__init__`` builds its attributes from other
    objects is no record: a mock given its attributes is the ordinary test double."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/linear.py",
        "class LinearConfig:\n"
        "    def __init__(self, engine: object, mesh: object) -> None:\n"
        "        self.num_proj = 1\n        self.mesh = mesh\n\n\n"
        "class LinearMethod:\n"
        "    def __init__(self, linear_config: LinearConfig) -> None:\n"
        "        self.config = linear_config\n",
    )
    feature.write(
        "tests/test_linear.py",
        "from unittest.mock import MagicMock\n\nfrom pkg.linear import LinearMethod\n\n\n"
        "def test_method() -> None:\n"
        "    linear_config = MagicMock()\n"
        "    linear_config.num_proj = 1\n"
        "    LinearMethod(linear_config)\n",
    )
    assert _rows(run) == []
