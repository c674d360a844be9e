# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Which files a run checks: the paths given (directories expanded) or every tracked file,
inside the repository, less the global excludes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from policytool.core.boundary import Boundary
from policytool.core.globs import match_any
from policytool.errors import BoundaryError, PolicyError


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
