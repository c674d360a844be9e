# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The docs' shown output, re-run: every example is defined here, once.

A page marks a fenced block with a ``<!-- policytool-example: NAME -->`` line just above
it; the block's body is what the steps of the example that fills NAME print. An example
is a throwaway git repository (``files``, committed on ``main`` at a fixed date, so
commit ids are stable) and steps run in it in order, with this environment's
``policytool`` first on PATH:

- ``Block(NAME)`` starts the output of page block NAME;
- ``Run(CMD)`` shows ``$ CMD`` and what it printed (stdout and stderr, as a terminal
  would show them), then ``(exit N)`` when N is not 0, as the README tour does;
- ``Shell(CMD)`` and ``Write(PATH, TEXT)`` change the repository and show nothing;
- ``Show(PATH)`` shows a file of the repository as it is (the input a page shows).

What is normalised, and only that: the repository's temporary directory is shown as
``/tmp/demo`` (``Example.shown_path``) and each example's ``normalise`` pairs (timings).

    python -m tests.doc_examples --check          # exit 1 and the diff when a page drifted
    python -m tests.doc_examples --write [NAME..] # rewrite the pages' blocks

tests/test_doc_examples.py runs ``--check``'s comparison; no example touches the network
(locks resolve from tests/wheelhouse.py's local wheels with ``UV_OFFLINE``).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GENERATOR = "python -m tests.doc_examples --write"

_MARKER = re.compile(
    r"^(?P<indent>[ \t]*)<!-- policytool-example: (?P<name>[a-z0-9-]+) -->\n"
    r"(?P=indent)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)\n(?P<body>.*?)"
    r"^(?P=indent)(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_FIXED_DATE = "2026-01-01T00:00:00+00:00"


@dataclasses.dataclass(frozen=True)
class Block:
    """Start the output of the page block ``name``."""

    name: str


@dataclasses.dataclass(frozen=True)
class Run:
    """Show ``$ cmd`` and its output; ``head`` keeps the first lines and a ``...`` line;
    ``prompt=False`` shows the output alone (a report a page shows as a document)."""

    cmd: str
    head: int | None = None
    prompt: bool = True


@dataclasses.dataclass(frozen=True)
class Shell:
    """Run ``cmd`` in the repository, showing nothing; it must exit 0."""

    cmd: str


@dataclasses.dataclass(frozen=True)
class Write:
    """Write ``text`` to the file ``path`` of the repository, showing nothing."""

    path: str
    text: str


@dataclasses.dataclass(frozen=True)
class Show:
    """Show the file ``path`` of the repository, as it is."""

    path: str


Step = Block | Run | Shell | Write | Show


@dataclasses.dataclass(frozen=True)
class Example:
    """A repository made of ``files`` (plus ``setup(root)``) and the steps run in it."""

    files: Mapping[str, str]
    steps: Sequence[Step]
    setup: Callable[[Path], Mapping[str, str]] | None = None
    shown_path: str = "/tmp/demo"
    normalise: Sequence[tuple[str, str]] = ()


def _env(extra: Mapping[str, str]) -> dict[str, str]:
    """A quiet, stable environment: no user git config, no uv/pip/policytool settings."""
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "policytool").exists():
        raise SystemExit(f"no policytool next to {sys.executable}: run this from its venv")
    drop = ("UV_", "PIP_", "GIT_", "POLICYTOOL_", "PRE_COMMIT")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(
        {
            "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
            "GIT_AUTHOR_NAME": "demo",
            "GIT_AUTHOR_EMAIL": "demo@example.invalid",
            "GIT_COMMITTER_NAME": "demo",
            "GIT_COMMITTER_EMAIL": "demo@example.invalid",
            "GIT_AUTHOR_DATE": _FIXED_DATE,
            "GIT_COMMITTER_DATE": _FIXED_DATE,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "NO_COLOR": "1",
            "LC_ALL": "C.UTF-8",
            "UV_OFFLINE": "1",
            "PIP_NO_INDEX": "1",
        }
    )
    env.update(extra)
    return env


def _sh(cmd: str, cwd: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """``bash -c cmd`` in ``cwd``, stderr merged into stdout as a terminal shows them."""
    return subprocess.run(
        ["bash", "-c", cmd],
        cwd=cwd,
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
    )


def run_example(example: Example) -> dict[str, str]:
    """Block name -> the text the example's steps print for it."""
    with tempfile.TemporaryDirectory(prefix="policytool-doc-") as tmp:
        root = Path(tmp) / "demo"
        root.mkdir()
        extra = dict(example.setup(root)) if example.setup else {}
        env = _env(extra)
        for rel, text in example.files.items():
            _write(root, Write(rel, text))
        init = "git init -q -b main && git add -A && git commit -q --allow-empty -m demo"
        proc = _sh(init, root, env)
        if proc.returncode:
            raise RuntimeError(f"git init of an example failed: {proc.stdout}")
        parts: dict[str, list[str]] = {}
        current: list[str] | None = None
        for step in example.steps:
            if isinstance(step, Block):
                current = parts.setdefault(step.name, [])  # a block may be resumed
            elif isinstance(step, Shell):
                proc = _sh(step.cmd, root, env)
                if proc.returncode:
                    raise RuntimeError(f"{step.cmd!r} exited {proc.returncode}: {proc.stdout}")
            elif isinstance(step, Write):
                _write(root, step)
            elif current is None:
                raise RuntimeError(f"{step} before any Block")
            elif isinstance(step, Show):
                current.append((root / step.path).read_text(encoding="utf-8"))
            else:
                current.append(_run(step, root, env))
        return {name: _normalise("".join(texts), example, root) for name, texts in parts.items()}


def _write(root: Path, step: Write) -> None:
    """Write a file of the example (executable when it starts with ``#!``)."""
    path = root / step.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(step.text, encoding="utf-8")
    if step.text.startswith("#!"):
        path.chmod(0o755)


def _run(step: Run, root: Path, env: Mapping[str, str]) -> str:
    """``$ CMD``, what it printed (cut after ``head`` lines) and ``(exit N)`` unless 0."""
    proc = _sh(step.cmd, root, env)
    out = proc.stdout
    if step.head is not None:
        lines = out.splitlines(keepends=True)
        if len(lines) > step.head:
            out = "".join(lines[: step.head]) + "...\n"
    if not step.prompt:
        return out
    code = f"(exit {proc.returncode})\n" if proc.returncode else ""
    return f"$ {step.cmd}\n{out}{code}"


def _normalise(text: str, example: Example, root: Path) -> str:
    """``text`` with the temporary directory shown as ``shown_path`` and ``normalise`` applied."""
    for real in (str(root.resolve()), str(root)):
        text = text.replace(real, example.shown_path)
    for pattern, repl in example.normalise:
        text = re.sub(pattern, repl, text)
    return text


def _dedent(body: str, indent: str) -> str:
    """``body`` without the ``indent`` of a block inside a list item."""
    lines = body.splitlines(keepends=True)
    return "".join(line[len(indent) :] if line.startswith(indent) else line for line in lines)


def _indent(body: str, indent: str) -> str:
    """``body`` with ``indent`` before every line that is not empty."""
    lines = body.splitlines(keepends=True)
    return "".join(indent + line if line.strip() else line for line in lines)


def page_blocks(text: str) -> dict[str, str]:
    """Block name -> the body of a page's marked fenced block (a list item's indent removed)."""
    return {
        m.group("name"): _dedent(m.group("body"), m.group("indent")) for m in _MARKER.finditer(text)
    }


def replace_blocks(text: str, blocks: Mapping[str, str]) -> str:
    """``text`` with the body of each marked block named in ``blocks`` replaced."""

    def body(match: re.Match[str]) -> str:
        name, fence, indent = match.group("name"), match.group("fence"), match.group("indent")
        if name not in blocks:
            return match.group(0)
        new = blocks[name]
        if re.search(rf"^[ \t]*{re.escape(fence)}", new, re.MULTILINE):
            raise ValueError(f"example {name}: its output holds the fence {fence}; lengthen it")
        return (
            f"{indent}<!-- policytool-example: {name} -->\n"
            f"{indent}{fence}{match.group('info')}\n{_indent(new, indent)}{indent}{fence}"
        )

    return _MARKER.sub(body, text)


def marked_pages() -> dict[Path, dict[str, str]]:
    """Every page of docs/ (and README.md) with marked blocks: its blocks."""
    generated = {DOCS / "config.md"}  # from config.md.in, which holds the blocks
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), DOCS / "config.md.in"]
    pages = [page for page in pages if page not in generated]
    out = {}
    for page in pages:
        blocks = page_blocks(page.read_text(encoding="utf-8"))
        if blocks:
            out[page] = blocks
    return out


