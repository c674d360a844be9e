# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a wrong return annotation on an *old* function the change edits:
which change a finding belongs to (only one that makes the annotation wrong) and where it
goes (the ``def`` when the change edits the signature)."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, errors, land_on_main

# A ``-> bool`` that already falls off its end (it only puts outputs on a queue).
QUEUE = """\
class Batcher:
    def _generate_output(self, r: object) -> bool:
        outputs = []
        if r.stream:
            outputs.append((
                r.next_token,
                r.prompt_length,
            ))
        for output in outputs:
            self.queues[r.uid].put_nowait(output)
"""

# A ``-> bool`` that returns on every path.
CHECK = """\
def ready(r: object) -> bool:
    for item in r.items:
        item.touch()
    return r.done
"""

# An old ``-> List[...]`` whose every return gives a list.
SHARD = """\
from typing import List, Optional


def shard(
    data: list,
    shards: int,
    batch_size: Optional[int] = None,
) -> List[list]:
    out = [data[i::shards] for i in range(shards)]
    return out
"""


def _edit(feature: Repo, path: str, old: str, new: str, renamed: str | None = None) -> None:
    """Commit ``old`` at ``path`` on main, then ``new`` on a branch off it (at ``renamed``,
    moved there with ``git mv``, when given)."""
    feature.write(path, old)
    land_on_main(feature)
    if renamed is not None:
        feature.git("mv", path, renamed)
    feature.write(renamed or path, new)
    feature.commit("edit")


def test_an_old_fall_off_the_change_only_edits_around_is_not_the_changes(
    feature: Repo, run: Run
) -> None:
    # DeepSpeed-MII 1867610: adds `r.uid` to the output tuples and renames the queue key;
    # `_generate_output` fell off its `-> bool` end before the change as after it.
    new = QUEUE.replace(
        "(\n                r.next_token", "(\n                r.uid,\n                r.next_token"
    )
    new = new.replace("queues[r.uid]", "queues[r.tid]")
    _edit(feature, "pkg/batch.py", QUEUE, new)
    assert errors(run, "any-annotation") == {}


def test_a_change_that_removes_the_last_return_makes_the_fall_off(feature: Repo, run: Run) -> None:
    new = CHECK.replace("    return r.done\n", "    r.seen = True\n")
    _edit(feature, "pkg/check.py", CHECK, new)
    found = errors(run, "any-annotation")
    assert list(found) == [1]
    assert "can fall off its end" in found[1]


def test_a_return_added_with_a_new_parameter_is_reported_at_the_def(
    feature: Repo, run: Run
) -> None:
    # NeMo-RL 7d8ce74: a new parameter and, when it is given, a tuple return under the
    # old `-> List[...]`: the change rewrites the signature, so the ✗ is at its `def`.
    new = SHARD.replace(
        "    batch_size: Optional[int] = None,\n",
        "    batch_size: Optional[int] = None,\n    sort: bool = False,\n",
    ).replace(
        "    return out\n",
        "    if sort:\n        return out, sorted(range(shards))\n    return out\n",
    )
    _edit(feature, "pkg/shard.py", SHARD, new)
    found = errors(run, "any-annotation")
    assert list(found) == [4]
    assert "returns a tuple" in found[4] and "line 12" in found[4]


def test_a_return_added_under_an_untouched_signature_stays_at_the_return(
    feature: Repo, run: Run
) -> None:
    new = SHARD.replace(
        "    return out\n",
        "    if batch_size:\n        return out, batch_size\n    return out\n",
    )
    _edit(feature, "pkg/shard.py", SHARD, new)
    assert list(errors(run, "any-annotation")) == [11]


# A ``-> dict`` that never returns (deepeval's ``construct_node_verbose_log`` shape: an
# ``if``/``elif`` chain over node kinds with no ``else``).
VERBOSE = """\
def verbose_log(
    node: object,
) -> str:
    if node.kind == "a":
        text = "a"
    elif node.kind == "b":
        text = "b"
"""


def test_a_new_parameter_over_an_old_fall_off_is_not_the_changes(feature: Repo, run: Run) -> None:
    # promptflow e8d564b, deepeval 1e8e8de: the change adds a parameter and edits the last
    # statement; the base function fell off its `-> str` end the same way.
    new = VERBOSE.replace("    node: object,\n", "    node: object,\n    verdict: str = '',\n")
    new = new.replace('text = "b"', 'text = "b" + verdict')
    _edit(feature, "pkg/nodes.py", VERBOSE, new)
    assert errors(run, "any-annotation") == {}


def test_a_new_parameter_and_a_new_fall_off_are_the_changes(feature: Repo, run: Run) -> None:
    # The base returned on every path; the change adds a parameter and an `elif` that
    # does not return.
    old = VERBOSE.replace('text = "a"', 'return "a"').replace('text = "b"', 'return "b"')
    old = old.replace('    elif node.kind == "b":\n', "    else:\n")
    new = old.replace("    node: object,\n", "    node: object,\n    verdict: str = '',\n")
    new = new.replace("    else:\n", "    elif verdict:\n        print(verdict)\n    else:\n")
    new = new.replace(
        '    else:\n        return "b"\n', '    elif node.kind == "b":\n        return "b"\n'
    )
    _edit(feature, "pkg/nodes.py", old, new)
    found = errors(run, "any-annotation")
    assert list(found) == [1]
    assert "can fall off its end" in found[1]


def test_the_same_fall_off_under_a_new_annotation_is_the_changes(feature: Repo, run: Run) -> None:
    # The change writes the annotation itself: the mismatch is the change's own, on the
    # line carrying ``->``.
    new = VERBOSE.replace("-> str", "-> dict").replace(
        "    node: object,\n", "    node: object,\n    x=1,\n"
    )
    _edit(feature, "pkg/nodes.py", VERBOSE, new)
    assert list(errors(run, "any-annotation")) == [4]


def test_a_parameter_added_over_an_old_arrow_line_reports_the_def_line(
    feature: Repo, run: Run
) -> None:
    # The change edits the signature but not the ``->`` line: the def line is the added
    # line of the signature the wrong annotation belongs to.
    base = 'def label(\n    node: object,\n) -> str:\n    return "x"\n'
    new = (
        "def label(\n    node: object,\n    quiet: bool = False,\n) -> str:\n"
        '    if quiet:\n        return None\n    return "x"\n'
    )
    _edit(feature, "pkg/nodes.py", base, new)
    assert list(errors(run, "any-annotation")) == [1]


def test_the_base_of_a_renamed_file_is_read_at_its_old_path(feature: Repo, run: Run) -> None:
    new = VERBOSE.replace("    node: object,\n", "    node: object,\n    verdict: str = '',\n")
    new = new.replace('text = "b"', 'text = "b" + verdict')
    _edit(feature, "pkg/old_nodes.py", VERBOSE, new, renamed="pkg/nodes.py")
    assert errors(run, "any-annotation") == {}


def test_a_base_that_does_not_parse_leaves_the_fall_off_reported(feature: Repo, run: Run) -> None:
    # Nothing can be read from the base: the change is judged by its lines alone.
    broken = VERBOSE + "def broken(:\n"
    new = VERBOSE.replace("    node: object,\n", "    node: object,\n    verdict: str = '',\n")
    _edit(feature, "pkg/nodes.py", broken, new.replace('text = "b"', 'text = "b" + verdict'))
    found = errors(run, "any-annotation")
    assert list(found) == [1]
