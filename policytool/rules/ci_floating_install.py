# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""``ci-floating-install``: every package CI installs is pinned, and fix pins it from the locks.

Where CI runs shell, every command is read with :mod:`policytool.formats.shell` (never a
regex over the line): GitHub workflow ``run:`` steps and composite actions (always), the
pipeline YAML, shell scripts and Dockerfiles under the configured globs, and the shell
code blocks of the Mergify comments. A finding is

- ``pip``/``pip3``/``python -m pip``/``uv pip``/``pipx``/``uv tool`` ``install`` of a
  named package without an exact ``==`` pin (unless a ``-c`` constraints file or a ``-r``
  of a configured lock constrains the install), ``--upgrade`` of one, a VCS requirement
  on a movable ref or a URL without a hash (the verdicts of ``floating-pin``);
- a requirement with an unquoted ``<``/``>`` (``pre-commit>=4.5.1``): the shell reads a
  redirect, installs the package unpinned and writes a file named ``=4.5.1``;
- ``curl ... | sh`` (or ``wget``, ``| bash``, ``| python``, ``bash <(curl ...)``,
  ``sh -c "$(curl ...)"``) from an unversioned URL;
- ``uv sync`` / ``uv run`` of a project that commits ``uv.lock`` without ``--locked`` or
  ``--frozen`` (nor ``UV_LOCKED``/``UV_FROZEN``), when no CI step checks the lock: a
  stale lock is re-resolved (:mod:`policytool.rules._uv_locked`).

The fix writes ``==VERSION`` from the one version the repo's locks hold (the lookup
``floating-pin`` uses), replacing only the specifier characters; everything else stays
byte-identical, and a YAML file is re-parsed to prove every other script in it is
unchanged. Words that hold expansions (``$VAR``, ``$(...)``, ``${{ }}``) are not judged.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from policytool.config import Config
from policytool.core.globs import match_any
from policytool.engine.findings import Finding
from policytool.engine.fixes import Edit, Fix, select, splice
from policytool.engine.lock_config import LockConfig
from policytool.engine.registry import RepoContext, RepoRule, register
from policytool.formats import shell
from policytool.formats.gha import ACTION_GLOBS, WORKFLOW_GLOBS, Step, action_of, workflow_of
from policytool.formats.yamldoc import item_pos, scalar_start, value_pos
from policytool.rules import _uv_locked
from policytool.rules._ci_config import CiFloatingInstallConfig
from policytool.rules._ci_scan import (
    FileLines,
    OffsetMap,
    Selection,
    SourceFile,
    load_sources,
    read_source,
    split_analysis,
    widening,
    yaml_data,
)
from policytool.rules._repo_config import mergify_file
from policytool.rules._yaml_fix import YamlFixCheck

if TYPE_CHECKING:
    from policytool.formats.yamldoc import YamlNode
    from policytool.rules.floating_pin import LockIndex, Verdict

RULE_ID = "ci-floating-install"
_PIPELINE_KEYS = frozenset({"command", "commands", "script", "before_script", "after_script"})
_SHELLS = shell.POSIX_SHELLS
_INTERPRETERS = shell.INTERPRETERS
_DOWNLOADERS = shell.DOWNLOADERS
# Text a snippet must contain to hold a finding (the rest is never parsed).
_NEEDLES = ("install", "curl", "wget", "uvx", "tool run", "pipx run", "sync", "uv run")
_LAUNCHERS = shell.CONTAINER_LAUNCHERS
_MAX_DEPTH = 64
# How deep ``bash -c`` inside a heredoc inside ``bash -c`` ... is followed.
_MAX_NESTING = 3
# What one file's shell may cost (docs/security.md): characters parsed (the file, or a
# YAML file's scripts, and every ``bash -c`` or heredoc script read again) and words
# judged. Past either, one finding says the rest of the file is not checked.
MAX_SHELL_CHARS = 256 * 1024
MAX_SHELL_WORDS = 10_000
_PIP_RE = re.compile(r"pip(?:\d+(?:\.\d+)?)?")
_VERSION_SEGMENT_RE = re.compile(r"/v?\d+(?:\.\d+)+/")
# A plain exact pin (``name==1.2.3``): the verdict is known without parsing it.
_EXACT_PIN_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?==\d+(?:\.\d+)*")
# Options of pip / uv pip / pipx / uv tool install that take a value.
_VALUE_OPTIONS = frozenset(
    """
    -r --requirement -c --constraint --constraints --override --overrides -e --editable -i
    --index-url --extra-index-url --index --default-index -f --find-links -t --target
    --prefix --root --python -p --platform --python-platform --python-version
    --implementation --abi --src --upgrade-strategy --progress-bar --log --log-file
    --cache-dir --trusted-host --proxy --retries --timeout --exists-action --cert
    --client-cert --global-option --config-settings -C --config-setting --no-binary
    --only-binary --report --root-user-action --index-strategy --keyring-provider
    --resolution --prerelease --exclude-newer --extra --group --torch-backend -P
    --upgrade-package --reinstall-package --no-build-isolation-package --link-mode
    --build-constraints --build-constraint -b --with --with-requirements --with-editable
    --from --spec --pip-args --suffix --python-preference --config-file --directory
    --project --no-binary-package --only-binary-package --refresh-package --color
    --allow-insecure-host --target-platform --dist-dir
    """.split()
)
# Long flags (no value) that share a prefix with value options.
_FLAG_OPTIONS = frozenset(
    """
    --no-deps --no-build-isolation --pre --user --quiet --verbose --system
    --force-reinstall --no-cache-dir --no-cache --upgrade --ignore-installed --no-index
    --require-hashes --break-system-packages --no-build --no-clean --no-compile
    --no-warn-script-location --no-color --no-input --no-python-version-warning --isolated
    --disable-pip-version-check --prefer-binary --compile --dry-run --reinstall --refresh
    """.split()
)
# Short options that take a value and may be glued to it (``-rreqs.txt``).
_SHORT_VALUE = frozenset("rceiftpCPb")
_REQUIREMENT_OPTIONS = frozenset({"-r", "--requirement", "--with-requirements"})
_CONSTRAINT_OPTIONS = frozenset(
    {"-c", "--constraint", "--constraints", "--override", "--overrides"}
)
_EDITABLE_OPTIONS = frozenset({"-e", "--editable", "--with-editable"})
_EXTRA_PACKAGE_OPTIONS = frozenset({"--with"})


def _floating_pin() -> tuple[
    type[LockIndex], Callable[..., Verdict | None], Callable[..., str | None]
]:
    """The lock lookup and requirement verdicts ``floating-pin`` uses (the one import)."""
    from policytool.formats.requirement import repin
    from policytool.rules.floating_pin import LockIndex, judge

    return LockIndex, judge, repin


# --------------------------------------------------------------------------------------
# Where shell text sits in a file
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snippet:
    """Shell text found in a file: where it is, how it maps, and the job it runs in."""

    relpath: str
    text: str
    omap: OffsetMap
    start: int = 0  # the part of ``text`` that is shell
    end: int | None = None
    job: str | None = None
    key: tuple[object, ...] = ()  # identifies the snippet among a YAML file's snippets
    # Variables the snippet runs with (workflow, job and step ``env:``, a job's earlier
    # ``$GITHUB_ENV`` writes): only whether they are set is used.
    env_names: frozenset[str] = frozenset()
    cwd: str | None = ""  # the step's ``working-directory`` ("": the root; None: unknown)


