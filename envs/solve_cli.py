"""Solve Jiugong exactly by retrograde analysis and query positions.

Without options: build (or load the cached) table and print the number of reachable positions,
the counts of wins, losses and draws, and the value of the start position. With ``--moves`` or
``--position``: print the value of that position and its optimal moves.
"""

from __future__ import annotations

import argparse
import json

from envs import make_game
from envs.core import ConfigError, InvalidState


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=["jiugong"], help="the game to solve")
    parser.add_argument(
        "--moves", help="moves from the start, space- or comma-separated, e.g. 'b1-b2 b3-a3'"
    )
    parser.add_argument(
        "--position",
        help="a position as JSON, e.g. "
        '\'{"board": "SSS..XNNN", "to_play": "south", "shared_locked": true}\'',
    )
    parser.add_argument("--cache", help="table file (default ~/.cache/qizero/jiugong_solver.npz)")


def run(args: argparse.Namespace) -> int:
    from envs.jiugong_solver import get_solver

    solver = get_solver(args.cache)
    game = make_game(args.game)
    if args.moves is None and args.position is None:
        counts = solver.counts()
        print(f"reachable positions: {len(solver)}")
        print(f"wins: {counts['win']}  losses: {counts['loss']}  draws: {counts['draw']}")
        print(f"start position ({game.render(game.initial_state()).splitlines()[-1]}): "
              f"{solver.value(game.initial_state())}")
        return 0
    if args.moves is not None and args.position is not None:
        raise ConfigError("give --moves or --position, not both")
    if args.position is not None:
        try:
            data = json.loads(args.position)
        except json.JSONDecodeError as exc:
            raise InvalidState(f"--position is not valid JSON: {exc}") from exc
        state = game.from_json(data)
    else:
        state = game.initial_state()
        for move in args.moves.replace(",", " ").split():
            state = game.play(state, move)
    print(game.render(state))
    if game.is_terminal(state):
        print(f"game over; returns {game.returns(state).tolist()}")
        return 0
    try:
        value = solver.value(state)
    except KeyError as exc:
        raise InvalidState(str(exc.args[0])) from exc
    print(f"value for the side to move: {value}")
    values = solver.move_values(state)
    optimal = set(solver.optimal_actions(state))
    for action, v in values.items():
        mark = "  *optimal" if action in optimal else ""
        print(f"  {game.action_to_move(state, action):6s} {v}{mark}")
    return 0
