# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: an implicit Optional is ✗ only when None really reaches the parameter
(the body or a callee it hands the value to tests it, a caller in the module omits it or
passes None), a wrong return is reported at the ``def`` line the change adds, and a
module global's implicit Optional is read like a field's."""

from __future__ import annotations

import json

from tests.conftest import Repo
from tests.sweep_fixture import Run, land_on_main


def findings(run: Run, severity: str = "error") -> list[tuple[str, int, str]]:
    """(path, line, message) of each any-annotation finding of ``severity``."""
    result = run("sweep", "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    return [
        (f["path"], f["line"], f["message"])
        for f in json.loads(result.out)
        if f["rule"] == "any-annotation" and f["severity"] == severity
    ]


WORKER = """\
class Worker:
    def __init__(self, model_path: str, conv_template: str = None) -> None:
        self.conv = self.make_conv_template(conv_template, model_path)

    def make_conv_template(
        self,
        conv_template: str = None,
        model_path: str = None,
    ) -> str:
        if conv_template:
            return conv_template
        return load_template(model_path)


def load_template(path: str) -> str:
    return path.upper()
"""


def test_none_must_reach_the_parameter(feature: Repo, run: Run) -> None:
    # fastchat base_model_worker.py: ``model_path`` is handed on but never tested, and
    # its one caller passes a value; ``conv_template`` is tested (and handed to the test).
    feature.write("pkg/worker.py", WORKER)
    feature.commit("add")
    names = sorted(m.split(":", 1)[0].strip("`") for _p, _l, m in findings(run))
    assert names == ["conv_template", "conv_template"]


FLOWS = """\
class Store:
    def __init__(self, root: str = None) -> None:
        self.root = root

    def where(self) -> str:
        return self.root if self.root is not None else "."


def open_it(name: str, mode: str = None) -> str:
    return name + str(mode)


def caller() -> str:
    return open_it("a")


def explicit(name: str, cache: dict = None) -> dict:
    return dict(name=name, cache=cache)


def passes_none() -> dict:
    return explicit("x", cache=None)


class Kept:
    def __init__(self, path: str = None) -> None:
        self.path = path

    def size(self) -> int:
        return len(self.path)


def build() -> Kept:
    return Kept("a")
"""


def test_none_flows_through_a_stored_attribute_or_a_caller_in_the_module(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/flows.py", FLOWS)
    feature.commit("add")
    names = sorted(m.split(":", 1)[0].strip("`") for _p, _l, m in findings(run))
    assert names == ["cache", "mode", "root"]


def test_a_wrong_return_is_reported_at_the_added_def_line(feature: Repo, run: Run) -> None:
    # The change rewrites the ``def`` line (a new name) and adds the return; the old
    # ``-> list[int]`` line stays: the wrong annotation is on the def the change wrote.
    feature.write("pkg/old.py", "def pick(\n    flag: bool,\n) -> list[int]:\n    return [1]\n")
    land_on_main(feature)
    feature.write(
        "pkg/old.py",
        "def choose(\n    flag: bool,\n) -> list[int]:\n    if flag:\n        return (1, 2)\n"
        "    return [1]\n",
    )
    feature.commit("rename, new return")
    found = findings(run)
    assert [(p, line) for p, line, _m in found] == [("pkg/old.py", 1)]
    assert "returns a tuple (`(1, 2)`) on line 5" in found[0][2]


def test_a_wrong_return_added_under_an_old_def_stays_at_its_line(feature: Repo, run: Run) -> None:
    feature.write("pkg/old.py", "def pick(flag: bool) -> list[int]:\n    return [1]\n")
    land_on_main(feature)
    feature.write(
        "pkg/old.py",
        "def pick(flag: bool) -> list[int]:\n    if flag:\n        return (1, 2)\n    return [1]\n",
    )
    feature.commit("edit")
    assert [(p, line) for p, line, _m in findings(run)] == [("pkg/old.py", 3)]


GLOBAL = """\
try:
    from deep_ep import Buffer
except ImportError as e:
    raise ImportError("DeepEP is required") from e

from elsewhere import Handle, ModelT

_buffer: Buffer = None
_handle: Handle = None
_model: ModelT = None
_never: Handle = None


