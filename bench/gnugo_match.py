"""A qizero player against GNU Go or Pachi over GTP: N games, colours alternating, win rate printed.

Run: ``.venv/bin/python bench/gnugo_match.py PLAYER [--opponent gnugo|pachi] [--level L]
[--pachi PATH] [--playouts P] [--games N] [--board 9x9] [--komi 7.5] [--max-moves M]
[--opening-plies K] [--seed S]``, e.g. ``bench/gnugo_match.py net:PATH:64 --level 10`` or
``bench/gnugo_match.py level:master --opponent pachi --playouts 10000``.
PLAYER is a spec of ``agents.players.make_player`` served by ``qizero gtp`` (a subprocess,
so the whole GTP path is exercised). Both programs only propose moves: the Stereo Go engine
referees (legality, positional superko, the move cap, Tromp-Taylor area score with the komi).
Games 2m and 2m + 1 start from the same K uniformly random moves (default 4), colours swapped:
both programs are deterministic, so without them the match would replay two games.
Prints one line per game (with each side's wall-clock seconds a move) and the qizero win rate
with its 95 % Wilson interval (a game the referee had to stop, e.g. GNU Go breaking positional
superko, is void and not counted), then each program's CPU seconds a move.

Pachi (``--opponent pachi``) is built by ``bench/build_pachi.py`` (GPLv2: built in the ignored
``build/`` folder, never committed) and plays a fixed number of playouts a move on one thread
(see :func:`pachi_argv`), so its strength does not depend on how loaded the machine is.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from bench.build_pachi import pachi_path  # noqa: E402
from training.arena import wilson  # noqa: E402
from training.gtp import (  # noqa: E402
    GtpClient,
    GtpError,
    format_score,
    play_game,
    random_opening,
)

#: Pachi refuses (asserts) a fixed playout count below this (GJ_MINGAMES in uct/internal.h).
PACHI_MIN_PLAYOUTS = 500


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


def pachi_argv(pachi: str, playouts: int, seed: int) -> list[str]:
    """Pachi's UCT engine at a fixed playout count, one thread, area rules.

    ``-t =N``: a playout count, never a clock (GTP time commands are ignored). Pachi's meaning:
    the search stops when the root of its tree holds N playouts, those kept from the previous
    moves' subtree included (fresh ones a move in the 9×9 master's 30 games: median 6,363),
    or earlier once the best move's value is >= 0.95 (its default ``sure_win_threshold``:
    all 757 early stops of those 1,473 searches were that).
    ``threads=1``: the issue's measurement, and one core of this two-core machine.
    ``pondering=0``: Pachi's default is to think on the opponent's time, which would take CPU
    from the qizero side and add playouts beyond N. ``pass_all_alive``: it passes only once the
    dead stones are off the board, as Tromp-Taylor scoring needs (GNU Go's
    ``--capture-all-dead``). ``-r chinese``: area scoring. ``-s``: the seed, for replayable
    matches. Everything else is Pachi's default: no pattern files, no DCNN (not built), no
    opening book; it resigns below a 20% win estimate.
    """
    if playouts < PACHI_MIN_PLAYOUTS:
        raise ValueError(f"Pachi needs at least {PACHI_MIN_PLAYOUTS} playouts, got {playouts}")
    return [pachi, "-s", str(seed), "-r", "chinese", "-t", f"={playouts}",
            "threads=1,pondering=0,pass_all_alive"]


@dataclass(frozen=True)
class Opponent:
    """The program on the other side: its short name (the winner column) and how it runs."""

    name: str
    label: str
    argv: list[str]


class TimedClient(GtpClient):
    """A GTP client that adds up the wall-clock time and the number of its ``genmove``s."""

    def __init__(self, argv: list[str], cwd: str | None = None,
                 stderr: IO[Any] | None = None) -> None:
        super().__init__(argv, cwd, stderr)
        self.moves = 0
        self.seconds = 0.0

    def __call__(self, command: str) -> str:
        if not command.startswith("genmove"):
            return super().__call__(command)
        start = time.monotonic()
        try:
            return super().__call__(command)
        finally:
            self.moves += 1
            self.seconds += time.monotonic() - start

    def cpu_seconds(self) -> float | None:
        """The program's user + system CPU time so far (Linux /proc), else None."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def per_move(seconds: float, moves: int) -> str:
    return f"{seconds / moves:.2f} s/move" if moves else "- s/move"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("player", help="qizero player spec: random, mcts:N, level:ID, net:PATH:SIMS")
    ap.add_argument("--opponent", choices=("gnugo", "pachi"), default="gnugo")
    ap.add_argument("--level", type=int, default=1, help="GNU Go --level (0..10)")
    ap.add_argument("--pachi", default=None,
                    help="the Pachi binary (default: bench/build_pachi.py's, under build/pachi)")
    ap.add_argument("--playouts", type=int, default=10000, help="Pachi's playouts a move")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--board", default="9x9")
    ap.add_argument("--komi", type=float, default=7.5)
    ap.add_argument("--max-moves", type=int, default=0, help="move cap (0 = 2 x points)")
    ap.add_argument("--opening-plies", type=int, default=4,
                    help="random moves that open each pair of games (0 = none)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--record", type=Path, default=None,
                    help="append each game (colours, opening, moves, end, result) to this "
                    "file as a JSON line, to replay and study")
    ap.add_argument("--opponent-log", type=Path, default=None,
                    help="append the opponent's standard error here (Pachi logs each search: "
                         "its playouts, the winner's value, warnings)")
    args = ap.parse_args(argv)
    if args.opening_plies < 0:
        ap.error("--opening-plies must be >= 0")
    if args.playouts < PACHI_MIN_PLAYOUTS:
        ap.error(f"--playouts must be >= {PACHI_MIN_PLAYOUTS} (Pachi's minimum)")
    return args


