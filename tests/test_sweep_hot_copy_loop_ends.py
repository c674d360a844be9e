# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy, round P: what a decoding loop copies once as it ends, its token ids, the
micro-batches of a gradient-accumulation loop and a deepcopy whose own line says why are
not the seed's ✗ (a full latent/activations clone in an AR or diffusion step loop, a
sampling config deep-copied on the request path without a comment)."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, lines

# torchchat generate.py (5f8f35de): the decoding loop clones the sampled token each step
# and, in its EOS branch, the last token and probabilities once before ``break``.
DECODE = (
    "def decode_n_tokens(self, model, cur_token, num_new_tokens, eos_token_id):\n"  # 1
    "    new_tokens = []\n"
    "    for _i in range(num_new_tokens - 1):\n"
    "        next_token, next_prob = self.decode_one_token(model, cur_token)\n"
    "        new_tokens.append(next_token.clone())\n"  # 5: ⚠ token ids
    "        hidden = self.hidden.clone()\n"  # 6: ✗ activations, every step
    "        if next_token.item() == eos_token_id:\n"
    "            yield cur_token.clone(), next_prob.clone()\n"  # 8: ⚠ x2, once
    "            break\n"
    "        for i in range(3, 0, -1):\n"  # 10
    "            if new_tokens[-i].item() == eos_token_id:\n"
    "                yield new_tokens[-i].clone(), None\n"  # 12: ⚠ token ids
    "                break\n"
    "        for i in range(3):\n"
    "            state = self.state.clone()\n"  # 15: ✗, the inner loop's break...
    "            break\n"  # ...leaves only the inner loop: every step
    "        cur_token = next_token\n"
    "\n\n"
    "def denoise(self, latents, timesteps):\n"  # 20
    "    for t in timesteps:\n"
    "        latents = self.step(latents, t)\n"
    "        if self.done(latents):\n"
    "            final = latents.clone()\n"  # 24: ⚠, once
    "            return final\n"
    "        if self.failed(latents):\n"
    "            snapshot = latents.clone()\n"  # 27: ⚠, once
    "            raise RuntimeError(snapshot)\n"
    "        trajectory = latents.clone()\n"  # 29: ✗
    "        if trajectory is None:\n"
    "            break\n"
    "\n\n"
    "def infer_action(self, caches, timesteps):\n"  # 34
    "    for t in timesteps:\n"
    "        self.step(t)\n"
    "    # graph replays overwrite the cache buffers: keep stable copies\n"
    "    caches = [c.clone() for c in caches]\n"  # 38: ⚠ (why-comment), a comprehension's
    "    return caches\n"  # ...the return after it ends no loop of the copy
)


def test_a_copy_as_the_loop_ends_and_token_ids_keep_a_warning(feature: Repo, run: Run) -> None:
    feature.write("pkg/generate.py", DECODE)
    feature.commit("add")
    found = [(line, sev) for line, sev, _m in lines(run, "hot-copy")]
    assert found == [
        (5, "warning"),
        (6, "error"),
        (8, "warning"),
        (8, "warning"),
        (12, "warning"),
        (15, "error"),
        (24, "warning"),
        (27, "warning"),
        (29, "error"),
        (38, "warning"),
    ]
    messages = {line: m for line, _sev, m in lines(run, "hot-copy")}
    assert all("as the loop ends" in messages[line] for line in (8, 24, 27)), messages
    assert "each time" in messages[38], messages[38]


@pytest.mark.parametrize(
    "head",
    [
        "range(neox_args.gradient_accumulation_steps)",
        "range(self.grad_accum_steps)",
        "range(num_microbatches_steps)",
    ],
)
def test_a_gradient_accumulation_loop_is_no_step_loop(feature: Repo, run: Run, head: str) -> None:
    """gpt-neox's ``train_step`` runs ``forward_step`` once per micro-batch of its
    gradient-accumulation loop: the log-probs ``forward_step`` clones are one
    optimisation step's, not an AR/diffusion step's (⚠, not ✗)."""
    feature.write(
        "megatron/training.py",
        "def forward_step(model, batch):\n"
        "    logp = model(batch)\n"
        "    ref_logp = logp.detach()\n"
        "    return ref_logp.clone()\n"  # 4
        "\n\n"
        "def train_step(model, data):\n"
        f"    for _ in {head}:\n"
        "        loss = forward_step(model, next(data))\n"
        "        hidden = model.hidden.clone()\n"  # 10
        "\n\n"
        "def sample(model, x, num_steps):\n"
        "    for step in range(num_steps):\n"
        "        x = model(x).clone()\n",  # 15: ✗, a sampling loop
    )
    feature.commit("add")
    found = [(line, sev) for line, sev, _m in lines(run, "hot-copy")]
    assert (10, "warning") in found and (15, "error") in found, found
    assert all(sev == "warning" for line, sev in found if line in (4, 10)), found


