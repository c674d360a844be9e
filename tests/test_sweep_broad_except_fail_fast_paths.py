# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except ✗ on the five fail-fast paths ("init, config validation, weight loading,
request handling, connector setup") and its swallow forms (``pass``, ``return``,
``return None``, ``continue``, a default assigned with nothing logged)."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, by_marker, found, lines, messages, rows, severities


def handler(name: str, body: str) -> str:
    """A function ``name`` whose broad catch runs ``body``."""
    tried = "import torch" if name == "setup_optional" else "x.go()"
    return f"def {name}(x):\n    try:\n        {tried}\n    except Exception:\n        {body}\n\n\n"


BLOCKING = [
    ("load_checkpoint", "pass"),  # weight loading
    ("_load_state_dict_into_model", "return None"),
    ("load_model", "return"),
    ("init_workers", "pass"),  # init
    ("_validate_args", "pass"),  # config validation
    ("build_config", "return None"),
    ("handle_request", "return None"),  # request handling
    ("add_request", "pass"),
    ("_process_input_request", "return"),
    ("connect", "pass"),  # connector setup
    ("create_connector", "return None"),
    ("_connect_to_peer", "pass"),
    ("setup_device", "x.device = None"),  # a default, nothing logged
    ("init_cache", "x.cache = {}\n        x.model = None"),
]
WARNING = [
    ("record_metrics", "pass"),  # best effort: metrics
    ("abort_request", "pass"),
    ("disconnect", "pass"),
    ("setup_device_2", "x.device = x.fallback()"),  # not a default: computed
    ("setup_flag", "x.ok = False"),  # a failure flag someone checks, not a default
    ("setup_fingerprint", "# never fail startup over this\n        x.fp = None"),
    ("setup_optional", "x = None"),  # the try body only imports (below)
    ("validate_instance", "pass"),  # a probe, not config validation
    ("_load_modelinfo_from_cache", "return None"),  # a cache
    ("_decode_prompt_for_bootstrap", "return None"),  # named after init, not init
    ("summarize", "pass"),  # not a fail-fast path
]


def test_the_five_seed_paths_and_the_default_swallow_are_blocking(feature: Repo, run: Run) -> None:
    feature.write("pkg/mod.py", "".join(handler(n, b) for n, b in BLOCKING + WARNING))
    feature.commit("add")
    found = severities(run, "broad-except")
    # each handler's ``except`` is the 4th line of its 7-line block (+1 per extra line)
    lines: dict[str, int] = {}
    line = 1
    for name, body in BLOCKING + WARNING:
        lines[name] = line + 3
        line += 7 + body.count("\n")
    got = {name: found.get(at) for name, at in lines.items()}
    assert got == {
        **{name: "error" for name, _ in BLOCKING},
        **{name: "warning" for name, _ in WARNING},
    }


# -- broad-except: a patch function's import, a helper only fail-fast code calls ----------

PATCH_IMPORT = """\
import importlib


def _patch_torch_npu_getenv() -> None:
    try:
        from torch_npu.utils import patch_getenv
    except Exception:  # noqa: BLE001
        return
    patch_getenv.apply()


def _apply_gdn_patch(impl):
    try:
        mod = importlib.import_module("fla.ops.gated_delta_rule")
    except Exception:
        mod = None
    return mod


def _patch_logged():
    try:
        import torch_npu
    except Exception as e:
        print(e)
        return
    torch_npu.go()


def _patch_specific():
    try:
        import torch_npu
    except ImportError:
        return
    torch_npu.go()


def setup_optional():
    try:
        import torch_npu
    except Exception:
        return
    torch_npu.go()


def is_npu_available():
    try:
        import torch_npu  # noqa: F401
    except Exception:
        return False
    return True


def _patch_torchaudio_load():
    try:
        import torchcodec

        torchcodec  # noqa: B018
        return
    except Exception:
        pass
    patch_loader()
"""


