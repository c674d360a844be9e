# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The README's tour blocks: parse what ``docs/tour.sh`` prints, rewrite README.md.

``docs/tour.sh`` prints blocks, each opened by a ``<!-- tour:NAME -->`` line. In README.md
the block NAME is a fenced ``console`` block between ``<!-- tour:NAME -->`` and
``<!-- /tour:NAME -->``. ``python -m tests.readme_tour README.md < tour-output`` replaces the
blocks the output holds (``docs/tour.sh --write`` runs it); tests/test_docs.py compares.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

_OPEN = re.compile(r"^<!-- tour:([a-z0-9-]+) -->$", re.MULTILINE)
_README_BLOCK = re.compile(
    r"^<!-- tour:(?P<name>[a-z0-9-]+) -->\n```console\n(?P<body>.*?)```\n"
    r"<!-- /tour:(?P=name) -->$",
    re.MULTILINE | re.DOTALL,
)


def parse_output(text: str) -> dict[str, str]:
    """Block name -> the lines ``docs/tour.sh`` printed for it (each ending in a newline)."""
    parts = _OPEN.split(text)
    return {name: body.lstrip("\n") for name, body in zip(parts[1::2], parts[2::2], strict=True)}


def readme_blocks(readme: str) -> dict[str, str]:
    """Block name -> the body of README.md's fenced block between its markers."""
    return {m.group("name"): m.group("body") for m in _README_BLOCK.finditer(readme)}


def replace_blocks(readme: str, blocks: dict[str, str]) -> str:
    """``readme`` with each marked block named in ``blocks`` replaced by its new body."""
    missing = sorted(set(blocks) - set(readme_blocks(readme)))
    if missing:
        raise SystemExit(f"README.md has no tour markers for: {', '.join(missing)}")

    def body(match: re.Match[str]) -> str:
        name = match.group("name")
        new = blocks.get(name, match.group("body"))
        return f"<!-- tour:{name} -->\n```console\n{new}```\n<!-- /tour:{name} -->"

    return _README_BLOCK.sub(body, readme)


def main(argv: list[str]) -> int:
    """``python -m tests.readme_tour README.md < output``: rewrite the README's tour blocks."""
    if len(argv) != 1:
        print("usage: docs/tour.sh | python -m tests.readme_tour README.md", file=sys.stderr)
        return 2
    readme = Path(argv[0])
    blocks = parse_output(sys.stdin.read())
    if not blocks:
        print("tests/readme_tour.py: no tour blocks on stdin", file=sys.stderr)
        return 1
    text = readme.read_text(encoding="utf-8")
    new = replace_blocks(text, blocks)
    if new != text:
        readme.write_text(new, encoding="utf-8")
        print(f"wrote {readme} ({', '.join(blocks)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
