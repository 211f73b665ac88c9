"""Stereo Go's 3-D view, axis bar and lens in a browser (docs/web_client.md, "The 3-D view").

At a desktop size (1366×800) and a phone's (390×844, touch): the 3-D cylinder is drawn with
both poles when switched on (and the switch is remembered); a point played in the 3-D view
shows in the 2-D record view and one played in 2-D shows in 3-D; dragging turns the cylinder
(along the axis: the shared turn, so the 2-D view turns too; across: the other pole comes
forward); an axis moves to a chosen position in one step, by taps and by a drag; on the phone a
tap on the crowded board opens the lens, and a tap in it plays the intended point; no console
errors and no sideways scrolling.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_web_client import _api_moves, _api_session, _moves_shown, _open, _view, browser, server

__all__ = ["browser", "server"]  # the fixtures, shared with test_web_client.py

DESKTOP = (1366, 800)
PHONE = (390, 844)
AXES = "ABCDEFGHIJKLMNOPQ"


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "phone"])
def size(request) -> tuple[int, int]:
    return request.param


@pytest.fixture
def screen(browser, server, size) -> Iterator[Any]:
    """A page at ``size`` (a touch screen at phone size) that fails the test on any script
    error, console error or request to anywhere but the server, and on sideways scrolling."""
    phone = size == PHONE
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  has_touch=phone, is_mobile=phone)
    context.set_default_timeout(15_000)
    pg = context.new_page()
    problems: list[str] = []
    pg.on("pageerror", lambda exc: problems.append(str(exc)))
    pg.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    pg.on("request", lambda req: None if req.url.startswith(server) else problems.append(req.url))
    yield pg
    overflow = pg.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    context.close()
    assert not problems, problems
    assert overflow <= 0, f"{overflow} px of sideways scrolling"


def _game_with_3d(page, server: str) -> tuple[str, str]:
    """A new cylinder game opened on ``page`` with the 3-D view switched on: (id, token)."""
    sid, token = _api_session(server, "stereo_go")
    _open(page, server, sid, token)
    assert page.locator(".cylinder3d-svg").is_hidden()  # the record view alone at first
    page.click(".view3d-toggle")
    page.wait_for_selector(".cylinder3d-svg [data-point3d]")
    return sid, token


def _centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _front_3d(page) -> set[str]:
    return set(page.eval_on_selector_all(".cylinder3d-svg [data-point3d]",
                                         "els => els.map(e => e.dataset.point3d)"))


def _tap_or_click(page, x: float, y: float, size) -> None:
    if size == PHONE:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def _play_3d(page, size, name: str) -> None:
    """Play ``name`` in the 3-D view; on the phone through the lens the tap opens."""
    target = page.locator(f'.cylinder3d-svg [data-point3d="{name}"] .hit')
    target.scroll_into_view_if_needed()
    _tap_or_click(page, *_centre(target), size)
    if size == PHONE:
        page.wait_for_selector(".lens-svg")
        _tap_or_click(page, *_centre(page.locator(f'.lens-svg [data-point3d="{name}"] .hit')),
                      size)


def test_the_3d_view_shows_the_cylinder_with_both_poles(screen, server, size):
    _game_with_3d(screen, server)
    svg = screen.locator(".cylinder3d-svg")
    box = svg.bounding_box()
    assert max(box["width"], box["height"]) > 300  # the cylinder's length, in px
    assert box["x"] >= 0 and box["x"] + box["width"] <= size[0]
    # upright in its own column beside the record view on the desktop, lying above it on a phone
    orientation = "vertical" if size == DESKTOP else "horizontal"
    assert svg.get_attribute("data-orientation") == orientation
    beside = screen.locator(".point-board").bounding_box()
    assert (beside["x"] > box["x"] + box["width"]) if size == DESKTOP else (
        beside["y"] > box["y"] + box["height"])
    assert screen.locator(".c3d-label", has_text="NP").count() == 1
    assert screen.locator(".c3d-label", has_text="SP").count() == 1
    front = _front_3d(screen)
    assert "NP" in front and "SP" not in front  # NP's end swung forward at first
    assert 60 < len(front) < 250  # the near side only: about half the cylinder
    # the meridian in front is the 2-D view's ninth position (I, with no turn), rings 1..21
    assert {f"I{r}" for r in range(1, 22)} <= front
    assert not {f"A{r}" for r in range(1, 22)} & front  # behind: drawn faintly, not clickable
    if size == DESKTOP:  # narrowed, it lies across above the record view
        screen.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
        screen.wait_for_selector('.cylinder3d-svg[data-orientation="horizontal"]')
        screen.set_viewport_size({"width": DESKTOP[0], "height": DESKTOP[1]})
        screen.wait_for_selector('.cylinder3d-svg[data-orientation="vertical"]')
    screen.reload()  # the switch is remembered
    screen.wait_for_selector(".cylinder3d-svg [data-point3d]")
    screen.click(".view3d-toggle")
    assert screen.locator(".cylinder3d-svg").is_hidden()


def test_a_point_played_in_one_view_shows_in_the_other(screen, server, size):
    sid, token = _game_with_3d(screen, server)
    # the same legal-point feedback as the 2-D view: the empty points are targets
    assert screen.locator('.cylinder3d-svg [data-point3d="I5"].target').count() == 1
    _play_3d(screen, size, "I5")
    _moves_shown(screen, 1)
    assert screen.locator('.point-board [data-point="I5"] .stone.black').count() == 1
    assert screen.locator('.cylinder3d-svg [data-point3d="I5"] .last').count() == 1
    # white plays in the 2-D view (a mouse click is precise at any size)
    screen.locator('.point-board [data-point="J6"]').click()
    _moves_shown(screen, 2)
    assert screen.locator('.cylinder3d-svg [data-point3d="J6"] .stone.white').count() == 1
    assert _view(server, sid)["moves"] == ["I5", "J6"]
    assert screen.locator('.cylinder3d-svg [data-point3d="I5"].target').count() == 0
    # after two passes a click in 3-D marks a dead chain, as in 2-D
    _api_moves(server, sid, token, ["pass", "pass"])
    screen.wait_for_selector("#accept-score")
    _play_3d(screen, size, "I5")
    screen.wait_for_selector('.point-board [data-point="I5"] .dead-mark')
    assert screen.locator('.cylinder3d-svg [data-point3d="I5"] .dead-mark').count() == 1
    assert _view(server, sid)["scoring"]["dead"] == ["I5"]


def test_the_labels_follow_the_language_switch(screen, server, size):
    _game_with_3d(screen, server)
    assert screen.inner_text(".view3d-toggle") == "Hide the 3-D cylinder"
    screen.evaluate("import('/js/i18n.js').then((m) => m.setLanguage('zh'))")
    screen.wait_for_function(
        "document.querySelector('.view3d-toggle').textContent === '隐藏立体柱面图'")
    assert screen.inner_text(".axis-help").startswith("移动轴")
    assert screen.get_attribute(".cylinder3d-svg", "aria-label") == "立体围棋柱面立体图"


def test_dragging_turns_the_cylinder_and_swings_a_pole_forward(screen, server, size):
    _game_with_3d(screen, server)
    svg = screen.locator(".cylinder3d-svg")
    svg.scroll_into_view_if_needed()
    lying = svg.get_attribute("data-orientation") == "horizontal"
    box = svg.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    i5 = _centre(screen.locator('[data-point3d="I5"] .hit'))
    j5 = _centre(screen.locator('[data-point3d="J5"] .hit'))
    step = abs(j5[1] - i5[1]) if lying else abs(j5[0] - i5[0])  # one meridian, in px
    # two meridians along the axis: the picture follows the pointer (a finger on the phone)
    _drag(screen, size, [(x + (0 if lying else 2 * step * k / 10),
                          y + (2 * step * k / 10 if lying else 0)) for k in range(11)])
    # lying, the picture moved down (turn ▼ twice); upright, right (turn ▶ twice)
    shift = 2 if lying else -2
    assert svg.get_attribute("data-shift") == str(shift % 17)
    assert screen.locator(".axis-slot").nth(0).inner_text() == AXES[shift % 17]
    assert screen.locator(f'.point-board [data-point="{AXES[shift % 17]}1"]').count() == 1
    front = AXES[(8 + shift) % 17]  # the meridian now at the front position
    assert _centre(screen.locator(f'[data-point3d="{front}5"] .hit')) == pytest.approx(i5, abs=2)
    # across the axis, far enough: SP's end comes forward, NP's goes back
    x0, y0 = (box["x"] + 0.85 * box["width"], y) if lying else (x, box["y"] + 0.85 * box["height"])
    # 250 px towards NP's end: the front swings that way
    _drag(screen, size, [(x0 - (250 * k / 10 if lying else 0), y0 - (0 if lying else 250 * k / 10))
                         for k in range(11)])
    front = _front_3d(screen)
    assert "SP" in front and "NP" not in front
    assert svg.get_attribute("data-shift") == str(shift % 17)  # across does not turn it


def _drag(page, size, path: list[tuple[float, float]]) -> None:
    """A drag along ``path``: the mouse on the desktop, a finger (real touch events, so
    pointer events of type touch) on the phone."""
    if size == DESKTOP:
        page.mouse.move(*path[0])
        page.mouse.down()
        for x, y in path[1:]:
            page.mouse.move(x, y)
        page.mouse.up()
        return
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [
        {"x": path[0][0], "y": path[0][1]}]})
    for x, y in path[1:]:
        cdp.send("Input.dispatchTouchEvent",
                 {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def _first_2d_meridian(page) -> str:
    """The meridian at the 2-D view's position 0: its left column upright, bottom row lying."""
    lying = page.get_attribute(".point-board", "data-orientation") == "horizontal"
    where = {m: _centre(page.locator(f'.point-board [data-point="{m}1"] .hit')) for m in AXES}
    return max(where, key=lambda m: where[m][1]) if lying else min(
        where, key=lambda m: where[m][0])


