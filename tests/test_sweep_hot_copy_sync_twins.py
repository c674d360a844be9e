# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy: the sync twin of a request coroutine (``model_call`` beside ``async def
amodel_call``, the ``a``-prefix convention of sync/async client pairs) serves the same
requests, so a deepcopy of the sampling config it was given is per request too."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found


def test_the_sync_twin_of_a_request_coroutine_copies_per_request(feature: Repo, run: Run) -> None:
    # lm-eval 853ff58 litellm_llms.py: `model_call` and `async def amodel_call` both start
    # with `gen_kwargs = copy.deepcopy(gen_kwargs)`, one API request per call.
    feature.write(
        "pkg/models/client.py",
        "import copy\n"
        "\n\n"
        "class Client:\n"
        "    def model_call(self, messages, *, gen_kwargs=None):\n"
        "        gen_kwargs = copy.deepcopy(gen_kwargs)\n"  # 6: ✗ (the twin)
        "        return self.api.completion(messages, **gen_kwargs)\n"
        "\n"
        "    async def amodel_call(self, messages, *, gen_kwargs=None):\n"
        "        gen_kwargs = copy.deepcopy(gen_kwargs)\n"  # 10: ✗ (a coroutine)
        "        return await self.api.acompletion(messages, **gen_kwargs)\n"
        "\n"
        "    def defaults(self, gen_kwargs, num_steps):\n"
        "        for _ in range(num_steps):\n"
        "            gen_kwargs = copy.deepcopy(gen_kwargs)\n"  # 15: ⚠ (no twin; a step loop)
        "        return gen_kwargs\n"
        "\n"
        "    async def adefaults_other(self, gen_kwargs):\n"
        "        return gen_kwargs\n",
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [(6, "error"), (10, "error"), (15, "warning")]
    assert "`async def amodel_call`" in rows[0][3]
