"""The Ray self-play backend: one actor of one CPU per worker, on a Ray cluster.

Why Ray: self-play beyond one machine without home-made cluster code (docs/scale.md,
"Scale"). The learner stays in the process that runs ``qizero train``; only self-play moves.

- **Weights**: ``ray.put`` once per update; every task of the update is submitted with that
  object reference as an argument, so each actor reads the newest weights from its node's
  object store (copied there once per node, not once per task).
- **Samples**: the futures of the submitted tasks are awaited with ``ray.wait`` (blocking, no
  polling loop); a worker whose task is done gets the next one at once. Samples are kept by
  task index and concatenated in task order when every task is in, so the buffer receives
  exactly the samples the local backend would give: same seeds, same games.
- **Faults**: an actor that dies (``ray.kill``, its process killed, its node lost) fails its
  task with ``RayActorError``. It is replaced by a new actor and the task, seeded as before, is
  played again; nothing of an unfinished task reaches the buffer, and what the buffer already
  holds is untouched. A task that brings down ``max_task_failures`` actors in a row stops the
  run (a bug or a machine too small, not bad luck). An error raised by self-play itself is
  re-raised at once.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from typing import Any

import ray
from ray.exceptions import RayActorError

from envs.core import ConfigError, QizeroError
from training.selfplay import SelfPlayBatch, SelfPlayTask, Weights, run_task


class SelfPlayWorker:
    """A Ray actor's body: plays the tasks it is given (``run_task``)."""

    def play(self, task: SelfPlayTask, weights: Weights) -> SelfPlayBatch:
        return run_task(task, weights)

    def pid(self) -> int:
        return os.getpid()


class RayBackend:
    """``workers`` self-play actors of one CPU each.

    ``address``: a running cluster to join (``"auto"``, ``"HOST:PORT"``); None starts a Ray
    instance on this machine for the run (its CPUs, at least ``workers``), shut down on
    :meth:`close`. A Ray that this process already initialised (tests, notebooks) is used as it
    is and left running.
    """

    def __init__(
        self, workers: int, address: str | None = None, max_task_failures: int = 3
    ) -> None:
        if workers < 1:
            raise ConfigError("the ray backend needs selfplay.workers >= 1")
        self._owns_ray = False
        if not ray.is_initialized():
            if address is None:  # "local": a new instance even where RAY_ADDRESS is set
                ray.init(address="local", num_cpus=max(workers, os.cpu_count() or 1),
                         include_dashboard=False, logging_level=logging.WARNING)
            else:
                ray.init(address=address, logging_level=logging.WARNING)
            self._owns_ray = True
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cpus < workers:
            self.close()
            raise QizeroError(
                f"the Ray cluster has {cpus} CPUs; selfplay.workers asks for {workers} actors "
                "of one CPU each (add nodes or lower selfplay.workers)"
            )
        self._actor_class = ray.remote(num_cpus=1)(SelfPlayWorker)
        self.actors: list[Any] = [self._actor_class.remote() for _ in range(workers)]
        self.max_task_failures = max_task_failures
        self._restarts = 0
        # Futures in flight: reference -> (task index, actor slot); read by tests.
        self.in_flight: dict[Any, tuple[int, int]] = {}

    @property
    def workers(self) -> int:
        return len(self.actors)

    @property
    def restarts(self) -> int:
        return self._restarts

    def play(self, weights: Weights, tasks: list[SelfPlayTask]) -> SelfPlayBatch:
        weights_ref = ray.put(weights)  # once per update; actors fetch it by reference
        results: dict[int, SelfPlayBatch] = {}
        failures = [0] * len(tasks)
        queue = deque(range(len(tasks)))
        idle = deque(range(len(self.actors)))
        try:
            while queue or self.in_flight:
                while queue and idle:
                    k, slot = queue.popleft(), idle.popleft()
                    future = self.actors[slot].play.remote(tasks[k], weights_ref)
                    self.in_flight[future] = (k, slot)
                (done,), _ = ray.wait(list(self.in_flight), num_returns=1)
                k, slot = self.in_flight.pop(done)
                try:
                    results[k] = ray.get(done)
                except RayActorError as exc:
                    failures[k] += 1
                    if failures[k] >= self.max_task_failures:
                        raise QizeroError(
                            f"self-play task {k} lost its Ray actor {failures[k]} times; "
                            f"last: {exc}"
                        ) from exc
                    self._replace(slot)
                    queue.appendleft(k)
                idle.append(slot)
        finally:
            self.in_flight.clear()  # after an error: the next call starts clean
        return SelfPlayBatch.concat([results[k] for k in range(len(tasks))])

    def _replace(self, slot: int) -> None:
        """A new actor in place of a dead one (killing it first, in case it only hangs)."""
        ray.kill(self.actors[slot], no_restart=True)
        self.actors[slot] = self._actor_class.remote()
        self._restarts += 1

    def close(self) -> None:
        for actor in getattr(self, "actors", []):
            ray.kill(actor, no_restart=True)
        self.actors = []
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()
        self._owns_ray = False

    def __enter__(self) -> RayBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
