# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a fake a test's stand-in returns, patched over a function that a
package binds to a method of a module-level instance. sentence-transformers fa2237be
(set zzzf) patches ``sentence_transformers.base.model_card.get_model_info``, which is
``from huggingface_hub import model_info as get_model_info``; huggingface_hub's
``__init__`` re-exports it from ``hf_api`` in a parenthesised import whose every line
carries a ``# noqa: F401`` comment, and ``hf_api`` binds ``api = HfApi()`` ...
``model_info = api.model_info``, whose ``-> ModelInfo`` is a ``@dataclass``. The fake
stands in for ``ModelInfo`` (✗), read through the comments and the bound method."""

from __future__ import annotations

from pathlib import Path

import pytest

from policytool.rules import _fakes as fakes
from tests.conftest import Repo
from tests.sweep_fixture import Run, found

HUB_INIT = """\
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .hf_api import (
        HfApi,  # noqa: F401
        dataset_info,  # noqa: F401
        model_info,  # noqa: F401
    )
"""
HF_API = """\
from dataclasses import dataclass


@dataclass
class ModelInfo:
    id: str
    sha: str | None = None


class HfApi:
    def model_info(self, repo_id: str) -> ModelInfo:
        return ModelInfo(id=repo_id)

    def whoami(self):
        return {}


api = HfApi()
model_info = api.model_info
whoami = api.whoami
unbound_info = HfApi.model_info
"""
CARD = """\
from hubby import model_info as get_model_info


def base_model_sha(model_id: str) -> str | None:
    return get_model_info(model_id).sha
"""
CONFTEST = """\
from types import SimpleNamespace

import pytest


def _fake_model_info(model_id: str) -> SimpleNamespace:
    return SimpleNamespace(id=model_id, sha="0123")


def _fake_whoami() -> SimpleNamespace:
    return SimpleNamespace(name="me")


@pytest.fixture(autouse=True)
def mock_hub(monkeypatch):
    monkeypatch.setattr("pkg.card.get_model_info", _fake_model_info)
    monkeypatch.setattr("pkg.card.whoami", _fake_whoami)
"""


@pytest.fixture
def hub(site: Path) -> Path:
    """An installed ``hubby`` package shaped like huggingface_hub."""
    (site / "hubby").mkdir()
    (site / "hubby" / "__init__.py").write_text(HUB_INIT)
    (site / "hubby" / "hf_api.py").write_text(HF_API)
    return site / "hubby"


def test_a_fake_of_a_bound_method_names_its_class(feature: Repo, run: Run, hub: Path) -> None:
    """``get_model_info`` -> ``hubby.model_info`` -> ``api.model_info`` -> ``->
    ModelInfo``: ✗ naming the class; ``whoami`` has no ``-> T``: the plain ⚠."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/card.py", CARD + "\nfrom hubby import whoami\n")
    feature.write("tests/conftest.py", CONFTEST)
    rows = [(line, sev, message) for _p, line, sev, message in found(run, "any-annotation")]
    assert [(line, sev) for line, sev, _m in rows] == [(7, "error"), (11, "warning")], rows
    assert "stands in for `ModelInfo`" in rows[0][2]
    assert "`HfApi.model_info() -> ModelInfo`" in rows[0][2]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("model_info", ("HfApi", "model_info")),
        ("unbound_info", ("HfApi", "model_info")),
        ("whoami", ("HfApi", "whoami")),
        ("api", None),  # an instance, not a method
        ("missing", None),
    ],
)
def test_bound_alias(hub: Path, name: str, expected: tuple[str, str] | None) -> None:
    path = hub / "hf_api.py"
    info = path.stat()
    assert fakes._bound_alias(str(path), info.st_mtime_ns, info.st_size, name) == expected


def test_a_comment_ends_at_its_line_in_a_parenthesised_import() -> None:
    """Every name of the list is read, not only the first before a comment."""
    found = list(fakes.from_imports(HUB_INIT.encode()))
    assert [(module, name) for module, name, _local in found] == [
        ("typing", "TYPE_CHECKING"),
        (".hf_api", "HfApi"),
        (".hf_api", "dataset_info"),
        (".hf_api", "model_info"),
    ]
