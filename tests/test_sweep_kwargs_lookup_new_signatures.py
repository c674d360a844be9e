# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup, new signatures: the ⚠ is "any *new* ``**kwargs`` signature whose body
does ``kwargs[...]`` / ``kwargs.get(...)`` / ``"..." in kwargs``".

- a plain ``*_kwargs: dict`` / ``Mapping`` parameter read by key (no ``**`` in the
  signature, no ``**`` dict passed to it) is not that ⚠ (lmdeploy ``media_io_kwargs:
  dict``, xinference ``apply_audio_seed(kwargs: dict)``, FastVideo
  ``_build_result_record(gen_kwargs: Mapping)``);
- nor the ✗: its keys are the caller's or a framework's to fix (kvpress's
  ``compress(..., kwargs: dict)`` hook, nv-ingest's ``ExtractParams`` dump handed to a
  helper), and the brief reads it as '-'; it still counts as the other file reading a
  new key for the ``**`` read's ✗ (vllm-omni 0.20 ``_call_hf_processor(mm_kwargs:
  Mapping)`` reading ``voice_name``, which ``**info_dict`` reads in another file);
- a dict a ``**`` parameter passes on whole stays the ⚠ (the same dict, read elsewhere)."""

from __future__ import annotations

from functools import partial

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

# ``pkg`` is a package at the base: the change resolves keys and classes through it.
FEATURE_BASE = {"pkg/__init__.py": ""}


# (path, line, severity, message) of each kwargs-lookup finding.
rows = partial(found, rule="kwargs-lookup")


MEDIA = """\
from typing import Any, Mapping


def parse_item(item: dict, media_io_kwargs: dict[str, Any]) -> object:
    image = media_io_kwargs.get("image", {})
    video = media_io_kwargs["video"]
    return image, video, "audio" in media_io_kwargs


def build_record(gen_kwargs: Mapping[str, Any], init_kwargs: Mapping[str, Any]) -> dict:
    return {"frames": gen_kwargs.get("num_frames"), "gpus": init_kwargs.get("num_gpus", 1)}


def apply_seed(kwargs: dict) -> None:
    kwargs.pop("seed", None)
"""


def test_a_plain_dict_parameter_read_by_key_is_not_the_kwargs_warning(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/media.py", MEDIA)
    feature.commit("media")
    assert rows(run) == []


STAGE = """\
def _setup(cfg: dict) -> object:
    return cfg.get('stage_overrides')


def build(**kwargs):
    return _setup(kwargs)
