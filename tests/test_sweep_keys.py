# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The kwargs cross-file key check: base maps, blob cache, touched files; and diff parsing."""

from __future__ import annotations

import json
import os

import pytest

from policytool.sweep.diff import parse_patch, unquote_path
from policytool.sweep.keys import BASE_PREFIX, BLOB_CACHE, BlobKeys, scan
from tests.conftest import Repo
from tests.sweep_fixture import Run

READER = "def r(**kwargs: object) -> object:\n    return kwargs['{key}']\n"


def severities(run: Run, *args: str) -> list[tuple[str, int, str]]:
    """(path, line, severity) of each finding; a ⚠ for a key another base file read
    (the index found it: not a new key, so not ✗) is "known"."""
    result = run("sweep", "--format", "json", "--fail-on", "never", *args)
    assert result.code == 0, result.err
    return [
        (
            f["path"],
            f["line"],
            "known" if "read it from kwargs before the change" in f["message"] else f["severity"],
        )
        for f in json.loads(result.out)
    ]


@pytest.fixture
def keyed(repo: Repo) -> Repo:
    """main: pkg/old.py reads kwargs['shared']; feature: pkg/new.py reads it too."""
    repo.write("pkg/old.py", READER.format(key="shared"))
    repo.write("pkg/other.py", READER.format(key="other"))
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("pkg/new.py", READER.format(key="shared"))
    return repo


def test_base_map_is_cached_and_reused(keyed: Repo, run: Run) -> None:
    assert severities(run) == [("pkg/new.py", 2, "known")]
    cache = keyed.root / ".git" / "policytool-sweep"
    maps = list(cache.glob(f"{BASE_PREFIX}*"))
    assert len(maps) == 1 and (cache / BLOB_CACHE).is_file()
    assert "shared\tR:pkg/old.py" in maps[0].read_text()
    before = maps[0].stat().st_mtime_ns
    assert severities(run) == [("pkg/new.py", 2, "known")]
    assert maps[0].stat().st_mtime_ns == before  # read, not recomputed


def test_caches_of_an_older_format_are_dropped(keyed: Repo, run: Run) -> None:
    """A scan that reads more (a key on the line after its bracket) makes a new format:
    the maps and blob cache an older version wrote are removed, not left to grow."""
    cache = keyed.root / ".git" / "policytool-sweep"
    cache.mkdir(parents=True, exist_ok=True)
    older = [cache / "base-keys.v6-0123abcd", cache / "blob-keys.v6"]
    for path in older:
        path.write_text("#policytool-sweep-base-keys v6 0123abcd 0\n")
    assert severities(run) == [("pkg/new.py", 2, "known")]
    assert not any(path.exists() for path in older)
    assert (cache / BLOB_CACHE).is_file() and list(cache.glob(f"{BASE_PREFIX}*"))


def test_corrupt_or_missing_caches_give_the_same_answer(keyed: Repo, run: Run) -> None:
    assert severities(run) == [("pkg/new.py", 2, "known")]
    cache = keyed.root / ".git" / "policytool-sweep"
    for path in cache.iterdir():
        path.write_bytes(b"\xff\x00garbage\tR\n\tC:x\n")
    assert severities(run) == [("pkg/new.py", 2, "known")]
    # A truncated map (header says more keys than it holds) is recomputed too.
    (base_map,) = cache.glob(f"{BASE_PREFIX}*")
    text = base_map.read_text()
    assert text.startswith("#policytool-sweep-base-keys v8 ")
    base_map.write_text("\n".join(text.splitlines()[:1]) + "\n")
    assert severities(run) == [("pkg/new.py", 2, "known")]


def test_unwritable_cache_dir_still_answers(keyed: Repo, run: Run) -> None:
    (keyed.root / ".git" / "policytool-sweep").write_text("a file where the cache dir should be")
    assert severities(run) == [("pkg/new.py", 2, "known")]


def test_moved_base_recomputes_its_map(keyed: Repo, run: Run) -> None:
    assert severities(run) == [("pkg/new.py", 2, "known")]
    (keyed.root / "pkg/new.py").unlink()
    keyed.git("checkout", "-q", "main")
    keyed.write("pkg/old.py", READER.format(key="renamed"))
    keyed.commit("main drops the shared key")
    keyed.git("checkout", "-q", "feature")
    keyed.git("rebase", "-q", "main")
    keyed.write("pkg/new.py", READER.format(key="shared"))
    # The base is now main's new commit, where nobody else reads 'shared'.
    assert severities(run) == [("pkg/new.py", 2, "warning")]
    assert len(list((keyed.root / ".git" / "policytool-sweep").glob(f"{BASE_PREFIX}*"))) == 2


