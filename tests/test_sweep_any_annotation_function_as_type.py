# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for an annotation naming the builtin function ``callable`` or ``any``
as a type (ColossalChat's ``reward_fns: List[callable]``): a type checker rejects it
("not valid as a type") and it tells the reader nothing. Not when the file binds the
name itself, not in a string, not on a line the change keeps."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

REWARD = """\
from typing import Any, Dict, List


class VerifiableReward:
    def __init__(self, reward_fns: List[callable], **kwargs: float) -> None:
        self.reward_fns = reward_fns


def score(value: any) -> float:
    return float(value)


def pick(table: Dict[str, any], *hooks: callable) -> callable:
    return hooks[0]


def fine(value: "any", hook: Any) -> object:
    return value
"""


def test_a_builtin_function_written_as_a_type(feature: Repo, run: Run) -> None:
    feature.write("pkg/reward.py", REWARD)
    rows = found(run, "any-annotation")
    blocking = [(line, message) for _p, line, severity, message in rows if severity == "error"]
    assert [line for line, _m in blocking] == [5, 9, 13]
    assert (
        "`callable` is a builtin function, not a type: annotate `Callable[..., T]`"
        in (blocking[0][1])
    )
    assert "parameter `value` is annotated `any` (line 9)" in blocking[1][1]
    # one finding for the line, naming each annotation
    assert "`Dict[str, any]`" in blocking[2][1] and "`pick`'s return" in blocking[2][1]


@pytest.mark.parametrize(
    "binding",
    ["from mylib import callable\n", "any = object\n"],
    ids=["imported", "assigned"],
)
def test_a_name_the_file_binds_is_its_own(feature: Repo, run: Run, binding: str) -> None:
    feature.write(
        "pkg/own.py",
        binding + "\n\ndef f(hook: callable, value: any) -> None:\n    return None\n",
    )
    rows = found(run, "any-annotation")
    name = "callable" if "callable" in binding else "any"
    assert not any(f"`{name}` is a builtin function" in m for _p, _l, _s, m in rows)


def test_an_old_annotation_is_not_the_changes(feature: Repo, run: Run) -> None:
    feature.on_main({"pkg/old.py": "def f(hook: callable) -> None:\n    return None\n"})
    feature.write("pkg/old.py", "def f(hook: callable) -> None:\n    return None\n\n\nX = 1\n")
    assert not any("builtin function" in m for _p, _l, _s, m in found(run, "any-annotation"))


FACTORIES = """\
import numpy as np
import torch
from PIL import Image


def run(image: Image.Image, seed: int) -> tuple[Image, str]:
    return image, ""


def load(audio: np.array = None, mask: torch.tensor = None) -> np.ndarray:
    return np.zeros(1)


def keep(tensor: torch.Tensor, picture: "Image") -> Image.Image:
    return picture
"""


def test_a_factory_or_a_module_written_as_a_type(feature: Repo, run: Run) -> None:
    """nunchaku's `-> tuple[Image, str]` with `from PIL import Image` (the module, whose
    class is `Image.Image`), DiffSynth's `input_audio: np.array = None` and a
    `torch.tensor` annotation: ✗ naming the type meant. `Image.Image`, `torch.Tensor`,
    `np.ndarray` and a string annotation are not."""
    feature.write("pkg/media.py", FACTORIES)
    rows = found(run, "any-annotation")
    blocking = [(line, message) for _p, line, severity, message in rows if severity == "error"]
    assert [line for line, _m in blocking] == [6, 10]
    assert (
        "`Image` is a module (PIL.Image), not a type: annotate `PIL.Image.Image`"
        in (blocking[0][1])
    )
    assert (
        "`np.array` is a function (numpy.array), not a type: annotate `numpy.ndarray`"
        in (blocking[1][1])
    )
    assert "`torch.tensor` is a function (torch.tensor), not a type" in blocking[1][1]


def test_a_local_name_like_a_factory_is_its_own(feature: Repo, run: Run) -> None:
    """A class of the file's own named `Image`, or an `np` imported from another library,
    names nothing: only a name the file's imports resolve to the factory or module
    counts."""
    feature.write(
        "pkg/own.py",
        "import mylib as np\n\n\nclass Image:\n    pass\n\n\n"
        "def f(picture: Image, values: np.array) -> None:\n    return None\n",
    )
    assert not any(s == "error" for _p, _l, s, _m in found(run, "any-annotation"))


VARIABLES = """\
import torch


def interpolate(path: str, dtype: str | None) -> str:
    model_kwargs: dict[str, any] = {}
    hook: "callable" = print
    if dtype is not None:
        model_kwargs["torch_dtype"] = dtype
    return path


class Trainer:
    progress: callable
    scale: torch.tensor = None
    fine: dict[str, object] = {}

    def __init__(self) -> None:
        self.hooks: list[callable] = []
"""


def test_a_variable_attribute_or_field_annotation_too(feature: Repo, run: Run) -> None:
    """instructlab's `model_kwargs: dict[str, any] = {}` in a function body: mypy rejects
    `any` as a type there as in a signature. Class attributes, dataclass-style fields and
    `self.x: T` are annotations too; a string annotation is not read."""
    feature.write("pkg/vars.py", VARIABLES)
    blocking = [
        (line, message)
        for _p, line, severity, message in found(run, "any-annotation")
        if severity == "error"
    ]
    assert [line for line, _m in blocking] == [5, 13, 14, 18]
    assert "`model_kwargs` is annotated `dict[str, any]` (line 5)" in blocking[0][1]
    assert "annotate `Any`" in blocking[0][1]
    assert "`torch.tensor` is a function (torch.tensor)" in blocking[2][1]
    assert "`self.hooks` is annotated `list[callable]`" in blocking[3][1]


def test_an_old_variable_annotation_is_not_the_changes(feature: Repo, run: Run) -> None:
    feature.on_main({"pkg/old.py": "def f() -> None:\n    x: any = 1\n    return None\n"})
    feature.write("pkg/old.py", "def f() -> None:\n    x: any = 1\n    return None\n\n\nY = 2\n")
    assert not any("builtin function" in m for _p, _l, _s, m in found(run, "any-annotation"))


def test_a_lambda_written_as_a_field_type(feature: Repo, run: Run) -> None:
    # ChatLearn b854befa megatron_config.py (set zzzs, ✗): a converter put where the
    # dataclass field's type goes; a lambda in a default or a metadata is no annotation.
    feature.write(
        "pkg/config.py",
        "from dataclasses import dataclass, field\n"
        "\n"
        "\n"
        "@dataclass\n"
        "class MegatronConfig:\n"
        "    attention_backend: lambda name: Backend[name] = field(default='auto')\n"  # 6
        "    parse: object = field(default=lambda s: s.strip())\n"
        "    hook: 'Callable[[str], str]' = field(default_factory=lambda: str.strip)\n",
    )
    rows = found(run, "any-annotation")
    blocking = [(line, message) for _p, line, severity, message in rows if severity == "error"]
    assert [line for line, _m in blocking] == [6]
    assert "a `lambda` is a function, not a type" in blocking[0][1]


NAMEDTUPLES = """\
import collections
from collections import namedtuple

Point = namedtuple("Point", "x y")


def hook(param_names: list[str], incompatible_keys: namedtuple) -> None:
    del param_names, incompatible_keys


def other(keys: collections.namedtuple) -> None:
    del keys


def fine(point: Point) -> Point:
    return point
"""


def test_namedtuple_written_as_a_type(feature: Repo, run: Run) -> None:
    """FlagScale's `incompatible_keys: namedtuple` (set zzzt): the factory, not a class;
    the class it makes (`Point`) is a type."""
    feature.write("pkg/peft.py", NAMEDTUPLES)
    blocking = [
        (line, message)
        for _p, line, severity, message in found(run, "any-annotation")
        if severity == "error"
    ]
    assert [line for line, _m in blocking] == [7, 11]
    assert (
        "`namedtuple` is a function (collections.namedtuple), not a type: "
        "annotate `typing.NamedTuple`" in blocking[0][1]
    )
