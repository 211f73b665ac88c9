"""Stereo Go in the web client's offline mode (serving/static/js/offline/stereo_go*.js): the
9x9 board and the cylinder played in the page, checked against envs/stereo_go.

* The in-page rules agree with the Python engine on random games of both boards (and of the
  9x9 board under area scoring with another komi, which no shipped level plays): the legal
  moves at every checked ply (so suicide and positional superko refuse the same points), the
  captures, who moves, the end, its reason, the winner and the final Tromp-Taylor score, the
  state JSON (but for the history hashes, which are each engine's own), the board kind and
  status facts (captures, komi) and the observation planes. The games pass more and more
  often as the board fills, so some end by two passes and some by the move cap; superko
  refusals are met (counted, not assumed).
* The in-page search is the Python search on Go positions (the shipped levels' settings).
* The exported levels, and in Chromium a game on each board with the network cut off; the
  page's offline registry finds an entry by the chosen options (one rules module, two
  entries).

The node tests skip without node, the browser tests without Chromium or Playwright.
"""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pytest
from test_web_client import browser, page, server  # noqa: F401  (fixtures)
from test_web_offline import _node, check_search

import envs
from envs.stereo_go import kernel as K

BOARDS = {"stereo_go-board-9x9": {"board": "9x9"}, "stereo_go": {}}  # offline entry key: options


def _go_games(game: envs.Game, positions: int, every: int, seed: int) -> list[dict[str, Any]]:
    """Random games until ``positions`` plies are requested (every ``every``-th ply and the
    last): stones uniformly among the legal points, and a pass only when nothing else is
    legal (even games: they run to the move cap, kos fought over a crowded board) or with a
    chance that grows as the board fills (odd games: they end by two passes)."""
    rng = np.random.default_rng(seed)
    n = game.spec.pass_action
    games, total = [], 0
    while total < positions:
        state, moves, plies = game.initial_state(), [], []
        while True:
            if len(moves) % every == 0 or game.is_terminal(state):
                plies.append(len(moves))
            if game.is_terminal(state):
                break
            legal = game.legal_actions(state)
            stones = int((state.board != 0).sum())
            passing = len(games) % 2 and rng.random() < 0.5 * (stones / n) ** 4
            if len(legal) == 1 or passing:
                action = n
            else:
                action = int(rng.choice(legal[:-1]))
            moves.append(game.action_to_move(state, action))
            state = game.apply(state, action)
        plies = plies[: positions - total]
        games.append({"moves": moves, "plies": plies})
        total += len(plies)
    return games


def _superko_points(game: envs.Game, state: Any) -> int:
    """How many empty points positional superko alone refuses in ``state``."""
    return sum(
        int(K.legal_code(state.g, state.hist, game._C, p) == K.SUPERKO)
        for p in np.flatnonzero(state.board == 0))


RULES_CASES = {  # options, positions checked, every how many plies
    "9x9": ({"board": "9x9"}, 1000, 1),
    "cylinder": ({}, 1000, 3),
    "9x9-area": ({"board": "9x9", "rules": "area", "komi": 6.5}, 400, 1),  # no levels shipped
}


