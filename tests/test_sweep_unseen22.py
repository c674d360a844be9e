# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The causes of the unseen corpus' misses (bench/sweep_unseen.json, consumed), fixed:
a dotted third-party class under a ``None`` default and a bool default under ``int``
(any-annotation ✗), a broad catch around the import a patch function patches and a
swallow in a private helper only fail-fast code calls (broad-except ✗), and a clone in
vLLM's run-once post-load hook (hot-copy: not a hot path)."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytool.rules._pysource import SourceInfo
from policytool.rules._sweep_config import SweepConfig
from policytool.rules._wrong_annotation import _types
from tests.conftest import Repo, Result

Run = Callable[..., Result]


@pytest.fixture
def feature(repo: Repo) -> Repo:
    """main with one file; the feature branch checked out."""
    repo.write("README.md", "x\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    return repo


def findings(run: Run, rule: str) -> list[tuple[int, str, str]]:
    """(line, severity, message) of each finding of ``rule``."""
    result = run("sweep", "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    return sorted(
        (f["line"], f["severity"], f["message"])
        for f in json.loads(result.out)
        if f["rule"] == rule
    )


def errors(run: Run, rule: str) -> dict[int, str]:
    """Line -> message of each ✗ of ``rule``."""
    return {line: m for line, sev, m in findings(run, rule) if sev == "error"}


# -- any-annotation: a dotted class name that cannot hold None ---------------------------

DOTTED = """\
import numpy.typing as npt
import ray
import ray.actor
import typing
from ray import actor

import pkg.local


class Adapter:
    def __init__(self) -> None:
        self.server_handle: ray.actor.ActorHandle = None
        self.other: actor.ActorHandle = None
        self.dtype: npt.DTypeLike = None
        self.hashable: typing.Hashable = None
        self.alias: pkg.local.MaybeModel = None
        self.tvar: pkg.local.ModelT = None
        self.kind: ray.actor.HandleType = None
        self.const: ray.actor.DEFAULT = None
        self.defined: pkg.local.Engine = None
        self.reexported: pkg.local.Imported = None
        self.bound: pkg.local.Bound = None
        self.fine: ray.actor.ActorHandle | None = None
        self.inner: self.Inner = None
"""
LOCAL = """\
from pkg.other import Imported

Bound = Imported | None


class Engine:
    pass
"""


def test_a_dotted_class_of_a_module_off_the_path_cannot_hold_none(feature: Repo, run: Run) -> None:
    # verl e9405d7: ``self.server_handle: ray.actor.ActorHandle = None`` (ray is not
    # installed where the sweep runs): a class by its dotted CamelCase name.
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/local.py", LOCAL)
    feature.write("pkg/other.py", "class Imported:\n    pass\n")
    feature.write("pkg/adapter.py", DOTTED)
    feature.commit("add")
    found = errors(run, "any-annotation")
    assert sorted(m.split(":", 1)[0] for m in found.values()) == [
        "`self.defined",
        "`self.other",
        "`self.server_handle",
    ]
    assert found[12] == (
        "`self.server_handle: ray.actor.ActorHandle = None` (line 12): "
        "`ray.actor.ActorHandle` does not admit None; annotate "
        "`self.server_handle: ray.actor.ActorHandle | None`"
    )


def test_a_dotted_parameter_default_and_a_string_annotation(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/use.py",
        "import cutlass\nimport torch\nimport torch.distributed as dist\n\n\n"
        "def f(\n    group: dist.ProcessGroup = None,\n    g: 'dist.ProcessGroup' = None,\n"
        "    h: dist.ProcessGroupLike = None,\n    i: torch.types.Device = None,\n"
        "    j: cutlass.Constexpr = None,\n) -> None:\n"
        "    if group is None or g is None or h is None or i is None or j is None:\n"
        "        return\n",
    )
    feature.commit("add")
    assert sorted(m.split(":", 1)[0] for m in errors(run, "any-annotation").values()) == [
        "`g",
        "`group",
    ]


# -- any-annotation: a bool default under a number annotation ----------------------------

BOOL_DEFAULT = """\
from dataclasses import dataclass, field


def load_checkpoint(
    path: str,
    del_local_after_load: int = True,
    *,
    ratio: float = False,
    count: int = 0,
    flag: bool = True,
    maybe: int | None = True,
) -> None:
    pass


def silenced(a: int = True) -> None:  # type: ignore[assignment]
    pass


@dataclass
class Args:
    verbose: int = False
    level: int = field(default=True)
    steps: int = 3
"""


def test_a_bool_default_under_int_says_annotate_bool(feature: Repo, run: Run) -> None:
    # verl b53f0f1: ``del_local_after_load: int = True``.
    feature.write("pkg/ckpt.py", BOOL_DEFAULT)
    feature.commit("add")
    found = errors(run, "any-annotation")
    assert sorted(m.split(":", 1)[0] for m in found.values()) == [
        "`del_local_after_load",
        "`level",
        "`ratio",
        "`verbose",
    ]
    assert found[6].startswith(
        "`del_local_after_load: int = True` (line 6): annotated int, its default is a bool: "
        "annotate `del_local_after_load: bool`"
    )


def test_a_bool_default_on_an_old_line_is_not_new(feature: Repo, run: Run) -> None:
    feature.write("pkg/old.py", "def f(a: int = True) -> None:\n    pass\n")
    feature.commit("old")
    feature.git("checkout", "-q", "main")
    feature.git("merge", "-q", "feature")
    feature.git("checkout", "-q", "-b", "next")
    feature.write("pkg/old.py", "def f(a: int = True) -> None:\n    pass\n\n\nX = 1\n")
    feature.commit("edit")
    assert errors(run, "any-annotation") == {}


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
    assert [(line, sev) for line, sev, _m in findings(run, "hot-copy")] == [(13, "warning")]


# -- broad-except: a patch function's import, a helper only fail-fast code calls ----------

PATCH_IMPORT = """\
import importlib


def _patch_torch_npu_getenv() -> None:
    try:
        from torch_npu.utils import patch_getenv
    except Exception:  # noqa: BLE001
        return
    patch_getenv.apply()


def _apply_gdn_patch(impl):
    try:
        mod = importlib.import_module("fla.ops.gated_delta_rule")
    except Exception:
        mod = None
    return mod


def _patch_logged():
    try:
        import torch_npu
    except Exception as e:
        print(e)
        return
    torch_npu.go()


def _patch_specific():
    try:
        import torch_npu
    except ImportError:
        return
    torch_npu.go()


def setup_optional():
    try:
        import torch_npu
    except Exception:
        return
    torch_npu.go()


def is_npu_available():
    try:
        import torch_npu  # noqa: F401
    except Exception:
        return False
    return True


def _patch_torchaudio_load():
    try:
        import torchcodec

        torchcodec  # noqa: B018
        return
    except Exception:
        pass
    patch_loader()
"""


def test_a_broad_catch_around_the_import_a_patch_function_patches_is_blocking(
    feature: Repo, run: Run
) -> None:
    # ms-swift 86e55a5: ``except Exception: return`` around ``from torch_npu.utils import
    # patch_getenv`` in the NPU bootstrap's ``_patch_torch_npu_getenv``.
    feature.write("pkg/npu.py", PATCH_IMPORT)
    feature.commit("add")
    found = findings(run, "broad-except")
    assert [(line, sev) for line, sev, _m in found] == [
        (7, "error"),
        (15, "error"),
        (23, "warning"),  # logged
        (40, "warning"),  # set-up, but an optional import: best effort
        (48, "warning"),  # an availability probe
        (59, "warning"),  # the failed import is what triggers the patch
    ]
    assert found[0][2] == (
        "`except Exception:` around an import in patch function `_patch_torch_npu_getenv` "
        "skips the patch silently on any error, not only a missing module; catch ImportError"
    )


HELPERS = """\
from transformers import AutoConfig


class Engine:
    def __init__(self, model_dir):
        self.model_dir = model_dir
        self._prepare_engine_kwargs()

    def _prepare_engine_kwargs(self):
        self.overrides = self._get_hf_config_overrides()

    def _get_hf_config_overrides(self):
        try:
            disk_config = AutoConfig.from_pretrained(self.model_dir)
        except Exception:
            disk_config = None
        return {"config": disk_config}

    def _used_elsewhere(self):
        try:
            return AutoConfig.from_pretrained(self.model_dir)
        except Exception:
            return None

    def _try_load(self):
        try:
            return AutoConfig.from_pretrained(self.model_dir)
        except Exception:
            return None

    def _as_callback(self):
        try:
            return AutoConfig.from_pretrained(self.model_dir)
        except Exception:
            return None

    def _logged(self):
        try:
            return AutoConfig.from_pretrained(self.model_dir)
        except Exception as e:
            print(e)
            return {}

    def load_weights(self):
        self._used_elsewhere()
        self._try_load()
        self._logged()
        register(self._as_callback)

    def generate(self):
        self._used_elsewhere()

    def setup(self):
        self._scale = self._scale_factor()
        self._rvv = self._supports_rvv()
        self._start_monitor()

    def _scale_factor(self):
        try:
            return 2 ** len(self.config.block_out_channels)
        except Exception:
            pass
        return 8

    def _supports_rvv(self):
        try:
            return probe()
        except Exception:
            return False

    def _start_monitor(self):
        def _monitor():
            try:
                wait()
            except Exception:
                return
        start(_monitor)
"""


def test_a_private_helper_only_fail_fast_code_calls_is_on_its_path(feature: Repo, run: Run) -> None:
    # ms-swift 598053e: ``except Exception: disk_config = None`` in
    # ``_get_hf_config_overrides``, reached only from the engine's ``__init__``.
    feature.write("pkg/engine.py", HELPERS)
    feature.commit("add")
    found = findings(run, "broad-except")
    assert [(line, sev) for line, sev, _m in found] == [
        (15, "error"),
        (22, "error"),  # also called from generate, but its try loads a config (round D)
        (28, "warning"),  # named for an attempt
        (34, "error"),  # passed as a callback, but its try loads a config (round D)
        (40, "warning"),  # logged
        (61, "warning"),  # falls through to a fallback value
        (68, "warning"),  # a probe's answer
        (75, "warning"),  # in a function the set-up only defines
    ]
    assert found[0][2] == (
        "`except Exception:` on fail-fast path `_get_hf_config_overrides` (called only from "
        "`__init__`) silently swallows every error"
    )


# -- property: the None verdict of a dotted name ----------------------------------------

DOTTED_NEVER = ["ray.actor.ActorHandle", "rt.util.Queue", "torch.cuda.Stream", "int"]
DOTTED_UNSURE = [
    "npt.DTypeLike",
    "torch.types.Device",
    "ray.actor.HandleType",
    "ray.MaybeHandle",
    "ray.ModelT",
    "ray.DEFAULT",
    "cutlass.Constexpr",
    "typing.Hashable",
    "self_module.Inner",
]


@st.composite
def dotted_cases(draw: st.DrawFn) -> tuple[str, bool | None]:
    """A union of dotted names and whether it admits None (None: unsure)."""
    members = draw(
        st.lists(st.sampled_from([*DOTTED_NEVER, *DOTTED_UNSURE, "None"]), min_size=1, max_size=3)
    )
    text = " | ".join(members)
    if "None" in members:
        return text, True
    if any(m in DOTTED_UNSURE for m in members):
        return text, None
    return text, False


@given(dotted_cases())
@settings(max_examples=200, deadline=None)
def test_a_dotted_name_admits_none_only_when_sure(case: tuple[str, bool | None]) -> None:
    text, expected = case
    module = (
        "import cutlass\nimport numpy.typing as npt\nimport ray\nimport ray.util as rt\n"
        "import torch\nimport typing\n\n\nclass self_module:\n    Inner = None\n\n\n"
        f"x: {text} = None\n"
    )
    tree = ast.parse(module)
    src = SourceInfo("m.py", module.encode(), tree, None, SweepConfig())
    node = tree.body[-1]
    assert isinstance(node, ast.AnnAssign)
    assert _types(src).admits_none(node.annotation) is expected
