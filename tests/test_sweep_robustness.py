# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""sweep on awkward inputs, for every rule: repeated findings folded in the text report,
a target version newer or older than this Python, file names that are not UTF-8, a
shallow clone, a head branch starting with a dash, which directories are swept, parallel
parsing, and a file too big to parse."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, rows


def test_repeated_findings_are_folded_in_text(feature: Repo, run: Run) -> None:
    lines = "".join(f"X{i} = SimpleNamespace(a={i})\n" for i in range(40))
    feature.write("tests/test_many.py", "from types import SimpleNamespace\n" + lines)
    out = run("sweep", "--fail-on", "never").out
    assert out.count("any-annotation ⚠ new `SimpleNamespace`") == 5
    assert "... 35 more any-annotation ⚠ with the same message in 1 file" in out
    assert out.splitlines()[-1] == "| Code quality | 40 ⚠ | 0 ✗ |"
    assert "any-annotation ⚠" in run("sweep", "--max-repeats", "0").out
    assert run("sweep", "--max-repeats", "0").out.count("new `SimpleNamespace`") == 40


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
