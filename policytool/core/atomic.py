# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Atomic writes: a temp file beside the target, renamed over it, through the directory
held open and judged inside the repository.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from policytool.errors import WriteError

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


# ``fix --diff``: while a list is set here, write_atomic records (path, old bytes, new
# bytes) instead of writing (one entry a path: its first old and its last new bytes).
_RECORDED: list[tuple[Path, bytes, bytes]] | None = None


@contextlib.contextmanager
def record_writes() -> Iterator[list[tuple[Path, bytes, bytes]]]:
    """Within the block, this process records writes instead of making them: the record."""
    global _RECORDED
    _RECORDED = []
    try:
        yield _RECORDED
    finally:
        _RECORDED = None


def recording() -> bool:
    """Whether writes are recorded, not made (``fix --diff``)."""
    return _RECORDED is not None


def _record(path: Path, data: bytes) -> None:
    """Record a write ``fix --diff`` would make, after the checks a real write makes."""
    assert _RECORDED is not None
    path = Path(os.path.abspath(path))
    for index, (seen, old, _new) in enumerate(_RECORDED):
        if seen == path:
            _RECORDED[index] = (seen, old, data)
            return
    try:
        old = path.read_bytes()
    except FileNotFoundError:
        old = b""
    _RECORDED.append((path, old, data))


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
    if _RECORDED is not None:
        _record(path, data)
        return
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
