# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup, dropped keys: "``**kwargs`` plumbing silently drops unknown keys on a
fail-fast path", on real code.

"Drops unknown keys" means: the function reads some keys (or none) and the dict goes
nowhere else: not forwarded, stored, iterated or tested for leftovers. Showing it in a
log line (``logger.info(f"... {kwargs}")``) or discarding it (``_ = kwargs``) is not
passing it on. An alternate constructor (a ``@classmethod`` returning ``cls(...)``) is
the class's init path. A function the change writes gets one ✗ at its ``def``; an old
function gets a ✗ at the read of each key the change adds (a key the file read before is
⚠)."""

from __future__ import annotations

import json
from functools import partial

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

# ``pkg`` is a package at the base: the change resolves keys and classes through it.
FEATURE_BASE = {"pkg/__init__.py": ""}

# (path, line, severity, message) of each kwargs-lookup finding.
rows = partial(found, rule="kwargs-lookup")


ROUTER_OLD = """\
import logging

logger = logging.getLogger(__name__)


def initialize_routing_logic(
    routing_logic, *args, **kwargs
) -> object:
    logger.info(f"Initializing routing logic with kwargs: {kwargs}")
    if routing_logic == "session":
        return Session(kwargs.get("session_key"))
    return None
"""

ROUTER_NEW = """\
import logging

logger = logging.getLogger(__name__)


def initialize_routing_logic(
    routing_logic, *args, **kwargs
) -> object:
    logger.info(f"Initializing routing logic with kwargs: {kwargs}")
    if routing_logic == "session":
        return Session(
            kwargs.get("session_key"),
            kwargs.get("max_reroute_attempts", 0),
        )
    return None
"""


def test_a_dict_only_logged_is_not_passed_on(feature: Repo, run: Run) -> None:
    """production-stack's ``initialize_routing_logic(**kwargs)`` logs the dict in an
    f-string: that is not forwarding it, so the new key is the drop ✗; the rewritten read
    of the key the file read before stays ⚠."""
    feature.git("checkout", "-q", "main")
    feature.write("pkg/router.py", ROUTER_OLD)
    feature.commit("old")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    feature.write("pkg/router.py", ROUTER_NEW)
    feature.commit("new key")
    got = [(line, sev) for _p, line, sev, _m in rows(run)]
    assert got == [(12, "warning"), (13, "error")]  # the base read session_key
    message = next(m for _p, _l, sev, m in rows(run) if sev == "error")
    assert "initialize_routing_logic" in message and "silently dropped" in message


def test_a_dict_forwarded_or_checked_for_leftovers_is_not_dropped(feature: Repo, run: Run) -> None:
    """The same function handing the dict on (``f(**kwargs)``) or rejecting leftovers
    (``if kwargs: raise``) does not drop unknown keys: ⚠ only."""
    feature.write(
        "pkg/a.py",
        "def init_a(**kwargs):\n    x = kwargs.pop('style')\n    return make(**kwargs)\n",
    )
    feature.write(
        "pkg/b.py",
        "def init_b(**kwargs):\n    x = kwargs.pop('mode')\n"
        "    if kwargs:\n        raise TypeError(kwargs)\n    return x\n",
    )
    feature.commit("new")
    got = rows(run)
    assert {sev for _p, _l, sev, _m in got} == {"warning"}, got


FP8 = """\
class Fp8Linear:
    def __init__(self, weight, scale, input_scale=None):
        self.weight = weight

    @classmethod
    def from_fp8(cls, weight, scale, bias=None, **kwargs):
        input_scale = kwargs.get("input_scale", None)
        return cls(weight=weight, scale=scale, input_scale=input_scale)
"""


def test_an_alternate_constructor_is_an_init_path(feature: Repo, run: Run) -> None:
    """TGI's ``Fp8Linear.from_fp8(cls, ..., **kwargs)`` builds ``cls(...)`` from weights:
    reading a key and dropping the rest is the init-path ✗ (one, at the def)."""
    feature.write("pkg/fp8.py", FP8)
    feature.commit("new")
    got = [(line, sev) for _p, line, sev, _m in rows(run)]
    assert got == [(6, "error"), (7, "warning")]


LOGGER = """\
from typing import Protocol


