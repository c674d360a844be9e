# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup: ``**kwargs: Unpack[SomeTypedDict]`` (PEP 692) is typed. A type checker
checks each caller's keywords against the TypedDict and flags a read of a key it does
not declare, so a misspelt key is an error, never a silent default. A read of it is
still the seed's pattern, a key spelled as a string: ⚠ (the labellers of sets zzze and
zzzm mark bionemo's and mlx-vlm's reads of ``Unpack[TransformersKwargs]`` /
``Unpack[GenerateKwargs]`` ⚠; set zzzq's Fast-LLM ``kwargs["cache_position"]`` and set
z's ``kwargs['dir']`` are marked '-'), with a message that says the key is typed, and
never ✗: no drift between files, no dropped keys. A plain ``**kwargs`` beside it is
read as before."""

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
    # A second file reading the same new key: a plain ``**kwargs`` read would be ✗.
    feature.write(
        "pkg/mlp.py",
        "from typing import Unpack\n"
        "\n"
        "from pkg.keys import BlockKwargs\n"
        "\n\n"
        "def mlp(x, **kwargs: Unpack[BlockKwargs]):\n"
        '    return kwargs["sequence_lengths"]\n',
    )
    feature.commit("typed kwargs")
    rows = [(path, line, sev) for path, line, sev, _msg in found(run, "kwargs-lookup")]
    assert rows == [
        ("pkg/attention.py", 10, "warning"),
        ("pkg/attention.py", 10, "warning"),
        ("pkg/attention.py", 14, "warning"),
        ("pkg/attention.py", 18, "warning"),
        ("pkg/attention.py", 22, "warning"),
        ("pkg/mlp.py", 7, "warning"),
    ]
    messages = [msg for _path, _line, _sev, msg in found(run, "kwargs-lookup")]
    assert messages[0] == (
        '`kwargs["cache_position"]` in `preprocess(**kwargs)` reads a key by its string; '
        "`Unpack[...]` types it, so a type checker checks it against the TypedDict"
    )
    assert messages[4].endswith("reads a string key no type checker sees")


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
