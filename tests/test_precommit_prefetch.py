# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""pre-commit's verdict computed in a forked child: the same findings, never trusted blindly.

``prefetch_schema`` starts pre-commit's schema check (and its list of known keys) in a
child so that ``policytool-repo`` does not import ``pre_commit.clientlib`` itself. These
tests hold the findings equal with and without the child, show the parent really skips
the import, and feed the parent every kind of bad answer a child could give.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable

import pytest

from policytool.config import load_config
from policytool.errors import FileProblem
from policytool.formats import precommit
from tests.conftest import FORK_WARNING, Repo, Result

Run = Callable[..., Result]

pytestmark = [
    pytest.mark.skipif(
        sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2,
        reason="the child is started on Linux with two cores only",
    ),
    pytest.mark.usefixtures("forks_allowed"),
    pytest.mark.filterwarnings(FORK_WARNING),
]

VALID_WITH_WARNINGS = """\
default_stages: [pre-commit]
defualt_language_version: {python: python3}
repos:
  - repo: local
    hooks:
      - id: a
        name: a
        entry: echo
        language: system
        stages: [commit]
        stagess: [manual]
"""
INVALID = """\
repos:
  - repo: local
    hooks:
      - id: a
        name: a
        entry: echo
        language: not-a-language
"""


@pytest.mark.parametrize("text", [VALID_WITH_WARNINGS, INVALID], ids=["warnings", "invalid"])
def test_findings_are_the_same_with_and_without_the_child(
    repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    repo.write(".pre-commit-config.yaml", text)
    repo.write("pyproject.toml", '[tool.policytool.pre-commit]\nrequired = ["a"]\n')
    repo.commit()
    with_child = run("check", "--only", "repo")
    monkeypatch.setattr(precommit, "prefetch_schema", lambda root, file, memo: None)
    without = run("check", "--only", "repo")
    assert with_child == without
    assert "precommit-config" in with_child.out
    if text is INVALID:
        assert "pre-commit rejects this config" in with_child.out
    else:
        assert "unknown key `stagess`" in with_child.out
        assert "deprecated stage names" in with_child.out


def test_no_child_outlives_a_run_that_never_asks_for_its_answer(
    repo: Repo, run: Run, no_leftovers: list[int]
) -> None:
    # codeql-workflow is a repo rule that never reads the pre-commit config: the child is
    # started, its answer never asked for, and it is still reaped before the run ends.
    repo.write(".pre-commit-config.yaml", VALID_WITH_WARNINGS)
    repo.write("pyproject.toml", "")
    repo.commit()
    run("check", "--only", "codeql-workflow")
    assert len(no_leftovers) == 1  # the fixture checks it was reaped


def test_the_parent_does_not_import_pre_commit_when_the_child_answers(repo: Repo) -> None:
    repo.write(".pre-commit-config.yaml", VALID_WITH_WARNINGS)
    repo.write("pyproject.toml", "")
    repo.commit()
    script = (
        "import sys\n"
        "from policytool.cli import main\n"
        "code = main(['check', '--only', 'repo'])\n"
        "print('IMPORTED' if 'pre_commit.clientlib' in sys.modules else 'NOT-IMPORTED')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=repo.root, capture_output=True, text=True, check=False
    )
    assert proc.stdout.rstrip().endswith("NOT-IMPORTED"), proc.stdout + proc.stderr
    assert "unknown key `stagess`" in proc.stdout


def _child_answering(payload: bytes, code: int = 0) -> precommit._Prefetch:
    """A real child process that writes ``payload`` and exits with ``code``."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            while payload:
                payload = payload[os.write(write_fd, payload) :]
        finally:
            os._exit(code)
    os.close(write_fd)
    return precommit._Prefetch(pid, read_fd)


TEXT = "repos: []\n"
GOOD = {"sha256": precommit._digest(TEXT), "verdict": None, "known": [["repos"], [], ["id"]]}


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (json.dumps(GOOD).encode(), 1),  # the child failed after writing
        (b"{not json", 0),
        (b"[1, 2]", 0),
        (json.dumps({**GOOD, "sha256": precommit._digest("other: text\n")}).encode(), 0),
        (json.dumps({**GOOD, "verdict": [1]}).encode(), 0),
        (json.dumps({**GOOD, "verdict": ["1", "x"]}).encode(), 0),
        (b" " * (precommit._MAX_VERDICT_BYTES + 10) + json.dumps(GOOD).encode(), 0),
        (b"", 0),
    ],
    ids=["exit-1", "garbage", "not-a-dict", "other-text", "short", "bad-types", "huge", "empty"],
)
def test_a_bad_answer_is_not_used(payload: bytes, code: int) -> None:
    prefetch = _child_answering(payload, code)
    assert prefetch.verdict_for(TEXT) == (False, None)
    assert prefetch.verdict_for(TEXT) == (False, None)  # read once, asked twice


def test_a_good_answer_is_used_for_its_own_text_only() -> None:
    rejected = {**GOOD, "verdict": [3, "pre-commit rejects this config: x"]}
    prefetch = _child_answering(json.dumps(rejected).encode())
    assert prefetch.verdict_for(TEXT) == (True, (3, "pre-commit rejects this config: x"))
    assert prefetch.verdict_for("repos: [] # edited\n") == (False, None)
    assert prefetch.known_keys() == (frozenset({"repos"}), frozenset(), frozenset({"id"}))


def test_a_wrong_answer_never_reaches_the_findings(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A child that answered for another text: the parent validates the real one itself.
    repo.write(".pre-commit-config.yaml", INVALID)
    repo.write("pyproject.toml", "")
    repo.commit()
    monkeypatch.chdir(repo.root)
    config = load_config()
    stale = {**GOOD, "sha256": precommit._digest(VALID_WITH_WARNINGS)}
    config.memo.value(precommit._PREFETCH_KEY, lambda: _child_answering(json.dumps(stale).encode()))
    with pytest.raises(FileProblem, match="pre-commit rejects this config"):
        precommit.load_model(config.root, ".pre-commit-config.yaml", memo=config.memo)
