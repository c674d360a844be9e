# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Findings and the reporters that print them (text, json, sarif, github)."""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


class Severity(str, enum.Enum):
    """How bad a finding is; ``error`` fails ``check``, ``warning`` is reported only."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """One problem at one place: ``path:line:col: rule message``.

    ``path`` is repo-relative with ``/`` separators; ``line`` and ``col`` are 1-based
    (``col`` 1 when the finding is about a whole line or file).
    """

    path: str
    line: int
    col: int
    rule: str
    message: str
    severity: Severity = Severity.ERROR
    fixable: bool = False

    def sort_key(self) -> tuple[str, int, int, str, str]:
        """Deterministic order: path, line, column, rule, message."""
        return (self.path, self.line, self.col, self.rule, self.message)

    def to_json(self) -> dict[str, object]:
        """The JSON object of this finding."""
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "rule": self.rule,
            "message": self.message,
            "severity": self.severity.value,
            "fixable": self.fixable,
        }


FORMATS = ("text", "json", "sarif", "github")

# C0 and C1 controls, DEL, and the invisible/bidi formatting characters (Trojan Source):
# a file name or message holding them must not drive the terminal or hide text.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def escape_controls(text: str) -> str:
    r"""``text`` with control and bidi characters written as escapes (``\x1b``, ``\u202e``).

    Applied to file names and messages in text output (findings, status and error lines),
    so a file named ``a\x1b[2J.py`` cannot clear the terminal and one finding stays one line.
    """
    if not _CONTROL_RE.search(text):
        return text
    return _CONTROL_RE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Findings sorted and de-duplicated."""
    return sorted(set(findings), key=Finding.sort_key)


def count(number: int, noun: str) -> str:
    """``1 file``, ``2 files``: a number with its noun in the right number."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def summary_line(findings: Sequence[Finding], files_checked: int | None = None) -> str:
    """``1 finding (1 error) in 1 file``, ``3 findings (2 errors, 1 warning) in 5 files``,
    ``no findings in 4 files``; counts that are zero are left out."""
    checked = f" in {count(files_checked, 'file')}" if files_checked is not None else ""
    if not findings:
        return f"no findings{checked}"
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    warnings = len(findings) - errors
    fixable = sum(1 for f in findings if f.fixable)
    parts = [count(errors, "error")] if errors else []
    if warnings:
        parts.append(count(warnings, "warning"))
    if fixable:
        parts.append(f"{fixable} fixable with `policytool fix`")
    return f"{count(len(findings), 'finding')} ({', '.join(parts)}){checked}"


def render_text(
    findings: Sequence[Finding], files_checked: int | None = None, quiet: bool = False
) -> str:
    """One finding a line, then the summary line (omitted with ``quiet``)."""
    lines = [escape_controls(f"{f.path}:{f.line}:{f.col}: {f.rule} {f.message}") for f in findings]
    if not quiet:
        lines.append(summary_line(findings, files_checked))
    return "\n".join(lines) + ("\n" if lines else "")


def render_json(findings: Sequence[Finding]) -> str:
    """A JSON list of finding objects."""
    return json.dumps([f.to_json() for f in findings], indent=2) + "\n"


def _github_escape(text: str, is_property: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if is_property:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def render_github(findings: Sequence[Finding]) -> str:
    """GitHub Actions workflow commands, one annotation a finding."""
    out = []
    for f in findings:
        level = "error" if f.severity is Severity.ERROR else "warning"
        props = ",".join(
            [
                f"file={_github_escape(f.path, True)}",
                f"line={f.line}",
                f"col={f.col}",
                f"title={_github_escape(f.rule, True)}",
            ]
        )
        message = _github_escape(f.rule + ": " + f.message)
        out.append(escape_controls(f"::{level} {props}::{message}"))
    return "\n".join(out) + ("\n" if out else "")


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render_sarif(findings: Sequence[Finding], rule_help: Mapping[str, str]) -> str:
    """SARIF 2.1.0 with one run; ``rule_help`` maps rule id -> one-line description."""
    from policytool import __version__  # read from the metadata: only when asked

    used = sorted({f.rule for f in findings} | set(rule_help))
    index = {rule: i for i, rule in enumerate(used)}
    rules = [
        {
            "id": rule,
            "name": rule,
            "shortDescription": {"text": rule_help.get(rule, rule)},
            "help": {"text": rule_help.get(rule, rule)},
        }
        for rule in used
    ]
    results = [
        {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": "error" if f.severity is Severity.ERROR else "warning",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": f.line, "startColumn": f.col},
                    }
                }
            ],
        }
        for f in findings
    ]
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "policytool",
                        "version": __version__,
                        "informationUri": "https://github.com/policytool/policytool",
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


def render(
    findings: Sequence[Finding],
    fmt: str,
    rule_help: Mapping[str, str],
    files_checked: int | None = None,
    quiet: bool = False,
) -> str:
    """Render findings in one of :data:`FORMATS`."""
    if fmt == "json":
        return render_json(findings)
    if fmt == "sarif":
        return render_sarif(findings, rule_help)
    if fmt == "github":
        return render_github(findings)
    return render_text(findings, files_checked, quiet)
