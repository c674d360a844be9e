# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The sweep's shortcuts change its cost, never its findings.

The walk enters an expression outside ``async def`` code only when its lines name a
call a pattern looks at (``clone``, ``deepcopy``, ``SimpleNamespace`` or an import
alias of one), import aliases come from the statements whose lines hold ``import``,
held locks are tracked only in async code, and files are parsed in forked workers
(the next chunk read while the first ones parse) with the cyclic collector paused. Each shortcut is checked
here against the full walk, and on the shapes where a text test could miss a node.
"""

from __future__ import annotations

import ast
import gc
import os
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytool.config import Config
from policytool.rules import _kwreads as kwreads
from policytool.rules import _pysource as source
from policytool.sweep import diff
from policytool.sweep import run as sweep_run
from policytool.sweep.diff import ChangedFile
from tests.conftest import Repo
from tests.sweep_fixture import Run, rows

ROOT = Path(__file__).resolve().parent.parent

# Shapes where the pruned walk could lose a node the patterns need.
TRICKY: dict[str, str] = {
    "pkg/alias_copy.py": """\
from copy import deepcopy as dc
import copy as cp


def denoise(x, timesteps):
    out = []
    for t in timesteps:
        out.append(dc(x))
        out.append(cp.deepcopy(x))
        out.append(x.clone())
    return out
""",
    "pkg/nfkc.py": """\
def denoise(x, timesteps):
    for t in timesteps:
        y = x.\uff43\uff4c\uff4f\uff4e\uff45()
    return y  # the bytes say "clone" only here
""",
    "pkg/nested_imports.py": """\
class Server:
    def setup(self):
        if True:
            try:
                from time import (
                    sleep as nap,
                )
            except ImportError:
                nap = None

    async def handle_request(self, x):
        import subprocess as sp
        nap(1)
        sp.run(["true"])
        return x
""",
    "pkg/locks.py": """\
import asyncio
import threading

lock = threading.Lock()


def sync_path(x):
    with lock:
        y = [v.clone() for v in x]
    lock.acquire()
    z = x
    lock.release()
    return y, z


async def generate(self, x):
    async with self._lock:
        def helper():
            return x.clone()
        await asyncio.sleep(0)
    self.mutex.acquire()
    await asyncio.sleep(1)
    self.mutex.release()
    f = lambda: x.clone()
    return [await g for g in x], f
""",
    "pkg/headers.py": """\
import copy


def step(
    x,
    cfg=copy.deepcopy({"sampling": 1}),
):
    return x


def forward(x, steps) -> int:
    return sum(y.clone() for y in steps)


@decorate(copy.deepcopy(1))
def decorated(a, b):
    return a
""",
    "pkg/kw.py": """\
def forward(self, **kwargs):
    key = kwargs.get("runtime_info")
    if "alpha" in kwargs:
        return kwargs["alpha"]
    self._setup(kwargs)
    return key


def _setup(self, cfg):
    return cfg["beta"]
""",
    "pkg/excepts.py": """\
def load_weights(self, path):
    try:
        self.state = open(path).read()
    except (
        ValueError,
        Exception,
    ):
        return None
""",
    "tests/test_fakes.py": """\
from types import SimpleNamespace as NS
import types


class Config:
    model: str
    dtype: str


def test_fake():
    cfg = NS(model="m", dtype="d")
    other = types.SimpleNamespace(a=1)
    return [cfg, other, [x.clone() for x in []]]
""",
}


def _full_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn the text shortcuts off: every expression is walked, every statement is
    searched for imports (the walk before the shortcuts)."""

    def every_line(self: source.SourceInfo) -> list[int] | None:
        return None

    def every_statement(body: list[ast.stmt], data: bytes) -> Iterator[ast.stmt]:
        return kwreads.statements(body)

    monkeypatch.setattr(source.SourceInfo, "_call_lines", every_line)
    monkeypatch.setattr(source, "_import_statements", every_statement)


