"""AI levels per game and configuration, read from ``<checkpoints_root>/<game>/levels.json``
(levels trained with the game's default options) and ``<game>/<key>/levels.json`` (trained with
other options; ``key`` is :func:`envs.options_key`, e.g. ``trigolden/scoring-trigolden``). A
game played with some options is offered the levels trained for exactly those options.

The file is re-read when it changes (its modification time), so a game's levels appear as soon
as training writes them, without a restart. What a file holds, how it is checked and which
level is the default: :mod:`agents.levels_file`, the one model of the file; this module only
finds the files and offers their levels.

Without a file for the configuration, and when ``Settings.baseline_levels`` is on, two baseline
levels are offered (uniform random, the Elo anchor, and pure MCTS) marked
``"source": "baseline"``. With a file, and baselines on, the anchor is offered beside the
trained levels too (:func:`plays_trained_options`), weakest first.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.levels_file import LEVELS_FILE, LevelsFile, LevelsFileError
from serving.errors import NotFound, Unavailable


@dataclass(frozen=True)
class Level:
    id: str
    label: str
    elo: float | None = None
    elo_ci: tuple[float, float] | None = None
    games: int | None = None
    checkpoint: Path | None = None
    search: dict[str, Any] = field(default_factory=dict)
    player: str | None = None
    source: str = "levels.json"

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "elo": self.elo,
            "elo_ci": list(self.elo_ci) if self.elo_ci else None,
            "games": self.games,
            "source": self.source,
        }


@dataclass(frozen=True)
class LevelTable:
    game: str
    levels: tuple[Level, ...]
    default: str | None
    options: dict[str, Any] = field(default_factory=dict)  # what they were trained with

    def get(self, level_id: str | None) -> Level:
        if not self.levels:
            raise NotFound(f"game {self.game!r} has no AI levels yet", game=self.game)
        if level_id is None:
            level_id = self.default
        for lv in self.levels:
            if lv.id == level_id or lv.label == level_id:
                return lv
        known = ", ".join(f"{lv.id} ({lv.label})" for lv in self.levels)
        raise NotFound(
            f"no level {level_id!r} for {self.game}; known levels: {known}", level=level_id
        )


BASELINE_SIMULATIONS = 32
ANCHOR_LEVEL = "random"  # uniform random: Elo 0 of every calibration, 18K on the ladder


def baseline_table(game_id: str) -> LevelTable:
    levels = (
        Level(ANCHOR_LEVEL, "Random", elo=0.0, player="random", source="baseline"),
        Level(
            f"mcts{BASELINE_SIMULATIONS}",
            f"MCTS {BASELINE_SIMULATIONS}",
            player=f"mcts:{BASELINE_SIMULATIONS}",
            source="baseline",
        ),
    )
    return LevelTable(game_id, levels, levels[-1].id)


def plays_trained_options(level: Level) -> bool:
    """Whether a baseline level is offered beside trained levels too (the one place this rule
    lives). Only the anchor, uniform random: it is the zero of the scales by definition
    (Elo 0 of a calibration anchored at random, 18K on the ladder), whatever the options, so
    it needs no measuring to stand beside them. Pure MCTS was measured only where no levels
    were trained, so it stays there."""
    return level.source == "baseline" and level.id == ANCHOR_LEVEL


def with_anchor(table: LevelTable, anchor: str | None) -> LevelTable:
    """A trained table with the baselines that play trained options put first (weakest
    first), unless a level of the file already answers to their id or label; an empty table
    stays empty. Their Elo is 0 only where the file's Elo is anchored at them (``anchor``),
    else unknown."""
    if not table.levels:  # nothing trained yet: no table to stand beside
        return table
    names = {lv.id for lv in table.levels} | {lv.label for lv in table.levels}
    extra = tuple(
        dataclasses.replace(lv, elo=lv.elo if anchor == lv.id else None)
        for lv in baseline_table(table.game).levels
        if plays_trained_options(lv) and not {lv.id, lv.label} & names
    )
    return dataclasses.replace(table, levels=extra + table.levels)


def level_table(game_id: str, file: LevelsFile, folder: Path) -> LevelTable:
    """The service's view of a levels file: its levels, checkpoints resolved in ``folder``."""
    levels = tuple(
        Level(
            id=str(entry.id),
            label=entry.label,
            elo=entry.elo,
            elo_ci=entry.elo_ci,
            games=entry.games,
            checkpoint=folder / entry.checkpoint if entry.checkpoint is not None else None,
            search=dict(entry.search),
            player=entry.player,
        )
        for entry in file.levels
    )
    return LevelTable(game_id, levels, file.default_id, dict(file.game_options))


class LevelRegistry:
    """Level tables per game and options key, re-read when a levels.json appears or changes."""

    def __init__(self, root: Path, baseline: bool = True) -> None:
        self.root = Path(root)
        self.baseline = baseline
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, str], tuple[float, LevelTable]] = {}

    def table(self, game_id: str, key: str = "") -> LevelTable:
        """The levels of ``game_id`` trained with the options named by ``key``
        (:func:`envs.options_key`; ``""``: the default options)."""
        folder = self.root / game_id / key if key else self.root / game_id
        path = folder / LEVELS_FILE
        try:
            mtime = path.stat().st_mtime_ns
        except OSError:
            return baseline_table(game_id) if self.baseline else LevelTable(game_id, (), None)
        with self._lock:
            hit = self._cache.get((game_id, key))
            if hit and hit[0] == mtime:
                return hit[1]
        try:
            file = LevelsFile.read(path)
        except LevelsFileError as exc:
            raise Unavailable(str(exc)) from None
        table = level_table(game_id, file, path.parent)
        if self.baseline:
            table = with_anchor(table, file.anchor)
        with self._lock:
            self._cache[(game_id, key)] = (mtime, table)
        return table

    def variants(self, game_id: str) -> list[str]:
        """Keys of the non-default configurations of ``game_id`` that have trained levels."""
        folder = self.root / game_id
        if not folder.is_dir():
            return []
        return sorted(p.parent.name for p in folder.glob(f"*/{LEVELS_FILE}"))
