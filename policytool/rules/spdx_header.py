# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``spdx-header``: the configured SPDX lines stand in the file's header comment block.

The header is the run of comment and blank lines at the top of the file. New lines go
after the preamble: an optional shebang and (Python) the PEP 263 encoding line, which
must stay on line 1 or 2. The fix rewrites a wrong license value or an outdated
copyright listed in ``replaces``, and in a Python file whose header comes after the
module docstring (a docstring, then the SPDX comments) moves those comment lines up.
Nothing else below the header is touched: a ``# SPDX-...`` line inside a string, a
heredoc or an adapted portion's notice stays. Lines end only at ``\\n``, ``\\r\\n`` and
``\\r`` (as for Python itself), so a form feed or U+2028 inside a comment is no line
break. The fix keeps a BOM (and adds none), the encoding, the line endings and
(through the engine's atomic write) the mode, and writes nothing it cannot encode.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from policytool.config import Config
from policytool.core.globs import match_any
from policytool.core.kinds import COMMENT_PREFIX_BY_KIND
from policytool.core.text import PYTHON_PARSE_ERRORS, split_lines
from policytool.engine.findings import Finding
from policytool.engine.fixes import Edit, Fix, Verify
from policytool.engine.registry import FileRule, register
from policytool.engine.source import SourceFile, coding_cookie
from policytool.rules._source_config import SpdxConfig

RULE_ID = "spdx-header"
LICENSE_TAG = "SPDX-License-Identifier:"
COPYRIGHT_TAG = "SPDX-FileCopyrightText:"
PYTHON_KINDS = ("python", "stub")

_NEWLINE_RE = re.compile(r"\r\n|\n|\r")

DOC = """\
## What it checks
Every file of the configured kinds (Python by default) carries the configured
`SPDX-License-Identifier` and `SPDX-FileCopyrightText` lines in its header: the run
of comment and blank lines at the top, after a shebang and a PEP 263 encoding line.
Another license identifier beside the configured one is fine (an adapted portion's
notice). A copyright listed in `replaces` is reported as outdated. Empty files are
exempt, and so are the paths in `exclude`.

The rule is off until `[tool.policytool.spdx]` is in `pyproject.toml`: a license in
`[project]` alone is no SPDX header policy. `policytool init` writes the table when
the repository's files or its own header hook show one.

## Why
A license identifier in every file keeps provenance machine-readable when files are
copied between projects; a header in one fixed place is what license scanners read.

## Example
```python
\"\"\"Schema and utilities for inputs to the engine.\"\"\"

# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the demo project
import os
```
fails: the SPDX lines stand below the docstring, not in the header.

## Fix
`policytool fix --only spdx-header` inserts the missing lines after the shebang and
encoding line, rewrites an outdated copyright, and moves SPDX
comment lines that follow the module docstring up into the header (both lines, so no
duplicate is left). It never moves a line from anywhere else: when the file's own
notice (a comment block of SPDX lines only) stands deeper in the body, the finding
names its line and is not fixable, so no second notice is added (an adapted portion's
notice, a block that says more, does not count). It keeps BOM, encoding, line endings
and mode, and reports (instead of writing) a copyright the file's encoding cannot hold.
A file whose header names another license (`MIT` where `Apache-2.0` is configured) is
a license change, not a formatting fix: the finding says so and `fix` leaves it, unless
`relicense = true` lets it rewrite that identifier.

## Configuration
```toml
[tool.policytool.spdx]
license = "Apache-2.0"        # default: [project] license of the same file
copyright = "Copyright contributors to the demo project"
replaces = ["Copyright (c) Old Corp"]   # outdated lines to rewrite
kinds = ["python", "shell"]   # default ["python"]
exclude = ["third_party/**"]  # files exempt from the header
relicense = false             # true: fix may rewrite another license identifier
```
"""


@dataclass(frozen=True)
class Header:
    """Where the header of a file is, as indexes into ``lines``.

    ``first`` is the first line that may carry a header comment (after a shebang),
    ``start`` the first line new lines may go to (after the encoding line too), ``end``
    the first line that is neither comment nor blank. ``lines`` may hold only the head
    of the file (``complete`` False): checking needs just the header.
    """

    lines: list[str]  # with line endings
    first: int
    start: int
    end: int
    prefix: str
    kind: str
    text: str
    complete: bool
    # line index -> comment text, for the comment lines of the header
    bodies: dict[int, str]


# Characters of the file read to find the header; a longer header is re-read whole.
HEAD_CHARS = 4096


def _body(line: str, prefix: str) -> str | None:
    """The text of a full-line comment without its marker, or None for code lines."""
    stripped = line.strip()
    if not stripped.startswith(prefix):
        return None
    return stripped[len(prefix) :].strip()


def _is_cookie(line: str) -> bool:
    """Whether ``line`` is a PEP 263 encoding line."""
    return coding_cookie(line.encode("utf-8", "replace").rstrip(b"\r\n")) is not None


def parse_header(text: str, kind: str, whole: bool = False) -> Header:
    """Split ``text`` (no BOM) into preamble, header block and the rest."""
    prefix = COMMENT_PREFIX_BY_KIND[kind]
    complete = whole or len(text) <= HEAD_CHARS
    if complete:
        lines = split_lines(text)
    else:
        lines = split_lines(text[:HEAD_CHARS])[:-1]  # drop a cut-off line
    first = 1 if lines and lines[0].startswith("#!") else 0
    start = first
    if kind in PYTHON_KINDS:
        # PEP 263: the cookie counts on line 1, or on line 2 below a comment line.
        if lines and _is_cookie(lines[0]):
            start = 1
        elif len(lines) > 1 and _is_cookie(lines[1]):
            above = lines[0].strip(" \t\f\r\n")
            if not above or above.startswith("#"):  # a comment or blank line above it
                start = 2
    end = first
    bodies: dict[int, str] = {}
    while end < len(lines):
        body = _body(lines[end], prefix)
        if body is not None:
            bodies[end] = body
        elif lines[end].strip(" \t\f\r\n"):
            break
        end += 1
    end = max(end, start)
    if end == len(lines) and not complete:
        return parse_header(text, kind, whole=True)
    return Header(lines, first, start, end, prefix, kind, text, complete, bodies)


def _tag_value(body: str | None, tag: str) -> str | None:
    if body is None or not body.startswith(tag):
        return None
    return body[len(tag) :].strip()


def _docstring_block(header: Header) -> list[int]:
    """Comment lines between a module docstring that follows the header and the code.

    The one place SPDX lines are moved from: the comment lines among the blank and
    ``#`` lines right after the docstring. Blank lines inside that run do not end it, so
    moving one line up (the blank line it leaves behind) cannot bring another line into
    reach on a second fix. Found with :mod:`ast`, so text inside strings never counts.
    """
    if header.kind not in PYTHON_KINDS or header.end >= len(header.lines):
        return []
    if not header.lines[header.end].lstrip().startswith(("'", '"', "r", "R", "u", "U")):
        return []
    if not header.complete:
        header = parse_header(header.text, header.kind, whole=True)
    try:
        tree = ast.parse(header.text)
    except PYTHON_PARSE_ERRORS:
        return []
    if not tree.body:
        return []
    node = tree.body[0]
    if not (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and node.lineno - 1 == header.end
        and node.end_lineno is not None
    ):
        return []
    index = node.end_lineno  # 0-based: the line after the docstring
    lines = header.lines
    block = []
    while index < len(lines):
        if _body(lines[index], header.prefix) is not None:
            block.append(index)
        elif lines[index].strip(" \t\f\r\n"):
            break  # the code
        index += 1
    return block


def _movable(header: Header, config: Config) -> tuple[list[int], list[int]]:
    """Docstring-block lines holding the configured license / copyright (or a replaced one)."""
    spdx = config.section(SpdxConfig)
    licenses: list[int] = []
    copyrights: list[int] = []
    if not any(needle in header.text for needle in (LICENSE_TAG, COPYRIGHT_TAG, *spdx.replaces)):
        return licenses, copyrights  # nothing could move: spare the parse of the whole file
    for index in _docstring_block(header):
        body = _body(header.lines[index], header.prefix)
        value = _tag_value(body, LICENSE_TAG)
        if value is not None and (spdx.license is None or value == spdx.license):
            licenses.append(index)
        elif _tag_value(body, COPYRIGHT_TAG) == spdx.copyright or _is_replaced(body, spdx.replaces):
            copyrights.append(index)
    return licenses, copyrights


def _is_spdx(body: str | None, replaces: tuple[str, ...] = ()) -> bool:
    """Whether a comment's text is an SPDX line (or a copyright ``replaces`` names)."""
    return body is not None and (
        body.startswith((LICENSE_TAG, COPYRIGHT_TAG)) or _is_replaced(body, replaces)
    )


def _comment_lines(header: Header) -> set[int]:
    """The lines (0-based) that are full-line comments: for Python, as the tokenizer
    reads them (a ``# SPDX`` line inside a string is none), for shell outside heredocs,
    for other kinds by text."""
    lines = header.lines
    textual = {i for i, line in enumerate(lines) if _body(line, header.prefix) is not None}
    if header.kind == "shell":
        from policytool.formats import shell

        bodies = shell.parse(header.text).heredocs
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
        return {i for i in textual if not any(a <= starts[i] < b for a, b in bodies)}
    if header.kind not in PYTHON_KINDS:
        return textual
    import io
    import tokenize

    found: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(header.text).readline):
            if token.type == tokenize.COMMENT and token.line.lstrip().startswith("#"):
                found.add(token.start[0] - 1)
    except (tokenize.TokenError, SyntaxError, ValueError):
        return set()  # unreadable as Python: no line counts, the fix behaves as before
    return found & textual