def test_a_file_the_change_edits_counts_with_its_head_content(keyed: Repo, run: Run) -> None:
    # The change also rewrites pkg/old.py so it no longer reads 'shared' (a pure deletion
    # there); new.py's read is a line of its own (the same line would be a move).
    keyed.write(
        "pkg/new.py", READER.format(key="shared").replace("return kwargs", "return 0 or kwargs")
    )
    keyed.write("pkg/old.py", "def r() -> None:\n    pass\n")
    assert severities(run) == [("pkg/new.py", 2, "warning")]
    # Deleting it altogether: same.
    (keyed.root / "pkg/old.py").unlink()
    assert severities(run) == [("pkg/new.py", 2, "warning")]
    # Adding the key to another old file via the change makes it blocking again.
    keyed.write(
        "pkg/other.py",
        READER.format(key="other")
        + "\n\n"
        + READER.format(key="shared").replace("def r", "def r2"),
    )
    found = severities(run)
    assert ("pkg/new.py", 2, "known") in found


def test_renamed_reader_keeps_the_key_known_under_its_base_path(keyed: Repo, run: Run) -> None:
    keyed.git("mv", "pkg/old.py", "pkg/moved.py")
    result = run("sweep", "--format", "json", "--fail-on", "never")
    messages = [f["message"] for f in json.loads(result.out) if f["path"] == "pkg/new.py"]
    assert len(messages) == 1 and "pkg/old.py read it from kwargs before" in messages[0]


def test_scan_finds_reads_of_real_kwargs_dicts_and_constants_not_lookalikes() -> None:
    found = scan(
        b'KEY = "const_key"  # shared\n'
        b"def f(x, **kw):\n"
        b"    a = kw['one']\n"
        b'    b = kw.pop("two", 1)\n'
        b'    c = "three" not in kw\n'
        b'    kw["written"] = 1\n'  # a write, not a read
        b'    kw.setdefault("defaulted", 2)\n'  # a write too
        b"    helper(kw)\n"
        b"def helper(options):\n"  # the dict passed on whole: its reads count
        b'    return options["passed"]\n'
        b"def g(gen_kwargs):\n"  # a name with `kw` in it is not a kwargs dict
        b'    return gen_kwargs["prompt"], kwargs.get("free")\n'
        b"def plain(kwargs: dict[str, object]):\n"  # the dict passed on as `kwargs: dict`
        b'    return kwargs["plain_key"]\n'
        b"    lower = 'x'\n"
    )
    assert found.reads == {"one", "two", "three", "passed", "plain_key"}
    assert found.constants == (("const_key", 1),)
    # ... but the repository read "prompt" by key: from a local ``*_kwargs`` dict.
    assert found.local == {"prompt"}
    later = scan(
        b"import os\n\nA_KEY: str = 'a_key'\nB = 'b_key'  # note\n  C = 'indented'\nD = \"last\""
    )
    assert later.constants == (("a_key", 3), ("b_key", 4), ("last", 6))
    assert BlobKeys.decode(found.encode()) == found
    assert BlobKeys.decode(later.encode()) == later
    # A cache line with a non-ASCII digit ("²" passes str.isdigit) is skipped, not a crash.
    assert BlobKeys.decode("C\u00b2:k\tR:r") == BlobKeys(frozenset({"r"}), ())
    # A key on the line after the bracket (black's layout of a read with a long default)
    # is read, as the AST reads it.
    wrapped = scan(
        b"def f(**kwargs):\n"
        b"    n = kwargs.get(\n"
        b'        "max_num_patches",\n'
        b"        max(a * b, c),\n"
        b"    )\n"
        b"    return n, kwargs[\n        'dim'\n    ]\n"
    )
    assert wrapped.reads == {"max_num_patches", "dim"}
    # A file that passes a dict on is parsed; when it does not parse, it reads nothing.
    assert scan(b"def f(**kw):\n    g(kw)\n    return kw['x'] +\n") == BlobKeys()


