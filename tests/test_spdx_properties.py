# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Property tests of the spdx-header fixer on generated files (hypothesis).

Each generated Python file mixes a shebang, a PEP 263 cookie (line 1 or 2), a BOM,
header comments (SPDX lines ours, foreign or outdated; banners holding characters
``str.splitlines`` would split at), a docstring with SPDX lines after it, SPDX text in
strings, and one of the three line endings. The fixer must be idempotent, keep BOM,
cookie, shebang and line endings, leave the module's AST unchanged, and write bytes
that decode the same way. CI runs 200 examples a property; for thousands:
``POLICYTOOL_HYPOTHESIS_EXAMPLES=3000 python -m pytest tests/test_spdx_properties.py``.
"""

from __future__ import annotations

import ast
import codecs
import dataclasses
import os
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from policytool.config import Config
from policytool.core.kinds import CommentKind
from policytool.core.text import split_lines
from policytool.engine.fixes import fixed_data, splice
from policytool.engine.source import SourceFile
from policytool.rules import spdx_header as spdx
from policytool.rules._source_config import SpdxConfig

EXAMPLES = int(os.environ.get("POLICYTOOL_HYPOTHESIS_EXAMPLES", "200"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

LICENSE = "Apache-2.0"
COPYRIGHT = "Copyright contributors to the demo project"
CONFIG = Config(
    root=Path("/nonexistent"),
    sections=(
        SpdxConfig(
            license=LICENSE,
            copyright=COPYRIGHT,
            replaces=("Copyright (c) Old Corp",),
            configured=True,
        ),
    ),
)


def mend(source: SourceFile, config: Config) -> bytes | None:
    """What the engine writes for the fixer's edits (verified, encoded back)."""
    return fixed_data(source, spdx.fix(source, config))


ODD = ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\t", "é", "—"]

header_line = st.one_of(
    st.sampled_from(
        [
            f"# SPDX-License-Identifier: {LICENSE}",
            "# SPDX-License-Identifier: MIT",
            f"# SPDX-FileCopyrightText: {COPYRIGHT}",
            "# SPDX-FileCopyrightText: Copyright (c) Old Corp",
            "# Copyright (c) Old Corp",
            "#",
            "",
            "# banner",
        ]
    ),
    st.builds(
        lambda a, c, b: f"# {a}{c}{b}",
        st.text("abc ", max_size=5),
        st.sampled_from(ODD),
        st.text("xyz", max_size=5),
    ),
)
body_line = st.sampled_from(
    [
        "x = 1",
        "import os",
        "# a comment",
        "# SPDX-License-Identifier: MIT",
        "TEMPLATE = '# SPDX-License-Identifier: Apache-2.0'",
        "def f():\n    return 1",
        "y = '''\n# SPDX-FileCopyrightText: Copyright contributors to the demo project\n'''",
        "",
    ]
)


@st.composite
def python_files(draw: st.DrawFn) -> bytes:
    """A Python file's bytes, in its own encoding and line endings."""
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    encoding = draw(st.sampled_from([None, "utf-8", "latin-1", "utf-8-sig", "cp1252"]))
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append("#!/usr/bin/env python3" + draw(st.sampled_from(["", "\x0c", " -u"])))
    if encoding is not None:
        if not lines and draw(st.booleans()):
            lines.append("# Legacy module")  # the cookie on line 2, after a comment
        lines.append(f"# -*- coding: {encoding} -*-")
    lines += draw(st.lists(header_line, max_size=5))
    if draw(st.booleans()):
        lines.append('"""Module docstring.\n\n# SPDX-License-Identifier: MIT\n"""')
        lines += draw(
            st.lists(
                st.sampled_from(
                    [
                        "",
                        f"# SPDX-License-Identifier: {LICENSE}",
                        f"# SPDX-FileCopyrightText: {COPYRIGHT}",
                        "# Adapted from upstream",
                        "# SPDX-License-Identifier: MIT",
                    ]
                ),
                max_size=4,
            )
        )
    lines += draw(st.lists(body_line, max_size=6))
    text = newline.join(line.replace("\n", newline) for line in lines)
    if draw(st.booleans()):
        text += newline
    codec = "utf-8" if encoding in (None, "utf-8-sig") else encoding
    try:
        data = text.encode(codec)
    except UnicodeEncodeError:
        data = text.encode(codec, "replace")
    bom = encoding in (None, "utf-8", "utf-8-sig") and draw(st.booleans())
    return codecs.BOM_UTF8 + data if bom else data


def source_of(data: bytes) -> SourceFile:
    return SourceFile("gen.py", "/nonexistent/gen.py", data, "python")


def newline_styles(data: bytes) -> set[bytes]:
    styles = set()
    if b"\r\n" in data:
        styles.add(b"\r\n")
    if b"\n" in data.replace(b"\r\n", b""):
        styles.add(b"\n")
    if b"\r" in data.replace(b"\r\n", b""):
        styles.add(b"\r")
    return styles


