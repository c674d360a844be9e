# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy: a ``copy.deepcopy`` of a sampling config in a function the module's
request-path code calls (``generate`` -> ``self.preprocess_data(...)``) copies it per
request, whoever else calls the function: ✗ as in ``generate`` itself (set zzzs:
ChatLearn ae1e823b ``preprocess_data``; set zzz: opencompass ``_get_generation_kwargs``
called by ``_generate``). The reading broad-except makes of set-up code."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, lines

FEATURE_BASE = {"pkg/__init__.py": ""}

_MODULE = (
    "import copy\n"
    "\n"
    "\n"
    "class Rollout:\n"
    "    def {helper}(self, query):\n"
    "        sampling_param = self._get_sampling_params()\n"
    "        params = []\n"
    "        for q in query:\n"
    "            item = copy.deepcopy(sampling_param)\n"  # 9
    "            item['max_new_tokens'] = len(q)\n"
    "            params.append(item)\n"
    "        return params\n"
    "\n"
    "    def {caller}(self, query):\n"
    "        return self.llm.generate(query, self.{helper}(query))\n"
)


def test_a_helper_of_the_request_path_copies_per_request(feature: Repo, run: Run) -> None:
    feature.write("pkg/rollout.py", _MODULE.format(helper="preprocess_data", caller="generate"))
    feature.commit("add")
    found = lines(run, "hot-copy")
    assert [(line, sev) for line, sev, _m in found] == [(9, "error")]
    assert "on the request path (`generate` -> `preprocess_data`)" in found[0][2]


def test_two_calls_down_is_still_the_request_path(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/api.py",
        "from copy import deepcopy\n"
        "\n"
        "\n"
        "class Api:\n"
        "    def _generation_kwargs(self):\n"
        "        gen_config = deepcopy(self.gen_config)\n"  # 6
        "        gen_config.setdefault('top_k', 1)\n"
        "        return gen_config\n"
        "\n"
        "    def _build(self, prompt):\n"
        "        return {'prompt': prompt, **self._generation_kwargs()}\n"
        "\n"
        "    def _generate(self, prompt):\n"
        "        return self.client.post(self._build(prompt))\n",
    )
    feature.commit("add")
    assert [(line, sev) for line, sev, _m in lines(run, "hot-copy")] == [(6, "error")]


def test_a_helper_no_request_path_calls_keeps_its_warning(feature: Repo, run: Run) -> None:
    # Called by a set-up method only: a deepcopy per item of a loop stays ⚠.
    feature.write("pkg/rollout.py", _MODULE.format(helper="preprocess_data", caller="build"))
    feature.commit("add")
    assert [(line, sev) for line, sev, _m in lines(run, "hot-copy")] == [(9, "warning")]


def test_a_helper_copying_no_sampling_config_is_not_raised(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/rollout.py",
        _MODULE.format(helper="preprocess_data", caller="generate").replace(
            "sampling_param", "template"
        ),
    )
    feature.commit("add")
    # a deepcopy per item of a plain loop, of no sampling config: set-up work, as before
    assert lines(run, "hot-copy") == []
