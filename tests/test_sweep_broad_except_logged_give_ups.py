# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except, a logged give-up on a path that is fail-fast by what the code does: a load
in the ``try`` body, or a function whose every caller is set-up code. A log line does not
make a failed load or a failed set-up step optional when the handler then hands its caller
nothing (``return None``, ``[]``) as if there were nothing to load or install."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import LOG, Run, by_marker


def test_a_logged_give_up_around_a_load_is_an_error(feature: Repo, run: Run) -> None:
    # llamafactory ffbff33a train/mca/workflow.py:150: `AutoConfig.from_pretrained` at
    # training set-up fails for any reason, a warning ("fallback to no model") and `return
    # None`: the collator runs without the model. Kept ⚠: a read of a file that may hold
    # anything (`safe_open` of an uploaded voice, vLLM-Omni 0.20 serving_speech.py:679,
    # whose caller turns the None into an error for the client), a warm-up (the model
    # runs without it; pipeline_internvla_a1.py:211), a chain of candidates
    # (`continue`), a failure the log calls non-fatal, an attempt by its name, a logged
    # fallback computed in the handler, a `-> bool` probe's `False`, no load in the `try`.
    feature.write(
        "pkg/workflow.py",
        LOG + "def build_collator_model(model_args) -> object | None:\n"
        "    try:\n"
        "        config = AutoConfig.from_pretrained(model_args.path)\n"
        "        return AutoModel.from_config(config)\n"
        "    except Exception as exc:  # m:logged-none\n"
        "        logger.warning('Failed to build model, fallback to no model: %s', exc)\n"
        "        return None\n"
        "\n"
        "def restore(model, path):\n"
        "    try:\n"
        "        return model.load_state_dict(read(path))\n"
        "    except Exception as exc:  # m:logged-empty\n"
        "        print(f'cannot restore {path}: {exc}')\n"
        "        return {}\n"
        "\n"
        "def uploaded_voice(path) -> tuple[object, int] | None:\n"
        "    try:\n"
        "        with safe_open(path, framework='pt') as f:\n"
        "            return f.get_tensor('audio'), 16000\n"
        "    except Exception as exc:  # m:file-read\n"
        "        logger.error('Could not load audio %s: %s', path, exc)\n"
        "        return None\n"
        "\n"
        "def _warmup(model, path):\n"
        "    try:\n"
        "        model.forward(AutoProcessor.from_pretrained(path)('x'))\n"
        "    except Exception as exc:  # m:warm-up\n"
        "        logger.warning('warmup failed: %s', exc)\n"
        "        return\n"
        "\n"
        "def first_tokenizer(paths):\n"
        "    for path in paths:\n"
        "        try:\n"
        "            return AutoTokenizer.from_pretrained(path)\n"
        "        except Exception as exc:  # m:candidates\n"
        "            logger.warning('skip %s: %s', path, exc)\n"
        "            continue\n"
        "    raise ValueError('no tokenizer')\n"
        "\n"
        "def processor(path):\n"
        "    try:\n"
        "        return AutoProcessor.from_pretrained(path)\n"
        "    except Exception as exc:  # m:non-fatal\n"
        "        logger.warning('no processor (non-fatal): %s', exc)\n"
        "        return None\n"
        "\n"
        "def try_read_config(path):\n"
        "    try:\n"
        "        return AutoConfig.from_pretrained(path)\n"
        "    except Exception as exc:  # m:attempt-name\n"
        "        logger.warning('no config: %s', exc)\n"
        "        return None\n"
        "\n"
        "def generation_config(path):\n"
        "    try:\n"
        "        return GenerationConfig.from_pretrained(path)\n"
        "    except Exception as exc:  # m:computed-fallback\n"
        "        logger.warning('default generation config: %s', exc)\n"
        "        return GenerationConfig()\n"
        "\n"
        "def is_vlm(path) -> bool:\n"
        "    try:\n"
        "        return hasattr(AutoConfig.from_pretrained(path), 'vision_config')\n"
        "    except Exception as exc:  # m:probe\n"
        "        logger.warning('cannot tell: %s', exc)\n"
        "        return False\n"
        "\n"
        "def parse(text):\n"
        "    try:\n"
        "        return json.loads(text)\n"
        "    except Exception as exc:  # m:not-a-load\n"
        "        logger.warning('bad json: %s', exc)\n"
        "        return None\n",
    )
    assert by_marker(feature, "pkg/workflow.py", run) == {
        "logged-none": "error",
        "logged-empty": "error",
        "file-read": "warning",
        "warm-up": "warning",
        "candidates": "warning",
        "non-fatal": "warning",
        "attempt-name": "warning",
        "computed-fallback": "warning",
        "probe": "warning",
        "not-a-load": "warning",
    }


