# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup's cross-file check is linear in the files reading one key: each read
sorted every other file reading its key again, so a pull request adding thousands of
files that read the same key made the sweep quadratic (4,000 files: 3.6 s of sorting;
12,000: about half a minute). Each key's files are sorted once; a read's other files are
that list without its own."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Repo
from tests.sweep_fixture import Run, sweep_findings


@pytest.mark.timing
def test_thousands_of_files_reading_one_key_stay_fast(feature: Repo, run: Run) -> None:
    count = 12000
    for i in range(count):
        feature.write(f"pkg/m{i}.py", f"def forward{i}(**kwargs):\n    return kwargs.get('k')\n")
    feature.commit("add")
    start = time.perf_counter()
    found = [f for f in sweep_findings(run, "--jobs", "1") if f["rule"] == "kwargs-lookup"]
    elapsed = time.perf_counter() - start
    # Too many files read the key for a cluster of copies: each read is the ⚠ that counts them.
    assert len(found) == count
    assert {f["severity"] for f in found} == {"warning"}
    assert all(f"{count - 1} other files read the same key" in f["message"] for f in found)
    assert elapsed < 30, elapsed