def test_an_axis_moves_to_a_chosen_position_in_one_step(screen, server, size):
    _game_with_3d(screen, server)
    requests: list[str] = []
    screen.on("request", lambda req: requests.append(req.url))
    slots = screen.locator(".axis-slot")
    assert [slots.nth(k).inner_text() for k in range(17)] == list(AXES)
    # every redraw of the 3-D view, one record each: a move in steps would leave several
    changes = screen.evaluate("""() => { window.__shifts = [];
        new MutationObserver((records) => records.forEach(
          (r) => window.__shifts.push(r.target.dataset.shift)))
          .observe(document.querySelector('.cylinder3d-svg'),
                   {attributes: true, attributeFilter: ['data-shift']}); return 0; }""")
    assert changes == 0
    slots.nth(AXES.index("M")).click()  # axis M (position 13) ...
    assert screen.locator(".axis-slot.selected").inner_text() == "M"
    slots.nth(0).click()  # ... to position 1, in one step
    assert screen.evaluate("window.__shifts") == [str(AXES.index("M"))]
    assert slots.nth(0).inner_text() == "M" and slots.nth(16).inner_text() == "L"
    assert _first_2d_meridian(screen) == "M"
    assert screen.get_attribute(".cylinder3d-svg", "data-shift") == str(AXES.index("M"))
    # the 3-D view turned with it: D (position 9) in front, A (position 6) in sight, L
    # (position 17) behind
    letters = set(screen.eval_on_selector_all(".c3d-axis", "els => els.map(e => e.textContent)"))
    assert {"D", "A"} <= letters and "L" not in letters
    # dragging axis C onto position 9 (the front in the 3-D view)
    c = slots.nth([slots.nth(k).inner_text() for k in range(17)].index("C"))
    (x0, y0), (x1, _) = _centre(c), _centre(slots.nth(8))
    _drag(screen, size, [(x0 + (x1 - x0) * k / 8, y0) for k in range(9)])
    assert slots.nth(8).inner_text() == "C"
    assert screen.evaluate("window.__shifts") == [str(AXES.index("M")), str((2 - 8) % 17)]
    assert "C11" in _front_3d(screen)
    assert not [u for u in requests if "/v1/" in u]  # a way of looking: no request