class MetricLoggerInterface(Protocol):
    def log(self, name: str) -> None: ...


class DiskLogger(MetricLoggerInterface):
    def __init__(self, log_dir, output_fmt="txt", filename=None, **kwargs):
        self.log_dir = log_dir
        self.output_fmt = output_fmt
"""


def test_a_new_init_that_never_uses_its_kwargs_drops_every_key(feature: Repo, run: Run) -> None:
    """torchtune's ``DiskLogger.__init__(..., **kwargs)`` never reads or forwards the
    dict: every key (a misspelt ``output_fmat``) is dropped: ✗ at the def."""
    feature.write("pkg/log.py", LOGGER)
    feature.commit("new")
    got = rows(run)
    assert [(line, sev) for _p, line, sev, _m in got] == [(9, "error")]
    assert "never reads or passes the dict on" in got[0][3]


DATAMODULE = """\
from typing import Any, Optional


class DataHooks:
    pass


class DataModule(DataHooks):
    def __init__(self) -> None:
        super().__init__()
        self.trainer: Optional[object] = None
"""


def test_an_init_taking_anything_that_sets_itself_up_drops_every_key(
    feature: Repo, run: Run
) -> None:
    """Lightning's ``LightningDataModule.__init__`` went from ``(self)`` to ``(self, *args:
    Any, **kwargs: Any)``, calling ``super().__init__()`` and setting its attributes with
    neither: every keyword a subclass passes up (a misspelt one too) is dropped: ✗ at the
    ``**kwargs`` added to the old signature. (A placeholder that sets nothing up, diffusers'
    dummy objects, stays quiet: the next test.) Forwarding ``*args`` alone still drops
    the keywords: ✗; forwarding both: nothing."""
    feature.git("checkout", "-q", "main")
    feature.write("pkg/dm.py", DATAMODULE)
    feature.commit("old")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    new = "def __init__(self, *args: Any, **kwargs: Any) -> None:"
    feature.write("pkg/dm.py", DATAMODULE.replace("def __init__(self) -> None:", new))
    got = rows(run)
    assert [(line, sev) for _p, line, sev, _m in got] == [(9, "error")]
    assert "`__init__(**kwargs)` never reads or passes the dict on" in got[0][3]
    forwards_args = DATAMODULE.replace("def __init__(self) -> None:", new).replace(
        "super().__init__()", "super().__init__(*args)"
    )
    feature.write("pkg/dm.py", forwards_args)
    assert [(line, sev) for _p, line, sev, _m in rows(run)] == [(9, "error")]
    feature.write("pkg/dm.py", forwards_args.replace("(*args)", "(*args, **kwargs)"))
    assert rows(run) == []


def test_an_unused_kwargs_on_a_stub_or_an_old_signature_is_not_reported(
    feature: Repo, run: Run
) -> None:
    """An abstract ``__init__`` (``raise NotImplementedError``), a plain method, an
    alternate constructor whose unused ``**kwargs`` matches a sibling's call (TGI's
    ``GPTQMarlinFP8Linear.from_fp8``), a ``(*args, **kwargs)`` placeholder (diffusers'
    dummy objects), and an old ``__init__`` whose body alone changes:
    nothing."""
    feature.git("checkout", "-q", "main")
    feature.write("pkg/old.py", "class A:\n    def __init__(self, **kwargs):\n        self.x = 1\n")
    feature.commit("old")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    feature.write("pkg/old.py", "class A:\n    def __init__(self, **kwargs):\n        self.x = 2\n")
    feature.write(
        "pkg/stub.py",
        "class B:\n    def __init__(self, **kwargs):\n        raise NotImplementedError\n\n"
        "    def run(self, **kwargs):\n        return 1\n\n"
        "    @classmethod\n    def from_fp8(cls, weight, **kwargs):\n"
        "        return cls(weight)\n\n\nclass Dummy:\n"
        "    def __init__(self, *args, **kwargs):\n        requires_backends(self, ['x'])\n\n"
        "    @classmethod\n    def from_config(cls, **kwargs):\n"
        "        return cls(weight)\n",
    )
    feature.commit("new")
    assert rows(run) == []


IMPL = """\
from abc import ABC, abstractmethod


