"""Searches in worker processes (serving.search_processes): the same answers as in the server
process, the same JSON errors, and a worker killed mid-service is replaced."""

from __future__ import annotations

import os
import signal

import pytest
from serving_helpers import client_for, tiny_checkpoint, wait_for, write_levels

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
