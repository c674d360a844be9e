# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: ``p: T = Depends(get_p)`` where ``get_p`` is annotated ``-> T | None``
and the body tests ``p``: FastAPI hands the parameter what the dependency returns, None
included, so ``T`` is an implicit Optional the body relies on (set zzzs: openhands
d099c21f ``provider_tokens: PROVIDER_TOKEN_TYPE = Depends(get_provider_tokens)``, ✗).
Not when the body only dereferences or forwards it (set zzzs: '-' twice), nor when the
dependency's annotation is another type than ``T | None``."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, blocking

FEATURE_BASE = {
    "pkg/__init__.py": "",
    "pkg/auth.py": (
        "from typing import Optional\n"
        "\n"
        "TOKENS = dict[str, str]\n"
        "\n"
        "\n"
        "async def get_tokens(request) -> TOKENS | None:\n"
        "    return request.state.tokens\n"
        "\n"
        "\n"
        "async def get_store(request) -> Optional['Store']:\n"
        "    return request.state.store\n"
        "\n"
        "\n"
        "async def get_user(request) -> 'User | None':\n"
        "    return request.state.user\n"
    ),
}

ROUTES = """\
from fastapi import APIRouter, Depends

from pkg.auth import TOKENS, get_store, get_tokens, get_user

app = APIRouter()


@app.post("/start")
async def start(
    tokens: TOKENS = Depends(get_tokens),
    store: "Store" = Depends(get_store),
    user: str = Depends(get_user),
):
    if tokens:
        log(list(tokens))
    else:
        log("no tokens")
    await store.save(user.upper())


@app.post("/stop")
async def stop(store: "Store" = Depends(get_store), tokens: TOKENS = Depends(get_tokens)):
    await store.stop(tokens)
"""


def test_a_dependency_that_may_give_none_to_a_tested_parameter(feature: Repo, run: Run) -> None:
    feature.write("pkg/routes.py", ROUTES)
    feature.commit("add")
    found = blocking(run, "any-annotation")
    # `store` is dereferenced and `user`'s dependency returns another type; `stop` only
    # dereferences and forwards: each left to its own reading
    assert [(path, line) for path, line, _m in found] == [("pkg/routes.py", 10)]
    assert (
        "`tokens: TOKENS` is given what `Depends(get_tokens)` returns, `TOKENS | None`"
        in found[0][2]
    )
    assert "annotate `tokens: TOKENS | None`" in found[0][2]


def test_an_optional_parameter_is_kept(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/routes.py",
        ROUTES.replace("tokens: TOKENS = Depends", "tokens: TOKENS | None = Depends"),
    )
    feature.commit("add")
    assert blocking(run, "any-annotation") == []


REQUEST_PARAMS = """\
from typing import List, Optional

from fastapi import FastAPI, File, Form, Query, UploadFile

app = FastAPI()


@app.post("/v1/audio/transcriptions")
async def transcribe(
    file: UploadFile = File(...),
    prompt: str = Form(None),
    granularities: List[str] = Form(default=None),
    language: Optional[str] = Form(None),
    model: str = Form("paraformer"),
    limit: int = Query(None),
):
    if prompt is not None or granularities is not None:
        return {"prompt": prompt, "language": language, "limit": limit + 1}
    return {"model": model, "limit": limit + 1}
"""


def test_a_request_parameter_defaulting_to_none(feature: Repo, run: Run) -> None:
    """GenAIComps ba26ea3b (set zzzza) funasr_server.py:62: `prompt: str = Form(None)`,
    which FastAPI fills with None when the form leaves it out, tested for None: the
    implicit Optional of a `= None` default (✗), as the message writes it. Not an
    `Optional`, a default that is a value, a required `File(...)`, nor a `Query(None)`
    the body never tests (only dereferenced: a dead default)."""
    feature.write("pkg/asr.py", REQUEST_PARAMS)
    got = {line: message for _path, line, message in blocking(run, "any-annotation")}
    assert sorted(got) == [11, 12]
    assert got[11] == (
        "`prompt: str = Form(None)` (line 11): `str` does not admit None; "
        "annotate `prompt: str | None`"
    )
    assert "`granularities: List[str] = Form(default=None)`" in got[12]


FORWARDED = """\
from typing import Optional

from fastapi import FastAPI, Form

app = FastAPI()


async def _proxy(*, provider_id: str, raw: bytes) -> dict:
    if provider_id is None:
        return {}
    return {"provider": provider_id.lower(), "size": len(raw)}


async def _local(*, provider_id: str, raw: bytes) -> dict:
    if provider_id is None:
        return {}
    return {"provider": provider_id.lower(), "size": len(raw)}


@app.post("/v1/audio/transcriptions")
async def transcribe(raw: bytes, provider_id: Optional[str] = Form(None)):
    if isinstance(provider_id, str):
        return await _proxy(provider_id=provider_id, raw=raw)
    return {}


@app.post("/v1/audio/local")
async def transcribe_local(raw: bytes, provider_id: Optional[str] = Form(None)):
    return await _local(provider_id=provider_id, raw=raw)
"""


def test_a_request_parameter_handed_on_after_an_isinstance_test(feature: Repo, run: Run) -> None:
    """unsloth cb8e2062 routes/inference.py:12139: the route hands its `provider_id:
    Optional[str] = Form(None)` on to `_external_stt_transcription(provider_id: str)` only
    under `isinstance(provider_id, str)`: no None reaches it (a wrong ✗ once `Form(None)`
    read as None). Handed on untested, it does (✗)."""
    feature.write("pkg/stt.py", FORWARDED)
    got = {line: message for _path, line, message in blocking(run, "any-annotation")}
    assert sorted(got) == [14]
    assert "`provider_id`, its own parameter defaulting to None" in got[14]
