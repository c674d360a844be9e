# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""POSIX shell (bash) command lines split into words, with the offset of every character.

This is the one shell parser of policytool. It reads the shell *grammar* the way bash
reads it before expansion, and nothing more: quotes (``'...'``, ``"..."``, ``$'...'``),
backslash escapes and ``\\``-newline continuations, the operators ``&&``, ``||``, ``;``,
``;;``, ``&``, ``|``, ``|&``, ``(``, ``)`` and newlines, redirections (``>``, ``>>``,
``2>&1``, ``&>``, ``<``, ``<<<``...), heredocs (their bodies are skipped), comments,
``NAME=value`` prefixes, and expansions kept whole as part of a word: ``$VAR``,
``${VAR:-x}``, ``$(...)``, ``$((...))``, backticks, ``<(...)`` and GitHub's ``${{ ... }}``
expression (one word even with blanks inside).

Unlike :mod:`shlex` (which loses positions, does not know ``$(...)`` or heredocs, and
splits ``pkg>=1`` into one word where bash sees a redirect) every :class:`Word` keeps the
source offset of each of its characters, so a fixer can replace exactly the characters of
a version specifier and leave every other byte as it was. bashlex keeps positions too but
is GPL-licensed and fails on partial scripts; this module never raises on bad input: an
unterminated quote or substitution ends at the end of the text.

Offsets are indexes into the ``str`` given to :func:`parse` (callers that edit files
encode the edited text again, so bytes outside the edit stay identical).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

_BLANKS = " \t"
# Runs of characters with no special meaning, consumed at once.
# ``NAME=`` / ``NAME+=`` right before ``(``: a bash array assignment.
_ARRAY_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_PLAIN_RUN = re.compile(r"[^ \t\r\n'\"\\$`<>;&|()]+")
_DOUBLE_QUOTED_RUN = re.compile(r'[^"\\$`]+')
_OPERATOR_CHARS = ";&|()"
# Characters that end a plain word (``(`` may open an extglob, ``<``/``>`` a redirection).
_WORD_ENDS = frozenset(" \t\r\n;&|)")
# How many ``$(...)``/backtick/``<(...)`` levels are parsed as commands; deeper ones are
# skipped whole (a hostile ``$($($(...)))`` cannot exhaust Python's recursion).
MAX_SUBSTITUTION_DEPTH = 32
# Words that open or continue a compound command; a command after them starts anew.
PREFIX_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{"})
# Words that stand alone and close a compound command.
CLOSING_KEYWORDS = frozenset({"fi", "done", "esac", "}"})

# --- the one table of shells, interpreters, wrappers and launchers ------------------
# Every rule asks these; none keeps a list of its own.

# POSIX shells: they run ``-c TEXT``, a script file, or their stdin.
POSIX_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ash", "ksh"})
# Programs whose first argument is the script they run (``perl tools/x.pl``); Python
# interpreters are :data:`PYTHON_RE`'s.
INTERPRETERS = POSIX_SHELLS | {"perl", "ruby", "node"}
# Python interpreters (``python``, ``python3.11``, ``pypy3``, the Windows launcher ``py``).
PYTHON_RE = re.compile(r"(?:python|pypy)(?:\d+(?:\.\d+)*)?|py")
# Programs that run the rest of their arguments as a command.
WRAPPERS = frozenset({"sudo", "env", "exec", "command", "nohup", "time", "nice", "timeout"})
# Options of the wrappers that take a value (sudo -u USER, nice -n 5, timeout -s SIG).
_WRAPPER_VALUE_OPTIONS = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
}
# Python tool runners: the words after them (and their options) name the program
# (``uv run mypy``, ``uvx --with x tox``, ``pipx run tox``, ``poetry run pytest``).
TOOL_RUNNERS = frozenset({"uv", "uvx", "run", "pipx", "exec", "tool", "poetry", "pdm", "hatch"})
# Tool-runner options whose value is the next word.
TOOL_RUNNER_VALUE_OPTIONS = frozenset(
    {
        "--with",
        "--from",
        "--spec",
        "-p",
        "--python",
        "--with-requirements",
        "--index-url",
        "--extra-index-url",
        "--group",
        "--extra",
        "--package",
        "--env-file",
        "--directory",
        "--project",
        "-C",
    }
)
# Programs that run a command given in their arguments (``docker exec c bash -c ...``).
CONTAINER_LAUNCHERS = frozenset(
    "docker podman nerdctl kubectl chroot nsenter singularity apptainer enroot srun flock".split()
)
# Programs that fetch a URL (``curl ... | sh``).
DOWNLOADERS = frozenset({"curl", "wget"})
# GitHub Actions ``shell:`` programs whose scripts are not POSIX shell
# (docs.github.com: jobs.<job_id>.steps[*].shell); any other value, ``bash -e {0}``
# included, runs a POSIX shell.
NON_POSIX_STEP_SHELLS = frozenset({"pwsh", "powershell", "cmd", "python"})


