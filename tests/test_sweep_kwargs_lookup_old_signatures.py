# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup, an unused ``**kwargs`` added to an old ``__init__`` signature: the
change adds the parameter line under an old ``def`` line and the body never reads,
forwards or stores the dict, so every unknown keyword is dropped on the init path: one ✗
at the added ``**kwargs`` line. A base class whose ``__init__`` takes nothing but
``self`` declares no keywords for its callers to pass every subclass: the override's
``**kwargs`` is the subclass's own, not an interface's catch-all."""

from __future__ import annotations

from functools import partial

from tests.conftest import Repo
from tests.sweep_fixture import Run, found

FEATURE_BASE = {
    "pkg/__init__.py": "",
    "pkg/api.py": (
        "class LM:\n    def __init__(self) -> None:\n        self._rank = 0\n\n\n"
        "class TemplateLM(LM):\n    def tok(self):\n        return 1\n\n\n"
        "class Impl:\n    def __init__(self, num_heads, scale):\n"
        "        raise NotImplementedError\n"
    ),
    "pkg/model.py": (
        "from pkg.api import TemplateLM\n\n\nclass WindowsML(TemplateLM):\n"
        "    def __init__(\n        self,\n        pretrained: str,\n"
        "        batch_size: int = 1,\n    ) -> None:\n        super().__init__()\n"
        "        self.pretrained = pretrained\n"
    ),
    "pkg/impl.py": (
        "from pkg.api import Impl\n\n\nclass Octave(Impl):\n    def __init__(\n"
        "        self,\n        num_heads,\n        scale,\n    ):\n        self.n = num_heads\n"
    ),
}

# (path, line, severity, message) of each kwargs-lookup finding.
rows = partial(found, rule="kwargs-lookup")


def test_an_unused_kwargs_added_to_an_old_init_is_reported_at_its_line(
    feature: Repo, run: Run
) -> None:
    """lm-eval's ``WindowsML.__init__`` gains ``**kwargs,`` "so that the harness's extra
    arguments no longer fail", and never uses it: ✗ at the ``**kwargs`` line (the base's
    ``LM.__init__(self)`` takes no keywords)."""
    feature.write(
        "pkg/model.py",
        "from pkg.api import TemplateLM\n\n\nclass WindowsML(TemplateLM):\n"
        "    def __init__(\n        self,\n        pretrained: str,\n"
        "        batch_size: int = 1,\n        **kwargs,\n    ) -> None:\n"
        "        super().__init__()\n        self.pretrained = pretrained\n",
    )
    feature.commit("accept the harness's arguments")
    got = rows(run)
    assert [(p, line, sev) for p, line, sev, _m in got] == [("pkg/model.py", 9, "error")]
    assert "never reads or passes the dict on" in got[0][3]


def test_an_override_of_a_base_declaring_parameters_keeps_its_catch_all(
    feature: Repo, run: Run
) -> None:
    """The same change to an override of an ``__init__`` that declares parameters (an
    interface every implementation is called through): nothing."""
    feature.write(
        "pkg/impl.py",
        "from pkg.api import Impl\n\n\nclass Octave(Impl):\n    def __init__(\n"
        "        self,\n        num_heads,\n        scale,\n        **kwargs,\n    ):\n"
        "        self.n = num_heads\n",
    )
    feature.commit("absorb the layer's keywords")
    assert rows(run) == []
