# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``git diff`` -> the lines a change adds, per Python file, and the head contents.

The base is the merge-base of ``--base REV`` (default ``origin/main``, falling back to
``main``) with the head. The head is the working tree (default), the index
(``--staged``) or a commit (``--head REV``). Renamed files count only their changed
lines, deleted files nothing. Every git failure the user can cause is a PolicyError.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.core.git import GitJob, blob_sizes, cat_blobs, commit_sha, git_ok, run_git
from policytool.engine.findings import escape_controls
from policytool.errors import PolicyError

# The largest head file sweep reads: a larger one is a note, never read (nor asked of git).
MAX_FILE_BYTES = 4_000_000
# Past this many added lines in one file, the file is swept whole (every line counts):
# line numbers are kept one by one, so a 10-million-line file would cost gigabytes.
MAX_ADDED_LINES = 1_000_000


# Options that pin down the patch format whatever the user's git config says.
_DIFF_FORMAT = (
    "--no-color",
    "--no-ext-diff",
    "--no-relative",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--no-textconv",  # a textconv filter would change the lines
    "-U0",
    "--inter-hunk-context=0",  # diff.interHunkContext would merge hunks with context lines
    "-M",
)
# Past this size git prints "Binary files ... differ" and no lines (never a patch of
# gigabytes in memory); the file is then swept whole, so read by size: a note.
_BIG_FILE = ("-c", f"core.bigFileThreshold={MAX_FILE_BYTES}")
PY_PATHSPEC = "*.py"
DEFAULT_BASES = ("origin/main", "main")

# Matched at the start of a hunk header line (``match``, so no ``^``).
_HUNK_RE = re.compile(rb"@@+ (?:-\d+(?:,\d+)? )+\+(\d+)(?:,(\d+))? @@")


class HeadKind(str, enum.Enum):
    """What the change is compared against the base with."""

    WORKTREE = "worktree"
    STAGED = "staged"
    REV = "rev"


@dataclass(frozen=True)
class Head:
    """The head of the change: the working tree, the index or a commit.

    ``sha`` is the commit ``rev`` names once :func:`resolve_base` resolved it: git is only
    ever given the sha, so a branch named ``-x`` cannot be taken for an option.
    """

    kind: HeadKind = HeadKind.WORKTREE
    rev: str | None = None
    sha: str | None = None

    def label(self) -> str:
        """How the head is named in the report."""
        if self.kind is HeadKind.REV:
            return str(self.rev)
        return "the index" if self.kind is HeadKind.STAGED else "the working tree"


@dataclass(frozen=True)
class Base:
    """The resolved base: what the user asked for and the commit compared with.

    That commit is the merge-base of the base and the head, or the base itself in the
    two-dot mode (``two_dot``), which needs no shared history (a shallow clone).
    """

    name: str
    sha: str
    two_dot: bool = False


@dataclass(frozen=True)
class ChangedFile:
    """One Python file of the change and the head line numbers it adds."""

    path: str
    added: frozenset[int]
    old_path: str | None = None
    # True when every line counts (a new untracked file in the working tree).
    whole: bool = False
    # (first head line, last head line, the base lines they replace) of each hunk that
    # removes lines: whether an added ``**kwargs`` line only edits an old one.
    replaced: tuple[tuple[int, int, bytes], ...] = ()
    # The base commit the hunks are against (None: the file has no base version, an
    # untracked new file): its version is read only when a rule asks (:func:`read_base`).
    base: str | None = None


def _is_shallow(root: Path) -> bool:
    """Whether the repository is a shallow clone (history cut off)."""
    proc = run_git(root, ["rev-parse", "--is-shallow-repository"])
    return proc.returncode == 0 and proc.stdout.strip() == b"true"


# unmerged paths named in the refusal of a ``--staged`` sweep; the rest are counted
MAX_UNMERGED_SHOWN = 5


