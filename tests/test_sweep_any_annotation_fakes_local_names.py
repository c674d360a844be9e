# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, test fakes bound to local names: a fake bound to a name that names no
class stands in for the parameter the test passes it to (``builder.build(0,
common_metadata)`` -> ``build``'s ``common_attn_metadata: CommonAttentionMetadata``) or
for the attribute a ``monkeypatch.setattr(mod, "get_forward_context", lambda: fake)``
replaces."""

from __future__ import annotations

import keyword
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytool.rules import _fakes as fakes
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_CODE = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass CommonAttentionMetadata:\n"
    "    slot_mapping: list[int]\n    num_reqs: int = 0\n\n\n"
    "@dataclass\nclass ForwardContext:\n    num_tokens: int = 0\n\n\n"
    "def get_forward_context() -> ForwardContext:\n    return ForwardContext()\n\n\n"
    "class Builder:\n"
    "    def build(\n        self,\n        prefix: int,\n"
    "        common_attn_metadata: CommonAttentionMetadata,\n    ) -> int:\n"
    "        return prefix + common_attn_metadata.num_reqs\n"
)


def test_a_fake_passed_to_a_parameter_or_patched_over_a_getter(feature: Repo, run: Run) -> None:
    """vllm-ascend (held-out): ``common_metadata = SimpleNamespace(slot_mapping=...)``
    passed to ``builder.build(0, common_metadata)``, and a forward context patched in
    through ``lambda: context``, are ✗ naming the class; the same fake passed to a
    parameter with no class, or to a function the imports do not define, stays ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/attn.py", _CODE)
    feature.write(
        "tests/test_attn.py",
        "from types import SimpleNamespace\n\nimport pkg.attn as attn\n"
        "from pkg.attn import Builder\n\n\n"
        "def test_build():\n"  # 7
        "    builder = Builder()\n"
        "    common_metadata = SimpleNamespace(slot_mapping=[1])\n"  # 9: ✗
        "    builder.build(0, common_metadata)\n"
        "    thing = SimpleNamespace(slot_mapping=[1])\n"  # 11: the `prefix` parameter: ⚠
        "    builder.build(thing, 0)\n"
        "    other = SimpleNamespace(slot_mapping=[1])\n"  # 13: print's: ⚠
        "    print(other)\n"
        "    receiver = SimpleNamespace(slot_mapping=[1])\n"  # 15: `self` of an unbound call: ⚠
        "    Builder.build(receiver, 0, None)\n"
        "    meta = SimpleNamespace(slot_mapping=[1])\n"  # 17: ✗, the unbound call's 2nd parameter
        "    Builder.build(receiver, 0, meta)\n\n\n"
        "def test_context(monkeypatch):\n"
        "    context = SimpleNamespace(num_tokens=3)\n"  # 22: ✗
        '    monkeypatch.setattr(attn, "get_forward_context", lambda: context)\n',
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (9, "error"),
        (11, "warning"),
        (13, "warning"),
        (15, "warning"),
        (17, "error"),
        (22, "error"),
    ]
    assert "stands in for `CommonAttentionMetadata`" in rows[0][3]
    assert "`common_attn_metadata` of `build`" in rows[0][3]
    assert "stands in for `ForwardContext`" in rows[5][3]


_NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n) and n not in ("self", "cls")
)


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(_NAMES, min_size=1, max_size=6, unique=True),
    method=st.booleans(),
    index=st.integers(min_value=0, max_value=7),
)
def test_parameter_names_read_from_text_match_the_signature(
    names: list[str], method: bool, index: int
) -> None:
    """Whatever the parameters (annotated, defaulted, across lines), the name at a
    positional index is the signature's, ``self`` skipped; past the end there is none."""
    import tempfile

    params = ",\n        ".join(f"{n}: dict[str, int] = {{'a': (1)}}" for n in names)
    head = "class K:\n    def meth(self, " if method else "def meth("
    text = f"{head}{params}) -> None:\n        pass\n"
    with tempfile.TemporaryDirectory() as root:
        (Path(root) / "mod.py").write_text(text)
        got = fakes.parameter_names(fakes.Finder(root), ["mod"], "meth", index)
    assert got == ([(names[index], "mod")] if index < len(names) else [])


