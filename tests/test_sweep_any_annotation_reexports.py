# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a class a package re-exports (``from transformers import
PreTrainedModel``, defined in ``transformers/modeling_utils.py`` and imported by the
package's ``__init__``) is a class, so ``model: PreTrainedModel = None`` whose body tests
``model is not None`` is the implicit Optional it is when the class is imported from
where it is defined; a re-exported name its module binds otherwise stays unsure."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, blocking

LIB_INIT = """\
from typing import TYPE_CHECKING

from .compat import ModelOutput

if TYPE_CHECKING:
    from .modeling_utils import PreTrainedModel as PreTrainedModel
"""

MODELING = """\
class PreTrainedModel:
    def forward(self) -> None:
        pass
"""

COMPAT = """\
from typing import Union

ModelOutput = Union[dict, None]
"""

PATCH = """\
from lib import ModelOutput, PreTrainedModel


def apply_kernels(rope: bool = True, model: PreTrainedModel = None) -> None:
    if model is not None:
        model.forward()


def read_output(out: ModelOutput = None) -> dict:
    if out is None:
        return {}
    return dict(out)
"""


def test_reexported_class_tested_for_none(feature: Repo, run: Run) -> None:
    # Liger-Kernel's ``apply_liger_kernel_to_*(..., model: PreTrainedModel = None)``:
    # called without a model for class-level patching, the body tests ``model is not
    # None``; transformers' ``__init__`` re-exports the class (a TYPE_CHECKING import).
    feature.write("lib/__init__.py", LIB_INIT)
    feature.write("lib/modeling_utils.py", MODELING)
    feature.write("lib/compat.py", COMPAT)
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/patch.py", PATCH)
    feature.commit("add")
    found = [(p, line, m.split(":", 1)[0]) for p, line, m in blocking(run, "any-annotation")]
    # ``ModelOutput`` re-exported from a module that binds it as an alias (it admits
    # None): unsure, not reported.
    assert found == [("pkg/patch.py", 4, "`model")]


CHAIN_INIT = "from .shim import Engine\n"
SHIM = "from ._impl import Engine\n"
IMPL = "class Engine:\n    pass\n"

CHAIN_USER = """\
from eng import Engine


def start(engine: Engine = None) -> str:
    if engine is None:
        return "none"
    return "some"
"""

UNTESTED_USER = """\
from eng import Engine


def run_all(engine: Engine = None) -> None:
    engine.run()
"""


def test_reexport_chain_is_followed(feature: Repo, run: Run) -> None:
    # a package ``__init__`` -> a compatibility shim -> the defining module
    feature.write("eng/__init__.py", CHAIN_INIT)
    feature.write("eng/shim.py", SHIM)
    feature.write("eng/_impl.py", IMPL)
    feature.write("pkg/user.py", CHAIN_USER)
    feature.commit("add")
    assert [m.split(":", 1)[0] for _p, _l, m in blocking(run, "any-annotation")] == ["`engine"]


def test_reexported_class_dead_default_not_reported(feature: Repo, run: Run) -> None:
    # The body dereferences it on every path and nothing calls it: a dead default, not
    # a misleading type (the settled reading: None must flow and be tested).
    feature.write("eng/__init__.py", CHAIN_INIT)
    feature.write("eng/shim.py", SHIM)
    feature.write("eng/_impl.py", IMPL)
    feature.write("pkg/user.py", UNTESTED_USER)
    feature.commit("add")
    assert blocking(run, "any-annotation") == []