def step_shell_program(shell: str) -> str:
    """The program of a workflow step's ``shell:`` (``bash --noprofile {0}`` -> ``bash``)."""
    words = shell.split()
    return words[0].rsplit("/", 1)[-1] if words else "bash"


def runs_posix(shell: str) -> bool:
    """Whether a workflow step with this effective ``shell:`` runs its script as POSIX shell."""
    return step_shell_program(shell) not in NON_POSIX_STEP_SHELLS


# Python's short options that take a value (``-W error``, ``-Wd``, ``-X dev``).
_PYTHON_VALUE_LETTERS = frozenset("WXQ")


def python_module(args: Sequence[str], start: int = 0) -> tuple[str, int] | None:
    """The module ``python ARGS`` runs (``ARGS`` being ``args[start:]``) and the index in
    ``args`` of the module's first argument.

    Python reads its options as ``getopt`` does: ``-m pip``, ``-mpip``, ``-Im pip`` and
    ``-I -mpip`` all run ``pip`` (``("pip", 2)`` for ``-m pip install``). None when it runs
    a script, ``-c`` code or stdin.
    """
    index = start
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--check-hash-based-pycs":
            index += 1
            continue
        if arg.startswith("--") and arg != "--":
            continue
        if not arg.startswith("-") or arg in ("-", "--"):
            return None
        for position in range(1, len(arg)):
            letter = arg[position]
            if letter == "c":
                return None
            if letter == "m" or letter in _PYTHON_VALUE_LETTERS:
                value = arg[position + 1 :]
                if not value:
                    value = args[index] if index < len(args) else ""
                    index += 1
                if letter == "m":
                    return (value, index) if value else None
                break
    return None


@dataclass(frozen=True)
class Word:
    """One shell word: its value after quote removal and where each character came from.

    ``value`` keeps expansions as written (``$HOME`` stays ``$HOME``). ``offsets[i]`` is
    the source offset of ``value[i]``; ``start``/``end`` delimit the raw word.
    ``quoted`` says some part was quoted or escaped; ``dynamic`` that the word holds an
    expansion the shell substitutes at run time (parameter, command, arithmetic,
    process substitution or a GitHub ``${{ }}`` expression), outside single quotes.
    """

    value: str
    start: int
    end: int
    offsets: tuple[int, ...]
    quoted: bool = False
    dynamic: bool = False

    def span(self, begin: int, stop: int, source: str | None = None) -> tuple[int, int] | None:
        """Source ``[start, end)`` of ``value[begin:stop]`` when those characters are
        written contiguously (no quote or escape between them); None otherwise.

        With the ``source`` text, unquoted backslash escapes inside the range and right
        before it count as part of it (``black\\>=1``: the range of ``>=1`` starts at the
        backslash), so replacing the span with plain text leaves no stray backslash.
        For an empty range, the position right after ``value[begin - 1]`` (an insertion
        point), or None when that is not well defined.
        """
        if begin == stop:
            if begin == 0 or begin > len(self.value):
                return None
            at = self.offsets[begin - 1] + 1
            return at, at
        if not 0 <= begin < stop <= len(self.value):
            return None
        first = self.offsets[begin]
        for index in range(begin + 1, stop):
            gap = self.offsets[index] - self.offsets[index - 1] - 1
            if gap == 0:
                continue
            if source is None or source[self.offsets[index - 1] + 1 : self.offsets[index]] != (
                "\\" * gap
            ):
                return None
        if source is not None:
            floor = self.offsets[begin - 1] + 1 if begin > 0 else self.start
            while first > floor and source[first - 1] == "\\":
                first -= 1
        return first, self.offsets[stop - 1] + 1


