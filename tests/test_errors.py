# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""errors.py is the one home of the user-facing errors."""

from __future__ import annotations

import importlib
import pkgutil

import policytool
from policytool import errors


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    sub: type
    for sub in cls.__subclasses__():
        found.add(sub)
        found |= _subclasses(sub)
    return found


def test_every_policy_error_is_defined_in_errors_py() -> None:
    for module in pkgutil.walk_packages(policytool.__path__, "policytool."):
        if module.name != "policytool.__main__":
            importlib.import_module(module.name)
    elsewhere = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in _subclasses(errors.PolicyError)
        if cls.__module__ != "policytool.errors" and cls.__module__.startswith("policytool.")
    )
    assert elsewhere == []
