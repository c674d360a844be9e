# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What a rule's own bug costs: that rule's reading of one file, reported, never the run.

A rule is code reading text a pull request wrote; a shape nobody foresaw can make it
raise. Before this, one such raise anywhere stopped the whole command with an internal
error (a 700-file release diff lost to one file). Now the runner and the sweep catch it
around each rule and file and report a ``rule-error`` finding there: it fails the run
like any finding, so a pull request cannot hide a finding by writing the shape that
breaks a rule, and it says which rule and which file to report.
"""

from __future__ import annotations

import os

from policytool.engine.findings import Finding, Severity, escape_controls
from policytool.errors import PolicyError

RULE_ERROR = "rule-error"
DEBUG_VARIABLE = "POLICYTOOL_DEBUG"
# An exception's text may quote the file (a name, a literal): bounded, like any input.
_MAX_DETAIL = 200


def debugging() -> bool:
    """True when ``POLICYTOOL_DEBUG`` asks for the traceback instead of the sentence."""
    return bool(os.environ.get(DEBUG_VARIABLE))


def rule_error(relpath: str, rule_id: str, exc: Exception) -> Finding:
    """The ✗ for ``rule_id`` raising ``exc`` on ``relpath``: the rule did not read it."""
    detail = escape_controls(str(exc))
    if len(detail) > _MAX_DETAIL:
        detail = detail[:_MAX_DETAIL] + "..."
    message = (
        f"{rule_id} stopped on an internal error ({type(exc).__name__}: {detail}) and did "
        f"not read this file; please report it to the policytool maintainers with this "
        f"line ({DEBUG_VARIABLE}=1 shows the traceback)"
    )
    # Never accepted by a baseline: a pull request's baseline could otherwise keep it.
    return Finding(relpath, 1, 1, RULE_ERROR, message, Severity.ERROR, acceptable=False)


def crash_finding(relpath: str, rule_id: str, exc: Exception) -> Finding:
    """What a guard around one rule on one file does with ``exc``: re-raise it when it is
    a deliberate stop (a :class:`PolicyError`, a bad configuration: exit 2 with its
    sentence) or when ``POLICYTOOL_DEBUG`` asks for the traceback; else its
    :func:`rule_error`."""
    if isinstance(exc, PolicyError) or debugging():
        raise exc
    return rule_error(relpath, rule_id, exc)
