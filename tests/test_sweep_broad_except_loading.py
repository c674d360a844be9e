# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except, weight loading: what the ``try`` loads puts a catch on the weight loading
path, not only the function's name; a DEBUG line is no report of the error. Each case is
the shape a real commit had it in (named in the test)."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from policytool.rules import _fail_fast as paths
from tests.conftest import Repo
from tests.sweep_fixture import LOG, Run, by_marker


def test_a_quiet_catch_around_loading_is_an_error_whatever_the_name(
    feature: Repo, run: Run
) -> None:
    # text-generation-inference 79183d16 (generator.py:702, model.py:88, tgi_env.py:259):
    # `NeuronConfig.from_pretrained` fails for any reason, a DEBUG line, `neuron_config =
    # None`, and the code carries on as if the model had to be exported; openrlhf 02010fe9
    # `is_vlm_model`: `AutoConfig.from_pretrained` in `except Exception: return False`.
    # Kept ⚠: a logged warning with a real fallback value and a comment (vLLM 0.33
    # runai_streamer_loader.py:79), a chain of candidates (`continue`; ming_flash_omni's
    # tokenizer), a declared `-> int | None` "not found" (ltx2's vocoder sample rate), a
    # `pass` to the next attempt that raises, an attempt by its name.
    feature.write(
        "pkg/model.py",
        LOG + "def fetch_model(model_id, revision=None):\n"
        "    try:\n"
        "        neuron_config = NeuronConfig.from_pretrained(model_id, revision=revision)\n"
        "    except Exception as e:  # m:debug-default\n"
        "        logger.debug('NeuronConfig.from_pretrained failed for %s: %s', model_id, e)\n"
        "        neuron_config = None\n"
        "    if neuron_config is None:\n"
        "        raise ValueError('no cached version found')\n"
        "    return model_id\n"
        "\n"
        "def is_vlm_model(pretrain: str) -> bool:\n"
        "    try:\n"
        "        cfg = AutoConfig.from_pretrained(pretrain)\n"
        "        return hasattr(cfg, 'vision_config')\n"
        "    except Exception:  # m:probe-false\n"
        "        return False\n"
        "\n"
        "def read_state(path):\n"
        "    try:\n"
        "        state = torch.load(path)\n"
        "    except Exception:  # m:torch-load\n"
        "        state = {}\n"
        "    return state\n"
        "\n"
        "def shard_files(files, index):\n"
        "    try:\n"
        "        weight_map = load_weight_map(index)\n"
        "    except Exception:  # m:logged-real-fallback\n"
        "        # Optional metadata must not make a loadable model fail.\n"
        "        logger.warning('cannot use the checkpoint index')\n"
        "        return files\n"
        "    return [f for f in files if f in weight_map]\n"
        "\n"
        "def tokenizer(paths):\n"
        "    for path in paths:\n"
        "        try:\n"
        "            return AutoTokenizer.from_pretrained(path)\n"
        "        except Exception:  # m:candidates\n"
        "            continue\n"
        "    return AutoTokenizer.from_pretrained(paths[0])\n"
        "\n"
        "def sample_rate(model) -> int | None:\n"
        "    try:\n"
        "        path = hf_hub_download(model, 'vocoder/config.json')\n"
        "    except Exception:  # m:declared-none\n"
        "        return None\n"
        "    return read(path)\n"
        "\n"
        "def talker_config(path):\n"
        "    try:\n"
        "        return TalkerConfig.from_pretrained(path)\n"
        "    except Exception:  # m:next-attempt\n"
        "        pass\n"
        "    try:\n"
        "        return TalkerConfig.from_pretrained(path, subfolder='talker')\n"
        "    except Exception as e:\n"
        "        raise ValueError('no talker config') from e\n"
        "\n"
        "def maybe_config(path):\n"
        "    try:\n"
        "        return load_config(path)\n"
        "    except Exception:  # m:attempt-name\n"
        "        return None\n"
        "\n"
        "def encode(text):\n"
        "    try:\n"
        "        return json.loads(text)\n"
        "    except Exception:  # m:not-a-load\n"
        "        return None\n",
    )
    assert by_marker(feature, "pkg/model.py", run) == {
        "debug-default": "error",
        "probe-false": "error",
        "torch-load": "error",
        "logged-real-fallback": "warning",
        "candidates": "warning",
        "declared-none": "warning",
        "next-attempt": "warning",
        "attempt-name": "warning",
        "not-a-load": "warning",
    }


def test_a_method_of_the_weight_loader_that_swallows_its_own_lookup_is_an_error(
    feature: Repo, run: Run
) -> None:
    # text-generation-inference dbb23fbf weights.py:152: `Weights` opens the checkpoint
    # (`safe_open`); `_has_tensor` turns any failure of its own `get_filename` (I/O, a corrupt
    # index) into "absent", and the GPTQ loader then picks defaults. A class that loads
    # nothing, or a catch around code that is not the loader's own, stays ⚠.
    feature.write(
        "pkg/weights.py",
        LOG + "class Weights:\n"
        "    def _get_handle(self, filename):\n"
        "        return safe_open(filename, framework='pytorch')\n"
        "\n"
        "    def get_filename(self, name):\n"
        "        return self.routing[name]\n"
        "\n"
        "    def _has_tensor(self, name):\n"
        "        try:\n"
        "            self.get_filename(name)\n"
        "        except Exception:  # m:loader-probe\n"
        "            return False\n"
        "        return True\n"
        "\n"
        "    def _device_ok(self):\n"
        "        try:\n"
        "            torch.cuda.get_device_capability()\n"
        "        except Exception:  # m:not-own-code\n"
        "            return False\n"
        "        return True\n"
        "\n"
        "class Registry:\n"
        "    def lookup(self, name):\n"
        "        return self.table[name]\n"
        "\n"
        "    def has(self, name):\n"
        "        try:\n"
        "            self.lookup(name)\n"
        "        except Exception:  # m:no-loader\n"
        "            return False\n"
        "        return True\n",
    )
    assert by_marker(feature, "pkg/weights.py", run) == {
        "loader-probe": "error",
        "not-own-code": "warning",
        "no-loader": "warning",
    }


def _call(source: str) -> ast.Call:
    """The call expression ``source`` parses to."""
    node = ast.parse(source, mode="eval").body
    assert isinstance(node, ast.Call)
    return node


def _dotted(expr: ast.expr) -> str | None:
    """A plain dotted name (no import aliases)."""
    return ast.unparse(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None


_WORDS = st.lists(
    st.sampled_from(["get", "read", "build", "parse", "json", "file", "data", "item", "x"]),
    min_size=1,
    max_size=4,
)


@given(_WORDS)
def test_a_name_without_load_is_never_a_load(words: list[str]) -> None:
    # Only a load (`from_pretrained`, `*load*` of weights/checkpoint/state, torch's or
    # safetensors' `load`) puts a catch on the loading path: other names never do.
    name = "_".join(words)
    assert paths.load_call(_call(f"obj.{name}(x)"), _dotted) is None
    assert paths.load_call(_call(f"{name}(x)"), _dotted) is None


@given(_WORDS, st.sampled_from(["weights", "checkpoint", "state_dict", "ckpt"]))
def test_a_load_of_weights_is_a_load_whatever_else_it_says(words: list[str], what: str) -> None:
    name = "_".join([*words, "load", what])
    assert paths.load_call(_call(f"self.{name}(path)"), _dotted) == name
    # json.load / a bare load of anything else: not a model load.
    assert paths.load_call(_call("json.load(f)"), _dotted) is None
    assert paths.load_call(_call("torch.load(f)"), _dotted) == "torch.load"
