# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""spdx-header: what it catches, what it leaves alone, its fix, and bad inputs."""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable

import pytest

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
    assert "found at line 2, below the header" in result.out


def test_spdx_text_inside_a_string_does_not_count(demo: Repo, run: Run) -> None:
    demo.write("a.py", COP + 'X = "SPDX-License-Identifier: Apache-2.0"\n')
    result = check(run, "a.py")
    assert result.code == 1
    assert "a.py:1:1: spdx-header missing `SPDX-License-Identifier: Apache-2.0`" in result.out
    assert "below the header" not in result.out  # a string is not a misplaced header line
    assert fix(run, "a.py").code == 1
    assert demo.read("a.py") == (LIC + COP + 'X = "SPDX-License-Identifier: Apache-2.0"\n').encode()


def test_wrong_license_value(demo: Repo, run: Run) -> None:
    demo.write("a.py", "# SPDX-License-Identifier: MIT\n" + COP)
    result = check(run, "a.py")
    assert "license is 'MIT', expected 'Apache-2.0'" in result.out
    assert fix(run, "a.py").code == 1
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
    repo.write("pyproject.toml", '[project]\nname = "x"\nlicense = "BSD-3-Clause"\n')
    repo.write("a.py", "x = 1\n")
    fix(run, "a.py")
    assert repo.read("a.py") == b"# SPDX-License-Identifier: BSD-3-Clause\nx = 1\n"


def test_without_license_any_identifier_passes_and_fix_cannot_insert(repo: Repo, run: Run) -> None:
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
    fix(run, "a.py")
    assert demo.read("a.py") == (LIC + "# SPDX-License-Identifier: BSD-3-Clause\n" + COP).encode()


def test_exact_header_followed_by_an_outdated_copyright_is_still_checked(
    demo: Repo, run: Run
) -> None:
    demo.write("a.py", "#!/usr/bin/env python3\n" + LIC + COP + "# Copyright (c) Old Corp\n")
    result = check(run, "a.py")
    assert "a.py:4:1: spdx-header outdated copyright line" in result.out