def scalar_map(value: str, pos: tuple[int, int] | None, lines: FileLines) -> OffsetMap:
    """How a YAML string scalar whose value starts at ``pos`` (0-based) maps to the file.

    A literal block (``|``) maps line by line when every content line is the file line
    minus one common indentation; a one-line plain or quoted scalar maps when its text
    stands verbatim in the file. Anything else (folded, escaped) maps lines only.
    """
    snippet_starts = [0]
    for index, char in enumerate(value):
        if char == "\n":
            snippet_starts.append(index + 1)
    if pos is None:
        return OffsetMap(tuple(snippet_starts), (), 1, False)
    line0, col = pos
    head = lines.line_text(line0 + 1)
    start = scalar_start(head, col)  # past an ``&anchor`` or ``!!str`` tag
    if start is None:
        return OffsetMap(tuple(snippet_starts), (), line0 + 1, False)
    col = start
    block = type(value).__name__ == "LiteralScalarString" or head[col : col + 1] in ("|",)
    if block:
        first = line0 + 2  # content starts on the line after the indicator
        content = value.split("\n")
        indent = None
        for offset, text in enumerate(content):
            if text.strip() and first + offset <= len(lines.starts):
                file_text = lines.line_text(first + offset)
                indent = len(file_text) - len(file_text.lstrip(" "))
                break
        exact = indent is not None
        file_starts: list[int] = []
        for offset, text in enumerate(content):
            number = first + offset
            if number > len(lines.starts):
                exact = exact and not text
                file_starts.append(len(lines.text))
                continue
            file_text = lines.line_text(number)
            if text and file_text != " " * (indent or 0) + text:
                exact = False
            file_starts.append(lines.starts[number - 1] + (indent or 0))
        return OffsetMap(tuple(snippet_starts), tuple(file_starts), first, exact)
    if type(value).__name__ == "FoldedScalarString" or head[col : col + 1] == ">":
        return OffsetMap(tuple(snippet_starts), (), line0 + 2, False)
    quote = head[col : col + 1]
    begin = col + 1 if quote in ("'", '"') else col
    exact = "\n" not in value and head[begin : begin + len(value)] == value
    if quote == "'" and "'" in value:
        exact = False
    return OffsetMap(tuple(snippet_starts), (lines.starts[line0] + begin,), line0 + 1, exact)


# --------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------


def _run_snippets(
    relpath: str,
    steps: Sequence[Step],
    lines: FileLines,
    env: Mapping[str, object] | None = None,
    cwd: object = None,
) -> Iterator[Snippet]:
    """The POSIX ``run:`` scripts of a list of steps (pwsh, cmd, python ones are not
    shell); ``env`` and ``cwd`` are what the steps inherit (workflow and job ``env:``,
    ``defaults.run.working-directory``)."""
    inherited = _uv_locked.set_names(env)
    earlier: list[str] = []
    for step in steps:
        if step.run is not None and step.posix:
            omap = scalar_map(step.run, value_pos(step.node, "run"), lines)
            names = inherited | _uv_locked.set_names(step.env)
            names |= _uv_locked.exported_names(earlier)
            where = _directory(step.node.get("working-directory", cwd))
            yield Snippet(
                relpath, step.run, omap, job=step.job, key=step.path, env_names=names, cwd=where
            )
        if step.run is not None:
            earlier.append(step.run)


def _directory(value: object) -> str | None:
    """A ``working-directory`` as a repo-relative directory ("" for none, None when it
    is an expression)."""
    if value is None:
        return ""
    if not isinstance(value, str) or "${{" in value or "$" in value:
        return None
    return value.strip().removeprefix("./").rstrip("/")


def _run_defaults(holder: Mapping[str, object]) -> object:
    """``defaults.run.working-directory`` of a workflow or job mapping (None without)."""
    defaults = holder.get("defaults")
    run = defaults.get("run") if isinstance(defaults, dict) else None
    return run.get("working-directory") if isinstance(run, dict) else None


def workflow_snippets(relpath: str, data: YamlNode, lines: FileLines) -> Iterator[Snippet]:
    """The ``run:`` scripts of a GitHub workflow."""
    workflow = workflow_of(relpath, data)
    workflow_cwd = _run_defaults(workflow.data)
    for job in workflow.jobs:
        env = {**(workflow.env or {}), **(job.env or {})}
        cwd = _run_defaults(job.node)
        yield from _run_snippets(
            relpath, job.steps, lines, env, workflow_cwd if cwd is None else cwd
        )


def action_snippets(relpath: str, data: YamlNode, lines: FileLines) -> Iterator[Snippet]:
    """The ``run:`` scripts of a composite action (``runs.using: composite``)."""
    yield from _run_snippets(relpath, action_of(relpath, data).steps, lines)


def pipeline_snippets(relpath: str, data: YamlNode, lines: FileLines) -> Iterator[Snippet]:
    """Shell strings under ``command``/``commands``/``script`` keys (Buildkite, GitLab,
    CircleCI) and CircleCI's ``run:``, anywhere in the document."""
    stack: list[tuple[object, tuple[object, ...], int]] = [(data, (), 0)]
    while stack:
        node, key, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        if isinstance(node, dict):
            for name, value in node.items():
                if not isinstance(name, str):
                    continue
                here = (*key, name)
                shellish = name in _PIPELINE_KEYS or (name == "run" and isinstance(value, str))
                if shellish and isinstance(value, str):
                    omap = scalar_map(value, value_pos(node, name), lines)
                    yield Snippet(relpath, str(value), omap, key=here)
                elif name in _PIPELINE_KEYS and isinstance(value, list):
                    for index, item in enumerate(value):
                        if isinstance(item, str):
                            omap = scalar_map(item, item_pos(value, index), lines)
                            yield Snippet(relpath, str(item), omap, key=(*here, index))
                elif isinstance(value, (dict, list)):
                    stack.append((value, here, depth + 1))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                if isinstance(item, (dict, list)):
                    stack.append((item, (*key, index), depth + 1))


_FENCE_LANGUAGES = frozenset({"bash", "sh", "shell", "zsh", "console", "shell-session"})


def mergify_snippets(relpath: str, data: YamlNode, lines: FileLines) -> Iterator[Snippet]:
    """The shell code blocks (```` ```bash ````, ``sh``, ``shell``, ``console``) of every
    comment message of the Mergify rules."""
    rules = data.get("pull_request_rules") if isinstance(data, dict) else None
    if not isinstance(rules, list):
        return
    for index, rule in enumerate(rules):
        actions = rule.get("actions") if isinstance(rule, dict) else None
        comment = actions.get("comment") if isinstance(actions, dict) else None
        message = comment.get("message") if isinstance(comment, dict) else None
        if not isinstance(comment, dict) or not isinstance(message, str):
            continue
        omap = scalar_map(message, value_pos(comment, "message"), lines)
        text = str(message)
        offset = 0
        block_start: int | None = None
        for line in text.split("\n"):
            stripped = line.strip()
            if stripped.startswith("```"):
                if block_start is None:
                    language = stripped[3:].strip().lower()
                    if language in _FENCE_LANGUAGES:
                        block_start = offset + len(line) + 1
                    else:
                        block_start = -1
                else:
                    if block_start >= 0:
                        yield Snippet(relpath, text, omap, block_start, offset, key=(index,))
                    block_start = None
            offset += len(line) + 1


# --------------------------------------------------------------------------------------
# Judging commands
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Install:
    """One install command, its tool and what it installs."""

    tool: str  # "pip", "uv pip", "uv tool", "pipx", "run" (uvx, uv tool run, pipx run), "uv run"
    command: shell.Command
    requirements: tuple[shell.Word, ...]
    editables: tuple[shell.Word, ...]
    files: tuple[str, ...]  # -r values
    constrained: bool  # a -c / --constraint / --override
    upgrade: bool
    # ``uvx TOOL ...``: the word naming the tool to run (``ruff``, ``ruff@0.6.0``).
    tool_spec: shell.Word | None = None


def _program(word: shell.Word) -> str:
    """The basename of a command word (``python${PY}`` counts as ``python``)."""
    name = word.value.rsplit("/", 1)[-1]
    if word.dynamic and "$" in name:
        literal = name.split("$", 1)[0]
        if literal.startswith(("python", "pip")):
            return literal.rstrip("0123456789.") or literal
    return name


