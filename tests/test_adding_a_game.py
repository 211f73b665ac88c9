"""docs/adding_a_game.md, done end to end for its example, Connect Four (examples/connect_four):
a game added as a new user would, with no change in agents/, training/, serving/ or the web client.

Every step runs as the guide says, in processes that name the plugin (QIZERO_GAME_MODULES):
the generic engine checks, a tiny training run, its levels, the service (a search process of
its own included) and the web client, played at a desktop and a phone size against its AI.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving_helpers import Server
from test_web_client import browser  # noqa: F401  (the shared Chromium fixture)

from agents.levels_file import LEVELS_FILE, LevelsFile

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "examples.connect_four"
CONFIG = ROOT / "examples" / "connect_four" / "connect_four.yaml"
GAME = "connect_four"


def plugin_env(**extra: str) -> dict[str, str]:
    """The environment of every command of the guide: the plugin named, its folder importable."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, QIZERO_GAME_MODULES=PLUGIN, PYTHONPATH=path, **extra)


def qizero(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "qizero_cli", *args], cwd=cwd, env=plugin_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"qizero {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A tiny run of the example's config and its levels (one level above random), written
    where the service looks: ``<root>/checkpoints/connect_four``."""
    root = tmp_path_factory.mktemp("connect_four")
    run = root / "run"
    qizero("train", str(CONFIG), "--run-dir", str(run), "--iterations", "2", "--no-progress",
           "--set", "training.steps_per_iteration=10", "--set", "selfplay.workers=0",
           "--set", "selfplay.games_per_iteration=8", "--set", "training.eval_every=0",
           # One level, the raw policy: it beats random often enough to be placed above it
           # (a level that wins every game has no finite interval, and is never "ordered").
           "--set", "levels.pairs=all",
           "--set", "levels.ladder=[{label: tiny, checkpoint: 1.0, simulations: 0}]")
    qizero("levels", GAME, "--run", str(run), "--out", str(root / "checkpoints" / GAME),
           "--games", "24")
    return root


@pytest.fixture(scope="module")
def server(trained) -> Iterator[Server]:
    """``qizero serve`` with the plugin, one search process (spawned: it must find the game
    through the same variable) and the tiny levels."""
    srv = Server(trained, database=trained / "sessions.sqlite3",
                 env={"QIZERO_GAME_MODULES": f"{PLUGIN}, text_board_game",
                      "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
                      "QIZERO_SEARCH_PROCESSES": "1"})
    yield srv
    srv.stop()


def test_the_generic_engine_checks_pass():
    """tests/test_contract.py, which checks every registered game, with the plugin's game."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         str(ROOT / "tests" / "test_contract.py"), "-k", GAME],
        cwd=ROOT, env=plugin_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-500:]


def test_training_writes_a_checkpoint_and_levels(trained):
    assert sorted(p.name for p in (trained / "run" / "checkpoints").glob("ckpt_*.pt"))
    path = trained / "checkpoints" / GAME / LEVELS_FILE
    assert path.is_file(), sorted(p.name for p in path.parent.iterdir())
    levels = LevelsFile.read(path)
    assert levels.game == GAME and levels.levels
    assert all((path.parent / lv.checkpoint).is_file() for lv in levels.levels if lv.checkpoint)


def test_the_service_serves_the_game_and_a_suggestion(server):
    catalogue = server.client.get("/v1/games").json()
    entry = next(g for g in catalogue if g["id"] == GAME)
    assert entry["board_kind"] == "grid" and entry["labels"]["zh"]["game.connect_four"]
    position = server.client.post(f"/v1/games/{GAME}/positions", json={"moves": ["d", "d"]})
    assert position.status_code == 200, position.text
    board = position.json()["board"]
    assert board["kind"] == "grid" and board["click"] == "column"
    assert board["cells"][5][3] == 0 and board["cells"][4][3] == 1  # row 0 is the top
    assert position.json()["facts"] == [
        {"key": "state.connect_four.discs", "args": {"n": 2, "total": 42}}]
    levels = server.client.get(f"/v1/games/{GAME}/levels").json()["levels"]
    suggestion = server.client.post(f"/v1/games/{GAME}/suggest",
                                    json={"moves": ["d"], "level": levels[-1]["id"], "seed": 1})
    assert suggestion.status_code == 200, suggestion.text
    assert suggestion.json()["move"] in "abcdefg"
    assert server.children(), "the service runs its searches in a process of its own"