def refuse_unmerged_index(root: Path) -> None:
    """Refuse a ``--staged`` sweep while the index holds unmerged paths (a merge or
    rebase stopped on conflicts): a conflicted file has no one staged content, so it
    would be left out of the sweep without a word. git will not commit such an index
    either, and pre-commit refuses it the same way."""
    output = git_ok(root, ["ls-files", "--unmerged", "-z"], "git ls-files failed")
    paths: dict[str, None] = {}  # one entry per path, not per conflict stage
    for record in output.split(b"\0"):
        _meta, tab, raw = record.partition(b"\t")
        if tab:
            paths[escape_controls(raw.decode("utf-8", "surrogateescape"))] = None
    if not paths:
        return
    shown = ", ".join(list(paths)[:MAX_UNMERGED_SHOWN])
    more = len(paths) - MAX_UNMERGED_SHOWN
    if more > 0:
        shown += f" and {more} more"
    raise PolicyError(
        f"{root}: the index has unmerged paths ({shown}); resolve the conflicts and "
        "`git add` the files, then sweep --staged (it judges what the commit will hold)"
    )


def resolve_head(root: Path, head: Head) -> Head:
    """``head`` with the sha of its commit filled in (``--head REV``'s, else ``HEAD``'s,
    the commit the index and the working tree are compared from); an index with unmerged
    paths is refused for ``--staged`` (:func:`refuse_unmerged_index`)."""
    if head.kind is HeadKind.STAGED:
        refuse_unmerged_index(root)
    head_rev = head.rev if head.kind is HeadKind.REV and head.rev is not None else "HEAD"
    head_sha = commit_sha(root, head_rev)
    if head_sha is None:
        if head.kind is HeadKind.REV:
            raise PolicyError(f"{root}: --head {head_rev}: no such commit in this repository")
        raise PolicyError(f"{root}: the repository has no commit yet; commit once, then sweep")
    return dataclasses.replace(head, sha=head_sha)


def resolve_base(
    root: Path, base: str | None, head: Head, two_dot: bool = False
) -> tuple[Base, Head]:
    """The merge-base of ``base`` (or the default) with the head commit (``base`` itself
    with ``two_dot``), and the head with its commit sha filled in."""
    if base is not None:
        base_sha = commit_sha(root, base)
        if base_sha is None:
            raise PolicyError(f"{root}: --base {base}: no such commit in this repository")
        name = base
    else:
        for candidate in DEFAULT_BASES:
            found = commit_sha(root, candidate)
            if found is not None:
                name, base_sha = candidate, found
                break
        else:
            raise PolicyError(
                f"{root}: neither origin/main nor main exists; "
                "pass --base REV to say what to compare with"
            )
    head = resolve_head(root, head)
    head_rev = head.rev if head.kind is HeadKind.REV and head.rev is not None else "HEAD"
    head_sha = str(head.sha)
    if two_dot:
        return Base(name, base_sha, two_dot=True), head
    proc = run_git(root, ["merge-base", base_sha, head_sha])
    if proc.returncode != 0:
        if _is_shallow(root):
            raise PolicyError(
                f"{root}: no merge-base between {name} and {head_rev} in this shallow clone; "
                "fetch more history (git fetch --unshallow, or fetch-depth: 0 in "
                "actions/checkout), or pass --two-dot to compare with the tip of "
                f"{name} directly"
            )
        raise PolicyError(
            f"{root}: no merge-base between {name} and {head_rev}: the histories are "
            f"unrelated; pass --two-dot to compare with the tip of {name} directly"
        )
    return Base(name, proc.stdout.decode().strip()), head


def unquote_path(raw: bytes) -> str:
    """A path as git prints it in a patch header: C-quoted when it has odd bytes."""
    if not raw.startswith(b'"'):
        return raw.decode("utf-8", "surrogateescape")
    body = raw[1:-1] if raw.endswith(b'"') else raw[1:]
    out = bytearray()
    escapes = {
        ord("n"): 10,
        ord("t"): 9,
        ord("r"): 13,
        ord("a"): 7,
        ord("b"): 8,
        ord("f"): 12,
        ord("v"): 11,
    }
    i = 0
    while i < len(body):
        c = body[i]
        if c == 0x5C and i + 1 < len(body):  # backslash
            nxt = body[i + 1]
            if 0x30 <= nxt <= 0x37 and i + 4 <= len(body):
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            out.append(escapes.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out).decode("utf-8", "surrogateescape")


