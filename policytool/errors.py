# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Every user-facing error: the CLI turns each into one sentence on stderr and exit 2."""

from __future__ import annotations


class PolicyError(Exception):
    """A usage, configuration or environment error; ``str()`` is the whole message."""


class TomlError(PolicyError):
    """A TOML file cannot be parsed (invalid, or nested too deep); names the file."""
