# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except, read against what the code around the catch says: a specific handler
before it names the expected failure, a comment introducing the ``try`` calls it best
effort, and what the ``try`` hands back says whether a load's failure leaves the caller
without the model."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import LOG, Run, by_marker


def test_a_broad_catch_giving_the_expected_failures_answer_is_an_error(
    feature: Repo, run: Run
) -> None:
    # llama-stack e1ed1527 openai_mixin.py:268 (`except openai.NotFoundError: pass`, then
    # `except Exception as e: logger.warning(...)`, both on to `return False`) and
    # nemo-skills ad8e8f8e livecodebench.py:112 (`except httpx.NetworkError` and `except
    # Exception`, each a warning and `return False`): a bad key or a bug reads as "not
    # there". Kept ⚠: a DEBUG line (lm-eval putnam utils.py:210), another answer than the
    # specific handler's, no specific handler before it, an interrupt caught before it
    # (llama-stack 2c06b24c benchmark.py:263).
    feature.write(
        "pkg/probe.py",
        LOG + "async def check_model_availability(client, model) -> bool:\n"
        "    try:\n"
        "        await client.models.retrieve(model)\n"
        "        return True\n"
        "    except NotFoundError:\n"
        "        pass\n"
        "    except Exception as e:  # m:falls-through\n"
        "        logger.warning(f'cannot check {model}: {e}')\n"
        "    return False\n"
        "\n"
        "async def is_sandbox_available(config) -> bool:\n"
        "    try:\n"
        "        await ping(config)\n"
        "        return True\n"
        "    except NetworkError as e:\n"
        "        logger.warning(f'unavailable: {e}')\n"
        "        return False\n"
        "    except Exception as e:  # m:same-return\n"
        "        logger.warning(f'unexpected: {e}')\n"
        "        return False\n"
        "\n"
        "def equal(a, b) -> bool:\n"
        "    try:\n"
        "        return simplify(a - b) == 0\n"
        "    except TimeoutError:\n"
        "        return False\n"
        "    except Exception as e:  # m:debug\n"
        "        logger.debug('failed comparing: %s', e)\n"
        "        return False\n"
        "\n"
        "def lookup(table, key):\n"
        "    try:\n"
        "        return table[key]\n"
        "    except KeyError:\n"
        "        return 0\n"
        "    except Exception as e:  # m:other-answer\n"
        "        logger.warning('lookup failed: %s', e)\n"
        "        return None\n"
        "\n"
        "def bench(run):\n"
        "    try:\n"
        "        run()\n"
        "    except KeyboardInterrupt:\n"
        "        print('interrupted')\n"
        "    except Exception as e:  # m:after-interrupt\n"
        "        print(f'failed: {e}')\n"
        "\n"
        "def reachable(url) -> bool:\n"
        "    try:\n"
        "        return ping(url)\n"
        "    except Exception as e:  # m:first\n"
        "        logger.warning('unreachable: %s', e)\n"
        "        return False\n",
    )
    assert by_marker(feature, "pkg/probe.py", run) == {
        "falls-through": "error",
        "same-return": "error",
        "debug": "warning",
        "other-answer": "warning",
        "after-interrupt": "warning",
        "first": "warning",
    }


