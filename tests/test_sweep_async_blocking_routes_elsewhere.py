# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``async-blocking``: a module-level ``async def`` that an HTTP route of another module
awaits directly is on the request path, wherever its own file sits. dstack's gateway
(set zzzz): ``@router.post(".../set_id") async def set_service_id`` in
``routers/registry.py`` awaits ``registry_services.set_service_id(...)`` of
``services/registry.py``, which holds the registry's ``asyncio.Lock`` across two awaits."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found, land_on_main

SERVICE = (
    "import asyncio\n"
    "import requests\n"
    "\n"
    "lock = asyncio.Lock()\n"
    "\n\n"
    "async def set_service_id(repo, name, run_id):\n"
    "    async with lock:\n"
    "        service = await repo.get_service(name)\n"
    "        await repo.set_service(service, run_id)\n"
    "\n\n"
    "async def fetch_model(url):\n"
    "    return requests.get(url, timeout=5).json()\n"
)
ROUTE_IMPORTS = {
    "an aliased module import": (
        "import pkg.gateway.services.registry as registry_services\n",
        "registry_services.",
    ),
    "a from-import of the module": ("from pkg.gateway.services import registry\n", "registry."),
    "a relative from-import of the module": ("from ..services import registry\n", "registry."),
    "a from-import of the function": (
        "from pkg.gateway.services.registry import set_service_id as set_id, fetch_model\n",
        "",
    ),
}


def _routes(
    imports: str, prefix: str, decorator: str = '@router.post("/services/{name}/set_id")'
) -> str:
    """A FastAPI router module awaiting both service functions from its routes."""
    call = f"{prefix}set_service_id" if prefix else "set_id"
    return (
        "from fastapi import APIRouter\n"
        f"{imports}"
        "\n"
        "router = APIRouter()\n"
        "\n\n"
        f"{decorator}\n"
        "async def set_service(name: str, run_id: str) -> dict:\n"
        f"    await {call}(None, name, run_id)\n"
        '    return {"ok": True}\n'
        "\n\n"
        '@router.get("/models")\n'
        "async def models(url: str) -> dict:\n"
        f"    return await {prefix}fetch_model(url)\n"
    )


@pytest.mark.parametrize("how", sorted(ROUTE_IMPORTS))
def test_a_route_elsewhere_puts_the_lock_and_the_blocking_call_on_the_request_path(
    feature: Repo, run: Run, how: str
) -> None:
    """The lock held across the repository's awaits and the ``requests.get`` are ✗: the
    route's requests queue behind the lock and stall on the call. The message names the
    route and its module."""
    feature.write("pkg/gateway/__init__.py", "")
    feature.write("pkg/gateway/services/__init__.py", "")
    feature.write("pkg/gateway/services/registry.py", SERVICE)
    feature.write("pkg/gateway/api/__init__.py", "")
    feature.write("pkg/gateway/api/registry.py", _routes(*ROUTE_IMPORTS[how]))
    rows = found(run, "async-blocking")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("pkg/gateway/services/registry.py", 8, "error"),
        ("pkg/gateway/services/registry.py", 14, "error"),
    ]
    assert (
        "on request path `set_service` (in `pkg.gateway.api.registry`, it awaits `set_service_id`)"
    ) in rows[0][3]


@pytest.mark.parametrize(
    ("routes_path", "routes", "fetch", "why"),
    [
        (
            "pkg/gateway/api/registry.py",
            _routes(*ROUTE_IMPORTS["an aliased module import"], decorator="@router.command()"),
            "error",
            "no HTTP route: a CLI command awaits the function",
        ),
        (
            "pkg/gateway/api/registry.py",
            _routes(
                *ROUTE_IMPORTS["an aliased module import"], decorator='@router.get("/health")'
            ).replace("async def set_service(", "async def health_check("),
            "error",
            "the route is an admin one (health)",
        ),
        (
            "pkg/gateway/api/registry.py",
            _routes("from pkg.other import registry\n", "registry."),
            "warning",
            "the route awaits another module's function of the same name",
        ),
        (
            "tests/test_registry_api.py",
            _routes(*ROUTE_IMPORTS["an aliased module import"]),
            "warning",
            "the route is a test's app",
        ),
    ],
)
def test_no_route_elsewhere_leaves_the_findings_warnings(
    feature: Repo, run: Run, routes_path: str, routes: str, fetch: str, why: str
) -> None:
    """Without a route of the code awaiting the function, the lock is ⚠ (where the
    ``/models`` route of the code still awaits this ``fetch_model``, its ``requests.get``
    stays ✗)."""
    feature.write("pkg/gateway/services/registry.py", SERVICE)
    feature.write("pkg/other.py", "async def set_service_id(repo, name, run_id):\n    pass\n")
    feature.write(routes_path, routes)
    rows = found(run, "async-blocking")
    severities = {r[1]: r[2] for r in rows if r[0] == "pkg/gateway/services/registry.py"}
    assert severities[8] == "warning", why
    assert severities[14] == fetch, why


