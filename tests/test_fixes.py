# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Fixes as data: ``Edit``, ``Fix`` and the engine's one write path ``apply_fixes``.

Properties (hypothesis): random non-overlapping edits applied equal the manual splice;
an edit overlapping an earlier fix's is left for the next run; a refused fix (or one
whose file changed since it was read) leaves the file byte-identical. Then the converted
fixers through the CLI: mergify-drift and action-pin write through the engine.
"""

from __future__ import annotations

import ast
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policytool.engine.findings import Finding, render_json
from policytool.engine.fixes import Edit, Fix, apply_fixes, overlaps, select, splice
from policytool.engine.registry import repo_rules
from policytool.errors import WriteError
from tests.conftest import Repo, Result

Run = Callable[..., Result]
FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PATH = "pkg/a.txt"
# Text with a BOM-able start, multi-byte characters and every line ending.
TEXTS = st.text(alphabet=st.sampled_from(list("ab \n\r\té€😀#")), max_size=60)
NEWS = st.text(alphabet=st.sampled_from(list("xy\n😀")), max_size=5)


@contextmanager
def no_fsync() -> Iterator[None]:
    """Writes without ``fsync``: the properties are about content."""
    with mock.patch.object(os, "fsync", lambda fd: None):
        yield


@st.composite
def edits_of(draw: st.DrawFn, text: str) -> list[Edit]:
    """Non-overlapping edits of ``text``, in random order."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    out: list[Edit] = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        if out and (out[-1].start == start or out[-1].end > start):
            continue
        out.append(Edit(PATH, start, end, draw(NEWS)))
    return draw(st.permutations(out))


def _manual(text: str, edits: list[Edit]) -> str:
    """The splice written out by hand, from the last edit back to the first."""
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[: edit.start] + edit.new + text[edit.end :]
    return text


def _write(root: Path, data: bytes) -> Path:
    path = root / PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@FAST
@given(TEXTS, st.booleans(), st.data())
def test_apply_fixes_equals_manual_splice(text: str, bom: bool, data: st.DataObject) -> None:
    edits = data.draw(edits_of(text))
    one_fix_each = data.draw(st.booleans())
    fixes = (
        [Fix("e", (e,)) for e in edits]
        if one_fix_each
        else ([Fix("all", tuple(edits))] if edits else [])
    )
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    with tempfile.TemporaryDirectory() as tmp, no_fsync():
        root = Path(tmp)
        path = _write(root, raw)
        applied = apply_fixes(root, fixes)
        expected = _manual(text, edits)
        assert path.read_bytes() == (b"\xef\xbb\xbf" if bom else b"") + expected.encode()
        assert applied.changed == ([PATH] if expected != text else [])
        assert applied.left == [] and applied.refused == []
        assert splice(text, edits) == expected


