# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except, a load at set-up whose catch logs and goes on with a guessed value: a
metric loaded from the hub at import time (``judge = None``), a tokenizer load in a helper
only model ``__init__`` methods reach (``return True``, "assuming a chat template"). The
log line is the only trace; the run goes on half loaded. The same catch where nothing is
loaded, or in a function set-up does not reach, stays ⚠."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import LOG, Run, by_marker

FEATURE_BASE = {"pkg/__init__.py": ""}


def test_a_hub_load_at_import_time_that_sets_none_is_an_error(feature: Repo, run: Run) -> None:
    # lm-evaluation-harness 69ecd0b9 (slr_bench): the task module loads its scoring metric
    # with `evaluate.load("AIML-TUDA/...")`; any failure prints a warning and sets the
    # judge to None, and scoring silently falls back to exact match.
    feature.write(
        "pkg/task.py",
        "from evaluate import load\n"
        "\n"
        "try:\n"
        "    judge = load('AIML-TUDA/VerifiableRewardsForScalableLogicalReasoning')\n"
        "except Exception as e:  # m:hub-metric\n"
        "    print(f'Warning: could not load the judge: {e}')\n"
        "    judge = None\n"
        "\n"
        "try:\n"
        "    table = load('data/table.json')\n"
        "except Exception as e:  # m:a-file\n"
        "    print(f'Warning: {e}')\n"
        "    table = None\n"
        "\n"
        "try:\n"
        "    version = get_version()\n"
        "except Exception as e:  # m:no-load\n"
        "    print(f'Warning: {e}')\n"
        "    version = None\n",
    )
    assert by_marker(feature, "pkg/task.py", run) == {
        "hub-metric": "error",
        "a-file": "warning",
        "no-load": "warning",
    }


def test_a_logged_guess_in_a_load_helper_only_init_reaches_is_an_error(
    feature: Repo, run: Run
) -> None:
    # lighteval e7d70902 (models/utils.py:244): `uses_chat_template` catches a failed
    # `AutoTokenizer.from_pretrained`, logs a warning and returns True; only the model
    # classes' `__init__` call it. A copy called from a plain function stays ⚠.
    feature.write(
        "pkg/utils.py",
        LOG + "def uses_chat_template(model_name: str) -> bool:\n"
        "    try:\n"
        "        tk = AutoTokenizer.from_pretrained(model_name)\n"
        "        return tk.chat_template is not None\n"
        "    except Exception:  # m:init-guess\n"
        "        logger.warning('Assuming we are using a chat template')\n"
        "        return True\n"
        "\n"
        "\n"
        "def has_template(model_name: str) -> bool:\n"
        "    try:\n"
        "        tk = AutoTokenizer.from_pretrained(model_name)\n"
        "        return tk.chat_template is not None\n"
        "    except Exception:  # m:report-guess\n"
        "        logger.warning('Assuming we are using a chat template')\n"
        "        return True\n",
    )
    feature.write(
        "pkg/model.py",
        "from pkg.utils import has_template, uses_chat_template\n\n\nclass Model:\n"
        "    def __init__(self, name):\n"
        "        self.use_chat_template = uses_chat_template(name)\n\n\n"
        "def report(name):\n    return has_template(name)\n",
    )
    assert by_marker(feature, "pkg/utils.py", run) == {
        "init-guess": "error",
        "report-guess": "warning",
    }
