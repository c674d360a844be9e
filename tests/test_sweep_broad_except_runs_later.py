# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except: a function nested in a set-up function runs on the set-up path only when
the set-up calls it; the routes a set-up registers run on requests. And a UI's routes feed
a display: a swallow there is best effort (the brief's clarification after set zzzz).
feast (set zzzza): ``_setup_rest_mode`` registers ``@rest_app.post(...)`` routes, and
``ui_server.py``'s MLflow panels swallow a registered-models lookup: four wrong ✗."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, by_marker

SETUP = """\
import logging

logger = logging.getLogger(__name__)


def _setup_rest_mode(app, store):
    @app.post("/candidates")
    def candidates(request):
        labeled = set()
        try:
            labeled = store.labeled(request.view)
        except Exception:  # m:route
            pass
        return [c for c in store.candidates() if c not in labeled]

    def on_event(event):
        try:
            store.record(event)
        except Exception:  # m:callback
            pass

    def _load_views():
        try:
            return store.views()
        except Exception:  # m:called
            return []

    app.views = _load_views()
    app.subscribe(on_event)
"""


def test_a_route_or_callback_a_set_up_registers_is_not_the_set_up(feature: Repo, run: Run) -> None:
    """The route's swallow is request handling (✗ by that reading, outside a UI); the
    callback handed away runs later, no set-up (⚠); the helper the set-up calls is on
    its path (✗)."""
    feature.write("pkg/rest.py", SETUP)
    got = by_marker(feature, "pkg/rest.py", run)
    assert got == {"route": "error", "callback": "warning", "called": "error"}


def test_a_ui_route_is_a_display_path(feature: Repo, run: Run) -> None:
    """The same file as a UI's server (``ui_server.py``, or under ``ui/``): its route's
    swallow is best effort (⚠); the set-up's own helper is still ✗."""
    feature.write("pkg/ui_server.py", SETUP)
    feature.write("pkg/ui/app.py", SETUP)
    for path in ("pkg/ui_server.py", "pkg/ui/app.py"):
        got = by_marker(feature, path, run)
        assert got == {"route": "warning", "callback": "warning", "called": "error"}, path


ROUTE_HELPER = """\
from fastapi import APIRouter


def _datasource_map(handler, project):
    try:
        views = handler.list_views(project)
    except Exception:  # m:helper
        return {}
    return {v.name: v.source for v in views}


def get_router(handler) -> APIRouter:
    router = APIRouter()

    @router.get("/saved_datasets/{name}")
    def get_saved_dataset(name: str):
        return {"name": name, "sources": _datasource_map(handler, name)}

    return router
"""


def test_an_empty_answer_made_up_in_a_route_helper(feature: Repo, run: Run) -> None:
    """feast 5d0f7d61 rest/saved_datasets.py:46: the private helper only the routes call
    swallows the registry's failure into `{}`, which the client gets as "no sources"
    (labelled ✗). Not in a UI's server (a display), nor when other code calls the helper
    too (⚠)."""
    feature.write("pkg/rest.py", ROUTE_HELPER)
    feature.write("pkg/ui_server.py", ROUTE_HELPER)
    feature.write(
        "pkg/cli.py", ROUTE_HELPER + "\n\ndef main(h):\n    print(_datasource_map(h, 'p'))\n"
    )
    assert by_marker(feature, "pkg/rest.py", run) == {"helper": "error"}
    assert by_marker(feature, "pkg/ui_server.py", run) == {"helper": "warning"}
    assert by_marker(feature, "pkg/cli.py", run) == {"helper": "warning"}


MICROSERVICE = """\
from comps import register_microservice


@register_microservice(name="opea_service@asr", endpoint="/v1/asr", port=9099)
def transcribe(request):
    text = ""
    try:
        text = request.model.run(request.audio)
    except Exception:  # m:route
        pass
    return {"asr_result": text}


@register_microservice(name="opea_service@asr", endpoint="asr")
def not_a_path(request):
    text = ""
    try:
        text = request.model.run(request.audio)
    except Exception:  # m:name
        pass
    return {"asr_result": text}
"""


def test_a_service_framework_s_endpoint_registration_is_a_route(feature: Repo, run: Run) -> None:
    """GenAIComps registers its handlers with `@register_microservice(...,
    endpoint="/v1/asr")`: a route whose silent swallow answers the client (✗). An
    `endpoint` that is no URL path is no route (⚠)."""
    feature.write("pkg/asr.py", MICROSERVICE)
    assert by_marker(feature, "pkg/asr.py", run) == {"route": "error", "name": "warning"}
