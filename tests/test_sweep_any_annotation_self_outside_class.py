# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for ``typing.Self`` in the signature of a function no class encloses
(tensordict's ``def load(prefix, ...) -> "Self"``, moved out of a class into a module of
functions): it names no class there. Not a method, a function nested in a method, a
module-level function given to a class later (first parameter ``self``/``cls``), a
``Self`` the module defines itself, a silenced line, or a signature the change does not
write."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

OLD = """\
from typing import Self


def old_load(path: str) -> Self:
    return path


def old_multi(
    path: str,
) -> str:
    return path
"""
FEATURE_BASE = {
    "pkg/__init__.py": "",
    "pkg/old.py": OLD,
}

MODULE_FUNCTIONS = """\
from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Annotated, Literal

import typing_extensions as te

if TYPE_CHECKING:
    from typing import Self


def load(
    prefix: str,
    *,
    robust: bool = False,
) -> "Self":
    return prefix


def merge(first: Self, other: list["Self"]) -> int:
    return 0


def spelled(path: str) -> typing.Self:
    return path


def aliased(path: str) -> te.Self:
    return path


def silenced(path: str) -> Self:  # type: ignore[misc]
    return path


def _attached(cls, path: str) -> Self:
    return cls(path)


def kind(name: str) -> Literal["Self", "Other"]:
    return "Self"


def noted(x: Annotated[int, "Self-describing"]) -> int:
    return x


class Table:
    def copy(self) -> Self:
        return self

    @classmethod
    def build(cls, path: str) -> "Self":
        def inner(x: int) -> Self:
            return cls(x)

        return inner(1)

    @staticmethod
    def plain(path: str) -> Self:
        return path
"""


def test_self_outside_a_class_is_wrong(feature: Repo, run: Run) -> None:
    feature.write("pkg/functions.py", MODULE_FUNCTIONS)
    feature.commit("move the loaders out of the class")
    rows = [r for r in found(run, "any-annotation") if r[2] == "error"]
    assert [(r[0], r[1]) for r in rows] == [
        ("pkg/functions.py", 12),
        ("pkg/functions.py", 20),
        ("pkg/functions.py", 24),
        ("pkg/functions.py", 28),
    ]
    assert rows[0][3] == (
        '`"Self"` in `load` (line 16), a function no class encloses: `Self` names no class '
        "there (type checkers reject it); annotate the class itself"
    )
    assert "`Self` in `merge` (line 20)" in rows[1][3]
    assert "`typing.Self` in `spelled`" in rows[2][3]
    assert "`te.Self` in `aliased`" in rows[3][3]


def test_a_self_the_module_defines_is_its_own_class(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/own.py",
        """\
class Self:
    pass


def make() -> Self:
    return Self()


def quoted() -> "Self":
    return Self()
""",
    )
    feature.commit("own Self")
    assert [r for r in found(run, "any-annotation") if r[2] == "error"] == []


def test_an_old_signature_is_not_the_change(feature: Repo, run: Run) -> None:
    """Only a line in the body changes: the old ``-> Self`` is not this change's."""
    feature.write("pkg/old.py", OLD.replace("    return path\n", "    return path.strip()\n", 1))
    feature.commit("edit the body")
    assert [r for r in found(run, "any-annotation") if r[2] == "error"] == []


def test_an_edited_annotation_of_an_old_def_is_reported_on_its_line(
    feature: Repo, run: Run
) -> None:
    """A multi-line ``def`` whose ``def`` line is old and whose return line the change
    edits: the finding sits on the line the change writes."""
    feature.write("pkg/old.py", OLD.replace(") -> str:", ') -> "Self":'))
    feature.commit("annotate")
    rows = [r for r in found(run, "any-annotation") if r[2] == "error"]
    assert [(r[0], r[1]) for r in rows] == [("pkg/old.py", 10)]
    assert '`"Self"` in `old_multi` (line 10)' in rows[0][3]
