# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, test fakes found by their fields: a fake the code annotates ``Any`` is
the one record class of the repository that has all its fields; a fake held by another
fake through a local name, returned by a patched function, with an attribute the code
sets on the object, a subclass whose fields come through bases in another module, and a
fake passed to a class are found too."""

from __future__ import annotations

import ast
import keyword
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from policytool.rules import _fakes as fakes
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_DSA = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\nclass ReqMetadata:\n"
    "    block_table: list[int]\n    query_start_loc: list[int]\n"
    "    start_pos: list[int] | None = None\n    full_cos: list[int] | None = None\n"
    "    num_reqs_actual: int | None = None\n\n\n"
    "@dataclass\nclass DSAMetadata:\n"
    "    num_tokens: int\n    req_metadata: ReqMetadata | None = None\n"
    "    hadamard: list[int] | None = None\n\n\n"
    "@dataclass\nclass SWAMetadata:\n    num_tokens: int\n    window: int = 0\n"
)
_COMPRESSOR = (
    "import typing\nfrom dataclasses import dataclass\n\n\n"
    "@dataclass(frozen=True)\nclass CompressorMetadata:\n"
    "    cache: typing.Any\n    state: typing.Any\n\n\n"
    "class Compressor:\n"
    "    def compute(self, metadata: typing.Any) -> int:\n"
    "        return metadata.num_reqs_actual\n"
)


def _tree(feature: Repo) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/attention/__init__.py", "")
    feature.write("pkg/attention/dsa.py", _DSA)
    feature.write("pkg/compressor.py", "from functools import cache\n" + _COMPRESSOR)


def test_a_fake_the_code_annotates_any_is_found_by_its_fields(feature: Repo, run: Run) -> None:
    """vllm-ascend (held-out): ``compressor.compute(metadata)`` takes ``metadata:
    typing.Any``; the fake's five keywords are all fields of ``ReqMetadata`` in a module
    the test never imports: ✗ naming it. ``cache=SimpleNamespace(req_metadata=req)`` of a
    record class's call (``CompressorMetadata``, its fields ``Any``) with a nested fake
    that fits ``req_metadata``'s type is ``DSAMetadata``, and ``req`` (held by it) is
    ``ReqMetadata`` (a function ``cache`` imported beside it is no class named like the
    fake). Two keywords out of a record call, keywords of two classes
    (``num_tokens``), or a keyword no class has, stay ⚠."""
    _tree(feature)
    feature.write(
        "tests/test_compressor.py",
        "from types import SimpleNamespace\n\n"
        "from pkg.compressor import Compressor, CompressorMetadata\n\n\n"
        "def test_compute():\n"  # 6
        "    metadata = SimpleNamespace(\n"  # 7: ✗ ReqMetadata
        "        block_table=[0], query_start_loc=[0], start_pos=[1], full_cos=[2],\n"
        "        num_reqs_actual=1,\n    )\n"
        "    Compressor().compute(metadata)\n"
        "    req = SimpleNamespace(query_start_loc=[0], start_pos=[1])\n"  # 12: ✗ ReqMetadata
        "    CompressorMetadata(\n"
        "        cache=SimpleNamespace(req_metadata=req),\n"  # 14: ✗ DSAMetadata
        "        state=SimpleNamespace(num_tokens=1, hadamard=[1]),\n"  # 15: ✗ DSAMetadata
        "    )\n"
        "    two = SimpleNamespace(query_start_loc=[0], start_pos=[1])\n"  # 17: ⚠
        "    Compressor().compute(two)\n"
        "    both = SimpleNamespace(num_tokens=1, window=2, hadamard=[1])\n"  # 19: ⚠ no class
        "    Compressor().compute(both)\n"
        "    shared = SimpleNamespace(num_tokens=1)\n"  # 21: ⚠ two classes, one keyword
        "    CompressorMetadata(cache=shared, state=None)\n"
        "    odd = SimpleNamespace(block_table=[0], query_start_loc=[0], layer=3)\n"  # 23: ⚠
        "    Compressor().compute(odd)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (7, "error"),
        (12, "error"),
        (14, "error"),
        (15, "error"),
        (17, "warning"),
        (19, "warning"),
        (21, "warning"),
        (23, "warning"),
    ]
    assert "stands in for `ReqMetadata` (pkg/attention/dsa.py; found by its keywords" in rows[0][3]
    assert "stands in for `ReqMetadata`" in rows[1][3] and "req_metadata: ReqMetadata" in rows[1][3]
    assert "stands in for `DSAMetadata`" in rows[2][3]
    assert "stands in for `DSAMetadata`" in rows[3][3]


def test_two_classes_with_the_fields_is_no_answer_unless_they_share_the_name(
    feature: Repo, run: Run
) -> None:
    """Two record classes with every keyword: ⚠ (which one is a guess); two copies of
    one class (same name in two modules): ✗ naming it, the one with fewer fields. A
    module's private record, and a record when the fake's name names a plain class
    beside it (``input_buffers`` and ``InputBuffers``), or whose name says it is a
    service object (``stage0_client``), or keywords the class has only as properties
    (a wrapper's delegating attributes), are no answer (vLLM release diff: ``_Layer``,
    ``InputBatch``; vllm-omni tests: stage clients, ``OmniRequestOutput``)."""
    _tree(feature)
    feature.write(
        "pkg/attention/cp.py",
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass ReqMetadata:\n"
        "    block_table: list[int]\n    query_start_loc: list[int]\n"
        "    start_pos: list[int] | None = None\n    full_cos: list[int] | None = None\n"
        "    num_reqs_actual: int | None = None\n    cp_metadata: int = 0\n\n\n"
        "@dataclass\nclass Other:\n    alpha: int\n    beta: int\n    gamma: int\n\n\n"
        "@dataclass\nclass Another:\n    alpha: int\n    beta: int\n    gamma: int\n\n\n"
        "@dataclass\nclass _Step:\n    rows: int\n    weights: int\n    metadata: int\n\n\n"
        "class InputBuffers:\n    def __init__(self) -> None:\n        self.ids = 0\n\n\n"
        "@dataclass\nclass InputBatch:\n    ids: int\n    positions: int\n    seq_lens: int\n\n\n"
        "@dataclass\nclass StageMeta:\n    stage_type: str\n    final_output: bool\n"
        "    is_comprehension: bool\n\n\n"
        "@dataclass\nclass Wrapped:\n    request_id: str\n    inner: int = 0\n\n"
        "    @property\n    def prompt_ids(self) -> int:\n        return self.inner\n\n"
        "    @property\n    def outputs(self) -> int:\n        return self.inner\n",
    )
    feature.write(
        "tests/test_cp.py",
        "from types import SimpleNamespace\n\nfrom pkg.compressor import Compressor\n\n\n"
        "def test_compute():\n"
        "    metadata = SimpleNamespace(block_table=[0], start_pos=[1], full_cos=[2])\n"  # 7
        "    Compressor().compute(metadata)\n"
        "    greek = SimpleNamespace(alpha=1, beta=2, gamma=3)\n"  # 9
        "    Compressor().compute(greek)\n"
        "    step = SimpleNamespace(rows=1, weights=2, metadata=3)\n"  # 11: a private class
        "    Compressor().compute(step)\n"
        "    input_buffers = SimpleNamespace(ids=1, positions=2, seq_lens=3)\n"  # 13: named
        "    Compressor().compute(input_buffers)\n"
        "    batch = SimpleNamespace(ids=1, positions=2, seq_lens=3)\n"  # 15: ✗ InputBatch
        "    Compressor().compute(batch)\n"
        "    stage0_client = SimpleNamespace(\n"  # 17: a client, not the metadata
        "        stage_type='llm', final_output=True, is_comprehension=False\n    )\n"
        "    Compressor().compute(stage0_client)\n"
        "    meta = SimpleNamespace(stage_type='llm', final_output=True, is_comprehension=False)\n"
        "    Compressor().compute(meta)\n"  # 21: ✗ StageMeta
        "    out = SimpleNamespace(request_id='r', prompt_ids=1, outputs=[])\n"  # 23: properties
        "    Compressor().compute(out)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (7, "error"),
        (9, "warning"),
        (11, "warning"),
        (13, "warning"),
        (15, "error"),
        (17, "warning"),
        (21, "error"),
        (23, "warning"),
    ]
    assert "stands in for `InputBatch`" in rows[4][3]
    assert "stands in for `StageMeta`" in rows[6][3]
    assert "`ReqMetadata` (pkg/attention/dsa.py;" in rows[0][3]


def test_a_fake_returned_by_a_patched_function_through_a_variable(feature: Repo, run: Run) -> None:
    """vllm-ascend (held-out): ``mock.patch("pkg.config.get_current_config",
    return_value=cfg)``: ``cfg`` stands in for what ``get_current_config`` returns, read
    from its ``def`` (``-> AppConfig``, through a re-export), and its nested fake for
    the field's class; a patched function returning ``int`` leaves it ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/config/__init__.py", "from pkg.config.app import get_current_config\n")
    feature.write(
        "pkg/config/app.py",
        "from dataclasses import dataclass, field\n\n\n"
        "@dataclass\nclass ModelSettings:\n    depth: int = 0\n\n\n"
        "@dataclass\nclass AppConfig:\n"
        "    model_settings: ModelSettings = field(default_factory=ModelSettings)\n"
        "    extra: dict[str, int] = field(default_factory=dict)\n\n\n"
        "def get_current_config(\n    strict: bool = False,\n) -> AppConfig:\n"
        "    return AppConfig()\n\n\n"
        "def get_rank() -> int:\n    return 0\n",
    )
    feature.write(
        "tests/test_cfg.py",
        "from types import SimpleNamespace\nfrom unittest import mock\n\n\n"
        "def test_cfg():\n"
        "    cfg = SimpleNamespace(\n"  # 6: ✗ AppConfig
        "        model_settings=SimpleNamespace(depth=2),\n"  # 7: ✗ ModelSettings
        "        extra={},\n    )\n"
        '    with mock.patch("pkg.config.get_current_config", return_value=cfg):\n'
        "        pass\n"
        "    rank = SimpleNamespace(extra={})\n"  # 12: ⚠
        '    with mock.patch("pkg.config.app.get_rank", return_value=rank):\n'
        "        pass\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [(6, "error"), (7, "error"), (12, "warning")]
    assert "stands in for `AppConfig`" in rows[0][3]
    assert "get_current_config() -> AppConfig" in rows[0][3]
    assert "stands in for `ModelSettings`" in rows[1][3]


def test_attributes_the_code_sets_and_fields_inherited_across_modules(
    feature: Repo, run: Run
) -> None:
    """vllm-ascend (held-out): ``self.moe_config.tp_group = get_tp_group()`` in the code
    makes ``tp_group`` an attribute of the ``MoEConfig`` it annotates, so
    ``layer.moe_config = SimpleNamespace(tp_group=...)`` is ✗; a subclass defined in one
    module of a base chain in another (``AscendSpec(MLASpec)``, ``MLASpec(FullSpec)``,
    ``FullSpec(Spec)``) has the fields of the whole chain; ``Cls(config, ...)`` passes
    ``config`` to its ``__init__``'s parameter."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/spec.py",
        "from dataclasses import dataclass\n\n\n"
        "@dataclass(frozen=True)\nclass Spec:\n    block_size: int\n\n\n"
        "@dataclass(frozen=True)\nclass FullSpec(Spec):\n    head_size: int = 0\n\n\n"
        "@dataclass(frozen=True)\nclass MLASpec(FullSpec):\n    alignment: int = 0\n",
    )
    feature.write(
        "pkg/layer.py",
        "from dataclasses import dataclass\n\nfrom pkg.spec import MLASpec\n\n\n"
        "@dataclass\nclass MoEConfig:\n    tp_size: int = 1\n\n\n"
        "@dataclass(frozen=True)\nclass AscendSpec(MLASpec):\n    storage: int = 0\n\n\n"
        "class Layer:\n"
        "    def __init__(self, moe_config: MoEConfig, kv_cache_spec: AscendSpec) -> None:\n"
        "        self.moe_config = moe_config\n"
        "        self.moe_config.tp_group = object()\n"
        "        self.kv_cache_spec = kv_cache_spec\n",
    )
    feature.write(
        "tests/test_layer.py",
        "from types import SimpleNamespace\n\nfrom pkg.layer import Layer\n\n\n"
        "def test_layer():\n"
        "    layer = Layer.__new__(Layer)\n"
        "    layer.moe_config = SimpleNamespace(tp_group=SimpleNamespace(world_size=2))\n"  # 8
        "    spec = SimpleNamespace(block_size=16, alignment=2, storage=1)\n"  # 9: ✗ AscendSpec
        "    cfg = SimpleNamespace(tp_size=1)\n"  # 10: ✗ MoEConfig (the __init__'s)
        "    Layer(cfg, spec)\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (8, "error"),
        (8, "warning"),
        (9, "error"),
        (10, "error"),
    ]
    assert "stands in for `MoEConfig`" in rows[0][3]
    assert "stands in for `AscendSpec`" in rows[2][3]
    assert "stands in for `MoEConfig`" in rows[3][3]


_NAMES = st.from_regex(r"[a-z][a-z0-9_]{1,8}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n)
)


@settings(max_examples=60, deadline=None)
@given(
    fields=st.lists(_NAMES, min_size=3, max_size=6, unique=True),
    take=st.integers(min_value=1, max_value=6),
    copies=st.integers(min_value=1, max_value=3),
)
def test_by_fields_names_the_class_only_when_every_keyword_is_its_field(
    fields: list[str], take: int, copies: int
) -> None:
    """Whatever the fields: a fake whose keywords are some of one class's fields (at
    least three) names it; one keyword that is no field, or fewer than three, names
    nothing; copies of the class under one name in several modules still name it; the
    field index built after many lookups answers as the lazy reads do."""
    with tempfile.TemporaryDirectory() as root:
        body = "".join(f"    {name}: int = 0\n" for name in fields)
        for copy in range(copies):
            (Path(root) / f"mod{copy}.py").write_text(
                f"from dataclasses import dataclass\n\n\n@dataclass\nclass Rec:\n{body}"
            )
        finder = fakes.Finder(root)
        keywords = frozenset(fields[:take])
        got = fakes.by_fields(finder, keywords, (), False, [])
        assert (got is not None) == (len(keywords) >= 3)
        if got is not None:
            assert got[0].name == "Rec"
        wrong = fakes.by_fields(fakes.Finder(root), keywords | {"zz_not_a_field"}, (), False, [])
        assert wrong is None
        # After ``LAZY_PROBES`` names the index of the record modules answers: the same.
        indexed = fakes.Finder(root)
        indexed.probes.update({f"zz{i}": [] for i in range(fakes.LAZY_PROBES)})
        again = fakes.by_fields(indexed, keywords, (), False, [])
        assert (indexed.field_index is not None) == (len(keywords) >= 3)
        assert (again is None) == (got is None)


_TYPE_TEXTS = st.sampled_from(
    [
        "Config",
        "'Config'",
        '"Config"',
        "Config | None",
        "Optional[Config]",
        "pkg.Config",
        "Other",
        "int",
        "the config to use",
        "= 3",
        "dict[str, Config]",
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(
        st.tuples(
            st.sampled_from(["engine_config", "xengine_config", "engine_config2", "cfg"]),
            st.sampled_from(["", " ", "\t", "  "]),
            st.sampled_from(["", "    ", "def f(", "x.", "(", "# "]),
            _TYPE_TEXTS,
        ),
        max_size=30,
    )
)
def test_the_annotation_index_answers_as_the_lookups_by_name_do(
    lines: list[tuple[str, str, str, str]],
) -> None:
    """Whatever ``name: Type`` lines the modules hold (quoted, dotted, ``| None``, a prose
    colon, a prefix that makes another name): after ``CONSENSUS_PROBES`` names the one
    index of every annotation gives each name the class a lookup of that name alone gives."""
    with tempfile.TemporaryDirectory() as root:
        for at in range(0, len(lines), 10):
            text = "".join(
                f"{prefix}{name}{space}: {kind}\n"
                for name, space, prefix, kind in lines[at : at + 10]
            )
            (Path(root) / f"mod{at}.py").write_text(text)
        probed = fakes.Finder(root)
        indexed = fakes.Finder(root)
        indexed.annotation_probes.update({f"zz{i}": [] for i in range(fakes.CONSENSUS_PROBES)})
        for name in ("engine_config", "xengine_config", "engine_config2"):
            assert fakes._consensus(indexed, name) == fakes._consensus(probed, name)
            assert fakes._annotations(indexed, name) == fakes._annotations(probed, name)
        assert indexed.annotation_index is not None
        assert probed.annotation_index is None


def test_imports_are_found_in_the_order_a_full_walk_gives() -> None:
    """The imports of a module, read without visiting expressions, come in
    :func:`ast.walk`'s order (the first module that defines a class wins): on every module
    of this project, which nests imports in functions, ``try`` and ``if`` blocks."""
    files = sorted(Path(fakes.__file__).parents[1].rglob("*.py"))
    assert len(files) > 50
    for path in files:
        tree = ast.parse(path.read_bytes())
        walked = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert fakes._imports_in(tree) == walked, path