def _sweep_files(files: dict[str, bytes], every: int) -> list[tuple[object, ...]]:
    """("finding", path, line, col, rule, message), ("use", ...) for each key use and
    ("reads", path, keys) of the sweep rules over ``files``, every ``every``-th line
    added (1: whole files)."""
    rules = sweep_run.sweep_rules()
    out: list[tuple[object, ...]] = []
    for path, data in sorted(files.items()):
        lines = data.count(b"\n") + 1
        added = frozenset(range(1, lines + 1, every))
        changed = ChangedFile(path, added, whole=every == 1)
        findings, uses, reads = sweep_run.sweep_file(ROOT, changed, data, rules, Config(), None)
        out.extend(
            ("finding", f.path, f.line, f.col, f.rule, f"{f.severity.value}: {f.message}")
            for f in findings
        )
        out.extend(("use", u.path, u.line, u.col, u.key, u.text) for u in uses)
        out.append(("reads", path, tuple(sorted(reads or ()))))
    return out


def _corpus() -> dict[str, bytes]:
    """The tricky shapes and this repository's own Python code (real, varied)."""
    files = {path: text.encode() for path, text in TRICKY.items()}
    files["pkg/cr_only.py"] = TRICKY["pkg/alias_copy.py"].replace("\n", "\r").encode()
    files["pkg/latin1.py"] = (
        b"# -*- coding: latin-1 -*-\n"
        b"def denoise(x, steps):\n"
        b"    for s in steps:\n"
        b"        y = x.cl\xbane()\n"  # U+00BA normalizes to "o": the call is x.clone()
        b"    return y  # the bytes say clone only here\n"
    )
    for path in sorted((ROOT / "policytool").rglob("*.py")) + sorted(
        (ROOT / "tests").glob("test_sweep*.py")
    ):
        files[str(path.relative_to(ROOT))] = path.read_bytes()
    return files


# Slow: it sweeps this repository's whole package and sweep tests twice (pruned and
# full), which grows with every rule (27 s and 16 s on two cores at round AL); CI runs it
# once, in the `network or slow` run, not once per Python.
@pytest.mark.slow
@pytest.mark.parametrize("every", [1, 3])
def test_the_pruned_walk_finds_what_the_full_walk_finds(
    monkeypatch: pytest.MonkeyPatch, every: int
) -> None:
    files = _corpus()
    pruned = _sweep_files(files, every)
    with monkeypatch.context() as patch:
        _full_walk(patch)
        full = _sweep_files(files, every)
    assert pruned == full
    rules = {row[4] for row in pruned if row[0] == "finding"}
    assert {"hot-copy", "async-blocking", "any-annotation", "broad-except"} <= rules
    assert any(row[0] == "use" for row in pruned)


def _rows(files: dict[str, bytes]) -> list[tuple[int, str, str]]:
    """(line, rule, message) of each whole-file finding."""
    return [
        (int(str(row[2])), str(row[4]), str(row[5]))
        for row in _sweep_files(files, 1)
        if row[0] == "finding"
    ]


def test_a_copy_through_an_import_alias_is_still_seen() -> None:
    found = _rows({"pkg/alias_copy.py": TRICKY["pkg/alias_copy.py"].encode()})
    hot = sorted((line, msg.split("`")[1]) for line, rule, msg in found if rule == "hot-copy")
    assert hot == [(8, "dc(x)"), (9, "cp.deepcopy(x)"), (10, "x.clone()")]


def test_a_call_named_with_normalized_unicode_letters_is_still_seen() -> None:
    """The parser NFKC-normalizes identifiers: ｃｌｏｎｅ is clone, and so is cl\\xbane
    in a latin-1 file."""
    found = _rows({"pkg/nfkc.py": TRICKY["pkg/nfkc.py"].encode()})
    assert [(line, rule) for line, rule, _msg in found if rule == "hot-copy"] == [(3, "hot-copy")]
    latin = _corpus()["pkg/latin1.py"]
    found = _rows({"pkg/latin1.py": latin})
    assert [(line, rule) for line, rule, _msg in found if rule == "hot-copy"] == [(4, "hot-copy")]


def test_lines_ended_by_a_lone_carriage_return_are_still_counted_right() -> None:
    data = TRICKY["pkg/alias_copy.py"].replace("\n", "\r").encode()
    found = _rows({"pkg/cr_only.py": data})
    assert sorted(line for line, rule, _msg in found if rule == "hot-copy") == [8, 9, 10]


def test_imports_nested_in_functions_and_multiline_statements_give_aliases() -> None:
    found = _rows({"pkg/engine/nested_imports.py": TRICKY["pkg/nested_imports.py"].encode()})
    blocking = sorted((line, msg) for line, rule, msg in found if rule == "async-blocking")
    assert [line for line, _msg in blocking] == [13, 14]
    assert "`time.sleep`" in blocking[0][1] and "`subprocess.run`" in blocking[1][1]