def _game_over(page) -> bool:
    return "over" in page.inner_text("#status").lower()


@pytest.mark.parametrize("size", [(1366, 800), (390, 844)], ids=["desktop", "phone"])
def test_connect_four_is_played_against_its_ai_on_the_generic_board(
    browser, server, size  # noqa: F811  (the imported fixture)
):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(20_000)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    try:
        page.goto(server.url + "/")
        page.click(f'[data-game="{GAME}"]')
        page.wait_for_selector(f'[data-game="{GAME}"].chosen')
        assert page.inner_text(f'[data-game="{GAME}"]').startswith("Connect Four")
        ai = page.locator('select[data-seat="yellow"] option[value^="ai:"]').first
        page.select_option('select[data-seat="yellow"]', ai.get_attribute("value"))
        page.click("#create")
        page.wait_for_selector('#game-screen:not([hidden]) .game-body[data-board="grid"]')
        assert page.locator(".grid-board [data-cell]").count() == 42
        assert page.inner_text(".state-line") == "0 of 42 discs played"
        assert "rules.connect_four" not in page.inner_text("#game-screen")  # no raw label key
        played = _play_to_the_end(page)
        assert played >= 4  # four red discs at least before anyone can connect four
        assert _no_overflow(page), "the page scrolls sideways"
        page.click('#lang-switch [data-lang="zh"]')  # the game's own labels, in Chinese
        assert page.inner_text(".game-head h2") == "四子棋"
        assert page.inner_text(".state-line").startswith("已下 ")
        assert page.locator('.seat-row[data-seat="yellow"] .seat-name').inner_text() == "黄方"
    finally:
        context.close()
    assert not problems, problems


def _play_to_the_end(page) -> int:
    """Red (the person) drops into the first open column, yellow (the AI) answers, until the
    game ends; the number of red discs dropped."""
    played = 0
    while not _game_over(page):
        page.wait_for_function(
            "document.querySelector('.grid-column.target') || "
            "document.querySelector('#status').textContent.toLowerCase().includes('over')")
        if _game_over(page):
            break
        column = page.locator(".grid-column.target").first.get_attribute("data-column")
        page.locator(f'.grid-column[data-column="{column}"] [data-cell]').first.click()
        played += 1
        page.wait_for_function(
            f"document.querySelectorAll('#moves li:not(.pending)').length >= {2 * played} || "
            "document.querySelector('#status').textContent.toLowerCase().includes('over')")
        assert played <= 21
    return played


def test_a_game_without_a_board_is_played_as_text(browser, server):  # noqa: F811
    """A plugin game that names no board kind: its text picture and a button per legal move."""
    created = server.client.post("/v1/sessions", json={"game": "plain_connect_four"}).json()
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(20_000)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    try:
        page.goto(f"{server.url}/#session={created['session']['id']}"
                  f"&token={created['owner_token']}")
        page.wait_for_selector('#game-screen:not([hidden]) .game-body[data-board="text"]')
        assert page.locator(".move-button").count() == 7
        page.click('.move-button[data-move="d"]')
        page.wait_for_function("document.querySelector('.board-text').textContent"
                               ".includes('R')")
        assert page.locator("#moves li").count() == 1
        assert _no_overflow(page)
    finally:
        context.close()
    assert not problems, problems


def _no_overflow(page: Any) -> bool:
    return page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_the_plugin_variable_names_modules_that_must_import():
    from envs.core import ConfigError
    from envs.plugins import load_plugins, plugin_modules

    assert plugin_modules("a.b, c  d") == ["a.b", "c", "d"]
    with pytest.raises(ConfigError, match="QIZERO_GAME_MODULES names 'no_such_games'"):
        load_plugins("no_such_games")


def test_a_grid_board_is_checked_against_its_labels():
    from envs.boards import grid_board

    board = grid_board([[0, None], [None, 1]], "ab", "21", click="cell", highlight=["a2"])
    assert board == {"kind": "grid", "rows": 2, "cols": 2, "col_labels": ["a", "b"],
                     "row_labels": ["2", "1"], "cells": [[0, None], [None, 1]],
                     "click": "cell", "highlight": ["a2"]}
    with pytest.raises(ValueError, match="cells must be 2 rows of 3"):
        grid_board([[0, None], [None, 1]], "abc", "21")
