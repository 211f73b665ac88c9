"""POST /v1/games/{game}/analysis and DELETE /v1/analyses/{id}: answers, NDJSON streams,
stopping (by request or by closing the stream) frees the worker, budgets, errors, OpenAPI."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from serving_helpers import client_for

REPO = Path(__file__).resolve().parent.parent
LONG = {"level": "5", "visits": 100_000, "seconds": 30, "interval": 0.05, "stream": True}


def analysis_client(tmp_path: Path, **overrides):
    """The shipped levels, one AI worker (a search that is not stopped blocks the next)."""
    values = {"checkpoints_root": REPO / "checkpoints", "ai_workers": 1,
              "ladder_ai_players": False, "analysis_max_visits": 100_000,
              "analysis_max_seconds": 30, **overrides}
    return client_for(tmp_path, **values)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with analysis_client(tmp_path_factory.mktemp("analysis")) as c:
        yield c


def served_at_once(client) -> float:
    """Seconds a small analysis takes: it needs the one worker."""
    t0 = time.perf_counter()
    r = client.post("/v1/games/jiugong/analysis", json={"level": "5", "visits": 8})
    assert r.status_code == 200, r.text
    return time.perf_counter() - t0


def test_the_final_answer(client) -> None:
    r = client.post("/v1/games/jiugong/analysis",
                    json={"moves": ["a1-a2"], "level": "5", "visits": 100, "top": 3})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["final"] is True and body["level"] == "5" and body["id"]
    assert body["visits"] == 100 and -1 <= body["value"] <= 1
    assert body["score_lead"] is None and body["ownership"] is None
    assert 1 <= len(body["moves"]) <= 3
    for m in body["moves"]:
        assert m["pv"][0] == m["move"] and 0 <= m["prior"] <= 1
    assert body["moves"][0]["visits"] >= body["moves"][-1]["visits"]


def test_go_reports_the_score_lead_and_every_points_ownership(client) -> None:
    moves = [m for rank in range(1, 10) for m in (f"E{rank}", f"F{rank}")] + ["H5"]
    r = client.post("/v1/games/stereo_go/analysis",
                    json={"config": {"board": "9x9"}, "moves": moves, "visits": 16})
    assert r.status_code == 200, r.text
    body = r.json()
    assert isinstance(body["score_lead"], float)
    own = body["ownership"]
    assert len(own) == 81 and "J9" in own and "I5" not in own  # GTP letters: no I
    assert own["H5"] > 0 and own["E5"] < 0  # White to move: a dead Black stone, Black's wall


@pytest.mark.parametrize("game, points", [("fangqi", None), ("trigolden", None),
                                          ("stereo_go", 359)])
def test_every_game_is_analysed_at_its_top_level(client, game: str, points: int | None) -> None:
    # The first analysis of a level loads and traces its network inside the analysis clock
    # (its game's numba kernels are compiled before any test: conftest.py), so one small
    # analysis first; the checked one then has its whole budget for its 8 visits.
    assert client.post(f"/v1/games/{game}/analysis", json={"level": "5", "visits": 1}).is_success
    r = client.post(f"/v1/games/{game}/analysis", json={"level": "5", "visits": 8})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["visits"] == 8 and body["moves"] and body["moves"][0]["visits"] > 0
    if points is None:
        assert body["ownership"] is None and body["score_lead"] is None
    else:  # the cylinder: 17 x 21 points and the two poles
        assert len(body["ownership"]) == points and {"NP", "SP"} <= set(body["ownership"])


def test_a_baseline_go_level_reports_playout_ownership(tmp_path: Path) -> None:
    """Without levels.json a game gets the baseline levels; pure MCTS searches random
    playouts, and its ownership comes from them."""
    with client_for(tmp_path, ladder_ai_players=False) as c:
        r = c.post("/v1/games/stereo_go/analysis",
                   json={"config": {"board": "9x9"}, "moves": ["E5"], "level": "mcts32",
                         "visits": 8})
        assert r.status_code == 200, r.text
        body = r.json()
        assert len(body["ownership"]) == 81 and isinstance(body["score_lead"], float)
        r = c.post("/v1/games/stereo_go/analysis", json={"level": "random"})
        assert r.status_code == 422 and "does not search" in r.json()["message"]


def test_partial_results_arrive_before_the_final_one(client) -> None:
    # Ends on its visits (about half a second of search here); the seconds are slack for a
    # busy machine, where the first network call alone can take a second.
    body = {"level": "5", "visits": 3000, "seconds": 25.0, "interval": 0.05, "stream": True}
    with client.stream("POST", "/v1/games/jiugong/analysis", json=body) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("application/x-ndjson")
        analysis_id = r.headers["x-analysis-id"]
        reports = [json.loads(line) for line in r.iter_lines() if line]
    assert len(reports) >= 2 and reports[-1]["final"] is True
    assert not any(x["final"] for x in reports[:-1])
    assert {x["id"] for x in reports} == {analysis_id}
    visits = [x["visits"] for x in reports]
    assert visits == sorted(visits)
    assert client.delete(f"/v1/analyses/{analysis_id}").status_code == 404  # finished


def test_delete_stops_the_search_and_frees_the_worker(client) -> None:
    with client.stream("POST", "/v1/games/jiugong/analysis", json=LONG) as r:
        lines = r.iter_lines()
        first = json.loads(next(lines))
        assert first["final"] is False
        t0 = time.perf_counter()
        assert client.delete(f"/v1/analyses/{first['id']}").status_code == 204
        rest = [json.loads(line) for line in lines if line]
    assert rest[-1]["final"] is True and time.perf_counter() - t0 < 10
    assert served_at_once(client) < 10  # the first search had 30 seconds left


def test_closing_the_stream_stops_the_search(client) -> None:
    with client.stream("POST", "/v1/games/jiugong/analysis", json=LONG) as r:
        first = json.loads(next(r.iter_lines()))
    assert served_at_once(client) < 10
    assert client.delete(f"/v1/analyses/{first['id']}").status_code == 404  # over already


def test_over_budget_and_bad_requests_are_refused(client) -> None:
    r = client.post("/v1/games/jiugong/analysis", json={"visits": 100_001})
    assert r.status_code == 422 and "limit of 100000 simulations" in r.json()["message"]
    r = client.post("/v1/games/jiugong/analysis", json={"seconds": 31})
    assert r.status_code == 422 and "limit of 30 seconds" in r.json()["message"]
    r = client.post("/v1/games/jiugong/analysis", json={"interval": 0.01})
    assert r.status_code == 422
    r = client.post("/v1/games/jiugong/analysis", json={"top": 21})
    assert r.status_code == 422
    r = client.post("/v1/games/stereo_go/analysis",
                    json={"config": {"board": "9x9"}, "moves": ["pass", "pass"]})
    assert r.status_code == 422 and "over" in r.json()["message"]
    assert client.post("/v1/games/chess/analysis", json={}).status_code == 404
    assert client.post("/v1/games/jiugong/analysis", json={"level": "9"}).status_code == 404
    r = client.post("/v1/games/jiugong/analysis", json={"moves": ["a1-a9"]})
    assert r.status_code == 422
    assert client.delete("/v1/analyses/nothing").status_code == 404


def test_openapi_declares_both_routes(client) -> None:
    doc = client.get("/openapi.json").json()
    post = doc["paths"]["/v1/games/{game}/analysis"]["post"]
    ok = post["responses"]["200"]
    assert set(ok["content"]) == {"application/json", "application/x-ndjson"}
    assert "X-Analysis-Id" in ok["headers"]
    assert {"404", "422", "503"} <= set(post["responses"])
    delete = doc["paths"]["/v1/analyses/{analysis_id}"]["delete"]
    assert {"204", "404"} <= set(delete["responses"])
    props = doc["components"]["schemas"]["AnalysisPublic"]["properties"]
    assert {"id", "final", "level", "visits", "seconds", "value", "moves", "score_lead",
            "ownership"} == set(props)


def test_search_processes_stream_and_stop(tmp_path: Path) -> None:
    """The same in a search process: partial reports cross the pipe, DELETE reaches it."""
    with analysis_client(tmp_path, search_processes=1) as c:
        with c.stream("POST", "/v1/games/jiugong/analysis", json=LONG) as r:
            lines = r.iter_lines()
            first = json.loads(next(lines))
            assert first["final"] is False
            assert c.delete(f"/v1/analyses/{first['id']}").status_code == 204
            assert [json.loads(x) for x in lines if x][-1]["final"] is True
        assert served_at_once(c) < 10
