# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, fakes as what a *replaced* callable returns: what the code under test
gets in the fake's place is the real callable's return, so its return annotation names
the class the fake mimics. The replaced callable is read through the mocks the test
builds (``patch("pkg.get_api") as api_cls; api = api_cls.return_value;
api.run_job.return_value = job``), ``patch.object(Cls or obj, "m", return_value=fake)``,
a bare mock passed to a parameter annotated with a class, and a hand-written fake class
installed for a real one (its methods' returns fake the real methods' returns)."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_API = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass JobInfo:\n    id: str\n    url: str\n    owner: str = ''\n\n\n"
    "@dataclass\nclass Endpoint:\n    raw: dict\n    name: str = ''\n\n\n"
    "class Api:\n"
    "    def run_job(self, image: str) -> JobInfo:\n        raise NotImplementedError\n\n"
    "    def get_endpoint(self, name: str) -> Endpoint:\n        raise NotImplementedError\n\n"
    "    def list_jobs(self) -> list[JobInfo]:\n        raise NotImplementedError\n\n"
    "    def ping(self):\n        return None\n\n\n"
    "def get_api() -> Api:\n    return Api()\n"
)


def _api_repo(feature: Repo) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/api.py", _API)
    feature.write(
        "pkg/cli.py",
        "from pkg.api import Api, get_api\n\n\n"
        "class Runner:\n    def __init__(self, api: Api) -> None:\n        self.api = api\n",
    )


def _rows(run: Run) -> list[tuple[int, str, str]]:
    return [(r[1], r[2], r[3]) for r in found(run, "any-annotation") if r[0].startswith("tests/")]


def test_a_mock_returned_by_a_method_of_what_a_patched_function_returns(
    feature: Repo, run: Run
) -> None:
    """hfhub: ``patch("pkg.cli.get_api") as api_cls; api = api_cls.return_value;
    api.run_job.return_value = job``: ``get_api() -> Api``, ``Api.run_job() -> JobInfo``,
    so the ``SimpleNamespace(id=..., url=...)`` is a fake of ``JobInfo``."""
    _api_repo(feature)
    feature.write(
        "tests/test_cli.py",
        "from types import SimpleNamespace\nfrom unittest.mock import patch\n\nimport pkg.cli\n\n\n"
        "def test_run() -> None:\n"
        '    job = SimpleNamespace(id="j", url="https://x")\n'  # 8
        '    with patch("pkg.api.get_api") as api_cls:\n'
        "        api = api_cls.return_value\n"
        "        api.run_job.return_value = job\n"
        '        pong = SimpleNamespace(id="p")\n'  # 12: ``ping`` says nothing of its return
        "        api.ping.return_value = pong\n",
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(8, "error"), (12, "warning")]
    assert "new `SimpleNamespace` fake stands in for `JobInfo` (pkg/api.py;" in rows[0][2]
    assert "what the replaced `Api.run_job` returns: `Api.run_job() -> JobInfo`" in rows[0][2]


def test_a_fake_given_as_return_value_of_patch_object(feature: Repo, run: Run) -> None:
    """hfhub: ``mocker.patch.object(api, "get_endpoint", return_value=SimpleNamespace(raw=...))`` with
    ``api = Api()``, and ``patch.object(Api, ...)`` with a ``SimpleNamespace``: the real
    method's ``-> Endpoint``. A fake with a field the class lacks is no data fake of it."""
    _api_repo(feature)
    feature.write(
        "tests/test_api.py",
        "from types import SimpleNamespace\nfrom unittest.mock import Mock, patch\n\n"
        "from pkg.api import Api\n\n\n"
        "def test_update(mocker) -> None:\n"
        "    api = Api()\n"
        '    mocker.patch.object(api, "get_endpoint", return_value=SimpleNamespace(raw={}))\n'  # 9
        '    with patch.object(Api, "get_endpoint", return_value=SimpleNamespace(raw={})):\n'
        "        pass\n"
        '    mocker.patch.object(api, "get_endpoint", return_value=SimpleNamespace(status=1))\n',  # 12
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows if r[1] == "error"] == [(9, "error"), (10, "error")]
    assert "stands in for `Endpoint` (pkg/api.py;" in rows[0][2]
    assert "stands in for `Endpoint` (pkg/api.py;" in rows[1][2]
    assert (12, "warning") in [(r[0], r[1]) for r in rows]


