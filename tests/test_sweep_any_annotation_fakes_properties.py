# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, test fakes and properties: a fake matched by two keywords of which one is
only a property of the class (a wrapper's delegating attribute), an untyped fake class of
the test file, and an old fake with a keyword added inside it."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_OUTPUTS = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass OmniRequestOutput:\n"
    "    request_id: str = ''\n    finished: bool = True\n    images: list[int] | None = None\n\n"
    "    @property\n    def prompt_token_ids(self) -> list[int] | None:\n        return None\n"
)


def test_a_property_of_the_class_is_no_field_and_a_test_class_no_real_class(
    feature: Repo, run: Run
) -> None:
    """vllm-omni test_orchestrator.py:670: ``SimpleNamespace(request_id=...,
    prompt_token_ids=...)`` is an engine request; ``OmniRequestOutput`` has
    ``prompt_token_ids`` only as a property: ⚠, not ✗ naming it (its fields
    ``request_id``/``finished`` still name it). test_image_server.py:599: the keywords of
    an untyped fake class of the same test (``FakeAsyncOmni``) name no real class; a
    ``@dataclass`` of the test does."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/outputs.py", _OUTPUTS)
    feature.write(
        "tests/test_orch.py",
        "from dataclasses import dataclass\n"
        "from types import SimpleNamespace\n\n"
        "from pkg.outputs import OmniRequestOutput\n\n\n"
        "class FakeAsyncOmni:\n"  # 7
        "    def __init__(self):\n        self.engine = None\n        self.stage_list = []\n\n\n"
        "@dataclass\nclass Point:\n    x: int\n    y: int\n\n\n"  # 13-16
        "def test_run():\n"  # 19
        "    request = SimpleNamespace(request_id='r', prompt_token_ids=[1])\n"  # 20: ⚠
        "    out = SimpleNamespace(request_id='r', finished=True)\n"  # 21: ✗
        "    omni = SimpleNamespace(engine=None, stage_list=[])\n"  # 22: ⚠
        "    point = SimpleNamespace(x=1, y=2)\n"  # 23: ✗ Point
        "    assert request and out and omni and point and OmniRequestOutput\n",
    )
    feature.commit("tests")
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (20, "warning"),
        (21, "error"),
        (22, "warning"),
        (23, "error"),
    ]
    assert "`OmniRequestOutput`" in rows[1][3]
    assert "`Point`" in rows[3][3]


def test_a_keyword_added_inside_an_old_fake_does_not_make_it_new(feature: Repo, run: Run) -> None:
    """vLLM test_ple.py:1993: the change only added ``checkpoint=None`` inside an old
    ``SimpleNamespace(`` call: no finding; a fake whose ``SimpleNamespace(`` line is
    added is reported."""
    feature.git("checkout", "-q", "main")
    feature.write(
        "tests/test_ple.py",
        "from types import SimpleNamespace\n\n\n"
        "def test_ple():\n"
        "    cfg = SimpleNamespace(\n"
        "        hidden=1,\n"
        "    )\n"
        "    assert cfg\n",
    )
    feature.commit("old fake")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    feature.write(
        "tests/test_ple.py",
        "from types import SimpleNamespace\n\n\n"
        "def test_ple():\n"
        "    cfg = SimpleNamespace(\n"
        "        hidden=1,\n"
        "        checkpoint=None,\n"
        "    )\n"
        "    other = SimpleNamespace(a=1)\n"
        "    assert cfg and other\n",
    )
    feature.commit("keyword")
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(9, "warning")]


_CONFIG = (
    "from dataclasses import dataclass, field\n\n\n"
    "@dataclass\nclass ParallelConfig:\n    tp: int = 1\n    pp: int = 1\n\n\n"
    "@dataclass\nclass ModelConfig:\n    model: str = ''\n    dtype: str = 'auto'\n\n\n"
    "@dataclass\nclass VllmConfig:\n"
    "    model_config: ModelConfig = field(default_factory=ModelConfig)\n"
    "    parallel_config: ParallelConfig = field(default_factory=ParallelConfig)\n\n\n"
    "class Drafter:\n"
    "    def warmup(self, target_model_config: ModelConfig) -> None:\n"
    "        pass\n"
)


def test_an_empty_fake_bound_to_a_typed_slot_is_a_fake_of_that_class(
    feature: Repo, run: Run
) -> None:
    """vllm-gaudi test_platform.py:216 ``parallel_config=SimpleNamespace()`` inside a
    ``VllmConfig`` fake, lmdeploy test_spec_agent.py:460 ``warmup(target_model_config=
    SimpleNamespace())``: the typed slot is the evidence (✗ naming the class); an empty
    fake bound to a name only (``config = SimpleNamespace()``, no annotation) stays ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/config.py", _CONFIG)
    feature.write(
        "tests/test_platform.py",
        "from types import SimpleNamespace\n\n"
        "from pkg.config import Drafter, VllmConfig\n\n\n"
        "def test_platform():\n"  # 6
        "    vllm_config = SimpleNamespace(\n"  # 7: ✗ VllmConfig
        "        model_config=SimpleNamespace(model='m', dtype='x'),\n"  # 8: ✗ ModelConfig
        "        parallel_config=SimpleNamespace(),\n"  # 9: ✗ ParallelConfig
        "    )\n"
        "    Drafter().warmup(target_model_config=SimpleNamespace())\n"  # 11: ✗ ModelConfig
        "    model_config = SimpleNamespace()\n"  # 12: ⚠ a name only
        "    assert vllm_config and model_config and VllmConfig\n",
    )
    feature.commit("tests")
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (7, "error"),
        (8, "error"),
        (9, "error"),
        (11, "error"),
        (12, "warning"),
    ]
    assert "`ParallelConfig`" in rows[2][3]
    assert "`ModelConfig`" in rows[3][3]


_STATE = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass SchedulerSequence:\n    seq_id: int = 0\n    logical_state: int = -1\n\n\n"
    "class StateManager:\n"
    "    def allocate(self, seq: SchedulerSequence) -> None:\n"
    "        seq.logical_state = 1\n\n\n"
    "def build_state_manager() -> StateManager:\n    return StateManager()\n"
)


