# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The one exception type the CLI turns into exit code 2 and a one-sentence message."""

from __future__ import annotations


class PolicyError(Exception):
    """A usage, configuration or environment error; ``str()`` is the whole message."""
