# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""policytool baseline and the stale-allow ratchet."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable

import pytest

from tests.conftest import Repo, Result

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10 only
    import tomli as tomllib

Run = Callable[..., Result]

WITH_FILES = """\
[tool.policytool]

[[tool.policytool.forbidden-import]]
modules = ["pickle"]
reason = "unsafe"
allowlist-file = "tools/pickle_allow.txt"

[tool.policytool.torch-cuda]
allowlist-file = "tools/cuda_allow.txt"
"""


def dirty_tree(repo: Repo, config: str) -> None:
    """A committed tree with existing violations of both rules."""
    repo.write("pyproject.toml", config)
    repo.write("a.py", "import pickle\n")
    repo.write("pkg/b.py", "import os\n\nfrom pickle import loads\n")
    repo.write("gpu.py", "import torch\ntorch.cuda.synchronize()\n")
    repo.write("clean.py", "import os\n")
    repo.commit()


def rules_of(result: Result) -> list[tuple[str, str]]:
    """(path, rule) of a JSON run's findings (not those the baseline accepted)."""
    return [(f["path"], f["rule"]) for f in json.loads(result.out) if not f.get("accepted")]


ONLY = ("--only", "forbidden-import,torch-cuda,stale-allow")


def test_baseline_makes_a_dirty_tree_clean_then_catches_one_new_violation(
    repo: Repo, run: Run
) -> None:
    dirty_tree(repo, WITH_FILES)
    repo.write("tools/pickle_allow.txt", "# reviewed exceptions\nlegacy/**\n")
    repo.write("legacy/old.py", "import pickle\n")
    repo.commit()
    # A named allowlist file that does not exist is an error until baseline creates it.
    missing = run("check", *ONLY)
    assert missing.code == 2
    assert "tools/cuda_allow.txt: allowlist file not found" in missing.err
    repo.write("tools/cuda_allow.txt", "")
    before = run("check", *ONLY, "--format", "json")
    assert before.code == 1
    assert sorted(rules_of(before)) == [
        ("a.py", "forbidden-import"),
        ("gpu.py", "torch-cuda"),
        ("pkg/b.py", "forbidden-import"),
    ]

    result = run("baseline")
    assert result.code == 0, result.err
    assert "added 2 files to tools/pickle_allow.txt" in result.out
    assert "added 1 file to tools/cuda_allow.txt" in result.out
    assert repo.read("tools/pickle_allow.txt").decode() == (
        "# reviewed exceptions\nlegacy/**\n# added by `policytool baseline`\na.py\npkg/b.py\n"
    )
    assert (
        repo.read("tools/cuda_allow.txt").decode() == "# added by `policytool baseline`\ngpu.py\n"
    )
    repo.commit()
    clean = run("check", *ONLY)
    assert clean.code == 0, clean.out

    repo.write("new.py", "import torch as t\nt.cuda.empty_cache()\n")
    repo.commit()
    after = run("check", *ONLY, "--format", "json")
    assert after.code == 1
    assert rules_of(after) == [("new.py", "torch-cuda")]


def test_baseline_without_allowlist_file_prints_toml_to_paste(repo: Repo, run: Run) -> None:
    config = (
        '[[tool.policytool.forbidden-import]]\nmodules = ["pickle"]\nallow = ["keep/**"]\n\n'
        '[[tool.policytool.forbidden-import]]\nmodules = ["re"]\n'
    )
    dirty_tree(repo, config)
    repo.write("keep/x.py", "import pickle\n")
    repo.commit()
    result = run("baseline", "forbidden-import")
    # Nothing is clean until the TOML is pasted: baseline says what is left, exit 1.
    assert result.code == 1
    assert "#1 (pickle): 2 files with violations" in result.out
    assert "torch-cuda" not in result.out
    block, left = result.out.split("set its allow list to:\n", 1)[1].split("policytool: ", 1)
    assert left.startswith("baseline: 2 findings left, which `check` still reports")
    assert left.count("forbidden-import import of `pickle`") == 2
    pasted = tomllib.loads(block)
    assert pasted["allow"] == ["keep/**", "a.py", "pkg/b.py"]
    # Pasting it makes forbidden-import clean.
    repo.write("pyproject.toml", config.replace('allow = ["keep/**"]', block.strip()))
    repo.commit()
    assert run("check", "--only", "forbidden-import").code == 0


