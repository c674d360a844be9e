# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The import scan of a file, shared by the import rules (forbidden-import, torch-cuda,
stale-allow): one :class:`~policytool.formats.pyimports.FileScan` a file and one package
map a run."""

from __future__ import annotations

from policytool.core.memo import RunMemo
from policytool.engine.source import SourceFile
from policytool.formats.pyimports import FileScan


def packages_memo(memo: RunMemo) -> dict[tuple[str, str], str]:
    """The run's (root, directory) -> dotted package map, shared by every scan of a run."""
    return memo.value(("pyimports.packages",), dict)


_LAST: tuple[SourceFile, bytes, FileScan] | None = None


def scan_of(source: SourceFile, packages: dict[tuple[str, str], str] | None = None) -> FileScan:
    """The :class:`FileScan` of ``source``, shared by every rule checking it.

    ``packages`` is the run's (root, directory) -> package memo (see :func:`packages_memo`).
    """
    global _LAST
    if _LAST is not None and _LAST[0] is source and _LAST[1] is source.data:
        return _LAST[2]
    scan = FileScan(source.relpath, source.data, source.abspath)
    if packages is not None:
        scan.packages = packages
    _LAST = (source, source.data, scan)
    return scan
