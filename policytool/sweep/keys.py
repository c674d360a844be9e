# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Where else a ``**kwargs`` string key is read, at a cost that follows the diff.

"Is this new key also read from kwargs in another file?" is a repo-wide question. A
``git grep`` answers it by reading every file on every run (2.3 s on a 56k-file tree).
Here the answer for the *base* commit is computed once and kept, as key -> files, in
``<git-common-dir>/policytool-sweep/``; a run takes the base's map, drops the files the
change touches (``git diff --name-only``) and scans those files' head contents instead.
Computing a base map scans each Python blob once by content hash (a blob cache kept
next to it), so a moved base only scans the blobs it has not seen. The caches are an
optimization only: missing, corrupt or unwritable caches give the same answers, slower.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from policytool.core.atomic import write_atomic
from policytool.core.git import cat_blobs, run_git
from policytool.core.text import PYTHON_PARSE_ERRORS
from policytool.errors import PolicyError, WriteError
from policytool.rules import _kwreads as kwreads
from policytool.rules._fakes import SRC_LAYOUTS
from policytool.sweep.diff import Base, Head, read_head

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

CACHE_DIR = "policytool-sweep"
# The cache format: bumped whenever the scan reads more, so no older answer is reused.
CACHE_FORMAT = "v8"
BLOB_CACHE = f"blob-keys.{CACHE_FORMAT}"
BASE_PREFIX = f"base-keys.{CACHE_FORMAT}-"
KEEP_BASES = 8

_QUOTED = rb"[\"']([A-Za-z_][A-Za-z0-9_.\-]*)[\"']"
# Cheap evidence that a file may read a kwargs dict: a ``**NAME`` parameter or a
# ``*kwargs: dict`` one, then ``NAME[`` / ``NAME.get(`` / ``NAME.pop(`` / ``in NAME``.
# Only such files are parsed; the reads themselves come from the AST (``kwreads``).
# (``**kwargs`` may end its line: ``def f(\n    a, **kwargs\n) -> T:``)
_STAR_RE = re.compile(rb"\*\*[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t\r\n]*[:,)]")
_PLAIN_RE = re.compile(rb"\b([A-Za-z0-9_]*kwargs)[ \t]*:[ \t]*(?:typing\.)?(?:dict|Dict|Mapping)\b")
_DIGITS_RE = re.compile(r"[0-9]+")
# ``NAME = "key"`` at column 0. Matched on "\n" + data + "\n": a literal newline prefix
# lets ``re`` skip ahead fast, where ``^`` with MULTILINE tries every line (5x slower).
_CONSTANT_RE = re.compile(
    rb"\n[A-Z_][A-Z0-9_]*[ \t]*(?::[^=\n]+)?=[ \t]*" + _QUOTED + rb"[ \t]*(?:#[^\n]*)?\r?(?=\n)"
)


@dataclass(frozen=True)
class BlobKeys:
    """What one file content holds: kwargs keys read and string constants defined."""

    reads: frozenset[str] = frozenset()
    # key -> line of ``NAME = "key"``
    constants: tuple[tuple[str, int], ...] = ()
    # Keys read from a dict a ``*_kwargs`` name holds that is no parameter of its
    # function (``fn_kwargs = ...["fn_kwargs"]; fn_kwargs["column_names"]``): the
    # repository read them before, though from no ``**kwargs`` signature.
    local: frozenset[str] = frozenset()

    def encode(self) -> str:
        """One cache line body (after the blob id)."""
        parts = [f"R:{k}" for k in sorted(self.reads)]
        parts += [f"C{line}:{k}" for k, line in self.constants]
        parts += [f"L:{k}" for k in sorted(self.local)]
        return "\t".join(parts)

    @classmethod
    def decode(cls, text: str) -> BlobKeys:
        """The inverse of :meth:`encode`."""
        reads: set[str] = set()
        local: set[str] = set()
        constants: list[tuple[str, int]] = []
        for part in text.split("\t"):
            kind, _colon, key = part.partition(":")
            if kind == "R":
                reads.add(key)
            elif kind == "L":
                local.add(key)
            elif kind.startswith("C") and _DIGITS_RE.fullmatch(kind[1:]):
                constants.append((key, int(kind[1:])))  # ASCII digits only: not "²"
        return cls(frozenset(reads), tuple(constants), frozenset(local))


