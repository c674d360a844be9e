# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except, what a handler does after it logs decides: a handler that ends a route
built to end on its exception (a websocket's endless receive loop, cleanup in
``finally:``) is not carrying on with a fallback; a request-path function whose handler
only logs and then ends leaves whoever waits on it unanswered. Each case is the shape a
real commit had it in (named in the test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from policytool.rules import _fail_fast as paths
from policytool.rules import _fakes as fakes
from tests.conftest import Repo
from tests.sweep_fixture import LOG, Run, by_marker


def test_a_route_that_ends_on_its_exception_is_not_a_fallback(feature: Repo, run: Run) -> None:
    # lightllm 7066b69c config_server/api_http.py:55: the heartbeat websocket's receive
    # loop ends on a disconnect; the handler logs it, `finally:` unregisters the peer and
    # the route returns: ⚠, not "carries on with a fallback". A route whose catch falls
    # through to a hand-made fallback stays ✗ (openrlhf 06ab51e7, test_sweep_broad_except_logged).
    feature.write(
        "pkg/api.py",
        LOG + "@app.websocket('/register')\n"
        "async def websocket_endpoint(websocket):\n"
        "    await websocket.accept()\n"
        "    obj = await websocket.receive_bytes()\n"
        "    try:\n"
        "        while True:\n"
        "            data = await websocket.receive_text()\n"
        "            assert data == 'heartbeat'\n"
        "    except (WebSocketDisconnect, Exception) as e:  # m:heartbeat\n"
        "        logger.error(f'{obj} has error {e}')\n"
        "    finally:\n"
        "        registered.pop(obj, None)\n"
        "    return\n"
        "\n"
        "@app.websocket('/stream')\n"
        "async def stream(websocket):\n"
        "    try:\n"
        "        while True:\n"
        "            await websocket.send_text(next_item())\n"
        "    except Exception as e:  # m:endless-loop\n"
        "        logger.warning('stream ended: %s', e)\n"
        "\n"
        "@app.post('/tokenize')\n"
        "async def tokenize(request):\n"
        "    try:\n"
        "        text = tok.apply_chat_template(request.messages)\n"
        "    except Exception as e:  # m:fallback\n"
        "        logger.warning('template failed: %s', e)\n"
        "        text = ' '.join(m['content'] for m in request.messages)\n"
        "    return {'tokens': tok.encode(text)}\n",
    )
    assert by_marker(feature, "pkg/api.py", run) == {
        "heartbeat": "warning",
        "endless-loop": "warning",
        "fallback": "error",
    }


def test_a_request_path_handler_that_only_logs_and_ends_is_an_error(
    feature: Repo, run: Run
) -> None:
    # lightllm 7066b69c httpserver/pd_loop.py:172: `_pd_process_generate` (the task that
    # runs one forwarded request) logs `str(e)` and ends: the stream's consumer never gets
    # a finish: ✗. Not when the handler answers (an error put on the queue), retries in a
    # loop, cleans up in `finally:`, runs code after the `try`, or the catch guards the
    # cleanup in a `finally:` (vllm-omni 0.20 video_stream_session.py:325), or a comment
    # in the handler says why it goes on (aiperf a58de00b dataset_manager.py:162,
    # `_generate_inputs_json_file`: an optional file); nor in a function whose name says
    # nothing of a request, one named for an attempt (aibrix aec215cb batch_manager.py:734,
    # `_complete_request_and_maybe_persist`), or a logged removal of a cache (fish-speech
    # 12915468 webui/manage.py:139, `clean_infer_cache`): both labelled ⚠.
    feature.write(
        "pkg/loop.py",
        LOG + "async def _pd_process_generate(manager, prompt, queue):\n"
        "    try:\n"
        "        async for rid, out in manager.generate(prompt):\n"
        "            await queue.put((rid, out))\n"
        "    except BaseException as e:  # m:ends\n"
        "        logger.error(str(e))\n"
        "\n"
        "async def _process_generate_answers(manager, prompt, queue):\n"
        "    try:\n"
        "        async for rid, out in manager.generate(prompt):\n"
        "            await queue.put((rid, out))\n"
        "    except Exception as e:  # m:answers\n"
        "        logger.error(str(e))\n"
        "        await queue.put((None, ERROR))\n"
        "\n"
        "async def handle_loop(manager):\n"
        "    while True:\n"
        "        try:\n"
        "            await manager.poll()\n"
        "        except Exception as e:  # m:retry\n"
        "            logger.exception(str(e))\n"
        "\n"
        "async def generate_stream(manager, prompt, queue):\n"
        "    try:\n"
        "        async for out in manager.generate(prompt):\n"
        "            await queue.put(out)\n"
        "    except Exception as e:  # m:finally\n"
        "        logger.error(str(e))\n"
        "    finally:\n"
        "        await queue.put(DONE)\n"
        "\n"
        "def infer_batch(model, batch):\n"
        "    try:\n"
        "        out = model(batch)\n"
        "    except Exception as e:  # m:goes-on\n"
        "        logger.warning('failed: %s', e)\n"
        "        out = None\n"
        "    return out\n"
        "\n"
        "async def handle_session(ws):\n"
        "    task = start(ws)\n"
        "    try:\n"
        "        await run(ws)\n"
        "    finally:\n"
        "        task.cancel()\n"
        "        try:\n"
        "            await task\n"
        "        except Exception:  # m:cleanup\n"
        "            logger.debug('reader task raised', exc_info=True)\n"
        "\n"
        "async def poll_masters(client):\n"
        "    try:\n"
        "        await client.get('/objs')\n"
        "    except Exception as e:  # m:not-request\n"
        "        logger.exception(str(e))\n"
        "\n"
        "async def _generate_inputs_json_file(self, path):\n"
        "    try:\n"
        "        await write_inputs(path)\n"
        "    except Exception as e:  # m:says-why\n"
        "        # Log as warning, but continue to run the benchmark\n"
        "        logger.warning(f'Error generating {path}: {e}')\n"
        "\n"
        "async def _complete_request_and_maybe_persist(self, meta, req_id):\n"
        "    meta.complete_one_request(req_id)\n"
        "    try:\n"
        "        await self.apply_job_changes(meta)\n"
        "    except Exception:  # m:maybe\n"
        "        logger.warning('Failed to persist the transition', exc_info=True)\n"
        "\n"
        "def clean_infer_cache():\n"
        "    try:\n"
        "        shutil.rmtree(CACHE)\n"
        "        logger.info(f'Deleted cached audios: {CACHE}')\n"
        "    except Exception as e:  # m:removes-cache\n"
        "        logger.info(f'An error occurred: {e}')\n",
    )
    assert by_marker(feature, "pkg/loop.py", run) == {
        "ends": "error",
        "answers": "warning",
        "retry": "warning",
        "finally": "warning",
        "goes-on": "warning",
        "cleanup": "warning",
        "not-request": "warning",
        "says-why": "warning",
        "maybe": "warning",
        "removes-cache": "warning",
    }


def test_a_private_helper_only_routes_call_falls_back_for_them(feature: Repo, run: Run) -> None:
    # openrlhf ea4ac848 agent_func_openai_server_executor.py:47: `_apply_chat_template`,
    # called only from the `/tokenize` and `/v1/chat/completions` routes, passes a failed
    # chat template on to a prompt formatted by hand: the routes answer with it and the
    # client never hears: ✗, as in the route itself. Not when the helper has another
    # caller, returns its own answer in the handler, or is public.
    feature.write(
        "pkg/server.py",
        LOG + "def _apply_chat_template(tok, messages):\n"
        "    try:\n"
        "        return tok.apply_chat_template(messages, tokenize=False)\n"
        "    except Exception:  # m:route-helper\n"
        "        pass\n"
        "    return '\\n'.join(m['content'] for m in messages)\n"
        "\n"
        "def _model_name(tok):\n"
        "    try:\n"
        "        return tok.name_or_path\n"
        "    except Exception:  # m:other-caller\n"
        "        pass\n"
        "    return 'policy'\n"
        "\n"
        "def _count(tok, text):\n"
        "    try:\n"
        "        return len(tok.encode(text))\n"
        "    except Exception:  # m:own-answer\n"
        "        return -1\n"
        "\n"
        "def public_template(tok, messages):\n"
        "    try:\n"
        "        return tok.apply_chat_template(messages)\n"
        "    except Exception:  # m:public\n"
        "        pass\n"
        "    return ''\n"
        "\n"
        "def start(app, tok):\n"
        "    @app.post('/tokenize')\n"
        "    async def tokenize(request):\n"
        "        text = _apply_chat_template(tok, request.messages)\n"
        "        return {'tokens': tok.encode(text), 'name': _model_name(tok),\n"
        "                'n': _count(tok, text), 'p': public_template(tok, [])}\n"
        "\n"
        "    @app.post('/v1/chat/completions')\n"
        "    async def chat(request):\n"
        "        return {'prompt': _apply_chat_template(tok, request.messages)}\n"
        "\n"
        "    return _model_name(tok)\n",
    )
    assert by_marker(feature, "pkg/server.py", run) == {
        "route-helper": "error",
        "other-caller": "warning",
        "own-answer": "warning",
        "public": "warning",
    }


def test_a_helper_every_caller_of_which_is_set_up_is_on_that_path(feature: Repo, run: Run) -> None:
    # lightllm 281fbc79 utils/device_utils.py:164: public `get_gpu_compute_mode` logs and
    # returns None; its only caller `set_sm_limit` is called only from the visual server's
    # `_init_env` in another module: the server starts without the SM cap: ✗. Not when a
    # caller anywhere in the tree is not fail-fast, the helper is passed on as a callback,
    # nobody calls it, its name says it only optimises (`_warmup`, vllm-omni 0.20
    # pipeline_internvla_a1.py:211), or it answers `False` (a probe).
    feature.write(
        "pkg/utils/device.py",
        LOG + "def get_mode(index):\n"
        "    try:\n"
        "        return query(index)\n"
        "    except Exception as e:  # m:two-below-init\n"
        "        logger.warning(f'query failed: {e}')\n"
        "        return None\n"
        "\n"
        "def set_limit(percent, index):\n"
        "    if get_mode(index) != 'Exclusive':\n"
        "        return False\n"
        "    return True\n"
        "\n"
        "def read_clock(index):\n"
        "    try:\n"
        "        return query(index)\n"
        "    except Exception as e:  # m:other-caller\n"
        "        logger.warning(f'query failed: {e}')\n"
        "        return None\n"
        "\n"
        "def read_fan(index):\n"
        "    try:\n"
        "        return query(index)\n"
        "    except Exception:  # m:callback\n"
        "        return None\n"
        "\n"
        "def read_power(index):\n"
        "    try:\n"
        "        return query(index)\n"
        "    except Exception:  # m:uncalled\n"
        "        return None\n"
        "\n"
        "def is_exclusive(index):\n"
        "    try:\n"
        "        return query(index) == 'Exclusive'\n"
        "    except Exception:  # m:probe\n"
        "        return False\n"
        "\n"
        "class Pipeline:\n"
        "    def __init__(self):\n"
        "        self._warmup()\n"
        "\n"
        "    def _warmup(self):\n"
        "        try:\n"
        "            self.policy.forward(fake_batch())\n"
        "        except Exception as exc:  # m:warmup\n"
        "            logger.warning('warmup failed: %s', exc)\n"
        "            return\n",
    )
    feature.write(
        "pkg/server/rpc.py",
        "from pkg.utils.device import set_limit, read_clock, read_fan, is_exclusive\n"
        "\n"
        "def _init_env(port, device):\n"
        "    set_limit(60, device)\n"
        "    read_clock(device)\n"
        "    is_exclusive(device)\n"
        "    register(read_fan)\n"
        "\n"
        "def report(device):\n"
        "    return read_clock(device)\n",
    )
    assert by_marker(feature, "pkg/utils/device.py", run) == {
        "two-below-init": "error",
        "other-caller": "warning",
        "callback": "warning",
        "uncalled": "warning",
        "probe": "warning",
        "warmup": "warning",
    }


@pytest.mark.timing
def test_the_tree_read_for_callers_is_bounded_and_whole_or_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The callers are read from the work tree a PR author controls: no symlink followed
    # out of it, tests/docs/examples skipped, and a tree over the bounds is not read at
    # all (a part of the callers would make a shared helper look like one path's step).
    outside = tmp_path / "outside.py"
    outside.write_text("def leak(): pass\n")
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "a.py").write_text("def a(): pass\n")
    (root / "pkg" / "link.py").symlink_to(outside)
    (root / "tests" / "b.py").write_text("def b(): pass\n")
    assert set(paths.read_tree(str(root), fakes.SKIP_DIRS) or {}) == {"pkg.a"}
    monkeypatch.setattr(paths, "MAX_TREE_FILES", 1)
    assert paths.read_tree(str(root), fakes.SKIP_DIRS) is None
    monkeypatch.setattr(paths, "MAX_TREE_FILES", 10)
    monkeypatch.setattr(paths, "MAX_TREE_BYTES", 5)
    assert paths.read_tree(str(root), fakes.SKIP_DIRS) is None
