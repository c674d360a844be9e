# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Every user-facing error: the CLI turns each into one sentence on stderr and exit 2."""

from __future__ import annotations


class PolicyError(Exception):
    """A usage, configuration or environment error; ``str()`` is the whole message."""


class TomlError(PolicyError):
    """A TOML file cannot be parsed (invalid, or nested too deep); names the file."""


class ConfigError(PolicyError):
    """The configuration cannot be used; the message names file, key and line."""


class FileError(PolicyError):
    """A file that cannot be read as text: ``reason`` without the path, ``line`` (1-based)."""

    def __init__(self, path: str, reason: str, line: int | None = None) -> None:
        """Name ``path`` (and ``line`` when known) in front of ``reason``."""
        super().__init__(f"{path}:{line}: {reason}" if line is not None else f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.line = line if line is not None else 1


class DecodeError(FileError):
    """Bytes not valid in their encoding; ``detail`` is the codec's reason."""

    def __init__(self, path: str, line: int, detail: str, encoding: str = "utf-8") -> None:
        """Name ``path`` and the ``line`` the bad bytes are on."""
        shown = "UTF-8" if encoding == "utf-8" else encoding
        super().__init__(path, f"not valid {shown}", line)
        self.detail = detail
        self.encoding = encoding


class BoundaryError(PolicyError):
    """A configured path that resolves outside the repository, or is not a regular file."""


class FileProblem(PolicyError):
    """A file the repo rules read (a pre-commit config, a workflow, a Mergify file) is unusable.

    Carries where (``relpath``, 1-based ``line``) and why (``message``): a rule reports it
    as one finding of its own id, a command (``sync``) as one sentence with exit 2.
    """

    def __init__(self, relpath: str, line: int, message: str) -> None:
        """Name the file, the line and the reason."""
        super().__init__(f"{relpath}:{line}: {message}")
        self.relpath = relpath
        self.line = line
        self.message = message


class YamlError(FileProblem):
    """A YAML file cannot be read or parsed (or is over a bound); names the file and line."""


class DuplicateKeyError(YamlError):
    """A mapping key written twice, in a file whose consumers disagree on which one counts."""


class WriteError(PolicyError):
    """A file cannot be written (disk full, file too large, read-only, a symlink...).

    ``reason`` is the message without the path; the file was left as it was.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: cannot write: {reason}")
        self.path = path
        self.reason = reason


class BackendError(PolicyError):
    """The lock backend ran but could not produce a lock (resolution failed, no network...)."""


class Terminated(PolicyError):
    """SIGTERM arrived (a CI timeout): handled like Ctrl-C, every file restored."""


class UnknownListError(PolicyError):
    """An entry that names no kind of dependency list; the message says the spellings.

    ``where`` is ``path:line: `` (or empty), ``detail`` the rest, so a caller can put
    its config key between them.
    """

    def __init__(self, where: str, detail: str) -> None:
        """Keep the two parts of the message."""
        super().__init__(f"{where}{detail}")
        self.where = where
        self.detail = detail
