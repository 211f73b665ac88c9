"""AI levels per game and configuration, read from ``<checkpoints_root>/<game>/levels.json``
(levels trained with the game's default options) and ``<game>/<key>/levels.json`` (trained with
other options; ``key`` is :func:`envs.options_key`, e.g. ``trigolden/scoring-trigolden``). A
game played with some options is offered the levels trained for exactly those options.

The file is re-read when it changes (its modification time), so a game's levels appear as soon
as training writes them, without a restart. Each level in the file has an ``id``, a ``label``,
and either a ``checkpoint`` (a network file beside levels.json) with ``search`` settings
(``agents.config.SearchConfig``), or a ``player`` spec string for ``agents.players``
(``random``, ``mcts:64``...). Elo is read from ``elo`` and its 95% interval from ``elo_ci``
(``[low, high]``) or ``elo_low``/``elo_high``; ``games`` counts the calibration games. The
default level is the file's ``default`` or else the middle of the ladder.

Without a file for the configuration, and when ``Settings.baseline_levels`` is on, two baseline
levels are offered (uniform random, the Elo anchor, and pure MCTS) marked
``"source": "baseline"``.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


def baseline_table(game_id: str) -> LevelTable:
    levels = (
        Level("random", "Random", elo=0.0, player="random", source="baseline"),
        Level(
            f"mcts{BASELINE_SIMULATIONS}",
            f"MCTS {BASELINE_SIMULATIONS}",
            player=f"mcts:{BASELINE_SIMULATIONS}",
            source="baseline",
        ),
    )
    return LevelTable(game_id, levels, levels[-1].id)


def _ci(entry: dict[str, Any]) -> tuple[float, float] | None:
    for key in ("elo_ci", "elo_interval"):
        v = entry.get(key)
        if isinstance(v, (list, tuple)) and len(v) == 2:
            return float(v[0]), float(v[1])
    if entry.get("elo_low") is not None and entry.get("elo_high") is not None:
        return float(entry["elo_low"]), float(entry["elo_high"])
    return None


def parse_levels(game_id: str, data: Any, folder: Path) -> LevelTable:
    """Validate a levels.json document; ValueError naming the problem."""
    if not isinstance(data, dict) or not isinstance(data.get("levels"), list):
        raise ValueError("levels.json must be an object with a 'levels' list")
    levels = []
    for i, entry in enumerate(data["levels"]):
        if not isinstance(entry, dict) or "id" not in entry:
            raise ValueError(f"level {i} must be an object with an 'id'")
        has_ckpt = entry.get("checkpoint") is not None
        if has_ckpt == (entry.get("player") is not None):
            raise ValueError(f"level {entry['id']!r} needs exactly one of 'checkpoint', 'player'")
        elo = entry.get("elo")
        levels.append(
            Level(
                id=str(entry["id"]),
                label=str(entry.get("label", entry["id"])),
                elo=float(elo) if elo is not None else None,
                elo_ci=_ci(entry),
                games=int(entry["games"]) if entry.get("games") is not None else None,
                checkpoint=folder / str(entry["checkpoint"]) if has_ckpt else None,
                search=dict(entry.get("search") or {}),
                player=entry.get("player"),
            )
        )
    default = data.get("default")
    if default is None and levels:
        default = levels[len(levels) // 2].id
    options = data.get("game_options") or {}
    if not isinstance(options, dict):
        raise ValueError("'game_options' in levels.json must be an object")
    return LevelTable(
        game_id, tuple(levels), str(default) if default is not None else None, dict(options)
    )


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
        path = folder / "levels.json"
        try:
            mtime = path.stat().st_mtime_ns
        except OSError:
            return baseline_table(game_id) if self.baseline else LevelTable(game_id, (), None)
        with self._lock:
            hit = self._cache.get((game_id, key))
            if hit and hit[0] == mtime:
                return hit[1]
        try:
            table = parse_levels(game_id, json.loads(path.read_text()), path.parent)
        except (OSError, ValueError, TypeError) as exc:
            raise Unavailable(f"levels file {path} is unreadable: {exc}") from None
        with self._lock:
            self._cache[(game_id, key)] = (mtime, table)
        return table

    def variants(self, game_id: str) -> list[str]:
        """Keys of the non-default configurations of ``game_id`` that have trained levels."""
        folder = self.root / game_id
        if not folder.is_dir():
            return []
        return sorted(p.parent.name for p in folder.glob("*/levels.json"))
