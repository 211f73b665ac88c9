"""AI levels as ladder players *(project rule)*: every Stereo Go level the service offers is a
ladder player with its own rank and points, so a lone player always finds an opponent of a
fitting strength.

Who they are: each level of every ``checkpoints/stereo_go/**/levels.json`` (the options it
was trained for are the only ones it can play), and the service's baseline levels (uniform
random, pure MCTS: they play any options that have no trained levels). Where they start: the
points the ladder bench measured (``checkpoints/stereo_go/ladder.json``, written by
``bench/ladder_levels.py``), else 0 (18K); after that their points move with their rated
games like anyone's. An AI level plays any number of games at once and never queues: it
takes a seat when a person has waited long enough (:mod:`serving.ladder.matching`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envs.core import options_key
from serving.catalogue import build_game
from serving.errors import ServiceError
from serving.ladder.options import GAME
from serving.levels import LevelRegistry, baseline_table

log = logging.getLogger("qizero.serving")

BASELINE = "baseline"  # the key of the baseline levels (no levels.json)
CALIBRATION_FILE = "ladder.json"


@dataclass(frozen=True)
class AILevel:
    """One AI level as a ladder player: its player id and name, the level table it belongs
    to (``key``: an options key, ``""`` the default options, or ``"baseline"``), the level
    id, and the game options it was trained for (None: a baseline, any untrained options)."""

    player_id: str
    name: str
    key: str
    level: str
    options: dict[str, Any] | None


def ai_player_id(key: str, level: str) -> str:
    """``ai-<level>`` for the default options and baselines, ``ai-<key>-<level>`` otherwise
    (characters outside ``[A-Za-z0-9_-]`` become ``_``, so the id fits in a URL path)."""
    parts = ["ai"] + ([key] if key not in ("", BASELINE) else []) + [level]
    return re.sub(r"[^A-Za-z0-9_-]", "_", "-".join(parts))


def ai_levels(levels: LevelRegistry) -> list[AILevel]:
    """Every Stereo Go level the service offers, as ladder players."""
    found: list[AILevel] = []
    for key in ["", *levels.variants(GAME)]:
        try:
            table = levels.table(GAME, key)
        except ServiceError as exc:  # an unreadable levels file: its levels stay out
            log.warning("ladder: no AI players from %s levels %r: %s", GAME, key, exc.message)
            continue
        if any(lv.source == "baseline" for lv in table.levels):
            continue  # no levels.json for these options: the baselines come below
        for lv in table.levels:
            suffix = f" ({key})" if key else ""
            found.append(AILevel(ai_player_id(key, lv.id), f"AI {lv.label}{suffix}", key,
                                 lv.id, dict(table.options)))
    if levels.baseline:
        for lv in baseline_table(GAME).levels:
            found.append(AILevel(ai_player_id(BASELINE, lv.id), f"AI {lv.label}", BASELINE,
                                 lv.id, None))
    return found


def calibrated_points(checkpoints_root: Path) -> dict[str, int]:
    """Starting points per AI player id from the ladder bench's file (empty without one)."""
    path = Path(checkpoints_root) / GAME / CALIBRATION_FILE
    try:
        data = json.loads(path.read_text())
        return {str(pid): int(entry["points"]) for pid, entry in data["players"].items()}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ladder: %s is unreadable (%s); AI levels start at 0 points", path, exc)
        return {}


def game_config(
    ai: AILevel, config: dict[str, Any], levels: LevelRegistry
) -> dict[str, Any] | None:
    """The game options ``ai`` would play a game asked for with ``config`` under, or None if
    it cannot play it.

    A trained level plays exactly its training options: it takes a game whose options differ
    from them only in the move cap (the cylinder levels cap games at 400 moves), and the game
    is then played with the level's options. A baseline plays the options asked for, where no
    level was trained for them."""
    asked = build_game(GAME, config)
    if ai.options is None:
        table = levels.table(GAME, options_key(asked))
        return dict(config) if any(lv.id == ai.level and lv.source == "baseline"
                                   for lv in table.levels) else None
    own = build_game(GAME, ai.options)
    if _without_cap(own.config) != _without_cap(asked.config):
        return None
    return dict(ai.options)


def _without_cap(config: Any) -> Any:
    return dataclasses.replace(config, max_moves=0)
