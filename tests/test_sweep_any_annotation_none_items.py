# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗: a container annotation whose values are another type, told by the
function itself. nv-ingest's OCR stages declare ``all_text: List[str] = []`` and then
``all_text.append(None)`` for a row with no image (None is their "keep the native text"
sentinel, which the writer tests with ``is not None``): the annotation says no item is
None, the same function puts one in (set zzzg, labelled ✗ blind; no finding before round
AG). Only a literal ``None`` counts, only in a new annotation, and only when the item
type certainly does not admit None."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

STAGE = """\
from typing import Any, Dict, List, Optional, Set


def ocr_page_elements(rows: list[bytes]) -> list[object]:
    {decl}
    for row in rows:
        if not row:
            {put}
            continue
    return list({name})
"""


@pytest.mark.parametrize(
    ("decl", "put"),
    [
        pytest.param("all_text: List[str] = []", "all_text.append(None)", id="list-append"),
        pytest.param("all_text: list[str] = []", "all_text.insert(0, None)", id="list-insert"),
        pytest.param("all_text: Set[str] = set()", "all_text.add(None)", id="set-add"),
        pytest.param("all_text: Dict[int, str] = {}", "all_text[len(rows)] = None", id="dict-item"),
    ],
)
def test_a_container_its_function_gives_none_is_wrong(
    feature: Repo, run: Run, decl: str, put: str
) -> None:
    feature.write("pkg/ocr.py", STAGE.format(decl=decl, put=put, name="all_text"))
    feature.commit("ocr")
    rows = [r for r in found(run, "any-annotation") if r[2] == "error"]
    assert [(r[0], r[1]) for r in rows] == [("pkg/ocr.py", 5)]
    assert "is given `None` (line 8)" in rows[0][3]
    assert "`str | None`" in rows[0][3]


@pytest.mark.parametrize(
    ("decl", "put"),
    [
        pytest.param("all_text: List[Optional[str]] = []", "all_text.append(None)", id="optional"),
        pytest.param("all_text: List[str | None] = []", "all_text.append(None)", id="pep604"),
        pytest.param("all_text: List[Any] = []", "all_text.append(None)", id="any"),
        pytest.param("all_text: List[str] = []", "all_text.append('')", id="not-none"),
        pytest.param(
            "all_text: List[str] = []",
            "all_text.append(None)  # type: ignore[arg-type]",
            id="silenced",
        ),
        pytest.param("all_text: Dict[str, Any] = {}", "all_text['x'] = None", id="dict-any"),
    ],
)
def test_a_container_that_admits_the_value_is_nothing(
    feature: Repo, run: Run, decl: str, put: str
) -> None:
    feature.write("pkg/ocr.py", STAGE.format(decl=decl, put=put, name="all_text"))
    feature.commit("ocr")
    assert [r for r in found(run, "any-annotation") if r[2] == "error"] == []


def test_an_old_annotation_is_not_the_changes(feature: Repo, run: Run) -> None:
    """Only the ``append(None)`` is new: the annotation's line is not the change's, and
    the ✗ belongs on it (the brief puts a wrong annotation's site on the annotation)."""
    feature.git("checkout", "-q", "main")
    feature.write(
        "pkg/ocr.py", STAGE.format(decl="all_text: List[str] = []", put="pass", name="all_text")
    )
    feature.commit("old")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    feature.write(
        "pkg/ocr.py",
        STAGE.format(decl="all_text: List[str] = []", put="all_text.append(None)", name="all_text"),
    )
    feature.commit("sentinel")
    assert [r for r in found(run, "any-annotation") if r[2] == "error"] == []


@pytest.mark.timing
def test_thousands_of_annotated_locals_share_one_walk(feature: Repo, run: Run) -> None:
    """A pull request's function of 2,000 annotated lists, each given None: one walk of
    the body for all of them (each its own walk took quadratic time), every one found."""
    decls = "".join(f"    a{i}: List[str] = []\n" for i in range(2000))
    puts = "".join(f"    a{i}.append(None)\n" for i in range(2000))
    feature.write("pkg/big.py", f"from typing import List\n\n\ndef big() -> None:\n{decls}{puts}")
    feature.commit("big")
    started = time.perf_counter()
    rows = [r for r in found(run, "any-annotation") if r[2] == "error"]
    assert time.perf_counter() - started < 30
    assert len(rows) == 2000
