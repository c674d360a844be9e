# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``action-pin``: refs judged offline, resolved by ``fix --online`` against local bare repos."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from policytool.rules import action_pin
from tests.conftest import GIT_ENV, Repo, Result

Run = Callable[..., Result]
RULE = "action-pin"
WF = ".github/workflows/ci.yml"
SHA_RE_LEN = 40


@pytest.fixture
def run(repo: Repo, run: Run) -> Run:
    """The CLI runner, after staging every file (a full run checks tracked files)."""

    def staged(*args: str) -> Result:
        repo.git("add", "-A")
        return run(*args)

    return staged


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    """Each test asks its own bare repositories."""
    action_pin._REMOTES.clear()


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd``."""
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


class Remotes:
    """Bare repositories ``<base>/<owner>/<repo>.git`` standing in for GitHub."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.work = base.parent / "work"

    @property
    def url(self) -> str:
        """The ``POLICYTOOL_GIT_BASE_URL`` pointing at them."""
        return f"file://{self.base}"

    def action(self, name: str) -> dict[str, str]:
        """Create ``owner/repo`` with commits, tags and branches; ref -> commit sha."""
        work = self.work / name
        work.mkdir(parents=True)
        git(work, "init", "-q", "-b", "main")
        shas: dict[str, str] = {}
        for version in ("1.0.0", "1.1.0", "2.0.0"):
            (work / "action.yml").write_text(f"name: {name} {version}\n")
            git(work, "add", "-A")
            git(work, "commit", "-q", "-m", version)
            shas[f"v{version}"] = git(work, "rev-parse", "HEAD")
            git(work, "tag", "-a", f"v{version}", "-m", version)  # annotated: peeled
        git(work, "tag", "v1", shas["v1.1.0"])  # moving major tag, lightweight
        git(work, "tag", "-a", "v2", "-m", "major", shas["v2.0.0"])
        shas["v1"] = shas["v1.1.0"]
        shas["v2"] = shas["v2.0.0"]
        (work / "action.yml").write_text(f"name: {name} next\n")
        git(work, "commit", "-qam", "next")
        shas["main"] = git(work, "rev-parse", "HEAD")
        git(work, "branch", "release", shas["v1.0.0"])
        shas["release"] = shas["v1.0.0"]
        bare = self.base / f"{name}.git"
        bare.parent.mkdir(parents=True, exist_ok=True)
        git(self.base, "clone", "-q", "--bare", str(work), str(bare))
        return shas


@pytest.fixture
def remotes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Remotes:
    """An empty set of action repositories, the maintainer's mirror outside the repository
    (``POLICYTOOL_GIT_BASE_URL``: the config may only name https://)."""
    remotes = Remotes(tmp_path / "remotes")
    monkeypatch.setenv(action_pin.BASE_URL_VARIABLE, remotes.url)
    return remotes


def setup(repo: Repo, config: str = "") -> None:
    """A pyproject with ``config``."""
    repo.write("pyproject.toml", f'[project]\nname = "demo"\nversion = "0"\n\n{config}\n')


def base_config(remotes: Remotes, extra: str = "") -> str:
    """The action-pin table (the ``remotes`` fixture points the run at the bare repositories)."""
    return f"[tool.policytool.action-pin]\n{extra}"


def findings(run: Run, *args: str) -> list[dict[str, object]]:
    """The rule's findings as JSON objects."""
    result = run("check", "--only", RULE, "--format", "json", *args)
    assert result.code in (0, 1), result.err
    return [f for f in json.loads(result.out) if f["rule"] == RULE]


def steps(*uses: str) -> str:
    """A workflow with one job whose steps use ``uses`` (raw text after ``uses: ``)."""
    body = "".join(f"      - uses: {u}\n" for u in uses)
    return f"name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n{body}"


SHA = "0123456789abcdef0123456789abcdef01234567"


# ----------------------------------------------------------------------------- check


