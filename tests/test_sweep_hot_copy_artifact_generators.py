# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy: a function whose name says it generates a file artifact
(``generate_patch_file``, ``_generate_run_script_serve``, ``gen_launch_cmd``) is no
model's ``generate``: the ``*generate*`` request-path glob does not make it per-request
(set zzzt: FlagScale's ``tools/patch/patch.py`` and ``runner_serve.py`` deep-copy a config
once per patch or per node of a launch script, labelled '-'). A model's generation
(``generate``, ``generate_stream``, ``generate_json(prompt)``) keeps its finding."""

from __future__ import annotations

import pytest

from policytool.rules import _fail_fast as paths
from tests.conftest import Repo
from tests.sweep_fixture import Run, lines

_RUNNER = """\
import copy


def generate_patch_file(patch_info, backends):
    data = copy.deepcopy(patch_info)
    return data


def _generate_run_script_serve(config, nodes):
    for node in nodes:
        common_args = copy.deepcopy(config["engine_args"])
        node.write(common_args)


def generate_stream(self, sampling_params, prompts):
    for prompt in prompts:
        params = copy.deepcopy(sampling_params)
        yield self.engine.step(prompt, params)


def generate_json(self, prompt, schema):
    return self.engine.run(prompt, copy.deepcopy(schema))
"""


def test_an_artifact_generator_is_no_request_path(feature: Repo, run: Run) -> None:
    feature.write("pkg/runner.py", _RUNNER)
    found = lines(run, "hot-copy")
    assert [line for line, *_rest in found] == [17, 22]


@pytest.mark.parametrize(
    ("name", "artifact"),
    [
        ("generate_patch_file", True),
        ("_generate_run_script_serve", True),
        ("gen_launch_cmd", True),
        ("generate_dockerfile", True),
        ("generate", False),
        ("_generate", False),
        ("generate_stream", False),
        ("generate_json", False),
        ("file_generate", False),
        ("regenerate_file", False),
    ],
)
def test_artifact_generator_names(name: str, artifact: bool) -> None:
    assert paths.artifact_generator(name) is artifact
