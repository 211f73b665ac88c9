"""Differential test of the Stereo Go engine against GNU Go on 9x9, driven over GTP.

Seeded random games are played in both programs side by side. After every move the stones on
the board must agree exactly; every move this engine calls legal must be legal for GNU Go;
and every move GNU Go calls legal must be legal here unless positional superko forbids it
(GNU Go only knows simple ko): those are counted and must be rare.

Needs the ``gnugo`` program (Debian package ``gnugo``, which ``.ci/run`` installs); the tests
skip with that reason when it is absent. The default suite plays a few games; the ``slow``
test plays many and prints the agreement figures (run with ``-m slow -s``).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import numpy as np
import pytest

from envs import make_game
from envs.stereo_go import kernel as K

GNUGO = shutil.which("gnugo") or (
    "/usr/games/gnugo" if os.access("/usr/games/gnugo", os.X_OK) else None
)
pytestmark = [
    pytest.mark.needs("gnugo"),
    pytest.mark.skipif(
        GNUGO is None,
        reason="GNU Go is not installed (apt-get install gnugo): the differential test needs it",
    ),
]

game = make_game("stereo_go", board="9x9", rules="area")


class Gtp:
    """A GNU Go process spoken to over GTP (one command, one answer)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [GNUGO, "--mode", "gtp", "--level", "0"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def __call__(self, command: str) -> str:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise RuntimeError(f"GNU Go exited during {command!r}")
            if line.strip() == "" and lines:
                break
            if line.strip():
                lines.append(line.strip())
        answer = " ".join(lines)
        if not answer.startswith("="):
            raise RuntimeError(f"GNU Go refused {command!r}: {answer}")
        return answer[1:].strip()

    def close(self) -> None:
        try:
            self("quit")
        except RuntimeError:
            pass
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def gnugo():
    gtp = Gtp()
    yield gtp
    gtp.close()


def play_game(gtp: Gtp, seed: int, max_plies: int = 200) -> dict[str, int]:
    """One seeded random game in both programs; returns what was compared."""
    rng = random.Random(seed)
    gtp("boardsize 9")
    gtp("clear_board")
    gtp("komi 7.5")
    s = game.initial_state()
    names = game.board.names
    counts = {"moves": 0, "legal_checks": 0, "superko_only": 0}
    for _ in range(max_plies):
        if game.is_terminal(s):
            break
        colour = ("black", "white")[game.to_play(s)]
        ours = {names[int(a)] for a in game.legal_actions(s) if a != game.n_points}
        theirs = set(gtp(f"all_legal {colour}").split())
        assert ours <= theirs, f"seed {seed} ply {s.ply}: GNU Go refuses {ours - theirs}"
        for name in theirs - ours:
            code = K.legal_code(s.g, s.hist, game._C, game.parse_point(name))
            assert code == K.SUPERKO, f"seed {seed} ply {s.ply}: {name} refused here ({code})"
            counts["superko_only"] += 1
        counts["legal_checks"] += len(theirs)
        stones = sorted(ours)
        move = rng.choice(stones) if stones and rng.random() < 0.98 else "pass"
        gtp(f"play {colour} {move}")
        s = game.play(s, move)
        counts["moves"] += 1
        for value, colour_name in ((1, "black"), (2, "white")):
            here = {names[p] for p in np.flatnonzero(s.board == value)}
            there = set(gtp(f"list_stones {colour_name}").split())
            assert here == there, f"seed {seed} ply {s.ply}: {colour_name} stones differ"
    return counts


def test_random_games_agree_with_gnugo(gnugo):
    totals = {"moves": 0, "legal_checks": 0, "superko_only": 0}
    for seed in range(3):
        for k, v in play_game(gnugo, seed).items():
            totals[k] += v
    assert totals["moves"] > 300
    assert totals["superko_only"] <= totals["moves"] // 100 + 1


@pytest.mark.slow
def test_many_random_games_agree_with_gnugo(gnugo):
    games = 200
    totals = {"moves": 0, "legal_checks": 0, "superko_only": 0}
    for seed in range(1000, 1000 + games):
        for k, v in play_game(gnugo, seed, max_plies=400).items():
            totals[k] += v
    print(
        f"\nGNU Go agreement: {games} games, {totals['moves']} moves compared (stones after "
        f"every move), {totals['legal_checks']} GNU Go-legal moves checked, mismatches 0, "
        f"legal for GNU Go but refused here by superko: {totals['superko_only']}"
    )
    assert totals["superko_only"] <= totals["moves"] // 100 + 1
