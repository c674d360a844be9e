# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: an implicit Optional a constructor stores in ``self.<attr>`` and then
tests there, in the same method, relies on its None (speechbrain's ``LLaMA.__init__(...,
bnb_config: BitsAndBytesConfig = None)``: ``self.bnb_config = bnb_config``, then ``if
self.bnb_config is not None:``; set zzzr labels it ✗). A test of the attribute before
the store reads its older value (``if self.cache is None: self.cache = cache``, a lazy
init), not the parameter's. No Python code calls either (speechbrain builds its models
from YAML): the body's own test is what says None comes."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run
from tests.test_sweep_any_annotation_none_reaches import findings

MODEL = """\
class Config:
    pass


class Model:
    cache: object = None

    def __init__(self, name: str, config: Config = None) -> None:
        self.config = config
        if self.config is not None:
            print("quantized")
        self.name = name

    def attach(self, cache: Config = None) -> None:
        if self.cache is None:
            self.cache = cache
"""


def test_a_parameter_stored_then_tested_in_the_same_method(feature: Repo, run: Run) -> None:
    feature.write("pkg/model.py", MODEL)
    feature.commit("add")
    found = findings(run)
    assert [(path, line) for path, line, _m in found] == [("pkg/model.py", 8)]
    assert found[0][2].startswith("`config: Config = None` (line 8): `Config` does not admit")
