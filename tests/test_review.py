"""Post-game review (serving/review.py, serving/sessions/reviews.py, issue 37): a known
Jiugong blunder is found as its player's biggest mistake with a preferred move that keeps the
win, values are the first seat's view with the game's own to-play (Fang Qi's owed placements),
a session's review is computed once, stored, kept across restarts, on SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from serving_helpers import (
    ROOT,
    auth,
    client_for,
    postgres_schema,
    random_moves,
    tiny_checkpoint,
    write_levels,
)

from envs import make_game
from envs.jiugong_solver import LOSS, WIN, get_solver
from serving import review as review_module
from serving.levels import Level, LevelTable
from serving.review import plies_of_moves, review

CHECKPOINTS = ROOT / "checkpoints"


#: A Jiugong game with one known blunder: best play by the solver except at ply 3, where north
#: (seat 1) throws the draw away, and at ply 6, where south, winning, plays a losing move.
BLUNDER_GAME = ["a1-a2", "b3-b2", "b1-a1", "b2-b3", "c2-b2", "c3-c2", "b2-b1", "b3-b2"]
BLUNDER = 6


def solver_game() -> tuple[list[str], int]:
    """:data:`BLUNDER_GAME` and its blunder's ply, checked against the solver."""
    game, solver = make_game("jiugong"), get_solver()
    plies = plies_of_moves(game, BLUNDER_GAME)
    for i, ply in enumerate(plies):
        action = game.move_to_action(ply.before, ply.move)
        outcome = solver.move_values(ply.before)[action].outcome
        if i == BLUNDER:
            assert solver.value(ply.before).outcome == WIN and outcome == LOSS
            assert game.to_play(ply.before) == 0
        elif i == 3:
            assert solver.value(ply.before).outcome != LOSS and outcome == LOSS
        else:
            assert action in solver.optimal_actions(ply.before), i
    assert game.returns(plies[-1].after)[1] == 1.0  # north won
    return BLUNDER_GAME, BLUNDER


@pytest.fixture()
def real(tmp_path):
    """The service with the trained levels shipped in checkpoints/."""
    with client_for(tmp_path, checkpoints_root=CHECKPOINTS, timer_poll_seconds=3600) as c:
        yield c


def test_a_known_blunder_is_its_players_biggest_mistake(real):
    moves, blunder = solver_game()
    r = real.post("/v1/games/jiugong/review", json={"moves": moves})
    assert r.status_code == 200, r.text
    got = r.json()
    levels = real.get("/v1/games/jiugong/levels").json()["levels"]
    assert got["level"] == levels[-1]["id"]  # by default the strongest level judges
    assert len(got["values"]) == len(moves) + 1
    assert all(-1.0 <= v <= 1.0 for v in got["values"])
    # First seat's view: south (seat 0) is winning before its blunder, losing after it, and
    # the last value is the real result (north won).
    assert got["values"][blunder] > 0.5 > -0.5 > got["values"][blunder + 1]
    assert got["values"][-1] == -1.0
    south = [m for m in got["mistakes"] if m["player"] == 0]
    assert south[0]["ply"] == blunder and south[0]["move"] == moves[blunder]
    assert south[0]["loss"] > 1.0
    assert [m["loss"] for m in south] == sorted((m["loss"] for m in south), reverse=True)
    game, solver = make_game("jiugong"), get_solver()
    before = plies_of_moves(game, moves)[blunder].before
    preferred = game.move_to_action(before, south[0]["preferred"])
    assert solver.move_values(before)[preferred].outcome == WIN
    for m in got["mistakes"]:
        assert m["player"] in (0, 1) and m["loss"] > 0 and m["preferred"] != m["move"]
    assert sum(m["player"] == 1 for m in got["mistakes"]) <= 3 and len(south) <= 3


