# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup: a ``**kwargs`` name the body rebinds holds another value from there on.
nv-ingest's ingestors validate their keywords into a pydantic ``ExtractParams``
(``extra="forbid"``) and rebind ``kwargs = resolved.model_dump(...)``: a later
``kwargs.get("method")`` reads a field of the validated model, not a caller's string
key, and a helper the dump is handed to (``self._append_detection_tasks(kwargs)``) gets
no ``**`` dict. Only a record's dump rebinds (``.model_dump()``, ``asdict(...)``, a
display merging only dumps), in a statement of the body itself (one in a branch may not
run): any other value may still hold the caller's keys (``{**kwargs, ...}``,
``dict(kwargs)``, xinference's ``kwargs = generate_kwargs`` after merging them in). A plain dict parameter (a hook's ``kwargs: dict``) is not reported at all
(the brief's reading 4: '-')."""

from __future__ import annotations

import ast
import time

import pytest

from policytool.rules import _kwreads as kwreads
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

FEATURE_BASE = {"pkg/__init__.py": ""}

INGESTOR = """\
from pkg.params import ExtractParams


class {cls}:
    def extract(self, params=None, **kwargs):
{body}
"""
DUMPED = (
    "        resolved = params or ExtractParams(**kwargs)\n"
    '        kwargs = resolved.model_dump(mode="python")\n'
    '        self.method = kwargs.get("method", "pdfium")\n'
)


def _write(feature: Repo, body: str) -> None:
    """Two ingestors (two files) with the same extract body, committed."""
    feature.write("pkg/params.py", "class ExtractParams:\n    pass\n")
    for name in ("batch", "fused"):
        feature.write(f"pkg/{name}.py", INGESTOR.format(cls=name.title(), body=body))
    feature.commit("ingestors")


def test_a_read_after_the_name_is_rebound_to_a_model_dump_is_nothing(
    feature: Repo, run: Run
) -> None:
    """Before round AG: a ✗ in each file (the new key "method" read in two files)."""
    _write(feature, DUMPED)
    assert found(run, "kwargs-lookup") == []


def test_a_read_before_the_rebinding_is_still_the_callers_key(feature: Repo, run: Run) -> None:
    body = (
        '        self.dpi = kwargs.get("dpi", 200)\n'
        "        kwargs = ExtractParams(**kwargs).model_dump()\n"
        '        self.method = kwargs.get("method")\n'
    )
    _write(feature, body)
    rows = found(run, "kwargs-lookup")
    assert sorted((r[0], r[1], r[2]) for r in rows) == [
        ("pkg/batch.py", 6, "error"),
        ("pkg/fused.py", 6, "error"),
    ]
    assert all('"dpi"' in r[3] for r in rows)


@pytest.mark.parametrize(
    "rebinding",
    [
        pytest.param('        kwargs = {**kwargs, "dpi": 200}\n', id="built-from-the-name"),
        pytest.param("        kwargs = dict(kwargs)\n", id="a-copy"),
        pytest.param(
            "        merged = dict(self.defaults)\n"
            "        merged.update({k: v for k, v in kwargs.items() if v is not None})\n"
            "        kwargs = merged\n",
            id="a-merge-under-another-name",  # xinference's image_to_image
        ),
        pytest.param("        kwargs = prepare(kwargs)\n", id="a-call-on-it"),
        pytest.param(
            "        if params is not None:\n            kwargs = params.model_dump()\n",
            id="in-a-branch",
        ),
    ],
)
def test_a_rebinding_that_may_keep_the_callers_keys_does_not_end_them(
    feature: Repo, run: Run, rebinding: str
) -> None:
    _write(feature, rebinding + '        self.method = kwargs.get("method")\n')
    rows = found(run, "kwargs-lookup")
    assert sorted((r[0], r[2]) for r in rows) == [
        ("pkg/batch.py", "error"),
        ("pkg/fused.py", "error"),
    ]
    assert all('"method"' in r[3] for r in rows)


def test_a_dump_handed_to_a_helper_after_the_rebinding_is_no_kwargs_dict(
    feature: Repo, run: Run
) -> None:
    """Before round AG: ⚠ at the helper's read (the ``**`` dict passed on whole). A
    helper's read is no ⚠ since round AU (reading 4); it is still the ✗ of a new key
    repeated in two files while the helper gets the caller's dict, and not once it gets
    the dump."""
    body = (
        "        kwargs = ExtractParams(**kwargs).model_dump()\n"
        "        self._append_tasks(kwargs)\n"
        "\n"
        "    def _append_tasks(self, options):\n"
        '        self.batch = options.get("inference_batch_size", 8)\n'
    )
    _write(feature, body)
    assert found(run, "kwargs-lookup") == []
    # Handed on before the rebinding, each helper reads the caller's keys: the new key
    # read in two files is the ✗.
    _write(
        feature,
        body.replace(
            "        kwargs = ExtractParams(**kwargs).model_dump()\n"
            "        self._append_tasks(kwargs)\n",
            "        self._append_tasks(kwargs)\n"
            "        kwargs = ExtractParams(**kwargs).model_dump()\n",
        ),
    )
    assert sorted((r[0], r[1], r[2]) for r in found(run, "kwargs-lookup")) == [
        ("pkg/batch.py", 10, "error"),
        ("pkg/fused.py", 10, "error"),
    ]


def test_a_hook_dict_parameter_read_in_three_files_is_nothing(feature: Repo, run: Run) -> None:
    """kvpress's presses read ``kwargs["position_embeddings"]`` from the forward hook's
    dict: a plain parameter, whose keys the hook's caller fixes. Before round AG: ✗ in
    each file."""
    for name in ("rerotation", "simlayer", "think"):
        feature.write(
            f"pkg/{name}.py",
            f"class {name.title()}Press:\n"
            "    def compress(self, module, keys, values, kwargs: dict) -> object:\n"
            '        cos, sin = kwargs["position_embeddings"]\n'
            "        return keys * cos + values * sin\n",
        )
    feature.commit("presses")
    assert found(run, "kwargs-lookup") == []


ACTOR = """\
REMOTE_KEYS = ("invoke_url", "embed_invoke_url")


def _assert_local(kwargs, context):
    present = [k for k in REMOTE_KEYS if kwargs.get(k)]
    if present:
        raise ValueError(f"{{context}}: remote endpoints {{present}}")


def _assert_known(kwargs, context):
    unknown = set(kwargs) - {{"inference_batch_size", "embed_modality"}}
    if unknown:
        raise TypeError(f"{{context}}: unknown {{unknown}}")


class FusedActor:
    def __init__(self, **kwargs):
        {check}(dict(kwargs), context="actor init")
        self.batch = kwargs.get("inference_batch_size", 8)
{body}
"""


@pytest.mark.parametrize(
    ("check", "severity"),
    [
        pytest.param("_assert_local", "error", id="a-check-of-named-keys-keeps-none"),
        pytest.param("_assert_known", "warning", id="a-check-of-leftover-keys-rejects-them"),
    ],
)
def test_an_init_handing_its_dict_to_a_check_of_named_keys_still_drops_the_rest(
    feature: Repo, run: Run, check: str, severity: str
) -> None:
    """nv-ingest's ``_FusedModelActor.__init__(**kwargs)`` hands ``dict(kwargs)`` to
    ``_assert_no_remote_endpoints``, which reads the endpoint keys it names: every other
    key still goes nowhere, so a new key read there is the ✗ of a silent drop (labelled
    ✗ in set zzzg; before round AG, ⚠). A check that iterates the keys rejects the
    leftovers: the dict is tested, not dropped (⚠)."""
    feature.write("pkg/fused.py", ACTOR.format(check=check, body=""))
    feature.commit("actor")
    feature.git("checkout", "-q", "main")
    feature.git("merge", "-q", "feature")
    feature.git("checkout", "-q", "-b", "more")
    new_read = '        self.modality = kwargs.get("embed_modality", "text")\n'
    feature.write("pkg/fused.py", ACTOR.format(check=check, body=new_read))
    feature.commit("new key")
    rows = found(run, "kwargs-lookup")
    assert [(r[0], r[1], r[2]) for r in rows] == [("pkg/fused.py", 20, severity)]
    assert ("silently dropped" in rows[0][3]) == (severity == "error")


@pytest.mark.timing
def test_thousands_of_calls_of_one_check_read_the_check_once() -> None:
    """A pull request's ``__init__`` calling one check of named keys 3,000 times, the
    check reading 3,000 keys: the check is read once, not once a call (bounded work on
    hostile input)."""
    reads = "\n".join(f'    x{i} = kw.get("k{i}")' for i in range(3000))
    calls = "\n".join("        _check(dict(kwargs))" for _ in range(3000))
    tree = ast.parse(
        f"def _check(kw):\n{reads}\n\n\nclass A:\n    def __init__(self, **kwargs):\n{calls}\n"
    )
    init = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "__init__"
    )
    started = time.perf_counter()
    handed = kwreads.checked_only(init, "kwargs", kwreads.functions_by_name(tree))
    assert time.perf_counter() - started < 5
    assert len(handed) == 3000