def _evidence(data: bytes) -> tuple[bool, bool]:
    """(may read a kwargs dict, passes one on whole to a call), from the bytes alone."""
    names = set(_STAR_RE.findall(data)) | set(_PLAIN_RE.findall(data))
    reads = passes = False
    for name in names:
        reads = reads or (
            name + b"[" in data
            or name + b".get(" in data
            or name + b".pop(" in data
            or b" in " + name in data
        )
        # ``f(d)``, ``f(a, d)``, ``f(d, a)`` and the keyword forms ``f(cfg=d)``,
        # ``f(cfg=d, a)`` (the AST follows a dict passed by keyword too).
        passes = passes or any(
            before + name + after in data
            for before, after in (
                (b"(", b")"),
                (b" ", b")"),
                (b"(", b","),
                (b"=", b")"),
                (b"=", b","),
            )
        )
    return reads, passes


def may_read(data: bytes) -> bool:
    """Whether ``data`` may hold a string-key read of a kwargs dict (bytes-cheap)."""
    reads, passes = _evidence(data)
    return reads or passes


_DEF_RE = re.compile(rb"^([ \t]*)(?:async[ \t]+)?def[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*\(", re.M)
_HEADER_END_RE = re.compile(rb"\)[ \t]*(?:->[^\n]*?)?:[ \t]*(?:#[^\n]*)?$", re.M)
_BODY_END_RE = b"^(?![ \\t]*(?:#|$))[ \\t]{0,%d}\\S"


def text_reads(data: bytes) -> frozenset[str]:
    """The keys read from kwargs dict parameters, from the text: for each ``def`` whose
    header has ``**NAME`` or ``NAME: dict``, the reads of NAME in its indented body
    (``NAME["k"]`` not followed by ``=``, ``NAME.get("k")``, ``NAME.pop("k")``, ``"k" in
    NAME``). Matches the AST reading (``kwreads``) for everything but dicts passed on to
    another function, for which :func:`scan` parses."""
    found: set[str] = set()
    for match in _DEF_RE.finditer(data):
        end = _HEADER_END_RE.search(data, match.end())
        if end is None:
            continue
        header = data[match.end() : end.start()]
        names = set(_STAR_RE.findall(header + b")")) | set(_PLAIN_RE.findall(header))
        if not names:
            continue
        indent = len(match.group(1).expandtabs())
        stop = re.compile(_BODY_END_RE % indent, re.M).search(data, end.end() + 1)
        body = data[end.end() : stop.start() if stop else len(data)]
        for name in names:
            word = re.escape(name)
            # A key may sit on the line after the bracket (``kwargs.get(\n    "k",``),
            # as black writes a read whose default is long: the AST reads it, so must this.
            for read in re.finditer(
                rb"\b" + word + rb"[ \t]*\[\s*" + _QUOTED + rb"\s*\](?![ \t]*=[^=])"
                rb"|\b"
                + word
                + rb"[ \t]*\.[ \t]*(?:get|pop)[ \t]*\(\s*"
                + _QUOTED
                + rb"|"
                + _QUOTED
                + rb"[ \t]+in[ \t]+"
                + word
                + rb"\b",
                body,
            ):
                found.add((read.group(1) or read.group(2) or read.group(3)).decode("ascii"))
            for absent in re.finditer(_QUOTED + rb"[ \t]+not[ \t]+in[ \t]+" + word + rb"\b", body):
                key = absent.group(1)
                default = (
                    re.escape(name)
                    + rb"\[[ \t]*[\"']"
                    + re.escape(key)
                    + rb"[\"'][ \t]*\][ \t]*=[^=]"
                )
                if re.search(default, body) is None:
                    found.add(key.decode("ascii"))
    return frozenset(found)


_KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


def tree_reads(
    tree: ast.Module, dicts: dict[kwreads.FunctionDef, set[str]] | None = None
) -> frozenset[str]:
    """The identifier-like keys a parsed module reads from kwargs dicts."""
    return frozenset(read.key for read in kwreads.reads(tree, dicts) if _KEY_RE.fullmatch(read.key))


