"""The ladder in the web client (serving/static/js/ladder, docs/web_client.md), in Chromium.

The real service runs in a thread on a fake clock (as in tests/test_ladder_api.py), so a game
can pass the ladder's first minute at once: a player registers on the page, joins the 9×9
queue, a second player (through the API) joins too, the page follows its event stream to the
game screen with its colour, plays a move by a click, offers a draw (declined), and the other
side resigns after ten moves and a minute: the rated outcome, the profile's game table and the
leaderboard show it. Another browser signs in with the id and token and sees a friendly game
shown as "friendly"; the leaderboard pages.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from serving_helpers import FakeClock, auth, serve_in_thread, settings_for
from test_web_client import browser  # noqa: F401  (the Chromium fixture)

from serving.app import create_app

ADMIN = "admin-token-for-web-tests"
CLOCK = {"main_time": 600, "periods": 3, "period_seconds": 30}  # the page's defaults


@pytest.fixture(scope="module")
def ladder_server(tmp_path_factory) -> Iterator[tuple[str, FakeClock]]:
    """The service with the ladder on a fake clock: the matcher every 50 ms, no AI levels."""

    tmp = tmp_path_factory.mktemp("web-ladder")
    clock = FakeClock()
    settings = settings_for(tmp, ladder_admin_token=ADMIN, ladder_match_seconds=0.05,
                            ladder_ai_wait_seconds=3600, ladder_ai_players=False,
                            timer_poll_seconds=3600, event_keepalive_seconds=0.2,
                            event_poll_seconds=0.05)
    app = create_app(settings, clock=clock)
    with serve_in_thread(app, "web-ladder-server") as url:
        yield url, clock


def _new_page(browser, server: str, errors: list[str], foreign: list[str]):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    pg = context.new_page()
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("request", lambda req: None if req.url.startswith(server) else foreign.append(req.url))
    return pg


@pytest.fixture
def pages(browser, ladder_server) -> Iterator[Any]:  # noqa: F811
    """Makes fresh pages (each its own browser context and localStorage) that fail the test on
    a script error or a request to anywhere but the server."""
    server, _ = ladder_server
    errors: list[str] = []
    foreign: list[str] = []
    made: list[Any] = []

    def make():
        pg = _new_page(browser, server, errors, foreign)
        made.append(pg)
        return pg

    yield make
    for pg in made:
        pg.context.close()
    assert not errors, errors
    assert not foreign, foreign


def _register(server: str, name: str) -> dict[str, Any]:
    r = httpx.post(f"{server}/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    return {**r.json()["player"], "token": r.json()["token"]}


def _view(server: str, sid: str) -> dict[str, Any]:
    return httpx.get(f"{server}/v1/sessions/{sid}").json()


def _play(server: str, sid: str, tokens: dict[str, str], n: int, seed: int = 0) -> dict[str, Any]:
    """``n`` random legal moves (no passes), each with its side's player token."""
    rng = random.Random(seed)
    view = _view(server, sid)
    for _ in range(n):
        seat = view["position"]["to_play"]
        mv = rng.choice([m for m in view["position"]["legal_moves"] if m != "pass"])
        r = httpx.post(f"{server}/v1/sessions/{sid}/moves", headers=auth(tokens[seat]),
                       json={"move": mv, "version": view["version"]})
        assert r.status_code == 200, r.text
        view = r.json()
    return view


def _act(server: str, sid: str, what: str, token: str) -> httpx.Response:
    version = _view(server, sid)["version"]
    return httpx.post(f"{server}/v1/sessions/{sid}/{what}", headers=auth(token),
                      json={"version": version})


def _open_ladder(page, server: str) -> None:
    page.goto(server + "/")
    page.click("#ladder-link")
    page.wait_for_selector("#ladder-screen:not([hidden]) #ladder-account")


def _register_on_page(page, server: str, name: str) -> dict[str, Any]:
    """Register ``name`` on the ladder screen; the account the page keeps."""
    _open_ladder(page, server)
    page.fill("#ladder-reg-name", name)
    page.click("#ladder-register-button")
    page.wait_for_selector("#ladder-token")
    return page.evaluate("JSON.parse(localStorage.getItem('qizero.ladder.account'))")


