"""Running the app under uvicorn with a bounded shutdown (``qizero serve``).

uvicorn on SIGTERM stops accepting, waits for open connections (at most
``timeout_graceful_shutdown``), then runs the lifespan's shutdown. Left alone that took 22 s
and more: event streams never close by themselves, a suggestion's search runs to its end and
the search processes were joined one after the other. Here the signal also starts the app's
own stop at once, on a thread of its own (:meth:`serving.lifecycle.Lifecycle.begin_stop`:
streams end, waiting searches answer 503, search processes stop, leases go back), so the
connections close within moments and the lifespan finds nothing left to wait for.

A watchdog ends the process ``shutdown_seconds`` after the first signal whatever still runs
(exit status 143, as for SIGTERM): the bound holds even if a step hangs on a database that
does not answer. Ending then loses nothing a SIGKILL would not: every write is a
compare-and-set transaction, and leases expire by themselves.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from types import FrameType
from typing import Any

import uvicorn

from serving.lifecycle import Lifecycle

WATCHDOG_MARGIN = 0.25  # seconds before the bound at which the watchdog ends the process


def graceful_seconds(shutdown_seconds: float) -> float:
    """How long uvicorn waits for open connections: the bound less time for the lifespan's
    close (at least 0.5 s)."""
    return max(0.5, shutdown_seconds - 2.0)


class BoundedServer(uvicorn.Server):
    """uvicorn's server whose exit signal also stops the app at once and arms a watchdog."""

    def __init__(self, config: uvicorn.Config, lifecycle: Lifecycle,
                 shutdown_seconds: float) -> None:
        super().__init__(config)
        self.lifecycle = lifecycle
        self.shutdown_seconds = shutdown_seconds
        self._stopping = False

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        first = not self._stopping
        self._stopping = True
        super().handle_exit(sig, frame)
        if first:
            # Not in the signal handler itself: a stop step takes locks the interrupted code
            # may hold, and talks to the database.
            threading.Thread(target=self.lifecycle.begin_stop, name="qizero-stop",
                             daemon=True).start()
            threading.Thread(target=self._watchdog, name="qizero-watchdog",
                             daemon=True).start()

    def _watchdog(self) -> None:
        time.sleep(max(0.0, self.shutdown_seconds - WATCHDOG_MARGIN))
        # straight to stderr: a logging handler's lock may be held by what hangs
        os.write(2, f"shutdown not done after {self.shutdown_seconds:g} s: exiting now\n"
                 .encode())
        os._exit(128 + signal.SIGTERM)


def serve(app: Any, host: str, port: int, log_level: str, shutdown_seconds: float,
          access_log: bool = True) -> None:
    """Serve ``app`` (built by :func:`serving.app.create_app`) until a signal stops it."""
    config = uvicorn.Config(
        app, host=host, port=port, log_level=log_level, access_log=access_log,
        timeout_graceful_shutdown=graceful_seconds(shutdown_seconds),
    )
    BoundedServer(config, app.state.lifecycle, shutdown_seconds).run()
