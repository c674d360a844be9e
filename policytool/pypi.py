# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The one PyPI client: release data from PyPI's JSON API, for ``--online`` checks and bump.

Only commands that say they go online call it; tests never do.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from packaging.version import Version

    from policytool.core.memo import RunMemo


def newest_on_pypi(project: str, memo: RunMemo) -> tuple[Version | None, str | None]:
    """(newest non-prerelease version, None) or (None, why it could not be found); once a run."""
    return memo.value(("pypi.newest", project), lambda: _ask_pypi(project))


def _ask_pypi(project: str) -> tuple[Version | None, str | None]:
    """:func:`newest_on_pypi`, asked."""
    import urllib.parse

    from packaging.version import InvalidVersion, Version

    from policytool.httpjson import get_json

    url = f"{pypi_base()}/{urllib.parse.quote(project, safe='')}/json"
    data, why = get_json(url, NEWEST_DEADLINE, MAX_PROJECT_BYTES)
    if why is not None:
        return None, f"cannot ask PyPI for the newest {project} ({why})"
    versions = []
    releases = data.get("releases") if isinstance(data, dict) else None
    for text, files in releases.items() if isinstance(releases, dict) else ():
        try:
            version = Version(str(text))
        except InvalidVersion:
            continue
        yanked = (
            isinstance(files, list)
            and bool(files)
            and all(isinstance(f, dict) and f.get("yanked") for f in files)
        )
        if not version.is_prerelease and not yanked:
            versions.append(version)
    if not versions:
        return None, f"PyPI lists no release of {project}"
    return max(versions), None


# Every answer is read whole within one deadline (not a timeout per read: a byte every few
# seconds would never end) and up to a size; a JSON document nested too deep is unusable.
NEWEST_DEADLINE = 20.0
RELEASE_DEADLINE = 10.0
MAX_PROJECT_BYTES = 32 * 1024 * 1024  # a project's document lists every release and file
MAX_RELEASE_BYTES = 8 * 1024 * 1024


# The JSON API base URL may point elsewhere (a mirror, a test server): with
# POLICYTOOL_PYPI_URL=http://127.0.0.1:8000/pypi, ``check --online`` asks
# ``{base}/{project}/json`` and ``bump`` asks ``{base}/{project}/{version}/json``.
PYPI_URL_VARIABLE = "POLICYTOOL_PYPI_URL"
NOT_FOUND = "Not Found"  # the reason of an HTTP 404 (no per-version document)
DEFAULT_PYPI_URL = "https://pypi.org/pypi"
_CHANGELOG_KEYS = ("changelog", "changes", "release notes", "releasenotes", "history", "news")


@dataclass(frozen=True)
class Vulnerability:
    """One known vulnerability PyPI reports for a release (OSV data)."""

    id: str
    aliases: tuple[str, ...]
    fixed_in: tuple[str, ...]
    link: str | None


@dataclass(frozen=True)
class Release:
    """What PyPI's JSON API says about one release of a project."""

    project: str
    version: str
    requires_python: str | None
    project_url: str | None
    changelog_url: str | None
    vulnerabilities: tuple[Vulnerability, ...]
    # From the project's document: PyPI had no per-version document (vulnerabilities unknown).
    from_project: bool = False


def pypi_base() -> str:
    """The JSON API base URL (``POLICYTOOL_PYPI_URL`` or PyPI's), without a trailing /."""
    return os.environ.get(PYPI_URL_VARIABLE, DEFAULT_PYPI_URL).rstrip("/")


def release(project: str, version: str, timeout: float = RELEASE_DEADLINE) -> Release | str:
    """The :class:`Release` of ``project==version``, or why it could not be looked up;
    ``timeout`` bounds the whole answer."""
    import urllib.parse

    from policytool.httpjson import get_json

    url = (
        f"{pypi_base()}/{urllib.parse.quote(project, safe='')}/"
        f"{urllib.parse.quote(version, safe='')}/json"
    )
    started = time.monotonic()
    data, why = get_json(url, timeout, MAX_RELEASE_BYTES)
    left = timeout - (time.monotonic() - started)
    if why is not None:
        if why == NOT_FOUND and left > 0.1:
            # No per-version page (404): the project's page, within the same deadline.
            fallback = _from_project(project, version, left)
            if fallback is not None:
                return fallback
        return f"could not look up {project} {version} on {pypi_base()} ({why})"
    if not isinstance(data, dict) or not isinstance(data.get("info"), dict):
        return f"{pypi_base()} answered for {project} {version} without release info"
    return _release_of(project, version, data)