def test_register_queue_play_and_see_the_result(pages, ladder_server):
    server, clock = ladder_server
    page = pages()
    alice = _register_on_page(page, server, "Alice")
    token = page.inner_text("#ladder-token")  # shown once, with the note to keep it
    assert "keep it" in page.inner_text("#ladder-token-note")
    assert alice["token"] == token and alice["name"] == "Alice"
    page.click("#ladder-token-kept")  # shown once: gone once kept
    page.wait_for_selector("#ladder-token", state="detached")

    asked: list[str] = []  # the page's queue reads and player-stream opens from now on
    page.on("request", lambda req: asked.append(urlsplit(req.url).path) if req.method == "GET"
            and urlsplit(req.url).path in ("/v1/ladder/queue", f"/v1/players/{alice['id']}/events")
            else None)
    page.select_option("#ladder-board", "9x9")
    page.click("#ladder-join")
    page.wait_for_selector('#ladder-queue-state[data-status="waiting"]')
    page.wait_for_timeout(1500)  # waiting: the page follows the stream, it does not poll
    state = httpx.get(f"{server}/v1/ladder/queue", headers=auth(token)).json()
    assert state["status"] == "waiting" and state["entry"]["options"]["board"] == "9x9"

    bob = _register(server, "Bob")  # the other player, through the API
    r = httpx.post(f"{server}/v1/ladder/queue", headers=auth(bob["token"]),
                   json={"board": "9x9", "clock": CLOCK})
    assert r.status_code == 201 and r.json()["status"] == "playing", r.text
    game = r.json()["game"]
    sid = game["session"]
    mine = "white" if game["colour"] == "black" else "black"

    # match_found on the player's event stream opens the game screen, acting as the player
    page.wait_for_selector("#game-screen:not([hidden]) #ladder-colour")
    assert page.inner_text("#ladder-colour") == f"You play {mine}"
    assert page.inner_text("#ladder-opponent") == "against Bob (18K, 0 points)"
    assert page.inner_text("#new-game") == "Back to the ladder"
    assert f"session={sid}&ladder=1" in page.url and token not in page.url
    assert page.locator(".board-svg [data-point]").count() == 81
    assert asked == ["/v1/ladder/queue"], asked  # the lobby's one read after joining
    assert page.locator("select.seat-type:not([disabled])").count() == 0
    tokens = {mine: alice["token"], game["colour"]: bob["token"]}
    if mine == "white":
        _play(server, sid, tokens, 1, seed=1)
    page.wait_for_selector("#draw-offer")  # the player's turn
    empty = next(p for p in ("E5", "D4", "F6") if p not in _view(server, sid)["moves"])
    page.click(f'[data-point="{empty}"]')
    page.wait_for_function(
        f"document.querySelectorAll('#moves li').length === {1 + (mine == 'white')}")
    assert _view(server, sid)["moves"][-1] == empty
    assert page.locator("#draw-offer").count() == 0  # not the player's turn any more

    view = _play(server, sid, tokens, 9, seed=2)  # ten moves or more in all
    assert len(view["moves"]) >= 10 and view["position"]["to_play"] == mine
    page.click("#draw-offer")
    page.wait_for_selector("#draw-state")
    assert _view(server, sid)["draw_offer"]["status"] == "open"
    assert _act(server, sid, "draw/decline", bob["token"]).status_code == 200
    page.wait_for_selector("#draw-state:has-text('declined')")

    clock.advance(61)  # past the ladder's first minute: the game is rated
    assert httpx.post(f"{server}/v1/sessions/{sid}/resign", headers=auth(bob["token"]),
                      json={"version": _view(server, sid)["version"]}).status_code == 200
    page.wait_for_selector("#status:has-text('Game over')")
    page.wait_for_selector("#ladder-outcome")
    assert "rated" in page.inner_text("#ladder-outcome")
    assert "points 0 → 200" in page.inner_text("#ladder-outcome")

    page.click("#new-game")  # back to the ladder
    page.wait_for_selector("#ladder-screen:not([hidden]) #ladder-queue-state[data-status='idle']")
    page.click('[data-tab="profile"]')
    page.wait_for_selector("#ladder-profile")
    assert page.inner_text("#ladder-record").startswith("1 W / 0 L / 0 D")
    assert "200 points" in page.inner_text("#ladder-rank")
    rows = page.locator("#ladder-games tbody tr")
    assert rows.count() == 1
    assert rows.first.locator(".result").inner_text() == "win"
    assert "Bob" in rows.first.inner_text()
    page.click('[data-tab="leaderboard"]')
    page.wait_for_selector(f'#ladder-leaderboard tr.me[data-player="{alice["id"]}"]')
    assert page.locator("#ladder-leaderboard tbody tr").first.get_attribute(
        "data-player") == alice["id"]


