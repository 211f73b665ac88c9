"""A qizero player against GNU Go over GTP: N games, colours alternating, win rate printed.

Run: ``.venv/bin/python bench/gnugo_match.py PLAYER [--level L] [--games N] [--board 9x9]
[--komi 7.5] [--max-moves M] [--opening-plies K] [--seed S]``, e.g.
``bench/gnugo_match.py net:PATH:64 --level 10``.
PLAYER is a spec of ``training.players.make_player`` served by ``qizero gtp`` (a subprocess,
so the whole GTP path is exercised). Both programs only propose moves: the Stereo Go engine
referees (legality, positional superko, the move cap, Tromp-Taylor area score with the komi).
Games 2m and 2m + 1 start from the same K uniformly random moves (default 4), colours swapped:
both programs are deterministic, so without them the match would replay two games.
Prints one line per game and the qizero win rate with its 95 % Wilson interval (a game
the referee had to stop, e.g. GNU Go breaking positional superko, is void and not counted).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from training.arena import wilson  # noqa: E402
from training.gtp import (  # noqa: E402
    GtpClient,
    GtpError,
    format_score,
    play_game,
    random_opening,
)


def find_gnugo() -> str | None:
    """The gnugo program (Debian installs it in /usr/games, often not on PATH)."""
    found = shutil.which("gnugo")
    if found:
        return found
    return "/usr/games/gnugo" if os.access("/usr/games/gnugo", os.X_OK) else None


def qizero_argv(player: str, board: str, komi: float, seed: int) -> list[str]:
    return [sys.executable, str(REPO / "qizero_cli.py"), "gtp", "stereo_go", player,
            "--board", board, "--komi", f"{komi:g}", "--rules", "area", "--seed", str(seed)]


def gnugo_argv(gnugo: str, level: int, seed: int) -> list[str]:
    # --capture-all-dead: GNU Go removes dead stones before passing, as Tromp-Taylor scoring
    # (every stone on the board alive) needs; otherwise it passes with the opponent's dead
    # stones still in its territory and the referee counts them.
    return [gnugo, "--mode", "gtp", "--level", str(level), "--chinese-rules",
            "--capture-all-dead", "--seed", str(seed)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("player", help="qizero player spec: random, mcts:N, level:ID, net:PATH:SIMS")
    ap.add_argument("--level", type=int, default=1, help="GNU Go --level (0..10)")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--board", default="9x9")
    ap.add_argument("--komi", type=float, default=7.5)
    ap.add_argument("--max-moves", type=int, default=0, help="move cap (0 = 2 x points)")
    ap.add_argument("--opening-plies", type=int, default=4,
                    help="random moves that open each pair of games (0 = none)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.opening_plies < 0:
        ap.error("--opening-plies must be >= 0")
    gnugo = find_gnugo()
    if gnugo is None:
        print("gnugo is not installed (apt-get install gnugo)", file=sys.stderr)
        return 2
    wins = 0.0
    played = void = 0
    start = time.monotonic()
    with GtpClient(qizero_argv(args.player, args.board, args.komi, args.seed)) as qz, \
            GtpClient(gnugo_argv(gnugo, args.level, args.seed)) as gg:
        for i in range(args.games):
            qz_black = i % 2 == 0
            black, white = (qz, gg) if qz_black else (gg, qz)
            opening = random_opening(args.board, args.opening_plies,
                                     np.random.default_rng([args.seed, i // 2]))
            try:
                rec = play_game(black, white, args.board, args.komi, args.max_moves, opening)
            except GtpError as exc:  # e.g. GNU Go (simple ko only) breaking positional superko
                void += 1
                print(f"game {i + 1}: void: {exc}", flush=True)
                continue
            played += 1
            won = rec.winner == (0 if qz_black else 1)
            wins += won
            result = "resign" if rec.margin is None else format_score(rec.margin)
            print(f"game {i + 1}: qizero {'black' if qz_black else 'white'}, "
                  f"opening {' '.join(opening) or '-'}, "
                  f"{len(rec.moves)} moves, end {rec.end}, {result}: "
                  f"{'qizero' if won else 'gnugo'} wins", flush=True)
    lo, hi = wilson(wins, played)
    print(f"{args.player} vs gnugo --level {args.level} on {args.board}, komi {args.komi:g}, "
          f"area: {wins:g}/{played} = {wins / max(played, 1):.1%} "
          f"(95% CI {lo:.1%}..{hi:.1%}); {void} void; {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