def file_hashes(project: str, version: str, timeout: float = RELEASE_DEADLINE) -> set[str] | str:
    """``sha256:<hex>`` of every file of ``project==version`` on the index's JSON API, or
    why they could not be looked up."""
    import urllib.parse

    from policytool.httpjson import get_json

    url = (
        f"{pypi_base()}/{urllib.parse.quote(project, safe='')}/"
        f"{urllib.parse.quote(version, safe='')}/json"
    )
    started = time.monotonic()
    data, why = get_json(url, timeout, MAX_RELEASE_BYTES)
    files = data.get("urls") if why is None and isinstance(data, dict) else None
    left = timeout - (time.monotonic() - started)
    if why == NOT_FOUND and left > 0.1:
        # No per-version document: the project's lists every release's files.
        whole, why = get_json(
            f"{pypi_base()}/{urllib.parse.quote(project, safe='')}/json",
            left,
            MAX_PROJECT_BYTES,
        )
        releases = whole.get("releases") if why is None and isinstance(whole, dict) else None
        files = releases.get(version) if isinstance(releases, dict) else None
    if not isinstance(files, list):
        return f"could not list the files of {project} {version} on {pypi_base()} ({why})"
    out = set()
    for item in files:
        digests = item.get("digests") if isinstance(item, dict) else None
        if isinstance(digests, dict) and isinstance(digests.get("sha256"), str):
            out.add("sha256:" + digests["sha256"].lower())
    return out


# Requests in flight when the files of many releases are listed (``lock --check
# --resolve`` of a hashed lock asks once per pin): outdated's and action-pin's number.
FILE_WORKERS = 8


def many_file_hashes(
    releases: Sequence[tuple[str, str]], timeout: float = RELEASE_DEADLINE
) -> dict[tuple[str, str], set[str] | str]:
    """:func:`file_hashes` of each ``(project, version)``, at most :data:`FILE_WORKERS`
    requests at a time. A release that cannot be listed is asked once more (one slow
    answer among hundreds is not a verdict); a second failure cancels the requests not
    yet started (that release maps to why, the cancelled ones are left out)."""
    import concurrent.futures

    todo = list(dict.fromkeys(releases))
    out: dict[tuple[str, str], set[str] | str] = {}
    if not todo:
        return out
    with concurrent.futures.ThreadPoolExecutor(min(FILE_WORKERS, len(todo))) as pool:
        pending = {pool.submit(file_hashes, *release, timeout): release for release in todo}
        retried: set[tuple[str, str]] = set()
        while pending:
            done, _waiting = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED
            )
            for future in done:
                release = pending.pop(future)
                result = future.result()
                if isinstance(result, str) and release not in retried:
                    retried.add(release)
                    pending[pool.submit(file_hashes, *release, timeout)] = release
                    continue
                out[release] = result
                if isinstance(result, str):
                    for other in pending:
                        other.cancel()
                    return out
    return out


def _from_project(project: str, version: str, timeout: float) -> Release | None:
    """The release data the project's document (``{base}/{project}/json``) holds for
    ``version``: its links, and ``requires-python`` of the version's files; None when
    that document is unavailable too or does not list the version."""
    import dataclasses
    import urllib.parse

    from policytool.httpjson import get_json

    url = f"{pypi_base()}/{urllib.parse.quote(project, safe='')}/json"
    data, why = get_json(url, timeout, MAX_PROJECT_BYTES)
    if why is not None or not isinstance(data, dict) or not isinstance(data.get("info"), dict):
        return None
    releases = data.get("releases")
    files = releases.get(version) if isinstance(releases, dict) else None
    if not isinstance(files, list):
        return None
    found = _release_of(project, version, {"info": data["info"]})
    requires = next(
        (
            f["requires_python"]
            for f in files
            if isinstance(f, dict)
            and isinstance(f.get("requires_python"), str)
            and f["requires_python"]
        ),
        None,
    )
    return dataclasses.replace(found, requires_python=requires, from_project=True)


def _release_of(project: str, version: str, data: dict[str, object]) -> Release:
    """The :class:`Release` from a JSON API document."""
    info = data["info"]
    assert isinstance(info, dict)
    urls = info.get("project_urls") if isinstance(info.get("project_urls"), dict) else {}
    assert isinstance(urls, dict)
    changelog = None
    for label, link in urls.items():
        if isinstance(link, str) and str(label).strip().lower() in _CHANGELOG_KEYS:
            changelog = link
            break
    home = info.get("home_page") or urls.get("Homepage") or urls.get("Source")
    project_url = home if isinstance(home, str) and home else None
    project_url = project_url or (
        info.get("project_url") if isinstance(info.get("project_url"), str) else None
    )
    vulns = []
    raw = data.get("vulnerabilities")
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        aliases = item.get("aliases") if isinstance(item.get("aliases"), list) else []
        fixed = item.get("fixed_in") if isinstance(item.get("fixed_in"), list) else []
        link = item.get("link") if isinstance(item.get("link"), str) else None
        vulns.append(
            Vulnerability(
                item["id"],
                tuple(str(a) for a in aliases or ()),
                tuple(str(f) for f in fixed or ()),
                link,
            )
        )
    requires = info.get("requires_python")
    return Release(
        project,
        version,
        requires if isinstance(requires, str) and requires else None,
        project_url,
        changelog,
        tuple(vulns),
    )
