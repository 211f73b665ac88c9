"""Inference servers: one process per model that owns its network (on the GPU when there is
one) and answers the leaf evaluations of many client processes, batched together.

Why: a search process's own batcher merges only the evaluations of its own searches, and each
process keeps its own copy of every network. A server gathers the requests of every client
(:class:`agents.inference_remote.InferenceClient`) into one forward pass: under load it runs
everything that arrived during the previous pass, up to ``max_batch`` rows, and after the
first request of a batch waits at most ``max_wait`` seconds for clients that have not asked
yet (0: take what is there, as the in-process batcher does).

Lifecycle. :class:`InferenceServers` (in the parent: the service) starts a model's server on
first need, from a thread of its own that lives as long as the server should: the server dies
with its parent (:func:`agents.child_process.die_with_parent`), and when a server dies the
same thread starts a fresh one at the same address, where clients connect again.
"""

from __future__ import annotations

import bisect
import logging
import multiprocessing
import os
import secrets
import shutil
import tempfile
import threading
import time
from multiprocessing.connection import Connection, Listener, wait
from pathlib import Path
from typing import Any

import numpy as np

from agents.batching import BATCH_BUCKETS, InferFn
from agents.child_process import die_with_parent
from agents.inference_remote import InferenceServerGone, ServerPlace

log = logging.getLogger(__name__)

#: A server that dies sooner than this after its start is restarted after this long, so a
#: server that cannot start does not spin.
RESTART_BACKOFF_SECONDS = 1.0


class _Loop:
    """A server's main loop: gather requests from every client, run them as one batch, send
    each client its rows."""

    def __init__(self, listener: Listener, infer: InferFn | None, failure: str,
                 max_batch: int, max_wait: float) -> None:
        self.listener = listener
        self.infer = infer
        self.failure = failure  # why ``infer`` is None: the network did not load
        self.max_batch = max_batch
        self.max_wait = max_wait
        self.clients: list[Connection] = []
        self._arrived: list[Connection] = []
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = multiprocessing.Pipe(duplex=False)
        self.calls = 0
        self.rows = 0
        self.batch_sizes = [0] * (len(BATCH_BUCKETS) + 1)

    def _accept_forever(self) -> None:
        while True:
            try:
                conn = self.listener.accept()
            except (OSError, EOFError, multiprocessing.AuthenticationError):
                continue  # a client that failed the handshake: the others go on
            with self._lock:
                self._arrived.append(conn)
            self._wake_w.send_bytes(b"+")

    def stats(self) -> dict[str, int]:
        names = [*(str(b) for b in BATCH_BUCKETS), "inf"]
        return {"forward_passes": self.calls, "rows": self.rows, "clients": len(self.clients),
                **{f"batches_le_{n}": k for n, k in zip(names, self.batch_sizes, strict=True)}}

    def run(self) -> None:
        threading.Thread(target=self._accept_forever, name="qizero-inference-accept",
                         daemon=True).start()
        while True:
            requests = self._gather()
            start = 0
            while start < len(requests):  # chunks of at most max_batch rows (one at least)
                end, rows = start, 0
                while end < len(requests) and (end == start or rows + len(requests[end][1])
                                               <= self.max_batch):
                    rows += len(requests[end][1])
                    end += 1
                self._answer(requests[start:end])
                start = end

    def _gather(self) -> list[tuple[Connection, np.ndarray, np.ndarray]]:
        """Block for the first request, then take every request that arrives before the
        batch is full, every client has asked, or ``max_wait`` has passed."""
        requests: list[tuple[Connection, np.ndarray, np.ndarray]] = []
        rows = 0
        deadline = 0.0
        while True:
            asked = {id(conn) for conn, _, _ in requests}
            idle = [c for c in self.clients if id(c) not in asked]
            timeout = None
            if requests:
                if rows >= self.max_batch or not idle:
                    return requests
                timeout = max(0.0, deadline - time.monotonic())
            ready = wait([self._wake_r, *idle], timeout)
            if not ready and requests:
                return requests
            for conn in ready:
                if conn is self._wake_r:
                    self._wake_r.recv_bytes()
                    with self._lock:
                        self.clients.extend(self._arrived)
                        self._arrived.clear()
                    continue
                try:
                    message = conn.recv()  # type: ignore[union-attr]
                except (EOFError, OSError):  # the client left
                    self._drop(conn)  # type: ignore[arg-type]
                    continue
                if message[0] == "stats":
                    self._send(conn, ("stats", self.stats()))  # type: ignore[arg-type]
                    continue
                if not requests:
                    deadline = time.monotonic() + self.max_wait
                requests.append((conn, message[1], message[2]))  # type: ignore[arg-type]
                rows += len(message[1])

    def _answer(self, batch: list[tuple[Connection, np.ndarray, np.ndarray]]) -> None:
        if self.infer is None:
            for conn, _, _ in batch:
                self._send(conn, ("err", self.failure))
            return
        try:
            obs = np.concatenate([o for _, o, _ in batch])
            masks = np.concatenate([m for _, _, m in batch])
            priors, values = self.infer(obs, masks)
        except Exception as exc:  # noqa: BLE001  sent to every client of the batch
            log.exception("inference failed in the inference server")
            for conn, _, _ in batch:
                self._send(conn, ("err", f"{type(exc).__name__}: {exc}"))
            return
        self.calls += 1
        self.rows += len(obs)
        self.batch_sizes[bisect.bisect_left(BATCH_BUCKETS, len(obs))] += 1
        start = 0
        for conn, o, _ in batch:
            n = len(o)
            self._send(conn, ("ok", priors[start:start + n], values[start:start + n]))
            start += n

    def _send(self, conn: Connection, message: tuple[Any, ...]) -> None:
        try:
            conn.send(message)
        except (OSError, ValueError):  # the client left meanwhile
            self._drop(conn)

    def _drop(self, conn: Connection) -> None:
        if conn in self.clients:
            self.clients.remove(conn)
        conn.close()


