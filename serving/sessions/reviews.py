"""A finished session's review, computed once and kept with the session (``session_reviews``).

Why a table of its own rather than a column of ``sessions``: the review is written after the
game's last commit and never changes, so it takes no part in the sessions' compare-and-set
(no version bump, no event) and no session write can overwrite it. It is computed on the first
request, not at every game's end: most games are never reviewed, and a review costs a batch of
network evaluations and a few searches. Two first requests at once in one process compute it
once (a lock per session); on several replicas the first insert wins and the other answer is
replaced by the stored one, so every client sees the same review.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import JSON, Float, Integer, String
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from serving.db import Base, SessionStore
from serving.errors import Conflict
from serving.review import Reviewer, plies_of_events, review
from serving.sessions.context import Ctx


class SessionReviewRow(Base):
    __tablename__ = "session_reviews"

    session_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)  # the session's version it reviews
    review: Mapped[dict[str, Any]] = mapped_column(JSON)
    created: Mapped[float] = mapped_column(Float)


class SessionReviews:
    """Load, compute and store the reviews of finished sessions."""

    def __init__(
        self, store: SessionStore, engine: Reviewer, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.engine = engine
        self.clock = clock
        self.computed = 0  # reviews this process computed (what "computed once" is checked by)
        self._locks = [threading.Lock() for _ in range(64)]

    def stored(self, ctx: Ctx) -> dict[str, Any] | None:
        """The stored review of a finished session (None: not computed yet); 409 while the
        game is still being played or scored."""
        if ctx.data.status != "over":
            raise Conflict(
                f"the game is not over (status {ctx.data.status!r}): its review comes when it "
                "ends", status=ctx.data.status)
        with self.store.reader() as s:
            row = s.get(SessionReviewRow, ctx.data.id)
            return dict(row.review) if row is not None else None

    def get(self, ctx: Ctx) -> dict[str, Any]:
        """The session's review: stored, or computed now and stored (blocking: a worker
        thread's job)."""
        found = self.stored(ctx)
        if found is not None:
            return found
        with self._locks[hash(ctx.data.id) % len(self._locks)]:
            found = self.stored(ctx)  # computed by the request this one waited for
            if found is not None:
                return found
            data = ctx.data
            plies = plies_of_events(ctx.game, ctx.adapter, data.events)
            made = review(self.engine, ctx.game, plies, None, seat_shift=len(data.games) - 1)
            self.computed += 1
            try:
                with self.store.transaction() as s:
                    s.add(SessionReviewRow(session_id=data.id, version=data.version,
                                           review=made, created=self.clock()))
            except IntegrityError:  # another replica stored its own first: answer that one
                return self.stored(ctx) or made
            return made