def test_handlers_falling_through_to_no_answer_keep_a_warning(feature: Repo, run: Run) -> None:
    # huggingface/kernels a1491174 correctness_template.py:81 (`except AssertionError:`
    # prints FAILED, `except Exception as e:` prints ERROR with the type, and the loop
    # goes on), olmocr grpo_train.py:269 (each handler logs an error as the method of
    # side effects ends) and fairseq2 recipes/__init__.py:56 (each handler logs, then
    # `sys.exit(exit_code)`): no answer is given, the log line tells the cases apart.
    # Falling through to `return False` is the expected failure's answer (above).
    feature.write(
        "pkg/harness.py",
        LOG + "import sys\n"
        "\n"
        "def check_shapes(cases):\n"
        "    for shape in cases:\n"
        "        try:\n"
        "            run_shape(shape)\n"
        "            print('PASSED')\n"
        "        except AssertionError as e:\n"
        "            print(f'FAILED: {e}')\n"
        "        except Exception as e:  # m:loop\n"
        "            print(f'ERROR: {type(e).__name__}: {e}')\n"
        "\n"
        "class Sync:\n"
        "    def upload(self, path):\n"
        "        try:\n"
        "            push(path)\n"
        "        except TimeoutError:\n"
        "            logger.error('sync timed out')\n"
        "        except Exception as e:  # m:method-end\n"
        "            logger.error(f'sync failed: {e}')\n"
        "\n"
        "def main(argv) -> None:\n"
        "    exit_code = 1\n"
        "    try:\n"
        "        exit_code = run(argv)\n"
        "    except RuntimeError:\n"
        "        logger.error('internal error')\n"
        "    except Exception:  # m:exit\n"
        "        logger.error('unexpected error')\n"
        "    sys.exit(exit_code)\n"
        "\n"
        "def available(client) -> bool:\n"
        "    try:\n"
        "        client.ping()\n"
        "        return True\n"
        "    except ConnectionError:\n"
        "        logger.warning('down')\n"
        "    except Exception as e:  # m:answer\n"
        "        logger.warning(f'cannot tell: {e}')\n"
        "    return None\n",
    )
    assert by_marker(feature, "pkg/harness.py", run) == {
        "loop": "warning",
        "method-end": "warning",
        "exit": "warning",
        "answer": "error",
    }


def test_a_broad_catch_giving_the_functions_own_failure_answer_keeps_a_warning(
    feature: Repo, run: Run
) -> None:
    # vllm-omni's release diff, examples/.../stable_audio_client.py:158: `generate_audio`
    # prints an error and returns False for a bad status code too, and `main` exits 1 on
    # False; the broad catch after `except requests.exceptions.Timeout` (print, return
    # False) reports the failure the way the function always does (⚠). A predicate whose
    # False means "not there" keeps the ✗.
    feature.write(
        "pkg/client.py",
        LOG + "def generate(url, payload) -> bool:\n"
        "    try:\n"
        "        response = post(url, payload)\n"
        "        if response.status_code != 200:\n"
        "            print(f'Error: status {response.status_code}')\n"
        "            return False\n"
        "        save(response)\n"
        "        return True\n"
        "    except TimeoutError:\n"
        "        print('Error: timed out')\n"
        "        return False\n"
        "    except Exception as e:  # m:reported\n"
        "        print(f'Error: {e}')\n"
        "        return False\n"
        "\n"
        "def available(url) -> bool:\n"
        "    try:\n"
        "        if not url:\n"
        "            return False\n"
        "        return ping(url)\n"
        "    except TimeoutError:\n"
        "        logger.warning('timed out')\n"
        "        return False\n"
        "    except Exception as e:  # m:predicate\n"
        "        logger.warning(f'unexpected: {e}')\n"
        "        return False\n",
    )
    assert by_marker(feature, "pkg/client.py", run) == {
        "reported": "warning",
        "predicate": "error",
    }


def test_a_comment_introducing_the_try_as_best_effort_keeps_a_warning(
    feature: Repo, run: Run
) -> None:
    # prime-rl 9fede0ac monitor/wandb.py:154: in `__init__`, "Best-effort: a
    # workspaces/API failure must never take down training." above `if online:` and its
    # `try`: a logged, declared best-effort step (⚠). The same catch without the comment
    # logs and carries on half set up (✗).
    feature.write(
        "pkg/monitor.py",
        LOG + "class Monitor:\n"
        "    def __init__(self, online):\n"
        "        self.run = start()\n"
        "        # Provision the overview view once. Best-effort: a failure must never\n"
        "        # take down training.\n"
        "        if online:\n"
        "            try:\n"
        "                make_view(self.run)\n"
        "            except Exception as e:  # m:introduced\n"
        "                logger.warning(f'no view: {e}')\n"
        "        try:\n"
        "            make_panel(self.run)\n"
        "        except Exception as e:  # m:bare\n"
        "            logger.warning(f'no panel: {e}')\n",
    )
    assert by_marker(feature, "pkg/monitor.py", run) == {
        "introduced": "warning",
        "bare": "error",
    }


