"""The training curve: checkpoints spread over a run, rated in one fit against fixed anchors,
placed at their training time, written as JSON, TensorBoard scalars and a PNG."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_training_levels import RUN

from envs.core import ConfigError
from training.config import config_from_dict
from training.curve import elo_curve, spread, training_seconds, write_curve
from training.learner import Learner


def test_spread_keeps_the_first_and_last_checkpoints() -> None:
    assert spread([0, 1, 2, 3, 4, 5, 6, 7, 8], 3) == [0, 4, 8]
    assert spread([0, 1, 2], 8) == [0, 1, 2]
    assert spread([3], 4) == [3]
    with pytest.raises(ConfigError):
        spread([], 3)


def test_training_seconds_sums_the_logged_iterations(tmp_path: Path) -> None:
    (tmp_path / "checkpoints").mkdir()
    rows = [{"iteration": k} for k in (1, 2, 3)] + [
        {"iteration": 4, "seconds": 10.0}, {"iteration": 5, "seconds": 5.0}
    ]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    stamps = {0: 1000.0, 1: 1010.0, 2: 1022.0, 3: 2000.0, 4: 2030.0, 5: 2040.0}
    for it, mtime in stamps.items():
        path = tmp_path / "checkpoints" / f"ckpt_{it:06d}.pt"
        path.write_bytes(b"")
        os.utime(path, (mtime, mtime))
    # 0: untrained. 1, 2: the gaps between checkpoint files (10, 12). 3: a gap of 978 s is the
    # run stopped and resumed, counted as the median gap (12). 4, 5: the logged seconds.
    assert training_seconds(tmp_path) == {0: 0.0, 1: 10.0, 2: 22.0, 3: 34.0, 4: 44.0, 5: 49.0}


def test_curve_of_a_tiny_run(tmp_path: Path) -> None:
    cfg = config_from_dict({**RUN, "training": {**RUN["training"], "iterations": 3}})
    run = tmp_path / "run"
    Learner(cfg, run, tensorboard=False).run(progress=False)
    curve = elo_curve(cfg, run, points=2, games=4, log=lambda _: None)
    assert [p.iteration for p in curve.points] == [0, 3]
    minutes = [p.minutes for p in curve.points]
    assert minutes[0] == 0.0 < minutes[1]
    assert all(p.elo_ci[0] <= p.elo <= p.elo_ci[1] for p in curve.points)
    assert set(curve.anchors) == {"random", "solver"}  # Jiugong: no greedy, an exact solver
    assert curve.anchors["random"] == 0.0
    png = tmp_path / "curve.png"
    write_curve(run, "tiny", curve, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads((run / "curve.json").read_text())
    assert [p["iteration"] for p in saved["points"]] == [0, 3]
    assert any((run / "tb" / "curve").glob("events.out.tfevents.*"))