def test_review_requests_are_checked(real):
    assert real.post("/v1/games/nope/review", json={"moves": []}).status_code == 404
    r = real.post("/v1/games/jiugong/review", json={"moves": [], "level": "nope"})
    assert r.status_code == 404 and "known levels" in r.json()["message"]
    r = real.post("/v1/games/jiugong/review", json={"moves": ["a1-a2", "a1-a2"]})
    assert r.status_code == 422 and r.json()["detail"]["index"] == 1
    r = real.post("/v1/games/jiugong/review", json={"moves": [], "levle": "5"})
    assert r.status_code == 422
    r = real.post("/v1/games/jiugong/review", json={"moves": []})
    assert r.status_code == 200 and len(r.json()["values"]) == 1 and not r.json()["mistakes"]


# ---------------------------------------------------------------------------- perspective
@dataclass
class Choice:
    move: str
    top: list[tuple[str, float]]


class ConstantJudge:
    """A stand-in engine whose network says +0.5 for the side to move everywhere and whose
    search never agrees with the move played: what the review makes of it depends only on
    who is to move, which is what these tests check."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.searched: list[Any] = []

    def table(self, game: Any) -> LevelTable:
        return LevelTable(game.spec.id, (Level("judge", "Judge"),), "judge")

    def values(self, game: Any, states: list[Any], level_id: str | None) -> np.ndarray:
        assert all(not game.is_terminal(s) for s in states)
        return np.full(len(states), 0.5, dtype=np.float32)

    def analyse(self, game: Any, state: Any, level_id: str | None, seed: int | None) -> Choice:
        self.searched.append(state)
        legal = game.legal_moves(state)
        return Choice(legal[-1], [(legal[-1], 1.0)])


def owed_game() -> list[str]:
    """A random Fang Qi game in which a player moves twice in a row (owed placements)."""
    game = make_game("fangqi")
    for seed in range(50):
        moves = random_moves("fangqi", seed, limit=60)
        plies = plies_of_moves(game, moves)
        if any(game.to_play(p.before) == game.to_play(p.after) for p in plies):
            return moves
    raise AssertionError("no random game with owed placements")


def test_values_and_mistakes_follow_who_is_to_move_not_ply_parity():
    game = make_game("fangqi")
    plies = plies_of_moves(game, owed_game())
    judge = ConstantJudge(game)
    got = review(judge, game, plies, None)
    expect = [0.5 if game.to_play(s) == 0 else -0.5
              for s in [game.initial_state()] + [p.after for p in plies]]
    assert got["values"] == expect
    movers = [game.to_play(p.before) for p in plies]
    kept = [i for i, p in enumerate(plies) if game.to_play(p.after) == movers[i]]
    assert kept, "the game has no repeated mover"
    for m in got["mistakes"]:
        # only a ply that hands the turn over loses (1.0: from +0.5 to -0.5 for the mover)
        assert m["ply"] not in kept and m["player"] == movers[m["ply"]] and m["loss"] == 1.0
    for player in (0, 1):
        mine = [m["ply"] for m in got["mistakes"] if m["player"] == player]
        assert len(mine) == 3 and mine == sorted(mine)  # equal losses: earliest first
    assert len(judge.searched) == 6  # one search per mistake, nowhere else


def test_a_match_game_is_seen_from_the_first_seat():
    """In a match's second game the first player sits in the second seat: the values flip
    and ``player`` names seats."""
    game = make_game("jiugong")
    plies = plies_of_moves(game, ["a1-a2", "b3-b2", "b1-a1", "b2-b3"])
    first = review(ConstantJudge(game), game, plies, None, seat_shift=0)
    second = review(ConstantJudge(game), game, plies, None, seat_shift=1)
    assert second["values"] == [-v for v in first["values"]]
    assert first["mistakes"] and [m["player"] for m in first["mistakes"]] == [0, 0, 1]
    assert [m["player"] for m in second["mistakes"]] == [0, 1, 1]
    assert {(m["ply"], 1 - m["player"]) for m in second["mistakes"]} == {
        (m["ply"], m["player"]) for m in first["mistakes"]}


# ---------------------------------------------------------------------------- sessions
class Table:
    """A Jiugong session between two people, moved by its owner token."""

    def __init__(self, client: Any) -> None:
        r = client.post("/v1/sessions", json={"game": "jiugong", "turn_seconds": None})
        assert r.status_code == 201, r.text
        self.client, self.id = client, r.json()["session"]["id"]
        self.owner, self.version = r.json()["owner_token"], r.json()["session"]["version"]

    def play(self, moves: list[str]) -> dict[str, Any]:
        view: dict[str, Any] = {}
        for mv in moves:
            r = self.client.post(f"/v1/sessions/{self.id}/moves",
                                 json={"move": mv, "version": self.version},
                                 headers=auth(self.owner))
            assert r.status_code == 200, r.text
            view = r.json()
            self.version = view["version"]
        return view


def counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the reviews computed (a stored one is answered without one)."""
    calls: list[int] = []
    real_review = review_module.review

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real_review(*args, **kwargs)

    monkeypatch.setattr("serving.sessions.reviews.review", counted)
    return calls


