# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except, logged catches: the ✗ for "logged and carried on" keeps to a model left
half set up, not a complete fallback; every logged broad catch is still ⚠; HTTP routes
and "Initialize ..." docstrings put a catch on a fail-fast path. Each case is the shape a
real commit or release diff had it in (named in the test)."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import LOG, Run, by_marker, found, rows


def test_a_logged_optimisation_fallback_on_weight_loading_is_a_warning(
    feature: Repo, run: Run
) -> None:
    # vllm-omni 0.20.0: torch.compile / CUDA graph / warm-up / VAE slicing failing is
    # logged and the model runs eagerly (voxcpm2_talker.py:604, qwen3_omni.py:1319,
    # fish_speech_slow_ar.py:814, pipeline_diffusers_adapter.py:108, "non-fatal" voice
    # presets in ming_flash_omni_talker.py:521); a PE model failing to load in __init__
    # (pipeline_ernie_image.py:145) and a connector left None (kv_transfer_manager.py:334)
    # are half set up: still ✗.
    feature.write(
        "pkg/model.py",
        LOG + "class Talker:\n"
        "    def _setup_torch_compile(self) -> None:\n"
        "        try:\n"
        "            self.dit = torch.compile(self.dit, mode='reduce-overhead')\n"
        "            self.dit._compiled = True\n"
        "        except Exception as e:  # m:compile\n"
        "            logger.warning('torch.compile LocDiT failed: %s', e)\n"
        "\n"
        "    def load_weights(self, weights) -> set[str]:\n"
        "        loaded = self.loader.load_weights(weights)\n"
        "        try:\n"
        "            self.code2wav.precompute_snake_caches()\n"
        "            self.code2wav.enable_cudagraph(codec_chunk_frames=4)\n"
        "        except Exception:  # m:cudagraph\n"
        "            logger.warning('Failed to enable CUDA Graph; falling back to eager.',"
        " exc_info=True)\n"
        "        try:\n"
        "            self.fast_ar.warmup_compile(device=self.device, batch_sizes=(1,))\n"
        "        except Exception as exc:  # m:warmup\n"
        "            logger.warning('Fast AR compile warmup failed: %s', exc)\n"
        "        if self.slicing:\n"
        "            try:\n"
        "                self.pipeline.enable_vae_slicing()\n"
        "            except Exception as e:  # m:slicing\n"
        "                logger.warning(f'Failed to enable VAE slicing: {e}')\n"
        "        try:\n"
        "            self.voice_presets.load_presets_from_manifest(device=self.device)\n"
        "        except Exception as e:  # m:nonfatal\n"
        "            logger.warning('Voice preset loading failed (non-fatal): %s', e)\n"
        "        return loaded\n"
        "\n"
        "    def __init__(self, path: str) -> None:\n"
        "        try:\n"
        "            self.pe_model = AutoModel.from_pretrained(path).to('cuda')\n"
        "            self.use_pe = True\n"
        "        except Exception as e:  # m:pe\n"
        "            logger.warning('Failed to load PE model: %s', e)\n"
        "            self.pe_model = None\n"
        "            self.use_pe = False\n"
        "        try:\n"
        "            _ = self.connector\n"
        "        except Exception as e:  # m:connector\n"
        "            logger.warning('Failed to eagerly initialize sender connector: %s', e)\n"
        "        try:\n"
        "            self.dit = torch.compile(load_dit(path))\n"
        "        except Exception as e:  # m:loads-and-compiles\n"
        "            logger.warning('DiT failed: %s', e)\n",
    )
    assert by_marker(feature, "pkg/model.py", run) == {
        "compile": "warning",
        "cudagraph": "warning",
        "warmup": "warning",
        "slicing": "warning",
        "nonfatal": "warning",
        "pe": "error",
        "connector": "error",
        "loads-and-compiles": "error",
    }


