# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, test fakes beyond one package: the code under test in a ``src`` layout,
a pydantic model's subclass in another module, a fake a test helper returns, and a class
of a typed installed package (``py.typed``: starlette's ``Request``) a parameter is
annotated with."""

from __future__ import annotations

from pathlib import Path

import pytest

from policytool.rules import _fakes as fakes
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_SCHEMAS = (
    "from pydantic import BaseModel\n\n\n"
    "class StandardBaseModel(BaseModel):\n    model_config = None\n\n\n"
    "class StandardBaseDict(StandardBaseModel):\n    pass\n"
)
_BENCH = (
    "from __future__ import annotations\n\n"
    "from guide.schemas.base import StandardBaseDict\n\n\n"
    "class Benchmark(StandardBaseDict):\n"
    "    request_throughput: float = 0.0\n    scheduler_state: object = None\n"
)
_PROFILE = (
    "from __future__ import annotations\n\n"
    "from guide.bench import Benchmark\n\n\n"
    "class Profile:\n"
    "    @staticmethod\n"
    "    def should_stop(prev_benchmark: Benchmark) -> bool:\n"
    "        return getattr(prev_benchmark, 'scheduler_state', None) is not None\n"
)


def _guide(feature: Repo) -> None:
    feature.write("src/guide/__init__.py", "")
    feature.write("src/guide/schemas/__init__.py", "from .base import StandardBaseDict\n")
    feature.write("src/guide/schemas/base.py", _SCHEMAS)
    feature.write("src/guide/bench.py", _BENCH)
    feature.write("src/guide/profile.py", _PROFILE)


def test_a_fake_of_a_pydantic_subclass_in_a_src_layout(feature: Repo, run: Run) -> None:
    """guidellm ``test_profiles.py``: the code is under ``src/``; ``Benchmark`` derives
    from a pydantic model of another module; a helper returns the fake, a test binds it
    to a local name and passes it to ``should_stop(prev_benchmark: Benchmark)``: ✗
    naming ``Benchmark`` (by the parameter); an empty fake passed there: ✗ too."""
    _guide(feature)
    feature.write(
        "tests/test_profile.py",
        "from types import SimpleNamespace\n\nfrom guide.profile import Profile\n\n\n"
        "def _make_mock_run(rate):\n"
        "    return SimpleNamespace(scheduler_state=None, request_throughput=rate)\n\n\n"  # 7
        "def test_stop():\n"
        "    run = _make_mock_run(1.0)\n"
        "    assert Profile.should_stop(run) is False\n\n\n"
        "def test_empty():\n"
        "    bench = SimpleNamespace()\n"  # 16
        "    assert Profile.should_stop(bench) is False\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "error"), (16, "error")]
    for row in rows:
        assert "stands in for `Benchmark` (src/guide/bench.py;" in row[3]
        assert "`prev_benchmark: Benchmark` in src/guide/profile.py" in row[3]


def test_a_helper_fake_not_passed_to_typed_code_stays_a_warning(feature: Repo, run: Run) -> None:
    """The same helper fake only read by the test (no parameter reached): ⚠."""
    _guide(feature)
    feature.write(
        "tests/test_profile.py",
        "from types import SimpleNamespace\n\n\n"
        "def _make_mock_thing(rate):\n"
        "    return SimpleNamespace(speed=rate, label='x')\n\n\n"
        "def test_read():\n"
        "    thing = _make_mock_thing(1.0)\n"
        "    assert len([thing]) == 1\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(5, "warning")]


def _webkit(root: Path, typed: bool) -> None:
    """An installed ``webkit`` (starlette-shaped: a plain ``Request`` class re-exported
    by the package), with a ``py.typed`` marker when ``typed``."""
    pkg = root / "webkit"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from webkit.requests import Request\n")
    (pkg / "requests.py").write_text(
        "class HTTPConnection:\n"
        "    def __init__(self, scope):\n        self.scope = scope\n\n"
        "    @property\n    def headers(self):\n        return {}\n\n"
        "    @property\n    def query_params(self):\n        return {}\n\n\n"
        "class Request(HTTPConnection):\n"
        "    async def body(self) -> bytes:\n        return b''\n\n"
        "    async def form(self):\n        return {}\n"
    )
    if typed:
        (pkg / "py.typed").write_text("")


_ROUTES = (
    "from webkit import Request\n\n\n"
    "async def route_request(request: Request, endpoint: str):\n"
    "    return await request.body()\n"
)
_TEST = (
    "from types import SimpleNamespace\n\nfrom router.routes import route_request\n\n\n"
    "def _json_request(body):\n"
    "    return SimpleNamespace(headers={}, query_params={}, body=body)\n\n\n"  # 7
    "async def test_route():\n"
    "    await route_request(_json_request(b'{}'), '/v1')\n\n\n"
    "async def test_form():\n"
    "    request = SimpleNamespace(headers={}, form=None)\n"  # 15
    "    await route_request(request, '/v1')\n\n\n"
    "async def test_other():\n"
    "    request = SimpleNamespace(headers={}, cookies=None)\n"  # 20
    "    await route_request(request, '/v1')\n"
)


@pytest.mark.parametrize("typed", [True, False])
def test_a_fake_of_a_typed_installed_class_a_parameter_is_annotated_with(
    feature: Repo, run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typed: bool
) -> None:
    """production-stack ``test_request_validation.py``: fakes passed (directly from a
    helper, or by a local name) as ``request: Request`` of the code under test, where
    ``Request`` is a plain class of a ``py.typed`` installed package: ✗ naming it when
    every keyword is one of its attributes; a keyword it lacks (``cookies``) or a package
    without ``py.typed`` (no typed stub): ⚠."""
    _webkit(tmp_path / "site", typed)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    feature.write("src/router/__init__.py", "")
    feature.write("src/router/routes.py", _ROUTES)
    feature.write("src/tests/test_routes.py", _TEST)
    rows = [r for r in found(run, "any-annotation") if "tests/" in r[0]]
    want = "error" if typed else "warning"
    assert [(r[1], r[2]) for r in rows] == [(7, want), (15, want), (20, "warning")]
    if typed:
        assert "stands in for `Request` (webkit/requests.py;" in rows[0][3]
        assert "the parameter `request` of `route_request`" in rows[0][3]


def test_a_base_type_parameter_is_no_base(tmp_path: Path) -> None:
    """vLLM ``class BaseRenderer(ABC, Generic[_T])`` with ``_T = TypeVar("_T",
    bound=TokenizerConfig)``: the TypeVar's bound is no base, so no data class; a
    subclass of an imported pydantic model's subclass is one (and a record)."""
    pkg = tmp_path / "lib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(
        "from pydantic import BaseModel\n\n\n"
        "class OpenAIBaseModel(BaseModel):\n    pass\n\n\n"
        "class TokenizerConfig:\n    pass\n"
    )
    (pkg / "render.py").write_text(
        "from abc import ABC\nfrom typing import Generic, TypeVar\n\n"
        "from lib.base import OpenAIBaseModel, TokenizerConfig\n\n"
        '_T = TypeVar("_T", bound=TokenizerConfig)\n\n\n'
        "class BaseRenderer(ABC, Generic[_T]):\n    pass\n\n\n"
        "class ChatRequest(OpenAIBaseModel):\n    model: str = ''\n"
    )
    finder = fakes.Finder(str(tmp_path))
    renderer = fakes.define(finder, "BaseRenderer", "lib.render")
    assert renderer is not None and not renderer.data_class
    request = fakes.define(finder, "ChatRequest", "lib.render")
    assert request is not None and request.data_class and request.record


