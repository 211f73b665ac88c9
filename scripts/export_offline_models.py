"""Export the AI levels the web client can run in the page (its offline mode) as ONNX models.

    python scripts/export_offline_models.py                        # every entry, every level
    python scripts/export_offline_models.py stereo_go-board-9x9    # only these entries
    python scripts/export_offline_models.py --index                # only rewrite index.json

The page plays by itself every game whose rules it has in JavaScript (a module
``serving/static/js/offline/<game>.js`` exporting ``rules``, a factory of the rules engine for
the game's options: Jiugong, Fang Qi, Stereo Go), with the options of its default ladder and
of the variants listed in :data:`VARIANTS` (Stereo Go's 9x9 board beside the cylinder). Each
such entry is keyed like its ladder's folder: the game id, then the options key of a
non-default configuration (``stereo_go-board-9x9``). Every level of the shipped ladder for
those options (``checkpoints/<game>/[<options key>/]levels.json``) goes through
:func:`training.onnx_export.export_level` to
``serving/static/offline/models/<key>/<id>-<label>.onnx``, and ``levels.json`` beside them
lists the levels as the page needs them before loading a model: id, label, Elo, file, size,
SHA-256, and the level's search settings read back from the model's own metadata (so the
page searches exactly as the exported level says); its ``game`` is the key. ``index.json``
lists the entries, ``{key, game, options}`` with the game's whole configuration: the page's
registry of offline games (``js/offline/games.js``), which finds the entry of a game and
chosen options there and builds its rules with those options. Re-run it whenever a ladder
changes; the files are committed, so the page needs neither torch nor this script.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.players import read_levels  # noqa: E402
from envs import game_ids, make_game  # noqa: E402
from envs.core import options_key  # noqa: E402
from training.onnx_export import export_level, read_metadata  # noqa: E402

OUT = ROOT / "serving" / "static" / "offline" / "models"
RULES_JS = ROOT / "serving" / "static" / "js" / "offline"
# Options besides the defaults that the page plays too (their ladders shipped, their rules
# supported by the game's module): game id -> option sets.
VARIANTS: dict[str, list[dict[str, Any]]] = {"stereo_go": [{"board": "9x9"}]}


@dataclasses.dataclass(frozen=True)
class Entry:
    """A game and options the page plays by itself; ``key`` names its models' folder."""

    key: str
    game: str
    options: dict[str, Any]

    def index_row(self) -> dict[str, Any]:
        """The row of index.json: the options as the whole configuration they give (what the
        page compares a chosen configuration with, and builds the rules from)."""
        config = make_game(self.game, **self.options).config
        return {"key": self.key, "game": self.game, "options": dataclasses.asdict(config)}


def offline_entries() -> list[Entry]:
    """Every registered game with a rules module (``<game>.js``), with its default options and
    its :data:`VARIANTS`, in key order."""
    entries = []
    for game_id in game_ids():
        if not (RULES_JS / f"{game_id}.js").is_file():
            continue
        for options in [{}, *VARIANTS.get(game_id, [])]:
            suffix = options_key(make_game(game_id, **options))
            entries.append(Entry(f"{game_id}-{suffix}" if suffix else game_id, game_id, options))
    return sorted(entries, key=lambda e: e.key)


def export_entry(entry: Entry, out_dir: Path) -> dict:
    """Export every level of ``entry`` into ``out_dir``; the manifest written beside them."""
    key, game_id, options = entry.key, entry.game, entry.options
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.onnx"):
        old.unlink()
    levels = []
    for level in read_levels(make_game(game_id, **options)).levels:
        path = out_dir / f"{level.id}-{level.label}.onnx"
        export_level(game_id, str(level.id), path, options)
        meta = read_metadata(path)
        data = path.read_bytes()
        levels.append({
            "id": str(level.id),
            "label": level.label,
            "elo": level.elo,
            "file": path.name,
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "checkpoint": meta["checkpoint"],
            "search": meta["search"],
        })
    folder = key.replace(f"{game_id}-", f"{game_id}/", 1) if key != game_id else game_id
    manifest = {
        "game": key,
        "source": f"checkpoints/{folder}/levels.json through training/onnx_export.py "
                  "(scripts/export_offline_models.py)",
        "levels": levels,
    }
    (out_dir / "levels.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def write_index(entries: list[Entry]) -> None:
    """The page's registry: the entries whose models are exported."""
    rows = [e.index_row() for e in entries if (OUT / e.key / "levels.json").is_file()]
    (OUT / "index.json").write_text(json.dumps({"games": rows}, indent=2) + "\n")


def main() -> None:
    entries = offline_entries()
    by_key = {e.key: e for e in entries}
    args = sys.argv[1:]
    keys = [] if args == ["--index"] else args or list(by_key)
    unknown = set(keys) - set(by_key)
    if unknown:
        sys.exit(f"unknown keys {sorted(unknown)}; choose among {list(by_key)} or --index")
    for key in keys:
        manifest = export_entry(by_key[key], OUT / key)
        for lv in manifest["levels"]:
            print(f"{key} {lv['id']} {lv['label']}: {lv['file']}, {lv['bytes']:,} bytes, "
                  f"{lv['search']['algorithm']} {lv['search']['simulations']} simulations")
    write_index(entries)


if __name__ == "__main__":
    main()