def test_a_load_whose_try_returns_something_else_keeps_a_warning(feature: Repo, run: Run) -> None:
    # modelopt 8745a3c3 examples/llm_ptq/vlm_utils.py:166/239: a preview generation loads
    # a processor, generates and returns the text; its logged `return None` is a missing
    # preview, not a model the caller is left without (⚠). Kept ✗: a `try` returning what
    # it loaded (llamafactory workflow.py:150, `from_config(config)` of the loaded config).
    feature.write(
        "pkg/preview.py",
        LOG + "def run_preview_generation(model, path, question):\n"
        "    try:\n"
        "        processor = AutoProcessor.from_pretrained(path)\n"
        "        inputs = processor(text=[question])\n"
        "        response = model.generate(**inputs)[0]\n"
        "        return response\n"
        "    except Exception as e:  # m:preview\n"
        "        print(f'preview failed: {e}')\n"
        "        return None\n"
        "\n"
        "def build_meta_model(path):\n"
        "    try:\n"
        "        config = AutoConfig.from_pretrained(path)\n"
        "        return AutoModel.from_config(config)\n"
        "    except Exception as e:  # m:returns-loaded\n"
        "        logger.warning('fallback to no model: %s', e)\n"
        "        return None\n",
    )
    assert by_marker(feature, "pkg/preview.py", run) == {
        "preview": "warning",
        "returns-loaded": "error",
    }


def test_a_silent_made_up_answer_on_a_set_up_path_is_an_error(feature: Repo, run: Run) -> None:
    # dspy 86826b01 react_v2.py:206: `_json_schema_for_annotation` returns `{"type":
    # "string"}` on any error, unlogged; `__init__` builds the submit tool's schema with
    # it (via `_make_submit_tool`): a wrong annotation silently becomes a string. Kept ⚠:
    # the same guess in a function no set-up reaches, one with a comment saying why, and
    # a logged one.
    feature.write(
        "pkg/agent.py",
        LOG + "class Agent:\n"
        "    def __init__(self, fields):\n"
        "        self.tool = self._make_tool(fields)\n"
        "\n"
        "    def _make_tool(self, fields):\n"
        "        args = {name: _schema(f) for name, f in fields.items()}\n"
        "        return Tool(args=args, note=_noted(fields), said=_said(fields))\n"
        "\n"
        "    def describe(self, fields):\n"
        "        return _free(fields)\n"
        "\n"
        "\n"
        "def _schema(annotation):\n"
        "    try:\n"
        "        return TypeAdapter(annotation).json_schema()\n"
        "    except Exception:  # m:guess\n"
        "        return {'type': 'string'}\n"
        "\n"
        "def _noted(annotation):\n"
        "    try:\n"
        "        return TypeAdapter(annotation).json_schema()\n"
        "    except Exception:  # m:commented\n"
        "        return {'type': 'string'}  # any annotation pydantic cannot read is text\n"
        "\n"
        "def _said(annotation):\n"
        "    try:\n"
        "        return TypeAdapter(annotation).json_schema()\n"
        "    except Exception as e:  # m:logged\n"
        "        logger.debug('no schema: %s', e)\n"
        "        return {'type': 'string'}\n"
        "\n"
        "def _free(annotation):\n"
        "    try:\n"
        "        return TypeAdapter(annotation).json_schema()\n"
        "    except Exception:  # m:unreached\n"
        "        return {'type': 'string'}\n",
    )
    assert by_marker(feature, "pkg/agent.py", run) == {
        "guess": "error",
        "commented": "warning",
        "logged": "warning",
        "unreached": "warning",
    }