def make_opponent(args: argparse.Namespace) -> Opponent:
    """The opponent the arguments ask for; FileNotFoundError says how to get a missing one."""
    if args.opponent == "gnugo":
        gnugo = find_gnugo()
        if gnugo is None:
            raise FileNotFoundError("gnugo is not installed (apt-get install gnugo)")
        return Opponent("gnugo", f"gnugo --level {args.level}",
                        gnugo_argv(gnugo, args.level, args.seed))
    pachi = args.pachi or str(pachi_path())
    if not os.access(pachi, os.X_OK):
        raise FileNotFoundError(f"no Pachi binary at {pachi} "
                                "(build it: nice -n 10 .venv/bin/python bench/build_pachi.py)")
    return Opponent("pachi", f"pachi {args.playouts} playouts (1 thread)",
                    pachi_argv(pachi, args.playouts, args.seed))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        opp = make_opponent(args)
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    wins = 0.0
    played = void = 0
    start = time.monotonic()
    with contextlib.ExitStack() as stack:
        log = stack.enter_context(open(args.opponent_log, "a")) if args.opponent_log else None
        qz = stack.enter_context(
            TimedClient(qizero_argv(args.player, args.board, args.komi, args.seed)))
        op = stack.enter_context(TimedClient(opp.argv, stderr=log))
        record = stack.enter_context(open(args.record, "a")) if args.record else None
        for i in range(args.games):
            qz_black = i % 2 == 0
            black, white = (qz, op) if qz_black else (op, qz)
            opening = random_opening(args.board, args.opening_plies,
                                     np.random.default_rng([args.seed, i // 2]))
            before = (qz.moves, qz.seconds, op.moves, op.seconds)
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
            if record is not None:
                record.write(json.dumps({
                    "player": args.player, "opponent": opp.label, "seed": args.seed,
                    "game": i + 1, "qizero": "black" if qz_black else "white",
                    "board": args.board, "komi": args.komi, "opening": opening,
                    "moves": rec.moves, "end": rec.end, "result": result,
                    "qizero_won": bool(won)}) + "\n")
                record.flush()
            times = (f"qizero {per_move(qz.seconds - before[1], qz.moves - before[0])}, "
                     f"{opp.name} {per_move(op.seconds - before[3], op.moves - before[2])}")
            print(f"game {i + 1}: qizero {'black' if qz_black else 'white'}, "
                  f"opening {' '.join(opening) or '-'}, "
                  f"{len(rec.moves)} moves, end {rec.end}, {result}: "
                  f"{'qizero' if won else opp.name} wins ({times})", flush=True)
        cpu = [(c.cpu_seconds(), c.moves) for c in (qz, op)]
    lo, hi = wilson(wins, played)
    print(f"{args.player} vs {opp.label} on {args.board}, komi {args.komi:g}, "
          f"area: {wins:g}/{played} = {wins / max(played, 1):.1%} "
          f"(95% CI {lo:.1%}..{hi:.1%}); {void} void; {time.monotonic() - start:.0f} s")
    print(f"wall: qizero {per_move(qz.seconds, qz.moves)}, {opp.name} "
          f"{per_move(op.seconds, op.moves)}; CPU (the whole process, start-up included): "
          + ", ".join(f"{name} {per_move(s, n) if s is not None else '?'}"
                      for name, (s, n) in zip(("qizero", opp.name), cpu)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
