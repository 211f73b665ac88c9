"""Who drives a session: this replica's leases (:mod:`serving.leases`) and the thread that
renews them and takes up sessions nobody drives.

A replica works on a session by itself (searches an AI seat's move, applies a due time-out)
only while it holds the session's lease; several jobs of one replica may work on the same
session at once (an AI worker and the poller), so holds are counted and the lease goes back
when the last job is done. The poller, every ``poll_seconds``, takes up (in random order, so
replicas spread out) each session whose clock is due or whose AI seat is to move with nobody
holding its lease: sessions whose replica died are taken over once their lease expires. Every
``ttl / 3`` seconds it renews the leases held here.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from serving.clocks import Clock
from serving.leases import Leases
from serving.periodic import Periodic

log = logging.getLogger("qizero.serving")

STRIPES = 64


class LeaseHolder:
    """This replica's leases, with a count of the jobs working on each session."""

    def __init__(self, leases: Leases) -> None:
        self.leases = leases
        self._count: dict[str, int] = {}
        self._stripes = [threading.Lock() for _ in range(STRIPES)]
        # Set once every lease was handed back at shutdown: nothing is taken again after it,
        # or a worker still finishing a move would take back a session a replica took over.
        self._closed = False

    @property
    def holder(self) -> str:
        return self.leases.holder

    def _lock(self, sid: str) -> threading.Lock:
        return self._stripes[hash(sid) % STRIPES]

    def hold(self, sid: str) -> bool:
        """Start a job on ``sid``: True if this replica holds (or now takes) its lease."""
        with self._lock(sid):
            if self._closed:
                return False
            n = self._count.get(sid, 0)
            if n == 0 and not self.leases.acquire(sid):
                return False
            self._count[sid] = n + 1
            return True

    def drop(self, sid: str) -> None:
        """End a job on ``sid``; the last one gives the lease back."""
        with self._lock(sid):
            n = self._count.get(sid, 0) - 1
            if n > 0:
                self._count[sid] = n
                return
            self._count.pop(sid, None)
            if self._closed:  # handed back already
                return
            try:
                self.leases.release(sid)
            except Exception:  # noqa: BLE001  the lease expires by itself
                log.exception("cannot release the lease of session %s", sid)

    def still_ours(self, sid: str) -> bool:
        """After a lost race: whether the lease is still ours (False: another replica took the
        session over, and this one stops)."""
        return not self._closed and self.leases.acquire(sid)

    def held(self) -> list[str]:
        return list(self._count.copy())

    def renew(self) -> None:
        held = self.held()
        if held:
            lost = set(held) - self.leases.renew(held)
            if lost:
                log.info("leases no longer ours: %s", sorted(lost)[:10])

    def close(self) -> None:
        """Hand every session back at once (a clean shutdown: another replica's poller takes
        them over at its next pass, without waiting for the expiry). Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._count.clear()
        try:
            self.leases.release_all()
        finally:
            self.leases.close()


class Driver:
    """This replica's two upkeep threads: one renews its leases every ``ttl / 3`` seconds,
    the other takes up undriven sessions every ``poll_seconds`` (apart, so that a long poll
    never delays a renewal past the expiry).

    ``refresh(sid)`` applies the session's due time-outs and sets its AI seat thinking."""

    def __init__(
        self,
        holder: LeaseHolder,
        refresh: Callable[[str], None],
        clock: Clock,
        poll_seconds: float,
        batch: int = 256,
    ) -> None:
        self.holder = holder
        self.refresh = refresh
        self.clock = clock
        self.poll_seconds = poll_seconds
        self.batch = batch
        self._stop = threading.Event()
        self.taken_up = 0  # sessions this replica took up from nobody (the metrics)
        self._threads = [
            Periodic("qizero-leases", holder.leases.ttl / 3, holder.renew),
            Periodic("qizero-driver", poll_seconds, self.take_up),
        ]

    def start(self) -> None:
        """Take up what waits now (sessions left by a previous run), then keep going."""
        self.take_up()
        for t in self._threads:
            t.start()

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.close()
        try:
            self.holder.close()
        except Exception:  # noqa: BLE001  they expire by themselves
            log.exception("cannot release the leases")

    def take_up(self) -> int:
        """Drive every session that waits for a driver (one batch); returns how many."""
        taken = 0
        for sid in self.holder.leases.claimable(self.clock(), self.batch):
            if self._stop.is_set() or not self.holder.hold(sid):
                continue
            taken += 1
            self.taken_up += 1
            try:
                self.refresh(sid)
            except Exception:  # noqa: BLE001  one broken session must not stop the others
                log.exception("cannot drive session %s", sid)
            finally:
                self.holder.drop(sid)
        return taken
