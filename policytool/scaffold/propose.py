# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What ``policytool init`` reads in a repository to propose a starting config.

Each proposer looks for evidence that the repository already chose a policy and turns
it into one ``[tool.policytool.*]`` table, with a note saying where it came from:

- ``spdx``: the license and copyright an existing header hook script writes (vLLM's
  ``tools/pre_commit/check_spdx_header.py``) and the file kinds the hook runs on; else
  the header at least 90% of the Python files already carry (fewer is a habit, not a
  policy: init prints the share and the table to add instead), outside the proposed
  ``exclude`` and naming the project's own license when it is known. ``[project]
  license`` alone is no SPDX policy (pytest: MIT, no headers), so nothing is proposed.
- ``torch-cuda``: a local hook script that greps for ``torch.cuda`` and the allowlist it
  keeps (vLLM's ``ALLOWED_FILES``), as allow globs.
- ``pre-commit``: ``final-hook`` (and ``default-stages``) of the config init writes, or
  a last hook under a comment saying it stays last ("Insert new entries above").
- ``lock``: ``[[tool.policytool.lock]]`` entries for pip-compile / ``uv pip compile``
  outputs, read from the command in their header (hashes included).
- ``forbidden-import``: one entry per import-linter ``forbidden`` contract
  (``forbidden_modules`` banned in the ``source_modules`` files);
- ``ci``: nothing: whether GitHub's default CodeQL setup scans a repository is a
  setting of the repository on GitHub, not a file init can read. When workflows exist
  and none runs CodeQL, init prints the choice as a note instead (the rule stays quiet
  until it is made); a repository without ``.github/`` gets the CodeQL workflow
  scaffold.

Proposers only read (repo files through the repository boundary, bounded); nothing runs.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policytool.config import Config
from policytool.core.boundary import read_bounded, resolve_inside
from policytool.core.text import PYTHON_PARSE_ERRORS
from policytool.engine.lock_config import LockConfig
from policytool.errors import PolicyError
from policytool.rules._repo_config import CiConfig, PreCommitConfig

# An SPDX expression: ids joined by AND/OR/WITH, as a header hook script spells it.
_LICENSE_RE = re.compile(
    r"SPDX-License-Identifier:[ \t]*([A-Za-z0-9][A-Za-z0-9.+\-]*"
    r"(?:[ \t]+(?:AND|OR|WITH)[ \t]+[A-Za-z0-9][A-Za-z0-9.+\-]*)*)"
)
# The holder ends on a non-blank character (a lazy group before ``[ \t]*`` is quadratic
# on a long blank run).
_COPYRIGHT_RE = re.compile(
    r"SPDX-FileCopyrightText:[ \t]*([^\"'\r\n{}\\]*?[^\s\"'{}\\])[ \t]*[\"'\r\n]"
)
# pre-commit (identify) file types -> policytool file kinds.
_KIND_BY_TYPE = {
    "python": "python",
    "pyi": "stub",
    "rust": "rust",
    "proto": "proto",
    "c": "c",
    "c++": "cpp",
    "cuda": "cuda",
    "shell": "shell",
    "bash": "shell",
    "yaml": "yaml",
    "toml": "toml",
    "javascript": "js",
    "ts": "ts",
}
# Python files sampled for the header most of them carry.
_SAMPLE = 2000
_HEAD = 1024
# The share (%) of sampled Python files that must carry one header for init to require it.
_SHARE = 90


@dataclass(frozen=True)
class Table:
    """One proposed ``[tool.policytool.NAME]`` table and why."""

    name: str
    values: dict[str, object]
    note: str
    # Written as ``[[tool.policytool.NAME]]`` entries instead (``values`` unused).
    entries: tuple[dict[str, object], ...] = ()


@dataclass
class Proposal:
    """Every table ``init`` proposes, in the order they are written."""

    tables: list[Table] = field(default_factory=list)
    # Evidence short of a policy, printed for the user to decide.
    hints: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class HookScript:
    """A local pre-commit hook that runs a script of the repository, and its text."""

    hook_id: str
    path: str
    text: str
    kinds: tuple[str, ...]


def _read(root: Path, relpath: str) -> str | None:
    """A repository file's text, or None when it is outside, not regular, or unreadable."""
    try:
        return read_bounded(resolve_inside(root, relpath, relpath), relpath).decode(
            "utf-8", "replace"
        )
    except PolicyError:
        return None


def hook_scripts(config: Config) -> list[HookScript]:
    """The scripts the local hooks of ``.pre-commit-config.yaml`` run."""
    from policytool.rules._precommit_model import usable_model

    model = usable_model(config)
    if model is None:
        return []
    found = []
    for hook in model.hooks:
        script = hook.entry_script()
        if script is None:
            continue
        text = _read(config.root, script)
        if text is None:
            continue
        types = [*hook.text_list("types_or"), *hook.text_list("types")]
        kinds = tuple(dict.fromkeys(_KIND_BY_TYPE[t] for t in types if t in _KIND_BY_TYPE))
        found.append(HookScript(hook.id, script, text, kinds))
    return found


# The opening words of the common license texts -> their SPDX id (checked in order).
_LICENSE_TEXTS = (
    ("Permission is hereby granted, free of charge", "MIT"),
    ("Apache License", "Apache-2.0"),
    ("Mozilla Public License Version 2.0", "MPL-2.0"),
    ("Neither the name", "BSD-3-Clause"),
    ("Redistribution and use in source and binary forms", "BSD-2-Clause"),
    ("Permission to use, copy, modify, and/or distribute", "ISC"),
)
_LICENSE_FILES = ("LICENSE", "LICENSE.txt", "LICENSE.md", "LICENSE.rst", "COPYING")
# Trove classifiers -> SPDX ids.
_CLASSIFIERS = {
    "MIT License": "MIT",
    "Apache Software License": "Apache-2.0",
    "BSD License": "",  # which BSD: the LICENSE file says
    "Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0",
    "ISC License (ISCL)": "ISC",
}


def project_license(config: Config) -> tuple[str, str] | None:
    """(SPDX id, where it was read) of the project's own license, or None.

    ``project.license`` (a PEP 639 expression, or ``{text = ...}``), then the license
    classifier, then the opening words of the LICENSE file: the license the repository
    itself is under, not the one vendored files carry.
    """
    from policytool.formats.toml import loads

    text = _read(config.root, "pyproject.toml")
    project: object = None
    if text is not None:
        try:
            project = loads(text, "pyproject.toml").get("project")
        except PolicyError:
            project = None
    if isinstance(project, dict):
        value = project.get("license")
        if isinstance(value, dict):
            value = value.get("text")
        if isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9.+\-]+", value.strip()):
            return value.strip(), "project.license"
        classifiers = project.get("classifiers")
        for item in classifiers if isinstance(classifiers, list) else []:
            name = str(item).rsplit(" :: ", 1)[-1]
            if str(item).startswith("License ::") and _CLASSIFIERS.get(name):
                return _CLASSIFIERS[name], "the license classifier"
    for relpath in _LICENSE_FILES:
        body = _read(config.root, relpath)
        if body is None:
            continue
        head = " ".join(body[:4000].split())
        for words, spdx in _LICENSE_TEXTS:
            if words in head:
                return spdx, relpath
    return None


