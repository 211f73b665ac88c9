"""Searches in worker processes (serving.search_processes): the same answers as in the server
process, the same JSON errors, and a worker killed mid-service is replaced."""

from __future__ import annotations

import os
import signal

import pytest
from serving_helpers import client_for, random_moves, tiny_checkpoint, wait_for, write_levels

from envs import make_game, options_key

LEVELS = [
    {"id": "net", "label": "Net", "checkpoint": "net.pt",
     "search": {"simulations": 16, "gumbel_scale": 1.0}},
    {"id": "mcts", "label": "MCTS", "player": "mcts:32"},
    {"id": "random", "label": "Random", "player": "random"},
]


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "checkpoints"
    tiny_checkpoint(root / "jiugong" / "net.pt")
    write_levels(root, "jiugong", LEVELS)
    tiny_checkpoint(root / "fangqi" / "wrong.pt", game_id="jiugong")
    write_levels(root, "fangqi", [{"id": "x", "checkpoint": "wrong.pt", "search": {}}])
    return root


def _suggest(client, level: str, seed: int) -> dict:
    r = client.post("/v1/games/jiugong/suggest",
                    json={"moves": ["b1-b2"], "level": level, "seed": seed})
    assert r.status_code == 200, r.text
    return r.json()


def test_worker_processes_answer_what_the_server_process_answers(tmp_path, root):
    requests = [("net", 11), ("net", 12), ("mcts", 3), ("random", 5)]
    with client_for(tmp_path / "in", checkpoints_root=root) as c:
        here = [_suggest(c, level, seed) for level, seed in requests]
    with client_for(tmp_path / "out", checkpoints_root=root, search_processes=2) as c:
        there = [_suggest(c, level, seed) for level, seed in requests]
        health = c.get("/v1/health").json()["ai"]
    for a, b in zip(here, there, strict=True):
        assert (a["move"], a["top"], a["value"], a["level"]) == (
            b["move"], b["top"], b["value"], b["level"])
    assert health["processes"] == 2
    assert sum(m["forward_passes"] for m in health["models"].values()) > 0


def test_errors_from_a_worker_keep_their_status_and_message(tmp_path, root):
    with client_for(tmp_path, checkpoints_root=root, search_processes=1) as c:
        r = c.post("/v1/games/fangqi/suggest", json={"level": "x"})
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["error"] == "invalid_input" and "trained for jiugong" in body["message"]
        assert c.post("/v1/games/jiugong/suggest", json={"level": "nope"}).status_code == 404


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_a_killed_worker_is_replaced(tmp_path, root):
    with client_for(tmp_path, checkpoints_root=root, search_processes=1) as c:
        _suggest(c, "net", 1)
        processes = c.app.state.ai.processes
        (old,) = processes.pids()
        os.kill(old, signal.SIGKILL)
        wait_for(lambda: processes.pids() != [old], timeout=30)
        assert _suggest(c, "net", 1)["move"]
        # An AI seat keeps playing through the new worker.
        created = c.post("/v1/sessions", json={
            "game": "jiugong",
            "turn_seconds": None,
            "seats": {"south": {"type": "ai", "level": "net"},
                      "north": {"type": "ai", "level": "random"}},
        }).json()
        sid = created["session"]["id"]
        wait_for(lambda: len(c.get(f"/v1/sessions/{sid}").json()["moves"]) >= 4, timeout=60)


GO9 = {"board": "9x9"}


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_shared_inference_answers_what_local_inference_answers(tmp_path):
    """``inference: shared``: the search processes' evaluations go to one server per network,
    which batches them together; the suggestions are those of the searches in the server
    process itself (same network, same numbers), for Jiugong and 9x9 Stereo Go."""
    root = tmp_path / "checkpoints"
    tiny_checkpoint(root / "jiugong" / "net.pt")
    write_levels(root, "jiugong", LEVELS[:1])
    key = options_key(make_game("stereo_go", **GO9))
    tiny_checkpoint(root / "stereo_go" / key / "go9.pt", game_id="stereo_go", options=GO9)
    write_levels(root / "stereo_go", key, [
        {"id": "go9", "label": "Go 9", "checkpoint": "go9.pt",
         "search": {"simulations": 8, "gumbel_scale": 1.0}}], game_options=GO9)
    go_moves = random_moves("stereo_go", 4, limit=6, **GO9)
    requests = [("jiugong", {"moves": ["b1-b2"], "level": "net", "seed": 11}),
                ("jiugong", {"moves": [], "level": "net", "seed": 12}),
                ("stereo_go", {"moves": go_moves, "config": GO9, "level": "go9", "seed": 5})]

    def ask(c) -> list[dict]:
        answers = []
        for game, body in requests:
            r = c.post(f"/v1/games/{game}/suggest", json=body)
            assert r.status_code == 200, r.text
            answers.append(r.json())
        return answers

    with client_for(tmp_path / "in", checkpoints_root=root) as c:
        here = ask(c)
    with client_for(tmp_path / "shared", checkpoints_root=root, search_processes=2,
                    inference="shared", inference_device="cpu") as c:
        # Each search alone at its server once the warm-ups are done: the same batches as
        # in one process (a batch that also held another process's rows may round a last
        # bit apart, which is what the tolerance below allows).
        wait_for(c.app.state.ai.warm_now, timeout=60)
        there = ask(c)
        health = c.get("/v1/health").json()["ai"]
        inference = c.app.state.ai.inference
        servers = inference.pids()
        # A killed server: the searches that were using it answer 503 (as for a dead search
        # process), and a fresh server answers the next ones.
        net = next(p for p in servers if p.name == "net.pt")
        os.kill(servers[net], signal.SIGKILL)
        wait_for(lambda: inference.pids().get(net) not in (None, servers[net]), timeout=30)
        statuses = []
        for seed in range(40):  # new positions: the processes' caches do not answer them
            r = c.post("/v1/games/jiugong/suggest", json={
                "moves": random_moves("jiugong", seed, limit=4), "level": "net", "seed": 1})
            statuses.append(r.status_code)
            assert r.status_code in (200, 503), r.text
            if r.status_code == 503:
                assert "inference server stopped" in r.json()["message"]
            elif statuses.count(200) >= 3:
                break
        assert statuses.count(200) >= 3
    for a, b in zip(here, there, strict=True):
        assert a["move"] == b["move"] and [m["move"] for m in a["top"]] == [
            m["move"] for m in b["top"]]
        assert b["value"] == pytest.approx(a["value"], abs=1e-6)
        assert [m["probability"] for m in b["top"]] == pytest.approx(
            [m["probability"] for m in a["top"]], abs=1e-6)
    assert health["inference"] == "shared" and len(servers) == 2
    # the figures of every network come from its server (warm-up evaluated each once)
    assert health["models"] and all(m["forward_passes"] > 0 for m in health["models"].values())