def test_every_unpinned_form_is_found_at_its_line(repo: Repo, run: Run) -> None:
    setup(repo)
    repo.write(
        WF,
        steps(
            "actions/checkout@v4",  # 7 tag
            f"actions/setup-python@{SHA} # v5.1.0",  # ok
            f"actions/cache@{SHA}",  # 9 SHA without comment
            "org/tool@main",  # 10 branch
            "org/tool/sub/path@master",  # 11 branch
            "org/tool@0123456",  # 12 short SHA
            "./.github/actions/local",  # ok
            '"org/quoted@v1"  # a note',  # 14 quoted tag
            f"org/ratchet@{SHA} # ratchet:org/ratchet@v1",  # ok
            "docker://alpine:3.20",  # ok without the opt-in
            "org/noref",  # 17
        ),
    )
    found = findings(run)
    assert [(f["line"], f["col"]) for f in found] == [
        (7, 15),
        (9, 15),
        (10, 15),
        (11, 15),
        (12, 15),
        (14, 15),
        (17, 15),
    ]
    messages = [str(f["message"]) for f in found]
    assert "pinned to a tag or branch" in messages[0]
    assert "without a `# vX.Y.Z` comment" in messages[1]
    assert "follows the `main` branch" in messages[2]
    assert "follows the `master` branch" in messages[3]
    assert "short commit id" in messages[4]
    assert "`org/quoted@v1`" in messages[5]
    assert "names no ref" in messages[6]
    assert all("policytool fix --online --only action-pin" in m for m in messages[:4])
    assert not any(f["fixable"] for f in found)


def test_reusable_workflow_jobs_and_composite_actions(repo: Repo, run: Run) -> None:
    setup(repo)
    repo.write(
        WF,
        "on: push\njobs:\n  call:\n    uses: org/repo/.github/workflows/x.yml@main\n"
        "  local:\n    uses: ./.github/workflows/y.yml\n",
    )
    repo.write(
        ".github/actions/setup/action.yml",
        "runs:\n  using: composite\n  steps:\n    - uses: actions/setup-python@v5\n",
    )
    found = findings(run)
    assert [(f["path"], f["line"]) for f in found] == [
        (".github/actions/setup/action.yml", 4),
        (WF, 4),
    ]


def test_trusted_owners_may_stay_on_tags_but_not_on_main(repo: Repo, run: Run) -> None:
    setup(repo, '[tool.policytool.action-pin]\ntrusted = ["actions/*", "github/codeql-action"]\n')
    repo.write(
        WF,
        steps(
            "actions/checkout@v4",
            "github/codeql-action/init@v3",
            "actions/checkout@main",
            "other/tool@v1",
        ),
    )
    assert [f["line"] for f in findings(run)] == [9, 10]


def test_ignore_comment_and_allow_globs(repo: Repo, run: Run) -> None:
    setup(repo, '[tool.policytool.action-pin]\nallow = [".github/workflows/legacy-*.yml"]\n')
    repo.write(WF, steps("org/tool@v1 # policytool: ignore[action-pin]", "org/tool@v2"))
    repo.write(".github/workflows/legacy-a.yml", steps("org/tool@v1"))
    assert [(f["path"], f["line"]) for f in findings(run)] == [(WF, 8)]


def test_broken_workflow_is_one_finding(repo: Repo, run: Run) -> None:
    setup(repo)
    repo.write(WF, "jobs: {unclosed: [\n  - uses: org/tool@v1\n")
    (finding,) = findings(run)
    assert "invalid YAML" in str(finding["message"])


def test_policytool_own_workflows_and_init_templates_are_clean(repo: Repo, run: Run) -> None:
    own = Path(__file__).resolve().parents[1] / ".github" / "workflows"
    for path in own.glob("*.yml"):
        repo.write(f".github/workflows/own-{path.name}", path.read_bytes())
    from policytool.config import Config
    from policytool.scaffold.ci import render_codeql_workflow, render_precommit_workflow

    config = Config(root=repo.root)
    repo.write(".github/workflows/init-pre-commit.yml", render_precommit_workflow(config))
    repo.write(".github/workflows/init-codeql.yml", render_codeql_workflow(config))
    setup(repo)
    assert findings(run) == []
    text = render_precommit_workflow(config) + render_codeql_workflow(config)
    uses = [line.split("uses: ", 1)[1] for line in text.splitlines() if "uses: " in line]
    assert uses and all(len(u.split("@", 1)[1].split(" ")[0]) == SHA_RE_LEN for u in uses)
    assert all(" # v" in u for u in uses)


# ----------------------------------------------------------------------------- docker


