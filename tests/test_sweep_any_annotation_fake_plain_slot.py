# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a keyword match is no evidence where the repository annotates the slot
the fake fills with a plain class; with no plain consensus the match stands."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found


def _rows(run: Run) -> list[tuple[int, str, str]]:
    return [(r[1], r[2], r[3]) for r in found(run, "any-annotation") if r[0].startswith("tests/")]


# -- a keyword match against what the repository says the slot holds -------------------

_AXOLOTL = {
    "pkg/__init__.py": "",
    "pkg/dict.py": "class DictDefault(dict):\n    def __getattr__(self, name: str) -> object:\n"
    "        return self.get(name)\n",
    "pkg/schema.py": "from pydantic import BaseModel\n\n\n"
    "class InputConfig(BaseModel):\n"
    "    layer_offloading: bool = False\n    activation_offloading: str | None = None\n"
    "    gradient_checkpointing: bool = False\n",
    "pkg/builders.py": "from pkg.dict import DictDefault\n\n\n"
    # docstrings' ``cfg: The ...`` name no class: they do not dilute the consensus
    + "".join(
        f'def doc_{i}(cfg):\n    """Args:\n        cfg: The config.\n    """\n\n\n'
        for i in range(2)
    )
    + "class Builder:\n    def __init__(self, cfg):\n        self.cfg = cfg\n\n"
    "    def configure(self, kwargs: dict) -> None:\n"
    "        if self.cfg.layer_offloading:\n            kwargs['layer_offloading'] = True\n\n\n"
    + "".join(
        f"def step_{i}(cfg: DictDefault) -> bool:\n    return bool(cfg.get('x'))\n\n\n"
        for i in range(6)
    ),
}


@pytest.mark.parametrize(
    ("parameter", "severity"),
    [
        # axolotl: the code annotates ``cfg`` as the plain ``DictDefault`` (six times,
        # never the record): the field match is no evidence, ⚠
        ("cfg", "warning"),
        # a parameter the code never annotates with a plain class: the match stands, ✗
        ("options", "error"),
    ],
)
def test_a_keyword_match_to_a_record_and_what_the_code_annotates_the_slot_with(
    feature: Repo, run: Run, parameter: str, severity: str
) -> None:
    """``SimpleNamespace(layer_offloading=..., activation_offloading=...)`` passed to the
    test's ``_kwargs(<parameter>)``, whose keywords are all fields of the pydantic
    ``InputConfig`` the test imports."""
    for relpath, text in _AXOLOTL.items():
        feature.write(relpath, text)
    feature.write(
        "tests/test_builders.py",
        "from types import SimpleNamespace\n\n"
        "from pkg.builders import Builder\n"
        "from pkg.schema import InputConfig\n\n\n"
        f"def _kwargs({parameter}):\n"
        "    kwargs = {}\n"
        f"    Builder.configure(SimpleNamespace(cfg={parameter}), kwargs)\n"
        "    return kwargs\n\n\n"
        "def test_offload() -> None:\n"
        "    kwargs = _kwargs(\n"
        "        SimpleNamespace(layer_offloading=True, activation_offloading='x')\n"  # 15
        "    )\n"
        "    assert kwargs\n"
        "    assert InputConfig\n",
    )
    rows = [r for r in _rows(run) if r[0] == 15]
    assert [(r[0], r[1]) for r in rows] == [(15, severity)]
    if severity == "error":
        assert "stands in for `InputConfig`" in rows[0][2]
