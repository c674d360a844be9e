# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""A JSON document over HTTP(S), bounded: the whole answer within one deadline (not a
timeout per read: a byte every few seconds would never end), at most a size, and nested
no deeper than Python reads. The one HTTP client (:mod:`policytool.pypi` uses it)."""

from __future__ import annotations

import functools
import http.client
import socket
import ssl
import threading
import urllib.request

from policytool.core.text import parse_json


class _Deadline:
    """Shuts the sockets of the requests made under it down once ``seconds`` have passed,
    so a read blocked on a slow server returns."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self.expire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        _ACTIVE.deadline = self
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        _ACTIVE.deadline = None

    def track(self, sock: socket.socket) -> None:
        """Shut ``sock`` down at the deadline (at once when it has passed)."""
        with self._lock:
            self._sockets.append(sock)
            if not self.expired:
                return
        _shut(sock)

    def expire(self) -> None:
        """The deadline: every tracked socket is shut down."""
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


class _Active(threading.local):
    """The deadline of the request this thread is making."""

    deadline: _Deadline | None = None


_ACTIVE = _Active()


def _shut(sock: socket.socket) -> None:
    """Shut a socket down for reading and writing (a blocked read returns)."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # closed already


def _track(sock: socket.socket | None) -> None:
    """Hand a freshly connected socket to this thread's deadline."""
    deadline = _ACTIVE.deadline
    if deadline is not None and sock is not None:
        deadline.track(sock)


class _HTTPConnection(http.client.HTTPConnection):
    """An HTTP connection whose socket the deadline can shut down."""

    def connect(self) -> None:
        """Connect, then hand the socket to the deadline."""
        super().connect()
        _track(self.sock)


class _HTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection whose socket the deadline can shut down."""

    def connect(self) -> None:
        """Connect (TLS included), then hand the socket to the deadline."""
        super().connect()
        _track(self.sock)


class _HTTPHandler(urllib.request.HTTPHandler):
    """``http://`` through :class:`_HTTPConnection`."""

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        """Open ``req``."""
        return self.do_open(_HTTPConnection, req)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The default TLS context (certificate and host checks), built once a process:
    loading the CA bundle costs tens of milliseconds of CPU, once per request before."""
    return ssl.create_default_context()


class _HTTPSHandler(urllib.request.HTTPSHandler):
    """``https://`` through :class:`_HTTPSConnection`, with the default TLS checks."""

    def __init__(self) -> None:
        self._tls = _tls_context()
        super().__init__(context=self._tls)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        """Open ``req``."""
        return self.do_open(_HTTPSConnection, req, context=self._tls)


def get_json(url: str, seconds: float, limit: int) -> tuple[object, str | None]:
    """(the JSON document at ``url``, None) or (None, why there is none): the whole answer
    within ``seconds``, at most ``limit`` bytes, nested no deeper than Python can read."""
    opener = urllib.request.build_opener(_HTTPHandler(), _HTTPSHandler())
    with _Deadline(seconds) as deadline:
        try:
            with opener.open(url, timeout=seconds) as response:
                body = response.read(limit + 1)
        except (OSError, http.client.HTTPException) as exc:
            if deadline.expired:
                return None, f"no whole answer within {seconds:.0f} s"
            reason = str(getattr(exc, "reason", None) or exc or type(exc).__name__)
            return None, "".join(c if c.isprintable() else "?" for c in reason)[:300]
        if deadline.expired:
            return None, f"no whole answer within {seconds:.0f} s"
    if len(body) > limit:
        return None, f"the answer is larger than {limit // (1024 * 1024)} MiB"
    try:
        return parse_json(body.decode("utf-8")), None
    except ValueError as exc:  # parse_json: also JSON nested too deep for the parser
        return None, f"the answer is not JSON ({exc})"
