# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a parameter annotated ``tuple[X]`` (exactly one item) that its
own function uses as a tuple of any length (chatlearn's ``models: Tuple[BaseModule]``
looped over, set zzzs; xDiT's ``fp8_layers: tuple[str] | None``, set zzw): the writer
meant ``tuple[X, ...]``, and a type checker rejects every caller passing two items.
``x[0]`` alone, a rebound name, ``tuple[X, ...]`` and an old annotation say nothing."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, blocking

MANAGER = """\
from typing import Optional, Tuple


class ModelManager:
    def __init__(
        self, models: Tuple[str], shapes: Optional[Tuple[int]] = None
    ) -> None:
        self.names = [m for m in models]
        self.last = shapes[-1] if shapes else 0


def total(dims: tuple[int] | None) -> int:
    return len(dims or ()) + len(dims)


def pick(kv: Tuple[int], i: int) -> int:
    return kv[i]


def has(names: tuple[str], name: str) -> bool:
    return name in names


def splat(shape: Tuple[int]) -> list[int]:
    return [*shape]


def tail(shape: Tuple[int]) -> Tuple[int, ...]:
    return shape[1:]
"""

FINE = """\
from typing import Tuple


def first(kv: Tuple[int]) -> int:
    return kv[0]


def rebound(kv: Tuple[int]) -> int:
    kv = (1, 2)
    return len(kv)


def rebound_twice(kv: Tuple[int]) -> int:
    kv = (1, 2)
    kv = (3, 4, 5)
    return len(kv)


def any_length(kv: Tuple[int, ...]) -> int:
    return len(kv)


def pair(kv: Tuple[int, int]) -> int:
    return len(kv)


def handed_on(kv: Tuple[int]) -> None:
    print(kv)


def unparsable(kv: "Tuple[int") -> int:
    return len(kv)


def nested(kv: Tuple[int]) -> object:
    def inner(kv: list[int]) -> int:
        return len(kv)

    return inner
"""


def test_a_one_item_tuple_used_as_any_length(feature: Repo, run: Run) -> None:
    feature.write("pkg/manager.py", MANAGER)
    found = blocking(run, "any-annotation")
    assert [line for _p, line, _m in found] == [6, 6, 12, 16, 20, 24, 28]
    messages = [m for _p, _l, m in found]
    assert "`models: Tuple[str]` (line 6) is a tuple of exactly one item" in messages[0]
    assert "(`for ... in models`): write `tuple[str, ...]`" in messages[0]
    assert "(`shapes[-1]`): write `tuple[int, ...]`" in messages[1]
    assert "(`len(dims)`)" in messages[2]
    assert "(`kv[i]`)" in messages[3]
    assert "(`... in names`)" in messages[4]
    assert "(`*shape`)" in messages[5]
    assert "(`shape[...:...]`)" in messages[6]


def test_what_a_one_item_tuple_may_do(feature: Repo, run: Run) -> None:
    """Its one item read, a name rebound before use (once or twice), the any-length
    spelling, a fixed arity of two, a plain pass-on, a string annotation that does not parse, and a nested
    function's own parameter: no ✗."""
    feature.write("pkg/fine.py", FINE)
    assert blocking(run, "any-annotation") == []


def test_an_old_annotation_is_not_the_changes(feature: Repo, run: Run) -> None:
    """A loop added under an old `models: Tuple[str]` states nothing new about the
    parameter: the annotation was as wrong before the change."""
    old = "from typing import Tuple\n\n\ndef names(models: Tuple[str]) -> None:\n    pass\n"
    feature.on_main({"pkg/names.py": old})
    feature.write(
        "pkg/names.py", old.replace("    pass\n", "    for m in models:\n        print(m)\n")
    )
    assert blocking(run, "any-annotation") == []