# From this many unseen blobs on (a first run on a large tree), scan in worker processes.
PARALLEL_BLOBS = 256


def scan_blobs(root: Path, blobs: list[str]) -> dict[str, BlobKeys]:
    """:func:`scan` of each blob id: in worker processes for many, else here."""
    workers = min(os.cpu_count() or 1, 8)
    if len(blobs) < PARALLEL_BLOBS or workers < 2:
        return _scan_blobs(root, blobs)
    chunks = [blobs[i :: workers * 2] for i in range(workers * 2)]
    found: dict[str, BlobKeys] = {}
    with worker_pool(workers) as pool:
        for part in pool.map(_scan_blobs, [root] * len(chunks), chunks):
            found.update(part)
    return found


@contextmanager
def worker_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool for the sweep; a worker killed mid-run (a signal, the OOM killer)
    is one sentence, exit 2, once the pool has ended the other workers."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from policytool.engine.runner import _pool_context

    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context()) as pool:
            yield pool
    except BrokenProcessPool:
        raise PolicyError("a sweep worker process was killed mid-run; nothing was swept") from None


def _scan_blobs(root: Path, blobs: list[str]) -> dict[str, BlobKeys]:
    """:func:`scan` of each blob id, read in batches of 500 (bounded memory)."""
    found: dict[str, BlobKeys] = {}
    for start in range(0, len(blobs), 500):
        batch = blobs[start : start + 500]
        contents = cat_blobs(root, batch)
        for name in batch:
            data = contents.get(name)
            found[name] = scan(data) if data is not None else BlobKeys()
    return found


# ``fn_kwargs["k"]`` (not an assignment) / ``model_kwargs.get("k")``: a read of a dict
# that a ``*_kwargs`` name holds.
_LOCAL_READ_RE = re.compile(
    rb"\b[A-Za-z0-9_]*_kwargs[ \t]*(?:\[\s*"
    + _QUOTED
    + rb"\s*\](?![ \t]*=[^=])|\.[ \t]*(?:get|pop)[ \t]*\(\s*"
    + _QUOTED
    + rb")"
)


def local_reads(data: bytes) -> frozenset[str]:
    """The keys read from dicts ``*_kwargs`` names hold (:data:`_LOCAL_READ_RE`), from
    the text: what the repository read by key outside a ``**kwargs`` signature."""
    if b"_kwargs" not in data:
        return frozenset()
    return frozenset(
        (match.group(1) or match.group(2)).decode("ascii")
        for match in _LOCAL_READ_RE.finditer(data)
    )


def scan(data: bytes) -> BlobKeys:
    """The kwargs keys a file reads and the string constants it defines.

    Reads are of a real ``**kwargs`` parameter (not any name with ``kw`` in it), reads
    not writes: found in the text of the function bodies (:func:`text_reads`), or with
    the AST when a kwargs dict is passed on whole to another function of the file.
    """
    reads: frozenset[str] = frozenset()
    maybe, passes = _evidence(data)
    if passes:
        try:
            reads = tree_reads(ast.parse(data))
        except PYTHON_PARSE_ERRORS:
            reads = frozenset()
    elif maybe:
        reads = text_reads(data)
    return BlobKeys(reads, constants(data), local_reads(data) - reads)


def constants(data: bytes) -> tuple[tuple[str, int], ...]:
    """``NAME = "key"`` at column 0: (key, line) of each."""
    found: list[tuple[str, int]] = []
    padded = b"\n" + data + b"\n"
    for match in _CONSTANT_RE.finditer(padded):
        number = padded.count(b"\n", 0, match.start()) + 1  # the padding newline is line 0
        found.append((match.group(1).decode("ascii"), number))
    return tuple(found)


