# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for wrong annotations with unions and imports: a class imported
relatively, ``field(default_factory=None)``, the legacy typed tensors, a returned tuple
no member of a union holds, and where a wrong return is reported."""

from __future__ import annotations

import json

from tests.conftest import Repo
from tests.sweep_fixture import Run, found


def wrong(run: Run) -> list[tuple[str, int, str]]:
    """(path, line, message) of each any-annotation ✗, sorted."""
    return sorted(
        (path, line, m)
        for path, line, severity, m in found(run, "any-annotation")
        if severity == "error"
    )


def test_a_class_imported_relatively_cannot_hold_none(feature: Repo, run: Run) -> None:
    # lmdeploy 5d16b6d: ``mrope_params: MropeParameters = None`` with
    # ``from .rope import MropeParameters`` (blind a).
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/nn/__init__.py", "")
    feature.write("pkg/nn/rope.py", "class MropeParameters:\n    pass\n")
    feature.write("pkg/util.py", "from typing import Optional\nParams = Optional[int]\n")
    feature.write(
        "pkg/nn/rotary.py",
        "from .rope import MropeParameters\n"
        "from ..util import Params\n"
        "\n\n"
        "def build(dim: int, mrope_params: MropeParameters = None, p: Params = None) -> int:\n"
        "    if mrope_params is None:\n"
        "        return dim\n"
        "    return 2 * dim\n",
    )
    feature.commit("relative")
    found = wrong(run)
    assert [(path, line) for path, line, _m in found] == [("pkg/nn/rotary.py", 5)], found
    assert "`mrope_params: MropeParameters = None`" in found[0][2]


def test_a_field_whose_default_factory_is_none(feature: Repo, run: Run) -> None:
    # tpu-inference 20cd8bc: ``x: SharedAttentionMetadata = field(default_factory=None)``.
    feature.write(
        "pkg/ctx.py",
        "from dataclasses import dataclass, field\n"
        "\n\n"
        "class Meta:\n"
        "    pass\n"
        "\n\n"
        "@dataclass\n"
        "class Ctx:\n"
        "    meta: Meta = field(default_factory=None)\n"
        "    other: Meta = field(default_factory=Meta)\n",
    )
    feature.commit("field")
    assert [line for _p, line, _m in wrong(run)] == [10]


def test_the_legacy_typed_tensors_cannot_hold_none(feature: Repo, run: Run) -> None:
    # openrlhf f02dac1: ``attention_mask: torch.LongTensor = None`` on a dataclass.
    feature.write(
        "pkg/exp.py",
        "from dataclasses import dataclass\n\nimport torch\n\n\n@dataclass\n"
        "class Experience:\n"
        "    attention_mask: torch.LongTensor = None\n"
        "    action_mask: torch.BoolTensor = None\n",
    )
    feature.commit("exp")
    assert [line for _p, line, _m in wrong(run)] == [8, 9]


UNION = """\
from dataclasses import dataclass
from typing import NamedTuple, Optional, Union

import torch

from .seq import IntermediateTensors, Pair


class Plain:
    pass


class Row(NamedTuple):
    a: int
    b: int


def forward(x: torch.Tensor, aux: list) -> torch.Tensor | IntermediateTensors:
    if not aux:
        return IntermediateTensors()
    if len(aux) > 1:
        return x, aux
    return x


def pair(x: torch.Tensor) -> Optional[Union[torch.Tensor, Plain]]:
    return {"x": x}


def fine_row(x: int) -> Row | None:
    return x, x


def fine_pair(x: int) -> torch.Tensor | Pair:
    return x, x


def fine_tuple(x: int) -> torch.Tensor | tuple[int, int]:
    return x, x


def fine_unknown(x: int) -> torch.Tensor | Unknown:
    return x, x
"""


def test_a_returned_tuple_that_no_member_of_the_union_holds(feature: Repo, run: Run) -> None:
    # vllm-gaudi eddd159: ``-> torch.Tensor | IntermediateTensors`` returning
    # ``hidden_states, aux_hidden_states``; a NamedTuple, a class with bases, ``tuple``
    # itself or an unknown name in the union: no finding.
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/seq.py",
        "from dataclasses import dataclass\n\n\n@dataclass\nclass IntermediateTensors:\n"
        "    tensors: dict\n\n\nclass Pair(tuple):\n    pass\n",
    )
    feature.write("pkg/model.py", UNION)
    feature.commit("union")
    found = wrong(run)
    assert [(line, m.split(" but ")[1]) for _p, line, m in found] == [
        (
            18,
            "returns a tuple (`x, aux`) on line 22; add `tuple` to the annotation or "
            "return one of its types",
        ),
        (
            26,
            'returns a dict (`{"x": x}`) on line 27; add `dict` to the annotation or '
            "return one of its types",
        ),
    ], found


def test_a_wrong_return_is_one_finding_at_the_arrow_line(feature: Repo, run: Run) -> None:
    # verl 11f14a7 / 15be595: labelled at the signature, reported at the return line
    # (two rows for one site). Several wrong returns of one new def: one finding, on the
    # line carrying ``->`` (the brief's site; sets zh, zzf, zzu, zzv, zzx and zzzb label a
    # multi-line signature's wrong return there).
    feature.write(
        "pkg/prof.py",
        "from typing import Any\n"
        "\n\n"
        "def build_profile_args(\n"
        "    flag: bool,\n"
        ") -> dict[str, Any]:\n"
        "    if flag:\n"
        "        return {}, flag\n"
        "    return None\n",
    )
    feature.commit("prof")
    found = wrong(run)
    assert [(line) for _p, line, _m in found] == [6], found
    message = found[0][2]
    assert "(line 6)" in message and "line 8" in message and "line 9" in message, message


def test_an_added_return_in_an_old_function_is_reported_on_its_line(repo: Repo, run: Run) -> None:
    # ``-> List[float]`` returning None on an error path (``except``): the old def line is
    # not the change's; the added ``return None`` is.
    old = (
        "from typing import List\n\n\ndef scores(x: int) -> List[float]:\n"
        "    try:\n        return [float(x)]\n    except ValueError:\n        raise\n"
    )
    repo.write("pkg/old.py", old)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("pkg/old.py", old.replace("        raise\n", "        return None\n"))
    repo.commit("swallow")
    found = wrong(run)
    assert [line for _p, line, _m in found] == [8], found
    assert "returns None on line 8" in found[0][2]


DEAD = """\
import torch


