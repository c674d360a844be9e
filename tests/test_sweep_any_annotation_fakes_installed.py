# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for test fakes of installed classes: a ``SimpleNamespace`` fake passed to
a parameter annotated with a class of an installed package names that class (and a
nested fake is the field's type); a fake that replaces an attribute, is named like a
config class, is bound to a class name, is returned by a helper or sits in a list of
annotated elements is found too."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Repo
from tests.sweep_fixture import Run, found, messages, rows


def test_fake_passed_to_an_annotated_parameter_names_the_installed_class(
    feature: Repo, run: Run, site: Path
) -> None:
    """vllm-ascend: `build(engine_config=SimpleNamespace(...))` where the code under test
    annotates `engine_config: EngineConfig` of an installed package: ✗ naming the class,
    and the nested `cache_config=` fake is the field `EngineConfig.cache_config`."""
    feature.write(
        "pkg/runner.py",
        "from enginelib.config import EngineConfig\n\n\n"
        "def build(engine_config: EngineConfig) -> int:\n    return 1\n",
    )
    feature.write(
        "tests/test_runner.py",
        "from types import SimpleNamespace\n\nfrom pkg.runner import build\n\n\n"
        "def test_build() -> None:\n"
        "    build(\n"
        "        engine_config=SimpleNamespace(\n"  # 8
        "            cache_config=SimpleNamespace(block_size=1),\n"  # 9
        "            model='m',\n"
        "        )\n"
        "    )\n",
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(8, "error"), (9, "error")]
    assert "stands in for `EngineConfig` (enginelib/config/engine.py;" in rows[0][3]
    assert "`engine_config: EngineConfig` in pkg/runner.py" in rows[0][3]
    assert "build `EngineConfig(...)` or a typed fake" in rows[0][3]
    assert "stands in for `CacheConfig` (enginelib/config/cache.py;" in rows[1][3]


def test_fake_replacing_an_attribute_or_named_like_a_config_class(
    feature: Repo, run: Run, site: Path
) -> None:
    """`monkeypatch.setattr(obj, "scheduler_config", SimpleNamespace(...))` and
    `worker.cache_config = SimpleNamespace(...)`: no annotation in reach, but the name is
    the package's config class (`enginelib.config` re-exports it)."""
    feature.write(
        "pkg/worker.py",
        "from enginelib.layers import Linear\n\n\nclass Worker:\n"
        "    def __init__(self) -> None:\n        self.layer = Linear(1)\n",
    )
    feature.write(
        "tests/test_worker.py",
        "from types import SimpleNamespace\n\nfrom pkg.worker import Worker\n\n\n"
        "def test_w(monkeypatch) -> None:\n"
        "    w = Worker()\n"
        "    monkeypatch.setattr(w, 'scheduler_config', SimpleNamespace(max_num_seqs=2))\n"  # 8
        "    w.cache_config = SimpleNamespace(block_size=4, num_blocks=2)\n"  # 9
        "    w.layer = SimpleNamespace(weight=3)\n"  # 10: a plain layer class: ⚠
        "    w.spec = SimpleNamespace(foo=1, bar=2)\n"  # 11: nothing known: ⚠
        "    w.cache_config = SimpleNamespace(rank=0, world=2)\n",  # 12: not its fields
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [
        (8, "error"),
        (9, "error"),
        (10, "warning"),
        (11, "warning"),
        (12, "warning"),
    ]
    assert "`SchedulerConfig` (enginelib/config/scheduler.py;" in rows[0][3]
    assert "the name `scheduler_config`" in rows[0][3]
    assert "`CacheConfig`" in rows[1][3]


def test_a_fake_bound_to_a_class_name_stands_in_for_the_class_not_an_instance(
    feature: Repo, run: Run, site: Path
) -> None:
    """`monkeypatch.setattr(mod, "SchedulerConfig", SimpleNamespace(...))` replaces the
    class itself (a CamelCase binding holds a class): "build `SchedulerConfig(...)`" would
    not do what the test does, so the name is no evidence of an instance (⚠)."""
    feature.write("pkg/worker.py", "from enginelib.layers import Linear\n\nLAYER = Linear\n")
    feature.write(
        "tests/test_worker.py",
        "from types import SimpleNamespace\n\nfrom pkg import worker\n\n\n"
        "def test_w(monkeypatch) -> None:\n"
        "    monkeypatch.setattr(worker, 'SchedulerConfig', SimpleNamespace(max_num_seqs=2))\n"
        "    worker.scheduler_config = SimpleNamespace(max_num_seqs=2)\n",
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(7, "warning"), (8, "error")]


def test_fake_returned_by_a_helper_or_in_a_list_of_annotated_elements(
    feature: Repo, run: Run, site: Path
) -> None:
    """`def make_engine_config(): return SimpleNamespace(...)` and a fake in a list bound
    to `groups: list[CacheConfig]`."""
    feature.write(
        "pkg/pool.py",
        "from enginelib.config import CacheConfig\n\n\n"
        "def pool(groups: list[CacheConfig]) -> int:\n    return len(groups)\n",
    )
    feature.write(
        "tests/test_pool.py",
        "from types import SimpleNamespace\n\nfrom pkg.pool import pool\n\n\n"
        "def make_engine_config():\n"
        "    return SimpleNamespace(model='m', cache_config=None)\n"  # 7
        "\n\n"
        "def test_pool() -> None:\n"
        "    pool(groups=[SimpleNamespace(block_size=2)])\n",  # 11
    )
    rows = found(run, "any-annotation")
    fakes = [(r[1], r[2]) for r in rows if "SimpleNamespace" in r[3]]
    assert fakes == [(7, "error"), (11, "error")]
    assert "`EngineConfig`" in rows[-2][3] or "`EngineConfig`" in rows[0][3]


def test_private_nested_and_zero_argument_functions(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/m.py",
        "from typing import Any\n\n\n"
        "def _helper(a, b):\n"  # 4: ⚠ fully unannotated
        "    def inner(x):\n"  # 5: ⚠ nested
        "        return x\n"
        "    return inner(a) + b\n"
        "\n\n"
        "class C:\n"
        "    def close(self):\n"  # 11: add -> None
        "        self.x = 1\n"
        "\n"
        "    def size(self):\n"  # 14: add its return type
        "        return 3\n"
        "\n"
        "    def call(self, **kwargs: Any) -> None:\n"  # 17
        "        del kwargs\n",
    )
    rows = found(run, "any-annotation")
    by_line = {r[1]: r[3] for r in rows}
    assert sorted(by_line) == [4, 5, 11, 14]  # 17: `**kwargs: Any` is a pass-through
    assert by_line[4] == "function `_helper` has a fully unannotated signature"
    assert by_line[5] == "function `inner` has a fully unannotated signature"
    assert "`close` takes no arguments but has no return annotation: add `-> None`" == by_line[11]
    assert by_line[14].endswith("add its return type")


def test_a_module_level_parameter_named_self_is_an_argument(feature: Repo, run: Run) -> None:
    """Only a method's first parameter is its receiver: ``def run_prolog(self)`` at module
    level takes an argument, so it is a fully unannotated signature, not a zero-argument
    function (modelopt's ``fakequant_run_prolog(self)``, assigned onto a worker class)."""
    feature.write(
        "pkg/m.py",
        "def run_prolog(self):\n"  # 1: an argument named self
        "    self.ready = True\n"
        "\n\n"
        "class C:\n"
        "    @staticmethod\n"
        "    def make(cls):\n"  # 7: a static method's parameter is an argument too
        "        return cls\n"
        "\n"
        "    def close(self, *, cls):\n"  # 10: a keyword-only `cls` is an argument
        "        del cls\n",
    )
    by_line = {r[1]: r[3] for r in found(run, "any-annotation")}
    assert by_line[1] == "function `run_prolog` has a fully unannotated signature"
    assert by_line[10] == "function `close` has a fully unannotated signature"
    assert 7 in by_line


def test_old_init_with_a_new_parameter_below_is_not_reported(feature: Repo, run: Run) -> None:
    feature.git("checkout", "-q", "main")
    feature.write(
        "pkg/q.py", "class Q:\n    def __init__(\n        self,\n        a,\n    ):\n        pass\n"
    )
    feature.commit("old")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write(
        "pkg/q.py",
        "class Q:\n    def __init__(\n        self,\n        a,\n        b,\n    ):\n        pass\n"
        "\n    def new(self, x):\n        return x\n",
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[3]) for r in rows] == [(9, "function `new` has a fully unannotated signature")]


def test_simple_namespace_is_blocking_only_when_it_mimics_a_real_class(
    feature: Repo, run: Run
) -> None:
    feature.write(
        "pkg/cfg.py",
        "class ModelConfig:\n    def __init__(self):\n"
        "        self.hidden_size = 1\n        self.dtype = 'f'\n",
    )
    feature.write(
        "tests/test_x.py",
        "from types import SimpleNamespace\nfrom pkg.cfg import ModelConfig\n\n"
        "A = SimpleNamespace(hidden_size=2, dtype='h')\n"
        "B = SimpleNamespace(anything=1, other=2)\n"
        "C = ModelConfig\n",
    )
    found = [(r[1], r[3]) for r in rows(run, rule="any-annotation") if r[0] == "tests/test_x.py"]
    assert found == [(4, "error"), (5, "warning")]
    assert any(
        "stands in for `ModelConfig` (pkg/cfg.py;" in m
        for m in messages(run, rule="any-annotation")
    )