def test_a_fake_passed_positionally_is_the_parameter_it_is_passed_to(
    feature: Repo, run: Run
) -> None:
    """lmdeploy d9b2613 test_state_manager.py:51: ``state_manager.allocate(
    SimpleNamespace(logical_state=-1))`` passes the fake as ``allocate``'s ``seq:
    SchedulerSequence``: ✗ naming it (not only when bound to a local named ``seq``), as
    is each fake of a list a ``for seq in seqs:`` loop passes (test_state_manager.py:41);
    a fake passed to a parameter of no known annotation stays ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/state.py", _STATE)
    feature.write(
        "tests/test_state.py",
        "from types import SimpleNamespace\n\n"
        "from pkg.state import build_state_manager\n\n\n"
        "def test_allocate():\n"  # 6
        "    manager = build_state_manager()\n"
        "    manager.allocate(SimpleNamespace(logical_state=-1))\n"  # 8: ✗
        "    print(SimpleNamespace(logical_state=-1))\n"  # 9: ⚠
        "    seqs = [SimpleNamespace(logical_state=-1) for _ in range(3)]\n"  # 10: ✗
        "    for seq in seqs:\n"
        "        manager.allocate(seq)\n",
    )
    feature.commit("tests")
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(8, "error"), (9, "warning"), (10, "error")]
    assert "`SchedulerSequence`" in rows[0][3] and "parameter `seq` of `allocate`" in rows[0][3]


_SCHED = (
    "from __future__ import annotations\n\n"
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass DiffusionRequestState:\n    sched_req_id: str\n    req: object\n"
    "    status: int = 0\n\n\n"
    "@dataclass\nclass NewRequestData:\n    sched_req_id: str\n    req: object\n\n"
    "    @classmethod\n"
    "    def from_state(cls, state: DiffusionRequestState) -> NewRequestData:\n"
    "        return cls(sched_req_id=state.sched_req_id, req=state.req)\n\n\n"
    "@dataclass\nclass SparseMetadata:\n    block_table: list[int]\n    num_decode_tokens: int\n\n\n"
    "@dataclass\nclass OtherSparseMetadata:\n    block_table: list[int]\n"
    "    num_decode_tokens: int\n    req_id_per_token: list[int]\n    extra: int = 0\n\n\n"
    "def other(metadata: OtherSparseMetadata) -> None:\n    pass\n\n\n"
    "class Impl:\n"
    "    def forward(self, q: int, attn_metadata: SparseMetadata) -> None:\n        pass\n"
)


def test_the_parameter_a_fake_reaches_wins_over_a_name_or_keyword_match(
    feature: Repo, run: Run
) -> None:
    """vllm-omni test_diffusion_scheduler.py:103: ``self._state = SimpleNamespace(
    sched_req_id=..., req=...)`` later goes to ``NewRequestData.from_state(state:
    DiffusionRequestState)`` (a classmethod called on the class): ✗ naming
    ``DiffusionRequestState``, not ``NewRequestData`` whose fields it shares. vLLM
    test_sparse_mla_backends.py:1423: ``metadata`` (annotated ``OtherSparseMetadata``
    elsewhere) is passed to ``Impl.forward(impl, q, metadata)``'s ``attn_metadata:
    SparseMetadata``: ✗ naming that, not the name's class. An empty fake held by a fake of no known class stays ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/sched.py", _SCHED)
    feature.write(
        "tests/test_sched.py",
        "from types import SimpleNamespace\n\n"
        "from pkg.sched import Impl, NewRequestData, other\n\n\n"
        "class StubScheduler:\n"  # 6
        "    def add_request(self, request):\n"
        "        self._state = SimpleNamespace(sched_req_id='a', req=request)\n"  # 8: ✗
        "\n"
        "    def schedule(self):\n"
        "        return NewRequestData.from_state(self._state)\n\n\n"
        "def test_forward():\n"  # 14
        "    metadata = SimpleNamespace(\n"  # 15: ✗ SparseMetadata (the parameter)
        "        req_id_per_token=[0], block_table=[0], num_decode_tokens=2\n"
        "    )\n"
        "    Impl.forward(Impl(), 1, metadata)\n"
        "    runner = SimpleNamespace(worker=1, sparse_metadata=SimpleNamespace())\n"  # 19: ⚠ ⚠
        "    assert other and runner\n",
    )
    feature.commit("tests")
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (8, "error"),
        (15, "error"),
        (19, "warning"),
        (19, "warning"),
    ]
    assert "`DiffusionRequestState`" in rows[0][3] and "parameter `state`" in rows[0][3]
    assert "`SparseMetadata`" in rows[1][3] and "parameter `attn_metadata`" in rows[1][3]


