# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup: an override whose base method itself takes ``**kwargs`` keeps the
interface's catch-all. optimum-intel's ``IPEXModel._from_pretrained`` builds
``cls(model, config=..., **kwargs)`` with the same dict it gave ``from_pretrained``, so
every subclass's ``__init__(**kwargs)`` must take keys it never reads; huggingface_hub's
``ModelHubMixin.from_pretrained`` hands every user keyword to ``_from_pretrained(
**model_kwargs)``. A new key read there is the ⚠ of any read, not the ✗ of a function
that silently drops unknown keys: the base class fixes the signature (the brief's reading
4). An override of a base whose method names its parameters keeps the ✗."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

MODELS = """\
class Model:
    def __init__(self, model, config=None, **kwargs):
        self.model = model
        self.config = config

    @classmethod
    def from_pretrained(cls, model_id, **kwargs):
        model = load(model_id, **kwargs)
        return cls(model, config=kwargs.pop("config", None), **kwargs)


class ModelForCausalLM(Model):
    def __init__(self, model, config=None, use_cache=True, **kwargs):
        super().__init__(model, config)
        self.use_cache = use_cache
{body}
"""
LAYER = """\
from pkg.strict import Layer


class TELayer(Layer):
    def __init__(self, config, layer_number=1, **kwargs):
        super().__init__(config, layer_number)
{body}
"""
ENGINE = """\
class Engine:
    def __init__(self, model, **kwargs):
        self.model = model
{body}
"""
FEATURE_BASE = {
    "pkg/__init__.py": "",
    "pkg/models.py": MODELS.format(body=""),
    "pkg/hub.py": (
        "class HubMixin:\n"
        "    @classmethod\n"
        "    def _from_pretrained(cls, *, model_id, revision=None, **model_kwargs):\n"
        "        raise NotImplementedError\n"
    ),
    "pkg/layer.py": LAYER.format(body=""),
    "pkg/engine.py": ENGINE.format(body=""),
    "pkg/strict.py": (
        "class Layer:\n    def __init__(self, config, layer_number=1):\n        self.config = config\n"
    ),
}
NEW_READ = '        self.trust = kwargs.get("trust_remote_code", False)\n'


def test_a_new_key_in_an_override_of_a_catch_all_is_a_warning(feature: Repo, run: Run) -> None:
    """The base ``__init__`` takes ``**kwargs``: the subclass's drop is the interface's."""
    feature.write("pkg/models.py", MODELS.format(body=NEW_READ))
    rows = found(run, "kwargs-lookup")
    assert [(r[0], r[1], r[2]) for r in rows] == [("pkg/models.py", 16, "warning")]
    assert "silently dropped" not in rows[0][3]


def test_an_imported_base_with_a_catch_all_fixes_the_signature(feature: Repo, run: Run) -> None:
    """The base is another module's class (``ModelHubMixin``'s shape): followed there."""
    feature.write(
        "pkg/runtime.py",
        "from pkg.hub import HubMixin\n\n\n"
        "class Runtime(HubMixin):\n"
        "    @classmethod\n"
        "    def _from_pretrained(cls, *, model_id, revision=None, **model_kwargs):\n"
        '        tp = model_kwargs.get("tp", 1)\n'
        "        return cls(model_id, tp)\n",
    )
    rows = found(run, "kwargs-lookup")
    assert [(r[0], r[1], r[2]) for r in rows] == [("pkg/runtime.py", 7, "warning")]


@pytest.mark.parametrize(
    ("path", "template", "line"),
    [
        pytest.param("pkg/layer.py", LAYER, 7, id="base-names-its-parameters"),
        pytest.param("pkg/engine.py", ENGINE, 4, id="no-base"),
    ],
)
def test_an_own_catch_all_that_drops_keys_stays_an_error(
    feature: Repo, run: Run, path: str, template: str, line: int
) -> None:
    """No base method takes ``**kwargs``: a new key read by an older function that drops
    the keys it does not read is ✗."""
    feature.write(path, template.format(body=NEW_READ))
    rows = found(run, "kwargs-lookup")
    assert [(r[0], r[1], r[2]) for r in rows] == [(path, line, "error")]
    assert "silently dropped on fail-fast path `__init__`" in rows[0][3]