def test_a_callee_looked_up_in_many_modules_reads_each_module_text_once(tmp_path: Path) -> None:
    """A callee is looked up in every module a test reaches (hundreds on a large change)
    and defined in few: past the bound of kept texts, the modules that do not define it
    are answered from their names, not read and scanned again for each callee."""
    count = fakes.DEFINITION_FILES + 8
    for i in range(count):
        (tmp_path / f"mod{i}.py").write_text(f"def helper{i}(a, b):\n    pass\n")
    (tmp_path / "mod0.py").write_text("def meth(config, x):\n    pass\n")
    finder = fakes.Finder(str(tmp_path))
    modules = [f"mod{i}" for i in range(count)]
    fakes._definitions.cache_clear()
    fakes._defined_names.cache_clear()
    fakes._signature_args.cache_clear()
    assert fakes.parameter_names(finder, modules, "meth", 0) == [("config", "mod0")]
    first = fakes._definitions.cache_info().misses
    assert first == count
    for callee in ("other", "another", "meth2"):
        assert fakes.parameter_names(finder, modules, callee, 0) == []
    assert fakes._definitions.cache_info().misses == first
    # a module that defines the callee is still read (its text was evicted long ago)
    assert fakes.parameter_names(finder, modules, "helper3", 1) == [("b", "mod3")]


def test_a_fake_of_a_typevar_bound_subclass(feature: Repo, run: Run) -> None:
    """vllm-ascend (held-out): ``attn_metadata: M`` with ``M = TypeVar("M",
    bound=SFAMetadata)``; the fake sets ``cp_context``, a field of the data class
    ``SFACPMetadata(SFAMetadata)`` of that module: ✗ naming the subclass. A fake whose
    keywords fit no class of the family stays ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/sfa.py",
        "from dataclasses import dataclass\nfrom typing import Generic, TypeVar\n\n\n"
        "@dataclass\nclass SFAMetadata:\n    num_tokens: int = 0\n\n\n"
        "@dataclass\nclass SFACPMetadata(SFAMetadata):\n    cp_context: int = 0\n\n\n"
        'M = TypeVar("M", bound=SFAMetadata)\n\n\n'
        "class Impl(Generic[M]):\n"
        "    def prepare(self, hidden: int, attn_metadata: M) -> int:\n"
        "        return hidden\n",
    )
    feature.write(
        "tests/test_sfa.py",
        "from types import SimpleNamespace\n\nfrom pkg.sfa import Impl\n\n\n"
        "def test_prepare():\n"
        "    attn_metadata = SimpleNamespace(cp_context=3)\n"  # 7: ✗ SFACPMetadata
        "    Impl().prepare(1, attn_metadata)\n"
        "    attn_metadata = SimpleNamespace(layer_norm=3)\n"  # 9: ⚠
        "    Impl().prepare(1, attn_metadata)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "error"), (9, "warning")]
    assert "stands in for `SFACPMetadata`" in rows[0][3]


def test_a_fake_returned_by_a_lambda_patched_over_a_getter(feature: Repo, run: Run) -> None:
    """vllm-ascend (held-out): ``monkeypatch.setattr(mod, "get_forward_context",
    lambda: SimpleNamespace(...))`` stands in for what the getter returns, a
    ``ForwardContext``; over a getter of nothing typed it stays ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/attn.py", _CODE + "\n\ndef get_rank() -> int:\n    return 0\n")
    feature.write(
        "tests/test_ctx.py",
        "from types import SimpleNamespace\n\nimport pkg.attn as attn\n\n\n"
        "def test_context(monkeypatch):\n"
        '    monkeypatch.setattr(attn, "get_forward_context", lambda: SimpleNamespace(\n'
        "        num_tokens=3))\n"  # 7: ✗
        '    monkeypatch.setattr(attn, "get_rank", lambda: SimpleNamespace(rank=0))\n',  # ⚠
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, "error"), (9, "warning")]
    assert "stands in for `ForwardContext`" in rows[0][3]


