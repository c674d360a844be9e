# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""policytool: reproducible, policy-clean Python repositories."""

from __future__ import annotations

# Where the project lives; pyproject.toml's [project.urls] says the same (a test compares).
HOMEPAGE = "https://github.com/policytool/policytool"


def __getattr__(name: str) -> str:
    """``__version__`` from the installed package's metadata (pyproject.toml's version).

    Computed on first use: importing importlib.metadata costs start-up time that a hook
    call that never prints the version should not pay.
    """
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("policytool")
        except PackageNotFoundError:  # run from a source tree that was never installed
            return "0+unknown"
    raise AttributeError(f"module 'policytool' has no attribute {name!r}")
