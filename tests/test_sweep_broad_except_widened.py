# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except ✗ for a change that widens a specific catch to a broad one that gives up
silently (litdata 9f036a86 and 719bae27: `except botocore.exceptions.ClientError:
return None` rewritten `except Exception: return None`, so a credential, network or JSON
error reads as "no index yet"). Not when the widened handler logs, answers a probe's
`return False`, sets a failure flag (`found = False`), says why in a comment, or when the
base already caught everything; a new broad handler keeps the pattern's own reading."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, blocking, by_marker

BASE = """\
import logging

import botocore.exceptions

logger = logging.getLogger(__name__)


def read_index(client, url):
    try:
        return client.get(url)
    except botocore.exceptions.ClientError:
        return None


def read_logged(client, url):
    try:
        return client.get(url)
    except botocore.exceptions.ClientError:
        return None


def is_ready(client):
    try:
        return client.ping()
    except ConnectionError:
        return False


def read_commented(client, url):
    try:
        return client.get(url)
    except (KeyError, ValueError):
        return None


def read_any(client, url):
    try:
        return client.get(url)
    except Exception:
        return None


def has_index(client, url):
    try:
        client.head(url)
        found = True
    except botocore.exceptions.ClientError as e:
        found = False
    return found


def read_meta(client, url):
    meta = {}
    try:
        meta = client.get(url)
    except botocore.exceptions.ClientError:
        meta = {}
    return meta
"""

FEATURE_BASE = {"pkg/__init__.py": "", "pkg/index.py": BASE}

HEAD = """\
import logging

import botocore.exceptions

logger = logging.getLogger(__name__)


def read_index(client, url):
    try:
        return client.get(url)
    except Exception:  # m:widened
        return None


def read_logged(client, url):
    try:
        return client.get(url)
    except Exception as e:  # m:logged
        logger.warning("cannot read %s: %s", url, e)
        return None


def is_ready(client):
    try:
        return client.ping()
    except Exception:  # m:probe
        return False


def read_commented(client, url):
    try:
        return client.get(url)
    except Exception:  # m:commented
        # a missing or malformed index is the same as none here
        return None


def read_any(client, url):
    try:
        return client.get(url)
    except Exception as _e:  # m:already-broad
        return None


def has_index(client, url):
    try:
        client.head(url)
        found = True
    except Exception as _e:  # m:flag
        found = False
    return found


def read_meta(client, url):
    meta = {}
    try:
        meta = client.get(url)
    except Exception:  # m:default
        meta = None
    return meta


def fresh(client, url):
    try:
        return client.get(url)
    except Exception:  # m:new
        return None
"""


def test_a_specific_catch_widened_to_a_silent_broad_one_is_an_error(
    feature: Repo, run: Run
) -> None:
    feature.write("pkg/index.py", HEAD)
    feature.commit("catch everything")
    assert by_marker(feature, "pkg/index.py", run) == {
        "widened": "error",
        "logged": "warning",
        "probe": "warning",
        "commented": "warning",
        "already-broad": "warning",
        "flag": "warning",
        "default": "error",
        "new": "warning",
    }
    rows = blocking(run, "broad-except")
    assert rows[0][2] == (
        "`except Exception:` replaces `except botocore.exceptions.ClientError:` and gives up "
        "silently: every error, a bug included, now reads as the "
        "botocore.exceptions.ClientError it expected; let it raise or catch the specific types"
    )


def test_a_widened_catch_in_a_test_is_not_judged_so(feature: Repo, run: Run) -> None:
    feature.write("tests/test_index.py", BASE)
    feature.commit("base test")
    feature.write("tests/test_index.py", HEAD)
    feature.commit("catch everything")
    assert "error" not in by_marker(feature, "tests/test_index.py", run).values()


def test_a_hunk_that_writes_several_handlers_is_a_rewrite(feature: Repo, run: Run) -> None:
    """One specific clause replaced by a hunk that writes two broad ones (a function
    rewritten, not a catch widened): neither is read as the widened clause, and the map
    of widened clauses is built once a file, not once a handler."""
    feature.write(
        "pkg/index.py",
        BASE.replace(
            "    except botocore.exceptions.ClientError:\n        return None\n\n\ndef read_logged",
            "    except Exception:  # m:first\n        return None\n    try:\n"
            "        return client.get(url + '/')\n    except Exception:  # m:second\n"
            "        return None\n\n\ndef read_logged",
            1,
        ),
    )
    feature.commit("rewrite read_index")
    marks = by_marker(feature, "pkg/index.py", run)
    assert marks == {"first": "warning", "second": "warning"}
