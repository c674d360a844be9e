# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup, where a dict goes: each cause of a wrong or missed ✗ on real code, reduced.

- a fail-fast function that drops unknown keys is one ✗, on the line declaring
  ``**kwargs`` (diffusers' new ``lora_state_dict(cls, path, **kwargs)``, which pops ten
  keys; rllm's Daytona sandbox, which pops the keys it names in a loop);
- a function standing in for another callable (``model.forward = self._prepare_stage``)
  receives that callable's parameters (vLLM 0.33 ``benchmarks/forward/pipeline.py``);
- a key popped after the dict went on with ``**`` only releases the value (lmdeploy's
  ``kwargs.pop('multimodal', None)`` after ``handle.async_stream_infer(**kwargs)``);
- a key the library of the class's base declares (transformers' ``ProcessingKwargs``
  ``text_kwargs`` in a ``ProcessorMixin.__call__(**kwargs)``: vllm-omni 0.20 ming.py);
- the message names a dict parameter a ``**`` dict is passed to as declared, not
  ``f(**...)``."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

# ``pkg`` is a package at the base: the change resolves keys and classes through it.
FEATURE_BASE = {"pkg/__init__.py": ""}


# (path, line, severity, message) of each kwargs-lookup finding.
rows = partial(found, rule="kwargs-lookup")


LORA = """\
class AceStepLoraLoaderMixin:
    @classmethod
    def lora_state_dict(
        cls,
        path,
        **kwargs,
    ):
        cache_dir = kwargs.pop("cache_dir", None)
        token = kwargs.pop("token", None)
        weight_name = kwargs.pop("weight_name", None)
        return fetch(path, cache_dir=cache_dir, token=token, weight_name=weight_name)
"""


