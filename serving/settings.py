"""Service settings: one ``BaseSettings`` class, read from ``QIZERO_*`` environment variables.

Why one class: every knob of the service (database, checkpoints, limits, CORS, AI workers,
batching) is in one validated place, passed explicitly to :func:`serving.app.create_app`;
nothing reads the environment at import time.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"


class Settings(BaseSettings):
    """Everything configurable about the service (environment prefix ``QIZERO_``)."""

    model_config = SettingsConfigDict(env_prefix="QIZERO_", extra="forbid")

    # Persistence: a full SQLAlchemy URL (PostgreSQL: ``postgresql+psycopg://user@host/db``)
    # wins over the embedded SQLite file.
    database_url: str | None = None
    database_path: Path = Path("data/sessions.sqlite3")
    # Run the schema migrations at start (serving.schema); off where `qizero db upgrade` runs
    # them as a deployment step instead.
    migrate_on_start: bool = True

    checkpoints_root: Path = DEFAULT_CHECKPOINTS
    # Levels offered for a game that has no levels.json yet (uniform random, pure MCTS), so
    # every registered game can be played at once; they are marked ``"source": "baseline"``.
    # Uniform random, the anchor, is offered beside trained levels too (serving.levels).
    baseline_levels: bool = True

    cors_origins: list[str] = Field(default_factory=list)

    # AI: worker threads for searches (suggestions and AI seats together), and batching of
    # network evaluations across concurrent searches of the same model.
    ai_workers: int = Field(16, ge=1, le=256)
    # Processes the searches run in (each with ai_workers threads and its own networks): None
    # is one per CPU core, 0 searches in the server process itself.
    search_processes: int | None = Field(None, ge=0, le=256)
    batching: bool = True
    max_batch: int = Field(256, ge=1)
    torch_threads: int = Field(1, ge=1, le=64)
    # Where the search processes' network evaluations run: "local", each process its own copy
    # of every network (batches form among one process's searches); "shared", one inference
    # server process per network (agents.inference_server) that batches the evaluations of
    # every search process together, on the inference_device ("auto": a GPU when torch sees
    # one). After a batch's first request a server waits at most inference_wait_ms for the
    # clients that have not asked (0: it takes what has arrived, which measured best on the
    # CPU). Ignored without search processes. Which to choose: docs/service.md, "Shared
    # inference".
    inference: Literal["local", "shared"] = "local"
    inference_device: str = Field("auto", pattern=r"^(auto|cpu|cuda(:\d+)?)$")
    inference_wait_ms: float = Field(0.0, ge=0, le=100)
    # Evaluation cache per loaded network (MiB; 0 = off): positions met before cost no
    # network call (agents.inference.CachedInfer).
    eval_cache_mb: int = Field(64, ge=0, le=65_536)

    # Analysis (POST /v1/games/{game}/analysis): the most simulations and seconds one
    # analysis may ask for (more is refused with 422); without a time budget it stops after
    # analysis_max_seconds anyway.
    analysis_max_visits: int = Field(20_000, ge=1, le=100_000)
    analysis_max_seconds: float = Field(60.0, gt=0, le=3_600)

    # Limits on input.
    max_body_bytes: int = Field(256 * 1024, ge=1024)
    max_moves: int = Field(4000, ge=1)
    max_move_chars: int = Field(64, ge=1)
    max_config_options: int = Field(32, ge=0)

    # How often each replica looks for sessions to drive (seconds): clocks whose time is up,
    # and AI seats to move that no replica holds (serving.sessions.drivers).
    timer_poll_seconds: float = Field(1.0, gt=0)
    # A replica drives a session's AI seats and clock under a lease of this many seconds,
    # renewed every third of it; a replica that dies hands its sessions over once it expires.
    lease_seconds: float = Field(3.0, ge=0.3, le=300)

    # Ranking ladder (docs/ladder.md): the administrator's token for membership grants (None:
    # grants are off), how long a queued player waits before an AI level takes the other
    # seat, how often the queue is paired, and whether AI levels play on the ladder at all.
    ladder_admin_token: SecretStr | None = None
    ladder_ai_wait_seconds: float = Field(20.0, ge=0, le=86_400)
    ladder_match_seconds: float = Field(1.0, gt=0, le=3_600)
    ladder_ai_players: bool = True
    # Presence in ladder games (serving/ladder/presence.py): how often each replica refreshes
    # the heartbeat of the players' streams it holds (and sweeps dead replicas' streams), and
    # how old a heartbeat makes a stream dead: a client that reconnects within that after its
    # replica stopped has not disconnected.
    ladder_presence_heartbeat_seconds: float = Field(5.0, gt=0, le=3_600)
    ladder_presence_stale_seconds: float = Field(30.0, gt=0, le=86_400)

    # Live events (serving/events.py): how often the event log is polled for other processes'
    # events (a commit of this process wakes its streams at once), the keep-alive of an idle
    # stream, and how long a finished session's events are kept.
    event_poll_seconds: float = Field(1.0, gt=0)
    event_keepalive_seconds: float = Field(15.0, gt=0)
    event_retention_days: float = Field(7.0, ge=0)

    # Operations (docs/service.md, "Operations"). A stop (SIGTERM) ends the process within
    # this many seconds whatever it was doing (serving/server.py).
    shutdown_seconds: float = Field(5.0, ge=1, le=300)
    # Start the slow part (the ladder's AI players, the levels' networks) on a thread, so
    # /v1/health answers at once and /v1/ready says when the service is ready. ``qizero
    # serve`` turns it on; off, the lifespan does everything before the first request.
    background_start: bool = False
    # Prometheus metrics at /metrics (serving/metrics.py): off by default (404). With a token,
    # a scrape must send ``Authorization: Bearer <token>``. Each process exports its own.
    metrics: bool = False
    metrics_token: SecretStr | None = None
    # One JSON line per request on stderr (request id, method, route, status, duration)
    # instead of uvicorn's access lines; X-Request-ID is echoed either way.
    json_logs: bool = False

    # Rate limits (serving/rate_limits.py): requests per window per client address and per
    # bearer token, counted in the database so every replica shares them; 0 = no limit. Off
    # by default: turn them on behind a proxy that sets the client address (docs/service.md).
    rate_limit_window_seconds: float = Field(60.0, ge=1, le=86_400)
    rate_limit_register_per_client: int = Field(0, ge=0)
    rate_limit_suggest_per_client: int = Field(0, ge=0)
    rate_limit_suggest_per_token: int = Field(0, ge=0)
    rate_limit_analysis_per_client: int = Field(0, ge=0)
    rate_limit_analysis_per_token: int = Field(0, ge=0)
    rate_limit_queue_per_client: int = Field(0, ge=0)
    rate_limit_queue_per_token: int = Field(0, ge=0)

    @property
    def resolved_search_processes(self) -> int:
        if self.search_processes is not None:
            return self.search_processes
        return os.cpu_count() or 1

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.database_path}"
