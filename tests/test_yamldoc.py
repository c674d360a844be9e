# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""yamldoc: the fast reader gives the rules what ruamel.yaml gives them, and is bounded.

Every case is parsed twice, by the fast builder (libyaml events) and by ruamel.yaml
round-trip, and must give the same data, types, key order, own keys, flow styles and
line/column of every key, value and item (``tests/yaml_compare.py``), or the same
error sentence. The rule suites (pre-commit, CI, Mergify) run once more with every
parse compared that way. Hostile inputs (size, devices, symlinks out of the repo,
nesting, alias bombs) end in one sentence, fast.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policytool.core.text import split_lines
from policytool.errors import YamlError
from policytool.formats import yamldoc
from policytool.formats.yamldoc import YamlMap, YamlSeq
from tests.conftest import Repo, Result
from tests.yaml_compare import differences

Run = Callable[..., Result]
ROOT = Path(__file__).resolve().parent.parent


def both(text: str) -> tuple[object, object]:
    """(fast, ruamel) data for ``text``; asserts the two agree, or fail the same way."""
    try:
        reference = yamldoc.parse_ruamel(text, "f.yaml")
    except YamlError as exc:
        with pytest.raises(YamlError) as fast_exc:
            yamldoc._parse(text, "f.yaml", "fast")
        assert str(fast_exc.value) == str(exc)
        raise
    fast = yamldoc._parse(text, "f.yaml", "fast")
    found = differences(fast, reference)
    assert not found, "\n".join(found)
    return fast, reference


def built(text: str) -> object:
    """The fast builder's own result (no handover allowed)."""
    return yamldoc.build(text, "f.yaml")


# --- the same data and positions as ruamel.yaml ------------------------------------------

AGREE = {
    "anchors and merge keys": """\
base: &b
  x: 1
  y: [1, 2]
other: &o {y: 3, z: 4}
m:
  <<: [*b, *o]
  w: 5
  x: 9
n:
  a: 1
  <<: *b
s: &s hello
t: *s
""",
    "hook merge as in vllm-omni": """\
x-mypy: &mypy_common
  language: python
  entry: python tools/pre_commit/mypy.py
repos:
  - repo: local
    hooks:
      - id: mypy-3.10
        <<: *mypy_common
        args: ["3.10"]
""",
    "on is a string key (YAML 1.2, as GitHub reads it)": """\
on:
  push:
  pull_request:
    branches: [main]
yes: no
off: [y, n, On, TRUE, false, Null, ~]
""",
    "scalars": """\
a: 3.10
b: 42
c: -7
d: "quoted"
e: 'single'
f: |
  literal
  block
g: >
  folded
h:
i: null
j: .5
k: 3.
l: 1e3
m: 2024-01-02
n: v1.2.3
o: "<<"
""",
    "typed scalars ruamel reads (handed over)": """\
hex: 0x1F
octal: 0o17
under: 1_000
inf: .inf
stamp: 2024-01-02T10:00:00Z
""",
    "empty values in every place": """\
a:
  b:
  c:
d:
-\x20
-
- x
e: {f: , g: }
h:
""",
    "flow styles and empty flows": "a: {}\nb: []\nc: {x: [1, {y: 2}]}\nd: [a, b]\n",
    "non-ASCII columns": "ключ: значение\n名前: [値, 值]\nk: [ü, {ö: ä}, ✓]\n",
    "tabs in quoted and block scalars": "a: 'x\tb'\nb: \"c\td\"\nc: |\n  \td\n",
    "tab in a comment": "a: b  # c\td\n",
    "comments and document markers": "%YAML 1.2\n---\n# c\na: 1  # x\n...\n",
    "explicit tags": "a: !!str 12\nb: !!map {x: !!int 1}\n!!str c: [!!str d, ! e, !!null ~]\n",
    "tags behind a handover": "%YAML 1.2\n---\na: !!str 12\nb: !!str |\n  x\n!!str c: d\n",
    "complex key": "? [a, b]\n: c\n",
    "int keys": "2: a\n4: b\n",
    "a workflow": """\
name: pre-commit
on:
  pull_request:
  push:
    branches: [main]
permissions: {}
jobs:
  pre-commit:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: |
          pre-commit run --all-files --hook-stage manual
        env:
          SKIP: mypy
""",
    "only a comment": "# nothing\n",
    "empty": "",
    "scalar document": "just text\n",
}