def test_a_deepcopy_commented_on_its_line_is_a_warning(feature: Repo, run: Run) -> None:
    """gpt-neox's eval adapter: ``kwargs = copy.deepcopy(gen_kwargs)  # edge case for
    repeats > 1`` per request, then keys popped from the copy: the seed's "keep it and add
    a one-line comment saying why" (⚠). Uncommented, or with a comment above the request
    call only, it stays ✗."""
    feature.write(
        "pkg/eval_adapter.py",
        "import copy\n"
        "\n\n"
        "class Adapter:\n"
        "    def generate_until(self, requests):\n"
        "        for context, gen_kwargs in requests:\n"
        "            kwargs = copy.deepcopy(gen_kwargs)  # edge case for repeats > 1\n"  # 7
        '            until = kwargs.pop("until")\n'
        "            other = copy.deepcopy(gen_kwargs)\n"  # 9: ✗
        "            # Generate one continuation from the engine.\n"
        "            again = copy.deepcopy(gen_kwargs)\n",  # 11: ✗
    )
    feature.commit("add")
    found = [(line, sev) for line, sev, _m in lines(run, "hot-copy")]
    assert found == [(7, "warning"), (9, "error"), (11, "error")]


def test_an_optimizer_steps_loops_over_parameters(feature: Repo, run: Run) -> None:
    """timm 85bb3304 optim/sgdp.py:79: SGDP's `step` walks `self.param_groups` and
    clones each momentum buffer (`d_p = buf.clone()`, mutated in place after): one
    optimisation step's copies, per parameter, not an AR/diffusion step's (labelled ⚠).
    A `step` whose loop is not over an optimizer's parameters keeps the ✗."""
    feature.write(
        "pkg/optim.py",
        "class SGDP(Optimizer):\n"
        "    def step(self, closure=None):\n"
        "        for group in self.param_groups:\n"
        "            for p in group['params']:\n"
        "                buf = self.state[p]['momentum']\n"
        "                d_p = buf.clone()\n"  # 6
        "                p.add_(d_p, alpha=-group['lr'])\n"
        "\n\n"
        "class Sampler:\n"
        "    def step(self, latents, blocks):\n"
        "        for block in blocks:\n"
        "            latents = block(latents.clone())\n"  # 13
        "        return latents\n",
    )
    feature.commit("add")
    found = {line: sev for line, sev, _m in lines(run, "hot-copy")}
    assert found == {6: "warning", 13: "error"}, found


def test_an_encoders_layer_loop_is_not_a_step_loop(feature: Repo, run: Run) -> None:
    """ComfyUI 3412d53b comfy/clip_model.py:78: `CLIPEncoder.forward` clones each
    layer's hidden states (`all_intermediate.append(x.unsqueeze(1).clone())`): an
    encoder runs once per prompt or image, not per AR/diffusion step (labelled ⚠). The
    same loop in a decoder's `forward` (ktransformers' per-layer clones in the decode
    forward, labelled ✗ in set zf) keeps the ✗, as does an encoder-decoder's."""
    layers = (
        "    def forward(self, x):\n"
        "        hidden = []\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "            hidden.append(x.unsqueeze(1).clone())\n"
        "        return x, hidden\n"
    )
    feature.write(
        "pkg/model.py",
        f"class CLIPEncoder(nn.Module):\n{layers}\n\n"  # clone on line 6
        f"class TextDecoder(nn.Module):\n{layers}\n\n"  # 15
        f"class T5EncoderDecoder(nn.Module):\n{layers}",  # 24
    )
    feature.commit("add")
    rows = {line: (sev, message) for line, sev, message in lines(run, "hot-copy")}
    assert {line: sev for line, (sev, _m) in rows.items()} == {
        6: "warning",
        15: "error",
        24: "error",
    }, rows
    assert rows[6][1] == (
        "`x.unsqueeze(1).clone()` inside the layer loop of encoder method `forward` "
        "allocates a copy each time"
    )