@dataclass
class KeyHits:
    """For each asked key: files reading it from kwargs, and constants holding it."""

    reads: dict[str, set[str]] = field(default_factory=dict)
    constants: dict[str, list[str]] = field(default_factory=dict)
    # The non-test files of the *base* reading each key (changed files included): a key
    # read before the change is not one the change introduces.
    before: dict[str, set[str]] = field(default_factory=dict)
    # The files reading each key from a local ``*_kwargs`` dict (BlobKeys.local); the
    # base's count in ``before``.
    local: dict[str, set[str]] = field(default_factory=dict)

    def add(self, path: str, found: BlobKeys, wanted: set[str]) -> None:
        """Record what one file holds for the wanted keys."""
        for key in found.reads & wanted:
            self.reads.setdefault(key, set()).add(path)
        for key in found.local & wanted:
            self.local.setdefault(key, set()).add(path)
        for key, line in found.constants:
            if key in wanted:
                self.constants.setdefault(key, []).append(f"{path}:{line}")


_TREE_ENTRY_RE = re.compile(rb"blob ([0-9a-f]{40,64})\t([^\0]*\.py)\0")


def _cache_dir(root: Path) -> Path | None:
    """Where the caches live: ``<git-common-dir>/policytool-sweep``."""
    proc = run_git(root, ["rev-parse", "--git-common-dir"])
    if proc.returncode != 0:
        return None
    return (root / proc.stdout.decode().strip()) / CACHE_DIR


def _write(path: Path, body: bytes) -> None:
    """Write a cache file, through a directory held inside the git directory; failing
    to write (a link out, a file where the directory should be) only costs speed."""
    try:
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, body, inside=path.parent.parent)
    except (OSError, WriteError):
        return


def _load_blobs(path: Path) -> dict[bytes, bytes]:
    """Blob id -> its encoded :class:`BlobKeys`."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    cache: dict[bytes, bytes] = {}
    for line in data.split(b"\n"):
        if not line:
            continue
        blob, _tab, rest = line.partition(b"\t")
        if not re.fullmatch(rb"[0-9a-f]{40,64}", blob) or not rest.isascii():
            return {}  # corrupt: discarded and rebuilt, never trusted in part
        cache[blob] = rest
    return cache


def _compute_base(root: Path, base_sha: str, cache_dir: Path | None) -> dict[str, KeyHits]:
    """key -> KeyHits of one key, over every Python file of the base commit."""
    listing = run_git(root, ["ls-tree", "-r", "-z", "--full-tree", base_sha])
    if listing.returncode != 0:
        raise PolicyError(f"{root}: git ls-tree {base_sha} failed")
    entries: list[tuple[bytes, bytes]] = _TREE_ENTRY_RE.findall(listing.stdout)
    blob_path = cache_dir / BLOB_CACHE if cache_dir is not None else None
    blobs = _load_blobs(blob_path) if blob_path is not None else {}
    missing = sorted({blob for blob, _path in entries} - blobs.keys())
    if missing:
        names = [blob.decode() for blob in missing]
        for name, found in scan_blobs(root, names).items():
            blobs[name.encode()] = found.encode().encode("utf-8")
        if blob_path is not None:
            _write(blob_path, b"".join(b + b"\t" + r + b"\n" for b, r in blobs.items()))
    by_key: dict[str, KeyHits] = {}
    for blob, raw_path in entries:
        rest = blobs.get(blob)
        if rest:
            found = BlobKeys.decode(rest.decode("utf-8", "replace"))
            path = raw_path.decode("utf-8", "surrogateescape")
            for key in found.reads | found.local | {k for k, _line in found.constants}:
                by_key.setdefault(key, KeyHits()).add(path, found, {key})
    return by_key


def _header(base_sha: str, count: int) -> str:
    """The first line of a base map: format, base commit, key count."""
    return f"#policytool-sweep-base-keys {CACHE_FORMAT} {base_sha} {count}"


def _encode_base(base_sha: str, by_key: Mapping[str, KeyHits]) -> bytes:
    """A header line, then one line a key: ``key<TAB>R:path<TAB>C:path:line<TAB>L:path...``.

    Paths with tabs or newlines are left out.
    """
    lines = [_header(base_sha, len(by_key))]
    for key in sorted(by_key):
        hits = by_key[key]
        parts = [
            f"R:{p}" for p in sorted(hits.reads.get(key, ())) if "\t" not in p and "\n" not in p
        ]
        parts += [f"C:{c}" for c in hits.constants.get(key, []) if "\t" not in c and "\n" not in c]
        parts += [
            f"L:{p}" for p in sorted(hits.local.get(key, ())) if "\t" not in p and "\n" not in p
        ]
        lines.append("\t".join([key, *parts]))
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")


def _decode_base(data: bytes, base_sha: str, wanted: set[str]) -> KeyHits | None:
    """The wanted keys' lines of an encoded base map; None when it is not a whole one."""
    lines = data.splitlines()
    if not lines or lines[0] != _header(base_sha, len(lines) - 1).encode():
        return None  # truncated, garbage or another format: recompute
    hits = KeyHits()
    needles = {key.encode() for key in wanted}
    for line in lines[1:]:
        key_bytes, _tab, rest = line.partition(b"\t")
        if key_bytes not in needles:
            continue
        key = key_bytes.decode()
        for part in rest.decode("utf-8", "surrogateescape").split("\t"):
            kind, _colon, where = part.partition(":")
            if kind == "R":
                hits.reads.setdefault(key, set()).add(where)
            elif kind == "C":
                hits.constants.setdefault(key, []).append(where)
            elif kind == "L":
                hits.local.setdefault(key, set()).add(where)
    return hits


