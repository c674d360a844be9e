# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Messages that say what to do: did-you-mean, the order of fixes, the spelling to write."""

from __future__ import annotations

from collections.abc import Callable

from tests.conftest import Repo, Result

Run = Callable[..., Result]
LOCK = '[[tool.policytool.lock]]\nname = "main"\ninputs = ["requirements.in"]\noutput = "requirements.txt"\n'


def test_bump_of_a_misspelled_package_suggests_the_locked_one(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", LOCK)
    repo.write("requirements.in", "torch\n")
    repo.write("requirements.txt", "torch==2.4.0\nnumpy==2.0.0\n")
    repo.commit()
    result = run("bump", "torhc==2.5.1")
    assert result.code == 2
    assert result.err == (
        "policytool: error: torhc: no lock contains it (locks: main); did you mean 'torch'?\n"
    )
    far = run("bump", "zzzzzz==1.0")
    assert far.err == "policytool: error: zzzzzz: no lock contains it (locks: main)\n"


def test_lock_check_with_a_missing_input_says_to_fix_it_first(repo: Repo, run: Run) -> None:
    """`policytool lock` would fail on the missing input: the finding says so, not only
    "run policytool lock"."""
    repo.write("pyproject.toml", LOCK)
    repo.commit()
    result = run("lock", "--check")
    assert result.code == 1
    assert (
        "requirements.txt:1:1: lock-stale lock 'main' does not exist and its inputs cannot be "
        "read (requirements.in: no such file); fix them, then run `policytool lock main`"
    ) in result.out
    repo.write("requirements.in", "torch\n")
    assert "lock 'main' does not exist; run `policytool lock main`" in run("lock", "--check").out


def test_one_table_where_an_array_of_tables_is_meant_says_what_to_write(
    repo: Repo, run: Run
) -> None:
    repo.write("pyproject.toml", LOCK.replace("[[tool.policytool.lock]]", "[tool.policytool.lock]"))
    repo.commit()
    result = run("lock", "--check")
    assert result.code == 2
    assert result.err.endswith(
        "pyproject.toml:1: tool.policytool.lock: expected an array of tables, got one table "
        "(write [[tool.policytool.lock]], with two brackets, once for each entry)\n"
    )


def test_a_string_where_a_list_of_choices_is_meant_says_what_to_write(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", '[tool.policytool.spdx]\nlicense = "MIT"\nkinds = "python"\n')
    repo.commit()
    result = run("check")
    assert result.code == 2
    assert result.err.endswith(
        "pyproject.toml:3: tool.policytool.spdx.kinds: expected a list of strings, got a "
        'string (write ["python"])\n'
    )
