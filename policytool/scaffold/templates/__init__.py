# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The files ``policytool init`` writes, as package data, and their one renderer.

A template is a file in this directory; ``@name@`` marks a value filled in by
:func:`render` (a spelling neither YAML, GitHub's ``${{ }}`` nor Mergify's ``{{ }}``
uses). Every placeholder must get a value and every value must be used, so a typo
fails the tests instead of reaching a user's repository.
"""

from __future__ import annotations

import re
from importlib import resources

_PLACEHOLDER_RE = re.compile(r"@([a-z][a-z_]*)@")


def template_text(name: str) -> str:
    """The raw text of template ``name`` (a file name in this package)."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def placeholders(text: str) -> set[str]:
    """The ``@name@`` placeholders a template uses."""
    return set(_PLACEHOLDER_RE.findall(text))


def render(name: str, values: dict[str, str]) -> str:
    """Template ``name`` with each ``@key@`` replaced by ``values[key]`` in one pass.

    Raises ``KeyError`` for a placeholder without a value and ``ValueError`` for a
    value the template does not use: both are bugs in policytool, not user errors.
    """
    text = template_text(name)
    used = placeholders(text)
    unused = set(values) - used
    if unused:
        raise ValueError(f"template {name}: no placeholder for {sorted(unused)}")
    return _PLACEHOLDER_RE.sub(lambda match: values[match.group(1)], text)