def test_a_relative_import_and_a_type_checking_string_annotation(feature: Repo, run: Run) -> None:
    """xinference test_diffusers_video.py:34: the test imports the code under test
    relatively (``from ..diffusers import DiffusersVideoModel``) and passes the fake as
    ``model_spec: "VideoModelFamilyV2"``, imported under ``if TYPE_CHECKING:``: ✗."""
    feature.write("xinf/__init__.py", "")
    feature.write("xinf/video/__init__.py", "")
    feature.write("xinf/video/tests/__init__.py", "")
    feature.write(
        "xinf/video/core.py",
        "from pydantic import BaseModel\n\n\n"
        "class VideoModelFamilyV2(BaseModel):\n"
        "    model_ability: list[str]\n    default_generate_config: dict[str, int]\n",
    )
    feature.write(
        "xinf/video/diffusers.py",
        "from typing import TYPE_CHECKING\n\n"
        "if TYPE_CHECKING:\n    from .core import VideoModelFamilyV2\n\n\n"
        "class DiffusersVideoModel:\n"
        '    def __init__(self, uid: str, path: str, model_spec: "VideoModelFamilyV2"):\n'
        "        self.spec = model_spec\n",
    )
    feature.write(
        "xinf/video/tests/test_video.py",
        "from types import SimpleNamespace\n\n"
        "from ..diffusers import DiffusersVideoModel\n\n\n"
        "def test_seed():\n"
        "    model = DiffusersVideoModel(\n"
        "        'mock', '/tmp/mock', SimpleNamespace(model_ability=[], default_generate_config={})\n"
        "    )\n"
        "    assert model\n",
    )
    feature.commit("tests")
    rows = [r for r in found(run, "any-annotation") if "/tests/" in r[0]]
    assert [(r[1], r[2]) for r in rows] == [(8, "error")]
    assert "`VideoModelFamilyV2`" in rows[0][3] and "parameter `model_spec`" in rows[0][3]


