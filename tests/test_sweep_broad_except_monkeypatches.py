# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except ✗ in a monkeypatch: a function the module installs over another
object's attribute runs wherever the replaced code ran (a model's attention forward,
its embedding of each request's inputs), so a silent ``except Exception: pass`` there
changes that code for every caller, none of whom hears of it. The seed's silent forms
only (``pass``, ``return None``, ``continue``): a logged fallback stays ⚠."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, by_marker

SDPA = """\
def _hpu_sdpa_attention_forward(module, query, key, value):
    use_fused = False
    try:
        from pkg.runtime import get_config
        use_fused = get_config().prompt_attn_impl == "fsdpa_impl"
    except Exception:  # m:forward
        pass
    return module.attend(query, key, value, fused=use_fused)


def _patch_sdpa_attention_forward() -> None:
    import transformers.integrations.sdpa_attention as _sdpa_mod
    _sdpa_mod.sdpa_attention_forward = _hpu_sdpa_attention_forward
"""


def test_a_silent_swallow_in_a_function_installed_over_a_forward_is_blocking(
    feature: Repo, run: Run
) -> None:
    """vllm-gaudi: transformers' ``sdpa_attention_forward`` replaced by an HPU version
    whose config lookup passes on any error: every encoder's attention silently takes
    the other kernel."""
    feature.write("pkg/patches.py", SDPA)
    feature.commit("add")
    assert by_marker(feature, "pkg/patches.py", run) == {"forward": "error"}


EMBED = """\
def _patched_embed_input_ids(model, orig_embed_input_ids, *args, **kwargs):
    inputs_embeds = orig_embed_input_ids(*args, **kwargs)
    packed = model.pack()
    try:
        packed = packed.to(inputs_embeds.device)
    except Exception:  # m:embed
        pass
    try:
        model.log_shape(packed)
    except Exception as e:  # m:logged
        model.logger.warning("could not log the shape: %s", e)
    return model.cat(inputs_embeds, packed)


def apply(model):
    orig = model.embed_input_ids
    model.embed_input_ids = lambda *a, **k: _patched_embed_input_ids(model, orig, *a, **k)
"""


def test_a_lambda_installing_the_patch_counts_and_a_logged_catch_stays_a_warning(
    feature: Repo, run: Run
) -> None:
    """tpu-inference: ``model.embed_input_ids = lambda ...: _patched_embed_input_ids(...)``;
    the silent catch is ✗, the logged one in the same patch ⚠."""
    feature.write("pkg/patcher.py", EMBED)
    feature.commit("add")
    assert by_marker(feature, "pkg/patcher.py", run) == {"embed": "error", "logged": "warning"}


NOT_PATCHES = """\
def on_error(event):
    try:
        event.report()
    except Exception:  # m:callback
        pass


def _tidy(item):
    try:
        item.tidy()
    except Exception:  # m:own
        pass


HANDLERS = {}


def register_handlers(server, worker):
    server.error_callback = on_error
    HANDLERS["tidy"] = _tidy
    worker.tidy = _tidy


class Runner:
    def start(self):
        self.hook = _tidy
"""


def test_callbacks_and_registrations_are_not_patches(feature: Repo, run: Run) -> None:
    """A callback handed to an object (``server.error_callback = on_error``: the name is
    not the attribute's), an entry added to a registry, an attribute of ``self``: nothing
    replaced, no fail-fast path; ⚠. ``worker.tidy = _tidy`` in code not named for patching
    but named for the attribute it sets is a replacement."""
    feature.write("pkg/handlers.py", NOT_PATCHES)
    feature.commit("add")
    assert by_marker(feature, "pkg/handlers.py", run) == {"callback": "warning", "own": "error"}


def test_a_patch_in_a_test_is_not_blocking(feature: Repo, run: Run) -> None:
    feature.write("tests/test_patches.py", SDPA.replace("pkg.runtime", "tests.runtime"))
    feature.commit("add")
    assert by_marker(feature, "tests/test_patches.py", run) == {"forward": "warning"}
