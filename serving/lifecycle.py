"""Where the service is in its life: starting, ready, stopping (liveness, readiness, shutdown).

Why apart from the lifespan: a shutdown must begin the moment the signal comes, not after the
server has waited for its open connections, because the connections are what keep it waiting
(event streams stay open until the client leaves, a suggestion until its search ends). So the
server (:mod:`serving.server`) calls :meth:`Lifecycle.begin_stop` from its signal handler:
streams end, waiting searches answer 503, leases go back to the database; the lifespan's own
close then finds everything done. ``/v1/ready`` reads :meth:`Lifecycle.problems`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("qizero.serving")


class Lifecycle:
    """Started / stopping flags and the steps of a stop, run once, in order."""

    def __init__(self) -> None:
        self.started = threading.Event()  # the lifespan's start (inline or background) is done
        self.stopping = threading.Event()
        self.start_error: str | None = None
        self._steps: list[tuple[str, Callable[[], None]]] = []
        self._stop_lock = threading.Lock()
        self._ran = 0  # stop steps run so far
        # Conditions readiness needs beyond being started: name -> check (True when met).
        self._checks: list[tuple[str, Callable[[], bool]]] = []

    def on_stop(self, name: str, step: Callable[[], None]) -> None:
        """Run ``step`` when the service stops (steps run in the order they were added)."""
        self._steps.append((name, step))

    def require(self, name: str, check: Callable[[], bool]) -> None:
        """Readiness also needs ``check()`` to be true (``name`` says what is missing)."""
        self._checks.append((name, check))

    def begin_stop(self) -> None:
        """Run the stop steps not run yet, each once (a second call waits for the first; a
        signal during the start runs the steps added so far, the lifespan's close the rest).
        A failing step is logged and the others still run: a stop never stops half way."""
        self.stopping.set()
        with self._stop_lock:
            while self._ran < len(self._steps):
                name, step = self._steps[self._ran]
                self._ran += 1
                try:
                    step()
                except Exception:  # noqa: BLE001  the remaining steps matter more
                    log.exception("shutdown step %r failed", name)

    def problems(self) -> list[str]:
        """Why the service is not ready (empty: ready). Cheap; the database is asked by the
        route itself."""
        if self.stopping.is_set():
            return ["stopping"]
        if self.start_error is not None:
            return [f"start failed: {self.start_error}"]
        if not self.started.is_set():
            return ["starting"]
        missing = []
        for name, check in self._checks:
            try:
                ok = check()
            except Exception as exc:  # noqa: BLE001  a failing check is a missing condition
                ok = False
                name = f"{name} ({type(exc).__name__}: {exc})"
            if not ok:
                missing.append(name)
        return missing