DOCKERFILE = """\
ARG BASE=python:3.12-slim
ARG PINNED=python@sha256:abcdef
ARG OPEN
FROM ${BASE} AS build
FROM $PINNED
FROM ubuntu:24.04@sha256:0123
FROM build
FROM scratch
FROM ${OPEN}
FROM --platform=linux/amd64 nvidia/cuda:12.4.1-devel AS cuda
"""


def test_docker_digests_are_opt_in(repo: Repo, run: Run) -> None:
    setup(repo)
    repo.write("docker/Dockerfile", DOCKERFILE)
    repo.write(
        WF,
        "on: push\njobs:\n  t:\n    container: node:20\n    services:\n"
        "      db:\n        image: postgres:16\n    steps:\n      - uses: docker://alpine:3\n",
    )
    assert findings(run) == []
    setup(repo, "[tool.policytool.action-pin]\ndocker-digest = true\n")
    found = findings(run)
    assert [(f["path"], f["line"], f["col"]) for f in found] == [
        (WF, 4, 16),
        (WF, 7, 16),
        (WF, 9, 15),
        ("docker/Dockerfile", 4, 6),
        ("docker/Dockerfile", 10, 29),
    ]
    assert "`python:3.12-slim` has no digest" in str(found[3]["message"])
    assert "docker buildx imagetools inspect" in str(found[0]["message"])


# ----------------------------------------------------------------------------- fix --online


def test_fix_online_pins_tags_branches_and_comments_shas(
    repo: Repo, run: Run, remotes: Remotes
) -> None:
    checkout = remotes.action("actions/checkout")
    tool = remotes.action("org/tool")
    setup(repo, base_config(remotes))
    text = steps(
        "actions/checkout@v1",  # lightweight major tag -> most specific: v1.1.0
        "actions/checkout@v2.0.0  # keep this note",  # annotated: peeled commit
        '"org/tool/sub@main"',  # branch, quoted
        f"org/tool@{tool['v1.0.0']}",  # SHA without comment
        "org/tool@release",  # a branch named like no tag
        "./local",
    )
    repo.write(WF, text)
    result = run("fix", "--online", "--only", RULE)
    assert result.code == 1, result.out + result.err
    assert f"fixed {WF}" in result.err
    expected = steps(
        f"actions/checkout@{checkout['v1']} # v1.1.0",
        f"actions/checkout@{checkout['v2.0.0']} # v2.0.0 keep this note",
        f'"org/tool/sub@{tool["main"]}" # main',
        f"org/tool@{tool['v1.0.0']} # v1.0.0",
        f"org/tool@{tool['release']} # release",
        "./local",
    )
    assert repo.read(WF).decode() == expected
    assert findings(run) == []
    again = run("fix", "--online", "--only", RULE)
    assert again.code == 0 and "fixed" not in again.err
    assert repo.read(WF).decode() == expected


def test_fix_keeps_crlf_bom_and_every_other_byte(repo: Repo, run: Run, remotes: Remotes) -> None:
    checkout = remotes.action("actions/checkout")
    setup(repo, base_config(remotes))
    text = ("# top comment\n" + steps("actions/checkout@v2", "./x") + "# end\n").replace(
        "\n", "\r\n"
    )
    repo.write(WF, b"\xef\xbb\xbf" + text.encode())
    run("fix", "--online", "--only", RULE)
    want = text.replace("actions/checkout@v2", f"actions/checkout@{checkout['v2']} # v2.0.0")
    assert repo.read(WF) == b"\xef\xbb\xbf" + want.encode()


def test_fix_online_in_composite_and_reusable_jobs(repo: Repo, run: Run, remotes: Remotes) -> None:
    tool = remotes.action("org/tool")
    setup(repo, base_config(remotes))
    repo.write(WF, "on: push\njobs:\n  call:\n    uses: org/tool/.github/workflows/x.yml@v2\n")
    repo.write("act/action.yml", "runs:\n  using: composite\n  steps:\n    - uses: org/tool@v1\n")
    run("fix", "--online", "--only", RULE)
    assert f"x.yml@{tool['v2']} # v2.0.0\n" in repo.read(WF).decode()
    assert f"org/tool@{tool['v1']} # v1.1.0\n" in repo.read("act/action.yml").decode()


