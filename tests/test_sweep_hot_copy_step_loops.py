# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy, step loops: run-once loops and benchmarks are not per step, a deepcopy of a
sampling config per request is ✗ wherever the request shows, and a comment on the
statement above is not the copy's "why"."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found, lines, rows


def test_run_once_loops_and_benchmarks_are_not_per_step(feature: Repo, run: Run) -> None:
    """vllm-gaudi (a clone per expert in a loop over ``model.modules()``), diffusers (a
    LoRA ``state_dict`` conversion), vLLM (a ``weights`` stream; a benchmark's check over
    implementations): no finding. A clone per item of an ordinary loop stays ⚠."""
    feature.write(
        "pkg/runner.py",
        "def detach(model):\n"
        "    for module in model.modules():\n"
        "        for i, item in enumerate(module.items):\n"
        "            item.weight = module.w[i].clone()\n"  # 4: run once
        "\n\n"
        "def convert_lora(state_dict, num_layers):\n"
        "    out = {}\n"
        "    for i in range(num_layers):\n"
        "        out[i] = state_dict[i].clone()\n"  # 11: run once
        "    return out\n"
        "\n\n"
        "def stream_first(weights):\n"
        "    rest = []\n"
        "    for name, tensor in weights:\n"
        "        rest.append((name, tensor.clone()))\n"  # 17: run once
        "    return rest\n"
        "\n\n"
        "def sync(experiences):\n"
        "    for e in experiences:\n"
        "        e.info = e.rewards.clone()\n",  # 23: ⚠
    )
    feature.write(
        "benchmarks/benchmark_topk.py",
        "def check(logits, impls):\n    for name in impls:\n        impls[name](logits.clone())\n",
    )
    rows = found(run, "hot-copy")
    assert [(r[0], r[1], r[2]) for r in rows] == [("pkg/runner.py", 23, "warning")]


def test_a_conversion_or_correctness_check_runs_once(feature: Repo, run: Run) -> None:
    """gpt-neox's ``convert_model(hf_state_dict, ...)`` clones per layer while it builds
    the converted checkpoint; helion's ``correctness_check`` clones each shape's input
    for the kernel and its reference: no finding. A forward's ``attn_weights`` is an
    activation, not a checkpoint: its loop stays ⚠."""
    feature.write(
        "tools/convert.py",
        "def convert_model(hf_state_dict, hf_config, tp_ranks):\n"
        "    out = {}\n"
        "    for layer in range(hf_config.num_layers):\n"
        "        out[layer] = hf_state_dict[layer].clone()\n"  # 4: run once
        "    return out\n"
        "\n\n"
        "def correctness_check():\n"
        "    for shape in SHAPES:\n"
        "        qkv = make(shape)\n"
        "        ref = qkv.clone()\n"  # 11: run once
        "        kernel(qkv, ref)\n"
        "\n\n"
        "def mix(attn_weights, heads):\n"
        "    outs = []\n"
        "    for h in heads:\n"
        "        outs.append(attn_weights[h].clone())\n"  # 18: ⚠
        "    return outs\n",
    )
    rows = found(run, "hot-copy")
    assert [(r[0], r[1], r[2]) for r in rows] == [("tools/convert.py", 18, "warning")]


def test_an_environment_checker_runs_once(feature: Repo, run: Run) -> None:
    """Gymnasium 39fd79c6 / ca89ed37: ``check_step_determinism`` (called by
    ``check_env``) snapshots the env's RNG with ``deepcopy`` to step twice and compare:
    a verification run once, not a per-step function for all its name says ``step``
    (labelled '-'). The env's own ``step`` copying its state stays reported."""
    feature.write(
        "gymnasium/utils/env_checker.py",
        "from copy import deepcopy\n\n\n"
        "def check_step_determinism(env, seed=123):\n"
        "    seeded_rng = deepcopy(env.unwrapped._np_random)\n"  # 5: run once
        "    return seeded_rng\n\n\n"
        "def check_env_spaces(env):\n"
        "    return deepcopy(env.observation_space)\n"  # 10: run once
        "\n\n"
        "class Env:\n"
        "    def step(self, action):\n"
        "        return deepcopy(self.state)\n",  # 15: per step
    )
    rows = found(run, "hot-copy")
    assert [(r[0], r[1]) for r in rows] == [("gymnasium/utils/env_checker.py", 15)]


