"""The application factory: ``create_app(settings)`` (FastAPI's "bigger applications" layout).

The lifespan opens the database (bringing its schema up to date: :mod:`serving.schema`), the
level registry and the AI worker pool, takes up the sessions that wait for a driver (AI seats
to move, timers) and closes all of it on shutdown (:mod:`serving.lifecycle`: streams end,
searches are abandoned, leases go back at once); nothing is loaded at import time. With
``background_start`` (``qizero serve``) the slow part of the start (the ladder's AI players,
the levels' networks) runs on a thread, so ``/v1/health`` answers at once and ``/v1/ready``
says when it is done. Networks are loaded on first use and then shared. The static web client
(``serving/static``, docs/web_client.md) is served at ``/`` beside the API routes, without a
catch-all mount, so every API path answers exactly as it would without it.
"""

from __future__ import annotations

import logging
import mimetypes
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serving import schema
from serving.ai import AIEngine
from serving.analyses import Analyses
from serving.api.methods import install_method_answers
from serving.api.openapi import install_openapi
from serving.api.routes import analysis, games, health, ladder, players, sessions
from serving.db import SessionStore
from serving.errors import error_body, install_handlers
from serving.events import EventLog
from serving.ladder.service import Ladder
from serving.levels import LevelRegistry
from serving.lifecycle import Lifecycle
from serving.metrics import Metrics
from serving.metrics import router as metrics_router
from serving.observe import Observe, install_json_access_log
from serving.rate_limits import RateLimiter, install_handler
from serving.sessions.manager import SessionManager
from serving.settings import Settings

STATIC_DIR = Path(__file__).parent / "static"
STOP_WAIT_SECONDS = 1.0  # how long the lifespan's close waits for AI seats finishing a move

log = logging.getLogger("qizero.serving")


def mount_web_client(app: FastAPI) -> None:
    """Serve the static web client at ``/`` without shadowing the API.

    Why not one StaticFiles mount at ``/``: a catch-all mount matches every path, so a wrong
    method on an API route (405) or a write to an unknown path (404) would reach the file
    server instead. Here ``/`` and each top-level file get a GET route and each folder a
    mount of its own prefix; every other path behaves exactly as before.
    """

    # The offline mode's files (serving/static/offline): the browser compiles WebAssembly
    # only from application/wasm; a model is bytes, not the text/plain of an unknown suffix.
    # The Chinese webfont (serving/static/fonts): Python's table may not know .woff2.
    for suffix, media_type in ((".wasm", "application/wasm"), (".mjs", "text/javascript"),
                               (".onnx", "application/octet-stream"), (".woff2", "font/woff2")):
        mimetypes.add_type(media_type, suffix)

    def serve(path: Path) -> Callable[[], FileResponse]:
        return lambda: FileResponse(path)

    app.add_api_route("/", serve(STATIC_DIR / "index.html"), include_in_schema=False)
    for entry in sorted(STATIC_DIR.iterdir()):
        if entry.is_dir():
            app.mount(f"/{entry.name}", StaticFiles(directory=entry), name=f"web-{entry.name}")
        else:
            app.add_api_route(f"/{entry.name}", serve(entry), include_in_schema=False)


