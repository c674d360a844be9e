# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a test parameter its ``@pytest.mark.parametrize`` rows
contradict: pytest calls the test once per row, so a row is a call certainly made.
nunchaku b3f12860 (set zzy): ``lora_name: str`` given ``None`` by both rows, the body
branching on ``lora_name is None``."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, errors, found

CONTRADICTED = """\
import pytest


@pytest.mark.parametrize(
    "lora_name, steps",
    [
        (None, 4),
        pytest.param("anime", 8, id="lora"),
    ],
)
def test_cache(lora_name: str, steps: int) -> None:
    assert run_with(lora_name, steps)


@pytest.mark.parametrize("size", [1, "2"])
def test_size(size: int) -> None:
    assert size


@pytest.mark.parametrize(("shape",), [((2, 3),), ((4, 5, 6),)])
def test_shape(shape: tuple[int]) -> None:
    assert shape
"""


def test_a_row_contradicting_the_annotation_is_a_wrong_annotation(feature: Repo, run: Run) -> None:
    """None (a ``pytest.param`` row read as its values; whatever the body does with it:
    the row is there to run the test with it),
    a string for an ``int``, tuples of other than one item for ``tuple[int]``: ✗ at the
    annotation, naming the row's line."""
    feature.write("tests/test_cache.py", CONTRADICTED)
    got = errors(run, "any-annotation")
    assert sorted(got) == [11, 16, 21]
    assert got[11] == (
        "`lora_name: str` of `test_cache` is contradicted by its `parametrize` row at line 7, "
        "which passes None; annotate `lora_name: str | None`"
    )
    assert "row at line 15, which passes a str" in got[16]
    assert "passes a tuple of 2 items" in got[21]


AGREEING = """\
import pytest
from pytest import mark


@mark.parametrize("name", ["a", "b"])
def test_named(name: str | None, size: int = 2) -> None:
    assert name


@pytest.mark.parametrize("backend", [None, "cuda"], indirect=True)
def test_fixture(backend: str) -> None:
    assert backend


@pytest.mark.parametrize("size", [1, 2.0])
def test_number(size: int) -> None:
    assert size


@pytest.mark.parametrize("name", [None])  # type: ignore[list-item]
def test_silenced(
    name: str,  # type: ignore[assignment]
) -> None:
    if name is None:
        return
"""


def test_rows_the_annotation_holds_or_that_do_not_reach_it_are_not_reported(
    feature: Repo, run: Run
) -> None:
    """Rows the annotation holds, ``indirect`` rows (they go to a fixture), a float for an ``int`` (a
    number for a number) and a silenced annotation: no finding."""
    feature.write("tests/test_agree.py", AGREEING)
    assert [f for f in found(run, "any-annotation") if f[2] == "error"] == []


def test_an_old_annotation_is_not_reported_for_a_new_row(repo: Repo, run: Run) -> None:
    """The annotation predates the change; a row the change adds is judged with the old
    annotation's other findings (not this change's)."""
    repo.write("tests/test_cache.py", CONTRADICTED.replace("(None, 4),", '("base", 4),'))
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("tests/test_cache.py", CONTRADICTED)
    assert 11 not in errors(run, "any-annotation")


FIXTURES = """\
from collections.abc import AsyncGenerator, Iterator
from typing import Generator

import pytest


@pytest.fixture
def numbers() -> Iterator[int]:
    return iter([1, 2])


@pytest.fixture
def stub_in_module() -> Iterator[str]:
    yield "stub"


async def test_unary(inference_service_stub: AsyncGenerator[Stub, None]) -> None:
    await inference_service_stub.ModelInfer()


def test_module(stub_in_module: "Iterator[str]", numbers: Iterator[int]) -> None:
    assert next(numbers) and stub_in_module


@pytest.mark.parametrize("rows", [iter([1])])
def test_given(rows: Iterator[int], other: Generator[int, None, None]) -> None:
    assert rows


def helper(stream: Iterator[int]) -> None:
    assert stream
"""


def test_a_test_parameter_annotated_as_its_fixture_generator(feature: Repo, run: Run) -> None:
    """MLServer ce933463 (set zzzza) tests/grpc/test_interceptor.py:19: pytest hands a
    test what its yield fixture yields, not the generator: ✗, also quoted, also with
    the fixture in a conftest. Not a fixture of the module that returns an iterator, a
    ``parametrize`` argument, or a plain helper's parameter."""
    feature.write("tests/test_grpc.py", FIXTURES)
    got = errors(run, "any-annotation")
    assert sorted(got) == [17, 21, 26]
    assert got[17] == (
        "`inference_service_stub: AsyncGenerator[Stub, None]` of `test_unary`: pytest hands "
        "it what the `inference_service_stub` fixture yields, not a generator; annotate "
        "`inference_service_stub: Stub`"
    )
    assert "annotate `stub_in_module: str`" in got[21]
    assert "annotate `other: int`" in got[26]


PYTEST_FIXTURES = """\
import pathlib

import pytest


@pytest.fixture
def uri(tmp_path: str) -> str:
    return tmp_path + "/model"


def test_paths(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: dict) -> None:
    assert tmp_path and monkeypatch and capsys


@pytest.fixture
def request() -> str:
    return "mine"


def test_own(request: str, caplog: "str | None") -> None:
    assert request


def helper(tmp_path: str) -> str:
    return tmp_path
"""


def test_pytest_s_own_fixtures_annotated_as_a_builtin(feature: Repo, run: Run) -> None:
    """MLServer 1e7bc4be (set zzzza) conftest.py:161 ``uri(tmp_path: str)``: pytest's
    ``tmp_path`` is a ``pathlib.Path`` (✗), ``capsys: dict`` too. Not a fixture the module
    defines itself, a union, or a plain helper's parameter."""
    feature.write("tests/conftest.py", PYTEST_FIXTURES)
    got = errors(run, "any-annotation")
    assert sorted(got) == [7, 11]
    assert got[7] == (
        "`tmp_path: str`: pytest's `tmp_path` fixture is a `pathlib.Path`, not a str; "
        "annotate `tmp_path: pathlib.Path`"
    )
    assert "`capsys: dict`: pytest's `capsys` fixture is a `pytest.CaptureFixture[str]`" in got[11]


def test_a_sequence_row_for_another_sequence_is_no_contradiction(feature: Repo, run: Run) -> None:
    """prime-rl 5af45e43 (set u) `probs: list[float]` given `(0.5, 0.5)`, Gymnasium
    d0b1cad9 (set zzzx) `spaces: "list[Space]"` given a tuple of spaces: one sequence for
    another reads the same, no ✗ (a dict for a `list` still is one)."""
    feature.write(
        "tests/test_seq.py",
        "import pytest\n\n\n"
        '@pytest.mark.parametrize("probs", [(0.5, 0.5), pytest.param((0.1, 0.9))])\n'
        "def test_probs(probs: list[float]) -> None:\n    assert probs\n\n\n"
        '@pytest.mark.parametrize("shape", [[2, 3]])\n'
        "def test_shape(shape: tuple[int, int]) -> None:\n    assert shape\n\n\n"
        '@pytest.mark.parametrize("items", [{"a": 1}])\n'
        "def test_items(items: list[str]) -> None:\n    assert items\n",
    )
    got = errors(run, "any-annotation")
    assert sorted(got) == [15]
    assert "which passes a dict" in got[15]