def _base_hits(root: Path, base_sha: str, wanted: set[str]) -> KeyHits:
    """The wanted keys in the base commit, from its cached map (made on first use)."""
    cache_dir = _cache_dir(root)
    path = cache_dir / f"{BASE_PREFIX}{base_sha}" if cache_dir is not None else None
    if path is not None and path.is_file():
        try:
            cached = _decode_base(path.read_bytes(), base_sha, wanted)
        except (OSError, UnicodeDecodeError):
            cached = None
        if cached is not None:
            return cached
    encoded = _encode_base(base_sha, _compute_base(root, base_sha, cache_dir))
    if path is not None and cache_dir is not None:
        _write(path, encoded)
        _prune(cache_dir)
    hits = _decode_base(encoded, base_sha, wanted)
    assert hits is not None  # just encoded
    return hits


def _prune(cache_dir: Path) -> None:
    """Keep the newest :data:`KEEP_BASES` base maps; drop the maps and blob cache of an
    older format (a scan that read less: their answers are not this version's)."""
    try:
        maps = sorted(
            cache_dir.glob(f"{BASE_PREFIX}*"), key=lambda p: p.stat().st_mtime, reverse=True
        )
        stale = [
            p
            for pattern in ("base-keys.v*", "blob-keys.v*")
            for p in cache_dir.glob(pattern)
            if p.name != BLOB_CACHE and not p.name.startswith(BASE_PREFIX)
        ]
        for old in (*maps[KEEP_BASES:], *stale):
            old.unlink()
    except OSError:
        return


def find_keys(
    root: Path,
    base: Base,
    head: Head,
    keys: Iterable[str],
    changed: Mapping[str, bytes],
    touched: set[str],
    is_test: Callable[[str], bool],
    parsed: Mapping[str, frozenset[str]] | None = None,
) -> KeyHits:
    """Which non-test head files read each key from a kwargs dict, and which constants
    hold it.

    ``changed`` are head contents this sweep already read (``parsed``: the keys it
    already found in them); the ``touched`` paths (every file the change adds, edits,
    renames or deletes) are rescanned in the head.
    """
    wanted = set(keys)
    paths = touched | set(changed)
    if not wanted:
        return KeyHits()
    base_hits = _base_hits(root, base.sha, wanted)
    hits = KeyHits()
    for key, files in base_hits.reads.items():
        hits.reads[key] = {p for p in files if p not in paths and not is_test(p)}
        hits.before[key] = {p for p in files if not is_test(p)}
    for key, files in base_hits.local.items():
        # read by key before, from a local ``*_kwargs`` dict: not a key the change adds
        hits.before.setdefault(key, set()).update(p for p in files if not is_test(p))
    for key, places in base_hits.constants.items():
        hits.constants[key] = [c for c in places if c.rsplit(":", 1)[0] not in paths]
    unread = sorted(paths - set(changed))
    contents: dict[str, bytes | None] = dict(changed)
    if unread:
        contents.update(read_head(root, head, unread))
    known = parsed or {}
    for path in sorted(paths):
        data = contents.get(path)
        if data is None:
            continue
        if path in known:
            found = BlobKeys(known[path], constants(data))
        else:
            found = scan(data)
        if is_test(path):
            found = BlobKeys(frozenset(), found.constants)
        hits.add(path, found, wanted)
    for key in hits.constants:
        hits.constants[key].sort()
    return hits


