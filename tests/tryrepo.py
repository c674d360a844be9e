# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Run this checkout's published hooks with real ``pre-commit try-repo``.

try-repo clones this checkout (with a shadow commit of uncommitted tracked changes),
installs policytool from it into a virtualenv (its dependencies come from the package
index) and runs a hook in a temporary git repo. One pre-commit home is shared by the
whole session (the ``pre_commit_home`` fixture in conftest), so the hook environment is
built once, not once a test. The ``pypi`` fixture skips, with the reason, only when the
package index cannot be reached.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tests.conftest import GIT_ENV, Repo

PROJECT = Path(__file__).resolve().parents[1]
MANIFEST = PROJECT / ".pre-commit-hooks.yaml"


def pypi_unreachable() -> str | None:
    """Why try-repo cannot install the hook's dependencies, or None when it can."""
    try:
        with urllib.request.urlopen("https://pypi.org/simple/click/", timeout=10) as response:
            response.read(100)
    except (urllib.error.URLError, OSError) as exc:
        return f"PyPI is unreachable ({exc}); try-repo installs the hook's dependencies from it"
    return None


def try_repo(repo: Repo, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo <this checkout> ARGS --all-files`` in ``repo``, isolated."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "PRE_COMMIT"))}
    env.update(GIT_ENV)
    env.update({"PIP_CONFIG_FILE": os.devnull, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"})
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(PROJECT),
            *args,
            "--all-files",
            "--color=never",
        ],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
