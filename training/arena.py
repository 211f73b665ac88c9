"""Arena: seeded matches with sides swapped, round robins, and Bradley-Terry/Elo ratings.

Matches play all their games at once: at each step every player gets, in one call, the states
of the games where it is to move (so a searching player batches its network evaluations).
Game ``k`` of a match gives player A the first seat when ``k`` is even and the second when odd.

Ratings: a Bradley-Terry model, P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400)), fitted by
Newton's method on all results at once (a draw counts half a win for each side). The anchor
player (uniform random when present) is fixed at 0; 95% confidence intervals come from the
inverse Hessian (observed Fisher information). A weak Gaussian prior (sd ~1700 Elo) keeps the
fit finite when a player wins every game; the intervals then become wide, honestly.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.players import Player
from envs import Game

ELO_PER_NAT = 400.0 / math.log(10.0)
PRIOR_SD = 10.0  # natural units (about 1737 Elo)


#: One chunk of a parallel round robin: ``(i, j, c)``, chunk ``c`` of the pair ``(i, j)``.
ChunkKey = tuple[int, int, int]
#: What a chunk's games gave: (i wins, draws, j wins, plies), as :func:`play_match` returns.
ChunkResult = tuple[int, int, int, int]


class ChunkJournal:
    """The chunks of round-robin games already played, one JSON line each (append only).

    Why: a TriGolden ladder takes most of an hour of two cores to calibrate, and a match of its
    top level against pure MCTS longer. Chunk ``c`` of pair ``(i, j)`` is seeded by
    ``[seed, i, j, c]``, so its games do not depend on how many chunks follow: a rerun may take
    it from here instead of playing it again (a stopped run resumes; one with more games per
    pair plays only the chunks it lacks). A chunk is reused only when everything that decides
    its games is the same (the game and its options, both players, the seed list, the chunk's
    length, the opening plies); the code that plays is assumed the same too, so delete the
    file after changing the rules or the search.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.results: dict[str, ChunkResult] = {}
        text = self.path.read_text() if self.path.exists() else ""
        self._torn = bool(text) and not text.endswith("\n")  # the next record starts a line
        for line in text.splitlines():
            try:
                row = json.loads(line)
                wins_i, draws, wins_j, plies = (int(x) for x in row["result"])
                key = str(row["key"])
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short when a run was killed: play it again
            self.results[key] = (wins_i, draws, wins_j, plies)

    @staticmethod
    def key(**what: Any) -> str:
        """A digest of everything that decides a chunk's games."""
        text = json.dumps(what, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def record(self, key: str, result: ChunkResult) -> None:
        self.results[key] = result
        with self.path.open("a") as f:
            f.write(("\n" if self._torn else "") + json.dumps({"key": key, "result": list(result)})
                    + "\n")
        self._torn = False

    def hooks(
        self,
        game_id: str,
        options: Mapping[str, Any],
        identities: Sequence[Any],
        pairs: Sequence[tuple[int, int]],
        games_per_pair: int,
        seed: int,
        chunk: int,
        opening_plies: int,
    ) -> tuple[dict[ChunkKey, ChunkResult], Callable[[ChunkKey, ChunkResult], None]]:
        """For a parallel :func:`round_robin`: the chunks found here (``known``) and the hook
        that records the others as they finish (``on_chunk``).

        ``identities[i]`` is what decides player ``i``'s moves (:attr:`Player.identity`).
        """

        def key_of(k: ChunkKey) -> str:
            i, j, c = k
            return self.key(
                game=game_id, options=dict(options), a=identities[i], b=identities[j],
                seed=[seed, i, j, c], games=min(chunk, games_per_pair - c * chunk),
                opening_plies=opening_plies,
            )

        known = {}
        for i, j in pairs:
            for c in range(-(-games_per_pair // chunk)):
                found = self.results.get(key_of((i, j, c)))
                if found is not None:
                    known[i, j, c] = found
        return known, lambda k, result: self.record(key_of(k), result)


@dataclass
class MatchResult:
    """Results of a match between players ``i`` and ``j`` (indices into the player list)."""

    i: int
    j: int
    wins_i: int
    draws: int
    wins_j: int
    plies: int = 0

    @property
    def games(self) -> int:
        return self.wins_i + self.draws + self.wins_j

    @property
    def score_i(self) -> float:
        return (self.wins_i + 0.5 * self.draws) / max(self.games, 1)


def check_games(game: Game, n_games: int) -> None:
    """Refuse a number of games that is not a whole number of the rules' matches."""
    if n_games % game.match_games:
        raise ValueError(
            f"{game.spec.id} is scored by matches of {game.match_games} games: "
            f"the number of games must be a multiple of {game.match_games}, got {n_games}"
        )


def play_match(
    game: Game,
    a: Player,
    b: Player,
    n_games: int,
    rng: np.random.Generator,
    max_plies: int | None = None,
    opening_plies: int = 0,
) -> tuple[int, int, int, int]:
    """Play ``n_games`` between a and b, sides alternating; returns (a wins, draws, b wins,
    total plies). A game that reaches ``max_plies`` (default: the game's max length) is a draw.

    Where the rules play matches of several games (``game.match_games``; TriGolden: two, the
    first player swapping), the wins and draws count matches, scored by
    ``game.match_returns``: games ``2m`` (A opens) and ``2m + 1`` (B opens) are one match.

    With ``opening_plies`` > 0, games ``2m`` and ``2m + 1`` start from the same position after
    that many uniformly random plies (fewer if the game ends), with sides swapped.
    """
    if game.spec.num_players != 2:
        raise ValueError("the arena plays two-player games")
    check_games(game, n_games)
    per_match = game.match_games
    cap = max_plies or game.spec.max_length
    states = [game.initial_state() for _ in range(n_games)]
    for m in range(0, n_games, 2):
        s = states[m]
        for _ in range(opening_plies):
            if game.is_terminal(s):
                break
            legal = np.flatnonzero(game.legal_mask(s))
            s = game.apply(s, int(legal[rng.integers(len(legal))]))
        states[m : m + 2] = [s] * len(states[m : m + 2])
    seat_a = [k % 2 for k in range(n_games)]  # the player index that A controls
    plies = [0] * n_games
    active = list(range(n_games))
    while active:
        for player, is_a in ((a, True), (b, False)):
            mine = [
                k
                for k in active
                if not game.is_terminal(states[k])
                and plies[k] < cap
                and (game.to_play(states[k]) == seat_a[k]) == is_a
            ]
            if mine:
                actions = player.select_actions(game, [states[k] for k in mine], rng)
                for k, act in zip(mine, actions):
                    states[k] = game.apply(states[k], act)
                    plies[k] += 1
        active = [k for k in active if not game.is_terminal(states[k]) and plies[k] < cap]
    wa = d = wb = 0
    for m in range(0, n_games, per_match):
        finals = [s if game.is_terminal(s) else None for s in states[m : m + per_match]]
        r = game.match_returns(finals)
        ra, rb = r[seat_a[m]], r[1 - seat_a[m]]
        if ra > rb:
            wa += 1
        elif rb > ra:
            wb += 1
        else:
            d += 1
    return wa, d, wb, sum(plies)


def round_robin(
    game: Game,
    players: Sequence[Player],
    games_per_pair: int,
    seed: int = 0,
    pairs: Sequence[tuple[int, int]] | None = None,
    on_result: Callable[[MatchResult], Any] | None = None,
    opening_plies: int = 0,
    workers: int = 0,
    chunk: int = 2,
    known: Mapping[ChunkKey, ChunkResult] | None = None,
    on_chunk: Callable[[ChunkKey, ChunkResult], Any] | None = None,
) -> list[MatchResult]:
    """Every pair (or the given pairs) plays ``games_per_pair`` games; seeded per pair.

    ``workers`` > 0 plays the games in that many processes, cut into chunks of ``chunk`` games
    (chunk ``c`` of pair ``(i, j)`` seeded by ``[seed, i, j, c]``), each chunk with fresh
    copies of its two players; the results then depend on the chunk size, never on the number
    of workers or the order chunks finish. Chunks in ``known`` are taken as played (a journal
    of an earlier run with the same players and seed: ``training.levels``); ``on_chunk`` hears
    of every chunk played; each chunk's copies of the players restart their own randomness
    from the chunk's seed (``Player.reseed``). In one process (``workers = 0``) the players
    keep their state from pair to pair (the evaluation caches, pure MCTS's playout generator),
    and there are no chunks.
    """
    n = len(players)
    pairs = (
        list(pairs) if pairs is not None else [(i, j) for i in range(n) for j in range(i + 1, n)]
    )
    if workers < 0:
        raise ValueError(f"workers must be 0 (this process) or more, got {workers}")
    if workers > 0:
        return _round_robin_parallel(
            game, players, games_per_pair, seed, pairs, on_result, opening_plies, workers, chunk,
            known or {}, on_chunk,
        )
    if known or on_chunk is not None:
        raise ValueError("chunks of games exist only with workers > 0")
    out = []
    for i, j in pairs:
        rng = np.random.default_rng([seed, i, j])
        wi, d, wj, plies = play_match(
            game, players[i], players[j], games_per_pair, rng, opening_plies=opening_plies
        )
        res = MatchResult(i, j, wi, d, wj, plies)
        out.append(res)
        if on_result is not None:
            on_result(res)
    return out


def _init_worker() -> None:
    import torch

    torch.set_num_threads(1)  # the processes are the parallelism


def _play_chunk(
    task: tuple[Game, Player, Player, int, list[int], int],
) -> tuple[int, int, int, int]:
    game, a, b, n_games, seed, opening_plies = task
    a.reseed([*seed, 0])  # this chunk's copies draw their own playouts, not the first chunk's
    b.reseed([*seed, 1])
    return play_match(game, a, b, n_games, np.random.default_rng(seed),
                      opening_plies=opening_plies)


def _round_robin_parallel(
    game: Game,
    players: Sequence[Player],
    games_per_pair: int,
    seed: int,
    pairs: list[tuple[int, int]],
    on_result: Callable[[MatchResult], Any] | None,
    opening_plies: int,
    workers: int,
    chunk: int,
    known: Mapping[ChunkKey, ChunkResult],
    on_chunk: Callable[[ChunkKey, ChunkResult], Any] | None,
) -> list[MatchResult]:
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    if chunk < 1 or chunk % 2 or chunk % game.match_games:
        raise ValueError(
            f"chunk must be an even number of games and a multiple of {game.match_games} "
            f"(a match of {game.spec.id}), got {chunk}"
        )
    check_games(game, games_per_pair)
    if games_per_pair < 1:
        raise ValueError(f"a pair plays at least one game, got {games_per_pair}")
    starts = range(0, games_per_pair, chunk)
    played: dict[tuple[int, int], list[ChunkResult]] = {pair: [] for pair in pairs}
    results: dict[tuple[int, int], MatchResult] = {}

    def add(pair: tuple[int, int], result: ChunkResult) -> None:
        played[pair].append(result)
        if len(played[pair]) == len(starts):  # the pair's last chunk
            wi, d, wj, plies = (sum(column) for column in zip(*played[pair]))
            results[pair] = MatchResult(pair[0], pair[1], wi, d, wj, plies)
            if on_result is not None:
                on_result(results[pair])

    todo = []
    for i, j in pairs:
        for c, start in enumerate(starts):
            if (i, j, c) in known:
                add((i, j), known[i, j, c])
            else:
                todo.append((i, j, c, min(chunk, games_per_pair - start)))
    ctx = mp.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker) as pool:
        futures = {
            pool.submit(
                _play_chunk,
                (game, players[i], players[j], size, [seed, i, j, c], opening_plies),
            ): (i, j, c)
            for i, j, c, size in todo
        }
        for fut in as_completed(futures):
            i, j, c = futures[fut]
            result = fut.result()
            if on_chunk is not None:
                on_chunk((i, j, c), result)
            add((i, j), result)
    return [results[pair] for pair in pairs]


@dataclass
class Ratings:
    elo: np.ndarray  # per player, anchor = 0
    cov: np.ndarray  # covariance of the Elo estimates
    anchor: int
    games: np.ndarray
    scores: np.ndarray  # points scored (win 1, draw 1/2)

    def ci(self, i: int) -> tuple[float, float]:
        half = 1.96 * math.sqrt(max(self.cov[i, i], 0.0))
        return float(self.elo[i] - half), float(self.elo[i] + half)

    def diff_ci(self, i: int, j: int) -> tuple[float, float, float]:
        """Elo(i) - Elo(j) with its 95% interval (uses the covariance, not the two CIs)."""
        var = self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j]
        d = float(self.elo[i] - self.elo[j])
        half = 1.96 * math.sqrt(max(var, 0.0))
        return d, d - half, d + half


def fit_elo(n_players: int, results: Sequence[MatchResult], anchor: int = 0) -> Ratings:
    """Maximum a-posteriori Bradley-Terry ratings (Elo scale) with the anchor at 0."""
    if not 0 <= anchor < n_players:
        raise ValueError(f"anchor {anchor} out of range")
    s = np.zeros((n_players, n_players))  # points of i against j
    g = np.zeros((n_players, n_players))  # games between i and j
    for r in results:
        s[r.i, r.j] += r.wins_i + 0.5 * r.draws
        s[r.j, r.i] += r.wins_j + 0.5 * r.draws
        g[r.i, r.j] += r.games
        g[r.j, r.i] += r.games
    free = [k for k in range(n_players) if k != anchor]
    theta = np.zeros(n_players)
    for _ in range(200):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # P(i beats j)
        grad = (s - g * p).sum(axis=1) - theta / PRIOR_SD**2
        w = g * p * (1 - p)
        hess = w.copy()
        np.fill_diagonal(hess, -w.sum(axis=1) - 1.0 / PRIOR_SD**2)
        hf = hess[np.ix_(free, free)]
        step = np.linalg.solve(hf, grad[free])
        theta[free] -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    w = g * p * (1 - p)
    hess = w.copy()
    np.fill_diagonal(hess, -w.sum(axis=1) - 1.0 / PRIOR_SD**2)
    cov = np.zeros((n_players, n_players))
    cov[np.ix_(free, free)] = np.linalg.inv(-hess[np.ix_(free, free)])
    return Ratings(
        elo=theta * ELO_PER_NAT,
        cov=cov * ELO_PER_NAT**2,
        anchor=anchor,
        games=g.sum(axis=1),
        scores=s.sum(axis=1),
    )


def format_table(names: Sequence[str], ratings: Ratings) -> str:
    """The ratings as a text table, strongest first."""
    order = np.argsort(-ratings.elo, kind="stable")
    width = max(len(n) for n in names) + 2
    lines = [f"{'player':<{width}} {'Elo':>7} {'95% CI':>17} {'games':>6} {'score':>7}"]
    for k in order:
        lo, hi = ratings.ci(int(k))
        games = int(ratings.games[k])
        score = ratings.scores[k] / max(games, 1)
        ci = "(anchor)" if k == ratings.anchor else f"[{lo:7.0f}, {hi:7.0f}]"
        lines.append(
            f"{names[k]:<{width}} {ratings.elo[k]:7.0f} {ci:>17} {games:6d} {100 * score:6.1f}%"
        )
    return "\n".join(lines)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson interval of a proportion ``wins / n`` (the targets count wins of matches)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def format_matches(names: Sequence[str], results: Sequence[MatchResult]) -> str:
    """One line a pair: wins, draws and losses of the first, its score (draws half), and the
    share of matches it won with its 95% interval."""
    lines = []
    for r in results:
        lo, hi = wilson(r.wins_i, r.games)
        lines.append(
            f"{names[r.i]} vs {names[r.j]}: +{r.wins_i} ={r.draws} -{r.wins_j} "
            f"({100 * r.score_i:.1f}%; won {100 * r.wins_i / max(r.games, 1):.0f}%, "
            f"95% interval {100 * lo:.0f}-{100 * hi:.0f}%)"
        )
    return "\n".join(lines)
