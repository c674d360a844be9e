# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The one PyPI client: release data from PyPI's JSON API, for ``--online`` checks and bump.

Only commands that say they go online call it; tests never do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from packaging.version import Version

    from policytool.engine.context import RunMemo

PYPI_JSON = "https://pypi.org/pypi/{project}/json"


def newest_on_pypi(project: str, memo: RunMemo) -> tuple[Version | None, str | None]:
    """(newest non-prerelease version, None) or (None, why it could not be found); once a run."""
    return memo.value(("pypi.newest", project), lambda: _ask_pypi(project))


def _ask_pypi(project: str) -> tuple[Version | None, str | None]:
    """:func:`newest_on_pypi`, asked."""
    import json
    import urllib.error
    import urllib.request

    from packaging.version import InvalidVersion, Version

    url = PYPI_JSON.format(project=project)
    result: tuple[Version | None, str | None]
    try:
        with urllib.request.urlopen(url, timeout=15) as response:
            data = json.loads(response.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        result = (None, f"cannot ask PyPI for the newest {project} ({exc})")
    else:
        versions = []
        releases = data.get("releases", {}) if isinstance(data, dict) else {}
        for text, files in releases.items():
            try:
                version = Version(text)
            except InvalidVersion:
                continue
            yanked = bool(files) and all(isinstance(f, dict) and f.get("yanked") for f in files)
            if not version.is_prerelease and not yanked:
                versions.append(version)
        result = (
            (max(versions), None) if versions else (None, f"PyPI lists no release of {project}")
        )
    return result
