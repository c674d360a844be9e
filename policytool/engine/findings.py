# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Findings and the reporters that print them (text, json, sarif, github, markdown)."""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING


class Severity(str, enum.Enum):
    """How bad a finding is; ``error`` fails ``check``, ``warning`` is reported only."""

    ERROR = "error"
    WARNING = "warning"


if TYPE_CHECKING:  # the fix machinery loads only where a rule returns fixes
    from policytool.engine.fixes import Fix


@dataclass(frozen=True)
class Finding:
    """One problem at one place: ``path:line:col: rule message``.

    ``path`` is repo-relative with ``/`` separators; ``line`` and ``col`` are 1-based
    (``col`` 1 when the finding is about a whole line or file). ``fix``: the edits that
    mend it (see :mod:`policytool.engine.fixes`); a finding with one is ``fixable``. The
    fix is no part of the finding's identity or of any output format. ``acceptable``
    False: the baseline never accepts it (a file other rules cannot look at while it
    stands, a lock that does not exist), so it cannot hide what it hides.
    """

    path: str
    line: int
    col: int
    rule: str
    message: str
    severity: Severity = Severity.ERROR
    fixable: bool = False
    fix: Fix | None = field(default=None, compare=False, repr=False)
    acceptable: bool = field(default=True, compare=False, repr=False)

    def __post_init__(self) -> None:
        """A finding that carries a fix is fixable."""
        if self.fix is not None and not self.fixable:
            object.__setattr__(self, "fixable", True)

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


FORMATS = ("text", "json", "sarif", "github", "markdown")

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


def summary_line(
    findings: Sequence[Finding],
    files_checked: int | None = None,
    accepted: int = 0,
    accepted_by: str = "",
) -> str:
    """``1 finding (1 error) in 1 file``, ``3 findings (2 errors, 1 warning) in 5 files``,
    ``no findings in 4 files``; counts that are zero are left out. ``accepted`` findings
    (left out by a baseline) are counted too: ``no findings (4 accepted by B) in 4 files``.
    """
    checked = f" in {count(files_checked, 'file')}" if files_checked is not None else ""
    taken = f"{accepted} accepted by {accepted_by}" if accepted else ""
    if not findings:
        return f"no findings ({taken}){checked}" if taken else f"no findings{checked}"
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    warnings = len(findings) - errors
    fixable = sum(1 for f in findings if f.fixable)
    parts = [count(errors, "error")] if errors else []
    if warnings:
        parts.append(count(warnings, "warning"))
    if fixable:
        parts.append(f"{fixable} fixable with `policytool fix`")
    if taken:
        parts.append(taken)
    return f"{count(len(findings), 'finding')} ({', '.join(parts)}){checked}"


def render_text(
    findings: Sequence[Finding],
    files_checked: int | None = None,
    quiet: bool = False,
    accepted: Sequence[Finding] = (),
    accepted_by: str = "",
) -> str:
    """One finding a line, then the summary line (omitted with ``quiet``) with the count
    of ``accepted`` findings."""
    lines = [escape_controls(f"{f.path}:{f.line}:{f.col}: {f.rule} {f.message}") for f in findings]
    if not quiet:
        lines.append(
            escape_controls(summary_line(findings, files_checked, len(accepted), accepted_by))
        )
    return "\n".join(lines) + ("\n" if lines else "")


def render_json(
    findings: Sequence[Finding], accepted: Sequence[Finding] = (), accepted_by: str = ""
) -> str:
    """A JSON list of finding objects; ``accepted`` ones follow with ``"accepted": true``
    and ``"accepted_by"`` naming the baseline (they do not fail the run)."""
    items = [f.to_json() for f in findings]
    items += [{**f.to_json(), "accepted": True, "accepted_by": accepted_by} for f in accepted]
    return json.dumps(items, indent=2) + "\n"