def install_of(command: shell.Command) -> Install | None:
    """The install ``command`` runs, if it is one of pip / uv / pipx installs."""
    words = shell.unwrap(command)
    if not words:
        return None
    values = [w.value for w in words]
    program = _program(words[0])
    rest: tuple[shell.Word, ...] = ()
    tool = ""
    module = ""
    index = 1
    if _PIP_RE.fullmatch(program):
        module = program
    elif shell.PYTHON_RE.fullmatch(program) or words[0].dynamic:
        found = shell.python_module(values, 1)
        if found is not None:
            module, index = found
    if _PIP_RE.fullmatch(module):
        index = _skip_options(values, index)
        if values[index : index + 1] == ["install"]:
            tool, rest = "pip", words[index + 1 :]
    elif module == "uv" or program == "uv":
        index = _skip_options(values, index)
        sub = values[index : index + 2]
        if sub == ["pip", "install"]:
            tool, rest = "uv pip", words[index + 2 :]
        elif sub == ["tool", "install"]:
            tool, rest = "uv tool", words[index + 2 :]
        elif sub == ["tool", "run"]:
            tool, rest = "run", words[index + 2 :]
        elif sub[:1] == ["run"]:
            # ``uv run --with slack-sdk python x.py``: the ``--with`` packages install
            # for the run, outside any lock; the command after them is no requirement
            tool, rest = "uv run", words[index + 1 :]
    elif program == "uvx" or (program == "pipx" and values[1:2] == ["run"]):
        tool, rest = "run", words[1:] if program == "uvx" else words[2:]
    elif program == "pipx" and values[1:2] in (["install"], ["inject"]):
        tool = "pipx"
        rest = words[2:] if values[1] == "install" else words[3:]
    if not tool:
        return None
    return _install_args(tool, command, rest)


def _skip_options(values: Sequence[str], index: int) -> int:
    """The index of the first word from ``index`` on that is not an option (or an
    option's value): ``pip -q install``, ``uv --directory sub pip install``."""
    while index < len(values) and values[index].startswith("-") and values[index] != "-":
        option = values[index]
        index += 1
        if "=" not in option and _long_option(option) in _VALUE_OPTIONS:
            index += 1
    return index


def _long_option(option: str) -> str:
    """The value option ``option`` abbreviates, as pip (optparse) accepts
    (``--extra-index`` is ``--extra-index-url``); ``option`` itself otherwise."""
    if option in _VALUE_OPTIONS or option in _FLAG_OPTIONS:
        return option
    matches = [o for o in _VALUE_OPTIONS if o.startswith(option)]
    if len(matches) == 1 and not any(f.startswith(option) for f in _FLAG_OPTIONS):
        return matches[0]
    return option


def _tail(word: shell.Word, skip: int) -> shell.Word:
    """The part of ``word`` after its first ``skip`` characters (``--with=black``)."""
    offsets = word.offsets[skip:]
    start = offsets[0] if offsets else word.end
    return shell.Word(word.value[skip:], start, word.end, offsets, word.quoted, word.dynamic)


def _install_args(tool: str, command: shell.Command, args: Sequence[shell.Word]) -> Install:
    """Sort an install's arguments into requirements, editables, files and flags.

    With ``--from``/``--spec`` (uv tool, pipx) the positional words name the tool to
    run, and the option's value is the requirement judged.
    """
    positional: list[shell.Word] = []
    extra: list[shell.Word] = []
    specs: list[shell.Word] = []
    editables: list[shell.Word] = []
    files: list[str] = []
    constrained = upgrade = False
    index = 0

    def take(option: str, value: shell.Word | None) -> None:
        """Record the value of an option that names files or packages."""
        nonlocal constrained
        constrained = constrained or option in _CONSTRAINT_OPTIONS
        if value is None:
            return
        if option in _REQUIREMENT_OPTIONS:
            files.append(value.value)
        elif option in _EDITABLE_OPTIONS:
            editables.append(value)
        elif option in ("--from", "--spec"):
            specs.append(value)
        elif option in _EXTRA_PACKAGE_OPTIONS:
            extra.append(value)

    while index < len(args):
        word = args[index]
        value = word.value
        index += 1
        if value in ("-U", "--upgrade"):
            upgrade = True
            continue
        if value.startswith("--"):
            option, eq, _inline = value.partition("=")
            option = _long_option(option)
            if option in _VALUE_OPTIONS:
                if eq:
                    take(option, _tail(word, len(option) + 1))
                else:
                    take(option, args[index] if index < len(args) else None)
                    index += 1
            continue
        if value.startswith("-") and len(value) > 1:
            for position, letter in enumerate(value[1:], start=1):
                if letter == "U":
                    upgrade = True
                if letter in _SHORT_VALUE:
                    if position + 1 < len(value):
                        take(f"-{letter}", _tail(word, position + 1))
                    else:
                        take(f"-{letter}", args[index] if index < len(args) else None)
                        index += 1
                    break
            continue
        positional.append(word)
        if tool in ("run", "uv run"):
            break  # the rest is the tool's own command line
    if tool == "uv run":
        return Install(
            tool, command, tuple(extra), tuple(editables), tuple(files), constrained, upgrade
        )
    if tool == "run":
        spec = None if specs or not positional else positional[0]
        requirements = (*specs, *extra)
        return Install(tool, command, requirements, (), (), constrained, upgrade, spec)
    requirements = (*specs, *extra) if specs else (*positional, *extra)
    return Install(
        tool,
        command,
        tuple(requirements),
        tuple(editables),
        tuple(files),
        constrained,
        upgrade,
    )


@dataclass(frozen=True)
class SnippetEdit:
    """Replace snippet text ``[start, end)`` with ``new`` (the file edit is made from it)."""

    start: int
    end: int
    new: str


@dataclass(frozen=True)
class Problem:
    """One finding, and the edit that fixes it (snippet coordinates) when there is one."""

    snippet: Snippet
    offset: int  # where in the snippet the finding points
    message: str
    edit: SnippetEdit | None = None
    command_start: int = 0
    # The ``uv.lock`` a ``uv sync``/``uv run`` problem is about: dropped when some CI
    # step checks the lock (:func:`_uv_locked.lock_checked`).
    uv_lock: str | None = None


