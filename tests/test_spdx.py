# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""spdx-header: what it catches, what it leaves alone, its fix, and bad inputs."""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from policytool.rules._source_config import SpdxConfig
from tests.conftest import Repo, Result

LIC = "# SPDX-License-Identifier: Apache-2.0\n"
COP = "# SPDX-FileCopyrightText: Copyright contributors to the demo project\n"
CONFIG = """\
[tool.policytool.spdx]
license = "Apache-2.0"
copyright = "Copyright contributors to the demo project"
replaces = ["Copyright (c) Old Corp"]
kinds = ["python", "shell", "yaml", "cuda", "rust"]
"""

Run = Callable[..., Result]


@pytest.fixture
def demo(repo: Repo) -> Repo:
    repo.write("pyproject.toml", CONFIG)
    return repo


def check(run: Run, *paths: str) -> Result:
    return run("check", "--only", "spdx-header", *paths)


def fix(run: Run, *paths: str) -> Result:
    return run("fix", "--only", "spdx-header", *paths)


def test_good_header_is_clean(demo: Repo, run: Run) -> None:
    demo.write("a.py", LIC + COP + "import os\n")
    result = check(run, "a.py")
    assert result.code == 0, result.out
    assert "no findings" in result.out


def test_missing_header_is_reported_with_line(demo: Repo, run: Run) -> None:
    demo.write("a.py", "import os\n")
    result = check(run, "a.py")
    assert result.code == 1
    assert "a.py:1:1: spdx-header missing `SPDX-License-Identifier: Apache-2.0`" in result.out
    assert "a.py:1:1: spdx-header missing `SPDX-FileCopyrightText:" in result.out


def test_spdx_line_below_docstring_is_not_a_header(demo: Repo, run: Run) -> None:
    demo.write("a.py", '"""Doc."""\n' + LIC + COP)
    result = check(run, "a.py")
    assert result.code == 1
    assert (
        "License-Identifier: Apache-2.0` in the file header (found at line 2, below the docstring)"
        in result.out
    )
    assert "project` in the file header (found at line 3, below the docstring)" in result.out


def test_spdx_text_inside_a_string_does_not_count(demo: Repo, run: Run) -> None:
    demo.write("a.py", COP + 'X = "SPDX-License-Identifier: Apache-2.0"\n')
    result = check(run, "a.py")
    assert result.code == 1
    assert "a.py:1:1: spdx-header missing `SPDX-License-Identifier: Apache-2.0`" in result.out
    assert "below the header" not in result.out  # a string is not a misplaced header line
    assert fix(run, "a.py").code == 1
    assert demo.read("a.py") == (LIC + COP + 'X = "SPDX-License-Identifier: Apache-2.0"\n').encode()


def test_wrong_license_value(demo: Repo, run: Run) -> None:
    """Another license is a license change: reported, not fixed, unless relicense = true."""
    demo.write("a.py", "# SPDX-License-Identifier: MIT\n" + COP)
    result = check(run, "a.py")
    assert (
        "a.py:1:1: spdx-header license is 'MIT', expected 'Apache-2.0'; a license change is "
        "not a formatting fix: change it by hand, or set relicense = true in "
        "[tool.policytool.spdx] for `fix` to rewrite it\n"
    ) in result.out
    assert "1 error)" in result.out and "fixable" not in result.out
    unfixed = fix(run, "a.py")
    assert unfixed.code == 1 and "fixed a.py" not in unfixed.err
    assert demo.read("a.py") == ("# SPDX-License-Identifier: MIT\n" + COP).encode()
    demo.write("pyproject.toml", CONFIG + "relicense = true\n")
    assert "license is 'MIT', expected 'Apache-2.0'\n" in check(run, "a.py").out
    relicensed = fix(run, "a.py")
    assert relicensed.code == 1 and "fixed a.py" in relicensed.err
    assert demo.read("a.py") == (LIC + COP).encode()