def test_sign_in_elsewhere_friendly_games_and_leaderboard_pages(pages, ladder_server):
    server, clock = ladder_server
    carol, dave = _register(server, "Carol"), _register(server, "Dave")
    r = httpx.post(f"{server}/v1/players/{dave['id']}/grant", json={"yuan": 10},
                   headers=auth(ADMIN))  # 10,000 points: 8K against Carol's 18K
    assert r.status_code == 200, r.text
    r = httpx.post(f"{server}/v1/ladder/challenges", headers=auth(carol["token"]),
                   json={"opponent": dave["id"], "board": "9x9"})
    assert r.status_code == 201, r.text
    r = httpx.post(f"{server}/v1/ladder/challenges/{r.json()['id']}/accept",
                   headers=auth(dave["token"]))
    assert r.status_code == 200, r.text
    sid = r.json()["session"]
    view = _view(server, sid)
    assert view["ladder"]["kind"] == "friendly"
    tokens = {c: carol["token"] if view["seats"][c]["player"] == carol["id"] else dave["token"]
              for c in ("black", "white")}
    _play(server, sid, tokens, 10, seed=3)
    clock.advance(61)
    assert _act(server, sid, "resign", dave["token"]).status_code == 200
    for i in range(12):  # enough players for a second leaderboard page
        _register(server, f"Filler {i}")

    page = pages()  # "another browser": sign in with the id and the token
    _open_ladder(page, server)
    page.fill("#ladder-signin-id", carol["id"])
    page.fill("#ladder-signin-token", "wrong")
    page.click("#ladder-signin-button")
    page.wait_for_selector("#error:not([hidden])")
    assert "does not know that token" in page.inner_text("#error-text")
    assert page.locator("#ladder-name").count() == 0
    page.fill("#ladder-signin-token", carol["token"])
    page.click("#ladder-signin-button")
    page.wait_for_selector("#ladder-name")
    assert page.inner_text("#ladder-name") == "Carol"
    assert page.locator("#ladder-token").count() == 0  # the token is only shown at registration
    page.click('[data-tab="profile"]')
    page.wait_for_selector("#ladder-games")
    row = page.locator("#ladder-games tbody tr")
    assert row.count() == 1 and row.first.get_attribute("data-kind") == "friendly"
    assert row.first.locator(".result").inner_text() == "friendly"
    assert page.inner_text("#ladder-record").startswith("0 W / 0 L / 0 D · 1 friendly")

    page.click('[data-tab="leaderboard"]')
    page.wait_for_selector("#ladder-leaderboard")
    total = httpx.get(f"{server}/v1/ladder/leaderboard").json()["total"]
    assert total > 10
    assert page.inner_text("#ladder-page") == f"1–10 of {total}"
    assert page.locator("#ladder-leaderboard tbody tr").count() == 10
    page.click("#ladder-next")
    page.wait_for_selector(f"#ladder-page:has-text('11–{min(20, total)} of {total}')")
    page.click("#ladder-prev")
    page.wait_for_selector("#ladder-page:has-text('1–10 of')")
    page.reload()  # the account stays in this browser
    page.click("#ladder-link")
    page.wait_for_selector("#ladder-name")


def test_queue_options_leave_resume_and_accept_a_draw(pages, ladder_server):
    server, clock = ladder_server
    page = pages()
    erin = _register_on_page(page, server, "Erin")
    page.select_option("#ladder-board", "9x9")
    page.click("#ladder-join")
    page.wait_for_selector('#ladder-queue-state[data-status="waiting"]')
    page.click("#ladder-leave")
    page.wait_for_selector('#ladder-queue-state[data-status="idle"]')
    assert httpx.get(f"{server}/v1/ladder/queue",
                     headers=auth(erin["token"])).json()["status"] == "idle"

    frank = _register(server, "Frank")  # waits first: the page's join pairs at once
    options = {"board": "9x9", "rules": "area", "handicap": True,
               "clock": {"main_time": 300, "periods": 2, "period_seconds": 20}}
    r = httpx.post(f"{server}/v1/ladder/queue", headers=auth(frank["token"]), json=options)
    assert r.json()["status"] == "waiting", r.text
    page.select_option("#ladder-board", "9x9")
    page.select_option("#ladder-rules", "area")
    page.fill("#ladder-main", "300")
    page.fill("#ladder-periods", "2")
    page.fill("#ladder-period", "20")
    page.check("#ladder-handicap")
    page.click("#ladder-join")
    page.wait_for_selector("#game-screen:not([hidden]) #ladder-colour")
    state = httpx.get(f"{server}/v1/ladder/queue", headers=auth(frank["token"])).json()
    sid = state["game"]["session"]
    assert state["game"]["options"]["rules"] == "area"
    assert _view(server, sid)["config"]["board"] == "9x9"
    page.reload()  # the ladder game comes back, acted in with the account's token
    page.wait_for_selector("#game-screen:not([hidden]) #ladder-colour")
    view = _view(server, sid)
    mine = next(c for c in ("black", "white") if view["seats"][c]["player"] == erin["id"])
    theirs = "white" if mine == "black" else "black"
    tokens = {mine: erin["token"], theirs: frank["token"]}
    view = _play(server, sid, tokens, 15 if mine == "black" else 16, seed=4)  # Frank to move
    assert view["position"]["to_play"] == theirs and len(view["moves"]) >= 15
    page.wait_for_selector("#ladder-resign")  # off turn the ladder panel offers resignation
    assert _act(server, sid, "draw/offer", frank["token"]).status_code == 200
    page.wait_for_selector("#draw-accept")
    assert "offers a draw" in page.inner_text("#draw-state")
    clock.advance(61)
    page.click("#draw-accept")
    page.wait_for_selector("#status:has-text('Game over')")
    result = _view(server, sid)["result"]
    assert result["reason"] == "agreement" and result["winner"] is None
    page.wait_for_selector("#ladder-outcome")
    page.click("#new-game")
    page.click('[data-tab="profile"]')
    page.wait_for_selector("#ladder-games")
    assert page.inner_text("#ladder-record").startswith("0 W / 0 L / 1 D")
    assert page.locator("#ladder-games tbody tr .result").first.inner_text() == "draw"
