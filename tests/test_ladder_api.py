"""The ranking ladder over HTTP (docs/rules/ladder.md, docs/ladder.md): players and tokens, the
membership grant, the queue and matching, rated, invalid, drawn and friendly games through
real sessions with a fake clock, challenges, AI levels taking a lone player's seat,
concurrency (20 players queueing at once; two end-of-game writes rating once), restarts, the
players' live events, and bad input."""

from __future__ import annotations

import json
import secrets
import threading
from collections import Counter

import pytest
from ladder_helpers import (
    ADMIN,
    NINE,
    act,
    grant,
    ladder_app,
    pair,
    play_moves,
    profile,
    queue,
    queue_state,
    register,
    stream,
    with_tokens,
)
from serving_helpers import (
    FakeClock,
    auth,
    client_for,
    overlapping_commits,
    postgres_schema,
    settings_for,
    wait_for,
)
from sqlalchemy import update

from serving.ladder.rating import rate_finished
from serving.ladder.store import PlayerRow

SMALL = {"board": "5x5"}


@pytest.fixture()
def clock():
    return FakeClock()


@pytest.fixture()
def client(tmp_path, clock):
    yield from ladder_app(tmp_path, clock)

# ---------------------------------------------------------------------------- players
def test_register_profile_and_leaderboard(client):
    lin = register(client, "Lin")
    assert lin["rank"] == "18K" and lin["points"] == 0 and lin["kind"] == "human"
    assert len(lin["token"]) >= 40 and lin["games"] == [] and lin["playing"] == []
    wu = register(client, "Wu")
    assert wu["id"] != lin["id"] and wu["token"] != lin["token"]
    grant(client, wu, 5)
    board = client.get("/v1/ladder/leaderboard", params={"include_ai": False}).json()
    assert [p["name"] for p in board["players"]] == ["Wu", "Lin"] and board["total"] == 2
    assert board["players"][0] == {**board["players"][0], "position": 1, "rank": "13K",
                                   "points": 5000}
    everyone = client.get("/v1/ladder/leaderboard", params={"limit": 1, "offset": 1}).json()
    assert everyone["total"] == 4  # the two baseline AI levels play on the ladder too
    assert len(everyone["players"]) == 1 and everyone["players"][0]["position"] == 2
    ranks = client.get("/v1/ladder/ranks").json()
    assert ranks[0] == {"rank": "18K", "index": 0, "points_from": 0, "points_to": 1000,
                        "points_per_game": 200}
    assert ranks[-1]["rank"] == "Super 9D" and ranks[-1]["points_to"] is None



def test_the_leaderboard_gives_a_players_own_entry_wherever_the_page_is(client, clock):
    """``player`` adds that player's entry (``you``) with their position, in the same order
    as the pages (points, then rated games, then who registered first), on any page."""
    first = register(client, "Ann")
    clock.advance(1)
    second, third = register(client, "Bo"), register(client, "Cy")  # Cy: after Ann
    grant(client, second, 5)
    page = client.get("/v1/ladder/leaderboard",
                      params={"include_ai": False, "limit": 1, "player": third["id"]}).json()
    assert [p["name"] for p in page["players"]] == ["Bo"]
    assert page["you"] == {**page["you"], "id": third["id"], "name": "Cy", "position": 3}
    everyone = client.get("/v1/ladder/leaderboard", params={"limit": 100}).json()["players"]
    positions = {p["id"]: p["position"] for p in everyone}
    for p in (first, second, third, {"id": "ai-random"}):
        you = client.get("/v1/ladder/leaderboard", params={"player": p["id"], "limit": 1})
        assert you.json()["you"]["position"] == positions[p["id"]]
    assert client.get("/v1/ladder/leaderboard").json()["you"] is None
    no_ai = client.get("/v1/ladder/leaderboard",
                       params={"player": "ai-random", "include_ai": False}).json()
    assert no_ai["you"] is None  # the list leaves AI levels out
    r = client.get("/v1/ladder/leaderboard", params={"player": "nobody"})
    assert r.status_code == 404 and "nobody" in r.text

@pytest.mark.parametrize("name", ["", "   ", "x" * 33, "tab\there", "AI master"])
def test_bad_names_are_refused(client, name):
    r = client.post("/v1/players", json={"name": name})
    assert r.status_code in (409, 422) and r.json()["message"]


def test_names_are_unique_and_unknown_players_404(client):
    register(client, "Lin")
    r = client.post("/v1/players", json={"name": "Lin"})
    assert r.status_code == 409 and r.json()["error"] == "conflict"
    for path in ("/v1/players/nope", "/v1/players/nope/games", "/v1/players/" + "x" * 300):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["error"] == "not_found"


