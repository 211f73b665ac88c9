"""TriGolden figures from uniform-random games: placements per sub-step, structures and points
per game, time per game, the legal-mask time per position (median, around 40 pieces), and the
time of a random playout from the start (``Game.random_playout``: the standard variant's
rejection draw against the generic loop over full masks, interleaved so load hits both alike).

The last block compares the two engines in the same run, interleaved: the pure-Python
reference (``TriGolden(..., reference=True)``, "before") and the compiled core ("after"), on
apply + mask at 38-42 pieces (each engine replaying the same games) and on random playouts
from the start (one per seed), each timing the best of ``--repeats`` (the shared machine's load
hits short timings hardest). Compilation is done (and cached) before
any timing.

Run: ``.venv/bin/python bench/trigolden_random.py [--games 20] [--variant standard]``
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from envs import make_game
from envs.core import Game
from envs.trigolden import TriGolden, TriGoldenConfig, geometry
from envs.trigolden import rules as rules_mod
from envs.trigolden.geometry import Board
from envs.trigolden.obligation import turn_options
from envs.trigolden.state import ARBITRATION


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--variant", default="standard", choices=("standard", "draft"))
    parser.add_argument("--scoring", default="bracing", choices=("bracing", "trigolden"))
    parser.add_argument("--n", type=int, default=9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3,
                        help="timings per position in the engine comparison (best kept)")
    parser.add_argument("--engines-only", action="store_true",
                        help="only the engine comparison (before / after)")
    args = parser.parse_args()
    if args.engines_only:
        compare_engines(args)
        return
    game = make_game("trigolden", variant=args.variant, scoring=args.scoring, n=args.n)
    rules = game.rules
    rng = np.random.default_rng(args.seed)
    first_counts: list[int] = []
    second_counts: list[int] = []
    game_times: list[float] = []
    structures: list[int] = []
    points: list[int] = []
    values: list[int] = []
    arbitrations = 0
    obliged = forced = plies = 0
    positions = []
    for _ in range(args.games):
        state = game.initial_state()
        t0 = time.perf_counter()
        while not game.is_terminal(state):
            acts = game.legal_actions(state)
            (second_counts if state.first >= 0 else first_counts).append(len(acts))
            action = int(rng.choice(acts))
            plies += 1
            obliged += bool(state.options.refused)
            forced += state.options.unavoidable
            if 37 <= state.num_pieces <= 41:
                positions.append((state, action))
            state = game.apply(state, action)
        game_times.append(time.perf_counter() - t0)
        structures.append(len(state.structures))
        points.append(sum(state.scores))
        values.extend(s.points for s in state.structures)
        arbitrations += state.outcome == ARBITRATION
    # Playouts from the start, before any memo is cleared below.
    playout_times: dict[str, list[float]] = {"playout": [], "generic loop": []}
    start = game.initial_state()
    for _ in range(args.games):
        for name, playout in (("playout", game.random_playout),
                              ("generic loop", lambda *a: Game.random_playout(game, *a))):
            t0 = time.perf_counter()
            playout(start, rng, 1000)
            playout_times[name].append(time.perf_counter() - t0)
    # Incremental: what a new position costs in play and search (apply builds the board
    # tables and the legal mask of the position it returns, reusing what its parent knew).
    apply_times = []
    for st, action in positions:
        t0 = time.perf_counter()
        child = game.apply(st, action)
        game.legal_mask(child)
        apply_times.append(time.perf_counter() - t0)
    # From scratch: the mask of a position whose board tables have no memo ("warm": the
    # process-wide geometry and pair memos kept; "cold": those cleared too).
    scratch_times: list[float] = []
    cold_times: list[float] = []
    for cold in (False, True):
        for st, action in positions:
            st = game.apply(st, action)
            if game.is_terminal(st):
                continue
            board = Board()
            for piece in st.board.pieces:
                board = board.add(piece)
            first = board.pieces[st.first] if st.first >= 0 else None
            if cold:
                for memo in (geometry._GEOM, geometry._INFO, rules_mod._COMPATIBLE,
                             rules_mod._TOUCH):
                    memo.clear()
            t0 = time.perf_counter()
            opts = turn_options(rules, board, st.to_play, st.hands, first, st.first_contact,
                                st.free_pairs)
            (cold_times if cold else scratch_times).append(time.perf_counter() - t0)
            assert set(opts.legal) == set(st.options.legal)
    print(f"trigolden {args.variant} {args.scoring} n={args.n}: {args.games} random games")
    print(f"legal placements, first piece of a turn: mean {np.mean(first_counts):.1f} "
          f"max {max(first_counts)}")
    if second_counts:
        print(f"legal placements, second piece:         mean {np.mean(second_counts):.1f} "
              f"max {max(second_counts)}")
    print(f"structures per game: mean {np.mean(structures):.2f} max {max(structures)}")
    print(f"points per game (both players): mean {np.mean(points):.1f} max {max(points)}")
    if values:
        print(f"points per structure: mean {np.mean(values):.2f} min {min(values)} "
              f"max {max(values)}")
    print(f"games ended by arbitration: {arbitrations}")
    print(f"positions where the obligation refused some placement: {obliged} of {plies}; "
          f"where every turn breaks it: {forced}")
    print(f"time per random game: mean {np.mean(game_times) * 1000:.0f} ms")
    print(f"new position with 38-42 pieces ({len(apply_times)} positions), apply + mask: "
          f"median {statistics.median(apply_times) * 1000:.2f} ms, "
          f"max {max(apply_times) * 1000:.2f} ms")
    for name, times in playout_times.items():
        print(f"random playout from the start, {name}: median "
              f"{statistics.median(times) * 1000:.1f} ms, mean {np.mean(times) * 1000:.1f} ms")
    for name, times in (("warm", scratch_times), ("cold", cold_times)):
        print(f"mask from scratch ({name} process memos), same positions: median "
              f"{statistics.median(times) * 1000:.2f} ms, max {max(times) * 1000:.2f} ms")
    compare_engines(args)


def compare_engines(args: argparse.Namespace) -> None:
    """Before (reference engine) and after (compiled core), interleaved in one run."""
    config = TriGoldenConfig(variant=args.variant, scoring=args.scoring, n=args.n)
    engines = {"reference (before)": TriGolden(config, reference=True),
               "compiled (after)": TriGolden(config)}
    fast = engines["compiled (after)"]
    rng = np.random.default_rng(args.seed + 1)
    fast.random_playout(fast.initial_state(), rng, 1000)  # compile (or load the cache)
    games = []
    for _ in range(args.games):
        state, moves = fast.initial_state(), []
        while not fast.is_terminal(state):
            moves.append(int(rng.choice(fast.legal_actions(state))))
            state = fast.apply(state, moves[-1])
        games.append(moves)
    apply_times: dict[str, list[float]] = {name: [] for name in engines}
    for moves in games:
        states = {name: g.initial_state() for name, g in engines.items()}
        for action in moves:
            for name, g in engines.items():
                st = states[name]
                best = float("inf")
                for _ in range(args.repeats if 37 <= st.num_pieces <= 41 else 1):
                    t0 = time.perf_counter()
                    child = g.apply(st, action)
                    g.legal_mask(child)
                    best = min(best, time.perf_counter() - t0)
                if 37 <= st.num_pieces <= 41:
                    apply_times[name].append(best)
                states[name] = child
        masks = [list(g.legal_actions(states[name])) for name, g in engines.items()]
        assert masks[0] == masks[1]
    playout_times: dict[str, list[float]] = {name: [] for name in engines}
    for k in range(args.games):
        for name, g in engines.items():
            best = float("inf")
            for _ in range(args.repeats):  # one seed, one game: the best of the repeats
                t0 = time.perf_counter()
                g.random_playout(g.initial_state(), np.random.default_rng(k), 1000)
                best = min(best, time.perf_counter() - t0)
            playout_times[name].append(best)
    print(f"engines, {args.variant} {args.scoring} n={args.n}, {args.games} games "
          f"(interleaved; best of {args.repeats} per position and per playout seed):")
    for name in engines:
        a, p = apply_times[name], playout_times[name]
        print(f"  {name:<19} apply + mask at 38-42 pieces ({len(a)} positions): median "
              f"{statistics.median(a) * 1000:.3f} ms, mean {np.mean(a) * 1000:.3f} ms; "
              f"random playout from the start: median {statistics.median(p) * 1000:.2f} ms, "
              f"mean {np.mean(p) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
