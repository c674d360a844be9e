# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except ✗ for a patch function whose broad catch around the import it patches
logs the failure and skips the patch: a log line does not make the patch optional."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, lines

LOGGED_PATCH_IMPORTS = """\
import importlib
import logging

logger = logging.getLogger(__name__)


def _patch_inductor_min_max_codegen() -> None:
    try:
        from torch._inductor.codegen.triton import TritonOverrides
    except Exception as e:  # pragma: no cover - inductor internals moved
        logger.debug("could not import TritonOverrides to patch: %s", e)
        return
    TritonOverrides.minimum = min


def _apply_model_patches(patches) -> int:
    count = 0
    for module_name, replacement in patches:
        try:
            target = importlib.import_module(module_name)
        except Exception as e:
            logger.warning_rank0_once(f"Failed to import {module_name}: {e}")
            continue
        target.rope = replacement
        count += 1
    return count


_IMPORT_ERROR = None


def _patch_deferred():
    global _IMPORT_ERROR
    try:
        import torch_npu
    except Exception as e:
        _IMPORT_ERROR = e
        return
    torch_npu.go()


def _patch_with_fallback():
    try:
        import torch_npu
    except Exception as e:
        logger.warning("no torch_npu: %s", e)
    patch_loader()


def setup_optional():
    try:
        import torch_npu
    except Exception as e:
        logger.warning("no torch_npu: %s", e)
        return
    torch_npu.go()
"""


def test_a_logged_catch_that_skips_the_patch_is_blocking(feature: Repo, run: Run) -> None:
    # torchao 3ffa31c: float8's import-time patch hides a failed import of inductor internals
    # behind a DEBUG line; LLaMA-Factory 84576b1: the NPU RoPE patch logs a warning and
    # goes on to the next module, leaving the kernel the user enabled unapplied.
    feature.write("pkg/patches.py", LOGGED_PATCH_IMPORTS)
    feature.commit("add")
    found = lines(run, "broad-except")
    assert [(line, sev) for line, sev, _m in found] == [
        (10, "error"),
        (21, "error"),
        # line 36 keeps the error and hands it on (raised when the patch is needed)
        (45, "warning"),  # passes on to the code after the try: nothing skipped
    ]  # line 53: an optional import, not a patch, logged (best effort: not reported)
    assert found[0][2] == (
        "`except Exception as e:` around an import in patch function "
        "`_patch_inductor_min_max_codegen` logs and skips the patch on any error, not only "
        "a missing module; catch ImportError"
    )


UNPATCH = """\
def unpatch_banded_attention():
    \"\"\"Restore the sdpa entry the patch wrapped.\"\"\"
    try:
        from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
    except Exception:
        return
    ALL_ATTENTION_FUNCTIONS["sdpa"] = ORIGINAL


def patch_banded_attention():
    try:
        from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
    except Exception:
        return
    ALL_ATTENTION_FUNCTIONS["sdpa"] = BANDED
"""


def test_undoing_a_patch_is_not_a_patch_function(feature: Repo, run: Run) -> None:
    """unsloth-zoo 3e01fafd: ``unpatch_*`` restores what a patch replaced; when the import
    fails nothing was patched to undo, so its catch is the plain broad catch (⚠), while the
    patch itself stays ✗."""
    feature.write("pkg/patches.py", UNPATCH)
    feature.commit("add")
    found = lines(run, "broad-except")
    assert [(line, sev) for line, sev, _m in found] == [(5, "warning"), (13, "error")]
    assert "patch function `patch_banded_attention`" in found[1][2]
