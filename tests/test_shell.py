# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The shell word parser and the Dockerfile reader: words, offsets, operators, heredocs."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policytool.formats import dockerfile, shell


def argvs(text: str) -> list[list[str]]:
    """The argv of every top-level command."""
    return [c.argv for c in shell.parse(text).commands if not c.nested]


def raw(text: str, word: shell.Word) -> str:
    """The source characters of a word."""
    return text[word.start : word.end]


# ----------------------------------------------------------------------------- words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pip install black", [["pip", "install", "black"]]),
        ("pip install 'black>=1'", [["pip", "install", "black>=1"]]),
        ('pip install "black>=1" ruff', [["pip", "install", "black>=1", "ruff"]]),
        ("pip install black\\>=1", [["pip", "install", "black>=1"]]),
        ("pip install \\\n    black \\\n    ruff", [["pip", "install", "black", "ruff"]]),
        ("a && b || c; d & e | f |& g", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"]]),
        ("if x; then pip install y; fi", [["x"], ["pip", "install", "y"], ["fi"]]),
        ("while true; do pip install y; done", [["true"], ["pip", "install", "y"], ["done"]]),
        ("(cd sub && pip install .)", [["cd", "sub"], ["pip", "install", "."]]),
        ("{ pip install a; }", [["pip", "install", "a"], ["}"]]),
        ("pip install x # pip install y", [["pip", "install", "x"]]),
        ("echo a#b", [["echo", "a#b"]]),
        ("pip install $'x\\ty'", [["pip", "install", "x\\ty"]]),
    ],
)
def test_words_and_operators(text: str, expected: list[list[str]]) -> None:
    assert argvs(text) == expected


def test_env_prefixes_are_assignments_not_words() -> None:
    (command,) = shell.parse("FOO=1 BAR='a b' pip install x").commands
    assert [w.value for w in command.assignments] == ["FOO=1", "BAR=a b"]
    assert command.argv == ["pip", "install", "x"]


def test_quoted_name_is_not_an_assignment() -> None:
    (command,) = shell.parse("'FOO=1' pip").commands
    assert command.assignments == ()
    assert command.argv == ["FOO=1", "pip"]


def test_github_expression_is_one_word_even_with_blanks() -> None:
    text = "pip install ${{ matrix.pkg }} ${{ inputs.extra }}x"
    (command,) = shell.parse(text).commands
    assert command.argv == ["pip", "install", "${{ matrix.pkg }}", "${{ inputs.extra }}x"]
    assert all(w.dynamic for w in command.words[2:])


@pytest.mark.parametrize(
    "word",
    ["$HOME", "${VAR:-x y}", "$(cat f | xargs)", "$((1 + 2))", "`cat f`", '"$X"', "<(curl u)"],
)
def test_expansions_are_kept_whole_and_dynamic(word: str) -> None:
    (command,) = [c for c in shell.parse(f"pip install {word} z").commands if not c.nested]
    assert command.argv[2] == word.strip('"')
    assert command.words[2].dynamic
    assert command.argv[3] == "z"


def test_single_quotes_are_not_dynamic() -> None:
    (command,) = shell.parse("echo '$HOME'").commands
    assert command.words[1].value == "$HOME"
    assert not command.words[1].dynamic


def test_command_substitution_is_parsed_as_nested_commands() -> None:
    text = 'bash -c "$(curl -fsSL https://x/install.sh)"'
    commands = shell.parse(text).commands
    nested = [c for c in commands if c.nested]
    assert [c.argv for c in nested] == [["curl", "-fsSL", "https://x/install.sh"]]
    assert [c.argv[0] for c in commands if not c.nested] == ["bash"]


def test_substitution_with_heredoc_and_parens_inside() -> None:
    text = 'uv pip install "$(python - <<\'PY\'\nprint(")")\nPY\n)"\npip install after'
    assert argvs(text)[-1] == ["pip", "install", "after"]
    assert argvs(text)[0][:3] == ["uv", "pip", "install"]


# ----------------------------------------------------------------------------- redirects


def test_unquoted_specifier_is_a_redirect_glued_to_the_name() -> None:
    text = "uv pip install pre-commit>=4.5.1"
    (command,) = shell.parse(text).commands
    assert command.argv == ["uv", "pip", "install", "pre-commit"]
    (redirect,) = command.redirects
    assert redirect.op == ">"
    assert redirect.target is not None and redirect.target.value == "=4.5.1"
    assert redirect.glued_to is command.words[3]


