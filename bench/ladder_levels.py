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
4. **Spread** (``--seasons N``, N > 1). One season is one draw: the strongest levels' copies
   wander over the dan ranks' wide steps, and a level near a rank's boundary flips label
   between seasons. N seasons (seeds ``--seed`` … ``--seed`` + N − 1) over the same real
   games show each entrant's ranks with their counts and median points, and in how many
   seasons no rank is left without an AI level (:func:`season_spread`). What ``--write``
   then stores is each entrant's median points over the N seasons (its typical place; with
   one season, that season's labels).

Entrants: the service's AI ladder players (:mod:`serving.ladder.ai_players`) that can play
the options ``--config`` asks for (options with trained levels, e.g. ``{}`` or
``{"board": "9x9", "rules": "area"}``: their levels and the anchor ``random``, which plays
every option set; options without, e.g. ``{"board": "13x13"}``: the baselines ``random``
and ``mcts32``), plus reference players given as ``agents.players`` specs (``--extra mcts:8
mcts:128``; an extra that is already an entrant, e.g. ``random``, is that entrant).

``--write`` merges the labels of the service's AI players into
``checkpoints/stereo_go/ladder.json``, where the service reads their starting points, each
with the level's fingerprint (a label measured for other weights or search is not used),
with the run (its real games' results and who each entrant was: its fingerprint);
``--reuse`` takes the real games already played there under the same options between the
same players (same fingerprints, whatever their level ids are now) and plays only the pairs
it lacks: a level inserted into a ladder plays the others, the rest is not played again
(``--play-again``: these entrants' pairs, or these pairs ``A|B``, are played anyway, e.g.
with more games).
``--fit-levels`` then fits the trained ladder's Elo (its levels.json) again with these games
for the pairs its calibration lacks (:func:`training.levels.refit_levels`), so an inserted
level gets its Elo and the ladder's strict order is checked.
``--what-if ELO ...`` plans an insertion before any network is tried: hypothetical levels
at those Elo (the trained ladder's fitted scale, random = 0) enter the seasons, each game
against an entrant won as often as the Elo difference says (:func:`hypothetical`); nothing
is played for them and nothing is written. It shows where a level would have to be for the
open ranks to close, and what the levels around it would do (the labels are relative).

Usage:
  python bench/ladder_levels.py --config '{"board": "9x9"}' --extra mcts:8 mcts:128 \\
      --games-per-pair 20 --copies 3 --rounds 4000 --write
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
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
    ranks_without_ai,
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
    label: str | None = None  # a trained level's label (its name in levels.json)

    @property
    def identity(self) -> str:
        """Who plays, whatever the entrant is called: a trained level's fingerprint (network
        and search), else the name (a baseline's or reference player's code is fixed)."""
        trained = self.fingerprint and ":" not in self.fingerprint
        return str(self.fingerprint) if trained else self.name


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
                                 ai.fingerprint,
                                 None if ai.options is None else ai.entry.label))
    for spec in extra:
        name = spec.replace(":", "")
        if all(e.name != name for e in found):  # random: the service's anchor already plays
            found.append(Entrant(name, None, spec, dict(config)))
    return found


_PLAYERS: dict[tuple[str, str], Any] = {}


def _player(spec: str, config: dict[str, Any]) -> Any:
    from agents.players import make_player

    key = (spec, json.dumps(config, sort_keys=True))
    if key not in _PLAYERS:
        spec = "mcts:32" if spec == "mcts32" else spec  # the service's baseline level ids
        _PLAYERS[key] = make_player(make_game(GAME, **config), spec, seed=0)
    return _PLAYERS[key]


GameJob = tuple[Entrant, Entrant, int, int, int]  # black, white, seed, opening plies, its seed


