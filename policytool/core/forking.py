# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""When ``os.fork()`` is safe: only in a process with one thread.

A child forked from a process with other threads starts with their locks (in malloc, in
a library, in ``logging``) held by threads that do not exist in it, and can deadlock.
Python 3.12+ warns about it (``DeprecationWarning: This process is multi-threaded``) and
3.14 no longer forks by default. policytool's own threads (``fix --online``'s
``git ls-remote`` calls, PyPI timeouts) and an embedding program's (a test runner's) can
be alive, so every fork asks :func:`single_threaded` first and otherwise takes a way that
does not fork a copy of this process (``spawn``) or skips a shortcut.
"""

from __future__ import annotations

import threading


def thread_count() -> int:
    """The threads of this process, as the kernel counts them (C threads too).

    The same test CPython makes before it warns: ``num_threads`` of
    ``/proc/self/stat``; where that cannot be read, the Python threads.
    """
    try:
        with open("/proc/self/stat", "rb") as handle:
            stat = handle.read()
        # Field 20; the fields after the command name (which may hold spaces and
        # parentheses) start at field 3.
        return int(stat[stat.rindex(b")") + 2 :].split()[17])
    except (OSError, ValueError, IndexError):
        return threading.active_count()


def single_threaded() -> bool:
    """Whether this process has one thread, so a forked copy of it cannot deadlock."""
    return thread_count() == 1
