# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy, loops over a mapping's fields: in a function named for a step, a loop over
``sample.items()`` copies each field of one item once; it is no step loop, so its clone
is the function's ⚠, not a step loop's ✗."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_SPLIT = (
    "import torch\n"
    "\n\n"
    "def split_sample_by_num_tokens(sample, num_tokens):\n"
    "    first, rest = {}, {}\n"
    "    for key, value in sample.items():\n"
    "        first[key] = value[:num_tokens].clone()\n"  # 7: ⚠ (a field loop)
    "        rest[key] = value[num_tokens:].clone()\n"  # 8: ⚠
    "    return first, rest\n"
    "\n\n"
    "def sample_fields(batch):\n"
    "    return {k: v.clone() for k, v in batch.items()}\n"  # 13: ⚠ (a field comprehension)
    "\n\n"
    "def sample_steps(latents, steps):\n"
    "    for step in range(steps):\n"
    "        for key in latents.keys():\n"
    "            latents[key] = latents[key].clone()\n"  # 19: ✗ (a field loop in a loop)
    "    return latents\n"
    "\n\n"
    "def sample_rows(latents, rows):\n"
    "    for row in rows:\n"
    "        latents = latents.clone()\n"  # 25: ✗ (a plain loop of a per-step function)
    "    return latents\n"
)


def test_a_loop_over_a_samples_fields_is_no_step_loop(feature: Repo, run: Run) -> None:
    """bionemo 6d4e8bb2 collator.py:507: ``split_sample_by_num_tokens`` (named for a
    sample, as ``*sample*`` hot functions are) clones each field of the sample it splits,
    in a loop over ``sample.items()``: ⚠ of a per-step function, not ✗ of a step loop. A
    comprehension over ``batch.items()`` is the same; a field loop inside another loop,
    or any other loop of the function, stays ✗."""
    feature.write("pkg/collator.py", _SPLIT)
    rows = {r[1]: (r[2], r[3]) for r in found(run, "hot-copy")}
    assert {line: level for line, (level, _) in rows.items()} == {
        7: "warning",
        8: "warning",
        13: "warning",
        19: "error",
        25: "error",
    }, rows
    assert "in per-step/per-request function `split_sample_by_num_tokens`" in rows[7][1]
    assert "inside a step loop of `sample_rows`" in rows[25][1]