def test_a_method_awaited_by_a_route_elsewhere_is_not_followed(feature: Repo, run: Run) -> None:
    """A method is reached through an instance, not by its name: an HTTP route awaiting
    ``registry.set_service_id(...)`` on an object is not read as awaiting the class's
    method (⚠)."""
    feature.write(
        "pkg/gateway/services/registry.py",
        "import asyncio\n"
        "\n\n"
        "class Registry:\n"
        "    def __init__(self):\n"
        "        self.lock = asyncio.Lock()\n"
        "\n"
        "    async def set_service_id(self, repo, name):\n"
        "        async with self.lock:\n"
        "            await repo.set_service(name)\n",
    )
    feature.write(
        "pkg/gateway/api/registry.py",
        "from fastapi import APIRouter\n"
        "from pkg.gateway.services import registry\n"
        "\n"
        "router = APIRouter()\n"
        "\n\n"
        '@router.post("/set_id")\n'
        "async def set_service(name: str) -> None:\n"
        "    await registry.set_service_id(None, name)\n",
    )
    rows = found(run, "async-blocking")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("pkg/gateway/services/registry.py", 9, "warning")
    ]


INDEX = """\
from filelock import AsyncFileLock


async def get_index(index_path, build):
    if not await index_path.is_file():
        async with AsyncFileLock("index.lock"):
            await build(index_path)
    return index_path
"""
# The lock moved outward: the old ``await index_path.is_file()`` is now held under it.
INDEX_LOCK_OUTWARD = """\
from filelock import AsyncFileLock


async def get_index(index_path, build):
    async with AsyncFileLock("index.lock", timeout=60):
        if not await index_path.is_file():
            await build(index_path)
    return index_path
"""
# The same awaits under the same lock, only re-indented into a ``try``.
INDEX_REINDENTED = """\
from filelock import AsyncFileLock


async def get_index(index_path, build):
    if not await index_path.is_file():
        try:
            async with AsyncFileLock("index.lock"):
                await build(index_path)
        except TimeoutError:
            return None
    return index_path
"""
# dataset-viewer's search routes: an endpoint a factory builds, undecorated, in a module
# of a serving path (``routes/``).
SEARCH_ROUTES = """\
from pkg.lib.duckdb import get_index


def create_search_endpoint(build):
    async def search_endpoint(request):
        return await get_index(request.path, build)

    return search_endpoint
"""


def _edit(feature: Repo, path: str, old: str, new: str) -> None:
    """Commit ``old`` at ``path`` (with the search routes) on main, then ``new`` on a
    branch off it."""
    feature.write("pkg/routes/search.py", SEARCH_ROUTES)
    feature.write(path, old)
    land_on_main(feature)
    feature.write(path, new)
    feature.commit("edit")


def test_a_lock_moved_outward_over_an_old_await_holds_it_on_the_request_path(
    feature: Repo, run: Run
) -> None:
    """dataset-viewer 5dabb5ab: the change moves ``async with AsyncFileLock(...)`` outward
    over the old ``await index_path.is_file()``; the search endpoint of the serving
    path's ``routes/search.py`` awaits the function: ✗ at the lock."""
    _edit(feature, "pkg/lib/duckdb.py", INDEX, INDEX_LOCK_OUTWARD)
    rows = found(run, "async-blocking")
    assert [(r[0], r[1], r[2]) for r in rows] == [("pkg/lib/duckdb.py", 5, "error")]
    assert "on request path `search_endpoint` (in `pkg.routes.search`" in rows[0][3]


def test_awaits_only_reindented_under_the_same_lock_are_not_new(feature: Repo, run: Run) -> None:
    """The change wraps the old lock in a ``try``: the await it holds was held before."""
    _edit(feature, "pkg/lib/duckdb.py", INDEX, INDEX_REINDENTED)
    assert found(run, "async-blocking") == []


# dstack's retry loop: the old sleep under the old lock, re-indented under an ``if`` and
# given a named interval.
RETRY = """\
import asyncio


async def delete_fleets(session, locker, ids):
    async with locker.lock_ctx("fleets", ids):
        for attempt in range(10):
            await session.execute(ids)
            await asyncio.sleep(0.5)
"""
RETRY_EDITED = """\
import asyncio

_INTERVAL = 0.5


async def delete_fleets(session, locker, ids):
    async with locker.lock_ctx("fleets", ids):
        for attempt in range(10):
            await session.execute(ids)
            if attempt < 9:
                await asyncio.sleep(_INTERVAL)
"""


def test_an_await_of_the_same_callee_under_the_same_lock_is_not_new(
    feature: Repo, run: Run
) -> None:
    """dstack ded4a880: the old ``await asyncio.sleep(0.5)`` re-indented under an ``if``
    with a named interval was held by the lock before: nothing reported."""
    _edit(feature, "pkg/server/services/fleets.py", RETRY, RETRY_EDITED)
    assert found(run, "async-blocking") == []


def test_an_await_whose_callee_the_change_renames_is_not_moved_under_the_lock(
    feature: Repo, run: Run
) -> None:
    """forge 76dcc62e: ``await setup_metric_logger(mesh)`` under the provisioner's lock
    becomes ``await get_or_create_metric_logger(mesh)``: an edit of an await the lock held
    before, not an await moved under it."""
    old = (
        "async def stop(self, mesh):\n"
        "    async with self._lock:\n"
        "        logger = await setup_metric_logger(mesh)\n"
        "        await mesh.stop()\n"
    )
    _edit(
        feature,
        "pkg/lib/provisioner.py",
        old,
        old.replace("setup_metric_logger", "get_or_create_metric_logger"),
    )
    assert found(run, "async-blocking") == []