class AttentionImpl(ABC):
    @abstractmethod
    def __init__(self, num_heads: int, scale: float) -> None:
        raise NotImplementedError


class OctaveImpl(AttentionImpl):
    def __init__(self, num_heads, scale, **kwargs):
        self.num_heads = num_heads
"""


def test_an_override_of_a_base_init_keeps_the_interfaces_catch_all(feature: Repo, run: Run) -> None:
    """vLLM 0.33's ``RocmOctaveAttentionImpl.__init__(..., **kwargs)`` overrides
    ``AttentionImpl.__init__``: its unused ``**kwargs`` absorbs what the layer passes
    every backend, not keys of its own: no ✗ (a base in another module of the tree too)."""
    feature.write("pkg/impl.py", IMPL)
    feature.write("pkg/base.py", IMPL.split("class OctaveImpl")[0])
    feature.write(
        "pkg/other.py",
        "from pkg.base import AttentionImpl\n\n\nclass Other(AttentionImpl):\n"
        "    def __init__(self, num_heads, scale, **kwargs):\n        self.n = num_heads\n",
    )
    feature.commit("new")
    assert rows(run) == []


@pytest.mark.parametrize(
    ("imports", "base", "dropped"),
    [
        ("from typing import Iterator", "Iterator[T]", True),  # torchdata's ``BaseNode``
        ("import collections.abc as cabc", "cabc.Mapping", True),
        ("import typing", "typing.Iterable[T]", True),
        ("from pkg.mine import Iterator", "Iterator[T]", False),  # a class of its own: unknown
    ],
)
def test_an_abstract_collection_base_declares_no_catch_all(
    feature: Repo, run: Run, imports: str, base: str, dropped: bool
) -> None:
    """torchdata's root ``class BaseNode(Iterator[T])`` with ``__init__(self, *args,
    **kwargs)`` that sets a flag and drops every key: typing's and ``collections.abc``'s
    abstract collections declare no ``__init__`` whose keywords the catch-all absorbs,
    so it is the dropped-keys ✗, as with no base. A base of the same name imported from
    elsewhere is still unknown."""
    feature.write(
        "pkg/node.py",
        f"{imports}\nfrom typing import TypeVar\n\nT = TypeVar('T')\n\n\n"
        f"class BaseNode({base}):\n"
        "    def __init__(self, *args, **kwargs):\n        self.ready = False\n",
    )
    feature.commit("node")
    assert [r[2] for r in rows(run)] == (["error"] if dropped else [])


def test_the_shared_fail_fast_list_reaches_kwargs_lookup(feature: Repo, run: Run) -> None:
    """The seed's kwargs-lookup ✗ (unknown keys dropped on config validation)."""
    feature.write("pkg/v.py", "def validate_options(**kwargs):\n    return kwargs.get('mode')\n")
    feature.commit("add")
    result = run("sweep", "--format", "json", "--fail-on", "never")
    rows = [f for f in json.loads(result.out) if f["rule"] == "kwargs-lookup"]
    # One ✗ for the function, on its def line; the read itself is ⚠.
    got = [(r["line"], r["severity"], "validate_options" in r["message"]) for r in rows]
    assert got == [(1, "error", True), (2, "warning", True)]


