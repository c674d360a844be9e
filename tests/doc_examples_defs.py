# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The examples the docs show, each once: its repository and its commands.

Block names are ``PAGE-WHAT``; tests/doc_examples.py runs them and fills the pages.
"""

from __future__ import annotations

from tests.doc_examples import Block, Example, Run

_SPDX_PYPROJECT = """\
[tool.policytool.spdx]
license = "Apache-2.0"
copyright = "Copyright contributors to the demo project"
"""

# -- docs/check.md ------------------------------------------------------------------------

CHECK_CONFIG_ERROR = Example(
    files={
        "pyproject.toml": '[tool.policytool.spdx]\nlicence = "Apache-2.0"\n',
        "a.py": "print('a')\n",
    },
    steps=[Block("check-config-error"), Run("policytool check")],
)

CHECK_DEMO = Example(
    files={
        "pyproject.toml": _SPDX_PYPROJECT,
        "ok.py": (
            "# SPDX-License-Identifier: MIT\n"
            "# SPDX-FileCopyrightText: Copyright contributors to the demo project\n"
            'print("ok")\n'
        ),
        "tool.py": '#!/usr/bin/env python3\nprint("tool")\n',
    },
    steps=[
        Block("check-demo"),
        Run("policytool check"),
        Run("policytool check --format github", head=1),
        Block("check-markdown"),
        Run("policytool check --format markdown"),
        Block("check-demo"),
        Run("policytool fix"),
        Run("head -3 tool.py"),
    ],
)

EXAMPLES: list[Example] = [
    CHECK_CONFIG_ERROR,
    CHECK_DEMO,
]