def test_scan_reads_keys_of_local_kwargs_dicts_apart() -> None:
    """``fn_kwargs["k"]`` / ``self.model_kwargs.get("k")`` are keys the repository read
    (fms-hf-tuning's ``fn_kwargs = handler.arguments["fn_kwargs"]``); a write, a bare
    ``kwargs`` local and a name that only ends in ``kwargs`` are not."""
    found = scan(
        b"def run(handler):\n"
        b'    fn_kwargs = handler.arguments["fn_kwargs"]\n'
        b'    columns = fn_kwargs["column_names"]\n'
        b'    fn_kwargs["written"] = 1\n'
        b'    fn_kwargs["compared"] == 1\n'
        b'    n = self.model_kwargs.get(\n        "max_len", 4)\n'
        b'    m = gen_kwargs.pop("seed", None)\n'
        b'    k = kwargs["bare"]\n'
        b'    j = mykwargs["joined"]\n'
    )
    assert found.reads == frozenset()
    assert found.local == {"column_names", "compared", "max_len", "seed"}
    assert BlobKeys.decode(found.encode()) == found


def test_a_key_a_local_kwargs_dict_read_before_is_not_new(repo: Repo, run: Run) -> None:
    """fms-hf-tuning 2f379f10: two new handlers read ``kwargs["column_names"]``, which
    the base read as ``fn_kwargs["column_names"]``: the key is the repository's, so the
    two reads are ⚠ (not the ✗ of a new key read in two files)."""
    repo.write(
        "tuning/processors.py",
        "def execute(handler: Handler) -> list[str]:\n"
        '    fn_kwargs = handler.arguments["fn_kwargs"]\n'
        '    return fn_kwargs["column_names"]\n',
    )
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    reader = (
        "def {name}(element: object, **kwargs: object) -> object:\n    return kwargs['{key}']\n"
    )
    repo.write("tuning/handlers.py", reader.format(name="select", key="column_names"))
    repo.write("tuning/more.py", reader.format(name="remove", key="column_names"))
    assert severities(run) == [("tuning/handlers.py", 2, "known"), ("tuning/more.py", 2, "known")]
    # A key no file read before, read in both: the ✗.
    repo.write("tuning/handlers.py", reader.format(name="select", key="fresh_key"))
    repo.write("tuning/more.py", reader.format(name="remove", key="fresh_key"))
    assert severities(run) == [("tuning/handlers.py", 2, "error"), ("tuning/more.py", 2, "error")]


def test_unquote_path() -> None:
    assert unquote_path(b'"tab\\there.py"') == "tab\there.py"
    assert unquote_path(b'"\\303\\251.py"') == "é.py"
    assert unquote_path(b'"quo\\"te.py"') == 'quo"te.py'
    assert unquote_path(b"plain.py") == "plain.py"


def test_parse_patch_added_lines_renames_and_deletions() -> None:
    patch = (
        b"diff --git a/old.py b/new.py\n"
        b"similarity index 80%\nrename from old.py\nrename to new.py\n"
        b"--- a/old.py\n+++ b/new.py\n"
        b"@@ -3 +3 @@\n-a\n+b\n@@ -8,0 +9,2 @@\n+c\n+d\n"
        b"diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n"
        b"--- a/gone.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n--- not a header\n-x\n"
        b"diff --git a/pure.py b/moved.py\nsimilarity index 100%\n"
        b"rename from pure.py\nrename to moved.py\n"
        b"diff --git a/sp ace.py b/sp ace.py\n--- a/sp ace.py\t\n+++ b/sp ace.py\t\n"
        b"@@ -1,0 +2 @@\n+++ added\n"
    )
    change = parse_patch(patch)
    assert [(f.path, sorted(f.added), f.old_path) for f in change.files] == [
        ("new.py", [3, 9, 10], "old.py"),
        ("sp ace.py", [2], None),
    ]
    assert change.touched == {"old.py", "new.py", "gone.py", "pure.py", "moved.py", "sp ace.py"}


def test_hash_inside_a_string_is_not_a_comment(repo: Repo, run: Run) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write(
        "b.py",
        "def denoise(xs: list[object]) -> list[object]:\n    out = []\n    for x in xs:\n"
        "        out.append((x.clone(), '#'))\n"
        "    for x in xs:\n        # a real comment\n        out.append(x.clone())\n"
        "    for x in xs:\n        out.append(x.clone())  # kept: x is reused\n    return out\n",
    )
    assert severities(run) == [("b.py", 4, "error"), ("b.py", 7, "warning"), ("b.py", 9, "warning")]