def test_a_broad_catch_around_the_import_a_patch_function_patches_is_blocking(
    feature: Repo, run: Run
) -> None:
    # ms-swift 86e55a5: ``except Exception: return`` around ``from torch_npu.utils import
    # patch_getenv`` in the NPU bootstrap's ``_patch_torch_npu_getenv``.
    feature.write("pkg/npu.py", PATCH_IMPORT)
    feature.commit("add")
    found = lines(run, "broad-except")
    assert [(line, sev) for line, sev, _m in found] == [
        (7, "error"),
        (15, "error"),
        (23, "error"),  # logged, and the patch skipped all the same
        (40, "warning"),  # set-up, but an optional import: best effort
        (48, "warning"),  # an availability probe
        (59, "warning"),  # the failed import is what triggers the patch
    ]
    assert found[0][2] == (
        "`except Exception:` around an import in patch function `_patch_torch_npu_getenv` "
        "skips the patch silently on any error, not only a missing module; catch ImportError"
    )


HELPERS = """\
from transformers import AutoConfig


class Engine:
    def __init__(self, model_dir):
        self.model_dir = model_dir
        self._prepare_engine_kwargs()

    def _prepare_engine_kwargs(self):
        self.overrides = self._get_hf_config_overrides()

    def _get_hf_config_overrides(self):
        try:
            disk_config = AutoConfig.from_pretrained(self.model_dir)
        except Exception:
            disk_config = None
        return {"config": disk_config}

    def _used_elsewhere(self):
        try:
            return AutoConfig.from_pretrained(self.model_dir)
        except Exception:
            return None

    def _try_load(self):
        try:
            return AutoConfig.from_pretrained(self.model_dir)
        except Exception:
            return None

    def _as_callback(self):
        try:
            return AutoConfig.from_pretrained(self.model_dir)
        except Exception:
            return None

    def _logged(self):
        try:
            return AutoConfig.from_pretrained(self.model_dir)
        except Exception as e:
            print(e)
            return {}

    def load_weights(self):
        self._used_elsewhere()
        self._try_load()
        self._logged()
        register(self._as_callback)

    def generate(self):
        self._used_elsewhere()

    def setup(self):
        self._scale = self._scale_factor()
        self._rvv = self._supports_rvv()
        self._start_monitor()

    def _scale_factor(self):
        try:
            return 2 ** len(self.config.block_out_channels)
        except Exception:
            pass
        return 8

    def _supports_rvv(self):
        try:
            return probe()
        except Exception:
            return False

    def _start_monitor(self):
        def _monitor():
            try:
                wait()
            except Exception:
                return
        start(_monitor)
"""


def test_a_private_helper_only_fail_fast_code_calls_is_on_its_path(feature: Repo, run: Run) -> None:
    # ms-swift 598053e: ``except Exception: disk_config = None`` in
    # ``_get_hf_config_overrides``, reached only from the engine's ``__init__``.
    feature.write("pkg/engine.py", HELPERS)
    feature.commit("add")
    found = lines(run, "broad-except")
    assert [(line, sev) for line, sev, _m in found] == [
        (15, "error"),
        (22, "error"),  # also called from generate, but its try loads a config (round D)
        (28, "warning"),  # named for an attempt
        (34, "error"),  # passed as a callback, but its try loads a config (round D)
        (40, "error"),  # logged, but a failed load hands back nothing (round I)
        # ``setup`` calls these two itself: a silent ``pass`` on to the fallback and a
        # silent probe's ``False`` there are ✗ since round L (outlines'
        # ``_check_chat_template``, called from ``__init__``, labelled ✗ in set y); reached
        # only through another helper they stay ⚠ (test_sweep_broad_except_set_up_probes)
        (61, "error"),
        (68, "error"),
        (75, "warning"),  # in a function the set-up only defines
    ]
    assert found[0][2] == (
        "`except Exception:` on fail-fast path `_get_hf_config_overrides` (called only from "
        "`__init__`) silently swallows every error"
    )


