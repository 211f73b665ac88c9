"""Batching network evaluations across concurrent searches of the same model.

Each search thread asks for a handful of leaves at a time; one forward pass costs about the
same for 1 row as for 32 on a CPU, so concurrent callers of one model share forward passes.

The scheme is *opportunistic* (no timer, so a lone caller waits for nothing): the first caller
to find the model idle becomes the leader and runs everything queued so far as one batch;
callers arriving meanwhile queue up. When the leader's own rows are done it hands the lead to
the oldest waiting caller, which runs the next batch (everything queued by then). So under load
each forward pass carries all the requests that arrived during the previous one.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

#: Upper bounds (rows) of the batch-size buckets counted per network (the metrics' histogram).
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)

InferFn = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(eq=False)
class _Request:
    observations: np.ndarray
    masks: np.ndarray
    done: threading.Event = field(default_factory=threading.Event)
    lead: bool = False
    result: tuple[np.ndarray, np.ndarray] | None = None
    error: BaseException | None = None


class Batcher:
    """Thread-safe wrapper of ``infer(observations, masks)`` that merges concurrent calls."""

    def __init__(self, infer: InferFn, max_batch: int = 256) -> None:
        self._infer = infer
        self.max_batch = max_batch
        self._lock = threading.Lock()
        self._queue: list[_Request] = []
        self._busy = False
        # Figures (read by /v1/health, /metrics and the bench): forward passes, rows, and
        # how many forward passes carried up to each of BATCH_BUCKETS rows.
        self.calls = 0
        self.rows = 0
        self.batch_sizes = [0] * (len(BATCH_BUCKETS) + 1)

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        req = _Request(observations, masks)
        with self._lock:
            self._queue.append(req)
            lead = not self._busy
            self._busy = True
        if not lead:
            req.done.wait()
            if not req.lead:
                return self._outcome(req)
        while True:  # the lead: run batches until our own rows are done
            self._run_batch()
            if req.result is not None or req.error is not None:
                break
        with self._lock:
            if self._queue:
                nxt = self._queue[0]
                nxt.lead = True
                nxt.done.set()
            else:
                self._busy = False
        return self._outcome(req)

    @staticmethod
    def _outcome(req: _Request) -> tuple[np.ndarray, np.ndarray]:
        if req.error is not None:
            raise req.error
        assert req.result is not None  # internal invariant, not input validation
        return req.result

    def _run_batch(self) -> None:
        with self._lock:
            batch: list[_Request] = []
            rows = 0
            while self._queue and (not batch or rows + len(self._queue[0].observations)
                                   <= self.max_batch):
                r = self._queue.pop(0)
                r.lead = False
                batch.append(r)
                rows += len(r.observations)
        if not batch:
            return
        try:
            obs = np.concatenate([r.observations for r in batch])
            masks = np.concatenate([r.masks for r in batch])
            priors, values = self._infer(obs, masks)
            self.calls += 1
            self.rows += len(obs)
            self.batch_sizes[bisect.bisect_left(BATCH_BUCKETS, len(obs))] += 1
            start = 0
            for r in batch:
                n = len(r.observations)
                r.result = (priors[start : start + n], values[start : start + n])
                start += n
        except BaseException as exc:  # noqa: BLE001  handed to every caller of the batch
            for r in batch:
                r.error = exc
        for r in batch:
            r.done.set()


def batch_size_counts(batcher: Batcher | None) -> dict[str, int]:
    """A network's forward passes per batch-size bucket, as flat counters (``batches_le_<n>``,
    ``batches_le_inf``) that add up over the search processes like the other figures."""
    counts = batcher.batch_sizes if batcher is not None else [0] * (len(BATCH_BUCKETS) + 1)
    names = [*(str(b) for b in BATCH_BUCKETS), "inf"]
    return {f"batches_le_{name}": n for name, n in zip(names, counts, strict=True)}
