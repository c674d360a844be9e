# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Dockerfiles: instructions with their continuations, and the shell their RUNs execute.

Docker reads a Dockerfile line by line before any shell sees it: the parser directive
``# escape=`` (``\\`` by default) picks the continuation character; a line ending in it
(trailing blanks allowed) continues on the next; comment lines and empty lines inside a
continued instruction are dropped. :func:`parse` keeps offsets into the original text by
building a *masked* copy of the same length in which those continuations and dropped
lines are blanked out, so ``RUN`` arguments can be handed to :mod:`policytool.formats.shell`
and every word still knows where it is written.

``RUN`` comes in three forms, all understood: shell form (``RUN pip install x``, after
``--mount=...``-style flags), exec form (``RUN ["pip", "install", "x"]``; ``["sh", "-c",
"..."]`` is parsed as shell) and heredoc form (``RUN <<EOF`` ... ``EOF``: the body is the
script). ``FROM`` gives its image word and stage name, ``ARG`` its defaults.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from policytool.formats import shell

_SHELLS = shell.POSIX_SHELLS
_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r"}
_JSON_ESCAPES["t"] = "\t"


@dataclass(frozen=True)
class Heredoc:
    """A heredoc of an instruction: its delimiter and the body's ``[start, end)``."""

    delimiter: str
    start: int
    end: int


@dataclass(frozen=True)
class Instruction:
    """One instruction: upper-cased keyword, 1-based line, and offsets into the text.

    ``args_start``..``end`` are its arguments (continuations included, final newline
    excluded); heredoc bodies that follow it are in ``heredocs``.
    """

    keyword: str
    line: int
    start: int
    args_start: int
    end: int
    heredocs: tuple[Heredoc, ...] = ()


@dataclass
class Dockerfile:
    """A parsed Dockerfile: the text, its masked copy and the instructions."""

    text: str
    masked: str
    escape: str = "\\"
    instructions: list[Instruction] = field(default_factory=list)

    def line_of(self, offset: int) -> int:
        """1-based line of ``offset``."""
        return self.text.count("\n", 0, offset) + 1

    def args(self, instruction: Instruction) -> str:
        """The instruction's arguments as Docker sees them (continuations removed)."""
        return self.masked[instruction.args_start : instruction.end]

    def run_scripts(self, instruction: Instruction) -> list[shell.Script]:
        """The shell scripts a ``RUN`` executes (empty for other instructions).

        Exec form gives one script with one command (or the ``sh -c`` argument parsed),
        heredoc form the body, shell form the arguments after the ``--flag`` options.
        """
        if instruction.keyword != "RUN":
            return []
        start = _skip_flags(self.masked, instruction.args_start, instruction.end)
        if self.masked.startswith("[", start):
            words = _exec_words(self.text, start, instruction.end)
            if words is None:
                return [shell.parse(self.masked, start, instruction.end)]  # not JSON: shell
            if len(words) >= 3 and words[0].value.rsplit("/", 1)[-1] in _SHELLS:
                if words[1].value in ("-c", "-ec", "-ex", "-exc", "-euxc", "-eux"):
                    return [shell.parse_word(words[2])]
            command = shell.Command(tuple(words), (), (), start, instruction.end)
            return [shell.Script(self.text, [command])]
        head = shell.parse(self.masked, start, instruction.end)
        scripts = [head]
        if instruction.heredocs:
            first = next((c for c in head.commands if not c.nested), None)
            program = first.words[0].value.rsplit("/", 1)[-1] if first and first.words else ""
            if not program or program in _SHELLS:
                body = instruction.heredocs[0]
                scripts.append(shell.parse(self.text, body.start, body.end))
        return scripts

    def from_image(self, instruction: Instruction) -> tuple[shell.Word, str | None] | None:
        """``FROM``'s image word and stage name (``AS name``), if well-formed."""
        if instruction.keyword != "FROM":
            return None
        start = _skip_flags(self.masked, instruction.args_start, instruction.end)
        script = shell.parse(self.masked, start, instruction.end)
        words = [w for c in script.commands if not c.nested for w in (*c.assignments, *c.words)]
        if not words:
            return None
        name = None
        if len(words) >= 3 and words[1].value.lower() == "as":
            name = words[2].value
        return words[0], name

    def arg_defaults(self, instruction: Instruction) -> dict[str, str]:
        """``ARG NAME=default`` pairs of an ``ARG`` instruction."""
        return {name: value for name, value in self._assignments(instruction) if value is not None}

    def _assignments(self, instruction: Instruction) -> list[tuple[str, str | None]]:
        """``(name, value)`` pairs of an ``ARG`` (value None when only declared) or
        ``ENV`` (``K=V`` words, or the legacy ``ENV K V``)."""
        script = shell.parse(self.masked, instruction.args_start, instruction.end)
        words = [w for c in script.commands if not c.nested for w in (*c.assignments, *c.words)]
        out: list[tuple[str, str | None]] = []
        if instruction.keyword == "ENV" and words and "=" not in words[0].value:
            rest = self.masked[words[0].end : instruction.end].strip()
            return [(words[0].value, rest)] if len(words) > 1 else []
        for word in words:
            name, eq, value = word.value.partition("=")
            out.append((name, value if eq else None))
        return out

    def scopes(self) -> list[tuple[Instruction, Scope]]:
        """Each instruction with the ``ARG``/``ENV`` values in scope for it (Docker's
        rules: global ARGs reach a stage only when redeclared there).

        The scopes share one history of assignments, so a file of many ``ENV`` lines
        costs linear memory (a copy of the variables per instruction was quadratic).
        """
        global_args: dict[str, str | None] = {}
        history: dict[str, tuple[list[int], list[str]]] = {}
        stage_start = -1  # no FROM yet: nothing is in scope
        out: list[tuple[Instruction, Scope]] = []
        for position, instruction in enumerate(self.instructions):
            keyword = instruction.keyword
            if keyword == "FROM":
                stage_start = position
            elif keyword in ("ARG", "ENV"):
                for name, value in self._assignments(instruction):
                    if stage_start < 0:
                        if keyword == "ARG":
                            global_args[name] = value
                        continue
                    if value is None:
                        value = global_args.get(name)
                    if value is not None:
                        positions, values = history.setdefault(name, ([], []))
                        positions.append(position)
                        values.append(value)
            out.append((instruction, Scope(history, position, stage_start)))
        return out


