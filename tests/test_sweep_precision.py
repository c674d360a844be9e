# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Each false positive and miss found by reading sweep's findings on real diffs
(vllm-omni, vLLM 0.32.0 -> 0.33.0) has a test here, in the shape it had there."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings

Row = tuple[str, int, str, str]


def rows(run: Run, *args: str, rule: str | None = None) -> list[Row]:
    """(path, line, rule, severity) of each finding (of ``rule`` only, when given)."""
    return [
        (f["path"], f["line"], f["rule"], f["severity"])
        for f in sweep_findings(run, *args)
        if rule is None or f["rule"] == rule
    ]


def messages(run: Run, *args: str, rule: str | None = None) -> list[str]:
    """The message of each finding (of ``rule`` only, when given)."""
    return [f["message"] for f in sweep_findings(run, *args) if rule is None or f["rule"] == rule]


# -- kwargs-lookup ---------------------------------------------------------------------


def test_editing_the_annotation_of_an_old_kwargs_does_not_report_old_reads(
    feature: Repo, run: Run
) -> None:
    feature.git("checkout", "-q", "main")
    body = (
        "def forward(x, **kwargs):\n"
        "    a = kwargs.get('alpha')\n"
        "    b = kwargs['beta']\n"
        "    return 'gamma' in kwargs\n"
    )
    feature.write("pkg/m.py", body)
    feature.commit("old reader")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write("pkg/m.py", body.replace("**kwargs)", "**kwargs: object)"))
    assert rows(run, rule="kwargs-lookup") == []
    # A new read on an added line still counts; so do all reads under a new **kwargs.
    feature.write("pkg/m.py", body.replace("**kwargs)", "**kwargs: object)") + "    # x\n")
    feature.write("pkg/n.py", body.replace("forward(x, **kwargs)", "fresh(**kwargs)"))
    assert sorted(r[1] for r in rows(run, rule="kwargs-lookup") if r[0] == "pkg/n.py") == [2, 3, 4]
    assert [r for r in rows(run, rule="kwargs-lookup") if r[0] == "pkg/m.py"] == []


def test_cross_file_escalation_needs_real_kwargs_reads_not_writes_or_tests(
    feature: Repo, run: Run
) -> None:
    feature.write(  # a local dict with `kw` in its name, written to: not a read of **kwargs
        "pkg/gen.py", "def gen(prompt):\n    gen_kwargs = {}\n    gen_kwargs['prompt'] = prompt\n"
    )
    feature.write(  # a test's fake reads it: tests do not count
        "tests/test_gen.py", "def fake(**kwargs):\n    return kwargs['prompt']\n"
    )
    feature.write("pkg/real.py", "def r(**kw):\n    return kw.get('shared')\n")
    feature.commit("others")
    feature.write(
        "pkg/new.py",
        "def n(**kwargs):\n    return kwargs.get('prompt'), kwargs.get('shared')\n",
    )
    found = {(r[1], r[3]) for r in rows(run, rule="kwargs-lookup")}
    assert found == {(2, "warning"), (2, "error")}
    text = messages(run, rule="kwargs-lookup")
    assert any('"shared" is also read from **kwargs in pkg/real.py' in m for m in text)
    assert not any("pkg/gen.py" in m or "tests/test_gen.py" in m for m in text)


def test_a_test_reading_a_shared_key_is_not_escalated(feature: Repo, run: Run) -> None:
    feature.git("checkout", "-q", "main")
    feature.write("pkg/real.py", "def r(**kw):\n    return kw.get('shared')\n")
    feature.commit("reader")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write("tests/test_mock.py", "def mock(**kwargs):\n    return kwargs['shared']\n")
    assert [r[3] for r in rows(run, rule="kwargs-lookup")] == ["warning"]


