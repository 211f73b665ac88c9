"""AI levels as ladder players *(project rule)*: every Stereo Go level the service offers is a
ladder player with its own rank and points, so a lone player always finds an opponent of a
fitting strength.

Who they are: each level of every ``checkpoints/stereo_go/**/levels.json`` (the options it
was trained for are the only ones it can play), and the service's baseline levels: uniform
random, the scale's anchor, plays every option set, trained or not; pure MCTS plays only
options that have no trained levels (:func:`serving.levels.plays_trained_options`). A
baseline is one ladder player whatever the options. Where they start: the
points the ladder bench measured (``checkpoints/stereo_go/ladder.json``, written by
``bench/ladder_levels.py``) for the very network and search that level now is (its
:func:`fingerprint`: a ladder trained or calibrated again is a new strength), else 0 (18K);
after that their points move with their rated games like anyone's. An AI level plays any
number of games at once and never queues: it takes a seat when a person has waited long
enough (:mod:`serving.ladder.matching`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envs.core import changed_options, options_key
from serving.catalogue import build_game
from serving.errors import ServiceError
from serving.ladder import rules
from serving.ladder.options import GAME
from serving.levels import Level, LevelRegistry, LevelTable, baseline_table

log = logging.getLogger("qizero.serving")

BASELINE = "baseline"  # the key of the baseline levels (no levels.json)
CALIBRATION_FILE = "ladder.json"


# How an option of a level table reads in an AI player's name (the client has the same
# words in both languages, from the structured ``ai`` field of a player: :func:`ai_view`).
_OPTION_WORDS = {
    "board": lambda v: str(v).replace("x", "\u00d7"),  # 9x9 -> 9×9
    "rules": str,
    "max_moves": lambda v: f"{v} moves max",
}


def shown_options(options: dict[str, Any] | None) -> dict[str, Any] | None:
    """The options that tell a trained level's table apart, in reading order: the board and
    the scoring rules (what a ladder player chooses), then any other option that differs from
    the game's defaults (the move cap). None for a baseline level: one player, not one option
    set's (where it plays: :func:`option_set`)."""
    if options is None:
        return None
    game = build_game(GAME, options)
    extra = {k: v for k, v in sorted(changed_options(game).items())
             if k not in ("board", "rules")}
    return {"board": game.config.board, "rules": game.config.rules, **extra}


def ai_name(label: str, options: dict[str, Any] | None) -> str:
    """An AI player's name a person can read: ``AI master · 9×9, area`` (``AI Random`` for a
    baseline). Unique per level table and level, as the options keys are."""
    shown = shown_options(options)
    if not shown:
        return f"AI {label}"
    words = [_OPTION_WORDS.get(k, lambda v, k=k: f"{k} {v}")(v) for k, v in shown.items()]
    return f"AI {label} \u00b7 {', '.join(words)}"


def ai_view(label: str, options: dict[str, Any] | None) -> dict[str, Any]:
    """The parts of an AI player's name, for a client that shows it in its own language:
    the level's label and the options it plays (null: a baseline, one player for every
    option set it plays)."""
    return {"label": label, "options": shown_options(options)}


@dataclass(frozen=True)
class AILevel:
    """One AI level as a ladder player: its player id and name, the level table it belongs
    to (``key``: an options key, ``""`` the default options, or ``"baseline"``), the level
    id and label, the game options it was trained for (None: a baseline, which plays
    where :func:`option_set` offers it) and the level's entry (for its
    :attr:`fingerprint`). ``measured``: the ladder bench measured its starting points for
    what it is now; an unmeasured level is never offered by the matching, which would give
    it as an opponent of a rank it may not have (the service sets the flag,
    :meth:`serving.ladder.service.Ladder.ai_players`)."""

    player_id: str
    name: str
    key: str
    level: str
    options: dict[str, Any] | None
    entry: Level
    measured: bool = False

    @property
    def fingerprint(self) -> str:
        """Computed when asked (seeding, the bench), not on every matching pass."""
        return fingerprint(self.entry)


def ai_player_id(key: str, level: str) -> str:
    """``ai-<level>`` for the default options and baselines, ``ai-<key>-<level>`` otherwise
    (characters outside ``[A-Za-z0-9_-]`` become ``_``, so the id fits in a URL path)."""
    parts = ["ai"] + ([key] if key not in ("", BASELINE) else []) + [level]
    return re.sub(r"[^A-Za-z0-9_-]", "_", "-".join(parts))


ANCHOR = ai_player_id(BASELINE, "random")  # 0 points, 18K: where the scale starts


def fingerprint(level: Level) -> str:
    """What a measured strength belongs to: a trained level's network weights and search
    settings (16 hex digits of a SHA-256); a baseline is its id (fixed code)."""
    if level.checkpoint is None:
        return f"baseline:{level.id}"
    from agents.checkpoint import file_digest  # torch: only for trained levels

    try:
        weights = file_digest(level.checkpoint)
    except OSError:  # the level cannot play either; no measured points can be its own
        return f"unreadable:{level.checkpoint.name}"
    digest = hashlib.sha256(weights.encode())
    digest.update(json.dumps(_strength_settings(level.search), sort_keys=True).encode())
    return digest.hexdigest()[:16]


def _strength_settings(search: dict[str, Any]) -> dict[str, Any]:
    """The search settings a strength depends on. Gumbel's ``batch`` is not one: its batches
    go down by sequential-halving rounds and make the sequential search's moves
    (docs/training.md, "batch"), so a level switched to batches keeps its measured points.
    PUCT's and UCT's batches use virtual loss, which changes their search: theirs counts."""
    if search.get("algorithm", "gumbel") == "gumbel":
        return {k: v for k, v in search.items() if k != "batch"}
    return search