def test_fix_inserts_and_is_idempotent(demo: Repo, run: Run) -> None:
    demo.write("a.py", '"""Doc."""\nimport os\n')
    first = fix(run, "a.py")
    assert first.code == 1
    assert "fixed a.py" in first.err
    assert demo.read("a.py") == (LIC + COP + '"""Doc."""\nimport os\n').encode()
    second = fix(run, "a.py")
    assert second.code == 0
    assert demo.read("a.py") == (LIC + COP + '"""Doc."""\nimport os\n').encode()


def test_fix_keeps_shebang_and_encoding_line_first(demo: Repo, run: Run) -> None:
    body = "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nprint(1)\n"
    demo.write("tool.py", body, mode=0o755)
    fix(run, "tool.py")
    assert (
        demo.read("tool.py")
        == ("#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n" + LIC + COP + "print(1)\n").encode()
    )
    assert stat.S_IMODE(os.stat(demo.root / "tool.py").st_mode) == 0o755
    assert check(run, "tool.py").code == 0


def test_fix_keeps_latin1_encoding(demo: Repo, run: Run) -> None:
    body = "# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n".encode("latin-1")
    demo.write("old.py", body)
    fix(run, "old.py")
    data = demo.read("old.py")
    assert data == ("# -*- coding: latin-1 -*-\n" + LIC + COP + "NAME = 'caf\xe9'\n").encode(
        "latin-1"
    )


def test_fix_keeps_bom_once_and_crlf(demo: Repo, run: Run) -> None:
    demo.write("win.py", codecs.BOM_UTF8 + b"import os\r\nprint(os)\r\n")
    fix(run, "win.py")
    data = demo.read("win.py")
    assert data.startswith(codecs.BOM_UTF8)
    assert data.count(codecs.BOM_UTF8) == 1
    assert (
        data
        == codecs.BOM_UTF8
        + (LIC + COP).replace("\n", "\r\n").encode()
        + b"import os\r\nprint(os)\r\n"
    )
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert check(run, "win.py").code == 0


def test_bom_with_header_is_clean(demo: Repo, run: Run) -> None:
    demo.write("b.py", codecs.BOM_UTF8 + (LIC + COP).encode())
    assert check(run, "b.py").code == 0


def test_replaces_rewrites_old_copyright(demo: Repo, run: Run) -> None:
    demo.write("a.py", LIC + "# SPDX-FileCopyrightText: Copyright (c) Old Corp\nx = 1\n")
    result = check(run, "a.py")
    assert "outdated copyright line" in result.out
    assert result.out.count("spdx-header") == 1  # not also "missing copyright"
    fix(run, "a.py")
    assert demo.read("a.py") == (LIC + COP + "x = 1\n").encode()


def test_replaces_plain_comment_and_existing_copyright_dedupes(demo: Repo, run: Run) -> None:
    demo.write("a.py", LIC + COP + "# Copyright (c) Old Corp\nx = 1\n")
    fix(run, "a.py")
    assert demo.read("a.py") == (LIC + COP + "x = 1\n").encode()


def test_copyright_inserted_below_existing_license(demo: Repo, run: Run) -> None:
    demo.write("a.py", "#!/bin/python\n# banner\n" + LIC + "x = 1\n")
    fix(run, "a.py")
    assert demo.read("a.py") == ("#!/bin/python\n# banner\n" + LIC + COP + "x = 1\n").encode()


def test_misplaced_license_line_moves_up(demo: Repo, run: Run) -> None:
    demo.write("a.py", '"""Doc."""\n' + LIC + "x = 1\n")
    fix(run, "a.py")
    assert demo.read("a.py") == (LIC + COP + '"""Doc."""\n' + "x = 1\n").encode()


def test_comment_syntax_by_kind(demo: Repo, run: Run) -> None:
    demo.write("k.cu", "__global__ void k() {}\n")
    demo.write("lib.rs", "fn main() {}\n")
    demo.write("ci.yaml", "a: 1\n")
    demo.write("run.sh", "#!/bin/sh\necho hi")  # no trailing newline
    demo.write("script", "#!/usr/bin/env bash\necho hi\n")  # kind from shebang
    for path in ("k.cu", "lib.rs", "ci.yaml", "run.sh", "script"):
        fix(run, path)
    assert demo.read("k.cu").startswith(
        b"// SPDX-License-Identifier: Apache-2.0\n// SPDX-FileCopyrightText:"
    )
    assert demo.read("lib.rs").startswith(b"// SPDX-License-Identifier")
    assert demo.read("ci.yaml").startswith(LIC.encode())
    assert demo.read("run.sh") == ("#!/bin/sh\n" + LIC + COP + "echo hi").encode()
    assert demo.read("script").startswith(b"#!/usr/bin/env bash\n" + LIC.encode())