def test_established_keys_are_not_blocking(feature: Repo, run: Run) -> None:
    """A key every model reads (vLLM's `prefix`) is a convention, not a new copy."""
    feature.git("checkout", "-q", "main")
    for i in range(6):
        feature.write(f"pkg/m{i}.py", "def f(**kwargs):\n    return kwargs.get('prefix', '')\n")
    feature.commit("established")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write("pkg/new.py", "def f(**kwargs):\n    return kwargs.get('prefix', '')\n")
    (row,) = rows(run, rule="kwargs-lookup")
    assert row[3] == "warning"
    assert "6 other files read the same key" in messages(run, rule="kwargs-lookup")[0]


def test_kwargs_passed_on_as_a_plain_dict_and_read_in_two_files_is_blocking(
    feature: Repo, run: Run
) -> None:
    """The seed's ✗ case its grep finds: __init__(**kwargs) hands the dict to a plain
    `kwargs: dict` parameter; the same keys are then read in two files."""
    feature.write(
        "pkg/talker.py",
        "class Talker:\n"
        "    def __init__(self, **kwargs):\n"
        "        self._setup(kwargs)\n"
        "\n"
        "    def _setup(self, options):\n"
        "        self.voice = options['voice_key']\n",
    )
    feature.write(
        "pkg/decoder.py",
        "def build(kwargs: dict[str, object]) -> object:\n    return kwargs.get('voice_key')\n",
    )
    found = {(r[0], r[1], r[3]) for r in rows(run, rule="kwargs-lookup")}
    assert ("pkg/talker.py", 6, "error") in found
    assert ("pkg/decoder.py", 2, "error") in found


def test_setting_a_default_is_not_a_read(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/cfg.py",
        "class C:\n    def __init__(self, **kwargs):\n"
        "        if 'architectures' not in kwargs:\n"
        "            kwargs['architectures'] = ['X']\n"
        "        super().__init__(**kwargs)\n",
    )
    assert rows(run, rule="kwargs-lookup") == []


def test_setting_a_default_under_a_compound_condition_is_not_a_read(
    feature: Repo, run: Run
) -> None:
    """vllm-omni's dynin_omni_token2text.py: `if mask is not None and "attention_mask" not
    in gen_kwargs: gen_kwargs["attention_mask"] = mask` sets a default too, as does a key
    set in a block nested in the `if`. Under `or`, or with the key tested but another key
    (or another dict's) set, the test is a read."""
    feature.write(
        "pkg/gen.py",
        "def generate(mask, extra, **gen_kwargs):\n"
        "    if mask is not None and 'attention_mask' not in gen_kwargs:\n"
        "        gen_kwargs['attention_mask'] = mask\n"
        "    if mask is None or 'labels' not in gen_kwargs:\n"  # 4: `or`: a read
        "        gen_kwargs['labels'] = mask\n"
        "    if mask and 'position_ids' not in gen_kwargs:\n"  # 6: sets another key
        "        gen_kwargs['positions'] = mask\n"
        "    if 'uncond_ids' not in gen_kwargs:\n"  # set in a nested block: a default
        "        if mask is not None:\n"
        "            gen_kwargs['uncond_ids'] = mask\n"
        "    if 'mode' not in gen_kwargs:\n"  # 11: another dict's key set
        "        extra['mode'] = mask\n"
        "    return gen_kwargs\n",
    )
    assert [r[1] for r in rows(run, rule="kwargs-lookup")] == [4, 6, 11]


def test_keys_of_a_dict_forwarded_with_double_star_are_not_blocking(
    feature: Repo, run: Run
) -> None:
    """`kwargs.pop("tokenizer")` before `super().__init__(**kwargs)`: the key is the
    forwarded API's parameter (two HF processors doing it are not a copied protocol).
    A dict forwarded to the code base's own function keeps the ✗ (the fixture's case)."""
    feature.git("checkout", "-q", "main")
    feature.write(
        "pkg/a.py",
        "class A:\n    def __init__(self, **kwargs):\n"
        "        self.t = kwargs.pop('tokenizer', None)\n        super().__init__(**kwargs)\n",
    )
    feature.commit("a")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write(
        "pkg/b.py",
        "class B:\n    def __init__(self, **kwargs):\n"
        "        self.t = kwargs.pop('tokenizer', None)\n        super().__init__(**kwargs)\n",
    )
    assert [r[3] for r in rows(run, rule="kwargs-lookup")] == ["warning"]
    assert "forwarded with `**`" in messages(run, rule="kwargs-lookup")[0]


