# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""The project as an adopter meets it: its license, its addresses, its built wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import policytool

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10 only
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _pyproject() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        data: dict[str, object] = tomllib.load(handle)
    return data


def test_the_license_file_is_the_apache_license_the_metadata_names() -> None:
    """LICENSE holds the Apache License 2.0 text, the license pyproject.toml declares."""
    project = _pyproject()["project"]
    assert isinstance(project, dict)
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_project_urls_and_the_package_name_one_home() -> None:
    """[project.urls] and the address the code prints (SARIF, init's hook repo) agree."""
    urls = _pyproject()["project"]["urls"]  # type: ignore[index]
    assert urls["Homepage"] == policytool.HOMEPAGE
    assert all(str(url).startswith(policytool.HOMEPAGE) for url in urls.values())


@pytest.mark.network
def test_the_wheel_carries_the_license(tmp_path: Path) -> None:
    """The built wheel has LICENSE in its .dist-info and the URLs in its METADATA."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("policytool-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (license_name,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(license_name) == (ROOT / "LICENSE").read_bytes()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    assert "License-Expression: Apache-2.0" in text
    assert f"Project-URL: Homepage, {policytool.HOMEPAGE}" in text