@FAST
@given(TEXTS, st.data())
def test_overlapping_edits_are_left_for_the_next_run(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    inside = data.draw(st.integers(start, max(start, end - 1)))  # starts within the first
    other_end = data.draw(st.integers(inside, len(text)))
    first = Fix("first", (Edit(PATH, start, end, "1"),))
    second = Fix("second", (Edit(PATH, inside, other_end, "2"),))
    assert overlaps(first.edits[0], second.edits[0])
    with pytest.raises(ValueError, match="overlap"):
        splice(text, [first.edits[0], second.edits[0]])
    with tempfile.TemporaryDirectory() as tmp, no_fsync():
        root = Path(tmp)
        path = _write(root, text.encode())
        applied = apply_fixes(root, [first, second])
        assert applied.left == [second]
        assert path.read_bytes() == _manual(text, [first.edits[0]]).encode()
        # The next run, on the new text, is free to apply what was left.
        assert apply_fixes(root, []).changed == []


@FAST
@given(TEXTS, st.data())
def test_a_refused_fix_leaves_the_file_byte_identical(text: str, data: st.DataObject) -> None:
    edits = data.draw(edits_of(text))
    raw = text.encode()
    refuse = Fix("refused", tuple(edits), lambda old, new: "not only what it should")
    with tempfile.TemporaryDirectory() as tmp, no_fsync():
        root = Path(tmp)
        path = _write(root, raw)
        applied = apply_fixes(root, [refuse] if edits else [])
        assert path.read_bytes() == raw
        assert applied.changed == []
        assert [reason for _fix, reason in applied.refused] == (
            ["not only what it should"] if edits else []
        )


def test_verification_sees_the_text_as_read_and_the_new_text(tmp_path: Path) -> None:
    path = _write(tmp_path, b"key: old\r\nother: 1\r\n")
    seen: list[tuple[str, str]] = []

    def verify(old: str, new: str) -> str | None:
        seen.append((old, new))
        return None

    fix = Fix("rename", (Edit(PATH, 5, 8, "new"),), verify)
    assert apply_fixes(tmp_path, [fix]).changed == [PATH]
    assert seen == [("key: old\r\nother: 1\r\n", "key: new\r\nother: 1\r\n")]
    assert path.read_bytes() == b"key: new\r\nother: 1\r\n"


def test_one_refused_fix_keeps_the_others_of_its_file(tmp_path: Path) -> None:
    path = _write(tmp_path, b"aaaa bbbb cccc")
    good = Fix("good", (Edit(PATH, 0, 4, "AAAA"),))
    bad = Fix("bad", (Edit(PATH, 5, 9, "BBBB"),), lambda old, new: "no")
    applied = apply_fixes(tmp_path, [good, bad])
    assert path.read_bytes() == b"AAAA bbbb cccc"
    assert applied.changed == [PATH] and [f for f, _ in applied.refused] == [bad]


def test_an_edit_past_the_end_is_refused_and_nothing_written(tmp_path: Path) -> None:
    path = _write(tmp_path, b"short")
    applied = apply_fixes(tmp_path, [Fix("far", (Edit(PATH, 2, 99, "x"),))])
    assert path.read_bytes() == b"short" and applied.changed == []
    assert "past the text's end" in applied.refused[0][1]
    with pytest.raises(ValueError, match="not a range"):
        Edit(PATH, 3, 2, "")


def test_writes_stay_inside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_bytes(b"outside")
    root.mkdir()
    (root / "pkg").symlink_to(outside)
    with pytest.raises(WriteError):
        apply_fixes(root, [Fix("x", (Edit(PATH, 0, 7, "changed"),))])
    assert (outside / "a.txt").read_bytes() == b"outside"


def test_edit_between_is_the_differing_middle() -> None:
    assert Edit.between(PATH, "abcXYdef", "abcZdef") == Edit(PATH, 3, 5, "Z")
    assert Edit.between(PATH, "aaa", "aaaa") == Edit(PATH, 3, 3, "a")
    assert Edit.between(PATH, "same", "same") == Edit(PATH, 4, 4, "")
    for old, new in [("", "x"), ("ab", "ba"), ("abab", "ab"), ("x\r\n", "x\n")]:
        edit = Edit.between(PATH, old, new)
        assert splice(old, [edit]) == new


def test_select_keeps_the_first_of_overlapping_fixes() -> None:
    a = Fix("a", (Edit(PATH, 0, 3, "x"),))
    b = Fix("b", (Edit(PATH, 2, 5, "y"),))
    c = Fix("c", (Edit("other", 2, 5, "y"),))
    same_offset_inserts = Fix("d", (Edit(PATH, 7, 7, "1"), Edit(PATH, 7, 7, "2")))
    assert select([a, b, c, same_offset_inserts]) == ([a, c], [b, same_offset_inserts])


def test_a_fix_is_no_part_of_the_findings_identity_or_json() -> None:
    plain = Finding("a.yml", 3, 1, "mergify-drift", "stale", fixable=True)
    carrying = Finding("a.yml", 3, 1, "mergify-drift", "stale", fix=Fix("x", ()))
    assert carrying.fixable and carrying == plain and hash(carrying) == hash(plain)
    assert render_json([carrying]) == render_json([plain])
    assert "fix" not in plain.to_json()


# --- the converted fixers ----------------------------------------------------------------

CONVERTED = ("mergify-drift", "action-pin", "floating-pin", "ci-floating-install")


@pytest.mark.parametrize("rule_id", CONVERTED)
def test_converted_fixers_return_fixes_and_write_nothing(rule_id: str) -> None:
    rule = repo_rules([rule_id])[rule_id]
    # One write path: no repo rule keeps a fixer of its own that writes.
    assert rule.fixes is not None and rule.fixable and not hasattr(rule, "fix")
    module = Path(rule.fixes.__code__.co_filename)
    tree = ast.parse(module.read_text())
    names = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    from_rules = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("policytool.rules")
        for alias in node.names
    }
    assert not names & {"write_atomic", "write", "write_text"}
    # Edits and writes are the engine's: none borrowed from another rule's module.
    assert not from_rules & {"write_sources", "apply_edits", "encode_like", "fixed_text"}


