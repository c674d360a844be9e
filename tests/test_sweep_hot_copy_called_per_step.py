# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy, functions a step loop calls: a function a step loop of its module calls runs
per step (torchtune's ``generate`` -> ``generate_next_token``); a commented callee keeps
its ⚠, and a run-once callee or one a structure loop calls is never per step."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_GENERATION = (
    "def sample(logits, temperature=1.0):\n"
    "    return (logits / temperature).argmax(-1)\n"
    "\n\n"
    "def generate_next_token(model, x):\n"
    "    logits = model(x)[:, -1]\n"
    "    return sample(logits.clone()), logits\n"  # 7: ✗ (a per-step function)
    "\n\n"
    "def keep_last(model, x):\n"
    "    logits = model(x)\n"
    "    return logits[-1:].clone()\n"  # 12: ⚠ (a slice, not the whole tensor)
    "\n\n"
    "def padded(mask):\n"
    "    return mask.clone()\n"  # 16: ⚠ (a mask, no activations)
    "\n\n"
    "def once(x):\n"
    "    return x.clone()\n"  # 20: no finding (called outside any step loop)
    "\n\n"
    "def generate(model, prompt, max_generated_tokens, custom_generate_next_token=None):\n"
    "    if custom_generate_next_token is None:\n"
    "        custom_generate_next_token = generate_next_token\n"
    "    tokens, _ = generate_next_token(model, prompt)\n"
    "    start = once(prompt)\n"
    "    for _ in range(max_generated_tokens - 1):\n"
    "        tokens, _ = custom_generate_next_token(model, tokens)\n"
    "        keep_last(model, tokens)\n"
    "        padded(tokens)\n"
    "    return tokens, start\n"
)


def test_a_clone_in_a_function_a_step_loop_calls_is_per_step(feature: Repo, run: Run) -> None:
    """torchtune a1ba7ce _generation.py:104: ``sample(logits.clone(), ...)`` in
    ``generate_next_token``, which ``generate``'s decoding loop calls (through a local
    alias) once per token: ✗, naming the loop. A slice (lmdeploy's one row of logits) or a
    mask copied there stays ⚠; a function called once is not per step."""
    feature.write("pkg/generation.py", _GENERATION)
    rows = {(r[1], r[2]): r[3] for r in found(run, "hot-copy")}
    assert sorted(rows) == [(7, "error"), (12, "warning"), (16, "warning")], rows
    assert "which the step loop of `generate` runs (line 29)" in rows[(7, "error")]


def test_a_commented_or_run_once_callee_is_not_blocking(feature: Repo, run: Run) -> None:
    """A why-comment keeps the callee's clone ⚠; a loop over the model's modules is no
    step loop, and a run-once callee (``_init_cache``) is never per step."""
    feature.write(
        "pkg/denoise.py",
        "class Pipe:\n"
        "    def _guided(self, latents):\n"
        "        # the scheduler mutates its input in place\n"
        "        return self.scheduler.step(latents.clone())\n"  # 4: ⚠ (commented)
        "\n"
        "    def _freeze(self, hidden):\n"
        "        return hidden.clone()\n"  # 7: no finding (a structure loop calls it)
        "\n"
        "    def _init_cache(self, latents):\n"
        "        return latents.clone()\n"  # 10: no finding (run once)
        "\n"
        "    def __call__(self, latents, timesteps):\n"
        "        for m in self.model.modules():\n"
        "            self._freeze(m)\n"
        "        for t in timesteps:\n"
        "            latents = self._guided(latents)\n"
        "            self._init_cache(latents)\n"
        "        return latents\n",
    )
    rows = [(r[1], r[2]) for r in found(run, "hot-copy")]
    assert rows == [(4, "warning")], rows