def test_unresolvable_refs_stay_findings_with_the_reason(
    repo: Repo, run: Run, remotes: Remotes
) -> None:
    tool = remotes.action("org/tool")
    setup(repo, base_config(remotes))
    text = steps("org/tool@v9", "org/missing@v1", f"org/tool@{'f' * 40}", "org/tool@v1")
    repo.write(WF, text)
    result = run("fix", "--online", "--only", RULE, "--format", "json")
    found = [f for f in json.loads(result.out) if f["rule"] == RULE]
    messages = [str(f["message"]) for f in found]
    assert len(messages) == 3
    assert "`v9` is neither a tag nor a branch of org/tool" in messages[0]
    assert "git ls-remote" in messages[1] and "failed" in messages[1]
    assert "no tag of org/tool points at it" in messages[2]
    assert repo.read(WF).decode() == text.replace(
        "org/tool@v1\n", f"org/tool@{tool['v1']} # v1.1.0\n"
    )


def test_ignored_lines_are_not_fixed(repo: Repo, run: Run, remotes: Remotes) -> None:
    remotes.action("org/tool")
    setup(repo, base_config(remotes))
    text = steps("org/tool@v1 # policytool: ignore[action-pin]")
    repo.write(WF, text)
    run("fix", "--online", "--only", RULE)
    assert repo.read(WF).decode() == text


def test_offline_fix_changes_nothing(repo: Repo, run: Run, remotes: Remotes) -> None:
    remotes.action("org/tool")
    setup(repo, base_config(remotes))
    text = steps("org/tool@v1")
    repo.write(WF, text)
    result = run("fix", "--only", RULE)
    assert result.code == 1
    assert repo.read(WF).decode() == text
    assert "policytool fix --online --only action-pin" in result.out


@pytest.mark.parametrize(
    "base",
    [
        "ext::sh -c touch% /tmp/pwned",
        "/abs/path",
        "ssh://host/x",
        "-upload-pack=evil",
        "file:///",
        "http://127.0.0.1:9",
        "https://",
        "https://host/a b",
    ],
)
def test_unsafe_base_url_is_a_config_error(repo: Repo, run: Run, base: str) -> None:
    setup(repo, f'[tool.policytool.action-pin]\ngit-base-url = "{base}"\n')
    repo.write(WF, steps("org/tool@v1"))
    result = run("fix", "--online", "--only", RULE)
    assert result.code == 2
    assert "git-base-url" in result.err and "Traceback" not in result.err
    assert result.err.count("\n") == 1


def test_hostile_owner_names_are_never_passed_to_git(
    repo: Repo, run: Run, remotes: Remotes
) -> None:
    setup(repo, base_config(remotes))
    text = steps("-u/x@v1", "../../etc@v1", "org/..@v1")
    repo.write(WF, text)
    run("fix", "--online", "--only", RULE)
    assert repo.read(WF).decode() == text
    assert action_pin._REMOTES == {}


def test_git_missing_is_a_reason_not_a_crash(
    repo: Repo, run: Run, remotes: Remotes, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup(repo, base_config(remotes))
    repo.write(WF, steps("org/tool@v1"))
    repo.git("add", "-A")
    empty = repo.root.parent / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    git_path = shutil.which("git")
    assert git_path is None
    remote = action_pin.ls_remote(remotes.url, "org", "tool")
    assert remote == "git is not installed"


def test_fix_online_keeps_a_str_tag_and_an_anchor(repo: Repo, run: Run, remotes: Remotes) -> None:
    """``uses: !!str ref`` is the ref GitHub reads: found, pinned after the tag, tag kept."""
    checkout = remotes.action("actions/checkout")
    tool = remotes.action("org/tool")
    setup(repo, base_config(remotes))
    text = steps("!!str actions/checkout@v1", '!!str "org/tool/sub@main"', "&t org/tool@release")
    repo.write(WF, text)
    assert [f["line"] for f in findings(run)] == [7, 8, 9]
    result = run("fix", "--online", "--only", RULE)
    assert result.code == 1, result.out + result.err
    expected = steps(
        f"!!str actions/checkout@{checkout['v1']} # v1.1.0",
        f'!!str "org/tool/sub@{tool["main"]}" # main',
        f"&t org/tool@{tool['release']} # release",
    )
    assert repo.read(WF).decode() == expected
    assert findings(run) == []
