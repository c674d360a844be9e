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
from policytool.files import COMMENT_PREFIX_BY_KIND
from policytool.findings import Finding
from policytool.rules import BOM, FileRule, SourceFile, coding_cookie, register

RULE_ID = "spdx-header"
LICENSE_TAG = "SPDX-License-Identifier:"
COPYRIGHT_TAG = "SPDX-FileCopyrightText:"


@dataclass(frozen=True)
class Header:
    """Where the header of a file is: lines ``[start, end)`` of ``lines``."""

    lines: list[str]  # with line endings
    start: int  # first line after shebang / encoding line
    end: int  # first line that is neither comment nor blank
    prefix: str


def _body(line: str, prefix: str) -> str | None:
    """The text of a full-line comment without its marker, or None for code lines."""
    stripped = line.strip()
    if not stripped.startswith(prefix):
        return None
    return stripped[len(prefix) :].strip()


def parse_header(text: str, kind: str) -> Header:
    """Split ``text`` (no BOM) into preamble, header block and the rest."""
    prefix = COMMENT_PREFIX_BY_KIND[kind]
    lines = text.splitlines(keepends=True)
    start = 0
    if lines and lines[0].startswith("#!"):
        start = 1
    if kind in ("python", "stub"):
        for index in (0, 1):
            if start == index and index < len(lines) and coding_cookie(lines[index].encode()):
                start = index + 1
    end = start
    while end < len(lines) and (not lines[end].strip() or _body(lines[end], prefix) is not None):
        end += 1
    return Header(lines, start, end, prefix)


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


def _find(header: Header, tag: str, lo: int, hi: int) -> list[tuple[int, str]]:
    found = []
    for index in range(lo, hi):
        value = _tag_value(_body(header.lines[index], header.prefix), tag)
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
    total = len(header.lines)
    licenses = _find(header, LICENSE_TAG, header.start, header.end)
    if not licenses:
        elsewhere = _find(header, LICENSE_TAG, header.end, total)
        where = f" (found at line {elsewhere[0][0] + 1}, below the header)" if elsewhere else ""
        expected = f"{LICENSE_TAG} {spdx.license}" if spdx.license else LICENSE_TAG
        yield Problem(header.start, f"missing `{expected}` in the file header{where}", spdx.license is not None)
    elif spdx.license is not None:
        for index, value in licenses:
            if value != spdx.license:
                yield Problem(index, f"license is '{value}', expected '{spdx.license}'", True)
    for index in range(header.start, header.end):
        if _is_replaced(_body(header.lines[index], header.prefix), spdx.replaces):
            yield Problem(index, "outdated copyright line; expected "
                          f"`{COPYRIGHT_TAG} {spdx.copyright}`", spdx.copyright is not None)
    if spdx.copyright is not None:
        copyrights = [v for _, v in _find(header, COPYRIGHT_TAG, header.start, header.end)]
        replaced = any(
            _is_replaced(_body(header.lines[i], header.prefix), spdx.replaces)
            for i in range(header.start, header.end)
        )
        if spdx.copyright not in copyrights and not replaced:
            yield Problem(header.start, f"missing `{COPYRIGHT_TAG} {spdx.copyright}` in the file header", True)


def _applies(source: SourceFile, config: Config) -> Header | None:
    if source.kind not in COMMENT_PREFIX_BY_KIND:
        return None
    text = source.text
    if not text.strip():
        return None  # empty and whitespace-only files are exempt
    return parse_header(text, source.kind)


def check(source: SourceFile, config: Config) -> list[Finding]:
    """Findings for one file."""
    header = _applies(source, config)
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
    header = _applies(source, config)
    if header is None:
        return None
    spdx = config.spdx
    newline = _newline(source.text)
    prefix = header.prefix
    lines = list(header.lines)
    license_line = f"{prefix} {LICENSE_TAG} {spdx.license}{newline}" if spdx.license else None
    copyright_line = f"{prefix} {COPYRIGHT_TAG} {spdx.copyright}{newline}" if spdx.copyright else None

    # Rewrite in place inside the header: wrong license values, outdated copyrights.
    have_copyright = False
    for index in range(header.start, header.end):
        body = _body(lines[index], prefix)
        value = _tag_value(body, LICENSE_TAG)
        if value is not None and license_line and value != spdx.license:
            lines[index] = license_line
        elif copyright_line and _is_replaced(body, spdx.replaces):
            lines[index] = "" if have_copyright else copyright_line
            have_copyright = True
        elif _tag_value(body, COPYRIGHT_TAG) == spdx.copyright:
            if have_copyright:
                lines[index] = ""  # a replaced line already became this one
            have_copyright = True
    header_text = lines[header.start : header.end]
    has_license = any(_tag_value(_body(l, prefix), LICENSE_TAG) is not None for l in header_text)

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
