"""Every screen of the web client at a laptop's size (1366×800) and a phone's (390×844), in
Chromium: nothing wider than the screen (no sideways scrolling, no visible element past the
right edge) on the start screen of each game, a game screen of each game, the rules dialog and
the ladder (lobby, leaderboard, profile, a ladder game); TriGolden's control panels above and
below its board on the phone (docs/sources/trigolden-rules-and-ui.txt); the leaderboard keeps
the player's own row in sight when they are not on its page; the ladder's screens switch
language in place, AI players' names included; no console errors anywhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from serving_helpers import auth, serve_in_thread, settings_for, write_levels
from test_web_client import browser  # noqa: F401  (the Chromium fixture)

from serving.app import create_app

ADMIN = "admin-token-for-phone-tests"
WIDE, PHONE = (1366, 800), (390, 844)
SIZES = pytest.mark.parametrize("size", [WIDE, PHONE], ids=["wide", "phone"])
GAMES = ["jiugong", "fangqi", "trigolden", "stereo_go"]
AHEAD, AI_PLAYERS, LATER = 10, 4, 6  # players above and below "Me" on the leaderboard
MY_PLACE = AHEAD + AI_PLAYERS + 1  # 15: the second page of 10, with pages after it

# What sticks out past the right edge of the window, as the user sees it: an element's right
# edge clipped by every ancestor that clips (overflow other than visible), for the elements
# that are drawn (a size, not hidden); the document's own scroll width; and any box that
# scrolls sideways inside the page (content cut off at its right edge).
OVERFLOW_JS = """() => {
  const width = window.innerWidth;
  const found = [];
  const scroll = document.scrollingElement.scrollWidth;
  if (scroll > width) found.push(`document scrollWidth ${scroll} > ${width}`);
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ')[0] : '');
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (getComputedStyle(el).visibility === 'hidden') continue;
    let right = box.right;
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== 'visible') {
        right = Math.min(right, up.getBoundingClientRect().right);
      }
    }
    if (right > width + 0.5) found.push(`${name(el)} right edge at ${Math.round(right)}`);
    // a box of its own that scrolls sideways hides the rest just the same (a cut-off table)
    const own = getComputedStyle(el).overflowX;
    if ((own === 'auto' || own === 'scroll') && el.scrollWidth > el.clientWidth + 1) {
      found.push(`${name(el)} scrolls sideways: ${el.scrollWidth} > ${el.clientWidth}`);
    }
  }
  return found.slice(0, 12);
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """The service with the ladder (AI players: the baselines and a 9×9 area table of fast
    levels, so names such as "AI master · 9×9, area" exist), fast TriGolden levels, people
    on the leaderboard (more than a page), and a ladder game between two of them."""
    tmp = tmp_path_factory.mktemp("web-phone")
    root = tmp / "checkpoints"
    write_levels(root, "trigolden", [{"id": "random", "label": "Random", "player": "random"}],
                 default="random")
    write_levels(root / "stereo_go", "board-9x9+rules-area", [
        {"id": "1", "label": "beginner", "player": "random"},
        {"id": "5", "label": "master", "player": "mcts:2"},
    ], game_options={"board": "9x9", "rules": "area"})
    settings = settings_for(tmp, checkpoints_root=root, ladder_admin_token=ADMIN,
                            ladder_match_seconds=0.05, ladder_ai_wait_seconds=3600,
                            event_keepalive_seconds=0.2, event_poll_seconds=0.05)
    with serve_in_thread(create_app(settings), "web-phone-server") as url:
        httpx.get(f"{url}/v1/games", timeout=60).raise_for_status()  # the catalogue built
        yield url