def test_the_lens_makes_a_tap_hit_the_intended_point(screen, server, size):
    sid, token = _game_with_3d(screen, server)
    board = screen.locator('.point-board [data-point="E7"] .hit')
    board.scroll_into_view_if_needed()
    e7, e8 = (_centre(screen.locator(f'.point-board [data-point="{p}"] .hit'))
              for p in ("E7", "E8"))
    gap = abs(e8[1] - e7[1]) + abs(e8[0] - e7[0])
    if size == DESKTOP:  # a mouse is precise: a click plays at once, no lens
        screen.mouse.click(*e7)
        _moves_shown(screen, 1)
        assert screen.locator(".lens-svg").count() == 0
        assert _view(server, sid)["moves"] == ["E7"]
        return
    assert gap < 36  # the phone's record view is crowded
    # a finger's tap a third of the way towards E8 opens the lens instead of playing
    screen.touchscreen.tap(e7[0] + (e8[0] - e7[0]) / 3, e7[1] + (e8[1] - e7[1]) / 3)
    screen.wait_for_selector(".lens-svg")
    assert _view(server, sid)["moves"] == []
    lens = {p: _centre(screen.locator(f'.lens-svg [data-point="{p}"] .hit')) for p in ("E7", "E8")}
    assert abs(lens["E8"][1] - lens["E7"][1]) + abs(lens["E8"][0] - lens["E7"][0]) >= 44
    box = screen.locator(".lens-svg").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= size[0]
    screen.touchscreen.tap(*lens["E7"])
    _moves_shown(screen, 1)
    assert screen.locator(".lens-svg").count() == 0
    assert _view(server, sid)["moves"] == ["E7"]
    assert screen.locator('.point-board [data-point="E7"] .stone.black').count() == 1
    # an open lens follows the board: white's move made elsewhere shows in it
    screen.touchscreen.tap(*_centre(screen.locator('.point-board [data-point="E9"] .hit')))
    screen.wait_for_selector(".lens-svg")
    _api_moves(server, sid, token, ["E10"])
    screen.wait_for_selector('.lens-svg [data-point="E10"] .stone.white')
    # and closes without playing when the backdrop is tapped
    screen.touchscreen.tap(5, 5)
    assert screen.locator(".lens-svg").count() == 0
    assert _view(server, sid)["moves"] == ["E7", "E10"]
