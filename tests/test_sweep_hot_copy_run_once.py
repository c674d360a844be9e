# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy: module-level loops run once, a cloned loss is a scalar, a ``forward`` that
clones its input copies the activations, and generation kwargs are a sampling config."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found


def test_module_level_loop_runs_once(feature: Repo, run: Run) -> None:
    """litgpt ``config.py``: ``deepcopy(c)`` while a module-level config list is built runs
    at import; a module-level loop over steps (a script) is still per step."""
    feature.write(
        "pkg/config.py",
        "from copy import deepcopy\n"
        "configs = []\n"
        "for c in base:\n"
        '    for kind in ("-Base", "-Instruct"):\n'
        "        copy = deepcopy(c)\n"  # 5: import time
        "        configs.append(copy)\n"
        "for step in range(num_steps):\n"
        "    history.append(x.clone())\n",  # 8: ✗
    )
    rows = found(run, "hot-copy")
    assert [(r[0], r[1], r[2]) for r in rows] == [("pkg/config.py", 8, "error")]


def test_a_cloned_loss_is_a_scalar(feature: Repo, run: Run) -> None:
    """litgpt ``fit``: ``val_loss.detach().clone()`` on an eval interval of the step loop
    copies a scalar, not latents: ⚠; a latent clone in the same loop stays ✗."""
    feature.write(
        "pkg/fit.py",
        "def fit(model, state, max_steps):\n"
        "    for step in range(max_steps):\n"
        "        val_loss = validate(model)\n"
        "        val_loss_tensor = val_loss.detach().clone()\n"  # 4: ⚠
        "        latents = model(state).clone()\n"  # 5: ✗ (a call's result, uncommented)
        "        keep = state.clone()\n",  # 6: ✗
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [(4, "warning"), (5, "error"), (6, "error")]


def test_forward_cloning_its_input(feature: Repo, run: Run) -> None:
    """litgpt MoE ``forward``: ``residual_x = x.clone()`` copies the hidden states every
    forward pass: ✗ uncommented; a clone of another tensor, of the input once rebound
    (vllm-omni's audio encoder) or a commented one stays ⚠."""
    feature.write(
        "pkg/model.py",
        "class MoE:\n"
        "    def forward(self, x):\n"
        "        residual_x = x.clone()\n"  # 3: ✗
        "        logps = self.head(x)\n"
        "        return logps.detach().clone(), residual_x\n"  # 5: ⚠
        "\n\n"
        "class Block:\n"
        "    def forward(self, hidden_states):\n"
        "        # the norm below works in place\n"
        "        residual = hidden_states.clone()\n"  # 11: ⚠ (commented)
        "\n\n"
        "class AudioEncoder:\n"
        "    def forward(self, x):\n"
        "        x = rearrange(x)\n"
        "        x_ori = x.clone()\n",  # 17: ⚠ (x is no longer the input)
    )
    rows = found(run, "hot-copy")
    expected = [(3, "error"), (5, "warning"), (11, "warning"), (17, "warning")]
    assert [(r[1], r[2]) for r in rows] == expected


def test_forward_cloning_a_batch_object_is_no_activations_copy(feature: Repo, run: Run) -> None:
    """pytorch_geometric's ``GPSE.forward(self, batch)``: ``batch = batch.clone()`` copies
    a graph ``Batch`` to rewrite it, not the latents/activations of a step loop (set
    zzzv, labelled ⚠); an input annotated as another type is no tensor either, one
    annotated ``torch.Tensor`` is (✗)."""
    feature.write(
        "pkg/gnn.py",
        "import torch\n"
        "\n\n"
        "class GPSE:\n"
        "    def forward(self, batch):\n"
        "        batch = batch.clone()\n"  # 6: ⚠
        "        return batch\n"
        "\n\n"
        "class Encoder:\n"
        "    def forward(self, graph: Data) -> Data:\n"
        "        keep = graph.clone()\n"  # 12: ⚠
        "        return keep\n"
        "\n\n"
        "class Head:\n"
        "    def forward(self, feats: torch.Tensor) -> torch.Tensor:\n"
        "        keep = feats.clone()\n"  # 18: ✗
        "        return keep\n",
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [(6, "warning"), (12, "warning"), (18, "error")]


def test_generation_kwargs_copied_per_call(feature: Repo, run: Run) -> None:
    """lm-evaluation-harness LiteLLM: ``copy.deepcopy(gen_kwargs)`` at the top of
    ``async def amodel_call`` copies the sampling config of each request: ✗, and so does
    its sync twin ``model_call`` (tests/test_sweep_hot_copy_sync_twins.py); a copy of an
    object's own kwargs or of a non-sampling parameter is not."""
    feature.write(
        "pkg/api.py",
        "import copy\n"
        "\n\n"
        "class LiteLLM:\n"
        "    def model_call(self, messages, *, gen_kwargs=None):\n"
        "        gen_kwargs = copy.deepcopy(gen_kwargs)\n"  # 6: ✗ (the sync twin)
        "        return self.client.completion(messages, **gen_kwargs)\n"
        "\n"
        "    async def amodel_call(self, messages, gen_kwargs: dict | None = None):\n"
        "        gen_kwargs = copy.deepcopy(gen_kwargs)\n"  # 10: ✗
        "        return await self.client.acompletion(messages, **gen_kwargs)\n"
        "\n"
        "    def describe(self, results):\n"
        "        return copy.deepcopy(self.gen_kwargs), copy.deepcopy(results)\n",  # 14: none
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [(6, "error"), (10, "error")]


def test_a_deepcopy_per_item_of_a_plain_loop_is_set_up(feature: Repo, run: Run) -> None:
    """NeMo-Skills' launcher deep-copies its eval kwargs once per job it submits, lighteval
    its task config once per task: no finding; a deepcopy in a step loop, a sampling
    config's (vllm-omni's request defaults) or a clone in a plain loop, is still ⚠."""
    feature.write(
        "pkg/launch.py",
        "import copy\n"
        "\n"
        "\n"
        "def submit_all(jobs, eval_kwargs):\n"
        "    for job in jobs:\n"
        "        kwargs = copy.deepcopy(eval_kwargs)\n"  # 6: none
        "        submit(job, **kwargs)\n"
        "\n"
        "\n"
        "def train(history, state, num_steps):\n"
        "    for step in range(num_steps):\n"
        "        history.append(copy.deepcopy(state))\n"  # 12: ⚠
        "    for item in history:\n"
        "        item.grads = item.weights.clone()\n"  # 14: ⚠
        "\n"
        "\n"
        "def defaults(self):\n"
        "    for params in self.default_sampling_params_list:\n"
        "        return copy.deepcopy(params)\n",  # 19: ⚠ (a sampling config)
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [(12, "warning"), (14, "warning"), (19, "warning")]
