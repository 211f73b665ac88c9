"""The static web client (serving/static, docs/web_client.md).

Two layers: without a browser, the app serves the client at ``/`` beside the API (content
types, module imports that resolve, package data, nothing fetched from elsewhere); with a
browser (Playwright driving Debian's Chromium), the real server is started on a free port and
the screens are played by clicks: Jiugong moves, a TriGolden turn with previews, cancel and
confirm, a seat handed to the AI through the scoring-mode marker, arbitration's confirmation,
the narrow-screen layout, Stereo Go's cylinder lying down on a wide screen and upright on a
narrow one, and moves made elsewhere appearing through the event stream without polling (and by
polling while the stream is down). The browser tests skip only when Chromium or Playwright is
missing (CI installs both).
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from serving_helpers import auth, client_for, serve_in_thread, settings_for, write_levels

from serving.app import STATIC_DIR, create_app

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
ASSETS = sorted(p for p in STATIC_DIR.rglob("*") if p.is_file())
ORT = STATIC_DIR / "offline" / "ort"  # vendored onnxruntime-web (scripts/vendor_onnxruntime_web.py)


# ============================================================================ without a browser
def test_index_is_served_at_root(tmp_path):
    with client_for(tmp_path) as client:
        r = client.get("/")
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/html")
        assert '<script type="module" src="js/main.js"></script>' in r.text
        assert client.get("/index.html").text == r.text


@pytest.mark.parametrize("asset", ASSETS, ids=lambda p: str(p.relative_to(STATIC_DIR)))
def test_assets_are_served_with_their_content_type(tmp_path, asset):
    expected = {".js": "javascript", ".mjs": "javascript", ".css": "text/css",
                ".html": "text/html", ".json": "application/json", ".wasm": "application/wasm",
                ".onnx": "application/octet-stream", ".woff2": "font/woff2",
                ".txt": "text/plain"}[asset.suffix]
    with client_for(tmp_path) as client:
        r = client.get("/" + asset.relative_to(STATIC_DIR).as_posix())
        assert r.status_code == 200
        assert expected in r.headers["content-type"]
        assert r.content == asset.read_bytes()


def test_every_module_import_resolves():
    """A typo in an import path would only show in a browser: check them all here."""
    imports = re.compile(r"""^\s*import\s[^'"]*['"]([^'"]+)['"]""", re.M)
    seen = 0
    for js in STATIC_DIR.rglob("*.js"):
        for target in imports.findall(js.read_text()):
            assert target.startswith("."), f"{js.name} imports {target!r}: bare or remote"
            assert (js.parent / target).resolve().is_file(), f"{js.name}: no {target}"
            seen += 1
    assert seen > 10


def test_nothing_is_fetched_from_elsewhere():
    """No CDN, font or script from the internet: every URL in the client is the SVG namespace.
    The vendored onnxruntime-web (offline/ort, the npm package's files, checked against their
    SHA-256 in tests/test_web_offline.py) names a web page in one of its messages; the
    browser tests refuse any request to anywhere but the server."""
    for asset in ASSETS:
        if asset.suffix not in (".js", ".css", ".html", ".json") or ORT in asset.parents:
            continue
        urls = set(re.findall(r"https?://[^\s'\"`)]+", asset.read_text()))
        assert urls <= {"http://www.w3.org/2000/svg"}, (asset.name, urls)


def test_api_docs_and_errors_still_work(tmp_path):
    with client_for(tmp_path) as client:
        assert client.get("/v1/health").json()["status"] == "ok"
        assert [g["id"] for g in client.get("/v1/games").json()]
        assert "swagger" in client.get("/docs").text.lower()
        paths = client.get("/openapi.json").json()["paths"]
        assert "/v1/sessions" in paths and "/" not in paths
        for method, missing in [("GET", "/v1/nope"), ("GET", "/nope.js"), ("POST", "/v1/nope"),
                                ("GET", "/js/nope.js")]:
            r = client.request(method, missing)
            assert r.status_code == 404 and r.json()["error"] == "not_found"
        # a known path with another method is still a 405, API or client
        for method, path in [("DELETE", "/v1/games"), ("GET", "/v1/sessions/x/moves"),
                             ("POST", "/")]:
            r = client.request(method, path)
            assert r.status_code == 405 and r.json()["error"] == "method_not_allowed"


def test_static_files_are_package_data():
    """An installed (non-editable) qizero must carry the client: pyproject's package data."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["serving"]
    for asset in ASSETS:
        rel = asset.relative_to(STATIC_DIR.parent).as_posix()
        assert any(fnmatch.fnmatch(rel, p) for p in patterns), rel


# ============================================================================ in a browser
@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """The real service (uvicorn in a thread) on a free port, with a temporary database and
    fast TriGolden levels (random is the default, so an AI turn takes no time)."""

    tmp = tmp_path_factory.mktemp("web")
    write_levels(tmp / "checkpoints", "trigolden", [
        {"id": "random", "label": "Random", "player": "random"},
        {"id": "mcts2", "label": "MCTS 2", "player": "mcts:2"},
    ], default="random")
    # Levels for TriGolden scoring only: the start screen offers them when that mode is chosen.
    write_levels(tmp / "checkpoints" / "trigolden", "scoring-trigolden", [
        {"id": "scoring-mcts", "label": "Scoring MCTS", "player": "mcts:2"},
    ], game_options={"scoring": "trigolden"})
    app = create_app(settings_for(tmp, checkpoints_root=tmp / "checkpoints"))
    with serve_in_thread(app, "web-client-server") as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("browser tests need Chromium at /usr/bin/chromium (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests need Playwright for Python (pip install playwright)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, server) -> Iterator[Any]:
    """A fresh page (its own localStorage) that fails the test on any script error or on a
    request to anywhere but the server."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    pg = context.new_page()
    errors: list[str] = []
    foreign: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("request", lambda req: None if req.url.startswith(server) else foreign.append(req.url))
    yield pg
    context.close()
    assert not errors, errors
    assert not foreign, foreign


def _api_session(server: str, game: str, **body: Any) -> tuple[str, str]:
    r = httpx.post(f"{server}/v1/sessions", json={"game": game, **body})
    r.raise_for_status()
    return r.json()["session"]["id"], r.json()["owner_token"]


def _view(server: str, sid: str) -> dict[str, Any]:
    return httpx.get(f"{server}/v1/sessions/{sid}").json()


def _open(page, server: str, sid: str, token: str) -> None:
    page.goto(f"{server}/#session={sid}&token={token}")
    page.wait_for_selector("#game-screen:not([hidden])")


def _start_from_form(page, server: str, game: str) -> str:
    """Start a game with the start screen's defaults (people in every seat); its id."""
    page.goto(server + "/")
    page.click(f'[data-game="{game}"]')
    page.wait_for_selector(f'[data-game="{game}"].chosen')
    page.wait_for_selector("fieldset.seats select")
    page.click("#create")
    page.wait_for_selector("#game-screen:not([hidden])")
    return re.search(r"session=([^&]+)", page.url).group(1)


def _moves_shown(page, n: int) -> None:
    page.wait_for_function(
        f"document.querySelectorAll('#moves li:not(.pending)').length === {n}")


def test_jiugong_by_clicks_and_resume_after_reload(page, server):
    sid = _start_from_form(page, server, "jiugong")
    page.click('[data-point="b1"]')
    assert page.locator('[data-point="b1"].selected').count() == 1
    page.click('[data-point="b2"]')
    _moves_shown(page, 1)
    page.click('[data-point="a3"]')
    page.click('[data-point="a2"]')
    _moves_shown(page, 2)
    assert page.inner_text("#status") == "south to play"
    assert "s left" in page.inner_text("#timer")  # Jiugong's turn timer

    assert _view(server, sid)["moves"] == ["b1-b2", "a3-a2"]
    page.reload()  # the hash and localStorage bring the same game back
    _moves_shown(page, 2)
    page.click('[data-point="b3"]')  # north's piece, south to play: nothing to select
    assert page.locator(".point.selected").count() == 0
    page.click('[data-point="b2"]')
    page.click('[data-point="b1"]')
    _moves_shown(page, 3)
    assert _view(server, sid)["moves"][-1] == "b2-b1"


def _session_requests(page, sid: str) -> tuple[list[str], list[str]]:
    """The page's GETs of the session view and its requests of the event stream, as made."""
    views: list[str] = []
    streams: list[str] = []
    path = f"/v1/sessions/{sid}"

    def seen(req) -> None:
        where = urlsplit(req.url).path
        if req.method == "GET" and where == path:
            views.append(req.url)
        elif where == path + "/events":
            streams.append(req.url)

    page.on("request", seen)
    return views, streams


def _api_moves(server: str, sid: str, token: str, moves: list[str]) -> None:
    version = _view(server, sid)["version"]
    for mv in moves:
        r = httpx.post(f"{server}/v1/sessions/{sid}/moves", headers=auth(token),
                       json={"move": mv, "version": version})
        r.raise_for_status()
        version = r.json()["version"]


def test_moves_made_elsewhere_appear_through_the_event_stream_without_polling(page, server):
    sid, token = _api_session(server, "jiugong", turn_seconds=None)
    views, streams = _session_requests(page, sid)
    _open(page, server, sid, token)
    assert len(views) == 1  # the screen's one load
    moves = ["b1-b2", "a3-a2", "b2-b1"]
    for n, mv in enumerate(moves, 1):  # another screen (here the API) plays them
        _api_moves(server, sid, token, [mv])
        _moves_shown(page, n)
    assert page.inner_text("#status") == "north to play"
    page.wait_for_timeout(1500)  # longer than the old polling interval
    assert len(views) == 1 and len(streams) == 1, (views, streams)


def test_the_screen_polls_while_the_event_stream_is_down(page, server):
    page.route("**/events*", lambda route: route.abort())
    sid, token = _api_session(server, "jiugong", turn_seconds=None)
    views, streams = _session_requests(page, sid)
    _open(page, server, sid, token)
    _api_moves(server, sid, token, ["b1-b2"])
    _moves_shown(page, 1)
    assert streams and len(views) > 1  # polled


def test_trigolden_opening_previews_cancel_and_confirm(page, server):
    sid = _start_from_form(page, server, "trigolden")

    # opening: the tapped piece drops at the centre; a drag turns the picture; ✓ ends the turn
    opening = '.tg-panel[data-seat="p1"] [data-kind="P"]'
    page.click(opening)
    page.wait_for_selector('[data-piece="0"].pending')
    page.click(opening)  # tapped again: the opening piece turns over
    page.wait_for_selector(opening + ".flipped")
    page.wait_for_function("(document.querySelector('[data-piece=\"0\"] title') || {})"
                           ".textContent?.includes(\"P'\")")
    assert _view(server, sid)["pending"] == ["P'"]
    box = page.locator(".tg-svg").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx + 150, cy)
    page.mouse.down()
    page.mouse.move(cx + 100, cy + 100, steps=4)
    page.mouse.move(cx, cy + 150, steps=4)
    page.mouse.up()
    assert "rotate(0)" not in page.get_attribute(".tg-world", "transform")
    page.click('.tg-check[data-seat="p1"]')
    page.wait_for_selector('[data-piece="0"]:not(.pending)')
    assert _view(server, sid)["moves"] == ["P'"]

    # p2: select a piece, tap again to flip, tap an opponent piece: blue dot and previews
    hand = '.tg-panel[data-seat="p2"] [data-kind="P"]'
    page.click(hand)
    page.click(hand)
    page.wait_for_selector(hand + ".selected.flipped")
    page.locator('[data-piece="0"]').dispatch_event("click")
    page.wait_for_selector(".tg-target-dot")
    page.wait_for_selector(".tg-preview")
    moves = page.eval_on_selector_all(".tg-preview", "els => els.map(e => e.dataset.move)")
    assert moves and all(m.startswith("P'@0.") for m in moves), moves

    first = page.locator(".tg-preview").first
    preview_points = first.get_attribute("points")
    first.dispatch_event("click")
    page.wait_for_selector('[data-piece="1"].pending')
    # the preview was drawn exactly where the engine put the piece
    assert page.get_attribute('[data-piece="1"]', "points") == preview_points

    page.click('.tg-cross[data-seat="p2"]')  # cancel: the provisional piece goes back
    page.wait_for_function("!document.querySelector('[data-piece=\"1\"]')")
    assert _view(server, sid)["pending"] == []

    page.wait_for_selector(".tg-preview")  # selection and target stay: place again
    page.locator(".tg-preview").first.dispatch_event("click")
    page.wait_for_selector('[data-piece="1"].pending')
    page.wait_for_selector(".tg-preview")  # the second piece's placements
    page.locator(".tg-preview").first.dispatch_event("click")
    page.wait_for_selector('.tg-check[data-seat="p2"]:not([disabled])')
    page.click('.tg-check[data-seat="p2"]')
    page.wait_for_selector('.tg-marker.lit[data-seat="p1"]')
    view = _view(server, sid)
    assert len(view["moves"]) == 3 and view["pending"] == []
    assert page.locator(".tg-world .tg-piece.pending").count() == 0


