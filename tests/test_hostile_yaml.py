# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Explicit YAML tags: the rules read a tagged value as its consumer (pre-commit, GitHub) does.

``rev: !!str main`` is ``main`` to pre-commit's loader (PyYAML's SafeLoader); a reader
that handed the rules a tagged object hid the finding. The reader now resolves the YAML
core-schema tags to their values where YAML 1.1 (pre-commit) and 1.2 (GitHub) agree, and
reports every other tag as one finding: the file cannot be judged as its consumer reads it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from policytool.errors import YamlError
from policytool.formats import yamldoc
from tests.conftest import Repo, Result
from tests.precommit_helpers import ONLY_REPO, PRECOMMIT_RULES
from tests.test_mergify import BARE, MERGIFY
from tests.test_mergify import PRECOMMIT as MERGIFY_PRECOMMIT
from tests.test_precommit import DRIFTED, POLICY, write_hook_scripts

Run = Callable[..., Result]


def plain(value: object) -> object:
    """A parsed value as plain dicts, lists and scalars (str subclasses as str)."""
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    if isinstance(value, float) and not isinstance(value, bool):
        return "nan" if math.isnan(value) else float(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    return value


def safe_load(text: str) -> object:
    """What pre-commit's loader reads (PyYAML's SafeLoader)."""
    return plain(yaml.load(text, Loader=yaml.SafeLoader))


# Tagged documents both policytool backends read exactly as SafeLoader does.
AGREE = {
    "str": "rev: !!str main\n",
    "str on a number": "rev: !!str 1.0\nb: !!str true\nc: !!str ~\nd: !!str 010\n",
    "long form": "rev: !<tag:yaml.org,2002:str> main\n",
    "quoted str": "rev: !!str 'main'\nb: !!str \"x\\ty\"\n",
    "block str": "run: !!str |\n  pip install x\n  pytest\n",
    "folded str": "run: !!str >-\n  pip install\n  x\n",
    "empty str": "a: !!str\nb: c\n",
    "tagged key": "!!str on: push\n!!str 1: x\n",
    "int": "a: !!int 3\nb: !!int -12\nc: !!int 0x1F\nd: !!int '7'\n",
    "float": "a: !!float 1\nb: !!float 1.5e3\nc: !!float .inf\nd: !!float -.Inf\ne: !!float .5\n",
    "nan": "a: !!float .nan\n",
    "bool": "a: !!bool true\nb: !!bool False\nc: !!bool TRUE\n",
    "null": "a: !!null\nb: !!null ~\nc: !!null null\n",
    "non-specific": "a: ! main\nb: ! 'x y'\n",
    "map and seq": "a: !!map {k: !!str v}\nb: !!seq [!!str x, 1]\nc: ! {k: v}\n",
    "in a sequence": "- !!str actions/checkout@main\n- !!int 1\n",
    "anchored": "a: &x !!str main\nb: *x\nc: !!str &y main\nd: *y\n",
    "merge": "x: &a {k: v, j: w}\nb:\n  <<: *a\n  k: own\n",
    "merge list": "x: &a {k: 1}\ny: &b {k: 2, m: 3}\nb:\n  <<: [*a, *b]\n  z: !!str 4\n",
    "merge nested": "x: &a {k: 1}\ny: &b {<<: *a, m: 2}\nb: {<<: *b, n: !!str 3}\n",
    "behind a handover": "%YAML 1.1\n---\nrev: !!str main\nb: !!int 3\n",
    "hex behind": "a: 0x1F\nrev: !!str main\n",
}

# Tagged documents whose consumers disagree, or that name a tag outside the core
# schema: one YamlError sentence, never a silently different value.
REPORTED = {
    "octal int": ("a: !!int 010\n", "`!!int 010` is read differently"),
    "underscore int": ("a: !!int 1_000\n", "`!!int 1_000`"),
    "yes bool": ("a: !!bool yes\n", "`!!bool yes`"),
    "not a bool": ("a: !!bool maybe\n", "`!!bool maybe`"),
    "null with text": ("a: !!null x\n", "`!!null x`"),
    "sexagesimal float": ("a: !!float 1:30\n", "`!!float 1:30`"),
    "local tag": ("rev: !foo main\n", "explicit tag `!foo`"),
    "binary": ("a: !!binary aGVsbG8=\n", "explicit tag `!!binary`"),
    "timestamp": ("a: !!timestamp 2001-01-01\n", "explicit tag `!!timestamp`"),
    "set": ("a: !!set {x, y}\n", "explicit tag `!!set` on a mapping"),
    "omap": ("a: !!omap [x: 1]\n", "explicit tag `!!omap` on a sequence"),
    "python object": ("a: !!python/object:os.system {}\n", "`!!python/object:os.system`"),
    "python name": ("a: !!python/name:os.system ''\n", "`!!python/name:os.system`"),
    "merge tag": ("x: &a {k: v}\nb: {!!merge <<: *a}\n", "explicit tag `!!merge`"),
    "map tag on a seq": ("a: !!map [x]\n", "explicit tag `!!map` on a sequence"),
    "non-specific number": ("a: ! 3\n", "`! 3`"),
    "non-specific quoted number": ("a: ! '3'\n", "`! 3`"),
    "behind a handover": ("%YAML 1.1\n---\na: !foo x\n", "explicit tag `!foo`"),
    "local tag on line 3": ("a: 1\nb: 2\nc: !x y\n", "explicit tag `!x`"),
}


@pytest.mark.parametrize("backend", ["fast", "ruamel"])
@pytest.mark.parametrize("text", AGREE.values(), ids=AGREE.keys())
def test_tagged_documents_read_as_safeloader_reads_them(text: str, backend: str) -> None:
    assert plain(yamldoc._parse(text, "f.yaml", backend)) == safe_load(text)


@pytest.mark.parametrize("backend", ["fast", "ruamel"])
@pytest.mark.parametrize("case", REPORTED.values(), ids=REPORTED.keys())
def test_tags_consumers_read_differently_are_one_sentence(
    case: tuple[str, str], backend: str
) -> None:
    text, words = case
    with pytest.raises(YamlError) as caught:
        yamldoc._parse(text, "f.yaml", backend)
    message = str(caught.value)
    assert words in message and "cannot be judged as its consumer reads it" in message
    tagged = next(n for n, line in enumerate(text.splitlines(), 1) if "!" in line)
    assert message.startswith(f"f.yaml:{tagged}: ")


_SCALARS = st.one_of(
    st.sampled_from(
        [
            "main",
            "v1.2.3",
            "0",
            "7",
            "-3",
            "+4",
            "010",
            "0x1f",
            "0o17",
            "1_0",
            "1.5",
            "1e3",
            "1.",
            ".5",
            ".inf",
            "-.INF",
            ".nan",
            ".NaN",
            "true",
            "True",
            "TRUE",
            "false",
            "yes",
            "No",
            "on",
            "OFF",
            "y",
            "~",
            "null",
            "Null",
            "",
            "1:30",
            "2001-01-01",
            "<<",
            "=",
            "-",
            "+.inf",
            "0b101",
            "1.5E-3",
            "+1e+3",
        ]
    ),
    st.text(alphabet="0123456789abcdefxXoOeE+-._:~", max_size=8),
)
_TAGS = st.sampled_from(["!!str", "!!int", "!!float", "!!bool", "!!null", "!", None])


@settings(max_examples=150, deadline=None)
@given(tag=_TAGS, raw=_SCALARS, quoted=st.booleans())
@example(tag=None, raw="._", quoted=False)  # a CI draw: ruamel took it for a float
def test_generated_tagged_scalars_match_safeloader_or_are_reported(
    tag: str | None, raw: str, quoted: bool
) -> None:
    written = "'" + raw.replace("'", "''") + "'" if quoted or not raw else raw
    text = f"a: {tag + ' ' if tag else ''}{written}\n"
    try:
        expected = safe_load(text)
    except (yaml.YAMLError, ValueError, KeyError, IndexError):
        expected = None  # pre-commit cannot load it either: policytool must say so
        if tag is None:
            return  # untagged forms are another contract (tests/test_yamldoc.py)
    for backend in ("fast", "ruamel"):
        try:
            got = plain(yamldoc._parse(text, "f.yaml", backend))
        except YamlError as exc:
            assert tag is not None, (text, exc)  # untagged text is never refused here
            continue
        if tag is None and (not quoted and raw):
            continue  # plain untagged scalars: YAML 1.2 by design (docs/yaml.md)
        assert expected is not None, (text, got)
        assert got == expected, (text, backend)


# ------------------------------------------------------------------------ through the CLI

_KEYS = "repo|rev|id|name|entry|language|uses|run|shell|message"


def tag_strings(text: str) -> str:
    """``text`` with ``!!str`` written on every plain string value the rules read."""
    text = re.sub(
        rf"^(\s*(?:- )?(?:{_KEYS}): )(?![\"'\[{{&*!|>])(?=\S)",
        r"\1!!str ",
        text,
        flags=re.M,
    )
    text = re.sub(r"^(\s*(?:- )?(?:message|run): )([|>])", r"\1!!str \2", text, flags=re.M)
    text = re.sub(r"^(\s*- )(?=[-\w][^:\n]*$)", r"\1!!str ", text, flags=re.M)  # list items
    return re.sub(
        r"((?:args|stages|types_or): \[)([^\]]*)\]",
        lambda m: m[1] + ", ".join("!!str " + v.strip() for v in m[2].split(",")) + "]",
        text,
    )


def findings(run: Run, *args: str) -> list[tuple[str, str, str]]:
    """(path:line, rule, message) of every finding, without the column."""
    out = []
    for line in run("check", *args).out.splitlines():
        match = re.match(r"(.+?:\d+):\d+: (\S+) (.*)", line)
        if match:
            out.append((match[1], match[2], match[3]))
    return out


WORKFLOW = """\
on: push
jobs:
  t:
    runs-on: ubuntu-latest
    defaults:
      run:
        shell: bash
    steps:
    - uses: actions/checkout@main
    - uses: "actions/setup-python@v5"
    - run: pip install x
    - run: |
        pip install y
        pre-commit run --all-files
    - name: lint
      shell: bash
      run: uv pip install z
"""

PRECOMMIT = """\
repos:
- repo: https://github.com/astral-sh/ruff-pre-commit
  rev: main
  hooks:
  - id: ruff
    args: [--fix]
    stages: [manual]
"""


def test_tag_strings_tags_what_the_rules_read() -> None:
    tagged = tag_strings(WORKFLOW + PRECOMMIT)
    for needle in (
        "uses: !!str actions/checkout@main",
        'uses: "actions/setup-python@v5"',
        "run: !!str pip install x",
        "run: !!str |",
        "shell: !!str bash",
        "rev: !!str main",
        "- id: !!str ruff",
        "args: [!!str --fix]",
        "stages: [!!str manual]",
    ):
        assert needle in tagged, needle


@pytest.mark.parametrize(
    "files",
    [
        {".github/workflows/ci.yml": WORKFLOW, ".pre-commit-config.yaml": PRECOMMIT},
        {".pre-commit-config.yaml": DRIFTED, "pyproject.toml": POLICY},
        {".pre-commit-config.yaml": MERGIFY_PRECOMMIT, ".github/mergify.yml": MERGIFY},
    ],
    ids=["workflow", "precommit-drifted", "mergify"],
)
def test_str_tags_give_the_same_findings_as_untagged(
    repo: Repo, run: Run, files: dict[str, str]
) -> None:
    write_hook_scripts(repo)
    repo.write("tools/mypy.py", "print('mypy')\n")
    for path, text in files.items():
        repo.write(path, text)
    repo.commit()
    plain_findings = findings(run)
    assert plain_findings
    for path, text in files.items():
        if path.endswith(".yaml") or path.endswith(".yml"):
            tagged = tag_strings(text)
            assert tagged != text
            repo.write(path, tagged)
    repo.commit()
    assert findings(run) == plain_findings


def test_str_tags_on_rev_uses_and_run_are_found(repo: Repo, run: Run) -> None:
    """The three forms of the issue, each one finding at its own line."""
    repo.write(".pre-commit-config.yaml", PRECOMMIT.replace("rev: main", "rev: !!str main"))
    repo.write(
        ".github/workflows/ci.yml",
        "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
        "    - uses: !!str actions/checkout@main\n    - run: !!str pip install x\n",
    )
    repo.commit()
    out = run("check").out
    assert ".pre-commit-config.yaml:3:1: precommit-rev rev 'main'" in out, out
    # Columns point at the value itself, past the tag.
    assert ".github/workflows/ci.yml:6:19: action-pin `actions/checkout@main`" in out, out
    assert ".github/workflows/ci.yml:7:30: ci-floating-install `pip install x`" in out, out


@pytest.mark.parametrize(
    ("path", "text", "rule"),
    [
        (".pre-commit-config.yaml", PRECOMMIT.replace("rev: main", "rev: !foo main"), None),
        (
            ".github/workflows/ci.yml",
            WORKFLOW.replace("run: pip install x", "run: !!binary cGlw"),
            "ci-floating-install",
        ),
        (".pre-commit-config.yaml", PRECOMMIT.replace("rev: main", "rev: !!int 010"), None),
    ],
    ids=["local-tag-in-config", "binary-in-workflow", "octal-int-rev"],
)
def test_tags_outside_the_core_schema_are_a_finding(
    repo: Repo, run: Run, path: str, text: str, rule: str | None
) -> None:
    repo.write(".pre-commit-config.yaml", PRECOMMIT)
    repo.write(path, text)
    repo.commit()
    result = run("check", f"--only={ONLY_REPO},action-pin,ci-floating-install")
    assert result.code == 1
    assert "Traceback" not in result.err
    judged = [f for f in findings(run, f"--only={ONLY_REPO},action-pin,ci-floating-install")]
    said = [f for f in judged if "cannot be judged as its consumer reads it" in f[2]]
    assert said, judged
    assert {f[0] for f in said} == {
        f"{path}:{text.splitlines().index(next(line for line in text.splitlines() if '!' in line)) + 1}"
    }
    if rule is None:
        assert {f[1] for f in said} <= set(PRECOMMIT_RULES)


def test_fix_keeps_a_str_tag_and_the_file_parses(repo: Repo, run: Run) -> None:
    """``fix`` edits the value after ``!!str`` and keeps the tag (default_stages added)."""
    repo.write("pyproject.toml", '[tool.policytool.pre-commit]\ndefault-stages = ["pre-commit"]\n')
    text = tag_strings(
        PRECOMMIT.replace("rev: main", "rev: v0.14.0").replace("[manual]", "[pre-commit]")
    )
    repo.write(".pre-commit-config.yaml", text)
    repo.commit()
    result = run("fix", "--only=precommit-default-stages")
    assert result.code == 1, result.out + result.err
    fixed = repo.read(".pre-commit-config.yaml").decode()
    assert fixed.endswith(text) and "rev: !!str v0.14.0" in fixed
    assert safe_load(fixed)["repos"][0]["rev"] == "v0.14.0"  # type: ignore[index]
    assert run("check", "--only=precommit-default-stages").code == 0


@pytest.mark.parametrize("tagged", ["message: !!str |", "message: !!str\n          |"])
def test_sync_on_a_str_tagged_message(repo: Repo, run: Run, tagged: str) -> None:
    """``sync`` writes into ``message: !!str |`` as into ``message: |``; never corrupts it."""
    text = BARE.replace("message: |", tagged)
    repo.write(".pre-commit-config.yaml", MERGIFY_PRECOMMIT)
    repo.write(".github/mergify.yml", text)
    repo.write("requirements/lint.txt", "pre-commit==4.0.1\n")
    repo.commit()
    result = run("sync")
    written = repo.read(".github/mergify.yml").decode()
    assert result.code == 0, result.err
    data = safe_load(written)
    assert isinstance(data, dict)
    message = data["pull_request_rules"][1]["actions"]["comment"]["message"]
    assert "policytool:sync begin" in message and "pre-commit run" in message
    assert written.startswith(text)  # appended inside the message; the tag kept
    assert run("sync", "--check").code == 0


@pytest.mark.parametrize("raw", ["._", "-_", "+_", "-._", ".__"])
@pytest.mark.parametrize("backend", ["fast", "ruamel"])
def test_digit_less_number_lookalikes_are_strings(raw: str, backend: str) -> None:
    """ruamel's resolver reads `._` as a float and `-_` as an int and fails to build
    them; YAML 1.2's core schema and PyYAML (pre-commit) read both as strings."""
    text = f"a: {raw}\n"
    assert plain(yamldoc._parse(text, "f.yaml", backend)) == {"a": raw} == safe_load(text)
