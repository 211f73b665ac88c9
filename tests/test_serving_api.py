"""The service's stateless endpoints: health, catalogue, levels, positions, suggestions,
errors, limits, CORS and the OpenAPI document."""

from __future__ import annotations

import json

import pytest
from serving_helpers import client_for, random_moves, tiny_checkpoint, write_levels

import envs
from envs import make_game

GAME_IDS = envs.game_ids()


@pytest.fixture()
def client(tmp_path):
    with client_for(tmp_path) as c:
        yield c


def assert_error(resp, status: int, code: str) -> dict:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert body["error"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    return body


# ---------------------------------------------------------------------------- catalogue
def test_health(client):
    body = client.get("/v1/health").json()
    assert body["status"] == "ok"
    assert body["games"] == GAME_IDS
    assert body["database"] == "sqlite"


def test_games_lists_every_registered_game_with_options_and_defaults(client):
    games = client.get("/v1/games").json()
    assert [g["id"] for g in games] == GAME_IDS
    for g in games:
        game = make_game(g["id"])
        assert g["players"] == list(game.spec.player_names)
        assert g["name"] == game.spec.name
        assert g["options"] == json.loads(json.dumps(envs.config_options(g["id"])))
        for o in g["options"]:  # every default is a valid value
            assert o["choices"] is None or o["default"] in o["choices"]
    jiugong = next(g for g in games if g["id"] == "jiugong")
    assert jiugong["players"] == ["south", "north"]
    assert jiugong["sessions"]["turn_seconds_default"] == 60.0
    assert client.get("/v1/games/jiugong").json() == jiugong


def test_unknown_game_is_404_json(client):
    for resp in (
        client.get("/v1/games/chess"),
        client.get("/v1/games/chess/levels"),
        client.post("/v1/games/chess/positions", json={}),
        client.post("/v1/games/chess/suggest", json={}),
    ):
        body = assert_error(resp, 404, "not_found")
        assert "chess" in body["message"] and "jiugong" in body["message"]


def test_unknown_route_and_method_are_json(client):
    assert_error(client.get("/v1/nothing"), 404, "not_found")
    assert_error(client.delete("/v1/games"), 405, "method_not_allowed")


# ---------------------------------------------------------------------------- levels
def test_baseline_levels_without_a_levels_file(client):
    body = client.get("/v1/games/jiugong/levels").json()
    assert [lv["id"] for lv in body["levels"]] == ["random", "mcts32"]
    assert {lv["source"] for lv in body["levels"]} == {"baseline"}
    assert body["levels"][0]["elo"] == 0.0
    assert body["default"] == "mcts32"


def test_no_levels_at_all_when_baselines_are_off(tmp_path):
    with client_for(tmp_path, baseline_levels=False) as c:
        assert c.get("/v1/games/jiugong/levels").json()["levels"] == []
        resp = c.post("/v1/games/jiugong/suggest", json={})
        assert_error(resp, 404, "not_found")


def test_levels_file_appears_without_restart(tmp_path):
    with client_for(tmp_path) as c:
        assert c.get("/v1/games/jiugong/levels").json()["levels"][0]["source"] == "baseline"
        tiny_checkpoint(tmp_path / "checkpoints" / "jiugong" / "tiny.pt")
        write_levels(
            tmp_path / "checkpoints",
            "jiugong",
            [
                {"id": 1, "label": "Beginner", "player": "random", "elo": 0, "games": 40},
                {
                    "id": 2,
                    "label": "Strong",
                    "checkpoint": "tiny.pt",
                    "search": {"simulations": 8},
                    "elo": 412.5,
                    "elo_ci": [350.0, 470.0],
                    "games": 80,
                },
            ],
            default=2,
        )
        body = c.get("/v1/games/jiugong/levels").json()
        assert body["default"] == "2"
        assert body["levels"] == [
            # the anchor stands beside trained levels (baselines on); Elo: the file's
            # scale is not anchored at it
            {"id": "random", "label": "Random", "elo": None, "elo_ci": None, "games": None,
             "source": "baseline", "ladder": None},
            {"id": "1", "label": "Beginner", "elo": 0.0, "elo_ci": None, "games": 40,
             "source": "levels.json", "ladder": None},  # Jiugong has no ladder standings
            {"id": "2", "label": "Strong", "elo": 412.5, "elo_ci": [350.0, 470.0], "games": 80,
             "source": "levels.json", "ladder": None},
        ]
        s = c.post("/v1/games/jiugong/suggest", json={"level": "Strong", "seed": 1}).json()
        assert s["level"] == "2"


def test_broken_levels_file_is_503_json(tmp_path):
    with client_for(tmp_path) as c:
        path = write_levels(tmp_path / "checkpoints", "jiugong", [])
        path.write_text("{not json")
        assert_error(c.get("/v1/games/jiugong/levels"), 503, "unavailable")


# ---------------------------------------------------------------------------- positions
def test_initial_position(client):
    body = client.post("/v1/games/jiugong/positions", json={}).json()
    assert body["to_play"] == "south"
    assert body["legal_moves"] == ["a1-a2", "b1-b2"]  # the shared piece is locked at the start
    assert body["is_over"] is False and body["result"] is None
    assert body["state"]["board"] == "SSS..XNNN"
    assert "a b c" in body["text"]


def test_position_after_moves_matches_the_engine(client):
    moves = ["b1-b2", "a3-a2", "c2-c1"][:2]
    body = client.post("/v1/games/jiugong/positions", json={"moves": moves}).json()
    game = make_game("jiugong")
    state = game.initial_state()
    for m in moves:
        state = game.play(state, m)
    assert body["state"] == game.to_json(state)
    assert body["legal_moves"] == game.legal_moves(state)
    assert body["to_play"] == "south"


def test_finished_game_reports_its_result(client):
    for seed in range(20):
        moves = random_moves("jiugong", seed)
        game = make_game("jiugong")
        state = game.initial_state()
        for m in moves:
            state = game.play(state, m)
        if game.winner(state) is not None:
            break
    body = client.post("/v1/games/jiugong/positions", json={"moves": moves}).json()
    assert body["is_over"] is True and body["to_play"] is None and body["legal_moves"] == []
    winner = game.spec.player_names[game.winner(state)]
    assert body["result"]["winner"] == winner
    assert body["result"]["returns"][winner] == 1.0


@pytest.mark.parametrize(
    ("moves", "index", "reason"),
    [
        (["b1-b2", "b2-b3"], 1, "belongs to the opponent"),
        (["c2-b2"], 0, "may not be moved on the first move"),
        (["b1-b2", "zz"], 1, "expected 'from-to'"),
        (["a1-a2", "a3-b3"], 1, "b3 is occupied"),
    ],
)
def test_illegal_move_is_422_with_index_and_reason(client, moves, index, reason):
    body = assert_error(
        client.post("/v1/games/jiugong/positions", json={"moves": moves}), 422, "illegal_move"
    )
    assert body["detail"]["index"] == index
    assert body["detail"]["move"] == moves[index]
    assert reason in body["detail"]["reason"]
    assert f"move {index}" in body["message"]


def test_move_after_the_end_is_illegal(client):
    for seed in range(20):
        moves = random_moves("jiugong", seed)
        if len(moves) < 200:
            break
    body = assert_error(
        client.post("/v1/games/jiugong/positions", json={"moves": moves + ["a1-a2"]}),
        422,
        "illegal_move",
    )
    assert body["detail"]["index"] == len(moves)
    assert "over" in body["detail"]["reason"]


@pytest.mark.parametrize(
    "payload",
    [
        {"moves": "a1-a2"},
        {"moves": [1, 2]},
        {"moves": [None]},
        {"config": []},
        {"config": {"x": {"nested": 1}}},
        {"moves": [], "extra": 1},
    ],
)
def test_malformed_bodies_are_422(client, payload):
    body = assert_error(
        client.post("/v1/games/jiugong/positions", json=payload), 422, "invalid_request"
    )
    assert body["detail"]["problems"]


def test_non_json_body_is_422(client):
    resp = client.post(
        "/v1/games/jiugong/positions",
        content=b"{oops",
        headers={"content-type": "application/json"},
    )
    assert_error(resp, 422, "invalid_request")


def test_bad_config_is_422(client):
    body = assert_error(
        client.post("/v1/games/jiugong/positions", json={"config": {"size": 5}}),
        422,
        "invalid_input",
    )
    assert "size" in body["message"]


def test_size_limits(tmp_path):
    with client_for(tmp_path, max_moves=5, max_body_bytes=2048, max_config_options=1) as c:
        body = assert_error(
            c.post("/v1/games/jiugong/positions", json={"moves": ["a1-a2"] * 6}),
            422,
            "invalid_input",
        )
        assert "too many moves" in body["message"]
        resp = c.post("/v1/games/jiugong/positions", json={"moves": ["x" * 3000]})
        assert_error(resp, 413, "too_large")
        long_move = c.post("/v1/games/jiugong/positions", json={"moves": ["a" * 100]})
        assert assert_error(long_move, 422, "illegal_move")["detail"]["index"] == 0
        many = c.post("/v1/games/jiugong/positions", json={"config": {"a": 1, "b": 2}})
        assert "too many config options" in assert_error(many, 422, "invalid_input")["message"]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_game_is_served(client, game_id, tmp_path):
    """Every registered game: positions along a random game, and a suggestion."""
    game = make_game(game_id)
    moves = random_moves(game_id, seed=3, limit=12)
    body = client.post(f"/v1/games/{game_id}/positions", json={"moves": moves}).json()
    state = game.initial_state()
    for m in moves:
        state = game.play(state, m)
    assert body["state"] == json.loads(json.dumps(game.to_json(state)))
    assert body["is_over"] == game.is_terminal(state)
    if not body["is_over"]:
        assert body["to_play"] == game.spec.player_names[game.to_play(state)]
        assert body["legal_moves"] == game.legal_moves(state)
        s = client.post(
            f"/v1/games/{game_id}/suggest", json={"moves": moves, "level": "random", "seed": 5}
        ).json()
        assert s["move"] in body["legal_moves"]


# ---------------------------------------------------------------------------- suggestions
def test_suggest_random_and_mcts(client):
    s = client.post(
        "/v1/games/jiugong/suggest", json={"moves": ["a1-a2"], "level": "random", "seed": 3}
    ).json()
    legal = client.post("/v1/games/jiugong/positions", json={"moves": ["a1-a2"]}).json()
    assert s["move"] in legal["legal_moves"]
    assert s["level"] == "random" and s["seconds"] >= 0
    m = client.post("/v1/games/jiugong/suggest", json={"moves": ["a1-a2"], "seed": 3}).json()
    assert m["level"] == "mcts32"
    assert m["move"] in legal["legal_moves"] and -1.0 <= m["value"] <= 1.0
    probs = [t["probability"] for t in m["top"]]
    assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1.0 + 1e-6
    assert {t["move"] for t in m["top"]} <= set(legal["legal_moves"])


def test_suggest_with_a_network_level_is_reproducible(tmp_path):
    root = tmp_path / "checkpoints"
    tiny_checkpoint(root / "jiugong" / "net.pt")
    write_levels(root, "jiugong", [
        {"id": "net", "label": "Net", "checkpoint": "net.pt",
         "search": {"simulations": 16, "gumbel_scale": 1.0}},
    ])
    with client_for(tmp_path) as c:
        req = {"moves": ["b1-b2"], "level": "net", "seed": 11}
        a = c.post("/v1/games/jiugong/suggest", json=req).json()
        b = c.post("/v1/games/jiugong/suggest", json=req).json()
        assert a["move"] == b["move"] and a["top"] == b["top"]
        assert a["value"] is not None
        stats = c.get("/v1/health").json()["ai"]["models"]
        assert sum(m["forward_passes"] for m in stats.values()) > 0


def test_suggest_errors(client):
    assert_error(
        client.post("/v1/games/jiugong/suggest", json={"level": "grandmaster"}), 404, "not_found"
    )
    moves = random_moves("jiugong", 0)
    body = assert_error(
        client.post("/v1/games/jiugong/suggest", json={"moves": moves}), 422, "invalid_input"
    )
    assert "over" in body["message"]
    bad = client.post("/v1/games/jiugong/suggest", json={"moves": ["b1-b3"]})
    assert assert_error(bad, 422, "illegal_move")["detail"]["index"] == 0
    assert_error(client.post("/v1/games/jiugong/suggest", json={"seed": -1}), 422,
                 "invalid_request")


def test_level_for_other_options_is_refused(tmp_path):
    """A network trained for one configuration cannot play another (here: another game)."""
    root = tmp_path / "checkpoints"
    tiny_checkpoint(root / "fangqi" / "wrong.pt", game_id="jiugong")
    write_levels(root, "fangqi", [{"id": "x", "checkpoint": "wrong.pt", "search": {}}])
    if "fangqi" not in GAME_IDS:
        pytest.skip("fangqi is not registered")
    with client_for(tmp_path) as c:
        body = assert_error(c.post("/v1/games/fangqi/suggest", json={}), 422, "invalid_input")
        assert "trained for jiugong" in body["message"]


# ---------------------------------------------------------------------------- cors, openapi
def test_cors_is_configurable(tmp_path):
    with client_for(tmp_path, cors_origins=["http://front.example"]) as c:
        resp = c.options(
            "/v1/games",
            headers={"Origin": "http://front.example", "Access-Control-Request-Method": "GET"},
        )
        assert resp.headers["access-control-allow-origin"] == "http://front.example"
        other = c.get("/v1/games", headers={"Origin": "http://evil.example"})
        assert "access-control-allow-origin" not in other.headers
    with client_for(tmp_path) as c:
        resp = c.get("/v1/games", headers={"Origin": "http://front.example"})
        assert "access-control-allow-origin" not in resp.headers


def test_openapi_documents_every_route_with_examples(client):
    doc = client.get("/openapi.json").json()
    paths = doc["paths"]
    for path in (
        "/v1/health",
        "/v1/games",
        "/v1/games/{game}/levels",
        "/v1/games/{game}/positions",
        "/v1/games/{game}/suggest",
        "/v1/sessions",
        "/v1/sessions/{session_id}",
        "/v1/sessions/{session_id}/moves",
        "/v1/sessions/{session_id}/confirm",
        "/v1/sessions/{session_id}/cancel",
        "/v1/sessions/{session_id}/seats/{seat}",
        "/v1/sessions/{session_id}/resign",
    ):
        assert path in paths, path
    schemas = doc["components"]["schemas"]
    for name in ("PositionCreate", "SuggestCreate", "SessionCreate", "MoveCreate"):
        assert schemas[name].get("examples"), name
    assert "409" in paths["/v1/sessions/{session_id}/moves"]["post"]["responses"]