@pytest.fixture(params=["libyaml", "pure-python"])
def event_parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The fast reader on libyaml's C parser, and on PyYAML's pure-Python one (no libyaml)."""
    if request.param == "pure-python":
        monkeypatch.setattr(yamldoc, "_event_parser", yaml.BaseLoader)
    elif not getattr(yaml, "__with_libyaml__", False):
        pytest.skip("PyYAML was built without libyaml here")
    return str(request.param)


@pytest.mark.parametrize("text", AGREE.values(), ids=AGREE.keys())
def test_fast_reader_agrees_with_ruamel(text: str, event_parser: str) -> None:
    both(text)


LINE_ENDINGS = {"LF": "\n", "CRLF": "\r\n", "CR": "\r"}


@pytest.mark.parametrize("newline", LINE_ENDINGS.values(), ids=LINE_ENDINGS.keys())
def test_line_endings_give_the_same_lines(newline: str) -> None:
    text = "a: 1\nb:\n  - x\n  - y\nc: |\n  z\n".replace("\n", newline)
    fast, _ref = both(text)
    assert isinstance(fast, YamlMap)
    assert yamldoc.key_line(fast, "c") == 5
    assert yamldoc.item_line(fast["b"], 1) == 4
    lines = split_lines(text)
    assert len(lines) == 6 and lines[4].startswith("c:")
    assert "".join(lines) == text


def test_split_lines_breaks_only_where_yaml_does() -> None:
    text = "a: x\x0cy\u2028z\x85w\nb: 2\rc: 3\r\nd"
    assert split_lines(text) == ["a: x\x0cy\u2028z\x85w\n", "b: 2\r", "c: 3\r\n", "d"]


@pytest.mark.parametrize("char", ["\x85", "\u2028", "\u2029"])
def test_yaml_1_1_line_breaks_are_read_as_ruamel_reads_them(char: str) -> None:
    """libyaml breaks lines at NEL/LS/PS (YAML 1.1), ruamel not (1.2): ruamel decides."""
    text = f"a: 1{char}b: 2\nc: x{char}y\n"
    with pytest.raises(yamldoc._Handover):
        built(text)
    with pytest.raises(YamlError):
        both(text)
    both(f"c: x{char}y\n")


ERRORS = {
    "duplicate key": "a: 1\nb: 2\na: 3\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "tab indentation": "a:\n\tb: 1\n",
    "unclosed flow": "a: [1, 2\nb: 3\n",
    "bad indentation": "a:\n  b: 1\n c: 2\n",
    "undefined alias": "a: *nope\n",
    "control character": "a: \x07\n",
    "tab in a plain scalar (libyaml reads it, ruamel not)": "a: x\tb\n",
    "tab before a comment": "a: b\t# c\n",
    "tab as indentation": "a:\n\t- b\n",
}


@pytest.mark.parametrize("text", ERRORS.values(), ids=ERRORS.keys())
def test_errors_are_the_same_sentence_from_both(text: str, event_parser: str) -> None:
    with pytest.raises(YamlError) as exc:
        both(text)
    assert str(exc.value).startswith("f.yaml:")
    assert "\n" not in str(exc.value)


def test_fast_reader_types_and_sharing() -> None:
    data = built("a: &x {k: [1]}\nb: *x\nc: |\n  t\nd: >\n  u\non: 1\n")
    assert isinstance(data, YamlMap)
    assert data["a"] is data["b"]  # an alias is the anchored object, as in ruamel
    assert isinstance(data["a"]["k"], YamlSeq)
    assert yamldoc.is_block_scalar(data["c"]) and yamldoc.is_block_scalar(data["d"])
    assert not yamldoc.is_block_scalar("plain")
    assert list(data) == ["a", "b", "c", "d", "on"]
    assert yamldoc.value_pos(data, "b") == (0, 3)  # an alias's value is where the anchor is


def test_merge_keys_are_not_own_keys() -> None:
    data = built("b: &b {x: 1, y: 2}\nm:\n  <<: *b\n  x: 9\n")
    assert isinstance(data, YamlMap)
    merged = data["m"]
    assert merged == {"x": 9, "y": 2}
    assert yamldoc.own_keys(merged) == ["x"]
    assert yamldoc.key_pos(merged, "y") is None
    assert yamldoc.key_line(merged, "y", 99) == 99
    assert yamldoc.key_line(merged, "x") == 4


@st.composite
def documents(draw: st.DrawFn) -> str:
    """YAML text PyYAML's emitter writes for random data, in random styles."""
    scalars = st.one_of(
        st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8),
        st.integers(-1000, 1000),
        st.booleans(),
        st.none(),
        st.sampled_from(["on", "yes", "3.10", "<<", "- x", "a: b", "#c", "*a", "&b", ""]),
    )
    keys = st.text(st.characters(codec="ascii", exclude_categories=["Cc"]), max_size=6)
    data = draw(
        st.recursive(
            scalars,
            lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
            max_leaves=20,
        )
    )
    flow = draw(st.sampled_from([None, True, False]))
    style = draw(st.sampled_from([None, '"', "'", "|"]))
    indent = draw(st.sampled_from([2, 4]))
    return str(
        yaml.safe_dump(
            data,
            default_flow_style=flow,
            default_style=style,
            indent=indent,
            allow_unicode=True,
            sort_keys=False,
        )
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_fast_reader_agrees_with_ruamel_on_generated_documents(text: str) -> None:
    try:
        both(text)
    except YamlError:
        pass  # both failed with the same sentence (both() asserts that)


@st.composite
def merge_documents(draw: st.DrawFn) -> str:
    """Mappings with anchors, aliases and ``<<`` merges (single and lists), in any order."""
    keys = st.sampled_from(["a", "b", "c", "d", "id", "on", "<<x"])
    values = st.sampled_from(["1", "x", "[1, 2]", "{k: v}", "", "yes", "'q'"])
    lines: list[str] = []
    anchors: list[str] = []
    for index in range(draw(st.integers(1, 5))):
        lines.append(f"m{index}: &m{index}")
        entries = [
            f"  {k}: {v}" for k, v in draw(st.dictionaries(keys, values, max_size=4)).items()
        ]
        if draw(st.booleans()) and anchors:
            chosen = draw(st.lists(st.sampled_from(anchors), min_size=1, max_size=3, unique=True))
            merge = (
                f"*{chosen[0]}"
                if len(chosen) == 1
                else "[" + ", ".join(f"*{c}" for c in chosen) + "]"
            )
            entries.insert(draw(st.integers(0, len(entries))), f"  <<: {merge}")
        lines.extend(entries or ["  z: 0"])
        anchors.append(f"m{index}")
    lines.append("use: *" + draw(st.sampled_from(anchors)))
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(merge_documents())
def test_fast_reader_agrees_with_ruamel_on_merges(text: str) -> None:
    try:
        both(text)
    except YamlError:
        pass  # both failed with the same sentence (both() asserts that)


# --- the rule suites, read by both parsers ----------------------------------------------


SUITES = ("tests/test_precommit.py", "tests/test_ci_rules.py", "tests/test_mergify.py")


def run_suites(basetemp: Path, *plugin: str) -> tuple[str, set[str]]:
    """Run the YAML rule suites in a subprocess: (output, ids of the failed tests).

    Its temp directories go under ``basetemp``: the inner session neither cleans nor
    depends on the shared ``pytest-of-USER`` directory of other sessions.
    """
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += [f"--basetemp={basetemp}", *plugin, *SUITES]
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    out = proc.stdout + proc.stderr
    failed = {line.split()[1] for line in out.splitlines() if line.startswith("FAILED ")}
    return out, failed


@pytest.mark.slow
def test_rule_suites_pass_with_every_parse_compared_to_ruamel(tmp_path: Path) -> None:
    """test_precommit / test_ci_rules / test_mergify, each YAML parse done both ways.

    The ``tests.yaml_compare`` plugin parses every text with both parsers, fails on any
    difference, and hands the rules ruamel's data: the suites give the same results on
    ruamel's data (here) as on the fast reader's (the normal run), with identical inputs.
    """
    out, failed = run_suites(tmp_path / "compared", "-p", "tests.yaml_compare")
    assert "the parsers differ" not in out and "only ruamel failed" not in out, out[-4000:]
    assert " passed" in out, out[-4000:]
    if failed:  # a failure of the suite itself must not depend on the parser
        _normal_out, normal_failed = run_suites(tmp_path / "normal")
        assert failed == normal_failed, out[-4000:]


# --- bounds ---------------------------------------------------------------------------


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    """The 463-byte ``repo: *l8`` config: each level aliases the previous one 9 times."""
    lines = ["a0: &l0 [" + ", ".join(["x"] * width) + "]"]
    for level in range(1, levels):
        aliases = ", ".join([f"*l{level - 1}"] * width)
        lines.append(f"a{level}: &l{level} [{aliases}]")
    lines.append(f"repos:\n- repo: *l{levels - 1}\n")
    return "\n".join(lines)


def timed(func: Callable[[], object]) -> float:
    """CPU seconds ``func`` took: the bound is on the parser's work, which other
    processes sharing the machine's cores (helpers, a parallel test run) do not change."""
    start = time.process_time()
    func()
    return time.process_time() - start


@pytest.mark.parametrize("backend", ["fast", "ruamel"])
def test_alias_bomb_is_one_sentence_fast(backend: str) -> None:
    text = alias_bomb()
    assert len(text) < 500

    def parse() -> None:
        with pytest.raises(YamlError, match="aliases expand to more than 100000 nodes"):
            yamldoc._parse(text, "f.yaml", backend)

    assert timed(parse) < 0.5


@pytest.mark.timing
@pytest.mark.parametrize("backend", ["fast", "ruamel"])
def test_alias_bomb_behind_a_handover_to_ruamel_is_bounded(backend: str) -> None:
    # A `%YAML` directive hands the whole text to ruamel before any alias is counted;
    # ruamel shares the aliased nodes, so the bound is checked on what it built.
    text = "%YAML 1.2\n---\n" + alias_bomb()
    with pytest.raises(yamldoc._Handover):
        yamldoc.build(text, "f.yaml")

    def parse() -> None:
        with pytest.raises(YamlError, match="aliases expand to more than 100000 nodes"):
            yamldoc._parse(text, "f.yaml", backend)

    assert timed(parse) < 0.5
    small = "%YAML 1.2\n---\n" + alias_bomb(levels=4, width=9)
    data = yamldoc._parse(small, "f.yaml", backend)
    assert isinstance(data, dict) and len(data["repos"][0]["repo"]) == 9


def test_aliases_below_the_bound_are_read() -> None:
    data = built(alias_bomb(levels=4, width=9))  # 9**3 leaves: fine
    assert isinstance(data, YamlMap) and len(data["repos"][0]["repo"]) == 9


@pytest.mark.parametrize("depth", [101, 500, 3000, 1_000_000])
@pytest.mark.parametrize("backend", ["fast", "ruamel"])
def test_deep_nesting_is_one_sentence_fast(depth: int, backend: str) -> None:
    for text in ("[" * depth + "]" * depth, "[" * depth, "{a: " * depth + "}" * depth):

        def parse(text: str = text) -> None:
            with pytest.raises(YamlError, match="nest"):
                yamldoc._parse(text, "f.yaml", backend)

        assert timed(parse) < 0.5


def test_nesting_up_to_the_bound_is_read() -> None:
    depth = yamldoc.MAX_DEPTH
    assert both("[" * depth + "]" * depth)[0] is not None
    block = "".join("  " * i + f"k{i}:\n" for i in range(depth - 1)) + "  " * depth + "v\n"
    assert both(block)[0] is not None


def test_deep_nesting_in_block_style(repo: Repo) -> None:
    text = "".join("  " * i + "- \n" for i in range(3000))
    with pytest.raises(YamlError, match="nested deeper than 100 levels"):
        yamldoc.parse_text(text, "f.yaml")


def test_load_refuses_big_files_devices_and_symlinks_out(repo: Repo, tmp_path: Path) -> None:
    big = repo.write("big.yaml", "a: b\n" * (yamldoc.MAX_YAML_BYTES // 5 + 1))
    assert timed(lambda: pytest.raises(YamlError, yamldoc.load, repo.root, "big.yaml")) < 0.5
    with pytest.raises(YamlError, match=f"over the {yamldoc.MAX_YAML_BYTES}-byte limit"):
        yamldoc.load(repo.root, "big.yaml")
    big.unlink()
    os.symlink("/dev/zero", repo.root / "zero.yaml")
    with pytest.raises(YamlError, match="leaves the repository"):
        yamldoc.load(repo.root, "zero.yaml")
    os.mkfifo(repo.root / "fifo.yaml")
    with pytest.raises(YamlError, match="not a regular file"):
        yamldoc.load(repo.root, "fifo.yaml")
    outside = tmp_path / "outside.yaml"
    outside.write_text("secret: 1\n")
    os.symlink(outside, repo.root / "out.yaml")
    with pytest.raises(YamlError, match="leaves the repository"):
        yamldoc.load(repo.root, "out.yaml")
    with pytest.raises(FileNotFoundError):
        yamldoc.load(repo.root, "missing.yaml")


def test_load_keeps_bom_and_line_endings(repo: Repo) -> None:
    repo.write("a.yaml", b"\xef\xbb\xbfa: 1\r\nb:\r\n  - x\r\n")
    doc = yamldoc.load(repo.root, "a.yaml")
    assert doc.data == {"a": 1, "b": ["x"]}
    assert doc.newline == "\r\n"
    assert yamldoc.key_line(doc.data, "b") == 2
    assert doc.encode(doc.text).startswith(b"\xef\xbb\xbf")
    repo.write("cr.yaml", b"a: 1\rb: 2\r")
    doc = yamldoc.load(repo.root, "cr.yaml")
    assert doc.newline == "\r" and len(doc.lines) == 2
    assert yamldoc.key_line(doc.data, "b") == 2


def test_load_edit_reads_with_ruamel(repo: Repo) -> None:
    repo.write("a.yaml", "a: [1]\n")
    fast = yamldoc.load(repo.root, "a.yaml")
    edit = yamldoc.load(repo.root, "a.yaml", edit=True)
    assert isinstance(fast.data, YamlMap)
    assert type(edit.data).__name__ == "CommentedMap"
    assert not differences(fast.data, edit.data)


def test_ruamel_backend_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLICYTOOL_YAML", "ruamel")
    assert type(yamldoc.parse_text("a: 1\n", "f.yaml")).__name__ == "CommentedMap"
    monkeypatch.delenv("POLICYTOOL_YAML")
    assert isinstance(yamldoc.parse_text("a: 1\n", "f.yaml"), YamlMap)


def test_big_file_with_a_construct_only_ruamel_reads_is_refused_fast() -> None:
    text = "a: 0x1F\n" + "b: c\n" * (yamldoc.RUAMEL_MAX_BYTES // 5)
    with pytest.raises(YamlError, match="typed scalar '0x1F' in a file over"):
        yamldoc.parse_text(text, "f.yaml")
    broken = "a: [\n" + "b: c\n" * (yamldoc.RUAMEL_MAX_BYTES // 5)
    with pytest.raises(YamlError, match="invalid YAML"):
        assert timed(lambda: yamldoc.parse_text(broken, "f.yaml")) < 0.5


BOMB_FILES = {
    ".pre-commit-config.yaml": ("precommit-config", "precommit-config"),
    ".github/workflows/ci.yml": ("ci-hook-stage", "ci-hook-stage"),
    ".github/mergify.yml": ("mergify-drift", "mergify-drift"),
}


@pytest.mark.parametrize("relpath", BOMB_FILES, ids=BOMB_FILES)
def test_hostile_yaml_through_the_cli_is_one_finding_fast(
    repo: Repo, run: Run, relpath: str
) -> None:
    repo.write("pyproject.toml", "[tool.policytool]\n")
    rule, _ = BOMB_FILES[relpath]
    repo.write(".pre-commit-config.yaml", "repos: []\n")
    for text, message in (
        (alias_bomb(), "aliases expand"),
        ("[" * 500 + "]" * 500 + "\n", "nested deeper than 100 levels"),
        ("a: b\n" * (yamldoc.MAX_YAML_BYTES // 5 + 1), "byte limit"),
    ):
        repo.write(relpath, "# pre-commit\n" + text)  # the CI rules skip files without it
        repo.commit()
        start = time.perf_counter()
        result = run("check", f"--only={rule}")
        assert time.perf_counter() - start < 1.0
        assert result.code in (1, 2), result
        assert message in result.out + result.err
        assert "Traceback" not in result.out + result.err


def test_cr_only_config_is_fixed_with_cr_line_endings(repo: Repo, run: Run) -> None:
    """Issue 16 item 17: CR-only line endings (pre-commit reads them) no longer break fixes."""
    repo.write(
        "pyproject.toml",
        '[tool.policytool.pre-commit]\ndefault-stages = ["pre-commit", "manual"]\n',
    )
    body = "repos:\r- repo: local\r  hooks:\r  - id: a\r    name: a\r    entry: a\r    language: system\r"
    repo.write(".pre-commit-config.yaml", body)
    repo.commit()
    assert run("check", "--only=precommit-default-stages").code == 1
    result = run("fix", "--only=precommit-default-stages")
    assert result.code == 1 and "Traceback" not in result.err
    fixed = repo.read(".pre-commit-config.yaml")
    assert b"\n" not in fixed
    assert fixed.startswith(b"default_stages: [pre-commit, manual]\r")
    assert fixed.endswith(body.encode())
    assert run("check", "--only=precommit-default-stages").code == 0


def test_config_symlinked_to_dev_zero_is_one_finding_fast(repo: Repo, run: Run) -> None:
    """Issue 12: a symlink to /dev/zero grew to 24 GB; the loader and the ignore pass refuse it."""
    repo.write("pyproject.toml", "[tool.policytool]\n")
    os.symlink("/dev/zero", repo.root / ".pre-commit-config.yaml")
    repo.commit()
    start = time.perf_counter()
    result = run("check", "--only=precommit-config")
    assert time.perf_counter() - start < 2.0
    assert result.code in (1, 2) and "Traceback" not in result.out + result.err
    assert "leaves the repository" in result.out + result.err