class Scope(Mapping[str, str]):
    """The ``ARG``/``ENV`` values in scope at one instruction: a view of the shared
    history of assignments (names set since the stage's ``FROM``, up to here)."""

    def __init__(
        self, history: Mapping[str, tuple[list[int], list[str]]], position: int, stage: int
    ) -> None:
        """A view of ``history`` at instruction ``position`` of the stage starting at
        ``stage`` (-1 before the first ``FROM``: empty)."""
        self._history = history
        self._position = position
        self._stage = stage

    def __getitem__(self, name: str) -> str:
        """The last value ``name`` was given in this stage before here."""
        entry = self._history.get(name) if self._stage >= 0 else None
        if entry is not None:
            positions, values = entry
            index = bisect.bisect_right(positions, self._position) - 1
            if index >= 0 and positions[index] >= self._stage:
                return values[index]
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        """The names in scope."""
        return (name for name in self._history if name in self)

    def __len__(self) -> int:
        """How many names are in scope."""
        return sum(1 for _name in self)


def expand_args(value: str, args: Mapping[str, str]) -> str | None:
    """``$NAME`` / ``${NAME}`` replaced from ``args``; None when a name has no value or
    the text holds another expansion (``${A:-x}``, ``$(...)``, backticks)."""
    if "`" in value:
        return None
    out = []
    index = 0
    while index < len(value):
        char = value[index]
        if char != "$":
            out.append(char)
            index += 1
            continue
        if value.startswith("{", index + 1):
            close = value.find("}", index + 2)
            if close < 0:
                return None
            name = value[index + 2 : close]
            if not shell.is_name(name):
                return None  # ``${A:+...}``, ``${A%x}``, nesting: not a plain value
            index = close + 1
        else:
            stop = index + 1
            while stop < len(value) and (value[stop].isalnum() or value[stop] == "_"):
                stop += 1
            name = value[index + 1 : stop]
            index = stop
        if not name or not args.get(name):
            return None
        out.append(args[name])
    return "".join(out)


def _skip_flags(masked: str, start: int, end: int) -> int:
    """Offset after leading blanks and ``--flag[=value]`` options (``RUN --mount=...``)."""
    at = start
    while True:
        while at < end and masked[at] in " \t\r\n":
            at += 1
        if not masked.startswith("--", at):
            return at
        while at < end and masked[at] not in " \t\r\n":
            if masked[at] in "\"'":
                close = masked.find(masked[at], at + 1, end)
                at = end if close < 0 else close
            at += 1


def _exec_words(text: str, start: int, end: int) -> list[shell.Word] | None:
    """The strings of a JSON array at ``text[start:end]`` as words; None if not one."""
    at = start + 1
    words: list[shell.Word] = []
    expect_item = True
    while at < end:
        char = text[at]
        if char in " \t\r\n":
            at += 1
            continue
        if char == "]":
            return words if (words or expect_item) and text[at + 1 : end].strip() == "" else None
        if char == "," and not expect_item:
            expect_item = True
            at += 1
            continue
        if char != '"' or not expect_item:
            return None
        word = _json_string(text, at, end)
        if word is None:
            return None
        words.append(word)
        at = word.end
        expect_item = False
    return None