def play(games: list[GameJob]) -> list[tuple[str | None, int]]:
    """Games to their end, each from its ``opening`` uniformly random moves (drawn from its
    opening seed): per game the winning colour (None: a tie) and the moves played.

    The games are played side by side: at each step every game's player to move chooses for
    all its positions in one batched search (one network call for many positions), which is
    many times faster than one game after another on a CPU. Search and sampling draw from one
    generator seeded by the first game's seed."""
    import torch

    torch.set_num_threads(1)
    if not games:
        return []
    config = games[0][0].config
    game = make_game(GAME, **config)
    rng = np.random.default_rng(games[0][2])
    states = []
    for _black, _white, _seed, opening, opening_seed in games:
        state, opening_rng = game.initial_state(), np.random.default_rng(opening_seed)
        for _ in range(opening):
            if game.is_terminal(state):
                break
            legal = np.flatnonzero(game.legal_mask(state)[:-1])  # never a pass
            state = game.apply(state, int(legal[opening_rng.integers(len(legal))]))
        states.append(state)
    moves = [0] * len(games)
    while True:
        to_move: dict[str, tuple[Entrant, list[int]]] = {}
        for k, state in enumerate(states):
            if not game.is_terminal(state):
                who = games[k][game.to_play(state)]
                to_move.setdefault(who.name, (who, []))[1].append(k)
        if not to_move:
            break
        for who, ks in to_move.values():
            actions = _player(who.spec, who.config).select_actions(
                game, [states[k] for k in ks], rng)
            for k, action in zip(ks, actions):
                states[k] = game.apply(states[k], action)
                moves[k] += 1
    out: list[tuple[str | None, int]] = []
    for k, state in enumerate(states):
        returns = game.returns(state)
        winner = None if returns[0] == returns[1] else "black" if returns[0] > 0 else "white"
        out.append((winner, games[k][3] + moves[k]))
    return out


def measure(found: list[Entrant], per_pair: int, workers: int, seed: int,
            log: Any, opening: int = 2,
            known: frozenset[frozenset[str]] = frozenset(),
            ) -> dict[tuple[str, str], tuple[float, int]]:
    """Real games between every pair not in ``known`` (pairs of names):
    ``(a, b) -> (a's wins + half the ties, games)``. Games 2m and 2m + 1 of a pair start from
    the same ``opening`` random moves, colours swapped: without them two deterministic
    levels would replay the same two games. A pair's seeds do not depend on ``known``; a
    pair's games are played side by side (:func:`play`)."""
    rng = random.Random(seed)
    batches: list[list[GameJob]] = []
    keys: list[tuple[str, str, list[str]]] = []
    for i, a in enumerate(found):
        for b in found[i + 1:]:
            batch: list[GameJob] = []
            for g in range(per_pair):
                black, white = (a, b) if g % 2 == 0 else (b, a)
                if g % 2 == 0:
                    opening_seed = rng.randrange(2**31)
                batch.append((black, white, rng.randrange(2**31), opening, opening_seed))
            if frozenset((a.name, b.name)) not in known:
                batches.append(batch)
                keys.append((a.name, b.name, [game[0].name for game in batch]))
    t0 = time.monotonic()
    results = []
    with ProcessPoolExecutor(workers) if workers > 1 else contextlib.nullcontext() as pool:
        played = pool.map(play, batches) if pool is not None else map(play, batches)
        for n, result in enumerate(played):  # in order, each as soon as it is there
            results.append(result)
            log(f"{n + 1}/{len(batches)} pairs, {time.monotonic() - t0:.0f} s")
    tally: dict[tuple[str, str], list[float]] = {}
    for (a, b, blacks), pair in zip(keys, results):
        t = tally.setdefault((a, b), [0.0, 0])
        for black, (winner, _moves) in zip(blacks, pair):
            t[0] += 0.5 if winner is None else float((winner == "black") == (black == a))
            t[1] += 1
    return {k: (v[0], int(v[1])) for k, v in tally.items()}


