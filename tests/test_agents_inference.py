"""The inference pipeline (agents.inference): its evaluation cache (exact answers, counted hits,
a byte budget, safe under threads) and the pipeline (cache, batcher, network) as one evaluator."""

from __future__ import annotations

import pickle
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from agents.evaluator import observations_and_masks
from agents.inference import CachedInfer, InferencePipeline
from envs import make_game


class _Net:
    """A deterministic stand-in for a network: prior from the observation, value its mean."""

    def __init__(self) -> None:
        self.rows = 0

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.rows += len(obs)
        logits = np.where(masks, obs.reshape(len(obs), -1)[:, : masks.shape[1]], -np.inf)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        return (p / p.sum(axis=1, keepdims=True)).astype(np.float32), obs.mean(axis=(1, 2))


def _batch(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    obs = rng.integers(0, 3, size=(n, 2, 4)).astype(np.float32)
    masks = rng.random((n, 6)) < 0.7
    masks[:, 0] = True
    return obs, masks


def test_hits_return_exactly_what_the_network_returned() -> None:
    net = _Net()
    cached = CachedInfer(net, max_bytes=1 << 20)
    obs, masks = _batch(np.random.default_rng(0), 50)
    p1, v1 = cached(obs, masks)
    direct_p, direct_v = _Net()(obs, masks)
    np.testing.assert_array_equal(p1, direct_p)
    np.testing.assert_array_equal(v1, direct_v)
    rows = net.rows
    p2, v2 = cached(obs[::-1], masks[::-1])  # same rows, another order: all hits
    np.testing.assert_array_equal(p2, direct_p[::-1])
    np.testing.assert_array_equal(v2, direct_v[::-1])
    assert net.rows == rows and cached.hits >= 50


def test_same_observation_with_another_mask_is_another_row() -> None:
    net = _Net()
    cached = CachedInfer(net)
    obs, masks = _batch(np.random.default_rng(1), 1)
    other = masks.copy()
    other[0, 1] = not other[0, 1]
    p1, _ = cached(obs, masks)
    p2, _ = cached(obs, other)
    assert net.rows == 2 and not np.array_equal(p1, p2)


def test_byte_budget_evicts_least_recently_used() -> None:
    net = _Net()
    cached = CachedInfer(net, max_bytes=20 * (8 * 4 + 6 + 6 * 4 + 64))  # about 20 rows
    obs, masks = _batch(np.random.default_rng(2), 200)
    for i in range(200):
        cached(obs[i : i + 1], masks[i : i + 1])
    assert cached._bytes <= cached.max_bytes and 0 < len(cached._rows) <= 20
    before = net.rows
    cached(obs[199:200], masks[199:200])  # the newest is still there
    assert net.rows == before
    cached(obs[0:1], masks[0:1])  # the oldest was evicted
    assert net.rows == before + 1


def test_threads_share_one_cache() -> None:
    net = _Net()
    cached = CachedInfer(net)
    obs, masks = _batch(np.random.default_rng(3), 64)
    expected = _Net()(obs, masks)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                p, v = cached(obs, masks)
                np.testing.assert_array_equal(p, expected[0])
                np.testing.assert_array_equal(v, expected[1])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert cached.hits + cached.misses == 4 * 20 * 64


class _Pickled:
    """A picklable stand-in network (a module-level class: sent to another process by name)."""

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = obs.reshape(len(obs), -1)
        return _Net()(flat[:, None, :], masks)


def test_pipeline_answers_through_cache_then_network_and_counts_both() -> None:
    net = _Net()
    pipeline = InferencePipeline(net, cache_bytes=1 << 20)
    obs, masks = _batch(np.random.default_rng(4), 10)
    want = _Net()(obs, masks)
    for _ in range(3):
        p, v = pipeline.infer(obs, masks)
        np.testing.assert_array_equal(p, want[0])
        np.testing.assert_array_equal(v, want[1])
    stats = pipeline.stats()
    assert net.rows == 10
    assert (stats["forward_passes"], stats["rows"]) == (1, 10)
    assert (stats["cache_hits"], stats["cache_misses"]) == (20, 10)
    assert stats["batches_le_16"] == 0  # counted per bucket only by a batcher


def test_pipeline_batches_concurrent_callers_into_shared_forward_passes() -> None:
    started = threading.Event()

    def slow(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        started.set()
        time.sleep(0.05)
        return _Net()(obs, masks)

    pipeline = InferencePipeline(slow, batching=True, max_batch=64)
    obs, masks = _batch(np.random.default_rng(5), 16)
    want = _Net()(obs, masks)
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: pipeline.infer(obs[i:i + 2], masks[i:i + 2]),
                                range(0, 16, 2)))
    for i, (p, v) in zip(range(0, 16, 2), results, strict=True):
        np.testing.assert_array_equal(p, want[0][i:i + 2])
        np.testing.assert_array_equal(v, want[1][i:i + 2])
    stats = pipeline.stats()
    assert stats["rows"] == 16 and stats["forward_passes"] < 8  # callers shared passes


def test_pipeline_is_an_evaluator_and_travels_to_another_process() -> None:
    game = make_game("jiugong")
    states = [game.initial_state(), game.apply(game.initial_state(), 4)]
    pipeline = InferencePipeline(_Pickled(), cache_bytes=1 << 20)
    priors, values = pipeline.evaluate(game, states)
    obs, masks = observations_and_masks(game, states)
    np.testing.assert_array_equal(priors, _Pickled()(obs, masks)[0])
    assert priors.shape == (2, game.spec.num_actions) and values.shape == (2,)
    copy = pickle.loads(pickle.dumps(pipeline))
    np.testing.assert_array_equal(copy.evaluate(game, states)[0], priors)
    assert copy.stats()["forward_passes"] == 1  # its counts start afresh
    empty = pipeline.evaluate(game, [])
    assert empty[0].shape == (0, game.spec.num_actions) and empty[1].shape == (0,)


def test_a_checkpoints_pipeline_answers_as_its_network_and_reloads_in_another_process(
    tmp_path,
) -> None:
    from serving_helpers import tiny_checkpoint

    from agents.evaluator import NetworkEvaluator
    from agents.inference import ModelPipeline

    path = tiny_checkpoint(tmp_path / "tiny.pt")
    pipeline = ModelPipeline(path, batching=True, cache_bytes=1 << 20)
    game = pipeline.loaded.game
    states = [game.initial_state(), game.apply(game.initial_state(), 4)]
    want = NetworkEvaluator(pipeline.loaded.model).evaluate(game, states)
    got = pipeline.evaluate(game, states)
    np.testing.assert_allclose(got[0], want[0], atol=1e-5)
    np.testing.assert_allclose(got[1], want[1], atol=1e-5)
    assert pipeline.stats()["forward_passes"] == 1 and pipeline.stats()["batches_le_2"] == 1
    copy = pickle.loads(pickle.dumps(pipeline))  # the path travels, the network loads again
    assert copy.path == path and copy.batcher is not None and copy.cache is not None
    np.testing.assert_allclose(copy.evaluate(game, states)[0], got[0], atol=1e-5)
