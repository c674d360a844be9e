# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except, round M: a logged catch whose failure the code already handles as an
outcome is not the seed's silent swallow on a fail-fast path. A patch function that
answers ``False`` (logged) on its other failures too, a broad catch after ``except
ImportError:`` (the code is built to run without the package: the feature is optional),
and a load handed to a function that makes something else of it (its metadata) are ⚠;
the ✗ of each reading is kept beside them."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import LOG, Run, by_marker


def test_a_patch_that_reports_every_failure_as_false_keeps_a_warning(
    feature: Repo, run: Run
) -> None:
    # SkyRL 706c3081 patch_hybrid_fp8_kv_wake.py:45: `-> bool`; the import's broad catch
    # logs and returns False, as do the unreadable-source and changed-source paths (`if
    # _OLD_LOOP not in source: logger.info(...); return False`): its caller reads False
    # as "not patched". Kept ✗: the same catch in a patch with no other reported failure
    # (LLaMA-Factory 84576b1 / torchao 3ffa31c shape, tests/..._patch_imports.py).
    feature.write(
        "pkg/patches.py",
        LOG + "def patch_kv_wake() -> bool:\n"
        "    try:\n"
        "        from vllm.v1.worker import gpu_model_runner\n"
        "    except ModuleNotFoundError:\n"
        "        return False\n"
        "    except Exception as e:  # m:reported\n"
        "        logger.warning('Importing vLLM failed; skipping patch: %s', e)\n"
        "        return False\n"
        "    source = get_source(gpu_model_runner)\n"
        "    if OLD not in source:\n"
        "        logger.info('vLLM changed; skipping patch')\n"
        "        return False\n"
        "    apply(gpu_model_runner, source)\n"
        "    return True\n"
        "\n"
        "def patch_rope() -> bool:\n"
        "    try:\n"
        "        from vllm.model_executor import rotary\n"
        "    except Exception as e:  # m:unreported\n"
        "        logger.warning('Importing vLLM failed; skipping patch: %s', e)\n"
        "        return False\n"
        "    rotary.apply = fast_apply\n"
        "    return True\n",
    )
    assert by_marker(feature, "pkg/patches.py", run) == {
        "reported": "warning",
        "unreported": "error",
    }


def test_a_broad_catch_after_a_missing_package_keeps_a_warning(feature: Repo, run: Run) -> None:
    # AReaL aebe13d8 cuda.py:82 `set_numa_affinity`: `except ImportError:` warns "pynvml
    # not available, skipping NUMA affinity setup", then `except Exception as e:` warns
    # "Failed to set NUMA affinity": the code runs without pynvml, so pinning is optional
    # and a broken install is logged at its best-effort boundary. Kept ✗: the same shape
    # after a named failure of the work itself (`except NotFoundError:`, llama-stack
    # e1ed1527 openai_mixin.py:268).
    feature.write(
        "pkg/platform.py",
        LOG + "def set_numa_affinity(local_rank: int) -> None:\n"
        "    try:\n"
        "        import pynvml\n"
        "\n"
        "        pynvml.nvmlInit()\n"
        "        pynvml.nvmlDeviceSetCpuAffinity(pynvml.nvmlDeviceGetHandleByIndex(local_rank))\n"
        "    except ImportError:\n"
        "        logger.warning('pynvml not available, skipping NUMA affinity setup.')\n"
        "    except Exception as e:  # m:optional\n"
        "        logger.warning('Failed to set NUMA affinity for GPU %s: %s', local_rank, e)\n"
        "\n"
        "async def check_model_availability(client, model) -> bool:\n"
        "    try:\n"
        "        await client.models.retrieve(model)\n"
        "        return True\n"
        "    except NotFoundError:\n"
        "        pass\n"
        "    except Exception as e:  # m:expected\n"
        "        logger.warning(f'cannot check {model}: {e}')\n"
        "    return False\n",
    )
    assert by_marker(feature, "pkg/platform.py", run) == {
        "optional": "warning",
        "expected": "error",
    }


def test_a_load_handed_to_a_metadata_reader_keeps_a_warning(feature: Repo, run: Run) -> None:
    # Olive 94e2bb37 discrepancy_check.py:1069 `_capture_export_info`: the `try` returns
    # `self._get_onnx_export_info(model.load_model())`, the exporter's name and version
    # for the report; its logged `return {}` is missing metadata, not a model the caller
    # is left without. Kept ✗: a `try` returning the load itself, through a method of it
    # (`.eval()`) or a constructor given the loaded config (`from_config(config)`,
    # LLaMA-Factory ffbff33a workflow.py:150).
    feature.write(
        "pkg/report.py",
        LOG + "class Check:\n"
        "    def _capture_export_info(self, model) -> dict:\n"
        "        try:\n"
        "            return self._get_onnx_export_info(model.load_model())\n"
        "        except Exception:  # m:metadata\n"
        "            logger.warning('failed to capture export info', exc_info=True)\n"
        "            return {}\n"
        "\n"
        "    def _eval_model(self, path):\n"
        "        try:\n"
        "            return AutoModel.from_pretrained(path).eval()\n"
        "        except Exception as e:  # m:receiver\n"
        "            logger.warning('fallback to no model: %s', e)\n"
        "            return None\n"
        "\n"
        "def build_meta_model(path):\n"
        "    try:\n"
        "        return AutoModel.from_config(AutoConfig.from_pretrained(path))\n"
        "    except Exception as e:  # m:built\n"
        "        logger.warning('fallback to no model: %s', e)\n"
        "        return None\n",
    )
    assert by_marker(feature, "pkg/report.py", run) == {
        "metadata": "warning",
        "receiver": "error",
        "built": "error",
    }
