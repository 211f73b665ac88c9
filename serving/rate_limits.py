"""Rate limits per client address and per bearer token, shared by every replica.

Which requests: registration (``POST /v1/players``), suggestions, analysis (``POST
/v1/games/{game}/positions``) and joining the ladder queue; each has a limit per client address
and (except registration, which has no token yet) per token, in requests per
``rate_limit_window_seconds``; 0 is no limit, the default (docs/service.md says why and gives
values). Over a limit the answer is 429 ``rate_limited`` with ``Retry-After``: the seconds
until the window turns.

How: a fixed window counted in the database (``rate_limits``: one row per action, kind and key,
the window's index and its count), so every replica on the database shares the count. One
statement counts a request: an upsert that starts the row, adds one in the same window, or
starts again at 1 in a newer one, and returns the count. It is atomic on both SQLite (writes
are serialised) and PostgreSQL (``ON CONFLICT DO UPDATE`` locks the row), with no read before
the write to race. The window's index comes from the service's clock (replicas keep theirs
in step with NTP; a replica whose clock is behind never moves a row's window back). A token is
stored as a hash, never as it is.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy import BigInteger, Integer, String, case, delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Mapped, mapped_column

from serving.db import Base
from serving.errors import ServiceError, error_body
from serving.settings import Settings

ACTIONS = ("register", "suggest", "analysis", "queue")
SWEEP_EVERY = 1000  # counted requests between deletions of rows of past windows

_UPSERT = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


class RateLimitRow(Base):
    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(128), primary_key=True)  # action:kind:who
    window_index: Mapped[int] = mapped_column(BigInteger, index=True)
    count: Mapped[int] = mapped_column(Integer)


class RateLimited(ServiceError):
    """Too many requests; ``retry_after`` seconds until the window turns."""

    status, code = 429, "rate_limited"

    def __init__(self, message: str, retry_after: int, **detail: Any) -> None:
        super().__init__(message, retry_after=retry_after, **detail)
        self.retry_after = retry_after


class RateLimiter:
    """Fixed-window counters in the ``rate_limits`` table of ``engine``."""

    def __init__(self, engine: Engine, window_seconds: float,
                 clock: Callable[[], float] = time.time) -> None:
        dialect = engine.dialect.name
        if dialect not in _UPSERT:
            raise ValueError(f"rate limits need SQLite or PostgreSQL, not {dialect}")
        self.engine = engine
        self.window = window_seconds
        self.clock = clock
        self._upsert = _UPSERT[dialect]
        self._counted = 0

    def hit(self, key: str, limit: int) -> int | None:
        """Count a request under ``key``; the seconds to wait (Retry-After) if it goes over
        ``limit`` in this window, None if it is allowed."""
        now = self.clock()
        index = int(now // self.window)
        row = RateLimitRow.__table__.c
        stmt = self._upsert(RateLimitRow).values(key=key, window_index=index, count=1)
        newer = row.window_index >= stmt.excluded.window_index  # never move a window back
        stmt = stmt.on_conflict_do_update(
            index_elements=[row.key],
            set_={
                "count": case((newer, row.count + 1), else_=1),
                "window_index": case((newer, row.window_index),
                                     else_=stmt.excluded.window_index),
            },
        ).returning(row.count, row.window_index)
        with self.engine.begin() as conn:
            count, at = conn.execute(stmt).one()
        self._counted += 1
        if self._counted % SWEEP_EVERY == 0:
            self.sweep(index)
        if count <= limit:
            return None
        return max(1, math.ceil((at + 1) * self.window - now))

    def sweep(self, index: int | None = None) -> int:
        """Delete the rows of windows before the current one."""
        index = int(self.clock() // self.window) if index is None else index
        with self.engine.begin() as conn:
            return conn.execute(
                delete(RateLimitRow).where(RateLimitRow.window_index < index)).rowcount


def _limits(settings: Settings, action: str) -> tuple[int, int]:
    """(per client, per token) of ``action``; registration has no token to count."""
    per_client = getattr(settings, f"rate_limit_{action}_per_client")
    per_token = getattr(settings, f"rate_limit_{action}_per_token", 0)
    return per_client, per_token


def _bearer(request: Request) -> str | None:
    """The bearer token as sent (read here rather than through the security scheme, so a
    limit adds nothing to a route's documented authentication)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def rate_limited(action: str) -> Any:
    """A route dependency counting the request under ``action``'s limits (429 when over)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown rate-limited action {action!r}")

    def check(request: Request) -> None:
        settings: Settings = request.app.state.settings
        per_client, per_token = _limits(settings, action)
        if not per_client and not per_token:
            return
        limiter: RateLimiter = request.app.state.rate_limiter
        token = _bearer(request)
        checks = []
        if per_client:
            client = request.client.host if request.client else "unknown"
            checks.append(("client", client[:64], per_client))
        if per_token and token:
            digest = hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()[:40]
            checks.append(("token", digest, per_token))
        for kind, who, limit in checks:
            wait = limiter.hit(f"{action}:{kind}:{who}", limit)
            if wait is not None:
                raise RateLimited(
                    f"too many {action} requests from this {kind}: at most {limit} per "
                    f"{settings.rate_limit_window_seconds:g} s; try again in {wait} s",
                    retry_after=wait, limit=limit, per=kind)

    return Depends(check)


RATE_LIMITED_DOC: dict[int | str, dict[str, Any]] = {
    429: {"description": "over a rate limit (when limits are configured): `Retry-After` says "
          "how many seconds to wait"},
}


def install_handler(app: FastAPI) -> None:
    """The 429 answer, with Retry-After (the limiter itself is made by the lifespan)."""

    @app.exception_handler(RateLimited)
    async def _limited(_: Request, exc: RateLimited) -> JSONResponse:
        return JSONResponse(error_body(exc.code, exc.message, exc.detail), status_code=429,
                            headers={"Retry-After": str(exc.retry_after)})
