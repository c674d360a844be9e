# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Code a change moves to another file is no new instance: InternEvo's ``BaseOptimizer``
moved out of ``hybrid_zero_optim.py`` into its own module, rllm's teardown handler moved
from ``_hooks.py`` into a renamed class, marker's ``options_func`` moved into a shared
``common.py``. Each was reported as new; a maintainer reading the diff sees a move.

A finding is on moved code when its line and its added neighbours, four non-blank lines
in a row, are removed from another file of the change at least as often as the change
adds them. A block moved within its file, a lone line, and a block copied (not moved)
are still new."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from policytool.sweep.moves import SHINGLE, MovedCode
from tests.conftest import Repo
from tests.sweep_fixture import Run, rows

HELPER = (
    "def load(path):\n"
    "    try:\n"
    "        data = open(path).read()\n"
    "    except Exception:\n"
    "        return None\n"
    "    return data\n"
)
OTHER = "def other() -> int:\n    return 1\n"


def _base(repo: Repo, files: dict[str, str]) -> None:
    """``files`` on ``main``; ``feature`` checked out: the change comes next."""
    repo.on_main(files)


def _scope(run: Run) -> str:
    result = run("sweep", "--fail-on", "never")
    assert result.code == 0, result.err
    return result.out.splitlines()[0]


def test_a_helper_moved_to_a_new_module_is_not_new(feature: Repo, run: Run) -> None:
    _base(feature, {"pkg/a.py": HELPER + "\n\n" + OTHER})
    feature.write("pkg/a.py", OTHER)
    feature.write("pkg/b.py", HELPER)
    feature.commit("move load")
    assert rows(run) == []
    assert "2 findings on code moved from another file of the change not reported" in _scope(run)


def test_a_helper_moved_into_a_class_is_code_in_a_new_place(feature: Repo, run: Run) -> None:
    _base(feature, {"pkg/a.py": HELPER + "\n\n" + OTHER})
    feature.write("pkg/a.py", OTHER)
    indented = "".join(f"    {line}\n" for line in HELPER.splitlines())
    feature.write("pkg/b.py", "class Loader:\n" + indented)
    feature.commit("move load into a class")
    assert rows(run) == [
        ("pkg/b.py", 2, "any-annotation", "warning"),
        ("pkg/b.py", 5, "broad-except", "warning"),
    ]


IMPORT_SELF = "from typing_extensions import Self\n\n\n"
KEEP = 'class TensorDict:\n    def keep(self) -> "TensorDict":\n        return self\n'
LOAD = (
    "    @staticmethod\n"
    '    def load(prefix: str) -> "Self":\n'
    "        data = read(prefix)\n"
    "        data.check()\n"
    "        return TensorDict(data)\n"
)


def test_a_method_moved_out_of_its_class_is_read_where_it_lands(feature: Repo, run: Run) -> None:
    """tensordict moved ``load(...) -> "Self"`` from a class into a module of functions:
    there ``Self`` names no class. The move changed what the annotation means."""
    _base(feature, {"pkg/td.py": IMPORT_SELF + KEEP + "\n" + LOAD})
    feature.write("pkg/td.py", IMPORT_SELF + KEEP)
    moved = "".join(line[4:] + "\n" for line in LOAD.splitlines()[1:])
    feature.write("pkg/functions.py", IMPORT_SELF + moved)
    feature.commit("load is a module function now")
    found = rows(run, rule="any-annotation")
    assert ("pkg/functions.py", 4, "any-annotation", "error") in found


def test_a_copied_helper_is_new(feature: Repo, run: Run) -> None:
    _base(feature, {"pkg/a.py": HELPER})
    feature.write("pkg/b.py", HELPER)
    feature.commit("copy load")
    assert rows(run) == [
        ("pkg/b.py", 1, "any-annotation", "warning"),
        ("pkg/b.py", 4, "broad-except", "warning"),
    ]
    assert "moved" not in _scope(run)


def test_a_moved_block_added_twice_is_new_in_both_places(feature: Repo, run: Run) -> None:
    _base(feature, {"pkg/a.py": HELPER + "\n\n" + OTHER})
    feature.write("pkg/a.py", OTHER)
    feature.write("pkg/b.py", HELPER)
    feature.write("pkg/c.py", HELPER)
    feature.commit("move load and copy it")
    assert rows(run, rule="broad-except") == [
        ("pkg/b.py", 4, "broad-except", "warning"),
        ("pkg/c.py", 4, "broad-except", "warning"),
    ]


def test_of_a_moved_block_and_an_edited_copy_the_exact_one_moved(feature: Repo, run: Run) -> None:
    _base(feature, {"pkg/a.py": HELPER + "\n\n" + OTHER})
    feature.write("pkg/a.py", OTHER)
    feature.write("pkg/b.py", HELPER)
    feature.write("pkg/c.py", HELPER.replace("def load", "def load_again"))
    feature.commit("move load and copy it under another name")
    # b.py's handler comes with its def line, removed once; c.py's has only the body
    assert rows(run, rule="broad-except") == [("pkg/c.py", 4, "broad-except", "warning")]


