# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup: keys that are not a string key the change invents.

A ``(*args, **kwargs)`` method that takes one value either positionally or by keyword
(``dim = args[0] if args else kwargs.get("dim")``, TransformerEngine's ``size`` overrides
mirroring ``Tensor.size(dim=None)``) re-parses a parameter of the signature it stands in
for: the key is that parameter's name, so two such overrides in two files are not the
duplicated new key (⚠). The same key read only from kwargs in both files is the ✗."""

from __future__ import annotations

from functools import partial

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

rows = partial(found, rule="kwargs-lookup")

STORAGE = (
    "import torch\n\n\nclass {name}:\n    def size(self, *args, **kwargs):\n"
    "        if self._data is not None:\n            return self._data.size(*args, **kwargs)\n"
    "        shape = torch.Size(self._transpose.shape[::-1])\n"
    "{read}"
    "        return shape if dim is None else shape[dim]\n"
)
MIRRORED = "        dim = args[0] if args else kwargs.get('dim')\n"
KEYWORD_ONLY = "        dim = kwargs.get('dim')\n"


def _two_storages(repo: Repo, read: str) -> None:
    repo.write("README.md", "x\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("pkg/fp8.py", STORAGE.format(name="Float8Storage", read=read))
    repo.write("pkg/blockwise.py", STORAGE.format(name="BlockwiseStorage", read=read))
    repo.commit("size of a transpose-only storage")


def test_a_key_also_taken_positionally_is_the_mirrored_parameter(repo: Repo, run: Run) -> None:
    _two_storages(repo, MIRRORED)
    got = rows(run)
    assert sorted((p, line, sev) for p, line, sev, _m in got) == [
        ("pkg/blockwise.py", 9, "warning"),
        ("pkg/fp8.py", 9, "warning"),
    ]
    assert all("taken positionally from `*args`" in m for _p, _l, _s, m in got)


def test_the_same_key_read_only_from_kwargs_in_two_files_stays_blocking(
    repo: Repo, run: Run
) -> None:
    """Without the positional alternative the literal is the code base's own: ✗."""
    _two_storages(repo, KEYWORD_ONLY)
    assert sorted((p, sev) for p, _line, sev, _m in rows(run)) == [
        ("pkg/blockwise.py", "error"),
        ("pkg/fp8.py", "error"),
    ]