def _kwargs_named(node: ast.expr, starred: frozenset[str]) -> bool:
    """Whether ``node`` names a kwargs dict: ``kwargs``, ``self.kwargs``,
    ``reward_model_kwargs``, or a name the module hands on with ``**``."""
    name = node.id if isinstance(node, ast.Name) else ""
    if isinstance(node, ast.Attribute):
        name = node.attr
    return bool(name) and (name.lower().endswith("kwargs") or name in starred)


def _literal(node: ast.AST | None) -> str | None:
    """The identifier-like string of a constant, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if _KEY_RE.fullmatch(node.value) else None
    return None


def _display_keys(node: ast.AST) -> Iterator[ast.expr | None]:
    """The keys of a dict display, or of a ``{k: v for ... if k in [...]}`` filter's list."""
    if isinstance(node, ast.Dict):
        yield from node.keys
    elif isinstance(node, ast.DictComp):
        for comp in node.generators:
            for test in comp.ifs:
                if isinstance(test, ast.Compare) and isinstance(
                    test.comparators[0], (ast.List, ast.Tuple, ast.Set)
                ):
                    yield from test.comparators[0].elts


def kwargs_spellings(tree: ast.Module, lines: frozenset[int] | None) -> frozenset[str]:
    """The keys a module spells as literals of a kwargs dict on ``lines`` (every line when
    None): written or read on a dict named like one (``kwargs["k"] = v``,
    ``self.kwargs["k"]``, ``"k" in gen_kwargs``), a display of one (``reward_kwargs =
    {"k": v}``, ``f(**{"k": v})``, a display bound to a name handed on with ``**``) or the
    key list filtering one (``{k: v for k, v in cfg.items() if k in ["k", ...]}``)."""
    # One walk (a module of thousands of lines is read for each key a change spells):
    # the names handed on with ``**`` and the nodes that may spell a key, read after.
    starred: set[str] = set()
    candidates: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword):
            if node.arg is None and isinstance(node.value, ast.Name):
                starred.add(node.value.id)
            if node.arg is None or node.arg.lower().endswith("kwargs"):
                candidates.append(node)
        elif isinstance(node, (ast.Subscript, ast.Call, ast.Compare, ast.Assign, ast.AnnAssign)):
            candidates.append(node)
    named = frozenset(starred)
    found: set[str] = set()

    def add(key: ast.AST | None) -> None:
        text = _literal(key)
        if text is not None and (lines is None or getattr(key, "lineno", 0) in lines):
            found.add(text)

    for node in candidates:
        if isinstance(node, ast.Subscript) and _kwargs_named(node.value, named):
            add(node.slice)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and _kwargs_named(node.func.value, named)
            and node.args
        ):
            add(node.args[0])
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and _kwargs_named(node.comparators[0], named)
        ):
            add(node.left)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is not None and any(_kwargs_named(t, named) for t in targets):
                for key in _display_keys(node.value):
                    add(key)
        elif isinstance(node, ast.keyword):
            for key in _display_keys(node.value):
                add(key)
    return frozenset(found)


_QUOTED_RE = re.compile(_QUOTED)


def _nearby(path: str, other: str) -> bool:
    """Whether two files sit in one package or one in a package enclosing the other's
    (``distributed/consumer.py`` and ``distributed/reward/reward_fn.py``), below the
    repository's root: where one piece of code builds the dict another reads. Two
    unrelated models of a large change that both name a ``"patch_size"`` are not."""
    here, there = os.path.dirname(path), os.path.dirname(other)
    if not here or not there:
        return False
    return here == there or here.startswith(there + "/") or there.startswith(here + "/")


# A change of at most this many non-test Python files is one piece of work (the size the
# labelling brief reads as one commit, not a bulk one): a new key it spells in one
# package of the project and reads in another is one protocol.
ONE_PIECE = 25