"""


def test_a_dict_a_double_star_parameter_passes_on_whole_is_no_warning_in_the_helper(
    feature: Repo, run: Run
) -> None:
    """The helper's ``cfg: dict`` is a plain dict parameter, not a ``**kwargs`` signature
    (the brief's reading 4: '-'; sentry's ``_set_responses_api_input_data(span, kwargs,
    integration)``, set zzzv). Before round AU: ⚠."""
    feature.write("pkg/stage.py", STAGE)
    feature.commit("stage")
    assert rows(run) == []


def test_a_helpers_read_of_a_new_key_another_file_reads_is_the_error(
    feature: Repo, run: Run
) -> None:
    """The helper still reads the caller's keys: a new key it repeats in another file's
    ``**kwargs`` read with no shared constant is the ✗, at both reads."""
    feature.write("pkg/stage.py", STAGE)
    feature.write("pkg/other.py", "def run(**kw):\n    return kw.get('stage_overrides')\n")
    feature.commit("stage")
    assert sorted((p, line, sev) for p, line, sev, _m in rows(run)) == [
        ("pkg/other.py", 2, "error"),
        ("pkg/stage.py", 2, "error"),
    ]


def test_a_dict_handed_whole_to_a_function_is_that_functions_own_parameter(
    feature: Repo, run: Run
) -> None:
    """numba-cuda's ``Vectorize.__new__(cls, func, **kws)`` hands ``kws`` to the public
    classmethods ``get_identity(cls, kwargs)``...: a plain dict parameter of their own
    API (the brief's reading 4), not the caller's ``**kwargs`` read; since round AU a
    private helper's read is not either (before: ⚠ at line 8)."""
    feature.write(
        "pkg/vectorize.py",
        "class Base:\n"
        "    @classmethod\n"
        "    def get_identity(cls, kwargs):\n"  # 3
        "        return kwargs.pop('identity', None)\n\n"  # 4: public, no finding
        "    @classmethod\n"
        "    def _get_cache(cls, kwargs):\n"
        "        return kwargs.pop('cache', False)\n\n\n"  # 8: private helper, none
        "class Vectorize(Base):\n"
        "    def __new__(cls, func, **kws):\n"
        "        identity = cls.get_identity(kws)\n"
        "        cache = cls._get_cache(kws)\n"
        "        return identity, cache\n",
    )
    feature.commit("vectorize")
    assert rows(run) == []


PROCESSOR = """\
from typing import Mapping


class Processor:
    def _call_hf_processor(self, prompt: str, mm_kwargs: Mapping[str, object]) -> object:
        return mm_kwargs.get("voice_name"), mm_kwargs.get("speaker_hint")
"""

TALKER = """\
class Talker:
    def preprocess(self, input_ids, **info_dict):
        return info_dict.get("voice_name")
"""


def test_a_plain_dict_reading_a_new_key_makes_the_other_files_double_star_read_the_error(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/processor.py", PROCESSOR)
    feature.write("pkg/talker.py", TALKER)
    feature.commit("voices")
    found = sorted((p, line, sev, m) for p, line, sev, m in rows(run))
    # The plain Mapping's own reads are nothing; its ``voice_name`` is the other file
    # the ``**info_dict`` read repeats.
    assert [(p, line, sev) for p, line, sev, _m in found] == [("pkg/talker.py", 3, "error")]
    assert "pkg/processor.py" in found[0][3]


def test_a_plain_dict_reading_a_key_the_base_already_read_is_nothing(
    feature: Repo, run: Run
) -> None:
    feature.on_main({"pkg/old.py": "def f(**kw):\n    return kw.get('voice_name')\n"}, "old")
    feature.write("pkg/processor.py", PROCESSOR)
    feature.commit("voices")
    assert rows(run) == []


OLD_TALKER = """\
def _build_prompt(info_dict: dict) -> object:
    return info_dict.get("instruct")


def preprocess(ids: list[int], **info: object) -> object:
    return _build_prompt(info_dict=info)
"""


def test_a_key_the_base_read_through_a_dict_passed_by_keyword_is_not_new(
    feature: Repo, run: Run
) -> None:
    """vllm-omni 0.20 omnivoice ``mm_kwargs.get("instruct")``: qwen3_tts_talker already
    read ``instruct`` from its ``**info_dict``, passed on as ``info_dict=info_dict``; the
    base's key map (read from the bytes) missed the keyword pass, so the key looked new."""
    feature.on_main({"pkg/talker.py": OLD_TALKER}, "old talker")
    feature.write("pkg/voice.py", "def call(**kw):\n    return kw.get('instruct')\n")
    feature.write("pkg/other.py", "def call(**kw):\n    return kw['instruct']\n")
    feature.commit("voices")
    found = rows(run)
    assert [sev for _p, _l, sev, _m in found] == ["warning", "warning"], found
    assert all("not a new key: pkg/talker.py read it" in m for _p, _l, _s, m in found), found


OLD_CONVERTER = """\
def convert(slides, **kwargs):
    out = []
    for shape in slides:
        client = kwargs.get("llm_client")
        model = kwargs.get("llm_model")
        out.append((shape, client, model))
    return out
"""

WRAPPED_CONVERTER = """\
def convert(slides, **kwargs):
    out = []

    def get_shape_content(shape, **kwargs):
        client = kwargs.get("llm_client")
        model = kwargs.get("llm_model")
        detail = kwargs.get("llm_detail")
        out.append((shape, client, model, detail))

    for shape in slides:
        get_shape_content(shape, **kwargs)
    return out
"""


def test_old_reads_a_new_nested_function_wraps_are_not_new_reads(feature: Repo, run: Run) -> None:
    """markitdown e82e0c1 ``_pptx_converter.py``: a new nested ``def
    get_shape_content(shape, **kwargs)`` wraps the untouched ``kwargs.get("llm_client")``
    and ``kwargs.get("llm_model")`` that read the enclosing ``**kwargs`` before: no new
    lookup, no finding (labelled '-' after the run). A key the change adds there is a new
    read (⚠)."""
    feature.on_main({"pkg/pptx.py": OLD_CONVERTER}, "old converter")
    feature.write("pkg/pptx.py", WRAPPED_CONVERTER)
    feature.commit("wrap")
    found = rows(run)
    assert [(path, line, sev) for path, line, sev, _m in found] == [
        ("pkg/pptx.py", 7, "warning")
    ], found
