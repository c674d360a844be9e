# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``python -m policytool``."""

from __future__ import annotations

from policytool.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
