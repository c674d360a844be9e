# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup ✗ for a new key the change reads from ``**kwargs`` in one file and
spells as a literal in another: ColossalAI's consumer hands
``{"raw_train_mini_batch_reward": ...}`` on with ``**`` and the GRPO consumer reads
``kwargs["raw_train_mini_batch_reward"]``; its reward config lists
``["soft_over_length_punishment", ...]`` that the reward function reads with
``kwargs.get``. Both files carry the literal, no constant holds it, and a typo in either
silently drops the value. The other file's literal counts only when it is on a line the
change adds and that file did not hold it before, and only for a key no file read from
kwargs before."""

from __future__ import annotations

from functools import partial

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

rows = partial(found, rule="kwargs-lookup")

READER = (
    "class Consumer:\n"
    "    def step(self, **kwargs):\n"
    "        self.rewards.extend(kwargs['raw_reward'])\n"
)
WRITER = (
    "def loop(consumer, batches):\n"
    "    for batch in batches:\n"
    "        consumer.step(**{'raw_reward': batch.reward})\n"
)
LISTER = (
    "def reward_kwargs(config):\n"
    "    kept_kwargs = {k: v for k, v in config.items() if k in ['raw_reward', 'max_len']}\n"
    "    return kept_kwargs\n"
)


def _branch(repo: Repo) -> Repo:
    repo.write("pkg/__init__.py", "")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    return repo


def test_a_new_key_read_here_and_written_in_another_file_is_blocking(repo: Repo, run: Run) -> None:
    _branch(repo)
    repo.write("pkg/consumer.py", READER)
    repo.write("pkg/loop.py", WRITER)
    repo.commit("raw rewards")
    [(path, line, severity, message)] = rows(run)
    assert (path, line, severity) == ("pkg/consumer.py", 3, "error")
    assert 'key "raw_reward" is new and the change also spells it in pkg/loop.py' in message


def test_a_key_listed_in_another_file_is_blocking(repo: Repo, run: Run) -> None:
    _branch(repo)
    repo.write("pkg/consumer.py", READER)
    repo.write("pkg/config.py", LISTER)
    repo.commit("filter")
    assert [(p, sev) for p, _l, sev, _m in rows(run)] == [("pkg/consumer.py", "error")]


def test_a_literal_the_other_file_held_before_is_a_warning(repo: Repo, run: Run) -> None:
    repo.write("pkg/loop.py", "NAMES = ['raw_reward']\n")
    _branch(repo)
    repo.write("pkg/consumer.py", READER)
    repo.write("pkg/loop.py", "NAMES = ['raw_reward']\n" + WRITER)
    repo.commit("raw rewards")
    assert [(p, sev) for p, _l, sev, _m in rows(run)] == [("pkg/consumer.py", "warning")]


def test_a_literal_the_reading_file_held_before_is_a_warning(repo: Repo, run: Run) -> None:
    repo.write("pkg/consumer.py", "FIELDS = ('raw_reward',)\n")
    _branch(repo)
    repo.write("pkg/consumer.py", "FIELDS = ('raw_reward',)\n" + READER)
    repo.write("pkg/loop.py", WRITER)
    repo.commit("raw rewards")
    assert [(p, sev) for p, _l, sev, _m in rows(run)] == [("pkg/consumer.py", "warning")]


def test_a_literal_on_an_old_line_of_the_other_file_does_not_count(repo: Repo, run: Run) -> None:
    repo.write("pkg/loop.py", WRITER)
    _branch(repo)
    repo.write("pkg/consumer.py", READER)
    repo.write("pkg/loop.py", WRITER + "\n\ndef other():\n    return 1\n")
    repo.commit("reader only")
    assert [(p, sev) for p, _l, sev, _m in rows(run)] == [("pkg/consumer.py", "warning")]


def test_a_key_read_from_kwargs_before_is_not_new(repo: Repo, run: Run) -> None:
    repo.write("pkg/old.py", "def f(**kwargs):\n    return kwargs.get('raw_reward')\n")
    _branch(repo)
    repo.write("pkg/consumer.py", READER)
    repo.write("pkg/loop.py", WRITER)
    repo.commit("raw rewards")
    [(path, _line, severity, message)] = rows(run)
    assert (path, severity) == ("pkg/consumer.py", "warning")
    assert "not a new key" in message or "pkg/old.py" in message


def test_a_literal_spelled_only_in_a_test_file_is_a_warning(repo: Repo, run: Run) -> None:
    _branch(repo)
    repo.write("pkg/consumer.py", READER)
    repo.write("tests/test_consumer.py", WRITER.replace("def loop", "def test_loop"))
    repo.commit("raw rewards")
    assert [(p, sev) for p, _l, sev, _m in rows(run)] == [("pkg/consumer.py", "warning")]


def test_a_key_forwarded_to_the_base_class_stays_a_warning(repo: Repo, run: Run) -> None:
    _branch(repo)
    repo.write(
        "pkg/consumer.py",
        "class Consumer(Base):\n"
        "    def __init__(self, **kwargs):\n"
        "        self.raw = kwargs.get('raw_reward')\n"
        "        super().__init__(**kwargs)\n",
    )
    repo.write("pkg/loop.py", WRITER)
    repo.commit("forward")
    assert [sev for _p, _l, sev, _m in rows(run)] == ["warning"]


@pytest.mark.parametrize(
    ("forward", "severity"),
    [
        # optimum-executorch c60fbe73 object_detection.py:41: the pop takes the key out
        # before `from_pretrained(path, **kwargs)`: the loader's own key (labelled ✗)
        ("AutoModel.from_pretrained(path, **kwargs)", "error"),
        # handed on again by name: the callee's parameter after all
        ("AutoModel.from_pretrained(path, raw_reward=raw, **kwargs)", "warning"),
    ],
)
def test_a_key_popped_before_the_dict_is_forwarded_is_the_functions_own(
    repo: Repo, run: Run, forward: str, severity: str
) -> None:
    _branch(repo)
    repo.write(
        "pkg/consumer.py",
        "def load(path, **kwargs):\n"
        "    raw = kwargs.pop('raw_reward', None)\n"
        f"    return {forward}, raw\n",
    )
    repo.write("pkg/loop.py", WRITER)
    repo.commit("pop")
    assert [sev for _p, _l, sev, _m in rows(run)] == [severity]


def test_a_read_of_a_plain_dict_parameter_is_not_reported(repo: Repo, run: Run) -> None:
    _branch(repo)
    repo.write(
        "pkg/consumer.py",
        "def step(options: dict):\n    return options['raw_reward']\n",
    )
    repo.write("pkg/loop.py", WRITER)
    repo.commit("plain")
    assert rows(run) == []


def test_a_spelling_in_more_than_four_files_is_not_a_cluster(repo: Repo, run: Run) -> None:
    _branch(repo)
    repo.write("pkg/consumer.py", READER)
    for index in range(5):
        repo.write(f"pkg/loop{index}.py", WRITER)
    repo.commit("everywhere")
    assert [sev for _p, _l, sev, _m in rows(run)] == ["warning"]


def test_a_dict_handed_on_with_double_star_spells_its_keys(repo: Repo, run: Run) -> None:
    _branch(repo)
    repo.write("pkg/consumer.py", READER)
    repo.write(
        "pkg/session.py",
        "def list_sessions(storage, offset=None):\n"
        "    extra = {}\n"
        "    if offset is not None:\n"
        "        extra['raw_reward'] = offset\n"
        "    return storage.step(**extra)\n",
    )
    repo.commit("forward the deprecated offset")
    assert [(p, sev) for p, _l, sev, _m in rows(run)] == [("pkg/consumer.py", "error")]


def test_a_literal_outside_a_kwargs_dict_does_not_count(repo: Repo, run: Run) -> None:
    _branch(repo)
    repo.write("pkg/consumer.py", READER)
    repo.write(
        "pkg/loop.py",
        '"""Options such as "raw_reward" reach the consumer."""\n'
        "__all__ = ['raw_reward']\n"
        "# 'raw_reward' is logged\n"
        "def dump(params):\n"
        "    out = {}\n"
        "    out['raw_reward'] = getattr(params, 'raw_reward', None)\n"
        "    return out\n",
    )
    repo.commit("unrelated literals")
    assert [(p, sev) for p, _l, sev, _m in rows(run)] == [("pkg/consumer.py", "warning")]


def test_a_key_written_on_a_kwargs_named_dict_counts(repo: Repo, run: Run) -> None:
    _branch(repo)
    repo.write("pkg/consumer.py", READER)
    repo.write(
        "pkg/engine.py",
        "def build(consumer, train):\n"
        "    step_kwargs: dict = {}\n"
        "    step_kwargs['raw_reward'] = train\n"
        "    return consumer, step_kwargs\n",
    )
    repo.commit("engine")
    assert [(p, sev) for p, _l, sev, _m in rows(run)] == [("pkg/consumer.py", "error")]


@pytest.mark.parametrize(
    ("reader", "writer", "severity"),
    [
        # a package enclosing the reader's: the caller that builds the dict
        ("pkg/reward/fn.py", "pkg/consumer.py", "error"),
        ("pkg/consumer.py", "pkg/reward/fn.py", "error"),
        # sibling packages of one top-level package, in a change of one piece:
        # optimum-executorch's CLI (optimum/commands/export/executorch.py) writes
        # `kwargs["gguf_file"]` that a task loader (optimum/exporters/executorch/tasks/)
        # reads; tpu-inference's layers/vllm/interface/ and layers/common/
        ("pkg/models/a/fn.py", "pkg/models/b/loop.py", "error"),
        ("src/pkg/exporters/tasks/fn.py", "src/pkg/commands/export.py", "error"),
        # another top-level package: no evidence of one protocol
        ("pkg/consumer.py", "other/loop.py", "warning"),
        # a file at the repository's root encloses everything: no evidence
        ("pkg/consumer.py", "loop.py", "warning"),
    ],
)
def test_the_other_file_is_in_the_same_or_an_enclosing_package(
    repo: Repo, run: Run, reader: str, writer: str, severity: str
) -> None:
    _branch(repo)
    repo.write(reader, READER)
    repo.write(writer, WRITER)
    repo.commit("raw rewards")
    assert [(p, sev) for p, _l, sev, _m in rows(run)] == [(reader, severity)]


@pytest.mark.parametrize(("others", "severity"), [(23, "error"), (24, "warning")])
def test_sibling_packages_count_only_in_a_change_of_one_piece(
    repo: Repo, run: Run, others: int, severity: str
) -> None:
    # The vllm-omni 0.18 -> 0.20 release diff (hundreds of files): two unrelated models
    # both naming "patch_size" are not one protocol. The enclosing-package reading
    # still holds there; sibling packages count up to 25 non-test files changed.
    _branch(repo)
    repo.write("pkg/models/a/fn.py", READER)
    repo.write("pkg/models/b/loop.py", WRITER)
    for i in range(others):
        repo.write(f"pkg/more/m{i}.py", f"VALUE_{i} = {i}\n")
    repo.commit("raw rewards and more")
    assert [(p, sev) for p, _l, sev, _m in rows(run)] == [("pkg/models/a/fn.py", severity)]