def test_locks_count_only_in_async_code_and_stop_at_a_nested_def() -> None:
    found = _rows({"pkg/locks.py": TRICKY["pkg/locks.py"].encode()})
    held = sorted(
        (line, msg) for line, rule, msg in found if rule == "async-blocking" and "held" in msg
    )
    assert [(line, msg.split("`")[1]) for line, msg in held] == [
        (17, "self._lock"),
        (21, "self.mutex"),
    ]
    assert "(line 20)" in held[0][1] and "(line 22)" in held[1][1]


def test_a_simple_namespace_alias_in_a_test_is_still_seen() -> None:
    found = _rows({"tests/test_fakes.py": TRICKY["tests/test_fakes.py"].encode()})
    fakes = sorted((line, rule) for line, rule, _msg in found if rule == "any-annotation")
    assert fakes == [(11, "any-annotation"), (12, "any-annotation")]


def test_import_statements_keeps_the_order_of_the_full_walk() -> None:
    data = TRICKY["pkg/nested_imports.py"].encode() + b"import os as nap\n"
    tree = ast.parse(data)
    imports = (ast.Import, ast.ImportFrom)
    full = [n for n in kwreads.statements(tree.body) if isinstance(n, imports)]
    pruned = [n for n in source._import_statements(tree.body, data) if isinstance(n, imports)]
    assert pruned == full and len(full) == 3
    assert source.lines_holding(b"a\nimport x\n\nimportant\n", [b"import"]) == [2, 4]
    assert source.lines_holding(b"no imports here\n", [b"nope"]) == []


# -- workers ---------------------------------------------------------------------------