def test_a_logged_give_up_in_connector_setup_is_an_error(feature: Repo, run: Run) -> None:
    # nemo-skills 27a41d6e start_server.py:71: `create_job_tunnel` logs (`LOG.exception`)
    # that it cannot read the job id and returns: the tunnel the user asked for is never
    # made and start_server carries on. Connector set-up (a tunnel, a connection) is
    # set-up like `__init__`. Kept ⚠: a catch guarding the cleanup of a failed `connect`
    # whose handler then re-raises (lerobot camera_opencv.py:190), and the same give-up
    # outside set-up.
    feature.write(
        "pkg/tunnel.py",
        LOG + "def create_job_tunnel(job, port):\n"
        "    try:\n"
        "        app_id = job.handle.partition('://')[2].split('/')[1]\n"
        "    except Exception as e:  # m:tunnel\n"
        "        logger.exception('Unable to get job ID for tunnel.')\n"
        "        logger.exception(e)\n"
        "        return\n"
        "    open_tunnel(app_id, port)\n"
        "\n"
        "class Camera:\n"
        "    def connect(self):\n"
        "        try:\n"
        "            self.stream = open_stream()\n"
        "        except Exception:\n"
        "            try:\n"
        "                self._cleanup_resources()\n"
        "            except Exception as e:  # m:cleanup\n"
        "                logger.exception(f'Failed to clean up: {e}')\n"
        "            raise\n"
        "\n"
        "def job_status(job):\n"
        "    try:\n"
        "        return job.handle.partition('://')[2].split('/')[1]\n"
        "    except Exception as e:  # m:elsewhere\n"
        "        logger.exception(e)\n"
        "        return\n",
    )
    assert by_marker(feature, "pkg/tunnel.py", run) == {
        "tunnel": "error",
        "cleanup": "warning",
        "elsewhere": "warning",
    }


def test_a_helper_only_model_loading_entry_points_call_is_on_the_loading_path(
    feature: Repo, run: Run
) -> None:
    # gptqmodel 24525dab models/loader.py:208: `_set_paged_attention_safe_cuda_graphs`,
    # called only from the loader's `from_pretrained` and `from_quantized` (whose bodies
    # load the config and weights), returns unlogged when building the generation config
    # fails: the model loads without the setting. Kept ⚠: the same helper also called
    # from code that loads nothing.
    feature.write(
        "pkg/loader.py",
        LOG + "def _configure(model):\n"
        "    try:\n"
        "        config = build_generation_config(model.config)\n"
        "    except Exception:  # m:load-helper\n"
        "        return\n"
        "    model.generation_config = config\n"
        "\n"
        "def _describe(model):\n"
        "    try:\n"
        "        text = render(model.config)\n"
        "    except Exception:  # m:shared-helper\n"
        "        return\n"
        "    print(text)\n"
        "\n"
        "def ModelLoader(cls):\n"
        "    def from_quantized(cls, path):\n"
        "        config = AutoConfig.from_pretrained(path)\n"
        "        model = build(config)\n"
        "        _configure(model)\n"
        "        _describe(model)\n"
        "        return model\n"
        "\n"
        "    cls.from_quantized = classmethod(from_quantized)\n"
        "    return cls\n"
        "\n"
        "def report(model):\n"
        "    _describe(model)\n",
    )
    assert by_marker(feature, "pkg/loader.py", run) == {
        "load-helper": "error",
        "shared-helper": "warning",
    }


