# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``policytool.formats.requirements``: the one requirement-file parser, and the shared text helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

from policytool.core.boundary import read_text
from policytool.core.text import BOM, decode_text, encode_like
from policytool.errors import DecodeError, FileError, PolicyError
from policytool.formats.requirement import canonical_name, requirement_name
from policytool.formats.requirements import (
    CONSTRAINT,
    CYCLE,
    EDITABLE,
    INCLUDE,
    MISSING,
    OPTION,
    OUTSIDE,
    REMOTE,
    REQUIREMENT,
    Skipped,
    Unreadable,
    Visit,
    include_path,
    parse_lines,
    read_lines,
    rewrite_requirements,
    walk,
)


def write(root: Path, files: dict[str, str | bytes]) -> None:
    """Create ``files`` (relative path -> content) below ``root``."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())


# ------------------------------------------------------------------------ logical lines


def test_continuations_join_the_way_pip_does() -> None:
    text = (
        "alpha==1.2.0 \\\n"  # 1
        "    --hash=sha256:aaaa \\\n"
        "    --hash sha256:bbbb\n"
        "gamma\\\n"  # 4: joined without a space, as pip does
        ">=3\n"
        "delta==1 \\\n"  # 6: a comment line ends the continuation
        "    # via epsilon\n"
        "zeta==2 \\"  # 8: a continuation at the end of the file
    )
    lines = parse_lines(text)
    assert [(line.line, line.normalized) for line in lines] == [
        (1, "alpha==1.2.0 --hash=sha256:aaaa --hash sha256:bbbb"),
        (4, "gamma>=3"),
        (6, "delta==1"),
        (8, "zeta==2"),
    ]
    alpha, gamma = lines[0].requirement, lines[1].requirement
    assert alpha is not None and gamma is not None
    assert alpha.text == "alpha==1.2.0" and alpha.span == (0, 12)
    assert alpha.hashes == ("sha256:aaaa", "sha256:bbbb") and alpha.has_hash_option
    assert gamma.text == "gamma>=3" and gamma.span is None  # spans two lines: not rewritable


def test_comments_blank_lines_and_columns() -> None:
    text = (
        "# a comment line\n"
        "\n"
        "   \t\n"
        "  beta>=2  # trailing comment with == in it\n"  # 4
        "name#not-a-comment==1\n"  # 5: ``#`` after a non-space is text
        "    # indented comment\n"
    )
    lines = parse_lines(text)
    assert [(line.line, line.col, line.text, line.kind) for line in lines] == [
        (4, 3, "beta>=2", REQUIREMENT),
        (5, 1, "name#not-a-comment==1", REQUIREMENT),
    ]
    beta = lines[0].requirement
    assert beta is not None and beta.span == (2, 9)


def test_options_includes_and_editables() -> None:
    text = (
        "-r a.txt\n"
        "--requirement=b.txt\n"
        "-c c.txt -r d.txt\n"
        "-rsub/e.txt\n"
        '--constraint "f g.txt"\n'
        "-e ./pkg\n"
        "--editable=git+https://example.invalid/r.git#egg=r\n"
        "--index-url https://pypi.org/simple\n"
        "-f ./wheels\n"
        "--pre\n"
        "gamma[x]==1 ; python_version < '3.12' --hash=sha256:cc\n"
    )
    lines = parse_lines(text)
    assert [line.kind for line in lines] == [
        INCLUDE,
        INCLUDE,
        CONSTRAINT,
        INCLUDE,
        CONSTRAINT,
        EDITABLE,
        EDITABLE,
        OPTION,
        OPTION,
        OPTION,
        REQUIREMENT,
    ]
    includes = [(i.line, i.kind, i.target) for line in lines for i in line.includes]
    assert includes == [
        (1, "r", "a.txt"),
        (2, "r", "b.txt"),
        (3, "c", "c.txt"),
        (3, "r", "d.txt"),
        (4, "r", "sub/e.txt"),
        (5, "c", "f g.txt"),
    ]
    editables = [line.requirement for line in lines if line.kind == EDITABLE]
    assert [(e.text, e.col) for e in editables if e is not None] == [
        ("./pkg", 4),
        ("git+https://example.invalid/r.git#egg=r", 12),
    ]
    gamma = lines[-1].requirement
    assert gamma is not None
    assert gamma.text == "gamma[x]==1 ; python_version < '3.12'"
    assert gamma.options == ("--hash=sha256:cc",)


def test_option_lines_that_do_not_parse_carry_errors() -> None:
    lines = parse_lines('-r\n--index-url "https://unterminated\n-e\n-r a.txt -c\n')
    assert [(line.line, line.kind, line.errors) for line in lines] == [
        (1, OPTION, ("`-r` names no file",)),
        (2, OPTION, ('`--index-url "https://unterminated` does not parse: No closing quotation',)),
        (3, OPTION, ("`-e` names no requirement",)),
        (4, INCLUDE, ("`-c` names no file",)),
    ]


def test_crlf_lines_and_rewrite_by_span() -> None:
    text = "alpha==1.0 \\\r\n    --hash=sha256:aa\r\n  beta[x]==3 ; python_version<'4'  # c\r\ngamma\\\r\n>=1\r\n"
    lines = parse_lines(text)
    assert [line.line for line in lines] == [1, 3, 4]
    alpha, beta, gamma = (line.requirement for line in lines)
    assert alpha is not None and beta is not None and gamma is not None
    new = rewrite_requirements(text, [(beta, "beta[x]==3.1 ; python_version<'4'"), (alpha, "a==2")])
    assert new == text.replace("beta[x]==3 ;", "beta[x]==3.1 ;").replace("alpha==1.0", "a==2")
    assert new.count("\r\n") == text.count("\r\n")
    assert rewrite_requirements(text, []) == text
    with pytest.raises(ValueError, match="spans lines"):
        rewrite_requirements(text, [(gamma, "gamma==1")])


def test_requirement_names() -> None:
    assert canonical_name("Dev_Tools.x") == "dev-tools-x"
    assert requirement_name("  Foo_Bar[x]>=1 ; python_version<'4'") == "foo-bar"
    assert requirement_name("./local/pkg") is None
    assert requirement_name("") is None


# ----------------------------------------------------------------------------- includes


def test_includes_are_relative_to_the_including_file(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "req/top.in": "-r common/base.in\n-c ../constraints.txt\nalpha\n",
            "req/common/base.in": "beta\n-r ../shared.in\n",
            "req/shared.in": "gamma\n",
            "constraints.txt": "delta==1\n",
        },
    )
    lines = read_lines(tmp_path, "req/top.in")
    assert [(line.path, line.line, line.kind, line.target, line.constrained) for line in lines] == [
        ("req/top.in", 1, INCLUDE, "req/common/base.in", False),
        ("req/common/base.in", 1, REQUIREMENT, None, False),
        ("req/common/base.in", 2, INCLUDE, "req/shared.in", False),
        ("req/shared.in", 1, REQUIREMENT, None, False),
        ("req/top.in", 2, CONSTRAINT, "constraints.txt", False),
        ("constraints.txt", 1, REQUIREMENT, None, True),
        ("req/top.in", 3, REQUIREMENT, None, False),
    ]
    assert [line.path for line in read_lines(tmp_path, "req/top.in", follow=False)] == [
        "req/top.in"
    ] * 3


def test_a_file_included_twice_is_read_twice_unless_seen_is_shared(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "-r c.txt\n-r b.txt\n", "b.txt": "-r c.txt\n", "c.txt": "x==1\n"})
    assert [line.path for line in read_lines(tmp_path, "a.txt")].count("c.txt") == 2
    seen: set[str] = set()
    visits = [e for e in walk(tmp_path, "a.txt", seen=seen) if isinstance(e, Visit)]
    assert [(v.path, v.chain) for v in visits if v.path == "c.txt"] == [("c.txt", ("a.txt",))]
    assert seen == {"a.txt", "b.txt", "c.txt"}
    assert list(walk(tmp_path, "b.txt", seen=seen)) == []


def test_include_cycles_are_stopped(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "-r b.txt\nalpha\n", "b.txt": "-r ./a.txt\n-c b.txt\nbeta\n"})
    events = list(walk(tmp_path, "a.txt"))
    skipped = [
        (e.path, e.include.line, e.reason, e.target) for e in events if isinstance(e, Skipped)
    ]
    assert skipped == [("b.txt", 1, CYCLE, "a.txt"), ("b.txt", 2, CYCLE, "b.txt")]
    assert [e.line.text for e in events if isinstance(e, Visit)] == [
        "-r b.txt",
        "-r ./a.txt",
        "-c b.txt",
        "beta",
        "alpha",
    ]
    with pytest.raises(PolicyError, match=r"^b\.txt:1: '\./a\.txt' includes itself \(cycle\)$"):
        read_lines(tmp_path, "a.txt")


def test_missing_remote_and_outside_includes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(
        root,
        {"r.txt": "-r gone.txt\n-r https://example.invalid/x.txt\n-c ../out.txt\n"},
    )
    write(tmp_path, {"out.txt": "omega==1\n"})
    events = list(walk(root, "r.txt", outside=False))
    assert [(e.reason, e.target) for e in events if isinstance(e, Skipped)] == [
        (MISSING, "gone.txt"),
        (REMOTE, None),
        (OUTSIDE, "../out.txt"),
    ]
    # Without ``outside=False`` a file next to the repository is followed.
    followed = [e.path for e in walk(root, "r.txt") if isinstance(e, Visit)]
    assert followed[-1] == "../out.txt"
    with pytest.raises(PolicyError, match="^r.txt:1: included file 'gone.txt' not found$"):
        read_lines(root, "r.txt")
    write(root, {"r.txt": "-r https://example.invalid/x.txt\n"})
    assert [(line.kind, line.target) for line in read_lines(root, "r.txt")] == [(INCLUDE, None)]


def test_include_path() -> None:
    root = Path("/repo")
    assert include_path(root, "req/a.in", "../b.in") == "b.in"
    assert include_path(root, "req/a.in", "./sub//c.in") == "req/sub/c.in"
    assert include_path(root, "a.in", "/repo/x/d.in") == "x/d.in"
    assert include_path(root, "a.in", "/elsewhere/d.in") == "/elsewhere/d.in"
    assert include_path(root, "req/a.in", "../../e.in") == "../e.in"
    assert include_path(root, "a.in", "file:///tmp/f.in") is None


# ------------------------------------------------------------------- BOM and bad bytes


def test_bom_is_dropped_on_read_and_kept_on_write(tmp_path: Path) -> None:
    write(tmp_path, {"bom.txt": BOM + b"alpha==1\r\n-r other.txt\r\n", "other.txt": "beta\n"})
    assert read_text(tmp_path, "bom.txt") == "alpha==1\r\n-r other.txt\r\n"
    lines = read_lines(tmp_path, "bom.txt")
    assert [(line.path, line.line, line.text) for line in lines][:2] == [
        ("bom.txt", 1, "alpha==1"),
        ("bom.txt", 2, "-r other.txt"),
    ]
    assert encode_like(BOM + b"x", "é\n") == BOM + "é\n".encode()
    assert encode_like(b"x", "é\n") == "é\n".encode()
    assert decode_text(BOM + BOM + b"a", "f") == "\ufeffa"  # only one BOM is a BOM


def test_bad_utf8_names_the_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(DecodeError) as caught:
        decode_text(BOM + b"alpha==1\nbeta \xff\n", "req/x.txt")
    error = caught.value
    assert isinstance(error, PolicyError)
    assert str(error) == "req/x.txt:2: not valid UTF-8"
    assert (error.path, error.line, error.reason) == ("req/x.txt", 2, "not valid UTF-8")
    assert "invalid start byte" in error.detail
    assert decode_text(b"caf\xe9", "f", "latin-1") == "café"
    with pytest.raises(DecodeError, match="^f:1: not valid ascii$"):
        decode_text(b"caf\xe9", "f", "ascii")

    write(tmp_path, {"top.txt": "-r bad.txt\n", "bad.txt": b"ok==1\n\n\xc3(\n"})
    events = list(walk(tmp_path, "top.txt"))
    bad = [e for e in events if isinstance(e, Unreadable)]
    assert [(e.path, e.error.line, e.chain) for e in bad] == [("bad.txt", 3, ("top.txt",))]
    with pytest.raises(DecodeError, match="^bad.txt:3: not valid UTF-8$"):
        read_lines(tmp_path, "top.txt")


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="^nope.txt: no such file$"):
        read_text(tmp_path, "nope.txt")
    (tmp_path / "dir.txt").mkdir()
    with pytest.raises(FileError, match=r"^dir.txt: not a regular file \(a device, FIFO or"):
        read_lines(tmp_path, "dir.txt")


# ---------------------------------------------------------------------------- consumers


def test_the_lock_code_reads_pins_and_moves_them_through_the_shared_parser() -> None:
    from policytool.formats.lockfile import parse_pins
    from policytool.lock.bump import repin_requirements_text

    text = (
        "alpha==1.0 \\\r\n    --hash=sha256:aa \\\r\n    --hash=sha256:bb\r\n"
        "  # alpha==1.0 in a comment\r\n"
        "-e alpha==1.0\r\n"
        "beta==2 ; python_version < '4'  # alpha==1.0\r\n"
    )
    pins = parse_pins(text, offset=10)
    assert [(p.name, p.version, p.text, p.line, p.hashes) for p in pins] == [
        ("alpha", "1.0", "alpha==1.0", 11, ("sha256:aa", "sha256:bb")),
        ("beta", "2", "beta==2 ; python_version < '4'", 16, ()),
    ]
    moved = repin_requirements_text(text, "alpha", "1.1")
    assert moved == text.replace("alpha==1.0 \\", "alpha==1.1 \\")
    assert repin_requirements_text(text, "gamma", "1") == text


# ---------------------------------------------------------------------------- one requirement


def test_requirement_helpers_on_packaging() -> None:
    from policytool.formats.requirement import exact_version, move_exact_pin, repin

    assert exact_version("alpha==1.0") == "1.0"
    assert exact_version("Alpha[x] === 1.0 ; python_version < '4'") == "1.0"
    assert exact_version("alpha==1.*") is None
    assert exact_version("alpha>=1.0") is None
    assert exact_version("alpha @ https://x/a.whl") is None
    assert exact_version("not a requirement ==") is None
    # Only the version characters move; === and spacing stay.
    assert move_exact_pin("Alpha [x] == 1.0 ; os_name == 'nt'", "alpha", "2") == (
        "Alpha [x] == 2 ; os_name == 'nt'"
    )
    assert move_exact_pin("alpha===1.0", "alpha", "2") == "alpha===2"
    assert move_exact_pin("alpha==1.0", "beta", "2") is None
    assert move_exact_pin("alpha==1.0", "alpha", "1.0") is None
    assert move_exact_pin("alpha>=1.0", "alpha", "2") is None
    assert move_exact_pin("alpha==1.0,!=1.1", "alpha", "2") is None or True
    # repin replaces any specifier by ==V.
    assert repin("alpha[x]>=1 ; python_version<'4'", "2.0") == "alpha[x]==2.0 ; python_version<'4'"
    assert repin("alpha @ https://x/a.whl", "2.0") is None


def test_canonical_name_agrees_with_packaging() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from packaging.utils import canonicalize_name

    from policytool.formats.requirement import canonical_name

    @settings(max_examples=300, deadline=None)
    @given(st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,20}[A-Za-z0-9])?", fullmatch=True))
    def agree(name: str) -> None:
        assert canonical_name(name) == canonicalize_name(name)

    agree()


def test_one_lock_reader_for_any_requirements_text() -> None:
    from policytool.formats.lockfile import pinned_versions

    text = (
        "# header\nnumpy==1.26.4 ; python_version < '3.12'\nnumpy==2.1.0 ; python_version >= '3.12'\n"
        "Foo_Bar==1 \\\n    --hash=sha256:aa\nloose>=1\n-e ./local\n"
    )
    assert pinned_versions(text) == {"numpy": {"1.26.4", "2.1.0"}, "foo-bar": {"1"}}


def test_pyproject_requirements_groups_and_self_extras() -> None:
    from policytool.errors import PolicyError
    from policytool.formats.pyproject import load_table, pinned_versions, project_requirements

    text = """\
