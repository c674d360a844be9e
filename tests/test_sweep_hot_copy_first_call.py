# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""hot-copy: copies that run once although a loop or a per-step name is around them.

- a lazy set-up branch, ``if self.compiled_fn is None:`` that sets ``self.compiled_fn``
  (thunder's ``LazyInductorModule.forward`` deep-copies the graph to restore it): the
  first call only;
- a loop over a checkpoint the function loads into a name (nunchaku's ComfyUI LoRA
  converter, ``tensors = load_state_dict_in_safetensors(path)``);
- an exporter's code (optimum's ``exporters/``: the dummy inputs of an export).
A maintainer reading any of these sees no per-step copy; the same copies elsewhere are
still reported."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

LAZY = """\
import copy


class LazyModule:
    def forward(self, *args):
        if self.compiled_fn is None:
            with tracing():
                original = copy.deepcopy(self.graph)
                self.compiled_fn = compile_graph(self.graph, args)
        return self.compiled_fn(*args)

    def forward_cached(self, *args):
        if not self.cache:
            self.cache = copy.deepcopy(self.graph)
        return self.cache

    def forward_unset(self, *args):
        if self.compiled_fn is None:
            original = copy.deepcopy(self.graph)
        return original

    def forward_else(self, *args):
        if self.compiled_fn is None:
            self.compiled_fn = compile_graph(self.graph, args)
        else:
            original = copy.deepcopy(self.graph)
        return original
"""


def _lines(run: Run) -> list[tuple[str, int]]:
    return [(path, line) for path, line, _severity, _message in found(run, "hot-copy")]


def test_a_lazy_set_up_branch_copies_on_the_first_call_only(feature: Repo, run: Run) -> None:
    feature.write("pkg/lazy.py", LAZY)
    # the branch that never sets what it tests, and the ``else`` of a set-up, run again
    assert _lines(run) == [("pkg/lazy.py", 19), ("pkg/lazy.py", 26)]


CONVERTER = """\
def comfyui2diffusers(input_lora, output_path=None):
    if isinstance(input_lora, str):
        tensors = load_state_dict_in_safetensors(input_lora, device="cpu")
    else:
        tensors = input_lora
    new_tensors = {}
    for k, v in tensors.items():
        new_tensors[k] = v.clone() * 2
    return new_tensors


def rescale(batches):
    tensors = next_batches(batches)
    out = []
    for v in tensors:
        out.append(v.clone())
    return out
"""


def test_a_loop_over_a_loaded_checkpoint_runs_once(feature: Repo, run: Run) -> None:
    feature.write("pkg/convert.py", CONVERTER)
    assert _lines(run) == [("pkg/convert.py", 16)]


EXPORT = """\
class DummyVisionInputGenerator:
    def generate(self, input_name, framework="pt"):
        grids = []
        for _ in range(self.num_images):
            grids.append(self.grid.expand(self.batch_size, -1, -1).clone())
        return grids
"""


def test_an_exporter_runs_once_per_model(feature: Repo, run: Run) -> None:
    feature.write("optimum/exporters/openvino/input_generators.py", EXPORT)
    feature.write("optimum/models/input_generators.py", EXPORT)
    assert _lines(run) == [("optimum/models/input_generators.py", 5)]


SAVE = """\
def save_hf_adapter(self, model, path):
    adapter_state = {}
    for name, tensor in self.export_adapter_weights(model, cpu=True):
        adapter_state[f"base_model.model.{name}"] = tensor.clone().float()
    save_file(adapter_state, path)


def save_kv_layer(self, layer_name, kv_layer):
    for block in self.blocks:
        self.buffer.append(kv_layer[block].clone())
"""


def test_saving_a_model_or_checkpoint_runs_once_per_save(feature: Repo, run: Run) -> None:
    """AReaL's ``save_hf_adapter`` clones each adapter weight it writes: once per save. A
    KV connector's ``save_kv_layer`` runs on every forward: still reported."""
    feature.write("pkg/lora.py", SAVE)
    assert _lines(run) == [("pkg/lora.py", 10)]


RUN = """\
def forward(self, hidden_states, batch):
    residual = zeros_like(hidden_states)
    for i, layer in enumerate(self.layers):
        hidden_states = hidden_states.contiguous().clone()  # break aliasing, contiguous
        residual = residual.contiguous().clone()
        hidden_states, residual = layer(hidden_states, residual)
    for block in self.blocks:
        # CUDA graph trees cannot take the previous call's static output as input
        hidden_states = hidden_states.clone()
        audio_states = audio_states.clone()
        hidden_states, audio_states = block(hidden_states, audio_states)
    for block in self.blocks:
        hidden_states = hidden_states.clone()  # break aliasing
        scale = compute_scale(hidden_states)
        audio_states = audio_states.clone()
    return hidden_states
"""


def test_one_comment_explains_a_run_of_copies(feature: Repo, run: Run) -> None:
    """ktransformers' aligned twin under `# break aliasing + contiguous`, xDiT's two clones
    under one workaround comment: ⚠ like the commented line (labelled ⚠). A copy after a
    statement that is no copy is not in the run: ✗."""
    feature.write("pkg/model.py", RUN)
    rows = [(line, severity) for _p, line, severity, _m in found(run, "hot-copy")]
    assert rows == [
        (4, "warning"),
        (5, "warning"),
        (9, "warning"),
        (10, "warning"),
        (13, "warning"),
        (15, "error"),
    ]
