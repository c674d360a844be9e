# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``broad-except``: a ``raise`` further down the function excuses a swallow only when it
ends the chain of attempts the catch belongs to (it runs because the attempt failed), not
any unrelated ``raise`` of the same function."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import LOG, Run, by_marker


def test_an_unrelated_raise_further_down_does_not_excuse_a_swallow(feature: Repo, run: Run) -> None:
    # lorax 06705563 flash_causal_lm.py:809: `FlashCausalLM.__init__` wraps the
    # GenerationConfig load in `except Exception: pass`; the `raise ValueError` lines
    # further down test other things (an adapter id, the lm head), never the attempt.
    # Kept ⚠: a `pass` on to the next attempt that raises, a raise testing what the
    # attempt bound, a `continue` to the next candidate with a raise after the loop.
    feature.write(
        "pkg/model.py",
        LOG + "class FlashCausalLM:\n"
        "    def __init__(self, model_id, tokenizer, adapter_id, merge):\n"
        "        try:\n"
        "            generation_config = GenerationConfig.from_pretrained(model_id)\n"
        "            tokenizer.eos_token_ids = set(generation_config.eos_token_id)\n"
        "        except Exception:  # m:unrelated-raise\n"
        "            pass\n"
        "        if merge and not adapter_id:\n"
        "            raise ValueError('Cannot merge adapter weights without an adapter_id')\n"
        "        self.tokenizer = tokenizer\n"
        "\n"
        "\n"
        "class Talker:\n"
        "    def __init__(self, path):\n"
        "        try:\n"
        "            self.config = TalkerConfig.from_pretrained(path)\n"
        "            return\n"
        "        except Exception:  # m:next-attempt\n"
        "            pass\n"
        "        try:\n"
        "            self.config = TalkerConfig.from_pretrained(path, subfolder='talker')\n"
        "        except Exception as e:\n"
        "            raise ValueError('no talker config') from e\n"
        "\n"
        "\n"
        "class Vocoder:\n"
        "    def __init__(self, path):\n"
        "        self.rate = None\n"
        "        try:\n"
        "            self.rate = read_rate(path)\n"
        "        except Exception:  # m:tested-after\n"
        "            pass\n"
        "        if self.rate is None:\n"
        "            raise ValueError('no sample rate')\n"
        "\n"
        "\n"
        "class Backend:\n"
        "    def __init__(self, names):\n"
        "        for name in names:\n"
        "            try:\n"
        "                self.impl = import_backend(name)\n"
        "                break\n"
        "            except Exception:  # m:candidates\n"
        "                continue\n"
        "        else:\n"
        "            raise RuntimeError('no backend')\n"
        "\n"
        "\n"
        "class Device:\n"
        "    def __init__(self, index):\n"
        "        try:\n"
        "            self.handle = open_device(index)\n"
        "        except Exception:  # m:unconditional-after\n"
        "            pass\n"
        "        raise RuntimeError('device handle required')\n",
    )
    assert by_marker(feature, "pkg/model.py", run) == {
        "unrelated-raise": "error",
        "next-attempt": "warning",
        "tested-after": "warning",
        "candidates": "warning",
        "unconditional-after": "warning",
    }
