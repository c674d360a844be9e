# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Issue 22: ✗ where the seed says ✗, on code nobody tuned for. One test (or more) per
item, each in the shape the issue found it in real commits."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

# -- 1. SimpleNamespace fakes of real typed classes -------------------------------------


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
    assert "build a `EngineConfig` or a typed fake" in rows[0][3]
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
    class itself (a CamelCase binding holds a class): "build a `SchedulerConfig`" would
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


# -- 2. hot-copy in loops ---------------------------------------------------------------


def test_clone_in_any_loop_and_in_step_loops_of_every_shape(feature: Repo, run: Run) -> None:
    """A clone in a plain loop of an ordinary function is ⚠ (the page's "inside a
    loop"); per-iteration clones in step loops - `while step < num_steps`, a
    comprehension over timesteps, the seed's own `for t in timesteps` - are ✗."""
    feature.write(
        "pkg/gen.py",
        "def collect(xs, out):\n"
        "    for x in xs:\n"
        "        out.append(x.clone())\n"  # 3: ⚠ (a loop)
        "\n\n"
        "def run_ar(x, num_steps):\n"
        "    step = 0\n"
        "    traj = []\n"
        "    while step < num_steps:\n"
        "        traj.append(x.clone())\n"  # 10: ✗
        "        step += 1\n"
        "    return traj\n"
        "\n\n"
        "def trajectory(x_t, timesteps):\n"
        "    return [x_t.clone() for t in timesteps]\n"  # 16: ✗
        "\n\n"
        "def image(x_t, timesteps):\n"
        "    trajectory_latents = []\n"
        "    for t in timesteps:\n"
        "        trajectory_latents.append(x_t.clone())\n"  # 22: ✗
        "    return trajectory_latents\n",
    )
    rows = found(run, "hot-copy")
    assert [(r[1], r[2]) for r in rows] == [
        (3, "warning"),
        (10, "error"),
        (16, "error"),
        (22, "error"),
    ]
    assert "inside a loop" in rows[0][3]


# -- 3. broad-except that logs and carries on, on an init path -------------------------


def test_logged_and_carried_on_on_an_init_path_is_blocking(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/dev.py",
        "import logging\n\nlogger = logging.getLogger(__name__)\n\n\n"
        "class Runner:\n"
        "    def init_device(self) -> None:\n"
        "        try:\n"
        "            self.device = open_device()\n"
        "        except Exception as e:\n"  # 10: ✗
        '            logger.warning("Device setup failed: %s", e)\n'
        "            self.device = None\n"
        "\n"
        "    def record_metrics(self) -> None:\n"
        "        try:\n"
        "            push()\n"
        "        except Exception as e:\n"  # 17: best-effort, not ✗ (not reported)
        '            logger.warning("metrics failed: %s", e)\n'
        "\n"
        "    def close(self) -> None:\n"
        "        try:\n"
        "            self.device.close()\n"
        "        except Exception as e:\n"  # 23: cleanup is best effort
        '            logger.warning("close failed: %s", e)\n',
    )
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(10, "error")]
    assert "fail-fast path `init_device` logs every error and carries on" in rows[0][3]


# -- 4. kwargs-lookup: common parameter names -------------------------------------------


def test_key_that_the_file_declares_as_a_typed_parameter_is_a_warning(
    feature: Repo, run: Run
) -> None:
    feature.write(
        "pkg/a.py",
        "def build(**kwargs):\n    return kwargs.get('vllm_config'), kwargs.get('hidden')\n",
    )
    feature.write(
        "pkg/b.py",
        "class W:\n"
        "    def __init__(self, vllm_config: object, token: str) -> None:\n"
        "        self.c = vllm_config\n\n\n"
        "def make(**kwargs):\n"
        "    return kwargs.get('vllm_config'), kwargs.get('hidden')\n",  # 7
    )
    rows = [r for r in found(run, "kwargs-lookup") if r[0] == "pkg/b.py"]
    by_key = {("vllm_config" if "vllm_config" in r[3].split("`")[1] else "hidden"): r for r in rows}
    assert by_key["vllm_config"][2] == "warning"
    assert "typed parameter of `__init__` (line 2)" in by_key["vllm_config"][3]
    assert by_key["hidden"][2] == "error"  # a string protocol of both files


# -- 5. any-annotation: private, nested, zero-argument, **kwargs: Any -------------------


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


# -- 6. diff scope: an old def with a parameter added below it --------------------------


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