def test_kinds_not_configured_are_ignored(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", '[tool.policytool.spdx]\nlicense = "MIT"\n')
    repo.write("a.sh", "echo hi\n")
    repo.write("a.py", "x = 1\n")
    result = check(run, "a.sh", "a.py")
    assert "a.sh" not in result.out
    assert "a.py:1:1" in result.out


def test_empty_and_whitespace_files_are_exempt(demo: Repo, run: Run) -> None:
    demo.write("__init__.py", "")
    demo.write("blank.py", "\n  \n\t\n")
    assert check(run, "__init__.py", "blank.py").code == 0
    assert fix(run, "__init__.py", "blank.py").code == 0
    assert demo.read("__init__.py") == b""


def test_binary_file_is_skipped(demo: Repo, run: Run) -> None:
    demo.write("blob.py", b"\x00\x01\x02binary")
    assert check(run, "blob.py").code == 0


def test_non_utf8_file_is_a_finding_not_a_crash(demo: Repo, run: Run) -> None:
    demo.write("bad.py", b"x = 1\ny = '\xff\xfe'\n")
    result = check(run, "bad.py")
    assert result.code == 1
    assert "bad.py:2:1: undecodable not valid utf-8" in result.out
    before = demo.read("bad.py")
    fix(run, "bad.py")
    assert demo.read("bad.py") == before


def test_license_defaults_from_project_license(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        '[project]\nname = "x"\nlicense = "BSD-3-Clause"\n[tool.policytool.spdx]\n',
    )
    repo.write("a.py", "x = 1\n")
    fix(run, "a.py")
    assert repo.read("a.py") == b"# SPDX-License-Identifier: BSD-3-Clause\nx = 1\n"


def test_a_project_license_alone_turns_nothing_on(repo: Repo, run: Run) -> None:
    """pytest: MIT in [project], no SPDX policy: 262 findings before; none now."""
    repo.write("pyproject.toml", '[project]\nname = "x"\nlicense = "MIT"\n')
    repo.write("a.py", "x = 1\n")
    repo.commit()
    assert check(run).code == 0
    assert run("check").code == 0
    assert fix(run, "a.py").code == 0
    assert repo.read("a.py") == b"x = 1\n"


def test_without_license_any_identifier_passes_and_fix_cannot_insert(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[tool.policytool.spdx]\n")
    repo.write("a.py", "# SPDX-License-Identifier: MIT\n")
    repo.write("b.py", "x = 1\n")
    result = check(run, "a.py", "b.py")
    assert "a.py" not in result.out
    assert "b.py:1:1: spdx-header missing `SPDX-License-Identifier:`" in result.out
    fix(run, "b.py")
    assert repo.read("b.py") == b"x = 1\n"


def test_ignore_comment_silences_the_named_rule(demo: Repo, run: Run) -> None:
    demo.write("a.py", "import os  # policytool: ignore[spdx-header]\n")
    assert check(run, "a.py").code == 0


def test_bare_ignore_is_a_finding(demo: Repo, run: Run) -> None:
    demo.write("a.py", LIC + COP + "import os  # policytool: ignore\n")
    result = run("check", "a.py")
    assert result.code == 1
    assert "a.py:3:12: bare-ignore" in result.out


def test_marker_in_a_string_is_not_an_ignore(demo: Repo, run: Run) -> None:
    demo.write("a.py", LIC + COP + 'HELP = "# policytool: ignore"\n')
    assert run("check", "a.py").code == 0


def test_a_second_license_for_adapted_portions_is_allowed(demo: Repo, run: Run) -> None:
    """vLLM's vendored kernels: our header, then the upstream notice with its own id."""
    body = (
        LIC + COP + "\n# Portions adapted from upstream:\n# SPDX-License-Identifier: MIT\nx = 1\n"
    )
    demo.write("a.py", body)
    assert check(run, "a.py").code == 0
    assert fix(run, "a.py").code == 0
    assert demo.read("a.py") == body.encode()


def test_only_foreign_licenses_rewrites_the_first(demo: Repo, run: Run) -> None:
    demo.write(
        "a.py", "# SPDX-License-Identifier: MIT\n# SPDX-License-Identifier: BSD-3-Clause\n" + COP
    )
    result = check(run, "a.py")
    assert result.out.count("spdx-header") == 1
    assert "a.py:1:1: spdx-header license is 'MIT', expected 'Apache-2.0'" in result.out
    demo.write("pyproject.toml", CONFIG + "relicense = true\n")
    fix(run, "a.py")
    assert demo.read("a.py") == (LIC + "# SPDX-License-Identifier: BSD-3-Clause\n" + COP).encode()


def test_exact_header_followed_by_an_outdated_copyright_is_still_checked(
    demo: Repo, run: Run
) -> None:
    demo.write("a.py", "#!/usr/bin/env python3\n" + LIC + COP + "# Copyright (c) Old Corp\n")
    result = check(run, "a.py")
    assert "a.py:4:1: spdx-header outdated copyright line" in result.out


# ----- first run on a real tree (vLLM) and hostile files -------------------------------

VLLM_COP = "# SPDX-FileCopyrightText: Copyright contributors to the vLLM project\n"


def test_vllm_engine_py_header_below_the_docstring_moves_whole(repo: Repo, run: Run) -> None:
    """vllm/inputs/engine.py: the old fix moved the license and left a second copyright."""
    repo.write(
        "pyproject.toml",
        '[tool.policytool.spdx]\nlicense = "Apache-2.0"\n'
        'copyright = "Copyright contributors to the vLLM project"\n',
    )
    body = (
        '"""Schema and utilities for inputs to the engine client."""\n\n'
        + LIC
        + VLLM_COP
        + "from collections.abc import Mapping\n"
    )
    repo.write("engine.py", body)
    assert fix(run, "engine.py").code == 1
    fixed = repo.read("engine.py").decode()
    assert fixed == (
        LIC
        + VLLM_COP
        + '"""Schema and utilities for inputs to the engine client."""\n\n'
        + "from collections.abc import Mapping\n"
    )
    assert fixed.count("SPDX-FileCopyrightText") == 1
    assert fix(run, "engine.py").code == 0


def test_cookie_on_line_two_after_a_comment_stays_there(demo: Repo, run: Run) -> None:
    body = "# Legacy module\n# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n".encode("latin-1")
    demo.write("legacy.py", body)
    assert fix(run, "legacy.py").code == 1
    data = demo.read("legacy.py")
    assert data.split(b"\n")[1] == b"# -*- coding: latin-1 -*-"
    assert data == ("# Legacy module\n# -*- coding: latin-1 -*-\n" + LIC + COP).encode(
        "latin-1"
    ) + "NAME = 'caf\xe9'\n".encode("latin-1")
    compile(data, "legacy.py", "exec")  # still decodes: the cookie is on line 2
    assert check(run, "legacy.py").code == 0


@pytest.mark.parametrize("char", ["\u2028", "\x0c", "\x85", "\x1c", "\x1d", "\x1e", "\x0b"])
def test_only_newlines_end_a_line(demo: Repo, run: Run, char: str) -> None:
    """str.splitlines() split the shebang and the header went between its halves."""
    body = f"#!/usr/bin/env python3{char}tail of the line\nx = 1\n"
    demo.write("a.py", body)
    fix(run, "a.py")
    fixed = demo.read("a.py").decode()
    assert fixed == f"#!/usr/bin/env python3{char}tail of the line\n" + LIC + COP + "x = 1\n"
    compile(fixed, "a.py", "exec")
    assert check(run, "a.py").code == 0


def test_form_feed_after_the_shebang_keeps_the_cookie_on_line_two(demo: Repo, run: Run) -> None:
    body = "#!/usr/bin/env python\x0c\n# coding: latin-1\nNAME = 'caf\xe9'\n".encode("latin-1")
    demo.write("tool.py", body)
    fix(run, "tool.py")
    data = demo.read("tool.py")
    assert data.split(b"\n")[1] == b"# coding: latin-1"
    assert data.endswith("NAME = 'caf\xe9'\n".encode("latin-1"))
    compile(data, "tool.py", "exec")


def test_spdx_text_in_strings_and_heredocs_is_never_moved(demo: Repo, run: Run) -> None:
    py = (
        '"""Write headers.\n\n# SPDX-License-Identifier: Apache-2.0\n"""\n'
        "TEMPLATE = '''\n# SPDX-License-Identifier: Apache-2.0\n" + COP + "'''\n"
    )
    sh = "echo hi\ncat > out.sh <<EOF\n# SPDX-License-Identifier: Apache-2.0\nEOF\n"
    demo.write("gen.py", py)
    demo.write("gen.sh", sh)
    fix(run, "gen.py", "gen.sh")
    import ast

    fixed_py = demo.read("gen.py").decode()
    assert fixed_py == LIC + COP + py
    assert ast.dump(ast.parse(fixed_py)) == ast.dump(ast.parse(py))
    assert demo.read("gen.sh").decode() == LIC + COP + sh


def test_an_adapted_portions_notice_below_the_docstring_is_kept(demo: Repo, run: Run) -> None:
    body = '"""Kernel."""\n# Adapted from upstream\n# SPDX-License-Identifier: MIT\nx = 1\n'
    demo.write("k.py", body)
    fix(run, "k.py")
    assert demo.read("k.py").decode() == LIC + COP + body


def test_spdx_lines_split_by_a_blank_line_below_the_docstring_move_in_one_fix(
    demo: Repo, run: Run
) -> None:
    """Hypothesis found it: the copyright right below the docstring moved, the license
    one blank line lower did not, and a second fix then moved it (not idempotent)."""
    body = '"""Doc."""\n' + COP + "\n" + LIC + "x = 1\n# SPDX-License-Identifier: MIT\n"
    demo.write("split.py", body)
    assert fix(run, "split.py").code == 1
    fixed = demo.read("split.py").decode()
    assert fixed == LIC + COP + '"""Doc."""\n\nx = 1\n# SPDX-License-Identifier: MIT\n'
    assert fix(run, "split.py").code == 0
    assert demo.read("split.py").decode() == fixed


def test_spdx_lines_deep_in_the_body_are_reported_not_doubled(demo: Repo, run: Run) -> None:
    """A file whose own SPDX block stands 30 lines down gets no second notice: the
    finding names the line and asks for a hand edit; ``fix`` leaves the file as it is."""
    code = "".join(f"x{i} = {i}\n" for i in range(30))
    body = code + "# SPDX-License-Identifier: Apache-2.0\n" + COP + "y = 1\n"
    demo.write("deep.py", body)
    demo.write("deep.sh", "echo hi\n" + code.replace(" = ", "=") + "# " + LIC[2:] + COP)
    result = check(run, "deep.py", "deep.sh")
    assert (
        "deep.py:1:1: spdx-header missing `SPDX-License-Identifier: Apache-2.0` in the "
        "file header (found at line 31, in the body: move it up by hand)" in result.out
    )
    assert "(found at line 32, in the body: move it up by hand)" in result.out  # deep.sh
    assert "fixable" not in result.out.split("spdx-header", 1)[1].splitlines()[0]
    fix(run, "deep.py", "deep.sh")
    assert demo.read("deep.py").decode() == body


def test_a_portions_notice_deep_in_the_body_still_gets_the_header(demo: Repo, run: Run) -> None:
    """A deep block that says more than SPDX lines is an adapted portion's notice: the
    file's own header is still added above it."""
    body = "x = 1\n" * 30 + "# Adapted from upstream\n# SPDX-License-Identifier: MIT\ny = 1\n"
    demo.write("portion.py", body)
    fix(run, "portion.py")
    assert demo.read("portion.py").decode() == LIC + COP + body


def test_utf8_sig_cookie_without_a_bom_gains_no_bom(demo: Repo, run: Run) -> None:
    demo.write("s.py", b"# coding: utf-8-sig\nx = 1\n")
    fix(run, "s.py")
    assert demo.read("s.py") == ("# coding: utf-8-sig\n" + LIC + COP + "x = 1\n").encode()
    demo.write("b.py", codecs.BOM_UTF8 + b"# coding: utf-8-sig\nx = 1\n")
    fix(run, "b.py")
    assert (
        demo.read("b.py")
        == codecs.BOM_UTF8 + ("# coding: utf-8-sig\n" + LIC + COP + "x = 1\n").encode()
    )


def test_a_copyright_the_encoding_cannot_hold_is_a_finding_and_the_run_goes_on(
    repo: Repo, run: Run
) -> None:
    repo.write(
        "pyproject.toml",
        '[tool.policytool.spdx]\nlicense = "MIT"\ncopyright = "Copyright \u2014 Caf\u00e9 Corp"\n',
    )
    latin = "# -*- coding: latin-1 -*-\nx = 1\n".encode("latin-1")
    repo.write("a_latin.py", latin)
    repo.write("b.py", "x = 1\n")
    result = fix(run, "a_latin.py", "b.py")
    assert result.code == 1
    assert "Traceback" not in result.err
    assert "cannot be written in this file's encoding (iso8859-1)" in result.out
    assert repo.read("b.py").decode().startswith("# SPDX-License-Identifier: MIT\n")
    # the license still went in; the copyright did not, and the file still decodes
    data = repo.read("a_latin.py")
    assert data == b"# -*- coding: latin-1 -*-\n# SPDX-License-Identifier: MIT\nx = 1\n"


def test_fix_never_writes_a_multi_line_license_even_past_validation(tmp_path: Path) -> None:
    from policytool.config import Config
    from policytool.engine.source import SourceFile
    from policytool.rules import spdx_header as spdx

    config = Config(
        root=tmp_path,
        sections=(SpdxConfig(license="MIT\nimport os", copyright="A\rB", configured=True),),
    )
    source = SourceFile("a.py", tmp_path / "a.py", b"x = 1\n", "python")
    assert spdx.fix(source, config) is None
    messages = [f.message for f in spdx.check(source, config)]
    assert any("not a single line" in m for m in messages), messages
    assert not any(f.fixable for f in spdx.check(source, config))


def test_exclude_exempts_vendored_files(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        '[tool.policytool.spdx]\nlicense = "MIT"\nexclude = ["third_party/**"]\n',
    )
    repo.write("third_party/vendored.py", "x = 1\n")
    repo.write("own.py", "x = 1\n")
    repo.commit()
    result = check(run)
    assert "own.py:1:1" in result.out
    assert "third_party" not in result.out


@pytest.mark.parametrize(
    "rule_id", ["spdx-header", "forbidden-import", "torch-cuda", "stale-allow"]
)
def test_source_rule_docs_have_every_section_in_order(rule_id: str) -> None:
    from policytool.engine.registry import DOC_SECTIONS, rule_infos

    doc = rule_infos()[rule_id].doc
    headings = tuple(line[3:] for line in doc.splitlines() if line.startswith("## "))
    assert headings == DOC_SECTIONS
    assert "off until" in doc or rule_id in ("forbidden-import", "stale-allow")


def test_the_spdx_doc_example_fails_and_its_fix_passes(repo: Repo, run: Run) -> None:
    from policytool.rules.spdx_header import DOC

    example = DOC.split("## Example\n```python\n", 1)[1].split("```", 1)[0]
    config = DOC.split("## Configuration\n```toml\n", 1)[1].split("```", 1)[0]
    repo.write("pyproject.toml", config)
    repo.write("src/mod.py", example)
    repo.commit()
    assert check(run, "src/mod.py").code == 1
    assert fix(run, "src/mod.py").code == 1
    assert check(run, "src/mod.py").code == 0


def test_cookie_on_line_two_below_a_blank_line_stays_there(demo: Repo, run: Run) -> None:
    body = "\n# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n".encode("latin-1")
    demo.write("blank.py", body)
    fix(run, "blank.py")
    data = demo.read("blank.py")
    assert data.split(b"\n")[1] == b"# -*- coding: latin-1 -*-"
    compile(data, "blank.py", "exec")