def test_a_mock_element_of_what_a_typed_parameters_method_returns(feature: Repo, run: Run) -> None:
    """areal: ``scheduler = MagicMock()`` passed as ``Runner(api=scheduler)`` (``api:
    Api``), ``scheduler.list_jobs.return_value = [worker]``: ``Api.list_jobs() ->
    list[JobInfo]``, so the ``SimpleNamespace`` ``worker`` is a fake of ``JobInfo``. A mock
    passed to an unannotated parameter says nothing."""
    _api_repo(feature)
    feature.write(
        "tests/test_runner.py",
        "from types import SimpleNamespace\nfrom unittest.mock import MagicMock\n\n"
        "from pkg.cli import Runner\n\n\n"
        "def test_runner() -> None:\n"
        '    worker = SimpleNamespace(id="w0", url="http://w0")\n'  # 8
        "    api = MagicMock()\n"
        "    api.list_jobs.return_value = [worker]\n"
        "    Runner(api=api)\n\n\n"
        "def helper(api):\n    return api\n\n\n"
        "def test_untyped() -> None:\n"
        '    other = SimpleNamespace(id="w0")\n'  # 19
        "    api = MagicMock()\n"
        "    api.list_jobs.return_value = [other]\n"
        "    helper(api)\n",
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(8, "error"), (19, "warning")]
    assert "stands in for `JobInfo` (pkg/api.py;" in rows[0][2]
    assert "an element of `Api.list_jobs() -> list[JobInfo]`" in rows[0][2]


