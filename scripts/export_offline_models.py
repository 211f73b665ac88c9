"""Export the AI levels the web client can run in the page (its offline mode) as ONNX models.

    python scripts/export_offline_models.py          # every game with in-page rules

For each game whose rules the page has in JavaScript (a module
``serving/static/js/offline/<game>.js`` exporting ``rules``: Jiugong and Fang Qi), every level
of the shipped ladder (``checkpoints/<game>/levels.json``) goes through
:func:`training.onnx_export.export_level` to
``serving/static/offline/models/<game>/<id>-<label>.onnx``, and ``levels.json`` beside them
lists the levels as the page needs them before loading a model: id, label, Elo, file, size,
SHA-256, and the level's search settings read back from the model's own metadata (so the
page searches exactly as the exported level says). ``index.json`` lists the games exported:
the page's registry of offline games (``js/offline/games.js``). Re-run it whenever a ladder
changes; the files are committed, so the page needs neither torch nor this script.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envs import game_ids, make_game  # noqa: E402
from training.onnx_export import export_level, read_metadata  # noqa: E402
from training.players import read_levels  # noqa: E402

OUT = ROOT / "serving" / "static" / "offline" / "models"
RULES_JS = ROOT / "serving" / "static" / "js" / "offline"


def offline_games() -> list[str]:
    """The registered games whose rules the page has in JavaScript (``<game>.js``)."""
    return [g for g in game_ids() if (RULES_JS / f"{g}.js").is_file()]


def export_game(game_id: str, out_dir: Path) -> dict:
    """Export every level of ``game_id`` into ``out_dir``; the manifest written beside them."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.onnx"):
        old.unlink()
    levels = []
    for entry in read_levels(make_game(game_id))["levels"]:
        path = out_dir / f"{entry['id']}-{entry['label']}.onnx"
        export_level(game_id, str(entry["id"]), path)
        meta = read_metadata(path)
        data = path.read_bytes()
        levels.append({
            "id": str(entry["id"]),
            "label": entry["label"],
            "elo": entry.get("elo"),
            "file": path.name,
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "checkpoint": meta["checkpoint"],
            "search": meta["search"],
        })
    manifest = {
        "game": game_id,
        "source": f"checkpoints/{game_id}/levels.json through training/onnx_export.py "
                  "(scripts/export_offline_models.py)",
        "levels": levels,
    }
    (out_dir / "levels.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main() -> None:
    games = offline_games()
    for game_id in games:
        manifest = export_game(game_id, OUT / game_id)
        for lv in manifest["levels"]:
            print(f"{game_id} {lv['id']} {lv['label']}: {lv['file']}, {lv['bytes']:,} bytes, "
                  f"{lv['search']['algorithm']} {lv['search']['simulations']} simulations")
    (OUT / "index.json").write_text(json.dumps({"games": sorted(games)}, indent=2) + "\n")


if __name__ == "__main__":
    main()
