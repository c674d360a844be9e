# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""kwargs-lookup: moved reads, and keys handed to a base method that drops the rest.

- a refactor that moves old ``kwargs.get("k")`` reads (the same read removed elsewhere
  in the change, re-wrapped or not: lerobot's ``sample_actions`` moving its RTC keys into
  a helper call) adds no new read; a moved read never hides a key the base never read,
  and one more copy than the change removes is still new;
- a fail-fast ``__init__(**kwargs)`` that reads keys and hands the rest only to
  ``super().__init__(**kwargs)``, whose base method (in another module) the change makes
  drop unknown keys, feeds plumbing that drops them: its new keys are ✗ (guidellm's
  ``ReplayProfile.__init__`` over ``Profile.__init__``'s ``_ = kwargs``).
"""

from __future__ import annotations

import json

from tests.conftest import Repo
from tests.sweep_fixture import Run

FEATURE_BASE = {"pkg/__init__.py": ""}


def rows(run: Run) -> list[tuple[str, int, str, str]]:
    """(path, line, severity, message) of each kwargs-lookup finding."""
    result = run("sweep", "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    return [
        (f["path"], f["line"], f["severity"], f["message"])
        for f in json.loads(result.out)
        if f["rule"] == "kwargs-lookup"
    ]


def on_main(repo: Repo, files: dict[str, str]) -> None:
    """Commit ``files`` on main and bring them into ``feature``."""
    repo.git("checkout", "-q", "main")
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("old")
    repo.git("checkout", "-q", "feature")
    repo.git("merge", "-q", "main")


OLD_POLICY = """\
class Policy:
    def sample_actions(self, noise, **kwargs):
        if self.rtc:
            inference_delay = kwargs.get("inference_delay")
            prev = kwargs.get("prev_chunk_left_over")
            noise = denoise(noise, inference_delay, prev)
        return noise
"""
# The reads moved into one helper call, re-wrapped as keywords (the old lines removed).
NEW_POLICY = """\
class Policy:
    def sample_actions(self, noise, **kwargs):
        return self.helper.sample(
            noise,
            inference_delay=kwargs.get("inference_delay"),
            prev=kwargs.get("prev_chunk_left_over"),
        )
"""


def test_reads_a_refactor_moves_are_not_new(feature: Repo, run: Run) -> None:
    on_main(feature, {"pkg/policy.py": OLD_POLICY})
    feature.write("pkg/policy.py", NEW_POLICY)
    feature.commit("move the reads into the helper call")
    assert rows(run) == []


def test_reads_moved_into_another_file_are_not_new(feature: Repo, run: Run) -> None:
    on_main(feature, {"pkg/policy.py": OLD_POLICY})
    feature.write("pkg/policy.py", "class Policy:\n    pass\n")
    feature.write(
        "pkg/rtc.py",
        "def sample(noise, **kwargs):\n"
        '    inference_delay = kwargs.get("inference_delay")\n'
        '    prev = kwargs.get("prev_chunk_left_over")\n'
        "    return noise, inference_delay, prev\n",
    )
    feature.commit("move the reads into a shared module")
    assert rows(run) == []


def test_a_moved_block_does_not_hide_a_new_key_or_a_new_copy(feature: Repo, run: Run) -> None:
    on_main(feature, {"pkg/policy.py": OLD_POLICY})
    feature.write(
        "pkg/policy.py",
        NEW_POLICY.replace(
            "        )\n",
            '            horizon=kwargs.get("execution_horizon"),\n        )\n\n'
            "    def other(self, **kwargs):\n"
            '        inference_delay = kwargs.get("inference_delay")\n'
            "        return inference_delay\n",
        ),
    )
    feature.commit("move, add a key, and copy a moved read")
    got = [(line, sev, m.split("`")[1]) for _p, line, sev, m in rows(run)]
    # Two copies of the ``inference_delay`` line against one removed: neither is moved.
    assert got == [
        (5, "warning", 'kwargs.get("inference_delay")'),
        (7, "warning", 'kwargs.get("execution_horizon")'),
        (11, "warning", 'kwargs.get("inference_delay")'),
    ]


def test_the_same_read_on_another_line_is_not_moved(feature: Repo, run: Run) -> None:
    """One model drops ``voice = info.get("speaker")``, another adds ``names =
    info.get("speaker")``: the same expression, a different line, nothing moved."""
    on_main(feature, {"pkg/policy.py": OLD_POLICY})
    feature.write("pkg/policy.py", OLD_POLICY.replace("inference_delay = kw", "delay = kw"))
    feature.commit("rename")
    assert [(line, sev) for _p, line, sev, _m in rows(run)] == [(4, "warning")]


PROFILE = """\
class Profile:
    def __init__(self, args, seed, **kwargs):
        _ = kwargs  # unused
        self.args = args
"""
REPLAY = """\
from .profile import Profile


class ReplayProfile(Profile):
    def __init__(self, args, seed, **kwargs):
        super().__init__(args, seed, **kwargs)
        self.data = kwargs.get("data", [])
        self.samples = kwargs.get("data_samples", -1)
"""


def test_keys_handed_to_a_base_that_drops_the_rest_are_errors(feature: Repo, run: Run) -> None:
    feature.write("pkg/profiles/__init__.py", "")
    feature.write("pkg/profiles/profile.py", PROFILE)
    feature.write("pkg/profiles/replay.py", REPLAY)
    feature.commit("profiles")
    got = {(path, line): (sev, m) for path, line, sev, m in rows(run)}
    assert got[("pkg/profiles/profile.py", 2)][0] == "error"  # the base's own drop
    for line in (7, 8):
        sev, message = got[("pkg/profiles/replay.py", line)]
        assert sev == "error"
        assert "silently dropped" in message and "pkg/profiles/profile.py:2" in message


def test_a_base_whose_old_signature_gains_an_unused_kwargs_drops_the_subclass_keys(
    feature: Repo, run: Run
) -> None:
    """guidellm's ``Profile.__init__``: the change adds ``**kwargs`` to an old multi-line
    signature (its ✗ sits on the added ``**kwargs`` line, not the old ``def``) and a new
    subclass reads keys before handing the dict to it: the reads are ✗ too."""
    old_base = "class Profile:\n    def __init__(\n        self,\n        args,\n    ):\n        self.args = args\n"
    on_main(feature, {"pkg/profiles/__init__.py": "", "pkg/profiles/profile.py": old_base})
    feature.write(
        "pkg/profiles/profile.py",
        old_base.replace("        args,\n", "        args,\n        **kwargs,\n"),
    )
    feature.write("pkg/profiles/replay.py", REPLAY.replace("args, seed", "args"))
    feature.commit("replay profile")
    got = {(path, line): (sev, m) for path, line, sev, m in rows(run)}
    assert got[("pkg/profiles/profile.py", 5)][0] == "error"  # the added ``**kwargs,``
    for line in (7, 8):
        sev, message = got[("pkg/profiles/replay.py", line)]
        assert sev == "error", message
        assert "pkg/profiles/profile.py:5" in message


def test_an_absolute_import_of_the_base_is_followed_too(feature: Repo, run: Run) -> None:
    feature.write("pkg/profiles/__init__.py", "")
    feature.write("pkg/profiles/profile.py", PROFILE)
    feature.write(
        "pkg/profiles/replay.py",
        REPLAY.replace("from .profile", "from pkg.profiles.profile"),
    )
    feature.commit("profiles")
    assert [sev for path, _l, sev, _m in rows(run) if path.endswith("replay.py")] == [
        "error",
        "error",
    ]


def test_a_base_that_passes_the_dict_on_or_is_old_leaves_the_reads_warnings(
    feature: Repo, run: Run
) -> None:
    # An old base is not the change's: its drop is the backlog.
    on_main(feature, {"pkg/profiles/__init__.py": "", "pkg/profiles/profile.py": PROFILE})
    feature.write("pkg/profiles/replay.py", REPLAY)
    feature.commit("replay over the old base")
    assert [sev for _p, _l, sev, _m in rows(run)] == ["warning", "warning"]


def test_a_new_base_that_keeps_the_dict_leaves_the_reads_warnings(feature: Repo, run: Run) -> None:
    feature.write("pkg/profiles/__init__.py", "")
    feature.write(
        "pkg/profiles/profile.py", PROFILE.replace("_ = kwargs  # unused", "self.extra = kwargs")
    )
    feature.write("pkg/profiles/replay.py", REPLAY)
    feature.commit("profiles")
    assert [sev for _p, _l, sev, _m in rows(run)] == ["warning", "warning"]


def test_a_dict_also_passed_elsewhere_is_not_the_bases_to_drop(feature: Repo, run: Run) -> None:
    feature.write("pkg/profiles/__init__.py", "")
    feature.write("pkg/profiles/profile.py", PROFILE)
    feature.write(
        "pkg/profiles/replay.py",
        REPLAY + "        self.loader = make_loader(**kwargs)\n",
    )
    feature.commit("profiles")
    replay = [sev for path, _l, sev, _m in rows(run) if path.endswith("replay.py")]
    assert replay == ["warning", "warning"]