def _register(server: str, name: str) -> dict[str, Any]:
    r = httpx.post(f"{server}/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    return {**r.json()["player"], "token": r.json()["token"]}


@pytest.fixture(scope="module")
def ladder(server) -> dict[str, Any]:
    """``me``: a player on the leaderboard's second page (``MY_PLACE``: the players with
    granted points, then the AI levels, registered first, are ahead at equal points), in a
    rated 9×9 game with ``rival``; ``LATER`` players after them fill a third page."""
    for i in range(AHEAD):
        p = _register(server, f"Player {i:02d}")
        r = httpx.post(f"{server}/v1/players/{p['id']}/grant", headers=auth(ADMIN),
                       json={"yuan": 1 + i, "note": "phone test"})
        assert r.status_code == 200, r.text
    me, rival = _register(server, "Me"), _register(server, "Rival")
    for i in range(LATER):
        _register(server, f"Later {i}")
    for p in (me, rival):
        r = httpx.post(f"{server}/v1/ladder/queue", headers=auth(p["token"]),
                       json={"board": "9x9", "rules": "area"})
        assert r.status_code == 201, r.text
    state = httpx.get(f"{server}/v1/ladder/queue", headers=auth(me["token"])).json()
    for _ in range(100):
        if state["status"] == "playing":
            break
        httpx.get(f"{server}/v1/health")  # the matcher pairs them within 50 ms
        state = httpx.get(f"{server}/v1/ladder/queue", headers=auth(me["token"])).json()
    assert state["status"] == "playing", state
    return {"me": me, "rival": rival, "session": state["game"]["session"]}


@pytest.fixture
def make_page(browser, server) -> Iterator[Any]:  # noqa: F811
    """Makes pages at a size (own context and localStorage, English unless asked) that fail
    the test on a script error, a console error or a request to anywhere but the server."""
    errors: list[str] = []
    contexts: list[Any] = []

    def make(size: tuple[int, int], account: dict[str, Any] | None = None, lang: str = "en"):
        context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        context.set_default_timeout(15_000)
        contexts.append(context)
        script = f"localStorage.setItem('qizero.lang', '{lang}');"
        if account:
            kept = {"id": account["id"], "token": account["token"], "name": account["name"]}
            script += f"localStorage.setItem('qizero.ladder.account', '{_js(kept)}');"
        context.add_init_script(script)
        pg = context.new_page()
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.on("request", lambda req: None if req.url.startswith(server)
              else errors.append(f"request to {req.url}"))
        return pg

    yield make
    for context in contexts:
        context.close()
    assert not errors, errors


def _js(value: dict[str, Any]) -> str:
    """``value`` as JSON inside a single-quoted JavaScript string."""
    return json.dumps(value).replace("'", "\\'")


def _fits(page, where: str) -> None:
    page.wait_for_timeout(150)  # layout after the last redraw
    found = page.evaluate(OVERFLOW_JS)
    assert found == [], (where, found)


# ---------------------------------------------------------------------------- the screens
@pytest.mark.parametrize(("size", "lang"), [(WIDE, "en"), (PHONE, "en"), (PHONE, "zh")],
                         ids=["wide", "phone", "phone-zh"])
def test_start_screen_of_every_game_and_the_rules_fit(make_page, server, size, lang):
    page = make_page(size, lang=lang)
    page.on("console", lambda m: print("DBG console", m.type, m.text))
    page.on("requestfinished", lambda r: print("DBG req", r.url, r.response().status))
    page.on("requestfailed", lambda r: print("DBG failed", r.url, r.failure))
    page.goto(server + "/")
    for game in GAMES:
        page.click(f'[data-game="{game}"]')
        page.wait_for_selector(f'[data-game="{game}"].chosen')
        page.wait_for_selector("fieldset.seats select")
        _fits(page, f"start screen, {game}")
    page.click("#start-rules")
    page.wait_for_selector("#rules-dialog[open]")
    _fits(page, "rules dialog")


@SIZES
@pytest.mark.parametrize("game", GAMES)
def test_game_screen_fits(make_page, server, size, game):
    r = httpx.post(f"{server}/v1/sessions", json={"game": game})
    r.raise_for_status()
    sid, token = r.json()["session"]["id"], r.json()["owner_token"]
    page = make_page(size)
    page.goto(f"{server}/#session={sid}&token={token}")
    page.wait_for_selector("#game-screen:not([hidden]) #status")
    _fits(page, f"game screen, {game}")


def test_trigolden_panels_go_above_and_below_the_board_on_a_phone(make_page, server):
    r = httpx.post(f"{server}/v1/sessions", json={"game": "trigolden"})
    sid, token = r.json()["session"]["id"], r.json()["owner_token"]
    page = make_page(PHONE)
    page.goto(f"{server}/#session={sid}&token={token}")
    page.wait_for_selector(".tg-panel")
    first = page.locator('.tg-panel[data-seat="p1"]').bounding_box()
    board = page.locator(".tg-board").bounding_box()
    second = page.locator('.tg-panel[data-seat="p2"]').bounding_box()
    assert first["y"] + first["height"] <= board["y"]
    assert board["y"] + board["height"] <= second["y"]
    for box in (first, board, second):
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE[0]
    # the second panel, its marker and its buttons, is on the first screen (no scrolling)
    assert second["y"] + second["height"] <= PHONE[1], second
    for part in (".tg-marker", ".tg-hand-piece", ".tg-slots button"):
        for box in page.locator(f'.tg-panel[data-seat="p2"] {part}').evaluate_all(
                "els => els.map((e) => e.getBoundingClientRect().toJSON())"):
            assert box["bottom"] <= PHONE[1] and box["right"] <= second["x"] + second["width"]


@SIZES
def test_ladder_screens_fit(make_page, server, ladder, size):
    page = make_page(size, ladder["me"])
    page.goto(server + "/#ladder")
    page.wait_for_selector("#ladder-queue-state[data-status='playing']")
    _fits(page, "ladder lobby")
    page.click("[data-tab='leaderboard']")
    page.wait_for_selector("#ladder-leaderboard")
    _fits(page, "leaderboard")
    page.click("[data-tab='profile']")
    page.wait_for_selector("#ladder-games tbody tr")
    _fits(page, "profile")
    page.click("[data-tab='lobby']")
    page.click("#ladder-open-game")
    page.wait_for_selector("#ladder-panel #ladder-colour")
    _fits(page, "ladder game")


@SIZES
def test_ladder_queue_form_fits(make_page, server, ladder, size):
    """A signed-in player not in the queue: the lobby's form (board, rules, clock, handicap)."""
    idle = _register(server, f"Idle {size[0]}")
    page = make_page(size, idle)
    page.goto(server + "/#ladder")
    page.wait_for_selector("#ladder-queue-form #ladder-join")
    _fits(page, "ladder lobby, the queue form")


def test_ladder_screen_signed_out_fits_a_phone_in_either_language(make_page, server):
    page = make_page(PHONE)
    page.goto(server + "/#ladder")
    page.wait_for_selector("#ladder-register")
    _fits(page, "ladder, signed out")
    page.fill("#ladder-reg-name", "Typed")  # a language switch keeps what was typed
    page.click("#lang-switch [data-lang='zh']")
    page.wait_for_selector("#ladder-register h3:has-text('注册')")
    assert page.input_value("#ladder-reg-name") == "Typed"
    assert page.get_attribute("#ladder-signin-token", "placeholder") == "令牌"
    _fits(page, "ladder, signed out, in Chinese")


# ---------------------------------------------------------------------------- the leaderboard
@SIZES
def test_own_row_is_pinned_when_not_on_the_page(make_page, server, ladder, size):
    """Page 1: the player's row pinned below it, with their place; page 2: in its place;
    page 3: pinned above it. Always inside the screen."""
    me = ladder["me"]["id"]
    everyone = httpx.get(f"{server}/v1/ladder/leaderboard", params={"limit": 100}).json()
    assert [p["position"] for p in everyone["players"] if p["id"] == me] == [MY_PLACE]
    page = make_page(size, ladder["me"])
    page.goto(server + "/#ladder")
    page.click("[data-tab='leaderboard']")
    page.wait_for_selector("#ladder-page:has-text('1–10')")
    rows = page.locator("#ladder-leaderboard tbody tr[data-player]")
    pinned = page.locator("#ladder-you")
    assert pinned.is_visible() and pinned.get_attribute("data-player") == me
    assert pinned.locator("td").first.inner_text() == str(MY_PLACE)
    assert rows.count() == 11 and rows.last.get_attribute("id") == "ladder-you"
    box = pinned.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= size[0]
    if size == PHONE:  # a phone sees it without scrolling sideways; scrolled into view at most
        pinned.scroll_into_view_if_needed()
        assert pinned.is_visible()
    page.click("#ladder-next")
    page.wait_for_selector("#ladder-page:has-text('11–20')")
    assert page.locator("#ladder-you").count() == 0
    assert page.locator(f"tr.me[data-player='{me}']").count() == 1
    assert rows.count() == 10
    page.click("#ladder-next")
    page.wait_for_selector("#ladder-page:has-text('21–')")
    assert rows.first.get_attribute("id") == "ladder-you"
    assert page.locator("#ladder-you td").first.inner_text() == str(MY_PLACE)


# ---------------------------------------------------------------------------- language
def test_ladder_screens_switch_language_in_place(make_page, server, ladder):
    page = make_page(PHONE, ladder["me"])
    page.goto(server + "/#ladder")
    page.wait_for_selector("#ladder-queue-state[data-status='playing']")
    assert page.inner_text("#ladder-screen h2") == "Stereo Go ladder"
    assert page.inner_text("[data-tab='leaderboard']") == "Leaderboard"
    page.click("[data-tab='leaderboard']")
    page.wait_for_selector("#ladder-leaderboard")
    page.wait_for_selector("#ladder-you")
    url = page.url
    page.click("#lang-switch [data-lang='zh']")
    page.wait_for_selector("#ladder-screen h2:has-text('立体围棋天梯')")
    assert page.url == url  # in place: the same screen, the same tab
    assert page.inner_text("[data-tab='leaderboard']") == "排行榜"
    assert page.locator("#ladder-leaderboard th").first.inner_text() == "名次"
    assert "共" in page.inner_text("#ladder-page")
    page.click("[data-tab='profile']")
    page.wait_for_selector("#ladder-record:has-text('胜')")
    page.click("[data-tab='lobby']")
    page.wait_for_selector("#ladder-queue-state:has-text('计分对局')")
    page.click("#ladder-open-game")
    page.wait_for_selector("#ladder-colour:has-text('你执')")
    assert page.inner_text("#new-game") == "返回天梯"
    page.click("#lang-switch [data-lang='en']")
    page.wait_for_selector("#ladder-colour:has-text('You play')")
    assert page.inner_text("#ladder-opponent").startswith("against Rival")


def test_ai_names_read_in_either_language(make_page, server, ladder):
    board = httpx.get(f"{server}/v1/ladder/leaderboard", params={"limit": 100}).json()
    master = next(p for p in board["players"] if p["id"] == "ai-board-9x9_rules-area-5")
    assert master["name"] == "AI master \u00b7 9\u00d79, area"
    offset = (master["position"] - 1) // 10 * 10
    page = make_page(WIDE, lang="zh")
    page.goto(server + "/#ladder")
    page.click("[data-tab='leaderboard']")
    for _ in range(offset // 10):
        page.click("#ladder-next")
        page.wait_for_timeout(100)
    cell = page.locator(f"tr[data-player='{master['id']}'] td").nth(1)
    assert cell.inner_text() == "AI 大师 · 9×9，数子"
    page.click("#lang-switch [data-lang='en']")
    page.wait_for_selector(f"tr[data-player='{master['id']}'] td:has-text('AI master')")
    assert page.locator(f"tr[data-player='{master['id']}'] td").nth(1).inner_text() \
        == master["name"]
