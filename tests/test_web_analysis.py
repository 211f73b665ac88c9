"""Browser tests of the web client's analysis mode and post-game review (issue 37).

They drive the real service (the ``server``, ``browser`` and ``page`` fixtures of
tests/test_web_client.py): the analysis mode streams POST /v1/games/{game}/analysis and must
redraw the board's marks while the search runs; a Go board gets the ownership shading; after
a finished Jiugong game the review shows the value graph and the key mistakes, and a click on
the graph shows that position.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
from serving_helpers import auth
from test_web_client import _api_session, _open, browser, page, server  # noqa: F401 (fixtures)

# Records every distinct analysis render (progress text + marks) the page shows.
WATCH_RENDERS = """() => {
  window.__renders = [];
  const seen = new Set();
  new MutationObserver(() => {
    const p = document.querySelector('.analysis-progress');
    if (!p) return;
    const marks = [...document.querySelectorAll('.analysis-mark')]
      .map((m) => m.textContent).join('|');
    const key = `${p.dataset.final}:${p.dataset.visits}:${marks}`;
    if (!seen.has(key)) { seen.add(key); window.__renders.push(p.dataset.final); }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}"""


def _turn_on_analysis(pg: Any, visits: int) -> None:
    pg.select_option("#analysis-visits", str(visits))
    pg.check("#analysis-toggle")


def _wait_final(pg: Any) -> None:
    """Wait for the final analysis result (or fail at once on the error the panel shows)."""
    pg.wait_for_selector('.analysis-progress[data-final="true"], .analysis-error',
                         timeout=60_000)
    assert pg.locator(".analysis-error").count() == 0, pg.locator(".analysis-error").inner_text()


def _open_review(pg: Any) -> None:
    pg.click("#review-open")
    pg.wait_for_selector("#value-graph, .review-error", timeout=120_000)
    assert pg.locator(".review-error").count() == 0, pg.locator(".review-error").inner_text()


def test_analysis_mode_updates_live_on_jiugong(page, server):  # noqa: F811
    sid, token = _api_session(server, "jiugong")
    _open(page, server, sid, token)
    page.evaluate(WATCH_RENDERS)
    _turn_on_analysis(page, 6400)
    _wait_final(page)
    renders: list[str] = page.evaluate("window.__renders")
    partial = [r for r in renders if r == "false"]
    assert len(partial) >= 2, renders
    assert renders[-1] == "true"
    assert renders.index("true") > renders.index("false")
    assert page.locator(".analysis-mark.best").count() == 1
    assert page.locator(".analysis-moves tr.best td.pv").inner_text().strip()


def test_analysis_is_cancelled_when_turned_off(page, server):  # noqa: F811
    sid, token = _api_session(server, "jiugong")
    _open(page, server, sid, token)
    deletes: list[str] = []
    page.on("request", lambda r: deletes.append(r.url) if r.method == "DELETE" else None)
    _turn_on_analysis(page, 6400)
    page.wait_for_selector('.analysis-progress[data-final="false"]', timeout=30_000)
    page.uncheck("#analysis-toggle")
    page.wait_for_function("!document.querySelector('.analysis-layer')")
    page.wait_for_timeout(300)
    assert any("/v1/analyses/" in url for url in deletes), deletes


def test_go_board_has_ownership_shading(page, server):  # noqa: F811
    players = httpx.get(f"{server}/v1/games/stereo_go").json()["players"]
    sid, token = _api_session(server, "stereo_go", turn_seconds=None,
                              seats={seat: {"type": "human"} for seat in players})
    for _ in range(2):
        view = httpx.get(f"{server}/v1/sessions/{sid}").json()
        move = next(m for m in view["position"]["legal_moves"] if m != "pass")
        httpx.post(f"{server}/v1/sessions/{sid}/moves", headers=auth(token),
                   json={"move": move, "version": view["version"]}).raise_for_status()
    _open(page, server, sid, token)
    _turn_on_analysis(page, 400)
    _wait_final(page)
    assert page.locator(".analysis-layer rect.ownership").count() > 0
    assert page.locator(".analysis-lead").count() == 1


def _finished_jiugong(url: str) -> tuple[str, str, list[str]]:
    """A whole Jiugong game played by the fastest AI level on both seats (no resignation in
    Jiugong's rules, so the game runs to its end)."""
    players = httpx.get(f"{url}/v1/games/jiugong").json()["players"]
    levels = httpx.get(f"{url}/v1/games/jiugong/levels").json()["levels"]
    fastest = levels[0]["id"]
    sid, token = _api_session(url, "jiugong", turn_seconds=None,
                              seats={seat: {"type": "ai", "level": fastest} for seat in players})
    deadline = time.monotonic() + 120
    view = httpx.get(f"{url}/v1/sessions/{sid}").json()
    while view["status"] != "over":
        assert time.monotonic() < deadline, view["status"]
        time.sleep(0.2)
        view = httpx.get(f"{url}/v1/sessions/{sid}").json()
    return sid, token, view["moves"]


def test_review_graph_and_mistakes_after_a_game(page, server):  # noqa: F811
    sid, token, moves = _finished_jiugong(server)
    _open(page, server, sid, token)
    _open_review(page)
    assert page.locator("#value-graph .graph-point").count() == len(moves) + 1
    mistakes = page.locator("#mistakes li")
    assert mistakes.count() >= 1
    assert "preferred" in mistakes.first.inner_text()
    mistakes.first.locator("a").click()
    page.wait_for_selector(".review-board .move-marks .preferred-move")


def _click_at_dot(page, ply: int) -> None:  # noqa: F811 (a page, not the fixture)
    """A click at the centre of ``ply``'s dot on the value graph, whichever dot is drawn on top
    there (in a long game the next ply's dot covers part of it)."""
    box = page.locator(f'#value-graph .graph-point[data-ply="{ply}"]').bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def test_clicking_the_graph_shows_that_position(page, server):  # noqa: F811
    """A click on the graph shows the position nearest to it along the moves."""
    sid, token, moves = _finished_jiugong(server)
    _open(page, server, sid, token)
    _open_review(page)
    _click_at_dot(page, 1)
    page.wait_for_selector('.review-shown[data-ply="1"]')
    board = page.locator(".review-board")
    start = httpx.post(f"{server}/v1/games/jiugong/positions",
                       json={"config": {}, "moves": moves[:1]}).json()
    stones = board.locator("circle.stone").count()
    assert stones == sum(1 for c in start["state"]["board"] if c not in ".")
    _click_at_dot(page, 0)
    page.wait_for_selector('.review-shown[data-ply="0"]')
