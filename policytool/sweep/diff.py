# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``git diff`` -> the lines a change adds, per Python file, and the head contents.

The base is the merge-base of ``--base REV`` (default ``origin/main``, falling back to
``main``) with the head. The head is the working tree (default), the index
(``--staged``) or a commit (``--head REV``). Renamed files count only their changed
lines, deleted files nothing. Every git failure the user can cause is a PolicyError.
"""

from __future__ import annotations

import enum
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.errors import PolicyError

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
_GIT_CONFIG = (
    "-c",
    "core.quotepath=off",
    "-c",
    "diff.mnemonicPrefix=false",
    "-c",
    "color.ui=never",
)
PY_PATHSPEC = "*.py"
DEFAULT_BASES = ("origin/main", "main")

_HUNK_RE = re.compile(rb"^@@+ (?:-\d+(?:,\d+)? )+\+(\d+)(?:,(\d+))? @@")


class HeadKind(str, enum.Enum):
    """What the change is compared against the base with."""

    WORKTREE = "worktree"
    STAGED = "staged"
    REV = "rev"


@dataclass(frozen=True)
class Head:
    """The head of the change: the working tree, the index or a commit."""

    kind: HeadKind = HeadKind.WORKTREE
    rev: str | None = None

    def label(self) -> str:
        """How the head is named in the report."""
        if self.kind is HeadKind.REV:
            return str(self.rev)
        return "the index" if self.kind is HeadKind.STAGED else "the working tree"


@dataclass(frozen=True)
class Base:
    """The resolved base: what the user asked for and the merge-base commit."""

    name: str
    sha: str


@dataclass(frozen=True)
class ChangedFile:
    """One Python file of the change and the head line numbers it adds."""

    path: str
    added: frozenset[int]
    old_path: str | None = None
    # True when every line counts (a new untracked file in the working tree).
    whole: bool = False


def run_git(
    root: Path, args: Sequence[str], stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run git in ``root`` with a fixed output format; a missing git is a PolicyError."""
    try:
        return subprocess.run(
            ["git", *_GIT_CONFIG, *args],
            cwd=root,
            input=stdin,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError:
        raise PolicyError("git is not installed or not on PATH; sweep needs it") from None


class GitJob:
    """A git command running in the background (to overlap git's own tree walks)."""

    def __init__(self, root: Path, args: Sequence[str]) -> None:
        """Start ``git ARGS`` in ``root``."""
        self.root = root
        self._done: subprocess.CompletedProcess[bytes] | None = None
        try:
            self._proc = subprocess.Popen(
                ["git", *_GIT_CONFIG, *args],
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except FileNotFoundError:
            raise PolicyError("git is not installed or not on PATH; sweep needs it") from None

    def result(self) -> subprocess.CompletedProcess[bytes]:
        """Wait for the command (once); its exit code and output."""
        if self._done is None:
            out, err = self._proc.communicate()
            self._done = subprocess.CompletedProcess(
                self._proc.args, self._proc.returncode, out, err
            )
        return self._done

    def output(self, what: str) -> bytes:
        """stdout of a command that must succeed; otherwise a PolicyError about ``what``."""
        proc = self.result()
        if proc.returncode != 0:
            lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            detail = lines[-1] if lines else f"exit code {proc.returncode}"
            raise PolicyError(f"{self.root}: {what}: {detail}")
        return proc.stdout


def _git_ok(root: Path, args: Sequence[str], what: str) -> bytes:
    """stdout of a git command that must succeed; otherwise a PolicyError about ``what``."""
    proc = run_git(root, args)
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = lines[-1] if lines else f"exit code {proc.returncode}"
        raise PolicyError(f"{root}: {what}: {detail}")
    return proc.stdout


def _commit_sha(root: Path, rev: str) -> str | None:
    """The commit ``rev`` names, or None when it names none."""
    if rev.startswith("-"):
        return None
    proc = run_git(
        root, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"]
    )
    if proc.returncode != 0:
        return None
    return proc.stdout.decode().strip()


def resolve_base(root: Path, base: str | None, head: Head) -> Base:
    """The merge-base of ``base`` (or the default) with the head commit."""
    if base is not None:
        base_sha = _commit_sha(root, base)
        if base_sha is None:
            raise PolicyError(f"{root}: --base {base}: no such commit in this repository")
        name = base
    else:
        for candidate in DEFAULT_BASES:
            found = _commit_sha(root, candidate)
            if found is not None:
                name, base_sha = candidate, found
                break
        else:
            raise PolicyError(
                f"{root}: neither origin/main nor main exists; "
                "pass --base REV to say what to compare with"
            )
    head_rev = head.rev if head.kind is HeadKind.REV and head.rev else "HEAD"
    head_sha = _commit_sha(root, head_rev)
    if head_sha is None:
        if head.kind is HeadKind.REV:
            raise PolicyError(f"{root}: --head {head_rev}: no such commit in this repository")
        raise PolicyError(f"{root}: the repository has no commit yet; commit once, then sweep")
    out = _git_ok(
        root, ["merge-base", base_sha, head_sha], f"no merge-base between {name} and {head_rev}"
    )
    return Base(name, out.decode().strip())


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


def parse_patch(patch: bytes) -> Change:
    """Added head line numbers per file from a ``-U0`` patch, and all touched paths."""
    change = Change()
    path: str | None = None
    old_path: str | None = None
    added: set[int] = set()
    in_header = False

    def flush() -> None:
        """Keep the file just parsed when it adds lines."""
        if path is not None and added:
            moved = old_path if old_path != path else None
            change.files.append(ChangedFile(path, frozenset(added), moved))

    for line in patch.splitlines():
        if line.startswith(b"diff --git "):
            flush()
            path, old_path, added, in_header = None, None, set(), True
        elif in_header and line.startswith(b"--- "):
            old_path = _header_path(line, b"a/")
            change.touched.update([old_path] if old_path else [])
        elif in_header and line.startswith(b"+++ "):
            path = _header_path(line, b"b/")
            change.touched.update([path] if path else [])
        elif in_header and line.startswith((b"rename from ", b"rename to ")):
            raw = line.split(b" ", 2)[2]
            change.touched.add(unquote_path(raw))
        elif line.startswith(b"@@"):
            in_header = False
            match = _HUNK_RE.match(line)
            if match and path is not None:
                start = int(match.group(1))
                count = int(match.group(2)) if match.group(2) is not None else 1
                added.update(range(start, start + count))
    flush()
    return change


def changed_files(root: Path, base: Base, head: Head) -> Change:
    """The Python files the change adds lines to (with those lines) and all it touches."""
    args = ["diff", *_DIFF_FORMAT]
    if head.kind is HeadKind.STAGED:
        args += ["--cached", base.sha]
    elif head.kind is HeadKind.REV:
        args += [base.sha, str(head.rev)]
    else:
        args.append(base.sha)
    untracked = None
    if head.kind is HeadKind.WORKTREE:
        # git walks the whole tree for both: run them side by side.
        untracked = GitJob(
            root, ["ls-files", "-z", "--others", "--exclude-standard", "--", PY_PATHSPEC]
        )
    change = parse_patch(_git_ok(root, [*args, "--", PY_PATHSPEC], "git diff failed"))
    if untracked is not None:
        for raw in untracked.output("git ls-files failed").split(b"\0"):
            if raw:
                path = raw.decode("utf-8", "surrogateescape")
                change.files.append(ChangedFile(path, frozenset(), whole=True))
                change.touched.add(path)
    change.files.sort(key=lambda f: f.path)
    return change


def read_head(root: Path, head: Head, paths: Sequence[str]) -> dict[str, bytes | None]:
    """The head contents of ``paths`` (None when a path is missing there)."""
    if head.kind is HeadKind.WORKTREE:
        result: dict[str, bytes | None] = {}
        for path in paths:
            try:
                result[path] = (root / path).read_bytes()
            except OSError:
                result[path] = None
        return result
    prefix = ":" if head.kind is HeadKind.STAGED else f"{head.rev}:"
    request = b"".join(f"{prefix}{path}\n".encode("utf-8", "surrogateescape") for path in paths)
    proc = run_git(root, ["cat-file", "--batch"], stdin=request)
    if proc.returncode != 0:
        raise PolicyError(
            f"{root}: git cat-file failed: {proc.stderr.decode('utf-8', 'replace').strip()}"
        )
    return parse_batch(proc.stdout, paths)


def parse_batch(out: bytes, paths: Sequence[str]) -> dict[str, bytes | None]:
    """Split ``git cat-file --batch`` output into one blob per requested path."""
    result: dict[str, bytes | None] = {}
    pos = 0
    for path in paths:
        end = out.index(b"\n", pos)
        header = out[pos:end].split(b" ")
        pos = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            result[path] = out[pos : pos + size]
            pos += size + 1
        elif len(header) == 3:
            # Not a blob (a submodule or tree): skip its body.
            pos += int(header[2]) + 1
            result[path] = None
        else:
            result[path] = None  # "<name> missing"
    return result
