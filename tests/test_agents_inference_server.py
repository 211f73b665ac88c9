"""Shared inference servers (agents.inference_server): a server answers what the network in
this process answers, batches the requests of several client processes together, and a
killed server fails its clients' requests clearly and is replaced by one that serves."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal

import numpy as np
import pytest
from inference_clients import ask_many, positions
from serving_helpers import tiny_checkpoint, wait_for

from agents.checkpoint import load_model
from agents.evaluator import NetworkEvaluator
from agents.inference import ModelPipeline
from agents.inference_remote import InferenceClient, InferenceServerGone
from agents.inference_server import InferenceServers


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One server for the module (a start costs seconds: torch's import): its wait is long
    enough that a batch takes the requests of every connected client."""
    path = tiny_checkpoint(tmp_path_factory.mktemp("served") / "net.pt")
    servers = InferenceServers(device="cpu", max_wait=0.05)
    servers.ensure(path)
    yield servers, path
    servers.close()


def test_a_server_answers_bit_for_bit_what_the_local_network_answers(served, request) -> None:
    import torch

    servers, path = served
    obs, masks = positions()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the server runs it (a sum over other threads may round apart)
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    local = NetworkEvaluator(load_model(path).model, traced=True)
    client = servers.place.client(path)
    for rows in (slice(0, 1), slice(0, 6), slice(2, 5)):
        want, got = local.infer(obs[rows], masks[rows]), client.infer(obs[rows], masks[rows])
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        assert got[0].dtype == np.float32 and got[1].dtype == np.float32
    empty = client.infer(obs[:0], masks[:0])
    assert empty[0].shape == (0, masks.shape[1]) and empty[1].shape == (0,)
    # The pipeline with a remote network stage: the same answers, its own cache in front.
    pipeline = ModelPipeline(path, batching=True, cache_bytes=1 << 20, remote=servers.place)
    assert isinstance(pipeline.network, InferenceClient)
    for _ in range(2):
        p, v = pipeline.infer(obs, masks)
        np.testing.assert_array_equal(p, local.infer(obs, masks)[0])
        np.testing.assert_array_equal(v, local.infer(obs, masks)[1])
    assert pipeline.stats()["cache_hits"] == len(obs)
    copy = pickle.loads(pickle.dumps(pipeline))  # travels to a search process as an address
    assert isinstance(copy.network, InferenceClient)
    np.testing.assert_array_equal(copy.infer(obs, masks)[0], p)


def test_requests_of_two_client_processes_share_forward_passes(served) -> None:
    servers, path = served
    key = str(path.resolve())
    ctx = multiprocessing.get_context("spawn")
    go = ctx.Event()
    clients = [ctx.Process(target=ask_many, args=(servers.place.address(path),
                                                  servers.place.authkey, 20, go))
               for _ in range(2)]
    before = servers.stats()[key]
    for c in clients:
        c.start()
    wait_for(lambda: servers.stats()[key]["rows"] >= before["rows"] + 2, timeout=60)
    before = servers.stats()[key]  # both clients connected: the race starts
    go.set()
    for c in clients:
        c.join(timeout=60)
        assert c.exitcode == 0
    after = servers.stats()[key]
    passes = after["forward_passes"] - before["forward_passes"]
    single = after["batches_le_1"] - before["batches_le_1"]
    assert after["rows"] - before["rows"] == 40  # one row a request
    assert passes - single > 0 and passes < 40  # batches held both clients' requests


def test_a_killed_server_fails_its_clients_then_a_fresh_one_serves(served) -> None:
    """(Last: it replaces the module's server.)"""
    servers, path = served
    obs, masks = positions()
    client = servers.place.client(path)
    want = client.infer(obs, masks)
    (old,) = servers.pids().values()
    os.kill(old, signal.SIGKILL)
    wait_for(lambda: list(servers.pids().values()) not in ([], [old]), timeout=30)
    with pytest.raises(InferenceServerGone, match="stopped"):
        client.infer(obs, masks)
    got = client.infer(obs, masks)  # connects to the new server
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_a_client_without_a_server_gets_a_clear_error(tmp_path) -> None:
    client = InferenceClient(str(tmp_path / "none.sock"), b"key", connect_seconds=0.2)
    obs, masks = positions(1)
    with pytest.raises(InferenceServerGone, match="no inference server answers"):
        client.infer(obs, masks)
