# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a test fake of a record class of an installed package that the
code under test imports (one hop from the test): its keywords are all fields of that
class and one of them is a field no other class declares (unsloth's
``SimpleNamespace(rfilename=..., size=...)`` for huggingface_hub's ``RepoSibling``).
Field names many classes declare, a record the repository declares too, a package too
big to read and a package nobody imports name nothing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from policytool.rules import _fake_packages, _fakes
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

HUB_API = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass RepoSibling:\n"
    "    rfilename: str\n    size: int | None = None\n    blob_id: str | None = None\n\n\n"
    "@dataclass\nclass RepoFile:\n"
    "    path: str\n    size: int\n    blob_id: str\n\n"
    "    def __post_init__(self) -> None:\n"
    "        self.rfilename = self.path  # backward compatibility\n\n\n"
    "@dataclass\nclass RepoFolder:\n    path: str\n    tree_id: str\n\n\n"
    "class HfApi:\n"
    "    def model_info(self, repo_id: str) -> object:\n        return object()\n"
)


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed ``hublib`` (outside the repository) with huggingface_hub's listing
    records: ``RepoSibling`` alone declares ``rfilename`` (``RepoFile`` sets it as a
    compatibility attribute), ``path`` and ``size`` are declared by several."""
    root = tmp_path / "site"
    (root / "hublib").mkdir(parents=True)
    (root / "hublib" / "__init__.py").write_text("from .hf_api import HfApi\n")
    (root / "hublib" / "hf_api.py").write_text(HUB_API)
    return _installed(root, monkeypatch)


def _installed(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``root`` put on ``sys.path`` as a site directory, the package caches emptied."""
    monkeypatch.syspath_prepend(str(root))
    _fake_packages._package_texts.cache_clear()
    _fake_packages._declaring_modules.cache_clear()
    _fake_packages._tag_index.cache_clear()
    return root


CODE = (
    "def plan(siblings: list) -> int:\n"
    "    from hublib import HfApi\n\n"
    "    HfApi().model_info('r')\n"
    "    return sum(s.size for s in siblings)\n"
)


