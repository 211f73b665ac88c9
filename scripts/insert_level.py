"""Insert a level into a shipped ladder, below or above an existing one (no Elo yet):

    python scripts/insert_level.py checkpoints/stereo_go/board-9x9 --label expert \
        --checkpoint stereo_go-iter0500.pt --below master --search '{"simulations": 32}'
    python scripts/insert_level.py checkpoints/stereo_go/board-9x9 --label grandmaster \
        --checkpoint stereo_go-iter0800.pt --above master \
        --source checkpoints/stereo_go/stages/9x9/stage-000800.pt

(``--source`` exports a training run's stage as the level's weight file first),

then measure it: ``bench/ladder_levels.py --reuse --write --fit-levels`` plays it against
every other level (the pairs already played are reused), labels it on the ladder and fits
the ladder's Elo with those games (``training.levels.refit_levels``), which checks the strict
order. See docs/ladder.md ("AI levels on the kyu/dan scale").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from envs.core import ConfigError  # noqa: E402
from training.level_edits import insert_level  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("folder", type=Path, help="the ladder's folder (its levels.json)")
    p.add_argument("--label", required=True, help="the new level's label")
    p.add_argument("--checkpoint", required=True, help="its network, a file in the folder")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--below", help="the label of the level just above it")
    where.add_argument("--above", help="the label of the level just below it")
    p.add_argument("--source", type=Path,
                   help="a run's checkpoint to export as --checkpoint (weights only)")
    p.add_argument("--search", default="{}",
                   help="search settings changed from that neighbour's (JSON)")
    args = p.parse_args(argv)
    try:
        search = json.loads(args.search)
    except ValueError as exc:
        p.error(f"--search is not JSON: {exc}")
    try:
        levels = insert_level(args.folder, args.label, args.checkpoint, search, args.below,
                              above=args.above, source=args.source)
    except (ConfigError, ValueError) as exc:  # ValueError: settings the search does not take
        p.error(str(exc))
    for e in levels:
        print(e.id, e.label, e.checkpoint, e.search["simulations"], e.search["temperature"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
