# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The repository's path globs (``**`` spans directories, ``*`` one name), compiled once
each.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from functools import lru_cache


@lru_cache(maxsize=4096)
def glob_regex(pattern: str) -> re.Pattern[str]:
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
    """The text every path ``pattern`` matches starts with (see :func:`glob_regex`).

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
    """Whether repo-relative ``relpath`` matches ``pattern`` (see :func:`glob_regex`)."""
    return glob_regex(pattern).match(relpath) is not None


def match_any(relpath: str, patterns: Iterable[str]) -> bool:
    """Whether ``relpath`` matches any of ``patterns``."""
    return any(glob_regex(p).match(relpath) for p in patterns)
