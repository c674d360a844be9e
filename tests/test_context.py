# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The per-run memo: computed once a run, never shared between runs, empty in a worker."""

from __future__ import annotations

import dataclasses
import json
import pickle
from collections.abc import Callable

from policytool.config import Config, load_config
from policytool.core.memo import RunMemo
from tests.conftest import Repo, Result

Run = Callable[..., Result]


def test_value_is_built_once_per_memo() -> None:
    memo = RunMemo()
    calls: list[int] = []

    def build() -> int:
        calls.append(1)
        return 42

    assert memo.value(("k", 1), build) == 42
    assert memo.value(("k", 1), build) == 42
    assert calls == [1]
    assert RunMemo().value(("k", 1), lambda: 7) == 7  # another run starts empty


def test_each_config_has_its_own_memo_and_pickles_empty() -> None:
    config = Config()
    config.memo.value(("x",), lambda: "filled")
    assert len(config.memo) == 1
    assert len(Config().memo) == 0
    assert len(dataclasses.replace(config, exclude=("a",)).memo) == 0  # changed config, new run
    assert len(pickle.loads(pickle.dumps(config)).memo) == 0  # a worker fills its own
    assert config == Config(root=config.root)  # the memo takes no part in equality


def test_two_runs_in_one_process_see_their_own_allowlists(repo: Repo, run: Run) -> None:
    """The allowlist of one run is not served to the next (was an id(config)-keyed cache)."""
    repo.write(
        "pyproject.toml",
        '[[tool.policytool.forbidden-import]]\nmodules = ["pickle"]\nallowlist-file = "allow.txt"\n',
    )
    repo.write("allow.txt", "a.py\n")
    repo.write("a.py", "import pickle\n")
    repo.commit()
    first = run("check", "--only", "forbidden-import", "--format", "json")
    assert first.code == 0 and json.loads(first.out) == []
    repo.write("allow.txt", "# nobody\n")
    second = run("check", "--only", "forbidden-import", "--format", "json")
    assert second.code == 1
    assert [f["path"] for f in json.loads(second.out)] == ["a.py"]


def test_relative_import_package_is_recomputed_per_run(repo: Repo, run: Run) -> None:
    """``from . import secret`` resolves with this run's ``__init__.py`` files.

    The package cache used to be module-level, keyed by (root, directory): the second
    run in one process kept the first run's answer.
    """
    repo.write("pyproject.toml", '[[tool.policytool.forbidden-import]]\nmodules = ["pkg.secret"]\n')
    repo.write("a/pkg/mod.py", "from . import secret\n")
    repo.commit()
    assert load_config().memo is not load_config().memo
    # No __init__.py: the package is the path, a.pkg; a.pkg.secret is not banned.
    assert run("check", "--only", "forbidden-import").code == 0
    repo.write("a/pkg/__init__.py", "")
    repo.commit()
    # Now a/pkg is the top package: the import is pkg.secret.
    result = run("check", "--only", "forbidden-import")
    assert result.code == 1, result.out
    assert result.out.startswith("a/pkg/mod.py:1:")