def ai_levels(levels: LevelRegistry) -> list[AILevel]:
    """Every Stereo Go level the service offers, as ladder players."""
    found: list[AILevel] = []
    for key in ["", *levels.variants(GAME)]:
        try:
            table = levels.table(GAME, key)
        except ServiceError as exc:  # an unreadable levels file: its levels stay out
            log.warning("ladder: no AI players from %s levels %r: %s", GAME, key, exc.message)
            continue
        if not _trained(table):
            continue  # no levels.json for these options: the baselines come below
        for lv in table.levels:
            if lv.source == "baseline":
                continue  # the anchor beside trained levels: one player, below
            options = dict(table.options)
            found.append(AILevel(ai_player_id(key, lv.id), ai_name(lv.label, options), key,
                                 lv.id, options, lv))
    if levels.baseline:
        for lv in baseline_table(GAME).levels:
            found.append(AILevel(ai_player_id(BASELINE, lv.id), ai_name(lv.label, None),
                                 BASELINE, lv.id, None, lv))
    return found


def ai_label(levels: LevelRegistry, key: str, level: str) -> str:
    """The label of an AI player's level (``key``, ``level`` as its player row keeps them),
    or the level id where its table no longer has it."""
    try:
        table = baseline_table(GAME) if key == BASELINE else levels.table(GAME, key)
    except ServiceError:  # an unreadable levels file: the id still names the level
        return level
    return next((lv.label for lv in table.levels if lv.id == level), level)


def calibrated_points(checkpoints_root: Path, players: list[AILevel]) -> dict[str, int]:
    """Starting points per AI player id from the ladder bench's file, for the ``players``
    whose entry was measured for what they are now (same fingerprint; a baseline's entry
    needs none: its code is its identity). The anchor, uniform random, is 0 points (18K) by
    the scale's definition (``bench/ladder_levels.py``), with or without a file; a player
    left out has no measured start."""
    points: dict[str, int] = {ANCHOR: 0} if any(ai.player_id == ANCHOR for ai in players) else {}
    path = Path(checkpoints_root) / GAME / CALIBRATION_FILE
    try:
        entries = json.loads(path.read_text())["players"]
        measured = {str(pid): (int(e["points"]), e.get("fingerprint"))
                    for pid, e in entries.items()}
    except FileNotFoundError:
        return points
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("ladder: %s is unreadable (%s); AI levels start at 0 points", path, exc)
        return points
    for ai in players:
        if ai.player_id not in measured or ai.player_id == ANCHOR:
            continue
        value, measured_for = measured[ai.player_id]
        if measured_for == ai.fingerprint or (ai.options is None and measured_for is None):
            points[ai.player_id] = value
        else:
            log.warning("ladder: %s's points in %s were measured for another network or "
                        "search; it starts at 0 points (run bench/ladder_levels.py --write)",
                        ai.player_id, path)
    return points


def ranks_without_ai(points: list[int]) -> list[str]:
    """The ranks from 18K up to the strongest of the AI levels at ``points`` that have no
    AI level within one rank, weakest first (the matching never pairs players further
    apart, so a person there waits for a person): the gaps a set of levels leaves."""
    if not points:
        return []
    held = {rules.rank_of(p).index for p in points}
    return [r.name for r in rules.RANKS[: max(held) + 1]
            if not held & {r.index - 1, r.index, r.index + 1}]


@dataclass(frozen=True)
class OptionSet:
    """Who plays a game asked for with some options, and under which options: the level
    table that serves them (``key``: its levels key, None where no levels were trained for
    them and the baselines' table serves) and ``config``, the options the game is then
    played under (the trained table's own, whoever of its players plays)."""

    key: str | None
    table: LevelTable
    config: dict[str, Any]

    def plays(self, ai: AILevel) -> dict[str, Any] | None:
        """The options ``ai`` plays this option set's game under, or None if it cannot: a
        trained level plays its own table's; a baseline plays where the table offers it."""
        if ai.options is None:
            offered = any(lv.id == ai.level and lv.source == "baseline"
                          for lv in self.table.levels)
        else:
            offered = ai.key == self.key
        return dict(self.config) if offered else None


def option_set(config: dict[str, Any], levels: LevelRegistry) -> OptionSet:
    """The option set a game asked for with ``config`` belongs to: the table trained for
    exactly these options, else one trained for them but for the move cap (the cylinder
    levels cap games at 400 moves; a ladder player asks for none), else the baselines'."""
    asked = build_game(GAME, config)
    key = options_key(asked)
    table = levels.table(GAME, key)
    if _trained(table):
        return OptionSet(key, table, dict(table.options))
    for other in ["", *levels.variants(GAME)]:
        try:
            trained = levels.table(GAME, other)
        except ServiceError:  # an unreadable levels file serves nothing (ai_levels logs it)
            continue
        if _trained(trained) and _without_cap(
                build_game(GAME, trained.options).config) == _without_cap(asked.config):
            return OptionSet(other, trained, dict(trained.options))
    return OptionSet(None, table, dict(config))


def game_config(
    ai: AILevel, config: dict[str, Any], levels: LevelRegistry
) -> dict[str, Any] | None:
    """The game options ``ai`` would play a game asked for with ``config`` under, or None if
    it cannot play it.

    A game asked for with options that have trained levels (:func:`option_set`) is played
    under their table's options, by its levels and by the baselines that play trained
    options (the anchor, uniform random); any other game under the options asked for, by the
    baselines."""
    return option_set(config, levels).plays(ai)


def _trained(table: LevelTable) -> bool:
    """A table read from a levels file (its levels are not all baselines)."""
    return any(lv.source != "baseline" for lv in table.levels)


def _without_cap(config: Any) -> Any:
    return dataclasses.replace(config, max_moves=0)