def test_fake_with_a_field_one_package_class_declares_alone(
    feature: Repo, run: Run, hub: Path
) -> None:
    """unsloth: the code under test imports ``hublib``; the test's listing entries
    ``SimpleNamespace(rfilename=..., size=...)`` are ``RepoSibling``s (✗ naming it), in a
    list bound to a name or as a keyword of another fake."""
    feature.write("pkg/gguf.py", CODE)
    feature.write(
        "tests/test_gguf.py",
        "from types import SimpleNamespace\n\nfrom pkg.gguf import plan\n\n\n"
        "def test_plan() -> None:\n"
        "    siblings = [\n"
        "        SimpleNamespace(rfilename='a.gguf', size=1),\n"  # 8
        "        SimpleNamespace(rfilename='b.gguf', size=2),\n"  # 9
        "    ]\n"
        "    assert plan(siblings) == 3\n"
        "    info = SimpleNamespace(siblings=[SimpleNamespace(rfilename='c', size=3)])\n"  # 12
        "    assert info\n",
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [
        (8, "error"),
        (9, "error"),
        (12, "warning"),  # `siblings`: several records (none here) - the outer stays ⚠
        (12, "error"),
    ]
    assert "stands in for `RepoSibling` (hublib/hf_api.py;" in rows[0][3]
    assert "installed `hublib` the code under test imports" in rows[0][3]
    assert "`rfilename` is a field of no other class" in rows[0][3]


def test_fake_from_a_folder_the_conftest_puts_on_the_path(
    feature: Repo, run: Run, hub: Path
) -> None:
    """unsloth's ``studio/backend/tests`` import ``hub.utils.gguf`` (a conftest puts
    ``studio/backend`` on ``sys.path``): the one module of the tree ending so is the
    code under test, and its imports are read."""
    feature.write("studio/backend/hub/__init__.py", "")
    feature.write("studio/backend/hub/utils/__init__.py", "")
    feature.write("studio/backend/hub/utils/gguf.py", CODE)
    feature.write(
        "studio/backend/tests/test_gguf.py",
        "from types import SimpleNamespace\n\nfrom hub.utils.gguf import plan\n\n\n"
        "def test_plan() -> None:\n"
        "    assert plan([SimpleNamespace(rfilename='a.gguf', size=1)]) == 1\n",  # 7
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(7, "error")]
    assert "`RepoSibling`" in rows[0][3]


def test_common_fields_or_one_keyword_name_nothing(feature: Repo, run: Run, hub: Path) -> None:
    """``SimpleNamespace(path=..., size=...)`` fits ``RepoFile`` but both names are
    fields of other classes (no reviewer would name one); ``SimpleNamespace(
    rfilename=...)`` alone is too little to call it a record; a fake whose name says it
    is a service (``client``) copies fields, it is no record."""
    feature.write("pkg/gguf.py", CODE)
    feature.write(
        "tests/test_gguf.py",
        "from types import SimpleNamespace\n\nfrom pkg.gguf import plan\n\n\n"
        "def test_plan() -> None:\n"
        "    assert plan([SimpleNamespace(path='a', size=1)]) == 1\n"  # 7
        "    assert plan([SimpleNamespace(rfilename='a')]) == 0\n"  # 8
        "    client = SimpleNamespace(rfilename='a', size=1)\n"  # 9
        "    assert client\n",
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(7, "warning"), (8, "warning"), (9, "warning")]


def test_repository_declaring_the_field_or_no_import_names_nothing(
    feature: Repo, run: Run, hub: Path
) -> None:
    """When the repository declares ``rfilename:`` too (its own record) the field no
    longer singles out the package's class; a test whose code under test never imports
    the package is no fake of its classes."""
    feature.write("pkg/gguf.py", CODE)
    feature.write("pkg/other.py", "def f() -> int:\n    return 1\n")
    feature.write(
        "pkg/records.py",
        "from typing import TypedDict\n\n\n"
        "class Entry(TypedDict):\n    rfilename: str\n    kind: str\n",
    )
    feature.write(
        "tests/test_gguf.py",
        "from types import SimpleNamespace\n\nfrom pkg.gguf import plan\n\n\n"
        "def test_plan() -> None:\n"
        "    assert plan([SimpleNamespace(rfilename='a', size=1)]) == 1\n",  # 7
    )
    feature.write(
        "tests/test_other.py",
        "from types import SimpleNamespace\n\nfrom pkg.other import f\n\n\n"
        "def test_f() -> None:\n"
        "    assert f() and SimpleNamespace(rfilename='a', size=1)\n",  # 7
    )
    rows = found(run, "any-annotation")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("tests/test_gguf.py", 7, "warning"),
        ("tests/test_other.py", 7, "warning"),
    ]


