"""Serve a qizero player over GTP on stdin/stdout (for GNU Go matches, GoGui, Sabaki, gomill).

Examples:
  qizero gtp stereo_go random --board 9x9
  qizero gtp stereo_go net:runs/<dir>/checkpoints/ckpt_000100.pt:64 --board 9x9
  qizero gtp stereo_go mcts:100             # the Stereo Go cylinder (vertices A1..Q21, NP, SP)
"""

from __future__ import annotations

import argparse

from envs.core import ConfigError

GTP_GAMES = ("stereo_go",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="the game: stereo_go (GTP is a Go protocol)")
    parser.add_argument(
        "level",
        help="the player: random, mcts:N, uct:N, level:ID or net:PATH[:SIMS[:TEMP]] "
        "(see agents.players.make_player)",
    )
    parser.add_argument("--board", default="cylinder",
                        help="'cylinder' (fixed) or NxN, 5 <= N <= 19 (boardsize may change it)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (a multiple of 0.25)")
    parser.add_argument("--rules", default="area", choices=("area", "territory"),
                        help="the engine's rule set (final_score is always Tromp-Taylor area)")
    parser.add_argument("--max-moves", type=int, default=0,
                        help="the engine's move cap (0 = 2 x points); then genmove passes")
    parser.add_argument("--seed", type=int, default=0, help="seed of the player's randomness")
    parser.add_argument("--analysis-visits", type=int, default=1000,
                        help="simulations of an lz-analyze / kata-analyze search (it also "
                        "stops at the next command)")
    parser.add_argument("--threads", type=int, default=1,
                        help="PyTorch threads (default 1: the search calls the network one "
                        "position at a time, where more threads mostly spin; measured: 2 "
                        "threads beside another engine took 10x the CPU a move)")


def run(args: argparse.Namespace) -> int:
    if args.game not in GTP_GAMES:
        raise ConfigError(f"GTP serves Go only: game must be one of {GTP_GAMES}, got {args.game!r}")
    if args.analysis_visits < 1:
        raise ConfigError(f"--analysis-visits must be >= 1, got {args.analysis_visits}")
    if args.threads < 1:
        raise ConfigError(f"--threads must be >= 1, got {args.threads}")
    import torch

    from training.gtp import GtpEngine

    torch.set_num_threads(args.threads)
    engine = GtpEngine(args.level, board=args.board, komi=args.komi, rules=args.rules,
                       max_moves=args.max_moves, seed=args.seed,
                       analysis_visits=args.analysis_visits)
    engine.serve()
    return 0
