"""The levels file (``levels.json``) as one typed model: the only way it is written and read.

Why one model: a ladder is written by the training stack (``qizero levels``), read by the
service, the players (``level:3``), the ONNX export and the command line. Each of them once
read the JSON on its own, and only the service checked it, so a file that one of them wrote
could break another, and the rule for the default level was written twice.

A file holds the levels of one game trained with one set of options (``game_options``): each
level has an ``id``, a ``label`` and either a ``checkpoint`` (a network file beside the
levels file) with ``search`` settings (:class:`agents.config.SearchConfig`) or a ``player``
spec (:func:`agents.players.make_player`: ``random``, ``mcts:64``...), and the figures of its
calibration (Elo and its 95% interval, games, score, seconds a move, the weights' SHA-256).
The default level is the file's ``default`` or else the middle of the ladder
(:attr:`LevelsFile.default_id`). Plain dataclasses (no pydantic): a machine that only plays
reads the file with the standard library.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from envs.core import ConfigError

#: The name of the levels file in its folder.
LEVELS_FILE = "levels.json"
#: The version of the file's format that this code writes and reads.
FORMAT_VERSION = 1


class LevelsFileError(ConfigError):
    """A levels file that cannot be read or does not hold a valid ladder."""


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LevelsFileError(f"{what} must be a number, not {value!r}")
    return float(value)


def _elo_ci(entry: dict[str, Any], name: str) -> tuple[float, float] | None:
    """The 95% interval as ``elo_ci`` (or ``elo_interval``) ``[low, high]``, or
    ``elo_low``/``elo_high``; None when the entry gives none."""
    for key in ("elo_ci", "elo_interval"):
        v = entry.get(key)
        if isinstance(v, (list, tuple)) and len(v) == 2:
            return _number(v[0], f"{name}.{key}"), _number(v[1], f"{name}.{key}")
    if entry.get("elo_low") is not None and entry.get("elo_high") is not None:
        return _number(entry["elo_low"], f"{name}.elo_low"), _number(
            entry["elo_high"], f"{name}.elo_high")
    return None


@dataclass(frozen=True)
class LevelEntry:
    """One level of the ladder (see the module docstring)."""

    id: int | str
    label: str
    checkpoint: str | None = None  # a file name beside the levels file
    player: str | None = None  # or a player spec
    iteration: int | None = None  # of the training run the checkpoint comes from
    search: dict[str, Any] = field(default_factory=dict)
    elo: float | None = None
    elo_ci: tuple[float, float] | None = None
    games: int | None = None
    score: float | None = None
    seconds_per_move: float | None = None
    sha256: str | None = None

    def __post_init__(self) -> None:
        if (self.checkpoint is None) == (self.player is None):
            raise LevelsFileError(f"level {self.id!r} needs exactly one of 'checkpoint', 'player'")

    def matches(self, which: str) -> bool:
        """Whether ``which`` names this level, by id (``3``) or label (``master``)."""
        return str(self.id) == which or self.label == which

    @staticmethod
    def from_json(entry: Any, index: int) -> LevelEntry:
        if not isinstance(entry, dict) or "id" not in entry:
            raise LevelsFileError(f"level {index} must be an object with an 'id'")
        name = f"level {entry['id']!r}"
        search = entry.get("search") or {}
        if not isinstance(search, dict):
            raise LevelsFileError(f"{name}: 'search' must be an object")

        def optional(key: str, kind: type) -> Any:
            v = entry.get(key)
            return None if v is None else kind(_number(v, f"{name}.{key}"))

        checkpoint, player = entry.get("checkpoint"), entry.get("player")
        return LevelEntry(
            id=entry["id"] if isinstance(entry["id"], int) else str(entry["id"]),
            label=str(entry.get("label", entry["id"])),
            checkpoint=None if checkpoint is None else str(checkpoint),
            player=None if player is None else str(player),
            iteration=optional("iteration", int),
            search=dict(search),
            elo=optional("elo", float),
            elo_ci=_elo_ci(entry, name),
            games=optional("games", int),
            score=optional("score", float),
            seconds_per_move=optional("seconds_per_move", float),
            sha256=None if entry.get("sha256") is None else str(entry["sha256"]),
        )

    def to_json(self) -> dict[str, Any]:
        """The entry as written: fields in their order, those without a value left out."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if v is None or (f.name == "search" and not v and self.player is not None):
                continue
            out[f.name] = list(v) if f.name == "elo_ci" else v
        return out


