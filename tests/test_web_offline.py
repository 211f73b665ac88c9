"""The web client's offline mode (serving/static/js/offline, docs/web_client.md): Jiugong and
Fang Qi played in the page, rules, search and networks included.

* The in-page rules agree with the Python engines: legal moves, who moves, the end and the
  result, the state JSON and the observation planes on 1,000 positions of random games per
  game (the JavaScript run under node).
* The in-page search is the Python search: with the same (fake, exactly computable) network
  both give the same root visit counts, improved policy and value (node).
* The files: the vendored onnxruntime-web is the npm tarball's (SHA-256 in its manifest); one
  exported model per shipped level, with that level's search settings.
* In Chromium: a whole game of each against an in-page level with every request to the server
  refused once the game has started; the recorded moves then replayed through the server's
  ``POST /v1/games/{game}/positions``; and the in-page network's answers equal torch's.

The node tests skip without node, the browser tests without Chromium or Playwright.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from test_web_client import browser, page, server  # noqa: F401  (fixtures)

import envs
from agents.config import SearchConfig
from agents.players import read_levels
from agents.search import search
from serving.app import STATIC_DIR
from training.onnx_export import read_metadata

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "tests" / "js"
ORT_DIR = STATIC_DIR / "offline" / "ort"
MODELS = STATIC_DIR / "offline" / "models"
OFFLINE_GAMES = ("jiugong", "fangqi")
# every entry of the page's offline registry (offline/models/index.json, the models' folders):
# key -> (game id, options); Stereo Go's are checked further in tests/test_web_offline_go.py
OFFLINE_KEYS = {
    "jiugong": ("jiugong", {}),
    "fangqi": ("fangqi", {}),
    "stereo_go": ("stereo_go", {}),
    "stereo_go-board-9x9": ("stereo_go", {"board": "9x9"}),
}


def offline_game(key: str) -> envs.Game:
    """The Python engine of the offline entry ``key``."""
    game_id, options = OFFLINE_KEYS[key]
    return envs.make_game(game_id, **options)


def _node(script: str, request: dict[str, Any]) -> Any:
    """Run a harness of tests/js under node (ES modules) with ``request`` on stdin."""
    if shutil.which("node") is None:
        pytest.skip("the in-page engine is checked under node (apt-get install nodejs)")
    out = subprocess.run(
        ["node", "--experimental-default-type=module", str(HARNESS / script)],
        input=json.dumps(request), capture_output=True, text=True, timeout=120, check=False,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _random_games(game: envs.Game, positions: int, seed: int) -> list[dict[str, Any]]:
    """Random games until ``positions`` plies are requested: every ply of a game, except for
    long games (Fang Qi), where every third ply of the common phases and every ply of the
    rare ones (pull, capture, making room, the end)."""
    rng = np.random.default_rng(seed)
    games, total = [], 0
    while total < positions:
        state, moves, plies = game.initial_state(), [], []
        while True:
            common = game.to_json(state).get("phase", "x") in ("place", "step")
            if not common or len(moves) % 3 == 0 or game.spec.id == "jiugong":
                plies.append(len(moves))
            if game.is_terminal(state):
                break
            move = str(rng.choice(game.legal_moves(state)))
            moves.append(move)
            state = game.play(state, move)
        plies = plies[: positions - total]
        games.append({"moves": moves, "plies": plies})
        total += len(plies)
    return games


# ============================================================================ rules and search
@pytest.mark.parametrize("game_id", OFFLINE_GAMES)
def test_in_page_rules_agree_with_the_python_engine(game_id):
    game = envs.make_game(game_id)
    games = _random_games(game, 1000, seed=1)
    reports = iter(_node("offline_rules.mjs", {"game": game_id, "options": {}, "games": games}))
    checked = 0
    seen_phases: set[str] = set()
    for record in games:
        state, plies = game.initial_state(), set(record["plies"])
        for ply in range(len(record["moves"]) + 1):
            if ply in plies:
                js = next(reports)
                where = f"{game_id} game {games.index(record)} ply {ply}"
                over = game.is_terminal(state)
                assert sorted(js["legal"]) == sorted(game.legal_moves(state)), where
                assert js["terminal"] == over, where
                assert js["returns"] == game.returns(state).tolist(), where
                assert js["json"] == game.to_json(state), where
                assert js["board"] == game.board_view(state), where  # what the screen draws
                assert js["facts"] == game.status_facts(state), where  # and says under it
                if not over:
                    assert js["to_play"] == game.spec.player_names[game.to_play(state)], where
                    obs = np.asarray(js["observation"], dtype=np.float32)
                    assert np.array_equal(obs, game.observation(state).ravel()), where
                seen_phases.add(js["json"].get("phase", "-"))
                checked += 1
            if ply < len(record["moves"]):
                state = game.play(state, record["moves"][ply])
    phases = len(seen_phases)
    assert checked == 1000
    if game_id == "fangqi":  # every phase met: place, pull, step, capture, room, over
        assert phases == 6, seen_phases


class FakeNetwork:
    """An evaluator both languages compute alike (tests/js/offline_search.mjs): integer
    weights over the observation, logits / 16, value tanh(dot / 64), float32 priors."""

    def __init__(self, game: envs.Game, seed: int) -> None:
        rng = np.random.default_rng(seed)
        size = int(np.prod(game.spec.observation_shape))
        self.policy = rng.integers(-8, 9, size=(size, game.spec.num_actions))
        self.value = rng.integers(-8, 9, size=size)

    def evaluate(self, game: envs.Game, states: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        priors = np.zeros((len(states), game.spec.num_actions), dtype=np.float32)
        values = np.zeros(len(states), dtype=np.float32)
        for b, state in enumerate(states):
            obs = game.observation(state).astype(np.float64).ravel()
            legal = game.legal_actions(state)
            logits = (obs @ self.policy[:, legal]) / 16
            e = [float(np.exp(x - logits.max())) for x in logits]
            total = 0.0
            for x in e:  # in order, as the JavaScript sums
                total += x
            priors[b, legal] = [x / total for x in e]
            values[b] = np.tanh((obs @ self.value) / 64)
        return priors, values


SEARCHES = {  # the shipped levels' kinds of search, and the sampling-free Gumbel root
    "jiugong-puct": ("jiugong", {"algorithm": "puct", "simulations": 200,
                                 "policy_temperature": 2.0}),
    "fangqi-gumbel": ("fangqi", {"algorithm": "gumbel", "simulations": 64}),
    "fangqi-puct": ("fangqi", {"algorithm": "puct", "simulations": 48}),
    "jiugong-gumbel": ("jiugong", {"algorithm": "gumbel", "simulations": 24,
                                   "max_considered": 4}),
}


@pytest.mark.parametrize("case", SEARCHES)
def test_in_page_search_is_the_python_search(case):
    game_id, settings = SEARCHES[case]
    check_search(envs.make_game(game_id), settings)


def check_search(game: envs.Game, settings: dict[str, Any], plies: int = 60,
                 count: int = 12) -> None:
    """The in-page search of ``game`` (its rules built for its options) against
    agents.search on ``count`` positions of random games of up to ``plies`` plies, with the
    same fake network."""
    cfg = SearchConfig.model_validate({**settings, "gumbel_scale": 0.0, "temperature": 0.0})
    rng = np.random.default_rng(3)
    positions = []
    while len(positions) < count:
        state, moves = game.initial_state(), []
        for _ in range(int(rng.integers(0, plies))):
            if game.is_terminal(state):
                break
            moves.append(str(rng.choice(game.legal_moves(state))))
            state = game.play(state, moves[-1])
        if not game.is_terminal(state):
            positions.append(moves)
    fake = FakeNetwork(game, seed=5)
    results = _node("offline_search.mjs", {
        "game": game.spec.id, "options": dataclasses.asdict(game.config),
        "cfg": cfg.model_dump(mode="json"), "positions": positions,
        "policy": fake.policy.tolist(), "value": fake.value.tolist(),
    })
    for moves, js in zip(positions, results):
        state = game.initial_state()
        for m in moves:
            state = game.play(state, m)
        py = search(game, [state], fake, cfg, np.random.default_rng(0))[0]
        actions = [game.move_to_action(state, m) for m in js["moves"]]
        assert js["visits"] == py.visits[actions].tolist(), moves
        assert np.allclose(js["policy"], py.policy[actions], rtol=0, atol=1e-6), moves  # float32
        assert js["value"] == pytest.approx(py.value, abs=1e-9), moves
        best = py.visits[actions] == py.visits.max()
        if best.sum() == 1:  # no random tie-break: the same move
            assert js["move"] == game.action_to_move(state, py.action), moves


# ============================================================================ the files
def test_vendored_onnxruntime_web_is_the_npm_package():
    manifest = json.loads((ORT_DIR / "manifest.json").read_text())
    script = (ROOT / "scripts" / "vendor_onnxruntime_web.py").read_text()
    assert manifest["package"] == "onnxruntime-web"
    assert f'VERSION = "{manifest["version"]}"' in script
    on_disk = {p.name for p in ORT_DIR.iterdir()} - {"manifest.json"}
    assert on_disk == set(manifest["files"])
    for name, facts in manifest["files"].items():
        data = (ORT_DIR / name).read_bytes()
        assert len(data) == facts["bytes"], name
        assert hashlib.sha256(data).hexdigest() == facts["sha256"], name
    # the network module imports the vendored build, nothing else
    network = (STATIC_DIR / "js" / "offline" / "network.js").read_text()
    assert "'../../offline/ort/ort.wasm.bundle.min.mjs'" in network


@pytest.mark.parametrize("key", OFFLINE_KEYS)
def test_one_exported_model_per_level_with_its_search(key):
    game = offline_game(key)
    manifest = json.loads((MODELS / key / "levels.json").read_text())
    assert manifest["game"] == key
    shipped = read_levels(game).to_json()["levels"]
    assert [lv["id"] for lv in manifest["levels"]] == [str(lv["id"]) for lv in shipped]
    for entry, level in zip(manifest["levels"], shipped):
        assert entry["label"] == level["label"]
        assert entry["search"] == level["search"], entry["id"]
        assert entry["checkpoint"]["file"] == level["checkpoint"]
        data = (MODELS / key / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
        meta = read_metadata(MODELS / key / entry["file"])  # what the model says of itself
        assert (meta["game"]["id"], meta["level"]["id"]) == (game.spec.id, level["id"])
        assert meta["game"]["options"] == dataclasses.asdict(game.config), entry["id"]
        assert meta["search"] == level["search"], entry["id"]
    assert {p.name for p in (MODELS / key).iterdir()} == {
        "levels.json", *(lv["file"] for lv in manifest["levels"])}
    index = json.loads((MODELS / "index.json").read_text())  # the page's offline registry
    rows = {row["key"]: row for row in index["games"]}
    assert set(rows) == set(OFFLINE_KEYS)
    assert rows[key] == {"key": key, "game": game.spec.id,
                         "options": dataclasses.asdict(game.config)}
    module = (STATIC_DIR / "js" / "offline" / f"{game.spec.id}.js").read_text()
    assert re.search(r"^export (const rules = |\{ \w+ as rules \};)", module, re.M), game.spec.id


# ============================================================================ in a browser
def _clicks_for_a_move(pg, rng: random.Random) -> list[str]:
    """Points to click for one random legal move of the person to play, from the board's
    marks: removable pieces, placement dots, or a movable piece and then one of its targets."""
    removable = pg.eval_on_selector_all(".point.removable", "e => e.map(x => x.dataset.point)")
    targets = pg.eval_on_selector_all(".point.target", "e => e.map(x => x.dataset.point)")
    movable = pg.eval_on_selector_all(".point.movable", "e => e.map(x => x.dataset.point)")
    if removable or targets:
        return [rng.choice(removable or targets)]
    piece = rng.choice(movable)
    pg.click(f'[data-point="{piece}"]')
    pg.wait_for_selector(f'[data-point="{piece}"].selected')
    targets = pg.eval_on_selector_all(".point.target", "e => e.map(x => x.dataset.point)")
    return [rng.choice(targets)]


def _moves_in_page(pg) -> list[dict[str, Any]]:
    return pg.evaluate("JSON.parse(localStorage.getItem('qizero.offline')).events")


OFFLINE_PLAYS = {
    # game, the person's seat, the AI seat and its level, moves the person clicks before the
    # seat is handed to a level of its own (the rest of the game is then AI against AI)
    "jiugong": ("jiugong", "south", "north", "5", 200, "1"),
    "fangqi": ("fangqi", "white", "black", "5", 12, "2"),
}


@pytest.mark.parametrize("case", [  # Fang Qi's whole game is over 5 s: `make test-slow`
    pytest.param(case, marks=[pytest.mark.slow] if case == "fangqi" else [])
    for case in OFFLINE_PLAYS])
def test_a_whole_offline_game_without_the_server(page, server, case):  # noqa: F811
    game_id, person, ai, level, clicks, takeover = OFFLINE_PLAYS[case]
    refused: list[str] = []
    page.goto(server + "/")
    page.click(f'[data-game="{game_id}"]')
    page.check('input[name="where"][value="browser"]')
    # The level list and the networks load from the server first: slow on a loaded machine.
    page.wait_for_selector(f'select[name="seat-{ai}"] option[value="ai:{level}"]', state="attached",
                           timeout=60_000)
    assert "AI in this browser" in page.inner_text(f'select[name="seat-{ai}"]')
    page.select_option(f'select[name="seat-{ai}"]', f"ai:{level}")
    page.select_option(f'select[name="seat-{person}"]', "human")
    page.click("#create")
    page.wait_for_selector("#game-screen:not([hidden])",  # every level's network is loaded
                           timeout=60_000)
    assert "in this browser" in page.inner_text(".game-head h2")

    # unplugged: the server refuses nothing because nothing may reach it
    context = page.context
    context.set_offline(True)
    context.route("**/*", lambda route: (refused.append(route.request.url), route.abort()))
    page.wait_for_timeout(5_500)  # longer than the page waits to reopen a closed event stream
    rng = random.Random(0)
    for _ in range(clicks):
        page.wait_for_function("document.querySelector('#status').textContent.includes("
                               f"'{person} to play') || document.querySelector('#status')"
                               ".textContent.startsWith('Game over')")
        if page.inner_text("#status").startswith("Game over"):
            break
        before = len(_moves_in_page(page))
        for point in _clicks_for_a_move(page, rng):
            page.click(f'[data-point="{point}"]')
        page.wait_for_function(
            f"JSON.parse(localStorage.getItem('qizero.offline')).events.length > {before}")
    if not page.inner_text("#status").startswith("Game over"):  # a level takes the seat over
        page.select_option(f'select.seat-type[data-seat="{person}"]', takeover)
    page.wait_for_selector("#status:has-text('Game over')", timeout=120_000)
    status = page.inner_text("#status")
    events = _moves_in_page(page)
    context.unroute("**/*")
    context.set_offline(False)
    assert not refused, refused

    assert {ev["seat"] for ev in events if ev.get("by") == "ai"} >= {ai}
    answer = httpx.post(f"{server}/v1/games/{game_id}/positions",
                        json={"moves": [ev["m"] for ev in events]})
    assert answer.status_code == 200, answer.text  # every move legal
    position = answer.json()
    assert position["is_over"]
    winner = position["result"]["winner"] if position["result"] else None
    assert (f"{winner} wins" if winner else "draw") in status, (status, position["result"])


@pytest.mark.parametrize("key", OFFLINE_KEYS)
def test_in_page_network_answers_as_torch(page, server, key):  # noqa: F811
    """The exported model under onnxruntime-web, fed by the in-page observation, gives the
    priors and value the service's torch evaluator gives (a few positions, every level)."""
    from agents.checkpoint import load_model
    from agents.evaluator import NetworkEvaluator
    from agents.players import levels_folder

    game = offline_game(key)
    games = _random_games(game, 6, seed=2)[0]
    moves = [games["moves"][:k] for k in range(0, min(len(games["moves"]), 40), 7)]
    states = []
    for prefix in moves:
        state = game.initial_state()
        for m in prefix:
            state = game.play(state, m)
        if not game.is_terminal(state):
            states.append((prefix, state))
    manifest = json.loads((MODELS / key / "levels.json").read_text())
    page.goto(server + "/")
    answers = page.evaluate("""async ([gameId, files, positions]) => {
      const { Network } = await import('/js/offline/network.js');
      const { offlineRules } = await import('/js/offline/games.js');
      const game = await offlineRules(gameId);
      const out = [];
      for (const file of files) {
        const net = await Network.load(game, `/offline/models/${gameId}/${file}`);
        const rows = [];
        for (const moves of positions) {
          let s = game.initialState();
          for (const m of moves) s = game.apply(s, game.moveToAction(s, m));
          const [p, v] = await net.evaluate(s);
          rows.push([Array.from(p), v]);
        }
        out.push(rows);
      }
      return out;
    }""", [key, [lv["file"] for lv in manifest["levels"]], [p for p, _ in states]])
    for lv, rows in zip(manifest["levels"], answers):
        checkpoint = levels_folder(game) / lv["checkpoint"]["file"]
        evaluator = NetworkEvaluator(load_model(checkpoint).model)
        priors, values = evaluator.evaluate(game, [s for _, s in states])
        assert np.allclose([p for p, _ in rows], priors, atol=1e-4), lv["id"]
        assert np.allclose([v for _, v in rows], values, atol=1e-4), lv["id"]