def _in_body(header: Header, tag: str) -> int | None:
    """The first line (0-based) below the header, outside the block that follows the
    module docstring, of a comment block of SPDX lines only holding ``tag``: the file's
    own notice written in the wrong place (an adapted portion's notice says more).

    ``fix`` moves no such line and adds no second one: the finding asks for a hand edit.
    """
    if tag not in header.text[len("".join(header.lines[: header.end])) :]:
        return None  # the common case: no such text below the header at all
    if not header.complete:
        header = parse_header(header.text, header.kind, whole=True)
    # The comment and blank lines between the module docstring and the code are not the
    # body: what is there moves up or is left as before.
    after_docstring = set(_docstring_block(header))
    comments = _comment_lines(header)
    lines = header.lines
    index = header.end
    while index < len(lines):
        block = []
        while index < len(lines) and index in comments:
            block.append(index)
            index += 1
        bodies = [_body(lines[i], header.prefix) for i in block]
        if block and block[0] not in after_docstring and all(_is_spdx(b) for b in bodies):
            found = [
                i for i, b in zip(block, bodies, strict=True) if _tag_value(b, tag) is not None
            ]
            if found:
                return found[0]
        index += 1
    return None


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a header; ``line`` is 0-based into ``Header.lines``."""

    line: int
    message: str
    fixable: bool


def _find(header: Header, tag: str) -> list[tuple[int, str]]:
    """(line, value) of the header's comment lines carrying ``tag``."""
    found = []
    for index, body in header.bodies.items():
        value = _tag_value(body, tag)
        if value is not None:
            found.append((index, value))
    return found


