"""Label AI levels on the ladder's kyu/dan scale: real games, then a season through the real
rating rules until the ranks settle.

1. **Games.** Every pair of entrants plays ``--games-per-pair`` real Stereo Go games (colours
   alternating, each pair of games from the same ``--opening-plies`` random moves, default
   2, so deterministic levels do not replay two games) under ``--config``; games end by two
   passes or the move cap and are scored by the engine (Tromp-Taylor). This gives each
   pair's win rate (``(wins + 0.5) / (games + 1)``, so no rate is exactly 0 or 1).
2. **Season.** Every entrant enters as ``--copies`` new ladder players (18K, 0 points) and a
   season of ``--rounds`` rounds is played through the ladder's own rules
   (:mod:`serving.ladder.rules`): each round everyone queues in a random order and is paired
   by the matching order (the longest-waiting chooses first: same rank, one lower, one
   higher, never further), colours follow the colour rules, each game is won as often as the
   pair won its real games and is rated with the points of the player's current rank,
   direct promotion included. Copies give every strength partners of its own rank; a
   season, not one game per pair, because the ladder's ranks are relative: where a level
   settles depends on who else plays. The scale is anchored as the Elo scale is: the
   uniformly random player (``--anchor``) stays at 0 points, 18K, so the weakest human,
   who starts at 18K, meets it; without a pin the copies of the weakest entrant, playing
   each other above the 0-point floor, drift up by a rank or two.

   Why outcomes drawn from the measured rates and not a new real game each time: the
   ladder's steps are small (200 points a game at kyu ranks, 1,000 a rank), so ranks settle
   only after thousands of games per player; the rules only ever see who won, so drawing
   who wins from the real games' rates is the same season at a fraction of the cost.
3. **Labels.** An entrant's label is the median over its copies of their mean points over
   the last half of the season.

Entrants: the service's AI ladder players (:mod:`serving.ladder.ai_players`) that can play
the options ``--config`` asks for (options with trained levels, e.g. ``{}`` or
``{"board": "9x9", "rules": "area"}``: their five levels; options without, e.g.
``{"board": "13x13"}``: the baselines ``random`` and ``mcts32``), plus reference players
given as ``agents.players`` specs (``--extra random mcts:8 mcts:128``).

``--write`` merges the labels of the service's AI players into
``checkpoints/stereo_go/ladder.json``, where the service reads their starting points, each
with the level's fingerprint (a label measured for other weights or search is not used),
with the run (its real games' results included); ``--reuse`` takes the real games' results
of the last run there with the same options and entrants instead of playing them again.

Usage:
  python bench/ladder_levels.py --config '{"board": "9x9"}' --extra mcts:8 mcts:128 \\
      --games-per-pair 20 --copies 3 --rounds 4000 --write
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs import make_game  # noqa: E402
from serving.ladder import rules  # noqa: E402
from serving.ladder.ai_players import (  # noqa: E402
    CALIBRATION_FILE,
    GAME,
    ai_levels,
    game_config,
)
from serving.levels import LevelRegistry  # noqa: E402


@dataclass(frozen=True)
class Entrant:
    """A strength to label: its name, the service's AI player id (None for a reference
    player), how to build it (``level:<id>`` or a players spec), the game options and, for
    an AI player, its fingerprint (what the service checks the label against)."""

    name: str
    player_id: str | None
    spec: str
    config: dict[str, Any]
    fingerprint: str | None = None


@dataclass
class Copy:
    """One ladder player of an entrant: its standing as the rules see it."""

    entrant: Entrant
    index: int
    standing: rules.Standing = rules.Standing(0)
    last_result: str | None = None
    history: list[int] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.entrant.name}#{self.index}"


def entrants(config: dict[str, Any], extra: list[str], checkpoints: Path) -> list[Entrant]:
    levels = LevelRegistry(checkpoints)
    found = []
    for ai in ai_levels(levels):
        own = game_config(ai, config, levels)
        if own is not None:
            found.append(Entrant(ai.player_id.removeprefix("ai-"), ai.player_id,
                                 ai.level if ai.options is None else f"level:{ai.level}", own,
                                 ai.fingerprint))
    for spec in extra:
        found.append(Entrant(spec.replace(":", ""), None, spec, dict(config)))
    return found


_PLAYERS: dict[tuple[str, str], Any] = {}


def _player(spec: str, config: dict[str, Any]) -> Any:
    from agents.players import make_player

    key = (spec, json.dumps(config, sort_keys=True))
    if key not in _PLAYERS:
        spec = "mcts:32" if spec == "mcts32" else spec  # the service's baseline level ids
        _PLAYERS[key] = make_player(make_game(GAME, **config), spec, seed=0)
    return _PLAYERS[key]


def play(black: Entrant, white: Entrant, seed: int, opening: int = 0,
         opening_seed: int = 0) -> tuple[str | None, int]:
    """One game to its end from ``opening`` uniformly random moves (drawn from
    ``opening_seed``): the winning colour (None: a tie) and the moves played."""
    import torch

    torch.set_num_threads(1)
    game = make_game(GAME, **black.config)
    players = [_player(black.spec, black.config), _player(white.spec, white.config)]
    rng = np.random.default_rng(seed)
    state, moves = game.initial_state(), 0
    opening_rng = np.random.default_rng(opening_seed)
    while moves < opening and not game.is_terminal(state):
        legal = np.flatnonzero(game.legal_mask(state)[:-1])  # never a pass
        state = game.apply(state, int(legal[opening_rng.integers(len(legal))]))
        moves += 1
    while not game.is_terminal(state):
        state = game.apply(state, players[game.to_play(state)].select_action(game, state, rng))
        moves += 1
    returns = game.returns(state)
    winner = None if returns[0] == returns[1] else "black" if returns[0] > 0 else "white"
    return winner, moves


def measure(found: list[Entrant], per_pair: int, workers: int, seed: int,
            log: Any, opening: int = 2) -> dict[tuple[str, str], tuple[float, int]]:
    """Real games between every pair: ``(a, b) -> (a's wins + half the ties, games)``.
    Games 2m and 2m + 1 of a pair start from the same ``opening`` random moves, colours
    swapped: without them two deterministic levels would replay the same two games."""
    rng = random.Random(seed)
    jobs, keys = [], []
    for i, a in enumerate(found):
        for b in found[i + 1:]:
            for g in range(per_pair):
                black, white = (a, b) if g % 2 == 0 else (b, a)
                if g % 2 == 0:
                    opening_seed = rng.randrange(2**31)
                jobs.append((black, white, rng.randrange(2**31), opening, opening_seed))
                keys.append((a.name, b.name, black.name))
    t0 = time.monotonic()
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(play, *zip(*jobs)))
    else:
        results = []
        for n, job in enumerate(jobs):
            results.append(play(*job))
            if (n + 1) % per_pair == 0:
                log(f"{n + 1}/{len(jobs)} games, {time.monotonic() - t0:.0f} s")
    tally: dict[tuple[str, str], list[float]] = {}
    for (a, b, black), (winner, _moves) in zip(keys, results):
        won = 0.5 if winner is None else float((winner == "black") == (black == a))
        t = tally.setdefault((a, b), [0.0, 0])
        t[0] += won
        t[1] += 1
    return {k: (v[0], int(v[1])) for k, v in tally.items()}


def reused(path: Path, config: dict[str, Any],
           names: list[str]) -> dict[tuple[str, str], tuple[float, int]]:
    """The real games' results of the last run in ``path`` with these options and
    entrants (a reference player may be missing: it is then left out)."""
    runs = json.loads(path.read_text())["runs"] if path.exists() else []
    for run in reversed(runs):
        if run.get("config") == config and "results" in run:
            matrix = {tuple(k.split("|")): (float(v[0]), int(v[1]))
                      for k, v in run["results"].items()}
            wanted = {(a, b) for i, a in enumerate(names) for b in names[i + 1:]}
            if all(k in matrix or k[::-1] in matrix for k in wanted):
                return {k: v for k, v in matrix.items() if set(k) <= set(names)}
    raise SystemExit(f"no run with results for {config} and {names} in {path}")


def win_rate(matrix: dict[tuple[str, str], tuple[float, int]], a: str, b: str) -> float:
    """How often ``a`` beats ``b`` (smoothed; two copies of one entrant: even)."""
    if a == b:
        return 0.5
    if (a, b) in matrix:
        wins, games = matrix[(a, b)]
    else:
        lost, games = matrix[(b, a)]
        wins = games - lost
    return (wins + 0.5) / (games + 1)


def season(copies: list[Copy], rounds: int, matrix: dict[tuple[str, str], tuple[float, int]],
           seed: int, anchor: str | None) -> int:
    """``rounds`` rounds of queueing, pairing, colours and rating; the games played. The
    ``anchor`` entrant's copies stay at 0 points (18K), as Elo pins random at 0."""
    rng = random.Random(seed)
    meetings: dict[frozenset[str], str] = {}  # pair -> who had Black in their last game
    by_id = {c.id: c for c in copies}
    games = 0
    for _ in range(rounds):
        order = rng.sample(copies, len(copies))  # who queued first this round
        waiting = [rules.Waiting(c.id, rules.rank_of(c.standing.points).index, float(i))
                   for i, c in enumerate(order)]
        for a, b in rules.pair_all(waiting):
            ca, cb = by_id[a.player], by_id[b.player]
            black_id, _ = rules.colours(
                rules.ColourFacts(ca.id, ca.standing.points, ca.last_result),  # type: ignore[arg-type]
                rules.ColourFacts(cb.id, cb.standing.points, cb.last_result),  # type: ignore[arg-type]
                meetings.get(frozenset((ca.id, cb.id))), rng)
            meetings[frozenset((ca.id, cb.id))] = black_id
            a_wins = rng.random() < win_rate(matrix, ca.entrant.name, cb.entrant.name)
            verdict = rules.classify("score", False, 100, 3600.0,
                                     rules.rank_gap(ca.standing.points, cb.standing.points))
            for c, won in ((ca, a_wins), (cb, not a_wins)):
                c.last_result = "win" if won else "loss"
                if verdict.kind == "rated" and c.entrant.name != anchor:
                    c.standing = rules.rate(c.standing, c.last_result)  # type: ignore[arg-type]
            games += 1
        for c in copies:
            c.history.append(c.standing.points)
    return games


def labels(copies: list[Copy]) -> dict[str, dict[str, Any]]:
    """Per entrant: the median over its copies of their mean points over the last half of
    the season, its rank, games and wins."""
    out: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(c.entrant.name for c in copies):
        mine = [c for c in copies if c.entrant.name == name]
        settled = [statistics.fmean(c.history[len(c.history) // 2:]) for c in mine]
        points = int(statistics.median(settled))
        out[name] = {
            "player_id": mine[0].entrant.player_id,
            "fingerprint": mine[0].entrant.fingerprint,
            "points": points,
            "rank": rules.rank_of(points).name,
            "copies": [rules.rank_of(int(x)).name for x in settled],
            "games": sum(c.standing.rated_games for c in mine),
            "wins": sum(c.standing.rated_wins for c in mine),
        }
    return out


def write(path: Path, found: dict[str, dict[str, Any]], meta: dict[str, Any]) -> None:
    """Merge the service AI players' labels into the calibration file (atomic write)."""
    data: dict[str, Any] = {"format_version": 1, "game": GAME, "players": {}, "runs": []}
    if path.exists():
        data = json.loads(path.read_text())
    for entry in found.values():
        if entry["player_id"]:
            data["players"][entry["player_id"]] = {
                "points": entry["points"], "rank": entry["rank"], "config": meta["config"],
                "fingerprint": entry["fingerprint"],
                "season_games": entry["games"], "season_wins": entry["wins"]}
    data["runs"].append(meta)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", default='{"board": "9x9"}', help="game options (JSON)")
    p.add_argument("--extra", nargs="*", default=[], help="reference players (specs)")
    p.add_argument("--games-per-pair", type=int, default=20, help="real games per pair")
    p.add_argument("--copies", type=int, default=3, help="ladder players per entrant")
    p.add_argument("--rounds", type=int, default=4000, help="rounds of the season")
    p.add_argument("--workers", type=int, default=1, help="processes playing games")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--opening-plies", type=int, default=2,
                   help="random moves that open each pair of real games (colours swapped)")
    p.add_argument("--anchor", default="random",
                   help="entrant pinned at 0 points, 18K (none: no pin)")
    p.add_argument("--reuse", action="store_true",
                   help="reuse the real games' results of the last run with these options")
    p.add_argument("--checkpoints", type=Path, default=ROOT / "checkpoints")
    p.add_argument("--write", action="store_true",
                   help=f"merge the labels into checkpoints/{GAME}/{CALIBRATION_FILE}")
    args = p.parse_args(argv)
    config = json.loads(args.config)
    found = entrants(config, args.extra, args.checkpoints)
    if len(found) < 2:
        print(f"fewer than two players can play {config}", file=sys.stderr)
        return 2
    calibration = args.checkpoints / GAME / CALIBRATION_FILE
    t0 = time.monotonic()
    if args.reuse:
        matrix = reused(calibration, config, [e.name for e in found])
    else:
        if args.opening_plies < 0:
            p.error("--opening-plies must be >= 0")
        matrix = measure(found, args.games_per_pair, args.workers, args.seed, print,
                         args.opening_plies)
    play_seconds = time.monotonic() - t0
    anchor = args.anchor if any(e.name == args.anchor for e in found) else None
    print(f"\n{GAME} {config}: {sum(g for _, g in matrix.values())} real games, "
          f"{play_seconds:.0f} s; win rates (row beats column):")
    names = [e.name for e in found]
    print(" " * 28 + "".join(f"{n[-10:]:>11}" for n in names))
    for a in names:
        print(f"{a[-28:]:<28}" + "".join(
            f"{'-':>11}" if a == b else f"{win_rate(matrix, a, b):>11.2f}" for b in names))
    copies = [Copy(e, i) for e in found for i in range(args.copies)]
    games = season(copies, args.rounds, matrix, args.seed, anchor)
    result = labels(copies)
    print(f"\nseason: {len(found)} entrants x {args.copies} copies, {args.rounds} rounds, "
          f"{games} rated games; label = median over copies of the mean points of the "
          f"last {args.rounds - args.rounds // 2} rounds; pinned at 18K: {anchor}")
    print(f"{'entrant':<34} {'rank':>8} {'points':>8} {'games':>6} {'won':>6}  copies")
    for name, e in sorted(result.items(), key=lambda kv: -kv[1]["points"]):
        won = "pinned" if name == anchor else f"{100 * e['wins'] / max(1, e['games']):.0f}%"
        print(f"{name:<34} {e['rank']:>8} {e['points']:>8} {e['games']:>6} {won:>6}  "
              + ", ".join(e["copies"]))
    if args.write:
        meta = {"config": config, "extra": args.extra, "copies": args.copies,
                "opening_plies": None if args.reuse else args.opening_plies,
                "rounds": args.rounds, "seed": args.seed, "anchor": anchor,
                "real_games": sum(g for _, g in matrix.values()),
                "play_seconds": round(play_seconds), "reused": args.reuse,
                "results": {f"{a}|{b}": [w, g] for (a, b), (w, g) in matrix.items()},
                "labels": {n: e["rank"] for n, e in result.items()},
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        write(calibration, result, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