def _kw_rows(run: Run, path: str | None = None) -> dict[tuple[str, int], str]:
    """(path, line) -> severity of each kwargs-lookup finding (of ``path`` when given)."""
    found = rows(run, rule="kwargs-lookup")
    return {(r[0], r[1]): r[3] for r in found if path is None or r[0] == path}


def test_a_key_passed_on_as_the_same_keyword_is_the_callees_parameter(
    feature: Repo, run: Run
) -> None:
    """vLLM's tokenizers/registry.py: `fetch(..., token=kwargs.get("token"))`. The value
    goes on as `token=`, a keyword a type checker matches to the callee's signature: the
    key is that parameter, not a copied string protocol (⚠, never ✗). A key popped out
    of the dict, a value renamed on the way, a test (`k="k" in kwargs`) rather than the
    value, or a callee of the file that does not declare the keyword keep the ✗."""
    reader = (
        "from hub import fetch\n\n\n"
        "def load(name, **kwargs):\n"
        "    return fetch(name, token=kwargs.get('token'), rev=kwargs.get('rev'))\n"
    )
    feature.write("pkg/processor.py", reader + "    x = kwargs['mode'], kwargs['shape']\n")
    feature.commit("processor")
    feature.write(
        "pkg/registry.py",
        "from hub import fetch\n\n\n"
        "def sink(**kw):\n"
        "    return kw\n\n\n"
        "def resolve(name, **kwargs):\n"
        "    path = fetch(name, token=kwargs.get('token'))\n"  # 9: pass-through
        "    other = fetch(name, revision=kwargs.get('rev'))\n"  # 10: renamed
        "    mode = fetch(name, mode=kwargs.pop('mode'))\n"  # 11: popped out
        "    shape = sink(shape=kwargs['shape'])\n"  # 12: sink takes no `shape`
        "    has = fetch(name, mode='mode' in kwargs)\n"  # 13: a test, not the value
        "    return path, other, mode, shape, has, kwargs\n",
    )
    found = _kw_rows(run, "pkg/registry.py")
    assert found == {
        ("pkg/registry.py", 9): "warning",
        ("pkg/registry.py", 10): "error",
        ("pkg/registry.py", 11): "error",
        ("pkg/registry.py", 12): "error",
        ("pkg/registry.py", 13): "error",
    }
    (text,) = [m for m in messages(run, rule="kwargs-lookup") if "'token'" in m and "resolve" in m]
    assert "goes on as `token=`" in text and "callee's parameter" in text


def test_a_key_of_a_dict_forwarded_to_a_callee_that_declares_it_is_not_blocking(
    feature: Repo, run: Run
) -> None:
    """vLLM's multiproc_executor.py: `worker_main(*args, **kwargs)` reads
    `kwargs["vllm_config"]` and then calls `WorkerProc(*args, **kwargs)`, whose
    `__init__` declares `vllm_config`: the key still reaches that typed parameter (⚠).
    Forwarded to a function of the file that takes only `**kwargs` (the fixture's
    `target`), or to a callee this file cannot see, the key stays a string protocol (✗)."""
    feature.write(
        "pkg/mtp.py",
        "def build(**kwargs):\n    return kwargs.get('vllm_config'), kwargs.get('rank')\n",
    )
    feature.commit("another reader")
    feature.write(
        "pkg/executor.py",
        "from elsewhere import spawn\n\n\n"
        "class WorkerProc:\n"
        "    def __init__(self, local_rank: int, vllm_config: object) -> None:\n"
        "        self.config = vllm_config\n\n\n"
        "def target(**kw):\n"
        "    return kw\n\n\n"
        "def worker_main(*args, **kwargs):\n"
        "    vllm_config = kwargs['vllm_config']\n"  # 14: WorkerProc declares it
        "    rank = kwargs.get('rank')\n"  # 15: no callee declares it
        "    WorkerProc(*args, **kwargs)\n"
        "    return vllm_config, rank\n\n\n"
        "def to_target(**kwargs):\n"
        "    if 'vllm_config' in kwargs:\n"  # 21: target takes only **kw
        "        return target(**kwargs)\n"
        "    return spawn(kwargs.get('rank'), **kwargs)\n",  # 23: spawn is not in this file
    )
    found = _kw_rows(run, "pkg/executor.py")
    assert found == {
        ("pkg/executor.py", 14): "warning",
        ("pkg/executor.py", 15): "error",
        ("pkg/executor.py", 21): "error",
        ("pkg/executor.py", 23): "error",
    }
    (text,) = [m for m in messages(run, rule="kwargs-lookup") if "kwargs['vllm_config']" in m]
    assert "forwarded with `**` to `WorkerProc`" in text


