# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``async-blocking`` reads a call through a synchronous SDK client in ``async def`` as
blocking HTTP: ``self.client.query(...)`` where the class binds ``self.client =
boto3.client("dynamodb")`` (chainlit's DynamoDB data layer, set zzzx),
``client.converse(...)`` through a parameter ``client: BaseClient`` (instructor's Bedrock
wrapper, set zzc), a sync ``OpenAI()`` client, an ``httpx.Client`` verb. ✗ on a serving
path, ⚠ elsewhere; an awaited call, a client call handed to ``to_thread``, a boto3 call
that makes no request, a name bound to something else too, and a test are no finding."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

LAYER = (
    "import asyncio\n"
    "import boto3\n"
    "from openai import AsyncOpenAI, OpenAI\n"
    "\n\n"
    "class Layer:\n"
    "    def __init__(self):\n"
    '        self.client = boto3.client("dynamodb")\n'
    "        self.aclient = AsyncOpenAI()\n"
    "\n"
    "    async def threads(self, user):\n"
    "        {body}\n"
    "        return None\n"
)


def _rows(run: Run) -> list[tuple[int, str]]:
    return [(line, sev) for _p, line, sev, _m in found(run, "async-blocking")]


@pytest.mark.parametrize(
    ("path", "severity"),
    [("pkg/data/dynamo.py", "warning"), ("pkg/server/dynamo.py", "error")],
)
def test_a_boto3_client_attribute_call_blocks(
    feature: Repo, run: Run, path: str, severity: str
) -> None:
    feature.write(path, LAYER.format(body='resp = self.client.query(TableName="t")'))
    feature.commit("query")
    assert _rows(run) == [(12, severity)]
    message = found(run, "async-blocking")[0][3]
    assert "`self.client.query(...) (a boto3 client's request)`" in message
    assert "async def threads" in message


@pytest.mark.parametrize(
    "body",
    [
        # awaited: the async client's own request
        'out = await self.aclient.chat.completions.create(model="m")',
        # handed to a thread: not run on the loop
        'out = await asyncio.to_thread(self.client.query, TableName="t")',
        # boto3 calls that make no request
        'pages = self.client.get_paginator("query")',
        "err = self.client.exceptions.ResourceNotFoundException(dict(), 'op')",
    ],
)
def test_no_finding_off_the_loop_or_without_a_request(feature: Repo, run: Run, body: str) -> None:
    feature.write("pkg/server/dynamo.py", LAYER.format(body=body))
    feature.commit("no request")
    assert _rows(run) == []


def test_a_client_parameter_of_an_enclosing_function(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/bedrock.py",
        "from botocore.client import BaseClient\n\n\n"
        'def from_bedrock(client: "BaseClient"):\n'
        "    async def async_wrapper(**kwargs):\n"
        "        return client.converse(**kwargs)\n"
        "\n"
        "    return async_wrapper\n",
    )
    feature.commit("bedrock")
    assert _rows(run) == [(6, "warning")]
    assert "`client.converse(...) (a boto3 client's request)`" in found(run, "async-blocking")[0][3]


@pytest.mark.parametrize(
    ("setup", "call"),
    [
        ("oa = OpenAI()", 'oa.chat.completions.create(model="m")'),
        ("oa = openai.AzureOpenAI()", "oa.embeddings.create(input=[url])"),
        ("hub = HfApi()", "hub.model_info(url)"),
        ("", 'boto3.Session().client("s3").list_buckets()'),
    ],
)
def test_a_local_or_chained_client_on_a_route(
    feature: Repo, run: Run, setup: str, call: str
) -> None:
    feature.write(
        "app/routes.py",
        "import boto3\nimport openai\nfrom fastapi import APIRouter\n"
        "from huggingface_hub import HfApi\nfrom openai import OpenAI\n\n"
        "router = APIRouter()\n\n\n"
        '@router.get("/info")\n'
        "async def info(url: str):\n"
        f"    {setup or 'pass'}\n"
        f"    return {call}\n",
    )
    feature.commit("route")
    assert _rows(run) == [(13, "error")]


@pytest.mark.parametrize(
    ("body", "rows"),
    [
        ("with httpx.Client() as c:\n        return c.get(url)", [(11, "warning")]),
        # only an HTTP verb of httpx.Client is a request
        ("with httpx.Client() as c:\n        return c.build_request('GET', url)", []),
        # a name bound to a client and to something else: not known
        ("c = httpx.Client()\n    c = make()\n    return c.get(url)", []),
        # a parameter shadows the module's client
        ("return client.get(url)", []),
    ],
)
def test_bindings_that_decide(
    feature: Repo, run: Run, body: str, rows: list[tuple[int, str]]
) -> None:
    feature.write(
        "pkg/fetch.py",
        "import httpx\n\nclient = httpx.Client()\n\n\n"
        "def make():\n    return object()\n\n"
        f"async def fetch(url, client=None):\n    {body}\n",
    )
    feature.commit("fetch")
    assert _rows(run) == rows


def test_an_attribute_rebound_elsewhere_is_not_known(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/server/layer.py",
        LAYER.format(body='out = self.client.query(TableName="t")').replace(
            "    async def threads",
            "    def swap(self):\n        self.client = make_async()\n\n    async def threads",
        ),
    )
    feature.commit("swap")
    assert _rows(run) == []


def test_a_test_client_talks_to_a_mock(feature: Repo, run: Run) -> None:
    feature.write(
        "tests/test_layer.py",
        "from openai import OpenAI\n\n\n"
        "async def test_create():\n"
        '    client = OpenAI(api_key="z")\n'
        '    client.chat.completions.create(model="m")\n',
    )
    feature.commit("test")
    assert _rows(run) == []


def test_a_client_handed_in_or_built_is_one_binding(feature: Repo, run: Run) -> None:
    # chainlit's DynamoDB layer: a client the caller hands in (typed with the mypy-boto3
    # stubs), else one it builds
    feature.write(
        "pkg/data/dynamodb.py",
        "from typing import TYPE_CHECKING, Optional\n"
        "import boto3\n\n"
        "if TYPE_CHECKING:\n"
        "    from mypy_boto3_dynamodb import DynamoDBClient\n\n\n"
        "class Layer:\n"
        '    def __init__(self, client: Optional["DynamoDBClient"] = None, other=None):\n'
        "        if client:\n"
        "            self.client = client\n"
        "        else:\n"
        '            self.client = boto3.client("dynamodb")\n'
        "        self.other = other\n\n"
        "    async def threads(self):\n"
        '        self.other.query(TableName="t")\n'
        '        return self.client.query(TableName="t")\n',
    )
    feature.commit("layer")
    assert _rows(run) == [(18, "warning")]
