"""The local self-play backend: worker processes on this machine (``spawn``: safe with torch's
thread pools), or the caller's own process when ``workers = 0``."""

from __future__ import annotations

import multiprocessing as mp

from training.selfplay import SelfPlayBatch, SelfPlayTask, Weights, run_task


class LocalBackend:
    """A process pool of ``workers`` processes; each task is sent with its own copy of the
    weights (they are small beside a task's games on one machine)."""

    def __init__(self, workers: int) -> None:
        self._workers = workers
        self._pool = mp.get_context("spawn").Pool(workers) if workers > 0 else None

    @property
    def workers(self) -> int:
        return self._workers

    @property
    def restarts(self) -> int:
        return 0

    def play(self, weights: Weights, tasks: list[SelfPlayTask]) -> SelfPlayBatch:
        if self._pool is None:
            batches = [run_task(t, weights) for t in tasks]
        else:
            batches = self._pool.starmap(run_task, [(t, weights) for t in tasks], chunksize=1)
        return SelfPlayBatch.concat(batches)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