def test_a_key_popped_before_the_dict_is_forwarded_still_escalates(feature: Repo, run: Run) -> None:
    """`kwargs.pop("vllm_config")` takes the key out before `WorkerProc(**kwargs)`: the
    callee never receives it, so this function is the key's reader and the cross-file
    check applies (✗), even though the callee declares a parameter of that name."""
    feature.write("pkg/mtp.py", "def build(**kwargs):\n    return kwargs.get('vllm_config')\n")
    feature.commit("another reader")
    feature.write(
        "pkg/executor.py",
        "class WorkerProc:\n"
        "    def __init__(self, vllm_config: object = None) -> None:\n"
        "        self.config = vllm_config\n\n\n"
        "def worker_main(**kwargs):\n"
        "    config = kwargs.pop('vllm_config')\n"
        "    return config, WorkerProc(**kwargs)\n",
    )
    assert _kw_rows(run, "pkg/executor.py") == {("pkg/executor.py", 7): "error"}


def test_one_finding_a_key_a_line(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/g.py",
        "def forward(**kwargs):\n"
        "    if 'runtime_info' in kwargs and kwargs['runtime_info']:\n"
        "        return 1\n",
    )
    assert [r[1] for r in rows(run, rule="kwargs-lookup")] == [2]


# -- broad-except ----------------------------------------------------------------------


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


def test_logged_handlers_that_give_up_or_carry_on_in_requests_are_warnings(
    feature: Repo, run: Run
) -> None:
    feature.write(
        "pkg/l.py",
        "import logging\nlogger = logging.getLogger()\n\n"
        "def scan(items):\n"
        "    for i in items:\n"
        "        try:\n            pass\n        except Exception as e:\n"
        "            logger.warning('skip %s', e)\n            continue\n"
        "def lookup():\n"
        "    try:\n        pass\n    except Exception as e:\n"
        "        logger.error('x %s', e)\n        return {}\n"
        "def forward(x):\n"
        "    try:\n        pass\n    except Exception as e:\n"
        "        logger.error('x %s', e)\n    return x\n"
        "def logged_only():\n"
        "    try:\n        pass\n    except Exception as e:\n"
        "        logger.error('x %s', e)\n",
    )
    found = [(r[1], r[3]) for r in rows(run, rule="broad-except")]
    # The seed's ⚠ is any new broad catch: a logged one is still ⚠ ("`as e` usually
    # means it is logged, but still verify").
    assert found == [(8, "warning"), (14, "warning"), (20, "warning"), (26, "warning")]


# -- any-annotation --------------------------------------------------------------------


def test_kwargs_annotated_as_a_dict_is_a_wrong_annotation(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/a.py",
        "from typing import Any\n\n\n"
        "def f(*args: tuple[int, ...], **kwargs: dict[str, Any]) -> None:\n    del args, kwargs\n",
    )
    found = sorted((r[1], r[3]) for r in rows(run, rule="any-annotation"))
    assert found == [(4, "error"), (4, "error")]
    assert any("says every value is a dict" in m for m in messages(run, rule="any-annotation"))