def check_stored_once(tmp_path, monkeypatch, **settings: Any) -> None:
    """409 while played; computed on the first request; the second answers the stored one;
    after a restart too; the same review as the move list's."""
    moves, blunder = solver_game()
    calls = counting(monkeypatch)
    with client_for(tmp_path, checkpoints_root=CHECKPOINTS, timer_poll_seconds=3600,
                    **settings) as c:
        table = Table(c)
        table.play(moves[:-1])
        r = c.get(f"/v1/sessions/{table.id}/review")
        assert r.status_code == 409 and r.json()["error"] == "conflict"
        assert "not over" in r.json()["message"]
        assert table.play(moves[-1:])["status"] == "over"
        first = c.get(f"/v1/sessions/{table.id}/review")
        assert first.status_code == 200, first.text
        assert c.get(f"/v1/sessions/{table.id}/review").json() == first.json()
        assert len(calls) == 1
        posted = c.post("/v1/games/jiugong/review", json={"moves": moves}).json()
        assert first.json()["values"] == posted["values"]
        assert first.json()["mistakes"] == posted["mistakes"]
        assert [m["ply"] for m in first.json()["mistakes"] if m["player"] == 0][0] == blunder
        r = c.get("/v1/sessions/nosuchsession/review")
        assert r.status_code == 404 and r.json()["error"] == "not_found"
    calls.clear()
    with client_for(tmp_path, checkpoints_root=CHECKPOINTS, timer_poll_seconds=3600,
                    **settings) as c:  # a restart: the review is read, not computed again
        again = c.get(f"/v1/sessions/{table.id}/review")
        assert again.status_code == 200 and again.json() == first.json()
        assert calls == []


def test_a_sessions_review_is_computed_once_and_kept(tmp_path, monkeypatch):
    check_stored_once(tmp_path, monkeypatch)


def test_a_sessions_review_is_kept_on_postgres(tmp_path, monkeypatch, postgres_url):
    with postgres_schema(postgres_url) as url:
        check_stored_once(tmp_path, monkeypatch, database_url=url)


# ---------------------------------------------------------------------------- search processes
def test_search_processes_review_as_the_server_process_does(tmp_path):
    root = tmp_path / "checkpoints"
    tiny_checkpoint(root / "jiugong" / "net.pt")
    write_levels(root, "jiugong", [
        {"id": "random", "label": "Random", "player": "random"},
        {"id": "net", "label": "Net", "checkpoint": "net.pt", "search": {"simulations": 8}},
    ])
    moves = random_moves("jiugong", 3, limit=20)
    answers = []
    for processes in (0, 1):
        with client_for(tmp_path / str(processes), checkpoints_root=root,
                        search_processes=processes) as c:
            r = c.post("/v1/games/jiugong/review", json={"moves": moves})
            assert r.status_code == 200, r.text
            answers.append(r.json())
            r = c.post("/v1/games/jiugong/review", json={"moves": moves, "level": "random"})
            assert r.status_code == 422 and "no value estimate" in r.json()["message"]
    assert answers[0]["level"] == answers[1]["level"] == "net"
    assert answers[0]["values"] == answers[1]["values"]
    assert answers[0]["mistakes"] == answers[1]["mistakes"]
