# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation, test fakes built by a comprehension and SQLModel records (set zzzt,
gpustack):

    workers = [SimpleNamespace(name=f"worker-{i}") for i in range(5)]
    await read_local_path_file_from_workers(model, "config.json", workers)

Each element of the comprehension is a fake, as each element of a display is: handed on
whole, the list fills the parameter's element type (``workers: List[Worker]``), the
parameter deciding over any other annotation of the name ``workers``. A fake in the
comprehension's ``for`` or ``if`` part is no element. And a class deriving from
``SQLModel`` (pydantic's ``BaseModel`` with table columns, gpustack's ``Cluster``,
``Principal``) is a typed record like any pydantic model: a fake of one is ✗, also
through the field of a record it sits in (``TenantContext.user: Principal``)."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

_SCHEMAS = """\
from typing import List, Optional

from sqlmodel import Field, SQLModel


class WorkerBase(SQLModel):
    name: str
    ip: str = ""


class Worker(WorkerBase, table=True):
    id: Optional[int] = Field(default=None, primary_key=True)


class LogOption(SQLModel):
    name: str
    workers: List[str] = []
"""

_CALC = """\
from typing import List

from pkg.schemas import Worker


async def read_from_workers(path: str, workers: List[Worker]) -> int:
    return len(workers)


def names(options: List[str]) -> int:
    return len(options)
"""


def _severities(run: Run) -> dict[int, tuple[str, str]]:
    return {
        line: (severity, message)
        for path, line, severity, message in found(run, "any-annotation")
        if path.startswith("tests/")
    }


def test_comprehension_fakes_fill_the_element_type_of_the_parameter(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/__init__.py", "")
    feature.write("pkg/schemas.py", _SCHEMAS)
    feature.write("pkg/calc.py", _CALC)
    feature.write(
        "tests/test_calc.py",
        "from types import SimpleNamespace\n\n"
        "from pkg.calc import names, read_from_workers\n\n\n"
        "async def test_read():\n"  # 6
        '    workers = [SimpleNamespace(name=f"w-{i}") for i in range(5)]\n'  # 7: ✗ Worker
        '    assert await read_from_workers("p", workers) == 5\n'
        '    pairs = {i: SimpleNamespace(name="w") for i in range(2)}\n'  # 9: ⚠ held only
        "    assert len(pairs) == 2\n"
        "    options = [o for o in [SimpleNamespace(name='x')] if o]\n"  # 11: ⚠ not the element
        "    assert names(options) == 1\n",
    )
    lines = _severities(run)
    severity, message = lines[7]
    assert severity == "error"
    assert "stands in for `Worker` (pkg/schemas.py" in message
    assert "an element of `workers: List[Worker]` of `read_from_workers`" in message
    assert lines[9][0] == "warning"
    assert lines[11][0] == "warning"


def test_a_fake_of_a_sqlmodel_record_through_a_dataclass_field(feature: Repo, run: Run) -> None:
    """gpustack's ``CTX = SimpleNamespace(user=SimpleNamespace(kind=..., id=1), ...)``:
    the outer fake is the ``TenantContext`` dataclass (its keywords), the inner one its
    ``user: Principal`` field, a SQLModel table class: ✗ for each."""
    feature.write("pkg/__init__.py", "")
    feature.write(
        "pkg/principals.py",
        "from typing import Optional\n\nfrom sqlmodel import Field, SQLModel\n\n\n"
        "class PrincipalBase(SQLModel):\n    kind: str\n    name: Optional[str] = None\n\n\n"
        "class Principal(PrincipalBase, table=True):\n"
        "    id: Optional[int] = Field(default=None, primary_key=True)\n",
    )
    feature.write(
        "pkg/tenant.py",
        "from dataclasses import dataclass\nfrom typing import Optional\n\n"
        "from pkg.principals import Principal\n\n\n"
        "@dataclass\nclass TenantContext:\n    user: Principal\n    is_platform_admin: bool\n"
        "    current_principal_id: Optional[int]\n",
    )
    feature.write(
        "tests/test_tenant.py",
        "from types import SimpleNamespace\n\n\n"
        "CTX = SimpleNamespace(\n"  # 4: ✗ TenantContext
        '    user=SimpleNamespace(kind="system", id=1),\n'  # 5: ✗ Principal
        "    is_platform_admin=True,\n"
        "    current_principal_id=None,\n"
        ")\n\n\n"
        "def test_ctx():\n    assert CTX.user.id == 1\n",
    )
    lines = _severities(run)
    assert lines[4][0] == "error" and "`TenantContext`" in lines[4][1]
    assert lines[5][0] == "error"
    assert "stands in for `Principal` (pkg/principals.py" in lines[5][1]
