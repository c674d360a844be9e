# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup, a dict filtered down to the keys of the class it builds: "``**kwargs``
plumbing silently drops unknown keys on a fail-fast path (init, config validation)".

``{k: v for k, v in kwargs.items() if k in VALID}`` handed with ``**`` to ``C(...)``,
``VALID`` computed from ``C`` (``dataclasses.fields(C)``, its signature): building ``C``
is its init path, and a misspelt option is dropped there (torchrec's
``create_model_config``, modelscope's ``load_dataset_builder``, set zzzk). An ``__init__``
setting only the keys ``hasattr(self, k)`` names drops the rest too (llama-models'
``QuantizationArgs``)."""

from __future__ import annotations

import time
from functools import partial

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

FEATURE_BASE = {"pkg/__init__.py": ""}

rows = partial(found, rule="kwargs-lookup")

CONFIGS = """\
from dataclasses import dataclass, fields


@dataclass
class DLRMConfig:
    layers: int = 2


def create_model_config(model_name, **kwargs):
    model_class = {"dlrm": DLRMConfig}[model_name]
    valid_field_names = {field.name for field in fields(model_class)}
    filtered_kwargs = {k: v for k, v in kwargs.items() if k in valid_field_names}
    return model_class(**filtered_kwargs)
"""


def test_a_new_function_keeping_the_fields_of_the_class_it_builds(feature: Repo, run: Run) -> None:
    """torchrec's ``create_model_config``: one ✗ at the signature, naming the class."""
    feature.write("pkg/configs.py", CONFIGS)
    feature.commit("new")
    got = rows(run)
    assert [(line, sev) for _p, line, sev, _m in got] == [(9, "error")]
    assert "keeps only the keys `model_class` takes" in got[0][3]
    assert "create_model_config -> model_class()" in got[0][3]


def test_a_filter_not_from_the_built_class_is_no_drop(feature: Repo, run: Run) -> None:
    """The same filter by a fixed set, or handed to another callable than the one its
    fields came from, says nothing of the class built: no ✗."""
    feature.write(
        "pkg/fixed.py",
        "def make(**kwargs):\n"
        "    kept = {k: v for k, v in kwargs.items() if k in {'a', 'b'}}\n"
        "    return Thing(**kept)\n",
    )
    feature.write(
        "pkg/other.py",
        "from dataclasses import fields\n\n"
        "def make_other(cls, **kwargs):\n"
        "    valid = {f.name for f in fields(cls)}\n"
        "    kept = {k: v for k, v in kwargs.items() if k in valid}\n"
        "    return other(**kept)\n",
    )
    feature.commit("new")
    assert [sev for _p, _l, sev, _m in rows(run)] == []


BUILDER_OLD = """\
def load_dataset_builder(path, **config_kwargs):
    builder_cls = get_builder_class(path)
    ready = bool(config_kwargs)
    return builder_cls(path=path, ready=ready, **config_kwargs)
"""

BUILDER_NEW = """\
def load_dataset_builder(path, **config_kwargs):
    builder_cls = get_builder_class(path)
    ready = bool(config_kwargs)
    _config_cls = builder_cls.BUILDER_CONFIG_CLASS
    if hasattr(_config_cls, "__dataclass_fields__"):
        _valid_fields = set(_config_cls.__dataclass_fields__.keys())
        config_kwargs = {
            k: v for k, v in config_kwargs.items()
            if k in _valid_fields
        }
    return builder_cls(path=path, ready=ready, **config_kwargs)
"""


def test_an_old_function_made_to_filter_its_dict(feature: Repo, run: Run) -> None:
    """modelscope's ``load_dataset_builder`` rebinds its ``**config_kwargs`` to the
    config class's fields before building: the ✗ sits on the filter, the line the change
    adds (its signature is old); before the change the dict went on whole."""
    feature.git("checkout", "-q", "main")
    feature.write("pkg/builder.py", BUILDER_OLD)
    feature.commit("old")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    assert rows(run) == []
    feature.write("pkg/builder.py", BUILDER_NEW)
    feature.commit("filter")
    got = rows(run)
    assert [(line, sev) for _p, line, sev, _m in got] == [(7, "error")]
    assert "load_dataset_builder -> builder_cls()" in got[0][3]


QUANT = """\
from dataclasses import dataclass


@dataclass
class QuantizationArgs:
    scheme: str | None = None
    group_size: int | None = None

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            if k == "scheme":
                setattr(self, k, v.upper())
            else:
                if hasattr(self, k):
                    setattr(self, k, v)
"""


def test_an_init_setting_only_the_attributes_it_has(feature: Repo, run: Run) -> None:
    """llama-models' ``QuantizationArgs.__init__``: keys ``hasattr(self, k)`` does not
    name are dropped (a misspelt ``group_sise``): ✗; with a final ``else`` that keeps
    the rest, nothing is dropped."""
    feature.write("pkg/quant.py", QUANT)
    keeps = QUANT.replace(
        "                if hasattr(self, k):\n                    setattr(self, k, v)\n",
        "                self.extra[k] = v\n",
    )
    feature.write("pkg/keeps.py", keeps.replace("QuantizationArgs", "Kept"))
    feature.commit("new")
    got = rows(run)
    assert [(p, line, sev) for p, line, sev, _m in got] == [("pkg/quant.py", 9, "error")]
    assert "reads only the keys its tests keep" in got[0][3]


@pytest.mark.timing
def test_a_hostile_body_of_filters_and_chains_is_bounded(feature: Repo, run: Run) -> None:
    """Thousands of filtered calls and a long chain of names between the class and the
    filter: the walk back from the filter stops after eight names, each filter once."""
    lines = ["def build(cls, **kwargs):", "    v0 = fields(cls)"]
    lines += [f"    v{i} = v{i - 1}" for i in range(1, 3000)]
    lines += [f"    f{i} = {{k: x for k, x in kwargs.items() if k in v2999}}" for i in range(2000)]
    lines += [f"    g{i}(**f{i})" for i in range(2000)]
    feature.write("pkg/hostile.py", "\n".join(lines) + "\n")
    feature.commit("hostile")
    start = time.perf_counter()
    got = rows(run)
    assert time.perf_counter() - start < 15
    # The class is 2999 names behind the filter: too far to say the filter is its.
    assert [sev for _p, _l, sev, _m in got] == []