@dataclass(frozen=True)
class Redirect:
    """One redirection: operator, optional fd number, target word (None if missing).

    ``glued_to`` is the word written right before the operator with no blank between
    (``pre-commit>=4.5.1`` is the word ``pre-commit``, then ``>`` to file ``=4.5.1``).
    """

    op: str
    start: int
    end: int
    target: Word | None
    fd: str = ""
    glued_to: Word | None = None


@dataclass(frozen=True)
class Command:
    """One simple command: ``NAME=v`` prefixes, its words, its redirections.

    ``separator`` is the operator that ends it (``&&``, ``|``, ``;``, newline as
    ``"\\n"``, ``""`` at the end of the text); ``nested`` marks commands found inside a
    ``$(...)``, backtick or ``<(...)`` substitution.
    """

    words: tuple[Word, ...]
    assignments: tuple[Word, ...]
    redirects: tuple[Redirect, ...]
    start: int
    end: int
    separator: str = ""
    nested: bool = False

    @property
    def argv(self) -> list[str]:
        """The word values."""
        return [w.value for w in self.words]

    @property
    def pipes_into_next(self) -> bool:
        """Whether the command's output is piped into the next command."""
        return self.separator in ("|", "|&")


@dataclass
class Script:
    """A parsed shell text: its commands in order, and the heredoc bodies skipped."""

    text: str
    commands: list[Command] = field(default_factory=list)
    heredocs: list[tuple[int, int]] = field(default_factory=list)
    # ``<<`` operator offset (a Redirect's ``start``) -> the body's ``[start, end)``,
    # without the delimiter line.
    heredoc_bodies: dict[int, tuple[int, int]] = field(default_factory=dict)
    # Some quote is never closed (it ran to the end of the text).
    unterminated: bool = False

    def line_of(self, offset: int) -> int:
        """1-based line of ``offset`` in :attr:`text`."""
        return self.text.count("\n", 0, offset) + 1

    def pipelines(self) -> list[list[Command]]:
        """Top-level commands grouped into pipelines (``a | b | c`` is one)."""
        out: list[list[Command]] = []
        current: list[Command] = []
        for command in self.commands:
            if command.nested:
                continue
            current.append(command)
            if not command.pipes_into_next:
                out.append(current)
                current = []
        if current:
            out.append(current)
        return out


def is_name(text: str) -> bool:
    """Whether ``text`` is a shell variable name."""
    return bool(text) and (text[0].isalpha() or text[0] == "_") and text.replace("_", "a").isalnum()


