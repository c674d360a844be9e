# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""What ``policytool init`` writes for pre-commit, CI and CodeQL (registered in scaffold.py).

Each file is written only when missing and is built to pass the repo rules it is
checked by: the pre-commit config (``precommit-*``), the pre-commit workflow
(``ci-hook-stage``), the CodeQL workflow (``codeql-workflow``) and the Mergify rule
(``mergify-drift``, its block rendered by the same code as ``policytool sync``).
"""

from __future__ import annotations

from policytool import __version__
from policytool.config import Config

POLICYTOOL_REPO = "https://github.com/policytool/policytool"
PRECOMMIT_CONFIG_PATH = ".pre-commit-config.yaml"
PRECOMMIT_WORKFLOW_PATH = ".github/workflows/pre-commit.yml"
CODEQL_WORKFLOW_PATH = ".github/workflows/codeql.yml"
MERGIFY_PATH = ".github/mergify.yml"


def _stages(config: Config) -> str:
    stages = config.pre_commit.default_stages or ("pre-commit", "manual")
    return "[" + ", ".join(stages) + "]"


def render_precommit_config(config: Config) -> str:
    """A starting ``.pre-commit-config.yaml``: policytool's hooks, the final suggestion hook."""
    final = config.pre_commit.final_hook or "suggestion"
    return f"""\
# pre-commit runs these on every commit (`pre-commit install`); CI runs the same config
# with `pre-commit run --all-files --hook-stage manual`, so hooks with
# `stages: [manual]` run in CI only. `policytool check` keeps this file in policy.
default_stages: {_stages(config)}
repos:
  - repo: {POLICYTOOL_REPO}
    rev: v{__version__}
    hooks:
      # The SPDX header of each changed file ([tool.policytool.spdx]).
      - id: spdx-header
      # Repo policy: this file, the CI workflows, the Mergify tip, CodeQL.
      - id: policytool-repo
  - repo: local
    hooks:
      # Keep `{final}` the last hook: it only prints how to bypass the hooks.
      - id: {final}
        name: {final}
        entry: echo "To bypass pre-commit hooks, add --no-verify to git commit."
        language: system
        verbose: true
        pass_filenames: false
"""


def render_precommit_workflow(config: Config) -> str:
    """A workflow running every hook, manual ones included, on every file."""
    return """\
name: pre-commit

on:
  pull_request:
  push:
    branches: [main]

permissions:
  contents: read

jobs:
  pre-commit:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@9c091bb21b7c1c1d1991bb908d89e4e9dddfe3e0 # v7.0.0
      - uses: actions/setup-python@83679a892e2d95755f2dac6acb0bfd1e9ac5d548 # v6.1.0
        with:
          python-version: "3.12"
      - uses: pre-commit/action@2c7b3805fd2a0fd8c1884dcaebf91fc102a13ecd # v3.0.1
        with:
          # --hook-stage manual also runs the hooks that have `stages: [manual]`.
          extra_args: --all-files --hook-stage manual --show-diff-on-failure
"""


def render_codeql_workflow(config: Config) -> str:
    """CodeQL for Python (build-mode: none) on push, pull_request and weekly (RFC section 10)."""
    branch = config.ci.default_branch or "main"
    return f"""\
name: CodeQL

on:
  push:
    branches: [{branch}]
  pull_request:
    branches: [{branch}]
  schedule:
    - cron: "27 4 * * 1"  # weekly: catch new queries on quiet branches

permissions:
  contents: read

jobs:
  analyze:
    name: Analyze (python)
    runs-on: ubuntu-latest
    permissions:
      security-events: write
      contents: read
      actions: read
    steps:
      - uses: actions/checkout@9c091bb21b7c1c1d1991bb908d89e4e9dddfe3e0 # v7.0.0
      - uses: github/codeql-action/init@0d579ffd059c29b07949a3cce3983f0780820c98 # v4.32.6
        with:
          languages: python
          build-mode: none
      - uses: github/codeql-action/analyze@0d579ffd059c29b07949a3cce3983f0780820c98 # v4.32.6
        with:
          category: "/language:python"
"""


def _indent(lines: list[str], pad: str) -> str:
    return "".join((pad + line).rstrip() + "\n" for line in lines)


def render_mergify(config: Config) -> str:
    """The Mergify rule commenting on pre-commit failures, with the generated block."""
    from policytool.hooks.mergify import BEGIN, END, render_block
    from policytool.hooks.precommit import usable_model

    model = usable_model(config)
    if model is not None:
        block = render_block(config, model)
    else:
        block = [
            "To run the same pre-commit checks as CI locally:",
            "",
            "```bash",
            "pip install pre-commit",
            "pre-commit run --all-files --hook-stage manual",
            "```",
        ]
    pad = " " * 10
    return (
        f"""\
pull_request_rules:
  - name: {config.mergify.rule}
    description: Tell the author how to reproduce a failed pre-commit check
    conditions:
      - check-failure=pre-commit
      - -closed
      - -draft
    actions:
      comment:
        message: |
          ## pre-commit failed

          Hi @{{{{author}}}}, the pre-commit checks failed on this pull request.
          Install the hooks once with `pre-commit install` so they run on every commit.

{pad}{BEGIN}
"""
        + _indent(block, pad)
        + f"{pad}{END}\n"
    )