def _is_replaced(body: str | None, replaces: tuple[str, ...]) -> bool:
    if body is None:
        return False
    value = _tag_value(body, COPYRIGHT_TAG)
    return body in replaces or (value is not None and value in replaces)


def _codec(encoding: str) -> str:
    """The codec to write with: ``utf-8-sig`` adds a BOM itself, policytool keeps the file's."""
    return "utf-8" if encoding == "utf-8-sig" else encoding


def single_line(value: str | None) -> bool:
    """Whether ``value`` can go into a comment line: no line break, no control character."""
    return value is not None and not any(
        unicodedata.category(c) in ("Cc", "Zl", "Zp") and c != "\t" for c in value
    )


def _unwritable(value: str | None, encoding: str) -> str | None:
    """Why ``value`` cannot be written into a file in ``encoding`` (None when it can)."""
    if value is None:
        return None
    if not single_line(value):
        return "is not a single line"
    try:
        value.encode(_codec(encoding))
    except UnicodeEncodeError:
        return f"cannot be written in this file's encoding ({encoding})"
    except LookupError:
        return f"cannot be written in this file's encoding ({encoding})"
    return None


def problems(header: Header, config: Config, encoding: str = "utf-8") -> Iterator[Problem]:
    """Everything wrong with the header for the configured license and copyright."""
    spdx = config.section(SpdxConfig)
    license_why = _unwritable(spdx.license, encoding)
    copyright_why = _unwritable(spdx.copyright, encoding)
    licenses = _find(header, LICENSE_TAG)
    if not licenses:
        moved, _ = _movable(header, config)
        deep = None if moved else _in_body(header, LICENSE_TAG)
        where = f" (found at line {moved[0] + 1}, below the docstring)" if moved else ""
        if deep is not None:
            where = f" (found at line {deep + 1}, in the body: move it up by hand)"
        expected = f"{LICENSE_TAG} {spdx.license}" if spdx.license else LICENSE_TAG
        why = f"; the license {license_why}" if license_why else ""
        yield Problem(
            header.start,
            f"missing `{expected}` in the file header{where}{why}",
            spdx.license is not None and license_why is None and deep is None,
        )
    elif spdx.license is not None and all(value != spdx.license for _, value in licenses):
        # Another identifier beside the configured one is fine (portions adapted from
        # other projects carry theirs); without the configured one, the first is wrong.
        index, value = licenses[0]
        why = f"; the license {license_why}" if license_why else ""
        if not why and not spdx.relicense:
            # Changing a file's license is the maintainer's decision, not a formatting fix.
            why = (
                "; a license change is not a formatting fix: change it by hand, or set "
                "relicense = true in [tool.policytool.spdx] for `fix` to rewrite it"
            )
        yield Problem(
            index,
            f"license is '{value}', expected '{spdx.license}'{why}",
            license_why is None and spdx.relicense,
        )
    why = f"; the copyright {copyright_why}" if copyright_why else ""
    replaced = [i for i, body in header.bodies.items() if _is_replaced(body, spdx.replaces)]
    for index in replaced:
        yield Problem(
            index,
            f"outdated copyright line; expected `{COPYRIGHT_TAG} {spdx.copyright}`{why}",
            spdx.copyright is not None and copyright_why is None,
        )
    if spdx.copyright is not None:
        copyrights = [v for _, v in _find(header, COPYRIGHT_TAG)]
        if spdx.copyright not in copyrights and not replaced:
            _, moved = _movable(header, config)
            deep = None if moved else _in_body(header, COPYRIGHT_TAG)
            where = f" (found at line {moved[0] + 1}, below the docstring)" if moved else ""
            if deep is not None:
                where = f" (found at line {deep + 1}, in the body: move it up by hand)"
            yield Problem(
                header.start,
                f"missing `{COPYRIGHT_TAG} {spdx.copyright}` in the file header{where}{why}",
                copyright_why is None and deep is None,
            )