@dataclass(frozen=True)
class LevelsFile:
    """A whole levels file: the ladder, what it was trained and calibrated with."""

    levels: tuple[LevelEntry, ...]
    game: str | None = None
    game_options: dict[str, Any] = field(default_factory=dict)
    default: str | None = None  # as the file names it; see default_id
    format_version: int = FORMAT_VERSION
    anchor: str | None = None
    created: str | None = None
    run: str | None = None  # the training run the networks come from
    calibration: dict[str, Any] = field(default_factory=dict)  # games, pairs, Elo fit

    @property
    def default_id(self) -> str | None:
        """The level a caller gets when it names none: the file's ``default``, else the
        middle of the ladder (None for an empty ladder). The one place this rule lives."""
        if self.default is not None:
            return self.default
        return str(self.levels[len(self.levels) // 2].id) if self.levels else None

    def default_level(self) -> LevelEntry:
        """The level named by :attr:`default_id`; LevelsFileError for an empty ladder or a
        default that names no level."""
        if self.default_id is None:
            raise LevelsFileError(f"the ladder of {self.game} has no levels")
        return self.find(self.default_id)

    def find(self, which: str) -> LevelEntry:
        """The level named ``which`` (id or label); LevelsFileError naming the known ones."""
        for level in self.levels:
            if level.matches(which):
                return level
        known = ", ".join(f"{lv.id} ({lv.label})" for lv in self.levels)
        raise LevelsFileError(f"no level {which!r} for {self.game}; known levels: {known}")

    @staticmethod
    def from_json(data: Any) -> LevelsFile:
        """Validate a parsed levels file; LevelsFileError naming the problem."""
        if not isinstance(data, dict) or not isinstance(data.get("levels"), list):
            raise LevelsFileError("a levels file must be an object with a 'levels' list")
        version = data.get("format_version", FORMAT_VERSION)
        if version != FORMAT_VERSION:
            raise LevelsFileError(f"levels file format version {version!r}; this code reads "
                                  f"version {FORMAT_VERSION}")
        options = {} if data.get("game_options") is None else data["game_options"]
        if not isinstance(options, dict):
            raise LevelsFileError("'game_options' in a levels file must be an object")
        calibration = {} if data.get("calibration") is None else data["calibration"]
        if not isinstance(calibration, dict):
            raise LevelsFileError("'calibration' in a levels file must be an object")

        def text(key: str) -> str | None:
            return None if data.get(key) is None else str(data[key])

        return LevelsFile(
            levels=tuple(LevelEntry.from_json(e, i) for i, e in enumerate(data["levels"])),
            game=text("game"), game_options=dict(options), default=text("default"),
            format_version=FORMAT_VERSION, anchor=text("anchor"), created=text("created"),
            run=text("run"), calibration=dict(calibration),
        )

    def to_json(self) -> dict[str, Any]:
        """The file as written: fields in their order, those without a value left out."""
        order = ("format_version", "game", "game_options", "default", "anchor", "created",
                 "run", "calibration")
        out = {key: getattr(self, key) for key in order
               if getattr(self, key) is not None and not (key == "calibration"
                                                          and not self.calibration)}
        out["levels"] = [level.to_json() for level in self.levels]
        return out

    @staticmethod
    def read(path: str | Path) -> LevelsFile:
        """The levels file at ``path`` (a file, or the folder holding ``levels.json``);
        LevelsFileError naming the file when it is missing, unreadable or invalid."""
        path = Path(path)
        if path.suffix != ".json":  # a ladder's folder
            path = path / LEVELS_FILE
        try:
            return LevelsFile.from_json(json.loads(path.read_text()))
        except (OSError, ValueError, TypeError) as exc:  # LevelsFileError is a ValueError
            raise LevelsFileError(f"cannot read {path}: {exc}") from None

    def write(self, path: str | Path) -> Path:
        """Write the file at ``path`` atomically (a reader never sees half of it)."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        tmp.replace(path)
        return path
