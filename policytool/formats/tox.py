# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The ``commands`` of a tox environment, so a CI step ``tox -e linting`` can be followed.

Reads ``tox.ini``, ``tox.toml`` or ``pyproject.toml`` (``[tool.tox]``, native or
``legacy_tox_ini``), the first that exists, as tox does. Each command comes back as one
shell-like line; ``{posargs}`` becomes its default (or nothing), other substitutions are
kept. A file that cannot be read or
parsed gives no commands: tox itself reports it.
"""

from __future__ import annotations

import configparser
import itertools
import re
import shlex
from pathlib import Path

from policytool.core.boundary import read_bounded, resolve_inside
from policytool.core.text import PYTHON_PARSE_ERRORS
from policytool.errors import PolicyError, TomlError
from policytool.formats import toml

_POSARGS_RE = re.compile(r"\{posargs(?::([^{}]*))?\}|\[\]")
_FACTOR_RE = re.compile(r"^([\w.!,{}-]+):\s+(.*)$")


def _read(root: Path, relpath: str) -> str | None:
    """The text of ``root/relpath``; None when absent, not UTF-8, over the size bound, or
    a symlink that leads out of the repository (never read: the repository is the
    boundary)."""
    try:
        path = resolve_inside(root, relpath, relpath)
        if not path.is_file():
            return None
        return read_bounded(path, relpath).decode("utf-8")
    except (PolicyError, UnicodeDecodeError):
        return None


def _factor_applies(condition: str, env: str) -> bool:
    factors = set(env.split("-"))
    for alternative in condition.split(","):
        wanted = [f for f in alternative.split("-") if f]
        if all((f[1:] not in factors) if f.startswith("!") else (f in factors) for f in wanted):
            return True
    return False


def _ini_commands(text: str, env: str) -> list[str] | None:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    for section in (f"testenv:{env}", "testenv"):
        if parser.has_option(section, "commands"):
            raw = parser.get(section, "commands")
            break
    else:
        return None
    out: list[str] = []
    pending = ""
    for line in raw.split("\n"):
        line = pending + line.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if not line or line.startswith("#"):
            continue
        factor = _FACTOR_RE.match(line)
        if factor and not line.startswith(("-", "!")):
            if not _factor_applies(factor.group(1), env):
                continue
            line = factor.group(2)
        out.append(_POSARGS_RE.sub(lambda m: m.group(1) or "", line).strip())
    return out


def _toml_commands(table: object, env: str) -> list[str] | None:
    if not isinstance(table, dict):
        return None
    envs = table.get("env")
    for holder in (envs.get(env) if isinstance(envs, dict) else None, table.get("env_run_base")):
        commands = holder.get("commands") if isinstance(holder, dict) else None
        if isinstance(commands, list):
            out = []
            for command in commands:
                if isinstance(command, list):
                    words = [w for w in command if isinstance(w, str)]
                    out.append(shlex.join(words))
            return out
    return None


def env_commands(root: Path, env: str) -> list[str]:
    """The commands tox runs for environment ``env`` (empty when unknown)."""
    text = _read(root, "tox.ini")
    if text is not None:
        return _ini_commands(text, env) or []
    text = _read(root, "tox.toml")
    if text is not None:
        try:
            return _toml_commands(toml.loads(text, "tox.toml"), env) or []
        except TomlError:
            return []
    text = _read(root, "pyproject.toml")
    if text is None:
        return []
    try:
        data = toml.loads(text, "pyproject.toml")
    except TomlError:
        return []
    tool = data.get("tool")
    tox = tool.get("tox") if isinstance(tool, dict) else None
    if isinstance(tox, dict) and isinstance(tox.get("legacy_tox_ini"), str):
        return _ini_commands(tox["legacy_tox_ini"], env) or []
    return _toml_commands(tox, env) or []


def nox_programs(root: Path) -> set[str]:
    """The programs ``noxfile.py``'s sessions run (``session.run("mypy", ...)`` -> mypy).

    Read with :mod:`ast`, never imported. ``session.run("python", "-m", "mypy")`` counts
    as mypy. Empty when there is no noxfile or it does not parse.
    """
    import ast

    text = _read(root, "noxfile.py")
    if text is None:
        return set()
    try:
        tree = ast.parse(text)
    except PYTHON_PARSE_ERRORS:
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("run", "run_always", "run_install")
        ):
            continue
        words: list[str] = [
            a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        if words[:2] in (["python", "-m"], ["python3", "-m"]):
            words = words[2:]
        if words:
            found.add(words[0].rsplit("/", 1)[-1])
    return found


def _ini_labels(text: str) -> dict[str, list[str]]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    if not parser.has_option("tox", "labels"):
        return {}
    out: dict[str, list[str]] = {}
    for line in parser.get("tox", "labels").splitlines():
        name, sep, envs = line.partition("=")
        if sep:
            out[name.strip()] = [e.strip() for e in re.split(r"[,\s]+", envs) if e.strip()]
    return out


def _toml_labels(table: object) -> dict[str, list[str]]:
    labels = table.get("labels") if isinstance(table, dict) else None
    if not isinstance(labels, dict):
        return {}
    return {
        str(k): [str(e) for e in v if isinstance(e, str)]
        for k, v in labels.items()
        if isinstance(v, list)
    }


def labels(root: Path) -> dict[str, list[str]]:
    """tox's ``labels`` (``[tox] labels = check = typing, lint``): envs by label."""
    text = _read(root, "tox.ini")
    if text is not None:
        return _ini_labels(text)
    for name in ("tox.toml", "pyproject.toml"):
        text = _read(root, name)
        if text is None:
            continue
        try:
            data = toml.loads(text, name)
        except TomlError:
            return {}
        if name == "tox.toml":
            return _toml_labels(data)
        tool = data.get("tool")
        tox = tool.get("tox") if isinstance(tool, dict) else None
        if isinstance(tox, dict) and isinstance(tox.get("legacy_tox_ini"), str):
            return _ini_labels(tox["legacy_tox_ini"])
        return _toml_labels(tox)
    return {}


def tox_envs(words: list[str], root: Path | None = None) -> list[str] | None:
    """The environments of a ``tox`` command line (``tox -e a,b``; with ``root``,
    ``tox -m LABEL...`` too, through tox's ``labels``), or None when the command is not
    tox (launchers dropped: ``python -m tox``, ``uvx tox``)."""
    from policytool.formats.shell import program_of

    command = program_of(words)
    if not command or command[0].rsplit("/", 1)[-1] != "tox":
        return None
    envs: list[str] = []
    rest = command[1:]
    for pos, arg in enumerate(rest):
        if arg in ("-e", "--env") and pos + 1 < len(rest):
            envs += rest[pos + 1].split(",")
        elif arg.startswith(("-e=", "--env=")):
            envs += arg.split("=", 1)[1].split(",")
        elif arg.startswith("-e") and not arg.startswith("--") and len(arg) > 2:
            envs += arg[2:].split(",")
        elif arg in ("-m", "--labels") and root is not None:
            known = labels(root)
            for label in itertools.takewhile(lambda w: not w.startswith("-"), rest[pos + 1 :]):
                envs += known.get(label, [])
    return [e.strip() for e in envs if e.strip()]
