# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Synchronous SDK clients whose calls are HTTP requests (boto3, openai, anthropic,
httpx, huggingface_hub), and the names a module binds to one.

``async-blocking`` asks :func:`client_request` whether a call made on the event loop goes
through such a client: ``self.client.query(...)`` where the class binds ``self.client =
boto3.client("dynamodb")``, ``client.chat.completions.create(...)`` where ``client =
OpenAI()`` or a parameter ``client: OpenAI``. Each blocks the loop as ``requests.get``
does; every SDK named here has an async twin (aioboto3, ``AsyncOpenAI``,
``AsyncAnthropic``, ``httpx.AsyncClient``, ``AsyncInferenceClient``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

from policytool.rules import _kwreads as kwreads
from policytool.rules._pysource import (
    Ctx,
    FunctionNode,
    SourceInfo,
    union_members,
    unparse,
    unquoted,
)

# A name's binding: the client it holds, or None when something else is bound to it.
_Bound = dict[str, "_Sdk | None"]


@dataclass(frozen=True)
class _Sdk:
    """A synchronous client: its name in messages, and which calls through it are
    requests (``verbs``: only these; else every call but the ``local`` ones)."""

    name: str
    verbs: frozenset[str] | None = None
    local: frozenset[str] = frozenset({"close", "copy", "with_options", "__enter__", "__exit__"})


_BOTO3 = _Sdk(
    "boto3 client",
    local=frozenset(
        {
            "close",
            "get_paginator",
            "get_waiter",
            "can_paginate",
            "generate_presigned_url",
            "generate_presigned_post",
            "exceptions",
            "meta",
            "__enter__",
            "__exit__",
        }
    ),
)
_OPENAI = _Sdk("synchronous OpenAI client")
_ANTHROPIC = _Sdk("synchronous Anthropic client")
_HF = _Sdk("synchronous huggingface_hub client")
_HTTPX = _Sdk(
    "httpx.Client",
    verbs=frozenset(
        {"get", "post", "put", "delete", "patch", "head", "options", "request", "send", "stream"}
    ),
)

# What a constructor call (or an annotation) names -> the client it gives.
CONSTRUCTORS: dict[str, _Sdk] = {
    "boto3.client": _BOTO3,
    "boto3.session.Session.client": _BOTO3,
    "openai.OpenAI": _OPENAI,
    "openai.AzureOpenAI": _OPENAI,
    "openai.Client": _OPENAI,
    "anthropic.Anthropic": _ANTHROPIC,
    "anthropic.AnthropicBedrock": _ANTHROPIC,
    "anthropic.AnthropicVertex": _ANTHROPIC,
    "anthropic.Client": _ANTHROPIC,
    "httpx.Client": _HTTPX,
    "huggingface_hub.HfApi": _HF,
    "huggingface_hub.hf_api.HfApi": _HF,
    "huggingface_hub.InferenceClient": _HF,
}
# A parameter annotated with one of these holds such a client (botocore's class of every
# boto3 client, which instructor's ``from_bedrock(client: BaseClient)`` takes).
_ANNOTATIONS: dict[str, _Sdk] = {
    **{name: sdk for name, sdk in CONSTRUCTORS.items() if not name.endswith(".client")},
    "botocore.client.BaseClient": _BOTO3,
}
# ``Optional[X]`` / ``Union[X, None]`` spellings of a parameter's annotation.
_OPTIONALS = frozenset({"typing.Optional", "typing.Union", "Optional", "Union"})
# The mypy-boto3 / types-boto3 stub packages: each ``...Client`` class is a boto3 client.
_BOTO3_STUBS = ("mypy_boto3_", "types_boto3_")
# A module binding one of these spells one of these words (most modules spell none:
# then nothing is indexed). ``openai`` alone is not one, nor ``...Client`` (vLLM's
# serving modules import ``vllm.entrypoints.openai`` and hold an ``EngineCoreClient``).
_WORDS_RE = re.compile(rb"boto3|OpenAI\b|Anthropic|\bClient\b|HfApi|InferenceClient|BaseClient")
_SESSIONS = frozenset({"boto3.Session", "boto3.session.Session"})


def _constructed(src: SourceInfo, value: ast.expr | None) -> _Sdk | None:
    """The client ``value`` constructs: ``boto3.client("s3")``, ``OpenAI(...)``,
    ``boto3.Session(...).client("s3")``."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "client"
        and isinstance(func.value, ast.Call)
        and src.qualname(func.value.func) in _SESSIONS
    ):
        return _BOTO3
    name = src.qualname(func)
    return CONSTRUCTORS.get(name) if name is not None else None


def _annotated(src: SourceInfo, annotation: ast.expr | None) -> _Sdk | None:
    """The client a parameter annotation names (``OpenAI``, ``"BaseClient"``,
    ``Optional["DynamoDBClient"]`` from the mypy-boto3 stubs)."""
    node = unquoted(annotation) if annotation is not None else None
    if isinstance(node, ast.Subscript) and src.qualname(node.value) in _OPTIONALS:
        node = unquoted(node.slice)
    if node is not None:
        members = [
            m for m in union_members(node) if not (isinstance(m, ast.Constant) and m.value is None)
        ]
        node = unquoted(members[0]) if len(members) == 1 else None
    name = src.qualname(node) if node is not None else None
    if name is None:
        return None
    if name.startswith(_BOTO3_STUBS) and name.endswith("Client"):
        return _BOTO3
    return _ANNOTATIONS.get(name)


class _Bindings:
    """The module's names and instance attributes bound to a synchronous client, each
    only when every binding of it is one (``self.client = AsyncOpenAI()`` elsewhere in
    the class makes ``self.client`` unknown)."""

    def __init__(self, src: SourceInfo) -> None:
        """Read the module-level assignments once; a class's ``self.X =`` assignments (a
        constructor, or a parameter annotated as a client) when first asked."""
        self.src = src
        self._param_cache: dict[int, _Bound] = {}
        self._locals: dict[int, _Bound] = {}
        self._attrs: dict[str, _Bound] = {}
        self._classes = {
            stmt.name: stmt for stmt in src.tree.body if isinstance(stmt, ast.ClassDef)
        }
        self.names = self._settled(
            (target.id, stmt.value, {})
            for stmt in src.tree.body
            if isinstance(stmt, ast.Assign | ast.AnnAssign)
            for target in _targets(stmt)
            if isinstance(target, ast.Name)
        )

    def attrs(self, cls: str) -> _Bound:
        """The instance attributes module-level class ``cls`` binds, read once."""
        cached = self._attrs.get(cls)
        if cached is None:
            klass = self._classes.get(cls)
            cached = self._attrs[cls] = (
                {}
                if klass is None
                else self._settled(
                    (target.attr, node.value, self._params(method))
                    for method in ast.walk(klass)
                    if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef)
                    for node in kwreads.body_nodes(method)
                    if isinstance(node, ast.Assign | ast.AnnAssign)
                    for target in _targets(node)
                    if isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                )
            )
        return cached

    def _params(self, func: FunctionNode) -> _Bound:
        """``func``'s parameters: the client each is annotated as, or None."""
        cached = self._param_cache.get(id(func))
        if cached is None:
            args = func.args
            cached = self._param_cache[id(func)] = {
                arg.arg: _annotated(self.src, arg.annotation)
                for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)
            }
        return cached

    def _settled(self, bindings: Iterable[tuple[str, ast.expr | None, _Bound]]) -> _Bound:
        """Name -> the client every binding of it gives (a constructor, or a parameter
        of the binding function annotated as one), or None when another value is bound
        to it too (a ``None`` value aside: an attribute set up later)."""
        seen: dict[str, set[_Sdk | None]] = {}
        for name, value, params in bindings:
            given = seen.setdefault(name, set())
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            if isinstance(value, ast.Name) and value.id in params:
                given.add(params[value.id])
            else:
                given.add(_constructed(self.src, value))
        return {
            name: next(iter(given)) if len(given) == 1 else None for name, given in seen.items()
        }

    def local(self, func: FunctionNode) -> _Bound:
        """The names ``func`` binds: its parameters (a client when annotated as one),
        its assignments and ``with OpenAI() as client`` (not inside a nested function)."""
        cached = self._locals.get(id(func))
        if cached is not None:
            return cached
        params = self._params(func)
        pairs: list[tuple[str, ast.expr | None, _Bound]] = []
        # A lambda binds nothing but its parameters.
        nodes = () if isinstance(func, ast.Lambda) else kwreads.body_nodes(func)
        for node in nodes:
            if isinstance(node, ast.Assign | ast.AnnAssign):
                pairs.extend(
                    (target.id, node.value, params)
                    for target in _targets(node)
                    if isinstance(target, ast.Name)
                )
            elif isinstance(node, ast.With):
                pairs.extend(
                    (item.optional_vars.id, item.context_expr, params)
                    for item in node.items
                    if isinstance(item.optional_vars, ast.Name)
                )
        found = {**params, **self._settled(pairs)}
        self._locals[id(func)] = found
        return found


