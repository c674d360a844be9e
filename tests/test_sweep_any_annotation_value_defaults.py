# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for a field or default whose value the annotation cannot hold: a
display of another kind (a tuple under ``List``), a tuple of other than one item under
``Tuple[X]`` (through ``Annotated`` too), and a class where an instance of it or of one
of its bases is annotated (marker's ``default_llm_service: BaseService =
GoogleGeminiService``, read from set zzzb after its unseen figure was taken)."""

from __future__ import annotations

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

SERVICES = """\
class BaseService:
    pass


class GoogleGeminiService(BaseService):
    pass
"""


def wrong(run: Run) -> list[tuple[int, str]]:
    """(line, message) of each any-annotation ✗ in ``pkg/conv.py``."""
    return sorted(
        (line, m)
        for path, line, severity, m in found(run, "any-annotation")
        if severity == "error" and path == "pkg/conv.py"
    )


def _write(feature: Repo, field: str, imports: str = "") -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/services.py", SERVICES)
    feature.write(
        "pkg/conv.py",
        "from typing import Annotated, List, Optional, Sequence, Tuple, Type\n"
        f"from pkg.services import BaseService, GoogleGeminiService\n{imports}"
        "\n\n"
        "class Converter:\n"
        f"    {field}\n",
    )
    feature.commit("converter")


@pytest.mark.parametrize(
    ("field", "says"),
    [
        ("kinds: List[int] = (1, 2)", "its value is a tuple"),
        ("kinds: Tuple[int] = (1, 2)", "a tuple of 2 items"),
        ('kinds: Annotated[Tuple[int], "shown in --help"] = (1, 2)', "a tuple of 2 items"),
        ("service: BaseService = GoogleGeminiService", "annotate `type[BaseService]`"),
        ("service: Optional[BaseService] = GoogleGeminiService", "the class `GoogleGeminiService`"),
        ("service: GoogleGeminiService = GoogleGeminiService", "not an instance"),
        ("procs: Tuple[BaseService, ...] = (GoogleGeminiService,)", "type[BaseService]"),
        ("procs: List[BaseService] = [GoogleGeminiService]", "not `BaseService` instances"),
    ],
)
def test_a_value_the_annotation_cannot_hold_is_an_error(
    feature: Repo, run: Run, field: str, says: str
) -> None:
    _write(feature, field)
    got = wrong(run)
    assert [line for line, _m in got] == [6], got
    assert says in got[0][1], got


@pytest.mark.parametrize(
    "field",
    [
        "kinds: Sequence[int] = (1, 2)",
        "kinds: Tuple[int, ...] = (1, 2)",
        "kinds: Tuple[int] = (1,)",
        "service: Type[BaseService] = GoogleGeminiService",
        "service: type = GoogleGeminiService",
        "procs: Tuple[Type[BaseService], ...] = (GoogleGeminiService,)",
        # an unrelated class: it may be a factory the annotation describes (no lineage)
        "service: Factory = GoogleGeminiService",
        # a name the module binds otherwise may be an instance
        "service: BaseService = default_service",
    ],
)
def test_a_value_the_annotation_may_hold_is_no_error(feature: Repo, run: Run, field: str) -> None:
    _write(
        feature,
        field,
        "\n\nclass Factory:\n    pass\n\n\ndefault_service = GoogleGeminiService()\n",
    )
    assert wrong(run) == []


def test_a_parameter_default_is_read_the_same_way(feature: Repo, run: Run) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/services.py", SERVICES)
    feature.write(
        "pkg/conv.py",
        "from pkg.services import BaseService, GoogleGeminiService\n"
        "\n\n"
        "def build(service: BaseService = GoogleGeminiService, n: list[int] = (1,)) -> int:\n"
        "    return 1\n",
    )
    feature.commit("build")
    got = wrong(run)
    # one ✗ for the signature's line, naming both defaults
    assert [line for line, _m in got] == [4], got
    assert "the class `GoogleGeminiService`" in got[0][1] and "a tuple" in got[0][1], got


def test_an_old_field_the_change_does_not_touch_is_not_reported(feature: Repo, run: Run) -> None:
    feature.git("checkout", "-q", "main")
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/services.py", SERVICES)
    feature.write(
        "pkg/conv.py",
        "from pkg.services import BaseService, GoogleGeminiService\n"
        "\n\n"
        "class Converter:\n"
        "    service: BaseService = GoogleGeminiService\n",
    )
    feature.commit("old")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    feature.write(
        "pkg/conv.py",
        "from pkg.services import BaseService, GoogleGeminiService\n"
        "\n\n"
        "class Converter:\n"
        "    service: BaseService = GoogleGeminiService\n"
        "    retries: int = 3\n",
    )
    feature.commit("new field")
    assert wrong(run) == []


def test_one_more_item_in_an_old_multi_line_value_is_not_reported(feature: Repo, run: Run) -> None:
    # marker 2ec3d720: ``BlockRelabelProcessor,`` added to the old ``default_processors:
    # Tuple[BaseProcessor, ...] = (...)`` (its labeller: no site, the field's line is old).
    old = (
        "from typing import Tuple\n"
        "from pkg.services import BaseService, GoogleGeminiService\n"
        "\n\n"
        "class Converter:\n"
        "    procs: Tuple[BaseService, ...] = (\n"
        "        GoogleGeminiService,\n"
        "    )\n"
    )
    feature.git("checkout", "-q", "main")
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/services.py", SERVICES + "\n\nclass Other(BaseService):\n    pass\n")
    feature.write("pkg/conv.py", old)
    feature.commit("old")
    feature.git("checkout", "-q", "feature")
    feature.git("merge", "-q", "main")
    new = old.replace(
        "        GoogleGeminiService,\n", "        GoogleGeminiService,\n        Other,\n"
    )
    feature.write(
        "pkg/conv.py", new.replace("GoogleGeminiService\n", "GoogleGeminiService, Other\n")
    )
    feature.commit("one more")
    assert wrong(run) == []


BLOCKS = """\
from typing import Type


class Block:
    pass


class Char(Block):
    pass


def get_block_class(kind: str) -> Type[Block]:
    return Char


def make_char() -> Char:
    return Char()
"""


@pytest.mark.parametrize(
    ("statement", "reported"),
    [
        # marker 3f7a416b: ``CharClass: Char = get_block_class(BlockTypes.Char)``
        ('char_class: Char = get_block_class("char")', True),
        ("char_class: Block = local_class()", True),
        ('char_class: Optional[Char] = get_block_class("char")', True),
        ('char_class: Type[Block] = get_block_class("char")', False),
        ("char: Char = make_char()", False),
        ("char: Char = Char()", False),
        ('char: int = get_block_class("char")', False),
    ],
)
def test_a_call_returning_a_class_under_an_instance_annotation(
    feature: Repo, run: Run, statement: str, reported: bool
) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/blocks.py", BLOCKS)
    feature.write(
        "pkg/conv.py",
        "from typing import Optional, Type\n"
        "from pkg.blocks import Block, Char, get_block_class, make_char\n"
        "\n\n"
        'def local_class() -> "type[Block]":\n'
        "    return Char\n"
        "\n\n"
        "def build() -> None:\n"
        f"    {statement}\n",
    )
    feature.commit("build")
    got = wrong(run)
    assert [line for line, _m in got] == ([10] if reported else []), got
    if reported:
        assert "its value is a class" in got[0][1] and "annotate `type[" in got[0][1], got
