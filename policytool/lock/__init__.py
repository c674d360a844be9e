# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""Exact-pinned requirement locks: inputs, backends (uv, pip-tools), check, bump.

Requirement files are read by :mod:`policytool.formats.requirements` (shared with ``floating-pin``).
Modules (imported lazily by the CLI and the ``lock-stale`` / ``lock-skew`` rules so that
``policytool lock --check`` stays fast):

- :mod:`policytool.engine.locks`: what a lock is compiled from, its fingerprint, the order;
- :mod:`policytool.formats.lockfile`: the lock file: header, body hash, pins;
- :mod:`policytool.lock.backends`: running uv / pip-compile isolated, normalising output;
- :mod:`policytool.lock.check`: the offline check and the skew check (findings);
- :mod:`policytool.lock.run`: ``policytool lock`` itself;
- :mod:`policytool.lock.bump`: ``policytool bump``.
"""
