# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, ``Any``: the ⚠ is ``Any`` leaking into a new signature (``*args: Any`` /
``**kwargs: Any`` pass-throughs and a local variable's ``: Any`` are not reported); a
loop's ``else`` counts in the fall-off analysis, and a ``try`` whose ``except`` only logs
falls off a ``-> T`` of a class."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, lines


def annotation(run: Run) -> list[tuple[int, str, str]]:
    """(line, severity, message) of each any-annotation finding, sorted."""
    return lines(run, "any-annotation")


def test_pass_through_varargs_and_local_any_are_not_reported(feature: Repo, run: Run) -> None:
    """``*args: Any`` / ``**kwargs: Any`` forward to a callee whose contract applies, and
    a local ``x: Any`` in a body is no signature; a named ``Any`` parameter, a class
    attribute, a module variable, ``-> Any`` and ``**kwargs: dict[...]`` still are."""
    feature.write(
        "pkg/m.py",
        "from typing import Any\n\n"
        "TABLE: Any = {}\n"  # 3: ⚠ module variable
        "\n\n"
        "class C:\n"
        "    slot: Any = None\n"  # 7: ⚠ class attribute
        "\n"
        "    def call(self, *args: Any, **kwargs: Any) -> None:\n"  # 9: pass-through
        "        value: Any = None\n"  # 10: local
        "        self.attr: Any = value\n"  # 11: ⚠ an instance attribute
        "        del args, kwargs\n"
        "\n"
        "    def get(self, key: Any) -> Any:\n"  # 14: ⚠ twice
        "        class Local:\n"
        "            field: Any = None\n"  # 16: ⚠ a class's attribute
        "        return key, Local\n"
        "\n\n"
        "def opts(**extra: dict[str, int]) -> None:\n"  # 20: ✗
        "    del extra\n",
    )
    feature.commit("m")
    rows = annotation(run)
    assert [(line, sev) for line, sev, _m in rows] == [
        (3, "warning"),
        (7, "warning"),
        (11, "warning"),
        (14, "warning"),
        (14, "warning"),
        (16, "warning"),
        (20, "error"),
    ], rows


def test_loop_else_and_while_true_do_not_fall_off(feature: Repo, run: Run) -> None:
    """A retry ``for ... else: raise`` (nemo-rl virtual_cluster.py) and ``while True``
    without a break cannot fall off; a loop with a ``break`` past its ``else`` can."""
    feature.write(
        "pkg/r.py",
        "def retry(n: int) -> list[int]:\n"  # 1: returns or raises
        "    for i in range(n):\n"
        "        try:\n"
        "            return [i]\n"
        "        except ValueError:\n"
        "            continue\n"
        "    else:\n"
        "        raise RuntimeError('retries')\n"
        "\n\n"
        "def poll() -> int:\n"  # 11: forever
        "    while True:\n"
        "        for j in range(3):\n"
        "            if j:\n"
        "                break\n"
        "        if poll:\n"
        "            return 1\n"
        "\n\n"
        "def search(xs: list[int]) -> int:\n"  # 20: a break skips the else: falls off
        "    for x in xs:\n"
        "        if x:\n"
        "            break\n"
        "    else:\n"
        "        return 0\n",
    )
    feature.commit("r")
    rows = annotation(run)
    assert [(line, sev) for line, sev, _m in rows] == [(20, "error")], rows
    assert "can fall off its end" in rows[0][2]


def test_an_except_that_only_logs_falls_off_a_class_annotation(feature: Repo, run: Run) -> None:
    """torchtune's ``save_config(config) -> Path``: the ``try`` returns, its ``except``
    logs a warning and the function returns None; a handler that ends in another call
    (maybe a NoReturn helper) or re-raises is not reported, nor an old function."""
    feature.git("checkout", "-q", "main")
    feature.write(
        "pkg/old.py",
        "import logging\nfrom pathlib import Path\n\nlog = logging.getLogger(__name__)\n\n\n"
        "def old(p: str) -> Path:\n"
        "    try:\n        return Path(p)\n"
        "    except ValueError as e:\n        log.warning(e)\n",
    )
    feature.commit("old")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write(
        "pkg/old.py",
        "import logging\nfrom pathlib import Path\n\nlog = logging.getLogger(__name__)\n\n\n"
        "def old(p: str) -> Path:\n"
        "    try:\n        return Path(p)\n"
        "    except ValueError as e:\n        log.warning(e)\n\n\n"
        "def fail(msg: str) -> None:\n    raise SystemExit(msg)\n",
    )
    feature.write(
        "pkg/save.py",
        "import logging\n"
        "from pathlib import Path\n\n"
        "import torch\n\n"
        "logger = logging.getLogger(__name__)\n\n\n"
        "class Box:\n    pass\n\n\n"
        "def save_config(out: str) -> Path:\n"  # 13: ✗
        "    try:\n"
        "        path = Path(out)\n"
        "        return path\n"
        "    except Exception as e:\n"
        "        logger.warning(f'Error saving config: {e}')\n"
        "\n\n"
        "def helper(out: str) -> Path:\n"  # 21: a call that may not return
        "    try:\n"
        "        return Path(out)\n"
        "    except OSError as e:\n"
        "        fail(str(e))\n"
        "\n\n"
        "def tensor(n: int) -> torch.Tensor:\n"  # 28: ✗ print returns
        "    if n:\n"
        "        return torch.zeros(n)\n"
        "    print('empty')\n"
        "\n\n"
        "def box(n: int) -> 'Box | None':\n"  # 34: admits None
        "    if n:\n"
        "        return Box()\n"
        "    logger.info('none')\n",
    )
    feature.commit("save")
    rows = annotation(run)
    assert [(line, sev) for line, sev, _m in rows if sev == "error"] == [
        (13, "error"),
        (28, "error"),
    ], rows
    assert rows[0][2] == (
        "`save_config` is annotated `-> Path` but can fall off its end and return None"
    )


def test_a_rewritten_return_of_the_same_kind_is_not_new_evidence(feature: Repo, run: Run) -> None:
    """Item 6 (nanotron qwen.py:595): the change adds an element to an old tuple return
    under an old ``-> List[...]``; the mismatch is as old as the return. A return whose
    kind the change turns into a tuple, or a new tuple return, is new evidence."""
    feature.git("checkout", "-q", "main")
    body = (
        "from typing import List\n\n\n"
        "def core(a: int, b: int) -> List[int]:\n"
        "    return a, b\n\n\n"
        "def other(a: int, b: int) -> List[int]:\n"
        "    return [a]\n\n\n"
        "def third(a: int, b: int) -> List[int]:\n"
        "    if a:\n"
        "        b += 1\n"
        "    return [a, b]\n\n\n"
        "def flag(a: int) -> bool:\n"
        "    return None\n"
    )
    feature.write("pkg/q.py", body)
    feature.commit("old")
    feature.git("checkout", "-q", "-B", "feature")
    feature.write(
        "pkg/q.py",
        body.replace("    return a, b\n", "    return a, b, a + b\n")  # 5: same kind
        .replace("    return [a]\n", "    return a, b\n")  # 9: list -> tuple
        .replace("        b += 1\n", "        return a, b\n")  # 14: a new return
        .replace("    return None\n", "    return  None\n"),  # 19: same kind
    )
    feature.commit("edit")
    rows = [(line, sev) for line, sev, _m in annotation(run)]
    assert rows == [(9, "error"), (14, "error")], rows