def run_identities(data: dict[str, Any], run: dict[str, Any], newest: bool) -> dict[str, str]:
    """Who each entrant name of a stored run was. Runs record it (``identities``); for an
    older run, only the newest with its options can be read from the players' entries (the
    fingerprints it wrote), since a later run may have given the same ids other levels."""
    if "identities" in run:
        return dict(run["identities"])
    if not newest:
        return {}
    names = {n for pair in run.get("results", {}) for n in pair.split("|")}
    out = {}
    for name in names:
        entry = data.get("players", {}).get(f"ai-{name}")
        trained = entry and entry.get("config") == run["config"] and entry.get("fingerprint")
        out[name] = str(entry["fingerprint"]) if trained else name
    return out


def reused(path: Path, config: dict[str, Any],
           found: list[Entrant]) -> dict[tuple[str, str], tuple[float, int]]:
    """The real games already played under these options between players that are among
    ``found`` (same identity), newest run first, keyed by today's names."""
    data = json.loads(path.read_text()) if path.exists() else {"runs": []}
    name_of = {e.identity: e.name for e in found}
    matrix: dict[tuple[str, str], tuple[float, int]] = {}
    runs = [r for r in data["runs"] if r.get("config") == config and "results" in r]
    for k, run in enumerate(reversed(runs)):
        who = run_identities(data, run, newest=k == 0)
        for pair, (wins, games) in run["results"].items():
            a, b = (name_of.get(who.get(n, "")) for n in pair.split("|"))
            if a and b and a != b and (a, b) not in matrix and (b, a) not in matrix:
                matrix[(a, b)] = (float(wins), int(games))
    return matrix


def replayed(pair: tuple[str, str], again: list[str]) -> bool:
    """Whether ``--play-again`` names this pair: one of its two entrants, or the pair itself
    as ``A|B`` (either order)."""
    a, b = pair
    return bool({a, b, f"{a}|{b}", f"{b}|{a}"} & set(again))


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


@dataclass(frozen=True)
class Spread:
    """The labels of several seasons over the same real games, one per seed, and the ranks
    each season leaves without an AI level (the service's players only, as the single
    season reports them)."""

    seeds: tuple[int, ...]
    labels: tuple[dict[str, dict[str, Any]], ...]

    @property
    def holes(self) -> tuple[list[str], ...]:
        """Per season, the ranks with no AI level within one rank (18K to the strongest)."""
        return tuple(ranks_without_ai([e["points"] for e in lab.values() if e["player_id"]])
                     for lab in self.labels)

    @property
    def without_holes(self) -> int:
        """The seasons that leave no rank without an AI level."""
        return sum(not h for h in self.holes)

    def common_holes(self) -> list[tuple[str, int]]:
        """Each rank left open in some season with how many, most often first (ties:
        weakest first)."""
        seen = Counter(r for h in self.holes for r in h)
        return sorted(seen.items(), key=lambda kv: (-kv[1], rules.rank_named(kv[0]).index))

    def ranks(self, name: str) -> list[tuple[str, int]]:
        """The ranks ``name`` settled at with how many seasons each, strongest first."""
        seen = Counter(lab[name]["rank"] for lab in self.labels)
        return sorted(seen.items(), key=lambda kv: -rules.rank_named(kv[0]).index)

    def median_points(self, name: str) -> float:
        return statistics.median(lab[name]["points"] for lab in self.labels)

    def median_labels(self) -> dict[str, dict[str, Any]]:
        """The first season's labels with each entrant's median points over the seasons (and
        the rank of those): what ``--write`` stores after several seasons, a level's typical
        place rather than one draw of it."""
        out = {}
        for name, entry in self.labels[0].items():
            points = int(self.median_points(name))
            out[name] = {**entry, "points": points, "rank": rules.rank_of(points).name,
                         "seasons": len(self.seeds)}
        return out