def test_lora_state_dict_dropping_unknown_keys_is_one_error_on_its_kwargs_line(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/lora.py", LORA)
    feature.commit("lora")
    got = rows(run)
    errors = [(path, line) for path, line, sev, _m in got if sev == "error"]
    # ``**kwargs,`` of the multi-line signature, where the brief puts the site (sets zi,
    # zz and zzf; sets a, e and f, labelled before the brief fixed it, used the def line).
    assert errors == [("pkg/lora.py", 6)]
    message = next(m for _p, _l, sev, m in got if sev == "error")
    assert "lora_state_dict(**kwargs)" in message and "silently dropped" in message
    assert '"cache_dir", "token", "weight_name"' in message
    assert sorted(line for _p, line, sev, _m in got if sev == "warning") == [8, 9, 10]


def test_an_old_fail_fast_function_gets_its_error_on_each_new_key_read(
    feature: Repo, run: Run
) -> None:
    """Each key the change adds to old plumbing that drops unknown keys is a ✗ at its
    read (set f's labels: two new keys, two ✗); never the old def line."""
    feature.git("checkout", "-q", "main")
    feature.write("pkg/cfg.py", "def validate_options(**kwargs):\n    return 1\n")
    feature.commit("old")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    feature.write(
        "pkg/cfg.py",
        "def validate_options(**kwargs):\n    m = kwargs.get('mode')\n"
        "    n = kwargs.get('name')\n    return 1\n",
    )
    feature.commit("reads")
    got = [(line, sev, "silently dropped" in m) for _p, line, sev, m in rows(run)]
    assert got == [(2, "error", True), (3, "error", True)]  # never the old def line


PIPELINE = """\
class Pipeline:
    def run(self, model):
        model.forward = self._prepare_stage

    def _prepare_stage(self, **inputs):
        ids = inputs["input_ids"]
        return ids, inputs["intermediate_tensors"]
"""
CAPTURE = """\
def forward(**inputs):
    return inputs["input_ids"], inputs["intermediate_tensors"]
"""


def test_a_callback_kept_on_self_is_no_stand_in(feature: Repo, run: Run) -> None:
    feature.write("pkg/capture.py", CAPTURE)
    feature.write(
        "pkg/pipeline.py",
        PIPELINE.replace("model.forward = self._prepare_stage", "self.hook = self._prepare_stage"),
    )
    feature.commit("bench")
    assert {sev for p, _l, sev, _m in rows(run) if p == "pkg/pipeline.py"} == {"error"}


def test_a_function_standing_in_for_forward_reads_its_parameters(feature: Repo, run: Run) -> None:
    feature.write("pkg/capture.py", CAPTURE)
    feature.write("pkg/pipeline.py", PIPELINE)
    feature.commit("bench")
    got = [(p, line, sev, m) for p, line, sev, m in rows(run) if p == "pkg/pipeline.py"]
    assert [(line, sev) for _p, line, sev, _m in got] == [(6, "warning"), (7, "warning")]
    assert all("stands in for `model.forward` (line 3)" in m for *_rest, m in got)
    # The other file has no stand-in: still the duplicated key (✗).
    assert {sev for p, _l, sev, _m in rows(run) if p == "pkg/capture.py"} == {"error"}


ENGINE = """\
class Engine:
    async def safe_run(self, handle, **kwargs):
        generator = handle.async_stream_infer(1, **kwargs)
        kwargs.pop("multimodal", None)
        return generator
"""
ENGINE_TWIN = """\
class Twin:
    async def stream(self, handle, **kwargs):
        kwargs.pop("multimodal", None)
        return handle.async_stream_infer(1, **kwargs)
"""


RPC = """\
import pickle


def call(method, **kwargs):
    data = pickle.dumps(dict(method=method, kwargs=kwargs))
    kwargs.pop("multimodal", None)
    return data
"""


def test_a_pop_after_the_dict_went_on_releases_the_callees_key(feature: Repo, run: Run) -> None:
    feature.write("pkg/rpc.py", RPC)  # the dict went on as a value (lmdeploy's zmq_rpc.py)
    feature.write("pkg/engine.py", ENGINE)
    feature.write("pkg/twin.py", ENGINE_TWIN)
    feature.commit("release")
    by_path = {p: (sev, m) for p, _l, sev, m in rows(run)}
    assert by_path["pkg/engine.py"][0] == "warning"
    assert "dropped after the dict went on whole" in by_path["pkg/engine.py"][1]
    assert by_path["pkg/rpc.py"][0] == "warning"
    # Popped before forwarding (its value withheld from the callee): the duplicate stays ✗.
    assert by_path["pkg/twin.py"][0] == "error"


PROCESSOR = """\
from hflib.processing_utils import ProcessorMixin


class MingProcessor(ProcessorMixin):
    def __call__(self, text, **kwargs):
        return self.tokenizer(text, **kwargs.get("text_kwargs", {}))
"""
THINKER = """\
def call_hf_processor(**kwargs):
    return kwargs.get("text_kwargs")
"""


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed ``hflib`` on sys.path, declaring ``text_kwargs`` as transformers'
    ``ProcessingKwargs`` does."""
    root = tmp_path / "site"
    (root / "hflib").mkdir(parents=True)
    (root / "hflib" / "__init__.py").write_text("", encoding="utf-8")
    (root / "hflib" / "processing_utils.py").write_text(
        "class ProcessingKwargs(TypedDict, total=False):\n    text_kwargs: TextKwargs\n\n\n"
        "class ProcessorMixin:\n    def __call__(self, *args, **kwargs):\n        pass\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(root))
    return root


def test_a_key_the_base_classs_library_declares_is_that_librarys(
    feature: Repo, run: Run, library: Path
) -> None:
    feature.write("pkg/ming.py", PROCESSOR)
    feature.write("pkg/thinker.py", THINKER)
    feature.commit("processor")
    by_path = {p: (sev, m) for p, _l, sev, m in rows(run)}
    assert by_path["pkg/ming.py"][0] == "warning"
    assert (
        "`hflib.processing_utils`, where base class `ProcessorMixin`" in by_path["pkg/ming.py"][1]
    )
    assert by_path["pkg/thinker.py"][0] == "error"


def test_a_base_named_through_its_module_is_found_too(
    feature: Repo, run: Run, library: Path
) -> None:
    feature.write(
        "pkg/ming.py",
        PROCESSOR.replace(
            "from hflib.processing_utils import ProcessorMixin",
            "import hflib.processing_utils as pu",
        ).replace("(ProcessorMixin)", "(pu.ProcessorMixin)"),
    )
    feature.write("pkg/thinker.py", THINKER)
    feature.commit("processor")
    by_path = {p: sev for p, _l, sev, _m in rows(run)}
    assert by_path == {"pkg/ming.py": "warning", "pkg/thinker.py": "error"}


def test_without_the_library_installed_the_key_stays_an_error(feature: Repo, run: Run) -> None:
    feature.write("pkg/ming.py", PROCESSOR)
    feature.write("pkg/thinker.py", THINKER)
    feature.commit("processor")
    assert {sev for _p, _l, sev, _m in rows(run)} == {"error"}


def test_the_message_names_the_double_star_parameter_as_declared(feature: Repo, run: Run) -> None:
    """``forward(**extra)`` as written; the plain ``kwargs: dict`` of ``resolve`` it is
    handed to is no ``**kwargs`` signature and gets no ⚠ (before round AU: ⚠ naming
    ``resolve(kwargs: dict)``)."""
    feature.write(
        "pkg/stage.py",
        "def resolve(model: str, kwargs: dict[str, object]) -> object:\n"
        "    return kwargs.pop('stage_overrides', None)\n\n\n"
        "def forward(**extra):\n    resolve('m', extra)\n    return extra.get('speaker')\n",
    )
    feature.commit("stage")
    found = [(line, m) for _p, line, _s, m in rows(run)]
    assert [line for line, _m in found] == [7]
    assert "in `forward(**extra)`" in found[0][1] and "(**...)" not in found[0][1]


LAMBDA_ENGINE = """\
class AsyncEngine:
    def __init__(self, model: str, **kwargs) -> None:
        self.stages = self._resolve(
            model, default_stage_cfg_factory=lambda: self._default_stage_cfg(kwargs)
        )

    def _resolve(self, model, default_stage_cfg_factory):
        return default_stage_cfg_factory()

    @staticmethod
    def _default_stage_cfg(kwargs: dict[str, object]) -> list:
        return [{{"profiler": kwargs.get("enable_ar_profiler", False)}}]
"""


@pytest.mark.parametrize(
    ("factory", "line"),
    [
        pytest.param("lambda: self._default_stage_cfg(kwargs)", 12, id="closes-over-it"),
        # ``__init__``'s own ``**kwargs`` then goes nowhere: the dropped-keys ✗.
        pytest.param("lambda kwargs: self._default_stage_cfg(kwargs)", 2, id="its-own-param"),
    ],
)
def test_a_dict_a_lambda_of_the_body_passes_on_is_followed(
    feature: Repo, run: Run, factory: str, line: int
) -> None:
    """vllm-omni 0.20's ``AsyncOmniEngine`` hands its ``**kwargs`` to
    ``_create_default_diffusion_stage_cfg(kwargs: dict)`` from a deferred
    ``lambda:``: the static method reads the engine's keywords (``enable_ar_profiler``,
    also popped in ``omni_base.py``: ✗, judged right in the release corpus). Round AG
    stopped reporting plain dict parameters; the lambda's call is what makes this one
    the ``**`` dict's. A lambda taking its own ``kwargs`` passes that, not the dict."""
    feature.write(
        "pkg/engine.py",
        LAMBDA_ENGINE.format().replace("lambda: self._default_stage_cfg(kwargs)", factory),
    )
    feature.write(
        "pkg/base.py",
        "class OmniBase:\n"
        "    def __init__(self, **kwargs) -> None:\n"
        '        self.profile = kwargs.pop("enable_ar_profiler", False)\n'
        "        self.rest = kwargs\n",
    )
    feature.commit("engine")
    found_rows = [(p, at, sev) for p, at, sev, _m in rows(run) if p == "pkg/engine.py"]
    assert found_rows == [("pkg/engine.py", line, "error")]