def _github_escape(text: str, is_property: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if is_property:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def render_github(
    findings: Sequence[Finding], accepted: Sequence[Finding] = (), accepted_by: str = ""
) -> str:
    """GitHub Actions workflow commands, one annotation a finding, and one notice with
    the count of ``accepted`` findings."""
    out = []
    if accepted:
        noun = "finding" if len(accepted) == 1 else "findings"
        note = f"{len(accepted)} {noun} accepted by {accepted_by} (not annotated)"
        out.append(escape_controls(f"::notice title=policytool baseline::{_github_escape(note)}"))
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


def _sarif_result(f: Finding, index: Mapping[str, int]) -> dict[str, object]:
    """The SARIF result object of one finding."""
    return {
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


def rule_page_url(rule_id: str, version: str) -> str:
    """The rule's page (docs/rules/ID.md) in policytool's repository, at the release's
    tag for a release, on ``main`` for a development version."""
    from policytool import HOMEPAGE

    released = re.fullmatch(r"\d+\.\d+\.\d+", version) is not None
    ref = f"v{version}" if released else "main"
    return f"{HOMEPAGE}/blob/{ref}/docs/rules/{rule_id}.md"


def render_sarif(
    findings: Sequence[Finding],
    rule_help: Mapping[str, str],
    accepted: Sequence[Finding] = (),
    accepted_by: str = "",
    rule_docs: Mapping[str, str] | None = None,
) -> str:
    """SARIF 2.1.0 with one run; ``rule_help`` maps rule id -> one-line description,
    ``rule_docs`` rule id -> its full Markdown documentation (the rule's ``help``).

    ``accepted`` findings are results too, each with an external, accepted suppression
    naming the baseline (SARIF 2.1.0 section 3.35), so a code-scanning view shows them.
    """
    from policytool import HOMEPAGE, __version__  # read from the metadata: only when asked

    used = sorted({f.rule for f in (*findings, *accepted)} | set(rule_help))
    index = {rule: i for i, rule in enumerate(used)}
    docs = rule_docs or {}
    rules = [
        {
            "id": rule,
            "name": rule,
            "shortDescription": {"text": rule_help.get(rule, rule)},
            "helpUri": rule_page_url(rule, __version__),
            "help": {
                "text": docs.get(rule, rule_help.get(rule, rule)),
                "markdown": docs.get(rule, rule_help.get(rule, rule)),
            },
        }
        for rule in used
    ]
    suppression = {
        "kind": "external",
        "status": "accepted",
        "justification": f"accepted by {accepted_by}",
    }
    results = [_sarif_result(f, index) for f in findings]
    for f in accepted:
        result = _sarif_result(f, index)
        result["suppressions"] = [suppression]
        results.append(result)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "policytool",
                        "version": __version__,
                        "informationUri": HOMEPAGE,
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
    accepted: Sequence[Finding] = (),
    accepted_by: str = "",
    rule_docs: Mapping[str, str] | None = None,
) -> str:
    """Render findings in one of :data:`FORMATS`; ``accepted`` are the findings a
    baseline (``accepted_by``) accepted: counted or marked in every format;
    ``rule_docs`` (SARIF) the rules' full documentation."""
    if fmt == "json":
        return render_json(findings, accepted, accepted_by)
    if fmt == "sarif":
        return render_sarif(findings, rule_help, accepted, accepted_by, rule_docs)
    if fmt == "github":
        return render_github(findings, accepted, accepted_by)
    if fmt == "markdown":
        return render_markdown(
            findings,
            rule_help,
            files_checked=files_checked,
            accepted=len(accepted),
            accepted_by=accepted_by,
            dimension=CHECK_DIMENSION,
        )
    return render_text(findings, files_checked, quiet, accepted, accepted_by)


# -- review reports: severity marks, repeats grouped, the Code quality row ---------------

# Repeats of one rule and message shown before the rest are folded into one line.
DEFAULT_CAP = 5


def mark(severity: Severity) -> str:
    """✗ for a blocking finding (error), ⚠ for a warning."""
    return "✗" if severity is Severity.ERROR else "⚠"


# The review report's dimension of each command: the checklist's one "Code quality" row is the
# sweep's; `check`'s findings are policy findings and get a row of their own name.
SWEEP_DIMENSION = "Code quality"
CHECK_DIMENSION = "Policy"


def quality_row(
    findings: Sequence[Finding],
    notes: frozenset[str] = frozenset(),
    dimension: str = SWEEP_DIMENSION,
) -> str:
    """``| Code quality | N ⚠ | M ✗ |`` (``dimension`` names the row); findings of the
    ``notes`` rules are not counted."""
    counted = [f for f in findings if f.rule not in notes]
    blocking = sum(1 for f in counted if f.severity is Severity.ERROR)
    return f"| {dimension} | {len(counted) - blocking} ⚠ | {blocking} ✗ |"


@dataclass(frozen=True)
class Folded:
    """Findings of one rule and message beyond the cap: how many, in how many files."""

    rule: str
    message: str
    severity: Severity
    count: int
    files: int


def group_repeats(findings: Sequence[Finding], cap: int = DEFAULT_CAP) -> list[Finding | Folded]:
    """The findings in order, each (rule, message) shown ``cap`` times, the rest folded.

    The fold stands where the first hidden finding would have been. ``cap`` <= 0 keeps all.
    """
    if cap <= 0:
        return list(findings)
    seen: dict[tuple[str, str], int] = {}
    hidden: dict[tuple[str, str], list[Finding]] = {}
    out: list[Finding | tuple[str, str]] = []
    for f in findings:
        key = (f.rule, f.message)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= cap:
            out.append(f)
            continue
        if key not in hidden:
            hidden[key] = []
            out.append(key)
        hidden[key].append(f)
    result: list[Finding | Folded] = []
    for item in out:
        if isinstance(item, Finding):
            result.append(item)
        else:
            rest = hidden[item]
            result.append(
                Folded(item[0], item[1], rest[0].severity, len(rest), len({f.path for f in rest}))
            )
    return result


def _folded_text(item: Folded) -> str:
    """The line standing for the folded repeats of one rule and message."""
    files = "file" if item.files == 1 else "files"
    return (
        f"... {item.count} more {item.rule} {mark(item.severity)} with the same message "
        f"in {item.files} {files} (--format json lists every one)"
    )


def render_marked_text(
    findings: Sequence[Finding],
    files_checked: int | None = None,
    quiet: bool = False,
    cap: int = DEFAULT_CAP,
    heading: str = "",
    notes: frozenset[str] = frozenset(),
) -> str:
    """``path:line:col: rule ⚠|✗ message`` lines with repeats folded, then the summary
    (unless ``quiet``) and the Code quality row; ``heading`` is a first line."""
    lines = [heading] if heading and not quiet else []
    for item in group_repeats(findings, cap):
        if isinstance(item, Folded):
            lines.append(_folded_text(item))
        else:
            where = f"{item.path}:{item.line}:{item.col}"
            lines.append(f"{where}: {item.rule} {mark(item.severity)} {item.message}")
    if not quiet:
        lines.append(summary_line(findings, files_checked))
    lines.append(quality_row(findings, notes))
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def render_markdown(
    findings: Sequence[Finding],
    rule_help: Mapping[str, str],
    title: str = "policytool findings",
    intro: str = "",
    rules: Sequence[str] = (),
    fixes: Mapping[str, str] | None = None,
    cap: int = DEFAULT_CAP,
    notes: frozenset[str] = frozenset(),
    files_checked: int | None = None,
    accepted: int = 0,
    accepted_by: str = "",
    dimension: str = SWEEP_DIMENSION,
) -> str:
    """A Markdown report for a review: a count table, a section a rule, the ``dimension``
    row (the sweep's Code quality row).

    ``rules`` are listed in the count table even with no finding; ``fixes`` adds a
    **Fix:** line under a rule's section; findings of ``notes`` rules (files that could
    not be checked) are listed apart and not counted in the row.
    """
    out = [f"## {title}", ""]
    if intro:
        out += [intro, ""]
    counted = [f for f in findings if f.rule not in notes]
    order = list(rules) + sorted({f.rule for f in counted} - set(rules))
    out += ["| Rule | ⚠ | ✗ |", "| --- | --- | --- |"]
    for rule in order:
        group = [f for f in counted if f.rule == rule]
        blocking = sum(1 for f in group if f.severity is Severity.ERROR)
        out.append(f"| `{rule}` | {len(group) - blocking} | {blocking} |")
    for rule in order:
        group = [f for f in counted if f.rule == rule]
        if not group:
            continue
        out += ["", f"### `{rule}`", ""]
        if rule_help.get(rule):
            out += [_cell(rule_help[rule]), ""]
        out += ["| | Location | Reason |", "| --- | --- | --- |"]
        for item in group_repeats(group, cap):
            if isinstance(item, Folded):
                files = "file" if item.files == 1 else "files"
                out.append(
                    f"| {mark(item.severity)} | {item.count} more in {item.files} {files} | "
                    f"{_cell(item.message)} |"
                )
            else:
                out.append(
                    f"| {mark(item.severity)} | `{_cell(item.path)}:{item.line}` | "
                    f"{_cell(item.message)} |"
                )
        if fixes and fixes.get(rule):
            out += ["", f"**Fix:** {fixes[rule]}"]
    unchecked = [f for f in findings if f.rule in notes]
    if unchecked:
        out += ["", "### Not checked", ""]
        out.extend(
            f"- {mark(f.severity)} `{_cell(f.path)}:{f.line}` {f.rule}: {_cell(f.message)}"
            for f in unchecked
        )
    if files_checked is not None or accepted:
        out += ["", _cell(summary_line(findings, files_checked, accepted, accepted_by)) + "."]
    out += [
        "",
        "| Dimension | Warnings | Blocking |",
        "| --- | --- | --- |",
        quality_row(findings, notes, dimension),
    ]
    return "\n".join(out) + "\n"
