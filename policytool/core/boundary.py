# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The repository is the boundary: which paths stay inside once symlinks are followed,
configured paths resolved inside, and bounded reads of regular files only.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from policytool.core.text import decode_text
from policytool.errors import BoundaryError, FileError


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


def read_text(root: Path, relpath: str) -> str:
    """The UTF-8 text of ``root/relpath`` (BOM dropped); :class:`FileError` names ``relpath``.

    Read with :func:`read_bounded`: a FIFO, a device or a file over the bound is refused.
    """
    return decode_text(read_bounded(root / relpath, relpath), relpath)


# Bounds on files policytool parses whole (configs, allowlists, locks, workflows): a PR
# author controls them, so a huge or endless one is refused before it is read.
MAX_CONFIG_BYTES = 4 * 1024 * 1024

# The bound on a source file `check` and `fix` read for the file rules (Python, shell,
# text): a larger text file is one finding, "not checked", and is never read whole.
# Parsing 4 MiB of Python takes about 400 MB; the largest .py in vLLM is 330 KB.
MAX_SOURCE_BYTES = 4 * 1024 * 1024


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
