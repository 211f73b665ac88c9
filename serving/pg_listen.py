"""Event wake-ups across replicas through PostgreSQL ``LISTEN``/``NOTIFY`` (the event log's fast
path; :mod:`serving.events` keeps its poll as the fallback).

A transaction that published events queues one notification per channel it published to,
``"<last id> <channel>"`` on the database channel ``qizero_events``, just before it commits;
PostgreSQL delivers it at commit, and never for a transaction that rolled back, to every
connection listening on that database. Each replica keeps one such connection of its own (not
from the pool: a pooled connection may be handed to someone else between statements) on a
thread that hands each notification to the replica's subscribers. When that connection fails,
the thread reconnects and asks for one poll, so an event committed while nobody listened is
still found; until then the poll runs alone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy import func, select
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

log = logging.getLogger("qizero.serving")

CHANNEL = "qizero_events"


def notify_at_commit(tx: Session, published: dict[str, int]) -> None:
    """Queue a notification per channel published in ``tx`` (with its last id)."""
    for channel, last_id in sorted(published.items()):
        tx.execute(select(func.pg_notify(CHANNEL, f"{last_id} {channel}")))


def parse(payload: str) -> tuple[str, int] | None:
    """``(channel, last id)`` of a notification (None for one that is not ours)."""
    head, _, channel = payload.partition(" ")
    return (channel, int(head)) if head.isdigit() and channel else None


class Listener:
    """A thread that listens on its own connection and calls ``on_event(channel, last_id)``;
    ``on_gap()`` after each (re)connection, for what was committed while nobody listened."""

    def __init__(
        self,
        url: URL,
        on_event: Callable[[str, int], None],
        on_gap: Callable[[], None],
        retry_seconds: float = 1.0,
    ) -> None:
        self.conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self.on_event = on_event
        self.on_gap = on_gap
        self.retry_seconds = retry_seconds
        self.listening = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="qizero-listen", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        import psycopg

        while not self._stop.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    self.on_gap()
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            parsed = parse(note.payload)
                            if parsed is not None:
                                self.on_event(*parsed)
            except Exception:  # noqa: BLE001  the poll covers the gap; listen again soon
                log.exception("listening for events failed; the poll covers until it is back")
            self.listening.clear()
            self._stop.wait(self.retry_seconds)
