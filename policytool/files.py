# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Which files to check, what kind each is, reading them, and writing them atomically."""

from __future__ import annotations

import codecs
import fnmatch
import os
import re
import stat
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Literal

from policytool.errors import BoundaryError, DecodeError, FileError, PolicyError, WriteError

BOM = codecs.BOM_UTF8  # the one UTF-8 byte order mark of policytool

# File kinds that take a line comment (a header such as SPDX can go in them).
CommentKind = Literal[
    "python", "stub", "shell", "yaml", "toml", "rust", "proto", "c", "cpp", "cuda", "js", "ts"
]
# Every file kind policytool tells apart (config keys such as ``spdx.kinds`` name them).
Kind = Literal[CommentKind, "text", "markdown"]

KIND_BY_SUFFIX: dict[str, Kind] = {
    ".py": "python",
    ".pyi": "stub",
    ".sh": "shell",
    ".bash": "shell",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".rs": "rust",
    ".proto": "proto",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".cu": "cuda",
    ".cuh": "cuda",
    ".js": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".ts": "ts",
    ".tsx": "ts",
    ".txt": "text",
    ".in": "text",
    ".md": "markdown",
}

# Line-comment syntax of the kinds that carry a header comment.
COMMENT_PREFIX_BY_KIND: dict[str, str] = {
    "python": "#",
    "stub": "#",
    "shell": "#",
    "yaml": "#",
    "toml": "#",
    "rust": "//",
    "proto": "//",
    "c": "//",
    "cpp": "//",
    "cuda": "//",
    "js": "//",
    "ts": "//",
}

# Interpreters named on a ``#!`` line -> kind, for files without a suffix.
_KIND_BY_INTERPRETER: dict[str, Kind] = {
    "python": "python",
    "sh": "shell",
    "bash": "shell",
    "zsh": "shell",
    "dash": "shell",
    "node": "js",
}

_INTERPRETER_RE = re.compile(rb"^#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?([A-Za-z]+)")


def kind_of(relpath: str, head: bytes) -> Kind | None:
    """File kind from the suffix, or for suffix-less files from the shebang."""
    name = relpath.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    if dot > 0:
        return KIND_BY_SUFFIX.get(name[dot:].lower())
    if head.startswith(b"#!"):
        match = _INTERPRETER_RE.match(head)
        if match:
            interpreter = match.group(1).decode("ascii").lower()
            interpreter = interpreter.rstrip("0123456789")  # python3 -> python
            return _KIND_BY_INTERPRETER.get(interpreter)
    return None


def is_binary(data: bytes) -> bool:
    """Git's heuristic: a NUL byte in the first 8000 bytes."""
    return data.find(b"\0", 0, 8000) != -1  # no copy of the head