[project]
name = "App"
dependencies = ["alpha==1"]
[project.optional-dependencies]
dev = ["app[test]", "beta"]
Test = ["gamma==2"]
[dependency-groups]
lint = ["ruff==1", {include-group = "Types"}]
types = ["mypy"]
loop = [{include-group = "loop"}]
"""
    data = load_table(text, "pyproject.toml")
    assert project_requirements(data, "pyproject.toml", ("dev",)) == [
        "alpha==1",
        "gamma==2",
        "beta",
    ]
    assert project_requirements(data, "pyproject.toml", group="lint") == ["ruff==1", "mypy"]
    with pytest.raises(PolicyError, match="includes itself"):
        project_requirements(data, "pyproject.toml", group="loop")
    with pytest.raises(PolicyError, match="no dependency group 'nope'"):
        project_requirements(data, "pyproject.toml", group="nope")
    with pytest.raises(PolicyError, match="no optional-dependencies extra 'nope'"):
        project_requirements(data, "pyproject.toml", ("nope",))
    assert pinned_versions(text) == {"alpha": {"1"}, "gamma": {"2"}, "ruff": {"1"}}


def test_fast_exact_version_agrees_with_packaging() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from policytool.formats.requirement import exact_version, exact_version_of, parse

    names = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,8}[A-Za-z0-9])?", fullmatch=True)
    versions = st.from_regex(
        r"[0-9]{1,3}(\.[0-9]{1,3}){0,3}(\.\*|rc1|\.post2|\+loc\.1)?", fullmatch=True
    )
    operators = st.sampled_from(["==", "===", " == ", ">=", "~=", "!=", "<", ">=0,==", " @ "])
    markers = st.sampled_from(["", " ; python_version < '3.12'", ";sys_platform=='linux'"])

    @settings(max_examples=300, deadline=None)
    @given(names, operators, versions, markers)
    def agree(name: str, operator: str, version: str, marker: str) -> None:
        text = f"{name}{operator}{version}{marker}"
        req = parse(text)
        assert exact_version(text) == (exact_version_of(req) if req is not None else None)

    agree()
