# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""policytool: reproducible, policy-clean Python repositories."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """``__version__``, read from the installed package's metadata when first asked for.

    ``pyproject.toml`` is the version's one home. Reading the metadata costs tens of
    milliseconds, so start-up does not pay for it: only ``--version``, SARIF output and
    ``init``'s templates ask.
    """
    if name != "__version__":
        raise AttributeError(f"module 'policytool' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("policytool")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"
