# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a parameter annotation a caller contradicts with what it passes
as written (the pattern's "a parameter annotation its callers contradict"): ``None`` to a
``str``, a string to a ``torch.Tensor``, an int to a ``list[int]``, a tuple of two to a
``tuple[str]``. Only calls that certainly reach the function count: the module's own
``f(...)``, ``self.m(...)`` in the class, ``C(...)`` for ``__init__``, and other modules'
calls of a name they import from it; never a string for ``torch.device`` (its APIs take
the spelling), a number for a number (``60.0`` for an ``int``), a list of candidates each of which the annotation
holds (a tuning grid), a test's call of production code (a wrong value on purpose), a
None the body does not expect (only stored), or an annotation the change did not write."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

MODULE = """\
import torch


def scale(x: torch.Tensor, factor: float, names: tuple[str] | None = None) -> torch.Tensor:
    return x * factor


def label(name: str) -> str:
    return name or "?"


class Box:
    def __init__(self, size: list[int], flag: bool = False) -> None:
        self.size = size

    def grow(self, by: int) -> None:
        self.size.append(by)

    def run(self) -> None:
        self.grow("2")


def main() -> None:
    scale("abc", 1)
    label(None)
    Box(3, flag=1)
    scale(torch.ones(1), 2.0, names=("a", "b"))
"""


def _blocking(run: Run) -> dict[int, str]:
    return {
        line: message
        for _p, line, severity, message in found(run, "any-annotation")
        if severity == "error"
    }


def test_literals_the_annotations_reject(feature: Repo, run: Run) -> None:
    feature.write("pkg/mod.py", MODULE)
    blocking = _blocking(run)
    assert sorted(blocking) == [4, 8, 13, 16]
    assert "`x: torch.Tensor` of `scale`" in blocking[4]
    assert "line 24 passes a str" in blocking[4]
    # the same line's second parameter is joined into the one finding
    assert "`names: tuple[str] | None`" in blocking[4] and "a tuple of 2 items" in blocking[4]
    assert "passes None; annotate `name: str | None`" in blocking[8]
    # ``__init__`` is named by its class; ``flag=1`` to a bool is not a contradiction
    assert "`size: list[int]` of `Box`" in blocking[13] and "passes an int" in blocking[13]
    assert "flag" not in blocking[13]
    assert "`by: int` of `grow`" in blocking[16] and "line 20 passes a str" in blocking[16]


@pytest.mark.parametrize(
    ("signature", "call"),
    [
        ("device: torch.device", 'f("cuda")'),
        ("flag: bool", "f(1)"),
        ("rate: float", "f(3)"),
        ("execution_timeout: int = 60", "f(execution_timeout=60.0)"),
        ("count: Optional[int]", "f(2.5)"),
        ("x: torch.Tensor = None", "f(None)"),
        ("names: tuple[str, ...]", 'f(("a", "b"))'),
        ("names: tuple[str]", 'f(("a",))'),
        ("value: Optional[int]", "f(None)"),
        ("value: 'MyType'", 'f("x")'),
        ("path: str  # type: ignore", "f(None)"),
        ("x: int", "f(*args)"),
        ("use_sym: bool", "f([True, False])"),
        ("group_size: int", "f(group_size=[32, -1, 128])"),
        ("point: Sequence[float]", "f((0.5, 0.5))"),
        ("dim: int | Sequence[int]", "f((1, 2))"),
        ("handler: Client", "f(None)"),
    ],
)
def test_a_value_the_annotation_holds_or_cannot_be_placed(
    feature: Repo, run: Run, signature: str, call: str
) -> None:
    feature.write(
        "pkg/ok.py",
        "from typing import Optional, Sequence\n\nimport torch\n\n\n"
        "class Client:\n    pass\n\n\n"
        f"def f({signature}) -> None:\n    print({signature.split(':')[0]})\n\n\n"
        f"def g(*args: int) -> None:\n    {call}\n",
    )
    assert not any("contradicted by a caller" in m for m in _blocking(run).values())


def test_another_modules_call_counts_only_when_it_imports_the_name(feature: Repo, run: Run) -> None:
    feature.write("pkg/lib.py", "def label(name: str) -> str:\n    return name or '?'\n")
    feature.write(
        "pkg/user.py", "from pkg.lib import label\n\n\ndef use() -> None:\n    label(None)\n"
    )
    # a same-named function of another module, called there with None: not this one's
    feature.write(
        "pkg/elsewhere.py",
        "def label(name):\n    return name\n\n\ndef other() -> None:\n    label(None)\n",
    )
    blocking = _blocking(run)
    assert "the call at pkg/user.py:5 passes None" in blocking[1]


def test_a_same_named_call_elsewhere_is_not_this_function(feature: Repo, run: Run) -> None:
    feature.write("pkg/lib.py", "def label(name: str) -> str:\n    return str(name)\n")
    feature.write(
        "pkg/elsewhere.py",
        "def label(name):\n    return name\n\n\ndef other() -> None:\n    label(None)\n",
    )
    feature.write(
        "pkg/methods.py",
        "class C:\n    def label(self, name: str) -> str:\n        return name\n\n\n"
        "def use(obj: object) -> None:\n    obj.label(None)\n",
    )
    assert not any("contradicted by a caller" in m for m in _blocking(run).values())


def test_an_old_annotation_is_not_the_changes(feature: Repo, run: Run) -> None:
    feature.on_main({"pkg/old.py": "def label(name: str) -> str:\n    return str(name)\n"})
    feature.write(
        "pkg/old.py",
        "def label(name: str) -> str:\n    return str(name)\n\n\nX = label(None)\n",
    )
    assert not any("contradicted by a caller" in m for m in _blocking(run).values())


def test_a_redefined_function_is_not_judged(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/twice.py",
        "import sys\n\nif sys.platform == 'win32':\n"
        "    def label(name: str) -> str:\n        return name\nelse:\n"
        "    def label(name: str) -> str:\n        return name\n\n\nX = label(None)\n",
    )
    assert not any("contradicted by a caller" in m for m in _blocking(run).values())


def test_a_tests_wrong_value_is_on_purpose(feature: Repo, run: Run) -> None:
    feature.write("pkg/lib.py", "def label(name: str) -> str:\n    return name or '?'\n")
    feature.write(
        "tests/test_lib.py",
        "import pytest\n\nfrom pkg.lib import label\n\n\n"
        "def test_rejects() -> None:\n    label(None)\n    label(3)\n",
    )
    assert not any("contradicted by a caller" in m for m in _blocking(run).values())


def test_a_test_helper_is_judged_by_its_own_callers(feature: Repo, run: Run) -> None:
    # lorax's ``lora_ref_impl(y, x, wa: torch.Tensor, ...)`` called with ``[wa, wa]``
    feature.write(
        "tests/test_sgmv.py",
        "import torch\n\n\ndef ref(wa: torch.Tensor) -> torch.Tensor:\n    return wa\n\n\n"
        "def test_ref() -> None:\n    wa = torch.ones(1)\n    ref([wa, wa])\n",
    )
    blocking = _blocking(run)
    assert "`wa: torch.Tensor` of `ref`" in blocking[4] and "passes a list" in blocking[4]


@pytest.mark.parametrize(
    ("body", "reported"),
    [
        ("    return status or {}\n", True),
        ("    if status is None:\n        return {}\n    return status\n", True),
        ("    return dict(status)\n", False),
    ],
    ids=["truth-tested", "none-tested", "dereferenced"],
)
def test_a_none_counts_where_the_body_expects_it(
    feature: Repo, run: Run, body: str, reported: bool
) -> None:
    # FastChat's ``register_worker(..., worker_status: dict, ...)`` given None by
    # ``refresh_all_workers`` and testing ``if not worker_status``
    feature.write(
        "pkg/ctl.py",
        f"def register(status: dict) -> dict:\n{body}\n\n"
        "def refresh() -> None:\n    register(None)\n",
    )
    messages = _blocking(run)
    assert ("passes None" in messages.get(1, "")) is reported


def test_each_nested_helper_is_called_in_its_own_scope(feature: Repo, run: Run) -> None:
    # vLLM 0.33's tests/renderers/chat_utils/test_item_tracker.py: two tests each define
    # an async ``_fetch`` helper, one taking ``name: str``, the other ``should_fail: bool``
    feature.write(
        "tests/test_tracker.py",
        "def test_one() -> None:\n"
        "    def _fetch(name: str, delay: float) -> str:\n        return name\n\n"
        "    _fetch('video-0', 0.02)\n\n\n"
        "def test_two() -> None:\n"
        "    def _fetch(should_fail: bool, delay: float) -> bool:\n        return should_fail\n\n"
        "    _fetch(True, 0)\n\n\n"
        "def test_three() -> None:\n"
        "    def _fetch(count: int) -> int:\n        return count\n\n"
        "    _fetch('three')\n",
    )
    blocking = _blocking(run)
    assert [line for line, m in blocking.items() if "contradicted by a caller" in m] == [16]
    assert "`count: int` of `_fetch`" in blocking[16] and "line 19 passes a str" in blocking[16]


def test_a_module_function_is_not_called_where_a_nested_one_shadows_it(
    feature: Repo, run: Run
) -> None:
    feature.write(
        "pkg/shadow.py",
        "def label(name: str) -> str:\n    return name or '?'\n\n\n"
        "def use() -> None:\n"
        "    def label(flag: bool) -> bool:\n        return flag\n\n"
        "    label(None)\n",
    )
    assert not any("contradicted by a caller" in m for m in _blocking(run).values())


def test_a_fixture_is_not_called_where_a_test_takes_its_value(feature: Repo, run: Run) -> None:
    # bionemo's ``tokenizer(recipe_path: Path)`` fixture (set zzzm): the tests take the
    # fixture's value as their ``tokenizer`` parameter and call it with a list
    feature.write(
        "tests/test_tok.py",
        "from pathlib import Path\n\nimport pytest\n\n\n"
        "@pytest.fixture\ndef tokenizer(recipe_path: Path):\n    return load(recipe_path)\n\n\n"
        "def test_pad(tokenizer):\n    tokenizer(['GG', 'GGGG'])\n\n\n"
        "def test_local():\n    tokenizer = make()\n    tokenizer(['GG'])\n\n\n"
        "def test_direct():\n    tokenizer(['GG'])\n",
    )
    blocking = _blocking(run)
    # only the call of the module's own ``tokenizer`` (line 21) contradicts it
    assert [line for line, m in blocking.items() if "contradicted by a caller" in m] == [7]
    assert "line 21 passes a list" in blocking[7]


@pytest.mark.parametrize(
    ("imported", "counted"),
    [
        ("from pkg.lib import label", True),
        ("from .lib import label", True),
        ("from pkg import label", True),  # re-exported by the package
        ("from other.names import label", False),  # another module's function
        ("from pkg.lib import label as tag", False),  # called as ``tag``, read as unsure
    ],
)
def test_an_import_names_the_function_by_its_module(
    feature: Repo, run: Run, imported: str, counted: bool
) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/lib.py", "def label(name: str) -> str:\n    return name or '?'\n")
    feature.write("pkg/user.py", f"{imported}\n\n\ndef use() -> None:\n    label(None)\n")
    messages = _blocking(run)
    assert ("pkg/user.py:5 passes None" in messages.get(1, "")) is counted
