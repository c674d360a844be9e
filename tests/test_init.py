# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool init`` and the dependency-bump template it writes."""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest
import tomlkit

from policytool.config import Config
from policytool.lock.pr_body import (
    BUMP_TEMPLATE,
    BUMP_TEMPLATE_PATH,
    PLACEHOLDERS,
    BumpBody,
    PackageMove,
    render_bump_body,
    unknown_placeholders,
)
from policytool.scaffold.init import SCAFFOLDS
from policytool.scaffold.templates import placeholders, render, template_text
from tests.conftest import Repo, Result

Run = Callable[..., Result]


def test_init_writes_the_bump_template(repo: Repo, run: Run) -> None:
    result = run("init")
    assert result.code == 0, result.err
    assert f"{BUMP_TEMPLATE_PATH}: created" in result.out.splitlines()
    text = repo.read(BUMP_TEMPLATE_PATH).decode()
    assert text == BUMP_TEMPLATE
    for name in PLACEHOLDERS:
        assert f"{{{{ {name} }}}}" in text
    for heading in ("## Packages", "## Why", "## Jobs to re-validate", "## Upgrade procedure"):
        assert heading in text
    assert "rebuilt" in text and "Targeted retest" in text


def test_init_never_overwrites(repo: Repo, run: Run) -> None:
    repo.write(BUMP_TEMPLATE_PATH, "our own template\r\n", mode=0o600)
    result = run("init")
    assert result.code == 0
    assert f"{BUMP_TEMPLATE_PATH}: exists, left alone" in result.out.splitlines()
    assert repo.read(BUMP_TEMPLATE_PATH) == b"our own template\r\n"
    assert (repo.root / BUMP_TEMPLATE_PATH).stat().st_mode & 0o777 == 0o600


def test_init_twice_is_a_no_op(repo: Repo, run: Run) -> None:
    assert run("init").code == 0
    first = repo.read(BUMP_TEMPLATE_PATH)
    second = run("init")
    assert second.code == 0
    assert "created" not in second.out
    assert repo.read(BUMP_TEMPLATE_PATH) == first


def test_init_leaves_a_dangling_symlink_alone(repo: Repo, run: Run) -> None:
    target = repo.root / BUMP_TEMPLATE_PATH
    target.parent.mkdir(parents=True)
    os.symlink("nowhere.md", target)
    result = run("init")
    assert "exists, left alone" in result.out
    assert os.readlink(target) == "nowhere.md"
    assert not (target.parent / "nowhere.md").exists()