@lru_cache(maxsize=4096)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a path glob: ``**`` spans directories, ``*`` and ``?`` stay inside one."""
    pattern = pattern.removeprefix("./")
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(c))
                i += 1
            else:
                out.append(fnmatch.translate(pattern[i : end + 1])[4:-3])
                i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    body = "".join(out)
    # A pattern without a slash matches the file name anywhere (like .gitignore);
    # a directory pattern also matches everything below it.
    if "/" not in pattern:
        body = f"(?:.*/)?{body}"
    return re.compile(f"{body}(?:/.*)?\\Z")


def glob_prefix(pattern: str) -> str:
    """The text every path ``pattern`` matches starts with (see :func:`_glob_regex`).

    The characters before the first wildcard; empty for a pattern without a slash,
    which matches a file name in any directory. Lets a caller pick the candidates of
    a glob out of a sorted path list with :mod:`bisect` instead of matching them all.
    """
    pattern = pattern.removeprefix("./")
    if "/" not in pattern:
        return ""
    end = len(pattern)
    for special in "*?[":
        index = pattern.find(special)
        if index != -1:
            end = min(end, index)
    return pattern[:end]


def match_glob(relpath: str, pattern: str) -> bool:
    """Whether repo-relative ``relpath`` matches ``pattern`` (see :func:`_glob_regex`)."""
    return _glob_regex(pattern).match(relpath) is not None


def match_any(relpath: str, patterns: Iterable[str]) -> bool:
    """Whether ``relpath`` matches any of ``patterns``."""
    return any(_glob_regex(p).match(relpath) for p in patterns)


def relative_to_root(path: str, root: Path, cwd: Path) -> str:
    """Repo-relative ``/`` path for a path given on the command line, however spelled.

    String operations only: pathlib costs more than the check itself on 5,000 paths.
    """
    absolute = os.path.normpath(os.path.join(cwd, path))
    top = str(root)
    if absolute == top:
        return ""
    if not absolute.startswith(top.rstrip(os.sep) + os.sep):
        raise PolicyError(f"{path}: outside the repository at {root}")
    rel = absolute[len(top.rstrip(os.sep)) + 1 :]
    return rel.replace(os.sep, "/") if os.sep != "/" else rel


# From this many paths on the command line, each directory is listed once (os.scandir)
# instead of a stat and an lstat for each file: one file's directory may hold hundreds.
LISTING_MIN_PATHS = 64


def discover(
    root: Path, paths: Sequence[str] | None, cwd: Path, exclude: Sequence[str]
) -> list[str]:
    """Repo-relative files to check: ``paths`` as given, else all tracked files.

    Missing paths are an error; directories expand to the files below them; global
    ``exclude`` globs are removed either way.
    """
    boundary = Boundary(root)
    if paths:
        found: list[str] = []
        top = str(root)
        listed = len(paths) >= LISTING_MIN_PATHS  # a few paths: a stat each is cheaper
        for given in paths:
            rel = relative_to_root(given, root, cwd)
            if listed and boundary.listed_regular(rel):  # no syscall a file
                found.append(rel)
                continue
            absolute = os.path.join(top, rel)
            if os.path.isfile(absolute):
                if not boundary.file_inside(rel):
                    raise BoundaryError(f"{given}: resolves outside the repository at {root}")
                found.append(rel)
            elif os.path.isdir(absolute):
                if not boundary.dir_inside(absolute):
                    raise BoundaryError(f"{given}: resolves outside the repository at {root}")
                found.extend(_files_below(root, rel, boundary))
            else:
                raise PolicyError(f"{given}: no such file")
        files = found
    else:
        from policytool.core.git import git_ls_files, git_root  # git only when listing

        try:
            tracked = git_ls_files(root)
        except (PolicyError, OSError):
            if git_root(root) is None:  # asked only now: one git process on the usual path
                raise PolicyError(
                    f"{root}: not a git repository; pass the files to check as arguments"
                ) from None
            raise
        files = boundary.files_inside(tracked)
    seen: set[str] = set()
    result = []
    for rel in files:
        if rel in seen or (exclude and match_any(rel, exclude)):
            continue
        seen.add(rel)
        result.append(rel)
    return sorted(result)


def _files_below(root: Path, rel: str, boundary: Boundary) -> list[str]:
    """The files below directory ``rel``: tracked ones in a git repo, else all; inside only."""
    from policytool.core.git import git_ls_files, git_root  # git only when listing

    if git_root(root) is not None:
        tracked = boundary.files_inside(git_ls_files(root, [rel or "."]))
        if tracked:
            return tracked
    out = []
    # An explicit stack, not os.walk (recursive before Python 3.12): any depth the file
    # system holds is walked. Directory links are not followed; unreadable ones skipped.
    pending = [rel]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(root / directory) as entries:
                listed = sorted(
                    (entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries
                )
        except OSError:
            continue
        for name, is_dir in listed:
            relpath = f"{directory}/{name}" if directory else name
            if is_dir:
                if name != ".git":
                    pending.append(relpath)
            elif boundary.file_inside(relpath):
                out.append(relpath)
    return out


class Boundary:
    """Which repo paths stay inside the repository once symlinks are followed.

    Discovery keeps a file only when it is a regular file, or a symlink to a regular
    file, whose real path is inside the repository: a committed ``vendor -> ../../x``
    link is never followed out, so nothing outside is read or written. Directories are
    checked once each (one ``lstat`` a directory, memoised).
    """

    def __init__(self, root: Path) -> None:
        """Start with ``root`` (the repository top) as the one known-good directory."""
        self.top = os.path.normpath(str(root))
        self.real = os.path.realpath(self.top)
        self._prefix = self.top.rstrip(os.sep) + os.sep
        self._dirs: dict[str, bool] = {self.top: True}
        # repo-relative directory -> name -> is a regular file (symlinks left out)
        self._listings: dict[str, dict[str, bool]] = {}

    def _real_inside(self, path: str) -> bool:
        """Whether ``path`` (absolute) resolves to the repository or below it."""
        real = os.path.realpath(path)
        return real == self.real or real.startswith(self.real.rstrip(os.sep) + os.sep)

    def dir_inside(self, directory: str) -> bool:
        """Whether absolute ``directory`` (at or below the top) resolves inside the repo."""
        known = self._dirs.get(directory)
        if known is not None:
            return known
        # Iterative, not recursive: a path thousands of directories deep is walked up to
        # the nearest known directory, then judged downwards, one lstat a directory.
        chain = []
        current = directory
        while (known := self._dirs.get(current)) is None:
            parent = os.path.dirname(current)
            if parent == current or not current.startswith(self._prefix):
                known = self._dirs[current] = False
                break
            chain.append(current)
            current = parent
        inside = known
        for below in reversed(chain):
            if inside and os.path.islink(below):
                inside = self._real_inside(below)
            self._dirs[below] = inside
        return inside

    def files_inside(self, relpaths: Sequence[str]) -> list[str]:
        """The paths of ``relpaths`` that :meth:`file_inside` keeps, in their order.

        One ``os.scandir`` a directory tells regular files from the rest without an
        ``lstat`` a file (8,500 on vLLM); a symlink, or a name the listing does not
        hold as spelled (a case-insensitive file system), takes :meth:`file_inside`.
        """
        kept = []
        for relpath in relpaths:
            regular = self._listed(relpath)
            if regular if regular is not None else self.file_inside(relpath):
                kept.append(relpath)
        return kept

    def listed_regular(self, relpath: str) -> bool:
        """Whether ``relpath`` is a regular file inside the repository by its directory's
        listing (False also when unsure: then ask :meth:`file_inside`)."""
        return self._listed(relpath) is True

    def _listed(self, relpath: str) -> bool | None:
        """Whether the directory listing shows ``relpath`` as a regular file (None: not
        listed as spelled, or a symlink)."""
        slash = relpath.rfind("/")
        directory = relpath[:slash] if slash >= 0 else ""
        listing = self._listings.get(directory)
        if listing is None:
            listing = self._listings[directory] = self._regular_files(directory)
        return listing.get(relpath[slash + 1 :])

    def _regular_files(self, directory: str) -> dict[str, bool]:
        """Name -> whether it is a regular file, for repo-relative ``directory``.

        Empty when the directory is outside the repository (its files are then checked
        one by one, and refused); symlinks are left out (they need the full check).
        """
        absolute = self._prefix + directory if directory else self.top
        if not self.dir_inside(absolute):
            return {}
        try:
            with os.scandir(absolute) as entries:
                return {
                    entry.name: entry.is_file(follow_symlinks=False)
                    for entry in entries
                    if not entry.is_symlink()
                }
        except OSError:
            return {}

    def file_inside(self, relpath: str) -> bool:
        """Whether ``relpath`` is a regular file, or a link to one, inside the repository."""
        # String operations: this runs once a tracked file (8,500 on vLLM).
        absolute = self._prefix + relpath
        slash = relpath.rfind("/")
        directory = self._prefix + relpath[:slash] if slash >= 0 else self.top
        inside = self._dirs.get(directory)
        if not (inside if inside is not None else self.dir_inside(directory)):
            return False
        try:
            mode = os.lstat(absolute).st_mode
        except OSError:
            return False
        if stat.S_ISREG(mode):
            return True
        return stat.S_ISLNK(mode) and self._real_inside(absolute) and os.path.isfile(absolute)


# A line ends at \n, \r\n or \r (the last line may have no ending).
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str, keepends: bool = True) -> list[str]:
    """``text`` split into lines (with their endings unless ``keepends`` is False), where
    Python, YAML and a finding's line number end a line: at ``\\n``, ``\\r\\n`` and
    ``\\r`` only.

    Not ``str.splitlines``, which also breaks at form feeds, NEL and LS/PS, so line N of
    its list is not line N of a file holding one (``\\x0c`` page breaks are common in
    older Python sources).
    """
    lines: list[str] = _LINE_RE.findall(text)
    if keepends:
        return lines
    return [line.rstrip("\r\n") for line in lines]


def decode_text(data: bytes, path: str, encoding: str = "utf-8") -> str:
    """``data`` as text (UTF-8 unless told), a leading UTF-8 BOM dropped.

    Bytes not valid in ``encoding`` raise :class:`DecodeError` naming ``path`` and line.
    """
    body = data[len(BOM) :] if data.startswith(BOM) else data
    try:
        return body.decode(encoding)
    except UnicodeDecodeError as exc:
        line = body[: exc.start].count(b"\n") + 1
        raise DecodeError(path, line, exc.reason, encoding) from None


def encode_like(original: bytes, text: str) -> bytes:
    """``text`` as UTF-8, with a BOM in front when ``original`` starts with one."""
    data = text.encode("utf-8")
    return BOM + data if original.startswith(BOM) else data


def read_text(root: Path, relpath: str) -> str:
    """The UTF-8 text of ``root/relpath`` (BOM dropped); :class:`FileError` names ``relpath``.

    Read with :func:`read_bounded`: a FIFO, a device or a file over the bound is refused.
    """
    return decode_text(read_bounded(root / relpath, relpath), relpath)


# Temp files of write_atomic: ``.NAME.<random>.policytool.tmp`` next to NAME. One older
# than STALE_TMP_SECONDS was left by a killed run and is removed by the next write into
# its directory.
TMP_SUFFIX = ".policytool.tmp"
STALE_TMP_SECONDS = 60.0


def unwritable_reason(path: Path) -> str | None:
    """Why :func:`write_atomic` refuses ``path`` (a symlink, read-only), or None."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISLNK(info.st_mode):
        return "it is a symlink (policytool never writes through one; change its target)"
    if info.st_mode & 0o222 == 0:
        return "it is read-only (chmod u+w it to let policytool change it)"
    return None