def _json_string(text: str, start: int, end: int) -> shell.Word | None:
    """The JSON string starting at the quote ``text[start]``, with per-character offsets."""
    value: list[str] = []
    offsets: list[int] = []
    at = start + 1
    while at < end:
        char = text[at]
        if char == '"':
            return shell.Word("".join(value), start, at + 1, tuple(offsets), quoted=True)
        if char == "\\":
            code = text[at + 1 : at + 2]
            if code == "u":
                digits = text[at + 2 : at + 6]
                try:
                    value.append(chr(int(digits, 16)))
                except ValueError:
                    return None
                offsets.append(at)
                at += 6
                continue
            if code not in _JSON_ESCAPES:
                return None
            value.append(_JSON_ESCAPES[code])
            offsets.append(at)
            at += 2
            continue
        if char == "\n":
            return None
        value.append(char)
        offsets.append(at)
        at += 1
    return None


def _escape_directive(lines: list[tuple[int, str]]) -> str:
    """The ``# escape=`` parser directive at the top (``\\`` when absent)."""
    for _start, line in lines:
        stripped = line.strip()
        if not stripped.startswith("#"):
            break
        key, eq, value = stripped[1:].partition("=")
        if not eq or " " in key.strip():
            break
        if key.strip().lower() == "escape" and value.strip() in ("\\", "`"):
            return value.strip()
    return "\\"


def _continued(line: str, escape: str) -> int:
    """Index of the continuation character ending ``line`` (without newline), or -1."""
    stripped = line.rstrip(" \t\r")
    if stripped.endswith(escape):
        return len(stripped) - 1
    return -1


def parse(text: str) -> Dockerfile:
    """Parse a Dockerfile's text (never raises: what does not parse is skipped)."""
    lines: list[tuple[int, str]] = []  # (offset, line without its \n)
    offset = 0
    for raw in text.split("\n"):
        lines.append((offset, raw))
        offset += len(raw) + 1
    escape = _escape_directive(lines)
    masked = list(text)
    result = Dockerfile(text, "", escape)

    def blank(begin: int, stop: int) -> None:
        """Blank out ``[begin, stop)`` of the masked copy."""
        for at in range(begin, min(stop, len(masked))):
            masked[at] = " "

    index = 0
    while index < len(lines):
        start, line = lines[index]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            index += 1
            continue
        lead = len(line) - len(line.lstrip())
        keyword_end = lead
        while keyword_end < len(line) and line[keyword_end] not in " \t\r":
            keyword_end += 1
        keyword = line[lead:keyword_end].upper()
        first_line = index
        end = start + len(line.rstrip("\r"))
        while True:
            cut = _continued(lines[index][1], escape)
            if cut < 0 or index + 1 >= len(lines):
                end = lines[index][0] + len(lines[index][1].rstrip("\r"))
                if cut >= 0:
                    blank(lines[index][0] + cut, lines[index][0] + len(lines[index][1]))
                    end = lines[index][0] + cut
                break
            line_start, current = lines[index]
            blank(line_start + cut, line_start + len(current) + 1)  # the escape and newline
            index += 1
            while index < len(lines) and (
                not lines[index][1].strip() or lines[index][1].lstrip().startswith("#")
            ):
                blank(lines[index][0], lines[index][0] + len(lines[index][1]) + 1)
                index += 1
            if index >= len(lines):
                index -= 1
                end = lines[index][0] + len(lines[index][1].rstrip("\r"))
                break
        args_start = start + keyword_end
        heredocs: list[Heredoc] = []
        if keyword in ("RUN", "COPY", "ADD") and "<<" in text[args_start:end]:
            probe = shell.parse("".join(masked[args_start:end]))  # not the whole text again
            delimiters = [
                (r.target.value, r.op == "<<-")
                for c in probe.commands
                for r in c.redirects
                if r.op in ("<<", "<<-") and r.target is not None and not r.target.dynamic
            ]
            for delimiter, strip_tabs in delimiters:
                body_start = end + 1
                index += 1
                while index < len(lines):
                    body_line = lines[index][1].rstrip("\r")
                    if (body_line.lstrip("\t") if strip_tabs else body_line) == delimiter:
                        break
                    index += 1
                body_end = lines[index][0] if index < len(lines) else len(text)
                heredocs.append(Heredoc(delimiter, min(body_start, len(text)), body_end))
        result.instructions.append(
            Instruction(keyword, first_line + 1, start + lead, args_start, end, tuple(heredocs))
        )
        index += 1
    result.masked = "".join(masked)
    return result
