"""Prometheus metrics (``GET /metrics``, the text format of ``prometheus-client``).

Off by default (``/metrics`` answers 404), and with ``metrics_token`` set a scrape must send it
as a bearer token: the figures tell how busy the service is and which levels are played.

Two kinds of figures. What happens in requests is counted as it happens (requests by route
template and status, their latency, each search's time by game and level, ladder queue waits).
What the service holds is read at scrape time from the objects that hold it (sessions in play
and the ladder queue from the database, event subscribers, leases held and taken over, the
networks' forward passes and batch sizes from the search processes), so nothing else in the
service imports this module or keeps a second count.

Each process exports its own: with several uvicorn workers or replicas, scrape every one (the
figures read from the database, sessions in play and the queue, are the same on all of them;
sum the others). Each app has a registry of its own, so two apps in one process (the tests)
never mix their counts.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector
from sqlalchemy import func, select

from agents.batching import BATCH_BUCKETS
from serving.errors import NotFound, Unauthorized

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
SEARCH_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
WAIT_BUCKETS = (1.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
STATS_SECONDS = 2.0  # how long a scrape waits for a search process's figures


class Metrics:
    """One app's registry: the counters fed as things happen, and the collector of the rest.

    ``state()`` gives the app's state (``app.state``) once the lifespan has filled it."""

    def __init__(self, state: Callable[[], Any]) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "qizero_http_requests", "HTTP requests answered, by route template and status",
            ["method", "route", "status"], registry=self.registry)
        self.latency = Histogram(
            "qizero_http_request_duration_seconds",
            "time from a request's arrival to its response's start (a stream: until it opens)",
            ["method", "route"], buckets=LATENCY_BUCKETS, registry=self.registry)
        self.in_flight = Gauge(
            "qizero_http_requests_in_flight",
            "requests received and not yet answered in full (open streams included)",
            registry=self.registry)
        self.search = Histogram(
            "qizero_search_seconds", "time of one AI search (suggestions and AI seats)",
            ["game", "level"], buckets=SEARCH_BUCKETS, registry=self.registry)
        self.queue_wait = Histogram(
            "qizero_ladder_queue_wait_seconds",
            "how long a ladder player waited in the queue before their game was made",
            buckets=WAIT_BUCKETS, registry=self.registry)
        self.registry.register(_StateCollector(state))

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(method, route).observe(seconds)

    def observe_search(self, game: str, level: str, seconds: float) -> None:
        self.search.labels(game, level).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)


