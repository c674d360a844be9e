# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy: a generation config is a sampling config (read from its declared type where
the file tells it, else from its name), and code under a constant-false guard never runs,
so no sweep rule reports it."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found


def test_deepcopy_of_a_generation_config_per_request(feature: Repo, run: Run) -> None:
    """FastChat's dash-infer worker deep-copies ``self.engine_helper.default_gen_cfg`` in
    ``async def generate_stream`` for every request: a generation config is a sampling
    config (✗). Where the file declares the copied object's type, the type decides:
    ``self.defaults = GenerationConfig(...)`` and ``base: SamplingParams`` are sampling
    configs whatever their names; ``self.sampling_cache = LRUCache()`` is not (⚠)."""
    feature.write(
        "pkg/serve/worker.py",
        "import copy\n"
        "\n\n"
        "class Worker:\n"
        "    def __init__(self, helper):\n"
        "        self.engine_helper = helper\n"
        "        self.defaults = GenerationConfig(top_k=1)\n"
        "        self.sampling_cache = LRUCache(8)\n"
        "\n"
        "    async def generate_stream(self, params):\n"
        "        gen_cfg = copy.deepcopy(self.engine_helper.default_gen_cfg) or dict()\n"  # 11
        "        return gen_cfg\n"
        "\n"
        "    def generate(self, prompt):\n"
        "        config = copy.deepcopy(self.defaults)\n"  # 15: ✗ (constructor)
        "        cache = copy.deepcopy(self.sampling_cache)\n"  # 16: ⚠ (an LRU cache)
        "        return config, cache\n"
        "\n"
        "    def handle_request(self, prompt, base: SamplingParams):\n"
        "        return copy.deepcopy(base)\n",  # 20: ✗ (annotation)
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [
        (11, "error"),
        (15, "error"),
        (16, "warning"),
        (20, "error"),
    ]
    assert "on request path `generate_stream`" in rows[0][3]


def test_code_under_a_constant_false_guard_is_not_reported(feature: Repo, run: Run) -> None:
    """FastChat's training script clones a tensor under ``if False:  # Inspect and check
    the correctness of masking``: dead debug code, no finding from any rule. Its ``else``
    branch runs, and so does code under ``if TYPE_CHECKING:`` or a real condition."""
    feature.write(
        "pkg/train.py",
        "from typing import TYPE_CHECKING\n"
        "\n\n"
        "def preprocess(targets, steps):\n"
        "    for step in steps:\n"
        "        if False:  # inspect the masking\n"
        "            z = targets.clone()\n"  # 7: dead
        "            try:\n"
        "                print(z)\n"
        "            except:\n"  # 10: dead
        "                pass\n"
        "        if 0:\n"
        "            z = targets.clone()\n"  # 13: dead
        "        else:\n"
        "            z = targets.clone()\n"  # 15: runs
        "        if steps:\n"
        "            z = targets.clone()\n"  # 17: runs
        "    return z\n"
        "\n\n"
        "def inspect_latent(latent):\n"
        "    return latent.clone()\n"  # 22: called only by dead code
        "\n\n"
        "def denoise(latent, timesteps):\n"
        "    for t in timesteps:\n"
        "        if False:\n"
        "            inspect_latent(latent)\n"
        "    return latent\n",
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [(15, "error"), (17, "error")]
    assert found(run, "broad-except") == []
