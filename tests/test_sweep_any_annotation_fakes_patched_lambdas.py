# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a fake a test's replacement function or lambda returns, where that
replacement is patched over a real function by its dotted path, stands in for what the
real function's ``-> T`` says, a class reached through a module-level alias
(``PretrainedConfig = PreTrainedConfig``) too; a data class that takes any attribute
needs no keyword of the fake among its declared fields."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

CONFIG = """\
from dataclasses import dataclass


@strict(accept_kwargs=True)
@dataclass(repr=False)
class PreTrainedConfig:
    model_type: str = ""
    architectures: list[str] | None = None


PretrainedConfig = PreTrainedConfig
"""

TRAIN = """\
from enginelib.hf import PretrainedConfig, Record


def get_verifier_config(path: str, **kwargs: object) -> PretrainedConfig:
    return PretrainedConfig()


def create_layer_config(**kwargs: object) -> PretrainedConfig:
    return PretrainedConfig()


def get_record(path: str) -> Record:
    return Record(size=1)


def get_name(path: str) -> str:
    return path
"""

TEST = """\
from types import SimpleNamespace


def _patch_verifier(monkeypatch, hidden_size: int) -> None:
    monkeypatch.setattr(
        "scripts.train.get_verifier_config",
        lambda _path, **_kwargs: SimpleNamespace(hidden_size=hidden_size, vocab_size=2),
    )


def test_build(monkeypatch) -> None:
    def _fake_create(**_kwargs):
        return SimpleNamespace(vocab_size=128)

    monkeypatch.setattr("scripts.train.create_layer_config", _fake_create)
    monkeypatch.setattr("scripts.train.get_record", lambda _p: SimpleNamespace(other=1))
    monkeypatch.setattr("scripts.train.get_name", lambda _p: SimpleNamespace(text="a"))
"""


def test_a_fake_a_patched_lambda_or_function_returns(feature: Repo, run: Run, site: Path) -> None:
    # speculators test_draft_config_init.py: ``get_verifier_config`` (``->
    # PretrainedConfig``, transformers' alias of ``PreTrainedConfig``, a config that
    # takes any attribute) patched with a lambda returning a fake. ``Record`` is a
    # dataclass whose fields are all its attributes: ``other=1`` is not one of them.
    (site / "enginelib" / "hf.py").write_text(
        CONFIG + "\n\n@dataclass\nclass Record:\n    size: int = 0\n"
    )
    feature.write("scripts/__init__.py", "")
    feature.write("scripts/train.py", TRAIN)
    feature.write("tests/test_train.py", TEST)
    feature.commit("add")
    rows = [
        (line, severity, message) for _p, line, severity, message in found(run, "any-annotation")
    ]
    errors = [(line, message) for line, severity, message in rows if severity == "error"]
    assert [line for line, _m in errors] == [7, 13], rows
    for _line, message in errors:
        assert "stands in for `PretrainedConfig`" in message, message
    assert "get_verifier_config" in errors[0][1]
    assert [line for line, severity, _m in rows if severity == "warning"] == [16, 17], rows
