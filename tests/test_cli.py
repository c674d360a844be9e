# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The command line: discovery, formats, exit codes, --only/--skip, parallel runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from policytool import cli as cli_module
from policytool.engine import runner as engine
from tests.conftest import Repo, Result

Run = Callable[..., Result]
HEADER = "# SPDX-License-Identifier: MIT\n"


@pytest.fixture
def mit(repo: Repo) -> Repo:
    repo.write("pyproject.toml", '[tool.policytool.spdx]\nlicense = "MIT"\n')
    return repo


def test_no_paths_checks_tracked_files_only(mit: Repo, run: Run) -> None:
    mit.write("tracked.py", "x = 1\n")
    mit.commit()
    mit.write("untracked.py", "x = 1\n")
    result = run("check")
    assert "tracked.py:1:1: spdx-header" in result.out
    assert "untracked.py" not in result.out
    assert result.code == 1


def test_tracked_but_deleted_file_is_not_an_error(mit: Repo, run: Run) -> None:
    mit.write("gone.py", "x = 1\n")
    mit.commit()
    (mit.root / "gone.py").unlink()
    assert run("check").code == 0


def test_outside_git_without_paths_is_exit_2(
    tmp_path: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("")
    result = run("check")
    assert result.code == 2
    assert "not a git repository; pass the files to check as arguments" in result.err


def test_repo_rules_alone_list_no_files(
    tmp_path: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The policytool-repo hook reads a few named files; listing every tracked file (and
    # failing outside git for want of a list) is left to the rules that look at it.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n")
    result = run("check", "--only", "repo")
    assert result.code == 0, result.err
    assert result.err == "" and result.out == "no findings\n"
    needs_files = run("check", "--only", "repo,ci-floating-install")
    assert needs_files.code == 2
    assert "not a git repository" in needs_files.err


def test_lazy_files_are_listed_once_and_only_when_used() -> None:
    from policytool.engine.registry import LazyFiles

    calls: list[int] = []

    def listing() -> list[str]:
        calls.append(1)
        return ["a.py", "b.py"]

    files = LazyFiles(listing)
    assert not files.listed and calls == []
    assert list(files) == ["a.py", "b.py"] and len(files) == 2 and files[1] == "b.py"
    assert "a.py" in files and files[:1] == ["a.py"]
    assert files.listed and calls == [1]


def test_outside_git_with_paths_works(
    tmp_path: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.policytool.spdx]\nlicense = "MIT"\n')
    (tmp_path / "a.py").write_text("x = 1\n")
    assert run("check", "a.py").code == 1


def test_missing_path_is_exit_2(mit: Repo, run: Run) -> None:
    result = run("check", "missing.py")
    assert result.code == 2
    assert result.err == "policytool: error: missing.py: no such file\n"


def test_paths_however_spelled_map_to_the_same_file(
    mit: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    mit.write("pkg/mod.py", "x = 1\n")
    spellings = [
        "pkg/mod.py",
        "./pkg/mod.py",
        str(mit.root / "pkg" / "mod.py"),
        "pkg/../pkg/mod.py",
    ]
    for spelling in spellings:
        assert "pkg/mod.py:1:1: spdx-header" in run("check", spelling).out
    monkeypatch.chdir(mit.root / "pkg")
    assert "pkg/mod.py:1:1: spdx-header" in run("check", "mod.py").out


def test_directory_argument_expands(mit: Repo, run: Run) -> None:
    mit.write("pkg/a.py", "x = 1\n")
    mit.write("pkg/sub/b.py", "x = 1\n")
    out = run("check", "pkg").out
    assert "pkg/a.py:1:1" in out and "pkg/sub/b.py:1:1" in out


def test_exclude_globs_apply_to_paths_and_full_runs(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        '[tool.policytool]\nexclude = ["third_party/**"]\n[tool.policytool.spdx]\nlicense = "MIT"\n',
    )
    repo.write("third_party/x/y.py", "x = 1\n")
    repo.write("own.py", "x = 1\n")
    repo.commit()
    out = run("check").out
    assert "own.py" in out and "third_party" not in out
    assert "third_party" not in run("check", "third_party/x/y.py").out


def test_output_is_sorted_and_deterministic(mit: Repo, run: Run) -> None:
    for name in ("b.py", "a.py", "c/z.py", "c/a.py"):
        mit.write(name, "x = 1\n")
    mit.commit()
    lines = [line for line in run("check").out.splitlines() if ": spdx-header" in line]
    assert lines == sorted(lines)
    assert [line.split(":")[0] for line in lines] == ["a.py", "b.py", "c/a.py", "c/z.py"]


def test_json_format(mit: Repo, run: Run) -> None:
    mit.write("a.py", "x = 1\n")
    result = run("check", "--format", "json", "a.py")
    data = json.loads(result.out)
    assert data == [
        {
            "path": "a.py",
            "line": 1,
            "col": 1,
            "rule": "spdx-header",
            "message": "missing `SPDX-License-Identifier: MIT` in the file header",
            "severity": "error",
            "fixable": True,
        }
    ]


def test_sarif_format(mit: Repo, run: Run) -> None:
    mit.write("a.py", "x = 1\n")
    sarif = json.loads(run("check", "--format", "sarif", "a.py").out)
    assert sarif["version"] == "2.1.0"
    (the_run,) = sarif["runs"]
    rules = {r["id"]: r for r in the_run["tool"]["driver"]["rules"]}
    assert "spdx-header" in rules and rules["spdx-header"]["help"]["text"]
    (result,) = the_run["results"]
    assert result["ruleId"] == "spdx-header"
    assert the_run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "spdx-header"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "a.py"
    assert location["region"] == {"startLine": 1, "startColumn": 1}


def test_github_format(mit: Repo, run: Run) -> None:
    mit.write("a,b.py", "x = 1\n")
    out = run("check", "--format", "github", "a,b.py").out
    assert out == (
        "::error file=a%2Cb.py,line=1,col=1,title=spdx-header::"
        "spdx-header: missing `SPDX-License-Identifier: MIT` in the file header\n"
    )


def test_quiet_prints_findings_only(mit: Repo, run: Run) -> None:
    mit.write("a.py", HEADER)
    assert run("check", "-q", "a.py").out == ""
    assert run("check", "a.py").out == "no findings in 1 file\n"


def test_only_and_skip(mit: Repo, run: Run) -> None:
    mit.write("a.py", "x = 1\n")
    assert run("check", "--skip", "spdx-header", "a.py").code == 0
    assert run("check", "--only", "spdx-header", "a.py").code == 1


def test_unknown_rule_id_is_a_usage_error(mit: Repo, run: Run) -> None:
    result = run("check", "--only", "spdx-headr")
    assert result.code == 2
    assert "--only: unknown rule or group 'spdx-headr'; did you mean 'spdx-header'?" in result.err


def test_bad_option_is_exit_2(mit: Repo, run: Run) -> None:
    assert run("check", "--format", "xml").code == 2
    assert run("frobnicate").code == 2


def test_rules_lists_ids(run: Run) -> None:
    out = run("rules").out
    assert any(
        line.split() == ["spdx-header", "source", "fix", *line.split()[3:]]
        for line in out.splitlines()
    ), out
    assert any(line.split()[:2] == ["bare-ignore", "engine"] for line in out.splitlines())
    data = json.loads(run("rules", "--format", "json").out)
    assert {
        "id": "spdx-header",
        "command": "check",
        "fixable": True,
        "group": "source",
    }.items() <= next(r for r in data if r["id"] == "spdx-header").items()


def test_rules_rule_prints_its_doc(run: Run) -> None:
    result = run("rules", "bare-ignore")
    assert result.code == 0
    assert result.out.startswith(
        "# bare-ignore\n\na `# policytool: ignore` comment names no rule id\n"
    )
    for heading in ("## What it checks", "## Why", "## Example", "## Fix", "## Configuration"):
        assert heading in result.out
    assert json.loads(run("rules", "bare-ignore", "--format", "json").out)["group"] == "engine"
    wrong = run("rules", "bare-ignor")
    assert wrong.code == 2
    assert wrong.err == (
        "policytool: error: rules: unknown rule or group 'bare-ignor'; did you mean 'bare-ignore'?\n"
    )


def test_rules_group_lists_its_members(run: Run) -> None:
    from policytool.engine.registry import rule_ids_of_group

    engine = run("rules", "engine").out
    assert [line.split()[0] for line in engine.splitlines()] == [
        "bare-ignore",
        "baseline-stale",
        "rule-error",
        "syntax-error",
        "undecodable",
    ]
    out = run("rules", "repo").out
    assert sorted(line.split()[0] for line in out.splitlines()) == sorted(rule_ids_of_group("repo"))
    assert all(line.split()[1] == "repo" for line in out.splitlines())


def test_only_and_skip_take_groups(mit: Repo, run: Run) -> None:
    from policytool.engine.registry import rule_ids_of_group

    mit.write("a.py", "x = 1\n")
    mit.write(".pre-commit-config.yaml", "repos: []\n")
    mit.commit()
    by_group = run("check", "--only", "repo", "--format", "json")
    by_ids = run("check", "--only", ",".join(rule_ids_of_group("repo")), "--format", "json")
    assert by_group.code == by_ids.code
    assert by_group.out == by_ids.out
    assert {f["rule"] for f in json.loads(by_group.out)} <= set(rule_ids_of_group("repo"))
    source = run("check", "--only", "source", "--skip", "spdx-header", "--format", "json")
    assert not any(f["rule"] == "spdx-header" for f in json.loads(source.out))
    skip_all = run("check", "--skip", "source,repo,lock,sweep", "--format", "json")
    assert json.loads(skip_all.out) == []
    wrong = run("check", "--only", "rpo")
    assert wrong.code == 2
    assert "--only: unknown rule or group 'rpo'; did you mean 'repo'?" in wrong.err


def test_help_has_examples(run: Run) -> None:
    for command in ([], ["check"], ["fix"], ["rules"]):
        result = run(*command, "--help")
        assert result.code == 0
        assert "Example" in result.out


def test_parallel_run_matches_serial(mit: Repo, run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(60):
        mit.write(f"pkg/m{i:02}.py", HEADER if i % 3 else "x = 1\n")
    mit.write("pkg/bad.py", b"\xff\xfe\n")
    mit.commit()
    serial = run("check").out
    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 10)
    parallel = run("check").out
    assert parallel == serial
    assert serial.count("spdx-header") == 20
    assert "pkg/bad.py:1:1: undecodable" in serial


def test_parallel_fix_writes_every_file(
    mit: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(30):
        mit.write(f"m{i}.py", "x = 1\n")
    mit.commit()
    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 5)
    assert run("fix").code == 1
    assert all(mit.read(f"m{i}.py") == (HEADER + "x = 1\n").encode() for i in range(30))
    assert run("fix").code == 0


def test_console_script_and_module_entry_points(mit: Repo) -> None:
    mit.write("a.py", HEADER)
    proc = subprocess.run(
        [sys.executable, "-m", "policytool", "check", "a.py"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "no findings in 1 file\n"
    script = Path(sys.executable).parent / "policytool"
    if script.exists():
        proc = subprocess.run([str(script), "--version"], capture_output=True, text=True)
        assert proc.stdout.startswith("policytool, version ")


def test_progress_line_on_a_terminal_only(
    mit: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(120):
        mit.write(f"m{i:03}.py", HEADER)
    mit.commit()
    assert "files" not in run("check").err  # not a terminal: no progress
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert "files" not in run("check").err  # a run under a second: no progress line
    monkeypatch.setattr(cli_module, "PROGRESS_DELAY", 0.0)  # as if each file took long
    err = run("check").err
    assert "\rpolicytool: 120/121 files" in err  # 120 modules and pyproject.toml
    assert "\rpolicytool: 60/121 files" in err
    assert err.endswith("\r\033[K")  # the line is cleared when done
    assert run("check", "-q").err == ""


def test_missing_dependency_is_one_sentence_not_a_traceback(mit: Repo, tmp_path: Path) -> None:
    """A Python that imports policytool from the tree but lacks PyYAML (a broken install)."""
    mit.write(".pre-commit-config.yaml", "repos: []\n")
    mit.write("a.py", HEADER)
    mit.commit()
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    # A meta-path finder that refuses PyYAML, as if it were not installed.
    (blocker / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoYaml:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'yaml' or name.startswith('yaml.'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, _NoYaml())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(blocker)}
    proc = subprocess.run(
        [sys.executable, "-m", "policytool", "check"], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("policytool: error: the dependency 'yaml' is not installed")


def test_version_comes_from_package_metadata(run: Run) -> None:
    from importlib.metadata import version

    import policytool

    result = run("--version")
    assert result.code == 0
    assert result.out == f"policytool, version {version('policytool')}\n"
    assert policytool.__version__ == version("policytool")


@pytest.mark.parametrize(
    "severities,checked,expected",
    [
        ([], 1, "no findings in 1 file"),
        ([], 3, "no findings in 3 files"),
        (["error"], 1, "1 finding (1 error) in 1 file"),
        (["warning"], 2, "1 finding (1 warning) in 2 files"),
        (["error", "error", "warning"], 2, "3 findings (2 errors, 1 warning) in 2 files"),
        (["warning", "warning"], None, "2 findings (2 warnings)"),
    ],
)
def test_summary_line_grammar(severities: list[str], checked: int | None, expected: str) -> None:
    from policytool.engine.findings import Finding, Severity, summary_line

    findings = [Finding("a.py", i + 1, 1, "r", "m", Severity(s)) for i, s in enumerate(severities)]
    assert summary_line(findings, checked) == expected


def test_fix_and_lock_status_lines_go_to_stderr(mit: Repo, run: Run) -> None:
    mit.write("a.py", "x = 1\n")
    mit.commit()
    result = run("fix")
    assert result.code == 1
    assert "fixed a.py" in result.err and "fixed" not in result.out
