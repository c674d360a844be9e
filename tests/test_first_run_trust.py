# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Issue 21: a quiet, honest first run on repositories nobody tuned for.

A duplicate key read as pre-commit reads it, a baseline that never hides what blinds
the other rules and says what it leaves, configuration in the wrong place reported.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Result
from tests.precommit_helpers import ONLY_REPO, rule_lines

Run = Callable[..., Result]

PYPROJECT = """\
[project]
name = "demo"
version = "0"

[tool.policytool.pre-commit]
final-hook = "suggestion"
default-stages = ["pre-commit", "manual"]
"""

# Two `repos:` keys: pre-commit (PyYAML) keeps the last list, and validate-config exits 0.
DUPLICATE_REPOS = """\
default_stages: [pre-commit, manual]
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.14.0
    hooks:
      - id: ruff-check
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.14.0
    hooks:
      - id: ruff-check
  - repo: local
    hooks:
      - id: suggestion
        name: suggestion
        entry: echo hi
        language: system
"""

LATE_HOOK = """\
      - id: late
        name: late
        entry: echo late
        language: system
"""


def duplicate_repo(repo: Repo, config: str = DUPLICATE_REPOS) -> None:
    """A committed repository whose pre-commit config writes `repos:` twice."""
    repo.write("pyproject.toml", PYPROJECT)
    repo.write(".pre-commit-config.yaml", config)
    repo.commit()


def test_a_duplicate_key_is_one_short_finding_and_the_file_is_read_as_pre_commit_reads_it(
    repo: Repo, run: Run
) -> None:
    from pre_commit.yaml import yaml_load

    duplicate_repo(repo)
    result = run("check", "--only", ONLY_REPO)
    assert result.code == 1
    lines = result.out.splitlines()[:-1]
    assert lines == [
        ".pre-commit-config.yaml:7:1: precommit-config `repos` is written twice (first at line "
        "2): pre-commit reads only the last one and ignores the other; write it once"
    ]
    # What the rules read is what pre-commit reads: the last list.
    assert [r["repo"] for r in yaml_load(DUPLICATE_REPOS)["repos"]] == [
        "https://github.com/astral-sh/ruff-pre-commit",
        "local",
    ]
    # A hook after the final one, in the list pre-commit runs, is seen.
    repo.write(".pre-commit-config.yaml", DUPLICATE_REPOS + LATE_HOOK)
    drifted = run("check", "--only", ONLY_REPO)
    assert rule_lines(drifted.out, "precommit-final-hook") == [(".pre-commit-config.yaml", 14)]
    # A mutable rev and a dropped default_stages too.
    repo.write(
        ".pre-commit-config.yaml",
        DUPLICATE_REPOS.replace("default_stages: [pre-commit, manual]\n", "").replace(
            "rev: v0.14.0\n    hooks:\n      - id: ruff-check\n  - repo: local",
            "rev: main\n    hooks:\n      - id: ruff-check\n  - repo: local",
        ),
    )
    more = run("check", "--only", ONLY_REPO)
    assert {rule for rule in ("precommit-rev", "precommit-default-stages") if rule in more.out} == {
        "precommit-rev",
        "precommit-default-stages",
    }


def test_the_baseline_accepting_a_duplicate_leaves_every_drift_seen(repo: Repo, run: Run) -> None:
    duplicate_repo(repo)
    assert run("baseline").code == 0
    assert run("check", "--only", ONLY_REPO).code == 0
    repo.write(".pre-commit-config.yaml", DUPLICATE_REPOS + LATE_HOOK)
    after = run("check", "--only", ONLY_REPO)
    assert after.code == 1
    assert rule_lines(after.out, "precommit-final-hook") == [(".pre-commit-config.yaml", 14)]


def test_a_nested_duplicate_key_is_read_last_wins_too(repo: Repo, run: Run) -> None:
    duplicate_repo(
        repo,
        DUPLICATE_REPOS.replace(
            "rev: v0.14.0\n    hooks:\n      - id: ruff-check\n  - repo: local",
            "rev: v0.14.0\n    rev: main\n    hooks:\n      - id: ruff-check\n  - repo: local",
        ),
    )
    result = run("check", "--only", ONLY_REPO)
    assert rule_lines(result.out, "precommit-config") == [
        (".pre-commit-config.yaml", 7),
        (".pre-commit-config.yaml", 10),
    ]
    assert rule_lines(result.out, "precommit-rev") == [(".pre-commit-config.yaml", 10)]