@SETTINGS
@given(python_files())
@example(  # CI's draw: SPDX lines below the docstring split by a blank line
    b'# -*- coding: latin-1 -*-\n"""Module docstring.\n\n# SPDX-License-Identifier: MIT\n"""\n'
    b"# SPDX-FileCopyrightText: Copyright contributors to the demo project\n\n"
    b"# SPDX-License-Identifier: Apache-2.0\nx = 1\n# SPDX-License-Identifier: MIT"
)
def test_fix_is_idempotent_and_leaves_nothing_fixable(data: bytes) -> None:
    source = source_of(data)
    try:
        source.text  # noqa: B018 - undecodable bytes are the engine's finding, never fixed
    except ValueError:
        return
    fixed = mend(source, CONFIG)
    if fixed is None:
        assert not [f for f in spdx.check(source, CONFIG) if f.fixable]
        return
    again = source_of(fixed)
    assert mend(again, CONFIG) is None
    assert not [f for f in spdx.check(again, CONFIG) if f.fixable]


@SETTINGS
@given(python_files())
def test_fix_keeps_bom_cookie_shebang_endings_and_decoding(data: bytes) -> None:
    source = source_of(data)
    try:
        original = source.text
    except ValueError:
        return
    fixed = mend(source, CONFIG)
    if fixed is None:
        return
    after = source_of(fixed)
    assert after.encoding == source.encoding
    assert fixed.startswith(codecs.BOM_UTF8) == data.startswith(codecs.BOM_UTF8)
    assert fixed.count(codecs.BOM_UTF8) == data.count(codecs.BOM_UTF8)
    text = after.text  # decodes in the same encoding
    if original.startswith("#!"):
        first = split_lines(original)[0]
        assert text.startswith(first)
    if data.strip():
        original_styles = newline_styles(data)
        if len(original_styles) == 1:
            assert newline_styles(fixed) == original_styles


@SETTINGS
@given(python_files())
def test_fix_changes_only_comments(data: bytes) -> None:
    source = source_of(data)
    try:
        original = source.text
        before = ast.dump(ast.parse(original))
    except (ValueError, SyntaxError):
        return
    fixed = mend(source, CONFIG)
    if fixed is None:
        return
    assert ast.dump(ast.parse(source_of(fixed).text)) == before
    compile(fixed, "gen.py", "exec")  # the bytes, cookie and BOM included, still compile


KINDS: list[CommentKind] = ["python", "shell", "yaml", "rust", "c"]


@SETTINGS
@given(st.text(max_size=200), st.sampled_from(KINDS))
def test_any_text_never_crashes_and_fix_is_idempotent(text: str, kind: CommentKind) -> None:
    config = Config(
        root=Path("/nonexistent"),
        sections=(
            SpdxConfig(license=LICENSE, copyright=COPYRIGHT, kinds=(kind,), configured=True),
        ),
    )
    data = text.encode("utf-8", "surrogatepass")
    source = SourceFile("gen", "/nonexistent/gen", data, kind)
    try:
        source.text  # noqa: B018
    except ValueError:
        return
    spdx.check(source, config)
    fixed = mend(source, config)
    if fixed is not None:
        assert mend(SourceFile("gen", "/nonexistent/gen", fixed, kind), config) is None
        assert fixed.decode("utf-8-sig" if fixed.startswith(codecs.BOM_UTF8) else "utf-8")


# --- fixes as data: the edits stay in the header, a refused fix writes nothing -----------


def _header_region(source: SourceFile) -> set[int]:
    """Lines (0-based) a fix may touch: the header, a last line gaining its line ending,
    and the comment block after the module docstring it moves up."""
    header = spdx.parse_header(source.text, "python", whole=True)
    lines = set(range(header.end + 1)) | set(spdx._docstring_block(header))
    return lines | {len(header.lines) - 1}


@SETTINGS
@given(python_files())
def test_fix_edits_only_the_header_and_only_spdx_lines(data: bytes) -> None:
    """Every edit lies in the header (or the SPDX block it moves up), and the text
    without its SPDX comment lines is the same before and after."""
    source = source_of(data)
    try:
        text = source.text
    except ValueError:
        return
    fix = spdx.fix(source, CONFIG)
    if fix is None:
        return
    starts = [0]
    for line in split_lines(text):
        starts.append(starts[-1] + len(line))
    region = _header_region(source)
    for edit in fix.edits:
        first = max(i for i, s in enumerate(starts) if s <= edit.start)
        assert min(first, len(starts) - 2) in region or first == len(starts) - 1, (edit, text)
    assert fix.verify is not None and fix.verify(text, splice(text, fix.edits)) is None


@SETTINGS
@given(python_files(), st.sampled_from(["verify", "encoding"]))
def test_a_refused_fix_leaves_the_file_byte_identical(data: bytes, how: str) -> None:
    """A fix whose verification refuses, or whose text the file's encoding cannot hold,
    changes no byte of the file."""
    source = source_of(data)
    try:
        source.text  # noqa: B018
    except ValueError:
        return
    fix = spdx.fix(source, CONFIG)
    if fix is None:
        return
    if how == "verify":
        refused = dataclasses.replace(fix, verify=lambda old, new: "refused")
    else:  # a character no legacy codec holds, written with the same edits
        edits = tuple(dataclasses.replace(e, new=e.new + "\U0001f600") for e in fix.edits)
        refused = dataclasses.replace(fix, edits=edits, verify=None)
        if source.encoding.startswith("utf"):
            return
    assert fixed_data(source, refused) is None
    assert source.data == data
