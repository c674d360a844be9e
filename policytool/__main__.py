# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``python -m policytool``."""

from __future__ import annotations

import os
import sys

# ``python -m`` puts the working directory first on sys.path. In CI that is a checkout a
# pull request controls: a ``yaml.py`` or ``pre_commit/`` there would be imported in
# place of the real module. policytool imports nothing from the working directory.
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from policytool.cli import main  # noqa: E402 - after the sys.path clean-up on purpose

if __name__ == "__main__":
    raise SystemExit(main())
