# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except: a fail-fast function that returns ``True`` when it succeeds and whose
handler logs and returns ``False`` tells its callers it failed. When every call of it in
the module acts on that answer (FlagScale's servers: ``if not load_model(): ...
sys.exit(1)``, set zzzt), the failure ends the process loudly: ⚠, as a ``-> bool``
predicate's ``False`` is. A call that drops the answer, a test that does nothing with it
(``if not load_model(): pass``, which a pull request could add to hide the ✗), the
function handed on as a callback (whose answer someone else gets), or no call in the
module at all keeps the ✗."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import LOG, Run, by_marker

SERVER = LOG + (
    "import sys\n\n\n"
    "def load_model():\n"
    "    try:\n"
    "        torch.load('model.pt')\n"
    "        return True\n"
    "    except Exception as e:  # m:load\n"
    "        logger.error(f'Load model error: {e}')\n"
    "        return False\n"
    "\n\n"
    "def main():\n"
)


@pytest.mark.parametrize(
    ("calls", "severity"),
    [
        (
            "    if not load_model():\n        logger.error('failed')\n        sys.exit(1)\n",
            "warning",
        ),
        ("    if not load_model():\n        raise SystemExit(1)\n", "warning"),
        ("    assert load_model()\n", "warning"),
        ("    load_model()\n", "error"),
        ("    if not load_model():\n        pass\n", "error"),
        ("    if not load_model():\n        sys.exit(1)\n    load_model()\n", "error"),
        ("    pass\n", "error"),
        ("    if not load_model():\n        sys.exit(1)\n    run_later(load_model)\n", "error"),
        ("    if not load_model():\n        sys.exit(1)\n    server.load_model()\n", "error"),
    ],
    ids=[
        "exits",
        "raises",
        "asserted",
        "dropped",
        "ignored",
        "once-dropped",
        "no-call",
        "handed-on",
        "dropped-on-another-object",
    ],
)
def test_a_failure_answer_its_callers_act_on(
    feature: Repo, run: Run, calls: str, severity: str
) -> None:
    feature.write("pkg/serve.py", SERVER + calls)
    assert by_marker(feature, "pkg/serve.py", run) == {"load": severity}
