"""Strength levels: build the ladder from a training run, calibrate it in the arena, ship it.

A level is (network checkpoint, search settings, temperature). ``build_levels`` takes the
ladder described in the config's ``levels`` section, exports the checkpoints it names as small
weight files (no optimizer state) into ``checkpoints/<game>/``, plays the calibration round
robin (the levels, uniform random and any other opponents, sides swapped, paired random
openings), fits Elo with 95% intervals (random = 0), measures each level's time per move on one
core, and writes ``levels.json``.

The ladder must be strictly ordered: each level's Elo minus the one below must have a 95%
interval above 0 (the interval of the *difference*, from the covariance of the fit), and the
lowest level must beat random the same way. If it is not, nothing is overwritten:
``levels.candidate.json`` gets the figures and the command fails, so a broken ladder never
ships silently.

Calibrating with ``workers`` > 0 keeps a journal of the finished chunks of games in the run
directory (``levels_games.jsonl``, :class:`training.arena.ChunkJournal`): a stopped
calibration resumes, and one with more games per pair plays only the chunks it lacks.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.checkpoint import file_digest, load_model, save_checkpoint
from agents.config import SearchConfig
from agents.inference import ModelPipeline
from agents.levels_file import LEVELS_FILE, LevelEntry, LevelsFile
from agents.players import (
    PLAYER_CACHE_BYTES,
    Player,
    RandomPlayer,
    SearchPlayer,
    make_player,
    network_player,
)
from envs import Game, make_game
from envs.core import ConfigError
from training.arena import (
    ChunkJournal,
    ChunkKey,
    ChunkResult,
    MatchResult,
    fit_elo,
    format_matches,
    format_table,
    round_robin,
)
from training.config import LevelSpec, RunConfig
from training.stages import stage_iterations, stage_path


def run_checkpoints(run_dir: Path) -> dict[int, Path]:
    """Iteration -> checkpoint, oldest first, of a run directory (``checkpoints/ckpt_*.pt``)
    or of a stage folder (``stage-*.pt``, :mod:`training.stages`: what is left of a run
    trained across sessions on other machines)."""
    found: dict[int, Path] = {}
    for p in (Path(run_dir) / "checkpoints").glob("ckpt_*.pt"):
        try:
            found[int(p.stem.split("_")[1])] = p
        except (IndexError, ValueError):
            continue
    for it in stage_iterations(Path(run_dir)):
        found.setdefault(it, stage_path(Path(run_dir), it))
    return dict(sorted(found.items()))


def resolve_iteration(spec: LevelSpec, iterations: list[int]) -> int:
    if not iterations:
        raise ConfigError("the run has no checkpoints")
    last = iterations[-1]
    c = spec.checkpoint
    if isinstance(c, float):
        want = max(1, round(c * last)) if last > 0 else 0
        return min(iterations, key=lambda i: (abs(i - want), i))
    if c not in iterations:
        raise ConfigError(f"level {spec.label!r}: the run has no checkpoint for iteration {c}")
    return c


def level_search(spec: LevelSpec) -> SearchConfig:
    return SearchConfig(
        algorithm=spec.algorithm,
        simulations=spec.simulations,
        max_considered=spec.max_considered,
        gumbel_scale=spec.gumbel_scale,
        temperature=spec.temperature,
        terminal_lookahead=spec.terminal_lookahead,
        policy_temperature=spec.policy_temperature,
        rollout_mix=spec.rollout_mix,
    )


def seconds_per_move(
    player: Player, game: Game, rng: np.random.Generator, moves: int = 12
) -> float:
    """Mean wall time of one move chosen alone (no batching), over the first moves of a game
    played by the player against itself: what a person waits for."""
    state = game.initial_state()
    times = []
    for _ in range(moves):
        if game.is_terminal(state):
            state = game.initial_state()
        t0 = time.perf_counter()
        a = player.select_action(game, state, rng)
        times.append(time.perf_counter() - t0)
        state = game.apply(state, a)
    return float(np.mean(times))


@dataclass
class LevelsReport:
    ordered: bool
    path: Path
    table: str
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        head = "ladder strictly ordered" if self.ordered else "ladder NOT strictly ordered"
        lines = [self.table, "", f"{head}; wrote {self.path}"]
        lines += [f"  {p}" for p in self.problems]
        return "\n".join(lines)


def calibration_pairs(mode: str, first_level: int, n: int) -> list[tuple[int, int]]:
    """The pairs ``(i, j)`` the calibration plays; players ``0 .. first_level - 1`` are random
    and the other opponents, the rest the levels from weakest to strongest.

    ``all``: every pair. ``near``: each level against every opponent and the two levels above
    it. ``chain``: every player against the two above it in the line random, opponents,
    levels; a strong level then never plays random, whose games against it say nothing the
    fit does not already know and cost the most (the level's moves are the slowest).
    """
    if mode == "all":
        return [(i, j) for i in range(n) for j in range(i + 1, n)]
    if mode == "chain":
        return [(i, j) for i in range(n) for j in range(i + 1, min(i + 3, n))]
    if mode != "near":
        raise ConfigError(f"unknown pairing {mode!r}: use all, near or chain")
    pairs = set()
    for i in range(first_level, n):
        pairs.update((o, i) for o in range(first_level))
        pairs.update((i, j) for j in range(i + 1, min(i + 3, n)))
    return sorted(pairs)


def build_levels(
    cfg: RunConfig,
    run_dir: Path,
    out_dir: Path,
    games_per_pair: int | None = None,
    seed: int = 0,
    log: Callable[[str], Any] = print,
    workers: int = 0,
    chunk: int = 2,
    journal_dir: Path | None = None,
) -> LevelsReport:
    """Export the ladder's checkpoints of ``run_dir`` (a run directory or a stage folder)
    to ``out_dir`` and calibrate it; the games are journalled in ``journal_dir`` (default
    the run directory), so a stopped calibration resumes."""
    lv = cfg.levels
    if len(lv.ladder) < 1:
        raise ConfigError("the config has no levels.ladder")
    game = make_game(cfg.game.id, **cfg.game.options)
    checkpoints = run_checkpoints(run_dir)
    iterations = list(checkpoints)
    out_dir.mkdir(parents=True, exist_ok=True)
    games = games_per_pair or lv.games_per_pair

    # Export the checkpoints the ladder uses, as small weight-only files.
    files: dict[int, str] = {}
    digests: dict[int, str] = {}  # of the source checkpoints (journal keys)
    levels: list[LevelEntry] = []
    players: list[Player] = [RandomPlayer()]
    names = ["random"]
    for spec in lv.ladder:
        it = resolve_iteration(spec, iterations)
        if it not in files:
            src = checkpoints[it]
            digests[it] = file_digest(src)
            loaded = load_model(src)
            name = f"{cfg.game.id}-iter{it:04d}.pt"
            save_checkpoint(
                out_dir / name,
                game_id=cfg.game.id,
                game_options=cfg.game.options,
                network=loaded.network,
                model=loaded.model,
                iteration=loaded.iteration,
                step=loaded.step,
                commit=loaded.data.get("commit"),
                extra={"run": Path(run_dir).name},
            )
            files[it] = name
        search_cfg = level_search(spec)
        evaluator = ModelPipeline(out_dir / files[it], cache_bytes=PLAYER_CACHE_BYTES)
        # Identified by the source checkpoint: the exported file holds its weights.
        identity = {"weights": digests[it], "search": search_cfg.as_json()}
        players.append(SearchPlayer(spec.label, evaluator, search_cfg, identity))
        names.append(spec.label)
        levels.append(
            LevelEntry(
                id=len(levels) + 1,
                label=spec.label,
                checkpoint=files[it],
                iteration=it,
                search=search_cfg.as_json(),
            )
        )
    return _calibrate(
        game,
        cfg.game.options,
        players,
        names,
        levels,
        out_dir,
        games=games,
        pairs_mode=lv.pairs,
        opening_plies=lv.opening_plies,
        opponents=lv.opponents,
        seed=seed,
        log=log,
        workers=workers,
        chunk=chunk,
        journal_dir=Path(journal_dir or run_dir),
        run_name=Path(run_dir).name,
    )


def recalibrate_levels(
    source: Path,
    game_options: dict[str, Any],
    out_dir: Path,
    games_per_pair: int | None = None,
    seed: int = 0,
    log: Callable[[str], Any] = print,
    workers: int = 0,
    chunk: int = 2,
    journal_dir: Path | None = None,
    pairs: str | None = None,
) -> LevelsReport:
    """Calibrate a shipped ladder (``source``/levels.json: its checkpoints and search
    settings) again under other game options, and write it to ``out_dir``.

    Why: a network plays every rule set its inputs describe (Stereo Go's rules and komi
    planes), but a level's strength is a figure of the options it was measured under, and a
    level is served only for options it was calibrated under. The checkpoints are copied
    beside the new levels.json; pairing, openings and opponents follow the source's
    calibration unless ``games_per_pair`` or ``pairs`` say otherwise.
    """
    source, out_dir = Path(source), Path(out_dir)
    ladder = LevelsFile.read(source)
    if ladder.game is None:
        raise ConfigError(f"{source / LEVELS_FILE} does not name its game")
    game = make_game(ladder.game, **game_options)
    calib = ladder.calibration
    out_dir.mkdir(parents=True, exist_ok=True)
    players: list[Player] = [RandomPlayer()]
    names = ["random"]
    levels = []
    for entry in ladder.levels:
        if entry.checkpoint is None:
            raise ConfigError(f"level {entry.id!r} of {source / LEVELS_FILE} is the player "
                              f"{entry.player!r}: only networks are calibrated again")
        src = source / entry.checkpoint
        dst = out_dir / entry.checkpoint
        if src.resolve() != dst.resolve():
            shutil.copyfile(src, dst)
        search_cfg = SearchConfig.model_validate(entry.search)
        players.append(network_player(dst, search_cfg, entry.label))
        names.append(entry.label)
        levels.append(LevelEntry(id=entry.id, label=entry.label, checkpoint=entry.checkpoint,
                                 iteration=entry.iteration, search=entry.search))
    opponents = [n for n in calib.get("players", []) if n not in names]
    return _calibrate(
        game,
        game_options,
        players,
        names,
        levels,
        out_dir,
        games=games_per_pair or int(calib.get("games_per_pair", 40)),
        pairs_mode=pairs or calib.get("pairs", "near"),
        opening_plies=int(calib.get("opening_plies", 0)),
        opponents=["random", *opponents],
        seed=seed,
        log=log,
        workers=workers,
        chunk=chunk,
        journal_dir=journal_dir or out_dir,
        run_name=ladder.run or source.name,
        recalibrated_from=str(source),
    )


def _calibrate(
    game: Game,
    game_options: dict[str, Any],
    players: list[Player],
    names: list[str],
    levels: list[LevelEntry],
    out_dir: Path,
    *,
    games: int,
    pairs_mode: str,
    opening_plies: int,
    opponents: list[str],
    seed: int,
    log: Callable[[str], Any],
    workers: int,
    chunk: int,
    journal_dir: Path,
    run_name: str,
    recalibrated_from: str | None = None,
) -> LevelsReport:
    """Play the calibration round robin of ``players`` (random first, then the levels in
    ``levels``' order), fit Elo, check the strict order and write levels.json."""
    first_level = len(players) - len(levels)
    for k, spec in enumerate(opponents):
        if spec == "random":
            continue
        players.insert(first_level, make_player(game, spec, seed=seed + 100 + k))
        names.insert(first_level, spec)
        first_level += 1
    n = len(players)
    level_idx = list(range(first_level, n))

    pairs = calibration_pairs(pairs_mode, first_level, n)
    log(f"calibrating {len(levels)} levels: {len(pairs)} pairings x {games} games")

    # The journal of chunks played by earlier calibrations of this run (workers > 0 only).
    known: dict[ChunkKey, ChunkResult] = {}
    on_chunk = None
    if workers > 0:
        journal_dir.mkdir(parents=True, exist_ok=True)
        journal = ChunkJournal(journal_dir / "levels_games.jsonl")
        known, on_chunk = journal.hooks(
            game.spec.id, game_options, [p.identity for p in players], pairs, games, seed,
            chunk, opening_plies,
        )
        if known:
            log(f"{len(known)} chunks of games taken from {journal.path}")
    t0 = time.monotonic()
    results = round_robin(
        game,
        players,
        games,
        seed=seed,
        pairs=pairs,
        opening_plies=opening_plies,
        on_result=lambda r: log(format_matches(names, [r])),
        workers=workers,
        chunk=chunk,
        known=known,
        on_chunk=on_chunk,
    )
    log(f"({time.monotonic() - t0:.0f} s)")
    calibration = {
        "games_per_pair": games,
        "pairs": pairs_mode,
        "opening_plies": opening_plies,
        "seed": seed,
        "chunk": chunk if workers > 0 else None,
    }
    if recalibrated_from is not None:
        calibration["recalibrated_from"] = recalibrated_from
    return _fit_and_write(game, game_options, players, names, levels, level_idx, results,
                          out_dir, calibration, run_name, seed)


def _fit_and_write(
    game: Game,
    game_options: dict[str, Any],
    players: Sequence[Player | None],
    names: list[str],
    levels: list[LevelEntry],
    level_idx: list[int],
    results: list[MatchResult],
    out_dir: Path,
    calibration: dict[str, Any],
    run_name: str,
    seed: int,
) -> LevelsReport:
    """Fit Elo to the games in ``results`` (random, index 0, at 0), check the strict order
    of ``levels`` (the players at ``level_idx``, weakest first) and write levels.json, or
    levels.candidate.json when the order is not certain. A level's time per move is measured
    (``players``) unless its entry has one already."""
    n = len(names)
    ratings = fit_elo(n, results, anchor=0)
    table = format_table(names, ratings)

    # Strict order: each level above the one below (and the first above random).
    problems = []
    chain = [0] + level_idx
    adjacent = []
    for lo, hi in zip(chain, chain[1:]):
        d, d_lo, d_hi = ratings.diff_ci(hi, lo)
        adjacent.append({"upper": names[hi], "lower": names[lo], "elo_diff": d, "ci": [d_lo, d_hi]})
        if d_lo <= 0:
            problems.append(
                f"{names[hi]} is not above {names[lo]} with 95% confidence: "
                f"{d:+.0f} Elo, interval [{d_lo:+.0f}, {d_hi:+.0f}]"
            )
    rng = np.random.default_rng(seed)
    calibrated = []
    for entry, k in zip(levels, level_idx):
        lo, hi = ratings.ci(k)
        assert entry.checkpoint is not None  # only networks are calibrated
        player = players[k]
        timing = entry.seconds_per_move
        if timing is None and player is not None:
            timing = round(seconds_per_move(player, game, rng), 4)
        calibrated.append(dataclasses.replace(
            entry,
            elo=round(float(ratings.elo[k]), 1),
            elo_ci=(round(lo, 1), round(hi, 1)),
            games=int(ratings.games[k]),
            score=round(float(ratings.scores[k] / max(ratings.games[k], 1)), 4),
            seconds_per_move=timing,
            # The weight file these figures were measured with: a file swapped or retrained
            # later no longer matches (the shipped-ladder test compares them).
            sha256=file_digest(out_dir / entry.checkpoint),
        ))
    fitted: dict[str, Any] = {
        **{k: v for k, v in calibration.items() if k not in ("recalibrated_from", "added")},
        "players": names,
        "elo": [round(float(x), 1) for x in ratings.elo],
        "elo_ci": [[round(a, 1), round(b, 1)] for a, b in (ratings.ci(k) for k in range(n))],
        "matches": [
            {
                "a": names[r.i],
                "b": names[r.j],
                "a_wins": r.wins_i,
                "draws": r.draws,
                "b_wins": r.wins_j,
            }
            for r in results
        ],
        "adjacent": adjacent,
        **{k: calibration[k] for k in ("recalibrated_from", "added") if k in calibration},
    }
    ladder = LevelsFile(
        levels=tuple(calibrated),
        game=game.spec.id,
        game_options=dict(game_options),
        anchor="random",
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        run=run_name,
        calibration=fitted,
    )
    ordered = not problems
    path = ladder.write(out_dir / (LEVELS_FILE if ordered else "levels.candidate.json"))
    return LevelsReport(ordered, path, table, problems)


def refit_levels(
    folder: Path,
    more: Sequence[tuple[str, str, int, int, int]],
    added: dict[str, Any],
    seed: int = 0,
) -> LevelsReport:
    """Fit a shipped ladder's Elo again with more real games and check its strict order:
    the games of its calibration for the pairs it played, plus ``more`` (``(a, b, a's wins,
    draws, b's wins)``, by label; random is ``random``) for the pairs it lacks.

    Why: a level inserted into a shipped ladder (between two others, or below the weakest)
    needs its Elo and its strict order checked like any; the ladder bench
    (``bench/ladder_levels.py``) has just played it against every other level under the
    same options, so those games place it without a second round robin. The levels already
    there keep their calibration games and time per move; ``added`` (what played the new
    games, how many) is kept in the calibration's ``added`` list.
    """
    folder = Path(folder)
    ladder = LevelsFile.read(folder)
    if ladder.game is None:
        raise ConfigError(f"{folder / LEVELS_FILE} does not name its game")
    game = make_game(ladder.game, **ladder.game_options)
    calib = ladder.calibration
    levels = list(ladder.levels)
    labels = [level.label for level in levels]
    opponents = [o for o in calib.get("players", []) if o != "random" and o not in labels]
    names = ["random", *opponents, *labels]
    index = {name: k for k, name in enumerate(names)}
    results: list[MatchResult] = []
    played: set[frozenset[str]] = set()
    for m in calib.get("matches", []):
        if m["a"] in index and m["b"] in index:
            results.append(MatchResult(index[m["a"]], index[m["b"]], int(m["a_wins"]),
                                       int(m["draws"]), int(m["b_wins"])))
            played.add(frozenset((m["a"], m["b"])))
    new_pairs = []
    for a, b, a_wins, draws, b_wins in more:
        if a in index and b in index and frozenset((a, b)) not in played:
            results.append(MatchResult(index[a], index[b], a_wins, draws, b_wins))
            new_pairs.append(f"{a}|{b}")
    first_level = 1 + len(opponents)
    players: list[Player | None] = [None] * first_level
    for level in levels:
        if level.checkpoint is None:
            raise ConfigError(f"level {level.id!r} of {folder / LEVELS_FILE} is the player "
                              f"{level.player!r}: only networks are fitted again")
        fresh = level.seconds_per_move is None
        players.append(network_player(folder / level.checkpoint,
                                      SearchConfig.model_validate(level.search),
                                      level.label) if fresh else None)
    keep = {k: calib[k] for k in ("games_per_pair", "pairs", "opening_plies", "seed", "chunk",
                                  "recalibrated_from") if k in calib}
    keep["added"] = [*calib.get("added", []), {**added, "pairs": new_pairs}]
    return _fit_and_write(game, ladder.game_options, players, names, levels,
                          list(range(first_level, len(names))), results, folder, keep,
                          ladder.run or folder.name, seed)