def _trigolden_after_opening(server: str, piece: str) -> tuple[str, str]:
    """A one-game TriGolden session where p1 has opened with ``piece`` and confirmed."""
    sid, token = _api_session(server, "trigolden", match_games=1)
    v = _view(server, sid)
    v = httpx.post(f"{server}/v1/sessions/{sid}/moves", headers=auth(token),
                   json={"move": piece, "version": v["version"]}).json()
    httpx.post(f"{server}/v1/sessions/{sid}/confirm", headers=auth(token),
               json={"version": v["version"]}).raise_for_status()
    return sid, token


def test_trigolden_marker_hands_the_side_to_the_ai(page, server):
    sid, token = _trigolden_after_opening(server, "T")
    _open(page, server, sid, token)

    # p1 waits: its check slot is the green AI icon; p2 is on turn: its marker is lit
    assert page.locator('.tg-ai.green[data-seat="p1"]').count() == 1
    page.click('.tg-marker.lit[data-seat="p2"]')  # p2's own turn: hand it to the default AI
    page.wait_for_function("document.querySelectorAll('.tg-world .tg-piece').length === 3")
    _moves_shown(page, 3)
    assert "(AI random)" in page.inner_text("#moves")
    page.wait_for_selector('.tg-marker.lit[data-seat="p1"]')

    page.click('.tg-ai-level[data-seat="p2"]')  # the AI icon cycles the level
    page.wait_for_selector('.tg-ai-level[data-seat="p2"]:has-text("MCTS 2")')
    assert _view(server, sid)["seats"]["p2"] == {"type": "ai", "level": "mcts2"}
    page.click('.tg-cross[data-seat="p2"]')  # and the cross hands it back to a person
    page.wait_for_selector('.tg-ai.green[data-seat="p2"]')
    assert _view(server, sid)["seats"]["p2"]["type"] == "human"


