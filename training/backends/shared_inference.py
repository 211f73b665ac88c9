"""Self-play whose workers share one inference server per iteration (``selfplay.inference:
shared``): the leaves of every worker's searches go to one process that owns the network (on
``selfplay.device``: the GPU when there is one) and batches them together, instead of each
worker evaluating its own small batches with its own copy of the weights.

Each :meth:`SharedInference.play` writes the iteration's weights as a checkpoint, starts its
server (:class:`agents.inference_server.InferenceServers`), hands the tasks a client of it and
stops it once their games are played: the weights change every iteration, so a server serves
one. The games do not depend on where the leaves were evaluated beyond float rounding (the
same network, in batches of other sizes).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from agents.inference_server import InferenceServers
from training.backends.local import LocalBackend
from training.selfplay import SelfPlayBatch, SelfPlayTask, Weights


class SharedInference:
    """Local workers (``inner``) whose tasks evaluate through the iteration's inference server.
    ``max_wait``: how long the server waits for more workers' rows after a batch's first."""

    def __init__(self, inner: LocalBackend, device: str, max_wait: float = 0.0) -> None:
        self.inner = inner
        self.servers = InferenceServers(device=device, max_wait=max_wait)
        self._folder = Path(tempfile.mkdtemp(prefix="qizero-selfplay-net-"))
        self._played = 0
        self.last_stats: dict[str, int] = {}  # the last iteration's server counters

    @property
    def workers(self) -> int:
        return self.inner.workers

    @property
    def restarts(self) -> int:
        return self.inner.restarts

    def play(self, weights: Weights, tasks: list[SelfPlayTask]) -> SelfPlayBatch:
        import torch

        from agents.checkpoint import save_checkpoint
        from agents.networks import build_network
        from envs import make_game

        if not tasks:
            return self.inner.play({}, tasks)
        first = tasks[0]
        model = build_network(make_game(first.game_id, **first.game_options).spec, first.network)
        with torch.no_grad():
            model.load_state_dict(weights)
        self._played += 1
        path = save_checkpoint(self._folder / f"selfplay-{self._played:06d}.pt",
                               game_id=first.game_id, game_options=first.game_options,
                               network=first.network, model=model, iteration=self._played,
                               step=0)
        self.servers.ensure(path)
        client = self.servers.place.client(path)
        try:
            # The workers need no weights: the server holds them.
            batch = self.inner.play({}, [replace(t, inference=client) for t in tasks])
            self.last_stats = client.stats()
        finally:
            client.close()
            self.servers.retire(path)
            path.unlink(missing_ok=True)
        return batch

    def close(self) -> None:
        self.servers.close()
        self.inner.close()
        shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> SharedInference:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