def season_spread(copies_factory: Callable[[], list[Copy]], rounds: int,
                  matrix: dict[tuple[str, str], tuple[float, int]], seeds: list[int],
                  anchor: str | None) -> Spread:
    """One season per seed, each from fresh copies (``copies_factory``), through
    :func:`season` and :func:`labels`: no games are played, only the win rates drawn."""
    out = []
    for seed in seeds:
        copies = copies_factory()
        season(copies, rounds, matrix, seed, anchor)
        out.append(labels(copies))
    return Spread(tuple(seeds), tuple(out))


def print_spread(spread: Spread) -> None:
    n = len(spread.seeds)
    print(f"\n{n} seasons (seeds {spread.seeds[0]}-{spread.seeds[-1]}): each entrant's ranks "
          "(seasons) and median points")
    order = sorted(spread.labels[0], key=spread.median_points, reverse=True)
    for name in order:
        print(f"{name:<34} {spread.median_points(name):>10.0f}  "
              + ", ".join(f"{r} x{k}" for r, k in spread.ranks(name)))
    common = spread.common_holes()
    print(f"seasons with no rank left without an AI level: {spread.without_holes} of {n}; "
          "ranks left open (seasons): "
          + (", ".join(f"{r} ({k})" for r, k in common[:5]) or "none"))


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
    p.add_argument("--seasons", type=int, default=1,
                   help="N > 1: after the season of --seed, N seasons (seeds --seed ... "
                   "--seed + N - 1) over the same games, summarised (each entrant's ranks "
                   "and median points, the seasons with no rank left without an AI level); "
                   "--write then stores each entrant's median points over the seasons")
    p.add_argument("--opening-plies", type=int, default=2,
                   help="random moves that open each pair of real games (colours swapped)")
    p.add_argument("--anchor", default="random",
                   help="entrant pinned at 0 points, 18K (none: no pin)")
    p.add_argument("--reuse", action="store_true",
                   help="take the games the same players already played under these options "
                   "from the calibration file; play only the pairs it lacks")
    p.add_argument("--play-again", nargs="*", default=[], metavar="ENTRANT",
                   help="with --reuse: these entrants' pairs, or these pairs ('A|B'), are "
                   "played again (e.g. with more games), not taken from the file")
    p.add_argument("--fit-levels", action="store_true",
                   help="fit the trained ladder's Elo (levels.json) again with these games "
                   "for the pairs its calibration lacks (levels inserted since)")
    p.add_argument("--what-if", nargs="+", type=float, default=[], metavar="ELO",
                   help="hypothetical levels at these Elo (the trained ladder's scale) join "
                   "the seasons; no games, nothing written (plans an insertion)")
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
    if args.opening_plies < 0:
        p.error("--opening-plies must be >= 0")
    if args.seasons < 1:
        p.error("--seasons must be >= 1")
    if args.what_if and (args.write or args.fit_levels):
        p.error("--what-if plans: its levels are not real, so --write and --fit-levels are refused")
    matrix = reused(calibration, config, found) if args.reuse else {}
    matrix = {k: v for k, v in matrix.items() if not replayed(k, args.play_again)}
    if matrix:
        print(f"{len(matrix)} pairs' games taken from {calibration}")
    fresh = measure(found, args.games_per_pair, args.workers, args.seed, print,
                    args.opening_plies, frozenset(frozenset(k) for k in matrix))
    matrix.update(fresh)
    play_seconds = time.monotonic() - t0
    if args.what_if:
        try:
            found = found + hypothetical(found, matrix, config, args.what_if, args.checkpoints)
        except ValueError as exc:
            p.error(str(exc))
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
    served = [e["points"] for e in result.values() if e["player_id"]]
    print("ranks without an AI level within one rank (18K up to the strongest): "
          + (", ".join(ranks_without_ai(served)) or "none"))
    if args.seasons > 1:
        spread = season_spread(
            lambda: [Copy(e, i) for e in found for i in range(args.copies)], args.rounds,
            matrix, list(range(args.seed, args.seed + args.seasons)), anchor)
        print_spread(spread)
        result = spread.median_labels()
        print("stored (median points over the seasons): ranks without an AI level within one "
              "rank: " + (", ".join(ranks_without_ai(
                  [e["points"] for e in result.values() if e["player_id"]])) or "none"))
    if args.write:
        meta = {"config": config, "extra": args.extra, "copies": args.copies,
                "opening_plies": args.opening_plies if fresh else None,
                "rounds": args.rounds, "seed": args.seed, "seasons": args.seasons,
                "anchor": anchor,
                "real_games": sum(g for _, g in matrix.values()),
                "play_seconds": round(play_seconds), "reused": args.reuse,
                "played_pairs": sorted(f"{a}|{b}" for a, b in fresh),
                "results": {f"{a}|{b}": [w, g] for (a, b), (w, g) in matrix.items()},
                "identities": {e.name: e.identity for e in found},
                "labels": {n: e["rank"] for n, e in result.items()},
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        write(calibration, result, meta)
    if args.fit_levels:
        return fit_levels(found, matrix, config, args)
    return 0


def hypothetical(found: list[Entrant], matrix: dict[tuple[str, str], tuple[float, int]],
                 config: dict[str, Any], elos: list[float],
                 checkpoints: Path) -> list[Entrant]:
    """Entrants for ``--what-if``: one level per Elo in ``elos`` (named ``what-if-<Elo>``,
    counted as a served level), whose win rate against each entrant, and each other, is the
    Elo expectation ``1 / (1 + 10 ** (-difference / 400))``, entered into ``matrix`` (as a
    million games, so the smoothing of :func:`win_rate` changes nothing). The entrants' Elo
    are the trained ladder's (levels.json, random = 0); an entrant without one (an extra
    reference player, a level not fitted yet) is refused: its place on that scale is not
    known."""
    from agents.levels_file import LevelsFile
    from agents.players import levels_folder

    ladder = LevelsFile.read(levels_folder(make_game(GAME, **config), checkpoints))
    elo = {"random": 0.0, **{lv.label: lv.elo for lv in ladder.levels if lv.elo is not None}}
    known: dict[str, float] = {}
    for e in found:
        key = e.label or e.name
        if key not in elo:
            raise ValueError(f"--what-if: no Elo for {e.name} in the ladder of {config}")
        known[e.name] = elo[key]
    games = 1_000_000
    added = []
    for x in elos:
        level = Entrant(f"what-if-{x:g}", f"what-if-{x:g}", "", dict(config))
        for name, y in known.items():
            matrix[(level.name, name)] = (games / (1 + 10 ** ((y - x) / 400)), games)
        known[level.name] = x
        added.append(level)
    return added


def fit_levels(found: list[Entrant], matrix: dict[tuple[str, str], tuple[float, int]],
               config: dict[str, Any], args: argparse.Namespace) -> int:
    """Fit the Elo of the trained ladder these entrants belong to with this run's games
    (levels.json; the pairs its calibration already played keep their games)."""
    from agents.players import levels_folder
    from training.levels import refit_levels

    label = {e.name: e.label or e.name for e in found
             if e.label is not None or e.name == "random"}
    if not any(e.label for e in found):
        print("--fit-levels: no trained ladder plays these options", file=sys.stderr)
        return 2
    more = []
    for (a, b), (wins, games) in matrix.items():
        if a in label and b in label:
            won = int(wins)
            draws = round(2 * (wins - won))
            more.append((label[a], label[b], won, draws, games - won - draws))
    folder = levels_folder(make_game(GAME, **config), args.checkpoints)
    report = refit_levels(folder, more, {
        "by": "bench/ladder_levels.py", "games_per_pair": args.games_per_pair,
        "opening_plies": args.opening_plies,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, seed=args.seed)
    print(report.summary())
    return 0 if report.ordered else 1


if __name__ == "__main__":
    sys.exit(main())