MERGIFY = (
    "pull_request_rules:\n"
    "  - name: comment-pre-commit-failure\n"
    "    conditions: [check-failure=pre-commit]\n"
    "    actions:\n"
    "      comment:\n"
    "        message: |\n"
    "          pre-commit failed\n"
)


def _mergify_root(root: Path) -> Path:
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n"
        "  - {id: mypy, name: mypy, entry: mypy, language: system, stages: [manual]}\n"
    )
    path = root / ".github" / "mergify.yml"
    path.parent.mkdir()
    path.write_bytes(MERGIFY.encode())
    return path


def test_mergify_finding_carries_its_fix_and_the_engine_writes_it(tmp_path: Path) -> None:
    from policytool.config import Config
    from policytool.engine.registry import RepoContext
    from policytool.rules import mergify_drift

    path = _mergify_root(tmp_path)
    ctx = RepoContext(Config(root=tmp_path), [], True)
    found = list(mergify_drift.fixes(ctx))
    assert [f.fixable for f in found] == [True]
    fix = found[0].fix
    assert fix is not None and fix.paths == [".github/mergify.yml"]
    (edit,) = fix.edits
    assert edit.start == edit.end == len(MERGIFY)  # the block is appended: one insert
    assert apply_fixes(tmp_path, [fix]).changed == [".github/mergify.yml"]
    written = path.read_bytes().decode()
    assert written.startswith(MERGIFY) and "policytool:sync begin" in written
    assert list(mergify_drift.fixes(ctx)) == []  # the re-check: nothing left to fix


def test_mergify_fix_of_a_file_changed_since_it_was_read_is_refused(tmp_path: Path) -> None:
    from policytool.config import Config
    from policytool.engine.registry import RepoContext
    from policytool.rules import mergify_drift

    path = _mergify_root(tmp_path)
    ctx = RepoContext(Config(root=tmp_path), [], True)
    (finding,) = mergify_drift.fixes(ctx)
    assert finding.fix is not None
    changed = MERGIFY.replace("pre-commit failed", "pre-commit FAILED")
    path.write_bytes(changed.encode())
    applied = apply_fixes(tmp_path, [finding.fix])
    assert applied.changed == [] and "changed since it was read" in applied.refused[0][1]
    assert path.read_bytes() == changed.encode()


# --- a file the engine may not write ----------------------------------------------------


def _stale_mergify(repo: Repo) -> Path:
    """A repo whose Mergify comment gives no instructions (fixable by appending)."""
    _mergify_root(repo.root)
    repo.commit()
    return repo.root / ".github" / "mergify.yml"


def test_read_only_file_of_a_repo_rule_is_reported_not_fixed(repo: Repo, run: Run) -> None:
    path = _stale_mergify(repo)
    path.chmod(0o444)
    result = run("fix", "--only", "mergify-drift")
    assert result.code == 1 and "fixed" not in result.err
    assert path.read_bytes() == MERGIFY.encode()
    assert oct(path.stat().st_mode & 0o777) == "0o444"
    assert result.out.splitlines()[0].endswith(
        "(not fixed: it is read-only (chmod u+w it to let policytool change it))"
    )
    assert "fixable" not in result.out


def test_symlinked_file_of_a_repo_rule_is_never_written_through(repo: Repo, run: Run) -> None:
    path = _stale_mergify(repo)
    target = repo.root / "real.yml"
    path.rename(target)
    path.symlink_to("../real.yml")
    repo.commit()
    result = run("fix", "--only", "mergify-drift")
    assert path.is_symlink() and target.read_bytes() == MERGIFY.encode()
    assert "fixed" not in result.err
    assert "(not fixed: it is a symlink" in result.out


def test_sync_of_a_read_only_file_is_one_sentence(repo: Repo, run: Run) -> None:
    path = _stale_mergify(repo)
    path.chmod(0o444)
    result = run("sync")
    assert result.code == 2 and path.read_bytes() == MERGIFY.encode()
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    assert "mergify.yml: cannot write: it is read-only" in result.err
