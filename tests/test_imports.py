# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""forbidden-import: every import form, true positions, allow globs, bad inputs."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Repo, Result
from tests.tryrepo import try_repo

PROJECT = Path(__file__).resolve().parents[1]

Run = Callable[..., Result]

CONFIG = """\
[[tool.policytool.forbidden-import]]
modules = ["pickle", "cloudpickle", "pkg.secret"]
reason = "unsafe deserialization; use msgspec"
{allow}

[[tool.policytool.forbidden-import]]
modules = ["re"]
reason = "use regex"
"""


def configure(repo: Repo, allow: str = "") -> None:
    """Write the test config (with an optional ``allow = ...`` line for entry 1)."""
    repo.write("pyproject.toml", "[tool.policytool]\n" + CONFIG.format(allow=allow))
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/sub/__init__.py", "")


def findings(run: Run, *args: str) -> list[tuple[str, int, int, str, str]]:
    """(path, line, col, rule, message) of a JSON check run."""
    result = run("check", "--only", "forbidden-import", "--format", "json", *args)
    assert result.code in (0, 1), result.err
    return [
        (f["path"], f["line"], f["col"], f["rule"], f["message"]) for f in json.loads(result.out)
    ]


def positions(run: Run, *args: str) -> list[tuple[int, int]]:
    """(line, col) of each forbidden-import finding."""
    return [
        (line, col)
        for _p, line, col, rule, _m in findings(run, *args)
        if rule == "forbidden-import"
    ]


CAUGHT = [
    ("import pickle\n", [(1, 8)]),
    ("import os, pickle\n", [(1, 12)]),
    ("import os,pickle , re\n", [(1, 11), (1, 20)]),
    ("import pickle as p\n", [(1, 8)]),
    ("import pickle.sub.mod as m\n", [(1, 8)]),
    ("from pickle import loads\n", [(1, 1)]),
    ("from pickle import loads as l, dumps\n", [(1, 1)]),
    ("from cloudpickle.cloudpickle import dumps\n", [(1, 1)]),
    ("from pkg import secret\n", [(1, 17)]),
    ("from pkg import other, secret as s\n", [(1, 24)]),
    ("from pkg.secret.inner import x\n", [(1, 1)]),
    ("def f():\n    import pickle\n", [(2, 12)]),
    ("if flag:\n    import pickle\nelse:\n    import cloudpickle\n", [(2, 12), (4, 12)]),
    ("try:\n    import pickle\nexcept ImportError:\n    pass\n", [(2, 12)]),
    ("if TYPE_CHECKING: import pickle\n", [(1, 26)]),
    ("x = 1; import pickle\n", [(1, 15)]),
    ("import os; from pickle import loads\n", [(1, 12)]),
    ("import os, \\\n    pickle\n", [(2, 5)]),
    ("from os import (\n    path,\n)\nfrom pickle import (\n    loads,\n    dumps,\n)\n", [(4, 1)]),
    ("from pkg import (  # a comment (\n    other,\n    secret,\n)\n", [(3, 5)]),
    ("from \\\n  pickle import loads\n", [(1, 1)]),
    ('import importlib\nimportlib.import_module("pickle")\n', [(2, 1)]),
    ("from importlib import import_module\nm = import_module('cloudpickle.x')\n", [(2, 5)]),
    ('mod = __import__("pickle")\n', [(1, 7)]),
    ("class A:\n    def f(self):\n        for x in y:\n            import re\n", [(4, 20)]),
    ("import pickle\nimport pickle\n", [(1, 8), (2, 8)]),
]


@pytest.mark.parametrize(
    ("source", "expected"), CAUGHT, ids=[c[0].splitlines()[-1][:40] for c in CAUGHT]
)
def test_every_import_form_is_caught_at_its_true_position(
    repo: Repo, run: Run, source: str, expected: list[tuple[int, int]]
) -> None:
    configure(repo)
    repo.write("pkg/mod.py", source)
    assert positions(run, "pkg/mod.py") == expected