@pytest.mark.parametrize(
    ("parameter", "severity"),
    [("common_attn_metadata", "error"), ("ctx", "warning")],
)
def test_a_fake_passed_to_an_unannotated_parameter_is_read_by_its_name(
    feature: Repo, run: Run, parameter: str, severity: str
) -> None:
    """vllm-ascend (tune): a fake passed to ``prepare_lora_indices(lora_context, ...)``, a
    helper that leaves the parameter unannotated and sets attributes on it, still mimics
    the ``@dataclass`` vLLM builds and passes there (``MoELoRAContext``): the parameter's
    name is read as a keyword's would be (✗ naming the class); a name that names no class
    (``ctx``) leaves the fake ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/attn.py", _CODE)
    feature.write(
        "pkg/helpers.py",
        "from pkg.attn import CommonAttentionMetadata\n\n\n"
        f"def apply({parameter}, x):\n"
        f"    {parameter}.extra = x\n    return x\n",
    )
    feature.write(
        "tests/test_helpers.py",
        "from types import SimpleNamespace\n\nfrom pkg import helpers\n\n\n"
        "def test_apply():\n"
        "    loose = SimpleNamespace(slot_mapping=[1])\n"  # 7
        "    helpers.apply(loose, 0)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, severity)]
    named = "stands in for `CommonAttentionMetadata` (pkg/attn.py; found by the parameter"
    assert (named in rows[0][3]) == (severity == "error")


@pytest.mark.parametrize(
    ("annotation", "severity"),
    [("", "error"), (": Any", "error"), (': "Request"', "warning")],
    ids=["unannotated", "any", "plain-class"],
)
def test_a_parameter_a_plain_class_annotates_is_not_read_by_its_name(
    feature: Repo, run: Run, annotation: str, severity: str
) -> None:
    """vLLM 0.33 (release diff): ``connector.get_loaded_kv_cache_group_ids(
    SimpleNamespace(...))`` where the method takes ``request: "Request"``, a class but no
    data class: the fake stands in for ``Request`` (⚠), not for the data class another
    module annotates a ``request`` with; unannotated or ``Any``, the name is read (✗)."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/core.py",
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass EngineCoreRequest:\n    request_id: str\n\n\n"
        "class Request:\n"
        "    @classmethod\n"
        "    def from_engine(cls, request: EngineCoreRequest) -> 'Request':\n"
        "        return cls()\n",
    )
    feature.write(
        "pkg/connector.py",
        "from typing import Any\n\nfrom pkg.core import Request\n\n\n"
        "class Connector:\n"
        f"    def loaded(self, request{annotation}) -> int:\n"
        "        return 0\n",
    )
    feature.write(
        "tests/test_connector.py",
        "from types import SimpleNamespace\n\nfrom pkg.connector import Connector\n\n\n"
        "def test_loaded():\n"
        "    assert Connector().loaded(SimpleNamespace(request_id='r')) == 0\n",  # 7
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(7, severity)]
    named = "stands in for `EngineCoreRequest` (pkg/core.py; found by the parameter `request`"
    assert (named in rows[0][3]) == (severity == "error")


@pytest.mark.parametrize(
    ("body", "severity", "how"),
    [
        (
            "    config = SimpleNamespace(causal_block_size=4)\n"
            "    assert AttentionOp(config=config).config is config\n",
            "error",
            "found by the name `config`",
        ),
        # passed positionally: the parameter's name is read as a keyword's would be
        (
            "    assert resolve(SimpleNamespace(causal_block_size=4), 1)\n",
            "error",
            "found by the parameter `config` of `resolve` it is passed to: the name `config`",
        ),
        (
            "    cfg = SimpleNamespace(causal_block_size=4)\n    assert resolve(cfg, 1)\n",
            "error",
            "found by the parameter `config` of `resolve` it is passed to: the name `config`",
        ),
        # an empty fake needs a typed binding, a name is not one
        ("    assert resolve(SimpleNamespace(), 1)\n", "warning", ""),
    ],
    ids=["bound-to-config", "positional", "held-positional", "empty"],
)
def test_a_config_class_in_a_module_imported_as_a_submodule(
    feature: Repo, run: Run, body: str, severity: str, how: str
) -> None:
    """maxtext: the code under test reaches ``MaxTextConfig`` only through ``from
    maxtext.configs import types`` (a module of a package, not a name its ``__init__``
    defines): that module is read like the others the code imports, and the fake bound
    to ``config`` (its parameter typed ``Config = Any``) stands in for it (✗), as does
    one passed positionally to a parameter named ``config``."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/configs/__init__.py", "")
    feature.write(
        "pkg/configs/types.py",
        "from pydantic import BaseModel\n\n\n"
        "class MaxTextConfig(BaseModel):\n    causal_block_size: int = 1\n    heads: int = 1\n",
    )
    feature.write(
        "pkg/attention.py",
        "from typing import Any\n\nfrom pkg.configs import types\n\nConfig = Any\n\n\n"
        "def load() -> types.MaxTextConfig:\n    return types.MaxTextConfig()\n\n\n"
        "def resolve(config: Config, kind: int) -> int:\n    return kind\n\n\n"
        "class AttentionOp:\n"
        "    def __init__(self, config: Config) -> None:\n        self.config = config\n",
    )
    feature.write(
        "tests/test_attention.py",
        "from types import SimpleNamespace\n\nfrom pkg.attention import AttentionOp, resolve\n\n\n"
        "def test_op() -> None:\n" + body,  # 7
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(7, severity)]
    assert f"stands in for `MaxTextConfig` (pkg/configs/types.py; {how}" in rows[0][3] or not how