def test_a_broad_catch_after_a_handler_of_bug_classes_keeps_a_warning(
    feature: Repo, run: Run
) -> None:
    # open-r1 86f9471f / 9915e06f rewards.py:502/529 (`except (TypeError, ValueError):
    # return 0.0` around `float(...)`, then `except Exception as e: print(...); return
    # 0.0`) and optimum-neuron 8307e2a5 neuron_device_memory.py:274 (`except
    # RuntimeError:`, then a broad catch giving the same None): the first handler catches
    # what a bug raises too, so it names no expected failure (both labelled ⚠). A specific
    # class beside them (`except (KeyError, ValueError)`) still names one. The same
    # optimum-neuron catch also follows `except PermissionError:`, in the CLI's `main()`:
    # its None goes to no caller, the printed line is the report (⚠).
    feature.write(
        "pkg/reward.py",
        LOG + "def score(execution) -> float:\n"
        "    try:\n"
        "        return float(execution.text)\n"
        "    except (TypeError, ValueError):\n"
        "        return 0.0\n"
        "    except Exception as e:  # m:conversion\n"
        "        logger.warning(f'score failed: {e}')\n"
        "        return 0.0\n"
        "\n"
        "def usage(device):\n"
        "    try:\n"
        "        return query(device)\n"
        "    except RuntimeError:\n"
        "        logger.warning('no device')\n"
        "        return None\n"
        "    except Exception as e:  # m:runtime\n"
        "        logger.warning(f'cannot read usage: {e}')\n"
        "        return None\n"
        "\n"
        "def cached(table, key) -> bool:\n"
        "    try:\n"
        "        return bool(table[key])\n"
        "    except (KeyError, ValueError):\n"
        "        return False\n"
        "    except Exception as e:  # m:specific\n"
        "        logger.warning(f'lookup failed: {e}')\n"
        "        return False\n"
        "\n"
        "def main():\n"
        "    try:\n"
        "        return report(read_all())\n"
        "    except PermissionError:\n"
        "        logger.warning('permission denied, try sudo')\n"
        "        return None\n"
        "    except Exception as e:  # m:main\n"
        "        logger.warning(f'unexpected error: {e}')\n"
        "        return None\n",
    )
    assert by_marker(feature, "pkg/reward.py", run) == {
        "conversion": "warning",
        "runtime": "warning",
        "specific": "error",
        "main": "warning",
    }


def test_a_broad_catch_giving_the_answer_bugs_already_get_keeps_a_warning(
    feature: Repo, run: Run
) -> None:
    # open-r1 9915e06f rewards.py:529: `except (TypeError, ValueError): return 0.0`, then
    # `except asyncio.TimeoutError: print(...); return 0.0`, then the broad catch printing
    # the error and returning 0.0: the code gives 0.0 to what a bug raises already, so 0.0
    # means "no score", not "timed out" (labelled ⚠). With no handler of bug classes giving
    # that answer, the timeout's answer is the expected failure's (✗).
    feature.write(
        "pkg/sandbox.py",
        LOG + "async def run_script(script) -> float:\n"
        "    try:\n"
        "        return float(await execute(script))\n"
        "    except (TypeError, ValueError):\n"
        "        return 0.0\n"
        "    except TimeoutError:\n"
        "        logger.warning('timed out')\n"
        "        return 0.0\n"
        "    except Exception as e:  # m:bugs-answered\n"
        "        logger.warning(f'sandbox failed: {e}')\n"
        "        return 0.0\n"
        "\n"
        "async def run_other(script) -> float:\n"
        "    try:\n"
        "        return float(await execute(script))\n"
        "    except (TypeError, ValueError):\n"
        "        return -1.0\n"
        "    except TimeoutError:\n"
        "        logger.warning('timed out')\n"
        "        return 0.0\n"
        "    except Exception as e:  # m:timeout-answer\n"
        "        logger.warning(f'sandbox failed: {e}')\n"
        "        return 0.0\n",
    )
    assert by_marker(feature, "pkg/sandbox.py", run) == {
        "bugs-answered": "warning",
        "timeout-answer": "error",
    }
