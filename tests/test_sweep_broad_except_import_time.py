# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except, a function the package runs as it is imported: a top-level call (or a
class body's) is the package's set-up, a fail-fast path. flash-attention's
``_is_cuda_12()`` sets a config default at import; its ``except Exception: pass`` turns
any failure into "not CUDA 12" with no word: ✗, as for a probe ``__init__`` calls. A
set-up helper a package's ``__init__.py`` calls at import, in another module, is reached
only from there: ✗ too. Only what the import calls itself (a helper three calls below a
module's top level may be an app's run), not a call in a ``lambda`` (it runs later) or
in a ``raise`` (it words the error); not in a script; nor a handler whose comment says
why."""

from __future__ import annotations

from functools import partial

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

rows = partial(found, rule="broad-except")

UTILS = """\
import torch


def _is_cuda_12():
    try:
        return torch.version.cuda.startswith("12")
    except Exception:
        pass
    return False


def _later():
    try:
        return torch.version.cuda.startswith("13")
    except Exception:
        pass
    return False


def _worded():
    try:
        return torch.version.cuda
    except Exception:
        return None


DISABLE_2CTA = _is_cuda_12()
CHECK = lambda: _later()  # noqa: E731 - called later, not at import
if DISABLE_2CTA is None:
    raise RuntimeError(f"no CUDA: {_worded()}")


def _inner():
    try:
        return torch.version.hip
    except Exception:
        return None


def _outer():
    return _inner()


HIP = _outer()
"""


def _feature(repo: Repo, files: dict[str, str]) -> None:
    repo.write("README.md", "x\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("import-time set-up")


def test_a_probe_run_at_import_is_an_error(repo: Repo, run: Run) -> None:
    _feature(repo, {"pkg/__init__.py": "", "pkg/utils.py": UTILS})
    got = {line: (sev, message) for _p, line, sev, message in rows(run)}
    assert {line: sev for line, (sev, _m) in got.items()} == {
        7: "error",  # run at import, to set a module constant
        15: "warning",  # in a lambda: called later
        23: "warning",  # in a raise: words the error
        36: "warning",  # one call below the import: not the import's own call
    }
    assert "`_is_cuda_12` (called at import)" in got[7][1]
    assert "silently falls through to its fallback on every error" in got[7][1]


SETUP = """\
import os


def add_dll_path(path):
    try:
        return os.add_dll_directory(path)
    except Exception:
        return None
"""


def test_a_helper_another_module_runs_at_import(repo: Repo, run: Run) -> None:
    """kernels' ``__init__.py`` runs ``_add_additional_dll_paths()`` from another module:
    its only caller is the import, so it is reached only from set-up."""
    init = "from pkg._setup import add_dll_path\n\nadd_dll_path('C:/dnnl')\n"
    _feature(repo, {"pkg/__init__.py": init, "pkg/_setup.py": SETUP})
    got = {line: (sev, message) for _p, line, sev, message in rows(run)}
    assert {line: sev for line, (sev, _m) in got.items()} == {7: "error"}
    assert "`add_dll_path` (reached only at import)" in got[7][1]


def test_a_helper_also_called_from_a_handler_or_commented(repo: Repo, run: Run) -> None:
    """The same helper also called from a request handler is not set-up alone; with a
    comment saying why the error is ignored, it is a choice on the record: ⚠."""
    init = (
        "from pkg._setup import add_dll_path\n\nadd_dll_path('C:/dnnl')\n\n\n"
        "def on_request(paths):\n    add_dll_path(paths)\n"
    )
    commented = SETUP.replace("return None", "return None  # already added or no permission")
    _feature(
        repo,
        {
            "pkg/__init__.py": init,
            "pkg/_setup.py": SETUP,
            "other/__init__.py": "from other._setup import add_dll_path\n\nadd_dll_path('')\n",
            "other/_setup.py": commented,
        },
    )
    assert {(p, line, sev) for p, line, sev, _m in rows(run)} == {
        ("pkg/_setup.py", 7, "warning"),
        ("other/_setup.py", 7, "warning"),
    }


def test_a_script_top_level_is_no_set_up(repo: Repo, run: Run) -> None:
    """The same probe in a script: a file outside any package (no ``__init__.py`` in its
    directory: ``benchmarks/``, ``.github/``) or a module with an ``if __name__ ==
    "__main__":`` block runs its top level as a program, not as a package's set-up: ⚠."""
    guarded = UTILS + '\n\nif __name__ == "__main__":\n    print(DISABLE_2CTA)\n'
    _feature(
        repo,
        {"bench/utils.py": UTILS, "pkg/__init__.py": "", "pkg/cli.py": guarded},
    )
    got = {(p, line, sev) for p, line, sev, _m in rows(run)}
    assert ("bench/utils.py", 7, "warning") in got
    assert ("pkg/cli.py", 7, "warning") in got
    assert not any(sev == "error" for _p, _l, sev in got)
