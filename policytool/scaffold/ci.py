# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What ``policytool init`` writes for pre-commit, CI and CodeQL (registered in scaffold.py).

Each file is written only when missing and is built to pass the repo rules it is
checked by: the pre-commit config (``precommit-*``), the pre-commit workflow
(``ci-hook-stage``), the CodeQL workflow (``codeql-workflow``) and the Mergify rule
(``mergify-drift``, its block rendered by the same code as ``policytool sync``).
"""

from __future__ import annotations

from pathlib import Path

from policytool import HOMEPAGE, __version__
from policytool.config import Config
from policytool.errors import PolicyError
from policytool.rules._repo_config import CiConfig, MergifyConfig, PreCommitConfig
from policytool.scaffold.templates import render

POLICYTOOL_REPO = HOMEPAGE
PRECOMMIT_CONFIG_PATH = ".pre-commit-config.yaml"
PRECOMMIT_WORKFLOW_PATH = ".github/workflows/pre-commit.yml"
CODEQL_WORKFLOW_PATH = ".github/workflows/codeql.yml"
MERGIFY_PATH = ".github/mergify.yml"
BUMP_WORKFLOW_PATH = ".github/workflows/policytool-bump.yml"
# The Python of the bump workflow when no lock names one (pre-commit.yml's too).
BUMP_PYTHON_FALLBACK = "3.12"


def _stages(config: Config) -> str:
    stages = config.section(PreCommitConfig).default_stages or ("pre-commit", "manual")
    return "[" + ", ".join(stages) + "]"


# The hooks init writes: id, its comment, and (for `repo: local`) the fields of its entry
# in .pre-commit-hooks.yaml but `language` (tests/test_init.py compares the two).
INIT_HOOKS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    (
        "spdx-header",
        "The SPDX header of each changed file ([tool.policytool.spdx]).",
        (("entry", "policytool check --only spdx-header"), ("types", "[text]")),
    ),
    (
        "policytool-repo",
        "Repo policy: this file, the CI workflows, the Mergify tip, CodeQL.",
        (
            ("entry", "policytool check --only repo"),
            (
                "files",
                r"^(\.pre-commit-config\.yaml|pyproject\.toml|setup\.cfg|mypy\.ini"
                r"|\.mypy\.ini|\.mergify\.yml|\.github/.*|requirements.*)$",
            ),
            ("pass_filenames", "false"),
            ("require_serial", "true"),
        ),
    ),
)


def is_release(version: str) -> bool:
    """A final release (``X.Y.Z``), which tools/release.py tagged ``vX.Y.Z``; not a
    ``.devN``, pre-release or local version, which no tag holds."""
    from packaging.version import InvalidVersion, Version

    try:
        parsed = Version(version)
    except InvalidVersion:  # "0+unknown": run from a tree that was never installed
        return False
    return not (parsed.is_prerelease or parsed.is_devrelease or parsed.local)


def render_policytool_hooks(version: str) -> str:
    """The ``repos:`` entry for policytool's hooks, one that resolves for this version.

    A release: policytool's repository at the release's tag. Anything else: ``repo:
    local`` hooks running the policytool installed here, since no tag holds this code.
    """
    if is_release(version):
        lines = [f"  - repo: {POLICYTOOL_REPO}", f"    rev: v{version}", "    hooks:"]
        for hook_id, comment, _fields in INIT_HOOKS:
            lines += [f"      # {comment}", f"      - id: {hook_id}"]
        return "\n".join(lines) + "\n"
    lines = [
        f"  # policytool {version} is not a release: no tag of {POLICYTOOL_REPO}",
        "  # holds it, so these hooks run the policytool installed here (install it where",
        "  # pre-commit runs, CI included). `policytool init` from a release writes",
        "  # that repository and the release's tag instead.",
        "  - repo: local",
        "    hooks:",
    ]
    for hook_id, comment, fields in INIT_HOOKS:
        lines += [f"      # {comment}", f"      - id: {hook_id}", f"        name: {hook_id}"]
        lines += [f"        {key}: {value}" for key, value in fields]
        lines.append("        language: system")
    return "\n".join(lines) + "\n"


def render_precommit_config(config: Config, version: str | None = None) -> str:
    """A starting ``.pre-commit-config.yaml``: policytool's hooks (for ``version``, the
    installed one by default), the final suggestion hook."""
    final = config.section(PreCommitConfig).final_hook or "suggestion"
    hooks = render_policytool_hooks(version or __version__)
    values = {"stages": _stages(config), "policytool_hooks": hooks}
    return render("pre-commit-config.yaml", {**values, "final": final})


def render_precommit_workflow(config: Config) -> str:
    """A workflow running every hook, manual ones included, on every file."""
    return render("pre-commit.yml", {})


def render_codeql_workflow(config: Config) -> str:
    """CodeQL for Python (build-mode: none) on push, pull_request and weekly."""
    branch = config.section(CiConfig).default_branch or "main"
    return render("codeql.yml", {"branch": branch})


def _bump_python(config: Config) -> str:
    """The Python the bump workflow runs: a pip-tools lock's (pip-compile resolves for
    the running interpreter only), else any lock's ``python-version``, else 3.12."""
    from policytool.engine.lock_config import LockConfig

    locks = config.entries(LockConfig)
    for lock in (*[c for c in locks if c.backend == "pip-tools"], *locks):
        if lock.python_version:
            return lock.python_version
    return BUMP_PYTHON_FALLBACK