def _server_main(address: str, authkey: bytes, checkpoint: str, device: str, max_batch: int,
                 max_wait: float, torch_threads: int, parent_pid: int) -> None:
    """An inference server process: load the network, listen at ``address``, serve."""
    die_with_parent(parent_pid)
    import torch

    from agents.checkpoint import load_model
    from agents.device import resolve_device
    from agents.evaluator import NetworkEvaluator
    from envs.core import QizeroError

    torch.set_num_threads(torch_threads)
    infer: InferFn | None = None
    failure = ""
    try:
        where = str(resolve_device(device, "inference_device"))
        infer = NetworkEvaluator(load_model(checkpoint).model, device=where, traced=True).infer
    except QizeroError as exc:  # every request is told why (the clients load it too, and fail)
        failure = f"cannot load the network {checkpoint}: {exc}"
    if os.path.exists(address):  # left by a server that was killed
        os.unlink(address)
    listener = Listener(address, family="AF_UNIX", authkey=authkey)
    _Loop(listener, infer, failure, max_batch, max_wait).run()


class InferenceServers:
    """The inference servers of one parent process, one per checkpoint, each started on first
    :meth:`ensure` and restarted when it dies; :attr:`place` tells clients where they are."""

    def __init__(self, device: str = "auto", max_batch: int = 256, max_wait: float = 0.0,
                 torch_threads: int = 1) -> None:
        self.place = ServerPlace(tempfile.mkdtemp(prefix="qizero-infer-"),
                                 secrets.token_bytes(32))
        self.device = device
        self.max_batch = max_batch
        self.max_wait = max_wait
        self.torch_threads = torch_threads
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._closed = False
        self._processes: dict[Path, Any] = {}  # checkpoint -> its server's current process
        self._started: set[Path] = set()
        self._asked: set[str | Path] = set()  # the paths ensure() was given, as given
        self._retired: set[Path] = set()  # servers stopped for good (retire())

    def ensure(self, checkpoint: str | Path) -> None:
        """Start the server of ``checkpoint`` unless it runs (cheap when it does: called
        before every search)."""
        if checkpoint in self._asked:
            return
        key = Path(checkpoint).resolve()
        with self._lock:
            self._asked.add(checkpoint)
            if self._closed or key in self._started:
                return
            self._started.add(key)
        threading.Thread(target=self._supervise, args=(key,), daemon=True,
                         name=f"qizero-inference-{key.name}").start()

    def _supervise(self, checkpoint: Path) -> None:
        """Run the server of ``checkpoint`` from this thread (its death signal is tied to the
        thread that started it) and start another whenever it dies, until :meth:`close`."""
        while True:
            process = self._context.Process(
                target=_server_main, name="qizero-inference", daemon=True,
                args=(self.place.address(checkpoint), self.place.authkey, str(checkpoint),
                      self.device, self.max_batch, self.max_wait, self.torch_threads,
                      os.getpid()))
            started = time.monotonic()
            process.start()
            with self._lock:
                closed = self._closed or checkpoint in self._retired
                if not closed:
                    self._processes[checkpoint] = process
            if closed:
                process.kill()
                return
            process.join()
            with self._lock:
                if self._closed or checkpoint in self._retired:
                    return
            log.warning("the inference server of %s stopped (exit code %s): starting another",
                        checkpoint, process.exitcode)
            if time.monotonic() - started < RESTART_BACKOFF_SECONDS:
                time.sleep(RESTART_BACKOFF_SECONDS)

    def retire(self, checkpoint: str | Path, grace: float = 1.0) -> None:
        """Stop the server of ``checkpoint`` for good (a network no longer asked for, e.g.
        the weights of a finished self-play iteration); its socket goes with it."""
        key = Path(checkpoint).resolve()
        with self._lock:
            self._retired.add(key)
            self._asked.discard(checkpoint)
            process = self._processes.pop(key, None)
        if process is not None:
            process.kill()
            process.join(timeout=grace)
        Path(self.place.address(key)).unlink(missing_ok=True)

    def pids(self) -> dict[Path, int]:
        with self._lock:
            return {path: p.pid for path, p in self._processes.items() if p.is_alive()}

    def stats(self, timeout: float = 1.0) -> dict[str, dict[str, int]]:
        """Each running server's counters by checkpoint path (a server that does not answer
        within ``timeout`` seconds, starting or restarting, is left out)."""
        with self._lock:
            paths = list(self._processes)
        out = {}
        for path in paths:
            client = self.place.client(path)
            client.connect_seconds = timeout
            try:
                out[str(path)] = client.stats()
            except InferenceServerGone:
                continue
            finally:
                client.close()
        return out

    def close(self, grace: float = 1.0) -> None:
        """Stop every server (they hold nothing worth waiting for) and remove their sockets.
        Safe to call twice."""
        with self._lock:
            self._closed = True
            processes = list(self._processes.values())
        for process in processes:
            process.kill()
        for process in processes:
            process.join(timeout=grace)
        shutil.rmtree(self.place.folder, ignore_errors=True)