def test_baseline_on_a_clean_tree_changes_nothing(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", WITH_FILES)
    repo.write("clean.py", "import os\n")
    repo.commit()
    result = run("baseline")
    assert "nothing to add" in result.out
    assert not (repo.root / "tools").exists()
    # ... but `check` cannot run while the allowlist files it names are missing: said, exit 2.
    assert result.code == 2
    assert "left: `check` stops at: tools/pickle_allow.txt: allowlist file not found" in result.err
    repo.write("tools/pickle_allow.txt", "")
    repo.write("tools/cuda_allow.txt", "")
    assert run("baseline").code == 0


def test_baseline_refuses_to_accept_stale_allow_findings(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", WITH_FILES)
    repo.commit()
    result = run("baseline", "stale-allow")
    assert result.code == 2
    assert "stale-allow findings are not accepted" in result.err


def test_baseline_accepts_other_rules_findings_and_catches_new_ones(repo: Repo, run: Run) -> None:
    """Adoption in one commit: today's spdx-header findings accepted, a new file still fails."""
    repo.write("pyproject.toml", '[tool.policytool.spdx]\nlicense = "MIT"\n')
    repo.write("old.py", "x = 1\n")
    repo.write("vendored.py", "y = 2\n")
    repo.commit()
    assert run("check").code == 1
    result = run("baseline")
    assert result.code == 0, result.err
    assert ".policytool-baseline.json: accepted 2 findings of spdx-header" in result.out
    assert run("check").code == 0
    assert run("check", "old.py").code == 0  # a pre-commit call on an accepted file
    repo.write("new.py", "z = 3\n")
    repo.commit()
    after = run("check", "--format", "json")
    assert rules_of(after) == [("new.py", "spdx-header")]
    entries = json.loads(repo.read(".policytool-baseline.json"))
    assert {e["path"] for e in entries} == {"old.py", "vendored.py"}
    repo.write(".policytool-baseline.json", "[not json")
    bad = run("check")
    assert bad.code == 2 and "not a policytool baseline" in bad.err


def test_a_baseline_entry_that_accepts_more_than_it_finds_is_a_warning(
    repo: Repo, run: Run
) -> None:
    """A fixed finding leaves a spare count that would accept it again: said on full runs."""
    repo.write("pyproject.toml", '[tool.policytool.spdx]\nlicense = "MIT"\n')
    repo.write("old.py", "x = 1\n")
    repo.write("kept.py", "y = 2\n")
    repo.commit()
    assert run("baseline").code == 0
    repo.write("old.py", "# SPDX-License-Identifier: MIT\nx = 1\n")  # fixed
    repo.commit()
    result = run("check")
    assert result.code == 0  # a warning: the run still passes
    text = repo.read(".policytool-baseline.json").decode()
    line = text.splitlines().index(" {", text.splitlines().index(" {") + 1) + 1
    assert result.out.splitlines()[0] == (
        f".policytool-baseline.json:{line}:1: baseline-stale 1 accepted spdx-header finding "
        "in old.py no longer occurs; run `policytool baseline` to shrink the baseline"
    ), (text, result.out)
    # Only rules that ran over every file are judged: not on a pre-commit style call,
    # not for a rule left out.
    assert "baseline-stale" not in run("check", "kept.py").out
    assert "baseline-stale" not in run("check", "--skip", "spdx-header").out
    assert run("baseline").code == 0
    assert "baseline-stale" not in run("check").out
    entries = json.loads(repo.read(".policytool-baseline.json"))
    assert [e["path"] for e in entries] == ["kept.py"]


def test_stale_allow_reports_entries_matching_nothing_or_shielding_nothing(
    repo: Repo, run: Run
) -> None:
    repo.write(
        "pyproject.toml",
        '[[tool.policytool.forbidden-import]]\nmodules = ["pickle"]\n'
        'allow = [\n  "still/**",\n  "gone/**",\n  "fixed.py",\n]\n'
        '[tool.policytool.torch-cuda]\nallowlist-file = "cuda_allow.txt"\n',
    )
    repo.write("cuda_allow.txt", "# comment\n\nplatforms/**\nnothing_here.py\n")
    repo.write("still/a.py", "import pickle\n")
    repo.write("fixed.py", "import json\n")
    repo.write("platforms/cuda.py", "import torch\ntorch.cuda.synchronize()\n")
    repo.commit()
    result = run("check", "--only", "stale-allow", "--format", "json")
    assert result.code == 1
    got = [
        (f["path"], f["line"], f["message"])
        for f in json.loads(result.out)
        if not f.get("accepted")
    ]
    assert got == [
        (
            "cuda_allow.txt",
            4,
            "allow entry `nothing_here.py` of torch-cuda matches no file; remove it",
        ),
        (
            "pyproject.toml",
            5,
            "allow entry `gone/**` of forbidden-import entry 1 (pickle) matches no file; remove it",
        ),
        (
            "pyproject.toml",
            6,
            "allow entry `fixed.py` of forbidden-import entry 1 (pickle) no longer shields "
            "any violation (1 file matched); remove it",
        ),
    ]
    # Only on full runs: a pre-commit call with paths does not judge the allowlists.
    assert run("check", "--only", "stale-allow", "fixed.py").code == 0


def test_stale_allow_counts_the_files_each_glob_shape_matches(repo: Repo, run: Run) -> None:
    """Candidates are picked by each glob's literal prefix; the counts stay those of a
    match against every tracked file (names anywhere, ``**``, classes, ``./``)."""
    globs = ["z.py", "sub/**/x.py", "*/y.py", "[ab]/z.py", "./sub/x.py", "sub", "su"]
    repo.write(
        "pyproject.toml",
        '[[tool.policytool.forbidden-import]]\nmodules = ["pickle"]\nallow = '
        + json.dumps(globs)
        + "\n",
    )
    for name in ["z.py", "a/z.py", "b/z.py", "c/d/z.py", "sub/x.py", "sub/e/f/x.py", "a/y.py"]:
        repo.write(name, "import json\n")
    repo.write("sub.py", "import json\n")  # sorts between sub/... and su...: not under sub
    repo.commit()
    result = run("check", "--only", "stale-allow", "--format", "json")
    got = {
        f["message"].split("`")[1]: f["message"]
        for f in json.loads(result.out)
        if not f.get("accepted")
    }
    assert "`su` of forbidden-import entry 1 (pickle) matches no file" in got.pop("su")
    counts = {glob: message.split("(")[-1].split(" file")[0] for glob, message in got.items()}
    assert counts == {
        "z.py": "4",
        "sub/**/x.py": "2",
        "*/y.py": "1",
        "[ab]/z.py": "2",
        "sub/x.py": "1",
        "sub": "2",
    }


def test_stale_allow_after_a_file_is_fixed(repo: Repo, run: Run) -> None:
    dirty_tree(repo, WITH_FILES)
    assert run("baseline").code == 0
    repo.commit()
    assert run("check", "--only", "stale-allow").code == 0
    repo.write("a.py", "import json\n")
    repo.commit()
    result = run("check", "--only", "stale-allow", "--format", "json")
    assert [(f["path"], f["line"]) for f in json.loads(result.out) if not f.get("accepted")] == [
        ("tools/pickle_allow.txt", 2)
    ]


def test_stale_allow_names_the_line_in_its_own_section(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        '[[tool.policytool.forbidden-import]]\nmodules = ["pickle"]\nallow = ["shared.py"]\n\n'
        '[[tool.policytool.forbidden-import]]\nmodules = ["re"]\nallow = ["shared.py"]\n\n'
        '[tool.policytool.torch-cuda]\nallow = ["shared.py"]\n',
    )
    repo.write("shared.py", "import pickle\n")
    repo.commit()
    result = run("check", "--only", "stale-allow", "--format", "json")
    got = [
        (f["line"], f["message"].split(" no longer")[0])
        for f in json.loads(result.out)
        if not f.get("accepted")
    ]
    assert got == [
        (7, "allow entry `shared.py` of forbidden-import entry 2 (re)"),
        (10, "allow entry `shared.py` of torch-cuda"),
    ]


# ----- the repository boundary: allowlist files are the repo's own files ------------------


def _cuda_allowlist(repo: Repo, name: str) -> None:
    repo.write(
        "pyproject.toml", f"[tool.policytool.torch-cuda]\nallowlist-file = {json.dumps(name)}\n"
    )
    repo.write("gpu.py", "import torch\ntorch.cuda.synchronize()\n")
    repo.commit()


@pytest.mark.parametrize("command", [("check", "--only", "stale-allow"), ("check",), ("baseline",)])
@pytest.mark.parametrize("name", ["../secret.env", "/proc/self/environ", "link.txt"])
def test_an_allowlist_file_outside_the_repo_is_refused(
    repo: Repo, run: Run, name: str, command: tuple[str, ...]
) -> None:
    secret = repo.root.parent / "secret.env"
    secret.write_text("GITHUB_TOKEN=ghp_secretvalue\n")
    (repo.root / "link.txt").symlink_to(secret)
    _cuda_allowlist(repo, name)
    started = time.monotonic()
    result = run(*command)
    assert time.monotonic() - started < 1
    assert result.code == 2, result.out
    assert "secretvalue" not in result.out + result.err
    assert "GITHUB_TOKEN" not in result.out + result.err
    assert result.err.count("\n") == 1 and result.err.startswith("policytool: error: ")
    assert "allowlist-file" in result.err
    assert secret.read_text() == "GITHUB_TOKEN=ghp_secretvalue\n"  # baseline appended nothing


def test_an_allowlist_fifo_or_device_is_refused(repo: Repo, run: Run) -> None:
    os.mkfifo(repo.root / "allow.fifo")
    _cuda_allowlist(repo, "allow.fifo")
    started = time.monotonic()
    result = run("check", "--only", "torch-cuda")
    assert time.monotonic() - started < 1
    assert result.code == 2
    assert "not a regular file" in result.err


def test_baseline_creates_no_allowlist_outside_the_repo(repo: Repo, run: Run) -> None:
    _cuda_allowlist(repo, "../created-by-baseline.txt")
    result = run("baseline")
    assert result.code == 2
    assert not (repo.root.parent / "created-by-baseline.txt").exists()


def test_a_bom_does_not_disable_the_first_glob(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", '[tool.policytool.torch-cuda]\nallowlist-file = "allow.txt"\n')
    repo.write("allow.txt", b"\xef\xbb\xbfgpu.py\n")
    repo.write("gpu.py", "import torch\ntorch.cuda.synchronize()\n")
    repo.commit()
    result = run("check", *ONLY, "--format", "json")
    assert rules_of(result) == []


def test_baseline_write_failure_is_one_sentence_and_nothing_half_written(
    repo: Repo, run: Run
) -> None:
    """The second allowlist cannot be created: the first is not changed either."""
    dirty_tree(repo, WITH_FILES.replace("tools/cuda_allow.txt", "blocker/cuda_allow.txt"))
    repo.write("tools/pickle_allow.txt", "# kept\n")
    repo.write("blocker", "a file where a directory should be\n")
    result = run("baseline")
    assert result.code == 2, result.out
    assert result.err.count("\n") == 1 and result.err.startswith("policytool: error: ")
    assert "blocker/cuda_allow.txt" in result.err
    assert repo.read("tools/pickle_allow.txt") == b"# kept\n"
    assert repo.read("blocker") == b"a file where a directory should be\n"
    assert not [p for p in (repo.root / "tools").iterdir() if p.name.endswith(".tmp")]