def test_trigolden_toolbar_arbitration_and_narrow_layout(page, server):
    sid, token = _trigolden_after_opening(server, "G")
    _open(page, server, sid, token)

    def boxes() -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
        return (page.locator('.tg-panel[data-seat="p1"]').bounding_box(),
                page.locator(".tg-board").bounding_box(),
                page.locator('.tg-panel[data-seat="p2"]').bounding_box())

    a, board, b = boxes()  # wide: panels on either side of the board
    assert a["x"] + a["width"] <= board["x"] and board["x"] + board["width"] <= b["x"]
    page.set_viewport_size({"width": 400, "height": 800})
    page.wait_for_timeout(100)
    a, board, b = boxes()  # narrow: above and below
    assert a["y"] + a["height"] <= board["y"] and board["y"] + board["height"] <= b["y"]
    assert board["width"] <= 400
    page.set_viewport_size({"width": 1280, "height": 900})

    # tapping the empty board swaps the toolbar and the direction controls
    svg = page.locator(".tg-svg").bounding_box()
    page.mouse.click(svg["x"] + 10, svg["y"] + svg["height"] - 10)
    page.wait_for_selector(".tg-direction")
    before = page.get_attribute(".tg-world", "transform")
    page.click(".dir-in")
    assert page.get_attribute(".tg-world", "transform") != before
    page.mouse.click(svg["x"] + 10, svg["y"] + svg["height"] - 10)
    page.wait_for_selector(".tg-toolbar")

    # arbitration asks first; cancelling changes nothing
    page.click(".tb-arbitration")
    dialog = page.locator("#arbitration-dialog")
    # one language at a time (js/i18n/trigolden.js); the page is in English here
    assert "Request arbitration?" in dialog.inner_text()
    page.click("#arbitration-dialog .dialog-cancel")
    assert _view(server, sid)["status"] == "playing"
    page.click(".tb-arbitration")
    page.click("#arbitration-dialog .dialog-ok")  # p2 has a legal turn: p2 loses the match
    page.wait_for_selector("#status:has-text('Game over')")
    result = _view(server, sid)["result"]
    assert result["reason"] == "arbitration" and result["winner"] == "p1"


