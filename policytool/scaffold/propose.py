# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What ``policytool init`` reads in a repository to propose a starting config.

Each proposer looks for evidence that the repository already chose a policy and turns
it into one ``[tool.policytool.*]`` table, with a note saying where it came from:

- ``spdx``: the license and copyright an existing header hook script writes (vLLM's
  ``tools/pre_commit/check_spdx_header.py``) and the file kinds the hook runs on; else
  the header at least 90% of the Python files already carry (fewer is a habit, not a
  policy: init prints the share and the table to add instead). ``[project] license``
  alone is no SPDX policy (pytest: MIT, no headers), so nothing is proposed then.
- ``torch-cuda``: a local hook script that greps for ``torch.cuda`` and the allowlist it
  keeps (vLLM's ``ALLOWED_FILES``), as allow globs.
- ``ci``: ``codeql = "default-setup"`` when the repository has workflows but none runs
  CodeQL (GitHub's default setup keeps nothing in the repository); a repository
  without ``.github/`` gets the CodeQL workflow scaffold instead.

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
from policytool.errors import PolicyError
from policytool.rules._repo_config import CiConfig, PreCommitConfig

# An SPDX expression: ids joined by AND/OR/WITH, as a header hook script spells it.
_LICENSE_RE = re.compile(
    r"SPDX-License-Identifier:[ \t]*([A-Za-z0-9][A-Za-z0-9.+\-]*"
    r"(?:[ \t]+(?:AND|OR|WITH)[ \t]+[A-Za-z0-9][A-Za-z0-9.+\-]*)*)"
)
_COPYRIGHT_RE = re.compile(r"SPDX-FileCopyrightText:[ \t]*([^\"'\r\n{}\\]+?)[ \t]*[\"'\r\n]")
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


def propose_spdx(
    config: Config, files: Sequence[str], scripts: Sequence[HookScript], hints: list[str]
) -> Table | None:
    """The SPDX header the repository already enforces or already carries."""
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
    python = [f for f in files if f.endswith(".py")]
    if not python:
        return None
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
    except (SyntaxError, ValueError):
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
    except (SyntaxError, ValueError):
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


def propose_ci(config: Config) -> Table | None:
    """``codeql = "default-setup"`` for repositories with workflows and no CodeQL one."""
    if config.section(CiConfig).codeql is not None:
        return None
    from policytool.formats.gha import workflow_paths

    paths = workflow_paths(config.root)
    if not paths:
        return None
    for relpath in paths:
        text = _read(config.root, relpath) or ""
        if "github/codeql-action" in text:
            return None
    return Table(
        "ci",
        {"codeql": "default-setup"},
        "no workflow runs CodeQL: GitHub's default setup assumed; "
        'set "workflow" to keep one in the repository',
    )


_REGEX_DIR_RE = re.compile(r"\^?((?:[\w-]|\\\.|/)+)/\.\*\$?")


def regex_to_globs(pattern: str) -> list[str] | None:
    """pre-commit's ``exclude`` regex as path globs, when it is a plain list of directories.

    ``vllm/third_party/.*|docs/.*`` -> ``["vllm/third_party/**", "docs/**"]``; None for
    anything else (a regex policytool cannot say exactly as globs is not guessed at).
    """
    globs = []
    for part in pattern.strip().split("|"):
        match = _REGEX_DIR_RE.fullmatch(part.strip())
        if match is None:
            return None
        globs.append(match.group(1).replace("\\.", ".") + "/**")
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


def propose(config: Config, files: Sequence[str]) -> Proposal:
    """Every table the repository's own files give evidence for."""
    scripts = hook_scripts(config)
    proposal = Proposal()
    for table in (
        propose_exclude(config),
        propose_spdx(config, files, scripts, proposal.hints),
        propose_torch_cuda(scripts),
        propose_ci(config),
    ):
        if table is not None:
            proposal.tables.append(table)
    return proposal
