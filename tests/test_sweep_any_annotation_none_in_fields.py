# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a field's implicit Optional (``x: T = None`` in a dataclass) is ✗ only
when None can reach it, as for a parameter: not when the class's ``__post_init__``
rejects None, nor when every construction of the class in the work tree passes the field
a value; and a function nested in another is not called by a same-named call of another
module (no evidence that None reaches its parameter)."""

from __future__ import annotations

import json

from tests.conftest import Repo
from tests.sweep_fixture import Run


def names(run: Run) -> list[str]:
    """The target of each any-annotation ✗, sorted."""
    result = run("sweep", "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    return sorted(
        f["message"].split(":", 1)[0].strip("`")
        for f in json.loads(result.out)
        if f["rule"] == "any-annotation" and f["severity"] == "error"
    )


METADATA = """\
from dataclasses import dataclass


@dataclass
class SharedMetadata:
    positions: list[int]
    seq_lens: list[int] = None
    query_start: list[int] = None
    mamba_indices: list[int] = None
"""

BUILDERS = """\
from pkg.metadata import SharedMetadata


def build(positions: list[int], lens: list[int]) -> SharedMetadata:
    return SharedMetadata(positions=positions, seq_lens=lens, query_start=[0])


def build_mamba(positions: list[int], lens: list[int], idx: list[int] = None) -> SharedMetadata:
    return SharedMetadata(
        positions=positions, seq_lens=lens, query_start=[0, 1], mamba_indices=idx
    )
"""


def test_a_field_every_construction_passes_is_no_wrong_annotation(feature: Repo, run: Run) -> None:
    # tpu-inference SharedAttentionMetadata: every constructor passes ``seq_lens`` and
    # ``query_start``; ``mamba_indices`` is left out by one and passed a None-defaulting
    # parameter by the other: None reaches it.
    feature.write("pkg/metadata.py", METADATA)
    feature.write("pkg/builders.py", BUILDERS)
    feature.commit("add")
    assert names(run) == ["mamba_indices"]


def test_a_field_of_a_class_never_constructed_by_keyword_stays_wrong(
    feature: Repo, run: Run
) -> None:
    # No construction read (a parser or ``**`` fills it), one positional, or a subclass:
    # unsure, the ✗ stays.
    feature.write("pkg/metadata.py", METADATA)
    feature.write(
        "pkg/builders.py",
        "from pkg.metadata import SharedMetadata\n\n\n"
        "def build(cfg: dict[str, list[int]]) -> SharedMetadata:\n"
        "    return SharedMetadata(**cfg)\n",
    )
    feature.commit("add")
    assert names(run) == ["mamba_indices", "query_start", "seq_lens"]


STATUS = """\
from dataclasses import dataclass


@dataclass
class KVStatus:
    kind: str = "kv_move_status"
    group_id: int = None
    node_id: int = None
    language: str = None
    test_file: str = None

    def __post_init__(self) -> None:
        if self.kind != "kv_move_status":
            raise ValueError("kind")
        if not isinstance(self.group_id, int):
            raise ValueError("group_id only can be int")
        assert self.node_id is not None, "node_id is required"
        if self.language == "cpp" and self.test_file is None:
            raise ValueError("test_file is required for cpp")
"""


def test_a_field_post_init_rejects_when_none_is_a_required_placeholder(
    feature: Repo, run: Run
) -> None:
    # lightllm UpKVStatus: ``__post_init__`` raises unless ``group_id`` is an int; a
    # raise under a compound test (``test_file`` only for cpp) leaves None possible.
    feature.write("pkg/status.py", STATUS)
    feature.commit("add")
    assert names(run) == ["language", "test_file"]


KERNEL = """\
def compile_it(fn: object, *args: object) -> object:
    return fn


def _make_fwd(n: int) -> object:
    def fwd(x: list[int], stream: int = None) -> None:
        launch(x, stream)

    return compile_it(fwd, [0] * n, 7)


def _make_bwd(n: int) -> object:
    def bwd(x: list[int], stream: int = None) -> None:
        launch(x, stream)

    bwd([0] * n)
    return bwd


def launch(x: list[int], stream: object) -> None:
    print(x, stream)
"""


def test_a_nested_function_is_not_called_by_another_modules_same_name(
    feature: Repo, run: Run
) -> None:
    # liger-kernel CuTe host functions ``fwd(..., stream: CUstream = None)`` nested in
    # their factory: a test module's own ``fwd(x)`` is another function. ``bwd``'s own
    # module calls it without ``stream``: None reaches it.
    feature.write("pkg/kernel.py", KERNEL)
    feature.write(
        "tests/test_other.py",
        "def fwd(x: list[int], stream: object = 0) -> None:\n    print(x, stream)\n\n\n"
        "def test_it() -> None:\n    fwd([1])\n    bwd([1])\n\n\n"
        "def bwd(x: list[int]) -> None:\n    print(x)\n",
    )
    feature.commit("add")
    assert names(run) == ["stream"]


TOKENIZER = """\
from typing import Optional, Union


class Tokenizer:
    def encode(self, prompt: str | list[dict], tools: list[str] = []) -> list[int]:
        if isinstance(prompt, str):
            return [len(prompt)]
        elif isinstance(prompt, list):
            return [len(prompt), len(tools)]

    def size(self, item: Union[str, bytes]) -> list[int]:
        if isinstance(item, str):
            return [1]
        elif isinstance(item, (bytes, bytearray)):
            return [2]

    def width(self, item: Optional[str]) -> list[int]:
        if isinstance(item, str):
            return [1]

    def depth(self, item: str | list[int] | dict[str, int]) -> list[int]:
        if isinstance(item, str):
            return [1]
        elif isinstance(item, list):
            return item

    def client(self, client: str | bytes) -> list[int]:
        if isinstance(client, bytes):
            return [2]

        if isinstance(client, str):
            return [1]

    def partial(self, client: str | bytes | int) -> list[int]:
        if isinstance(client, bytes):
            return [2]
        if isinstance(client, str):
            return [1]

    def late(self, client: str | bytes) -> list[int]:
        if isinstance(client, bytes):
            print(client)
        if isinstance(client, str):
            return [1]
"""


def test_a_fall_off_only_the_parameter_annotation_excludes_is_no_wrong_return(
    feature: Repo, run: Run
) -> None:
    # nemo-skills ``encode(prompt: str | list[dict]) -> list[int]``: an ``isinstance``
    # chain over every member of the parameter's annotation; ``width`` falls off for
    # ``None`` (its annotation admits it), ``depth`` for a dict. instructor's
    # ``from_fireworks``: two ``if`` statements that each return read as one chain
    # (``client``); not when they miss a member (``partial``) or the first one can fall
    # through (``late``).
    feature.write("pkg/tokenizer.py", TOKENIZER)
    feature.commit("add")
    result = run("sweep", "--format", "json", "--fail-on", "never")
    found = sorted(
        f["message"].split("`")[1]
        for f in json.loads(result.out)
        if f["rule"] == "any-annotation" and "fall off" in f["message"]
    )
    assert found == ["depth", "late", "partial", "width"]
