"""Edits to a shipped ladder (``levels.json``): a level put in between two, a later network
put on top, labels renamed. None of them plays a game: an inserted level has no Elo until the
ladder bench has played it (``bench/ladder_levels.py --reuse --fit-levels``, which refits the
ladder with :func:`training.levels.refit_levels`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from agents.checkpoint import file_digest, load_model, save_checkpoint
from agents.config import SearchConfig
from agents.levels_file import LEVELS_FILE, LevelEntry, LevelsFile
from envs.core import ConfigError


def insert_level(
    folder: Path,
    label: str,
    checkpoint: str,
    search: dict[str, Any],
    below: str | None = None,
    *,
    above: str | None = None,
    source: Path | None = None,
) -> list[LevelEntry]:
    """Put a new level into a shipped ladder (``folder``/levels.json) just below the level
    labelled ``below`` or just above the one labelled ``above`` (exactly one of the two), and
    number the levels 1..n again; the new one has its network (a file beside levels.json) and
    search settings (those of that neighbour with ``search``'s changes), no Elo yet. With
    ``source`` (a training run's checkpoint), the network is first exported there as a weight
    file named ``checkpoint`` (no optimizer state). Returns the new levels.

    Why: a ladder whose neighbouring levels are far apart (several ranks on the ladder)
    leaves players between them without an opponent; a level made from an earlier network,
    fewer simulations or more sampling fills the gap, and a later network above the top one
    gives the strongest players an opponent. Its Elo comes from real games
    (:func:`training.levels.refit_levels`, after the ladder bench has played it against every
    level).
    """
    folder = Path(folder)
    ladder = LevelsFile.read(folder)
    levels = list(ladder.levels)
    labels = [level.label for level in levels]
    if (below is None) == (above is None):
        raise ConfigError("name exactly one neighbour: the level just above or just below")
    neighbour = below if below is not None else above
    if label in labels:
        raise ConfigError(f"{folder / LEVELS_FILE} already has a level {label!r}")
    if neighbour not in labels:
        raise ConfigError(f"{folder / LEVELS_FILE} has no level {neighbour!r}: {labels}")
    index = labels.index(neighbour)
    settings = SearchConfig.model_validate({**levels[index].search, **search}).as_json()
    if any(e.checkpoint == checkpoint and e.search == settings for e in levels):
        raise ConfigError(f"a level of {folder} already plays {checkpoint} with {settings}")
    path = folder / checkpoint
    if source is not None:
        _export_weights(Path(source), path, ladder)
    if not path.is_file():
        raise ConfigError(f"no network {path}: levels play files beside their levels.json")
    levels.insert(index if below is not None else index + 1, LevelEntry(
        id=0, label=label, checkpoint=checkpoint, iteration=load_model(path).iteration,
        search=settings, sha256=file_digest(path)))
    levels = [dataclasses.replace(e, id=k + 1) for k, e in enumerate(levels)]
    dataclasses.replace(ladder, levels=tuple(levels)).write(folder / LEVELS_FILE)
    return levels


def _export_weights(source: Path, target: Path, ladder: LevelsFile) -> None:
    """Write ``source``'s network to ``target`` as a level's weight file: the weights, the
    iteration and the run it came from, without the optimizer state a run's stage keeps."""
    if target.exists():
        raise ConfigError(f"{target} exists: name a new file for the exported network")
    loaded = load_model(source)
    if ladder.game is not None and loaded.game.spec.id != ladder.game:
        raise ConfigError(f"{source} plays {loaded.game.spec.id}, the ladder {ladder.game}")
    save_checkpoint(
        target, game_id=loaded.game.spec.id, game_options=loaded.data["game"]["options"],
        network=loaded.network, model=loaded.model, iteration=loaded.iteration,
        step=loaded.step, commit=loaded.data.get("commit"),
        extra={"run": source.parent.name})


def relabel_levels(folder: Path, renames: dict[str, str]) -> list[LevelEntry]:
    """Rename levels of a shipped ladder (``{old label: new label}``, all at once, so a chain
    such as club -> strong, strong -> expert is one edit), in the levels and everywhere its
    calibration names them (players, matches, adjacent pairs, added pairs) and its default.
    Returns the levels.

    Why: a ladder that gains levels in between may need the names of the others to move so
    that a label means about the same rank on every board (9×9's club is 10K). A level's
    strength is its network and search, never its label: fingerprints, Elo and the games
    stay as they were."""
    folder = Path(folder)
    ladder = LevelsFile.read(folder)
    labels = [level.label for level in ladder.levels]
    unknown = sorted(set(renames) - set(labels))
    if unknown:
        raise ConfigError(f"{folder / LEVELS_FILE} has no level {unknown[0]!r}: {labels}")
    after = [renames.get(label, label) for label in labels]
    taken = {"random", *(o for o in ladder.calibration.get("players", []) if o not in labels)}
    clash = sorted({a for a in after if after.count(a) > 1} | (set(after) & taken))
    if clash:
        raise ConfigError(f"the new labels would name two players {clash[0]!r}: {after}")

    def name(x: str) -> str:
        return renames.get(x, x)

    calib = dict(ladder.calibration)
    if "players" in calib:
        calib["players"] = [name(p) for p in calib["players"]]
    for key, fields in (("matches", ("a", "b")), ("adjacent", ("upper", "lower"))):
        if key in calib:
            calib[key] = [{**m, **{f: name(m[f]) for f in fields}} for m in calib[key]]
    if "added" in calib:  # pairs written "a|b"
        calib["added"] = [
            {**a, "pairs": ["|".join(map(name, pair.split("|"))) for pair in a["pairs"]]}
            if "pairs" in a else a
            for a in calib["added"]]
    levels = tuple(dataclasses.replace(e, label=name(e.label)) for e in ladder.levels)
    default = ladder.default if ladder.default is None else name(ladder.default)
    dataclasses.replace(ladder, levels=levels, calibration=calib, default=default).write(
        folder / LEVELS_FILE)
    return list(levels)