def test_a_finite_difference_gradient_check_runs_once(feature: Repo, run: Run) -> None:
    """warp 1168a568 autograd.py:970-987: ``jacobian_fd`` clones an output four times per
    (input, output) pair of one gradient check, outside the loop over probes (labelled
    '-'); torch-style ``gradcheck`` and ``check_grad`` are the same verification. A
    function merely named ``fold`` (no ``_fd`` suffix) keeps its ⚠."""
    feature.write(
        "pkg/autograd.py",
        "def jacobian_fd(function, inputs, outputs):\n"
        "    for i, o in pairs(inputs, outputs):\n"
        "        left = wp.clone(outputs[o])\n"  # 3: run once
        "        probe(function, left)\n"
        "\n\n"
        "def gradcheck(function, inputs):\n"
        "    for x in inputs:\n"
        "        probe(function, x.clone())\n"  # 9: run once
        "\n\n"
        "def fold(function, inputs):\n"
        "    for x in inputs:\n"
        "        probe(function, x.clone())\n",  # 14: ⚠
    )
    rows = found(run, "hot-copy")
    assert [(r[0], r[1], r[2]) for r in rows] == [("pkg/autograd.py", 14, "warning")]


def test_a_trailing_comment_above_is_not_the_why(feature: Repo, run: Run) -> None:
    """vllm-omni bagel 2025: ``x_t = x_t - v_t * dts[i]  # velocity ...`` then
    ``trajectory_latents.append(x_t.clone())`` two lines below is ✗ like its twins; a
    comment-only line above the clone is the "why" (⚠)."""
    feature.write(
        "pkg/bagel.py",
        "def generate_image(x_t, v_t, dts, timesteps, keep):\n"
        "    traj = []\n"
        "    for i, t in enumerate(timesteps):\n"
        "        x_t = x_t - v_t * dts[i]  # velocity pointing from data to noise\n"
        "        if keep:\n"
        "            traj.append(x_t.clone())\n"  # 6: ✗
        "        # keep each step: the caller mutates x_t in place\n"
        "        traj.append(x_t.clone())\n"  # 8: ⚠ (commented)
        "        # the model mutates its input\n"
        "        traj.append(\n"
        "            x_t.clone(),\n"  # 11: ⚠ (commented above its statement)
        "        )\n"
        "    return traj\n",
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [(6, "error"), (8, "warning"), (11, "warning")]


def test_deepcopy_of_sampling_params_per_request(feature: Repo, run: Run) -> None:
    """openrlhf: ``async def execute(self, prompt, sampling_params, ...)`` deep-copies the
    sampling params it was given, and hands ``deepcopy(effective_params)`` to
    ``llm_engine.generate``; vllm-omni: ``copy.deepcopy(req.sampling_params)`` per new
    request of a scheduler output. All ✗. A deepcopy of another parameter in an async
    def, or of a module default in a plain function, is not."""
    feature.write(
        "pkg/agent.py",
        "import copy\n"
        "from copy import deepcopy\n"
        "\n\n"
        "class Executor:\n"
        "    async def execute(self, prompt, sampling_params, llm_engine):\n"
        "        params = sampling_params\n"
        "        if params.max_tokens is None:\n"
        "            params = deepcopy(sampling_params)\n"  # 9: ✗ (async, parameter)
        "        out = await llm_engine.generate(prompt, deepcopy(params))\n"  # 10: ✗
        "        history = deepcopy(prompt)\n"  # 11: not a config
        "        return out, history\n"
        "\n"
        "    def update_states(self, scheduler_output):\n"
        "        for new in scheduler_output.scheduled_new_reqs:\n"
        "            req = new.req\n"
        "            state = dict(sampling=copy.deepcopy(req.sampling_params))\n"  # 17: ✗
        "            self.states[new.id] = state\n"
        "\n"
        "    def defaults(self, sampling_params):\n"
        "        return copy.deepcopy(sampling_params)\n",  # 21: not per request
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [(9, "error"), (10, "error"), (17, "error")]
    assert "async def execute" in rows[0][3]
    assert "request call" in rows[1][3]
    assert "request `req`" in rows[2][3]


def test_clone_in_any_loop_and_in_step_loops_of_every_shape(feature: Repo, run: Run) -> None:
    """A clone in a plain loop of an ordinary function is ⚠ (the page's "inside a
    loop"); per-iteration clones in step loops - `while step < num_steps`, a
    comprehension over timesteps, the seed's own `for t in timesteps` - are ✗."""
    feature.write(
        "pkg/gen.py",
        "def collect(xs, out):\n"
        "    for x in xs:\n"
        "        out.append(x.clone())\n"  # 3: ⚠ (a loop)
        "\n\n"
        "def run_ar(x, num_steps):\n"
        "    step = 0\n"
        "    traj = []\n"
        "    while step < num_steps:\n"
        "        traj.append(x.clone())\n"  # 10: ✗
        "        step += 1\n"
        "    return traj\n"
        "\n\n"
        "def trajectory(x_t, timesteps):\n"
        "    return [x_t.clone() for t in timesteps]\n"  # 16: ✗
        "\n\n"
        "def image(x_t, timesteps):\n"
        "    trajectory_latents = []\n"
        "    for t in timesteps:\n"
        "        trajectory_latents.append(x_t.clone())\n"  # 22: ✗
        "    return trajectory_latents\n",
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [
        (3, "warning"),
        (10, "error"),
        (16, "error"),
        (22, "error"),
    ]
    assert "inside a loop" in rows[0][3]


# -- hot-copy: a run-once post-load hook ------------------------------------------------

POST_LOAD = """\
def process_weights_after_loading(self, layer):
    for expert in layer.experts:
        self.w.append(expert.clone())


def _post_load_hook(self, layer):
    for expert in layer.experts:
        self.w.append(expert.clone())


def merge(self, layer):
    for expert in layer.experts:
        self.w.append(expert.clone())
"""


def test_a_clone_in_the_post_load_hook_runs_once(feature: Repo, run: Run) -> None:
    # vllm-ascend 8548ed2: a clone per expert in ``process_weights_after_loading``.
    feature.write("pkg/quant.py", POST_LOAD)
    feature.commit("add")
    assert [(line, sev) for line, sev, _m in lines(run, "hot-copy")] == [(13, "warning")]


def test_hot_copy_look_alikes(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/h.py",
        "import copy\n"
        "class Runner:\n"
        "    def __init__(self, x):\n"
        "        for _ in range(3):\n            self.x = x.clone()\n"  # run once
        "    def load_weights(self, ws):\n"
        "        for w in ws:\n            w.clone()\n"
        "    def profile_run(self, x, steps):\n"
        "        for _ in steps:\n            x.clone()\n"
        "    def execute_model(self, x, buf, steps):\n"
        "        buf.copy_(x)\n"  # the recommended fix
        "        for _ in steps:\n"
        "            # x is mutated by the next step,\n"
        "            # so keep a snapshot\n"
        "            y = x.clone()\n"  # why-comment two lines up: ⚠ not ✗
        "        for _ in steps:\n            z = x.clone()\n"  # ✗
        "        return y, z\n"
        "    def helper(self, xs):\n"
        "        return [x.clone() for x in xs]\n"  # not a per-step function
        "    def _deepstack_process(self, x):\n"
        "        return x.clone()\n",  # hot-path default name: ⚠
    )
    found = [(r[1], r[3]) for r in rows(run, rule="hot-copy")]
    assert found == [(17, "warning"), (19, "error"), (24, "warning")]


def test_hot_path_names_are_configurable(feature: Repo, run: Run) -> None:
    feature.write("pyproject.toml", '[tool.policytool.sweep]\nhot-path = ["my_tick"]\n')
    feature.write("pkg/t.py", "def my_tick(x):\n    return x.clone()\n")
    feature.write("pkg/u.py", "def execute_model(x):\n    return x.clone()\n")
    assert [r[0] for r in rows(run, rule="hot-copy")] == ["pkg/t.py"]


def test_a_training_loop_is_no_step_loop(feature: Repo, run: Run) -> None:
    """ROLL's RLVR pipeline clones ``old_log_probs`` once per ``global_step`` of its
    training loop: ⚠ as a loop's copy, not the ✗ of an AR/diffusion step loop; the same
    clone in a timesteps loop stays ✗."""
    feature.write(
        "pkg/pipeline.py",
        "def run(self, batch, timesteps):\n"
        "    for global_step in range(self.config.max_steps):\n"
        '        batch["ref"] = batch["old_log_probs"].clone()\n'  # 3: ⚠
        "    for epoch in range(self.num_epochs):\n"
        "        for step in range(self.steps_per_epoch):\n"
        "            state = self.state.clone()\n"  # 6: ⚠
        "    for t in timesteps:\n"
        '        latents = batch["latents"].clone()\n',  # 8: ✗
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [(3, "warning"), (6, "warning"), (8, "error")]
