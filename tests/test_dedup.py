# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The helpers that give one home to logic two places wrote out: each keeps what both
callers reported, byte for byte."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from policytool.config import Config
from policytool.engine import registry
from policytool.engine.source import SourceFile
from policytool.errors import FileProblem
from policytool.formats import shell, yamldoc
from policytool.formats.mergify import load_mergify
from policytool.formats.precommit import load_model
from policytool.formats.precommit_run import parse_run_commands
from policytool.formats.pyimports import FileScan, Use
from policytool.formats.shell import simple_commands as shell_commands
from policytool.rules._kwreads import statements
from policytool.rules._pysource import _import_statements
from tests.conftest import Repo, Result

Run = Callable[..., Result]


def test_lock_rules_report_an_unresolvable_lock_table_alike(repo: Repo, run: Run) -> None:
    repo.write(
        "pyproject.toml",
        '[project]\nname = "x"\n\n[[tool.policytool.lock]]\nname = "base"\n'
        'output = "requirements/base.txt"\ninputs = []\n',
    )
    repo.commit()
    result = run("check", "--only", "lock-stale,lock-skew", "--format", "json")
    assert result.code == 1, result.out + result.err
    got = [
        (f["path"], f["line"], f["col"], f["rule"], f["message"]) for f in json.loads(result.out)
    ]
    message = "lock 'base': inputs is empty"
    assert got == [
        ("pyproject.toml", 1, 1, "lock-skew", message),
        ("pyproject.toml", 1, 1, "lock-stale", message),
    ]


def test_attribute_uses_and_called_names_find_whole_words_only() -> None:
    data = (
        b"import torch\n"
        b"cuda.synchronize()\n"  # 2: a use at the start of a line
        b"xcuda.synchronize()\n"  # not the word: an identifier byte before
        b"cudax.synchronize()\n"  # nor after
        b"torch.cuda.empty_cache\n"  # 5: base torch, not called
        b"# cuda.synchronize() in a comment\n"
        b"seed(1); reseed(2); obj.seed(3)\n"  # 7: only the bare call
        b"def seed(n): pass\n"
        b"x = 'seed(4)'\n"
        b"seed"  # the word at the very end of the file
    )
    scan = FileScan("m.py", data)
    assert scan.attribute_uses(b"cuda") == [
        Use(None, "synchronize", 2, 1, True),
        Use("torch", "empty_cache", 5, 1, False),
    ]
    assert scan.attribute_uses(b"cuda", lambda base, attr: base is None) == [
        Use(None, "synchronize", 2, 1, True)
    ]
    assert scan.called_names(b"seed") == [Use(None, "seed", 7, 1, True)]
    assert scan.import_calls() == []


def test_run_commands_and_shell_commands_join_continuations_alike() -> None:
    script = (
        "echo a \\\n"
        "  b\n"
        "pre-commit run \\\n"
        "  --all-files \\\n"
        "  ruff\n"
        "ls \\"  # a backslash on the last line joins nothing
    )
    commands = list(shell_commands(script))
    assert commands[:2] == [
        (0, ["echo", "a", "b"]),
        (2, ["pre-commit", "run", "--all-files", "ruff"]),
    ]
    assert commands[2][0] == 5 and commands[2][1][0] == "ls"
    [(line, command)] = parse_run_commands(script)
    assert (line, command.hook, command.all_files) == (2, "ruff", True)


def test_mergify_and_precommit_loaders_treat_absent_and_broken_yaml_alike(tmp_path: Path) -> None:
    assert load_mergify(tmp_path, ".mergify.yml") is None
    assert load_model(tmp_path, ".pre-commit-config.yaml") is None
    for relpath, loader in (
        (".mergify.yml", load_mergify),
        (".pre-commit-config.yaml", load_model),
    ):
        (tmp_path / relpath).write_text("a: 1\nb: [\n")
        with pytest.raises(FileProblem) as caught:
            loader(tmp_path, relpath)
        assert (caught.value.relpath, caught.value.line) == (relpath, 3)


_WALKED = """\
import a
def f():
    import b
    class C:
        x = 1
    try:
        import c
    except E:
        y = 2
    else:
        import d
    finally:
        z = 3
match v:
    case 1:
        import e
"""


def test_statement_walks_share_one_order_and_pruning() -> None:
    body = ast.parse(_WALKED).body
    every = [s.lineno for s in statements(body)]
    assert every == [1, 2, 3, 4, 5, 6, 9, 13, 11, 7, 14, 16]
    outer = body[1]
    assert isinstance(outer, ast.FunctionDef)
    # Without entering nested scopes: class C is yielded, its body is not.
    assert [s.lineno for s in statements(outer.body, scopes=False)] == [3, 4, 6, 9, 13, 11, 7]
    # Keeping only what holds `import`: what holds none is neither yielded nor entered.
    data = _WALKED.encode()
    assert [s.lineno for s in _import_statements(body, data)] == [1, 2, 3, 6, 11, 7, 14, 16]