def _header_path(line: bytes, prefix: bytes) -> str | None:
    """The path of a ``--- a/x`` / ``+++ b/x`` line; None for /dev/null."""
    raw = line[4:].rstrip(b"\n")
    if raw == b"/dev/null":
        return None
    if not raw.startswith(b'"'):
        raw = raw.rstrip(b"\t")  # git appends a tab when the name has a space
    path = unquote_path(raw)
    return path[len(prefix) :] if path.startswith(prefix.decode()) else path


@dataclass
class Change:
    """The Python files a change adds lines to, and every path it touches at all."""

    files: list[ChangedFile] = field(default_factory=list)
    # Old and new paths of every added, modified, renamed or deleted Python file.
    touched: set[str] = field(default_factory=set)
    # Every line the change removes, deleted files' too (a read it re-adds was moved).
    removed: list[bytes] = field(default_factory=list)
    # (base path, start, end): the slice of ``removed`` each file's lines are.
    removed_spans: list[tuple[str, int, int]] = field(default_factory=list)

    def removed_by_path(self) -> Iterator[tuple[str, list[bytes]]]:
        """Each base path the change removes lines from, with those lines in order."""
        for path, start, end in self.removed_spans:
            yield path, self.removed[start:end]


_REMOVED_RE = re.compile(rb"\n-([^\n]*)")


def parse_patch(patch: bytes) -> Change:
    """Added head line numbers per file from a ``-U0`` patch, and all touched paths.

    Split on ``\\n`` only: a ``\\r`` inside an added line cannot start a fake hunk header.
    Content lines all start with ``+``, ``-``, `` `` or ``\\``, so ``diff --git`` and ``@@``
    at the start of a line are headers: the patch is cut at them (a ``\\n`` prefix makes
    each a fast substring search), and only hunks that remove lines are searched for
    them; added lines, most of a large patch, need only the count in their hunk header.
    """
    change = Change()
    text = b"\n" + patch  # every line, the first too, starts after a "\n"
    starts: list[int] = []
    found = text.find(b"\ndiff --git ")
    while found >= 0:
        starts.append(found)
        found = text.find(b"\ndiff --git ", found + 1)
    starts.append(len(text))
    for index in range(len(starts) - 1):
        _parse_file_patch(text, starts[index], starts[index + 1], change)
    return change