def test_broad_except_blocking_needs_both_swallow_and_fail_fast(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/b.py",
        "import os\n"
        "class C:\n"
        "    def metrics(self):\n"  # swallows, not fail-fast: ⚠
        "        try:\n            pass\n        except Exception:\n            return None\n"
        "    def load_weights(self):\n"  # fail-fast, does not swallow: ⚠
        "        try:\n            pass\n        except Exception:\n            self.ok = False\n"
        "    def validate_config(self):\n"  # both: ✗
        "        try:\n            pass\n        except Exception:\n            pass\n"
        "    def __del__(self):\n"  # best effort: ⚠
        "        try:\n            pass\n        except Exception:\n            pass\n"
        "    def setup_cleanup(self):\n"  # cleanup before exit: ⚠
        "        try:\n            pass\n        except Exception:\n            pass\n"
        "    def setup_tmp(self, path):\n"  # temp-file removal: ⚠
        "        try:\n            os.remove(path)\n        except Exception:\n            pass\n"
        "    def init_fallback(self):\n"  # a fallback that re-raises: nothing
        "        try:\n            pass\n        except Exception:\n"
        "            try:\n                pass\n            except OSError:\n                raise\n",
    )
    found = [(r[1], r[3]) for r in rows(run, rule="broad-except")]
    assert found == [
        (6, "warning"),
        (11, "warning"),
        (16, "error"),
        (21, "warning"),
        (26, "warning"),
        (31, "warning"),
    ]


def test_broad_except_quotes_the_clause_as_written(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/q.py",
        "def f():\n    try:\n        pass\n    except (ValueError, Exception):\n        x = 1\n",
    )
    (message,) = messages(run, rule="broad-except")
    assert message.startswith("`except (ValueError, Exception):` ")


def test_an_init_that_names_a_package_init_file_is_not_set_up(feature: Repo, run: Run) -> None:
    # Export-Deploy bf2eea0c nemo_dependencies.py:91 (`get_init_imports`, parsing each
    # `__init__.py`) and kernels 7dbc786f kernel_card_utils.py:100 (`_find_torch_ext_init`,
    # looking for `torch-ext/<name>/__init__.py`): "init" is the package file, the function
    # reads modules and sets nothing up (both labelled ⚠). `init_workers` spelling no file
    # is set-up (✗), and so is an `__init__` whatever strings it holds, or a function
    # fail-fast by another word (`setup_package` writing an `__init__.py`).
    feature.write(
        "pkg/scan.py",
        "import os\n"
        "\n"
        "def get_init_imports(module_dir):\n"
        "    try:\n"
        "        return parse(os.path.join(module_dir, '__init__.py'))\n"
        "    except Exception:  # m:init-file\n"
        "        return {}\n"
        "\n"
        "def init_workers(pool):\n"
        "    try:\n"
        "        pool.start()\n"
        "    except Exception:  # m:set-up\n"
        "        pass\n"
        "\n"
        "def setup_package(root):\n"
        "    try:\n"
        "        write(os.path.join(root, '__init__.py'))\n"
        "    except Exception:  # m:setup\n"
        "        pass\n"
        "\n"
        "class Loader:\n"
        "    def __init__(self, root):\n"
        "        try:\n"
        "            self.init = parse(os.path.join(root, '__init__.py'))\n"
        "        except Exception:  # m:constructor\n"
        "            pass\n",
    )
    assert by_marker(feature, "pkg/scan.py", run) == {
        "init-file": "warning",
        "set-up": "error",
        "setup": "error",
        "constructor": "error",
    }


WORDING = """\
import pickle
import torch


def _unsafe_globals(path: str) -> str:
    try:
        found = torch.serialization.get_unsafe_globals_in_checkpoint(path)
    except Exception:
        found = []
    return f" Unsupported globals: {found}." if found else ""


def _torch_load(path: str):
    try:
        return torch.load(path, weights_only=True)
    except pickle.UnpicklingError as e:
        raise RuntimeError(f"blocked.{_unsafe_globals(path)}") from e


def resume_checkpoint(model: torch.nn.Module, path: str) -> None:
    model.load_state_dict(_torch_load(path))
"""