def test_simple_namespace_is_blocking_only_when_it_mimics_a_real_class(
    feature: Repo, run: Run
) -> None:
    feature.write(
        "pkg/cfg.py",
        "class ModelConfig:\n    def __init__(self):\n"
        "        self.hidden_size = 1\n        self.dtype = 'f'\n",
    )
    feature.write(
        "tests/test_x.py",
        "from types import SimpleNamespace\nfrom pkg.cfg import ModelConfig\n\n"
        "A = SimpleNamespace(hidden_size=2, dtype='h')\n"
        "B = SimpleNamespace(anything=1, other=2)\n"
        "C = ModelConfig\n",
    )
    found = [(r[1], r[3]) for r in rows(run, rule="any-annotation") if r[0] == "tests/test_x.py"]
    assert found == [(4, "error"), (5, "warning")]
    assert any(
        "stands in for `ModelConfig` (pkg/cfg.py;" in m
        for m in messages(run, rule="any-annotation")
    )


def test_repeated_findings_are_folded_in_text(feature: Repo, run: Run) -> None:
    lines = "".join(f"X{i} = SimpleNamespace(a={i})\n" for i in range(40))
    feature.write("tests/test_many.py", "from types import SimpleNamespace\n" + lines)
    out = run("sweep", "--fail-on", "never").out
    assert out.count("any-annotation ⚠ new `SimpleNamespace`") == 5
    assert "... 35 more any-annotation ⚠ with the same message in 1 file" in out
    assert out.splitlines()[-1] == "| Code quality | 40 ⚠ | 0 ✗ |"
    assert "any-annotation ⚠" in run("sweep", "--max-repeats", "0").out
    assert run("sweep", "--max-repeats", "0").out.count("new `SimpleNamespace`") == 40


# -- hot-copy --------------------------------------------------------------------------


def test_hot_copy_look_alikes(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/h.py",
        "import copy\n"
        "class Runner:\n"
        "    def __init__(self, x):\n"
        "        for _ in range(3):\n            self.x = x.clone()\n"  # run once
        "    def load_weights(self, ws):\n"
        "        for w in ws:\n            w.clone()\n"
        "    def profile_run(self, x, steps):\n"
        "        for _ in steps:\n            x.clone()\n"
        "    def execute_model(self, x, buf, steps):\n"
        "        buf.copy_(x)\n"  # the recommended fix
        "        for _ in steps:\n"
        "            # x is mutated by the next step,\n"
        "            # so keep a snapshot\n"
        "            y = x.clone()\n"  # why-comment two lines up: ⚠ not ✗
        "        for _ in steps:\n            z = x.clone()\n"  # ✗
        "        return y, z\n"
        "    def helper(self, xs):\n"
        "        return [x.clone() for x in xs]\n"  # not a per-step function
        "    def _deepstack_process(self, x):\n"
        "        return x.clone()\n",  # hot-path default name: ⚠
    )
    found = [(r[1], r[3]) for r in rows(run, rule="hot-copy")]
    assert found == [(17, "warning"), (19, "error"), (24, "warning")]


def test_hot_path_names_are_configurable(feature: Repo, run: Run) -> None:
    feature.write("pyproject.toml", '[tool.policytool.sweep]\nhot-path = ["my_tick"]\n')
    feature.write("pkg/t.py", "def my_tick(x):\n    return x.clone()\n")
    feature.write("pkg/u.py", "def execute_model(x):\n    return x.clone()\n")
    assert [r[0] for r in rows(run, rule="hot-copy")] == ["pkg/t.py"]


# -- async-blocking --------------------------------------------------------------------