NOT_CAUGHT = [
    "import pickletools\nimport cloudpickles\nimport pickle_utils\n",
    "# import pickle\nx = 1  # from pickle import loads\n",
    "s = 'import pickle'\nt = \"from pickle import x\"\n",
    '"""Module doc.\n\nimport pickle\nfrom pickle import loads\n"""\n',
    "def f():\n    '''\n    import pickle\n    '''\n",
    "x = f'{y}'  # import pickle\n",
    "from mypkg import pickle\nfrom os import re\n",
    "import regex as re\nimport regex\n",
    "from pkg import secrets\nimport pkg.secretive\n",
    "importlib.import_module(name)\nobj.import_module('pickle')\n",
    "__import__(name)\n",
    'q = """\nimport pickle\n""" + "import re"\n',
    "picklejar = 1\nimport_pickle = 2\n",
]


@pytest.mark.parametrize("source", NOT_CAUGHT, ids=[str(i) for i in range(len(NOT_CAUGHT))])
def test_lookalikes_comments_strings_and_docstrings_are_not_caught(
    repo: Repo, run: Run, source: str
) -> None:
    configure(repo)
    repo.write("pkg/mod.py", source)
    assert positions(run, "pkg/mod.py") == []


def test_relative_imports_resolve_against_the_package(repo: Repo, run: Run) -> None:
    configure(repo)
    repo.write(
        "pkg/a.py", "from . import secret\nfrom .secret import thing\nfrom . import pickle\n"
    )
    repo.write(
        "pkg/sub/b.py", "from .. import secret\nfrom ..secret import x\nfrom . import secret\n"
    )
    found = findings(run, "pkg/a.py", "pkg/sub/b.py")
    assert [(p, line) for p, line, *_ in found] == [
        ("pkg/a.py", 1),
        ("pkg/a.py", 2),
        ("pkg/sub/b.py", 1),
        ("pkg/sub/b.py", 2),
    ]
    assert "`from pkg import secret` imports `pkg.secret`" in found[0][4]
    assert "import of `pkg.secret` is forbidden" in found[1][4]