def test_a_logged_broad_catch_is_reported_unless_forwarded_or_best_effort(
    feature: Repo, run: Run
) -> None:
    # The seed's ⚠ is any new broad catch ("`as e` usually means it is logged, but still
    # verify"): 16 labelled `except Exception as e:` / `except (Exception, X):` sites of
    # the blind sets had no finding at all. Handing the exception on (a future, a stream,
    # a list the caller re-raises) is not a catch-all; logging at a best-effort boundary
    # (metrics, shutdown) is the pattern's own fix there.
    feature.write(
        "pkg/serve.py",
        "import asyncio\n" + LOG + "def export(frames, path):\n"
        "    try:\n"
        "        write_video(frames, path)\n"
        "    except Exception as e:  # m:logged\n"
        "        logger.warning('export failed: %s', e)\n"
        "\n"
        "async def launch(model):\n"
        "    try:\n"
        "        await model.start()\n"
        "    except (Exception, asyncio.CancelledError) as error:  # m:tuple\n"
        "        logger.error('Failed to load model: %s', error)\n"
        "        model.status = str(error)\n"
        "\n"
        "def batch(futures, run_all):\n"
        "    try:\n"
        "        run_all()\n"
        "    except Exception as error:  # m:forwarded\n"
        "        for fut in futures:\n"
        "            fut.set_exception(error)\n"
        "\n"
        "def push_metrics(stats):\n"
        "    try:\n"
        "        stats.push()\n"
        "    except Exception as e:  # m:metrics\n"
        "        logger.warning('metrics push failed: %s', e)\n"
        "\n"
        "def train(path):\n"
        "    try:\n"
        "        model = load_vision(path)\n"
        "    except Exception as e:  # m:formatted\n"
        "        logger.info('not a vision model: {}'.format(e))\n"
        "        model = None\n"
        "    return model\n",
    )
    # m:formatted: fms-hf-tuning 47e80cef `"...{}".format(name, e)` in the log line
    # describes the error, as `str(e)` does; it is no hand-on (it had no finding at all).
    assert by_marker(feature, "pkg/serve.py", run) == {
        "logged": "warning",
        "tuple": "warning",
        "forwarded": "-",
        "metrics": "-",
        "formatted": "warning",
    }


def test_cancel_tasks_and_bool_predicates_are_not_fail_fast(feature: Repo, run: Run) -> None:
    # lmdeploy 03153c6 `_cancel_after_init` (a deferred cancel that logs: best effort by
    # nature, "init" only inside the name) and openrlhf d3f700b `verify_math_answer`
    # (a `-> bool` reward check whose logged `return False` is its answer): ⚠, not ✗.
    # A `validate_config` that logs and carries on is still ✗.
    feature.write(
        "pkg/engine.py",
        LOG + "async def _cancel_after_init(self, session_id):\n"
        "    try:\n"
        "        await self.engine.rpc('cancel', session_id)\n"
        "    except Exception:  # m:cancel\n"
        "        logger.exception(f'deferred cancel of {session_id} failed.')\n"
        "\n"
        "def verify_math_answer(pred: str, gold: str) -> bool:\n"
        "    try:\n"
        "        return verify(parse(gold), parse(pred))\n"
        "    except Exception as e:  # m:verify\n"
        "        print(f'Parse error: {e}')\n"
        "        return False\n"
        "\n"
        "def validate_config(cfg):\n"
        "    try:\n"
        "        check(cfg)\n"
        "    except Exception as e:  # m:validate\n"
        "        logger.warning('config check failed: %s', e)\n",
    )
    assert by_marker(feature, "pkg/engine.py", run) == {
        "cancel": "warning",
        "verify": "warning",
        "validate": "error",
    }


def test_an_http_route_is_request_handling(feature: Repo, run: Run) -> None:
    # openrlhf 06ab51e7 agent_func_nemogym_executor.py:179: the `/tokenize` route logs a
    # failed chat template and formats the prompt by hand (the client never hears): ✗.
    # An error returned in the response, a stream relay defined inside the route (it runs
    # later), a handshake's done-callback (vLLM 0.33 moriio_connector.py:2358: the error
    # reaches whoever waits on the futures), a named handler that replies with an error
    # through a queue (vllm-omni mooncake_transfer_engine_connector.py:1238) and a
    # function under `@mock.patch("x")` are not ✗.
    feature.write(
        "pkg/server.py",
        LOG + "def start(app, tok):\n"
        '    @app.post("/tokenize")\n'
        "    async def tokenize(request):\n"
        "        body = await request.json()\n"
        "        try:\n"
        "            text = tok.apply_chat_template(body['messages'], tokenize=False)\n"
        "        except Exception as e:  # m:fallback\n"
        "            logger.warning(f'apply_chat_template failed: {e}, falling back')\n"
        "            text = ''\n"
        "            for msg in body['messages']:\n"
        "                text += msg['content']\n"
        "        return {'tokens': tok.encode(text)}\n"
        "\n"
        '    @app.post("/v1/speech")\n'
        "    async def speech(request):\n"
        "        try:\n"
        "            resp = await send(request)\n"
        "        except Exception as exc:  # m:error-response\n"
        "            logger.exception('Proxy connection error')\n"
        "            return Response(content=str(exc), status_code=502)\n"
        "\n"
        "        async def relay():\n"
        "            try:\n"
        "                async for chunk in resp.aiter_bytes():\n"
        "                    yield chunk\n"
        "            except Exception:  # m:relay\n"
        "                logger.exception('relay error')\n"
        "\n"
        "        return StreamingResponse(relay())\n"
        "\n"
        "def _background_handshake(self, host):\n"
        "    future = self.pool.submit(self._handshake, host)\n"
        "\n"
        "    def done_callback(f):\n"
        "        try:\n"
        "            self.agents[host] = f.result()\n"
        "        except Exception:  # m:callback\n"
        "            logger.exception('Handshake with %s failed', host)\n"
        "\n"
        "    future.add_done_callback(done_callback)\n"
        "\n"
        "class Connector:\n"
        "    def _handle_query_request(self, response_queue, identity, payload):\n"
        "        try:\n"
        "            response_queue.put((identity, lookup(payload)))\n"
        "        except Exception as e:  # m:queue-reply\n"
        "            logger.error(f'Query request failed: {e}')\n"
        "            response_queue.put((identity, NOT_FOUND))\n"
        "\n"
        '@mock.patch("pkg.server.send")\n'
        "def check_send(send):\n"
        "    try:\n"
        "        send()\n"
        "    except Exception as e:  # m:mock\n"
        "        logger.warning('send failed: %s', e)\n"
        "        send = None\n",
    )
    assert by_marker(feature, "pkg/server.py", run) == {
        "fallback": "error",
        "error-response": "warning",
        "relay": "warning",
        "callback": "warning",
        "queue-reply": "warning",
        "mock": "warning",
    }