def test_blocking_calls_beyond_sleep_and_requests(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/engine/a.py",
        "import queue\nimport subprocess\n\n"
        "async def serve(self, fut, pool):\n"
        "    subprocess.run(['ls'])\n"
        "    item = self.output_queue.get()\n"
        "    value = fut.result()\n"
        "    other = pool.submit(len, 'x').result()\n"
        "    data = open('big.bin').read()\n"
        "    ok = await self.async_queue.get()\n"  # awaited: an asyncio queue
        "    none = self.output_queue.get(block=False)\n"
        "    return item, value, other, data, ok, none\n",
    )
    found = [(r[1], r[3]) for r in rows(run, rule="async-blocking")]
    assert found == [(5, "warning"), (6, "warning"), (7, "warning"), (8, "warning"), (9, "warning")]
    keyed = "async def get_result(self, rid):\n    return self._out_queue.get(rid)\n"
    feature.write("pkg/engine/dict_of_futures.py", keyed)
    feature.write("tests/test_io.py", "async def test_it(p):\n    return open(p).read()\n")
    assert [r[0] for r in rows(run, rule="async-blocking")] == ["pkg/engine/a.py"] * 5


def test_lock_on_an_admin_path_is_a_warning(feature: Repo, run: Run) -> None:
    feature.write(
        "pkg/entrypoints/api.py",
        "import asyncio\n\nclass S:\n"
        "    async def start_profile(self):\n"
        "        async with self._profile_lock:\n            await asyncio.sleep(0)\n"
        "    async def handle_request(self):\n"
        "        async with self._lock:\n            await asyncio.sleep(0)\n",
    )
    assert [(r[1], r[3]) for r in rows(run, rule="async-blocking")] == [
        (5, "warning"),
        (8, "error"),
    ]


# -- robustness ------------------------------------------------------------------------


def test_target_version_newer_than_this_python_is_a_note(feature: Repo, run: Run) -> None:
    import sys

    newer = f"{sys.version_info[0]}.{sys.version_info[1] + 1}"
    feature.write("pyproject.toml", f'[project]\nname = "x"\nrequires-python = ">={newer}"\n')
    feature.write("pkg/g.py", "def f(:\n    pass\n")
    result = run("sweep", "--format", "json")
    (finding,) = json.loads(result.out)
    assert (finding["rule"], finding["severity"]) == ("syntax-error", "warning")
    assert f"targets Python {newer}" in finding["message"]
    assert result.code == 0


def test_target_version_older_than_this_python_parses_for_it(feature: Repo, run: Run) -> None:
    feature.write("pyproject.toml", '[project]\nname = "x"\nrequires-python = ">=3.7"\n')
    feature.write("pkg/w.py", "def f(x):\n    if (y := x):\n        return y\n")
    result = run("sweep", "--format", "json", "--fail-on", "never")
    rules = {(f["rule"], f["severity"]) for f in json.loads(result.out)}
    assert ("syntax-error", "error") in rules
    assert "for Python 3.7" in result.out
    feature.write(
        "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.policytool.sweep]\ntarget-version = "3.8"\n',
    )
    assert not [r for r in rows(run) if r[2] == "syntax-error"]
    feature.write("pyproject.toml", '[tool.policytool.sweep]\ntarget-version = "three"\n')
    bad = run("sweep")
    assert bad.code == 2 and "target-version" in bad.err


def test_non_utf8_file_names_come_out_as_valid_json(feature: Repo, run: Run) -> None:
    import os

    name = os.fsdecode(b"pkg/caf\xe9.py")
    path = feature.root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"def f(a):\n    return a\n")
    feature.git("add", "-A")
    feature.git("commit", "-q", "-m", "latin-1 name")
    result = run("sweep", "--format", "json", "--head", "HEAD")
    raw = result.out.encode("utf-8")  # it encodes: no lone surrogate
    (finding,) = json.loads(raw)
    assert finding["path"] == "pkg/caf\\xe9.py"
    assert run("sweep", "--format", "sarif", "--head", "HEAD").out.encode("utf-8")