class _Parser:
    """A single left-to-right pass over ``text[start:end]``."""

    def __init__(self, text: str, start: int, end: int, script: Script, depth: int = 0) -> None:
        """Scan ``text[start:end]``, recording commands into ``script``; ``depth`` is how
        many substitutions (``$(...)``, backticks) enclose the text."""
        self.text = text
        self.depth = depth
        self.pos = start
        self.end = end
        self.script = script
        # (delimiter, strip tabs, offset of the ``<<`` operator)
        self.pending_heredocs: list[tuple[str, bool, int]] = []

    # --- commands -------------------------------------------------------------------

    def parse_list(self, nested: bool, stop_at_paren: bool) -> None:
        """Parse commands until the end (or, with ``stop_at_paren``, an unmatched ``)``)."""
        text = self.text
        words: list[Word] = []
        redirects: list[Redirect] = []
        start = -1
        depth = 0

        def finish(separator: str, at: int) -> None:
            """Emit the command read so far (if any), ended by ``separator`` at ``at``."""
            nonlocal words, redirects, start
            if words or redirects:
                self._emit(words, redirects, start, at, separator, nested)
            words, redirects, start = [], [], -1

        while self.pos < self.end:
            char = text[self.pos]
            if char in _BLANKS or char == "\r":
                self.pos += 1
                continue
            if char == "\\" and text.startswith("\n", self.pos + 1):
                self.pos += 2
                continue
            if char == "\n":
                finish("\n", self.pos)
                self.pos += 1
                self._skip_heredoc_bodies()
                continue
            if char == "#":
                newline = text.find("\n", self.pos, self.end)
                self.pos = self.end if newline < 0 else newline
                continue
            if char in _OPERATOR_CHARS and not self._starts_redirect():
                if char == ")":
                    if stop_at_paren and depth == 0:
                        finish("", self.pos)
                        return
                    depth = max(0, depth - 1)
                    finish(")", self.pos)
                    self.pos += 1
                    continue
                if char == "(":
                    depth += 1
                    finish("(", self.pos)
                    self.pos += 1
                    continue
                op = self._operator()
                finish(op, self.pos)
                self.pos += len(op)
                continue
            if start < 0:
                start = self.pos
            if self._starts_redirect():
                redirects.append(self._redirect(None))
                continue
            word, redirect = self._word()
            if word is not None:
                if (
                    not words
                    and not redirects
                    and not word.quoted
                    and word.value in PREFIX_KEYWORDS
                ):
                    start = -1  # ``then pip install x``: the command starts after it
                    continue
                words.append(word)
            if redirect is not None:
                redirects.append(redirect)
        finish("", self.end)

    def _emit(
        self,
        words: list[Word],
        redirects: list[Redirect],
        start: int,
        end: int,
        separator: str,
        nested: bool,
    ) -> None:
        """Record a command, splitting off its ``NAME=value`` prefixes."""
        assignments: list[Word] = []
        index = 0
        while index < len(words):
            word = words[index]
            name, eq, _rest = word.value.partition("=")
            raw_name = self.text[word.start : word.start + len(name)]
            if eq and is_name(name) and raw_name == name:
                assignments.append(word)
                index += 1
                continue
            break
        end_at = end
        while end_at > start and self.text[end_at - 1] in " \t\r\n":
            end_at -= 1
        self.script.commands.append(
            Command(
                tuple(words[index:]),
                tuple(assignments),
                tuple(redirects),
                start,
                end_at,
                separator,
                nested,
            )
        )

    def _operator(self) -> str:
        """The control operator at the current position."""
        for op in ("&&", "||", ";;&", ";;", ";&", "|&", "&", "|", ";"):
            if self.text.startswith(op, self.pos):
                return op
        return self.text[self.pos]

    def _skip_heredoc_bodies(self) -> None:
        """After a newline: skip the bodies of the heredocs opened on the line before."""
        text = self.text
        for delimiter, strip_tabs, operator in self.pending_heredocs:
            body_start = self.pos
            body_end = self.end
            while self.pos < self.end:
                newline = text.find("\n", self.pos, self.end)
                line_end = self.end if newline < 0 else newline
                line = text[self.pos : line_end].rstrip("\r")
                if strip_tabs:
                    line = line.lstrip("\t")
                line_start = self.pos
                self.pos = line_end + 1 if newline >= 0 else self.end
                if line == delimiter:
                    body_end = line_start
                    break
            self.script.heredocs.append((body_start, min(self.pos, self.end)))
            self.script.heredoc_bodies[operator] = (body_start, body_end)
        self.pending_heredocs = []

    # --- redirections ---------------------------------------------------------------

    def _starts_redirect(self) -> bool:
        """Whether a redirection operator starts here (``<(`` / ``>(`` do not)."""
        text = self.text
        char = text[self.pos]
        if char in "<>":
            return not text.startswith("(", self.pos + 1)
        return char == "&" and text.startswith(">", self.pos + 1)

    def _redirect(self, glued_to: Word | None, fd: str = "", start: int | None = None) -> Redirect:
        """Read a redirection operator and its target word."""
        text = self.text
        begin = self.pos if start is None else start
        op = ""
        for candidate in ("&>>", "&>", "<<<", "<<-", "<<", "<&", "<>", "<", ">>", ">&", ">|", ">"):
            if text.startswith(candidate, self.pos):
                op = candidate
                break
        self.pos += len(op)
        while self.pos < self.end and text[self.pos] in _BLANKS:
            self.pos += 1
        target: Word | None = None
        if self.pos < self.end and text[self.pos] not in "\n;&|()<>":
            target, _ignored = self._word(allow_redirect=False)
        if op in ("<<", "<<-") and target is not None:
            self.pending_heredocs.append((target.value, op == "<<-", begin))
        return Redirect(op, begin, self.pos, target, fd, glued_to)

    # --- words ----------------------------------------------------------------------

    def _word(self, allow_redirect: bool = True) -> tuple[Word | None, Redirect | None]:
        """Read one word; a ``<``/``>`` right after it starts a redirection.

        Returns the word (None when the characters were an fd number of a redirection)
        and that redirection, if any.
        """
        text = self.text
        start = self.pos
        plain = _PLAIN_RUN.match(text, start, self.end)
        if plain is not None:
            stop = plain.end()
            if stop == self.end or (
                text[stop] in _WORD_ENDS
                and not (text[stop] == "(" and _ARRAY_ASSIGNMENT.fullmatch(text, start, stop))
            ):
                # The common word with nothing to unquote or expand: taken at once.
                self.pos = stop
                return Word(text[start:stop], start, stop, tuple(range(start, stop))), None
        value: list[str] = []
        offsets: list[int] = []
        quoted = False
        dynamic = False

        def keep(index: int, stop: int) -> None:
            """Append source characters ``[index, stop)`` to the word's value."""
            if stop > index:
                value.append(text[index:stop])
                offsets.extend(range(index, stop))

        while self.pos < self.end:
            char = text[self.pos]
            if char in _BLANKS or char in "\n\r" or char in _OPERATOR_CHARS:
                if char == "&" and text.startswith(">", self.pos + 1) and allow_redirect:
                    break
                if char == "(" and value and value[-1][-1] in "@?*+!":
                    # extglob ``@(a|b)``: keep to the matching paren
                    stop = self._matching_paren(self.pos + 1)
                    keep(self.pos, stop)
                    self.pos = stop
                    continue
                if char == "(" and _ARRAY_ASSIGNMENT.fullmatch(text, start, self.pos):
                    # a bash array ``CMD=(uv run)``: one assignment, not a subshell
                    stop = self._matching_paren(self.pos + 1)
                    keep(self.pos, stop)
                    self.pos = stop
                    dynamic = True
                    continue
                break
            if char in "<>":
                if text.startswith("(", self.pos + 1):
                    stop = self._substitution_end(self.pos + 2)
                    keep(self.pos, stop)
                    self.pos = stop
                    dynamic = True
                    continue
                if not allow_redirect:
                    break
                raw = text[start : self.pos]
                if value and raw.isdigit() and not quoted:
                    return None, self._redirect(None, raw, start)
                word = Word("".join(value), start, self.pos, tuple(offsets), quoted, dynamic)
                return word, self._redirect(word)
            if char == "\\":
                if text.startswith("\n", self.pos + 1):
                    self.pos += 2
                    continue
                quoted = True
                if self.pos + 1 < self.end:
                    keep(self.pos + 1, self.pos + 2)
                self.pos = min(self.pos + 2, self.end)
                continue
            if char == "'":
                quoted = True
                close = text.find("'", self.pos + 1, self.end)
                if close < 0:
                    self.script.unterminated = True
                stop = self.end if close < 0 else close
                keep(self.pos + 1, stop)
                self.pos = min(stop + 1, self.end)
                continue
            if char == '"':
                quoted = True
                dynamic = self._double_quoted(keep) or dynamic
                continue
            if char == "$":
                if text.startswith("'", self.pos + 1):
                    quoted = True
                    self.pos += 1
                    stop = self._ansi_c_end(self.pos + 1)
                    keep(self.pos + 1, stop)
                    self.pos = min(stop + 1, self.end)
                    continue
                dynamic = self._expansion(keep) or dynamic
                continue
            if char == "`":
                dynamic = self._expansion(keep) or dynamic
                continue
            match = _PLAIN_RUN.match(text, self.pos, self.end)
            stop = match.end() if match else self.pos + 1
            keep(self.pos, stop)
            self.pos = stop
        if self.pos == start:
            return None, None
        return Word("".join(value), start, self.pos, tuple(offsets), quoted, dynamic), None

    def _expansion(self, keep: Callable[[int, int], None]) -> bool:
        """Consume a ``$...`` or backquoted expansion at ``pos``; True when it is dynamic.

        A lone ``$`` is literal text; ``$NAME``, ``${...}``, ``$(...)`` and backquotes
        expand at run time. The same in a bare word and inside double quotes.
        """
        if self.text[self.pos] == "`":
            stop = self._backtick_end(self.pos + 1)
            keep(self.pos, stop)
            self.pos = stop
            return True
        stop = self._dollar_end(self.pos)
        keep(self.pos, stop)
        dynamic = stop > self.pos + 1
        self.pos = stop
        return dynamic

    def _double_quoted(self, keep: Callable[[int, int], None]) -> bool:
        """Consume ``"..."`` (at the opening quote); True when it holds an expansion."""
        text = self.text
        self.pos += 1
        dynamic = False
        while self.pos < self.end:
            char = text[self.pos]
            if char == '"':
                self.pos += 1
                return dynamic
            if char == "\\" and self.pos + 1 < self.end:
                following = text[self.pos + 1]
                if following == "\n":
                    self.pos += 2
                    continue
                if following in '$`"\\':
                    keep(self.pos + 1, self.pos + 2)
                    self.pos += 2
                    continue
                keep(self.pos, self.pos + 1)
                self.pos += 1
                continue
            if char in "$`":
                dynamic = self._expansion(keep) or dynamic
                continue
            match = _DOUBLE_QUOTED_RUN.match(text, self.pos, self.end)
            stop = match.end() if match else self.pos + 1
            keep(self.pos, stop)
            self.pos = stop
        self.script.unterminated = True
        return dynamic

    def _ansi_c_end(self, at: int) -> int:
        """Index of the closing quote of ``$'...'`` whose body starts at ``at``."""
        text = self.text
        while at < self.end:
            if text[at] == "\\":
                at += 2
                continue
            if text[at] == "'":
                return at
            at += 1
        return self.end

    def _dollar_end(self, at: int) -> int:
        """End of the expansion starting with ``$`` at ``at`` (``at + 1`` for a lone $)."""
        text = self.text
        following = text[at + 1] if at + 1 < self.end else ""
        if following == "(":
            if text.startswith("((", at + 1):
                return self._matching_paren(at + 3, depth=2)
            return self._substitution_end(at + 2)
        if following == "{":
            return self._matching_brace(at + 2)
        if following.isalpha() or following == "_":
            stop = at + 1
            while stop < self.end and (text[stop].isalnum() or text[stop] == "_"):
                stop += 1
            return stop
        if following and (following.isdigit() or following in "@*#?$!-"):
            return at + 2
        return at + 1

    def _substitution_end(self, at: int) -> int:
        """End (after the ``)``) of ``$(`` / ``<(`` whose body starts at ``at``.

        The body is parsed as commands (marked nested), so quotes, heredocs and
        parentheses inside it are read as the shell reads them; past
        :data:`MAX_SUBSTITUTION_DEPTH` levels the body is only skipped to its ``)``
        (no recursion a hostile script could exhaust).
        """
        if self.depth >= MAX_SUBSTITUTION_DEPTH:
            return self._matching_paren(at)
        inner = _Parser(self.text, at, self.end, self.script, self.depth + 1)
        inner.parse_list(nested=True, stop_at_paren=True)
        return min(inner.pos + 1, self.end)

    def _matching_paren(self, at: int, depth: int = 1) -> int:
        """End after the ``)`` closing ``depth`` open parentheses (arithmetic, extglob)."""
        return self._matching(at, "(", ")", depth)

    def _matching_brace(self, at: int) -> int:
        """End after the ``}`` closing ``${`` (``${{ expr }}`` included) at ``at``."""
        return self._matching(at, "{", "}", 1)

    def _matching(self, at: int, opener: str, closer: str, depth: int) -> int:
        """End after the ``closer`` that closes ``depth`` open ``opener``s; quoted text is
        skipped. In braces, quotes count only at the first level, and a line end inside
        ``${{`` ends the scan there (an unclosed ``${{`` does not swallow the script)."""
        text = self.text
        brace = opener == "{"
        while at < self.end:
            char = text[at]
            if char == opener:
                depth += 1
            elif char == closer:
                depth -= 1
                if depth == 0:
                    return at + 1
            elif char in "'\"" and (depth == 1 or not brace):
                close = text.find(char, at + 1, self.end)
                at = self.end if close < 0 else close
            elif brace and char == "\n" and depth > 1:
                return at
            at += 1
        return self.end

    def _backtick_end(self, at: int) -> int:
        """End after the closing backtick of a command substitution whose body starts at
        ``at``; the body is parsed as nested commands."""
        text = self.text
        start = at
        while at < self.end:
            if text[at] == "\\":
                at += 2
                continue
            if text[at] == "`":
                if self.depth < MAX_SUBSTITUTION_DEPTH:
                    inner = _Parser(text, start, at, self.script, self.depth + 1)
                    inner.parse_list(nested=True, stop_at_paren=False)
                return at + 1
            at += 1
        return self.end


