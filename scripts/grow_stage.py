"""Start a run with a larger network from another run's stage, at that stage's strength:

    python scripts/grow_stage.py checkpoints/stereo_go/stages/9x9/stage-000979.pt \
        configs/stereo_go_9x9_b.yaml checkpoints/stereo_go/stages/9x9-b
    qizero train configs/stereo_go_9x9_b.yaml --resume-stage checkpoints/stereo_go/stages/9x9-b

The stage's grid ResNet is widened and deepened to the config's network, computing the same
function (Net2Net; ``agents.network_growth``), and written as the new folder's first stage
(the source's iteration, no optimizer state). docs/training.md has the why and the figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from envs.core import QizeroError  # noqa: E402
from training.config import config_to_dict, load_config  # noqa: E402
from training.stages import grow_stage  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("source", type=Path, help="the stage checkpoint to grow")
    p.add_argument("config", type=Path, help="the new run's YAML config (its network: larger)")
    p.add_argument("folder", type=Path, help="the new run's stage folder (must have no stage)")
    p.add_argument("--seed", type=int, default=0, help="which channels the new ones copy")
    p.add_argument("--noise", type=float, default=1e-3,
                   help="relative noise that breaks the copies' symmetry (0: exact copies)")
    args = p.parse_args(argv)
    try:
        cfg = config_to_dict(load_config(args.config))
        out = grow_stage(args.source, cfg, args.folder, seed=args.seed, noise=args.noise)
    except QizeroError as exc:  # a config, source or folder it cannot grow from or into
        p.error(str(exc))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