@pytest.mark.parametrize(
    ("text", "op", "fd", "glued"),
    [
        ("pip install x > log", ">", "", False),
        ("pip install x 2>&1", ">&", "2", False),
        ("pip install x &> log", "&>", "", False),
        ("pip install 'x<2' <in", "<", "", False),
        ("pip install x<2", "<", "", True),
        ("pip install x>>log", ">>", "", True),
    ],
)
def test_redirect_forms(text: str, op: str, fd: str, glued: bool) -> None:
    (command,) = shell.parse(text).commands
    (redirect,) = command.redirects
    assert (redirect.op, redirect.fd, redirect.glued_to is not None) == (op, fd, glued)


def test_heredoc_bodies_are_skipped() -> None:
    text = "cat <<EOF > f\npip install inside\nEOF\npip install outside\n"
    assert argvs(text) == [["cat"], ["pip", "install", "outside"]]
    script = shell.parse(text)
    assert script.heredocs and "inside" in text[slice(*script.heredocs[0])]


def test_heredoc_with_tab_stripping_and_quoted_delimiter() -> None:
    text = "cat <<-'END'\n\tpip install no\n\tEND\npip install yes"
    assert argvs(text)[-1] == ["pip", "install", "yes"]


def test_pipelines_group_piped_commands() -> None:
    script = shell.parse("curl -L u | sh -s -- -y && echo ok")
    assert [[c.argv[0] for c in p] for p in script.pipelines()] == [["curl", "sh"], ["echo"]]


# ----------------------------------------------------------------------------- offsets


def test_offsets_point_at_each_value_character() -> None:
    text = "pip install \"black[d]>=2\" 'ru''ff' x\\ y"
    words = shell.parse(text).commands[0].words
    for word in words:
        assert "".join(text[o] for o in word.offsets) == word.value
    assert words[2].span(8, 11) == (text.index(">=2"), text.index(">=2") + 3)
    assert words[3].value == "ruff"
    assert words[3].span(0, 4) is None  # the quotes split it
    assert words[4].value == "x y"


def test_span_insertion_point_after_a_name() -> None:
    text = "pip install 'uv'"
    word = shell.parse(text).commands[0].words[2]
    assert word.span(2, 2) == (text.index("uv") + 2,) * 2


def test_parse_word_maps_offsets_through_the_outer_quotes() -> None:
    text = "bash -c 'pip install black>=1 && curl u | sh'"
    outer = shell.parse(text).commands[0].words[2]
    inner = shell.parse_word(outer)
    first = inner.commands[0]
    assert first.argv == ["pip", "install", "black"]
    assert raw(text, first.words[2]) == "black"
    assert first.redirects[0].glued_to is not None
    assert raw(text, first.redirects[0].glued_to) == "black"


def test_unwrap_strips_sudo_env_and_friends() -> None:
    cases = {
        "sudo -E -u root pip install x": ["pip", "install", "x"],
        "env -i A=1 B=2 python -m pip install x": ["python", "-m", "pip", "install", "x"],
        "timeout 10m nice -n 5 uv pip install x": ["uv", "pip", "install", "x"],
        "exec pipx install x": ["pipx", "install", "x"],
    }
    for text, expected in cases.items():
        (command,) = shell.parse(text).commands
        assert [w.value for w in shell.unwrap(command)] == expected


