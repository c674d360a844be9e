# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except ✗ on the five fail-fast paths ("init, config validation, weight loading,
request handling, connector setup") and its swallow forms (``pass``, ``return``,
``return None``, ``continue``, a default assigned with nothing logged)."""

from __future__ import annotations

import json

from tests.conftest import Repo
from tests.sweep_fixture import Run, severities


def handler(name: str, body: str) -> str:
    """A function ``name`` whose broad catch runs ``body``."""
    tried = "import torch" if name == "setup_optional" else "x.go()"
    return f"def {name}(x):\n    try:\n        {tried}\n    except Exception:\n        {body}\n\n\n"


BLOCKING = [
    ("load_checkpoint", "pass"),  # weight loading
    ("_load_state_dict_into_model", "return None"),
    ("load_model", "return"),
    ("init_workers", "pass"),  # init
    ("_validate_args", "pass"),  # config validation
    ("build_config", "return None"),
    ("handle_request", "return None"),  # request handling
    ("add_request", "pass"),
    ("_process_input_request", "return"),
    ("connect", "pass"),  # connector setup
    ("create_connector", "return None"),
    ("_connect_to_peer", "pass"),
    ("setup_device", "x.device = None"),  # a default, nothing logged
    ("init_cache", "x.cache = {}\n        x.model = None"),
]
WARNING = [
    ("record_metrics", "pass"),  # best effort: metrics
    ("abort_request", "pass"),
    ("disconnect", "pass"),
    ("setup_device_2", "x.device = x.fallback()"),  # not a default: computed
    ("setup_flag", "x.ok = False"),  # a failure flag someone checks, not a default
    ("setup_fingerprint", "# never fail startup over this\n        x.fp = None"),
    ("setup_optional", "x = None"),  # the try body only imports (below)
    ("validate_instance", "pass"),  # a probe, not config validation
    ("_load_modelinfo_from_cache", "return None"),  # a cache
    ("_decode_prompt_for_bootstrap", "return None"),  # named after init, not init
    ("summarize", "pass"),  # not a fail-fast path
]


def test_the_five_seed_paths_and_the_default_swallow_are_blocking(feature: Repo, run: Run) -> None:
    feature.write("pkg/mod.py", "".join(handler(n, b) for n, b in BLOCKING + WARNING))
    feature.commit("add")
    found = severities(run, "broad-except")
    # each handler's ``except`` is the 4th line of its 7-line block (+1 per extra line)
    lines: dict[str, int] = {}
    line = 1
    for name, body in BLOCKING + WARNING:
        lines[name] = line + 3
        line += 7 + body.count("\n")
    got = {name: found.get(at) for name, at in lines.items()}
    assert got == {
        **{name: "error" for name, _ in BLOCKING},
        **{name: "warning" for name, _ in WARNING},
    }


def test_the_shared_fail_fast_list_reaches_kwargs_lookup(feature: Repo, run: Run) -> None:
    """The seed's kwargs-lookup ✗ (unknown keys dropped on config validation)."""
    feature.write("pkg/v.py", "def validate_options(**kwargs):\n    return kwargs.get('mode')\n")
    feature.commit("add")
    result = run("sweep", "--format", "json", "--fail-on", "never")
    rows = [f for f in json.loads(result.out) if f["rule"] == "kwargs-lookup"]
    # One ✗ for the function, on its def line; the read itself is ⚠.
    got = [(r["line"], r["severity"], "validate_options" in r["message"]) for r in rows]
    assert got == [(1, "error", True), (2, "warning", True)]