def test_start_screen_offers_the_levels_of_the_chosen_options(page, server):
    page.goto(server + "/")
    page.click('[data-game="trigolden"]')
    page.wait_for_selector("fieldset.seats select")
    seat = 'select[name="seat-p2"] option'
    # The levels arrive from the API after the selector is drawn.
    page.wait_for_function(
        f"[...document.querySelectorAll('{seat}')].some(o => o.text === 'AI: MCTS 2')")
    assert page.locator(seat).all_inner_texts() == ["Human", "AI: Random", "AI: MCTS 2"]
    page.select_option('select[name="scoring"]', "trigolden")
    page.wait_for_function(
        f"[...document.querySelectorAll('{seat}')].some(o => o.text === 'AI: Scoring MCTS')")
    # the trained table, with the anchor (uniform random) beside it and no pure-MCTS baseline
    assert page.locator(seat).all_inner_texts() == ["Human", "AI: Random", "AI: Scoring MCTS"]
    page.select_option('select[name="seat-p2"]', "ai:scoring-mcts")
    page.click("#create")
    page.wait_for_selector("#game-screen:not([hidden])")
    sid = re.search(r"session=([^&]+)", page.url).group(1)
    view = _view(server, sid)
    assert view["config"]["scoring"] == "trigolden"
    assert view["seats"]["p2"] == {"type": "ai", "level": "scoring-mcts"}