def get_buffer() -> Buffer:
    global _buffer
    if _buffer is None:
        _buffer = Buffer()
    return _buffer


def set_handle(value: Handle) -> None:
    global _handle, _model
    _handle = value
    _model = value
"""


def test_a_module_globals_implicit_optional_whose_none_the_module_reads(
    feature: Repo, run: Run
) -> None:
    # torchtitan deepep.py: ``_buffer: Buffer = None`` (``Buffer`` from a package not
    # installed) that the module tests for None or rebinds in a function. ``ModelT``
    # reads as a type variable; ``_never`` keeps its None forever (no evidence either way).
    feature.write("pkg/deepep.py", GLOBAL)
    feature.commit("add")
    names = sorted(m.split(":", 1)[0].strip("`") for _p, _l, m in findings(run))
    assert names == ["_buffer", "_handle"]


def test_an_untyped_def_under_integration_or_e2e_tests_is_test_code(
    feature: Repo, run: Run
) -> None:
    # LoRAX integration-tests/scripts/: a benchmark script of the integration suite.
    feature.write("integration-tests/scripts/load.py", "def get_local_path(model_id):\n    pass\n")
    # chainlit cypress/e2e/thread_resume/main.py: an app only the Cypress specs run
    feature.write("cypress/e2e/thread_resume/main.py", "async def start():\n    pass\n")
    feature.write("load_tests/filter.py", "def main():\n    pass\n")
    feature.commit("add")
    warned = [p for p, _l, _m in findings(run, "warning")]
    assert warned == ["load_tests/filter.py"]


def test_a_caller_in_another_module_or_a_test_that_leaves_the_default(
    feature: Repo, run: Run
) -> None:
    # nanotron dataloader_builder.py: ``sequence_sep_tokens: List[int] = None`` handed to
    # a collator; the tests call the builder without it, so None flows.
    feature.write(
        "pkg/builder.py",
        "def build(size: int, seps: list[int] = None) -> dict:\n"
        "    return dict(size=size, seps=seps)\n\n\n"
        "def other(size: int, seps: list[int] = None) -> dict:\n"
        "    return dict(size=size, seps=seps)\n",
    )
    feature.write(
        "tests/test_builder.py",
        "from pkg.builder import build, other\n\n\n"
        "def test_build() -> None:\n    build(1)\n    other(1, [2])\n",
    )
    feature.commit("add")
    names = sorted(m.split(":", 1)[0].strip("`") for _p, _l, m in findings(run))
    assert names == ["seps"]
    assert [p for p, _l, _m in findings(run)] == ["pkg/builder.py"]


HELD = """\
from functools import partial


def apply(x: int, dispatch_fn: str = None, scale: float = None) -> int:
    return run(x, dispatch_fn, scale)


class Method:
    def __init__(self) -> None:
        self.kernel = None

    def forward(self, x: int, dp_size: int, scale: float) -> int:
        if dp_size > 1:
            dispatch_fn = partial(print, dp_size)
        else:
            dispatch_fn = None
        return apply(x, dispatch_fn=dispatch_fn, scale=scale)


def fuse(w: int, bias: int = None, act: str = None, out: list = None) -> int:
    return run(w, bias, act, out)


class Layer:
    def __init__(self) -> None:
        self.bias = None
        self.act = "relu"

    def step(self, w: int, out: list | None = None) -> int:
        return fuse(w, self.bias, self.act, out)
"""


def test_a_caller_that_passes_a_variable_holding_none(feature: Repo, run: Run) -> None:
    # vllm-gaudi hpu_mxfp4.py: ``dispatch_fn = None`` when dp_size == 1, then passed as
    # ``dispatch_fn=dispatch_fn``; a ``self.`` attribute the class sets to None and a
    # parameter of the caller defaulting to None carry None too; ``scale`` and ``act``
    # only ever receive values.
    feature.write("pkg/held.py", HELD)
    feature.commit("add")
    messages = " ".join(m for _p, _l, m in findings(run))
    assert "`dispatch_fn: str = None`" in messages
    assert "`bias: int = None`" in messages
    assert "`out: list = None`" in messages
    assert "scale" not in messages
    assert "act" not in messages


FORWARDS = """\
class Wrapper(Base):
    def forward(
        self,
        input_ids: list = None,
        mask: int = None,
        cache_idx: int = None,
    ) -> int:
        hidden = self.model(input_ids=input_ids, mask=mask)
        return self.attn.pre_attn(hidden, cache_idx=cache_idx) + self.head(hidden)