def parse(text: str, start: int = 0, end: int | None = None) -> Script:
    """Parse ``text[start:end]`` as shell commands; offsets stay relative to ``text``."""
    script = Script(text)
    stop = len(text) if end is None else min(end, len(text))
    parser = _Parser(text, start, stop, script)
    parser.parse_list(nested=False, stop_at_paren=False)
    script.commands.sort(key=lambda c: (c.start, c.nested))
    return script


def parse_word(word: Word) -> Script:
    """Parse a word's value as a script (``bash -c '...'``), offsets mapped to the source.

    The returned script's ``text`` is the word's value; every offset in it (words,
    redirections, command spans) points into the text the word came from.
    """
    inner = parse(word.value)
    offsets = word.offsets

    def pos(at: int) -> int:
        """The source offset of value index ``at`` (just past the end for the end)."""
        if at < len(offsets):
            return offsets[at]
        return offsets[-1] + 1 if offsets else word.end

    def remap(item: Word) -> Word:
        """``item`` with its offsets moved into the source."""
        mapped = tuple(offsets[o] for o in item.offsets)
        end = offsets[item.end - 1] + 1 if 0 < item.end <= len(offsets) else word.end
        return Word(item.value, pos(item.start), end, mapped, item.quoted, item.dynamic)

    def remap_redirect(r: Redirect) -> Redirect:
        """``r`` with its offsets moved into the source."""
        target = remap(r.target) if r.target is not None else None
        glued = remap(r.glued_to) if r.glued_to is not None else None
        end = offsets[r.end - 1] + 1 if 0 < r.end <= len(offsets) else word.end
        return Redirect(r.op, pos(r.start), end, target, r.fd, glued)

    out = Script(word.value, heredocs=[(pos(a), pos(b)) for a, b in inner.heredocs])
    for command in inner.commands:
        end = offsets[command.end - 1] + 1 if 0 < command.end <= len(offsets) else word.end
        out.commands.append(
            Command(
                tuple(remap(w) for w in command.words),
                tuple(remap(w) for w in command.assignments),
                tuple(remap_redirect(r) for r in command.redirects),
                pos(command.start),
                end,
                command.separator,
                command.nested,
            )
        )
    return out


