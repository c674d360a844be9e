# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except ✗ for a bare ``except:`` on a fail-fast path by name that carries on with
a fallback (ultravox 772f2923: ``UltravoxPipeline.__init__`` loads a second tokenizer when
the first load fails for any reason; torchchat's server ``__init__`` substitutes a
sequence length of 128): the pattern's ✗ names the bare form on such a path, and it
catches KeyboardInterrupt too. ``except Exception:`` with the same fallback, a bare catch
off the fail-fast paths, in a test, or one whose fallback the code declares harmless
stays ⚠."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

PIPELINE = """\
from transformers import AutoTokenizer


class Pipeline:
    def __init__(self, model, tokenizer=None):
        if tokenizer is None:
            try:
                tokenizer = AutoTokenizer.from_pretrained(model.name)
            {clause}
                tokenizer = AutoTokenizer.from_pretrained(model.text_model)
        self.tokenizer = tokenizer
"""
CLAUSE_LINE = PIPELINE.splitlines().index("            {clause}") + 1


def test_a_bare_catch_with_a_fallback_in_init_is_blocking(feature: Repo, run: Run) -> None:
    feature.write("pkg/pipeline.py", PIPELINE.format(clause="except:"))
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(CLAUSE_LINE, "error")]
    assert "bare `except:` on fail-fast path `__init__`" in rows[0][3]
    assert "KeyboardInterrupt" in rows[0][3]


def test_a_default_substituted_in_init_is_blocking(feature: Repo, run: Run) -> None:
    """torchchat's ``except: self.max_seq_length = 128`` under a comment that only says
    what the default is."""
    feature.write(
        "pkg/server.py",
        "class Generator:\n"
        "    def __init__(self, model):\n"
        "        try:\n"
        "            self.max_seq_length = model.args.max_seq_length + 1\n"
        "        except:\n"  # 5
        "            # can not find max_seq_length in model config, use default value\n"
        "            self.max_seq_length = 128\n",
    )
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(5, "error")]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        # ``except Exception:`` does not catch KeyboardInterrupt: the ⚠ of a broad catch
        ("pkg/pipeline.py", PIPELINE.format(clause="except Exception:")),
        # off the fail-fast paths: a bare catch in a method named for nothing of them
        ("pkg/pipeline.py", PIPELINE.format(clause="except:").replace("__init__", "reload")),
        # a test's set-up is not the code under test's fail-fast path
        ("tests/test_pipeline.py", PIPELINE.format(clause="except:")),
        # the fallback declared harmless where the catch opens
        (
            "pkg/pipeline.py",
            PIPELINE.format(clause="except:  # best-effort: the text model's tokenizer"),
        ),
    ],
)
def test_what_is_no_bare_fail_fast_fallback_stays_a_warning(
    feature: Repo, run: Run, path: str, text: str
) -> None:
    feature.write(path, text)
    rows = found(run, "broad-except")
    assert [(r[1], r[2]) for r in rows] == [(CLAUSE_LINE, "warning")]
