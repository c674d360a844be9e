# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, test fakes through mocks: a mock's ``return_value`` and a class body the
text reader would cut short still find the fake's class; a fake is not matched through a
same-named field of an unrelated class."""

from __future__ import annotations

import keyword
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from policytool.rules import _fakes as fakes
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

# -- the class body reader -------------------------------------------------------------


def test_fields_after_a_header_comment_and_an_unindented_docstring_line() -> None:
    """vLLM's ``SamplingParams``: ``):  # type: ignore[call-arg]`` after the bases (the
    comment was taken for the body's indentation), and a field docstring with a line at
    column 0 that reads like a top-level ``name:`` (the body was cut there)."""
    text = (
        b"import msgspec\n\n\n"
        b"class SamplingParams(\n    msgspec.Struct,\n    omit_defaults=True,\n"
        b"):  # type: ignore[call-arg]\n"
        b'    """Sampling parameters."""\n\n'
        b"    n: int = 1\n"
        b'    """How many.\n\nNote: an unindented line of a docstring.\n    """\n'
        b"    structured_outputs: object = None\n"
        b"    seed: int | None = None\n\n"
        b"    def clone(self) -> 'SamplingParams':\n        self.cached = 1\n"
        b"        return self\n\n\n"
        b"class After:\n    x: int = 0\n"
    )
    fields = fakes.class_fields_text(text)
    assert fields["SamplingParams"] == {"n", "structured_outputs", "seed", "clone", "cached"}
    assert fields["After"] == {"x"}


def test_a_docstring_example_names_no_field() -> None:
    """transformers' ``ColPaliConfig``: its docstring's example ``model =
    ColPaliForRetrieval(config)`` sits at the body's indentation; it is no attribute (a
    ``SimpleNamespace(model=...)`` config fake was named after it)."""
    text = (
        b"class ColPaliConfig(PreTrainedConfig):\n"
        b'    r"""\n    Example:\n\n    model = ColPaliForRetrieval(config)\n'
        b'    self.fake = 1\n    """\n\n'
        b"    vlm_config: dict | None = None\n\n"
        b"    def __init__(self, text_config=None):\n"
        b"        '''Doc.'''\n        self.text_config = text_config\n"
    )
    fields = fakes.class_fields_text(text)
    assert fields["ColPaliConfig"] == {"vlm_config", "__init__", "text_config"}


_NAMES = st.lists(
    st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
        lambda n: not keyword.iskeyword(n) and not keyword.issoftkeyword(n)
    ),
    min_size=1,
    max_size=6,
    unique=True,
)


@settings(max_examples=60, deadline=None)
@given(names=_NAMES, doc_lines=st.lists(st.sampled_from(["Note: x", "see: y", "", "z"])))
def test_fields_of_a_class_are_its_fields_whatever_its_docstrings_say(
    names: list[str], doc_lines: list[str]
) -> None:
    """Property: a dataclass whose field docstrings hold unindented lines gives exactly
    its field names (the AST reader agrees with the class), and the next class is intact."""
    body = ""
    for name in names:
        body += f"    {name}: int = 0\n"
        if doc_lines:
            body += '    """Doc.\n' + "\n".join(doc_lines) + '\n    """\n'
    text = f"@dataclass\nclass C:\n{body}\n\nclass D:\n    d: int = 0\n".encode()
    fields = fakes.class_fields_text(text)
    assert fields["C"] == set(names)
    assert fields["D"] == {"d"}


