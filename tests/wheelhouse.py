# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Tiny wheels for hermetic resolver tests, written directly as zip files.

A wheel is a zip with ``{name}/__init__.py`` and a ``.dist-info`` directory holding
``METADATA``, ``WHEEL`` and ``RECORD``; no build backend is needed. Timestamps are
fixed so the same wheel always has the same bytes (and so the same sha256).

Import :data:`INDEX` / :func:`build_wheelhouse` from other tests, or use the
session-scoped ``wheelhouse`` fixture (declared in conftest.py, built once a session)
which gives a :class:`Wheelhouse`. The session
directories are shared: a test that publishes new wheels builds its own directory with
:func:`build_wheelhouse` instead of adding to them.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# name -> version -> its Requires-Dist lines. The graph:
#   alpha: no deps
#   beta 1.x needs gamma<2; beta 2.0 needs gamma>=2
#   gamma: no deps
#   delta needs alpha<2 (a constraint that blocks alpha 2.0 when delta is present)
#   epsilon 1.x needs beta; epsilon 2.0 needs beta>=2 (moving epsilon moves beta and gamma)
INDEX: dict[str, dict[str, tuple[str, ...]]] = {
    "alpha": {"1.0": (), "1.1": (), "2.0": ()},
    "beta": {"1.0": ("gamma<2",), "1.1": ("gamma<2",), "2.0": ("gamma>=2",)},
    "gamma": {"1.0": (), "1.1": (), "2.0": ()},
    "delta": {"1.0": ("alpha<2",), "1.1": ("alpha<2",), "2.0": ("alpha<2",)},
    "epsilon": {"1.0": ("beta>=1.0",), "1.1": ("beta>=1.1",), "2.0": ("beta>=2",)},
}

# Versions that only a second, "ambient" directory offers (to prove it is ignored).
NEWER: dict[str, dict[str, tuple[str, ...]]] = {
    "alpha": {"9.0": ()},
    "gamma": {"9.0": ()},
    "beta": {"9.0": ("gamma>=2",)},
}

_FIXED_TIME = (2020, 1, 1, 0, 0, 0)


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def wheel_bytes(name: str, version: str, requires: Sequence[str] = ()) -> bytes:
    """The bytes of a pure-Python wheel ``name==version`` depending on ``requires``."""
    import io

    dist_info = f"{name}-{version}.dist-info"
    metadata = "".join(
        [
            "Metadata-Version: 2.1\n",
            f"Name: {name}\n",
            f"Version: {version}\n",
            f"Summary: test package {name}\n",
            *(f"Requires-Dist: {req}\n" for req in requires),
        ]
    )
    files: list[tuple[str, bytes]] = [
        (f"{name}/__init__.py", f'__version__ = "{version}"\n'.encode()),
        (f"{dist_info}/METADATA", metadata.encode()),
        (
            f"{dist_info}/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: policytool-tests\n"
            b"Root-Is-Purelib: true\nTag: py3-none-any\n",
        ),
    ]
    record = "".join(f"{path},{_record_hash(data)},{len(data)}\n" for path, data in files)
    record += f"{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files:
            info = zipfile.ZipInfo(path, date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def build_wheelhouse(
    directory: Path, index: Mapping[str, Mapping[str, Sequence[str]]] = INDEX
) -> Path:
    """Write every wheel of ``index`` into ``directory`` and return it."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, versions in index.items():
        for version, requires in versions.items():
            target = directory / f"{name}-{version}-py3-none-any.whl"
            target.write_bytes(wheel_bytes(name, version, requires))
    return directory


def wheel_sha256(directory: Path, name: str, version: str) -> str:
    """The sha256 hex digest of a built wheel (what ``--hash`` lines carry)."""
    return hashlib.sha256(
        (directory / f"{name}-{version}-py3-none-any.whl").read_bytes()
    ).hexdigest()


@dataclass(frozen=True)
class Wheelhouse:
    """The directories the session fixture built."""

    path: Path  # the wheels of INDEX
    newer: Path  # INDEX plus NEWER, to play an ambient find-links directory


def session_wheelhouse(base: Path) -> Wheelhouse:
    """Build the session's local index of tiny wheels (see :data:`INDEX`) under ``base``."""
    path = build_wheelhouse(base / "wheels")
    newer = build_wheelhouse(base / "newer")
    build_wheelhouse(newer, NEWER)
    return Wheelhouse(path, newer)


def build_simple_index(root: Path, index: Mapping[str, Mapping[str, Sequence[str]]]) -> str:
    """A PEP 503 "simple" index of ``index``'s wheels under ``root``; its ``file://`` URL."""
    files = build_wheelhouse(root.resolve() / "files", index)
    for name, versions in index.items():
        page = root / "simple" / name
        page.mkdir(parents=True, exist_ok=True)
        links = "".join(
            f'<a href="{(files / f"{name}-{v}-py3-none-any.whl").as_uri()}">'
            f"{name}-{v}-py3-none-any.whl</a>\n"
            for v in versions
        )
        (page / "index.html").write_text(f"<html><body>\n{links}</body></html>\n", "utf-8")
    return (root.resolve() / "simple").as_uri()