def _same_project_package(path: str, other: str) -> bool:
    """Whether two files sit under one top-level package below the root (``optimum/``
    for ``optimum/commands/export/executorch.py`` and
    ``optimum/exporters/executorch/tasks/causal_lm.py``), past a layout directory."""

    def top(p: str) -> str:
        parts = p.split("/")[:-1]
        while parts and parts[0] in SRC_LAYOUTS:
            parts = parts[1:]
        return parts[0] if parts else ""

    here = top(path)
    return bool(here) and here == top(other)


def _literals(data: bytes) -> frozenset[str]:
    """Every identifier-like quoted string in ``data`` (one pass; where a key may be)."""
    return frozenset(m.decode("ascii") for m in _QUOTED_RE.findall(data))


@dataclass
class Spellings:
    """Where a change's added lines spell a key as a literal of a kwargs dict in a file
    of the same package or one enclosing it (:func:`_nearby`; in a change of one piece,
    :data:`ONE_PIECE`, any file of the same top-level package) that did not hold the
    literal before: the other half of a new key the change reads
    from ``**kwargs`` in one file and writes, displays or filters in another
    (``{"raw_reward": r}`` handed on with ``**``, ``kwargs["is_final"] = False``,
    ``{k: v for k, v in cfg.items() if k in ["max_length", ...]}``) with no shared
    constant.

    ``files`` maps each non-test file of the change to its added line numbers (None:
    every line); ``contents`` holds their head bytes; ``base_text`` reads a head path's
    base version (None: the file is new). A file is parsed, and its base read, only when
    its text holds a candidate key quoted, once each."""

    files: Mapping[str, frozenset[int] | None]
    contents: Mapping[str, bytes]
    base_text: Callable[[str], bytes | None]
    _bases: dict[str, frozenset[str]] = field(default_factory=dict)
    _heads: dict[str, frozenset[str]] = field(default_factory=dict)
    _spelled: dict[str, frozenset[str]] = field(default_factory=dict)
    _near: dict[str, list[str]] = field(default_factory=dict)

    def _base(self, path: str) -> frozenset[str]:
        """The quoted strings of ``path``'s base version (none: a new file)."""
        if path not in self._bases:
            data = self.base_text(path)
            self._bases[path] = _literals(data) if data is not None else frozenset()
        return self._bases[path]

    def _head(self, path: str) -> frozenset[str]:
        """The quoted strings of ``path``'s head version, read once: a change with
        thousands of new keys checks each against a set, not the text."""
        if path not in self._heads:
            data = self.contents.get(path)
            self._heads[path] = _literals(data) if data is not None else frozenset()
        return self._heads[path]

    def _keys(self, path: str) -> frozenset[str]:
        """:func:`kwargs_spellings` of ``path`` on its added lines, parsed once."""
        if path not in self._spelled:
            data = self.contents[path]
            tree = None
            # a kwargs dict is named ``...kwargs`` or handed on with ``**``: a file that
            # spells neither (a list of names that happen to match) is not parsed
            if b"**" in data or b"kwargs" in data.lower():
                try:
                    tree = ast.parse(data)
                except PYTHON_PARSE_ERRORS:
                    tree = None
            self._spelled[path] = (
                kwargs_spellings(tree, self.files[path]) if tree is not None else frozenset()
            )
        return self._spelled[path]

    def _neighbours(self, path: str) -> list[str]:
        """The files other than ``path`` where a key it reads may be spelled (sorted),
        found once a path: thousands of keys read in one file ask the same."""
        if path not in self._near:
            one_piece = len(self.files) <= ONE_PIECE
            self._near[path] = sorted(
                other
                for other in self.files
                if other != path
                and (_nearby(path, other) or (one_piece and _same_project_package(path, other)))
            )
        return self._near[path]

    def new_in(self, key: str, path: str) -> bool:
        """Whether ``path``'s base version (if any) never spelled ``key`` as a literal."""
        return key not in self._base(path)

    def other_files(self, key: str, path: str) -> list[str]:
        """The files other than ``path`` whose added lines spell ``key`` as a kwargs
        literal and whose base versions did not hold it (sorted); none when ``path``
        itself held the literal before."""
        found = [
            other
            for other in self._neighbours(path)
            if key in self._head(other) and key in self._keys(other)
        ]
        if not found or not self.new_in(key, path):
            return []
        return [other for other in found if self.new_in(key, other)]
