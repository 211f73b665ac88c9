"""Per-request observation: a request id, the request metrics, and (opt-in) one JSON log line.

One ASGI middleware, outermost, so it sees every answer, the 413s of the body limit included:

- **Request id**: the client's ``X-Request-ID`` (printable ASCII, at most 128 characters) or a
  new random one, echoed in the response's ``X-Request-ID`` header, so a client's report and
  the server's log line name the same request.
- **Metrics** (:mod:`serving.metrics`, when on): each request is counted by method, route
  *template* (``/v1/sessions/{session_id}/moves``, never the raw path, so the number of series
  stays bounded; ``<unmatched>`` for a path no route has) and status, when its response starts.
- **JSON log** (``json_logs``): one line per request on the ``qizero.access`` logger when it
  ends: ``{"ts", "request_id", "method", "route", "path", "status", "duration_ms", "client"}``.
"""

from __future__ import annotations

import json
import logging
import secrets
import sys
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serving.metrics import Metrics

access_log = logging.getLogger("qizero.access")

HEADER = b"x-request-id"
MAX_ID = 128
UNMATCHED = "<unmatched>"


def request_id(scope: Scope) -> str:
    """The client's X-Request-ID if it is a sane one, else a new one."""
    for name, value in scope.get("headers") or []:
        if name == HEADER:
            if 0 < len(value) <= MAX_ID and all(0x21 <= b <= 0x7E for b in value):
                return value.decode("ascii")
            break
    return secrets.token_hex(16)


def route_template(scope: Scope) -> str:
    """The matched route's path template (a mount's prefix), or ``<unmatched>``."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) and path else UNMATCHED


class Observe:
    """The request id, the request metrics and the JSON access log of every HTTP request."""

    def __init__(self, app: ASGIApp, metrics: Metrics | None, json_logs: bool) -> None:
        self.app = app
        self.metrics = metrics
        self.json_logs = json_logs

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = request_id(scope)
        t0 = time.perf_counter()
        status: int | None = None

        async def observed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                message["headers"] = [*message.get("headers", []), (HEADER, rid.encode())]
                self._count(scope, status, time.perf_counter() - t0)
            await send(message)

        if self.metrics is not None:
            self.metrics.in_flight.inc()
        try:
            await self.app(scope, receive, observed)
        except BaseException:
            if status is None:  # nothing was answered: it counts as the 500 the client sees
                status = 500
                self._count(scope, status, time.perf_counter() - t0)
            raise
        finally:
            if self.metrics is not None:
                self.metrics.in_flight.dec()
            if self.json_logs:
                self._log(scope, rid, status, time.perf_counter() - t0)

    def _count(self, scope: Scope, status: int, seconds: float) -> None:
        if self.metrics is not None:
            self.metrics.observe_request(scope["method"], route_template(scope), status, seconds)

    @staticmethod
    def _log(scope: Scope, rid: str, status: int | None, seconds: float) -> None:
        client = scope.get("client")
        line: dict[str, Any] = {
            "ts": round(time.time(), 3),
            "request_id": rid,
            "method": scope["method"],
            "route": route_template(scope),
            "path": scope.get("path", ""),
            "status": status,
            "duration_ms": round(seconds * 1000, 2),
            "client": client[0] if client else None,
        }
        access_log.info(json.dumps(line, ensure_ascii=True))


def install_json_access_log() -> None:
    """Send ``qizero.access`` lines, as they are (JSON), to stderr, once."""
    if any(getattr(h, "qizero_json", False) for h in access_log.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.qizero_json = True  # type: ignore[attr-defined]
    access_log.addHandler(handler)
    access_log.setLevel(logging.INFO)
    access_log.propagate = False