def _parse_file_patch(text: bytes, start: int, end: int, change: Change) -> None:
    """One file's part of a patch: ``text[start:end]``, from the ``\\n`` before its
    ``diff --git`` line."""
    hunks: list[int] = []  # offsets of the "\n" before each "@@" line
    found = text.find(b"\n@@", start, end)
    while found >= 0:
        hunks.append(found)
        found = text.find(b"\n@@", found + 1, end)
    hunks.append(end)
    path: str | None = None
    old_path: str | None = None
    renamed: str | None = None
    binary: str | None = None  # a binary or huge file's head path: no lines, swept whole
    for line in text[start + 1 : hunks[0]].split(b"\n")[1:]:
        if line.startswith(b"--- "):
            old_path = _header_path(line, b"a/")
            change.touched.update([old_path] if old_path else [])
        elif line.startswith(b"+++ "):
            path = _header_path(line, b"b/")
            change.touched.update([path] if path else [])
        elif line.startswith((b"rename from ", b"rename to ")):
            raw = line.split(b" ", 2)[2]
            change.touched.add(unquote_path(raw))
            if line.startswith(b"rename to "):
                renamed = unquote_path(raw)
        elif line.startswith(b"Binary files ") and line.endswith(b" differ"):
            binary = _binary_path(line, renamed)
    added: set[int] = set()
    total = 0  # added lines, counted past MAX_ADDED_LINES
    replaced: list[tuple[int, int, bytes]] = []
    hunk: tuple[int, int] | None = None
    first_removed = len(change.removed)
    for number in range(len(hunks) - 1):
        line_end = text.find(b"\n", hunks[number] + 1, hunks[number + 1])
        if line_end < 0:
            line_end = hunks[number + 1]
        match = _HUNK_RE.match(text, hunks[number] + 1, line_end)
        if match and path is not None:
            first = int(match.group(1))
            count = int(match.group(2)) if match.group(2) is not None else 1
            total += count
            if total <= MAX_ADDED_LINES:
                added.update(range(first, first + count))
            hunk = (first, first + count - 1)
        adds = hunk is not None and hunk[1] >= hunk[0]
        # A hunk that adds nothing (a deleted file's too) is searched only when its first
        # line is removed, as a ``-U0`` hunk's is: its lines go to ``change.removed``.
        if not adds and not text.startswith(b"\n-", line_end):
            continue
        removed = _REMOVED_RE.findall(text, line_end, hunks[number + 1])
        change.removed.extend(removed)
        if hunk is not None and adds and removed:
            replaced.append((hunk[0], hunk[1], b"\n".join(removed)))
    base_path = old_path or path
    if base_path is not None and len(change.removed) > first_removed:
        change.removed_spans.append((base_path, first_removed, len(change.removed)))
    if path is None and binary is not None:
        change.touched.add(binary)
        change.files.append(ChangedFile(binary, frozenset(), whole=True))
    elif path is not None and total > MAX_ADDED_LINES:
        moved = old_path if old_path != path else None
        change.files.append(ChangedFile(path, frozenset(), moved, whole=True))
    elif path is not None and added:
        moved = old_path if old_path != path else None
        change.files.append(ChangedFile(path, frozenset(added), moved, replaced=tuple(replaced)))


def _binary_path(line: bytes, renamed: str | None) -> str | None:
    """The head path of a ``Binary files A and B differ`` line (None: deleted, or not
    told apart)."""
    body = line[len(b"Binary files ") : -len(b" differ")]
    if body.endswith(b"/dev/null"):
        return None  # deleted
    if renamed is not None:
        return renamed
    if body.startswith(b"/dev/null and "):
        raw = body[len(b"/dev/null and ") :]
    elif body.endswith(b'"'):
        raw = body[body.rfind(b' "b/') + 1 :]  # a quoted name holds no bare `"`
    else:
        half = 2 + (len(body) - len(b"a/ and b/")) // 2  # a/X and b/X: the same X
        if body[half : half + len(b" and b/")] != b" and b/":
            return None
        raw = body[half + len(b" and ") :]
    path = unquote_path(raw)
    return path[2:] if path.startswith("b/") else None


def changed_files(root: Path, base: Base, head: Head) -> Change:
    """The Python files the change adds lines to (with those lines) and all it touches."""
    args = [*_BIG_FILE, "diff", *_DIFF_FORMAT]
    if head.kind is HeadKind.STAGED:
        args += ["--cached", base.sha]
    elif head.kind is HeadKind.REV:
        args += [base.sha, str(head.sha)]
    else:
        args.append(base.sha)
    untracked = None
    if head.kind is HeadKind.WORKTREE:
        # git walks the whole tree for both: run them side by side.
        untracked = GitJob(
            root, ["ls-files", "-z", "--others", "--exclude-standard", "--", PY_PATHSPEC]
        )
    change = parse_patch(git_ok(root, [*args, "--", PY_PATHSPEC], "git diff failed"))
    change.files = [dataclasses.replace(f, base=base.sha) for f in change.files]
    if untracked is not None:
        for raw in untracked.output("git ls-files failed").split(b"\0"):
            if raw:
                path = raw.decode("utf-8", "surrogateescape")
                change.files.append(ChangedFile(path, frozenset(), whole=True))
                change.touched.add(path)
    change.files.sort(key=lambda f: f.path)
    return change