def _targets(stmt: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    """The assignment's targets (one for an annotated assignment)."""
    return list(stmt.targets) if isinstance(stmt, ast.Assign) else [stmt.target]


def _bindings(src: SourceInfo) -> _Bindings:
    """The file's :class:`_Bindings`, built once."""
    cached = src.cache.get("sync_clients")
    if not isinstance(cached, _Bindings):
        cached = _Bindings(src)
        src.cache["sync_clients"] = cached
    return cached


def _mentions(src: SourceInfo) -> bool:
    """Whether the file names one of the SDKs at all (asked once a file)."""
    cached = src.cache.get("sync_client_words")
    if not isinstance(cached, bool):
        cached = src.cache["sync_client_words"] = _WORDS_RE.search(src.data) is not None
    return cached


def client_request(src: SourceInfo, call: ast.Call, ctx: Ctx, cls: str | None) -> str | None:
    """The API text of ``call`` when it is a request through a synchronous client
    (``self.client.query(...) (a boto3 client's request)``), else None; ``cls`` is the
    class whose method ``ctx`` is in."""
    func = call.func
    if not isinstance(func, ast.Attribute) or not _mentions(src):
        return None
    chain: list[str] = [func.attr]
    root: ast.expr = func.value
    while isinstance(root, ast.Attribute) and not (
        isinstance(root.value, ast.Name) and root.value.id == "self"
    ):
        chain.append(root.attr)
        root = root.value
    sdk: _Sdk | None = None
    if isinstance(root, ast.Attribute) and cls is not None:
        # ``self.client`` (the loop above stops at ``self.<attr>``).
        sdk = _bindings(src).attrs(cls).get(root.attr)
    elif isinstance(root, ast.Name):
        bindings = _bindings(src)
        for function in reversed(ctx.funcs):
            bound = bindings.local(function)
            if root.id in bound:
                sdk = bound[root.id]
                break
        else:
            sdk = bindings.names.get(root.id)
    elif isinstance(root, ast.Call):
        sdk = _constructed(src, root)
    if sdk is None:
        return None
    if sdk.verbs is not None and (chain[0] not in sdk.verbs or len(chain) > 1):
        return None
    if any(part in sdk.local for part in chain):
        return None
    receiver = (
        f"{src.qualname(root.func) or 'client'}(...)"
        if isinstance(root, ast.Call)
        else unparse(root, 60)
    )
    shown = ".".join([receiver, *reversed(chain)])
    return f"{shown}(...) (a {sdk.name}'s request)"