def _install_step(version: str, pip_tools: bool) -> str:
    """The workflow step installing this policytool, pinned (``ci-floating-install``),
    with the ``pip-tools`` extra when a lock uses that backend.

    A release installs ``policytool==X.Y.Z`` from PyPI; a development version is on no
    index, so the pin is written with a comment saying to replace it with a release.
    """
    extra = "[pip-tools]" if pip_tools else ""
    lines = [f"      - name: install policytool {version}"]
    if not is_release(version):
        lines += [
            f"        # policytool {version} is not a release and no index has it: pin the",
            "        # release you use (`pip install policytool==X.Y.Z`) before enabling this.",
        ]
    lines.append(f'        run: python -m pip install "policytool{extra}=={version}"')
    return "\n".join(lines)


def render_bump_workflow(config: Config, version: str | None = None) -> str:
    """The scheduled workflow running ``outdated`` and one ``bump`` per package it finds
    unheld, each opening or updating a pull request (``init --schedule``)."""
    from policytool.engine.lock_config import LockConfig

    pip_tools = any(c.backend == "pip-tools" for c in config.entries(LockConfig))
    install = _install_step(version or __version__, pip_tools)
    return render("policytool-bump.yml", {"python": _bump_python(config), "install": install})


def _indent(lines: list[str], pad: str) -> str:
    return "".join((pad + line).rstrip() + "\n" for line in lines)


# The pre-commit the Mergify tip pins when none is installed here and the repo pins none.
PRECOMMIT_FALLBACK = "4.5.0"


def _precommit_install() -> str:
    """``pip install pre-commit==V`` with the pre-commit installed here, else a known one.

    A comment telling contributors to ``pip install pre-commit`` unpinned is what
    ``ci-floating-install`` reports, so the tip is never unpinned; the repo's own pin,
    when it has one, wins anyway.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"pip install pre-commit=={version('pre-commit')}"
    except PackageNotFoundError:
        return f"pip install pre-commit=={PRECOMMIT_FALLBACK}"


def render_mergify(config: Config) -> str:
    """The Mergify rule commenting on pre-commit failures, with the generated block."""
    from policytool.rules._precommit_model import usable_model
    from policytool.rules.mergify_drift import BEGIN, DEFAULT_RULE, END, render_block

    model = usable_model(config)
    install = _precommit_install()
    if model is not None:
        # Without a repo pin, render_block keeps the install the message already has.
        block = render_block(config, model, install)
    else:
        block = [
            "To run the same pre-commit checks as CI locally:",
            "",
            "```bash",
            install,
            "pre-commit run --all-files --hook-stage manual",
            "```",
        ]
    pad = " " * 10
    lines = [f"{pad}{BEGIN}\n", _indent(block, pad), f"{pad}{END}"]
    return render(
        "mergify.yml",
        {"rule": config.section(MergifyConfig).rule or DEFAULT_RULE, "block": "".join(lines)},
    )


def action_offer(root: Path, version: str) -> str | None:
    """The line ``init`` ends with offering policytool's GitHub Action (docs/action.md),
    or None when a workflow of the repository already uses it."""
    from policytool.core.boundary import read_bounded

    workflows = root / ".github" / "workflows"
    name = POLICYTOOL_REPO.removeprefix("https://github.com/")
    if workflows.is_dir():
        for path in sorted(workflows.glob("*.y*ml")):
            if not path.is_file() or path.is_symlink():
                continue
            try:
                data = read_bounded(path, path.name)
            except PolicyError:
                continue  # a workflow too large to read is the repo rules' finding
            if f"{name}@".encode() in data:
                return None
    ref = f"<the commit SHA of v{version}> # v{version}" if is_release(version) else "<commit SHA>"
    return (
        f"GitHub Actions: a pull-request job with `uses: {name}@{ref}` runs check "
        "(annotations, SARIF), lock --check and sweep (docs/action.md)"
    )
