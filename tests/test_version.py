# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The version is written once (pyproject.toml) and read from the package metadata,
lazily: start-up does not pay for ``importlib.metadata``."""

from __future__ import annotations

import ast
import importlib.metadata
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import policytool
from tests.conftest import Repo, Result

Run = Callable[..., Result]
PACKAGE = Path(policytool.__file__).resolve().parent
INSTALLED = importlib.metadata.version("policytool")


def test_version_option_prints_the_metadata_version(run: Run) -> None:
    """``policytool --version`` shows the installed distribution's version."""
    result = run("--version")
    assert result.code == 0
    assert result.out.strip() == f"policytool, version {INSTALLED}"


def test_dunder_version_is_the_metadata_version() -> None:
    """``policytool.__version__`` still works, and agrees with the metadata."""
    assert policytool.__version__ == INSTALLED


def test_sarif_names_the_metadata_version(repo: Repo, run: Run) -> None:
    """The SARIF driver version is the installed version."""
    repo.write("a.py", "x = 1\n")
    repo.commit()
    result = run("check", "--format", "sarif")
    driver = json.loads(result.out)["runs"][0]["tool"]["driver"]
    assert driver["version"] == INSTALLED


def test_no_version_literal_in_the_package() -> None:
    """No module of the package spells the version: pyproject.toml is its one home."""
    spelled = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value == INSTALLED:
                spelled.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert spelled == []


def test_start_up_does_not_import_importlib_metadata() -> None:
    """Reading the metadata costs tens of ms: the CLI's import must not pay it."""
    code = "import sys, policytool.cli; print('importlib.metadata' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"
