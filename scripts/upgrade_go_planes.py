"""Give Stereo Go checkpoints written before the rules planes the two new input planes.

Stereo Go's observation gained a komi plane and a rules plane (``envs/stereo_go/game.py``,
``NUM_PLANES``): 11 planes became 13. A network trained on 11 planes plays exactly as before
when its first convolution gets zero weights for the two new planes, so this rewrites such a
checkpoint in place with its stem padded by zeros (and notes it under ``extra``). Checkpoints
that already fit are left alone.

    .venv/bin/python scripts/upgrade_go_planes.py checkpoints/stereo_go/*/*.pt
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from agents.checkpoint import read_checkpoint
from envs import make_game


def upgrade(path: Path) -> bool:
    """Pad ``path``'s stem to the game's planes; True if the file changed."""
    data = read_checkpoint(path)
    if data["game"]["id"] != "stereo_go":
        raise SystemExit(f"{path}: not a stereo_go checkpoint")
    planes = make_game("stereo_go", **data["game"]["options"]).spec.observation_shape[0]
    weights = data["weights"]
    stem_key = next(k for k, v in weights.items() if v.ndim == 4)  # the first convolution
    stem = weights[stem_key]
    if stem.shape[1] == planes:
        return False
    if stem.shape[1] > planes:
        raise SystemExit(f"{path}: {stem.shape[1]} input planes, more than the game's {planes}")
    pad = torch.zeros(stem.shape[0], planes - stem.shape[1], *stem.shape[2:], dtype=stem.dtype)
    weights[stem_key] = torch.cat([stem, pad], dim=1)
    extra = dict(data.get("extra") or {})
    extra["input_planes_padded_from"] = int(stem.shape[1])
    data["extra"] = extra
    tmp = path.with_name(path.name + ".tmp")
    torch.save(data, tmp)
    tmp.replace(path)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoints", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.checkpoints:
        print(f"{path}: {'padded' if upgrade(path) else 'already fits'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