def test_membership_grant_is_admin_only_and_capped_at_5d(client):
    lin = register(client, "Lin")
    url = f"/v1/players/{lin['id']}/grant"
    r = client.post(url, json={"yuan": 68})
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    r = client.post(url, json={"yuan": 68}, headers=auth(lin["token"]))
    assert r.status_code == 403
    assert client.post(url, json={"yuan": 0}, headers=auth(ADMIN)).status_code == 422
    assert client.post("/v1/players/nope/grant", json={"yuan": 1},
                       headers=auth(ADMIN)).status_code == 404
    p = grant(client, lin, 68)
    assert p["points"] == 68_000 and p["rank"] == "2D" and p["membership_points"] == 68_000
    p = grant(client, lin, 10_000)
    assert p["points"] == 518_000 and p["rank"] == "5D"  # amounts above convert as 5D
    r = client.post("/v1/players/ai-random/grant", json={"yuan": 5}, headers=auth(ADMIN))
    assert r.status_code == 409


def test_grants_are_off_without_an_admin_token(tmp_path):
    with client_for(tmp_path, ladder_match_seconds=0.05) as c:
        lin = register(c, "Lin")
        r = c.post(f"/v1/players/{lin['id']}/grant", json={"yuan": 5}, headers=auth("guess"))
        assert r.status_code == 403 and "off" in r.json()["message"]


# ---------------------------------------------------------------------------- the queue
def test_queue_errors_are_clear(client):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    r = client.post("/v1/ladder/queue", json={})
    assert r.status_code == 401 and r.json()["error"] == "unauthorized"
    r = client.post("/v1/ladder/queue", json={}, headers=auth("forged"))
    assert r.status_code == 401
    for bad in ({"board": "7x7x"}, {"rules": "chinese"}, {"clock": None}, {"colour": "black"},
                {"clock": {"main_time": -1}}, {"handicap": "yes"}):
        r = queue(client, lin, **bad)
        assert r.status_code == 422 and r.json()["message"], bad
    assert queue(client, lin, **NINE).status_code == 201
    r = queue(client, lin, **NINE)
    assert r.status_code == 409 and "already in the queue" in r.json()["message"]
    assert queue_state(client, lin)["status"] == "waiting"
    r = client.delete("/v1/ladder/queue", headers=auth(lin["token"]))
    assert r.status_code == 200 and r.json()["status"] == "idle"
    assert client.delete("/v1/ladder/queue", headers=auth(lin["token"])).json()["status"] == "idle"
    s = pair(client, lin, wu, **NINE)
    r = queue(client, wu, **NINE)  # in a rated game: one at a time
    assert r.status_code == 409 and r.json()["detail"]["session"] == s["id"]


def test_only_players_asking_for_the_same_options_are_paired(client):
    lin, wu, li = register(client, "Lin"), register(client, "Wu"), register(client, "Li")
    assert queue(client, lin, **NINE).json()["status"] == "waiting"
    assert queue(client, wu, board="9x9", rules="area").json()["status"] == "waiting"
    assert queue(client, li, board="9x9", clock={"main_time": 60}).json()["status"] == "waiting"
    r = queue(client, register(client, "Zhao"), board="9x9", rules="territory")
    assert r.json()["status"] == "playing" and r.json()["game"]["opponent"] == lin["id"]


