"""Where self-play runs: one small interface, two backends (``selfplay.backend``).

The learner hands a backend the weights of the current network and a list of seeded tasks
(``training.selfplay.SelfPlayTask``) and gets back their samples concatenated in task order.
Because a task's games depend only on its seed and the weights, every backend yields the same
samples for the same tasks; backends differ only in where the games are played:

- ``local`` (:mod:`training.backends.local`): processes on this machine (``spawn``);
- ``ray`` (:mod:`training.backends.ray_actors`): Ray actors on a cluster (weights through the
  object store, a killed actor replaced and its task played again);
- ``selfplay.inference: shared`` puts the local backend behind one inference server per
  iteration (:mod:`training.backends.shared_inference`).

Ray is an optional dependency: it is imported only when the ray backend is opened.
"""

from __future__ import annotations

import os
from typing import Protocol

from envs.core import ConfigError
from training.config import SelfPlayConfig
from training.selfplay import SelfPlayBatch, SelfPlayTask, Weights


class SelfPlayBackend(Protocol):
    """Plays self-play tasks somewhere; a context manager that frees its workers."""

    def play(self, weights: Weights, tasks: list[SelfPlayTask]) -> SelfPlayBatch:
        """All tasks' samples, in task order, played with ``weights``."""
        ...

    @property
    def workers(self) -> int:
        """Workers (processes or actors) playing now, for the charts (0: the caller's own)."""
        ...

    @property
    def restarts(self) -> int:
        """Workers replaced so far after they died (always 0 for local processes)."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> SelfPlayBackend: ...

    def __exit__(self, *exc: object) -> None: ...


def open_backend(sp: SelfPlayConfig, ray_address: str | None = None) -> SelfPlayBackend:
    """The backend that ``sp.backend`` names, with ``sp.workers`` workers.

    ``ray_address`` joins an existing Ray cluster (``"auto"``, ``"10.0.0.5:6379"``); without
    it the ray backend starts a Ray instance on this machine for the run.
    """
    if sp.backend == "local":
        if ray_address is not None:
            raise ConfigError("a Ray address needs selfplay.backend: ray in the config")
        if sp.inference_dtype != "float32":
            # The workers run here: a precision this machine cannot run fast fails now, not
            # in every worker.
            from agents.device import resolve_device
            from agents.evaluator import check_inference_dtype

            check_inference_dtype(
                sp.inference_dtype, str(resolve_device(sp.device, "selfplay.device")))
        from training.backends.local import LocalBackend

        if sp.inference == "shared":
            from training.backends.shared_inference import SharedInference

            return SharedInference(LocalBackend(sp.workers), sp.device)
        return LocalBackend(sp.workers)
    if ray_address is None:
        keep_ray_on_loopback()
    from training.backends.ray_actors import RayBackend

    return RayBackend(sp.workers, address=ray_address)


def keep_ray_on_loopback() -> None:
    """Make a Ray instance that this process starts for itself use 127.0.0.1 alone.

    On Linux Ray advertises the machine's routable address even for a one-machine instance,
    so its processes would talk to each other through it; with this switch (read by Ray when
    it is imported, so call this first) it uses the loopback address, as it does on macOS and
    Windows. Not for a process that joins a cluster of several machines.
    """
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