def test_a_method_the_constructor_calls_that_logs_and_returns_empty_is_an_error(
    feature: Repo, run: Run
) -> None:
    # smolagents 8e934739 remote_executors.py:784: `install_packages`, called from the
    # executors' `__init__` (and from `send_tools` before a run), logs through its own
    # logger (`self.logger.log_error`) and returns `[]`: the sandbox starts without the
    # packages it was asked for. On a path from set-up, whoever else calls it. Kept ⚠: a
    # method only code after set-up calls (`refresh`), one answering `False` (a probe), a
    # warm-up, a method the constructor only hands on as a callback, a `return None` the
    # method declares (`-> str | None`) or one whose docstring calls it best-effort
    # (vLLM-Omni 0.20 stage_engine_core_client.py:283, `_detect_local_ip`).
    feature.write(
        "pkg/executors.py",
        "class Executor:\n"
        "    def __init__(self, imports, logger):\n"
        "        self.logger = logger\n"
        "        self.installed = self.install_packages(imports)\n"
        "        self.extras = self.install_extras(imports)\n"
        "        self.ok = self.can_reach()\n"
        "        self._warmup()\n"
        "        register(self.on_event)\n"
        "        self.host = self._contact_host()\n"
        "        self.ip = self._local_ip()\n"
        "\n"
        "    def _contact_host(self) -> str | None:\n"
        "        try:\n"
        "            return resolve(self.address)\n"
        "        except Exception:  # m:declared-none\n"
        "            return None\n"
        "\n"
        "    def _local_ip(self):\n"
        '        """Best-effort local IP detection."""\n'
        "        try:\n"
        "            return detect()\n"
        "        except Exception:  # m:best-effort-doc\n"
        "            return None\n"
        "\n"
        "    def refresh(self, imports):\n"
        "        self.extras = self.install_extras(imports)\n"
        "        self.plugins = self.install_plugins(imports)\n"
        "        self.host = self._contact_host() or self._local_ip()\n"
        "\n"
        "    def install_plugins(self, imports):\n"
        "        try:\n"
        "            return run_pip(imports)\n"
        "        except Exception as e:  # m:after-set-up\n"
        "            self.logger.log_error(f'Error installing plugins: {e}')\n"
        "            return []\n"
        "\n"
        "    def _warmup(self):\n"
        "        try:\n"
        "            self.run('1')\n"
        "        except Exception as e:  # m:warm-up\n"
        "            self.logger.log_error(f'warm-up failed: {e}')\n"
        "            return None\n"
        "\n"
        "    def on_event(self, event):\n"
        "        try:\n"
        "            return handle(event)\n"
        "        except Exception:  # m:callback\n"
        "            return None\n"
        "\n"
        "    def install_packages(self, imports):\n"
        "        try:\n"
        "            run_pip(imports)\n"
        "            return imports\n"
        "        except Exception as e:  # m:init-only\n"
        "            self.logger.log_error(f'Error installing packages: {e}')\n"
        "            return []\n"
        "\n"
        "    def install_extras(self, imports):\n"
        "        try:\n"
        "            run_pip(imports)\n"
        "            return imports\n"
        "        except Exception as e:  # m:also-refresh\n"
        "            self.logger.log_error(f'Error installing extras: {e}')\n"
        "            return []\n"
        "\n"
        "    def can_reach(self):\n"
        "        try:\n"
        "            return ping()\n"
        "        except Exception as e:  # m:probe\n"
        "            self.logger.log_error(f'unreachable: {e}')\n"
        "            return False\n",
    )
    assert by_marker(feature, "pkg/executors.py", run) == {
        "init-only": "error",
        "also-refresh": "error",
        "after-set-up": "warning",
        "warm-up": "warning",
        "callback": "warning",
        "declared-none": "warning",
        "best-effort-doc": "warning",
        "probe": "warning",
    }


def test_a_set_up_give_up_whose_handler_says_what_failed_keeps_a_warning(
    feature: Repo, run: Run
) -> None:
    # Triton 90b66758 openai_frontend/engine/utils/triton.py:711: `_parse_lora_configs`,
    # reached from `__init__` via `_get_model_metadata`, re-raises the server's own error
    # and for any other prints the traceback and returns None under "# LoRA is enabled but
    # its list is not provided or malformed?" (labelled ⚠). The same catch with no word in
    # the handler keeps the ✗.
    feature.write(
        "pkg/frontend.py",
        "class Frontend:\n"
        "    def __init__(self, path):\n"
        "        self.loras = self._parse_lora_configs(path)\n"
        "        self.extras = self._parse_extras(path)\n"
        "\n"
        "    def _parse_lora_configs(self, path):\n"
        "        try:\n"
        "            return read_loras(path)\n"
        "        except Exception as e:  # m:commented\n"
        "            # LoRA is enabled but its list is not provided or malformed?\n"
        "            print(e)\n"
        "            return None\n"
        "\n"
        "    def _parse_extras(self, path):\n"
        "        try:\n"
        "            return read_extras(path)\n"
        "        except Exception as e:  # m:bare\n"
        "            print(e)\n"
        "            return None\n",
    )
    assert by_marker(feature, "pkg/frontend.py", run) == {
        "commented": "warning",
        "bare": "error",
    }
