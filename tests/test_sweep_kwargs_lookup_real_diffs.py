# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup on real diffs (vllm-omni, vLLM 0.32.0 -> 0.33.0): each false positive and
miss found by reading the findings has a test here, in the shape it had there. Old reads
under an edited signature, writes, tests and defaults are not reads; established keys
and keys a ``**`` dict forwards to a callee that declares them are not ✗; a key popped
before the dict is forwarded still is; one finding a key a line."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, messages, rows


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
    feature.write(  # a local dict written to, not a kwargs dict: neither a read nor a spelling
        "pkg/gen.py", "def gen(prompt):\n    gen_args = {}\n    gen_args['prompt'] = prompt\n"
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
    assert any('"shared" is also read from a kwargs dict in pkg/real.py' in m for m in text)
    assert not any("pkg/gen.py" in m or "tests/test_gen.py" in m for m in text)


def test_a_test_reading_a_shared_key_is_not_escalated(feature: Repo, run: Run) -> None:
    feature.on_main({"pkg/real.py": "def r(**kw):\n    return kw.get('shared')\n"}, "reader")
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
    `kwargs: dict` parameter; the same keys are then read in two files. The other file's
    plain `kwargs: dict` (no `**` dict reaches it) is not reported itself, but it is the
    second file reading the key. `_setup` only reads the key it names, so the new
    `__init__` drops every other key: the dropped-keys ✗ on its signature (round AG)."""
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
    assert found == {("pkg/talker.py", 2, "error"), ("pkg/talker.py", 6, "error")}


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
    """`tokenizer = kwargs.pop("tokenizer")` before `super().__init__(image_processor,
    tokenizer, **kwargs)`: the key is the forwarded API's parameter, handed on again (two
    HF processors doing it are not a copied protocol). A dict forwarded to the code
    base's own function keeps the ✗ (the fixture's case)."""
    feature.git("checkout", "-q", "main")
    feature.write(
        "pkg/a.py",
        "class A:\n    def __init__(self, image_processor, **kwargs):\n"
        "        tokenizer = kwargs.pop('tokenizer', None)\n"
        "        super().__init__(image_processor, tokenizer, **kwargs)\n",
    )
    feature.commit("a")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write(
        "pkg/b.py",
        "class B:\n    def __init__(self, image_processor, **kwargs):\n"
        "        tokenizer = kwargs.pop('tokenizer', None)\n"
        "        super().__init__(image_processor, tokenizer, **kwargs)\n",
    )
    assert [r[3] for r in rows(run, rule="kwargs-lookup")] == ["warning"]
    assert "forwarded with `**`" in messages(run, rule="kwargs-lookup")[0]


def _kw_rows(run: Run, path: str | None = None) -> dict[tuple[str, int], str]:
    """(path, line) -> severity of each kwargs-lookup finding (of ``path`` when given)."""
    found = rows(run, rule="kwargs-lookup")
    return {(r[0], r[1]): r[3] for r in found if path is None or r[0] == path}


def test_a_key_passed_on_as_the_same_keyword_is_still_a_copied_key(feature: Repo, run: Run) -> None:
    """speculators' dflash/eagle3/peagle `core.py`: `kwargs.get("trust_remote_code",
    False)` passed on as `trust_remote_code=` is added to three files. Passing the value
    under the key's own name does not make the literal any less a copy: a misspelt key
    still silently reads the default, so a new key read in two files is the ✗ (seed: "a
    **new** string key that is duplicated across ≥2 files"), whatever the callee is. A
    popped key, a renamed value or a test of the key are the same ✗."""
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
        ("pkg/registry.py", 9): "error",
        ("pkg/registry.py", 10): "error",
        ("pkg/registry.py", 11): "error",
        ("pkg/registry.py", 12): "error",
        ("pkg/registry.py", 13): "error",
    }
    text = messages(run, rule="kwargs-lookup")
    assert any('key "token" is also read from a kwargs dict in pkg/processor.py' in m for m in text)
    assert not any("callee's parameter" in m for m in text)


def test_a_passed_on_key_the_base_already_read_stays_a_warning(feature: Repo, run: Run) -> None:
    """The negative of the copied key: `trust_remote_code=kwargs.get("trust_remote_code")`
    added to a new file when the code base already read that key from kwargs is one more
    copy of an established option (⚠ naming the older reader), not a new key."""
    feature.git("checkout", "-q", "main")
    feature.write(
        "pkg/old.py",
        "def make(**kwargs):\n    return kwargs.get('trust_remote_code', False)\n",
    )
    feature.commit("old reader")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write(
        "pkg/new.py",
        "from transformers import AutoConfig\n\n\n"
        "def build(path, **kwargs):\n"
        "    trc = kwargs.get('trust_remote_code', False)\n"
        "    return AutoConfig.from_pretrained(path, trust_remote_code=trc)\n",
    )
    assert _kw_rows(run, "pkg/new.py") == {("pkg/new.py", 5): "warning"}
    (text,) = messages(run, rule="kwargs-lookup")
    assert "not a new key: pkg/old.py read it from kwargs before the change" in text


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
