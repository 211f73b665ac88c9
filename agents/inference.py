"""One inference pipeline for every agent: evaluation cache → batcher → network.

Why one: self-play, the arena, GTP and the service all turn positions into network calls, and
each of them once wired its own stack (the service's model cache and batcher, the players'
cache inside the network evaluator). :class:`InferencePipeline` is that stack, built once:

* the cache (:class:`CachedInfer`) comes first, so a position any caller searched before costs
  no wait in the batcher and no network call;
* the batcher (:class:`agents.batching.Batcher`) merges the misses of concurrent callers (the
  service's searches of one model) into one forward pass; without batching a lock keeps
  concurrent callers from running one module at once;
* the network: any ``infer(observations, masks)``, usually :meth:`NetworkEvaluator.infer`.

A pipeline is itself an evaluator (``evaluate(game, states)``) for the search, and counts what
it did (:meth:`InferencePipeline.stats`) for the service's health and metrics.
:class:`ModelPipeline` is the pipeline of one checkpoint file: a level's network.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.batching import Batcher, InferFn, batch_size_counts
from agents.checkpoint import LoadedModel, load_model
from agents.evaluator import NetworkEvaluator, observations_and_masks
from agents.inference_remote import InferenceClient, ServerPlace
from envs.core import Game


class CachedInfer:
    """An LRU cache in front of ``infer(observations, masks)``, keyed by each row's bytes.

    Why: a network with fixed weights gives the same answer for the same input, and a search
    meets the same positions again and again (transpositions within a search, the same
    positions across the searches of a game or of many clients). On small games the cache
    holds every position and the search runs at the speed of its own tree code; measured in
    ``docs/training.md``. Exact: a hit returns what the network returned. Thread-safe (the
    service's workers share one per model); misses of one call go to ``infer`` together.
    The size is a byte budget, so one setting suits a 3x3 board and a Go board alike.
    """

    def __init__(self, infer: InferFn, max_bytes: int = 64 << 20) -> None:
        self._infer = infer
        self.max_bytes = max_bytes
        self._rows: OrderedDict[bytes, tuple[np.ndarray, float]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        n = len(observations)
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        msk = np.ascontiguousarray(masks, dtype=bool)
        # A row's key: its observation's bytes, then its mask's bits (a fixed length, so the
        # two parts cannot run into each other; a bit a legal action, not a byte: TriGolden's
        # 5,190-action masks were more than half of every key to hash).
        bits = np.packbits(msk, axis=1)
        keys = [obs[i].tobytes() + bits[i].tobytes() for i in range(n)]
        found: dict[int, tuple[np.ndarray, float]] = {}
        with self._lock:
            for i, key in enumerate(keys):
                row = self._rows.get(key)
                if row is not None:
                    self._rows.move_to_end(key)
                    found[i] = row
            self.hits += len(found)
            self.misses += n - len(found)
        missing = [i for i in range(n) if i not in found]
        if not found:  # a search's new leaves, usually: the network's answer as it is
            priors, values = self._infer(obs, msk)
            fresh = priors
        else:
            priors = np.zeros(msk.shape, dtype=np.float32)
            values = np.zeros(n, dtype=np.float32)
            for i, (prior, value) in found.items():
                priors[i], values[i] = prior, value
            if not missing:
                return priors, values
            fresh, v = self._infer(obs[missing], msk[missing])
            priors[missing], values[missing] = fresh, v
        with self._lock:
            for j, i in enumerate(missing):
                if keys[i] not in self._rows:
                    self._rows[keys[i]] = (fresh[j].copy(), float(values[i]))
                    self._bytes += len(keys[i]) + fresh[j].nbytes + 64
            while self._bytes > self.max_bytes and self._rows:
                key, (prior, _) = self._rows.popitem(last=False)
                self._bytes -= len(key) + prior.nbytes + 64
        return priors, values


class InferencePipeline:
    """``infer`` behind an optional cache of ``cache_bytes`` and, with ``batching``, a
    :class:`Batcher` of ``max_batch`` rows; an evaluator for the search. Thread-safe.
    ``concurrent``: ``infer`` is itself thread-safe and batches concurrent callers (a shared
    inference server), so it is called without a lock or a batcher here."""

    def __init__(
        self, infer: InferFn, *, batching: bool = False, max_batch: int = 256,
        cache_bytes: int = 0, concurrent: bool = False,
    ) -> None:
        self._network = infer
        self.concurrent = concurrent
        batching = batching and not concurrent
        self.batching = batching
        self.max_batch = max_batch
        self.cache_bytes = cache_bytes
        self.batcher = Batcher(infer, max_batch) if batching else None
        self._lock = threading.Lock()
        self.cache = CachedInfer(self._uncached, cache_bytes) if cache_bytes > 0 else None
        self._calls = 0  # network calls and rows without a batcher (a batcher counts its own)
        self._rows = 0

    def __getstate__(self) -> dict[str, Any]:
        # Sent to another process (a parallel arena): the network and the settings; the
        # cache, the batcher and the counts start afresh there.
        return {"infer": self._network, "batching": self.batching,
                "max_batch": self.max_batch, "cache_bytes": self.cache_bytes,
                "concurrent": self.concurrent}

    def __setstate__(self, state: dict[str, Any]) -> None:
        infer = state.pop("infer")
        InferencePipeline.__init__(self, infer, **state)

    def _uncached(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.batcher is not None:
            return self.batcher(obs, masks)
        if self.concurrent:
            with self._lock:
                self._calls += 1
                self._rows += len(obs)
            return self._network(obs, masks)
        with self._lock:
            self._calls += 1
            self._rows += len(obs)
            return self._network(obs, masks)

    def infer(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Priors and values for observations (mover's view) and legal masks."""
        if self.cache is not None:
            return self.cache(obs, masks)
        return self._uncached(obs, masks)

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        if not states:
            shape = (0, game.spec.num_actions)
            return np.zeros(shape, dtype=np.float32), np.zeros(0, dtype=np.float32)
        return self.infer(*observations_and_masks(game, states))

    def stats(self) -> dict[str, int]:
        """Forward passes, rows, cache hits and misses, and forward passes per batch-size
        bucket (``batches_le_<n>``): flat counters that add up over processes."""
        batcher = self.batcher
        return {
            "forward_passes": batcher.calls if batcher else self._calls,
            "rows": batcher.rows if batcher else self._rows,
            "cache_hits": self.cache.hits if self.cache else 0,
            "cache_misses": self.cache.misses if self.cache else 0,
            **batch_size_counts(batcher),
        }


class ModelPipeline(InferencePipeline):
    """The pipeline of one checkpoint: its network (traced, on ``device``) and the game it
    was trained for (``loaded``). Sent to another process, it loads the file again there.

    With ``remote`` (where the model's inference servers listen), the network stage is the
    checkpoint's shared server (:class:`agents.inference_remote.InferenceClient`) instead of
    a network of its own; the cache stays here, in front of it, and the server does the
    batching (every thread's request goes straight to it)."""

    def __init__(
        self, path: str | Path, *, batching: bool = False, max_batch: int = 256,
        cache_bytes: int = 0, device: str = "cpu", remote: ServerPlace | None = None,
    ) -> None:
        self.path = Path(path)
        self.device = device
        self.remote = remote
        self.loaded: LoadedModel = load_model(path)
        self.network: NetworkEvaluator | InferenceClient = (
            remote.client(self.path) if remote is not None
            else NetworkEvaluator(self.loaded.model, device=device, traced=True))
        super().__init__(self.network.infer, batching=batching, max_batch=max_batch,
                         cache_bytes=cache_bytes, concurrent=remote is not None)

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "batching": self.batching, "max_batch": self.max_batch,
                "cache_bytes": self.cache_bytes, "device": self.device, "remote": self.remote}

    def __setstate__(self, state: dict[str, Any]) -> None:
        path = state.pop("path")
        ModelPipeline.__init__(self, path, **state)