def test_a_package_too_big_is_not_read(
    tmp_path: Path, hub: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package over ``MAX_PACKAGE_FILES`` modules (a framework like transformers) is
    not read: the cost would fall on every test file, and its many classes single out
    none. A small one is read for the lines declaring a field, and only the class
    declaring it (not the one setting it in ``__post_init__``) is returned."""
    monkeypatch.setattr(_fake_packages, "MAX_PACKAGE_FILES", 1)
    (hub / "hublib" / "extra.py").write_text("X = 1\n")
    _fake_packages._package_texts.cache_clear()
    _fake_packages._declaring_modules.cache_clear()
    assert _fake_packages._package_texts(str(hub / "hublib")) is None
    assert _fake_packages._declaring_modules(str(hub / "hublib"), "rfilename") == ()
    monkeypatch.setattr(_fake_packages, "MAX_PACKAGE_FILES", 400)
    _fake_packages._package_texts.cache_clear()
    _fake_packages._declaring_modules.cache_clear()
    hub_dir = str(hub / "hublib")
    assert _fake_packages._declaring_modules(hub_dir, "rfilename") == ("hublib.hf_api",)
    found = _fake_packages._declaring(hub_dir, "hublib.hf_api", "rfilename")
    assert [(c, shown) for c, shown, _names, _bases in found] == [
        ("RepoSibling", "hublib/hf_api.py")
    ]
    assert len(_fake_packages._declaring(hub_dir, "hublib.hf_api", "path")) == 2


# A generated SDK (openai's shape): three response models share `model`, `choices` and
# `usage`, their `choices` hold different `Choice` classes, and a request TypedDict has
# the message's fields, as another has some of them. `choices` is declared in three
# modules: rare enough.
SDK_MODULES = {
    "completion.py": (
        "from typing import List, Optional\n\nfrom pydantic import BaseModel\n\n"
        "from .usage import CompletionUsage\n\n\n"
        "class CompletionChoice(BaseModel):\n"
        "    finish_reason: str\n    index: int\n    text: str\n\n\n"
        "class Completion(BaseModel):\n"
        "    id: str\n    choices: List[CompletionChoice]\n    model: str\n"
        "    usage: Optional[CompletionUsage] = None\n"
    ),
    "chat_completion.py": (
        "from typing import List, Optional\n\nfrom pydantic import BaseModel\n\n"
        "from .message import ChatCompletionMessage\nfrom .usage import CompletionUsage\n\n\n"
        "class Choice(BaseModel):\n"
        "    finish_reason: str\n    index: int\n    message: ChatCompletionMessage\n\n\n"
        "class ChatCompletion(BaseModel):\n"
        "    id: str\n    choices: List[Choice]\n    created: int\n    model: str\n"
        "    usage: Optional[CompletionUsage] = None\n"
    ),
    "chat_completion_chunk.py": (
        "from typing import List, Optional\n\nfrom pydantic import BaseModel\n\n"
        "from .usage import CompletionUsage\n\n\n"
        "class ChoiceDeltaToolCall(BaseModel):\n"
        "    index: int\n    id: Optional[str] = None\n    type: Optional[str] = None\n\n\n"
        "class ChoiceDelta(BaseModel):\n"
        "    content: Optional[str] = None\n    refusal: Optional[str] = None\n"
        "    role: Optional[str] = None\n"
        "    tool_calls: Optional[List[ChoiceDeltaToolCall]] = None\n\n\n"
        "class Choice(BaseModel):\n"
        "    delta: ChoiceDelta\n    finish_reason: Optional[str] = None\n    index: int\n\n\n"
        "class ChatCompletionChunk(BaseModel):\n"
        "    id: str\n    choices: List[Choice]\n    created: int\n    model: str\n"
        "    usage: Optional[CompletionUsage] = None\n"
    ),
    "message.py": (
        "from typing import Optional\n\nfrom pydantic import BaseModel\n\n\n"
        "class ChatCompletionMessage(BaseModel):\n"
        "    content: Optional[str] = None\n    refusal: Optional[str] = None\n"
        "    role: str\n    tool_calls: Optional[list] = None\n"
    ),
    "message_param.py": (
        "from typing_extensions import TypedDict\n\n\n"
        "class AssistantMessageParam(TypedDict, total=False):\n"
        "    content: str\n    name: str\n    role: str\n    tool_calls: list\n"
    ),
    "user_message_param.py": (
        "from typing_extensions import TypedDict\n\n\n"
        "class UserMessageParam(TypedDict, total=False):\n"
        "    content: str\n    name: str\n    role: str\n"
    ),
    "events.py": (
        "from typing import Literal\n\nfrom pydantic import BaseModel\n\n\n"
        "class ContentBlockStartEvent(BaseModel):\n"
        "    type: Literal['content_block_start']\n    index: int\n    content_block: object\n\n\n"
        "class ContentBlockStopEvent(BaseModel):\n"
        "    type: Literal['content_block_stop']\n    index: int\n\n\n"
        "class FileEntry(BaseModel):\n"
        "    name: str\n    path: str\n    type: Literal['file', 'dir', 'symlink']\n"
    ),
    "beta/__init__.py": "",
    "beta/beta_events.py": (
        "from typing import Literal\n\nfrom pydantic import BaseModel\n\n\n"
        "class BetaContentBlockStartEvent(BaseModel):\n"
        "    type: Literal['content_block_start']\n    index: int\n    content_block: object\n"
    ),
    "event_params.py": (
        "from typing import Literal\n\nfrom typing_extensions import TypedDict\n\n\n"
        "class ContentBlockHaltParam(TypedDict, total=False):\n"
        "    type: Literal['content_block_halt']\n    index: int\n"
    ),
    "usage.py": (
        "from pydantic import BaseModel\n\n\n"
        "class CompletionUsage(BaseModel):\n"
        "    completion_tokens: int\n    prompt_tokens: int\n    total_tokens: int\n"
    ),
}


@pytest.fixture
def sdk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed ``sdklib`` shaped like openai's generated models."""
    root = tmp_path / "site"
    (root / "sdklib" / "types").mkdir(parents=True)
    (root / "sdklib" / "__init__.py").write_text("class Client:\n    pass\n")
    (root / "sdklib" / "types" / "beta").mkdir()
    (root / "sdklib" / "types" / "__init__.py").write_text("")
    for name, text in SDK_MODULES.items():
        (root / "sdklib" / "types" / name).write_text(text)
    return _installed(root, monkeypatch)


WRAPPER = (
    "from sdklib import Client\n\n\n"
    "def text_of(response: object) -> str:\n"
    "    return str(response)\n"
)


def _write_wrap_test(feature: Repo, test_source: str) -> None:
    """``pkg/wrap.py`` (importing ``sdklib``) and ``tests/test_wrap.py``: the imports,
    then ``test_source`` from line 6."""
    feature.write("pkg/wrap.py", WRAPPER)
    header = "from types import SimpleNamespace\n\nfrom pkg.wrap import text_of\n\n\n"
    feature.write("tests/test_wrap.py", header + test_source)


def test_fake_of_a_model_its_siblings_share_fields_with(feature: Repo, run: Run, sdk: Path) -> None:
    """langfuse: ``SimpleNamespace(model=..., choices=[SimpleNamespace(delta=...,
    finish_reason=...)], usage=...)`` sets no field one class alone declares, but
    ``choices`` is rare and the element's ``delta`` fits only the chunk's ``Choice``:
    ✗ naming ``ChatCompletionChunk``, and the nested fakes through its field types
    (an element of ``Optional[List[ChoiceDeltaToolCall]]`` too).
    With ``message`` the element it is ``ChatCompletion``; with no element to tell, the
    class leaving the fewest fields unset is named and the others listed."""
    _write_wrap_test(
        feature,
        "def test_chunk() -> None:\n"
        "    chunk = SimpleNamespace(\n"  # 7
        "        model='m',\n"
        "        choices=[\n"
        "            SimpleNamespace(\n"  # 10
        "                delta=SimpleNamespace(\n"  # 11
        "                    role='assistant', tool_calls=[SimpleNamespace(index=0, id='c')]\n"
        "                ),\n"
        "                finish_reason=None,\n"
        "            )\n"
        "        ],\n"
        "        usage=SimpleNamespace(prompt_tokens=3, completion_tokens=1, total_tokens=4),\n"
        "    )\n"
        "    assert text_of(chunk)\n"
        "    done = SimpleNamespace(\n"  # 20
        "        model='m', choices=[SimpleNamespace(message='x')], usage=None\n"  # 21
        "    )\n"
        "    assert text_of(done)\n"
        "    assert text_of(SimpleNamespace(model='m', choices=[], usage=None))\n",  # 24
    )
    rows = [(r[1], r[2], r[3]) for r in found(run, "any-annotation")]
    named = {
        line: message.split("stands in for `", 1)[1].split("`", 1)[0] for line, _s, message in rows
    }
    assert [(line, severity) for line, severity, _m in rows] == [
        (7, "error"),
        (10, "error"),
        (11, "error"),
        (12, "error"),
        (17, "error"),
        (20, "error"),
        (21, "error"),
        (24, "error"),
    ]
    assert named == {
        7: "ChatCompletionChunk",
        10: "Choice",
        11: "ChoiceDelta",
        12: "ChoiceDeltaToolCall",
        17: "CompletionUsage",
        20: "ChatCompletion",
        21: "Choice",
        24: "Completion",
    }
    assert "in the installed `sdklib` the code under test imports)" in rows[0][2]
    # an element of a list field under ``Optional``, the annotation shown whole
    assert "`tool_calls: Optional[List[ChoiceDeltaToolCall]]` in" in rows[3][2]
    assert "so do `ChatCompletion`, `ChatCompletionChunk`" in rows[-1][2]


def test_shared_fields_need_three_keywords_a_rare_one_and_no_typed_dict(
    feature: Repo, run: Run, sdk: Path
) -> None:
    """Two keywords (``model``, ``choices``) are too few to call a fake a model; a fake
    whose keywords only ``TypedDict`` classes have (read by key, where the fake is read
    by attribute) mimics no class of the package."""
    _write_wrap_test(
        feature,
        "def test_few() -> None:\n"
        "    assert text_of(SimpleNamespace(model='m', choices=[]))\n"  # 7
        "    assert text_of(SimpleNamespace(role='a', content='b', name='n'))\n",  # 8
    )
    rows = [(r[1], r[2]) for r in found(run, "any-annotation")]
    assert rows == [(7, "warning"), (8, "warning")]


def test_fake_named_by_the_tag_its_model_declares(feature: Repo, run: Run, sdk: Path) -> None:
    """pipecat: ``SimpleNamespace(type="content_block_start", content_block=...)`` sets
    two keywords many models declare, but the value is the tag one model declares as
    ``type: Literal["content_block_start"]``: ✗ naming it (the shallower module first, the
    beta copy listed). A tag no model declares, a keyword the model lacks, a tag only a
    ``TypedDict`` declares (read by key) and a field no model tags name nothing."""
    _write_wrap_test(
        feature,
        "def test_events() -> None:\n"
        "    start = SimpleNamespace(type='content_block_start', content_block=None)\n"  # 7
        "    assert text_of(start)\n"
        "    assert text_of(SimpleNamespace(type='content_block_end', index=0))\n"  # 9
        "    assert text_of(SimpleNamespace(type='content_block_start', extra=1))\n"  # 10
        "    assert text_of(SimpleNamespace(type='content_block_halt', index=0))\n"  # 11
        "    assert text_of(SimpleNamespace(kind='content_block_start', index=0))\n"  # 12
        "    assert text_of(SimpleNamespace(type='dir', path='/out'))\n",  # 13
    )
    rows = [(r[1], r[2], r[3]) for r in found(run, "any-annotation")]
    assert [(line, severity) for line, severity, _m in rows] == [
        (7, "error"),
        (9, "warning"),
        (10, "warning"),
        (11, "warning"),
        (12, "warning"),
        (13, "error"),  # one of the values of `Literal['file', 'dir', 'symlink']`
    ]
    assert "stands in for `FileEntry`" in rows[-1][2]
    message = rows[0][2]
    assert "stands in for `ContentBlockStartEvent` (sdklib/types/events.py;" in message
    assert (
        'its `type="content_block_start"`, a `Literal` value of `ContentBlockStartEvent.type`'
        in message
    )
    assert "so do `BetaContentBlockStartEvent`" in message


@pytest.mark.parametrize(
    ("types_init", "severity"),
    [
        ("from .sdk_types import ChatCompletion\n", "error"),
        ("class ChatCompletion:\n    pass\n", "warning"),
    ],
    ids=["reexported", "own-class"],
)
def test_a_model_reached_through_the_repositorys_own_reexports(
    feature: Repo, run: Run, sdk: Path, types_init: str, severity: str
) -> None:
    """camel: the code under test imports ``ChatCompletion`` from its own ``pkg.types``,
    whose ``__init__`` takes it from ``.sdk_types``, which takes it from ``sdklib``: the
    name is followed to the installed package, whose models the test's fakes mimic (✗).
    A class ``pkg.types`` defines itself leads nowhere (⚠)."""
    feature.write("pkg/types/__init__.py", types_init)
    feature.write(
        "pkg/types/sdk_types.py", "from sdklib.types.chat_completion import ChatCompletion\n"
    )
    feature.write(
        "pkg/adapter.py",
        "from pkg.types import ChatCompletion\n\n\n"
        "def adapt(event: object) -> ChatCompletion:\n    raise NotImplementedError\n",
    )
    fake = "SimpleNamespace(type='content_block_start', content_block=None)"
    feature.write(
        "tests/test_adapter.py",
        "from types import SimpleNamespace\n\nfrom pkg.adapter import adapt\n\n\n"
        f"def test_adapt() -> None:\n    adapt({fake})\n",  # 7
    )
    rows = [(r[1], r[2], r[3]) for r in found(run, "any-annotation")]
    assert [(line, severity) for line, severity, _m in rows] == [(7, severity)]
    assert ("stands in for `ContentBlockStartEvent`" in rows[0][2]) == (severity == "error")


def test_a_preview_apis_model_loses_a_tie(feature: Repo, run: Run, sdk: Path) -> None:
    """openai's ``types.responses.Response`` and ``types.beta.BetaResponse`` declare the
    same fields at the same depth: the stable API's model is named, the preview's
    listed (alphabetically ``beta`` would come first)."""
    event = (
        "from pydantic import BaseModel\n\n\nclass {name}(BaseModel):\n"
        "    id: str\n    incomplete_details: object\n    output: list\n"
    )
    stable = sdk / "sdklib" / "types" / "responses"
    stable.mkdir()
    (stable / "__init__.py").write_text("")
    (stable / "response.py").write_text(event.format(name="Response"))
    (sdk / "sdklib" / "types" / "beta" / "beta_response.py").write_text(
        event.format(name="BetaResponse")
    )
    _installed(sdk, pytest.MonkeyPatch())
    _write_wrap_test(
        feature,
        "def test_response() -> None:\n"
        "    assert text_of(SimpleNamespace(id='r', incomplete_details=None, output=[]))\n",  # 7
    )
    rows = [(r[1], r[2], r[3]) for r in found(run, "any-annotation")]
    assert [(line, severity) for line, severity, _m in rows] == [(7, "error")]
    assert "stands in for `Response` (sdklib/types/responses/response.py;" in rows[0][2]
    assert "so do `BetaResponse`" in rows[0][2]


@pytest.mark.parametrize(
    "fake",
    [
        "SimpleNamespace(model='m', choices=[], usage=None)",
        "SimpleNamespace(type='content_block_start', index=0)",
    ],
    ids=["shared-fields", "tag"],
)
def test_a_package_the_code_never_imports_names_nothing(
    feature: Repo, run: Run, sdk: Path, fake: str
) -> None:
    """The SDK's fakes (by shared fields, by a tag) in a test whose code under test does
    not import ``sdklib``: the package is not read, the fake stays ⚠."""
    feature.write("pkg/plain.py", "def text_of(event: object) -> str:\n    return str(event)\n")
    feature.write(
        "tests/test_plain.py",
        "from types import SimpleNamespace\n\nfrom pkg.plain import text_of\n\n\n"
        "def test_plain() -> None:\n"
        f"    assert text_of({fake})\n",  # 7
    )
    rows = [(r[1], r[2]) for r in found(run, "any-annotation")]
    assert rows == [(7, "warning")]


@pytest.mark.parametrize(
    ("import_line", "severity"),
    [
        ("import sdklib\n", "error"),
        ("import os, sdklib.types as types\n", "error"),
        ("import importlib\n\nsdk = importlib.import_module('sdklib')\n", "error"),
        (
            "from pkg.deps import require_dependency\n\nsdk = require_dependency('sdklib')\n",
            "error",
        ),
        (
            "from pkg.deps import require_dependency\n\nsdk = require_dependency('nosuchlib')\n",
            "warning",
        ),
        ("NAME = 'sdklib'\n", "warning"),
        ("import json\n", "warning"),
    ],
    ids=["import", "import-as", "import-module", "project-helper", "missing", "string", "other"],
)
def test_a_package_the_code_imports_whole_or_by_name_at_run_time(
    feature: Repo, run: Run, sdk: Path, import_line: str, severity: str
) -> None:
    """deepeval: ``anthropic_model.py`` gets the SDK with ``require_dependency(
    "anthropic", ...)`` and names none of its classes; the test's content blocks
    ``SimpleNamespace(type="text", text=...)`` are the SDK's ``TextBlock`` all the same.
    A package imported whole (``import sdklib``) or by a literal name given to an import
    call is read like one a ``from`` import names; a name that is no installed package,
    a string no import call is given, or another package leave the fake ⚠."""
    feature.write("pkg/deps.py", "def require_dependency(name: str) -> object:\n    return name\n")
    feature.write(
        "pkg/stream.py",
        import_line + "\n\ndef text_of(event: object) -> str:\n    return str(event)\n",
    )
    feature.write(
        "tests/test_stream.py",
        "from types import SimpleNamespace\n\nfrom pkg.stream import text_of\n\n\n"
        "def test_stream() -> None:\n"
        "    assert text_of(SimpleNamespace(type='content_block_start', index=0))\n",  # 7
    )
    rows = [(r[1], r[2], r[3]) for r in found(run, "any-annotation")]
    assert [(line, sev) for line, sev, _m in rows] == [(7, severity)]
    assert ("stands in for `ContentBlockStartEvent`" in rows[0][2]) == (severity == "error")


def test_packages_imported_whole_are_read_in_order_and_bounded() -> None:
    """A module importing thousands of packages (a hostile pull request's) keeps the first
    ``MAX_WHOLE_PACKAGES``, each once, ``import`` lines before run-time imports; a ``from``
    import, an attribute call and a non-literal name are none of them."""
    lines = [f"import p{i}, p{i}.sub as s{i}\n" for i in range(500)]
    data = "".join(lines).encode()
    kept = _fakes._whole_packages(data)
    assert kept == tuple(f"p{i}" for i in range(_fakes.MAX_WHOLE_PACKAGES))
    data = (
        b"from a import b\nimport c\nx = importlib.import_module('d.e')\n"
        b"y = require_dependency(\n    \"f\",\n)\nz = import_module(name)\nw = obj.run('g')\n"
    )
    assert _fakes._whole_packages(data) == ("c", "d", "f")


@pytest.mark.timing
def test_thousands_of_tagged_fakes_cost_one_pass_over_the_package(
    tmp_path: Path, feature: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pull request of 3,000 module-level fakes, each with a tag of its own, against a
    generated package of 600 tagged models: the package's tags are indexed once per field
    and each fake's tag looked up (a search per fake read the whole package each time:
    3.8 s here against 1.0 s, growing with fakes x package); the one real tag is named."""
    root = tmp_path / "site"
    (root / "biglib" / "types").mkdir(parents=True)
    (root / "biglib" / "__init__.py").write_text("class Client:\n    pass\n")
    (root / "biglib" / "types" / "__init__.py").write_text("")
    for i in range(600):
        (root / "biglib" / "types" / f"event_{i}.py").write_text(
            "from typing import Literal\n\nfrom pydantic import BaseModel\n\n\n"
            f"class Event{i}(BaseModel):\n"
            f"    type: Literal['event.kind_{i}']\n    index: int\n" + "    # padding\n" * 200
        )
    _installed(root, monkeypatch)
    feature.write(
        "pkg/wrap.py",
        "from biglib import Client\n\n\ndef f(e: object) -> str:\n    return str(e)\n",
    )
    lines = ["from types import SimpleNamespace", "", "from pkg.wrap import f", ""]
    lines += [f"E{i} = SimpleNamespace(type='made.up_{i}', index={i})" for i in range(3000)]
    lines.append("REAL = SimpleNamespace(type='event.kind_599', index=0)")
    feature.write("tests/test_events.py", "\n".join(lines) + "\n")
    started = time.perf_counter()
    rows = [(r[1], r[2], r[3]) for r in found(run, "any-annotation")]
    elapsed = time.perf_counter() - started
    assert len(rows) == 3001
    assert [(line, severity) for line, severity, _m in rows if severity == "error"] == [
        (3005, "error")
    ]
    assert "stands in for `Event599`" in rows[-1][2]
    index = _fake_packages._tag_index.cache_info()
    assert (index.misses, index.hits) == (1, 3000)  # one pass, then lookups
    assert elapsed < 60, elapsed


def test_a_generated_sdk_of_thousands_of_small_modules_is_read(tmp_path: Path) -> None:
    """anthropic 2.x ships 3,357 modules in 8.8 MB: past the first module bound (2,000)
    but small. The default bounds read it, so its models name a test's fakes."""
    package = tmp_path / "sdklib"
    (package / "types").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for index in range(2500):
        (package / "types" / f"m{index}.py").write_text(f"X{index} = {index}\n")
    (package / "types" / "text_block.py").write_text(
        "from pydantic import BaseModel\n\n\nclass TextBlock(BaseModel):\n    text: str\n"
    )
    _fake_packages._package_texts.cache_clear()
    texts = _fake_packages._package_texts(str(package))
    assert texts is not None and "sdklib.types.text_block" in texts.modules
