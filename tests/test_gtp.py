"""The GTP front end (``qizero gtp``): commands in-process, over a subprocess, and vs GNU Go."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from envs import make_game
from envs.core import ConfigError
from training.config import config_from_dict
from training.gtp import (
    GtpClient,
    GtpEngine,
    GtpError,
    format_score,
    play_game,
    random_opening,
)
from training.learner import Learner, checkpoint_path

REPO = Path(__file__).resolve().parent.parent
GNUGO = "/usr/games/gnugo"
HAVE_GNUGO = Path(GNUGO).is_file()


def ask(engine: GtpEngine, line: str) -> str:
    """The answer text of one command; '?'-answers come back prefixed with '?'."""
    response = engine.handle(line)
    assert response is not None and response.endswith("\n\n")
    body = response[:-2]
    return body[2:] if body.startswith("= ") else body if body.startswith("?") else body[1:]


@pytest.fixture
def go9() -> GtpEngine:
    return GtpEngine("random", board="9x9", komi=7.5, seed=1)


def test_administrative_commands(go9: GtpEngine) -> None:
    assert ask(go9, "protocol_version") == "2"
    assert ask(go9, "name") == "qizero"
    assert "random" in ask(go9, "version")
    listed = ask(go9, "list_commands").split("\n")
    for cmd in ("protocol_version", "name", "version", "known_command", "list_commands",
                "boardsize", "clear_board", "komi", "play", "genmove", "quit", "showboard",
                "final_score", "undo"):
        assert cmd in listed
        assert ask(go9, f"known_command {cmd}") == "true"
    assert ask(go9, "known_command fly") == "false"
    assert go9.handle("7 protocol_version") == "=7 2\n\n"
    assert go9.handle("8 fly") == "?8 unknown command\n\n"
    assert go9.handle("name   # a comment") == "= qizero\n\n"
    assert go9.handle("# only a comment") is None and go9.handle("   ") is None
    assert go9.handle("na\x01me") == "= qizero\n\n"  # control characters are dropped
    assert go9.handle("quit") == "=\n\n" and go9.finished


def test_play_genmove_and_errors(go9: GtpEngine) -> None:
    assert ask(go9, "play B d4") == ""
    assert ask(go9, "play black D5").startswith("? illegal move (white to play)")
    assert ask(go9, "play w D4") == "? illegal move (the point is occupied)"
    assert ask(go9, "play w Z9").startswith("? illegal move (not a point")
    assert ask(go9, "play x D5").startswith("? syntax error")
    assert ask(go9, "play w").startswith("? syntax error")
    move = ask(go9, "genmove w")
    game = make_game("stereo_go", board="9x9")
    s = game.play(game.initial_state(), "D4")
    game.move_to_action(s, move)  # a legal vertex for white (IllegalMove otherwise)
    assert ask(go9, "genmove w").startswith("? black to play")
    board = ask(go9, "showboard")
    assert board.count("X") == 1 and board.count("O") == (0 if move == "pass" else 1)


def test_final_score_is_area_tromp_taylor() -> None:
    eng = GtpEngine("random", board="5x5", komi=0.5)
    ask(eng, "play b C3")
    # One black stone owns the whole empty board: 25 points - 0.5 komi.
    assert ask(eng, "final_score") == "B+24.5"
    assert ask(eng, "komi 6.5") == ""  # the game is rebuilt and the move replayed
    assert ask(eng, "final_score") == "B+18.5"
    assert ask(eng, "komi 0.3").startswith("?")
    assert ask(eng, "komi x").startswith("? syntax error")
    assert ask(eng, "undo") == "" and ask(eng, "final_score") == "W+6.5"
    assert ask(eng, "undo") == "? cannot undo"
    # Black walls column C, White column D: black A..C = 15, white D..E = 10.
    ask(eng, "komi 0.5")
    for rank in range(1, 6):
        assert ask(eng, f"play b C{rank}") == "" and ask(eng, f"play w D{rank}") == ""
    assert ask(eng, "final_score") == "B+4.5"
    ask(eng, "clear_board")
    assert ask(eng, "final_score") == "W+0.5"


def test_game_end_and_boardsize(go9: GtpEngine) -> None:
    ask(go9, "play b pass")
    ask(go9, "play w pass")  # two passes end the game
    assert ask(go9, "genmove b") == "pass"
    assert ask(go9, "play b C3") == "? illegal move (the game is over)"
    assert ask(go9, "boardsize 7") == ""  # a new, empty 7x7 game
    assert ask(go9, "showboard").count("\n 7 ") == 1
    assert ask(go9, "play b G7") == ""
    assert ask(go9, "boardsize 20") == "? unacceptable size"
    assert ask(go9, "boardsize 4") == "? unacceptable size"
    assert ask(go9, "boardsize x").startswith("? syntax error")


def test_cylinder_board_is_fixed() -> None:
    eng = GtpEngine("random", board="cylinder", seed=2)
    assert ask(eng, "boardsize 9").startswith("? unacceptable size")
    assert ask(eng, "play b NP") == ""
    move = ask(eng, "genmove w")
    game = make_game("stereo_go")
    game.move_to_action(game.play(game.initial_state(), "NP"), move)
    target = "I20" if move == "I21" else "I21"  # the letter I is a meridian here
    assert ask(eng, f"play b {target}") == ""
    assert "NP" in ask(eng, "showboard")


def test_net_player_over_gtp(tmp_path: Path) -> None:
    cfg = config_from_dict({
        "game": {"id": "stereo_go", "options": {"board": "9x9"}},
        "network": {"kind": "resnet", "channels": 4, "blocks": 1, "value_hidden": 4},
    })
    Learner(cfg, tmp_path, tensorboard=False)  # writes the iteration-0 checkpoint
    eng = GtpEngine(f"net:{checkpoint_path(tmp_path, 0)}:2", board="9x9")
    move = ask(eng, "genmove b")
    game = make_game("stereo_go", board="9x9")
    game.move_to_action(game.initial_state(), move)
    # The net fits only its board: a 7x7 board gives a GTP error, not a crash.
    ask(eng, "boardsize 7")
    assert ask(eng, "genmove b").startswith("? internal error")
    assert ask(eng, "name") == "qizero"


def test_format_score() -> None:
    assert format_score(3.5) == "B+3.5" and format_score(-0.5) == "W+0.5"
    assert format_score(0) == "0" and format_score(12.0) == "B+12"


def _qizero(*extra: str) -> list[str]:
    return [sys.executable, str(REPO / "qizero_cli.py"), "gtp", "stereo_go", *extra]


def test_subprocess_session() -> None:
    with GtpClient(_qizero("random", "--board", "9x9", "--seed", "3"), cwd=str(REPO)) as qz:
        assert qz("protocol_version") == "2"
        assert qz("boardsize 9") == "" and qz("clear_board") == "" and qz("komi 7.5") == ""
        assert qz("play b E5") == ""
        move = qz("genmove w")
        game = make_game("stereo_go", board="9x9")
        game.move_to_action(game.play(game.initial_state(), "E5"), move)
        assert qz("final_score")[0] in "BW0"
        with pytest.raises(GtpError, match="illegal move"):
            qz("play w E5")
    assert qz.proc.returncode == 0


def test_random_opening_is_legal_reproducible_and_never_passes() -> None:
    game = make_game("stereo_go", board="9x9")
    openings = [random_opening("9x9", 6, np.random.default_rng(seed)) for seed in range(20)]
    assert openings[3] == random_opening("9x9", 6, np.random.default_rng(3))
    assert len({tuple(o) for o in openings}) == 20
    for opening in openings:
        state = game.initial_state()
        for move in opening:  # IllegalMove if one is not legal in turn
            assert move != "pass"
            state = game.play(state, move)
        assert len(opening) == 6 and not game.is_terminal(state)
    assert random_opening("9x9", 0, np.random.default_rng(0)) == []
    with pytest.raises(ConfigError, match="opening plies"):
        random_opening("9x9", -1, np.random.default_rng(0))


def test_play_game_from_an_opening() -> None:
    """Both programs get the opening with ``play``; the record starts with it."""
    with GtpClient(_qizero("random", "--board", "9x9", "--seed", "1"), cwd=str(REPO)) as b, \
            GtpClient(_qizero("random", "--board", "9x9", "--seed", "2"), cwd=str(REPO)) as w:
        rec = play_game(b, w, "9x9", 7.5, max_moves=30, opening=["E5", "D4", "F6"])
        assert rec.moves[:3] == ["E5", "D4", "F6"] and len(rec.moves) <= 30
        assert rec.end in ("passes", "move_cap")
        # Both programs saw the same game as the referee, opening included.
        assert b("final_score") == w("final_score") == format_score(rec.margin)
        with pytest.raises(GtpError, match="the opening has an illegal move"):
            play_game(b, w, "9x9", 7.5, max_moves=30, opening=["E5", "E5"])


def test_cli_refuses_other_games() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "qizero_cli.py"), "gtp", "jiugong", "random"],
        capture_output=True, text=True, cwd=str(REPO), timeout=60,
    )
    assert proc.returncode == 2 and "GTP serves Go only" in proc.stderr


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_cli_threads() -> None:
    """The engine's PyTorch threads are set from --threads (1 by default); 0 is refused."""
    probe = ("import sys, torch\n"
             "sys.argv = ['qizero', 'gtp', 'stereo_go', 'random', *sys.argv[1:]]\n"
             "import training.gtp as g\n"
             "g.GtpEngine.serve = lambda self: print('threads', torch.get_num_threads())\n"
             "import qizero_cli\n"
             "sys.exit(qizero_cli.main())")
    for extra, want in (([], "threads 1"), (["--threads", "2"], "threads 2")):
        proc = subprocess.run([sys.executable, "-c", probe, *extra], capture_output=True,
                              text=True, cwd=str(REPO), timeout=120)
        assert proc.returncode == 0 and want in proc.stdout, proc.stderr
    proc = subprocess.run(_qizero("random", "--threads", "0"), capture_output=True, text=True,
                          cwd=str(REPO), timeout=60)
    assert proc.returncode == 2 and "--threads must be >= 1" in proc.stderr


@pytest.mark.needs("gnugo")
@pytest.mark.skipif(not HAVE_GNUGO, reason="GNU Go is not installed (apt-get install gnugo): "
                    "the games against it need /usr/games/gnugo")
def test_random_against_gnugo_level_1() -> None:
    """Two short 9x9 games over GTP, colours swapped: the plumbing works end to end."""
    gnugo = [GNUGO, "--mode", "gtp", "--level", "1", "--chinese-rules", "--capture-all-dead",
             "--seed", "1"]
    with GtpClient(_qizero("random", "--board", "9x9", "--seed", "1"), cwd=str(REPO)) as qz, \
            GtpClient(gnugo) as gg:
        assert gg("name") == "GNU Go"
        for qz_black in (True, False):
            black, white = (qz, gg) if qz_black else (gg, qz)
            rec = play_game(black, white, "9x9", 7.5, max_moves=100)
            assert rec.end in ("passes", "move_cap", "resign") and len(rec.moves) > 10
            assert rec.winner == (1 if qz_black else 0)  # GNU Go beats the random player
            if rec.margin is not None:
                assert (rec.margin > 0) == (rec.winner == 0)