STRATEGIES = """\
from abc import ABC


class MergeStrategy(ABC):
    def merge(self, tensors, weights):
        raise NotImplementedError()


class LinearMerge(MergeStrategy):
    def __init__(self, **kwargs):
        pass


class TiesMerge(MergeStrategy):
    def __init__(self, density: float, majority_sign_method: str = "total", **kwargs):
        self.density = density
        self.majority_sign_method = majority_sign_method


class DareLinearMerge(MergeStrategy):
    def __init__(self, density: float, **kwargs):
        self.density = density


def strategy(name, **params):
    return {"linear": LinearMerge, "ties": TiesMerge, "dare": DareLinearMerge}[name](**params)
"""


def test_sibling_constructors_with_one_catch_all_are_an_interface(feature: Repo, run: Run) -> None:
    """lorax's merge strategies: the change writes several classes of one module whose
    ``__init__`` each end in a ``**kwargs`` they never use; the caller hands one dict of
    merge parameters to whichever class it picks, so the catch-all is the dispatch's
    signature, not a fail-fast plumbing of one class: no ✗."""
    feature.write("pkg/strategies.py", STRATEGIES)
    feature.commit("new")
    assert rows(run) == []


CKPT = """\
def save_checkpoint(model, ckpt_dir: str) -> None:
    model.save(ckpt_dir)


def load_checkpoint(model, ckpt_dir: str, **kwargs) -> None:
    model.load(ckpt_dir)
"""


def test_one_plugin_hook_in_several_modules_is_an_interface(feature: Repo, run: Run) -> None:
    """llamafactory's distributed plugins: ``load_checkpoint(model, ckpt_dir, **kwargs)``
    written in both the deepspeed and the fsdp2 module with the dict unused: one hook
    the trainer calls whichever backend is on, with the same keys: no ✗ for the unused
    catch-all."""
    feature.write("pkg/deepspeed.py", CKPT)
    feature.write("pkg/fsdp2.py", CKPT)
    feature.commit("new")
    assert rows(run) == []


def test_one_unused_catch_all_of_a_hook_is_still_the_drop(feature: Repo, run: Run) -> None:
    """The same hook written in one module only: nothing shows a shared interface, so
    the unused ``**kwargs`` on the loading path is the ✗."""
    feature.write("pkg/deepspeed.py", CKPT)
    feature.commit("new")
    assert [(line, sev) for _p, line, sev, _m in rows(run)] == [(5, "error")]


def test_constructors_in_unrelated_modules_are_not_siblings(feature: Repo, run: Run) -> None:
    """Two classes in two modules, each with an ``__init__`` whose ``**kwargs`` is never
    used: every class has an ``__init__``, so the shared name shows no interface; each
    is the ✗."""
    feature.write("pkg/log.py", LOGGER)
    feature.write("pkg/other.py", LOGGER.replace("DiskLogger", "FileLogger"))
    feature.commit("new")
    got = [(path, line, sev) for path, line, sev, _m in rows(run)]
    assert sorted(got) == [("pkg/log.py", 9, "error"), ("pkg/other.py", 9, "error")]


GENERATORS = """\
from abc import ABC


class DummyGenerator(ABC):
    def generate(self, name):
        raise NotImplementedError()


class TextGenerator(DummyGenerator):
    def __init__(self, task, batch_size=2, **kwargs):
        self.batch_size = batch_size


class VisionGenerator(DummyGenerator):
    def __init__(self, task, width=64, **kwargs):
        self.width = width


class AudioGenerator(DummyGenerator):
    def __init__(self, task, length=16, **kwargs):
        self.length = length
"""
NEW_GENERATOR = """

class PatchGenerator(DummyGenerator):
    def __init__(self, task, patches=4, **kwargs):
        self.patches = patches
"""