def test_a_fake_of_a_typed_installed_service_class_stays_a_warning(
    feature: Repo, run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fake passed as ``worker: Worker`` of a ``py.typed`` installed package (a
    service object a test stubs, no typed record): ⚠."""
    pkg = tmp_path / "site" / "webkit"
    pkg.mkdir(parents=True)
    (pkg / "py.typed").write_text("")
    (pkg / "__init__.py").write_text(
        "class Worker:\n    def __init__(self):\n        self.rank = 0\n        self.device = None\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    feature.write("router/__init__.py", "")
    feature.write(
        "router/jobs.py",
        "from webkit import Worker\n\n\ndef start(worker: Worker) -> int:\n    return worker.rank\n",
    )
    feature.write(
        "tests/test_jobs.py",
        "from types import SimpleNamespace\n\nfrom router.jobs import start\n\n\n"
        "def test_start():\n"
        "    worker = SimpleNamespace(rank=0, device=None)\n"  # 7
        "    assert start(worker) == 0\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "warning")]


@pytest.mark.parametrize(
    ("project", "package_root", "marker"),
    [
        ("python/batch", "python/batch", "pyproject.toml"),  # aibrix: ``python/aibrix/``
        ("sdk", "sdk", "setup.py"),  # a project folder at the top
        ("packages/batch", "packages/batch/src", "pyproject.toml"),  # a src layout member
        ("python/batch", "python/batch", None),  # no project file: no import root
    ],
)
def test_a_fake_of_a_class_in_a_project_folder_of_a_monorepo(
    feature: Repo, run: Run, project: str, package_root: str, marker: str | None
) -> None:
    """aibrix keeps its package in ``python/aibrix/`` (its own ``pyproject.toml``); its
    tests import ``aibrix.batch``, which CI installs from there. The keyword fake of the
    typed ``status`` field of the imported module's record is ✗, as in a one-project
    repository. A folder with no project file is no import root (and the
    fields alone name no class: another module has the same records)."""
    if marker is not None:
        feature.write(f"{project}/{marker}", "")
    feature.write(f"{package_root}/batch/__init__.py", "")
    feature.write(
        f"{package_root}/batch/entity.py",
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass JobStatus:\n    state: str\n    created_at: float\n\n\n"
        "@dataclass\nclass Job:\n    job_id: str\n    status: JobStatus\n",
    )
    # another project's records with the same fields: the fields alone name neither
    feature.write(
        "tools/report/records.py",
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass RunStatus:\n    state: str\n    created_at: float\n\n\n"
        "@dataclass\nclass Run:\n    job_id: str\n    status: RunStatus\n",
    )
    feature.write(
        f"{project}/tests/test_jobs.py",
        "from types import SimpleNamespace\n\nfrom batch.entity import Job\n\n\n"
        "def test_job():\n"
        "    job = SimpleNamespace(job_id='a', status=SimpleNamespace(state='x', created_at=0))\n"
        "    assert isinstance(job, Job) is False\n",
    )
    feature.commit("monorepo")
    errors = [r for r in found(run, "any-annotation") if "/tests/" in r[0] and r[2] == "error"]
    named = sorted((r[1], r[3].split("`")[3]) for r in errors)
    assert named == ([(7, "JobStatus")] if marker else [])


def test_project_folders_are_bounded_and_never_followed_through_links(tmp_path: Path) -> None:
    """A project folder is one or two levels down, not a package itself, reached without
    a symlink (nor is its ``src``); a folder listing more than ``MAX_LISTED`` entries is
    not read."""
    (tmp_path / "python" / "proj").mkdir(parents=True)
    (tmp_path / "python" / "proj" / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "setup.py").write_text("")
    (tmp_path / "deep" / "a" / "b").mkdir(parents=True)
    (tmp_path / "deep" / "a" / "b" / "setup.py").write_text("")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "pyproject.toml").write_text("")
    (tmp_path / "linked").symlink_to(outside, target_is_directory=True)
    (tmp_path / "python" / "proj" / "src").symlink_to(outside, target_is_directory=True)
    assert fakes.project_roots(str(tmp_path)) == [str(tmp_path / "python" / "proj")]
    crowded = tmp_path / "crowded"
    crowded.mkdir()
    for i in range(fakes.MAX_LISTED + 1):
        (crowded / f"d{i}").mkdir()
    (crowded / "d0" / "pyproject.toml").write_text("")
    assert fakes.project_roots(str(tmp_path)) == [str(tmp_path / "python" / "proj")]


def test_the_second_tier_skips_the_standard_library_and_the_test_runner(
    tmp_path: Path,
) -> None:
    """huggingface/kernels: the test imports ``pytest`` (some thirty ``_pytest`` modules)
    and the standard library; those filled the tier's budget before huggingface_hub's
    ``hf_api``, whose ``branches: list[GitRefInfo]`` names what the fake mimics."""
    (tmp_path / "code.py").write_text(
        "import os\nimport json\nimport pytest\nfrom _pytest.fixtures import fixture\n"
        "from hub.api import Api\nfrom hub import models\n"
    )
    finder = fakes.Finder(str(tmp_path))
    assert fakes.imports_of(finder, ["code"]) == ["hub.api", "hub"]
    assert fakes.imports_of(finder, ["code"], limit=1) == ["hub.api"]
    # a package of the repository named like a module of the standard library is its own
    (tmp_path / "profile").mkdir()
    (tmp_path / "profile" / "__init__.py").write_text("")
    (tmp_path / "code.py").write_text("import os\nfrom profile.stats import Stats\n")
    finder = fakes.Finder(str(tmp_path))
    assert fakes.imports_of(finder, ["code"]) == ["profile.stats"]
