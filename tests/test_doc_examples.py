# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The docs' shown output is a real run: every marked block is re-run and compared."""

from __future__ import annotations

import pytest

from tests import doc_examples
from tests.doc_examples import Block, Example, Run, Shell, Show
from tests.doc_examples_defs import AWAITING_MARKER, EXAMPLES


def _names(example: Example) -> list[str]:
    """The page blocks ``example`` fills, in order."""
    return list(dict.fromkeys(s.name for s in example.steps if isinstance(s, Block)))


def test_every_marked_block_has_one_example() -> None:
    """Each ``<!-- policytool-example: NAME -->`` block of README.md and docs/ is filled by
    an example, and every example's blocks are on a page (or await a marker)."""
    defined = {name for example in EXAMPLES for name in _names(example)}
    shown = {name for page in doc_examples.marked_pages().values() for name in page}
    assert shown <= defined, f"marked but no example: {sorted(shown - defined)}"
    unshown = defined - shown
    assert unshown <= AWAITING_MARKER, f"an example no page shows: {sorted(unshown)}"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: _names(e)[0])
def test_marked_blocks_are_what_the_example_prints(example: Example) -> None:
    """The pages' blocks this example fills are what it prints now (one example a test,
    so pytest-xdist spreads them); regenerate with GENERATOR."""
    drifted = doc_examples.drift(doc_examples.run_example(example))
    assert not drifted, f"docs drifted; run {doc_examples.GENERATOR}\n" + "\n".join(drifted)


def test_block_names_are_unique_across_examples() -> None:
    """A block is filled by one example (a block an example resumes counts once)."""
    names = [
        name
        for example in EXAMPLES
        for name in {step.name for step in example.steps if isinstance(step, Block)}
    ]
    assert len(names) == len(set(names))


def test_an_example_shows_commands_output_exit_codes_and_files() -> None:
    """``$ CMD``, its stdout and stderr, ``(exit N)``; ``head`` cuts with ``...``; the
    temporary directory is shown as ``shown_path``; Shell steps show nothing."""
    example = Example(
        files={"a.txt": "one\ntwo\nthree\n"},
        steps=[
            Block("x"),
            Run("cat a.txt", head=2),
            Shell("echo hidden; echo more >> a.txt"),
            Run("pwd; echo oops >&2; exit 3"),
            Block("y"),
            Show("a.txt"),
            Block("x"),
            Run("git log --format=%H%x20%ad --date=iso-strict"),
        ],
        normalise=[(r"[0-9a-f]{40}", "SHA")],
    )
    blocks = doc_examples.run_example(example)
    assert blocks == {
        "x": (
            "$ cat a.txt\none\ntwo\n...\n"
            "$ pwd; echo oops >&2; exit 3\n/tmp/demo\noops\n(exit 3)\n"
            "$ git log --format=%H%x20%ad --date=iso-strict\nSHA 2026-01-01T00:00:00+00:00\n"
        ),
        "y": "one\ntwo\nthree\nmore\n",
    }


def test_a_failing_setup_step_is_an_error_not_output() -> None:
    """A Shell step that fails stops the example: no page is written from it."""
    example = Example(files={}, steps=[Block("x"), Shell("false")])
    with pytest.raises(RuntimeError, match="'false' exited 1"):
        doc_examples.run_example(example)


def test_replace_blocks_rewrites_only_marked_bodies() -> None:
    """Only the body of a marked fence changes; the rest of the page stays byte for byte;
    output holding the fence is refused."""
    page = (
        "# T\n\n```console\n$ untouched\n```\n\n"
        "<!-- policytool-example: a -->\n```console\nold\n```\n\ntext\n"
        "<!-- policytool-example: b -->\n````markdown\n```\nkept\n```\n````\n"
    )
    assert doc_examples.page_blocks(page) == {"a": "old\n", "b": "```\nkept\n```\n"}
    new = doc_examples.replace_blocks(page, {"a": "$ new\nout\n"})
    assert new == page.replace("```console\nold\n```", "```console\n$ new\nout\n```")
    assert doc_examples.replace_blocks(new, {"a": "old\n"}) == page
    with pytest.raises(ValueError, match="example a: its output holds the fence"):
        doc_examples.replace_blocks(page, {"a": "```\n"})


def _tour_commands() -> dict[str, list[str]]:
    """Block name -> the commands docs/tour.sh shows in it (its ``run`` lines), in order."""
    import shlex

    commands: dict[str, list[str]] = {}
    current: list[str] = []
    tour = (doc_examples.DOCS / "tour.sh").read_text(encoding="utf-8")
    for line in tour.splitlines():
        stripped = line.strip()
        if stripped.startswith("block ") and not stripped.startswith("block()"):
            current = commands.setdefault(stripped.split()[1], [])
        elif stripped.startswith("run ") and not stripped.startswith("run()"):
            current.append(" ".join(shlex.split(stripped)[1:]))
    return commands


def test_readme_shows_the_commands_tour_sh_runs() -> None:
    """Each README tour block's ``$`` lines are the commands docs/tour.sh runs for it, and
    quickstart step 1's policytool commands are among them (step 2 is `.ci/run`'s)."""
    from tests.readme_tour import readme_blocks

    readme = (doc_examples.ROOT / "README.md").read_text(encoding="utf-8")
    shown = {
        name: [line[2:] for line in body.splitlines() if line.startswith("$ ")]
        for name, body in readme_blocks(readme).items()
    }
    run = _tour_commands()
    assert shown == run
    quickstart = readme.split("## Quickstart", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    step1 = next(line for line in quickstart.splitlines() if line.startswith("python3 -m venv"))
    wanted = [c.strip() for c in step1.split("&&") if c.strip().startswith("policytool ")]
    assert wanted == ["policytool check", "policytool lock --check"]
    assert set(wanted) <= {c for commands in run.values() for c in commands}


def test_readme_tour_check_fails_on_a_command_tour_sh_does_not_run() -> None:
    """The comparison above sees a README command edited by hand."""
    from tests.readme_tour import readme_blocks

    readme = (doc_examples.ROOT / "README.md").read_text(encoding="utf-8")
    edited = readme.replace("$ policytool sync --check\n", "$ policytool sync\n", 1)
    shown = {
        name: [line[2:] for line in body.splitlines() if line.startswith("$ ")]
        for name, body in readme_blocks(edited).items()
    }
    assert shown != _tour_commands()


def test_a_block_inside_a_list_item_keeps_its_indent() -> None:
    """A marked block indented in a list item is compared without, written with its indent."""
    page = "- item:\n\n  <!-- policytool-example: a -->\n  ```console\n  $ old\n\n  x\n  ```\n"
    assert doc_examples.page_blocks(page) == {"a": "$ old\n\nx\n"}
    new = doc_examples.replace_blocks(page, {"a": "$ new\n\ny\n"})
    assert new == page.replace("$ old\n\n  x", "$ new\n\n  y")