def test_a_private_record_the_code_annotates(feature: Repo, run: Run) -> None:
    """lmdeploy 19a085c test_model_agent.py:279: ``transfer = SimpleNamespace(
    event=object())`` stands in for ``transfer: _H2DTransfer | None``, a private
    ``@dataclass`` of the module the test imports: ✗ naming it."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/agent.py",
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass _H2DTransfer:\n    event: object\n    refs: list[int]\n\n\n"
        "def keep(transfer: _H2DTransfer | None) -> None:\n    pass\n",
    )
    feature.write(
        "tests/test_agent.py",
        "from types import SimpleNamespace\n\n\n"
        "def test_h2d():\n"
        "    from pkg import agent as agent_module\n\n"
        "    transfer = SimpleNamespace(event=object())\n"
        "    assert agent_module and transfer\n",
    )
    feature.commit("tests")
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "error")]
    assert "`_H2DTransfer`" in rows[0][3]


def test_an_attribute_a_base_class_of_the_code_types(feature: Repo, run: Run) -> None:
    """vllm-gaudi test_moe_gate_sync.py:17: ``self.moe_config = SimpleNamespace()`` in
    a test class derived from ``MoERunner``, whose module annotates ``moe_config:
    FusedMoEConfig`` (the test imports ``MoERunner`` through two re-exports): ✗."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/moe/runner.py",
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass FusedMoEConfig:\n    num_experts: int\n    top_k: int\n\n\n"
        "class MoERunner:\n"
        "    def __init__(self, moe_config: FusedMoEConfig):\n"
        "        self.moe_config = moe_config\n",
    )
    feature.write("pkg/moe/__init__.py", "from pkg.moe.runner import MoERunner\n")
    feature.write("pkg/layer.py", "from pkg.moe import MoERunner\n")
    # the package's config module names a class like it: a name match, no evidence for
    # an empty fake (the base class's annotation is)
    feature.write("pkg/config.py", "from pkg.moe.runner import FusedMoEConfig\n")
    feature.write(
        "tests/test_gate.py",
        "from types import SimpleNamespace\n\n"
        "from pkg.layer import MoERunner\n\n\n"
        "class _Bare(MoERunner):\n"
        "    def __init__(self):\n"
        "        self.moe_config = SimpleNamespace()\n"  # 8: ✗
        "        self.gate = SimpleNamespace()\n",  # 9: ⚠ (not annotated)
    )
    feature.commit("tests")
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(8, "error"), (9, "warning")]
    # the re-exports lead to the annotation in runner.py (the base class's attribute, or
    # the module it comes from: the same line)
    assert "`FusedMoEConfig`" in rows[0][3] and "pkg/moe/runner.py" in rows[0][3]
