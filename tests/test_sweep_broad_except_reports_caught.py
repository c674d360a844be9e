# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the policytool project
"""broad-except: a ``try`` inside ``except ... as e:`` whose body reports ``e`` (autogen's
FastAPI sample, set zzzu: the websocket route's outer handler logs the error, then tries
to send it to the client, and a failed send is logged and dropped) is reporting a failure
already caught: best effort, ⚠ however the route is read, and ⚠ still when it logs its
own error (not the no-finding of a logged catch at a best-effort boundary: the pattern
gives every new broad catch its ⚠). A ``try`` in a handler that
attempts something else (a second load that reads no ``e``) is a fallback chain and keeps
its ✗."""

from __future__ import annotations

from tests.conftest import Repo
from tests.sweep_fixture import LOG, Run, by_marker

ROUTES = LOG + (
    "def start(app):\n"
    '    @app.websocket("/ws/chat")\n'
    "    async def chat(websocket):\n"
    "        try:\n"
    "            await serve(websocket)\n"
    "        except Exception as e:  # m:outer\n"
    "            logger.error(f'Unexpected error: {e}')\n"
    "            try:\n"
    "                await websocket.send_json({'type': 'error', 'content': str(e)})\n"
    "            except Exception:  # m:report\n"
    "                logger.error('Failed to send error message to client')\n"
    "\n"
    '    @app.websocket("/ws/jobs")\n'
    "    async def jobs(websocket):\n"
    "        try:\n"
    "            await run_jobs(websocket)\n"
    "        except Exception as e:  # m:jobs\n"
    "            try:\n"
    "                await mark_failed(websocket, str(e))\n"
    "            except Exception as me:  # m:report-logged\n"
    "                logger.error('Failed to mark the job failed: %s', me)\n"
    "\n"
    '    @app.post("/v1/embed")\n'
    "    async def embed(request):\n"
    "        try:\n"
    "            vectors = await primary(request)\n"
    "        except Exception as e:  # m:first\n"
    "            logger.warning('primary failed: %s', e)\n"
    "            try:\n"
    "                vectors = await secondary(request)\n"
    "            except Exception:  # m:fallback\n"
    "                logger.warning('secondary failed')\n"
    "                vectors = []\n"
    "        return {'data': vectors}\n"
)


def test_reporting_a_caught_error_is_best_effort(feature: Repo, run: Run) -> None:
    feature.write("pkg/server.py", ROUTES)
    marks = by_marker(feature, "pkg/server.py", run)
    assert marks["report"] == "warning"
    # logged with its own error: still the ⚠ every new broad catch gets (aibrix's
    # `except Exception as me:` around marking a job failed, set zzb, labelled ⚠)
    assert marks["report-logged"] == "warning"
    assert marks["fallback"] == "error"


def test_the_report_needs_the_caught_error(feature: Repo, run: Run) -> None:
    """The same inner ``try`` sending a fixed text (no ``e``) is the route's own work, as
    the fallback is: ✗ as before."""
    feature.write(
        "pkg/server.py",
        ROUTES.replace("{'type': 'error', 'content': str(e)}", "{'type': 'error'}"),
    )
    assert by_marker(feature, "pkg/server.py", run)["report"] == "error"
