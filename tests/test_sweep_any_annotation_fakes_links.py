# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, test fakes linked to their class by the name that holds them and the
slot they fill: two fields of one record class count when the name the fake is bound to
(a helper's ``_make_vllm_config`` too) names that class, and a ``cast(Any, fake)`` hides
no slot: the keyword it fills is what the fake stands in for."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_DATA_LOADER = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass VLLMConfig:\n"
    "    vllm_num_engines: int = 1\n    vllm_tensor_parallel_size: int = 1\n"
    "    vllm_gpu_memory_utilization: float = 0.9\n\n\n"
    "@dataclass\nclass Sampling:\n    temperature: float = 1.0\n    request_id: str = ''\n"
)
_WORKER = (
    "from pydantic import BaseModel\n\n\n"
    "class WorkerConfig(BaseModel):\n"
    "    model_cfg: object\n    update_weight_bucket_size_in_gb: float = 0.5\n"
    "    seed: int = 0\n\n\n"
    "class TrainConfig(BaseModel):\n    model_cfg: object\n    seed: int = 0\n\n\n"
    "class RequestOutput(BaseModel):\n    request_id: str\n    finished: bool = True\n"
)
_STATS = "from dataclasses import dataclass\n\n\n@dataclass\nclass Stats:\n    finished: int = 0\n"
_ITERATOR = (
    "from typing import Any\n\n\n"
    "class WeightIterator:\n"
    "    def __init__(self, *, config: Any, engine: Any) -> None:\n"
    "        self.config = config\n        self.engine = engine\n\n\n"
    "def plan(num_engines: int, tp: int) -> int:\n    return num_engines * tp\n"
)


def _tree(feature: Repo) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/data_loader.py", _DATA_LOADER)
    feature.write("pkg/trainer/__init__.py", "")
    feature.write("pkg/trainer/worker.py", _WORKER)
    feature.write("pkg/weights.py", _ITERATOR)
    feature.write("pkg/stats.py", _STATS)


def test_two_fields_of_the_one_class_the_name_names(feature: Repo, run: Run) -> None:
    """open-instruct: ``_make_vllm_config`` returns a fake with two fields of the
    dataclass ``VLLMConfig``, in a module the test never imports; the helper's name
    names it: ✗. xtuner: ``WeightIterator(config=fake)`` fills a keyword-only
    ``config: Any`` (``def __init__(self, *, config)``), the fake's two keywords are
    fields of ``WorkerConfig`` only, one of them declared by no other module, and
    ``config`` is the last word of its name: ✗. Two fields under a name that names no
    class (``sampling``, ``two``, ``engine``), of two classes, one keyword, or a name
    ending the class's with no field only it declares (``output``: vllm-omni's
    ``request_id`` and ``finished``, the fields of many records), stay ⚠."""
    _tree(feature)
    feature.write(
        "tests/test_plan.py",
        "from types import SimpleNamespace\n\n"
        "from pkg import weights\n\n\n"
        "class TestPlan:\n"  # 6
        "    def _make_vllm_config(self, *, engines, tp):\n"
        "        return SimpleNamespace(vllm_num_engines=engines, vllm_tensor_parallel_size=tp)\n"
        "\n"
        "    def test_plan(self):\n"  # 10
        "        vllm_config = self._make_vllm_config(engines=2, tp=1)\n"
        "        weights.plan(vllm_config.vllm_num_engines, vllm_config.vllm_tensor_parallel_size)\n"
        "        two = SimpleNamespace(vllm_num_engines=2, vllm_tensor_parallel_size=1)\n"  # 13: ⚠
        "        weights.plan(two.vllm_num_engines, two.vllm_tensor_parallel_size)\n"
        "        sampling = SimpleNamespace(vllm_num_engines=2, vllm_tensor_parallel_size=1)\n"  # 15
        "        weights.plan(sampling.vllm_num_engines, 1)\n"
        "        vllm_config = SimpleNamespace(vllm_num_engines=2)\n"  # 17: ⚠ one keyword
        "\n\n"
        "def test_iterator():\n"  # 20
        "    weights.WeightIterator(\n"
        "        config=SimpleNamespace(update_weight_bucket_size_in_gb=1, model_cfg=None),\n"  # 22
        "        engine=SimpleNamespace(update_weight_bucket_size_in_gb=1, model_cfg=None),\n"  # 23
        "    )\n"
        "    weights.WeightIterator(\n"
        "        config=SimpleNamespace(seed=1, model_cfg=None),\n"  # 26: ⚠ two classes
        "        engine=None,\n    )\n"
        "    output = SimpleNamespace(request_id='r', finished=True)\n"  # 29: ⚠ common fields
        "    weights.WeightIterator(config=output, engine=None)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (8, "error"),
        (13, "warning"),
        (15, "warning"),
        (17, "warning"),
        (22, "error"),
        (23, "warning"),
        (26, "warning"),
        (29, "warning"),
    ]
    assert "stands in for `VLLMConfig` (pkg/data_loader.py;" in rows[0][3]
    assert "named by `vllm_config`" in rows[0][3]
    assert "stands in for `WorkerConfig` (pkg/trainer/worker.py;" in rows[4][3]
    assert "named by `config`" in rows[4][3]


def test_a_fake_cast_to_any_fills_the_slot_it_is_passed_to(feature: Repo, run: Run) -> None:
    """xtuner: ``RolloutWeightUpdateInfo(rollout_config=cast(Any, fake))``: the
    cast silences the checker, not the slot: the fake stands in for the
    ``rollout_config: RolloutConfig`` field: ✗. A ``cast(Any, fake)`` bound to a name
    that names nothing stays ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/data.py",
        "from pydantic import BaseModel\n\n\n"
        "class RolloutConfig(BaseModel):\n"
        "    expert_parallel_size: int = 1\n    tensor_parallel_size: int = 1\n\n\n"
        "class RolloutWeightUpdateInfo(BaseModel):\n"
        "    rollout_config: RolloutConfig\n    train_rank: int = 0\n",
    )
    feature.write(
        "tests/test_data.py",
        "from types import SimpleNamespace\nfrom typing import Any, cast\n\n"
        "from pkg.data import RolloutWeightUpdateInfo\n\n\n"
        "def test_info():\n"  # 7
        "    RolloutWeightUpdateInfo(\n"
        "        rollout_config=cast(Any, SimpleNamespace(expert_parallel_size=2)),\n"  # 9
        "        train_rank=0,\n    )\n"
        "    thing = cast(Any, SimpleNamespace(speed=2))\n"  # 12: ⚠
        "    print(thing)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(9, "error"), (12, "warning")]
    assert "stands in for `RolloutConfig` (pkg/data.py;" in rows[0][3]