def _applies(source: SourceFile, whole: bool = False) -> Header | None:
    if source.kind not in COMMENT_PREFIX_BY_KIND:
        return None
    text = source.text
    if not text.strip():
        return None  # empty and whitespace-only files are exempt
    return parse_header(text, source.kind, whole)


def _is_plainly_clean(text: str, prefix: str, config: Config) -> bool:
    """The common case, decided with string compares: the exact header leads the file.

    True only when the file (after a ``#!`` line) starts with the configured license and
    copyright lines, names one license, and mentions no ``replaces`` text near the top;
    anything else goes through the full header parse.
    """
    spdx = config.section(SpdxConfig)
    if spdx.license is None or spdx.copyright is None:
        return False
    body = text[text.find("\n") + 1 :] if text.startswith("#!") else text
    expected = f"{prefix} {LICENSE_TAG} {spdx.license}\n{prefix} {COPYRIGHT_TAG} {spdx.copyright}\n"
    if not body.startswith(expected):
        return False
    head = text[:HEAD_CHARS]
    return head.count(LICENSE_TAG) == 1 and not any(old in head for old in spdx.replaces)


def check(source: SourceFile, config: Config) -> list[Finding]:
    """Findings for one file."""
    # The head decides the common case (HEAD_CHARS characters are all it reads).
    if source.kind in COMMENT_PREFIX_BY_KIND and _is_plainly_clean(
        source.head_text(HEAD_CHARS), COMMENT_PREFIX_BY_KIND[source.kind], config
    ):
        return []
    header = _applies(source)
    if header is None:
        return []
    return [
        Finding(source.relpath, p.line + 1, 1, RULE_ID, p.message, fixable=p.fixable)
        for p in problems(header, config, source.encoding)
    ]


