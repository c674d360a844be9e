# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy: a copy in a loop of a function whose every caller in the work tree is set-up
code, within three calls (``model_setup`` -> ``self.get_dtensor(...)`` -> its nested
``update_sharded_sd``), runs once per model load: no finding (set zzzs: ChatLearn eeb501ee
``fsdp_module.py``, a bucket's ``.view(...).clone()`` per parameter while loading the
checkpoint, labelled '-'). The reading broad-except makes of set-up helpers, the other
way round. A function also called from elsewhere, or named for the request path (which a
framework calls where no grep sees it), keeps its finding."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, lines

FEATURE_BASE = {"pkg/__init__.py": ""}

_MODULE = """\
class FSDPModule:
    def get_dtensor(self, model, names):
        def update_sharded_sd(bucket, params):
            out = {}
            for name in params:
                out[name] = bucket[:4].view(2, 2).clone()
            return out

        return update_sharded_sd(model.bucket, names)

    def model_setup(self):
        self.shards = self.get_dtensor(self.model, self.names)
"""


def test_a_copy_only_set_up_code_reaches_is_not_reported(feature: Repo, run: Run) -> None:
    feature.write("pkg/fsdp.py", _MODULE)
    feature.commit("add")
    assert lines(run, "hot-copy") == []


def test_a_caller_outside_set_up_keeps_the_finding(feature: Repo, run: Run) -> None:
    feature.write("pkg/fsdp.py", _MODULE)
    feature.write(
        "pkg/runner.py",
        "from pkg.fsdp import FSDPModule\n"
        "\n"
        "\n"
        "def sync_every_round(module: FSDPModule) -> None:\n"
        "    module.get_dtensor(module.model, module.names)\n",
    )
    feature.commit("add")
    assert [(line, sev) for line, sev, _m in lines(run, "hot-copy")] == [(6, "warning")]


def test_a_request_path_function_is_never_read_as_cold(feature: Repo, run: Run) -> None:
    # `generate` called from set-up code only in this tree (a warm-up), but a serving
    # framework calls it for every request
    feature.write("pkg/fsdp.py", _MODULE.replace("get_dtensor", "generate"))
    feature.commit("add")
    # a loop of the per-request function's own: the ✗ of a step loop
    assert [(line, sev) for line, sev, _m in lines(run, "hot-copy")] == [(6, "error")]


def test_a_string_naming_the_function_keeps_the_finding(feature: Repo, run: Run) -> None:
    # Hostile: the hot path calls the helper by a string (`getattr(self, "name")`), which
    # no call index sees, and one set-up call would otherwise make it read as cold.
    feature.write(
        "pkg/fsdp.py",
        _MODULE
        + "\n    def sync(self):\n"
        + '        return getattr(self, "get_dtensor")(self.model, self.names)\n',
    )
    feature.commit("add")
    assert [(line, sev) for line, sev, _m in lines(run, "hot-copy")] == [(6, "warning")]
