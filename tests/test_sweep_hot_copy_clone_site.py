# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy: a ``.clone()`` whose receiver spans lines (``model(\\n...\\n)[0].clone()``) is
reported at the ``clone`` line, where the copy is, and only when that line is added: a
change that rewrites the receiver's first line leaves an old copy old (the issue's "judge
the lines added, or the node the change created")."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, lines

_LOOP = (
    "def denoise(transformer, latents, timesteps):\n"
    "    for t in timesteps:\n"
    "        noise_pred = {call}(\n"
    "            hidden_states=latents,\n"
    "            timestep=t,\n"
    "        )[0].clone()\n"
    "        latents = latents - noise_pred\n"
    "    return latents\n"
)

FEATURE_BASE = {"pkg/__init__.py": "", "pkg/old.py": _LOOP.format(call="transformer")}


def test_a_multi_line_clone_is_reported_at_its_clone_line(feature: Repo, run: Run) -> None:
    # optimum-habana 39047da9 pipeline_wan.py: `)[0].clone()` of the transformer's noise
    # prediction in the denoising loop, six lines below the statement's first line.
    feature.write("pkg/new.py", _LOOP.format(call="transformer"))
    feature.commit("add")
    found = [(line, sev) for line, sev, _m in lines(run, "hot-copy")]
    assert found == [(6, "error")]


def test_rewriting_the_receivers_first_line_is_no_new_copy(feature: Repo, run: Run) -> None:
    # The same commit rewrote `self.transformer(` to `current_model(` in statements whose
    # `)[0].clone()` line predates it: the copy is not an added one.
    feature.write("pkg/old.py", _LOOP.format(call="current_model"))
    feature.commit("rename")
    assert lines(run, "hot-copy") == []


def test_an_added_clone_line_under_an_old_receiver_is_reported(feature: Repo, run: Run) -> None:
    # The other way round: the receiver is old, the `.clone()` is what the change adds.
    feature.git("checkout", "-q", "main")
    feature.write("pkg/third.py", _LOOP.format(call="transformer").replace(")[0].clone()", ")[0]"))
    feature.commit("no clone yet")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    feature.write("pkg/third.py", _LOOP.format(call="transformer"))
    feature.commit("clone it")
    assert [(line, sev) for line, sev, _m in lines(run, "hot-copy")] == [(6, "error")]


def test_a_clone_given_arguments_a_tensor_does_not_take_is_no_copy(feature: Repo, run: Run) -> None:
    # graphiti 4674e1ed decorators.py: `driver.clone(database=gid)` per group id of a
    # request, a database driver's handle sharing its connection (set zzzr: '-'); the
    # tensor clones beside it stay reported, `memory_format=` included.
    feature.write(
        "pkg/search.py",
        "async def handle_request(driver, group_ids, x):\n"
        "    for gid in group_ids:\n"
        "        session = driver.clone(database=gid)\n"  # 3: another object's method
        "        other = driver.clone(gid)\n"  # 4: positional: not a tensor's either
        "        y = x.clone(memory_format=None)\n"  # 5
        "        z = x.clone()\n"  # 6
        "        await session.run(other, y, z)\n",
    )
    feature.commit("add")
    assert [line for line, _sev, _m in lines(run, "hot-copy")] == [5, 6]