def run_all(names: Sequence[str] = ()) -> dict[str, str]:
    """Run every example (or those filling ``names``) two at a time: block -> output."""
    from tests.doc_examples_defs import EXAMPLES

    chosen = [
        ex
        for ex in EXAMPLES
        if not names or any(isinstance(s, Block) and s.name in names for s in ex.steps)
    ]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run_example, chosen))
    blocks: dict[str, str] = {}
    for result in results:
        for name, text in result.items():
            if name in blocks:
                raise ValueError(f"two examples fill the block {name}")
            blocks[name] = text
    return blocks


def drift(blocks: Mapping[str, str]) -> list[str]:
    """A unified diff per page block that differs from what the examples print."""
    out = []
    for page, shown in marked_pages().items():
        for name, body in shown.items():
            if name in blocks and blocks[name] != body:
                rel = page.relative_to(ROOT)
                diff = difflib.unified_diff(
                    body.splitlines(keepends=True),
                    blocks[name].splitlines(keepends=True),
                    f"{rel} ({name})",
                    "a run",
                )
                out.append("".join(diff))
    return out


def write(blocks: Mapping[str, str]) -> list[Path]:
    """Rewrite the pages whose marked blocks differ from ``blocks``: the pages written."""
    written = []
    for page in marked_pages():
        text = page.read_text(encoding="utf-8")
        new = replace_blocks(text, blocks)
        if new != text:
            page.write_text(new, encoding="utf-8")
            written.append(page)
    if DOCS / "config.md.in" in written:
        from policytool.engine.config_docs import config_md

        (DOCS / "config.md").write_text(config_md(DOCS), encoding="utf-8")
        written.append(DOCS / "config.md")
    return written


def main(argv: Sequence[str]) -> int:
    """``--check`` or ``--write [NAME...]``."""
    if not argv or argv[0] not in ("--check", "--write"):
        print("usage: python -m tests.doc_examples --check | --write [NAME...]", file=sys.stderr)
        return 2
    blocks = run_all(argv[1:])
    if argv[0] == "--write":
        for page in write(blocks):
            print(f"wrote {page.relative_to(ROOT)}", file=sys.stderr)
        return 0
    drifted = drift(blocks)
    sys.stdout.write("".join(drifted))
    return 1 if drifted else 0


if __name__ == "__main__":
    # tests.doc_examples_defs builds its steps from the module's classes, not __main__'s
    from tests.doc_examples import main as _main

    raise SystemExit(_main(sys.argv[1:]))
