# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation: a fake put in a local variable that a replacement returns (``result =
SimpleNamespace(...)`` then ``monkeypatch.setattr(mod.subprocess, "run", lambda *a, **k:
result)``; an element of ``results = iter([...])`` a nested ``def fake_run`` returns with
``next(results)``) stands in for what the real, patched function returns, as a fake the
replacement returns itself does. Data flow only: the variable's name says nothing."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

RUNNER = (
    "import subprocess\n\n\nclass Layer:\n    def __init__(self):\n        self.size = 1\n\n\n"
    "def make_layer():\n    return Layer()\n\n\n"
    "def probe() -> str:\n    return subprocess.run(['deno', '-V']).stdout\n"
)

TEST = """\
import types

import pkg.runner as module


def test_lambda_returns_a_local(monkeypatch):
    result = types.SimpleNamespace(returncode=1, stdout="", stderr="boom")
    monkeypatch.setattr(module.subprocess, "run", lambda *args, **kwargs: result)
    assert module.probe() == ""


def test_replacement_takes_the_next_element(monkeypatch):
    results = iter(
        [
            types.SimpleNamespace(returncode=0, stdout="deno 2.9.5", stderr=""),
            types.SimpleNamespace(returncode=0, stdout="deno 2.9.4", stderr=""),
        ]
    )

    def fake_run(*args, **kwargs):
        return next(results)

    monkeypatch.setattr(module.subprocess, "run", fake_run)
    assert module.probe()


def test_negatives(monkeypatch):
    odd = types.SimpleNamespace(returncode=1, pid=3)
    monkeypatch.setattr(module.subprocess, "run", lambda *a, **k: odd)
    layer = types.SimpleNamespace(size=2)
    monkeypatch.setattr(module, "make_layer", lambda: layer)
    kept = types.SimpleNamespace(returncode=0, stdout="")

    def shadowing(*args, **kwargs):
        kept = object()
        return kept

    monkeypatch.setattr(module.subprocess, "run", shadowing)
    unused = types.SimpleNamespace(returncode=0, stdout="")
    monkeypatch.setattr(module.subprocess, "run", lambda *a, **k: unused.stdout)
"""


def test_a_local_a_patched_replacement_returns(feature: Repo, run: Run) -> None:
    """dspy ``test_python_interpreter.py``: ``result = SimpleNamespace(returncode=...,
    stdout=..., stderr=...)`` returned by a lambda patched over ``subprocess.run``, and
    two fakes of ``iter([...])`` a nested ``fake_run`` hands out with ``next``: ✗ naming
    ``CompletedProcess``. Not: a keyword ``CompletedProcess`` lacks (``pid``), a plain
    class of the repository (``Layer``), a replacement whose own local shadows the name,
    one that returns an attribute of the fake rather than the fake."""
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/runner.py", RUNNER)
    feature.write("tests/test_runner.py", TEST)
    feature.commit("add")
    rows = [r for r in found(run, "any-annotation") if r[0].startswith("tests/")]
    errors = [r[1] for r in rows if r[2] == "error"]
    assert errors == [7, 15, 16], rows
    for row in rows:
        if row[2] == "error":
            assert "stands in for `CompletedProcess`" in row[3], row
            assert "what the patched `subprocess.run` returns" in row[3], row
    assert sorted(r[1] for r in rows if r[2] == "warning") == [28, 30, 32, 39], rows