# -- the blind sets a and b: kwargs-lookup's cells ------------------------------------


def test_an_old_init_with_a_new_duplicated_key_is_one_error_on_that_line(
    feature: Repo, run: Run
) -> None:
    """vllm-ascend 99131964: a new ``swa_cache_layer`` read in an old ``__init__(**kwargs)``
    that drops unknown keys, the key also read in another file: one ✗, not two."""
    feature.git("checkout", "-q", "main")
    feature.write("pkg/attn.py", "class A:\n    def __init__(self, **kwargs):\n        pass\n")
    feature.commit("old")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    feature.write(
        "pkg/attn.py",
        "class A:\n    def __init__(self, **kwargs):\n        self.swa = kwargs.get('swa_layer')\n",
    )
    feature.write("pkg/other.py", "def build(**kwargs):\n    return kwargs.get('swa_layer')\n")
    feature.commit("swa")
    got = [(line, sev) for p, line, sev, _m in rows(run) if p == "pkg/attn.py"]
    assert got == [(3, "error")]


SANDBOX = """\
class Sandbox:
    def __init__(
        self,
        name,
        **kwargs,
    ):
        self.timeout = kwargs.pop("create_timeout", 120.0)
        base = {{}}
        for key in ("env_vars", "labels"):
            if key in kwargs:
                base[key] = kwargs.pop(key)
        keys = {{"cpu", "memory"}}
        if keys & kwargs.keys():
            {iteration}
        self.base = base
"""
# rllm's Daytona sandbox: pops the keys it names, drops the rest.
POPS_NAMED = "base['res'] = {k: kwargs.pop(k) for k in list(kwargs.keys()) if k in keys}"