# Directories this process already swept for stale temp files: a fix writing 3,000 files
# of one directory lists it once, not 3,000 times. (A side effect done once, not a cache
# of values: nothing is read back from it.)
_SWEPT_DIRS: set[str] = set()


def _remove_stale_temps(dir_fd: int, directory: str) -> None:
    """Delete temp files a killed run left in the directory open as ``dir_fd`` (older
    than a minute: not in flight), once a process per directory (named ``directory``)."""
    import time

    if directory in _SWEPT_DIRS:
        return
    _SWEPT_DIRS.add(directory)
    cutoff = time.time() - STALE_TMP_SECONDS
    try:
        names = os.listdir(dir_fd)
    except OSError:
        return
    for name in names:
        if not (name.startswith(".") and name.endswith(TMP_SUFFIX)):
            continue
        try:
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_mtime < cutoff:
                os.unlink(name, dir_fd=dir_fd)
        except FileNotFoundError:
            continue  # another run cleaned it first


def _dir_fd_inside(dir_fd: int, directory: Path, inside: Path) -> bool:
    """Whether the directory open as ``dir_fd`` (opened from ``directory``) is ``inside``
    or below it, judged on the open directory itself, not on a path that can change."""
    top = os.path.realpath(inside)
    try:
        real = os.readlink(f"/proc/self/fd/{dir_fd}")  # Linux: the open directory's path
    except OSError:
        real = ""
    if not real.startswith(os.sep):  # no /proc: the resolved path, if it is that directory
        real = os.path.realpath(directory)
        try:
            held, there = os.fstat(dir_fd), os.stat(real)
        except OSError:
            return False
        if (held.st_dev, held.st_ino) != (there.st_dev, there.st_ino):
            return False
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def write_atomic(path: Path, data: bytes, *, inside: Path | None = None) -> None:
    """Replace ``path`` with ``data`` via a temp file in the same directory.

    - On any failure (disk full, file too large...) the original file is untouched, the
      temp file is removed, and :class:`WriteError` names the path: one sentence, exit 2.
    - Never through a symlink, never over a read-only file (no write bit): both are
      refused with :class:`WriteError` (``fix`` reports them as "not fixed" instead).
    - ``inside`` (the repository root): the directory is opened once and every later
      call is relative to that open directory, which must resolve inside ``inside``; a
      parent directory swapped for a link that leads out, before or during the write,
      cannot move the write out of the repository.
    - The mode is kept, and the owner and group where the process may set them (root,
      or a group it belongs to); otherwise the file becomes the writer's, as any editor
      that saves by rename would leave it.
    - Hard links: the new content is a new file, so other hard links to the old one keep
      the old content.
    - Temp files a killed run left in ``path``'s directory (``.*.policytool.tmp`` older
      than a minute) are removed first, once a process per directory.
    """
    reason = unwritable_reason(path)
    if reason is not None:
        raise WriteError(str(path), reason)
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise WriteError(str(path), exc.strerror or str(exc)) from None
    try:
        if inside is not None and not _dir_fd_inside(dir_fd, path.parent, inside):
            raise WriteError(str(path), f"its directory resolves outside {inside}")
        _write_in(dir_fd, path, data)
    finally:
        os.close(dir_fd)


