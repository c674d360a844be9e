# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Compare what the fast YAML builder and ruamel.yaml round-trip give the rules.

``differences(fast, reference)`` walks both trees through yamldoc's own position
helpers (the only way rules read positions) and lists every place where a value, a
type the rules can tell apart, a key order, an own-key set, a flow style or a
line/column differs. Used by tests/test_yamldoc.py and by the ``-p
tests.yaml_compare`` pytest plugin, which makes every YAML parse of a test run go
through both parsers and fail on any difference.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from policytool.errors import YamlError
from policytool.formats import yamldoc


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "seq"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "block" if yamldoc.is_block_scalar(value) else "str"
    return type(value).__mro__[-2].__name__ if value is not None else "null"


def differences(fast: object, reference: object, path: str = "$") -> list[str]:
    """Every difference between two parsed documents, as ``path: what`` lines."""
    out: list[str] = []
    seen: set[tuple[int, int]] = set()

    def walk(a: object, b: object, where: str) -> Iterator[str]:
        ka, kb = _kind(a), _kind(b)
        if ka != kb:
            yield f"{where}: kind {ka} != {kb} ({a!r} / {b!r})"
            return
        if yamldoc.anchor_name(a) != yamldoc.anchor_name(b):
            yield f"{where}: anchor {yamldoc.anchor_name(a)} != {yamldoc.anchor_name(b)}"
        if ka not in ("map", "seq"):
            if type(a) is type(b) and type(a).__module__.startswith("ruamel"):
                if repr(a) != repr(b):  # both handed to ruamel: its own scalar types
                    yield f"{where}: value {a!r} != {b!r}"
            elif a != b or str(a) != str(b):
                yield f"{where}: value {a!r} != {b!r}"
            return
        pair = (id(a), id(b))
        if pair in seen:
            return
        seen.add(pair)
        if yamldoc.node_line(a) != yamldoc.node_line(b):
            yield f"{where}: node line {yamldoc.node_line(a)} != {yamldoc.node_line(b)}"
        if yamldoc.is_flow(a) != yamldoc.is_flow(b):
            yield f"{where}: flow {yamldoc.is_flow(a)} != {yamldoc.is_flow(b)}"
        if ka == "map":
            assert isinstance(a, dict) and isinstance(b, dict)
            if list(a) != list(b):
                yield f"{where}: keys {list(a)} != {list(b)}"
                return
            if yamldoc.own_keys(a) != yamldoc.own_keys(b):
                yield f"{where}: own keys {yamldoc.own_keys(a)} != {yamldoc.own_keys(b)}"
            for key in a:
                at = f"{where}.{key}"
                for helper in (yamldoc.key_pos, yamldoc.value_pos):
                    pa, pb = helper(a, str(key)), helper(b, str(key))
                    if pa != pb:
                        yield f"{at}: {helper.__name__} {pa} != {pb}"
                yield from walk(a[key], b[key], at)
        else:
            assert isinstance(a, list) and isinstance(b, list)
            if len(a) != len(b):
                yield f"{where}: length {len(a)} != {len(b)}"
                return
            for index, (va, vb) in enumerate(zip(a, b, strict=True)):
                at = f"{where}[{index}]"
                pa, pb = yamldoc.item_pos(a, index), yamldoc.item_pos(b, index)
                if pa != pb:
                    yield f"{at}: item_pos {pa} != {pb}"
                yield from walk(va, vb, at)

    out.extend(walk(fast, reference, path))
    return out


def _compare_parse(original: object) -> object:
    """A ``yamldoc._parse`` that reads with both parsers and returns ruamel's data."""

    def both(text: str, relpath: str, backend: str) -> yamldoc.YamlNode:
        try:
            reference = original(text, relpath, "ruamel")  # type: ignore[operator]
        except YamlError as ruamel_error:
            try:
                original(text, relpath, "fast")  # type: ignore[operator]
            except YamlError as fast_error:
                assert str(fast_error) == str(ruamel_error)
                raise
            raise AssertionError(f"{relpath}: only ruamel failed: {ruamel_error}") from None
        fast = original(text, relpath, "fast")  # type: ignore[operator]
        found = differences(fast, reference)
        assert not found, f"{relpath}: the parsers differ:\n" + "\n".join(found[:20])
        return reference  # type: ignore[no-any-return]

    return both


@pytest.fixture(autouse=True)
def _yaml_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plugin fixture: every YAML parse in the run goes through both parsers."""
    monkeypatch.setattr(yamldoc, "_parse", _compare_parse(yamldoc._parse))
    yamldoc._CACHE.clear()