@pytest.mark.parametrize(
    "iteration",
    [
        POPS_NAMED,
        "base['res'] = {k: v for k, v in kwargs.items() if k in keys}",
        "base['n'] = len(keys)",
        "for k in list(kwargs):\n                if k in keys:\n                    base[k] = kwargs.pop(k)",
    ],
)
def test_popping_only_named_keys_passes_nothing_on(feature: Repo, run: Run, iteration: str) -> None:
    """Reads under a computed key and an iteration keeping keys of a named collection
    leave the other keys in the dict: one ✗ for the drop, on the ``**kwargs`` line."""
    feature.write("pkg/sandbox.py", SANDBOX.format(iteration=iteration))
    feature.commit("sandbox")
    got = rows(run)
    assert [(line, sev) for _p, line, sev, _m in got if sev == "error"] == [(5, "error")]
    assert '"create_timeout"' in next(m for *_r, sev, m in got if sev == "error")


@pytest.mark.parametrize(
    "iteration",
    [
        "base['rest'] = {k: v for k, v in kwargs.items() if k not in keys}",
        "base['all'] = {k: kwargs.pop(k) for k in list(kwargs)}",
        "if kwargs: raise TypeError(sorted(kwargs))",
        "for k in list(kwargs):\n                base[k] = kwargs.pop(k)",
    ],
)
def test_keeping_or_rejecting_the_rest_passes_it_on(
    feature: Repo, run: Run, iteration: str
) -> None:
    """The keys left over go somewhere (kept whole, kept but for a named few, rejected):
    no dropped keys, so only the ⚠ of the string-key read."""
    feature.write("pkg/sandbox.py", SANDBOX.format(iteration=iteration))
    feature.commit("sandbox")
    assert {sev for _p, _l, sev, _m in rows(run)} == {"warning"}
