"""The client side of a shared inference server (:mod:`agents.inference_server`): the network
stage of an :class:`agents.inference.InferencePipeline` that lives in another process.

Why: each of the service's search processes would otherwise hold its own copy of every
network, and batches would form only among the searches of one process. With one server per
model, the leaf evaluations of every process meet in one batch (and on a GPU when there is
one). :class:`InferenceClient` has the network's call signature, ``infer(observations,
masks) -> (priors, values)`` and ``evaluate(game, states)``, so the pipeline's cache and
batcher stay in front of it unchanged: a cache hit still costs no round trip, and the
concurrent searches of one process still go out as one request.

The wire: a Unix socket per server (``multiprocessing.connection``, authenticated with the
service's key), numpy arrays pickled in ``("infer", observations, masks)`` and answered with
``("ok", priors, values)`` or ``("err", message)``; ``("stats",)`` asks for the server's
counters. A server that dies mid-request fails that request with
:class:`InferenceServerGone` (the service answers 503); the next request connects again, to
the fresh server its supervisor starts at the same address.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Client, Connection
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluator import observations_and_masks
from envs.core import Game

#: How long a client waits for its server to accept a connection (a fresh server imports
#: torch and loads its network first: seconds on a busy machine).
CONNECT_SECONDS = 120.0
CONNECT_RETRY_SECONDS = 0.05


class InferenceServerGone(ConnectionError):
    """The model's inference server stopped (or never answered): the request may be retried,
    and the next one reaches a fresh server."""


@dataclass(frozen=True)
class ServerPlace:
    """Where one service's inference servers listen: a private folder of Unix sockets, one
    per checkpoint, named after the checkpoint's path so every process finds a model's server
    without asking, and the key that a client must know to connect."""

    folder: str
    authkey: bytes

    def address(self, checkpoint: str | Path) -> str:
        digest = hashlib.sha1(str(Path(checkpoint).resolve()).encode()).hexdigest()[:16]
        return str(Path(self.folder) / f"{digest}.sock")

    def client(self, checkpoint: str | Path) -> InferenceClient:
        return InferenceClient(self.address(checkpoint), self.authkey)


class InferenceClient:
    """``infer(observations, masks)`` answered by the inference server at ``address``.
    Thread-safe and concurrent: each thread has a connection of its own, so the searches of
    one process have requests in flight together and the server batches them with every
    other process's (no batcher needed in front). Picklable: connections are made afresh
    where used."""

    def __init__(
        self, address: str, authkey: bytes, connect_seconds: float = CONNECT_SECONDS
    ) -> None:
        self.address = address
        self.authkey = authkey
        self.connect_seconds = connect_seconds
        self._local = threading.local()  # this thread's connection, as .conn
        self._lock = threading.Lock()
        self._conns: set[Connection] = set()  # every thread's, for close()

    def __getstate__(self) -> dict[str, Any]:
        return {"address": self.address, "authkey": self.authkey,
                "connect_seconds": self.connect_seconds}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def _connect(self) -> Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and not conn.closed:
            return conn
        deadline = time.monotonic() + self.connect_seconds
        while True:
            try:
                conn = Client(self.address, family="AF_UNIX", authkey=self.authkey)
                self._local.conn = conn
                with self._lock:
                    self._conns.add(conn)
                return conn
            except (FileNotFoundError, ConnectionRefusedError, EOFError):
                # not listening yet (starting, or restarting after a crash)
                if time.monotonic() >= deadline:
                    raise InferenceServerGone(
                        f"no inference server answers at {self.address} after "
                        f"{self.connect_seconds:g} s") from None
                time.sleep(CONNECT_RETRY_SECONDS)

    def _ask(self, message: tuple[Any, ...]) -> tuple[Any, ...]:
        conn = self._connect()
        try:
            conn.send(message)
            reply = conn.recv()
        except (EOFError, OSError):
            self._forget(conn)
            raise InferenceServerGone(
                "the inference server stopped during the request; try again") from None
        if reply[0] == "err":
            raise RuntimeError(f"the inference server failed: {reply[1]}")
        return reply

    def infer(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Priors and values for observations (mover's view) and legal masks, as the server's
        network computes them (the same function as :meth:`NetworkEvaluator.infer`)."""
        if len(observations) == 0:
            return np.zeros(masks.shape, dtype=np.float32), np.zeros(0, dtype=np.float32)
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        msk = np.ascontiguousarray(masks, dtype=bool)
        _, priors, values = self._ask(("infer", obs, msk))
        return priors, values

    __call__ = infer

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        return self.infer(*observations_and_masks(game, states))

    def stats(self) -> dict[str, int]:
        """The server's counters: forward passes, rows, batches per size bucket, clients."""
        return self._ask(("stats",))[1]

    def _forget(self, conn: Connection) -> None:
        self._local.conn = None
        with self._lock:
            self._conns.discard(conn)
        conn.close()

    def close(self) -> None:
        """Close every thread's connection (a thread that asks again connects again)."""
        with self._lock:
            conns, self._conns = self._conns, set()
        for conn in conns:
            conn.close()
