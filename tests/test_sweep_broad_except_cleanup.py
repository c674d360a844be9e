# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except: cleanup inside a handler. GenAIComps 16474230 (set zzzza) mcp/manager.py:
``_initialize_clients`` logs a failed connection, tries to disconnect, and goes on
without that server: the outer catch carries on half set up (✗, labelled ✗); the nested
catch around the disconnect is cleanup after a failure already handled, best effort (⚠,
labelled ⚠; the brief's clarification after set zzzu)."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import Run, by_marker

MANAGER = """\
import logging

logger = logging.getLogger(__name__)


class Manager:
    async def _initialize_clients(self, configs):
        clients = []
        for config in configs:
            client = Client()
            try:
                await client.connect(config.url)
                clients.append(client)
            except Exception as e:  # m:outer
                logger.error(f"Failed to connect to {config}: {e}")
                try:
                    await client.disconnect()
                except Exception as error:  # m:cleanup
                    logger.error(f"Error during disconnect: {error}")
        return clients

    def _init_cache(self):
        try:
            self.cache = open_cache()
        except Exception as e:  # m:rebuilds
            logger.error(f"cache: {e}")
            try:
                self.cache = rebuild_cache()
            except Exception:  # m:silent_cleanup
                pass
"""


def test_cleanup_in_a_handler_is_best_effort_the_handler_is_not(feature: Repo, run: Run) -> None:
    """The outer catch logs and goes on (a cleanup ``try`` in it is still going on): ✗.
    The catches nested in a handler: ⚠, silent or logged. A handler whose nested ``try``
    rebinds state is no cleanup: not the "logs and carries on" ✗."""
    feature.write("pkg/manager.py", MANAGER)
    assert by_marker(feature, "pkg/manager.py", run) == {
        "outer": "error",
        "cleanup": "warning",
        "rebuilds": "warning",
        "silent_cleanup": "warning",
    }
