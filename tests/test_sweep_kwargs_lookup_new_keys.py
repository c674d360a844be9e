# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup ✗ is for a change that "introduces a **new** string key duplicated
across >= 2 files": a key the base already read (in the changed file: a rewritten or
renamed lookup; or in another file: one more copy of an existing option, as
xinference's ``kwargs.pop("instruct")`` and OpenRLHF's ``"n_samples_per_prompt"``) is
not new, ⚠ naming where it was read; a key no base file read, that the change reads in
two files, is the ✗."""

from __future__ import annotations

from functools import partial

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

OTHER = "def talk(**kwargs):\n    return kwargs.get('runtime_info')\n"
OLD = "def forward(**kwargs):\n    return kwargs.get('runtime_info')\n"
REINDENTED = (
    "def forward(**kwargs):\n    if kwargs:\n        return kwargs.get('runtime_info')\n"
    "    return None\n"
)
# The read's line rewritten, not only re-indented (a re-indented line is a move: nothing).
REWRITTEN = REINDENTED.replace(
    "return kwargs.get('runtime_info')", "return kwargs.get('runtime_info') or {}"
)


@pytest.fixture
def base(repo: Repo) -> Repo:
    """Two files of main both reading ``runtime_info`` from kwargs; a feature branch."""
    repo.write("pkg/other.py", OTHER)
    repo.write("pkg/model.py", OLD)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    return repo


# (path, line, severity, message) of each kwargs-lookup finding.
rows = partial(found, rule="kwargs-lookup")


def test_a_rewritten_lookup_of_the_files_old_key_stays_a_warning(base: Repo, run: Run) -> None:
    base.write("pkg/model.py", REWRITTEN)
    base.commit("rewrite")
    assert [(p, line, sev) for p, line, sev, _m in rows(run)] == [("pkg/model.py", 3, "warning")]
    assert "not a new key: this file read it before the change" in rows(run)[0][3]


def test_a_reindented_lookup_is_moved_not_new(base: Repo, run: Run) -> None:
    base.write("pkg/model.py", REINDENTED)
    base.commit("re-indent")
    assert rows(run) == []


def test_a_renamed_file_keeps_its_old_key(base: Repo, run: Run) -> None:
    body = "".join(f"\n\nCONSTANT_{i} = {i}\n" for i in range(12))
    base.git("checkout", "-q", "main")
    base.write("pkg/model.py", OLD + body)
    base.commit("longer")
    base.git("checkout", "-q", "-b", "move")
    base.git("mv", "pkg/model.py", "pkg/renamed_model.py")
    base.write("pkg/renamed_model.py", REWRITTEN + body)
    base.commit("rename and rewrite")
    assert [(p, sev) for p, _l, sev, _m in rows(run)] == [("pkg/renamed_model.py", "warning")]


def test_a_key_copied_into_a_new_file_is_a_warning_naming_the_old_reader(
    base: Repo, run: Run
) -> None:
    base.write("pkg/talker.py", "def speak(**kwargs):\n    return kwargs.get('runtime_info')\n")
    base.commit("copy")
    found = rows(run)
    assert [(p, sev) for p, _l, sev, _m in found] == [("pkg/talker.py", "warning")]
    assert "not a new key: pkg/model.py and 1 more read it from kwargs before" in found[0][3]


def test_a_key_new_to_the_repository_read_in_two_files_is_blocking(base: Repo, run: Run) -> None:
    base.write("pkg/talker.py", "def speak(**kwargs):\n    return kwargs.get('voice_seed')\n")
    base.write("pkg/model.py", OLD + "\n\ndef seed(**kwargs):\n    return kwargs['voice_seed']\n")
    base.commit("a new key in two files")
    found = rows(run)
    assert [(p, sev) for p, _l, sev, _m in found] == [
        ("pkg/model.py", "error"),
        ("pkg/talker.py", "error"),
    ]
    assert 'key "voice_seed" is also read from a kwargs dict in pkg/talker.py' in found[0][3]


def test_a_key_only_a_test_file_read_before_is_still_new(repo: Repo, run: Run) -> None:
    repo.write("tests/test_fake.py", "def fake(**kwargs):\n    return kwargs['voice_seed']\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("pkg/a.py", "def a(**kwargs):\n    return kwargs.get('voice_seed')\n")
    repo.write("pkg/b.py", "def b(**kwargs):\n    return kwargs.get('voice_seed')\n")
    repo.commit("new key")
    assert {sev for _p, _l, sev, _m in rows(run)} == {"error"}


TYPED_CLASS = (
    "class W:\n"
    "    def __init__(self, vllm_config: object, token: str) -> None:\n"
    "        self.c = vllm_config\n"
)
READS = "\n\ndef make(**kwargs):\n    return kwargs.get('vllm_config'), kwargs.get('hidden')\n"


def test_a_new_key_named_like_a_typed_parameter_of_the_file_is_still_blocking(
    repo: Repo, run: Run
) -> None:
    """llama-factory c4bbac49: `kwargs.get("processor")` added to `save_checkpoint` of both
    the deepspeed and the fsdp2 plugin, while `save_model(..., processor: ...)` of each
    file already takes it typed. A parameter name is no kwargs key: no file read
    `processor` from kwargs before, so the change introduces the key and copies it (✗).
    Whether a key is established is the base's kwargs reads (the ⚠ "not a new key")."""
    repo.write("pkg/b.py", TYPED_CLASS)
    repo.commit("base: the typed parameter")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write(
        "pkg/a.py",
        "def build(**kwargs):\n    return kwargs.get('vllm_config'), kwargs.get('hidden')\n",
    )
    repo.write("pkg/b.py", TYPED_CLASS + READS)  # the reads at line 7
    repo.commit("reads")
    rows = [r for r in found(run, "kwargs-lookup") if r[0] == "pkg/b.py"]
    assert {r[2] for r in rows} == {"error"}
    assert not any("typed parameter" in r[3] for r in rows)