def test_ruamel_key_and_value_positions() -> None:
    data = yamldoc.parse_ruamel("b: &b {x: 1, y: 2}\nm:\n  <<: *b\n  x:\n    9\n", "f.yaml")
    assert isinstance(data, dict)
    merged = data["m"]
    assert yamldoc.key_pos(merged, "x") == (3, 2)
    assert yamldoc.value_pos(merged, "x") == (4, 4)
    assert yamldoc.key_pos(merged, "y") is None  # merged in, not written here
    assert yamldoc.key_pos(merged, "nope") is None
    assert yamldoc.value_pos(merged, "nope") is None
    assert yamldoc.key_pos({"x": 1}, "x") is None  # no positions recorded
    assert yamldoc.value_pos({"x": 1}, "x") is None
    assert yamldoc.value_pos([1], "x") is None


def test_torch_cuda_messages_of_every_spelling(repo: Repo, run: Run) -> None:
    repo.write("pyproject.toml", "[tool.policytool.torch-cuda]\n")
    repo.write(
        "mod.py",
        "import torch as t\nimport torch.cuda as tc\nfrom torch.cuda import synchronize as sync\n"
        "t.cuda.empty_cache()\ntc.device\ntc.device(0)\nsync()\nx = tc.synchronize\n",
    )
    result = run("check", "--only", "torch-cuda", "--format", "json", "mod.py")
    got = [(f["line"], f["col"], f["message"]) for f in json.loads(result.out)]
    banned = "is a banned torch.cuda API"
    assert [(line, col, message.split("; use ")[0]) for line, col, message in got] == [
        (4, 1, f"`t.cuda.empty_cache` {banned} (torch.cuda.empty_cache)"),
        (6, 1, f"`tc.device` {banned} (torch.cuda.device)"),
        (7, 1, f"`sync` {banned} (torch.cuda.synchronize)"),
        (8, 5, f"`tc.synchronize` {banned} (torch.cuda.synchronize)"),
    ]
    assert all(message.split("; use ")[1] for _l, _c, message in got)


MATCHED = {
    "echo $(( (1+2) * 3 )) done": [["echo", "$(( (1+2) * 3 ))", "done"]],
    "echo $(( ')' + 1 )) done": [["echo", "$(( ')' + 1 ))", "done"]],
    'echo ${x:-"}"} done': [["echo", '${x:-"}"}', "done"]],
    "echo ${x:-{a}} done": [["echo", "${x:-{a}}", "done"]],
    # Inside ${{ a quote is not skipped: '}' closes nothing, the word runs on.
    "echo ${{ a '}' }} done": [["echo", "${{ a '}' }} done"]],
    "echo ${{ a\necho next": [["echo", "${{ a"], ["echo", "next"]],
    "echo ${x:-\necho next}": [["echo", "${x:-\necho next}"]],
    "echo $((1 + (2\necho next": [["echo", "$((1 + (2\necho next"]],
}


@pytest.mark.parametrize("script", MATCHED, ids=range(len(MATCHED)))
def test_shell_parentheses_and_braces_are_matched_as_before(script: str) -> None:
    parsed = shell.parse(script)
    assert [c.argv for c in parsed.commands if not c.nested] == MATCHED[script]


_RETURNS = b"""\
def none_but_value(x: int) -> None:
    if x:
        return 1
    def inner() -> int:
        return 2
    return


def int_but_none(x: int) -> int:
    if x:
        return None
    elif x > 1:
        return
    class K:
        def m(self) -> None:
            return None
    return 3


def falls_off(x: int) -> str:
    if x:
        return "a"
"""


def test_any_annotation_wrong_returns_keep_their_messages() -> None:
    source = SourceFile("pkg/a.py", "pkg/a.py", _RETURNS, "python")
    rule = registry.file_rules(["any-annotation"])["any-annotation"]
    found = [(f.line, f.message) for f in rule.check(source, Config())]
    assert [item for item in found if "annotated" in item[1]] == [
        # a wrong return is one finding at the new def line, its returns listed
        (
            1,
            "`none_but_value` is annotated `-> None` (line 1) but returns `1` on line 3; "
            "fix the annotation",
        ),
        (
            9,
            "`int_but_none` is annotated `-> int` (line 9) but returns None on line 11, "
            "returns None on line 13; annotate `-> int | None`",
        ),
        (20, "`falls_off` is annotated `-> str` but can fall off its end and return None"),
    ]
