"""Analyses in flight: each one's id, its reports on their way to the client, and its stop.

Why a registry: a client stops an analysis by closing its stream or by ``DELETE
/v1/analyses/{id}``, and either must reach the search at once, in whatever worker thread (or
search process) it runs, so that the worker is free for the next request. The search runs
through :meth:`serving.ai.AIEngine.analysis` on the engine's worker pool, like a suggestion;
its reports come back through the event loop (``call_soon_threadsafe``) in the order they
were made, the final one last. The ids are known to the replica that runs the search: behind
a load balancer, closing the stream is the stop that always reaches it.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
from collections.abc import AsyncIterator
from typing import Any

from serving.ai import AIEngine, AnalysisBudget
from serving.errors import ServiceError, error_body


class AnalysisRun:
    """One analysis: its reports (a queue on the event loop), its result, its stop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.id = secrets.token_hex(8)
        self.cancel = threading.Event()
        self._loop = loop
        self._reports: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task: asyncio.Future[dict[str, Any]] | None = None

    def deliver(self, report: dict[str, Any]) -> None:
        """A partial report from the search (any thread)."""
        try:
            self._loop.call_soon_threadsafe(self._reports.put_nowait, report)
        except RuntimeError:  # the event loop is closed: nobody reads the reports any more
            self.cancel.set()

    def stop(self) -> None:
        self.cancel.set()

    async def final(self) -> dict[str, Any]:
        """The final report (the analysis's errors are raised here)."""
        assert self.task is not None
        try:
            return self._public(await self.task)
        finally:
            self.stop()  # a request that is given up stops its search

    async def ndjson(self) -> AsyncIterator[str]:
        """Every report as one JSON line, the final one last; a failure after the stream
        began is its last line, the service's error body. Closing the stream (the client
        goes away) stops the search."""
        assert self.task is not None
        waiting: asyncio.Future[dict[str, Any]] | None = None
        try:
            while True:
                waiting = asyncio.ensure_future(self._reports.get())
                done, _ = await asyncio.wait(
                    {waiting, self.task}, return_when=asyncio.FIRST_COMPLETED)
                if waiting in done:
                    yield self._line(waiting.result())
                    continue
                while not self._reports.empty():  # made before the final one: sent first
                    yield self._line(self._reports.get_nowait())
                error = self.task.exception()
                if error is None:
                    yield self._line(self.task.result())
                elif isinstance(error, ServiceError):
                    yield json.dumps(error_body(error.code, error.message, error.detail)) + "\n"
                else:
                    yield json.dumps(error_body("internal", "the analysis failed")) + "\n"
                return
        finally:
            if waiting is not None:
                waiting.cancel()
            self.stop()

    def _public(self, report: dict[str, Any]) -> dict[str, Any]:
        return {"id": self.id, **report}

    def _line(self, report: dict[str, Any]) -> str:
        return json.dumps(self._public(report)) + "\n"


class Analyses:
    """The analyses this replica runs, by id, until each one ends."""

    def __init__(self) -> None:
        self._runs: dict[str, AnalysisRun] = {}

    def start(
        self, ai: AIEngine, game: Any, state: Any, level_id: str | None, budget: AnalysisBudget
    ) -> AnalysisRun:
        """Start an analysis on the engine's worker pool (call from the event loop)."""
        run = AnalysisRun(asyncio.get_running_loop())
        self._runs[run.id] = run
        run.task = asyncio.ensure_future(
            ai.run(ai.analysis, game, state, level_id, budget, run.deliver, run.cancel))
        run.task.add_done_callback(lambda task: self._ended(run.id, task))
        return run

    def _ended(self, analysis_id: str, task: asyncio.Future[Any]) -> None:
        self._runs.pop(analysis_id, None)
        if not task.cancelled():
            task.exception()  # read here, so an unread failure (a closed stream) is no warning

    def stop(self, analysis_id: str) -> bool:
        """Stop an analysis in flight; False when there is none with that id."""
        run = self._runs.pop(analysis_id, None)
        if run is None:
            return False
        run.stop()
        return True

    def stop_all(self) -> None:
        """The service stops: every search ends at its next step."""
        for run in list(self._runs.values()):
            run.stop()
        self._runs.clear()
