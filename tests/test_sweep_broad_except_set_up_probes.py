# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except, a probe that set-up calls itself: a method the class's ``__init__`` calls
directly (outlines' ``VLLMOffline._check_chat_template``) whose broad catch silently
answers ``False`` or passes on to the fallback for every error decides how the object is
built: a bug in the probe becomes "no chat template" and the model is prompted the other
way, with no word. ✗ there (the seed's `except Exception: pass|...` on an init path).
Kept ⚠: the same probe reached only through another helper (two calls from set-up: its
answer is one input among others), a probe whose handler or ``except`` line says why in a
comment, a logged one, and a probe no set-up code calls."""

from __future__ import annotations

from functools import partial

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

rows = partial(found, rule="broad-except")

MODEL = """\
class OfflineModel:
    def __init__(self, model):
        self.model = model
        self.tokenizer = model.get_tokenizer()
        self.chat = self._check_chat_template()
        self.fast = self._pick_kernel()

    def _check_chat_template(self) -> bool:
        if hasattr(self.tokenizer, "chat_template"):
            try:
                if check_hf_template(self.tokenizer):
                    return True
            except Exception:
                pass
        try:
            self.tokenizer.apply_chat_template([{"role": "user", "content": "x"}])
            return True
        except Exception:
            return False

    def _pick_kernel(self) -> bool:
        return self._has_fast_kernel()

    def _has_fast_kernel(self) -> bool:
        try:
            return probe_kernel(self.model)
        except Exception:
            return False

    def reachable(self, url) -> bool:
        try:
            return ping(url)
        except Exception:
            return False
"""


def _feature(repo: Repo, text: str) -> None:
    repo.write("README.md", "x\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("pkg/offline.py", text)
    repo.commit("offline model")


def test_a_silent_probe_the_constructor_calls_is_an_error(repo: Repo, run: Run) -> None:
    _feature(repo, MODEL)
    got = {line: (sev, message) for _p, line, sev, message in rows(run)}
    assert {line: sev for line, (sev, _m) in got.items()} == {
        13: "error",  # pass on to the next probe, in the method __init__ calls
        18: "error",  # return False there
        27: "warning",  # two calls below __init__
        33: "warning",  # no set-up calls it
    }
    assert "called from fail-fast `__init__`" in got[13][1]
    assert "silently falls through to its fallback on every error" in got[13][1]
    assert "silently answers False for every error" in got[18][1]


def test_a_probe_that_says_why_or_logs_stays_a_warning(repo: Repo, run: Run) -> None:
    text = MODEL.replace(
        "        except Exception:\n            return False\n\n    def _pick",
        "        except Exception:  # noqa: BLE001 -- no template is the answer\n"
        "            return False\n\n    def _pick",
    ).replace(
        "            except Exception:\n                pass\n",
        "            except Exception as exc:\n                logger.warning('no HF template: %s', exc)\n",
    )
    _feature(repo, text)
    assert {line: sev for _p, line, sev, _m in rows(run)} == {
        13: "warning",
        18: "warning",
        27: "warning",
        33: "warning",
    }
