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


def _extras(requires: Sequence[str]) -> list[str]:
    """The extras named by ``extra == "x"`` markers, in order."""
    import re

    found: dict[str, None] = {}
    for req in requires:
        for extra in re.findall(r"extra\s*==\s*[\"']([^\"']+)[\"']", req):
            found[extra] = None
    return list(found)


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
            *(f"Provides-Extra: {extra}\n" for extra in _extras(requires)),
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


class JsonIndex:
    """A PEP 691 JSON index with PEP 700 upload times, served on 127.0.0.1 (no network).

    ``publish`` adds a wheel with its upload time; ``url`` is the ``/simple`` URL. Stop it
    with :meth:`close`.
    """

    def __init__(self, root: Path) -> None:
        import http.server
        import json
        import threading

        self.files = root / "files"
        self.files.mkdir(parents=True, exist_ok=True)
        self.uploads: dict[str, dict[str, str]] = {}  # name -> filename -> upload time
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                """A project page (JSON) or a wheel."""
                self.respond(head=False)

            def do_HEAD(self) -> None:  # noqa: N802
                """Headers only (uv asks before a download)."""
                self.respond(head=True)

            def respond(self, head: bool) -> None:
                """The answer to GET or HEAD."""
                parts = [p for p in self.path.split("?")[0].split("/") if p]
                if len(parts) == 2 and parts[0] == "simple" and parts[1] in index.uploads:
                    name = parts[1]
                    files = [
                        {
                            "filename": filename,
                            "url": f"/files/{filename}",
                            "hashes": {
                                "sha256": hashlib.sha256(
                                    (index.files / filename).read_bytes()
                                ).hexdigest()
                            },
                            "upload-time": when,
                        }
                        for filename, when in sorted(index.uploads[name].items())
                    ]
                    body = json.dumps(
                        {"meta": {"api-version": "1.1"}, "name": name, "files": files}
                    ).encode()
                    content_type = "application/vnd.pypi.simple.v1+json"
                elif len(parts) == 2 and parts[0] == "files" and (index.files / parts[1]).is_file():
                    body = (index.files / parts[1]).read_bytes()
                    content_type = "application/octet-stream"
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                """Quiet."""

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple"

    def publish(self, name: str, version: str, when: str, requires: Sequence[str] = ()) -> None:
        """Add ``name==version`` uploaded at ``when`` (``YYYY-MM-DDTHH:MM:SSZ``)."""
        filename = f"{name}-{version}-py3-none-any.whl"
        (self.files / filename).write_bytes(wheel_bytes(name, version, requires))
        self.uploads.setdefault(name, {})[filename] = when

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()
