"""Export the AI levels the web client can run in the page (its offline mode) as ONNX models.

    python scripts/export_offline_models.py                 # every game in GAMES, every level
    python scripts/export_offline_models.py stereo_go-board-9x9    # only these keys

For each game whose rules the page has in JavaScript (``serving/static/js/offline/games.js``:
Jiugong, Fang Qi, and Stereo Go on the cylinder and on the 9x9 board), keyed as there (the
game id, then the options key of a non-default variant: ``stereo_go-board-9x9``), every level
of the shipped ladder for those options (``checkpoints/<game>/[<options key>/]levels.json``)
goes through :func:`training.onnx_export.export_level` to
``serving/static/offline/models/<key>/<id>-<label>.onnx``, and ``levels.json`` beside them
lists the levels as the page needs them before loading a model: id, label, Elo, file, size,
SHA-256, and the level's search settings read back from the model's own metadata (so the
page searches exactly as the exported level says); its ``game`` is the key. Re-run it whenever
a ladder changes; the files are committed, so the page needs neither torch nor this script.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.players import read_levels  # noqa: E402
from envs import make_game  # noqa: E402
from training.onnx_export import export_level, read_metadata  # noqa: E402

# games.js key: (game id, options)
GAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "jiugong": ("jiugong", {}),
    "fangqi": ("fangqi", {}),
    "stereo_go": ("stereo_go", {}),
    "stereo_go-board-9x9": ("stereo_go", {"board": "9x9"}),
}
OUT = ROOT / "serving" / "static" / "offline" / "models"


def export_game(key: str, out_dir: Path) -> dict:
    """Export every level of ``key`` (a key of GAMES) into ``out_dir``; the manifest written
    beside them."""
    game_id, options = GAMES[key]
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.onnx"):
        old.unlink()
    levels = []
    for entry in read_levels(make_game(game_id, **options)).levels:
        path = out_dir / f"{entry.id}-{entry.label}.onnx"
        export_level(game_id, str(entry.id), path, options)
        meta = read_metadata(path)
        data = path.read_bytes()
        levels.append({
            "id": str(entry.id),
            "label": entry.label,
            "elo": entry.elo,
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


def main() -> None:
    keys = sys.argv[1:] or list(GAMES)
    unknown = set(keys) - set(GAMES)
    if unknown:
        sys.exit(f"unknown keys {sorted(unknown)}; choose among {list(GAMES)}")
    for key in keys:
        manifest = export_game(key, OUT / key)
        for lv in manifest["levels"]:
            print(f"{key} {lv['id']} {lv['label']}: {lv['file']}, {lv['bytes']:,} bytes, "
                  f"{lv['search']['algorithm']} {lv['search']['simulations']} simulations")


if __name__ == "__main__":
    main()