@pytest.mark.parametrize("case", RULES_CASES)
def test_in_page_go_rules_agree_with_the_python_engine(case):
    options, positions, every = RULES_CASES[case]
    game = envs.make_game("stereo_go", **options)
    games = _go_games(game, positions, every, seed=1)
    reports = iter(_node("offline_rules.mjs", {"game": "stereo_go", "options": options,
                                              "games": games}))
    key = case
    checked, superko, ends, captures = 0, 0, set(), 0
    for g, record in enumerate(games):
        state, plies = game.initial_state(), set(record["plies"])
        for ply in range(len(record["moves"]) + 1):
            if ply in plies:
                js = next(reports)
                where = f"{key} game {g} ply {ply}"
                over = game.is_terminal(state)
                assert js["legal"] == game.legal_moves(state), where
                assert js["terminal"] == over, where
                assert js["returns"] == game.returns(state).tolist(), where
                expected = game.to_json(state)
                expected.pop("history")
                assert js["json"] == expected, where
                assert js["board"] == game.board_view(state), where  # what the screen draws
                assert js["facts"] == game.status_facts(state), where  # and says under it
                if over:
                    ends.add(state.end_reason)
                    score = game.score(state)
                    assert js["result"]["score"] == [score.black, score.white + score.komi], where
                else:
                    assert js["result"] is None, where
                    assert js["to_play"] == game.spec.player_names[game.to_play(state)], where
                    obs = np.asarray(js["observation"], dtype=np.float32)
                    assert np.array_equal(obs, game.observation(state).ravel()), where
                    superko += _superko_points(game, state)
                captures = max(captures, sum(state.captures))
                checked += 1
            if ply < len(record["moves"]):
                state = game.play(state, record["moves"][ply])
    assert checked == positions
    assert ends == {"passes", "move_cap"}, ends
    assert superko > 0 and captures > 0, (superko, captures)


GO_SEARCHES = {  # the shipped Go levels' kinds of search
    "9x9-policy": ("stereo_go-board-9x9", {"algorithm": "gumbel", "simulations": 0,
                                          "max_considered": 16, "solver": True}),
    "9x9-master": ("stereo_go-board-9x9", {"algorithm": "gumbel", "simulations": 64,
                                          "max_considered": 16, "solver": True}),
    "cylinder-club": ("stereo_go", {"algorithm": "gumbel", "simulations": 16,
                                    "max_considered": 8, "solver": True}),
}


@pytest.mark.parametrize("case", GO_SEARCHES)
def test_in_page_go_search_is_the_python_search(case):
    key, settings = GO_SEARCHES[case]
    game = envs.make_game("stereo_go", **BOARDS[key])
    check_search(game, settings, plies=150, count=6)


# ============================================================================ in a browser
OFFLINE_PLAYS = {  # options, the person's first point, the AI level (a fast one)
    "9x9": ({"board": "9x9"}, "E5", "4"),
    "cylinder": ({}, "NP", "2"),
}