def test_a_new_member_of_a_family_of_catch_alls_keeps_the_familys_signature(
    repo: Repo, run: Run
) -> None:
    """optimum b9fa9aa8 input_generators.py:1540: a new `DummyPatchTSTInputGenerator
    .__init__(..., **kwargs)` that never uses the dict, in a module whose other
    generators of the same base all take an unused `**kwargs`: the exporter hands the
    whole shape dict to whichever generator it picks, so the catch-all is the family's
    signature (no ✗). With siblings that mostly pass theirs on (torchtune's loggers:
    `wandb.init(**kwargs)`), the one that drops them is still the ✗."""
    repo.write("pkg/gen.py", GENERATORS)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("pkg/gen.py", GENERATORS + NEW_GENERATOR)
    repo.commit("one more generator")
    assert rows(run) == []
    repo.git("checkout", "-q", "main")
    forwarding = GENERATORS.replace(
        "        self.width = width", "        self.width = open_(**kwargs)"
    )
    forwarding = forwarding.replace(
        "        self.length = length", "        self.length = open_(**kwargs)"
    )
    repo.write("pkg/gen.py", forwarding)
    repo.commit("siblings pass theirs on")
    repo.git("checkout", "-q", "-b", "feature2")
    repo.write("pkg/gen.py", forwarding + NEW_GENERATOR)
    repo.commit("one more generator")
    assert [(line, sev) for _p, line, sev, _m in rows(run)] == [(25, "error")]


def test_a_torch_module_constructor_absorbs_no_keys_of_a_base(feature: Repo, run: Run) -> None:
    """timm 89f26b9f eva.py:392 adds `**kwargs` to `EvaBlockPostNorm.__init__`, an
    `nn.Module` that never reads it: a misspelt block argument is dropped (labelled ✗).
    `nn.Module.__init__(self, *args, **kwargs)` raises on any argument, so it is no
    catch-all the subclass inherits, whether torch is installed or not, however it is
    imported. A base of the repository whose `__init__` takes `**kwargs` still is one (no
    finding)."""
    files = {
        "pkg/eva.py": "import torch.nn as nn\n\nclass Block(nn.Module):\n",
        "pkg/vit.py": "from torch import nn\n\nclass Block(nn.Module):\n",
        "pkg/mlp.py": "from torch.nn import Module\n\nclass Block(Module):\n",
        "pkg/child.py": (
            "class Base:\n"
            "    def __init__(self, dim, **kwargs):\n"
            "        self.extra = kwargs\n"
            "\n"
            "class Block(Base):\n"
        ),
    }
    init = (
        "    def __init__(self, dim: int, device=None):\n"
        "        super().__init__()\n"
        "        self.dim = dim\n"
    )
    feature.git("checkout", "-q", "main")
    for path, head in files.items():
        feature.write(path, head + init)
    feature.commit("old")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    for path, head in files.items():
        feature.write(path, head + init.replace("device=None):", "device=None, **kwargs):"))
    got = rows(run)
    assert sorted((p, line, sev) for p, line, sev, _m in got) == [
        ("pkg/eva.py", 4, "error"),
        ("pkg/mlp.py", 4, "error"),
        ("pkg/vit.py", 4, "error"),
    ]
    assert all("`__init__(**kwargs)` never reads or passes the dict on" in r[3] for r in got)


def test_a_torch_dataset_constructor_absorbs_no_keys_of_a_base(feature: Repo, run: Run) -> None:
    """bionemo 112ad15d simple_codon_dataset.py:61: the new `SimpleCodonDataset(Dataset)
    .__init__(..., **kwargs)` never reads the dict (labelled ✗). torch's `Dataset` and
    `IterableDataset` define no `__init__`, so they hand a subclass no keys to absorb,
    generic or not, torch installed or not. A base that cannot be found is still not
    known (no finding)."""
    heads = {
        "pkg/codon.py": "from torch.utils.data import Dataset\n\nclass Codons(Dataset):\n",
        "pkg/stream.py": (
            "import torch.utils.data as tud\n\nclass Stream(tud.IterableDataset[int]):\n"
        ),
        "pkg/other.py": "from elsewhere import Dataset\n\nclass Other(Dataset):\n",
    }
    init = "    def __init__(self, size: int = 10, **kwargs):\n        self.size = size\n"
    for path, head in heads.items():
        feature.write(path, head + init)
    got = rows(run)
    assert sorted((p, line, sev) for p, line, sev, _m in got) == [
        ("pkg/codon.py", 4, "error"),
        ("pkg/stream.py", 4, "error"),
    ]
    assert all("`__init__(**kwargs)` never reads or passes the dict on" in r[3] for r in got)