class HeadFiles:
    """The head versions of ``paths``: which are regular files and their sizes at once
    (cheap), the contents in batches when asked (to read while others parse).

    For the index and commits the blob ids come from ``ls-files -s -z`` / ``ls-tree -z``
    and ``cat-file --batch`` is asked for ids only: a file name with a newline (or one
    spelling ``HEAD:other.py``) cannot desync the batch.
    """

    def __init__(
        self, root: Path, head: Head, paths: Sequence[str], with_sizes: bool = True
    ) -> None:
        """Find the regular files among ``paths`` in the head, with their sizes (left
        empty for the index and commits when ``with_sizes`` is False)."""
        self.root = root
        self.head = head
        # path -> size in bytes, for the paths that are regular files in the head
        self.sizes: dict[str, int] = {}
        self._blobs: dict[str, str] = {}
        if head.kind is HeadKind.WORKTREE:
            for path in paths:
                try:
                    info = os.lstat(os.path.join(root, path))
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode):  # a symlink may point outside the repository
                    self.sizes[path] = info.st_size
            return
        if not paths:
            return
        self._blobs = _head_blobs(root, head, paths)
        if not with_sizes:
            return
        sizes = blob_sizes(root, sorted(set(self._blobs.values())))
        self.sizes = {path: sizes[blob] for path, blob in self._blobs.items() if blob in sizes}

    def read(self, paths: Sequence[str]) -> dict[str, bytes | None]:
        """The contents of ``paths`` (None when one is missing, not a regular file, or
        over :data:`MAX_FILE_BYTES`: such a file is never read whole)."""
        result: dict[str, bytes | None] = dict.fromkeys(paths)
        if self.head.kind is HeadKind.WORKTREE:
            for path in paths:
                full = os.path.join(self.root, path)
                try:
                    # A symlink is not followed: it may point outside the repository.
                    if stat.S_ISREG(os.lstat(full).st_mode):
                        with open(full, "rb") as handle:
                            data = handle.read(MAX_FILE_BYTES + 1)
                        result[path] = data if len(data) <= MAX_FILE_BYTES else None
                except OSError:
                    result[path] = None
            return result
        blobs = {
            path: self._blobs[path]
            for path in paths
            if path in self._blobs and self.sizes.get(path, 0) <= MAX_FILE_BYTES
        }
        contents = cat_blobs(self.root, sorted(set(blobs.values())))
        for path, blob in blobs.items():
            result[path] = contents.get(blob)
        return result


def read_head(root: Path, head: Head, paths: Sequence[str]) -> dict[str, bytes | None]:
    """The head contents of ``paths`` (None when a path is missing there or not a file)."""
    if head.kind is not HeadKind.WORKTREE and not paths:
        return {}
    return HeadFiles(root, head, paths).read(paths)


def read_base(root: Path, sha: str, path: str) -> bytes | None:
    """The version of ``path`` in commit ``sha`` (None when it is missing there, not a
    regular file, over :data:`MAX_FILE_BYTES`, or git cannot list it: a rule reading the
    base then has no evidence and judges the change's lines alone)."""
    try:
        return read_head(root, Head(HeadKind.REV, sha, sha), [path])[path]
    except PolicyError:
        return None


def _head_blobs(root: Path, head: Head, paths: Sequence[str]) -> dict[str, str]:
    """Path -> blob id in the index or the head commit, for the regular files of ``paths``."""
    literal = [p.encode("utf-8", "surrogateescape") for p in paths]
    if head.kind is HeadKind.STAGED:
        args = ["--literal-pathspecs", "ls-files", "-s", "-z", "--"]
    else:
        args = ["--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", str(head.sha), "--"]
    proc = run_git(root, args, stdin=None, extra=literal)
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip()
        raise PolicyError(f"{root}: git {args[1]} failed: {detail}")
    blobs: dict[str, str] = {}
    for record in proc.stdout.split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        if not tab:
            continue
        fields = meta.split()
        # ls-files -s: "mode sha stage"; ls-tree: "mode type sha"
        mode = fields[0]
        sha = fields[1] if head.kind is HeadKind.STAGED else fields[2]
        if head.kind is HeadKind.STAGED and fields[2] != b"0":
            continue  # a conflicted entry: no single content to sweep
        if mode in (b"100644", b"100755"):
            blobs[raw.decode("utf-8", "surrogateescape")] = sha.decode("ascii")
    return blobs
