"""Searches in worker processes: each process runs a search engine of its own (threads,
networks, batcher, cache: :class:`serving.ai.AIEngine`), and the service sends each search to
the least busy one.

Why processes: the search itself (tree walk, rules, features) is Python and holds the GIL, so
the searches of one process share one core however many threads run them. One process per core
gives each core its own interpreter; inside a process, concurrent searches still batch their
network evaluations. Workers start with ``spawn`` (no fork of a threaded server) and a worker
that dies is replaced: its searches in flight fail with 503, the next ones go to the new one.

The engine comes from a picklable factory the caller passes in (``serving.ai`` passes one
that builds an AIEngine), so this module knows only the :class:`SearchEngine` protocol and
``serving.ai`` is the only one of the two that imports the other.

The wire: the parent sends ``(id, method, args)`` and the worker answers ``(id, ok, payload)``
where a failure carries the service error's class name, message and detail, so the same JSON
error reaches the client as in-process.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Protocol

from envs.core import Game, QizeroError
from serving import errors
from serving.errors import ServiceError, Unavailable

log = logging.getLogger("qizero.serving")


class SearchEngine(Protocol):
    """What a worker process needs of its engine (:class:`serving.ai.AIEngine` is one)."""

    def analyse(self, game: Game, state: Any, level_id: str | None, seed: int | None,
                variety: Any = None) -> Any: ...

    def stats(self) -> dict[str, Any]: ...

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future: ...

    def close(self) -> None: ...


#: Builds a worker's engine, in the worker; pickled to it, so a module-level function or a
#: ``functools.partial`` of one.
EngineFactory = Callable[[], SearchEngine]


def _worker_main(conn: Connection, make_engine: EngineFactory) -> None:
    """A worker process: serve requests from ``conn`` with an engine of its own."""
    engine = make_engine()
    send_lock = threading.Lock()

    def reply(message: tuple[Any, ...]) -> None:
        with send_lock:
            conn.send(message)

    def handle(request_id: int, method: str, args: tuple[Any, ...]) -> None:
        try:
            result = engine.stats() if method == "stats" else engine.analyse(*args)
        except ServiceError as exc:
            reply((request_id, False, (type(exc).__name__, exc.message, exc.detail)))
        except QizeroError as exc:  # bad input the engine found: 422, as in the server process
            reply((request_id, False, ("BadInput", str(exc), {})))
        except Exception as exc:  # noqa: BLE001  sent back, never lost in the worker
            log.exception("search failed in a worker process")
            reply((request_id, False, ("Exception", f"{type(exc).__name__}: {exc}", {})))
        else:
            reply((request_id, True, result))

    try:
        while True:
            try:
                request_id, method, args = conn.recv()
            except (EOFError, OSError):  # the service closed the pipe: stop
                return
            if method == "stats":  # answered at once, not queued behind searches
                handle(request_id, method, args)
            else:
                engine.submit(handle, request_id, method, args)
    finally:
        engine.close()


def _as_error(name: str, message: str, detail: dict[str, Any]) -> Exception:
    cls = getattr(errors, name, None)
    if isinstance(cls, type) and issubclass(cls, ServiceError):
        exc = ServiceError.__new__(cls)
        ServiceError.__init__(exc, message, **detail)
        return exc
    return RuntimeError(message)


@dataclass
class _Worker:
    process: Any
    conn: Connection
    pending: dict[int, Future] = field(default_factory=dict)
    send_lock: threading.Lock = field(default_factory=threading.Lock)


class SearchProcesses:
    """``processes`` worker processes, each with the engine ``make_engine`` builds there."""

    def __init__(self, processes: int, make_engine: EngineFactory) -> None:
        self._context = multiprocessing.get_context("spawn")
        self._make_engine = make_engine
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._closed = False
        self._workers = [self._start() for _ in range(processes)]

    def _start(self) -> _Worker:
        parent, child = self._context.Pipe()
        process = self._context.Process(
            target=_worker_main,
            args=(child, self._make_engine),
            name="qizero-search",
            daemon=True,
        )
        process.start()
        child.close()
        worker = _Worker(process, parent)
        threading.Thread(target=self._read, args=(worker,), daemon=True).start()
        return worker

    def _read(self, worker: _Worker) -> None:
        """Resolve the futures of one worker's answers; on its death, fail them and replace it."""
        while True:
            try:
                request_id, ok, payload = worker.conn.recv()
            except (EOFError, OSError):
                break
            with self._lock:
                future = worker.pending.pop(request_id, None)
            if future is not None:
                if ok:
                    future.set_result(payload)
                else:
                    future.set_exception(_as_error(*payload))
        with self._lock:
            lost, worker.pending = worker.pending, {}
            if not self._closed and worker in self._workers:
                log.warning("a search process stopped (exit code %s): starting another",
                            worker.process.exitcode)
                self._workers[self._workers.index(worker)] = self._start()
        for future in lost.values():
            future.set_exception(Unavailable("the search process stopped; try again"))

    def _send(self, worker: _Worker | None, method: str, args: tuple[Any, ...]) -> Future:
        """Send a request to ``worker`` (None: the least busy one); its answer resolves the
        future (a worker that dies fails it)."""
        future: Future = Future()
        with self._lock:
            if self._closed:
                raise Unavailable("the service is stopping")
            if worker is None:
                worker = min(self._workers, key=lambda w: len(w.pending))
            request_id = next(self._ids)
            worker.pending[request_id] = future
        try:
            with worker.send_lock:
                worker.conn.send((request_id, method, args))
        except (OSError, ValueError):  # the worker is gone; its reader fails the future
            pass
        return future

    def analyse(self, *args: Any) -> Any:
        """The engine's ``analyse`` in the least busy worker (blocks until it answers)."""
        return self._send(None, "analyse", args).result()

    def stats(self) -> list[dict[str, Any]]:
        """Each worker's engine ``stats()``."""
        with self._lock:
            workers = list(self._workers)
        futures = [self._send(w, "stats", ()) for w in workers]
        return [f.result(timeout=60) for f in futures]

    def pids(self) -> list[int]:
        with self._lock:
            return [w.process.pid for w in self._workers]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers = list(self._workers)
        for worker in workers:
            worker.conn.close()
        for worker in workers:
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
