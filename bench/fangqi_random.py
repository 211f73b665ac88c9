"""Random-play throughput of the Fang Qi engine, single process, and the length of each phase.

Run: ``.venv/bin/python bench/fangqi_random.py [--games N] [--seed S]``. Prints full games per
second and plies (actions) per second for two loops: the raw engine (legal actions as a tuple,
as search uses them) and the protocol loop (``legal_mask`` + ``apply`` with its legality check,
as the Gymnasium env uses them). Then the average number of actions in each phase: placement,
the pull (with any making room that follows it), and movement (steps, captures, making room),
with the movement turns and the results.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from envs.fangqi import FangQi
from envs.fangqi.rules import apply_action, legal_actions
from envs.fangqi.state import (
    CAPTURE,
    DRAW,
    NO_CAPTURE_LIMIT,
    PLACE,
    RESULT_NAMES,
    ROOM,
    STEP,
)


def raw_loop(game: FangQi, games: int, seed: int) -> tuple[float, int]:
    """Engine functions only: what a search calls per node."""
    rng = np.random.default_rng(seed)
    state0 = game.initial_state()
    plies = 0
    start = time.perf_counter()
    for _ in range(games):
        state = state0
        while state.result == -1:
            actions = legal_actions(state)
            state = apply_action(state, actions[int(rng.integers(len(actions)))])
            plies += 1
    return time.perf_counter() - start, plies


def protocol_loop(game: FangQi, games: int, seed: int) -> tuple[float, int, dict]:
    """The Game protocol with masks (what the Gymnasium env does), plus per-phase statistics.

    The pull phase is the pull and any making room before the first step; the movement phase
    is everything from the first step on.
    """
    rng = np.random.default_rng(seed)
    plies = 0
    counts: Counter = Counter()
    results: Counter = Counter()
    start = time.perf_counter()
    for _ in range(games):
        state = game.initial_state()
        moving = False
        while not game.is_terminal(state):
            actions = np.flatnonzero(game.legal_mask(state))
            phase = state.phase
            moving = moving or phase == STEP
            if phase == PLACE:
                counts["placement"] += 1
            elif not moving:
                counts["pull"] += 1
            else:
                counts["movement"] += 1
                counts[
                    {STEP: "  turns (steps)", CAPTURE: "  captures", ROOM: "  making room"}[phase]
                ] += 1
            state = game.apply(state, int(actions[rng.integers(len(actions))]))
            plies += 1
        if state.result == DRAW:
            why = "60 turns" if state.no_capture >= NO_CAPTURE_LIMIT else "repetition"
            results[f"draw ({why})"] += 1
        else:
            results[f"{RESULT_NAMES[state.result]} wins"] += 1
    elapsed = time.perf_counter() - start
    order = ["placement", "pull", "movement", "  turns (steps)", "  captures", "  making room"]
    stats = {k: counts[k] / games for k in order}
    return elapsed, plies, {"phases": stats, "results": dict(sorted(results.items()))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = FangQi()
    raw_loop(game, 5, args.seed + 1)  # warm up
    elapsed, plies = raw_loop(game, args.games, args.seed)
    print(
        f"raw engine loop    : {args.games} games, {plies} plies in {elapsed:.2f} s: "
        f"{args.games / elapsed:.1f} games/s, {plies / elapsed:.0f} plies/s"
    )
    elapsed, plies, stats = protocol_loop(game, args.games, args.seed)
    print(
        f"protocol mask loop : {args.games} games, {plies} plies in {elapsed:.2f} s: "
        f"{args.games / elapsed:.1f} games/s, {plies / elapsed:.0f} plies/s"
    )
    print(f"average actions per game: {plies / args.games:.1f}, of which by phase:")
    for name, value in stats["phases"].items():
        print(f"  {name:15s}: {value:.2f}")
    print("results:", ", ".join(f"{k} {v}" for k, v in stats["results"].items()))


if __name__ == "__main__":
    main()
