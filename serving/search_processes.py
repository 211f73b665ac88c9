"""Searches in worker processes: each process runs a search engine of its own (threads,
networks, batcher, cache: :class:`serving.ai.AIEngine`), and the service sends each search to
the least busy one.

Why processes: the search itself (tree walk, rules, features) is Python and holds the GIL, so
the searches of one process share one core however many threads run them. One process per core
gives each core its own interpreter; inside a process, concurrent searches still batch their
network evaluations. Workers start with ``spawn`` (no fork of a threaded server) and a worker
that dies is replaced: its searches in flight fail with 503, the next ones go to the new one.

No worker outlives the server: on Linux the kernel kills a worker when the thread that started
it ends (``PR_SET_PDEATHSIG``; so the thread that starts a worker is the one that reads its
answers, and it starts the replacement too), and everywhere a worker leaves by itself when its
pipe to the server closes or its parent process changes (the server died, even by SIGKILL).

The engine comes from a picklable factory the caller passes in (``serving.ai`` passes one
that builds an AIEngine), so this module knows only the :class:`SearchEngine` protocol and
``serving.ai`` is the only one of the two that imports the other.

The wire: the parent sends ``(id, method, args)`` and the worker answers ``(id, ok, payload)``
where a failure carries the service error's class name, message and detail, so the same JSON
error reaches the client as in-process. An analysis also sends its partial reports as
``(id, None, report)`` before its answer, and the parent stops one with
``(_, "cancel", (id,))``.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Protocol

from agents.child_process import die_with_parent
from agents.inference_remote import InferenceServerGone
from envs.core import Game, QizeroError
from serving import errors
from serving.errors import ServiceError, Unavailable

log = logging.getLogger("qizero.serving")


class SearchEngine(Protocol):
    """What a worker process needs of its engine (:class:`serving.ai.AIEngine` is one)."""

    def analyse(self, game: Game, state: Any, level_id: str | None, seed: int | None,
                variety: Any = None) -> Any: ...

    def values(self, game: Game, states: list[Any], level_id: str | None) -> Any: ...
    def analysis(self, game: Game, state: Any, level_id: str | None, budget: Any,
                 report: Callable[[Any], None], cancel: threading.Event) -> Any: ...

    def stats(self) -> dict[str, Any]: ...

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future: ...

    def close(self) -> None: ...


#: Builds a worker's engine, in the worker; pickled to it, so a module-level function or a
#: ``functools.partial`` of one.
EngineFactory = Callable[[], SearchEngine]


#: The engine methods the server may call in a worker (the wire's ``method``), besides
#: ``analysis``, which also takes the worker's report callback and cancel event.
WORKER_METHODS = frozenset({"analyse", "values", "stats"})

CANCEL_POLL_SECONDS = 0.02  # how often a waiting analysis looks whether it was cancelled


def _worker_main(conn: Connection, make_engine: EngineFactory, parent_pid: int) -> None:
    """A worker process: serve requests from ``conn`` with an engine of its own."""
    die_with_parent(parent_pid)
    engine = make_engine()
    send_lock = threading.Lock()
    # The analyses running here, by request id: a "cancel" message sets its event.
    cancels: dict[int, threading.Event] = {}

    def reply(message: tuple[Any, ...]) -> None:
        with send_lock:
            conn.send(message)

    def handle(request_id: int, method: str, args: tuple[Any, ...]) -> None:
        try:
            if method == "analysis":
                result = engine.analysis(
                    *args, lambda partial: reply((request_id, None, partial)),
                    cancels[request_id])
            elif method in WORKER_METHODS:
                result = getattr(engine, method)(*args)
            else:
                raise ValueError(f"no engine method {method!r} for a worker")
        except ServiceError as exc:
            reply((request_id, False, (type(exc).__name__, exc.message, exc.detail)))
        except InferenceServerGone as exc:  # its model's inference server died: 503, retry
            reply((request_id, False, ("Unavailable", str(exc), {})))
        except QizeroError as exc:  # bad input the engine found: 422, as in the server process
            reply((request_id, False, ("BadInput", str(exc), {})))
        except Exception as exc:  # noqa: BLE001  sent back, never lost in the worker
            log.exception("search failed in a worker process")
            reply((request_id, False, ("Exception", f"{type(exc).__name__}: {exc}", {})))
        else:
            reply((request_id, True, result))
        finally:
            cancels.pop(request_id, None)

    while True:
        try:
            request_id, method, args = conn.recv()
        except (EOFError, OSError):
            # The service closed the pipe (it stops) or died: nobody will read an answer, so
            # leave at once rather than finish the searches in flight.
            os._exit(0)
        if method == "stats":  # answered at once, not queued behind searches
            handle(request_id, method, args)
        elif method == "cancel":  # an analysis in flight stops at its next step
            cancelled = cancels.get(args[0])
            if cancelled is not None:
                cancelled.set()
        else:
            if method == "analysis":
                cancels[request_id] = threading.Event()
            engine.submit(handle, request_id, method, args)


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
    # Where the partial reports of an analysis in flight go, by request id.
    partials: dict[int, Callable[[Any], None]] = field(default_factory=dict)
    send_lock: threading.Lock = field(default_factory=threading.Lock)


class SearchProcesses:
    """``processes`` worker processes, each with the engine ``make_engine`` builds there."""

    def __init__(self, processes: int, make_engine: EngineFactory) -> None:
        self._context = multiprocessing.get_context("spawn")
        self._make_engine = make_engine
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._closed = False
        self._workers: list[_Worker] = []
        started = []
        for slot in range(processes):
            ready = threading.Event()
            threading.Thread(target=self._serve_slot, args=(slot, ready),
                             name=f"qizero-search-{slot}", daemon=True).start()
            started.append(ready)
        for ready in started:
            ready.wait()

    def _spawn(self) -> _Worker:
        parent, child = self._context.Pipe()
        process = self._context.Process(
            target=_worker_main,
            args=(child, self._make_engine, os.getpid()),
            name="qizero-search",
            daemon=True,
        )
        process.start()
        child.close()
        return _Worker(process, parent)

    def _serve_slot(self, slot: int, ready: threading.Event) -> None:
        """One worker slot, for the life of the pool: start a worker, read its answers, and
        when it dies start the next one from this same thread (the worker's death signal is
        tied to the thread that started it)."""
        worker = self._spawn()
        with self._lock:
            self._workers.append(worker)
        ready.set()
        while True:
            self._read(worker)
            with self._lock:
                lost, worker.pending, worker.partials = worker.pending, {}, {}
                replace = not self._closed and worker in self._workers
                if replace:
                    log.warning("a search process stopped (exit code %s): starting another",
                                worker.process.exitcode)
            _fail(lost.values(), "the search process stopped; try again")
            if not replace:
                return
            fresh = self._spawn()
            with self._lock:
                if self._closed:  # closed while it started: nobody will use it
                    fresh.conn.close()
                    fresh.process.kill()
                    return
                self._workers[self._workers.index(worker)] = fresh
            worker = fresh

    def _read(self, worker: _Worker) -> None:
        """Resolve the futures of one worker's answers until its pipe closes."""
        while True:
            try:
                request_id, ok, payload = worker.conn.recv()
            except (EOFError, OSError, TypeError):  # TypeError: close() closed it under us
                return
            if ok is None:  # a partial report of an analysis: its request goes on
                with self._lock:
                    partial = worker.partials.get(request_id)
                if partial is not None:
                    partial(payload)
                continue
            with self._lock:
                future = worker.pending.pop(request_id, None)
                worker.partials.pop(request_id, None)
            if future is None:
                continue
            try:
                if ok:
                    future.set_result(payload)
                else:
                    future.set_exception(_as_error(*payload))
            except InvalidStateError:  # failed meanwhile by close()
                pass

    def _send(self, worker: _Worker | None, method: str, args: tuple[Any, ...]) -> Future:
        """Send a request to ``worker`` (None: the least busy one); its answer resolves the
        future (a worker that dies fails it)."""
        return self._start(worker, method, args)[0]

    def _start(
        self,
        worker: _Worker | None,
        method: str,
        args: tuple[Any, ...],
        partial: Callable[[Any], None] | None = None,
    ) -> tuple[Future, _Worker, int]:
        """:meth:`_send`, with where the request went (its worker and id) and where its
        partial reports go (``partial``)."""
        future: Future = Future()
        with self._lock:
            if self._closed:
                raise Unavailable("the service is stopping")
            if worker is None:
                worker = min(self._workers, key=lambda w: len(w.pending))
            request_id = next(self._ids)
            worker.pending[request_id] = future
            if partial is not None:
                worker.partials[request_id] = partial
        self._post(worker, (request_id, method, args))
        return future, worker, request_id

    @staticmethod
    def _post(worker: _Worker, message: tuple[Any, ...]) -> None:
        try:
            with worker.send_lock:
                worker.conn.send(message)
        except (OSError, ValueError):  # the worker is gone; its reader fails the future
            pass

    def analysis(
        self, args: tuple[Any, ...], report: Callable[[Any], None], cancel: threading.Event
    ) -> Any:
        """The engine's ``analysis`` in the least busy worker (blocks until it answers):
        its partial reports go to ``report``; once ``cancel`` is set, the worker is told to
        stop that search at its next step (and still answers with what it found)."""
        future, worker, request_id = self._start(None, "analysis", args, report)
        while True:
            try:
                return future.result(timeout=CANCEL_POLL_SECONDS)
            except TimeoutError:
                if cancel.is_set():
                    self._post(worker, (next(self._ids), "cancel", (request_id,)))
                    return future.result()

    def analyse(self, *args: Any) -> Any:
        """The engine's ``analyse`` in the least busy worker (blocks until it answers)."""
        return self._send(None, "analyse", args).result()

    def values(self, *args: Any) -> Any:
        """The engine's ``values`` (a review's positions) in the least busy worker."""
        return self._send(None, "values", args).result()

    def stats(self, timeout: float = 60.0) -> list[dict[str, Any] | None]:
        """Each worker's engine ``stats()``; None for a worker that did not answer within
        ``timeout`` seconds (still starting: importing torch takes seconds on a busy machine)."""
        with self._lock:
            workers = list(self._workers)
        futures = [self._send(w, "stats", ()) for w in workers]
        deadline = time.monotonic() + timeout  # one wait for all of them, not one each
        answers: list[dict[str, Any] | None] = []
        for future in futures:
            try:
                answers.append(future.result(timeout=max(0.0, deadline - time.monotonic())))
            except (TimeoutError, ServiceError):
                answers.append(None)
        return answers

    def pids(self) -> list[int]:
        with self._lock:
            return [w.process.pid for w in self._workers]

    def close(self, grace: float = 1.0) -> None:
        """Stop every worker within about ``grace`` seconds: searches in flight fail with 503
        at once, each worker leaves when its pipe closes, and one that has not left by then is
        killed (a worker holds nothing worth waiting for). Safe to call twice."""
        with self._lock:
            self._closed = True
            workers = list(self._workers)
            lost = [f for w in workers for f in w.pending.values()]
            for w in workers:
                w.pending = {}
        _fail(lost, "the service is stopping; try again")
        for worker in workers:
            worker.conn.close()
        deadline = time.monotonic() + grace
        for worker in workers:
            worker.process.join(timeout=max(0.0, deadline - time.monotonic()))
        for worker in workers:
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(timeout=grace)


def _fail(futures: Any, message: str) -> None:
    for future in futures:
        try:
            future.set_exception(Unavailable(message))
        except InvalidStateError:  # answered meanwhile
            pass