def test_a_placeholder_deleting_what_it_is_given_drops_nothing_by_accident(
    feature: Repo, run: Run
) -> None:
    """grain c06d4565 profiler.py:38: the no-op `TraceAnnotation` stand-in's
    `__init__(self, *args, **kwargs)` only runs `del args, kwargs` (labelled '-'): a
    placeholder taking anything in a class whose methods all do nothing, as one that
    never names them. orbax c8606033 gcp_storage_client.py:828: `LustreClient`, a
    working client, deletes both the same way (labelled ✗: a misspelt client option is
    lost). Forwarding `*args` while deleting `kwargs` still drops the keywords (✗).
    vllm-omni 0.20's `ResnetBlock(..., **_: object)` names the extra keys as ignored: ⚠,
    not ✗ (renaming the dict does not hide the drop)."""
    feature.write(
        "pkg/profiler.py",
        "class TraceAnnotation(object):\n"
        "    def __init__(self, *args, **kwargs):\n"
        "        del args, kwargs\n"
        "        pass\n"
        "\n"
        "    def __exit__(self, exc_type, exc_value, traceback):\n"
        "        del exc_type, exc_value, traceback\n"
        "\n"
        "class Span:\n"
        "    def __init__(self, *args, **kwargs):\n"
        "        del kwargs\n"
        "        super().__init__(*args)\n",
    )
    feature.write(
        "pkg/blocks.py",
        "class ResnetBlock:\n"
        "    def __init__(self, *, in_channels: int, **_: object) -> None:\n"
        "        self.in_channels = in_channels\n",
    )
    feature.write(
        "pkg/clients.py",
        "class LustreClient:\n"
        "    def __init__(self, *args, **kwargs):\n"
        "        del args, kwargs\n"
        "\n"
        "    def delete(self, path):\n"
        "        remove(path)\n",
    )
    feature.commit("new")
    got = rows(run)
    assert sorted((p, line, sev) for p, line, sev, _m in got) == [
        ("pkg/blocks.py", 2, "warning"),
        ("pkg/clients.py", 2, "error"),
        ("pkg/profiler.py", 10, "error"),
    ]
    assert any("names the keys it drops as ignored" in r[3] for r in got)


def test_a_base_is_found_through_a_renamed_import_or_its_module(feature: Repo, run: Run) -> None:
    """A base imported under another name (`from pkg.base import Base as B`) or named
    through its module (`import pkg.base as base`, `base.Base`) is read from that module
    like a plainly imported one: a base declaring no `__init__` leaves the new unused
    `**kwargs` the subclass's own (✗); one whose `__init__` takes `**kwargs` makes it the
    interface's catch-all (no finding)."""
    feature.write(
        "pkg/base.py",
        "class Base:\n"
        "    def run(self) -> None:\n"
        "        pass\n"
        "\n"
        "class Open:\n"
        "    def __init__(self, **kwargs):\n"
        "        self.options = kwargs\n",
    )
    init = "    def __init__(self, dim: int, **kwargs):\n        self.dim = dim\n"
    feature.write("pkg/renamed.py", "from pkg.base import Base as B\n\nclass Child(B):\n" + init)
    feature.write("pkg/dotted.py", "import pkg.base as base\n\nclass Child(base.Base):\n" + init)
    feature.write("pkg/open.py", "from pkg import base\n\nclass Child(base.Open):\n" + init)
    feature.commit("new")
    got = rows(run)
    assert sorted((p, line, sev) for p, line, sev, _m in got) == [
        ("pkg/dotted.py", 4, "error"),
        ("pkg/renamed.py", 4, "error"),
    ]