def test_shallow_clone_says_fetch_more_and_two_dot_works(
    feature: Repo, run: Run, tmp_path: object
) -> None:
    import pathlib
    import subprocess

    feature.git("checkout", "-q", "main")
    for i in range(3):
        feature.write(f"m{i}.py", "x = 1\n")
        feature.commit(f"main {i}")
    feature.git("checkout", "-q", "feature")
    feature.write("pkg/f.py", "def f(a):\n    return a\n")
    feature.commit("feature")
    clone = pathlib.Path(str(tmp_path)) / "shallow"
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--depth",
            "1",
            "--no-single-branch",
            f"file://{feature.root}",
            str(clone),
        ],
        check=True,
    )
    subprocess.run(["git", "checkout", "-q", "feature"], cwd=clone, check=True)
    import os

    cwd = os.getcwd()
    os.chdir(clone)
    try:
        result = run("sweep", "--base", "origin/main", "--head", "HEAD")
        assert result.code == 2
        assert "shallow clone" in result.err and "--two-dot" in result.err
        assert "fetch" in result.err and "Traceback" not in result.err
        two = run("sweep", "--base", "origin/main", "--head", "HEAD", "--two-dot")
        assert two.code == 0, two.err
        assert "(tip " in two.out and "pkg/f.py:1:1: any-annotation ⚠" in two.out
    finally:
        os.chdir(cwd)


def test_a_head_branch_starting_with_a_dash(feature: Repo, run: Run) -> None:
    feature.write("pkg/d.py", "def d(a):\n    return a\n")
    feature.commit("dash")
    feature.git("update-ref", "refs/heads/-evil", "HEAD")
    assert [r[0] for r in rows(run, "--head=-evil")] == ["pkg/d.py"]
    assert run("sweep", "--head=-nope").code == 2


def test_examples_benchmarks_and_tools_are_swept_generated_code_is_not(
    feature: Repo, run: Run
) -> None:
    """Issue 22 item 7: the seed excludes nothing and its greps found real instances in
    tools/ and examples/; only generated code is left out by default, and the report
    says how many changed files an exclude left out and how to include them."""
    code = "def f(a):\n    return a\n"
    for path in (
        "examples/e.py",
        "benchmarks/b.py",
        "tools/t.py",
        "pkg/x_pb2.py",
        "pkg/generated/g.py",
        "vllm/benchmarks/serve.py",
        "pkg/real.py",
    ):
        feature.write(path, code)
    assert sorted(r[0] for r in rows(run)) == [
        "benchmarks/b.py",
        "examples/e.py",
        "pkg/real.py",
        "tools/t.py",
        "vllm/benchmarks/serve.py",
    ]
    text = run("sweep", "--fail-on", "never").out
    assert "2 changed Python files not swept by `exclude`" in text
    assert "`[tool.policytool.sweep] exclude = []` sweeps them" in text
    feature.write("pyproject.toml", '[tool.policytool.sweep]\nexclude = ["pkg/real.py"]\n')
    assert sorted(r[0] for r in rows(run)) == [
        "benchmarks/b.py",
        "examples/e.py",
        "pkg/generated/g.py",
        "pkg/x_pb2.py",
        "tools/t.py",
        "vllm/benchmarks/serve.py",
    ]
    assert "1 changed Python file not swept" in run("sweep", "--format", "markdown").out


def test_parallel_parsing_gives_the_same_findings(
    feature: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(70):
        feature.write(
            f"pkg/p{i}.py",
            f"def f{i}(a, **kwargs):\n    return kwargs.get('k{i % 3}')\n",
        )
    parallel = rows(run)
    from policytool.sweep import run as sweep_run

    monkeypatch.setattr(sweep_run, "PARALLEL_FILES", 10_000)
    assert rows(run) == parallel
    assert len(parallel) == 140


def test_a_huge_file_is_a_note_not_a_parse(
    feature: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policytool.sweep import run as sweep_run

    monkeypatch.setattr(sweep_run, "MAX_FILE_BYTES", 1000)
    feature.write("pkg/big.py", "def f(a):\n    return a\n" * 100)
    result = run("sweep", "--format", "json")
    (finding,) = json.loads(result.out)
    assert (finding["rule"], finding["severity"]) == ("undecodable", "warning")
    assert "2,300 bytes, over the 1,000-byte sweep limit" in finding["message"]
    assert "not swept" in finding["message"] and result.code == 0