def _newline(text: str) -> str:
    match = _NEWLINE_RE.search(text)
    return match.group(0) if match else "\n"


def fix(source: SourceFile, config: Config) -> Fix | None:
    """The edits mending the file's header (with their verification: nothing but SPDX
    comment lines changes), or None when nothing can (or need) be fixed."""
    header = _applies(source, whole=True)
    if header is None:
        return None
    spdx = config.section(SpdxConfig)
    encoding = source.encoding
    newline = _newline(source.text)
    prefix = header.prefix
    lines = list(header.lines)
    license_line = (
        f"{prefix} {LICENSE_TAG} {spdx.license}{newline}"
        if spdx.license is not None and _unwritable(spdx.license, encoding) is None
        else None
    )
    copyright_line = (
        f"{prefix} {COPYRIGHT_TAG} {spdx.copyright}{newline}"
        if spdx.copyright is not None and _unwritable(spdx.copyright, encoding) is None
        else None
    )

    # Rewrite in place inside the header: the first license line when none has the
    # configured value (others stay: they cover adapted portions), outdated copyrights.
    have_copyright = False
    values = [v for v in (_tag_value(b, LICENSE_TAG) for b in header.bodies.values()) if v]
    rewrite_license = license_line is not None and spdx.license not in values and spdx.relicense
    for index in range(header.first, header.end):
        body = _body(lines[index], prefix)
        if _tag_value(body, LICENSE_TAG) is not None and rewrite_license and license_line:
            lines[index] = license_line
            rewrite_license = False
        elif copyright_line and _is_replaced(body, spdx.replaces):
            lines[index] = "" if have_copyright else copyright_line
            have_copyright = True
        elif _tag_value(body, COPYRIGHT_TAG) == spdx.copyright:
            if have_copyright:
                lines[index] = ""  # a replaced line already became this one
            have_copyright = True
    license_at = next(
        (
            i
            for i in range(header.first, header.end)
            if _tag_value(_body(lines[i], prefix), LICENSE_TAG) is not None
        ),
        None,
    )

    # The SPDX comment lines right after the module docstring move up (both of them:
    # leaving one behind would leave a duplicate); no other line below the header.
    moved_licenses, moved_copyrights = _movable(header, config)
    insert: list[str] = []
    # A notice written deep in the body is reported, never doubled (nor moved).
    if not moved_licenses and license_at is None and _in_body(header, LICENSE_TAG) is not None:
        license_line = None
    if not moved_copyrights and not have_copyright and _in_body(header, COPYRIGHT_TAG) is not None:
        copyright_line = None
    if license_at is None and license_line:
        insert.append(license_line)
        for index in moved_licenses:
            lines[index] = ""
    if copyright_line and not have_copyright:
        insert.append(copyright_line)
        for index in moved_copyrights:
            lines[index] = ""
    if insert:
        position = header.start
        if license_at is not None:
            position = max(license_at + 1, header.start)  # the copyright goes below it
        if position > 0 and not lines[position - 1].endswith(("\n", "\r")):
            lines[position - 1] += newline
        if position < len(lines):
            lines[position] = "".join(insert) + lines[position]
        else:
            lines.append("".join(insert))
    edits = _line_edits(source.relpath, header.lines, lines)
    if not edits:
        return None
    return Fix("mend the SPDX header", tuple(edits), _only_spdx_lines(source, config))


