# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Issue 22 round D, hot-copy and async-blocking: a function a step loop of its module calls
runs per step (torchtune's ``generate`` -> ``generate_next_token``); a blocking call in a
request-path ``async def`` of a router is on the serving path (production-stack)."""

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


def test_a_router_or_an_http_route_is_on_the_serving_path(feature: Repo, run: Run) -> None:
    """production-stack b275117e routers/routing_logic.py:306: ``requests.post`` inside
    ``async def route_request`` under ``routers/`` is ✗; so is a blocking call in an
    ``async def`` registered as an HTTP route (``@app.post("/v1/...")``) in any file but
    a test. An undecorated ``async def`` elsewhere, and a test's route, stay ⚠."""
    feature.write(
        "src/vllm_router/routers/routing_logic.py",
        "import requests\n\n\n"
        "async def route_request(url, body):\n"
        "    return requests.post(url, json=body, timeout=10)\n",  # 5: ✗
    )
    feature.write(
        "pkg/app.py",
        "import time\n\n\n"
        '@app.post("/v1/generate")\n'
        "async def generate(body):\n"
        "    time.sleep(0.1)\n"  # 6: ✗
        "\n\n"
        "async def poll(body):\n"
        "    time.sleep(0.1)\n",  # 10: ⚠
    )
    feature.write(
        "tests/test_app.py",
        "import time\n\n\n"
        '@app.post("/v1/generate")\n'
        "async def fake_generate(body):\n"
        "    time.sleep(0.1)\n",  # 6: ⚠ (a test)
    )
    rows = [(r[0], r[1], r[2]) for r in found(run, "async-blocking")]
    assert sorted(rows) == [
        ("pkg/app.py", 6, "error"),
        ("pkg/app.py", 10, "warning"),
        ("src/vllm_router/routers/routing_logic.py", 5, "error"),
        ("tests/test_app.py", 6, "warning"),
    ], rows
