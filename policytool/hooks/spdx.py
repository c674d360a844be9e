# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``spdx-header``: the configured SPDX lines stand in the file's header comment block.

The header is the run of comment and blank lines at the top of the file, after an
optional shebang and (Python) PEP 263 encoding line. The fix inserts missing lines
right after those two, rewrites a wrong license value or an outdated copyright listed
in ``replaces``, and moves an SPDX line found below the header up into it. It keeps a
BOM, the encoding, the line endings and (through the engine's atomic write) the mode.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from policytool.config import Config
from policytool.engine.findings import Finding
from policytool.engine.registry import FileRule, register
from policytool.engine.source import SourceFile, coding_cookie
from policytool.files import BOM, COMMENT_PREFIX_BY_KIND

RULE_ID = "spdx-header"
LICENSE_TAG = "SPDX-License-Identifier:"
COPYRIGHT_TAG = "SPDX-FileCopyrightText:"


@dataclass(frozen=True)
class Header:
    """Where the header of a file is: lines ``[start, end)`` of ``lines``.

    ``lines`` may hold only the head of the file (``complete`` False): checking needs
    just the header, and splitting every line of thousands of files is the cost.
    """

    lines: list[str]  # with line endings
    start: int  # first line after shebang / encoding line
    end: int  # first line that is neither comment nor blank
    prefix: str
    text: str
    complete: bool
    # line index -> comment text, for the comment lines of the header
    bodies: dict[int, str]

    def line_below(self, tag: str) -> int | None:
        """0-based line of the first whole-line comment with ``tag`` below the header."""
        offset = sum(len(line) for line in self.lines[: self.end])
        while True:
            found = self.text.find(tag, offset)
            if found == -1:
                return None
            line_start = max(self.text.rfind("\n", 0, found), self.text.rfind("\r", 0, found)) + 1
            line_end = self.text.find("\n", found)
            line = self.text[line_start : line_end if line_end != -1 else len(self.text)]
            if _tag_value(_body(line, self.prefix), tag) is not None:
                return len(self.text[:line_start].splitlines())
            offset = found + len(tag)


# Characters of the file read to find the header; a longer header is re-read whole.
HEAD_CHARS = 4096


def _body(line: str, prefix: str) -> str | None:
    """The text of a full-line comment without its marker, or None for code lines."""
    stripped = line.strip()
    if not stripped.startswith(prefix):
        return None
    return stripped[len(prefix) :].strip()


def parse_header(text: str, kind: str, whole: bool = False) -> Header:
    """Split ``text`` (no BOM) into preamble, header block and the rest."""
    prefix = COMMENT_PREFIX_BY_KIND[kind]
    complete = whole or len(text) <= HEAD_CHARS
    if complete:
        lines = text.splitlines(keepends=True)
    else:
        lines = text[:HEAD_CHARS].splitlines(keepends=True)[:-1]  # drop a cut-off line
    start = 0
    if lines and lines[0].startswith("#!"):
        start = 1
    if kind in ("python", "stub"):
        for index in (0, 1):
            if start == index and index < len(lines) and coding_cookie(lines[index].encode()):
                start = index + 1
    end = start
    bodies: dict[int, str] = {}
    while end < len(lines):
        body = _body(lines[end], prefix)
        if body is not None:
            bodies[end] = body
        elif lines[end].strip():
            break
        end += 1
    if end == len(lines) and not complete:
        return parse_header(text, kind, whole=True)
    return Header(lines, start, end, prefix, text, complete, bodies)


def _tag_value(body: str | None, tag: str) -> str | None:
    if body is None or not body.startswith(tag):
        return None
    return body[len(tag) :].strip()


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


def problems(header: Header, config: Config) -> Iterator[Problem]:
    """Everything wrong with the header for the configured license and copyright."""
    spdx = config.spdx
    licenses = _find(header, LICENSE_TAG)
    if not licenses:
        below = header.line_below(LICENSE_TAG)
        where = f" (found at line {below + 1}, below the header)" if below is not None else ""
        expected = f"{LICENSE_TAG} {spdx.license}" if spdx.license else LICENSE_TAG
        yield Problem(
            header.start,
            f"missing `{expected}` in the file header{where}",
            spdx.license is not None,
        )
    elif spdx.license is not None and all(value != spdx.license for _, value in licenses):
        # Another identifier beside the configured one is fine (portions adapted from
        # other projects carry theirs); without the configured one, the first is wrong.
        index, value = licenses[0]
        yield Problem(index, f"license is '{value}', expected '{spdx.license}'", True)
    replaced = [i for i, body in header.bodies.items() if _is_replaced(body, spdx.replaces)]
    for index in replaced:
        yield Problem(
            index,
            f"outdated copyright line; expected `{COPYRIGHT_TAG} {spdx.copyright}`",
            spdx.copyright is not None,
        )
    if spdx.copyright is not None:
        copyrights = [v for _, v in _find(header, COPYRIGHT_TAG)]
        if spdx.copyright not in copyrights and not replaced:
            yield Problem(
                header.start, f"missing `{COPYRIGHT_TAG} {spdx.copyright}` in the file header", True
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
    spdx = config.spdx
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
    if source.kind in COMMENT_PREFIX_BY_KIND and _is_plainly_clean(
        source.text, COMMENT_PREFIX_BY_KIND[source.kind], config
    ):
        return []
    header = _applies(source)
    if header is None:
        return []
    return [
        Finding(source.relpath, p.line + 1, 1, RULE_ID, p.message, fixable=p.fixable)
        for p in problems(header, config)
    ]


def _newline(text: str) -> str:
    match = re.search(r"\r\n|\n|\r", text)
    return match.group(0) if match else "\n"


def fix(source: SourceFile, config: Config) -> bytes | None:
    """The file with its header mended, or None when nothing can be fixed."""
    header = _applies(source, whole=True)
    if header is None:
        return None
    spdx = config.spdx
    newline = _newline(source.text)
    prefix = header.prefix
    lines = list(header.lines)
    license_line = f"{prefix} {LICENSE_TAG} {spdx.license}{newline}" if spdx.license else None
    copyright_line = (
        f"{prefix} {COPYRIGHT_TAG} {spdx.copyright}{newline}" if spdx.copyright else None
    )

    # Rewrite in place inside the header: the first license line when none has the
    # configured value (others stay: they cover adapted portions), outdated copyrights.
    have_copyright = False
    values = [v for v in (_tag_value(b, LICENSE_TAG) for b in header.bodies.values()) if v]
    rewrite_license = bool(license_line) and spdx.license not in values
    for index in range(header.start, header.end):
        body = _body(lines[index], prefix)
        value = _tag_value(body, LICENSE_TAG)
        if value is not None and rewrite_license:
            lines[index] = license_line or lines[index]
            rewrite_license = False
        elif copyright_line and _is_replaced(body, spdx.replaces):
            lines[index] = "" if have_copyright else copyright_line
            have_copyright = True
        elif _tag_value(body, COPYRIGHT_TAG) == spdx.copyright:
            if have_copyright:
                lines[index] = ""  # a replaced line already became this one
            have_copyright = True
    header_text = lines[header.start : header.end]
    has_license = any(
        _tag_value(_body(line, prefix), LICENSE_TAG) is not None for line in header_text
    )

    # SPDX lines below the header move up (only whole-line comments are touched).
    if not has_license and license_line:
        for index in range(header.end, len(lines)):
            if _tag_value(_body(lines[index], prefix), LICENSE_TAG) is not None:
                lines[index] = ""
                break
    insert: list[str] = []
    if not has_license and license_line:
        insert.append(license_line)
    if copyright_line and not have_copyright:
        insert.append(copyright_line)
    if insert:
        position = header.start
        if has_license:
            # The copyright goes right below the existing license line.
            for index in range(header.start, header.end):
                if _tag_value(_body(lines[index], prefix), LICENSE_TAG) is not None:
                    position = index + 1
                    break
        if position > 0 and not lines[position - 1].endswith(("\n", "\r")):
            lines[position - 1] += newline
        lines[position:position] = insert
    text = "".join(lines)
    if text == source.text:
        return None
    data = text.encode(source.encoding)
    return BOM + data if source.has_bom else data


def _kinds(config: Config) -> frozenset[str]:
    return frozenset(config.spdx.kinds)


RULE = register(
    FileRule(
        id=RULE_ID,
        summary="the configured SPDX license and copyright lines stand in the file header",
        check=check,
        kinds=_kinds,
        fix=fix,
    )
)
