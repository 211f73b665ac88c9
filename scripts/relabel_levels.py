"""Rename levels of a shipped ladder, all at once (so a chain of renames is one edit):

    python scripts/relabel_levels.py checkpoints/stereo_go beginner=novice a14=beginner

The levels, their calibration's games and Elo stay as they were; only the names change
(``training.level_edits.relabel_levels``). See docs/ladder.md ("AI levels on the kyu/dan
scale").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from envs.core import ConfigError  # noqa: E402
from training.level_edits import relabel_levels  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("folder", type=Path, help="the ladder's folder (its levels.json)")
    p.add_argument("renames", nargs="+", metavar="OLD=NEW", help="a level's label and its new one")
    args = p.parse_args(argv)
    pairs = [r.split("=") for r in args.renames]
    if any(len(pair) != 2 or not all(pair) for pair in pairs):
        p.error(f"write each rename as OLD=NEW: {args.renames}")
    try:
        levels = relabel_levels(args.folder, dict(pairs))
    except ConfigError as exc:
        p.error(str(exc))
    for e in levels:
        print(e.id, e.label, e.checkpoint, e.search.get("simulations"), e.search.get("temperature"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