def test_a_duplicate_key_in_a_workflow_is_one_short_sentence(repo: Repo, run: Run) -> None:
    """GitHub refuses a workflow with a key written twice; ruamel's message held both
    values (kilobytes): now one sentence at the second key."""
    repo.write("pyproject.toml", PYPROJECT)
    steps = "\n".join(f"      - run: pip install pkg{i}==1.0" for i in range(100))
    job = f"    runs-on: ubuntu-latest\n    steps:\n{steps}\n"
    repo.write(".github/workflows/ci.yml", f"on: push\njobs:\n  a:\n{job}jobs:\n  b:\n{job}")
    repo.commit()
    result = run("check", "--only", "ci-floating-install")
    assert result.out.splitlines()[:-1] == [
        ".github/workflows/ci.yml:106:1: ci-floating-install duplicate key `jobs`; write it once; "
        "not checked"
    ]


def test_the_baseline_never_accepts_a_config_the_other_rules_cannot_read(
    repo: Repo, run: Run
) -> None:
    repo.write("pyproject.toml", PYPROJECT)
    repo.write(".pre-commit-config.yaml", "repos:\n  - repo: local\n    hooks: 3\n")
    repo.commit()
    result = run("baseline")
    assert result.code == 1
    assert "1 finding left, which `check` still reports" in result.out
    assert ".pre-commit-config.yaml:3:1: precommit-config" in result.out
    baseline = repo.root / ".policytool-baseline.json"
    entries = json.loads(baseline.read_text()) if baseline.exists() else []
    assert not [e for e in entries if e["rule"] == "precommit-config"]
    # A baseline written by hand (a pull request can edit it) cannot accept it either.
    check = run("check", "--only", "precommit-config", "--format", "json")
    found = json.loads(check.out)
    baseline.write_text(
        json.dumps([{**{k: found[0][k] for k in ("rule", "path", "message")}, "count": 1}])
    )
    again = run("check", "--only", "precommit-config")
    assert again.code == 1
    assert ".pre-commit-config.yaml:3:1: precommit-config" in again.out
    assert "no baseline accepts (it stops other checks from looking); remove the entry" in again.out
    assert "accepted by" not in again.out


def test_the_baseline_never_accepts_a_missing_lock(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        '[project]\nname = "demo"\nversion = "0"\n\n[[tool.policytool.lock]]\n'
        'name = "main"\ninputs = ["requirements.in"]\noutput = "requirements.txt"\n',
    )
    repo.write("requirements.in", "attrs\n")
    repo.commit()
    result = run("baseline")
    assert result.code == 1
    assert "requirements.txt:1:1: lock-stale lock 'main' does not exist" in result.out
    check = run("check")
    assert check.code == 1
    assert "lock 'main' does not exist" in check.out


