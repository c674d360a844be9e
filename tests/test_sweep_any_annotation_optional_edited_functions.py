# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a wrong return annotation on an *old* function the change edits:
which change a finding belongs to (only one that makes the annotation wrong) and where it
goes (the ``def`` when the change edits the signature)."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, errors

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


def _edit(feature: Repo, path: str, old: str, new: str) -> None:
    """Commit ``old`` at ``path`` on main, then ``new`` on a branch off it."""
    feature.write(path, old)
    feature.commit("old")
    feature.git("checkout", "-q", "main")
    feature.git("merge", "-q", "feature")
    feature.git("checkout", "-q", "-b", "next")
    feature.write(path, new)
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
