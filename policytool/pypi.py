# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The one PyPI client: release data from PyPI's JSON API, for ``--online`` checks and bump.

Only commands that say they go online call it; tests never do.
"""

from __future__ import annotations

import os
import re
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
    # ``owner/name`` of the GitHub repository its project URLs name (Source, Repository...).
    github: str | None = None


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
        github=_github_repo([*urls.items(), ("home_page", info.get("home_page"))]),
    )


# A project URL naming a GitHub repository: https://github.com/OWNER/NAME[/...]
_GITHUB_RE = re.compile(
    r"^https?://(?:www\.)?github\.com/([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/"
    r"([A-Za-z0-9._-]{1,100}?)(?:\.git)?(?:[/#?].*)?$"
)
_SOURCE_KEYS = ("source", "source code", "repository", "github", "code", "homepage", "home_page")


def _github_repo(urls: list[tuple[object, object]]) -> str | None:
    """``owner/name`` of the first GitHub repository URL among the project's URLs (the
    source-like labels first)."""
    ranked = sorted(
        urls,
        key=lambda item: (
            _SOURCE_KEYS.index(str(item[0]).strip().lower())
            if str(item[0]).strip().lower() in _SOURCE_KEYS
            else len(_SOURCE_KEYS)
        ),
    )
    for _label, link in ranked:
        match = _GITHUB_RE.match(link) if isinstance(link, str) else None
        if match and match.group(1).lower() not in ("sponsors", "orgs"):
            return f"{match.group(1)}/{match.group(2)}"
    return None


# GitHub's REST API (release notes of a tag); POLICYTOOL_GITHUB_API_URL points elsewhere.
GITHUB_API_VARIABLE = "POLICYTOOL_GITHUB_API_URL"
DEFAULT_GITHUB_API_URL = "https://api.github.com"
NOTES_DEADLINE = 5.0
MAX_NOTES_BYTES = 1024 * 1024
EXCERPT_LINES = 20
EXCERPT_CHARS = 2000


@dataclass(frozen=True)
class ReleaseNotes:
    """Where a reviewer reads what changed between two releases, and an excerpt."""

    releases_url: str  # the repository's releases page
    compare_url: str  # https://github.com/O/R/compare/OLD...NEW
    tags_checked: bool  # both tags were found on GitHub (else their names are guessed)
    excerpt: str | None  # the new release's notes, cut (None: not found)
    why: str | None  # why there is no excerpt


def github_api() -> str:
    """The GitHub API base URL, without a trailing /."""
    return os.environ.get(GITHUB_API_VARIABLE, DEFAULT_GITHUB_API_URL).rstrip("/")


def release_notes(after: Release, old: str, timeout: float = NOTES_DEADLINE) -> ReleaseNotes | None:
    """The compare link and the notes of ``after`` from its GitHub repository (None when
    the project names no GitHub repository). Tags are tried as ``vX`` then ``X``; the
    compare link uses the tags found, or ``vOLD...vNEW`` marked as guessed."""
    import urllib.parse

    from policytool.httpjson import get_json

    if after.github is None:
        return None
    repo = after.github
    started = time.monotonic()

    def find(version: str) -> tuple[str | None, dict[str, object] | None, str | None]:
        """(tag, release document, why not) of ``version``'s GitHub release."""
        why = None
        for tag in (f"v{version}", version):
            left = timeout - (time.monotonic() - started)
            if left <= 0.1:
                return None, None, f"no answer within {timeout:.0f} s"
            url = f"{github_api()}/repos/{repo}/releases/tags/{urllib.parse.quote(tag, safe='')}"
            data, why = get_json(url, left, MAX_NOTES_BYTES)
            if why is None and isinstance(data, dict):
                return tag, data, None
            if why != NOT_FOUND:
                break  # unreachable: do not ask again
        return None, None, why

    new_tag, document, why = find(after.version)
    old_tag = None
    if new_tag is not None:
        old_tag, _document, _why = find(old)
    checked = new_tag is not None and old_tag is not None
    old_ref = old_tag or f"v{old}"
    new_ref = new_tag or f"v{after.version}"
    compare = f"https://github.com/{repo}/compare/{old_ref}...{new_ref}"
    body = document.get("body") if document is not None else None
    excerpt = _excerpt(body) if isinstance(body, str) and body.strip() else None
    if excerpt is None and why is None:
        why = f"the GitHub release {new_tag} has no notes"
    elif why == NOT_FOUND:
        why = f"no GitHub release tagged v{after.version} or {after.version}"
    elif why is not None:
        why = f"GitHub's API did not answer: {why}"
    return ReleaseNotes(f"https://github.com/{repo}/releases", compare, checked, excerpt, why)


def _excerpt(text: str) -> str:
    """The first lines of release notes, safe to quote in Markdown: control characters
    dropped, ``<`` escaped (no HTML closes the quote), ``@`` mentions defused."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    size = 0
    for line in lines[:EXCERPT_LINES]:
        clean = "".join(c for c in line if c.isprintable() or c == "\t")
        clean = clean.replace("<", "&lt;").replace("@", "@\u200b")
        size += len(clean) + 1
        if size > EXCERPT_CHARS:
            break
        kept.append(clean)
    while kept and not kept[-1].strip():
        kept.pop()
    cut = len(kept) < len(lines) and any(line.strip() for line in lines[len(kept) :])
    return "\n".join(kept) + ("\n\n(cut)" if cut else "")