def _write_in(dir_fd: int, path: Path, data: bytes) -> None:
    """:func:`write_atomic` once ``path``'s directory is open as ``dir_fd``."""
    import secrets

    name = path.name
    try:
        info: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise WriteError(str(path), exc.strerror or str(exc)) from None
    if info is not None and stat.S_ISLNK(info.st_mode):  # swapped for a link since
        raise WriteError(str(path), "it is a symlink (policytool never writes through one)")
    _remove_stale_temps(dir_fd, os.fspath(path.parent))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _attempt in range(100):
        tmp = f".{name}.{secrets.token_hex(4)}{TMP_SUFFIX}"
        try:
            fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise WriteError(str(path), exc.strerror or str(exc)) from None
    else:
        raise WriteError(str(path), "no free temporary file name")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if info is not None:
                os.fchmod(fd, info.st_mode & 0o7777)
                if (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
                    try:
                        os.fchown(fd, info.st_uid, info.st_gid)
                    except PermissionError:
                        pass  # not permitted: the file becomes the writer's (documented)
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.fchmod(fd, 0o666 & ~umask)
            os.fsync(fd)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except OSError as exc:
        _unlink_quietly(tmp, dir_fd)
        raise WriteError(str(path), exc.strerror or str(exc)) from None
    except BaseException:
        # Re-raised below (KeyboardInterrupt...): only removes our temp file.
        _unlink_quietly(tmp, dir_fd)
        raise


def _unlink_quietly(path: str, dir_fd: int | None = None) -> None:
    """Remove ``path`` if it is there."""
    try:
        os.unlink(path, dir_fd=dir_fd)
    except FileNotFoundError:
        pass


# Bounds on files policytool parses whole (configs, allowlists, locks, workflows): a PR
# author controls them, so a huge or endless one is refused before it is read.
MAX_CONFIG_BYTES = 4 * 1024 * 1024
# The FileError reason of a file that is not there (callers tell it from other failures).
NO_SUCH_FILE = "no such file"


def resolve_inside(root: Path, relpath: str, what: str) -> Path:
    """``root/relpath`` with symlinks followed, refused unless it stays inside ``root``.

    ``what`` names the setting in the message (``"[tool.policytool.spdx] allowlist-file"``).
    A PR author controls the config, so a path may not be absolute, climb out with
    ``..``, or reach outside through a symlink.
    """
    real_root = Path(os.path.realpath(root))
    if os.path.isabs(relpath):
        raise BoundaryError(f"{what}: {relpath!r} is absolute; paths are relative to the repo")
    target = Path(os.path.realpath(real_root / relpath))
    if target != real_root and real_root not in target.parents:
        raise BoundaryError(f"{what}: {relpath!r} resolves outside the repository ({target})")
    return target


def parse_json(data: bytes | str) -> object:
    """``json.loads``, with nesting too deep for the parser a ``ValueError`` too.

    The one home of JSON parsing: 100,000 ``[`` in a file a pull request controls (the
    baseline) or in an answer from the network is one sentence, never a RecursionError.
    """
    import json

    try:
        parsed: object = json.loads(data)
    except RecursionError:
        raise ValueError("nested too deeply to parse") from None
    return parsed


def read_bounded(path: Path, shown: str, limit: int = MAX_CONFIG_BYTES) -> bytes:
    """The bytes of regular file ``path``, refusing devices, FIFOs and files over ``limit``.

    ``shown`` is the repo-relative name used in the :class:`FileError` message.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FileError(shown, NO_SUCH_FILE) from None
    except OSError as exc:
        raise FileError(shown, f"cannot read: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)  # before fdopen: it refuses a directory with IsADirectoryError
        raise FileError(shown, "not a regular file (a device, FIFO or directory)")
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > limit:
            raise FileError(shown, f"{info.st_size} bytes, over the {limit}-byte limit")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileError(shown, f"over the {limit}-byte limit")
    return data
