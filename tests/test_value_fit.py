"""Value fit (``qizero value-fit``): positions labelled by random playouts, resumable chunks, a
network refit to the labels that keeps its policy, and a new run that ``qizero levels`` reads."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest
import yaml

from agents.checkpoint import load_model
from envs import make_game
from envs.core import ConfigError
from training.cli import run_value_fit_command
from training.config import config_from_dict
from training.learner import Learner
from training.levels import run_checkpoints
from training.value_fit import collect, label_chunk, load_positions

RUN = {
    "game": {"id": "jiugong"},
    "seed": 3,
    "network": {"kind": "mlp", "channels": 16, "blocks": 1, "value_hidden": 8},
    "search": {"simulations": 4},
    "selfplay": {"workers": 0, "games_per_iteration": 4, "batch_games": 4, "max_plies": 30},
    "replay": {"capacity": 200},
    "training": {"iterations": 1, "steps_per_iteration": 2, "batch_size": 8, "min_buffer": 4,
                 "eval_every": 0},
    "value_fit": {"positions": 60, "chunk": 25, "playouts": 4, "sample_probability": 0.5,
                  "epochs": 6, "batch_size": 16, "learning_rate": 0.003},
}
FIT = {  # enough positions for the held-out error to mean something
    **RUN,
    "value_fit": {"positions": 600, "chunk": 300, "playouts": 8, "sample_probability": 0.5,
                  "epochs": 10, "batch_size": 32, "learning_rate": 0.003,
                  "validation_fraction": 0.25},
}


def test_labels_are_the_mean_of_playouts_for_the_player_to_move():
    data = label_chunk(("jiugong", {}, [1, 2], 12, 3, 1.0))
    assert data["obs"].shape[0] == data["masks"].shape[0] == len(data["labels"]) == 12
    assert np.all(np.abs(data["labels"]) <= 1.0)
    # Three playouts of +-1 or 0 each: a label is a multiple of 1/3.
    assert np.allclose(data["labels"] * 3, np.round(data["labels"] * 3), atol=1e-5)
    again = label_chunk(("jiugong", {}, [1, 2], 12, 3, 1.0))
    np.testing.assert_array_equal(data["labels"], again["labels"])  # seeded


def test_a_stopped_labelling_resumes_with_the_same_positions(tmp_path: Path):
    cfg = config_from_dict(RUN)
    paths = collect(cfg, tmp_path, workers=0, log=lambda _: None)
    assert [p.name for p in paths] == [f"positions_{c:04d}.npz" for c in range(3)]
    game = make_game("jiugong")
    first = load_positions(paths, game)
    assert len(first[2]) == 60
    paths[1].unlink()
    lines: list[str] = []
    collect(cfg, tmp_path, workers=0, log=lines.append)
    assert "2 chunks already labelled" in lines[0] and len(lines) == 2  # only chunk 2 again
    for a, b in zip(first, load_positions(paths, game)):
        np.testing.assert_array_equal(a, b)


def test_value_fit_command_writes_a_new_run_the_levels_command_reads(tmp_path: Path):
    cfg = config_from_dict(RUN)
    Learner(cfg, tmp_path / "run", tensorboard=False).run(progress=False)
    config = tmp_path / "fit.yaml"
    config.write_text(yaml.safe_dump(FIT))
    args = argparse.Namespace(config=str(config), run=str(tmp_path / "run"), iteration=None,
                              out=str(tmp_path / "fit"), workers=0,
                              transfer=False)
    assert run_value_fit_command(args) == 0
    out = tmp_path / "fit"
    assert list(run_checkpoints(out)) == [1]
    assert (out / "config.yaml").read_text() == config.read_text()
    refit = load_model(out / "checkpoints" / "ckpt_000001.pt")
    record = refit.data["extra"]["value_fit"]
    assert record["positions"] == 600
    assert record["val_mse"] < record["val_mse_before"]  # the value learnt the labels
    assert record["val_kl_from_source"] < 0.05  # and the policy stayed what it was
    for bad in ({"iteration": 7}, {"out": str(tmp_path / "run")}):
        with pytest.raises(ConfigError):
            run_value_fit_command(argparse.Namespace(**{**vars(args), **bad}))


def test_transfer_refits_a_network_under_other_options_of_its_game(tmp_path: Path):
    """TriGolden's scoring modes share one observation (a global token tells them apart): a
    network trained under bracing scoring is refit under TriGolden scoring only when asked,
    and the new run records the options it now plays and the ones it came from."""
    bracing = {**RUN, "game": {"id": "trigolden", "options": {"scoring": "bracing"}},
               "network": {"kind": "tokens", "channels": 8, "blocks": 1, "value_hidden": 8},
               "selfplay": {**RUN["selfplay"], "games_per_iteration": 2, "batch_games": 2,
                            "max_plies": 6}}
    Learner(config_from_dict(bracing), tmp_path / "run", tensorboard=False).run(progress=False)
    scoring = {**bracing, "game": {"id": "trigolden", "options": {"scoring": "trigolden"}},
               "value_fit": {"positions": 24, "chunk": 12, "playouts": 2,
                             "sample_probability": 0.2, "epochs": 1, "batch_size": 8}}
    config = tmp_path / "fit.yaml"
    config.write_text(yaml.safe_dump(scoring))
    args = argparse.Namespace(config=str(config), run=str(tmp_path / "run"), iteration=None,
                              out=str(tmp_path / "fit"), workers=0, transfer=False)
    with pytest.raises(ConfigError, match="--transfer"):
        run_value_fit_command(args)
    assert run_value_fit_command(argparse.Namespace(**{**vars(args), "transfer": True})) == 0
    refit = load_model(tmp_path / "fit" / "checkpoints" / "ckpt_000001.pt")
    assert refit.data["game"]["options"]["scoring"] == "trigolden"
    assert refit.data["extra"]["value_fit"]["source_options"]["scoring"] == "bracing"
    assert refit.game.config.scoring == "trigolden"
    with np.load(tmp_path / "fit" / "value_fit" / "positions_0000.npz") as d:
        assert np.all(d["obs"][:, 0, 3] == 1.0)  # labelled under TriGolden scoring's token
        assert not np.any(d["obs"][:, 0, 2])
    jiugong = {**FIT, "value_fit": scoring["value_fit"]}
    config.write_text(yaml.safe_dump(jiugong))
    with pytest.raises(ConfigError, match="was trained for"):  # another game: never
        run_value_fit_command(argparse.Namespace(**{**vars(args), "transfer": True,
                                                   "out": str(tmp_path / "other")}))