def test_a_helper_whose_docstring_says_it_initialises_is_init(feature: Repo, run: Run) -> None:
    # vllm-gaudi 86bb66e patches.py:689 `_ensure_fsdpa_cached` ("Eagerly initialize the
    # FusedSDPA operator cache.") swallows every error with `pass`: ✗. A docstring that
    # only mentions initialisation ("... when tensor parallelism is initialized") is not.
    feature.write(
        "pkg/patches.py",
        "def _ensure_fsdpa_cached() -> None:\n"
        '    """Eagerly initialize the FusedSDPA operator cache.\n\n'
        '    Called from the model runner during model initialization.\n    """\n'
        "    global _OP\n"
        "    try:\n"
        "        _OP = build_fsdpa()\n"
        "    except Exception:  # m:ensure\n"
        "        pass\n"
        "\n"
        "def _get_local_tp_group():\n"
        '    """Return the local TP group when tensor parallelism is initialized."""\n'
        "    try:\n"
        "        return get_tp_group()\n"
        "    except Exception:  # m:probe\n"
        "        return None\n",
    )
    assert by_marker(feature, "pkg/patches.py", run) == {"ensure": "error", "probe": "warning"}


def test_logged_and_carried_on_on_an_init_path_is_blocking(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/dev.py",
        "import logging\n\nlogger = logging.getLogger(__name__)\n\n\n"
        "class Runner:\n"
        "    def init_device(self) -> None:\n"
        "        try:\n"
        "            self.device = open_device()\n"
        "        except Exception as e:\n"  # 10: ✗
        '            logger.warning("Device setup failed: %s", e)\n'
        "            self.device = None\n"
        "\n"
        "    def record_metrics(self) -> None:\n"
        "        try:\n"
        "            push()\n"
        "        except Exception as e:\n"  # 17: best-effort, not ✗ (not reported)
        '            logger.warning("metrics failed: %s", e)\n'
        "\n"
        "    def close(self) -> None:\n"
        "        try:\n"
        "            self.device.close()\n"
        "        except Exception as e:\n"  # 23: cleanup is best effort
        '            logger.warning("close failed: %s", e)\n',
    )
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(10, "error")]
    assert "fail-fast path `init_device` logs every error and carries on" in rows[0][3]


def test_logged_handlers_that_give_up_or_carry_on_in_requests_are_warnings(
    feature: Repo, run: Run
) -> None:
    feature.write(
        "pkg/l.py",
        "import logging\nlogger = logging.getLogger()\n\n"
        "def scan(items):\n"
        "    for i in items:\n"
        "        try:\n            pass\n        except Exception as e:\n"
        "            logger.warning('skip %s', e)\n            continue\n"
        "def lookup():\n"
        "    try:\n        pass\n    except Exception as e:\n"
        "        logger.error('x %s', e)\n        return {}\n"
        "def forward(x):\n"
        "    try:\n        pass\n    except Exception as e:\n"
        "        logger.error('x %s', e)\n    return x\n"
        "def logged_only():\n"
        "    try:\n        pass\n    except Exception as e:\n"
        "        logger.error('x %s', e)\n",
    )
    found = [(r[1], r[3]) for r in rows(run, rule="broad-except")]
    # The seed's ⚠ is any new broad catch: a logged one is still ⚠ ("`as e` usually
    # means it is logged, but still verify").
    assert found == [(8, "warning"), (14, "warning"), (20, "warning"), (26, "warning")]
