# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""any-annotation ✗ for ``x: T = d.get("k")`` (no default) under an annotation that
certainly rejects None: the lookup gives None for a missing key, so the annotation lies.
An environment lookup (``os.getenv("K")``, ``os.environ.get("K")``) can always be unset;
any other ``.get`` is reported when its function tests the name for None or truth
(sentry's ``messages: "Union[str, ...]" = kwargs.get("input")`` then ``if messages is
None: return``, set zzzv; chainlit's ``spec: AskFileSpec = files_spec.get(ask_parent_id,
None)`` then ``if not spec``, set zzzx; ``SequenceNotStr[str]``, a generic class of a package not
read, holds no None). A default, an Optional annotation, a request
(``requests.get(url)``) or an untested name say nothing."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, blocking, found

LOOKUPS = """\
import os
from typing import Union

API_KEY: str = os.getenv("API_KEY")
HOME: str = os.environ.get("HOME")


def embed(kwargs: "dict[str, object]") -> None:
    messages: "Union[str, list[str]]" = kwargs.get("input")
    if messages is None:
        return
    print(messages)


def embed_generic(kwargs: "dict[str, object]") -> None:
    texts: "Union[str, SequenceNotStr[str]]" = kwargs.get("input")
    if texts is None:
        return


class Loader:
    def load(self, cfg: dict) -> str:
        name: str = cfg.get("name")
        return name or "default"


class AskFileSpec:
    accept: list


def upload(session: object, ask_parent_id: "str | None" = None) -> None:
    spec: AskFileSpec = session.files_spec.get(ask_parent_id, None)
    if not spec and ask_parent_id:
        raise ValueError("no spec")
"""

FINE = """\
import os
from typing import Optional, Union

import requests

WITH_DEFAULT: str = os.getenv("X", "d")
ANY_TYPE: object = os.getenv("Y")


def quiet(cfg: dict) -> str:
    name: str = cfg.get("name")  # never tested: the key may always be there
    return name


def fetch(url: str) -> None:
    resp: requests.Response = requests.get(url)
    if resp:
        print(resp)


def client_call(self, url: str) -> None:
    body: bytes = self.session.get(url)
    if not body:
        return


def session_call(url: str) -> None:
    page: bytes = requests.Session().get(url)
    if not page:
        return


def optional(cfg: dict) -> None:
    name: Optional[str] = cfg.get("name")
    other: str | None = cfg.get("other")
    nested: "Union[str, Optional[int]]" = cfg.get("nested")
    if name is None or other is None or nested is None:
        return


def defaulted(cfg: dict, spare: str) -> None:
    name: str = cfg.get("name", "anon")
    other: str = cfg.get("other", spare)
    if not name or not other:
        return


def silenced(cfg: dict) -> None:
    name: str = cfg.get("name")  # type: ignore[assignment]
    if name is None:
        return
"""


def test_a_lookup_that_may_miss_under_an_annotation_rejecting_none(feature: Repo, run: Run) -> None:
    feature.write("pkg/lookups.py", LOOKUPS)
    found_here = blocking(run, "any-annotation")
    assert [(path, line) for path, line, _m in found_here] == [
        ("pkg/lookups.py", 4),
        ("pkg/lookups.py", 5),
        ("pkg/lookups.py", 9),
        ("pkg/lookups.py", 16),
        ("pkg/lookups.py", 23),
        ("pkg/lookups.py", 32),
    ]
    assert found_here[0][2] == (
        '`API_KEY: str` is given `os.getenv("API_KEY")`, None when the key is unset, which '
        "the annotation does not admit; add `| None` to it or give a default"
    )
    assert (
        '`messages: Union[str, list[str]]` is given `kwargs.get("input")`, None when '
        in (found_here[2][2])
    )


def test_a_default_an_optional_a_request_or_an_untested_name_is_nothing(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/fine.py", FINE)
    assert [row for row in found(run, "any-annotation") if row[2] == "error"] == []


def test_an_old_lookup_the_change_does_not_touch_is_not_reported(feature: Repo, run: Run) -> None:
    """Only a new annotation or a new lookup: an unchanged line below an edit is old."""
    feature.on_main({"pkg/lookups.py": LOOKUPS})
    feature.write("pkg/lookups.py", LOOKUPS.replace("print(messages)", "print(messages, 1)"))
    assert blocking(run, "any-annotation") == []
