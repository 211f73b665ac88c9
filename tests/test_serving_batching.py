"""Batching of network evaluations across concurrent searches (agents.batching), and its use
by the service for concurrent suggestions of the same model."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from serving_helpers import client_for, tiny_checkpoint, wait_for, write_levels

from agents.batching import Batcher


class SlowInfer:
    """A fake network: row i gets value = its first observation entry; records batch sizes."""

    def __init__(self, delay: float = 0.1) -> None:
        self.delay = delay
        self.batches: list[int] = []
        self.lock = threading.Lock()
        self.active = 0
        self.max_active = 0

    def __call__(self, obs, masks):
        with self.lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        time.sleep(self.delay)
        with self.lock:
            self.active -= 1
            self.batches.append(len(obs))
        priors = masks.astype(np.float32) / np.maximum(masks.sum(1, keepdims=True), 1)
        return priors, obs[:, 0].astype(np.float32)


class GatedInfer(SlowInfer):
    """A :class:`SlowInfer` whose first forward pass waits for ``gate``: the test opens it once
    the other callers have queued, so what they share does not depend on thread timing."""

    def __init__(self) -> None:
        super().__init__(delay=0.0)
        self.gate = threading.Event()
        self._first = True

    def __call__(self, obs, masks):
        if self._first:  # one forward pass at a time: only the leader gets here
            self._first = False
            assert self.gate.wait(60), "the gate was never opened"
        return super().__call__(obs, masks)


def _queued(batcher: Batcher) -> int:
    """How many callers wait in the batcher's queue (the leader's batch is out of it)."""
    with batcher._lock:
        return len(batcher._queue)


def _call(batcher, k: int, rows: int):
    obs = np.full((rows, 3), float(k), dtype=np.float32)
    obs[:, 0] = np.arange(rows) + 100 * k
    masks = np.ones((rows, 4), dtype=bool)
    return batcher(obs, masks)


def test_concurrent_callers_share_forward_passes_and_get_their_own_rows():
    """The first caller's forward pass is held until the seven others have queued: the next
    pass carries all seven, and each caller gets its own rows back."""
    infer = GatedInfer()
    batcher = Batcher(infer, max_batch=256)
    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(_call, batcher, k, k + 1) for k in range(8)]
        wait_for(lambda: _queued(batcher) == 7, timeout=60)
        infer.gate.set()
        results = [f.result() for f in futures]
    for k, (priors, values) in enumerate(results):
        assert values.tolist() == [100 * k + i for i in range(k + 1)]
        assert priors.shape == (k + 1, 4)
    assert sum(infer.batches) == sum(k + 1 for k in range(8)) == batcher.rows
    assert len(infer.batches) == 2 and batcher.calls == 2  # the leader's, then the rest
    assert infer.max_active == 1  # one forward pass at a time per model


def test_a_lone_caller_waits_for_nothing_and_max_batch_is_respected():
    infer = SlowInfer(delay=0.0)
    batcher = Batcher(infer, max_batch=4)
    for k in range(3):
        assert _call(batcher, k, 2)[1].tolist() == [100 * k, 100 * k + 1]
    assert infer.batches == [2, 2, 2]
    # Six callers of two rows, five of them queued behind the first: passes of up to 4 rows.
    infer = GatedInfer()
    batcher = Batcher(infer, max_batch=4)
    with ThreadPoolExecutor(6) as pool:
        futures = [pool.submit(_call, batcher, k, 2) for k in range(6)]
        wait_for(lambda: _queued(batcher) == 5, timeout=60)
        infer.gate.set()
        for k, f in enumerate(futures):
            assert f.result()[1].tolist() == [100 * k, 100 * k + 1]
    assert infer.batches == [2, 4, 4, 2]


def test_errors_reach_every_caller_of_the_batch_and_the_batcher_recovers():
    calls = {"n": 0}

    def failing(obs, masks):
        calls["n"] += 1
        if calls["n"] == 1:
            time.sleep(0.05)
            raise RuntimeError("boom")
        return np.zeros(masks.shape, np.float32), np.zeros(len(obs), np.float32)

    batcher = Batcher(failing)
    with pytest.raises(RuntimeError, match="boom"):
        _call(batcher, 0, 1)
    assert _call(batcher, 1, 2)[1].tolist() == [0.0, 0.0]


def test_service_batches_concurrent_suggestions_of_one_model(tmp_path):
    root = tmp_path / "checkpoints"
    tiny_checkpoint(root / "jiugong" / "net.pt")
    write_levels(root, "jiugong", [
        {"id": "net", "checkpoint": "net.pt", "search": {"simulations": 16}},
    ])
    # No evaluation cache: it would answer the repeated position without the batcher.
    with client_for(tmp_path, ai_workers=8, eval_cache_mb=0) as c:
        def ask(k):
            r = c.post("/v1/games/jiugong/suggest",
                       json={"moves": ["a1-a2"], "level": "net", "seed": k})
            assert r.status_code == 200, r.text
            return r.json()

        ask(0)  # loads the model
        (model,) = c.app.state.ai._models.values()
        real = model.batcher._infer

        first = [True]

        def held(obs, masks):
            """The first forward pass waits until two more searches queue behind it (only the
            leader runs a pass, so ``first`` needs no lock): the next pass carries both."""
            if first[0]:
                first[0] = False
                wait_for(lambda: _queued(model.batcher) >= 2, timeout=60)
            return real(obs, masks)

        model.batcher._infer = held
        before = (model.batcher.calls, model.batcher.rows)
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(ask, range(1, 9)))
        assert all(a["level"] == "net" for a in answers)
        calls = model.batcher.calls - before[0]
        rows = model.batcher.rows - before[1]
        stats = c.get("/v1/health").json()["ai"]["models"]
        assert list(stats.values())[0]["forward_passes"] == model.batcher.calls
        assert rows > calls  # some forward passes carried several searches' leaves


def test_evaluation_cache_answers_positions_searched_before(tmp_path):
    root = tmp_path / "checkpoints"
    tiny_checkpoint(root / "jiugong" / "net.pt")
    write_levels(root, "jiugong", [
        {"id": "net", "checkpoint": "net.pt", "search": {"simulations": 16}},
    ])
    with client_for(tmp_path) as c:
        body = {"moves": ["a1-a2"], "level": "net", "seed": 1}
        first = c.post("/v1/games/jiugong/suggest", json=body)
        stats = list(c.get("/v1/health").json()["ai"]["models"].values())[0]
        second = c.post("/v1/games/jiugong/suggest", json=body)
        after = list(c.get("/v1/health").json()["ai"]["models"].values())[0]
    assert first.status_code == second.status_code == 200
    # Same seed, same answer; and the second search cost no network call at all.
    assert first.json()["move"] == second.json()["move"]
    assert first.json()["value"] == second.json()["value"]
    assert after["forward_passes"] == stats["forward_passes"]
    assert after["cache_hits"] > stats["cache_hits"]
    assert after["cache_misses"] == stats["cache_misses"]