def test_init_writes_at_the_config_root_from_a_subdirectory(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", '[project]\nname = "demo"\n')
    sub = repo.root / "src" / "pkg"
    sub.mkdir(parents=True)
    os.chdir(sub)
    assert run("init").code == 0
    assert (repo.root / BUMP_TEMPLATE_PATH).is_file()
    assert not (sub / ".github").exists()


def test_init_reports_an_unwritable_place_in_one_line(repo: Repo, run: Run) -> None:
    repo.write(".github", "a file where a directory should be\n")
    result = run("init")
    assert result.code == 2
    assert result.err.startswith("policytool: error: ")
    assert "cannot create" in result.err and result.err.count("\n") == 1
    assert repo.read(".github") == b"a file where a directory should be\n"


def test_scaffold_registry_lists_the_template() -> None:
    assert BUMP_TEMPLATE_PATH in SCAFFOLDS
    assert SCAFFOLDS[BUMP_TEMPLATE_PATH].summary


def _body(**overrides: object) -> BumpBody:
    moves = [
        PackageMove("urllib3", "2.2.0", "2.2.3", ("test",), False),
        PackageMove("requests", "2.31.0", "2.32.3", ("test", "docs"), True),
        PackageMove("charset-normalizer", None, "3.4.0", ("test",), False),
    ]
    values: dict[str, object] = {
        "moves": moves,
        "why": "CVE-2024-35195 in requests < 2.32",
        "command": "policytool bump requests==2.32.3",
        "jobs": {"test": ["unit-tests", "e2e-nightly"], "docs": ["docs-build", "unit-tests"]},
    }
    values.update(overrides)
    return BumpBody(**values)  # type: ignore[arg-type]


def test_render_bump_body_fills_every_placeholder() -> None:
    out = render_bump_body(BUMP_TEMPLATE, _body())
    assert "{{" not in out
    assert out.startswith("<!--")
    assert "# Bump requests 2.31.0 -> 2.32.3\n" in out
    table = [line for line in out.splitlines() if line.startswith("| ")]
    assert table == [
        "| Package | From | To | Locks | Kind |",
        "| --- | --- | --- | --- | --- |",
        "| `requests` | 2.31.0 | 2.32.3 | `test`, `docs` | direct |",
        "| `charset-normalizer` | (none) | 3.4.0 | `test` | transitive |",
        "| `urllib3` | 2.2.0 | 2.2.3 | `test` | transitive |",
    ]
    assert "CVE-2024-35195 in requests < 2.32" in out
    assert "- `test`\n- `docs`" in out
    checklist = [line for line in out.splitlines() if line.startswith("- [ ] `")]
    assert checklist == [
        "- [ ] `unit-tests` (locks: `test`, `docs`)",
        "- [ ] `e2e-nightly` (locks: `test`)",
        "- [ ] `docs-build` (locks: `docs`)",
    ]
    assert "`policytool bump requests==2.32.3`" in out


def test_render_bump_body_is_single_pass_and_leaves_the_unknown() -> None:
    template = "{{why}} | {{ nope }} | ${{ github.ref }} | ${{ jobs }} | {{  command  }}"
    out = render_bump_body(template, _body(why="see {{ jobs }}"))
    assert out == (
        "see {{ jobs }} | {{ nope }} | ${{ github.ref }} | ${{ jobs }} | "
        "policytool bump requests==2.32.3"
    )
    assert unknown_placeholders(template) == ["nope"]
    assert unknown_placeholders(BUMP_TEMPLATE) == []


def test_render_bump_body_without_jobs_or_reason() -> None:
    out = render_bump_body(BUMP_TEMPLATE, _body(jobs={}, why="  ", moves=[]))
    assert "No jobs are named for the touched locks" in out
    assert "No reason given" in out
    assert "_No package moved._" in out
    assert "# Dependency bump\n" in out


def test_every_template_is_package_data_and_fully_rendered(repo: Repo) -> None:
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    data = tomlkit.parse(pyproject.read_text()).unwrap()
    globs = data["tool"]["setuptools"]["package-data"]["policytool.scaffold.templates"]
    names = [
        entry.name
        for entry in resources.files("policytool.scaffold.templates").iterdir()
        if entry.is_file() and not entry.name.endswith((".py", ".pyc"))
    ]
    assert len(names) >= 4
    for name in names:
        assert any(fnmatch.fnmatch(name, glob) for glob in globs), name
        template_text(name)  # readable as UTF-8
    config = Config(root=repo.root)
    for scaffold in SCAFFOLDS.values():
        text = scaffold.render(config)
        assert not placeholders(text), (scaffold.path, placeholders(text))


def test_template_render_refuses_a_missing_or_an_unused_value() -> None:
    with pytest.raises(KeyError):
        render("codeql.yml", {})
    with pytest.raises(ValueError, match="no placeholder"):
        render("codeql.yml", {"branch": "main", "typo": "x"})
    assert "branches: [dev]" in render("codeql.yml", {"branch": "dev"})


# ----- the starting config: init reads the repository ---------------------------------

SPDX_HOOK = """\
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the demo project
import sys

LICENSE_TEXT = "SPDX-License-Identifier: Apache-2.0"
COPYRIGHT_TEXT = "SPDX-FileCopyrightText: Copyright contributors to the demo project"
"""
CUDA_HOOK = """\
import regex as re

_TORCH_CUDA_PATTERNS = [r"\\btorch\\.cuda\\.(empty_cache|synchronize)\\b"]
ALLOWED_FILES = {
    "demo/platforms/",
    "tests/test_cuda.py",
}
"""
PRECOMMIT = """\
exclude: 'demo/third_party/.*'
repos:
- repo: local
  hooks:
  - id: check-spdx-header
    name: Check SPDX headers
    entry: python tools/pre_commit/check_spdx_header.py
    language: python
    types_or: [python, rust]
  - id: check-torch-cuda-call
    name: torch.cuda
    entry: python tools/pre_commit/check_torch_cuda.py
    language: python
    types: [python]
"""
HEADER = (
    "# SPDX-License-Identifier: Apache-2.0\n"
    "# SPDX-FileCopyrightText: Copyright contributors to the demo project\n"
)
PYPROJECT = '[project]\nname = "demo"\n\n# our own comment\n[tool.ruff]\nline-length = 88\n'


def vllm_like(repo: Repo) -> None:
    """A small repository shaped like vLLM: its own header and torch.cuda hooks."""
    repo.write("pyproject.toml", PYPROJECT)
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    repo.write("tools/pre_commit/check_spdx_header.py", SPDX_HOOK)
    repo.write("tools/pre_commit/check_torch_cuda.py", HEADER + CUDA_HOOK)
    repo.write(".github/workflows/ci.yml", "on: push\njobs: {}\n")
    repo.write("demo/__init__.py", HEADER)
    repo.write("demo/platforms/cuda.py", HEADER + "import torch\ntorch.cuda.synchronize()\n")
    repo.write("demo/third_party/vendored.py", "x = 1\n")
    repo.write("demo/model.py", HEADER + "import torch\n")
    repo.commit()


def test_init_proposes_the_policy_the_repo_already_runs(repo: Repo, run: Run) -> None:
    vllm_like(repo)
    before = repo.read("pyproject.toml")
    dry = run("init", "--dry-run")
    assert dry.code == 0, dry.err
    assert repo.read("pyproject.toml") == before  # --dry-run writes nothing
    assert not (repo.root / BUMP_TEMPLATE_PATH).exists()
    assert "[tool.policytool.spdx]: would add" in dry.out
    result = run("init")
    assert result.code == 0, result.err
    text = repo.read("pyproject.toml").decode()
    assert text.startswith(PYPROJECT)  # the file's own content and comments kept
    data = tomlkit.parse(text).unwrap()["tool"]["policytool"]
    assert data["exclude"] == ["demo/third_party/**"]
    assert data["spdx"] == {
        "license": "Apache-2.0",
        "copyright": "Copyright contributors to the demo project",
        "kinds": ["python", "rust"],
    }
    assert data["torch-cuda"] == {"allow": ["demo/platforms/**", "tests/test_cuda.py"]}
    # GitHub's default CodeQL setup is a repository setting, not a file: no evidence to
    # write a choice from, so init says what to choose and writes none.
    assert "ci" not in data
    assert (
        "pyproject.toml: note: no workflow runs CodeQL; if GitHub's default setup scans this "
        'repository, add [tool.policytool.ci] codeql = "default-setup"'
    ) in result.out
    assert "# policytool init: from the check-spdx-header hook" in text
    # The repository has its own CI: no second pre-commit workflow, no Mergify, no CodeQL.
    assert not (repo.root / ".github/workflows/pre-commit.yml").exists()
    assert not (repo.root / ".github/mergify.yml").exists()
    assert not (repo.root / ".github/workflows/codeql.yml").exists()
    assert (repo.root / BUMP_TEMPLATE_PATH).exists()
    repo.commit()
    check = run("check", "--only", "spdx-header,torch-cuda,stale-allow,codeql-workflow")
    assert check.code == 1  # tests/test_cuda.py in the hook's allowlist matches no file
    assert "allow entry `tests/test_cuda.py` of torch-cuda matches no file" in check.out
    assert "vendored.py" not in check.out  # pre-commit's exclude carried over
    again = run("init")
    assert "[tool.policytool.spdx]: exists, left alone" in again.out
    assert repo.read("pyproject.toml").decode() == text


def test_a_project_license_alone_proposes_no_spdx_policy(repo: Repo, run: Run) -> None:
    """pytest: MIT in [project], no header anywhere."""
    repo.write("pyproject.toml", '[project]\nname = "demo"\nlicense = "MIT"\n')
    repo.write("src/a.py", "x = 1\n")
    repo.commit()
    result = run("init")
    assert "spdx" not in result.out
    assert "spdx" not in repo.read("pyproject.toml").decode()


def test_headers_nearly_every_file_carries_are_proposed(repo: Repo, run: Run) -> None:
    for index in range(19):
        repo.write(f"pkg/m{index}.py", "# SPDX-License-Identifier: MIT\nx = 1\n")
    repo.write("pkg/odd.py", "x = 1\n")
    repo.commit()
    result = run("init")
    assert "95% of the Python files carry this header" in result.out
    data = tomlkit.parse(repo.read("pyproject.toml").decode()).unwrap()
    assert data["tool"]["policytool"]["spdx"] == {"license": "MIT"}


def test_headers_only_some_files_carry_are_a_note_not_a_policy(repo: Repo, run: Run) -> None:
    """vllm-omni: 57% of the files carry vLLM's header and nothing enforces it."""
    for index in range(6):
        repo.write(f"pkg/m{index}.py", "# SPDX-License-Identifier: Apache-2.0\nx = 1\n")
    for index in range(4):
        repo.write(f"pkg/n{index}.py", "x = 1\n")
    repo.commit()
    result = run("init")
    assert "note: 60% of the Python files carry `SPDX-License-Identifier: Apache-2.0`" in result.out
    assert "[tool.policytool.spdx]" not in repo.read("pyproject.toml").decode()


def test_init_then_baseline_is_clean_and_drift_is_caught(repo: Repo, run: Run) -> None:
    vllm_like(repo)
    assert run("init").code == 0
    repo.write("tests/test_cuda.py", HEADER + "import torch\ntorch.cuda.empty_cache()\n")
    repo.write("demo/no_header.py", "x = 1\n")
    repo.commit()
    assert run("check").code == 1
    result = run("baseline")
    assert result.code == 0, result.err
    repo.commit()
    clean = run("check")
    assert clean.code == 0, clean.out
    repo.write("demo/new.py", "import torch\ntorch.cuda.synchronize()\n")
    repo.commit()
    drift = run("check", "--format", "json")
    got = sorted({(f["path"], f["rule"]) for f in json.loads(drift.out) if not f.get("accepted")})
    assert got == [("demo/new.py", "spdx-header"), ("demo/new.py", "torch-cuda")]


def test_what_init_writes_passes_the_ci_rules(repo: Repo, run: Run) -> None:
    # The Mergify comment init writes pins pre-commit (the version installed here), so
    # ci-floating-install and mergify-drift have nothing to say about init's own files.
    from importlib.metadata import version

    repo.write("pkg/a.py", "x = 1\n")
    repo.commit()
    assert run("init").code == 0
    repo.commit()
    mergify = repo.read(".github/mergify.yml").decode()
    assert f"pip install pre-commit=={version('pre-commit')}" in mergify
    check = run("check", "--only", "ci,mergify-drift")
    assert check.code == 0, check.out


def test_init_refuses_a_pyproject_it_cannot_read_and_changes_nothing(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", b"[project\nname = 1\n")
    repo.write("a.py", "# SPDX-License-Identifier: MIT\n")
    repo.commit()
    result = run("init")
    assert result.code == 2
    assert result.err.count("\n") == 1 and "pyproject.toml" in result.err
    assert repo.read("pyproject.toml") == b"[project\nname = 1\n"


def test_init_configures_the_default_stages_the_repository_states(repo: Repo, run: Run) -> None:
    # kedro: `default_stages: [pre-commit, manual]`; init writes it down, so a drift from
    # the repository's own value is judged against that value (not a default).
    vllm_like(repo)
    repo.write(".pre-commit-config.yaml", "default_stages: [pre-commit, pre-push]\n" + PRECOMMIT)
    repo.commit()
    result = run("init")
    assert "[tool.policytool.pre-commit]: added" in result.out, result.out
    data = tomlkit.parse(repo.read("pyproject.toml").decode()).unwrap()
    assert data["tool"]["policytool"]["pre-commit"]["default-stages"] == ["pre-commit", "pre-push"]
    repo.commit()
    assert run("check", "--only", "precommit-default-stages").code == 0
    narrowed = repo.read(".pre-commit-config.yaml").decode().replace(", pre-push]", "]")
    repo.write(".pre-commit-config.yaml", narrowed)
    result = run("check", "--only", "precommit-default-stages")
    assert result.code == 1 and "pre-push" in result.out, result.out


@pytest.mark.parametrize(
    ("pattern", "globs"),
    [
        ("vllm/third_party/.*", ["vllm/third_party/**"]),
        ("^a/b/.*$|c\\.d/.*", ["a/b/**", "c.d/**"]),
        ("tests/.*\\.py", None),  # not a directory list: not guessed at
        (".*_pb2\\.py|docs/.*", None),
    ],
)
def test_precommit_exclude_regex_to_globs(pattern: str, globs: list[str] | None) -> None:
    from policytool.scaffold.propose import regex_to_globs

    assert regex_to_globs(pattern) == globs


def test_init_appends_to_a_pyproject_with_tool_tables_out_of_order(repo: Repo, run: Run) -> None:
    """black's pyproject: [tool.black], [build-system], then more [tool.*] tables."""
    text = "[tool.black]\nline-length = 88\n\n[build-system]\nrequires = []\n\n[tool.mypy]\nstrict = true"
    repo.write("pyproject.toml", text)
    for index in range(3):
        repo.write(f"src/m{index}.py", "# SPDX-License-Identifier: MIT\nx = 1\n")  # 100%
    repo.commit()
    result = run("init")
    assert result.code == 0, result.err
    new = repo.read("pyproject.toml").decode()
    assert new.startswith(text + "\n")
    data = tomlkit.parse(new).unwrap()
    assert data["tool"]["policytool"]["spdx"] == {"license": "MIT"}
    assert data["tool"]["black"] == {"line-length": 88} and data["tool"]["mypy"] == {"strict": True}
    assert run("check", "--only", "spdx-header").code == 0


def test_init_never_writes_into_a_parent_directorys_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Run
) -> None:
    outer = tmp_path / "outer"
    (outer / "repo").mkdir(parents=True)
    (outer / "pyproject.toml").write_text('[project]\nname = "outer"\n')
    inner = Repo(outer / "repo")
    inner.git("init", "-q", "-b", "main")
    for index in range(2):
        inner.write(f"m{index}.py", "# SPDX-License-Identifier: MIT\nx = 1\n")
    inner.commit()
    monkeypatch.chdir(inner.root)
    result = run("init")
    assert result.code == 0, result.err
    assert (outer / "pyproject.toml").read_text() == '[project]\nname = "outer"\n'
    assert (inner.root / BUMP_TEMPLATE_PATH).exists()
    assert "[tool.policytool.spdx]" in inner.read("pyproject.toml").decode()


# --- issue 21: a quiet, honest first run on repositories nobody tuned for -------------


def test_init_writes_no_precommit_config_where_the_repo_does_not_use_it(
    repo: Repo, run: Run
) -> None:
    # CI of its own, no pre-commit: a config nothing runs (saying CI runs it) is a lie.
    repo.write(".github/workflows/ci.yml", "on: push\njobs: {}\n")
    repo.write("pkg/a.py", "x = 1\n")
    repo.commit()
    result = run("init")
    assert result.code == 0, result.err
    assert not (repo.root / ".pre-commit-config.yaml").exists()
    assert ".pre-commit-config.yaml: left out" in result.out
    # nothing to propose for a repository without a policy: no pyproject.toml written
    pyproject = repo.root / "pyproject.toml"
    assert not pyproject.exists() or "pre-commit" not in pyproject.read_text()


def test_init_configures_the_invariants_of_its_own_precommit_config(repo: Repo, run: Run) -> None:
    repo.write("pkg/a.py", "x = 1\n")
    repo.commit()
    assert run("init").code == 0
    data = tomlkit.parse(repo.read("pyproject.toml").decode()).unwrap()
    assert data["tool"]["policytool"]["pre-commit"] == {
        "final-hook": "suggestion",
        "default-stages": ["pre-commit", "manual"],
    }
    repo.commit()
    assert run("check", "--only", "precommit-final-hook,precommit-default-stages").code == 0
    config = repo.read(".pre-commit-config.yaml").decode()
    drifted = config.replace("default_stages: [pre-commit, manual]\n", "") + (
        "  - repo: local\n    hooks:\n      - id: late\n        name: late\n"
        "        entry: 'true'\n        language: system\n"
    )
    repo.write(".pre-commit-config.yaml", drifted)
    repo.commit()
    result = run("check", "--only", "precommit-final-hook,precommit-default-stages")
    assert "precommit-final-hook" in result.out and "precommit-default-stages" in result.out


def test_init_reads_a_final_hook_under_insert_new_entries_above(repo: Repo, run: Run) -> None:
    vllm_like(repo)
    repo.write(
        ".pre-commit-config.yaml",
        PRECOMMIT + "  # Keep `suggestion` last\n  - id: suggestion\n    name: Suggestion\n"
        "    entry: echo bypass\n    language: system\n"
        "  # Insert new entries above the `suggestion` entry\n",
    )
    repo.commit()
    result = run("init")
    assert "[tool.policytool.pre-commit]: added" in result.out
    data = tomlkit.parse(repo.read("pyproject.toml").decode()).unwrap()
    assert data["tool"]["policytool"]["pre-commit"] == {"final-hook": "suggestion"}
    assert not (repo.root / ".github/mergify.yml").exists()


@pytest.mark.parametrize(
    ("pattern", "globs"),
    [
        ("^vendor/", ["vendor/**"]),
        ("^(docs/|src/_vendor/)$", ["docs/**", "src/_vendor/**"]),
        ("(?x)^(\n  third_party/.*|  # vendored\n  build/\n)$", ["third_party/**", "build/**"]),
        ("^(a/)|(b/)$", None),  # two groups, not one around everything
        ("^vendor", None),  # vendor.py too: not a directory
        # ansible-lint's list of files and directories, anchored at both ends.
        (
            "(?x)^(\n  examples/broken/encoding.yml|\n  examples/playbooks/collections/.*|\n"
            "  test/schemas/package-lock\\.json\n)$",
            [
                "examples/broken/encoding.yml",
                "examples/playbooks/collections/**",
                "test/schemas/package-lock.json",
            ],
        ),
        ("^a/b\\.json$|^c/", ["a/b.json", "c/**"]),
        ("a/b\\.json|c/", None),  # a file not anchored: a/b.json.bak too
        ("^(a/b\\.json|c/.*\\.py)$", None),
    ],
)
def test_precommit_exclude_of_one_directory(pattern: str, globs: list[str] | None) -> None:
    from policytool.scaffold.propose import regex_to_globs

    assert regex_to_globs(pattern) == globs


PIP_COMPILED = """\
#
# This file is autogenerated by pip-compile with Python 3.11
# by the following command:
#
#    pip-compile --generate-hashes --output-file=requirements/base.txt requirements/base.in
#
idna==3.7 \\
    --hash=sha256:028ff3aadf0609c1fd278d8ea3089299412a7a8b9bd005dd08b9f8285bcb5cfc
"""


def test_init_proposes_locks_for_pip_compile_outputs(repo: Repo, run: Run) -> None:
    repo.write(".github/workflows/ci.yml", "on: push\njobs: {}\n")
    repo.write("requirements/base.in", "idna\n")
    repo.write("requirements/base.txt", PIP_COMPILED)
    repo.commit()
    assert run("init").code == 0
    data = tomlkit.parse(repo.read("pyproject.toml").decode()).unwrap()
    assert data["tool"]["policytool"]["lock"] == [
        {
            "name": "base",
            "inputs": ["requirements/base.in"],
            "output": "requirements/base.txt",
            "backend": "pip-tools",
            "python-version": "3.11",
            "hashes": True,
        }
    ]
    repo.commit()
    assert run("baseline").code in (0, 1)
    repo.commit()
    # Loosening a lock line is caught.
    repo.write("requirements/base.txt", PIP_COMPILED.replace("idna==3.7", "idna>=3.7"))
    repo.commit()
    result = run("check", "--only", "lock-stale")
    assert "'idna>=3.7' is not an exact pin" in result.out


def test_init_proposes_the_projects_own_license_not_the_vendored_one(repo: Repo, run: Run) -> None:
    # An MIT repository whose (vendored) files carry Apache-2.0 headers.
    repo.write(".github/workflows/ci.yml", "on: push\njobs: {}\n")
    repo.write("LICENSE", "MIT License\n\nPermission is hereby granted, free of charge, to any\n")
    for index in range(10):
        repo.write(f"pkg/_vendor/m{index}.py", "# SPDX-License-Identifier: Apache-2.0\nx = 1\n")
    repo.commit()
    result = run("init")
    assert "Apache-2.0" not in result.out
    pyproject = repo.root / "pyproject.toml"
    assert not pyproject.exists() or "spdx" not in pyproject.read_text()
    # The same files under the project's own license are its policy.
    for index in range(10):
        repo.write(f"pkg/_vendor/m{index}.py", "# SPDX-License-Identifier: MIT\nx = 1\n")
    repo.write("pyproject.toml", '[project]\nname = "demo"\n')
    repo.commit()
    run("init")
    data = tomlkit.parse(repo.read("pyproject.toml").decode()).unwrap()
    assert data["tool"]["policytool"]["spdx"] == {"license": "MIT"}


def test_the_mergify_tip_init_writes_is_pinned_without_pre_commit_here(
    repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    # policytool installed without pre-commit, no lock holding it: the tip still pins.
    import importlib.metadata

    from policytool.scaffold import ci

    real = importlib.metadata.version

    def version(name: str) -> str:
        if name == "pre-commit":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    text = ci.render_mergify(Config(root=repo.root))
    assert f"pip install pre-commit=={ci.PRECOMMIT_FALLBACK}\n" in text
    repo.write(".github/mergify.yml", text)
    repo.commit()
    check = run("check", "--only", "ci-floating-install")
    assert check.code == 0, check.out


def test_uv_pip_compile_outputs_become_locks_with_their_options(tmp_path: Path) -> None:
    from policytool.scaffold.propose import propose_locks

    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements/docs.in").write_text("idna\n")
    (tmp_path / "requirements/docs.txt").write_text(
        "# This file was autogenerated by uv via the following command:\n"
        "#    uv pip compile requirements/docs.in -o requirements/docs.txt "
        "--python-platform x86_64-manylinux_2_28 --python-version 3.12 --no-emit-package pip\n"
        "idna==3.7\n"
    )
    # Run from the lock's own directory, and one whose input is not in the repository.
    (tmp_path / "requirements/dev.in").write_text("idna\n")
    (tmp_path / "requirements/dev.txt").write_text(
        "# This file was autogenerated by uv via the following command:\n"
        "#    uv pip compile dev.in -o dev.txt --universal\nidna==3.7\n"
    )
    (tmp_path / "requirements/gone.txt").write_text(
        "# This file was autogenerated by uv via the following command:\n"
        "#    uv pip compile gone.in -o gone.txt\nidna==3.7\n"
    )
    files = ["requirements/dev.txt", "requirements/docs.txt", "requirements/gone.txt"]
    table = propose_locks(Config(root=tmp_path), files)
    assert table is not None
    assert list(table.entries) == [
        {
            "name": "dev",
            "inputs": ["requirements/dev.in"],
            "output": "requirements/dev.txt",
            "universal": True,
        },
        {
            "name": "docs",
            "inputs": ["requirements/docs.in"],
            "output": "requirements/docs.txt",
            "platform": "x86_64-manylinux_2_28",
            "python-version": "3.12",
            "exclude": ["pip"],
        },
    ]


IMPORTLINTER = """\
[project]
name = "kedro"
version = "0"

[tool.importlinter]
root_package = "kedro"

[[tool.importlinter.contracts]]
name = "Pipeline and IO are independent"
type = "independence"
modules = ["kedro.pipeline", "kedro.io"]

[[tool.importlinter.contracts]]
name = "Config cannot import Runner et al"
type = "forbidden"
source_modules = ["kedro.config"]
forbidden_modules = ["kedro.runner", "kedro.io"]
"""


@pytest.mark.parametrize("where", ["pyproject.toml", ".importlinter"])
def test_init_proposes_import_linter_forbidden_contracts(repo: Repo, run: Run, where: str) -> None:
    """kedro: import-linter's `forbidden` contract becomes a forbidden-import entry that
    catches kedro.config importing kedro.runner, and nothing outside kedro/config."""
    if where == "pyproject.toml":
        repo.write("pyproject.toml", IMPORTLINTER)
    else:
        repo.write("pyproject.toml", IMPORTLINTER.split("[tool.importlinter]")[0])
        repo.write(
            ".importlinter",
            "[importlinter]\nroot_package = kedro\n\n"
            "[importlinter:contract:config]\nname = Config cannot import Runner et al\n"
            "type = forbidden\nsource_modules =\n    kedro.config\n"
            "forbidden_modules =\n    kedro.runner\n    kedro.io\n",
        )
    repo.write("kedro/__init__.py", "")
    repo.write("kedro/config/__init__.py", "")
    repo.write("kedro/runner/__init__.py", "from kedro.io import x\n")
    repo.commit()
    assert run("init").code == 0
    data = tomlkit.parse(repo.read("pyproject.toml").decode()).unwrap()
    assert data["tool"]["policytool"]["forbidden-import"] == [
        {
            "modules": ["kedro.runner", "kedro.io"],
            "files": ["kedro/config/**", "kedro/config.py"],
            "reason": "import-linter contract 'Config cannot import Runner et al'",
        }
    ]
    repo.commit()
    assert run("check", "--only", "forbidden-import").code == 0
    repo.write("kedro/config/drift.py", "from kedro.runner import SequentialRunner\n")
    repo.commit()
    result = run("check", "--only", "forbidden-import")
    assert result.code == 1
    assert "kedro/config/drift.py:1" in result.out


UV_EXPORTED = """\
# This file was autogenerated by uv via the following command:
#    uv export --no-default-groups --no-dev --no-emit-package ansible-core --no-emit-project \
--no-hashes -o .config/requirements-lock.txt
idna==3.7
    # via demo
"""


def test_init_proposes_a_lock_for_a_uv_export_output(repo: Repo, run: Run) -> None:
    # ansible-lint's `.config/requirements-lock.txt`, exported from uv.lock.
    repo.write(".github/workflows/ci.yml", "on: push\njobs: {}\n")
    repo.write(
        "pyproject.toml",
        '[project]\nname = "demo"\ndependencies = ["idna", "ansible-core"]\n'
        '[project.optional-dependencies]\nlock = ["idna"]\n'
        '[dependency-groups]\ndev = ["pytest"]\n',
    )
    repo.write(".config/requirements-lock.txt", UV_EXPORTED.replace("\\\n", ""))
    repo.commit()
    assert run("init").code == 0
    data = tomlkit.parse(repo.read("pyproject.toml").decode()).unwrap()
    assert data["tool"]["policytool"]["lock"] == [
        {
            "name": "lock",
            "inputs": ["pyproject.toml"],
            "output": ".config/requirements-lock.txt",
            "universal": True,
            "exclude": ["ansible-core"],
        }
    ]
    repo.commit()
    assert run("baseline").code == 0
    repo.commit()
    assert run("lock", "--check").code == 0


@pytest.mark.parametrize(
    ("command", "inputs", "hashes"),
    [
        ("uv export -o requirements.txt", ["pyproject.toml", "pyproject.toml:dev"], True),
        (
            "uv export --all-extras --no-dev --output-file=requirements.txt",
            ["pyproject.toml[a,b]"],
            True,
        ),
        (
            "uv export --extra a --group docs --no-hashes -o ./requirements.txt",
            ["pyproject.toml[a]", "pyproject.toml:dev", "pyproject.toml:docs"],
            False,
        ),
        ("uv export --only-group docs -o requirements.txt", None, False),
        ("uv export --format pylock.toml -o requirements.txt", None, False),
        ("uv export -o otherequirements.txt", None, False),
    ],
)
def test_uv_export_options_as_a_lock_table(
    tmp_path: Path, command: str, inputs: list[str] | None, hashes: bool
) -> None:
    from policytool.scaffold.propose import propose_locks

    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n[project.optional-dependencies]\na = []\nb = []\n'
        "[dependency-groups]\ndev = []\ndocs = []\n"
    )
    (tmp_path / "requirements.txt").write_text(
        f"# This file was autogenerated by uv via the following command:\n#    {command}\n"
        "idna==3.7\n"
    )
    table = propose_locks(Config(root=tmp_path), ["requirements.txt"])
    if inputs is None:
        assert table is None
        return
    assert table is not None
    (entry,) = table.entries
    assert entry["inputs"] == inputs
    assert entry.get("hashes", False) is hashes


def test_a_pip_compile_header_without_output_reads_from_the_locks_directory(
    repo: Repo, run: Run
) -> None:
    # flask's examples/celery/requirements.txt: `pip-compile pyproject.toml` run in that
    # directory; the root pyproject.toml is another project's.
    repo.write(".github/workflows/ci.yml", "on: push\njobs: {}\n")
    repo.write("pyproject.toml", '[project]\nname = "root"\ndependencies = ["click"]\n')
    repo.write(
        "examples/celery/pyproject.toml", '[project]\nname = "ex"\ndependencies = ["idna"]\n'
    )
    repo.write(
        "examples/celery/requirements.txt",
        "#\n# This file is autogenerated by pip-compile with Python 3.11\n"
        "# by the following command:\n#\n#    pip-compile --resolver=backtracking pyproject.toml\n"
        "#\nidna==3.7\n",
    )
    repo.commit()
    assert run("init").code == 0
    data = tomlkit.parse(repo.read("pyproject.toml").decode()).unwrap()
    assert data["tool"]["policytool"]["lock"] == [
        {
            "name": "requirements",
            "inputs": ["examples/celery/pyproject.toml"],
            "output": "examples/celery/requirements.txt",
            "backend": "pip-tools",
            "python-version": "3.11",
        }
    ]