def test_worktree_symlink_and_unreadable_files_do_not_crash(repo: Repo, run: Run) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    os.symlink("missing-target.py", repo.root / "dangling.py")
    assert severities(run) == []


# -- hostile inputs (issue: never a traceback, never a wrong file) ---------------------


def test_a_1200_term_expression_is_swept_without_recursion_error(repo: Repo, run: Run) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    terms = " + ".join(["a"] * 1200)
    deep = "(" * 150 + "a" + ")" * 150
    repo.write(
        "b.py",
        f"def f(a):\n    return {terms}\n\n\ndef g(a):\n    return {deep}.clone()\n"
        f"\n\nasync def h(lock, a):\n    with lock:\n        await ({terms})\n",
    )
    result = run("sweep", "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    assert "Traceback" not in result.err and "RecursionError" not in result.out
    found = {(f["line"], f["rule"]) for f in json.loads(result.out)}
    assert (1, "any-annotation") in found and (10, "async-blocking") in found


def test_a_file_name_with_a_newline_cannot_desync_the_blob_reads(repo: Repo, run: Run) -> None:
    """`a\\nHEAD:base.py` used to be read as two requests by `git cat-file --batch`."""
    repo.write("base.py", "x = 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    swallow = (
        "def validate_config():\n    try:\n        pass\n    except Exception:\n        pass\n"
    )
    repo.write("a\nHEAD:base.py", "y = 2\n")
    repo.write("base.py", "x = 1\n" + swallow)
    repo.write("z.py", swallow)
    repo.commit("hostile name")
    for args in (("--head", "HEAD"), ("--staged",)):
        result = run("sweep", "--format", "json", *args)
        assert result.code == 1, result.err
        found = {(f["path"], f["line"], f["severity"]) for f in json.loads(result.out)}
        assert ("base.py", 5, "error") in found and ("z.py", 4, "error") in found


@pytest.mark.parametrize(
    "garbage",
    [
        b"\xff\xfe\x00garbage\n",
        b"0123456789abcdef0123456789abcdef01234567\tC\xc2\xb2:k\tR:r\n",  # '²' passes isdigit
        b"0123456789abcdef0123456789abcdef01234567\t\xff\xfe\n",
    ],
)
def test_a_corrupt_cache_is_discarded_without_traceback(
    keyed: Repo, run: Run, garbage: bytes
) -> None:
    assert severities(run) == [("pkg/new.py", 2, "known")]
    cache = keyed.root / ".git" / "policytool-sweep"
    (cache / BLOB_CACHE).write_bytes(garbage)
    for base_map in cache.glob(f"{BASE_PREFIX}*"):
        base_map.unlink()  # force a rebuild from the corrupt blob cache
    result = run("sweep", "--format", "json", "--fail-on", "never")
    assert result.code == 0 and "Traceback" not in result.err, result.err
    assert [(f["path"], f["severity"]) for f in json.loads(result.out)] == [
        ("pkg/new.py", "warning")
    ]
    # And a base map whose header is right but whose body is not UTF-8.
    (base_map,) = cache.glob(f"{BASE_PREFIX}*")
    header = base_map.read_bytes().split(b"\n", 1)[0]
    count = int(header.rsplit(b" ", 1)[1])
    base_map.write_bytes(header + b"\n" + b"shared\tR:\xff\n" * count)
    assert run("sweep", "--fail-on", "never").code == 0


def test_the_base_map_scanned_in_worker_processes_is_the_same(
    keyed: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policytool.sweep import keys

    for i in range(6):
        keyed.write(f"pkg/extra{i}.py", READER.format(key=f"k{i}"))
    serial = severities(run)
    cache = keyed.root / ".git" / "policytool-sweep"
    base_map = next(cache.glob(f"{BASE_PREFIX}*")).read_bytes()
    for path in cache.iterdir():
        path.unlink()
    monkeypatch.setattr(keys, "PARALLEL_BLOBS", 1)
    assert (
        severities(run)
        == serial
        == [(f"pkg/extra{i}.py", 2, "warning") for i in range(6)] + [("pkg/new.py", 2, "known")]
    )
    assert next(cache.glob(f"{BASE_PREFIX}*")).read_bytes() == base_map