def _shown(text: str, limit: int = 80) -> str:
    """A command's text on one line, shortened."""
    flat = " ".join(text.replace("\\\n", " ").split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _runs_stdin(words: Sequence[shell.Word], start: int = 0) -> bool:
    """Whether the command ``words[start:]`` runs a program it reads from stdin (``sh``,
    ``bash -s --``, ``python3 -``), not a script or ``-c`` text of its own."""
    program = _program(words[start])
    python = shell.PYTHON_RE.fullmatch(program) is not None
    if not (program in _INTERPRETERS or python):
        return False
    for index in range(start + 1, len(words)):
        value = words[index].value
        if value == "--":
            return True  # the rest are arguments of the stdin program
        if value == "-":
            return True
        if value.startswith("-"):
            if value in ("-c", "-m") or (value[1:2] != "-" and "c" in value[1:]):
                return False
            if python and value[1:2] != "-" and "m" in value[1:]:
                return False  # ``python -mpip``, ``-Im pip``: runs a module
            continue
        return False  # a script file
    return True


def _uv_tool_at(value: str) -> tuple[str, str] | None:
    """``(name, version)`` of uv's ``name@version`` spelling."""
    if "@" not in value or "://" in value or value.startswith(("git+", "./", "/")):
        return None
    name, _, version = value.partition("@")
    if not name or " " in name or not version:
        return None
    return name.strip(), version.strip()


def _shell_c_word(words: Sequence[shell.Word]) -> shell.Word | None:
    """The script word of ``bash -c 'script'``, run directly or through a launcher
    (``docker exec c bash -lc "..."``, ``podman run img sh -ec '...'``), if any."""
    if not words or (_program(words[0]) not in _SHELLS and _program(words[0]) not in _LAUNCHERS):
        return None
    for index, word in enumerate(words):
        if _program(word) not in _SHELLS or word.dynamic:
            continue
        for option_index in range(index + 1, len(words)):
            option = words[option_index].value
            if not option.startswith("-") or option.startswith("--"):
                break
            if "c" in option[1:] and option_index + 1 < len(words):
                return words[option_index + 1]
    return None


def _feeds_shell(words: Sequence[shell.Word]) -> bool:
    """Whether the command hands its stdin to a shell (``bash``, ``docker exec -i c sh``)."""
    return any(
        _program(word) in _SHELLS and _runs_stdin(words, index) for index, word in enumerate(words)
    )


def _looks_like_dockerfile(text: str) -> bool:
    """Whether a heredoc body is a Dockerfile (its first instruction is FROM or ARG)."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped.split()[0].upper() in ("FROM", "ARG")
    return False


def _shifted(script: shell.Script, text: str, delta: int) -> shell.Script:
    """``script`` (parsed from a substring) with every offset moved by ``delta`` into
    ``text``."""

    def word(item: shell.Word) -> shell.Word:
        """``item`` moved by ``delta``."""
        return shell.Word(
            item.value,
            item.start + delta,
            item.end + delta,
            tuple(o + delta for o in item.offsets),
            item.quoted,
            item.dynamic,
        )

    out = shell.Script(text)
    for command in script.commands:
        out.commands.append(
            shell.Command(
                tuple(word(w) for w in command.words),
                tuple(word(w) for w in command.assignments),
                tuple(
                    shell.Redirect(
                        r.op,
                        r.start + delta,
                        r.end + delta,
                        word(r.target) if r.target is not None else None,
                        r.fd,
                        word(r.glued_to) if r.glued_to is not None else None,
                    )
                    for r in command.redirects
                ),
                command.start + delta,
                command.end + delta,
                command.separator,
                command.nested,
            )
        )
    return out


@dataclass
class _Budget:
    """What is left of one file's shell budget (:data:`MAX_SHELL_CHARS`,
    :data:`MAX_SHELL_WORDS`), and where it ran out."""

    chars: int = MAX_SHELL_CHARS
    words: int = MAX_SHELL_WORDS
    spent_at: tuple[Snippet, int] | None = None

    def charge(self, snippet: Snippet, offset: int, chars: int = 0, words: int = 0) -> bool:
        """Spend ``chars`` and ``words`` on the text at ``offset``; False once spent."""
        if self.spent_at is not None:
            return False
        self.chars -= chars
        self.words -= words
        if self.chars < 0 or self.words < 0:
            self.spent_at = (snippet, offset)
            return False
        return True


def _inner_scripts(
    snippet: Snippet, script: shell.Script, budget: _Budget
) -> Iterator[tuple[shell.Script, Mapping[str, str] | None]]:
    """The scripts a script runs in turn, offsets in the snippet's text, with the
    variables a Dockerfile heredoc sets (None: the outer ones); each is paid for from
    ``budget`` before it is parsed."""
    for command in script.commands:
        words = shell.unwrap(command)
        inner = _shell_c_word(words)
        if inner is not None:
            if not budget.charge(snippet, inner.start, chars=len(inner.value)):
                return
            yield shell.parse_word(inner), None
        for redirect in command.redirects:
            body = script.heredoc_bodies.get(redirect.start)
            if body is None:
                continue
            start, end = body
            if not budget.charge(snippet, start, chars=end - start):
                return
            text = snippet.text[start:end]
            if _looks_like_dockerfile(text):
                from policytool.formats import dockerfile

                parsed = dockerfile.parse(text)
                for instruction, env in parsed.scopes():
                    for run in parsed.run_scripts(instruction):
                        yield _shifted(run, snippet.text, start), env
            elif _feeds_shell(words):
                yield shell.parse(snippet.text, start, end), None


# A path a workflow step names: ``-f docker/Dockerfile.rocm``, ``bash .ci/install.sh``.
_PATH_WORD_RE = re.compile(r"[\w.][\w./-]*")


class _Judge:
    """Turns install commands into problems, with the lock versions that fix them."""

    def __init__(self, config: Config) -> None:
        """Read the config once for a run (the lock lookup is loaded on first use)."""
        self.config = config
        self.lock_outputs = [lock.output.removeprefix("./") for lock in config.entries(LockConfig)]
        self._locks: LockIndex | None = None
        self._allowed: set[str] | None = None
        self._run_by: dict[str, frozenset[str]] | None = None
        self._subsets: dict[tuple[str, ...], LockIndex] = {}
        self._own: frozenset[str] | None = None
        self._verdicts: dict[tuple[str, bool], Verdict | None] = {}
        self.budget = _Budget()  # one file's: analyse_source starts a new one a file

    @property
    def locks(self) -> LockIndex:
        """The versions the configured locks hold."""
        if self._locks is None:
            self._locks = _floating_pin()[0](self.config.root, self.config.entries(LockConfig))
        return self._locks

    def judge(self, text: str, editable: bool = False) -> Verdict | None:
        """``floating-pin``'s verdict on one requirement (remembered for the run; a plain
        ``name==1.2`` is an exact pin without parsing it)."""
        if _EXACT_PIN_RE.fullmatch(text):
            return None
        key = (text, editable)
        if key not in self._verdicts:
            self._verdicts[key] = _floating_pin()[1](text, editable=editable)
        return self._verdicts[key]

    def pinned_text(self, text: str, version: str) -> str | None:
        """``text`` with its specifier replaced by ``==version`` (None if unsafe)."""
        return _floating_pin()[2](text, version)

    def allowed(self, name: str) -> bool:
        """Whether package ``name`` may float (``allow-packages``)."""
        from packaging.utils import canonicalize_name

        if self._allowed is None:
            packages = self.config.section(CiFloatingInstallConfig).allow_packages
            self._allowed = {canonicalize_name(n) for n in packages}
        return canonicalize_name(name) in self._allowed

    def own(self, name: str) -> bool:
        """Whether package ``name`` is one the repository builds itself (its ``[project]``
        or a uv workspace member's): installed by name from the index it is the newest
        release on purpose (a benchmark against it, an example image of it), which no
        lock of the repository holds and a pin would leave behind at every release."""
        from policytool.formats.pyproject import own_distributions
        from policytool.formats.requirement import canonical_name

        if self._own is None:
            self._own = own_distributions(self.config.root)
        return canonical_name(name) in self._own

    def _is_lock(self, path: str) -> bool:
        """Whether an ``-r`` path names a configured lock (however the job spells it)."""
        clean = path.removeprefix("./")
        return any(clean == out or clean.endswith("/" + out) for out in self.lock_outputs)

    def _runners(self, relpath: str) -> frozenset[str]:
        """The workflow jobs that run the file ``relpath``: a step whose ``run``, ``uses``
        or ``with`` values name it (``docker build -f docker/Dockerfile.rocm``,
        ``bash .ci/install.sh``, ``file: Dockerfile``; ``uses: ./DIR`` for
        ``DIR/action.yml``)."""
        if self._run_by is None:
            from policytool.formats.gha import load_workflows, model

            run_by: dict[str, set[str]] = {}
            for doc in load_workflows(self.config.root, (b"/", b"ockerfile")).docs:
                for step in model(doc).steps():
                    if step.job is None:
                        continue
                    texts = [step.run or "", step.uses or ""]
                    texts += [str(v) for v in step.with_.values() if isinstance(v, str)]
                    for word in _PATH_WORD_RE.findall("\n".join(texts)):
                        clean = word.removeprefix("./").rstrip("/")
                        run_by.setdefault(clean, set()).add(step.job)
            self._run_by = {k: frozenset(v) for k, v in run_by.items()}
        names = [relpath]
        if relpath.rsplit("/", 1)[-1] in ("action.yml", "action.yaml"):
            names.append(relpath.rsplit("/", 1)[0] if "/" in relpath else ".")
        return frozenset(job for name in names for job in self._run_by.get(name, ()))

    def _eligible(self, snippet: Snippet) -> list[LockConfig]:
        """The locks a fix may pin this snippet's installs from: those whose ``jobs``
        name its job, a job that runs its file (builds the Dockerfile, runs the script,
        uses the action), or match its file as a glob (a Buildkite pipeline, a script)."""
        jobs = {snippet.job} if snippet.job is not None else set(self._runners(snippet.relpath))
        return [
            lock
            for lock in self.config.entries(LockConfig)
            if jobs & set(lock.jobs) or match_any(snippet.relpath, lock.jobs)
        ]

    def _where(self, snippet: Snippet) -> str:
        """``job 'test'`` or ``Dockerfile docker/Dockerfile.rocm``, for messages."""
        if snippet.job is not None:
            return f"job '{snippet.job}'"
        return snippet.relpath

    def _lock_hint(self, name: str, snippet: Snippet) -> str:
        """Which lock a package in no lock should be added to."""
        locks: Sequence[LockConfig] = self.config.entries(LockConfig)
        if not locks:
            return "not fixable: no [[tool.policytool.lock]] to pin it from"
        chosen = self._eligible(snippet)
        if len(chosen) == 1:
            lock = chosen[0]
            where = f"{lock.inputs[0]}, an input of " if lock.inputs else ""
            return (
                f"in no lock: add `{name}` to {where}lock '{lock.name}' and run "
                f"`policytool lock {lock.name}`"
            )
        names = ", ".join(f"'{lock.name}'" for lock in (chosen or locks))
        return f"in no lock: add `{name}` to the inputs of one of the locks {names}"

    def _pin(self, name: str, snippet: Snippet) -> tuple[str | None, str]:
        """(version, note) for package ``name`` from the locks whose ``jobs`` name the
        snippet's job (or a job building its Dockerfile): another job's lock (a docs lock
        for a ROCm image) is no source for its pins."""
        locks: Sequence[LockConfig] = self.config.entries(LockConfig)
        eligible = self._eligible(snippet)
        if locks and not eligible:
            return None, (
                f"not fixable: no lock's `jobs` names {self._where(snippet)}; pin it by hand "
                "or add the job to the `jobs` of the lock that should pin it"
            )
        if len(eligible) == len(locks):
            index = self.locks
        else:
            key = tuple(lock.name for lock in eligible)
            if key not in self._subsets:
                self._subsets[key] = _floating_pin()[0](self.config.root, eligible)
            index = self._subsets[key]
        version, note = index.resolve(name, ())
        if version is not None:
            return version, f"fix: {note}"
        if note.endswith("in no lock") or note.endswith("no lock configured"):
            return None, self._lock_hint(name, snippet)
        return None, note

    def problems(
        self, snippet: Snippet, script: shell.Script, env: Mapping[str, str] | None = None
    ) -> Iterator[Problem]:
        """Every problem of one parsed snippet; ``env`` holds variables known to be set
        (a Dockerfile's ARG and ENV values), so ``"timm${TIMM_VERSION}"`` is judged."""
        yield from self._script(snippet, script, {} if env is None else env, 0)

    def _script(
        self, snippet: Snippet, script: shell.Script, env: Mapping[str, str], depth: int
    ) -> Iterator[Problem]:
        """Problems of a script and of the scripts it runs (``bash -c '...'``, a heredoc
        fed to a shell, a Dockerfile written in a heredoc), ``depth`` levels down."""
        words = sum(len(c.words) + len(c.assignments) + len(c.redirects) for c in script.commands)
        first = script.commands[0].start if script.commands else 0
        if not self.budget.charge(snippet, first, words=words):
            return
        exported = snippet.env_names | _uv_locked.set_names(env)
        for command in script.commands:
            install = install_of(command)
            if install is not None:
                yield from self._install(snippet, install, env)
            exported |= _uv_locked.script_settles(command)
            uv_command = _uv_locked.uv_project_command(command)
            if uv_command is not None:
                yield from self._uv_project(snippet, uv_command, exported)
        if self.config.section(CiFloatingInstallConfig).download_run:
            yield from self._download_run(snippet, script)
        if depth >= _MAX_NESTING:
            return
        for inner, inner_env in _inner_scripts(snippet, script, self.budget):
            yield from self._script(
                snippet, inner, env if inner_env is None else inner_env, depth + 1
            )

    def _install(
        self, snippet: Snippet, install: Install, env: Mapping[str, str]
    ) -> Iterator[Problem]:
        """Problems of one install command."""
        command = install.command
        text = _shown(snippet.text[command.start : command.end])
        constrained = install.constrained or any(self._is_lock(f) for f in install.files)
        glued = {id(r.glued_to): r for r in command.redirects if r.glued_to is not None}
        by_span = {(r.glued_to.start, r.glued_to.end): r for r in command.redirects if r.glued_to}
        for word in (*install.requirements, *install.editables):
            redirect = glued.get(id(word)) or by_span.get((word.start, word.end))
            if redirect is not None and redirect.op in ("<", ">", ">>") and redirect.target:
                target = redirect.target.value
                if target[:1] == "=" or target[:1].isdigit():
                    yield self._redirect_problem(snippet, command, text, word, redirect)
                    continue
            yield from self._requirement(snippet, install, text, word, constrained, env)
        if install.tool_spec is not None and not install.tool_spec.dynamic:
            yield from self._tool_spec(snippet, install, text, install.tool_spec)

    def _uv_project(
        self, snippet: Snippet, found: _uv_locked.UvProjectCommand, env_names: frozenset[str]
    ) -> Iterator[Problem]:
        """A ``uv sync``/``uv run`` that may re-resolve the committed ``uv.lock``."""
        verb = found.verb.value
        if found.settled or env_names & _uv_locked.settling_names(verb):
            return
        if snippet.cwd is None or found.directory is None:
            return  # where it runs is decided at run time
        lock = _uv_locked.committed_lock(self.config.root, snippet.cwd, found.directory)
        if lock is None:
            return
        command = found.command
        text = _shown(snippet.text[command.start : command.end])
        edit = None
        if not found.verb.quoted and snippet.text[found.verb.start : found.verb.end] == verb:
            edit = SnippetEdit(found.verb.end, found.verb.end, " --locked")
        message = (
            f"`{text}` re-resolves `{lock}` when it is stale: a change to pyproject.toml "
            "without `uv lock` runs (and merges) with whatever versions uv finds that day, "
            "and no CI step checks the lock; add `--locked` (a stale lock fails) or set "
            "`UV_LOCKED: 1` for the job (`--frozen` installs the lock as written)"
        )
        yield Problem(snippet, found.verb.start, message, edit, command.start, lock)

    def _tool_spec(
        self, snippet: Snippet, install: Install, text: str, word: shell.Word
    ) -> Iterator[Problem]:
        """The tool ``uvx TOOL`` / ``pipx run TOOL`` runs: pinned as ``TOOL@VERSION`` (or
        ``==VERSION``); reported without a fix, since the spelling is the tool's own."""
        value = word.value
        at = _uv_tool_at(value)
        if at is not None and at[1] != "latest":
            return
        name = at[0] if at is not None else None
        if name is None:
            verdict = self.judge(value)
            if verdict is None or verdict.name is None:
                if verdict is not None:
                    yield Problem(
                        snippet, word.start, f"`{text}`: {verdict.message}", None, word.start
                    )
                return
            name = verdict.name
        if self.allowed(name):
            return
        version, note = self._pin(name, snippet)
        pin = f"`{name}@{version}`" if version else f"`{name}@VERSION`"
        note = note.removeprefix("fix: ")
        yield Problem(
            snippet,
            word.start,
            f"`{text}` runs the newest `{name}` on every run; pin it as {pin} ({note})",
            None,
            install.command.start,
        )

    def _redirect_problem(
        self,
        snippet: Snippet,
        command: shell.Command,
        text: str,
        word: shell.Word,
        redirect: shell.Redirect,
    ) -> Problem:
        """The finding for ``pkg>=1`` written without quotes."""
        assert redirect.target is not None
        spec = f"{redirect.op}{redirect.target.value}"
        written = f"{word.value}{spec}"
        message = (
            f"`{text}`: `{written}` is not quoted, so the shell reads `{redirect.op}` as a "
            f"redirect: it installs any `{word.value}` and writes a file named "
            f"`{redirect.target.value}`; quote it (`'{written}'`) or pin it with `==`"
        )
        version, note = self._pin(word.value, snippet)
        edit = None
        target = redirect.target
        if (
            version is not None
            and not word.quoted
            and not target.quoted
            and not target.dynamic
            and redirect.start == word.end
        ):
            edit = SnippetEdit(word.end, target.end, f"=={version}")
        suffix = note if edit is not None or version is None else f"not fixable here ({note})"
        return Problem(snippet, word.start, f"{message} ({suffix})", edit, command.start)

    def _requirement(
        self,
        snippet: Snippet,
        install: Install,
        text: str,
        word: shell.Word,
        constrained: bool,
        env: Mapping[str, str],
    ) -> Iterator[Problem]:
        """Problems of one requirement word of an install (``env``: known variables)."""
        value = word.value
        if word.dynamic:
            from policytool.formats.dockerfile import expand_args

            expanded = expand_args(value, env)
            if expanded is None:
                return  # decided at run time; cannot be judged here
            verdict = self.judge(expanded)
            if verdict is not None and not (verdict.name and constrained):
                yield Problem(
                    snippet,
                    word.start,
                    f"`{text}`: `{value}` is `{expanded}` with the ARG/ENV values in scope: "
                    f"{verdict.message}",
                    None,
                    install.command.start,
                )
            return
        editable = word in install.editables
        if install.tool == "uv tool":
            at = _uv_tool_at(value)
            if at is not None:
                tool_name, tool_version = at
                if tool_version == "latest":
                    yield Problem(
                        snippet,
                        word.start,
                        f"`{text}`: `{value}` installs the newest `{tool_name}` on every "
                        f"run; pin it with `{tool_name}==VERSION`",
                        None,
                        install.command.start,
                    )
                return
        verdict = self.judge(value, editable=editable)
        if verdict is None:
            return
        package = verdict.name
        if package is not None and (constrained or self.allowed(package) or self.own(package)):
            return
        message = verdict.message
        if install.upgrade and package is not None:
            message = f"`--upgrade` of an unpinned package: {message}"
        message = f"`{text}`: {message}"
        edit = None
        if package is not None:
            version, note = self._pin(package, snippet)
            if version is not None:
                edit = self._pin_edit(word, version, snippet.text)
                if edit is None:
                    note = f"not fixable here: {note.removeprefix('fix: ')}"
            message = f"{message} ({note})"
        yield Problem(snippet, word.start, message, edit, install.command.start)

    def _pin_edit(self, word: shell.Word, version: str, source: str) -> SnippetEdit | None:
        """The edit that pins ``word`` to ``==version``, touching only changed characters."""
        new = self.pinned_text(word.value, version)
        if new is None:
            return None
        old = word.value
        prefix = 0
        while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
            prefix += 1
        suffix = 0
        while (
            suffix < min(len(old), len(new)) - prefix
            and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]
        ):
            suffix += 1
        span = word.span(prefix, len(old) - suffix, source)
        if span is None:
            return None
        inserted = new[prefix : len(new) - suffix]
        if not word.quoted and any(c in inserted for c in "<>|&;() \t"):
            return None
        return SnippetEdit(span[0], span[1], inserted)

    def _download_run(self, snippet: Snippet, script: shell.Script) -> Iterator[Problem]:
        """``curl URL | sh`` and ``sh <(curl URL)`` / ``sh -c "$(curl URL)"``."""
        for pipeline in script.pipelines():
            for first, second in zip(pipeline, pipeline[1:], strict=False):
                fetch = shell.unwrap(first)
                run = shell.unwrap(second)
                if not fetch or not run or _program(fetch[0]) not in _DOWNLOADERS:
                    continue
                if not _runs_stdin(run):
                    continue
                problem = self._fetch_problem(snippet, first, second, fetch)
                if problem is not None:
                    yield problem
        # Downloads inside substitutions, by offset: a shell word holding one runs it.
        fetches: list[tuple[int, Sequence[shell.Word]]] = []
        for inner in script.commands:
            inner_words = shell.unwrap(inner) if inner.nested else ()
            if inner_words and _program(inner_words[0]) in _DOWNLOADERS:
                fetches.append((inner.start, inner_words))
        if not fetches:
            return
        fetches.sort(key=lambda item: item[0])
        shown_cache: dict[int, str] = {}

        def shown_of(command: shell.Command) -> str:
            """The command as a finding shows it (once a command, however many fetches)."""
            if command.start not in shown_cache:
                shown_cache[command.start] = _shown(snippet.text[command.start : command.end])
            return shown_cache[command.start]

        starts = [start for start, _words in fetches]
        for command in script.commands:
            words = shell.unwrap(command)
            if command.nested or not words or _program(words[0]) not in _SHELLS:
                continue
            for word in words[1:]:
                at = bisect.bisect_left(starts, word.start)
                while at < len(starts) and starts[at] < word.end:
                    shown = shown_of(command)
                    problem = self._fetch_problem(snippet, command, command, fetches[at][1], shown)
                    if problem is not None:
                        yield problem
                    at += 1

    def _fetch_problem(
        self,
        snippet: Snippet,
        first: shell.Command,
        last: shell.Command,
        fetch: Sequence[shell.Word],
        shown: str | None = None,
    ) -> Problem | None:
        """The finding for running a downloaded script, unless its URL names a version
        (``shown``: the commands' text as shown, when already known)."""
        urls = [w for w in fetch[1:] if "://" in w.value or w.dynamic]
        url = urls[0] if urls else None
        if url is not None and _VERSION_SEGMENT_RE.search(url.value.split("$", 1)[0]):
            return None
        literal = url.value.split("$", 1)[0] if url is not None else ""
        if url is not None and url.dynamic and "/" in literal.partition("://")[2]:
            return None  # ``https://host/path/${VERSION}/install.sh``: versioned by a variable
        text = _shown(snippet.text[first.start : last.end]) if shown is None else shown
        where = "a URL from a variable" if url is not None and url.dynamic else "an unversioned URL"
        return Problem(
            snippet,
            first.start,
            f"`{text}` runs whatever {where} serves today; download a versioned "
            "installer (or the tool's pinned package) and check its hash",
            None,
            first.start,
        )


# --------------------------------------------------------------------------------------
# Files of a run
# --------------------------------------------------------------------------------------


_YAML_KINDS: dict[str, Callable[[str, YamlNode, FileLines], Iterator[Snippet]]] = {
    "workflow": workflow_snippets,
    "action": action_snippets,
    "pipeline": pipeline_snippets,
    "mergify": mergify_snippets,
}


def snippets_of(source: SourceFile, data: YamlNode | None = None) -> list[Snippet]:
    """The shell snippets of one file (``data``: its parsed YAML, for YAML kinds)."""
    if source.kind in _YAML_KINDS:
        return list(_YAML_KINDS[source.kind](source.relpath, data, source.lines))
    return [Snippet(source.relpath, source.text, source.lines.identity())]


def scripts_of(
    source: SourceFile, snippet: Snippet
) -> list[tuple[shell.Script, Mapping[str, str]]]:
    """The parsed scripts of a snippet with the variables known to hold for them (a
    Dockerfile gives one script a RUN, with the ARG/ENV values in scope)."""
    if source.kind == "dockerfile":
        from policytool.formats import dockerfile

        parsed = dockerfile.parse(source.text)
        return [
            (script, env)
            for instruction, env in parsed.scopes()
            for script in parsed.run_scripts(instruction)
        ]
    return [(shell.parse(snippet.text, snippet.start, snippet.end), {})]


def _kinds(config: Config) -> list[tuple[str, tuple[str, ...]]]:
    """(kind, globs) of the files the rule reads, in order of precedence."""
    options = config.section(CiFloatingInstallConfig)
    kinds: list[tuple[str, tuple[str, ...]]] = [
        ("workflow", WORKFLOW_GLOBS),
        ("action", ACTION_GLOBS),
    ]
    if options.mergify:
        kinds.append(("mergify", (mergify_file(config),)))
    kinds += [
        ("pipeline", options.pipelines),
        ("dockerfile", options.dockerfiles),
        ("script", options.scripts),
    ]
    return kinds


def selection(config: Config) -> Selection:
    """The files ``ci-floating-install`` reads."""
    options = config.section(CiFloatingInstallConfig)
    return Selection(_kinds(config), options.allow, options.allowlist_file, "ci-floating-install")


# --------------------------------------------------------------------------------------
# Check and fix
# --------------------------------------------------------------------------------------


def analyse_source(source: SourceFile, judge: _Judge) -> list[Problem] | Finding:
    """Every problem of one file (a Finding when it cannot be parsed)."""
    if source.kind in _YAML_KINDS:
        if not any(n.encode() in source.raw for n in _NEEDLES):
            return []
        data = yaml_data(source, RULE_ID)
        if isinstance(data, Finding):
            return data
        snippets = snippets_of(source, data)
        heads = source.kind == "workflow" and tests_upstream_heads(source.relpath, data)
    else:
        heads = False
        if len(source.text) > MAX_SHELL_CHARS:
            return Finding(
                source.relpath,
                1,
                1,
                RULE_ID,
                f"{len(source.text):,} characters of shell, more than the "
                f"{MAX_SHELL_CHARS:,} ci-floating-install reads in one file; not checked",
            )
        snippets = snippets_of(source)
    problems: list[Problem] = []
    budget = judge.budget = _Budget()
    for snippet in snippets:
        if not any(n in snippet.text for n in _NEEDLES):
            continue
        size = (len(snippet.text) if snippet.end is None else snippet.end) - snippet.start
        if not budget.charge(snippet, snippet.start, chars=size):
            break
        for script, env in scripts_of(source, snippet):
            problems.extend(judge.problems(snippet, script, env))
            if budget.spent_at is not None:
                break
        if budget.spent_at is not None:
            break
    if budget.spent_at is not None:
        snippet, offset = budget.spent_at
        message = (
            f"more shell than ci-floating-install reads in one file ({MAX_SHELL_CHARS:,} "
            f"characters, {MAX_SHELL_WORDS:,} words, scripts in scripts included); the "
            "rest is not checked"
        )
        problems.append(Problem(snippet, offset, message, None, offset))
    if heads:
        from policytool.rules.floating_pin import MOVABLE_REF

        problems = [p for p in problems if MOVABLE_REF not in p.message]
    return problems


_UPSTREAM_RE = re.compile(r"\b(nightly|upstream)\b", re.IGNORECASE)
_SCHEDULED = frozenset({"schedule", "workflow_dispatch"})


def tests_upstream_heads(relpath: str, data: YamlNode) -> bool:
    """Whether a workflow tests upstream heads on purpose: run only on a schedule (or by
    hand), and its name or a job's says nightly or upstream (axolotl's "Tests Nightly
    against upstream main"). Its ``git+...@main`` installs are the point of it."""
    if not isinstance(data, dict):
        return False
    workflow = workflow_of(relpath, data)
    events = set(workflow.triggers())
    if "schedule" not in events or not events <= _SCHEDULED:
        return False
    names = [data.get("name"), *(job.name for job in workflow.jobs)]
    return any(isinstance(n, str) and _UPSTREAM_RE.search(n) for n in names)


def _finding(source: SourceFile, problem: Problem) -> Finding:
    """The public finding of a problem."""
    omap = problem.snippet.omap
    return Finding(
        source.relpath,
        omap.line(problem.offset),
        omap.column(problem.offset, source.lines),
        RULE_ID,
        problem.message,
        fixable=problem.edit is not None and omap.exact,
    )


def _ignore_lines(source: SourceFile) -> list[int]:
    """The lines (sorted) whose ignore comment names the rule, read once a file."""
    if b"policytool: ignore" not in source.raw:
        return []
    from policytool.engine.runner import parse_ignores

    lines = [source.lines.line_text(n) for n in range(1, len(source.lines.starts) + 1)]
    ignored, _bare = parse_ignores(lines, source.relpath)
    return sorted(number for number, ids in ignored.items() if RULE_ID in ids)


def _ignored(ignore_lines: Sequence[int], problem: Problem) -> bool:
    """Whether an ignore comment on any line of the problem's command silences it."""
    if not ignore_lines:
        return False
    omap = problem.snippet.omap
    first, last = omap.line(problem.command_start), omap.line(problem.offset)
    at = bisect.bisect_left(ignore_lines, first)
    return at < len(ignore_lines) and ignore_lines[at] <= last


def analyse(ctx: RepoContext) -> list[tuple[SourceFile, list[Problem]] | Finding]:
    """Every file's problems (ignored ones dropped), or the finding why it was not read."""
    judge = _Judge(ctx.config)
    unread, sources = split_analysis(load_sources(ctx, selection(ctx.config)))
    out: list[tuple[SourceFile, list[Problem]] | Finding] = [*unread]
    for source in sources:
        problems = analyse_source(source, judge)
        if isinstance(problems, Finding):
            out.append(problems)
            continue
        ignore_lines = _ignore_lines(source)
        kept = [p for p in problems if not _ignored(ignore_lines, p)]
        if kept:
            out.append((source, kept))
    if any(p.uv_lock for item in out if not isinstance(item, Finding) for p in item[1]):
        texts = list(_ci_texts(ctx))
        if _uv_locked.lock_checked(text for _kind, text in texts):
            out = _without_uv_lock_problems(out, lambda problem: True)
        elif _uv_locked.settled_somewhere(t for k, t in texts if k in ("workflow", "action")):
            # a script's or Dockerfile's commands may run with the variable a workflow sets
            out = _without_uv_lock_problems(out, lambda problem: problem.snippet.job is None)
    return out


def _ci_texts(ctx: RepoContext) -> Iterator[tuple[str, bytes]]:
    """(kind, bytes) of every CI file of the repository (not only this run's: a lock
    check may sit in a workflow this run was not given) and of ``.pre-commit-config.yaml``."""
    from policytool.core.git import git_ls_files, git_root

    root = ctx.root
    files = git_ls_files(root) if git_root(root) is not None else list(ctx.files)
    chosen = selection(ctx.config)
    for relpath in files:
        kind = "pre-commit" if relpath == ".pre-commit-config.yaml" else None
        kind = kind or chosen.classify(relpath, b"")
        if kind is None:
            continue
        source = read_source(root, relpath, kind, RULE_ID)
        if isinstance(source, SourceFile):
            yield kind, source.raw


def _without_uv_lock_problems(
    items: list[tuple[SourceFile, list[Problem]] | Finding], dropped: Callable[[Problem], bool]
) -> list[tuple[SourceFile, list[Problem]] | Finding]:
    """``items`` without the ``uv sync``/``uv run`` problems that ``dropped`` picks."""
    out: list[tuple[SourceFile, list[Problem]] | Finding] = []
    for item in items:
        if isinstance(item, Finding):
            out.append(item)
            continue
        kept = [p for p in item[1] if p.uv_lock is None or not dropped(p)]
        if kept:
            out.append((item[0], kept))
    return out


def check(ctx: RepoContext) -> list[Finding]:
    """Findings of ``ci-floating-install``."""
    findings, analysed = split_analysis(analyse(ctx))
    for source, problems in analysed:
        findings.extend(_finding(source, p) for p in problems)
    return findings


def file_edit(source: SourceFile, problem: Problem) -> Edit | None:
    """The edit of the file that makes ``problem``'s snippet edit, when the snippet maps
    to the file exactly there (None: reported, not fixed)."""
    edit = problem.edit
    omap = problem.snippet.omap
    if edit is None or not omap.exact:
        return None
    start, end = omap.to_file(edit.start), omap.to_file(edit.end)
    if start is None or end is None or end - start != edit.end - edit.start:
        return None
    if source.text[start:end] != problem.snippet.text[edit.start : edit.end]:
        return None
    return Edit(source.relpath, start, end, edit.new)


Shell = list[tuple[tuple[object, ...], str]]


def _snippet_check(source: SourceFile) -> YamlFixCheck[Shell]:
    """The verification of the pins of one YAML file: the new text parses and its shell
    snippets are the old ones with the pin's edit, nothing else."""

    def read(text: str, data: YamlNode) -> Shell:
        """(key, text) of each shell snippet of a text."""
        new_source = SourceFile(source.relpath, source.kind, source.raw, text)
        return [(s.key, s.text) for s in snippets_of(new_source, data)]

    return YamlFixCheck(source.relpath, source.text, read)


def _edited(key: tuple[object, ...], edit: SnippetEdit) -> Callable[[Shell], Shell]:
    """The snippets after ``edit`` of the snippet(s) ``key`` (the code blocks of one
    Mergify message share a text, and a key: each expects the edit)."""
    change = [Edit("", edit.start, edit.end, edit.new)]
    return lambda old: [(k, splice(t, change) if k == key else t) for k, t in old]


def _fixes_of(source: SourceFile, problems: Sequence[Problem]) -> Iterator[tuple[Problem, Fix]]:
    """Each fixable problem with its fix: one edit, verified on its own for YAML files
    (shell scripts and Dockerfiles are the snippet: the edit is the whole change)."""
    check = _snippet_check(source) if source.kind in _YAML_KINDS else None
    for problem in problems:
        edit = file_edit(source, problem)
        if edit is None or problem.edit is None:
            continue
        verify = (
            check.verify(_edited(problem.snippet.key, problem.edit), "other shell of the file")
            if check is not None
            else None
        )
        yield problem, Fix(f"write {edit.new!r} at {source.relpath}", (edit,), verify)


def fixed_text(source: SourceFile, problems: Sequence[Problem]) -> str | None:
    """The file's text with every fixable problem pinned as the engine writes it (the
    first of overlapping fixes, the verified ones), or None when nothing changes."""
    kept, _left = select([fix for _problem, fix in _fixes_of(source, problems)])
    edits = [
        edit
        for fix in kept
        if fix.verify is None or fix.verify(source.text, splice(source.text, fix.edits)) is None
        for edit in fix.edits
    ]
    new_text = splice(source.text, edits)
    return new_text if new_text != source.text else None


def fixes(ctx: RepoContext) -> Iterator[Finding]:
    """Each fixable install with the fix pinning it to its lock's version; the engine
    applies them (verified one by one), writes and re-checks."""
    for source, problems in split_analysis(analyse(ctx))[1]:
        for problem, fix in _fixes_of(source, problems):
            yield replace(_finding(source, problem), fix=fix)


def triggers(config: Config) -> tuple[str, ...]:
    """Globs whose change re-runs the rule."""
    globs = [glob for _kind, kind_globs in _kinds(config) for glob in kind_globs]
    return (*globs, *widening(config))


DOC = """\
## What it checks
Every package a CI job installs is pinned. The rule reads the shell of GitHub workflow
`run:` steps and composite actions (`action.yml`), the pipeline YAML (Buildkite
`command`/`commands`, GitLab `script`, CircleCI `run`), shell scripts and Dockerfile
`RUN`s under the configured globs, and the shell code blocks of the Mergify comments.
It reports `pip install`, `pip3`, `python -m pip` (`python3.11 -mpip`, `python -Im pip`,
`py -m pip`), `uv pip install`, `uv tool install`, `pipx install` of a package without an
exact `==` pin (or `--upgrade` of one), a tool
run by `uvx`/`uv tool run`/`pipx run` without a version (`uvx ruff@0.6.0` passes), a
package `uv run --with` adds for the run without a version, a VCS
requirement on a branch or tag, a URL without a hash, a requirement whose unquoted
`<`/`>` the shell reads as a redirect (`pip install pre-commit>=4.5.1` installs any
pre-commit and writes a file named `=4.5.1`), and `curl ... | sh` installers. It also
reports `uv sync` and `uv run` in a project that commits `uv.lock` (in the directory they
run in, or above it) without `--locked` or `--frozen` and without `UV_LOCKED`/`UV_FROZEN`
set (workflow, job or step `env:`, a `$GITHUB_ENV` write, on the command, `export`ed):
both commands lock first, so a pull request that changes `pyproject.toml` without running
`uv lock` is tested, and merged, with whatever versions uv resolves that day. The
repository is left alone when some CI file already checks the lock (`uv lock --check`,
any `--locked`, `UV_LOCKED`, pre-commit's `uv-lock` hook): that step fails on a stale
lock. An install
constrained by `-c FILE`, or by `-r` of a configured lock, passes; so does a
distribution the repository builds itself (the root `[project] name` and those of its
`[tool.uv.workspace] members`), installed by name: from the index that is its newest
release on purpose (kedro's benchmark against its latest release, docling's example
image), which no lock of the repository holds. Words the shell
expands at run time (`$VAR`, `$(...)`, `${{ matrix.x }}`) are not judged. One file's
shell is read up to 256 KiB and 10,000 words (scripts run by `bash -c` or fed in a
heredoc included); past that, one finding says the rest is not checked.

## Why
A lock makes `requirements/*.txt` exact, but a job that also runs `pip install uv` gets
whatever uv is newest that night: the run is not reproducible, and a broken release
breaks CI with no change in the repository. A committed `uv.lock` is exact only if CI
refuses a stale one.

## Example
```yaml
# .github/workflows/ci.yml
jobs:
  test:
    steps:
      - run: |
          pip install uv
          uv pip install pre-commit>=4.5.1
          uv sync --extra test
```

## Fix
`policytool fix` writes `==VERSION` from the one version the locks of that install
hold (the lookup `floating-pin` uses), changing only the specifier characters:
`pip install uv` becomes `pip install uv==0.5.1`, `pre-commit>=4.5.1` becomes
`pre-commit==4.7.0`. The locks of an install are those whose `jobs` name its workflow
job, or a job that runs its file (`docker build -f docker/Dockerfile.rocm`,
`bash .ci/install.sh`, `uses: ./.github/actions/setup`), or match its file as a glob
(`jobs = ["test", ".buildkite/**"]` for a Buildkite pipeline). An install no lock
claims is reported without a fix (a docs lock never pins a ROCm image), and a package
in no lock is left alone with the lock to add it to named. `uv sync` and `uv run` get
`--locked` written after the verb (`uv sync --locked --extra test`): a stale lock then
fails the job instead of being re-resolved. Put
`# policytool: ignore[ci-floating-install]` on any line of a command to accept it.

## Configuration
`[tool.policytool.ci-floating-install]`: `pipelines`, `scripts` (files there that are
shell by suffix or shebang) and `dockerfiles` (globs), `mergify` (read the Mergify
comments, default true), `download-run` (report `curl | sh`, default true), `allow` /
`allowlist-file` (path globs not checked), `allow-packages` (names that may float).
"""


RULE = register(
    RepoRule(
        id=RULE_ID,
        summary="CI installs (workflow steps, pipelines, scripts, Dockerfiles) pin exact "
        "versions; fix pins from the locks",
        check=check,
        triggers=triggers,
        fixes=fixes,
        doc=DOC,
        narrows=True,
        group="ci",
        config=("ci-floating-install",),
    )
)
