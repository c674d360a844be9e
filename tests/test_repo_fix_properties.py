# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Property tests of the pre-commit fixes and ``sync``: generated configs and messages.

For any config of local hooks (with comments, blank lines, any of LF / CRLF / CR line
endings) the fixes leave a file pre-commit accepts, with the same hooks, every comment,
the same line endings, the final hook last, and a second run changes nothing. For any
Mergify message that gives no instructions, ``sync`` keeps the message as its prefix and
is idempotent.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from policytool.config import Config
from policytool.engine.registry import RepoContext
from policytool.rules import mergify_drift as mergify
from policytool.rules import precommit_default_stages, precommit_final_hook, precommit_manual_only
from policytool.rules._repo_config import CiConfig, PreCommitConfig
from tests.precommit_helpers import comments, precommit_accepts

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NEWLINES = st.sampled_from(["\n", "\r\n", "\r"])
# Words YAML 1.1 (pre-commit's PyYAML) reads as booleans or null: unquoted, `id: on` is
# not a string id, and pre-commit rejects the config.
YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
IDS = st.lists(
    st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True).filter(lambda i: i not in YAML_WORDS),
    min_size=2,
    max_size=6,
    unique=True,
)
COMMENT = st.from_regex(r"[A-Za-z0-9 ,.`-]{0,30}", fullmatch=True)


@st.composite
def configs(draw: st.DrawFn) -> tuple[str, list[str], str]:
    """(config text, hook ids in order, line ending): local hooks, comments, blank lines."""
    ids = draw(IDS)
    newline = draw(NEWLINES)
    indent = draw(st.sampled_from([2, 4]))
    pad = " " * indent
    lines = []
    if draw(st.booleans()):
        lines.append(f"# {draw(COMMENT)}")
    if draw(st.booleans()):
        lines.append("default_stages: [pre-commit]")
    lines += ["repos:", f"{pad}- repo: local", f"{pad}  hooks:"]
    for hook_id in ids:
        if draw(st.booleans()):
            lines.append(f"{pad}    # {draw(COMMENT)}")
        lines += [
            f"{pad}    - id: {hook_id}",
            f"{pad}      name: {hook_id}",
            f"{pad}      entry: echo",
            f"{pad}      language: system",
        ]
        if draw(st.booleans()):
            lines.append("")
    text = newline.join(lines) + (newline if draw(st.booleans()) else "")
    return text, ids, newline


@contextmanager
def no_fsync() -> Iterator[None]:
    """Writes without ``fsync``: the properties are about content, and fsync is most of
    an example's time on a busy disk (durability has its own tests)."""
    with mock.patch.object(os, "fsync", lambda fd: None):
        yield


def _order(text: str) -> list[str]:
    data = YAML().load(text)
    return [str(h["id"]) for r in data["repos"] for h in r["hooks"]]


def _fix_all(root: Path, config: Config) -> None:
    ctx = RepoContext(config, [], True)
    precommit_final_hook.fix_final_hook(ctx)
    precommit_default_stages.fix_default_stages(ctx)
    precommit_manual_only.fix_manual_only(ctx)


@FAST
@given(configs(), st.data())
def test_pre_commit_fixes_keep_everything_but_what_they_fix(
    case: tuple[str, list[str], str], data: st.DataObject
) -> None:
    text, ids, newline = case
    final = data.draw(st.sampled_from(ids))
    manual = data.draw(st.lists(st.sampled_from([i for i in ids if i != final]), max_size=2))
    with tempfile.TemporaryDirectory() as tmp, no_fsync():
        root = Path(tmp)
        path = root / ".pre-commit-config.yaml"
        path.write_bytes(text.encode())
        assert precommit_accepts(path) is None
        config = Config(
            root=root,
            sections=(
                PreCommitConfig(
                    final_hook=final,
                    default_stages=("pre-commit", "manual"),
                    manual_only=tuple(manual),
                ),
            ),
        )
        _fix_all(root, config)
        fixed = path.read_bytes().decode()
        assert precommit_accepts(path) is None, fixed
        assert sorted(_order(fixed)) == sorted(ids)
        assert _order(fixed)[-1] == final
        assert comments(fixed.replace("\r", "\n")) == comments(text.replace("\r", "\n"))
        others = {"\n", "\r\n", "\r"} - {newline}
        body = fixed.replace("\r\n", "\x00") if newline == "\r\n" else fixed
        for other in others:
            if newline == "\r\n":
                assert other not in body
            else:
                assert other not in fixed.replace(newline, "")
        _fix_all(root, config)
        assert path.read_bytes().decode() == fixed  # idempotent


@st.composite
def messages(draw: st.DrawFn) -> tuple[str, str]:
    """(Mergify file, line ending) whose comment gives no instructions."""
    newline = draw(NEWLINES)
    body = draw(st.lists(COMMENT, min_size=1, max_size=5))
    lines = [
        "pull_request_rules:",
        "  - name: comment-pre-commit-failure",
        "    conditions: [check-failure=pre-commit]",
        "    actions:",
        "      comment:",
        "        message: |",
        *[f"          {line.strip()}".rstrip() for line in body],
    ]
    if not body[0].strip():
        lines[6] = "          pre-commit failed"  # a literal block's first line sets its indent
    return newline.join(lines) + newline, newline


@FAST
@given(messages())
def test_sync_appends_once_and_keeps_the_message(case: tuple[str, str]) -> None:
    text, newline = case
    with tempfile.TemporaryDirectory() as tmp, no_fsync():
        root = Path(tmp)
        (root / ".pre-commit-config.yaml").write_text(
            "repos:\n- repo: local\n  hooks:\n"
            "  - {id: mypy, name: mypy, entry: mypy, language: system, stages: [manual]}\n"
        )
        path = root / ".github" / "mergify.yml"
        path.parent.mkdir()
        path.write_bytes(text.encode())
        config = Config(root=root, sections=(CiConfig(skip_reasons={"mypy": "slow"}),))
        result = mergify.sync(config, write_file=True)
        assert result.written
        synced = path.read_bytes().decode()
        assert synced.count("policytool:sync begin") == 1
        # Taking out what sync added (a blank line, the markers, the block) gives the file back.
        lines = synced.split(newline)
        begin = next(i for i, line in enumerate(lines) if "policytool:sync begin" in line)
        end = next(i for i, line in enumerate(lines) if "policytool:sync end" in line)
        assert lines[begin - 1] == ""
        assert newline.join(lines[: begin - 1] + lines[end + 1 :]) == text
        assert (
            all(line.endswith(newline) for line in synced.splitlines(keepends=True))
            or newline == "\r\n"
        )
        again = mergify.sync(config, write_file=True)
        assert not again.written and not again.stale
        assert path.read_bytes().decode() == synced
