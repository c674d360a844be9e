# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""A long run of blanks inside one line, where a pattern's lazy group is followed by
``\\s*``, made a reader retry every split of the run: quadratic (80,000 spaces took 6 s
in the return-annotation reader, 11 s at 40,000 in the copyright reader). Each reader a
pull request's files reach now takes a megabyte line in linear time, and still reads
ordinary lines as before."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from policytool.engine.config_docs import own_config
from policytool.formats import makefile, matrix, mergify
from policytool.rules import _fakes
from policytool.scaffold import propose

BLANKS = " \t" * 500_000  # a megabyte


def _timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def _return_annotation(tmp_path: Path, text: str) -> str | None:
    path = tmp_path / "m.py"
    path.write_text(text, encoding="utf-8")
    info = path.stat()
    return _fakes._return_annotation(str(path), info.st_mtime_ns, info.st_size, "f")


def _copyright(text: str) -> str | None:
    """The holder an SPDX hook script's strings name (as ``propose_spdx`` reads them)."""
    match = propose._COPYRIGHT_RE.search("\n".join(propose._strings(text)) + "\n")
    return None if match is None else match.group(1)


def _condition(text: str) -> tuple[str, str, str] | None:
    match = mergify._CONDITION_RE.match(text)
    if match is None:
        return None
    return match.group("attribute"), match.group("operator"), match.group("value")


HOSTILE: list[tuple[str, Callable[[Path], object]]] = [
    ("return annotation", lambda tmp: _return_annotation(tmp, f"def f() -> a{BLANKS}x\n")),
    ("makefile rule", lambda _tmp: makefile.parse(f"a{BLANKS}b\n")),
    ("mergify condition", lambda _tmp: _condition(f"check-success=a{BLANKS}b")),
    ("workflow if", lambda _tmp: matrix.is_false("${{ a" + BLANKS + "b")),
    ("copyright holder", lambda _tmp: _copyright(f'C = "SPDX-FileCopyrightText: a{BLANKS}b"\n')),
    ("pyproject header", lambda _tmp: own_config(f"[a{BLANKS}b\n")),
]


@pytest.mark.parametrize("work", [w for _n, w in HOSTILE], ids=[n for n, _w in HOSTILE])
@pytest.mark.timing
def test_a_megabyte_blank_run_is_read_in_linear_time(
    tmp_path: Path, work: Callable[[Path], object]
) -> None:
    # Quadratic, the fastest of these took minutes on a megabyte; linear, milliseconds.
    assert _timed(lambda: work(tmp_path)) < 2.0


def test_ordinary_lines_read_as_before(tmp_path: Path) -> None:
    assert _return_annotation(tmp_path, "def f(x) -> dict[str, int]:  # c\n    return {}\n") == (
        "dict[str, int]"
    )
    assert _return_annotation(tmp_path, "async def f(self) -> ExecResult: ...\n") == "ExecResult"
    rules = makefile.parse("build test : dep1 dep2 ; echo hi\nlint:\nx := 1\n").rules
    assert sorted(rules) == ["build", "lint", "test"]
    assert rules["build"].prerequisites == ["dep1", "dep2"]
    assert _condition("check-success = ci/test  ") == ("check-success", "=", "ci/test")
    assert _condition("label= ") == ("label", "=", "")
    assert matrix.is_false("${{ false }}") and matrix.is_false("${{0}}")
    assert not matrix.is_false("${{ a }} }}")
    assert _copyright('C = "SPDX-FileCopyrightText: X Y  "\n') == "X Y"
    assert _copyright("C = 'SPDX-FileCopyrightText:   '\n") is None
    assert own_config("[tool.other]\nx = 1\n[[ tool.policytool.lock ]]  # c\ny = 2\n") == (
        "[[ tool.policytool.lock ]]  # c\ny = 2"
    )