def test_a_helper_wording_the_error_a_load_raises_is_off_the_path(feature: Repo, run: Run) -> None:
    # timm a346c76b models/_helpers.py:36: `_checkpoint_unsafe_globals`, called only
    # inside the `raise RuntimeError(...)` of `_torch_load`'s handler to name the unsafe
    # globals in the message, falls back to `[]` on any error: the load raises whatever
    # it does (labelled ⚠). Called before the raise instead, the same helper is on the
    # loading path (✗). (No marker comments: a comment on the handler says why.)
    feature.write("pkg/wording.py", WORDING)
    called = WORDING.replace(
        'raise RuntimeError(f"blocked.{_unsafe_globals(path)}") from e',
        "_unsafe_globals(path)\n        raise",
    )
    feature.write("pkg/called.py", called)
    feature.commit("add")
    got = {(path, line): sev for path, line, sev, _m in found(run, "broad-except")}
    assert got == {("pkg/wording.py", 8): "warning", ("pkg/called.py", 8): "error"}


def test_a_try_that_only_stops_or_closes_something_is_best_effort(feature: Repo, run: Run) -> None:
    # Gym fa437efe swebench/app.py:304: in the `verify` route, a bare `except:` around
    # `await original_sandbox.stop()` after the patch is read prints the traceback and
    # goes on (labelled ⚠): a teardown. The same catch around starting the sandbox is ✗.
    # A logged teardown keeps its ⚠ (open-r1 9915e06f rewards.py:535, `sandbox.kill()` in
    # a `finally:`, labelled ⚠), as a catch in a `close` method does not.
    feature.write(
        "pkg/app.py",
        "async def verify(self, body):\n"
        "    sandbox = await self.start()\n"
        "    patch = await sandbox.read_patch()\n"
        "    try:\n"
        "        await sandbox.stop()\n"
        "    except:  # m:teardown\n"
        "        print('Failed to stop the sandbox', format_exc())\n"
        "    try:\n"
        "        await self.eval_sandbox.start()\n"
        "    except:  # m:start\n"
        "        print('Failed to start the sandbox', format_exc())\n"
        "    try:\n"
        "        await sandbox.kill()\n"
        "    except Exception as e:  # m:logged\n"
        "        print(f'Error from kill: {e}')\n"
        "    return patch\n",
    )
    assert by_marker(feature, "pkg/app.py", run) == {
        "teardown": "warning",
        "start": "error",
        "logged": "warning",
    }


def test_joining_a_task_that_is_ending_is_a_teardown(feature: Repo, run: Run) -> None:
    # chainlit b03561a2 server.py:1489/1509: in `connect_mcp`, once the session runner
    # task has reported its error (then the route answers 400), or after the stop event
    # is set, `try: await task / except BaseException: pass` lets the task end (labelled
    # ⚠, as langgraph's `await anext_task` after `anext_task.cancel()`). An `await task`
    # the function goes on from may be the work's own failure, and awaiting the connect
    # call itself is the work: both stay ✗.
    feature.write(
        "pkg/server.py",
        "import asyncio\n\nfrom fastapi import FastAPI\n\napp = FastAPI()\n\n\n"
        "@app.post('/mcp')\n"
        "async def connect_mcp(payload, runner, client, stop_event):\n"
        "    task = asyncio.create_task(runner())\n"
        "    if payload.failed:\n"
        "        try:\n"
        "            await task\n"
        "        except BaseException:  # m:join\n"
        "            pass\n"
        "        return {'status': 400}\n"
        "    stop_event.set()\n"
        "    try:\n"
        "        await self.task\n"
        "    except BaseException:  # m:stopped\n"
        "        pass\n"
        "    try:\n"
        "        await task\n"
        "    except BaseException:  # m:goes_on\n"
        "        pass\n"
        "    try:\n"
        "        await client.connect(payload)\n"
        "    except BaseException:  # m:work\n"
        "        pass\n"
        "    return {'status': 200}\n",
    )
    assert by_marker(feature, "pkg/server.py", run) == {
        "join": "warning",
        "stopped": "warning",
        "goes_on": "error",
        "work": "error",
    }
