# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The one way policytool runs git on the repository: a fixed output format whatever the
user's git config says, an argument list (never a shell), stdout as bytes, and a missing
git as one sentence. Objects are read by id (``cat-file --batch``) and names NUL-separated,
so a file name can never be taken for an option or for another file's content.

(``fix --online`` asks remote repositories with ``git ls-remote`` under its own, stricter
isolation: :mod:`policytool.rules.action_pin`.)
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from policytool.errors import PolicyError

# Options that pin down the output format whatever the user's git config says.
GIT_CONFIG = (
    "-c",
    "core.quotepath=off",
    "-c",
    "diff.mnemonicPrefix=false",
    "-c",
    "color.ui=never",
)


def run_git(
    root: Path,
    args: Sequence[str],
    stdin: bytes | None = None,
    extra: Sequence[bytes] = (),
) -> subprocess.CompletedProcess[bytes]:
    """Run git in ``root`` with a fixed output format; a missing git is a PolicyError.

    ``extra`` are arguments as raw bytes (file names that are not valid UTF-8).
    """
    try:
        return subprocess.run(
            [b"git", *(a.encode() for a in (*GIT_CONFIG, *args)), *extra],
            cwd=root,
            input=stdin,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError:
        raise PolicyError("git is not installed or not on PATH; policytool needs it") from None


class GitJob:
    """A git command running in the background (to overlap git's own tree walks)."""

    def __init__(self, root: Path, args: Sequence[str]) -> None:
        """Start ``git ARGS`` in ``root``."""
        self.root = root
        self._done: subprocess.CompletedProcess[bytes] | None = None
        try:
            self._proc = subprocess.Popen(
                ["git", *GIT_CONFIG, *args],
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except FileNotFoundError:
            raise PolicyError("git is not installed or not on PATH; policytool needs it") from None

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


def git_ok(root: Path, args: Sequence[str], what: str) -> bytes:
    """stdout of a git command that must succeed; otherwise a PolicyError about ``what``."""
    proc = run_git(root, args)
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = lines[-1] if lines else f"exit code {proc.returncode}"
        raise PolicyError(f"{root}: {what}: {detail}")
    return proc.stdout


def commit_sha(root: Path, rev: str) -> str | None:
    """The commit ``rev`` names, or None when it names none (``--end-of-options``: a
    rev starting with ``-`` is a rev, never an option)."""
    proc = run_git(
        root, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"]
    )
    if proc.returncode != 0:
        return None
    return proc.stdout.decode().strip()


def git_root(start: Path) -> Path | None:
    """The top of the git work tree containing ``start``, or None."""
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=start,
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        return None
    if proc.returncode != 0:
        return None
    return Path(proc.stdout.strip()).resolve()


def git_ls_files(root: Path, under: Sequence[str] = ()) -> list[str]:
    """The tracked files under ``root`` (repo-relative, ``/``-separated)."""
    proc = run_git(root, ["ls-files", "-z", "--", *under])
    if proc.returncode != 0:
        message = proc.stderr.decode(errors="replace").strip().splitlines()
        raise PolicyError(
            f"{root}: git ls-files failed: {message[-1] if message else proc.returncode}"
        )
    return [p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def _cat_file(root: Path, blobs: Sequence[str], option: str) -> bytes:
    """The output of ``git cat-file OPTION`` for blob ids (hex only, one a line: nothing
    else goes into the batch)."""
    for blob in blobs:
        if not re.fullmatch(r"[0-9a-f]{40,64}", blob):
            raise ValueError(f"not a blob id: {blob!r}")
    request = "".join(f"{blob}\n" for blob in blobs).encode("ascii")
    proc = run_git(root, ["cat-file", option], stdin=request)
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip()
        raise PolicyError(f"{root}: git cat-file failed: {detail}")
    return proc.stdout


def cat_blobs(root: Path, blobs: Sequence[str]) -> dict[str, bytes]:
    """The contents of blob ids (``cat-file --batch``); a missing one is left out."""
    if not blobs:
        return {}
    out = _cat_file(root, blobs, "--batch")
    return {blob: data for blob, data in parse_batch(out, blobs).items() if data is not None}


def blob_sizes(root: Path, blobs: Sequence[str]) -> dict[str, int]:
    """The sizes of blob ids (``cat-file --batch-check``); a missing one is left out."""
    if not blobs:
        return {}
    sizes: dict[str, int] = {}
    for line in _cat_file(root, blobs, "--batch-check").split(b"\n"):
        fields = line.split(b" ")
        if len(fields) == 3 and fields[1] == b"blob" and fields[2].isdigit():
            sizes[fields[0].decode("ascii")] = int(fields[2])
    return sizes


def parse_batch(out: bytes, names: Sequence[str]) -> dict[str, bytes | None]:
    """Split ``git cat-file --batch`` output into one blob per requested object id."""
    result: dict[str, bytes | None] = {}
    pos = 0
    for name in names:
        end = out.find(b"\n", pos)
        if end < 0:
            result[name] = None
            continue
        header = out[pos:end].split(b" ")
        pos = end + 1
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            result[name] = out[pos : pos + size] if header[1] == b"blob" else None
            pos += size + 1
        else:
            result[name] = None  # "<id> missing"
    return result