def _line_edits(relpath: str, old: list[str], new: list[str]) -> list[Edit]:
    """The edits turning lines ``old`` into ``new`` (line by line; ``new`` may have one
    more line, appended), each only the characters that differ."""
    if not old:
        return [Edit(relpath, 0, 0, "".join(new))] if new else []
    # Lines appended go with the last line (whose line ending the fix may add): one edit.
    new = [*new[: len(old) - 1], "".join(new[len(old) - 1 :])]
    edits = []
    offset = 0
    for line, replaced in zip(old, new, strict=True):
        if replaced != line:
            edit = Edit.between(relpath, line, replaced)
            edits.append(Edit(relpath, offset + edit.start, offset + edit.end, edit.new))
        offset += len(line)
    return edits


def _without_spdx(text: str, prefix: str, replaces: tuple[str, ...]) -> str:
    """``text`` without its SPDX comment lines (and copyrights ``replaces`` names)."""
    return "".join(
        line for line in split_lines(text) if not _is_spdx(_body(line, prefix), replaces)
    )


def _only_spdx_lines(source: SourceFile, config: Config) -> Verify:
    """The verification of an SPDX fix: the new text is the old one but for SPDX comment
    lines (a last line without a line ending may gain one, for the lines after it), and
    its encoding can hold it."""
    prefix = COMMENT_PREFIX_BY_KIND[source.kind or "python"]
    replaces = config.section(SpdxConfig).replaces

    def verify(old_text: str, new_text: str) -> str | None:
        """None when only SPDX comment lines differ."""
        if source.encoded(new_text) is None:
            return f"the file's encoding ({source.encoding}) cannot hold the new lines"
        old, new = (
            _without_spdx(old_text, prefix, replaces),
            _without_spdx(new_text, prefix, replaces),
        )
        if new == old or (
            old and not old.endswith(("\n", "\r")) and new in (old + "\n", old + "\r\n", old + "\r")
        ):
            return None
        return "the fix would change more than the SPDX comment lines"

    return verify


def _kinds(config: Config) -> frozenset[str]:
    """The kinds to check: none until ``[tool.policytool.spdx]`` is written."""
    return (
        frozenset(config.section(SpdxConfig).kinds)
        if config.section(SpdxConfig).configured
        else frozenset()
    )


def applies(relpath: str, config: Config) -> bool:
    """Whether the file is outside ``[tool.policytool.spdx] exclude``."""
    return not (
        config.section(SpdxConfig).exclude
        and match_any(relpath, config.section(SpdxConfig).exclude)
    )


RULE = register(
    FileRule(
        id=RULE_ID,
        summary="the configured SPDX license and copyright lines stand in the file header",
        check=check,
        kinds=_kinds,
        fix=fix,
        applies=applies,
        doc=DOC,
        group="source",
        config=("spdx",),
    )
)