@pytest.mark.parametrize("case", OFFLINE_PLAYS)
def test_an_offline_go_game_without_the_server(page, server, case):  # noqa: F811
    """Stereo Go chosen in the start screen (the 9x9 board through its option), played in this
    browser: with the network cut off, the person's stone and then a pass, each answered by
    the AI level in the page, then a resignation (unless the AI's pass ended the game); no
    console errors, no request; the server then finds every move legal."""
    options, point, level = OFFLINE_PLAYS[case]
    errors: list[str] = []
    refused: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + "/")
    page.click('[data-game="stereo_go"]')
    if options:
        page.wait_for_selector('select[name="board"]')
        page.select_option('select[name="board"]', options["board"])
    key = "stereo_go-board-9x9" if options else "stereo_go"
    page.check(f'.where-box[data-offline="{key}"] input[name="where"][value="browser"]',
               timeout=30_000)
    page.wait_for_selector(f'select[name="seat-white"] option[value="ai:{level}"]',
                           state="attached", timeout=60_000)
    assert "AI in this browser" in page.inner_text('select[name="seat-white"]')
    page.select_option('select[name="seat-white"]', f"ai:{level}")
    page.select_option('select[name="seat-black"]', "human")
    page.click("#create")
    page.wait_for_selector("#game-screen:not([hidden])", timeout=60_000)
    assert "in this browser" in page.inner_text(".game-head h2")
    points = page.locator(".board-svg [data-point]").count()
    assert points == (81 if options else 359)

    context = page.context
    context.set_offline(True)
    context.route("**/*", lambda route: (refused.append(route.request.url), route.abort()))
    page.wait_for_timeout(1_000)

    def events() -> list[dict[str, Any]]:
        return page.evaluate("JSON.parse(localStorage.getItem('qizero.offline')).events")

    page.click(f'[data-point="{point}"]')
    page.wait_for_function(
        "JSON.parse(localStorage.getItem('qizero.offline')).events.length >= 2", timeout=60_000)
    page.wait_for_selector(f'[data-point="{point}"] .stone.black')
    page.wait_for_selector("#pass", timeout=60_000)  # black to play again
    page.click("#pass")
    page.wait_for_function(
        "JSON.parse(localStorage.getItem('qizero.offline')).events.length >= 4"
        " || document.querySelector('#status').textContent.startsWith('Game over')",
        timeout=60_000)
    if not page.inner_text("#status").startswith("Game over"):  # black resigns
        page.wait_for_selector("#resign", timeout=60_000)
        page.click("#resign")
        page.click("#confirm-dialog .dialog-ok")
        page.wait_for_selector("#status:has-text('Game over')")
        assert "white wins (resignation)" in page.inner_text("#status")
    played = events()
    context.unroute("**/*")
    context.set_offline(False)
    assert not refused, refused
    assert not errors, errors

    moves = [ev for ev in played if ev["t"] == "move"]
    assert [ev["m"] for ev in moves[:3:2]] == [point, "pass"]
    assert [(ev["seat"], ev.get("by"), ev.get("level")) for ev in moves[1::2]] == [
        ("white", "ai", level)] * len(moves[1::2])
    assert played[len(moves):] in ([], [{"t": "resign", "seat": "black"}])
    answer = httpx.post(f"{server}/v1/games/stereo_go/positions",
                        json={"moves": [ev["m"] for ev in moves], "config": options})
    assert answer.status_code == 200, answer.text  # every move legal
    if answer.json()["is_over"]:  # the AI passed back: scored as the page did
        winner = answer.json()["result"]["winner"]
        assert f"{winner} wins" in page.inner_text("#status")


REGISTRY_CASES = [  # game, chosen options, the offline entry the page finds (None: none)
    ("stereo_go", {"board": "cylinder", "komi": 7.5, "rules": "territory"}, "stereo_go"),
    ("stereo_go", {"board": "9x9"}, "stereo_go-board-9x9"),
    ("stereo_go", {"board": "9x9", "komi": "7.5", "handicap": "0"}, "stereo_go-board-9x9"),
    ("stereo_go", {"board": "9x9", "rules": "area"}, None),  # no levels for area scoring
    ("stereo_go", {"board": "cylinder", "handicap": 2}, None),
    ("jiugong", {}, "jiugong"),
    ("trigolden", {}, None),  # no in-page rules
]


def test_the_offline_registry_is_keyed_by_options(page, server):  # noqa: F811
    """offline/games.js finds the entry of a game and options in index.json, and builds that
    entry's rules from the game's one module with the entry's options (the cylinder and the
    9x9 board), giving the board kind and facts of the Python engine's initial position."""
    page.goto(server + "/")
    found = page.evaluate("""async (cases) => {
      const { offlineEntry, offlineRules } = await import('/js/offline/games.js');
      const out = [];
      for (const [game, config] of cases) {
        const entry = await offlineEntry(game, config);
        out.push(entry && entry.key);
      }
      const facts = {};
      for (const key of ['stereo_go', 'stereo_go-board-9x9']) {
        const rules = await offlineRules(key);
        const s = rules.initialState();
        facts[key] = [rules.numActions, rules.boardView(s), rules.statusFacts(s)];
      }
      return [out, facts];
    }""", [[game, config] for game, config, _ in REGISTRY_CASES])
    assert found[0] == [key for _, _, key in REGISTRY_CASES]
    for key, options in BOARDS.items():
        game = envs.make_game("stereo_go", **options)
        state = game.initial_state()
        assert found[1][key] == [game.spec.num_actions, game.board_view(state),
                                 game.status_facts(state)], key