def test_relative_import_without_the_banned_name_on_its_line(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", '[[tool.policytool.forbidden-import]]\nmodules = ["pkg.sub"]\n')
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/sub/__init__.py", "")
    repo.write("pkg/sub/c.py", "from .thing import (\n    y,\n)\nfrom . import other\n")
    repo.write("pkg/d.py", "from .thing import y\nfrom .sub import z\n")
    found = findings(run, "pkg/sub/c.py", "pkg/d.py")
    assert [(p, line, col) for p, line, col, *_ in found] == [
        ("pkg/d.py", 2, 1),
        ("pkg/sub/c.py", 1, 1),
        ("pkg/sub/c.py", 4, 1),
    ]
    assert "import of `pkg.sub.thing` is forbidden (`pkg.sub` and its submodules" in found[1][4]


def test_message_names_module_scope_and_reason(repo: Repo, run: Run) -> None:
    configure(repo)
    repo.write("pkg/mod.py", "import pickle.sub\nimport re\n")
    found = findings(run, "pkg/mod.py")
    assert found[0][4] == (
        "import of `pickle.sub` is forbidden (`pickle` and its submodules are banned): "
        "unsafe deserialization; use msgspec"
    )
    assert found[1][4] == "import of `re` is forbidden: use regex"


def test_line_numbers_after_blank_lines_docstrings_and_continuations(repo: Repo, run: Run) -> None:
    configure(repo)
    source = (
        '"""Doc.\n\nimport pickle\n"""\n'  # 1-4
        "\n\n\n"  # 5-7
        "import os, \\\n"  # 8
        "    sys\n"  # 9
        "x = (1,\n"  # 10
        "     2)\n"  # 11
        "\n"  # 12
        "from pickle import (\n"  # 13
        "    loads)\n"  # 14
        "\n\n"  # 15-16
        "        \n"  # 17
        "import pickle  # trailing\n"  # 18
    )
    repo.write("pkg/mod.py", source)
    assert positions(run, "pkg/mod.py") == [(13, 1), (18, 8)]


def test_crlf_and_non_ascii_columns(repo: Repo, run: Run) -> None:
    configure(repo)
    repo.write("pkg/mod.py", "é = 1; import pickle\r\n\r\nimport re\r\n".encode())
    assert positions(run, "pkg/mod.py") == [(1, 15), (3, 8)]


def test_bom_does_not_shift_columns(repo: Repo, run: Run) -> None:
    configure(repo)
    repo.write("pkg/mod.py", b"\xef\xbb\xbfimport os, pickle\nimport re\n")
    assert positions(run, "pkg/mod.py") == [(1, 12), (2, 8)]


def test_no_config_bans_nothing(repo: Repo, run: Run) -> None:
    repo.write("mod.py", "import pickle\nimport re\n")
    result = run("check", "--only", "forbidden-import", "mod.py")
    assert result.code == 0, result.out


@pytest.mark.parametrize("glob", ['"pkg/**"', '"./pkg/**"', '"pkg"', '"pkg/*.py"', '"**/mod.py"'])
def test_allow_globs_match_however_the_file_is_named(repo: Repo, run: Run, glob: str) -> None:
    configure(repo, allow=f"allow = [{glob}]")
    repo.write("pkg/mod.py", "import pickle\nimport re\n")
    repo.write("other.py", "import pickle\n")
    for name in ("pkg/mod.py", "./pkg/mod.py", str(repo.root / "pkg" / "mod.py")):
        found = findings(run, name, "other.py")
        # pickle is allowed in pkg/, re (entry 2, no allow) is not.
        assert [(p, line, m.split(":")[0]) for p, line, _c, _r, m in found] == [
            ("other.py", 1, "import of `pickle` is forbidden"),
            ("pkg/mod.py", 2, "import of `re` is forbidden"),
        ]
    (repo.root / "sub").mkdir()
    os.chdir(repo.root / "sub")
    assert [p for p, *_ in findings(run, "../pkg/mod.py")] == ["pkg/mod.py"]


def test_allowlist_file_globs_comments_and_absolute_paths(repo: Repo, run: Run) -> None:
    configure(repo, allow='allowlist-file = "tools/pickle_allow.txt"')
    repo.write(
        "tools/pickle_allow.txt",
        f"# files that may still unpickle\n\n./legacy/**   # being migrated\n{repo.root}/one.py\n",
    )
    repo.write("legacy/a.py", "import pickle\n")
    repo.write("one.py", "import pickle\n")
    repo.write("two.py", "import pickle\n")
    repo.commit()
    found = findings(run)
    assert [(p, line) for p, line, *_ in found] == [("two.py", 1)]


def test_missing_allowlist_file_is_a_config_error(repo: Repo, run: Run) -> None:
    configure(repo, allow='allowlist-file = "nope.txt"')
    repo.write("pkg/mod.py", "import pickle\n")
    result = run("check", "--only", "forbidden-import", "pkg/mod.py")
    assert result.code == 2
    assert "nope.txt: allowlist file not found" in result.err
    assert "Traceback" not in result.err


def test_ignore_comment_silences_one_line(repo: Repo, run: Run) -> None:
    configure(repo)
    repo.write(
        "pkg/mod.py", "import pickle  # policytool: ignore[forbidden-import]\nimport pickle\n"
    )
    assert positions(run, "pkg/mod.py") == [(2, 8)]


@pytest.mark.parametrize("char", ["\x0c", "\x0b", "\x1c", "\x85", "\u2028"])
def test_ignore_comment_after_a_form_feed_is_on_its_own_line(
    repo: Repo, run: Run, char: str
) -> None:
    # Python ends lines at \n, \r\n and \r only; a ^L page break (old sources) or a
    # NEL is a character, so the ignore comment stays on the import's line.
    configure(repo)
    repo.write(
        "pkg/mod.py",
        f"import os\n{char}\nimport pickle  # policytool: ignore[forbidden-import]\n"
        "x = 1\nimport pickle\n",
    )
    assert positions(run, "pkg/mod.py") == [(5, 8)]


def test_syntax_error_is_a_finding_and_the_run_goes_on(repo: Repo, run: Run) -> None:
    configure(repo)
    repo.write("bad.py", "import os\nfrom pickle import (loads,\ndef f(:\n")
    repo.write("good.py", "import pickle\n")
    result = run("check", "--only", "forbidden-import", "--format", "json", "bad.py", "good.py")
    assert result.code == 1
    got = [(f["path"], f["line"], f["rule"]) for f in json.loads(result.out)]
    assert ("bad.py", 3, "syntax-error") in got
    assert ("good.py", 1, "forbidden-import") in got


def test_non_utf8_file_is_reported_and_the_run_goes_on(repo: Repo, run: Run) -> None:
    configure(repo)
    repo.write("latin.py", b"import pickle\nx = '\xe9'\n")
    repo.write("good.py", "import pickle\n")
    result = run("check", "--only", "forbidden-import", "--format", "json", "latin.py", "good.py")
    got = [(f["path"], f["rule"]) for f in json.loads(result.out)]
    assert ("latin.py", "undecodable") in got
    assert ("good.py", "forbidden-import") in got


def test_pep263_latin1_file_is_checked(repo: Repo, run: Run) -> None:
    configure(repo)
    repo.write("latin.py", b"# -*- coding: latin-1 -*-\nx = '\xe9'\nimport pickle\n")
    assert positions(run, "latin.py") == [(3, 8)]


def test_full_run_in_parallel_matches_serial(repo: Repo, run: Run) -> None:
    configure(repo)
    for index in range(450):
        body = "import pickle\n" if index % 50 == 0 else "import os\n"
        repo.write(f"many/m{index:03}.py", "\n" * (index % 7) + body)
    repo.commit()
    found = findings(run)
    expected = sorted((f"many/m{i:03}.py", 1 + i % 7) for i in range(0, 450, 50))
    assert sorted((p, line) for p, line, *_ in found) == expected


def test_stub_files_are_checked(repo: Repo, run: Run) -> None:
    configure(repo)
    repo.write("types.pyi", "from pickle import Pickler\n")
    assert positions(run, "types.pyi") == [(1, 1)]


@pytest.mark.network
def test_published_hooks_run_with_pre_commit_try_repo(
    pypi: None, repo: Repo, pre_commit_home: Path
) -> None:
    """forbidden-import and torch-cuda from .pre-commit-hooks.yaml, run by real pre-commit."""
    configure(repo)
    repo.write("pyproject.toml", repo.read("pyproject.toml") + b"[tool.policytool.torch-cuda]\n")
    repo.write("pkg/mod.py", "import os, pickle\n")
    repo.write("gpu.py", "import torch as t\n\nt.cuda.synchronize()\n")
    repo.write("ok.py", "import json\n")
    repo.commit()
    outputs = {}
    for hook in ("forbidden-import", "torch-cuda"):
        proc = try_repo(repo, pre_commit_home, hook)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        outputs[hook] = proc.stdout
    assert (
        "pkg/mod.py:1:12: forbidden-import import of `pickle` is forbidden"
        in outputs["forbidden-import"]
    )
    assert "gpu.py" not in outputs["forbidden-import"]
    assert (
        "gpu.py:3:1: torch-cuda `t.cuda.synchronize` is a banned torch.cuda API"
        in outputs["torch-cuda"]
    )
    assert "pkg/mod.py" not in outputs["torch-cuda"]


def test_whole_file_fallback_reads_the_same_imports() -> None:
    """The rare path (a statement that does not parse alone) agrees with the fast one."""
    from policytool.formats.pyimports import FileScan, ImportedName, Tokens

    data = (
        b'"""Doc: import pickle."""\nimport os, pickle\n\ndef f():\n    from pkg import (\n'
        b"        secret as s,\n    )\n    from . import pickle\n"
    )
    tokens = Tokens({"pickle", "pkg", "secret"})

    def relevant(imported: ImportedName) -> bool:
        return imported.name.split(".")[0] in ("pickle", "pkg")

    fast = FileScan("pkg/mod.py", data).imports(tokens, relevant)
    slow = FileScan("pkg/mod.py", data)._fall_back_to_tree(tokens, relevant)
    assert fast == slow
    assert [(i.name, i.line, i.col) for i in fast] == [
        ("pickle", 2, 12),
        ("pkg", 5, 5),
        ("pkg.secret", 6, 9),
        ("pkg", 8, 5),
        ("pkg.pickle", 8, 19),
    ]


@settings(max_examples=400, deadline=None)
@given(
    words=st.sets(st.sampled_from(["re", "pickle", "cloudpickle", "a_b", "x9", "é"]), min_size=1),
    data=st.lists(
        st.sampled_from(["re", "pickle", "cloud", "_", "x", "9", ".", " ", "\n", "é", "(", "'"])
    ).map(lambda parts: "".join(parts).encode()),
)
def test_tokens_present_agrees_with_search(words: set[str], data: bytes) -> None:
    """The whole-file check that lets most files skip the statement walk is exact."""
    from policytool.formats.pyimports import Tokens

    tokens = Tokens(words)
    assert tokens.present(data) == tokens.search(data)
    assert tokens.present(data) == tokens.search(data)  # the one-entry cache


def test_a_file_without_a_banned_word_is_not_walked() -> None:
    """No token as a whole identifier (``re`` inside ``return``, ``pickle_x``): no walk."""
    from policytool.formats.pyimports import FileScan, Tokens

    scan = FileScan("m.py", b"import pickle_x\nfrom . import y\nreturn_ = 'res'\n")
    assert scan.imports(Tokens({"pickle", "re"})) == []
    assert scan._keywords is None  # the import keywords were never looked for
    # A relative import in a package whose path holds a token is still read.
    scan = FileScan("re/m.py", b"from . import y\n")
    assert [i.name for i in scan.imports(Tokens({"re"}))] == ["re", "re.y"]


@pytest.mark.parametrize(
    ("line", "first", "last", "expected"),
    [
        (b"'import pickle' \\\n", b"x = \\\n", b"\n", 0),  # the reported case: strings
        (b"'import pickle' \\\r\n", b"x = \\\r\n", b"\r\n", 0),
        (b"'import pickle',\n", b"x = (\n", b")\n", 0),
        (b"import os.path; \\\n", b"import json; \\\n", b"import pickle\n", 1),  # code
    ],
    ids=["backslash-strings", "crlf", "brackets", "code"],
)
@pytest.mark.timing
def test_long_continued_lines_scan_in_linear_time(
    repo: Repo, run: Run, line: bytes, first: bytes, last: bytes, expected: int
) -> None:
    """Was quadratic: 55 KB 3.1 s, 440 KB 216 s; each ~440 KB case now well under a second."""
    from policytool.formats.pyimports import FileScan, Tokens

    configure(repo)
    data = first + line * 24_000 + last
    assert len(data) > 400_000
    started = time.process_time()  # CPU time: the machine's load does not count
    scanned = FileScan("big.py", data).imports(Tokens({"pickle", "cloudpickle", "pkg", "re"}))
    elapsed = time.process_time() - started
    assert elapsed < 1.0, elapsed  # 0.1-0.3 s here
    assert len([i for i in scanned if i.name == "pickle"]) == expected
    repo.write("big.py", data)
    found = findings(run, "big.py")
    assert [rule for _p, _l, _c, rule, _m in found] == ["forbidden-import"] * expected
