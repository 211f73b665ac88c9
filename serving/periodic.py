"""A daemon thread that does one job every ``interval`` seconds until it is closed (a replica's
lease renewal and its poll for sessions to drive, the ladder's matcher).

Why one class: every background job of the service must survive a passing error (a database
restart, a broken row) and stop promptly on shutdown; here both are done once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("qizero.serving")


class Periodic:
    """Calls ``tick`` every ``interval`` seconds on a thread named ``name``."""

    def __init__(self, name: str, interval: float, tick: Callable[[], None]) -> None:
        self.name = name
        self.interval = interval
        self.tick = tick
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.tick()
            except Exception:  # noqa: BLE001  keep going through a passing error
                log.exception("%s: a periodic run failed", self.name)