def test_a_typed_parameter_name_the_base_read_from_kwargs_is_a_warning(
    repo: Repo, run: Run
) -> None:
    """The negative: megatron afa707eb's `kwargs.get('inference_context')` in gpt_model.py,
    a key hybrid_model.py already read from kwargs: one more copy of an established key
    (⚠ naming the older reader), typed parameter of the file or not."""
    repo.write("pkg/b.py", TYPED_CLASS)
    repo.write("pkg/old.py", "def old(**kwargs):\n    return kwargs['vllm_config']\n")
    repo.commit("base: the typed parameter and an old reader")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("pkg/a.py", "def build(**kwargs):\n    return kwargs.get('vllm_config')\n")
    repo.write("pkg/b.py", TYPED_CLASS + READS)
    repo.commit("reads")
    rows = [r for r in found(run, "kwargs-lookup") if r[0] == "pkg/b.py"]
    by_key = {("vllm_config" if "vllm_config" in r[3].split("`")[1] else "hidden"): r for r in rows}
    assert by_key["vllm_config"][2] == "warning"
    assert "not a new key: pkg/old.py" in by_key["vllm_config"][3]


def test_a_typed_parameter_the_change_adds_with_the_reads_is_no_common_name(
    feature: Repo, run: Run
) -> None:
    """speculators 21033a7b: ``forward(..., dpace_alpha: float)`` and
    ``kwargs.get("dpace_alpha", 0.5)`` added together to two model files: a new key of
    the change, read in both files, not an established parameter name."""
    feature.write(
        "pkg/a.py",
        "def build(**kwargs):\n    return kwargs.get('vllm_config'), kwargs.get('hidden')\n",
    )
    feature.write("pkg/b.py", TYPED_CLASS + READS)
    rows = [r for r in found(run, "kwargs-lookup") if r[0] == "pkg/b.py"]
    assert {r[2] for r in rows} == {"error"}
    assert not any("typed parameter" in r[3] for r in rows)


CONTAINER = (
    "class ModelTestContainer:\n"
    "    def __init__(self, size, **kwargs):\n"
    "        self.dtype = kwargs.get('dispatch_dtype', 'bf16')\n"
)
MOCK_BUILDER = (
    "from unittest.mock import Mock\n"
    "def create_mock_run(**kwargs):\n"
    "    run = Mock()\n"
    "    run.parent_run_id = kwargs.get('parent_run_id', None)\n"
    "    run.name = kwargs.get('name', 'test_run')\n"
    "    return run\n"
)
FAKE = (
    "def test_loader(monkeypatch):\n"
    "    def fake_load(**kwargs):\n"
    "        return kwargs.get('dispatch_dtype')\n"
    "    monkeypatch.setattr('pkg.load', fake_load)\n"
)


def test_a_new_key_in_copies_of_a_test_helper_is_a_warning(repo: Repo, run: Run) -> None:
    """The kwargs ✗ is production code's: a new key read by copies of a test helper
    fails the tests that use it, it never ships. chainlit 27b9075f: three test files
    each add ``create_mock_run(**kwargs)`` reading ``kwargs.get("parent_run_id", None)``
    and ten more keys (33 ✗ before, every one labelled ⚠ blind); megatron 7afe0319's
    two copies of a test container's ``__init__`` alike; a fake defined inside a test
    reads the faked callee's key (⚠)."""
    repo.write("pkg/__init__.py", "")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("tests/test_a.py", CONTAINER)
    repo.write("tests/test_b.py", CONTAINER)
    repo.write("tests/test_c.py", FAKE)
    for name in ("async", "sync", "chain"):
        repo.write(f"backend/tests/langchain/test_{name}.py", MOCK_BUILDER)
    repo.commit("copies of test helpers")
    found_rows = rows(run)
    assert len(found_rows) == 3 + 3 * 2
    assert {sev for _p, _l, sev, _m in found_rows} == {"warning"}


def test_a_new_key_in_production_copies_stays_blocking(repo: Repo, run: Run) -> None:
    """The same helper copied into two production modules: the duplicated new key (✗)."""
    repo.write("pkg/__init__.py", "")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("pkg/a.py", CONTAINER)
    repo.write("pkg/b.py", CONTAINER)
    repo.write("tests/test_a.py", CONTAINER)
    repo.commit("copies")
    found_rows = rows(run)
    assert {(p, sev) for p, _l, sev, _m in found_rows} == {
        ("pkg/a.py", "error"),
        ("pkg/b.py", "error"),
        ("tests/test_a.py", "warning"),
    }
    assert any("also read from a kwargs dict in pkg/b.py" in m for *_r, m in found_rows)
