"""ONNX export of the levels: the exported model answers what the PyTorch network answers (priors
after the legal-move softmax, values) on random reachable positions of every game that has
levels, at batch 1 and above; the metadata describes the level; bad input gets clear errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import envs
import qizero_cli
from agents.checkpoint import CheckpointError
from agents.evaluator import NetworkEvaluator
from agents.players import CHECKPOINT_ROOT, levels_folder, read_levels
from envs.core import ConfigError
from envs.policies import random_positions
from training.onnx_export import (
    OnnxNetwork,
    export_level,
    export_levels,
    read_metadata,
)

pytest.importorskip("onnxruntime")

# The top level of every game's shipped ladder, with the options it was trained for.
LADDERS = {
    "jiugong": {},
    "fangqi": {},
    "stereo_go": {"rules": "area", "max_moves": 400},
    "trigolden": {},
}
POSITIONS = {"jiugong": 300, "fangqi": 300, "stereo_go": 200, "trigolden": 200}
TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("onnx")
    return {
        game_id: export_level(game_id, "master" if game_id != "jiugong" else "perfect",
                              out / f"{game_id}.onnx", options)
        for game_id, options in LADDERS.items()
    }


@pytest.mark.parametrize("game_id", list(LADDERS))
def test_onnx_model_matches_the_pytorch_network(game_id: str, exported: dict) -> None:
    from agents.checkpoint import load_model

    game = envs.make_game(game_id, **LADDERS[game_id])
    meta = read_metadata(exported[game_id])
    torch_net = NetworkEvaluator(load_model(levels_folder(game) / meta["checkpoint"]["file"]).model)
    onnx_net = OnnxNetwork(exported[game_id])
    states = random_positions(game, POSITIONS[game_id], np.random.default_rng(7))
    obs = np.stack([game.observation(s) for s in states])
    masks = np.stack([game.legal_mask(s) for s in states])
    # Batches of several sizes: one position, a search's handful, a service batch, all of them.
    for lo, hi in [(0, 1), (1, 9), (9, 73), (0, len(states))]:
        p_torch, v_torch = torch_net.infer(obs[lo:hi], masks[lo:hi])
        p_onnx, v_onnx = onnx_net.infer(obs[lo:hi], masks[lo:hi])
        assert p_onnx.shape == p_torch.shape and v_onnx.shape == v_torch.shape
        assert np.abs(p_onnx - p_torch).max() <= TOLERANCE
        assert np.abs(v_onnx - v_torch).max() <= TOLERANCE
        assert not p_onnx[~masks[lo:hi]].any(), "illegal actions must get zero prior"
        np.testing.assert_allclose(p_onnx.sum(axis=1), 1.0, atol=1e-5)


def test_metadata_describes_the_level(exported: dict) -> None:
    meta = read_metadata(exported["stereo_go"])
    game = envs.make_game("stereo_go", **LADDERS["stereo_go"])
    entry = read_levels(game).find("master")
    assert meta["format"] == "qizero-onnx" and meta["format_version"] == 1
    assert meta["game"]["id"] == "stereo_go"
    assert meta["game"]["options"]["rules"] == "area"
    assert meta["game"]["options_key"] == "max_moves-400+rules-area"
    assert meta["game"]["player_names"] == ["black", "white"]
    assert meta["level"]["label"] == "master" and meta["level"]["elo"] == entry.elo
    assert meta["search"] == entry.search
    assert meta["network"]["kind"] == "cylinder"
    assert [i["name"] for i in meta["inputs"]] == ["observation", "action_mask"]
    assert meta["inputs"][0]["shape"] == ["batch", *game.spec.observation_shape]
    assert meta["inputs"][1]["shape"] == ["batch", game.spec.num_actions]
    # The graph's own input shapes agree, with a dynamic batch.
    session = OnnxNetwork(exported["stereo_go"]).session
    shapes = {i.name: i.shape for i in session.get_inputs()}
    assert shapes["observation"][1:] == list(game.spec.observation_shape)
    assert isinstance(shapes["observation"][0], str)
    assert isinstance(shapes["action_mask"][0], str)


def test_export_all_levels_of_a_ladder_through_the_cli(tmp_path: Path, capsys) -> None:
    # A small ladder of two levels on one network: one trace, two files, one index.
    root = tmp_path / "levels"
    shutil.copytree(CHECKPOINT_ROOT / "jiugong", root / "jiugong",
                    ignore=shutil.ignore_patterns("*iter000[124].pt"))
    data = json.loads((root / "jiugong" / "levels.json").read_text())
    data["levels"] = [lv for lv in data["levels"] if lv["id"] in (4, 5)]
    data["levels"][0]["checkpoint"] = data["levels"][1]["checkpoint"]
    data["levels"].append({"id": 6, "label": "rollouts", "player": "mcts:8"})
    (root / "jiugong" / "levels.json").write_text(json.dumps(data))
    out = tmp_path / "out"
    argv = ["export", "jiugong", "--all", "--out-dir", str(out), "--levels-dir", str(root)]
    assert qizero_cli.main(argv) == 0
    assert "jiugong-5-perfect.onnx: level 5 (perfect), puct 200 simulations" in (
        capsys.readouterr().out
    )
    index = json.loads((out / "jiugong.json").read_text())
    assert index["default"] == 5  # the middle of the ladder, as the service picks it
    assert [lv["file"] for lv in index["levels"]] == [
        "jiugong-4-expert.onnx", "jiugong-5-perfect.onnx"
    ]
    assert read_metadata(out / "jiugong-4-expert.onnx")["search"]["simulations"] == 0
    assert read_metadata(out / "jiugong-5-perfect.onnx")["search"]["algorithm"] == "puct"
    assert not list(out.glob("*.tmp"))
    # The baseline level has no network.
    with pytest.raises(ConfigError, match="not a network"):
        export_level("jiugong", "6", tmp_path / "x.onnx", levels_root=root)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nogame", "1", "--onnx", "x.onnx"], "unknown game 'nogame'"),
        (["jiugong", "9", "--onnx", "x.onnx"], "no level '9' for jiugong; known levels: 1"),
        (["stereo_go", "5", "--onnx", "x.onnx", "--option", "board=13x13"],
         "levels exist for: the default options; "),
        (["jiugong", "5"], "give a level and --onnx PATH"),
        (["jiugong", "--all"], "give --out-dir DIR"),
        (["jiugong", "5", "--onnx", "x.onnx", "--option", "size=4"], "unknown config option"),
    ],
)
def test_bad_export_requests_say_what_is_wrong(argv: list, message: str, capsys) -> None:
    assert qizero_cli.main(["export", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("qizero export: error:") and message in err


def test_bad_paths_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory"):
        export_level("jiugong", "1", tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ConfigError, match="cannot write .* is not a folder"):
        export_level("jiugong", "1", blocker / "sub" / "level.onnx")
    with pytest.raises(ConfigError, match="is a file, not a folder"):
        export_levels("jiugong", blocker)
    with pytest.raises(ConfigError, match="no ONNX model"):
        read_metadata(tmp_path / "missing.onnx")
    blocker.write_text("not a model")
    with pytest.raises(CheckpointError, match="not a"):
        read_metadata(blocker)
    with pytest.raises(ConfigError, match="no levels"):
        export_levels("jiugong", tmp_path, levels_root=tmp_path / "empty")


def test_a_missing_extra_names_the_install_command() -> None:
    from envs.core import MissingDependency, require

    with pytest.raises(MissingDependency, match=r"pip install 'qizero\[onnx\]'"):
        require("no_such_package_for_qizero", "onnx")