@pytest.mark.parametrize(
    "text",
    [
        "'unterminated",
        '"unterminated $(x',
        "$(",
        "${{ x",
        "cat <<EOF",
        "a && && ;; | ) ) (",
        "\\",
        "`",
        "x >",
        "\x00\r\n\t",
    ],
)
def test_hostile_input_never_raises(text: str) -> None:
    shell.parse(text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.characters(codec="utf-8", exclude_characters="\x00"),
            min_size=1,
            max_size=12,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_shlex_quoted_words_round_trip(words: list[str]) -> None:
    """Any words quoted by shlex.quote come back as the same words, offsets exact."""
    text = "cmd " + " ".join(shlex.quote(w) for w in words)
    (command,) = shell.parse(text).commands
    assert command.argv == ["cmd", *words]
    for word in command.words:
        assert "".join(text[o] for o in word.offsets) == word.value


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_arbitrary_text_parses_with_offsets_in_range(text: str) -> None:
    script = shell.parse(text)
    for command in script.commands:
        for word in command.words:
            assert all(0 <= o < len(text) for o in word.offsets)
            assert 0 <= word.start <= word.end <= len(text)


# ----------------------------------------------------------------------------- Dockerfile


DOCKERFILE = """\
# syntax=docker/dockerfile:1
ARG BASE=python:3.12-slim
FROM ${BASE} AS build
RUN pip install \\
    # a comment inside the continuation
    black \\

    ruff
RUN ["pip", "install", "uv>=0.5"]
RUN ["/bin/sh", "-c", "pip install 'x<2' && echo done"]
RUN --mount=type=cache,target=/root/.cache pip install cached
RUN <<EOF
pip install heredoc
EOF
FROM build
"""


def test_dockerfile_instructions_and_run_forms() -> None:
    parsed = dockerfile.parse(DOCKERFILE)
    keywords = [(i.keyword, i.line) for i in parsed.instructions]
    assert keywords == [
        ("ARG", 2),
        ("FROM", 3),
        ("RUN", 4),
        ("RUN", 9),
        ("RUN", 10),
        ("RUN", 11),
        ("RUN", 12),
        ("FROM", 15),
    ]
    runs = [i for i in parsed.instructions if i.keyword == "RUN"]
    argv = [[c.argv for s in parsed.run_scripts(i) for c in s.commands] for i in runs]
    assert argv[0] == [["pip", "install", "black", "ruff"]]
    assert argv[1] == [["pip", "install", "uv>=0.5"]]
    assert argv[2] == [["pip", "install", "x<2"], ["echo", "done"]]
    assert argv[3] == [["pip", "install", "cached"]]
    assert argv[4][-1] == ["pip", "install", "heredoc"]


def test_dockerfile_words_point_into_the_original_text() -> None:
    parsed = dockerfile.parse(DOCKERFILE)
    for instruction in parsed.instructions:
        for script in parsed.run_scripts(instruction):
            for command in script.commands:
                for word in command.words:
                    assert "".join(DOCKERFILE[o] for o in word.offsets) == word.value


def test_dockerfile_from_and_args() -> None:
    parsed = dockerfile.parse(DOCKERFILE)
    froms = [parsed.from_image(i) for i in parsed.instructions if i.keyword == "FROM"]
    assert [(w.value, name) for w, name in filter(None, froms)] == [
        ("${BASE}", "build"),
        ("build", None),
    ]
    assert parsed.arg_defaults(parsed.instructions[0]) == {"BASE": "python:3.12-slim"}


def test_dockerfile_escape_directive_backtick() -> None:
    text = "# escape=`\nFROM x\nRUN pip install `\n    black\n"
    parsed = dockerfile.parse(text)
    run = parsed.instructions[-1]
    (script,) = parsed.run_scripts(run)
    assert script.commands[0].argv == ["pip", "install", "black"]


@pytest.mark.parametrize(
    "text",
    ["RUN \\", "RUN [", 'RUN ["a", ', "RUN <<EOF\nno end", "\\\n\\\n", "FROM", "RUN [1, 2]"],
)
def test_dockerfile_hostile_input_never_raises(text: str) -> None:
    parsed = dockerfile.parse(text)
    for instruction in parsed.instructions:
        parsed.run_scripts(instruction)
        parsed.from_image(instruction)


def test_dockerfile_scopes_follow_docker_arg_rules() -> None:
    text = (
        "ARG G=1\nFROM a\nRUN x\nARG G\nARG L=2\nENV E=3 F=4\nRUN y\nFROM b\nENV OLD legacy value\n"
        "RUN z\n"
    )
    parsed = dockerfile.parse(text)
    scopes = [env for instruction, env in parsed.scopes() if instruction.keyword == "RUN"]
    assert scopes == [{}, {"G": "1", "L": "2", "E": "3", "F": "4"}, {"OLD": "legacy value"}]


@pytest.mark.parametrize(
    ("value", "expanded"),
    [
        ("a${X}b$Y", "a1b2"),
        ("${X:-0}", None),
        ("${X:+==${X}}", None),
        ("$(cat f)", None),
        ("`cat f`", None),
        ("$MISSING", None),
        ("plain", "plain"),
    ],
)
def test_expand_args_only_plain_references(value: str, expanded: str | None) -> None:
    assert dockerfile.expand_args(value, {"X": "1", "Y": "2"}) == expanded
