# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The seed's grep pipelines beside ``policytool sweep`` on the fixture change:
sweep finds every true case the greps find and none of their false ones."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType

import pytest

from tests.bench_modules import load_bench
from tests.sweep_fixture import build

BENCH = Path(__file__).resolve().parents[1] / "bench" / "sweep_vs_grep.py"


def _load() -> ModuleType:
    return load_bench("sweep_vs_grep")


@pytest.mark.skipif(
    shutil.which("bash") is None or shutil.which("grep") is None, reason="needs bash and grep"
)
def test_sweep_is_a_superset_of_the_greps_true_cases_without_their_false_ones(
    tmp_path: Path,
) -> None:
    bench = _load()
    root = tmp_path / "fixture"
    build(root)
    rows = {row.pattern: row for row in bench.compare(root)}
    assert set(rows) == {
        "kwargs-lookup",
        "broad-except",
        "any-annotation",
        "hot-copy",
        "async-blocking",
    }
    for row in rows.values():
        assert row.grep_true, (
            f"{row.pattern}: the greps found no true case, the fixture is too weak"
        )
        assert row.grep_false, f"{row.pattern}: no grep false positive to tell apart"
        assert row.missed_by_sweep == set(), row.pattern
        assert row.false_reported_by_sweep == set(), row.pattern
    # Context the greps cannot see, found only by sweep.
    assert ("pkg/types_new.py", 19) in rows["any-annotation"].sweep_only  # untyped public def
    assert ("pkg/engine/server.py", 14) in rows[
        "async-blocking"
    ].sweep_only  # sync `with lock:` + await
    table = bench.table(list(rows.values()))
    assert table.splitlines()[0].startswith("| pattern | grep lines |")
    assert len(table.splitlines()) == 7