def test_never_two_or_more_ranks_apart(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    grant(client, wu, 2)  # 16K against 18K
    assert queue(client, lin, **SMALL).json()["status"] == "waiting"
    clock.advance(1)
    assert queue(client, wu, **SMALL).json()["status"] == "waiting"
    zhao = register(client, "Zhao")
    grant(client, zhao, 1)  # 17K: one rank from each; Lin has waited longer, so Lin chooses
    r = queue(client, zhao, **SMALL)
    assert r.json()["status"] == "playing" and r.json()["game"]["opponent"] == lin["id"]
    assert queue_state(client, wu)["status"] == "waiting"


def test_the_queue_survives_a_restart(tmp_path, clock):
    settings = settings_for(tmp_path, ladder_match_seconds=0.05, timer_poll_seconds=3600)
    with client_for(tmp_path, clock=clock, settings=settings) as c:
        lin, wu = register(c, "Lin"), register(c, "Wu")
        assert queue(c, lin, **NINE).json()["status"] == "waiting"
    with client_for(tmp_path, clock=clock, settings=settings) as c:
        assert queue_state(c, lin)["status"] == "waiting"
        r = queue(c, wu, **NINE)
        assert r.json()["status"] == "playing" and r.json()["game"]["opponent"] == lin["id"]


# ---------------------------------------------------------------------------- playing
def test_a_rated_game_changes_both_profiles(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    grant(client, lin, 5)  # 13K, 5,000 points
    grant(client, wu, 5)
    s = pair(client, lin, wu, **NINE)
    assert s["ladder"]["kind"] == "rated" and s["config"] == NINE
    assert {s["seats"]["black"]["player"], s["seats"]["white"]["player"]} == {lin["id"], wu["id"]}
    s = play_moves(client, s, 12)
    clock.advance(90)
    loser = s["position"]["to_play"]
    r = act(client, s, "resign", loser)
    assert r.status_code == 200, r.text
    outcome = r.json()["ladder"]["outcome"]
    winner = "white" if loser == "black" else "black"
    assert outcome["kind"] == "rated" and outcome["results"][loser] == "loss"
    assert outcome["points"][winner] == {"before": 5000, "after": 5200}
    assert outcome["points"][loser] == {"before": 5000, "after": 4800}
    assert outcome["ranks"][loser] == {"before": "13K", "after": "14K"}
    won = profile(client, lin if s["seats"][winner]["player"] == lin["id"] else wu)
    lost = profile(client, wu if won["id"] == lin["id"] else lin)
    assert (won["points"], won["rank"], won["wins"], won["losses"]) == (5200, "13K", 1, 0)
    assert (lost["points"], lost["rank"], lost["wins"], lost["losses"]) == (4800, "14K", 0, 1)
    line = won["games"][0]
    assert line["result"] == "win" and line["reason"] == "resignation" and line["moves"] == 12
    assert line["points"] == {"before": 5000, "after": 5200, "change": 200}
    assert line["opponent"]["id"] == lost["id"] and line["session"] == s["id"]
    assert lost["games"][0]["result"] == "loss" and lost["games_total"] == 1
    assert won["playing"] == [] and queue_state(client, lin)["status"] == "idle"
    page = client.get(f"/v1/players/{lin['id']}/games", params={"limit": 5}).json()
    assert page["total"] == 1 and len(page["games"]) == 1


def test_a_1d_at_18000_who_loses_lands_at_17000_through_a_real_game(client, clock):
    """1D's floor end to end: the rating hook applies it (not 8,000, 10K, as the table's
    10,000 alone would give), and the loser's rank_change says demoted to 1K."""
    lin, wu = register(client, "Lin"), register(client, "Wu")
    grant(client, lin, 18)  # both 1D at 18,000
    grant(client, wu, 18)
    s = pair(client, lin, wu, **NINE)
    s = play_moves(client, s, 12)
    clock.advance(90)
    loser = s["position"]["to_play"]
    outcome = act(client, s, "resign", loser).json()["ladder"]["outcome"]
    winner = "white" if loser == "black" else "black"
    assert outcome["points"][loser] == {"before": 18_000, "after": 17_000}
    assert outcome["ranks"][loser] == {"before": "1D", "after": "1K"}
    assert outcome["points"][winner] == {"before": 18_000, "after": 28_000}
    lost = lin if s["seats"][loser]["player"] == lin["id"] else wu
    assert (profile(client, lost)["points"], profile(client, lost)["rank"]) == (17_000, "1K")
    change = stream(client, lost, 3)[-1]
    assert change["kind"] == "rank_change" and change["data"]["demoted"]
    assert change["data"]["points"] == {"before": 18_000, "after": 17_000, "change": -1_000}


def test_a_scored_game_is_rated_too(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    s = pair(client, lin, wu, **SMALL)
    s = play_moves(client, s, 4)
    clock.advance(30)
    for _ in range(2):  # two passes: the scoring phase
        s = {**act(client, s, "moves", s["position"]["to_play"], move="pass").json(),
             "tokens": s["tokens"]}
    assert s["status"] == "scoring"
    for colour in ("black", "white"):
        s = {**act(client, s, "scoring/accept", colour).json(), "tokens": s["tokens"]}
    assert s["status"] == "over" and s["result"]["reason"] == "score"
    assert s["ladder"]["outcome"]["kind"] == "rated"  # no move or time minimum for a score
    winner = s["result"]["winner"]
    assert s["ladder"]["outcome"]["points"][winner]["after"] == 200


def test_a_game_resigned_at_move_5_changes_nothing_and_leaves_no_record(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    grant(client, lin, 5)
    grant(client, wu, 5)
    s = pair(client, lin, wu, **NINE)
    s = play_moves(client, s, 5)
    clock.advance(300)
    r = act(client, s, "resign", "black")
    assert r.status_code == 200 and r.json()["status"] == "over"
    assert r.json()["ladder"]["outcome"]["kind"] == "void"
    for p in (lin, wu):
        after = profile(client, p)
        assert after["points"] == 5000 and after["games"] == [] and after["games_total"] == 0
        assert after["wins"] == after["losses"] == 0 and after["playing"] == []
    assert queue(client, lin, **NINE).status_code == 201  # free to queue again


def test_a_game_resigned_within_the_first_minute_is_void(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    s = pair(client, lin, wu, **NINE)
    s = play_moves(client, s, 20)
    clock.advance(60)  # exactly one minute: still within it
    r = act(client, s, "resign", "white")
    assert r.json()["ladder"]["outcome"]["kind"] == "void"
    assert profile(client, lin)["games_total"] == 0


def test_a_loss_on_time_after_ten_moves_is_rated(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    s = pair(client, lin, wu, board="5x5", clock={"main_time": 60, "periods": 1,
                                                  "period_seconds": 10})
    s = play_moves(client, s, 10)
    late = s["position"]["to_play"]
    clock.advance(71)  # main time and the one period: the game lasted over a minute
    s = client.get(f"/v1/sessions/{s['id']}").json()
    assert s["result"]["reason"] == "time" and s["result"]["loser"] == late
    assert s["ladder"]["outcome"]["kind"] == "rated"
    loser = lin if s["seats"][late]["player"] == lin["id"] else wu
    assert profile(client, loser)["losses"] == 1


def test_draw_offers(client, clock):
    lin, wu, eve = register(client, "Lin"), register(client, "Wu"), register(client, "Eve")
    s = pair(client, lin, wu, **NINE)
    s = play_moves(client, s, 16)
    to_move = s["position"]["to_play"]
    other = "white" if to_move == "black" else "black"
    r = act(client, s, "draw/offer", other)  # out of turn
    assert r.status_code == 409 and "your own turn" in r.json()["message"]
    r = client.post(f"/v1/sessions/{s['id']}/draw/offer", json={"version": s["version"]},
                    headers=auth(eve["token"]))  # not a player of this game
    assert r.status_code == 401
    r = client.post(f"/v1/sessions/{s['id']}/draw/offer", json={"version": s["version"]})
    assert r.status_code == 401
    r = act(client, s, "draw/accept", other)
    assert r.status_code == 409 and "no draw offer" in r.json()["message"]
    r = act(client, s, "draw/offer", to_move)
    assert r.status_code == 200 and r.json()["draw_offer"]["status"] == "open"
    s = {**r.json(), "tokens": s["tokens"]}
    assert act(client, s, "draw/accept", to_move).status_code == 409  # one's own offer
    assert act(client, s, "draw/offer", to_move).status_code == 409  # one offer a turn
    r = act(client, s, "draw/decline", other)
    assert r.status_code == 200 and r.json()["draw_offer"]["status"] == "declined"
    s = {**r.json(), "tokens": s["tokens"]}
    assert act(client, s, "draw/offer", to_move).status_code == 409  # declined this turn
    s = play_moves(client, s, 1, seed=7)  # the next move clears it
    assert s["draw_offer"] is None
    r = act(client, s, "draw/offer", other)
    s = {**r.json(), "tokens": s["tokens"]}
    r = act(client, s, "draw/accept", to_move)
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["status"] == "over" and s["result"]["reason"] == "agreement"
    assert s["result"]["winner"] is None and s["events"][-1]["t"] == "draw"
    assert s["ladder"]["outcome"]["kind"] == "rated"  # 17 moves: recorded, no points
    for p in (lin, wu):
        after = profile(client, p)
        assert after["points"] == 0 and after["draws"] == 1
        assert after["games"][0]["result"] == "draw"
    _, told = client.app.state.events.since(f"session:{s['id']}", 0)  # the session's stream
    offers = [e.data["value"] for e in told if e.kind == "draw_offer"]
    assert [o and o["status"] for o in offers] == ["open", "declined", None, "open", None]
    kinds = [e.kind for e in told]
    assert kinds[-1] == "end" and kinds.index("draw") + 1 == kinds.index("game_end")


def test_a_draw_agreed_before_move_15_leaves_no_record(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    s = pair(client, lin, wu, **NINE)
    s = play_moves(client, s, 14)
    clock.advance(600)
    s = {**act(client, s, "draw/offer", s["position"]["to_play"]).json(), "tokens": s["tokens"]}
    r = act(client, s, "draw/accept", s["draw_offer"]["to"])
    assert r.json()["ladder"]["outcome"]["kind"] == "void"
    assert profile(client, lin)["games_total"] == 0 and profile(client, lin)["draws"] == 0


def test_seats_belong_to_their_players(client):
    lin, wu, eve = register(client, "Lin"), register(client, "Wu"), register(client, "Eve")
    s = pair(client, lin, wu, **NINE)
    to_move = s["position"]["to_play"]
    other = "white" if to_move == "black" else "black"
    legal = s["position"]["legal_moves"][0]
    r = act(client, s, "moves", other, move=legal)
    assert r.status_code == 403  # the opponent cannot move for this seat
    r = client.post(f"/v1/sessions/{s['id']}/moves", json={"move": legal,
                    "version": s["version"]}, headers=auth(eve["token"]))
    assert r.status_code == 401
    r = client.put(f"/v1/sessions/{s['id']}/seats/{to_move}",
                   json={"type": "ai", "level": "random", "version": s["version"]},
                   headers=auth(s["tokens"][to_move]))
    assert r.status_code == 409 and "ladder player" in r.json()["message"]
    r = act(client, s, "resign", to_move, seat=other)  # nor resign for the opponent
    assert r.status_code == 403
    assert act(client, s, "moves", to_move, move=legal).status_code == 200


def test_colours_swap_at_the_second_meeting(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    blacks = []
    for i in range(3):
        s = pair(client, lin, wu, **NINE)
        blacks.append(s["seats"]["black"]["player"])
        s = play_moves(client, s, 10, seed=i)
        clock.advance(61)
        assert act(client, s, "resign", "white").status_code == 200  # Black wins each time
    assert blacks[1] != blacks[0] and blacks[2] == blacks[0]


def test_a_handicap_game_gives_the_weaker_black_and_white_passes(client):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    grant(client, wu, 1)  # 17K against 18K
    s = pair(client, lin, wu, board="9x9", handicap=True)
    assert s["seats"]["black"]["player"] == lin["id"] and s["ladder"]["handicap"] == 1
    assert s["config"] == {"board": "9x9", "handicap": 1}
    s = play_moves(client, s, 1)
    assert s["position"]["to_play"] == "black"  # White's first move was the automatic pass


# ---------------------------------------------------------------------------- challenges
def challenge(client, a, b, **options):
    return client.post("/v1/ladder/challenges", json={"opponent": b["id"], **options},
                       headers=auth(a["token"]))


def answer(client, player, cid, how="accept"):
    path = f"/v1/ladder/challenges/{cid}" + ("/accept" if how == "accept" else "")
    method = client.post if how == "accept" else client.delete
    return method(path, headers=auth(player["token"]))


def test_a_friendly_game_by_challenge_beside_a_rated_one(client, clock):
    lin, wu, strong = register(client, "Lin"), register(client, "Wu"), register(client, "Dan")
    grant(client, strong, 18)  # 1D against 18K: a friendly game
    rated = pair(client, lin, wu, **NINE)
    r = challenge(client, strong, lin, **NINE)
    assert r.status_code == 201 and r.json()["status"] == "open"
    cid = r.json()["id"]
    listed = client.get("/v1/ladder/challenges", headers=auth(lin["token"])).json()
    assert [c["id"] for c in listed] == [cid]
    assert answer(client, strong, cid).status_code == 403  # the challenger does not accept
    r = answer(client, lin, cid)  # in a rated game already: a friendly one is allowed
    assert r.status_code == 200 and r.json()["status"] == "accepted"
    assert answer(client, lin, cid).status_code == 409  # accepted once
    s = with_tokens(client.get(f"/v1/sessions/{r.json()['session']}").json(), lin, strong)
    assert s["ladder"]["kind"] == "friendly"
    s = play_moves(client, s, 10)
    clock.advance(61)
    r = act(client, s, "resign", "black" if s["seats"]["black"]["player"] == strong["id"]
            else "white")  # the 1D resigns: no points either way
    assert r.json()["ladder"]["outcome"]["kind"] == "friendly"
    after = profile(client, strong)
    assert after["points"] == 18_000 and after["friendly_games"] == 1 and after["losses"] == 0
    assert after["games"][0]["result"] == "friendly" and after["games"][0]["kind"] == "friendly"
    assert profile(client, lin)["playing"][0]["session"] == rated["id"]


def test_a_rated_challenge_keeps_one_rated_game_at_a_time(client):
    lin, wu, li = register(client, "Lin"), register(client, "Wu"), register(client, "Li")
    pair(client, lin, wu, **NINE)
    cid = challenge(client, li, lin, **NINE).json()["id"]
    r = answer(client, lin, cid)
    assert r.status_code == 409 and "rated game" in r.json()["message"]
    zhao = register(client, "Zhao")
    assert queue(client, zhao, **SMALL).json()["status"] == "waiting"
    cid = challenge(client, li, zhao, **NINE).json()["id"]
    r = answer(client, zhao, cid)
    assert r.status_code == 409 and "queue" in r.json()["message"]
    r = answer(client, zhao, cid, how="decline")
    assert r.status_code == 200 and r.json()["status"] == "declined"
    cid = challenge(client, li, zhao, **NINE).json()["id"]
    assert answer(client, li, cid, how="withdraw").json()["status"] == "withdrawn"
    assert answer(client, zhao, cid).status_code == 409


def test_challenge_errors_are_clear(client):
    lin = register(client, "Lin")
    assert challenge(client, lin, lin).status_code == 422
    assert challenge(client, lin, {"id": "nope"}).status_code == 404
    assert challenge(client, lin, {"id": "ai-nope"}).status_code == 404
    assert challenge(client, lin, register(client, "Wu"), board="3x3x").status_code == 422
    assert answer(client, lin, "nope").status_code == 404
    assert answer(client, lin, "%00bad").status_code == 404
    r = client.post("/v1/ladder/challenges", json={"opponent": lin["id"]})
    assert r.status_code == 401


def test_an_ai_level_accepts_a_challenge_at_once(client, clock):
    lin = register(client, "Lin")
    grant(client, lin, 10)  # 8K: no AI level within one rank (both baselines are 18K)
    r = challenge(client, lin, {"id": "ai-random"}, **SMALL)
    assert r.status_code == 201 and r.json()["status"] == "accepted"
    s = client.get(f"/v1/sessions/{r.json()['session']}").json()
    assert s["ladder"]["kind"] == "friendly" and "ai-random" in s["ladder"]["players"].values()
    wu = register(client, "Wu")  # 18K: a rated game against the 18K AI level
    r = challenge(client, wu, {"id": "ai-random"}, **SMALL)
    s = client.get(f"/v1/sessions/{r.json()['session']}").json()
    assert s["ladder"]["kind"] == "rated"
    r = challenge(client, wu, {"id": "ai-mcts32"}, **SMALL)  # a second rated game: no
    assert r.status_code == 409 and "rated game" in r.json()["message"]


# ---------------------------------------------------------------------------- AI levels
def test_a_lone_player_gets_an_ai_level_of_their_rank(client, clock):
    lin = register(client, "Lin")
    assert queue(client, lin, **SMALL).json()["status"] == "waiting"
    clock.advance(10)
    client.app.state.ladder.matcher.fill_with_ai()
    assert queue_state(client, lin)["status"] == "waiting"  # not yet: a person may come
    clock.advance(25)
    st = wait_for(lambda: (q := queue_state(client, lin))["status"] == "playing" and q)
    ai = client.get(f"/v1/players/{st['game']['opponent']}").json()
    assert ai["kind"] == "ai" and ai["rank"] == "18K" and ai["level"]["key"] == "baseline"
    s = client.get(f"/v1/sessions/{st['game']['session']}").json()
    ai_colour = "white" if st["game"]["colour"] == "black" else "black"
    assert s["seats"][ai_colour] == {"type": "ai", "level": ai["level"]["id"],
                                     "player": ai["id"]}
    assert ai["playing"][0]["session"] == s["id"]
    if ai_colour == "black":  # the AI opens
        wait_for(lambda: client.get(f"/v1/sessions/{s['id']}").json()["moves"])


def test_ai_levels_start_at_their_measured_points(tmp_path):
    folder = tmp_path / "checkpoints" / "stereo_go"
    folder.mkdir(parents=True)
    (folder / "ladder.json").write_text(json.dumps(
        {"players": {"ai-mcts32": {"points": 9_400, "rank": "9K"}}}))
    with client_for(tmp_path, ladder_match_seconds=0.05) as c:
        ai = c.get("/v1/players/ai-mcts32").json()
        assert (ai["points"], ai["rank"], ai["kind"]) == (9_400, "9K", "ai")
        assert c.get("/v1/players/ai-random").json()["points"] == 0  # not measured: 18K


def test_no_ai_level_within_one_rank_means_waiting_on(client, clock):
    lin = register(client, "Lin")
    grant(client, lin, 100)  # 2D: the baseline AI levels are 18K
    assert queue(client, lin, **SMALL).json()["status"] == "waiting"
    clock.advance(3600)
    client.app.state.ladder.matcher.fill_with_ai()
    assert queue_state(client, lin)["status"] == "waiting"


# ---------------------------------------------------------------------------- concurrency
def _twenty_at_once(client, tag: str = "", **options) -> None:
    """20 players queue at the same instant: ten games, nobody in two."""
    options = options or SMALL
    players = [register(client, f"P{tag}{i:02d}") for i in range(20)]
    barrier = threading.Barrier(len(players))
    codes: list[int] = []

    def join(p):
        barrier.wait()
        codes.append(queue(client, p, **options).status_code)

    threads = [threading.Thread(target=join, args=(p,)) for p in players]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert codes == [201] * 20
    states = wait_for(lambda: (x := [queue_state(client, p) for p in players])
                      and all(q["status"] == "playing" for q in x) and x, timeout=30)
    sessions = Counter(q["game"]["session"] for q in states)
    assert len(sessions) == 10 and set(sessions.values()) == {2}  # ten games of two
    for p in players:
        assert len(profile(client, p)["playing"]) == 1  # nobody is in two games
    opponents = {q["game"]["opponent"] for q in states}
    assert opponents == {p["id"] for p in players}


def _two_resignations(client, fake_clock, tag: str = "", **options) -> None:
    """Both players resign at once, at the same version: one wins, the game is rated once."""
    lin, wu = register(client, f"Lin{tag}"), register(client, f"Wu{tag}")
    s = pair(client, lin, wu, **(options or SMALL))
    s = play_moves(client, s, 10)
    fake_clock.advance(120)
    codes = []

    def resign(colour):
        codes.append(act(client, s, "resign", colour).status_code)

    with overlapping_commits(client, 2):  # both read the session before either writes
        threads = [threading.Thread(target=resign, args=(c,)) for c in ("black", "white")]
        [t.start() for t in threads]
        [t.join() for t in threads]
    assert sorted(codes) == [200, 409]
    both = [profile(client, p) for p in (lin, wu)]
    assert sorted((p["wins"], p["losses"]) for p in both) == [(0, 1), (1, 0)]
    assert [p["games_total"] for p in both] == [1, 1]


def _many_games_against_one_ai(client, fake_clock, tag: str = "") -> None:
    """Six players get the same AI level and all resign at once: six rated results on one
    row, none lost."""
    store = client.app.state.ladder.store
    with store.transaction() as s:  # a database that outlives tests: the AI levels at 0 again
        s.execute(update(PlayerRow).where(PlayerRow.kind == "ai")
                  .values(points=0, rated_games=0, rated_wins=0, rated_losses=0))
    players = [register(client, f"H{tag}{i}") for i in range(6)]
    base = 100 + secrets.randbelow(80_000)
    for i, p in enumerate(players):  # options of their own: they cannot pair with each other
        r = queue(client, p, board="5x5", clock={"main_time": base + i})
        assert r.json()["status"] == "waiting"
    fake_clock.advance(31)
    client.app.state.ladder.matcher.fill_with_ai()
    games = [queue_state(client, p)["game"] for p in players]
    assert len({g["opponent"] for g in games}) == 1  # the same (nearest) AI level for all
    ai_id = games[0]["opponent"]
    sessions = []
    for p, g in zip(players, games):
        s = client.get(f"/v1/sessions/{g['session']}").json()
        s["tokens"] = {g["colour"]: p["token"]}
        for i in range(6):  # six moves each: at least ten in all
            s = wait_for(lambda sid=s["id"], col=g["colour"]: (x := client.get(
                f"/v1/sessions/{sid}").json())["position"]["to_play"] == col and x)
            s = {**play_moves(client, {**s, "tokens": {g["colour"]: p["token"]}}, 1, seed=i),
                 "tokens": {g["colour"]: p["token"]}}
        sessions.append((s, g["colour"]))
    assert client.app.state.sessions.wait_idle(30)
    fake_clock.advance(120)
    codes = []

    def resign(s, colour):
        fresh = client.get(f"/v1/sessions/{s['id']}").json()
        codes.append(act(client, {**fresh, "tokens": s["tokens"]}, "resign", colour).status_code)

    # All six have read their sessions before any commits: the ratings meet on the AI's row
    # (taken in turn: test_rating_transactions_take_a_players_row_in_turn).
    with overlapping_commits(client, len(sessions)):
        threads = [threading.Thread(target=resign, args=sc) for sc in sessions]
        [t.start() for t in threads]
        [t.join() for t in threads]
    assert codes == [200] * len(sessions)
    ai = client.get(f"/v1/players/{ai_id}").json()
    assert (ai["wins"], ai["points"], ai["rank"]) == (6, 1200, "17K")


def test_an_ai_level_rated_in_many_games_at_once(client, clock):
    _many_games_against_one_ai(client, clock)


def test_twenty_players_queueing_at_once_are_paired_once_each(client):
    _twenty_at_once(client)


def test_two_end_of_game_writes_rate_once(client, clock):
    _two_resignations(client, clock)


def test_the_rating_hook_rates_a_ladder_game_once_by_itself(client, clock):
    """The hook's own guard, with the session's compare-and-set out of the way: a second
    end-of-game write that reaches the hook (its copy of the session not yet showing the
    outcome) finds the ladder game no longer ``playing`` and rates nothing. Through the API the
    session's version check refuses that write before the hook runs, so only a direct call
    shows that the hook alone rates once."""
    lin, wu = register(client, "Lin"), register(client, "Wu")
    s = play_moves(client, pair(client, lin, wu, **SMALL), 10)
    clock.advance(120)
    assert act(client, s, "resign", "black").status_code == 200
    store = client.app.state.sessions.store
    before = [profile(client, p) for p in (lin, wu)]
    assert sorted((p["wins"], p["losses"]) for p in before) == [(0, 1), (1, 0)]
    data = store.load(s["id"])
    assert data.status == "over" and data.extras["ladder"]["outcome"]["kind"] == "rated"
    del data.extras["ladder"]["outcome"]  # the other write's view: over, not yet rated
    with store.transaction() as tx:
        assert rate_finished(tx, data) is False
    assert "outcome" not in data.extras["ladder"]
    assert [profile(client, p) for p in (lin, wu)] == before


def test_on_postgresql(tmp_path, clock, postgres_url):
    settings = settings_for(tmp_path, database_url=postgres_url, ladder_match_seconds=0.05,
                            timer_poll_seconds=3600, ladder_admin_token=ADMIN)
    tag = secrets.token_hex(3)  # the database outlives the test: names and options of its own
    options = {"board": "5x5", "clock": {"main_time": 100 + secrets.randbelow(80_000)}}
    with client_for(tmp_path, clock=clock, settings=settings) as c:
        assert c.get("/v1/health").json()["database"] == "postgresql"
        _twenty_at_once(c, tag, **options)
        _two_resignations(c, clock, tag, **options)
        _many_games_against_one_ai(c, clock, tag)


def test_rating_transactions_take_a_players_row_in_turn(postgres_url):
    """Games against one AI level end in transactions that all change its row: the rating
    hook's ``lock_players`` holds the row until its transaction ends, so the next one waits and
    then reads the points written before it (no lost result). Forced on PostgreSQL: the second
    transaction starts while the first holds the row, and the first commits only once the
    second is seen waiting for that lock, or has already read the row (the lost update)."""
    from sqlalchemy import text

    from serving import schema
    from serving.db import SessionStore
    from serving.ladder.names import name_key
    from serving.ladder.store import lock_players

    with postgres_schema(postgres_url) as url:
        store = SessionStore(url)
        try:
            schema.upgrade(store.engine)
            with store.transaction() as tx:
                tx.add(PlayerRow(id="ai-1", name="AI 1", name_key=name_key("AI 1"), kind="ai",
                                 points=1000, created=0.0))
            second: dict[str, int] = {}

            def rate_another_game() -> None:
                with store.transaction() as tx:
                    second["pid"] = tx.execute(text("select pg_backend_pid()")).scalar_one()
                    second["points"] = lock_players(tx, ["ai-1"])["ai-1"].points

            def waiting_for_a_lock(pid: int) -> bool:
                with store.engine.connect() as conn:
                    return conn.execute(text(
                        "select wait_event_type = 'Lock' from pg_stat_activity where pid = :p"
                    ), {"p": pid}).scalar() is True

            with store.transaction() as tx:
                lock_players(tx, ["ai-1"])["ai-1"].points += 200
                tx.flush()
                thread = threading.Thread(target=rate_another_game)
                thread.start()
                wait_for(lambda: "points" in second
                         or ("pid" in second and waiting_for_a_lock(second["pid"])), timeout=60)
                assert "points" not in second, "read while another transaction held the row"
            thread.join(60)
            assert second["points"] == 1200
        finally:
            store.close()


def test_resignation_against_a_time_out_rates_once(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    s = pair(client, lin, wu, board="5x5", clock={"main_time": 90, "periods": 0})
    s = play_moves(client, s, 10)
    clock.advance(91)  # the side to move is out of time; the poller and a resignation race
    manager = client.app.state.sessions
    results = []

    def poll():
        manager.refresh(s["id"])
        results.append("refresh")

    def resign():
        results.append(act(client, s, "resign", s["position"]["to_play"]).status_code)

    # both load the session (the time-out due) before either commits
    with overlapping_commits(client, 2):
        threads = [threading.Thread(target=poll), threading.Thread(target=resign)]
        [t.start() for t in threads]
        [t.join() for t in threads]
    final = client.get(f"/v1/sessions/{s['id']}").json()
    assert final["status"] == "over" and final["result"]["reason"] in ("time", "resignation")
    both = [profile(client, p) for p in (lin, wu)]
    assert sorted(p["wins"] + p["losses"] for p in both) == [1, 1]
    assert sum(p["wins"] for p in both) == 1


# ---------------------------------------------------------------------------- live events
# GET /v1/players/{id}/events: a snapshot of the profile, match_found with the pairing,
# rank_change with a rated result or a grant, game_over for friendly and void games; each
# published in the transaction of the change, so two end-of-game writes tell it once.
def kinds(messages):
    return [m["kind"] for m in messages]


def test_match_found_then_rank_change(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    grant(client, lin, 5)
    grant(client, wu, 5)
    s = pair(client, lin, wu, **NINE)
    s = play_moves(client, s, 10)
    clock.advance(61)
    loser = s["position"]["to_play"]
    assert act(client, s, "resign", loser).status_code == 200
    for p in (lin, wu):
        got = stream(client, p, 3)
        assert kinds(got) == ["rank_change", "match_found", "rank_change"]
        assert [m["id"] for m in got] == [1, 2, 3]
        grant_ev, found, rated = (m["data"] for m in got)
        assert grant_ev["kind"] == "grant" and grant_ev["points"]["after"] == 5000
        colour = found["colour"]
        assert found["session"] == s["id"] and s["seats"][colour]["player"] == p["id"]
        assert found["opponent"]["id"] == ({lin["id"], wu["id"]} - {p["id"]}).pop()
        assert found["kind"] == "rated" and found["opponent"]["rank"] == "13K"
        won = colour != loser
        assert rated["result"] == ("win" if won else "loss")
        assert rated["points"] == ({"before": 5000, "after": 5200, "change": 200} if won else
                                   {"before": 5000, "after": 4800, "change": -200})
        assert rated["demoted"] == (not won) and rated["ranks"]["after"] == (
            "13K" if won else "14K")


def test_the_stream_starts_with_the_profile(client):
    lin = register(client, "Lin")
    grant(client, lin, 18)
    first, = stream(client, lin, 1, after=None)
    assert first["kind"] == "snapshot" and first["id"] == 1
    assert first["data"]["rank"] == "1D" and first["data"]["id"] == lin["id"]
    assert client.get("/v1/players/nope/events").status_code == 404
    assert client.get(f"/v1/players/{lin['id']}/events?last_event_id=9").status_code == 422


def test_void_and_friendly_games_are_game_over(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    s = pair(client, lin, wu, **NINE)
    s = play_moves(client, s, 3)
    act(client, s, "resign", "black")
    got = stream(client, lin, 2)
    assert kinds(got) == ["match_found", "game_over"]
    assert got[1]["data"]["kind"] == "void" and "invalid" in got[1]["data"]["why"]
    dan = register(client, "Dan")
    grant(client, dan, 18)  # 1D against 18K: a friendly game by challenge
    r = answer(client, lin, challenge(client, dan, lin, **NINE).json()["id"])
    s = with_tokens(client.get(f"/v1/sessions/{r.json()['session']}").json(), lin, dan)
    s = play_moves(client, s, 10)
    clock.advance(61)
    act(client, s, "resign", "white")
    found, over = stream(client, lin, 2, after=2)
    assert found["kind"] == "match_found" and found["data"]["kind"] == "friendly"
    assert over["kind"] == "game_over" and over["data"]["result"] == "friendly"


def test_two_end_of_game_writes_tell_it_once(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    s = pair(client, lin, wu, board="5x5")
    s = play_moves(client, s, 10)
    clock.advance(120)

    def resign(colour):
        act(client, s, "resign", colour)

    with overlapping_commits(client, 2):  # both read the session before either writes
        threads = [threading.Thread(target=resign, args=(c,)) for c in ("black", "white")]
        [t.start() for t in threads]
        [t.join() for t in threads]
    log = client.app.state.events
    for p in (lin, wu):
        head, events = log.since(f"player:{p['id']}", 0)
        assert [e.kind for e in events] == ["match_found", "rank_change"]
