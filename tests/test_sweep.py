# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool sweep`` on real git repositories: every pattern, every ⚠/✗ condition,
the look-alikes that must not count, heads, renames, deletions and bad inputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import Repo, Result
from tests.sweep_fixture import BASE_FILES, EXPECTED, Run, build, line_of

Key = tuple[str, int, str, str]


@pytest.fixture
def fixture_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The backlog-on-main, change-on-feature repository, as the working directory."""
    root = tmp_path / "fx"
    build(root)
    monkeypatch.chdir(root)
    return root


def expected_keys(root: Path) -> list[Key]:
    """EXPECTED resolved to (path, line, rule, severity), sorted (one line may hold two
    findings of a rule: the seed's guard reads two keys)."""
    return sorted(
        (path, line_of(root, path, text), rule, sev) for path, text, rule, sev in EXPECTED
    )


def found(result: Result) -> list[Key]:
    """(path, line, rule, severity) of every finding in a JSON sweep report."""
    return [(f["path"], f["line"], f["rule"], f["severity"]) for f in json.loads(result.out)]


def sweep_json(run: Run, *args: str) -> list[Key]:
    result = run("sweep", "--format", "json", "--fail-on", "never", *args)
    assert result.code == 0, result.err
    return found(result)


# -- the fixture change: exactly the expected findings --------------------------------


@pytest.mark.parametrize("head_args", [(), ("--head", "HEAD"), ("--worktree",), ("--staged",)])
def test_change_reports_exactly_the_new_violations(
    fixture_repo: Path, run: Run, head_args: tuple[str, ...]
) -> None:
    keys = sweep_json(run, *head_args)
    assert sorted(keys) == expected_keys(fixture_repo)


def test_every_pattern_and_severity_is_exercised() -> None:
    rules = {(rule, sev) for _path, _text, rule, sev in EXPECTED}
    for rule in ("kwargs-lookup", "broad-except", "any-annotation", "hot-copy", "async-blocking"):
        assert (rule, "warning") in rules and (rule, "error") in rules


def test_old_violations_and_look_alikes_are_not_reported(fixture_repo: Path, run: Run) -> None:
    keys = sweep_json(run)
    paths = {k[0] for k in keys}
    assert "pkg/delete_me.py" not in paths  # deleted
    assert "pkg/other_model.py" not in paths and "pkg/consumer.py" not in paths  # unchanged
    # pkg/old.py: only the appended function, not the backlog above it.
    assert [k[1] for k in keys if k[0] == "pkg/old.py"] == [
        line_of(fixture_repo, "pkg/old.py", "except Exception:\n        return 0")
    ]
    # The renamed file counts only its changed line.
    assert [k[1] for k in keys if k[0] == "pkg/renamed.py"] == [
        line_of(fixture_repo, "pkg/renamed.py", "return None  # second")
    ]
    lines = {(k[0], k[1]) for k in keys}
    must_not = [
        ("pkg/handlers.py", "except ValueError:"),
        ("pkg/handlers.py", "except Exception as logged_error:"),
        ("pkg/handlers.py", "except Exception:\n            self.count = 0\n            raise"),
        ("pkg/client.py", "    def worker(self, url: str) -> object:\n        time.sleep(1)"),
        ("pkg/client.py", "return requests.get(url)"),
        ("pkg/client.py", "await asyncio.to_thread(time.sleep, 1)"),
        ("pkg/client.py", "async with aiohttp.ClientSession() as session:"),
        ("pkg/client.py", "async with self._semaphore:"),
        ("pkg/client.py", "with urllib.request.urlopen(url) as response:"),
        ("pkg/diffusion/sampler.py", "for snap in x_t.clone():"),
        ("pkg/diffusion/sampler.py", "buf.copy_(saved)"),  # the seed's recommended fix
        ("pkg/diffusion/sampler.py", "snapshots = [t.clone() for t in trajectory]"),  # not steps
        (
            "pkg/diffusion/sampler.py",
            "    def prepare(self, x: object) -> object:\n        return x.clone()",
        ),
        ("pkg/models/new_model.py", "shared = kwargs.get(SHARED_KEY)"),
        ("pkg/models/new_model.py", "def passthrough(**kwargs: object) -> object:"),
        ("pkg/types_new.py", "# note: Any input"),
        ("pkg/types_new.py", "def maybe_ready(flag: int) -> Optional[bool]:"),
        ("tests/test_new.py", "def fake(x: Any) -> None:"),
        ("tests/test_new.py", "from types import SimpleNamespace"),
    ]
    for path, text in must_not:
        start = line_of(fixture_repo, path, text)
        span = range(start, start + text.count("\n") + 1)
        assert not any((path, n) in lines for n in span), (path, text)


def test_kwargs_messages_name_the_other_file_and_the_fail_fast_path(
    fixture_repo: Path, run: Run
) -> None:
    result = run("sweep", "--format", "json", "--fail-on", "never")
    by_line = {(f["path"], f["line"], f["severity"]): f["message"] for f in json.loads(result.out)}
    twin = line_of(fixture_repo, "pkg/models/twin.py", 'kwargs["twin_key"]')
    assert "pkg/models/new_model.py" in by_line[("pkg/models/twin.py", twin, "error")]
    sized = line_of(fixture_repo, "pkg/models/new_model.py", 'kwargs.get("size_key", 1)')
    message = by_line[("pkg/models/new_model.py", sized - 1, "error")]  # the def line
    assert "silently dropped" in message and "__init__(**kwargs)" in message
    assert '"size_key"' in message  # the keys it reads
    read = by_line[("pkg/models/new_model.py", sized, "warning")]
    assert '`kwargs.get("size_key", 1)`' in read  # quoted as written


# -- report formats and exit codes ----------------------------------------------------


def test_text_report_marks_each_finding_and_ends_with_summary_and_row(
    fixture_repo: Path, run: Run
) -> None:
    result = run("sweep")
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[-1] == "| Code quality | 25 ⚠ | 20 ✗ |"
    assert lines[-2] == "46 findings (21 errors, 25 warnings) in 12 files"
    assert lines[0].startswith("sweep: 12 Python files changed between origin/main (merge-base ")
    assert len(lines) == len(EXPECTED) + 3
    assert "\npkg/handlers.py:13:9: broad-except ⚠ " in result.out  # contract line, unindented
    # A file that does not parse is listed (✗) but is not a pattern: not in the row.
    assert "pkg/broken.py:1:1: syntax-error ✗" in result.out


def test_quiet_text_is_findings_and_row(fixture_repo: Path, run: Run) -> None:
    result = run("sweep", "-q")
    lines = result.out.splitlines()
    assert len(lines) == len(EXPECTED) + 1
    assert lines[-1] == "| Code quality | 25 ⚠ | 20 ✗ |"


def test_markdown_report(fixture_repo: Path, run: Run) -> None:
    result = run("sweep", "--format", "markdown")
    assert result.code == 1
    out = result.out
    assert out.startswith("## Code-quality sweep\n")
    assert out.rstrip("\n").splitlines()[-1] == "| Code quality | 25 ⚠ | 20 ✗ |"
    assert "| `broad-except` | 8 | 2 |" in out
    assert "\n### `hot-copy`\n" in out
    assert "**Fix:** Move blocking work off the loop" in out
    assert "### Not checked\n\n- ✗ `pkg/broken.py:1` syntax-error: " in out
    assert "| ✗ | `pkg/engine/server.py:12` |" in out
    # A `|` inside a message cannot break the table.
    for line in out.splitlines():
        if line.startswith("| ✗ |") or line.startswith("| ⚠ |"):
            assert line.replace("\\|", "").count("|") == 4, line


def test_github_annotations(fixture_repo: Path, run: Run) -> None:
    result = run("sweep", "--format", "github")
    lines = result.out.splitlines()
    assert len(lines) == len(EXPECTED)
    assert "::error file=pkg/engine/server.py,line=12,col=9,title=async-blocking::" in result.out
    assert "::warning file=pkg/handlers.py,line=13,col=9,title=broad-except::" in result.out


def test_sarif_report(fixture_repo: Path, run: Run) -> None:
    result = run("sweep", "--format", "sarif")
    doc = json.loads(result.out)
    assert doc["version"] == "2.1.0"
    results = doc["runs"][0]["results"]
    assert len(results) == len(EXPECTED)
    levels = {r["level"] for r in results}
    assert levels == {"warning", "error"}
    rule_ids = {r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    assert {
        "kwargs-lookup",
        "broad-except",
        "any-annotation",
        "hot-copy",
        "async-blocking",
    } <= rule_ids


@pytest.fixture
def small_repo(repo: Repo) -> Repo:
    """main: one clean file; feature branch checked out."""
    repo.write("pkg/a.py", "def f() -> int:\n    return 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    return repo


def test_fail_on(small_repo: Repo, run: Run) -> None:
    small_repo.write("pkg/a.py", "def f() -> int:\n    return 1\n\n\ndef g(x, y):\n    return x\n")
    assert run("sweep").code == 0  # only a warning
    assert run("sweep", "--fail-on", "warn").code == 1
    small_repo.write(
        "pkg/b.py",
        "def validate_config() -> None:\n    try:\n        pass\n    except Exception:\n        pass\n",
    )
    assert run("sweep").code == 1
    assert run("sweep", "--fail-on", "never").code == 0
    assert (
        run("sweep", "--fail-on", "block", "-q").out.splitlines()[-1]
        == "| Code quality | 1 ⚠ | 1 ✗ |"
    )


def test_clean_change_exits_zero(small_repo: Repo, run: Run) -> None:
    small_repo.write("pkg/a.py", "def f() -> int:\n    return 2\n")
    result = run("sweep", "--format", "markdown")
    assert result.code == 0
    assert result.out.splitlines()[-1] == "| Code quality | 0 ⚠ | 0 ✗ |"


# -- heads: worktree, staged, commit --------------------------------------------------


def test_staged_worktree_and_head_differ(small_repo: Repo, run: Run) -> None:
    staged = "import time\n\n\nasync def wait() -> None:\n    time.sleep(1)\n"
    small_repo.write("pkg/s.py", staged)
    small_repo.git("add", "pkg/s.py")
    # Unstaged edit on top of the staged file, and an untracked file.
    small_repo.write("pkg/s.py", staged + "\n\ndef loose(a):\n    return a\n")
    small_repo.write("pkg/u.py", "def untracked(a):\n    return a\n")
    in_index = {(k[0], k[1], k[2]) for k in sweep_json(run, "--staged")}
    assert in_index == {("pkg/s.py", 5, "async-blocking")}
    in_tree = {(k[0], k[1], k[2]) for k in sweep_json(run)}
    assert in_tree == {
        ("pkg/s.py", 5, "async-blocking"),
        ("pkg/s.py", 8, "any-annotation"),
        ("pkg/u.py", 1, "any-annotation"),
    }
    assert sweep_json(run, "--head", "HEAD") == []
    small_repo.git("commit", "-q", "-m", "staged part")
    assert {(k[0], k[1]) for k in sweep_json(run, "--head", "HEAD")} == {("pkg/s.py", 5)}


def test_ignored_untracked_files_are_not_swept(small_repo: Repo, run: Run) -> None:
    small_repo.write(".gitignore", "build/\n")
    small_repo.write("build/gen.py", "def gen(a):\n    return a\n")
    assert sweep_json(run) == []


def test_untracked_files_count_their_lines_as_added(small_repo: Repo, run: Run) -> None:
    # A new file not yet added to git is swept whole; the header counts its lines too.
    small_repo.write("pkg/new.py", "def a(x):\n    return x\n\n\ndef b(y):\n    return y")
    out = run("sweep").out
    assert "6 added lines" in out, out
    small_repo.git("add", "pkg/new.py")
    assert "6 added lines" in run("sweep").out


def test_base_is_the_merge_base(small_repo: Repo, run: Run) -> None:
    small_repo.write("pkg/feature.py", "def feat(a):\n    return a\n")
    small_repo.commit("feature work")
    small_repo.git("checkout", "-q", "main")
    small_repo.write("pkg/main_only.py", "def later(a):\n    return a\n")
    small_repo.commit("main moved on")
    small_repo.git("checkout", "-q", "feature")
    keys = sweep_json(run, "--head", "HEAD")
    assert [k[0] for k in keys] == ["pkg/feature.py"]  # main's new commit is not part of the change


def test_default_base_prefers_origin_main(small_repo: Repo, run: Run) -> None:
    small_repo.write("pkg/x.py", "def x(a):\n    return a\n")
    small_repo.commit("x")
    assert "between main " in run("sweep").out
    small_repo.git("update-ref", "refs/remotes/origin/main", "HEAD")
    result = run("sweep")
    assert "between origin/main " in result.out and result.out.endswith(
        "| Code quality | 0 ⚠ | 0 ✗ |\n"
    )


# -- renames, deletions, odd names ----------------------------------------------------


BACKLOG = (
    "def old(**kwargs):\n    try:\n        return kwargs['k']\n    except:\n        pass\n"
    + "\n# padding\n" * 5
)


def test_pure_rename_reports_nothing(small_repo: Repo, run: Run) -> None:
    small_repo.git("checkout", "-q", "main")
    small_repo.write("pkg/legacy.py", BACKLOG)
    small_repo.commit("backlog")
    small_repo.git("checkout", "-q", "-B", "feature")
    (small_repo.root / "pkg/moved").mkdir()
    small_repo.git("mv", "pkg/legacy.py", "pkg/moved/legacy.py")
    small_repo.commit("move")
    assert sweep_json(run, "--head", "HEAD") == []


def test_rename_with_edit_reports_only_the_edit(small_repo: Repo, run: Run) -> None:
    small_repo.git("checkout", "-q", "main")
    small_repo.write("pkg/legacy.py", BACKLOG)
    small_repo.commit("backlog")
    small_repo.git("checkout", "-q", "-B", "feature")
    small_repo.git("mv", "pkg/legacy.py", "pkg/moved.py")
    small_repo.write("pkg/moved.py", BACKLOG + "\n\ndef new(a):\n    return a\n")
    small_repo.commit("move and edit")
    keys = sweep_json(run, "--head", "HEAD")
    assert [(k[0], k[2]) for k in keys] == [("pkg/moved.py", "any-annotation")]


def test_deleted_file_reports_nothing(small_repo: Repo, run: Run) -> None:
    small_repo.git("checkout", "-q", "main")
    small_repo.write("pkg/legacy.py", BACKLOG)
    small_repo.commit("backlog")
    small_repo.git("checkout", "-q", "-B", "feature")
    small_repo.git("rm", "-q", "pkg/legacy.py")
    assert sweep_json(run, "--staged") == []
    assert sweep_json(run) == []


def test_odd_file_names(small_repo: Repo, run: Run) -> None:
    for name in ("pkg/sp ace.py", "pkg/tab\there.py", "pkg/é.py", 'pkg/quo"te.py'):
        small_repo.write(name, "def odd(a):\n    return a\n")
    small_repo.commit("odd names")
    keys = sweep_json(run, "--head", "HEAD")
    assert sorted(k[0] for k in keys) == sorted(
        ["pkg/sp ace.py", "pkg/tab\there.py", "pkg/é.py", 'pkg/quo"te.py']
    )


def test_user_diff_config_does_not_change_the_added_lines(small_repo: Repo, run: Run) -> None:
    base = [f"x{i} = {i}\n" for i in range(20)]
    base[9] = "def old(a):  # an old violation between the two hunks\n"
    base[10] = "    return a\n"
    small_repo.write("pkg/a.py", "".join(base))
    small_repo.commit("twenty lines")
    for key, value in (
        ("diff.interHunkContext", "20"),  # would fuse the hunks around the old def
        ("diff.noprefix", "true"),
        ("diff.mnemonicPrefix", "true"),
        ("diff.context", "5"),
        ("diff.renames", "false"),
        ("color.diff", "always"),
        ("diff.upper.textconv", "sed '1i # a textconv header line'"),  # would shift lines
    ):
        small_repo.git("config", key, value)
    small_repo.write(".gitattributes", "*.py diff=upper\n")
    changed = list(base)
    changed[2] = "def one(a): return a\n"
    changed[15] = "def two(b): return b\n"
    small_repo.write("pkg/a.py", "".join(changed))
    keys = [(k[0], k[1]) for k in sweep_json(run, "--base", "HEAD")]
    assert keys == [("pkg/a.py", 3), ("pkg/a.py", 16)]


def test_non_python_files_are_ignored(small_repo: Repo, run: Run) -> None:
    small_repo.write("notes.txt", "except Exception:\n    pass\n")
    small_repo.write("script.pyw", "except Exception:\n    pass\n")
    small_repo.commit("text")
    assert sweep_json(run, "--head", "HEAD") == []


# -- bad inputs -----------------------------------------------------------------------


def test_syntax_error_in_head_is_reported_not_a_crash(small_repo: Repo, run: Run) -> None:
    small_repo.write("pkg/bad.py", "x = 1\n\ndef broken(:\n    pass\n")
    small_repo.write("pkg/latin.py", b"# -*- coding: utf-8 -*-\nname = '\xe9'\n")
    small_repo.write("pkg/nul.py", b"x = 1\x00\n")
    small_repo.write("pkg/good.py", "def ok(a):\n    return a\n")
    result = run("sweep", "--format", "json")
    assert result.code == 1
    by_path = {f["path"]: f for f in json.loads(result.out)}
    assert by_path["pkg/bad.py"]["rule"] == "syntax-error" and by_path["pkg/bad.py"]["line"] == 3
    assert by_path["pkg/latin.py"]["rule"] == "syntax-error"
    # A .py with NUL bytes (git calls it binary) is a note, not silently skipped.
    nul = by_path["pkg/nul.py"]
    assert (nul["rule"], nul["severity"]) == ("undecodable", "warning")
    assert "binary content" in nul["message"] and "not swept" in nul["message"]
    assert by_path["pkg/good.py"]["rule"] == "any-annotation"  # the rest is still swept
    text = run("sweep").out
    assert "pkg/bad.py:3:1: syntax-error ✗ cannot parse the head version" in text
    assert text.splitlines()[-1] == "| Code quality | 1 ⚠ | 0 ✗ |"


def test_bom_crlf_and_latin1_files_quote_the_right_text(small_repo: Repo, run: Run) -> None:
    small_repo.write("pkg/bom.py", b"\xef\xbb\xbffrom typing import Any\r\nx: Any = 1\r\n")
    small_repo.write(
        "pkg/latin.py",
        b"# -*- coding: latin-1 -*-\nfrom typing import Any\n\n\n"
        b"def f(caf\xe9: Any) -> None:\n    pass\n",
    )
    result = run("sweep", "--format", "json", "--fail-on", "never")
    messages = {f["path"]: (f["line"], f["message"]) for f in json.loads(result.out)}
    assert messages["pkg/bom.py"] == (2, "`x: Any` turns the type checker off")
    assert messages["pkg/latin.py"] == (5, "parameter `caf\u00e9: Any` of `f` has no contract")


def test_bad_base_is_exit_2(small_repo: Repo, run: Run) -> None:
    result = run("sweep", "--base", "no-such-branch")
    assert result.code == 2
    assert "--base no-such-branch: no such commit" in result.err
    assert "Traceback" not in result.err
    assert run("sweep", "--base", "--output=/tmp/x").code == 2


def test_bad_head_and_conflicting_heads_are_exit_2(small_repo: Repo, run: Run) -> None:
    result = run("sweep", "--head", "nope")
    assert result.code == 2 and "--head nope" in result.err
    result = run("sweep", "--head", "HEAD", "--staged")
    assert result.code == 2 and "exclude each other" in result.err


def test_no_default_base_is_exit_2(repo: Repo, run: Run) -> None:
    repo.git("checkout", "-q", "-b", "trunk")
    repo.write("a.py", "x = 1\n")
    repo.commit("only trunk")
    result = run("sweep")
    assert result.code == 2 and "neither origin/main nor main exists" in result.err
    assert run("sweep", "--base", "trunk").code == 0


def test_unrelated_histories_and_empty_repo_are_exit_2(repo: Repo, run: Run) -> None:
    result = run("sweep", "--base", "HEAD")
    assert result.code == 2
    repo.write("a.py", "x = 1\n")
    repo.commit("one")
    repo.git("checkout", "-q", "--orphan", "other")
    repo.write("b.py", "y = 2\n")
    repo.commit("unrelated")
    result = run("sweep", "--base", "main")
    assert result.code == 2 and "no merge-base" in result.err


def test_not_a_git_repo_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Run
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    result = run("sweep")
    assert result.code == 2 and "not a git repository" in result.err


def test_malformed_sweep_config_is_exit_2(small_repo: Repo, run: Run) -> None:
    small_repo.write("pyproject.toml", '[tool.policytool.sweep]\nserving-path = ["x/**"]\n')
    result = run("sweep")
    assert result.code == 2 and "did you mean 'serving-paths'" in result.err


# -- configuration, ignores, cross-file keys ------------------------------------------


def test_configured_paths_and_names(small_repo: Repo, run: Run) -> None:
    small_repo.write(
        "pyproject.toml",
        '[tool.policytool]\nexclude = ["vendored/**"]\n\n[tool.policytool.sweep]\n'
        'serving-paths = ["svc/**"]\nfail-fast = ["boot*"]\nrequest-path = ["serve_*"]\n'
        'test-paths = ["checks/**"]\n',
    )
    small_repo.write(
        "svc/api.py", "import time\n\n\nasync def tick() -> None:\n    time.sleep(1)\n"
    )
    small_repo.write(
        "pkg/boot.py",
        "def boot_up() -> None:\n    try:\n        x = 1\n"
        "    except Exception:\n        pass\n    del x\n",
    )
    small_repo.write("pkg/hot.py", "def serve_one(x: object) -> object:\n    return x.clone()\n")
    small_repo.write(
        "checks/fake.py", "from types import SimpleNamespace\nA = SimpleNamespace(a=1)\n"
    )
    small_repo.write("vendored/v.py", "def v(a):\n    return a\n")
    keys = {(k[0], k[2], k[3]) for k in sweep_json(run)}
    assert keys == {
        ("svc/api.py", "async-blocking", "error"),
        ("pkg/boot.py", "broad-except", "error"),
        ("pkg/hot.py", "hot-copy", "warning"),
        ("checks/fake.py", "any-annotation", "warning"),
    }


def test_return_analysis_look_alikes(small_repo: Repo, run: Run) -> None:
    small_repo.write(
        "pkg/loops.py",
        "def fixpoint(body: str) -> str:\n"
        "    while True:\n"
        "        for c in 'ab':\n"
        "            if body.endswith(c):\n"
        "                body = body[:-1]\n"
        "                break\n"
        "        else:\n"
        "            return body\n"
        "\n\n"
        "def leaves(items: list[int]) -> int:\n"
        "    while True:\n"
        "        for i in items:\n"
        "            pass\n"
        "        else:\n"
        "            break\n"
        "\n\n"
        "def stub() -> int:\n"
        "    raise NotImplementedError\n"
        "\n\n"
        "def gen() -> list[int]:\n"
        "    yield 1\n"
        "\n\n"
        "def exits() -> int:\n"
        "    sys.exit(1)\n",
    )
    result = run("sweep", "--format", "json", "--fail-on", "never")
    reported = [(f["line"], f["rule"], f["severity"], f["message"]) for f in json.loads(result.out)]
    # only `leaves` can fall off its end; `gen` cannot, but a generator is no list
    assert [r[:3] for r in reported] == [
        (11, "any-annotation", "error"),
        (23, "any-annotation", "error"),
    ]
    assert "is a generator" in reported[1][3] and "fall off" not in reported[1][3]


def test_tests_are_not_serving_paths(small_repo: Repo, run: Run) -> None:
    code = "import time\n\n\nasync def test_it() -> None:\n    time.sleep(1)\n"
    small_repo.write("tests/entrypoints/test_server.py", code)
    small_repo.write("pkg/entrypoints/server.py", code.replace("test_it", "serve"))
    keys = {(k[0], k[3]) for k in sweep_json(run)}
    assert keys == {
        ("tests/entrypoints/test_server.py", "warning"),
        ("pkg/entrypoints/server.py", "error"),
    }


def test_what_counts_as_a_lock(small_repo: Repo, run: Run) -> None:
    small_repo.write(
        "pkg/locks.py",
        "import asyncio\nimport threading\n\n\nclass C:\n"
        "    async def a(self) -> None:\n"
        "        with self.block_manager:\n"
        "            await asyncio.sleep(0)\n"
        "    async def b(self, lock_path: str) -> None:\n"
        "        with open(lock_path):\n"
        "            await asyncio.sleep(0)\n"
        "    async def c(self) -> None:\n"
        "        with threading.RLock():\n"
        "            await asyncio.sleep(0)\n"
        "    async def d(self) -> None:\n"
        "        async with self.cacheLock:\n"
        "            await asyncio.sleep(0)\n"
        # A file whose path names a lock is still a file (verifiers' flock file handle).
        "    async def e(self) -> None:\n"
        '        with Path("/tmp/gateway.lock").open("a") as lock:\n'
        "            await asyncio.sleep(0)\n"
        "    async def f(self) -> None:\n"
        '        with open(self.lock_dir + "/x.lock") as lock:\n'
        "            await asyncio.sleep(0)\n",
    )
    result = run("sweep", "--format", "json", "--fail-on", "never")
    found = [(f["line"], f["message"]) for f in json.loads(result.out)]
    assert [line for line, _m in found] == [13, 16]
    assert all("held across" in message for _line, message in found)


def test_ignore_comment_silences_one_pattern(small_repo: Repo, run: Run) -> None:
    small_repo.write(
        "pkg/i.py",
        "def f() -> None:\n    try:\n        pass\n"
        "    except Exception:  # policytool: ignore[broad-except]\n"
        "        pass\n\n\ndef g(**kwargs: object) -> object:\n"
        "    return kwargs.get('k')  # policytool: ignore[kwargs-lookup]\n",
    )
    assert sweep_json(run) == []


def test_key_shared_through_a_constant_is_not_blocking(small_repo: Repo, run: Run) -> None:
    small_repo.git("checkout", "-q", "main")
    small_repo.write("pkg/keys.py", 'RUNTIME_KEY = "runtime_key"\n')
    small_repo.write(
        "pkg/user.py",
        "from pkg.keys import RUNTIME_KEY\n\n\ndef u(**kwargs: object) -> object:\n"
        "    return kwargs.get(RUNTIME_KEY)\n",
    )
    small_repo.commit("constant")
    small_repo.git("checkout", "-q", "-B", "feature")
    small_repo.write(
        "pkg/new.py",
        "from pkg.keys import RUNTIME_KEY\n\n\ndef n(**kwargs: object) -> object:\n"
        "    return kwargs.get(RUNTIME_KEY)\n\n\ndef m(**kwargs: object) -> object:\n"
        "    return kwargs.get('runtime_key')\n",
    )
    result = run("sweep", "--format", "json")
    findings = json.loads(result.out)
    assert [(f["line"], f["severity"]) for f in findings] == [(9, "warning")]
    assert "use the constant at pkg/keys.py:1" in findings[0]["message"]


def test_literal_key_new_in_two_files_is_blocking_in_every_head(small_repo: Repo, run: Run) -> None:
    small_repo.write(
        "pkg/old.py",
        "def o(**kw: object) -> object:\n    return kw['dup'] if 'dup' in kw else None\n",
    )
    small_repo.commit("old reader, on the feature branch")
    small_repo.write(
        "pkg/new.py", 'def n(**kwargs: object) -> object:\n    return kwargs.get("dup")\n'
    )
    dup = [("pkg/new.py", "error"), ("pkg/old.py", "error")]
    assert sorted((k[0], k[3]) for k in sweep_json(run)) == dup  # untracked, worktree
    small_repo.git("add", "pkg/new.py")
    assert sorted((k[0], k[3]) for k in sweep_json(run, "--staged")) == dup
    small_repo.git("commit", "-q", "-m", "n")
    assert sorted((k[0], k[3]) for k in sweep_json(run, "--head", "HEAD")) == dup


def test_rules_lists_the_sweep_patterns(run: Run) -> None:
    result = run("rules", "--format", "json")
    infos = {i["id"]: i for i in json.loads(result.out)}
    for rule in ("kwargs-lookup", "broad-except", "any-annotation", "hot-copy", "async-blocking"):
        assert infos[rule]["command"] == "sweep"


def test_policytool_sweeps_clean_on_its_own_sweep_code(repo: Repo, run: Run) -> None:
    """policytool's own sweep code, swept as one big new change, has no finding."""
    source = Path(__file__).resolve().parents[1] / "policytool"
    repo.write("README.md", "x\n")
    repo.commit("empty")
    repo.git("checkout", "-q", "-b", "feature")
    rules = [
        source / "rules" / f"{name}.py"
        for name in ("_sweep", "_pysource", "_kwreads", "kwargs_lookup", "broad_except")
        + ("any_annotation", "hot_copy", "async_blocking")
    ]
    for path in [*sorted((source / "sweep").glob("*.py")), *rules]:
        target = repo.root / "policytool" / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    repo.commit("sweep code")
    result = run("sweep", "--head", "HEAD")
    assert result.code == 0, result.out
    assert result.out.splitlines()[-1] == "| Code quality | 0 ⚠ | 0 ✗ |"


def test_the_backlog_on_main_would_be_reported_if_it_were_new(repo: Repo, run: Run) -> None:
    """The "old violations are not reported" tests mean something: swept as new code,
    main's backlog has findings of every pattern the old files hold."""
    repo.write("README.md", "x\n")
    repo.commit("empty")
    repo.git("checkout", "-q", "-b", "feature")
    for rel, text in BASE_FILES.items():
        repo.write(rel, text)
    keys = sweep_json(run)
    old = {(k[2], k[3]) for k in keys if k[0] == "pkg/old.py"}
    assert {rule for rule, _sev in old} == {
        "kwargs-lookup",
        "broad-except",
        "any-annotation",
        "hot-copy",
        "async-blocking",
    }
    assert any(k[0] == "pkg/other_model.py" for k in keys)