def test_an_async_mock_passed_to_a_protocol_parameter(feature: Repo, run: Run) -> None:
    """NeMo Evaluator: ``sandbox = AsyncMock()`` passed to ``patch_sdk(sandbox)``
    (``sandbox: Sandbox``, a ``Protocol`` whose stub ``async def exec(...) ->
    ExecResult: ...`` is one line), ``sandbox.exec.return_value = SimpleNamespace(
    stdout=..., return_code=0)``: a fake of the ``ExecResult`` dataclass (two fields: no
    keyword match alone names it)."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/sandbox.py",
        "from dataclasses import dataclass\nfrom typing import Protocol\n\n\n"
        "@dataclass\nclass ExecResult:\n    stdout: str\n    stderr: str\n    return_code: int\n\n\n"
        "class Sandbox(Protocol):\n"
        "    async def exec(self, command: str, timeout: float = 1.0) -> ExecResult: ...\n\n"
        "    async def stop(self) -> None: ...\n",
    )
    feature.write(
        "pkg/patches.py",
        "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\n"
        "if TYPE_CHECKING:\n    from pkg.sandbox import Sandbox\n\n\n"
        'async def patch_sdk(sandbox: "Sandbox") -> None:\n'
        '    await sandbox.exec("true")\n',
    )
    feature.write(
        "tests/test_patches.py",
        "from types import SimpleNamespace\nfrom unittest.mock import AsyncMock\n\n"
        "from pkg.patches import patch_sdk\n\n\n"
        "async def test_patch() -> None:\n"
        "    sandbox = AsyncMock()\n"
        '    sandbox.exec.return_value = SimpleNamespace(stdout="ok", return_code=0)\n'  # 9
        "    await patch_sdk(sandbox)\n\n\n"
        "async def test_unpassed() -> None:\n"
        "    box = AsyncMock()\n"
        '    box.exec.return_value = SimpleNamespace(stdout="ok", return_code=0)\n'  # 15
        "    await box.exec()\n",
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(9, "error"), (15, "warning")]
    assert "stands in for `ExecResult` (pkg/sandbox.py;" in rows[0][2]
    assert "`Sandbox.exec() -> ExecResult`" in rows[0][2]


_PARSERS = (
    "from pydantic import BaseModel\n\n\n"
    "class FunctionCall(BaseModel):\n    name: str\n    arguments: str\n\n\n"
    "class ToolCall(BaseModel):\n    function: FunctionCall\n\n\n"
    "class Extracted(BaseModel):\n"
    "    tools_called: bool\n    tool_calls: list[ToolCall]\n    content: str | None = None\n\n\n"
    "class ToolParser:\n"
    "    def extract_tool_calls(self, text: str) -> Extracted:\n"
    "        raise NotImplementedError\n\n"
    "    def reset(self):\n        return None\n\n\n"
    "class ToolParserManager:\n"
    "    @staticmethod\n"
    "    def get_tool_parser(name: str) -> type[ToolParser]:\n"
    "        return ToolParser\n"
)


def test_a_fake_returned_by_a_fake_class_installed_for_a_real_one(feature: Repo, run: Run) -> None:
    """areal: ``monkeypatch.setattr(ToolParserManager, "get_tool_parser",
    staticmethod(lambda name: FakeParser))`` where ``get_tool_parser -> type[ToolParser]``:
    the ``SimpleNamespace`` ``FakeParser.extract_tool_calls`` returns fakes
    ``ToolParser.extract_tool_calls() -> Extracted``, its nested fakes the fields' types.
    A method the real class does not annotate, or a class installed nowhere, says
    nothing."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/parsers.py", _PARSERS)
    feature.write(
        "tests/test_parse.py",
        "from types import SimpleNamespace\n\nfrom pkg.parsers import ToolParserManager\n\n\n"
        "def test_parse(monkeypatch) -> None:\n"
        "    class FakeParser:\n"
        "        def extract_tool_calls(self, text):\n"
        "            return SimpleNamespace(\n"  # 9
        "                tools_called=True,\n"
        "                tool_calls=[\n"
        '                    SimpleNamespace(function=SimpleNamespace(name="f", arguments="{}"))\n'
        "                ],\n"
        "            )\n\n"
        "        def reset(self):\n"
        "            return SimpleNamespace(done=True)\n\n"  # 17
        "    monkeypatch.setattr(\n"
        '        ToolParserManager, "get_tool_parser", staticmethod(lambda name: FakeParser)\n'
        "    )\n\n\n"
        "def test_not_installed() -> None:\n"
        "    class Other:\n"
        "        def extract_tool_calls(self, text):\n"
        "            return SimpleNamespace(tools_called=True, tool_calls=[])\n",  # 26
    )
    rows = _rows(run)
    errors = [(r[0], r[2]) for r in rows if r[1] == "error"]
    assert [e[0] for e in errors] == [9, 12, 12]
    assert "stands in for `Extracted` (pkg/parsers.py;" in errors[0][1]
    assert "`FakeParser` is installed as what `ToolParserManager.get_tool_parser()" in errors[0][1]
    assert all(r[1] != "error" for r in rows if r[0] in (17, 26))


def test_a_fake_class_set_over_a_real_class(feature: Repo, run: Run) -> None:
    """``monkeypatch.setattr(parsers, "ToolParser", FakeParser)``: the fake class stands in
    for ``ToolParser``, so the fake its ``extract_tool_calls`` returns fakes ``Extracted``."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/parsers.py", _PARSERS)
    feature.write(
        "tests/test_set_over.py",
        "from types import SimpleNamespace\n\nfrom pkg import parsers\n"
        "from pkg.parsers import ToolParser\n\n\n"
        "class FakeParser:\n"
        "    def extract_tool_calls(self, text):\n"
        "        return SimpleNamespace(tools_called=False, tool_calls=[])\n\n\n"  # 9
        "def test_parse(monkeypatch) -> None:\n"
        '    monkeypatch.setattr(parsers, "ToolParser", FakeParser)\n',
    )
    rows = _rows(run)
    assert [(r[0], r[1]) for r in rows] == [(9, "error")]
    assert "`FakeParser` is set over `ToolParser`" in rows[0][2]
