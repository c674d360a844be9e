# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup: a read whose key sits on the line after the bracket (``kwargs.get(\\n
"max_num_patches", default)``, black's layout of a read with a long default) is a read the
base already made. mlx-vlm 65a4ed3b edits only the default of such a read in an older
``__init__(**kwargs)`` that drops unknown keys; the base map's text scan missed the wrapped
key, so the old key read as new and the read was a dropped-keys ✗. The read is not new at
all: only its default's line is added, and the brief's site is the lookup line."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

PROCESSOR = """\
class ImageProcessor:
    def __init__(self, **kwargs):
        self.tokens = kwargs.get("max_image_tokens", 256)
        self.max_num_patches = kwargs.get(
            "max_num_patches",
            {default},
        )
"""
FEATURE_BASE = {
    "pkg/__init__.py": "",
    "pkg/processing.py": PROCESSOR.format(default="self.tokens * 4"),
}


def test_an_edited_default_of_a_wrapped_old_read_is_no_new_read(feature: Repo, run: Run) -> None:
    """Only the default's line is added: the lookup line and its key are old, so there is
    no new read to report (not the dropped-keys ✗ of a new key, not a ⚠ either)."""
    feature.write("pkg/processing.py", PROCESSOR.format(default="max(self.tokens * 4, 1024)"))
    assert found(run, "kwargs-lookup") == []


def test_a_rewritten_key_line_of_a_wrapped_old_read_is_a_rewritten_read(
    feature: Repo, run: Run
) -> None:
    """The key's line rewritten (a quote style changed): a read the change writes, of a key
    the function read before: ⚠, not the ✗ of a new key."""
    feature.write(
        "pkg/processing.py",
        PROCESSOR.format(default="self.tokens * 4").replace(
            '"max_num_patches",', "'max_num_patches',"
        ),
    )
    rows = found(run, "kwargs-lookup")
    assert [(r[0], r[1], r[2]) for r in rows] == [("pkg/processing.py", 4, "warning")]
    assert "silently dropped" not in rows[0][3]


def test_a_wrapped_read_of_a_new_key_is_still_the_dropped_keys_error(
    feature: Repo, run: Run
) -> None:
    """The same layout reading a key the base never read: the ✗ stands."""
    feature.write(
        "pkg/processing.py",
        PROCESSOR.format(default="self.tokens * 4")
        + '        self.tiles = kwargs.get(\n            "max_tiles",\n            4,\n        )\n',
    )
    rows = found(run, "kwargs-lookup")
    assert [(r[1], r[2]) for r in rows] == [(8, "error")]
    assert "silently dropped on fail-fast path `__init__`" in rows[0][3]