def unwrap(command: Command) -> tuple[Word, ...]:
    """The words of the command that really runs: ``sudo -E pip ...`` -> ``pip ...``.

    Strips ``sudo``/``env``/``exec``/``command``/``nohup``/``time``/``nice``/``timeout``
    with their options (and ``env``'s ``NAME=value`` words, ``timeout``'s duration).
    """
    words = command.words
    while words:
        program = words[0].value.rsplit("/", 1)[-1]
        if program not in WRAPPERS or words[0].dynamic:
            break
        takes_value = _WRAPPER_VALUE_OPTIONS.get(program, frozenset())
        index = 1
        while index < len(words):
            value = words[index].value
            if value == "--":
                index += 1
                break
            if value.startswith("-") and len(value) > 1:
                index += 2 if value in takes_value else 1
                continue
            if program == "env" and "=" in value and is_name(value.split("=", 1)[0]):
                index += 1
                continue
            break
        if program == "timeout" and index < len(words):
            index += 1  # the duration
        words = words[index:]
    return words


# --- words of commands ----------------------------------------------------------------


def split(text: str, literal_redirects: bool = False) -> list[str]:
    """The words of a command line as the shell splits them: quotes removed, comments,
    control operators and redirections dropped, ``NAME=value`` prefixes kept in place;
    the words of every top-level command in order (substitutions stay inside words).

    ``literal_redirects`` reads text a person wrote as a command in prose (a Mergify
    comment): a ``<``/``>`` is part of the word it is written in
    (``pre-commit>=4.5.1`` is one word, as its author meant), not a redirection.
    """
    out: list[str] = []
    for command in parse(text).commands:
        if command.nested:
            continue
        words = [(w.start, w.value) for w in (*command.assignments, *command.words)]
        if literal_redirects and command.redirects:
            at = {start: index for index, (start, _value) in enumerate(words)}
            for redirect in command.redirects:
                raw = text[redirect.start : redirect.end].rstrip(" \t")
                glued = redirect.glued_to
                if glued is not None and glued.start in at:
                    index = at[glued.start]
                    words[index] = (glued.start, words[index][1] + raw)
                else:
                    words.append((redirect.start, raw))
            words.sort()
        out += [value for _start, value in words]
    return out


def logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(0-based first line, text) of every logical line: a line ending in a backslash is
    joined, without it, to the next one by a blank."""
    raw_lines = text.split("\n")
    row = 0
    while row < len(raw_lines):
        start = row
        logical = raw_lines[row]
        while logical.rstrip().endswith("\\") and row + 1 < len(raw_lines):
            row += 1
            logical = logical.rstrip()[:-1] + " " + raw_lines[row]
        row += 1
        yield start, logical


def line_commands(text: str) -> Iterator[tuple[int, Script]]:
    """(0-based first line, parsed script) of every logical line of ``text``: a command
    is reported at the line its logical line starts on."""
    for start, logical in logical_lines(text):
        yield start, parse(logical)


def simple_commands(text: str) -> Iterator[tuple[int, list[str]]]:
    """(0-based line, words) of every simple command of a shell script: ``NAME=value``
    prefixes first, then the words (commands inside substitutions included)."""
    for start, script in line_commands(text):
        for command in script.commands:
            words = [w.value for w in (*command.assignments, *command.words)]
            if words:
                yield start, words


def program_of(words: Sequence[str]) -> list[str]:
    """The words of a simple command from the program it really runs.

    ``FOO=1 uv run python -m mypy src`` -> ``["mypy", "src"]``: variable assignments,
    :data:`WRAPPERS`, :data:`TOOL_RUNNERS` and their options are dropped. A script run
    by an interpreter keeps the interpreter (``["python", "tools/mypy.py"]``).
    """
    index = glued = 0
    while index < len(words):
        word = words[index]
        name = word.rsplit("/", 1)[-1]
        python = PYTHON_RE.fullmatch(name) is not None
        module = python_module(words, index + 1) if python else None
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word):
            index += 1
        elif module is not None:
            # ``python3.11 -m mypy src``: the module is the program
            index = module[1]  # the module's first argument
            if words[index - 1] == module[0]:
                index -= 1  # ``-m mypy``: the module's own word
            elif glued < 8:  # ``-mmypy``; a bound, so a hostile line costs linear time
                words, index, glued = [module[0], *words[index:]], 0, glued + 1
            else:
                break
        elif word in TOOL_RUNNER_VALUE_OPTIONS and index > 0:
            index += 2  # ``uvx --with tox-uv tox``: the option's value is not the program
        elif name in _PROGRAM_PREFIXES or (word.startswith("-") and index > 0):
            index += 1
        else:
            break
    return list(words[index:])


# Words :func:`program_of` drops before the program: runners and the wrappers it has
# always dropped (``sudo``, ``env``, ``exec``, ``time``).
_PROGRAM_PREFIXES = TOOL_RUNNERS | {"sudo", "env", "exec", "time"}