def test_start_screen_buttons_choose_options_with_trained_levels(page, server):
    """The configurations with levels of their own are offered as buttons: one click sets
    the options and the seats offer those levels."""
    page.goto(server + "/")
    page.click('[data-game="trigolden"]')
    button = page.locator('button.variant-choice[data-variant="scoring-trigolden"]')
    assert button.inner_text() == "TriGolden scoring"
    button.click()
    seat = 'select[name="seat-p2"] option'
    page.wait_for_function(
        f"[...document.querySelectorAll('{seat}')].some(o => o.text === 'AI: Scoring MCTS')")
    assert page.locator('select[name="scoring"]').input_value() == "trigolden"
    assert page.locator('select[name="variant"]').input_value() == "standard"


# Stereo Go's screen (seed 003: 横向摆放, on a phone 竖向观看): the cylinder lies down on a wide
# screen (rings as columns, NP left, SP right, meridians as rows) and stands upright on a narrow
# one (meridians as columns, NP above, SP below).
WIDE, NARROW = (1280, 800), (390, 844)
MERIDIANS = "ABCDEFGHIJKLMNOPQ"


def _centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _point_at(page, name: str) -> tuple[float, float]:
    return _centre(page.locator(f'[data-point="{name}"] .hit').bounding_box())


def _label_at(page, text: str) -> tuple[float, float]:
    return _centre(page.locator(".board-svg text.coord", has_text=re.compile(f"^{text}$"))
                   .bounding_box())


def _resize(page, size: tuple[int, int], orientation: str) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.wait_for_selector(f'.point-board[data-orientation="{orientation}"]')


def _first_meridian(page, horizontal: bool) -> str:
    """The meridian drawn first: the bottom row lying down, the left column upright."""
    where = {m: _point_at(page, f"{m}1") for m in MERIDIANS}
    return max(where, key=lambda m: where[m][1]) if horizontal else min(
        where, key=lambda m: where[m][0])


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
def test_stereo_go_cylinder_lies_down_on_wide_screens(page, server, size):
    horizontal = size == WIDE
    page.set_viewport_size({"width": size[0], "height": size[1]})
    sid, token = _api_session(server, "stereo_go")
    _open(page, server, sid, token)
    orientation = "horizontal" if horizontal else "vertical"
    assert page.get_attribute(".point-board", "data-orientation") == orientation

    board = page.locator(".board-bg").bounding_box()
    assert board["x"] >= 0 and board["x"] + board["width"] <= size[0] + 0.5
    (npx, npy), (spx, spy) = _point_at(page, "NP"), _point_at(page, "SP")
    (a1x, a1y), (b1x, b1y), (a2x, a2y) = (_point_at(page, p) for p in ("A1", "B1", "A2"))
    if horizontal:  # rings are columns from NP to SP, meridians rows (A at the bottom)
        assert board["width"] > 1.2 * board["height"]
        assert npx < a1x < a2x < spx and abs(npy - spy) < 1
        assert abs(a1x - b1x) < 1 and b1y < a1y and abs(a1y - a2y) < 1
        assert page.locator(".turn-up").inner_text() == "▲ turn"
        assert page.locator(".turn-down").inner_text() == "turn ▼"
    else:  # meridians are columns, NP above, SP below
        assert board["height"] > 1.2 * board["width"]
        assert npy < a1y < a2y < spy and abs(npx - spx) < 1
        assert abs(a1y - b1y) < 1 and a1x < b1x and abs(a1x - a2x) < 1
        assert page.locator(".turn-left").inner_text() == "◀ turn"
        assert page.locator(".turn-right").inner_text() == "turn ▶"

    # a click where ring 7's and meridian F's labels cross plays F7; then white takes SP
    ring, meridian = _label_at(page, "7"), _label_at(page, "F")
    page.mouse.click(*((ring[0], meridian[1]) if horizontal else (meridian[0], ring[1])))
    _moves_shown(page, 1)
    page.mouse.click(spx, spy)
    _moves_shown(page, 2)
    assert _view(server, sid)["moves"] == ["F7", "SP"]
    assert page.locator('[data-point="F7"] .stone.black').count() == 1