class _StateCollector(Collector):
    """What the service holds, read at each scrape (a part not started yet is left out)."""

    def __init__(self, state: Callable[[], Any]) -> None:
        self.state = state

    def collect(self) -> Iterator[Metric]:
        state = self.state()
        lifecycle = getattr(state, "lifecycle", None)
        if lifecycle is not None:
            yield _gauge("qizero_ready", "1 when /v1/ready would answer 200 (database aside)",
                         0.0 if lifecycle.problems() else 1.0)
        manager = getattr(state, "sessions", None)
        if manager is None:
            return
        yield from self._sessions(manager)
        events = getattr(state, "events", None)
        if events is not None:
            yield _gauge("qizero_event_subscribers",
                         "open event streams (GET …/events) of this process",
                         float(events.wakeups.subscribers()))
        ladder = getattr(state, "ladder", None)
        if ladder is not None:
            yield from self._queue(ladder)
        ai = getattr(state, "ai", None)
        if ai is not None:
            yield from self._networks(ai)

    @staticmethod
    def _sessions(manager: Any) -> Iterator[Metric]:
        from serving.db import SessionRow

        with manager.store.engine.connect() as conn:
            playing = conn.execute(
                select(func.count()).select_from(SessionRow).where(SessionRow.status == "playing")
            ).scalar_one()
        yield _gauge("qizero_sessions_in_play", "sessions being played (all replicas: from the "
                     "database)", float(playing))
        yield _gauge("qizero_leases_held", "sessions this replica drives now (AI seats, clocks)",
                     float(len(manager.leases.held())))
        taken = CounterMetricFamily(
            "qizero_lease_takeovers", "sessions this replica took up with nobody driving them "
            "(a stopped or dead replica's AI seats, due clocks)")
        taken.add_metric([], float(manager.driver.taken_up))
        yield taken
        moves = CounterMetricFamily("qizero_ai_moves", "AI seat moves this replica committed")
        moves.add_metric([], float(manager.ai_seats.moves))
        yield moves

    @staticmethod
    def _queue(ladder: Any) -> Iterator[Metric]:
        from serving.ladder.store import QueueRow

        with ladder.store.engine.connect() as conn:
            count, oldest = conn.execute(
                select(func.count(), func.min(QueueRow.since)).select_from(QueueRow)).one()
        yield _gauge("qizero_ladder_queue_length", "players waiting in the ladder queue (all "
                     "replicas: from the database)", float(count))
        waited = max(0.0, ladder.clock() - oldest) if oldest is not None else 0.0
        yield _gauge("qizero_ladder_queue_longest_wait_seconds",
                     "how long the longest-waiting player has waited so far", waited)

    @staticmethod
    def _networks(ai: Any) -> Iterator[Metric]:
        stats = ai.stats(timeout=STATS_SECONDS)
        labels = ["game", "network"]
        passes = CounterMetricFamily("qizero_network_forward_passes",
                                     "forward passes of a loaded network", labels=labels)
        rows = CounterMetricFamily("qizero_network_rows",
                                   "positions evaluated by a network", labels=labels)
        hits = CounterMetricFamily("qizero_network_cache_hits",
                                   "positions answered by the evaluation cache", labels=labels)
        sizes = HistogramMetricFamily(
            "qizero_network_batch_size", "rows per forward pass (batching across concurrent "
            "searches of one network; a network may serve several levels)", labels=labels)
        root = ai.levels.root
        for path, counts in sorted(stats["models"].items()):
            key = _network_labels(path, root)
            passes.add_metric(key, float(counts.get("forward_passes", 0)))
            rows.add_metric(key, float(counts.get("rows", 0)))
            hits.add_metric(key, float(counts.get("cache_hits", 0)))
            cumulative, buckets = 0.0, []
            for bound in [*(str(b) for b in BATCH_BUCKETS), "inf"]:
                cumulative += counts.get(f"batches_le_{bound}", 0)
                buckets.append(("+Inf" if bound == "inf" else bound, cumulative))
            sizes.add_metric(key, buckets, sum_value=float(counts.get("rows", 0)))
        yield from (passes, rows, hits, sizes)


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def _network_labels(path: str, root: Any) -> list[str]:
    """(game, network file relative to the game's folder) for a checkpoint path."""
    from pathlib import Path

    p = Path(path)
    try:
        rel = p.resolve().relative_to(Path(root).resolve())
    except ValueError:
        return [p.parent.name, p.name]
    return [rel.parts[0], str(Path(*rel.parts[1:]))] if len(rel.parts) > 1 else ["", str(rel)]


router = APIRouter()


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    """The Prometheus text format; 404 unless metrics are on, 401 without the token."""
    settings = request.app.state.settings
    exporter: Metrics | None = getattr(request.app.state, "metrics", None)
    if not settings.metrics or exporter is None:
        raise NotFound("no such page: metrics are off (QIZERO_METRICS=1 turns them on)")
    if settings.metrics_token is not None:
        sent = request.headers.get("authorization", "")
        expected = f"Bearer {settings.metrics_token.get_secret_value()}"
        if not hmac.compare_digest(sent.encode(), expected.encode()):
            raise Unauthorized("metrics need the metrics token as a bearer token")
    return Response(exporter.render(), media_type=CONTENT_TYPE_LATEST)
