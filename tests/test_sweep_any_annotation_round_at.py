# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ readings of round AT (set zzzu: botorch, autogen):

* an item of a returned tuple display whose builtin annotation cannot hold the kind it
  is given (``return dims_to_keep, fn`` under ``-> tuple[list[int], ...]`` with
  ``dims_to_relax, dims_to_keep = {}, {}``; a parameter annotated ``dict`` returned as
  that item), also in an old ``return`` the change rewrote when that item's text is new;
* ``None`` written as an item of an old ``return`` under an item annotated with a class
  of a package not installed here (gpytorch's ``Kernel``);
* ``super().__init__(model, posterior_transform)`` handing the subclass's own
  ``posterior_transform=None`` to a base ``__init__`` that annotates it without None and
  tests it for None;
* a fake passed by keyword to a typed model class the test imports from a package's
  ``__init__`` that re-exports it, of a namespace package whose ``py.typed`` sits in its
  subpackage (``azure.ai.agents``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, blocking, found

RELAX = """\
from typing import Callable


def relax(
    discrete_dims: dict[int, list[float]],
    most: int,
    fn: Callable[[int], int] | None,
) -> tuple[list[int], Callable[[int], int] | None]:
    dims_to_relax, dims_to_keep = {}, {}
    for index, values in discrete_dims.items():
        if len(values) > most:
            dims_to_relax[index] = values
        else:
            dims_to_keep[index] = values
    if not dims_to_relax:
        return discrete_dims, fn
    return dims_to_keep, fn


def fine(dims: list[int]) -> tuple[list[int], int]:
    kept, count = [], 0
    for d in dims:
        kept.append(d)
    return kept, count
"""


def test_an_item_of_another_kind_in_a_new_function(feature: Repo, run: Run) -> None:
    feature.write("pkg/relax.py", RELAX)
    rows = blocking(run, "any-annotation")
    assert [line for _p, line, _m in rows] == [8]
    message = rows[0][2]
    assert "returns a dict as item 1 (`discrete_dims, fn`) on line 16" in message
    assert "returns a dict as item 1 (`dims_to_keep, fn`) on line 17" in message
    assert "annotate item 1 `dict` (not `list[int]`)" in message


OLD_RELAX = """\
def relax(dims: list[int], most: int) -> tuple[list[int], int]:
    keep = [d for d in dims if d < most]
    return keep, most
"""


def test_an_item_the_change_writes_into_an_old_return(feature: Repo, run: Run) -> None:
    """The body and the return's item 1 are the change's; the annotation is old: ✗ at
    the return."""
    feature.on_main({"pkg/relax.py": OLD_RELAX})
    feature.write(
        "pkg/relax.py",
        "def relax(dims: list[int], most: int) -> tuple[list[int], int]:\n"
        "    keep = {d: d for d in dims if d < most}\n"
        "    return keep_map, most\n".replace("keep_map", "keep"),
    )
    # ``keep`` keeps its text: item 1 is as old as before (its kind changed with the
    # binding line, not the return)
    assert blocking(run, "any-annotation") == []
    feature.write(
        "pkg/relax.py",
        "def relax(dims: list[int], most: int) -> tuple[list[int], int]:\n"
        "    kept = {d: d for d in dims if d < most}\n"
        "    return kept, most\n",
    )
    rows = blocking(run, "any-annotation")
    assert [line for _p, line, _m in rows] == [3]
    assert "returns a dict as item 1 (`kept, most`) on line 3" in rows[0][2]


KERNELS = """\
from gpkit.kernels import Kernel, Mean


def load(n: int) -> tuple[Mean, Kernel]:
    mean = Mean()
    return mean, Kernel(n)
"""


def test_none_written_into_an_old_return_under_an_uninstalled_class(
    feature: Repo, run: Run
) -> None:
    """``gpkit`` is neither in the repository nor installed: ``Kernel`` imported from it
    reads as a class, as a parameter's annotation does."""
    feature.on_main({"pkg/kernels.py": KERNELS})
    feature.write("pkg/kernels.py", KERNELS.replace("return mean, Kernel(n)", "return mean, None"))
    rows = blocking(run, "any-annotation")
    assert [line for _p, line, _m in rows] == [6]
    assert "returns None as item 2 (`mean, None`)" in rows[0][2]
    assert "annotate item 2 `Kernel | None`" in rows[0][2]


def test_an_uninstalled_alias_name_is_not_read_as_a_class(feature: Repo, run: Run) -> None:
    """``KernelLike`` reads as an alias, not a class: unsure, no ✗."""
    old = KERNELS.replace("Kernel, Mean", "KernelLike, Mean").replace(
        "tuple[Mean, Kernel]", "tuple[Mean, KernelLike]"
    )
    feature.on_main({"pkg/kernels.py": old})
    feature.write("pkg/kernels.py", old.replace("return mean, Kernel(n)", "return mean, None"))
    assert blocking(run, "any-annotation") == []


ACQUISITION = """\
class Transform:
    offset: float = 0.0


class Base:
    def __init__(self, model: str, transform: Transform) -> None:
        self.maximize = True
        if transform is not None:
            self.maximize = transform.offset >= 0


class Expected(Base):
    def __init__(self, model: str, transform: Transform | None = None) -> None:
        super().__init__(model, transform)


class Narrowed(Base):
    def __init__(self, model: str, transform: Transform | None = None) -> None:
        if transform is None:
            transform = Transform()
        super().__init__(model=model, transform=transform)
"""


def test_a_subclass_hands_its_none_default_to_the_base_init(feature: Repo, run: Run) -> None:
    feature.write("pkg/acq.py", ACQUISITION)
    rows = blocking(run, "any-annotation")
    assert [line for _p, line, _m in rows] == [6]
    message = rows[0][2]
    assert "`transform: Transform` of `Base` is contradicted by a caller" in message
    assert "the call at line 14 passes `transform`, its own parameter defaulting to None" in (
        message
    )


def test_a_base_that_never_tests_for_none_is_left_alone(feature: Repo, run: Run) -> None:
    """The base only stores what it is given: the None means nothing to it (the implicit
    Optional's reading), no ✗."""
    feature.write(
        "pkg/acq.py",
        ACQUISITION.replace(
            "        self.maximize = True\n        if transform is not None:\n"
            "            self.maximize = transform.offset >= 0\n",
            "        self.transform = transform\n",
        ),
    )
    assert blocking(run, "any-annotation") == []


def _agents(root: Path) -> None:
    """An installed namespace package ``cloudsdk.ai.agents`` (azure-shaped): ``py.typed``
    in the subpackage, model classes defined in ``models/_models.py`` and re-exported by
    ``models/__init__.py``, string annotations through a ``TYPE_CHECKING`` module alias."""
    pkg = root / "cloudsdk" / "ai" / "agents"
    (pkg / "models").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "py.typed").write_text("")
    (pkg / "models" / "__init__.py").write_text(
        "from ._models import SubmitAction, SubmitDetails\n"
    )
    (pkg / "models" / "_models.py").write_text(
        "from typing import TYPE_CHECKING, Any, List\n\n"
        "if TYPE_CHECKING:\n    from .. import models as _models\n\n\n"
        "class _Model:\n    pass\n\n\n"
        "class SubmitDetails(_Model):\n"
        "    tool_calls: List[str] = []\n\n"
        "    def __init__(self, *, tool_calls: List[str]) -> None:\n"
        "        self.tool_calls = tool_calls\n\n\n"
        "class SubmitAction(_Model):\n"
        '    details: "_models.SubmitDetails"\n\n'
        '    def __init__(self, *, details: "_models.SubmitDetails") -> None:\n'
        "        self.details = details\n"
    )


@pytest.mark.parametrize("typed", [True, False])
def test_a_fake_given_to_a_reexported_model_of_a_namespace_package(
    feature: Repo, run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typed: bool
) -> None:
    root = tmp_path / "site"
    _agents(root)
    if not typed:
        (root / "cloudsdk" / "ai" / "agents" / "py.typed").unlink()
    monkeypatch.syspath_prepend(str(root))
    feature.write(
        "tests/test_agent.py",
        "from types import SimpleNamespace\n\n"
        "from cloudsdk.ai.agents.models import SubmitAction\n\n\n"
        "def test_submit():\n"
        "    action = SubmitAction(details=SimpleNamespace(tool_calls=[]))\n"  # 7
        "    assert action.details.tool_calls == []\n",
    )
    rows = [r for r in found(run, "any-annotation") if r[0] == "tests/test_agent.py"]
    assert [(r[1], r[2]) for r in rows] == [(7, "error" if typed else "warning")]
    if typed:
        assert "stands in for `SubmitDetails`" in rows[0][3]
        assert "the parameter `details` of `SubmitAction` it is passed to" in rows[0][3]


@pytest.mark.parametrize("rewritten", ["return a, b, None", "return (a,)", "return a, None"])
def test_an_old_return_rewritten_to_another_length(feature: Repo, run: Run, rewritten: str) -> None:
    """An old ``return a, b`` under an old ``-> tuple[Kernel, Kernel]`` rewritten to
    another length is the arity reading's (and as old as before): read without pairing
    items of displays of unequal length (TransformerEngine's commit crashed the sweep
    with a ``zip`` of unequal lengths before); the same length with a new ``None`` item
    is ✗."""
    old = (
        "from gpkit.kernels import Kernel\n\n\n"
        "def pair(a: Kernel, b: Kernel) -> tuple[Kernel, Kernel]:\n"
        "    return a, b\n"
    )
    feature.on_main({"pkg/pair.py": old})
    feature.write("pkg/pair.py", old.replace("return a, b", rewritten))
    rows = blocking(run, "any-annotation")
    expected = [5] if rewritten == "return a, None" else []
    assert [line for _p, line, _m in rows] == expected
