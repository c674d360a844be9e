# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``async-blocking`` reads a verb of the sync HTTP session a call gives as blocking HTTP:
``requests.Session().get(...)`` and huggingface_hub's ``get_session().get(...)``
(autotrain's ``async def api_logs`` route streaming a Space's logs, set zzzc). An awaited
client call, or a ``get_session`` the file defines itself, is not one."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

ROUTE = (
    "from fastapi import APIRouter\n"
    "{imports}\n"
    "\n"
    "router = APIRouter()\n"
    "\n\n"
    '@router.post("/logs")\n'
    "async def api_logs(url: str):\n"
    "    reply = {call}\n"
    "    return reply.text\n"
)


def _rows(run: Run) -> list[tuple[int, str]]:
    return [(line, sev) for _p, line, sev, _m in found(run, "async-blocking")]


@pytest.mark.parametrize(
    ("imports", "call"),
    [
        ("from huggingface_hub import get_session", "get_session().get(url, timeout=5)"),
        ("from huggingface_hub.utils import get_session", "get_session().post(url)"),
        ("import requests", "requests.Session().get(url)"),
        ("import huggingface_hub as hub", "hub.get_session().request('GET', url)"),
    ],
)
def test_a_session_verb_on_a_route_is_blocking(
    feature: Repo, run: Run, imports: str, call: str
) -> None:
    feature.write("app/api_routes.py", ROUTE.format(imports=imports, call=call))
    feature.commit("logs")
    assert _rows(run) == [(9, "error")]
    verb = call.split("(")[-2].rsplit(".", 1)[-1]
    assert f"().{verb}" in found(run, "async-blocking")[0][3]


def test_a_session_verb_off_a_serving_path_is_a_warning(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/hub.py",
        "from huggingface_hub import get_session\n\n\n"
        "async def fetch(url):\n"
        "    return get_session().get(url).json()\n",
    )
    feature.commit("fetch")
    assert _rows(run) == [(5, "warning")]


@pytest.mark.parametrize(
    ("imports", "call"),
    [
        # an async client, awaited
        ("import httpx", "await httpx.AsyncClient().get(url)"),
        # the file's own get_session: not huggingface_hub's
        ("def get_session():\n    return object()", "get_session().get(url)"),
    ],
)
def test_no_finding_for_an_awaited_or_unknown_session(
    feature: Repo, run: Run, imports: str, call: str
) -> None:
    feature.write("app/api_routes.py", ROUTE.format(imports=imports, call=call))
    feature.commit("logs")
    assert _rows(run) == []
