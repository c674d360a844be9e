# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""policytool: reproducible, policy-clean Python repositories."""

from __future__ import annotations

__version__ = "0.1.0"