def test_after_baseline_check_is_clean_when_baseline_exits_0(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", PYPROJECT)
    repo.write(".pre-commit-config.yaml", DUPLICATE_REPOS + LATE_HOOK)
    repo.commit()
    result = run("baseline")
    assert result.code == 0, result.out
    assert run("check").code == 0


# --- mypy-wired: scripts, make targets, the manual stage, failures that cannot fail ------

MYPY_TABLE = "\n[tool.mypy]\nstrict = true\n"
MYPY_PYPROJECT = '[project]\nname = "demo"\nversion = "0"\n\n[tool.mypy]\nstrict = true\n'


def workflow(run_line: str, extra: str = "") -> str:
    """A one-job workflow whose step runs ``run_line`` (``extra``: more step keys)."""
    return (
        "on: [push, pull_request]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n"
        f"    steps:\n      - uses: actions/checkout@v4\n      - run: {run_line}\n{extra}"
    )


def mypy_wired(repo: Repo, run: Run) -> list[str]:
    """The mypy-wired findings of the committed tree."""
    repo.commit()
    result = run("check", "--only", "mypy-wired")
    return [line for line in result.out.splitlines() if " mypy-wired " in line]


def test_mypy_run_through_a_matrix_script_counts(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", MYPY_PYPROJECT)
    repo.write("bin/lint", "#!/bin/bash\nset -e\nruff check .\npython -m mypy src\n", mode=0o755)
    repo.write(
        ".github/workflows/lint.yml",
        "on: pull_request\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    strategy:\n"
        "      matrix:\n        command: [bin/lint, pytest]\n    steps:\n"
        "      - run: ${{ matrix.command }}\n",
    )
    assert mypy_wired(repo, run) == []
    # The same script, but CI no longer runs it: the configuration is unused.
    repo.write("bin/lint", "#!/bin/bash\nruff check .\n", mode=0o755)
    assert mypy_wired(repo, run) == [
        "pyproject.toml:5:1: mypy-wired a mypy configuration exists but no pre-commit hook or "
        "workflow step runs mypy; add a hook (e.g. with `stages: [manual]` so CI runs it)"
    ]


def test_mypy_run_through_a_make_target_and_its_prerequisites_counts(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", MYPY_PYPROJECT)
    repo.write(
        "Makefile",
        ".PHONY: lint typecheck\nMYPY := mypy\n\nlint: typecheck\n\truff check .\n\n"
        "typecheck:\n\t@uv run mypy src \\\n\t  tests\n",
    )
    repo.write(".github/workflows/lint.yml", workflow("make lint"))
    assert mypy_wired(repo, run) == []
    # `-` in front of a recipe line ignores its failure.
    repo.write("Makefile", "lint:\n\t-mypy src\n")
    assert mypy_wired(repo, run) == [
        "Makefile:2:1: mypy-wired mypy, run here by `make lint` (.github/workflows/lint.yml:7), "
        "cannot fail the check: the `-` prefix of its Makefile recipe ignores its failure; "
        "nothing else runs mypy"
    ]


def test_mypy_whose_failure_is_swallowed_does_not_count(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", MYPY_PYPROJECT)
    repo.write(".github/workflows/lint.yml", workflow("mypy src || true"))
    assert mypy_wired(repo, run) == [
        ".github/workflows/lint.yml:7:1: mypy-wired `mypy src` runs mypy but cannot fail the "
        "check: `|| true` swallows its failure; nothing else runs mypy"
    ]
    repo.write(
        ".github/workflows/lint.yml",
        workflow("python -m mypy src", "        continue-on-error: true\n"),
    )
    assert mypy_wired(repo, run) == [
        ".github/workflows/lint.yml:7:1: mypy-wired `python -m mypy src` runs mypy but cannot "
        "fail the check: `continue-on-error: true`; nothing else runs mypy"
    ]
    # Through a script too.
    repo.write("tools/types.sh", "mypy src || echo 'mypy failed'\n")
    repo.write(".github/workflows/lint.yml", workflow("bash tools/types.sh"))
    assert mypy_wired(repo, run) == [
        "tools/types.sh:1:1: mypy-wired mypy, run here by `bash tools/types.sh` "
        "(.github/workflows/lint.yml:7), cannot fail the check: `|| echo mypy failed` swallows "
        "its failure; nothing else runs mypy"
    ]


def test_a_mypy_run_that_cannot_fail_is_reported_though_another_runs(repo: Repo, run: Run) -> None:
    """`mypy || true` next to other mypy runs (LMCache's step, kedro's make target) checks
    nothing: reported at the line that swallows it, whatever else runs mypy."""
    repo.write("pyproject.toml", MYPY_PYPROJECT)
    repo.write(".github/workflows/lint.yml", workflow("|\n          mypy\n          mypy tests"))
    assert mypy_wired(repo, run) == []
    repo.write(
        ".github/workflows/lint.yml", workflow("|\n          mypy || true\n          mypy tests")
    )
    assert mypy_wired(repo, run) == [
        ".github/workflows/lint.yml:8:1: mypy-wired `mypy` runs mypy but cannot fail the check: "
        "`|| true` swallows its failure; another run of mypy still checks, so this one only "
        "hides what it finds; let it fail or remove it"
    ]
    # In a make target that CI runs, while a pre-commit hook runs mypy on every commit.
    repo.write(
        ".pre-commit-config.yaml",
        "repos:\n  - repo: https://github.com/pre-commit/mirrors-mypy\n    rev: v1.11.1\n"
        "    hooks:\n      - id: mypy\n",
    )
    repo.write("Makefile", "lint:\n\tpre-commit run -a\n\tmypy src --strict || true\n")
    repo.write(".github/workflows/lint.yml", workflow("make lint"))
    assert mypy_wired(repo, run) == [
        "Makefile:3:1: mypy-wired mypy, run here by `make lint` (.github/workflows/lint.yml:7), "
        "cannot fail the check: `|| true` swallows its failure; another run of mypy still "
        "checks, so this one only hides what it finds; let it fail or remove it"
    ]


def test_mypy_on_a_string_or_for_its_version_is_not_a_run(repo: Repo, run: Run) -> None:
    """trio's cache warm-up `mypy -c "import trio" || true` checks no file of the repository:
    not a run that cannot fail; and `mypy --version` alone does not wire the config."""
    repo.write("pyproject.toml", MYPY_PYPROJECT)
    warm_up = 'MYPYPATH=.. mypy --config-file= -c "import trio" >/dev/null 2>&1 || true'
    repo.write("ci.sh", f"#!/bin/bash\nset -ex\n{warm_up}\nmypy src\n", mode=0o755)
    repo.write(".github/workflows/lint.yml", workflow("./ci.sh"))
    assert mypy_wired(repo, run) == []
    repo.write(".github/workflows/lint.yml", workflow("mypy --version"))
    assert mypy_wired(repo, run) == [
        "pyproject.toml:5:1: mypy-wired a mypy configuration exists but no pre-commit hook or "
        "workflow step runs mypy; add a hook (e.g. with `stages: [manual]` so CI runs it)"
    ]


def test_a_mypy_hook_at_the_manual_stage_nothing_runs(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", MYPY_PYPROJECT)
    config = (
        "ci:\n  autofix_prs: false\nrepos:\n  - repo: https://github.com/pre-commit/mirrors-mypy\n"
        "    rev: v1.11.1\n    hooks:\n      - id: mypy\n        stages: [manual]\n"
    )
    repo.write(".pre-commit-config.yaml", config)
    assert mypy_wired(repo, run) == [
        ".pre-commit-config.yaml:7:1: mypy-wired hook 'mypy' runs mypy only at the manual "
        "stage, which nothing runs (no workflow step runs `pre-commit run --all-files "
        "--hook-stage manual`; pre-commit.ci never does), so mypy never runs"
    ]
    # A workflow that runs the manual stage (and can fail) wires it.
    repo.write(
        ".github/workflows/pre-commit.yml",
        workflow("pre-commit run --all-files --hook-stage manual"),
    )
    assert mypy_wired(repo, run) == []
    # ... but not when that step cannot fail: ci-hook-stage says so (once; mypy-wired
    # does not repeat it where CI is meant to run the manual stage).
    repo.write(
        ".github/workflows/pre-commit.yml",
        workflow("pre-commit run --all-files --hook-stage manual || true"),
    )
    assert mypy_wired(repo, run) == []
    both = run("check", "--only", "ci-hook-stage,mypy-wired").out.splitlines()[:-1]
    assert len(both) == 1 and "ci-hook-stage" in both[0] and "cannot fail" in both[0]
    # A mypy hook that runs on commits is wired as before.
    repo.write(".pre-commit-config.yaml", config.replace("        stages: [manual]\n", ""))
    assert mypy_wired(repo, run) == []


def test_scripts_are_followed_inside_the_repository_only_and_bounded(
    repo: Repo, run: Run, tmp_path: Path
) -> None:
    repo.write("pyproject.toml", MYPY_PYPROJECT)
    outside = tmp_path / "outside.sh"
    outside.write_text("mypy src\n")
    (repo.root / "bin").mkdir()
    (repo.root / "bin" / "out").symlink_to(outside)
    repo.write("bin/loop", "#!/bin/sh\nbin/loop\n", mode=0o755)  # calls itself
    repo.write("bin/marker", "#!/bin/sh\ntouch ran\n", mode=0o755)
    repo.write(
        ".github/workflows/lint.yml",
        workflow("bin/out && bin/loop && ../outside.sh && /usr/bin/mypy-wrapper && bin/marker"),
    )
    assert len(mypy_wired(repo, run)) == 1  # the link out is not followed; nothing runs mypy
    assert not (repo.root / "ran").exists()  # read, never run


# --- vLLM drifts: the `=` form of --hook-stage, a hook listed twice ----------------------

VLLM_LIKE = """\
default_stages:
  - pre-commit # Run locally
  - manual # Run in CI
repos:
- repo: https://github.com/astral-sh/uv-pre-commit
  rev: 0.11.1
  hooks:
    - id: pip-compile
      args: [requirements/test/cuda.in, -o, requirements/test/cuda.txt]
      files: ^requirements/(common|cuda|test/cuda)\\.(in|txt)$
    - id: pip-compile
      alias: pip-compile-rocm
      name: pip-compile-rocm
      args: [requirements/test/rocm.in, -o, requirements/test/rocm.txt]
      files: ^requirements/(common|rocm|test/rocm)\\.(in|txt)$
- repo: local
  hooks:
  - id: mypy-3.10
    name: Run mypy for Python 3.10
    entry: python tools/pre_commit/mypy.py 1 "3.10"
    language: python
    stages: [manual] # Only run in CI
  - id: signoff-commit
    name: Sign-off Commit
    entry: echo signed
    language: system
    stages: [commit-msg]
  - id: suggestion
    name: Suggestion
    entry: echo suggestion
    language: system
"""

PRECOMMIT_WORKFLOW = """\
on:
  pull_request:
  push:
    branches: [main]
jobs:
  pre-commit:
    runs-on: ubuntu-latest
    steps:
    - uses: actions/checkout@v4
    - uses: actions/setup-python@v5
    - uses: pre-commit/action@v3.0.1
      with:
        extra_args: --hook-stage=manual -a
"""


def vllm_like(repo: Repo) -> None:
    """A committed vLLM-like repository: manual-stage mypy, CI running `--hook-stage=manual`."""
    repo.write("pyproject.toml", PYPROJECT.replace("final-hook", "# final-hook") + MYPY_TABLE)
    repo.write("tools/pre_commit/mypy.py", "print('mypy')\n")
    repo.write(".pre-commit-config.yaml", VLLM_LIKE)
    repo.write(".github/workflows/pre-commit.yml", PRECOMMIT_WORKFLOW)
    repo.commit()


@pytest.mark.parametrize(
    ("drift", "expected"),
    [
        ("", ""),
        ("-a", "lacks `--hook-stage manual`, so the manual-stage hooks (mypy-3.10) never run"),
        ("--hook-stage=pre-commit -a", "lacks `--hook-stage manual`"),
        ("--hook-stage=manual", "runs only on staged files, which CI has none of"),
        ("--hook-stage=manual -a\n      continue-on-error: true", "cannot fail the check"),
        ("--hook-stage=manual -a\n      if: false", "never runs: `if: false`"),
    ],
)
def test_the_equals_form_of_hook_stage_in_extra_args(
    repo: Repo, run: Run, drift: str, expected: str
) -> None:
    """`--hook-stage=manual -a` is CI running the manual stage on every file; each drift
    from it is one ci-hook-stage finding."""
    vllm_like(repo)
    if drift:
        repo.write(
            ".github/workflows/pre-commit.yml",
            PRECOMMIT_WORKFLOW.replace("--hook-stage=manual -a", drift),
        )
        repo.commit()
    result = run("check", "--only", "ci-hook-stage,precommit-default-stages,mypy-wired")
    found = result.out.splitlines()[:-1]
    if not expected:
        assert result.code == 0, result.out
    else:
        assert any(expected in line for line in found), result.out
        assert all(" ci-hook-stage " in line for line in found), result.out


def test_a_hook_listed_twice_with_the_same_settings(repo: Repo, run: Run) -> None:
    vllm_like(repo)
    assert run("check", "--only", "precommit-config").code == 0  # the alias idiom is fine
    copy = "  - id: signoff-commit\n    name: Sign-off Commit\n    entry: echo signed\n"
    copy += "    language: system\n    stages: [commit-msg]\n"
    repo.write(".pre-commit-config.yaml", VLLM_LIKE + copy)
    repo.commit()
    result = run("check", "--only", "precommit-config")
    assert result.out.splitlines()[:-1] == [
        ".pre-commit-config.yaml:32:1: precommit-config hook 'signoff-commit' is listed twice "
        "with the same settings (first at line 23): pre-commit runs it twice; remove one"
    ]
    # The same hook with its own args is another run of it (the usual idiom): accepted.
    repo.write(".pre-commit-config.yaml", VLLM_LIKE + copy.replace("echo signed", "echo again"))
    repo.commit()
    assert run("check", "--only", "precommit-config").code == 0


TORCHMETRICS_LIKE = """\
repos:
  - repo: https://github.com/codespell-project/codespell
    rev: v2.4.1
    hooks:
      - id: codespell
        additional_dependencies: [tomli]
        args: ["--write-changes"]
        exclude: pyproject.toml
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.12.2
    hooks:
      # try to fix what is possible
      - id: ruff
        args: ["--fix"]
      - id: ruff-format
      # validate if all is fine
      - id: ruff
  - repo: https://github.com/pre-commit/mirrors-mypy
    rev: v1.19.1
    hooks:
      - id: mypy
      - id: mypy
        name: mypy (tests)
        files: ^tests/
        args: [--config-file, tests/mypy.ini]
"""


def test_a_bare_copy_of_a_hook_with_settings(repo: Repo, run: Run) -> None:
    """A bare `- id:` line next to an entry with settings runs the hook again without them
    (the aiohttp, trio, torchmetrics and axolotl drifts); torchmetrics' own `ruff --fix`
    then `ruff`, and a bare mypy next to a `files:`-narrowed one, are accepted."""
    repo.write(".pre-commit-config.yaml", TORCHMETRICS_LIKE)
    repo.commit()
    assert run("check", "--only", "precommit-config").code == 0
    bare = "      - id: codespell\n"
    repo.write(".pre-commit-config.yaml", TORCHMETRICS_LIKE.replace(bare, bare + bare, 1))
    repo.commit()
    result = run("check", "--only", "precommit-config")
    assert result.out.splitlines()[:-1] == [
        ".pre-commit-config.yaml:5:1: precommit-config hook 'codespell' is listed twice: "
        "the bare entry drops the `additional_dependencies`, `args`, `exclude` of its "
        "entry at line 6, so pre-commit runs it twice, once without them; remove the bare one"
    ]


@pytest.mark.parametrize(
    "other",
    [
        "        args: [--ini, .bandit]\n",
        "        language_version: python3\n",
        "        additional_dependencies: [tomli]\n        args: [--fix]\n",
    ],
)
def test_a_bare_copy_is_reported_whatever_the_other_entry_adds(
    repo: Repo, run: Run, other: str
) -> None:
    """Arguments that select a configuration, an interpreter, or fix flags alongside other
    settings: a bare copy drops them (axolotl's bandit, ansible-lint's debug-statements)."""
    text = "repos:\n  - repo: https://github.com/PyCQA/bandit\n    rev: 1.9.4\n    hooks:\n"
    text += "      - id: bandit\n" + other + "      - id: bandit\n"
    repo.write(".pre-commit-config.yaml", text)
    repo.commit()
    result = run("check", "--only", "precommit-config")
    assert result.code == 1
    assert "hook 'bandit' is listed twice: the bare entry drops" in result.out


# --- configuration in the wrong place --------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("policytool.toml", '# ours\nexclude = ["vendor/**"]\n', 2),
        ("ruff.toml", 'line-length = 100\n\n[tool.policytool.spdx]\nlicense = "MIT"\n', 3),
        ("setup.cfg", "[metadata]\nname = demo\n\n[tool:policytool]\nexclude = vendor\n", 4),
    ],
)
def test_configuration_in_a_file_policytool_never_reads_is_one_sentence(
    repo: Repo, run: Run, name: str, text: str, line: int
) -> None:
    repo.write("pyproject.toml", '[project]\nname = "demo"\nversion = "0"\n')
    repo.write(name, text)
    repo.commit()
    result = run("check")
    assert result.code == 2
    assert result.err == (
        f"policytool: error: {name}:{line}: policytool does not read its configuration from "
        f"{name}; move it to the [tool.policytool] table of {repo.root.resolve()}/pyproject.toml\n"
    )


def test_look_alikes_of_stray_configuration_pass(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", '[project]\nname = "demo"\nversion = "0"\n')
    repo.write("ruff.toml", "line-length = 100\n# policytool is configured in pyproject.toml\n")
    repo.write("setup.cfg", "[testenv:policytool]\ncommands = policytool check\n")
    repo.write("policytool.toml", "# nothing here\n\n")
    repo.commit()
    assert run("check").code == 0


def test_a_sub_package_pyproject_without_the_table_keeps_the_repositorys_config(
    repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write(
        "pyproject.toml",
        '[project]\nname = "demo"\nversion = "0"\n\n[tool.policytool.spdx]\nlicense = "MIT"\n',
    )
    repo.write("packages/sub/pyproject.toml", '[project]\nname = "sub"\nversion = "0"\n')
    repo.write("packages/sub/a.py", "x = 1\n")
    repo.commit()
    monkeypatch.chdir(repo.root / "packages" / "sub")
    result = run("check", "--only", "spdx-header")
    assert result.code == 1
    assert "packages/sub/a.py:1:1: spdx-header missing `SPDX-License-Identifier: MIT`" in result.out
    # A sub-package with its own table is its own configuration, as before.
    repo.write(
        "packages/sub/pyproject.toml",
        '[project]\nname = "sub"\nversion = "0"\n\n[tool.policytool]\nexclude = ["*.py"]\n',
    )
    repo.commit()
    assert run("check", "--only", "spdx-header").code == 0


def test_a_script_running_prefixed_mypy_counts(repo: Repo, run: Run) -> None:
    """httpx: `run: "scripts/check"`, where scripts/check runs `${PREFIX}mypy` (PREFIX
    empty or `venv/bin/`)."""
    repo.write("pyproject.toml", MYPY_PYPROJECT)
    repo.write(
        "scripts/check",
        '#!/bin/sh -e\n\nexport PREFIX=""\nif [ -d \'venv\' ] ; then\n    export PREFIX="venv/bin/"\n'
        "fi\nset -x\n\n${PREFIX}ruff check httpx\n${PREFIX}mypy $SOURCE_FILES\n",
        mode=0o755,
    )
    repo.write(".github/workflows/test-suite.yml", workflow('"scripts/check"'))
    assert mypy_wired(repo, run) == []


FASTAPI_STEPS = """\
      - name: Run prek - pre-commit
        id: precommit
        run: uv run prek run --from-ref origin/${GITHUB_BASE_REF} --to-ref HEAD
        continue-on-error: true
      - name: Commit and push changes
        run: git push
      - name: Error out on pre-commit errors
        if: steps.precommit.outcome == 'failure'
        run: exit 1
"""


def test_continue_on_error_whose_failure_a_later_step_raises_can_fail(repo: Repo, run: Run) -> None:
    """fastapi: the pre-commit step continues on error so fixes can be pushed, and a later
    step fails the job on its outcome: it can fail the check."""
    repo.write("pyproject.toml", '[project]\nname = "demo"\nversion = "0"\n')
    repo.write(
        ".pre-commit-config.yaml", VLLM_LIKE.replace("    stages: [manual] # Only run in CI\n", "")
    )
    repo.write("tools/pre_commit/mypy.py", "print('mypy')\n")
    head = "on: pull_request\njobs:\n  pre-commit:\n    runs-on: ubuntu-latest\n    steps:\n"
    repo.write(".github/workflows/pre-commit.yml", head + FASTAPI_STEPS)
    repo.commit()
    assert run("check", "--only", "ci-hook-stage").code == 0
    # Without the step that fails on its outcome, the failure is lost.
    for look_alike in ("== 'success'", "!= 'failure'"):
        repo.write(
            ".github/workflows/pre-commit.yml",
            head + FASTAPI_STEPS.replace("== 'failure'", look_alike),
        )
        repo.commit()
        result = run("check", "--only", "ci-hook-stage")
        assert "cannot fail the check: `continue-on-error: true`" in result.out
