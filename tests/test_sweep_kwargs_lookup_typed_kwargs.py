# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup: ``**kwargs: Unpack[SomeTypedDict]`` (PEP 692) is typed. A type checker
sees every key of it: it checks each caller's keywords against the TypedDict and flags a
read of a key the TypedDict does not declare. Fast-LLM's ``Apriel2Attention.preprocess(
..., **kwargs: Unpack[BlockSequenceKwargs])`` reads ``kwargs["cache_position"]``, a key
``BlockSequenceKwargs`` declares (set zzzq, labelled '-'): no finding, and no
dropped-keys ✗ for an unused typed ``**kwargs``. A plain ``**kwargs`` beside it is
still read as before."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

KEYS = (
    "from typing import TypedDict\n"
    "\n\n"
    "class BlockKwargs(TypedDict, total=False):\n"
    "    cache_position: int\n"
    "    sequence_lengths: list[int]\n"
)


def test_reads_of_an_unpacked_typed_dict_are_seen_by_a_type_checker(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/keys.py", KEYS)
    feature.write(
        "pkg/attention.py",
        "import typing\n"  # 1
        "from typing import Unpack\n"
        "\n"
        "from typing_extensions import Unpack as Unpacked\n"
        "\n"  # 5
        "from pkg.keys import BlockKwargs\n"
        "\n\n"
        "def preprocess(x, **kwargs: Unpack[BlockKwargs]):\n"
        '    return x, kwargs["cache_position"], kwargs.get("sequence_lengths")\n'  # 10
        "\n\n"
        "def forward(x, **kwargs: typing.Unpack[BlockKwargs]):\n"
        '    return kwargs.pop("cache_position", None)\n'
        "\n\n"  # 15
        'def quoted(x, **kwargs: "Unpack[BlockKwargs]"):\n'
        '    return kwargs["cache_position"]\n'
        "\n\n"
        "def plain(x, **kwargs):\n"  # 21
        '    return kwargs["cache_position"]\n',  # 22: ⚠, no type checker sees it
    )
    feature.commit("typed kwargs")
    rows = [(path, line) for path, line, _sev, _msg in found(run, "kwargs-lookup")]
    assert rows == [("pkg/attention.py", 22)]


def test_an_unused_typed_kwargs_on_init_drops_nothing_silently(feature: Repo, run: Run) -> None:
    feature.write("pkg/keys.py", KEYS)
    feature.write(
        "pkg/model.py",
        "from typing import Unpack\n"  # 1
        "\n"
        "from pkg.keys import BlockKwargs\n"
        "\n\n"  # 5
        "class Typed:\n"
        "    def __init__(self, path: str, **kwargs: Unpack[BlockKwargs]) -> None:\n"
        "        self.path = path\n"
        "\n\n"  # 10
        "class Untyped:\n"
        "    def __init__(self, path: str, **kwargs) -> None:\n"  # 12: ✗, dropped
        "        self.path = path\n",
    )
    feature.commit("inits")
    rows = [(line, sev) for _path, line, sev, _msg in found(run, "kwargs-lookup")]
    assert rows == [(12, "error")]
