# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy, round M: the seed's ✗ is a ``.clone()`` of a full latent/activations tensor
in a step loop; a clone of what its name says is a mask, ids or positions (the words the
step-callee reading already reads) in a step loop is ⚠."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, lines


def test_a_mask_cloned_in_a_step_loop_keeps_a_warning(feature: Repo, run: Run) -> None:
    # Model-Optimizer c02de171 megatron_eagle.py:239: `mask_0 = attn_mask.clone().detach()`
    # in `for step_idx in range(step)` of `set_multi_step_attention_mask` copies a boolean
    # attention mask it then edits in place: not a latent or activations (⚠). Kept ✗: the
    # latents cloned in the denoising loop (the seed's `trajectory_latents.append(
    # x_t.clone())`).
    feature.write(
        "pkg/steps.py",
        "def set_multi_step_attention_mask(attn_mask, step):\n"
        "    masks = []\n"
        "    for step_idx in range(step):\n"
        "        mask_0 = attn_mask.clone().detach()\n"
        "        mask_0[:, :, step_idx:, :] = True\n"
        "        masks.append(mask_0)\n"
        "    return masks\n"
        "\n\n"
        "def denoise(x_t, timesteps):\n"
        "    trajectory_latents = []\n"
        "    for t in timesteps:\n"
        "        x_t = step(x_t, t)\n"
        "        trajectory_latents.append(x_t.clone())\n"
        "    return trajectory_latents\n",
    )
    feature.commit("add")
    assert [(line, sev) for line, sev, _m in lines(run, "hot-copy")] == [
        (4, "warning"),
        (14, "error"),
    ]