def propose_spdx(
    config: Config,
    files: Sequence[str],
    scripts: Sequence[HookScript],
    hints: list[str],
    exclude: Sequence[str] = (),
) -> Table | None:
    """The SPDX header the repository already enforces or already carries.

    Files under ``exclude`` (vendored code) are not sampled, and when the project's own
    license is known (:func:`project_license`), only headers naming it count: an MIT
    repository whose vendored files carry Apache-2.0 is not asked for Apache-2.0.
    """
    for script in scripts:
        strings = "\n".join(_strings(script.text))  # what the script writes, not its own header
        license_match = _LICENSE_RE.search(strings)
        if license_match is None:
            continue
        values: dict[str, object] = {"license": license_match.group(1)}
        copyright_match = _COPYRIGHT_RE.search(strings + "\n")
        if copyright_match is not None:
            values["copyright"] = copyright_match.group(1).strip()
        if script.kinds and script.kinds != ("python",):
            values["kinds"] = list(script.kinds)
        return Table("spdx", values, f"from the {script.hook_id} hook ({script.path})")
    from policytool.core.globs import match_any

    python = [f for f in files if f.endswith(".py") and not match_any(f, exclude)]
    if not python:
        return None
    own = project_license(config)
    step = max(1, len(python) // _SAMPLE)
    sample = python[::step]
    licenses: Counter[str] = Counter()
    copyrights: Counter[str] = Counter()
    for relpath in sample:
        head = _head(config.root / relpath)
        match = _LICENSE_RE.search(head)
        if match is not None:
            licenses[match.group(1)] += 1
        found = re.search(r"SPDX-FileCopyrightText:[ \t]*([^\r\n]+)", head)
        if found is not None:
            copyrights[found.group(1).strip()] += 1
    if not licenses:
        return None
    value, count = licenses.most_common(1)[0]
    if own is not None:
        spelled = {k.casefold(): k for k in licenses}
        if own[0].casefold() not in spelled:
            return None  # the headers name another license than the project's: vendored
        value = spelled[own[0].casefold()]
        count = licenses[value]
    share = round(100 * count / len(sample))
    if share < _SHARE:
        # Many files with a header are a habit, not yet a policy: say so, propose nothing.
        hints.append(
            f"{share}% of the Python files carry `SPDX-License-Identifier: {value}`; "
            f'to require it everywhere, add [tool.policytool.spdx] license = "{value}"'
        )
        return None
    values = {"license": value}
    if copyrights:
        holder, held = copyrights.most_common(1)[0]
        if held * 100 >= _SHARE * len(sample):
            values["copyright"] = holder
    return Table("spdx", values, f"{share}% of the Python files carry this header")


def _strings(text: str) -> list[str]:
    """The string literals of a Python script (none when it does not parse)."""
    try:
        tree = ast.parse(text)
    except PYTHON_PARSE_ERRORS:
        return []
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def _head(path: Path) -> str:
    """The first bytes of a file as text (empty when unreadable)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(_HEAD).decode("utf-8", "replace")
    except OSError:
        return ""


def _string_sets(text: str) -> list[tuple[str, list[str]]]:
    """(name, strings) of module-level ``NAME = {"a", "b"}`` / lists / tuples of strings."""
    try:
        tree = ast.parse(text)
    except PYTHON_PARSE_ERRORS:
        return []
    found = []
    for node in tree.body:
        target: ast.expr | None = None
        value: ast.expr | None = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if not isinstance(target, ast.Name) or not isinstance(
            value, (ast.Set, ast.List, ast.Tuple)
        ):
            continue
        items = [
            e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
        if items and len(items) == len(value.elts):
            found.append((target.id, items))
    return found


def _as_glob(path: str) -> str:
    """vLLM's allowlist spelling -> a glob: ``vllm/platforms/`` -> ``vllm/platforms/**``."""
    path = path.strip().removeprefix("./")
    return f"{path}**" if path.endswith("/") else path


def propose_torch_cuda(scripts: Sequence[HookScript]) -> Table | None:
    """The torch.cuda ban an existing hook script enforces, with its allowlist."""
    for script in scripts:
        if "torch.cuda" not in script.text and "torch\\.cuda" not in script.text:
            continue
        allow: list[str] = []
        for name, items in _string_sets(script.text):
            if "ALLOW" in name.upper():
                allow.extend(_as_glob(item) for item in items)
        values: dict[str, object] = {"allow": sorted(dict.fromkeys(allow))}
        return Table("torch-cuda", values, f"from the {script.hook_id} hook ({script.path})")
    return None


def propose_ci(config: Config, hints: list[str]) -> None:
    """A note, not a table, for repositories with workflows and no CodeQL one: GitHub's
    default setup leaves nothing in the repository, so nothing here says it is on."""
    if config.section(CiConfig).codeql is not None:
        return
    from policytool.formats.gha import workflow_paths

    paths = workflow_paths(config.root)
    if not paths:
        return
    for relpath in paths:
        text = _read(config.root, relpath) or ""
        if "github/codeql-action" in text:
            return
    hints.append(
        "no workflow runs CodeQL; if GitHub's default setup scans this repository, add "
        '[tool.policytool.ci] codeql = "default-setup", else codeql = "workflow" and '
        "`policytool init` writes the workflow (until then codeql-workflow stays quiet)"
    )


_REGEX_DIR_RE = re.compile(r"\^?((?:[\w-]|\\\.|/)+)/(?:\.\*)?\$?")
# One file's path, anchored at both ends (``^(a/b\.yml|c/d.json)$``): an unescaped ``.`` in
# a path is read as the literal dot its author meant.
_REGEX_FILE_RE = re.compile(r"\^?((?:[\w.-]|\\\.|/)*[\w-])\$?")


def _outer_group(pattern: str) -> str:
    """``pattern`` without one group around all of it (``^(a/|b/)$`` -> ``a/|b/``)."""
    text = pattern.removeprefix("^").removesuffix("$")
    for opening in ("(?:", "("):
        if text.startswith(opening) and text.endswith(")"):
            inner = text[len(opening) : -1]
            depth = 0
            for char in inner:
                depth += {"(": 1, ")": -1}.get(char, 0)
                if depth < 0:
                    return pattern  # the first group closes before the end
            if depth == 0:
                return inner
    return pattern


def regex_to_globs(pattern: str) -> list[str] | None:
    r"""pre-commit's ``exclude`` regex as path globs, when it is a plain list of directories
    and files.

    ``vllm/third_party/.*|docs/.*`` -> ``["vllm/third_party/**", "docs/**"]``; ``^vendor/``,
    ``^(docs/|vendor/)`` and a ``(?x)`` verbose list of them too; a file path only where it
    is anchored at both ends (``^(a/b\.json|vendor/.*)$``, ansible-lint's list). None for
    anything else (a regex policytool cannot say exactly as globs is not guessed at).
    """
    text = pattern.strip()
    if text.startswith("(?x)"):
        text = "".join(re.sub(r"(?<!\\)#.*", "", line).strip() for line in text[4:].splitlines())
    stripped = text.strip()
    whole = stripped.startswith("^") and stripped.endswith("$")  # ``^(...)$``: full paths
    text = _outer_group(text)
    globs = []
    for part in text.split("|"):
        match = _REGEX_DIR_RE.fullmatch(part.strip())
        if match is not None:
            globs.append(match.group(1).replace("\\.", ".") + "/**")
            continue
        anchored = whole or (part.strip().startswith("^") and part.strip().endswith("$"))
        match = _REGEX_FILE_RE.fullmatch(part.strip())
        if match is None or not anchored:
            return None
        globs.append(match.group(1).replace("\\.", "."))
    return globs


def propose_exclude(config: Config) -> Table | None:
    """pre-commit's top-level ``exclude`` (vendored code) as ``[tool.policytool] exclude``."""
    from policytool.rules._precommit_model import usable_model

    if config.exclude:
        return None
    model = usable_model(config)
    pattern = model.data.get("exclude") if model is not None else None
    if not isinstance(pattern, str):
        return None
    globs = regex_to_globs(pattern)
    if not globs:
        return None
    return Table(
        "", {"exclude": globs}, f"the top-level exclude of {config.section(PreCommitConfig).file}"
    )


_LAST_RE = re.compile(
    r"(?i)insert new (?:entries|hooks) above|keep\b.{0,60}\blast\b|must (?:be|run|stay) last"
    r"|\blast hook\b"
)


def propose_precommit(config: Config, scaffolded: bool) -> Table | None:
    """The pre-commit invariants the repository states (or init's own config will set).

    ``scaffolded``: init writes its pre-commit config, whose final hook and default stages
    are then configured so a drift from them is caught. Otherwise a last hook under a
    comment saying so ("Insert new entries above", "Keep `suggestion` last") is the
    ``final-hook``.
    """
    from policytool.rules._precommit_model import usable_model

    pre_commit = config.section(PreCommitConfig)
    if scaffolded:
        values: dict[str, object] = {}
        if pre_commit.final_hook is None:
            values["final-hook"] = "suggestion"
        if pre_commit.default_stages is None:
            values["default-stages"] = ["pre-commit", "manual"]
        note = f"the final hook and default_stages of the {pre_commit.file} init writes"
        return Table("pre-commit", values, note) if values else None
    model = usable_model(config)
    if model is None or not model.hooks:
        return None
    found: dict[str, object] = {}
    notes: list[str] = []
    if pre_commit.default_stages is None and model.default_stages:
        # The repository states its stages: a drift from them (a removed or narrowed
        # ``default_stages``) is then caught against its own value, not vLLM's.
        found["default-stages"] = list(model.default_stages)
        notes.append(f"default_stages: [{', '.join(model.default_stages)}]")
    if pre_commit.final_hook is None:
        last = model.hooks[-1]
        lines = model.doc.text.splitlines()
        start = max(0, last.line - 4)
        # The comments around the last hook: up to three lines above it, and any after it.
        around = [line for line in lines[start : last.line - 1] if line.lstrip().startswith("#")]
        around += [line for line in lines[last.line :] if line.lstrip().startswith("#")]
        said = next((line.strip() for line in around if _LAST_RE.search(line)), None)
        if said is not None:
            found["final-hook"] = last.id
            notes.append(said)
    if not found:
        return None
    return Table("pre-commit", found, f"{pre_commit.file} says: {'; '.join(notes)}")


# The header pip-compile and uv write above a lock: the command on a ``#    `` line.
_COMPILE_HEAD_RE = re.compile(
    r"(?m)^#\s*This file (?:is|was) autogenerated by (?P<tool>pip-compile|uv)\b"
    r"(?: with Python (?P<python>\d+\.\d+))?[^\n]*\n(?:#[^\n]*\n){0,3}?"
    r"#\s+(?P<command>(?:pip-compile|uv pip compile|uv export)\b[^\n]*)"
)
_OPTIONS_WITH_VALUE = frozenset(
    {
        "-o",
        "--output-file",
        "-c",
        "--constraint",
        "--python-version",
        "-p",
        "--python",
        "-i",
        "--index-url",
        "--extra-index-url",
        "-f",
        "--find-links",
        "--python-platform",
        "--no-emit-package",
        "--unsafe-package",
        "-P",
        "--upgrade-package",
        "--cache-dir",
        "--resolver",
        "--pip-args",
        "--annotation-style",
        "--extra",
        "--build-isolation",
    }
)


def _compile_lock(root: Path, relpath: str, text: str, names: set[str]) -> dict[str, object] | None:
    """A ``[[tool.policytool.lock]]`` entry for a pip-compile/uv output, from its header."""
    import shlex

    match = _COMPILE_HEAD_RE.search(text[:4096])
    if match is None:
        return None
    try:
        words = shlex.split(match.group("command"))
    except ValueError:
        return None
    if words[:2] == ["uv", "export"]:
        return _export_lock(root, relpath, words[2:], names)
    words = words[3:] if words[:3] == ["uv", "pip", "compile"] else words[1:]
    inputs: list[str] = []
    constraints: list[str] = []
    output: str | None = None
    options: dict[str, object] = {}
    if match.group("python"):
        options["python-version"] = match.group("python")
    index = 0
    while index < len(words):
        word = words[index]
        key, eq, value = word.partition("=")
        if word == "--generate-hashes":
            options["hashes"] = True
        elif word == "--universal":
            options["universal"] = True
        elif key in _OPTIONS_WITH_VALUE:
            if not eq:
                index += 1
                value = words[index] if index < len(words) else ""
            if key in ("-o", "--output-file"):
                output = value
            elif key in ("-c", "--constraint"):
                constraints.append(value)
            elif key in ("--python-version", "-p", "--python") and re.fullmatch(r"\d+\.\d+", value):
                options["python-version"] = value
            elif key == "--python-platform":
                options["platform"] = value
            elif key in ("--no-emit-package", "--unsafe-package"):
                excluded = options.setdefault("exclude", [])
                assert isinstance(excluded, list)
                excluded.append(value)
        elif not word.startswith("-"):
            inputs.append(word)
        index += 1
    base = Path(relpath).parent
    if output is None and inputs and match.group("tool") == "pip-compile":
        output = _pip_compile_default_output(inputs[0])
    # Paths are relative to where the command ran: the repository root or the lock's own
    # directory, whichever the output path leads to the lock (uv without -o prints the
    # lock: either, when only one has the inputs); never guessed between two.
    found: list[list[str]] = []
    for where in dict.fromkeys((Path(), base)):
        if output is not None and (where / output).as_posix().removeprefix("./") != relpath:
            continue
        paths = [(where / p).as_posix().removeprefix("./") for p in inputs + constraints]
        if not inputs or any(_read(root, p) is None for p in paths):
            continue
        found.append(paths)
    if len(found) == 1:
        paths = found[0]
        entry: dict[str, object] = {
            "name": _lock_name(relpath, names),
            "inputs": paths[: len(inputs)],
            "output": relpath,
        }
        if constraints:
            entry["constraints"] = paths[len(inputs) :]
        if match.group("tool") == "pip-compile":
            entry["backend"] = "pip-tools"
        return {**entry, **options}
    return None


def _pip_compile_default_output(source: str) -> str:
    """Where pip-compile writes without ``-o``: ``requirements.txt`` beside a
    setup.py/setup.cfg/pyproject.toml source, else the source with ``.txt`` for its suffix."""
    path = Path(source)
    if path.name in ("setup.py", "setup.cfg", "pyproject.toml"):
        return (path.parent / "requirements.txt").as_posix()
    return path.with_suffix(".txt").as_posix()


# ``uv export`` options that change what is exported in a way a lock table cannot say:
# such an output is not proposed (not guessed at).
_EXPORT_UNSAID = frozenset(
    {"--only-dev", "--only-group", "--package", "--all-packages", "--prune", "--script"}
)
_EXPORT_WITH_VALUE = frozenset(
    {
        "-o",
        "--output-file",
        "--no-emit-package",
        "--extra",
        "--group",
        "--no-group",
        "--format",
        "-p",
        "--python",
        "--directory",
        "--project",
    }
)


def _lock_name(relpath: str, names: set[str]) -> str:
    """A lock name from the output's file name, unique among ``names`` (added to them)."""
    name = Path(relpath).stem.removeprefix("requirements-").removeprefix("requirements_")
    name = re.sub(r"[^A-Za-z0-9_-]", "-", name) or "lock"
    while name in names:
        name += "-lock"
    names.add(name)
    return name


def _export_lock(
    root: Path, relpath: str, words: list[str], names: set[str]
) -> dict[str, object] | None:
    """A ``[[tool.policytool.lock]]`` entry for a ``uv export`` output (ansible-lint's
    ``.config/requirements-lock.txt``): the project's ``pyproject.toml`` with the extras
    and groups exported, universal, hashed unless ``--no-hashes``, ``--no-emit-package``
    as ``exclude``; uv backend. None when it exports what a lock table cannot say."""
    from policytool.errors import TomlError
    from policytool.formats import toml

    text = _read(root, "pyproject.toml")
    if text is None:
        return None
    try:
        data = toml.loads(text, "pyproject.toml")
    except TomlError:
        return None
    project = data.get("project")
    optional = project.get("optional-dependencies") if isinstance(project, dict) else None
    all_extras = sorted(optional) if isinstance(optional, dict) else []
    groups_table = data.get("dependency-groups")
    known_groups = set(groups_table) if isinstance(groups_table, dict) else set()
    output: str | None = None
    extras: list[str] = []
    groups: list[str] = ["dev"] if "dev" in known_groups else []
    hashes = True
    excluded: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        key, eq, value = word.partition("=")
        if key in _EXPORT_UNSAID or key.startswith("--only-"):
            return None
        if key in _EXPORT_WITH_VALUE:
            if not eq:
                index += 1
                value = words[index] if index < len(words) else ""
            if key in ("-o", "--output-file"):
                output = value
            elif key == "--no-emit-package":
                excluded.append(value)
            elif key == "--extra":
                extras.append(value)
            elif key == "--group":
                groups.append(value)
            elif key == "--no-group":
                groups = [g for g in groups if g != value]
            elif key == "--format" and value != "requirements-txt":
                return None
            elif key in ("--directory", "--project"):
                return None
        elif word == "--no-hashes":
            hashes = False
        elif word == "--all-extras":
            extras = list(all_extras)
        elif word in ("--no-dev", "--no-default-groups"):
            groups = [g for g in groups if g != "dev"]
        elif word == "--all-groups":
            groups = sorted(known_groups)
        index += 1
    if (output or "").removeprefix("./") != relpath:
        return None
    inputs = ["pyproject.toml" + (f"[{','.join(dict.fromkeys(extras))}]" if extras else "")]
    inputs += [f"pyproject.toml:{g}" for g in dict.fromkeys(groups) if g in known_groups]
    entry: dict[str, object] = {
        "name": _lock_name(relpath, names),
        "inputs": inputs,
        "output": relpath,
        "universal": True,
    }
    if hashes:
        entry["hashes"] = True
    if excluded:
        entry["exclude"] = excluded
    return entry


def propose_locks(config: Config, files: Sequence[str]) -> Table | None:
    """``[[tool.policytool.lock]]`` entries for the requirement files that are pip-compile
    (or uv pip compile) outputs: their header names the command, hashes included."""
    if config.entries(LockConfig):
        return None
    entries = []
    names: set[str] = set()
    for relpath in files:
        if not relpath.endswith(".txt") or "requirements" not in relpath.lower():
            continue
        text = _read(config.root, relpath)
        if text is None or "autogenerated by" not in text[:4096]:
            continue
        entry = _compile_lock(config.root, relpath, text, names)
        if entry is not None:
            entries.append(entry)
    if not entries:
        return None
    return Table(
        "lock",
        {},
        "from the pip-compile / uv command in the lock's header; `policytool baseline` "
        "adopts it as it is, `policytool lock NAME` rewrites it with policytool's header",
        tuple(entries),
    )


def _importlinter_contracts(root: Path) -> list[dict[str, object]]:
    """import-linter's contracts: ``[[tool.importlinter.contracts]]`` of pyproject.toml,
    else the ``[importlinter:contract:NAME]`` sections of ``.importlinter`` or setup.cfg."""
    import configparser

    from policytool.errors import TomlError
    from policytool.formats import toml

    text = _read(root, "pyproject.toml")
    if text is not None:
        try:
            data = toml.loads(text, "pyproject.toml")
        except TomlError:
            data = {}
        tool = data.get("tool")
        linter = tool.get("importlinter") if isinstance(tool, dict) else None
        contracts = linter.get("contracts") if isinstance(linter, dict) else None
        if isinstance(contracts, list):
            return [c for c in contracts if isinstance(c, dict)]
    for name in (".importlinter", "setup.cfg"):
        text = _read(root, name)
        if text is None or "importlinter:contract" not in text:
            continue
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(text)
        except configparser.Error:
            return []
        out: list[dict[str, object]] = []
        for section in parser.sections():
            if section.startswith("importlinter:contract:"):
                items = dict(parser.items(section))
                out.append(
                    {k: (v.split() if "modules" in k else v.strip()) for k, v in items.items()}
                )
        return out
    return []


def _module_globs(root: Path, module: str) -> list[str]:
    """The files of a module: its package directory and its ``.py`` (under ``src/`` when
    the package lives there)."""
    path = module.replace(".", "/")
    top = module.split(".", 1)[0]
    if not (root / top).is_dir() and (root / "src" / top).is_dir():
        path = f"src/{path}"
    return [f"{path}/**", f"{path}.py"]


def propose_forbidden_imports(config: Config) -> Table | None:
    """``[[tool.policytool.forbidden-import]]`` entries from import-linter's ``forbidden``
    contracts (kedro: kedro.config must not import kedro.runner)."""
    from policytool.rules._source_config import ForbiddenImportConfig

    if config.entries(ForbiddenImportConfig):
        return None
    entries: list[dict[str, object]] = []
    for contract in _importlinter_contracts(config.root):
        if contract.get("type") != "forbidden":
            continue
        sources = contract.get("source_modules")
        banned = contract.get("forbidden_modules")
        if not isinstance(sources, list) or not isinstance(banned, list):
            continue
        modules = [m for m in banned if isinstance(m, str) and m and "*" not in m]
        files = [
            g
            for m in sources
            if isinstance(m, str) and m and "*" not in m
            for g in _module_globs(config.root, m)
        ]
        if not modules or not files:
            continue
        entry: dict[str, object] = {"modules": modules, "files": files}
        name = contract.get("name")
        if isinstance(name, str) and name:
            entry["reason"] = f"import-linter contract '{name}'"
        entries.append(entry)
    if not entries:
        return None
    return Table(
        "forbidden-import",
        {},
        "from import-linter's `forbidden` contracts: `forbidden_modules` banned in the "
        "`source_modules` files",
        tuple(entries),
    )


def propose(config: Config, files: Sequence[str], scaffolded: bool = False) -> Proposal:
    """Every table the repository's own files give evidence for."""
    scripts = hook_scripts(config)
    proposal = Proposal()
    exclude = propose_exclude(config)
    proposed = exclude.values["exclude"] if exclude is not None else []
    skipped = config.exclude or (tuple(proposed) if isinstance(proposed, list) else ())
    for table in (
        exclude,
        propose_spdx(config, files, scripts, proposal.hints, skipped),
        propose_torch_cuda(scripts),
        propose_precommit(config, scaffolded),
        propose_locks(config, files),
        propose_forbidden_imports(config),
    ):
        if table is not None:
            proposal.tables.append(table)
    propose_ci(config, proposal.hints)
    return proposal