def test_stereo_go_turn_is_kept_when_the_screen_turns(page, server):
    page.set_viewport_size({"width": WIDE[0], "height": WIDE[1]})
    sid, token = _api_session(server, "stereo_go")
    _open(page, server, sid, token)
    assert _first_meridian(page, horizontal=True) == "A"
    page.click(".turn-down")
    page.click(".turn-down")  # two meridians on: C is the bottom row
    assert _first_meridian(page, horizontal=True) == "C"

    _resize(page, NARROW, "vertical")  # the phone: upright, C still drawn first (left)
    assert _first_meridian(page, horizontal=False) == "C"
    page.click(".turn-left")
    assert _first_meridian(page, horizontal=False) == "D"
    page.click('[data-point="D1"]')  # clicks still find their points on the turned board
    _moves_shown(page, 1)
    page.click(".turn-right")
    page.click(".turn-right")
    assert _first_meridian(page, horizontal=False) == "B"

    _resize(page, WIDE, "horizontal")  # and back: B the bottom row, the stone still on D1
    assert _first_meridian(page, horizontal=True) == "B"
    assert page.locator('[data-point="D1"] .stone.black').count() == 1
    page.click(".turn-up")
    assert _first_meridian(page, horizontal=True) == "A"
    assert _view(server, sid)["moves"] == ["D1"]


def test_stereo_go_square_board_stays_square(page, server):
    sid, token = _api_session(server, "stereo_go", config={"board": "9x9"})
    for size in (WIDE, NARROW):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        _open(page, server, sid, token)
        assert page.locator(".board-svg [data-point]").count() == 81
        assert page.locator(".cylinder-controls").count() == 0
        board = page.locator(".board-bg").bounding_box()
        assert abs(board["width"] - board["height"]) < 1
        assert board["x"] + board["width"] <= size[0] + 0.5
    page.click('[data-point="E5"]')
    _moves_shown(page, 1)
    assert _view(server, sid)["moves"] == ["E5"]


def test_stereo_go_cylinder_is_drawn_and_played(page, server):
    sid, token = _api_session(server, "stereo_go")
    _open(page, server, sid, token)
    assert page.locator(".board-svg [data-point]").count() == 359
    for point in ("NP", "SP", "A1", "Q21"):
        assert page.locator(f'[data-point="{point}"]').count() == 1
    page.click('[data-point="NP"]')
    _moves_shown(page, 1)
    page.click(".turn-down")  # turning the cylinder keeps the stones on their points
    assert page.locator('[data-point="NP"] .stone.black').count() == 1
    page.click('[data-point="C2"]')
    _moves_shown(page, 2)
    if _view(server, sid)["timer"].get("clock"):  # main time + byo-yomi, where the API has it
        assert "byo-yomi" in page.inner_text("#timer")
    page.click("#pass")
    _moves_shown(page, 3)
    page.click("#pass")  # two passes: the scoring phase
    page.wait_for_selector("#accept-score")
    assert page.inner_text("#status").startswith("Scoring")
    page.click('[data-point="NP"]')  # mark black's pole stone dead
    page.wait_for_selector('[data-point="NP"] .dead-mark')
    assert _view(server, sid)["scoring"]["dead"] == ["NP"]
    page.click("#accept-score")
    page.wait_for_selector("#status:has-text('Game over')")
    view = _view(server, sid)
    assert view["moves"] == ["NP", "C2", "pass", "pass"]
    assert view["result"]["reason"] == "score" and view["result"]["winner"] == "white"