def post(logits: torch.Tensor, seq_length: torch.Tensor = None) -> None:
    loss(logits, seq_length)


def crash(hidden: torch.Tensor = None) -> int:
    return hidden.shape[1]


def tested(
    mask: torch.Tensor = None,
    scale: float = None,
    bias: int = None,
) -> float:
    mask = mask if mask is not None else torch.ones(1)
    if not scale:
        scale = 1.0
    return scale * (bias or 0)


def loss(a: torch.Tensor, b: torch.Tensor | None) -> None:
    del a, b
"""


def test_an_implicit_optional_parameter_only_dereferenced_is_a_dead_default(
    feature: Repo, run: Run
) -> None:
    # A body that only dereferences the parameter (``hidden.shape``) has a bogus default,
    # not a misleading annotation: ``T | None`` would be the wrong advice. Handed on to
    # a function that never tests it, with no call leaving the default (lmdeploy
    # c296beb's ``seq_length``, labelled ``-``: its only caller always passes a tensor),
    # None never reaches it: not reported either.
    feature.write("pkg/dead.py", DEAD)
    feature.commit("dead")
    names = [m.split(":", 1)[0].strip("`") for _p, _line, m in wrong(run)]
    assert names == ["mask", "scale", "bias"], names


def test_a_new_tuple_return_under_an_old_class_annotation_or_a_dunder(repo: Repo, run: Run) -> None:
    # diffusers 8222302 (an old ``-> torch.Tensor`` whose ``(out, lse) if ... else out``
    # the change splits into ``return out, lse``) and 3e83f43 (a new block's
    # ``__call__(...) -> PipelineState`` returning ``components, state``, the signature
    # every block copies from the base class): no finding.
    old = (
        "import torch\n\n\ndef attend(q: torch.Tensor, lse: bool) -> torch.Tensor:\n"
        "    return (q, q) if lse else q\n"
    )
    repo.write("pkg/att.py", old)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write(
        "pkg/att.py",
        old.replace(
            "    return (q, q) if lse else q\n", "    if lse:\n        return q, q\n    return q\n"
        ),
    )
    repo.write(
        "pkg/block.py",
        "class State:\n    pass\n\n\nclass Block:\n"
        "    def __call__(self, components: object, state: State) -> State:\n"
        "        return components, state\n",
    )
    repo.commit("reshape")
    assert wrong(run) == []


def test_a_rewritten_signature_keeps_its_annotation_over_a_new_return_kind(
    repo: Repo, run: Run
) -> None:
    # optimum-nvidia 3a87537: ``convert_and_build(..., engine_save_path=None) -> Path`` gains
    # a parameter and its return becomes ``folder, folder.relative_to(root)``: the change
    # rewrites the signature and states the old ``-> Path`` anew over a tuple (✗ at the
    # def); a new ``-> Path`` returning a list is one too. A body-only edit is not.
    build = "def build(root: Path) -> Path:\n    folder = root / 'engines'\n    return folder\n"
    keep = build.replace("build", "keep")
    old = f"from pathlib import Path\n\n\n{build}\n\n{keep}"
    repo.write("pkg/hub.py", old)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    tuple_return = "    return folder, folder.relative_to(root)\n"
    new = old.replace(
        build,
        "def build(root: Path, save: Path | None = None) -> Path:\n"
        "    folder = root / 'engines'\n" + tuple_return,
    ).replace(keep, keep.replace("    return folder\n", tuple_return))
    assert new.count(tuple_return) == 2
    repo.write("pkg/hub.py", new)
    repo.write(
        "pkg/whisper.py",
        "from pathlib import Path\n\n\ndef convert(root: Path) -> Path:\n"
        "    return [root / 'encoder', root / 'decoder']\n",
    )
    repo.commit("tuple")
    found_lines = [(path, line) for path, line, _m in wrong(run)]
    assert found_lines == [("pkg/hub.py", 4), ("pkg/whisper.py", 4)], found_lines
    messages = [m for _p, _l, m in wrong(run)]
    assert "`build` is annotated `-> Path` (line 4) but returns a tuple" in messages[0]
    assert "returns a list" in messages[1]


def test_a_module_getattr_returning_any_is_the_lazy_export_form(feature: Repo, run: Run) -> None:
    # omni dynin_omni/__init__.py:28: ``def __getattr__(name: str) -> Any`` (PEP 562).
    feature.write(
        "pkg/__init__.py",
        "import importlib\nfrom typing import Any\n\n\n"
        "def __getattr__(name: str) -> Any:\n    return importlib.import_module(name)\n\n\n"
        "class Proxy:\n    def __getattr__(self, name: str) -> Any:\n        return name\n",
    )
    feature.commit("lazy")
    result = run("sweep", "--format", "json", "--fail-on", "never")
    lines = [f["line"] for f in json.loads(result.out) if f["rule"] == "any-annotation"]
    assert lines == [10], lines
