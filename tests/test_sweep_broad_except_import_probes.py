# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except ✗ for a bare ``except:`` at import time around more than an optional
import: a backend probe (``use_npu = torch_npu.npu.is_available()``) or the package's own
modules. Every error, KeyboardInterrupt and the project's own import bugs included, silently
selects the other code path; a plain optional-import guard stays ⚠."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, lines

IMPORT_PROBES = """\
import torch

try:
    import torch_npu
    use_npu = torch_npu.npu.is_available()
except:
    use_npu = False

try:
    import torch_npu
    from enginepkg.util import npu_runner
except:
    pass

try:
    HAS_KERNEL = True
    from sgl_kernel import quant_fp8
except:
    HAS_KERNEL = False

try:
    import transformer_engine.pytorch as te
except:
    te = None

try:
    if torch.cuda.is_available():
        torch.cuda.init()
except:
    pass

try:
    from sglang.srt.hf_transformers_utils import get_tokenizer
except:
    from sglang.srt.utils.hf_transformers_utils import get_tokenizer

try:
    import torch_npu
    use_npu = torch_npu.npu.is_available()
except Exception:
    use_npu = False

try:
    import torch_npu
    use_npu = torch_npu.npu.is_available()
except:  # torch_npu may fail to initialise without a device: CPU then
    use_npu = False


def probe() -> bool:
    try:
        import torch_npu
        return torch_npu.npu.is_available()
    except:
        return False
"""


def test_a_bare_catch_around_an_import_time_probe_is_blocking(feature: Repo, run: Run) -> None:
    # ktransformers (set zf): `try: import torch_npu; use_torch_npu =
    # torch_npu.npu.is_available() except: use_torch_npu = False`, and `local_chat.py`'s
    # try that also imports ktransformers' own modules under `except: pass`.
    feature.write("enginepkg/backend.py", IMPORT_PROBES)
    feature.commit("add")
    found = lines(run, "broad-except")
    assert [(line, sev) for line, sev, _m in found] == [
        (6, "error"),  # the probe runs torch_npu's code
        (12, "error"),  # the package's own module in the same try
        (18, "warning"),  # an optional third-party import guard
        (23, "warning"),
        (29, "warning"),  # no import: a capability check, not an import probe
        (34, "warning"),  # the alternative import raises if it fails too
        (40, "warning"),  # `except Exception`: KeyboardInterrupt goes through
        (46, "warning"),  # a comment says why
        (54, "warning"),  # in a function: not import time
    ]
    assert found[0][2] == (
        "bare `except:` at import time around a backend probe silently swallows every "
        "error, KeyboardInterrupt and the project's own bugs included; catch ImportError"
    )
    assert "around the project's own imports" in found[1][2]