def test_a_block_moved_within_its_file_counts_as_added(feature: Repo, run: Run) -> None:
    _base(feature, {"pkg/a.py": HELPER + "\n\n" + OTHER})
    guarded = "".join(f"    {line}\n" for line in HELPER.splitlines())
    feature.write("pkg/a.py", "if True:\n" + guarded + "\n\n" + OTHER)
    feature.commit("guard load")
    assert ("pkg/a.py", 5, "broad-except", "warning") in rows(run)


def test_a_lone_line_removed_elsewhere_is_no_block(feature: Repo, run: Run) -> None:
    base = "def f(x):\n    try:\n        return g(x)\n    except ValueError:\n        return 0\n"
    _base(feature, {"pkg/a.py": base})
    feature.write("pkg/a.py", base.replace("except ValueError:", "except KeyError:"))
    feature.write(
        "pkg/b.py",
        "def h(x: int) -> int:\n    try:\n        return k(x)\n    except Exception:\n"
        "        return 0\n",
    )
    feature.commit("widen")
    assert rows(run, rule="broad-except") == [("pkg/b.py", 4, "broad-except", "warning")]


def test_a_deleted_file_s_block_moved_into_a_new_one_is_not_new(feature: Repo, run: Run) -> None:
    _base(feature, {"pkg/a.py": HELPER, "pkg/keep.py": OTHER})
    feature.git("rm", "-q", "pkg/a.py")
    feature.write("pkg/b.py", "import os\n\n\n" + HELPER + "\n\ndef fresh(x):\n    return x\n")
    feature.commit("move and delete")
    assert rows(run) == [("pkg/b.py", 12, "any-annotation", "warning")]


def test_a_test_helper_moved_into_production_code_is_new_there(feature: Repo, run: Run) -> None:
    """TorchServe moved its test utilities' server launcher into ``ts/launcher.py``: the
    untyped signatures are production code's now (the ⚠ is production code's)."""
    _base(feature, {"tests/test_utils.py": HELPER + "\n\n" + OTHER})
    feature.write("tests/test_utils.py", OTHER)
    feature.write("pkg/launcher.py", HELPER)
    feature.commit("launcher out of the tests")
    assert rows(run) == [
        ("pkg/launcher.py", 1, "any-annotation", "warning"),
        ("pkg/launcher.py", 4, "broad-except", "warning"),
    ]


def test_a_move_in_the_working_tree_is_read_the_same(feature: Repo, run: Run) -> None:
    _base(feature, {"pkg/a.py": HELPER + "\n\n" + OTHER})
    feature.write("pkg/a.py", OTHER)
    feature.write("pkg/b.py", HELPER)  # untracked: every line is new
    assert rows(run) == []


def _any(path: str) -> bool:
    return True


def _lines(texts: list[str]) -> list[bytes]:
    return [t.encode() for t in texts]


block = st.lists(
    st.text(alphabet="abc xy=():", min_size=1, max_size=12).filter(str.strip),
    min_size=SHINGLE,
    max_size=12,
)


@given(block=block, before=st.integers(0, 3), at=st.data())
def test_any_block_removed_from_one_file_and_added_to_another_is_moved(
    block: list[str], before: int, at: st.DataObject
) -> None:
    head = _lines(["# new"] * before + block)
    added = frozenset(range(before + 1, len(head) + 1))
    moved = MovedCode([("old.py", _lines(["# kept", *block]))], [(head, added)])
    line = at.draw(st.integers(before + 1, len(head)))
    assert moved.moved(head, added, line, {"new.py"}, _any)
    # the same block removed from the file itself is a move within it: new
    assert not moved.moved(head, added, line, {"new.py", "old.py"}, _any)
    # nor from a file of another kind (a test helper moved into production code)
    assert not moved.moved(head, added, line, {"new.py"}, lambda path: path != "old.py")
    # lines the change does not add are never moved
    assert not moved.moved(head, frozenset(), line, {"new.py"}, _any)


@given(block=block)
def test_a_block_added_more_often_than_removed_is_never_moved(block: list[str]) -> None:
    head = _lines([*block, "# between", *block])
    added = frozenset(range(1, len(head) + 1))
    moved = MovedCode([("old.py", _lines(block))], [(head, added)])
    assert not any(moved.moved(head, added, n, {"new.py"}, _any) for n in range(1, len(head) + 1))


@pytest.mark.timing
def test_many_repeated_removed_lines_cost_little() -> None:
    lines = [b"    x = x.clone()"] * 200_000 + [f"y{i} = {i}".encode() for i in range(200_000)]
    started = time.perf_counter()
    head = lines[:1000]
    moved = MovedCode([("old.py", lines)], [(head, None)])
    assert all(moved.moved(head, None, n, {"new.py"}, _any) for n in range(1, 1001))
    assert time.perf_counter() - started < 10