def test_a_fake_of_a_class_with_an_unindented_docstring_line_is_an_error(
    feature: Repo, run: Run, site: Path
) -> None:
    """The fake's keywords are fields declared after the cut: ✗ naming the class."""
    (site / "enginelib" / "params.py").write_text(
        "from dataclasses import dataclass\n\n\n@dataclass\nclass SamplingParams:\n"
        '    n: int = 1\n    """How many.\n\nNote: one at a time.\n    """\n'
        "    temperature: float = 1.0\n    top_p: float = 1.0\n"
    )
    feature.write(
        "pkg/sampler.py",
        "from enginelib.params import SamplingParams\n\n\n"
        "def sample(sampling_params: SamplingParams) -> int:\n    return 1\n",
    )
    feature.write(
        "tests/test_sampler.py",
        "from types import SimpleNamespace\n\nfrom pkg.sampler import sample\n\n\n"
        "def test_sample() -> None:\n"
        "    sample(sampling_params=SimpleNamespace(temperature=0.5, top_p=0.9))\n",  # 7
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [(7, "error")]
    assert "stands in for `SamplingParams` (enginelib/params.py;" in rows[0][3]


# -- a mock's return value ---------------------------------------------------------------


def test_fakes_returned_by_a_patched_or_mock_callable(feature: Repo, run: Run, site: Path) -> None:
    """vllm-ascend: ``mock_get_config.return_value = SimpleNamespace(...)`` under
    ``@patch("pkg.runner.get_engine_config")``; also ``with patch(...) as m``,
    ``patch(..., return_value=...)``, ``MagicMock(return_value=...)`` bound to a getter:
    the fake is what ``get_engine_config`` returns, an ``EngineConfig``."""
    feature.write(
        "pkg/runner.py",
        "from enginelib.config import EngineConfig\n\n\n"
        "def get_engine_config():\n    return EngineConfig()\n\n\n"
        "def run_step():\n    return 1\n",
    )
    feature.write(
        "tests/test_runner.py",
        "from types import SimpleNamespace\nfrom unittest import TestCase\n"
        "from unittest.mock import MagicMock, patch\n\nimport pkg.runner\n\n\n"
        "class TestRunner(TestCase):\n"  # 8
        '    @patch("pkg.runner.run_step")\n'
        '    @patch("pkg.runner.get_engine_config")\n'
        "    def test_a(self, mock_get_config, mock_step):\n"
        "        mock_get_config.return_value = SimpleNamespace(model='m')\n"  # 12
        "        mock_step.return_value = SimpleNamespace(model='m')\n"  # 13: a step: ⚠
        "\n"
        "    def test_b(self):\n"
        '        with patch("pkg.runner.get_engine_config") as getter:\n'
        "            getter.return_value = SimpleNamespace(model='m')\n"  # 17
        '        with patch("pkg.runner.get_engine_config", return_value=SimpleNamespace(\n'
        "            model='m')):\n"  # 18
        "            pass\n"
        "        pkg.runner.get_engine_config = MagicMock(\n"
        "            return_value=SimpleNamespace(model='m'))\n"  # 22
        "        mocked = MagicMock()\n"
        "        mocked.return_value = SimpleNamespace(model='m')\n",  # 24: nameless: ⚠
    )
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    assert [(r[1], r[2]) for r in rows] == [
        (12, "error"),
        (13, "warning"),
        (17, "error"),
        (18, "error"),
        (22, "error"),
        (24, "warning"),
    ]
    assert "stands in for `EngineConfig`" in rows[0][3]


# -- a same-named field is not enough -----------------------------------------------------


def test_a_nested_fake_must_fit_the_field_type(feature: Repo, run: Run, site: Path) -> None:
    """vllm-ascend: an attention impl's ``indexer`` (a layer with a ``compressor``
    sub-layer carrying a ``prefix``) was taken for the metadata dataclass that has a
    ``compressor`` field, because the one keyword matched. The nested fake's keywords
    are not the field type's, so that keyword does not count as a field: ⚠. A nested
    fake that fits stays ✗, and so does a fake most of whose other keywords are fields
    (vLLM's dflash2 test: a ``VllmConfig`` fake whose ``load_config`` carries keys
    ``LoadConfig`` lacks)."""
    (site / "enginelib" / "meta.py").write_text(
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass CompressorMetadata:\n    block_table: int = 0\n"
        "    seq_lens: int = 0\n\n\n"
        "@dataclass\nclass IndexerMetadata:\n    compressor: CompressorMetadata\n\n\n"
        "@dataclass\nclass AttnMetadata:\n    indexer: IndexerMetadata | None = None\n\n\n"
        "@dataclass\nclass BatchMetadata:\n    compressor: CompressorMetadata\n"
        "    seq_lens: int = 0\n    slots: int = 0\n"
    )
    feature.write(
        "pkg/attn.py",
        "from enginelib.meta import AttnMetadata, BatchMetadata\n\n\n"
        "def forward(meta: AttnMetadata, batch_meta: BatchMetadata) -> int:\n    return 1\n",
    )
    feature.write(
        "tests/test_attn.py",
        "from types import SimpleNamespace\n\nimport pkg.attn\n\n\n"
        "def test_impl() -> None:\n"
        "    impl = object()\n"
        "    impl.indexer = SimpleNamespace(compressor=SimpleNamespace(prefix='l.0'))\n"  # 8
        "    impl.indexer = SimpleNamespace(\n"  # 9
        "        compressor=SimpleNamespace(block_table=1, seq_lens=2)\n"  # 10
        "    )\n"
        "    batch_meta = SimpleNamespace(\n"  # 12: two of three keywords fit: ✗
        "        compressor=SimpleNamespace(prefix='l.0'), seq_lens=1, slots=2\n"  # 13: ⚠
        "    )\n",
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows] == [
        (8, "warning"),
        (8, "warning"),
        (9, "error"),
        (10, "error"),
        (12, "error"),
        (13, "warning"),
    ]
    assert "stands in for `IndexerMetadata`" in rows[2][3]
    assert "stands in for `CompressorMetadata`" in rows[3][3]


def test_a_nested_fake_of_an_open_config_class_does_not_count_against(
    feature: Repo, run: Run, site: Path
) -> None:
    """transformers' ``PretrainedConfig`` takes any attribute a model's config sets
    (``index_topk``): a nested ``hf_config`` fake with such keys does not make the outer
    ``ModelConfig`` fake implausible (only a record's fields are all its attributes)."""
    (site / "enginelib" / "hf.py").write_text(
        "class PretrainedConfig:\n    model_type: str = ''\n\n"
        "    def __init__(self, **kwargs: object) -> None:\n"
        "        for key, value in kwargs.items():\n            setattr(self, key, value)\n"
    )
    (site / "enginelib" / "model.py").write_text(
        "from dataclasses import dataclass\n\nfrom enginelib.hf import PretrainedConfig\n\n\n"
        "@dataclass\nclass ModelConfig:\n    hf_config: PretrainedConfig\n    model: str = ''\n"
    )
    feature.write(
        "pkg/load.py",
        "from enginelib.model import ModelConfig\n\n\n"
        "def load(model_config: ModelConfig) -> int:\n    return 1\n",
    )
    feature.write(
        "tests/test_load.py",
        "from types import SimpleNamespace\n\nfrom pkg.load import load\n\n\n"
        "def test_load() -> None:\n"
        "    load(model_config=SimpleNamespace(hf_config=SimpleNamespace(index_topk=8)))\n",
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows][:1] == [(7, "error")], rows
    assert "stands in for `ModelConfig`" in rows[0][3]
    # transformers 5: a dataclass that accepts any keyword (``@strict(accept_kwargs=True)``)
    (site / "enginelib" / "hf.py").write_text(
        "from dataclasses import dataclass\n\n\n@strict(accept_kwargs=True)\n"
        "@dataclass(repr=False)\nclass PretrainedConfig:\n    model_type: str = ''\n"
    )
    rows = found(run, "any-annotation")
    assert [(r[1], r[2]) for r in rows][:1] == [(7, "error")], rows