def lce_forward(
    self,
    input_ids: list = None,
    labels: list = None,
) -> int:
    out = self.model(input_ids=input_ids)
    return self.loss(out, labels=labels)


class Helper:
    def loss(self, out: int, labels: list | None = None) -> int:
        return out if labels is None else out + len(labels)
"""


def test_a_value_only_handed_to_an_instance_attributes_call(feature: Repo, run: Run) -> None:
    # optimum-habana modeling_video_llava.py / Liger-Kernel ministral.py: an HF-style
    # ``input_ids: torch.LongTensor = None`` copied from upstream and only passed to
    # ``self.model(...)`` (the upstream model, whose parameters are Optional) is no lie
    # of the change; gemma's ``cache_idx`` handed to ``self.self_attn.pre_attn_forward``
    # and ``labels`` handed to ``self.loss`` (a method of a class of the module) still are.
    caller = (
        "from pkg.wrapper import Wrapper, lce_forward\n\n\n"
        "def test_forward() -> None:\n"
        "    Wrapper().forward()\n"
        "    lce_forward(Wrapper())\n"
    )
    files = {"pkg/wrapper.py": FORWARDS, "tests/test_wrapper.py": caller}
    assert _reported_parameters(feature, run, files) == ["cache_idx", "labels"]


def _reported_parameters(feature: Repo, run: Run, files: dict[str, str]) -> list[str]:
    """The parameters named by the implicit-Optional ✗ of a change that adds ``files``."""
    for path, text in files.items():
        feature.write(path, text)
    feature.commit("add")
    return sorted(m.split(":", 1)[0].strip("`") for _p, _l, m in findings(run))


LOADER = """\
class Processor:
    def load_dataset(self, config: dict, split_name: str = None, data_dir: str = None):
        def _load(builder=None, data_dir=None):
            kwargs = {"path": builder}
            if split_name is not None:
                kwargs["split"] = split_name
            if data_dir:
                kwargs["data_dir"] = data_dir
            return load(**kwargs)

        return _load(config["builder"])
"""


def test_a_closure_testing_the_parameter_relies_on_its_none(feature: Repo, run: Run) -> None:
    """fms-hf-tuning's `load_dataset(..., splitName: str = None)`: only the helper nested in
    it reads the parameter, testing `is not None`; a nested function's own parameter of
    the same name (`data_dir`) is another variable."""
    feature.write("pkg/processor.py", LOADER)
    feature.commit("add")
    found = findings(run)
    assert [(f[0], f[1]) for f in found] == [("pkg/processor.py", 2)]
    assert "`split_name: str = None`" in found[0][2]


PIPELINE = """\
class Pipeline:
    def __call__(
        self,
        prompt: str = "",
        seed: int = None,
        input_image: list = None,
        end_image: list = None,
        num_frames: int = None,
    ) -> dict:
        inputs = {"prompt": prompt, "seed": seed, "input_image": input_image}
        if end_image is not None:
            inputs["end_image"] = end_image
        return {"inputs": inputs, "frames": num_frames or 81, "twice": {"seed": seed}}
"""


def test_a_value_only_stored_in_a_dict_display(feature: Repo, run: Run) -> None:
    """DiffSynth-Studio's pipelines: `seed: int = None` and `input_image: Image.Image = None`
    of `__call__`, which a caller leaves to the default, are only stored in the pipeline's
    inputs dict, whose units decide what None means: '-' by the settled reading (set zzx
    labels 47 such parameters so). `end_image`, tested for None, and `num_frames`, read
    with `or`, still rely on it; one read outside a dict display is enough."""
    caller = (
        "from pkg.pipeline import Pipeline\n\n\n"
        "def run(pipe: Pipeline) -> dict:\n"
        "    return Pipeline.__call__(pipe, prompt='a cat')\n"
    )
    files = {"pkg/pipeline.py": PIPELINE, "pkg/run.py": caller}
    assert _reported_parameters(feature, run, files) == ["end_image", "num_frames"]