def test_forked_workers_give_the_findings_of_one_process_in_every_chunking(
    feature: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path, text in TRICKY.items():
        feature.write(path.replace("pkg/", "pkg/engine/"), text)
    for i in range(5):
        feature.write(f"pkg/p{i}.py", f"def f{i}(a, **kwargs):\n    return kwargs.get('k')\n")
    feature.commit("change")
    args = ("--base", "main", "--head", "feature")
    monkeypatch.setattr(sweep_run, "PARALLEL_FILES", 10_000)
    monkeypatch.setattr(sweep_run, "PARALLEL_BYTES", 10**9)
    serial = rows(run, *args)
    assert len(serial) > 20
    monkeypatch.setattr(sweep_run, "PARALLEL_FILES", 1)
    for per_worker in (1, 8, 100):  # fewer chunks than files, and more
        monkeypatch.setattr(sweep_run, "CHUNKS_PER_WORKER", per_worker)
        assert rows(run, *args, "--jobs", "2") == serial
    assert rows(run, *args, "--jobs", "1") == serial
    assert gc.isenabled()


def test_the_collector_is_paused_only_while_files_are_swept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[bool] = []
    real = sweep_run.sweep_file

    def spy(*args: object) -> sweep_run.FileResult:
        seen.append(gc.isenabled())
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(sweep_run, "sweep_file", spy)
    work = [(ChangedFile("a.py", frozenset({1})), b"x = 1\n")]
    assert gc.isenabled()
    sweep_run._sweep_chunk(ROOT, work, Config(), None)
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        sweep_run._sweep_chunk(ROOT, work, Config(), None)
        assert not gc.isenabled()  # a caller's choice is left alone
    finally:
        gc.enable()


# -- the patch -------------------------------------------------------------------------


def _reference_parse_patch(patch: bytes) -> diff.Change:
    """The line-by-line parser ``parse_patch`` replaced: the cut at headers must give
    exactly what it gave."""
    change = diff.Change()
    path: str | None = None
    old_path: str | None = None
    added: set[int] = set()
    replaced: list[tuple[int, int, bytes]] = []
    removed: list[bytes] = []
    hunk: tuple[int, int] | None = None
    in_header = False

    def close_hunk() -> None:
        if hunk is not None and removed and hunk[1] >= hunk[0]:
            replaced.append((hunk[0], hunk[1], b"\n".join(removed)))
        removed.clear()

    def flush() -> None:
        close_hunk()
        if path is not None and added:
            moved = old_path if old_path != path else None
            change.files.append(
                ChangedFile(path, frozenset(added), moved, replaced=tuple(replaced))
            )

    for line in patch.split(b"\n"):
        if line.startswith(b"diff --git "):
            flush()
            path, old_path, added, in_header = None, None, set(), True
            replaced, hunk = [], None
        elif in_header and line.startswith(b"--- "):
            old_path = diff._header_path(line, b"a/")
            change.touched.update([old_path] if old_path else [])
        elif in_header and line.startswith(b"+++ "):
            path = diff._header_path(line, b"b/")
            change.touched.update([path] if path else [])
        elif in_header and line.startswith((b"rename from ", b"rename to ")):
            change.touched.add(diff.unquote_path(line.split(b" ", 2)[2]))
        elif line.startswith(b"@@"):
            in_header = False
            close_hunk()
            match = diff._HUNK_RE.match(line)
            if match and path is not None:
                start = int(match.group(1))
                count = int(match.group(2)) if match.group(2) is not None else 1
                added.update(range(start, start + count))
                hunk = (start, start + count - 1)
        elif not in_header and line.startswith(b"-"):
            removed.append(line[1:])
    flush()
    return change


_HEADERS = st.sampled_from(
    [
        b"--- a/x.py",
        b"--- /dev/null",
        b"+++ b/x.py",
        b"+++ b/z.py",
        b"+++ /dev/null",
        b"rename from y.py",
        b"rename to z.py",
        b"index 1234567..89abcde 100644",
        b"deleted file mode 100644",
    ]
)
_HUNK_HEADERS = st.sampled_from(
    [
        b"@@ -3 +3 @@",
        b"@@ -1,2 +0,0 @@",
        b"@@ -0,0 +1,4 @@ def f():",
        b"@@ -5,2 +7,3 @@",
        b"@@ broken @@",
        b"@@@ -1 -1 +1,2 @@@",
    ]
)
_BODY = st.sampled_from(
    [
        b"-old line",
        b"--- not a header",
        b"-@@ -1 +1 @@",
        b"-",
        b"+new line",
        b"++++ b/fake.py",
        b"+diff --git a/fake.py b/fake.py",
        b"+@@ -1 +99 @@",
        b" context",
        b"\\ No newline at end of file",
        b"-with\rcarriage",
        b"",
    ]
)
_HUNKS = st.tuples(_HUNK_HEADERS, st.lists(_BODY, max_size=4)).map(lambda h: [h[0], *h[1]])
_FILES = st.tuples(
    st.sampled_from([b"diff --git a/x.py b/x.py", b"diff --git a/y.py b/z.py"]),
    st.lists(_HEADERS, max_size=4),
    st.lists(_HUNKS, max_size=3),
).map(lambda f: [f[0], *f[1], *(line for hunk in f[2] for line in hunk)])
# Whole files, and now and then a line out of place (a patch cut short, junk before it).
_PATCH_LINES = st.lists(
    st.one_of(_FILES, st.lists(st.one_of(_HEADERS, _HUNK_HEADERS, _BODY), max_size=2)),
    max_size=6,
).map(lambda parts: [line for part in parts for line in part])


@settings(max_examples=300, deadline=None)
@given(_PATCH_LINES, st.booleans())
def test_parse_patch_cuts_at_headers_as_the_line_parser_did(
    lines: list[bytes], newline: bool
) -> None:
    patch = b"\n".join(lines) + (b"\n" if newline else b"")
    new, old = diff.parse_patch(patch), _reference_parse_patch(patch)
    assert new.files == old.files and new.touched == old.touched


# -- reading the head ------------------------------------------------------------------


def test_head_files_lists_regular_files_with_their_sizes_in_each_head(feature: Repo) -> None:
    feature.write("pkg/a.py", "x = 1\n")
    feature.write("pkg/b.py", "y = 22\n")
    feature.commit("two files")
    os.symlink("a.py", feature.root / "pkg" / "link.py")
    feature.git("add", "pkg/link.py")
    feature.write("pkg/b.py", "y = 333\n")  # the worktree differs from the index
    sha = feature.git("rev-parse", "HEAD").strip()
    paths = ["pkg/a.py", "pkg/b.py", "pkg/link.py", "pkg/none.py"]
    heads = {
        diff.HeadKind.REV: (diff.Head(diff.HeadKind.REV, "HEAD", sha), 7),
        diff.HeadKind.STAGED: (diff.Head(diff.HeadKind.STAGED), 7),
        diff.HeadKind.WORKTREE: (diff.Head(), 8),
    }
    for head, b_size in heads.values():
        files = diff.HeadFiles(feature.root, head, paths)
        assert files.sizes == {"pkg/a.py": 6, "pkg/b.py": b_size}, head
        read = files.read(paths)
        assert read["pkg/a.py"] == b"x = 1\n" and read["pkg/link.py"] is None
        assert read["pkg/none.py"] is None and len(read["pkg/b.py"] or b"") == b_size
    assert diff.read_head(feature.root, heads[diff.HeadKind.REV][0], []) == {}


@pytest.mark.parametrize("parallel", [False, True])
def test_a_file_gone_between_listing_and_reading_is_not_swept(
    feature: Repo, run: Run, monkeypatch: pytest.MonkeyPatch, parallel: bool
) -> None:
    for name in ("a", "b", "c"):
        feature.write(f"pkg/{name}.py", "def f(a):\n    return a\n")
    if parallel:
        monkeypatch.setattr(sweep_run, "PARALLEL_FILES", 1)
    real = diff.HeadFiles.read

    def read(self: diff.HeadFiles, paths: Sequence[str]) -> dict[str, bytes | None]:
        (feature.root / "pkg" / "b.py").unlink(missing_ok=True)
        return real(self, paths)

    monkeypatch.setattr(diff.HeadFiles, "read", read)
    assert sorted(r[0] for r in rows(run, "--jobs", "2")) == ["pkg/a.py", "pkg/c.py"]
    result = run("sweep", "--fail-on", "never")
    assert "2 Python files changed" in result.out


def test_a_swept_file_frees_its_syntax_tree_while_the_collector_is_paused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chunk pauses the cyclic collector, so anything a rule's helper keeps in the
    file's cache that points back at the file (a reference cycle) would keep its syntax
    tree alive until the chunk ends: a release diff's thousands of trees at once."""
    trees: list[weakref.ref[ast.Module]] = []
    parse = ast.parse

    def recording_parse(*args: object, **kwargs: object) -> ast.Module:
        tree = parse(*args, **kwargs)  # type: ignore[call-overload]
        assert isinstance(tree, ast.Module)
        trees.append(weakref.ref(tree))
        return tree

    monkeypatch.setattr(ast, "parse", recording_parse)
    data = (
        b"from pkg.config import ModelConfig\n\n\n"
        b"def load(config: ModelConfig = None, steps: int = None) -> int:\n"
        b"    if config is None:\n"
        b"        return 0\n"
        b"    return steps\n"
    )
    changed = ChangedFile("pkg/loader.py", frozenset(range(1, 8)), whole=True)
    rules = sweep_run.sweep_rules()
    paused = gc.isenabled()
    gc.disable()
    try:
        findings, _uses, _reads = sweep_run.sweep_file(ROOT, changed, data, rules, Config(), None)
        alive = [tree for ref in trees if (tree := ref()) is not None]
    finally:
        if paused:
            gc.enable()
    assert any(f.rule == "any-annotation" for f in findings)  # the annotation helpers ran
    assert trees and not alive


def test_one_module_finder_per_work_tree_and_sys_path_is_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules that look modules up share one finder per work tree: a module found
    for one is not looked up again for another. Another ``sys.path`` is another finder
    (it can find other modules), and the kept finders are bounded."""
    from policytool.rules import _fakes as fakes

    first = fakes.finder_for(str(tmp_path))
    assert fakes.finder_for(str(tmp_path)) is first
    monkeypatch.syspath_prepend(str(tmp_path / "elsewhere"))
    assert fakes.finder_for(str(tmp_path)) is not first
    for i in range(fakes.MAX_FINDERS + 2):
        fakes.finder_for(str(tmp_path / f"tree{i}"))
    assert len(fakes._FINDERS) <= fakes.MAX_FINDERS


def test_a_test_files_second_tier_is_read_once_whoever_asks_first(tmp_path: Path) -> None:
    """The modules a test's imports import (the second tier) are read on the first ask,
    by any reading, and kept: no reading sees an empty tier because another one has not
    run yet (three readings used to read the kept tier without filling it)."""
    from policytool.rules import _fakes as fakes

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "engine.py").write_text("from pkg.config import EngineConfig\n")
    (tmp_path / "pkg" / "config.py").write_text("class EngineConfig:\n    size: int\n")
    finder = fakes.Finder(str(tmp_path))
    assert finder.second == {}
    tier = finder.second_tier(["pkg.engine"])
    assert tier == ["pkg.config"]
    assert finder.second_tier(["pkg.engine"]) is tier