DESCRIPTION = """
qizero serves every registered board game: the catalogue, stateless analysis of a position
given as its move list, move suggestions from the trained AI levels, and game sessions between
any mix of people and AI levels (seat tokens, provisional turns, timers, resignation), and
the Stereo Go ranking ladder (players, ranks and points, automatic matching, AI levels as
ladder players).

Errors are JSON `{"error", "message", "detail"}` with the matching status code: 400 for a
body that is not UTF-8 JSON, 401/403 for tokens (checked before anything else), 404 for
unknown games, levels and sessions, 409 for a stale session version, 413 for a body over the
size limit, 422 for bad input (an illegal move names its index and the reason; a request that
does not fit the route has `detail: {"problems": [{"where", "problem"}]}`; text with lone
surrogates or control characters is refused wherever it is). `OPTIONS` answers 204 with `Allow`.
"""


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with a JSON 413 (before any parsing)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._too_large(send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._too_large(send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        import json

        payload = json.dumps(
            error_body("too_large", f"request body over {self.limit} bytes")
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


def create_app(settings: Settings | None = None, clock: Callable[[], float] = time.time) -> FastAPI:
    """Build the service. ``clock`` (seconds) drives turn timers; tests pass a fake one."""
    settings = settings or Settings()
    lifecycle = Lifecycle()
    metrics: Metrics | None = None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        events = partial(
            EventLog,
            poll_seconds=settings.event_poll_seconds,
            retention_seconds=settings.event_retention_days * 86_400,
            clock=clock,
        )
        store = SessionStore(settings.resolved_database_url, events)
        if settings.migrate_on_start:
            schema.upgrade(store.engine)
        levels = LevelRegistry(settings.checkpoints_root, settings.baseline_levels)
        ai = AIEngine(
            levels,
            workers=settings.ai_workers,
            batching=settings.batching,
            max_batch=settings.max_batch,
            torch_threads=settings.torch_threads,
            cache_bytes=settings.eval_cache_mb << 20,
            processes=settings.resolved_search_processes,
            # in the server process, networks load on first use unless started in the background
            warm_up=settings.background_start and settings.resolved_search_processes == 0,
            inference=settings.inference,
            inference_device=settings.inference_device,
            inference_wait=settings.inference_wait_ms / 1000,
        )
        manager = SessionManager(store, ai, settings, clock)
        ranking = Ladder(store, manager, levels, settings, clock)
        app.state.ai, app.state.sessions, app.state.events = ai, manager, store.events
        app.state.ladder = ranking
        app.state.analyses = Analyses()
        app.state.rate_limiter = RateLimiter(
            store.engine, settings.rate_limit_window_seconds, clock)
        if metrics is not None:
            ai.on_search = metrics.observe_search
            ranking.matcher.on_matched = metrics.queue_wait.observe
        # A stop, in this order: ladder presence stops counting this process's streams (a
        # stopping server is no player's disconnection: its rows go stale and the other
        # replicas' sweep judges them), streams end (their clients reconnect elsewhere), no AI
        # seat starts a search and every lease goes back (another replica takes the sessions
        # over at its next poll), waiting searches answer 503 and the search processes stop.
        lifecycle.on_stop("presence", ranking.presence.close)
        lifecycle.on_stop("streams", store.events.wakeups.close)
        lifecycle.on_stop("sessions", manager.close)
        lifecycle.on_stop("analyses", app.state.analyses.stop_all)
        lifecycle.on_stop("searches", ai.stop)
        lifecycle.on_stop("ladder", ranking.close)
        lifecycle.require("levels loaded", lambda: ai.warm_now())
        manager.start()
        store.events.start()

        def finish_start() -> None:
            if lifecycle.stopping.is_set():  # stopped while starting: nothing to start
                return
            try:
                ranking.start()
            except Exception as exc:  # noqa: BLE001  told by /v1/ready, not lost
                log.exception("the service could not start")
                lifecycle.start_error = f"{type(exc).__name__}: {exc}"
                return
            lifecycle.started.set()

        if settings.background_start:
            threading.Thread(target=finish_start, name="qizero-start", daemon=True).start()
        else:
            finish_start()
        try:
            yield
        finally:
            lifecycle.begin_stop()
            manager.wait_idle(STOP_WAIT_SECONDS)
            store.close()

    app = FastAPI(
        title="qizero",
        version="1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        openapi_tags=[
            {"name": "health", "description": "liveness and readiness"},
            {"name": "games", "description": "catalogue, positions, suggestions"},
            {"name": "analysis", "description": "analysis of a position while the AI "
             "thinks: top moves, values, variations, Go ownership (docs/analysis.md)"},
            {"name": "sessions", "description": "stateful games between people and AI levels"},
            {"name": "ladder", "description": "ranking ladder: players, ranks and points, "
             "leaderboard, automatic matching (docs/ladder.md)"},
        ],
    )
    app.state.settings = settings
    app.state.lifecycle = lifecycle
    if settings.metrics:
        metrics = Metrics(lambda: app.state)
    app.state.metrics = metrics
    if settings.json_logs:
        install_json_access_log()
    install_handlers(app)
    install_handler(app)
    install_method_answers(app)
    install_openapi(app)
    app.include_router(health.router)
    app.include_router(games.router)
    app.include_router(analysis.router)
    app.include_router(sessions.router)
    app.include_router(players.router)
    app.include_router(ladder.router)
    app.include_router(metrics_router)
    mount_web_client(app)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST", "PUT", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
            expose_headers=["X-Analysis-Id"],  # a cross-origin client stops its analysis
        )
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    # outermost: the request id, metrics and log line of every answer, the body limit's too
    app.add_middleware(Observe, metrics=metrics, json_logs=settings.json_logs)
    return app


def app_from_env() -> Any:
    """For ``uvicorn --factory serving.app:app_from_env``: settings from QIZERO_* variables."""
    return create_app(Settings())
