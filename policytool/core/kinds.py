# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What kind a file is (by suffix or shebang), the comment prefix of each kind, and whether
its bytes are binary.
"""

from __future__ import annotations

import re
from typing import Literal

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
