"""What the ladder's opening variety costs a level, and how much variety it gives.

A level with the variety rule of rated ladder games (:mod:`agents.variety`, the parameters
of :data:`serving.ladder.farming.VARIETY`) plays the same level without it, from the empty
board, colours alternating. The level without the rule is deterministic, so it stands in
for a person who answers the same position the same way every time: every difference
between two games comes from the rule. Reported: the varied level's score (wins + half the
draws, with its 95% Wilson interval; 50% means the rule costs nothing), and how many pairs
of games with the varied level on the same colour share their first 20 plies, how many of
its opening moves were not the search's choice and how much search value those gave up.
``--opening-only`` plays the first 20 plies alone (no score), for levels whose whole games
are too slow to play by the hundred on a CPU.

Usage:
  python bench/opening_variety.py --config '{"board": "9x9"}' --level 4 --games 200
  python bench/opening_variety.py --config '{"board": "9x9"}' --level 5 --games 20 --opening-only
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.players import SearchPlayer, level_player  # noqa: E402
from agents.search import search  # noqa: E402
from agents.variety import varied_action  # noqa: E402
from envs import make_game  # noqa: E402
from serving.ladder.farming import OPENING_PLIES, VARIETY  # noqa: E402
from training.arena import wilson  # noqa: E402


def play(
    game: Any, level: SearchPlayer, games: int, seed: int, plies: int | None = None,
    deficits: list[float] | None = None,
) -> tuple[float, list[list[int]]]:
    """All games at once (one batched search per side and turn): the varied level's score
    and each game's first plies. Game ``k``: the varied level is Black when ``k`` is even.
    ``plies``: stop there (the score is then meaningless); ``deficits`` gets, for each
    varied move that is not the search's choice, how far its value is below the choice's."""
    rng = np.random.default_rng(seed)
    states = [game.initial_state() for _ in range(games)]
    moves: list[list[int]] = [[] for _ in range(games)]
    cap = plies or game.spec.max_length
    while True:
        active = [k for k in range(games)
                  if not game.is_terminal(states[k]) and len(moves[k]) < cap]
        if not active:
            break
        for varied in (True, False):
            mine = [k for k in active if not game.is_terminal(states[k])
                    and (game.to_play(states[k]) == k % 2) == varied]
            if not mine:
                continue
            results = search(game, [states[k] for k in mine], level.evaluator, level.cfg, rng)
            for k, r in zip(mine, results):
                a = r.action
                if varied and VARIETY.applies(len(moves[k])):
                    a = varied_action(r, VARIETY, rng)
                    if deficits is not None and a != r.action:
                        # a level without simulations has no values: NaN, left out below
                        searched = r.visits[r.action] > 0
                        deficits.append(float(r.q[r.action] - r.q[a]) if searched else np.nan)
                states[k] = game.apply(states[k], a)
                moves[k].append(a)
    score = 0.0
    for k, s in enumerate(states):
        if game.is_terminal(s):
            r = game.returns(s)
            mine, theirs = r[k % 2], r[1 - k % 2]
            score += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        else:
            score += 0.5
    return score, [m[:OPENING_PLIES] for m in moves]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="{}", help="Stereo Go options, as JSON")
    ap.add_argument("--level", default="5", help="the level's id or label")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--opening-only", action="store_true",
                    help=f"play the first {OPENING_PLIES} plies only: the variety and the "
                         "values given up (no score; for levels too slow for whole games)")
    args = ap.parse_args()
    game = make_game("stereo_go", **json.loads(args.config))
    level = level_player(game, args.level)
    deficits: list[float] = []
    score, openings = play(game, level, args.games, args.seed,
                           OPENING_PLIES if args.opening_only else None, deficits)
    lo, hi = wilson(score, args.games)
    varied = len(deficits), args.games * OPENING_PLIES // 2
    values = [d for d in deficits if not np.isnan(d)]
    given_up = (f"mean {np.mean(values):.3f}, max {np.max(values):.3f}" if values
                else "none (no values: not searched)")
    same = total = 0
    for colour in (0, 1):
        group = [tuple(o) for k, o in enumerate(openings) if k % 2 == colour]
        for a, b in itertools.combinations(group, 2):
            total += 1
            same += a == b
    head = f"level {args.level} {args.config}: "
    if not args.opening_only:
        head += (f"varied vs plain {score:g}/{args.games} = {score / args.games:.1%} "
                 f"(95% {lo:.1%}-{hi:.1%}); ")
    print(f"{head}{same}/{total} same-colour pairs share their first {OPENING_PLIES} plies; "
          f"{len(set(map(tuple, openings)))} distinct openings in {args.games} games; "
          f"{varied[0]} of {varied[1]} opening moves not the search's choice; value given up "
          f"{given_up}")


if __name__ == "__main__":
    main()
