"""Growing a grid ResNet (agents.network_growth) and starting a run from the grown stage
(training.stages.grow_stage): the grown network plays as the source did."""

from __future__ import annotations

import pytest
import torch

from agents.checkpoint import load_model, save_checkpoint
from agents.config import NetworkConfig
from agents.network_growth import grow_resnet
from agents.networks import build_network
from envs import make_game
from envs.core import ConfigError, QizeroError
from training.config import config_to_dict, load_config
from training.stages import grow_stage, stage_iterations

GAME = make_game("stereo_go", board="5x5")
SMALL = NetworkConfig(kind="resnet", channels=6, blocks=2, value_hidden=8, aux_heads=True)


def _trained_like(cfg: NetworkConfig, seed: int = 0) -> torch.nn.Module:
    """A network with non-trivial batch-norm statistics and scales, as a trained one has."""
    torch.manual_seed(seed)
    net = build_network(GAME.spec, cfg)
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            with torch.no_grad():
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.running_mean.uniform_(-0.3, 0.3)
                m.running_var.uniform_(0.5, 2.0)
    return net.eval()


def _inputs(n: int = 12) -> torch.Tensor:
    torch.manual_seed(1)
    return torch.rand(n, *GAME.spec.observation_shape).round()


@pytest.mark.parametrize("channels,blocks", [(6, 2), (10, 2), (6, 5), (16, 3)])
def test_grown_network_computes_the_same(channels: int, blocks: int) -> None:
    source = _trained_like(SMALL)
    target = SMALL.model_copy(update={"channels": channels, "blocks": blocks})
    grown = grow_resnet(source, GAME.spec, target, noise=0.0).eval()
    assert grown.stem[0].out_channels == channels and len(grown.trunk) == blocks
    x = _inputs()
    with torch.no_grad():
        for a, b in zip(source.forward_aux(x), grown.forward_aux(x)):
            assert torch.allclose(a, b, atol=1e-5), (a - b).abs().max()


def test_noise_breaks_the_copies_symmetry_and_keeps_the_play_close() -> None:
    source = _trained_like(SMALL)
    target = SMALL.model_copy(update={"channels": 12})
    grown = grow_resnet(source, GAME.spec, target, noise=1e-3, seed=3).eval()
    # Channel 6 and up copy old channels: the layers reading them see different weights.
    w = grown.trunk[0].conv1.weight
    assert not any(torch.equal(w[:, 6 + k], w[:, i]) for k in range(6) for i in range(6))
    x = _inputs()
    with torch.no_grad():
        logits_a, value_a = source(x)
        logits_b, value_b = grown(x)
    assert torch.allclose(torch.softmax(logits_a, 1), torch.softmax(logits_b, 1), atol=5e-3)
    assert torch.allclose(value_a, value_b, atol=5e-3)
    assert not torch.equal(logits_a, logits_b)


def test_the_same_seed_grows_the_same_weights() -> None:
    source = _trained_like(SMALL)
    target = SMALL.model_copy(update={"channels": 9, "blocks": 4})
    a, b = (grow_resnet(source, GAME.spec, target, seed=5, noise=1e-3) for _ in range(2))
    torch.manual_seed(123)  # the global generator's state does not matter
    c = grow_resnet(source, GAME.spec, target, seed=5, noise=1e-3)
    for (name, x), y, z in zip(a.state_dict().items(), b.state_dict().values(),
                               c.state_dict().values()):
        assert torch.equal(x, y) and torch.equal(x, z), name
    other = grow_resnet(source, GAME.spec, target, seed=6, noise=1e-3)
    assert not torch.equal(a.trunk[1].conv1.weight, other.trunk[1].conv1.weight)


def test_growth_refuses_what_it_cannot_do() -> None:
    source = _trained_like(SMALL)
    with pytest.raises(ConfigError, match="only adds"):
        grow_resnet(source, GAME.spec, SMALL.model_copy(update={"channels": 4}))
    with pytest.raises(ConfigError, match="only adds"):
        grow_resnet(source, GAME.spec, SMALL.model_copy(update={"blocks": 1}))
    with pytest.raises(ConfigError, match="aux_heads"):
        grow_resnet(source, GAME.spec, SMALL.model_copy(update={"aux_heads": False}))
    with pytest.raises(ConfigError, match="value_hidden"):
        grow_resnet(source, GAME.spec, SMALL.model_copy(update={"value_hidden": 16}))
    with pytest.raises(ConfigError, match="into a resnet"):
        grow_resnet(source, GAME.spec, SMALL.model_copy(update={"kind": "mlp"}))
    mlp = build_network(GAME.spec, SMALL.model_copy(update={"kind": "mlp", "aux_heads": False}))
    with pytest.raises(ConfigError, match="only the grid ResNet"):
        grow_resnet(mlp, GAME.spec, SMALL)


def test_grow_stage_starts_a_folder_a_run_resumes_from(tmp_path) -> None:
    source = _trained_like(SMALL)
    src = save_checkpoint(
        tmp_path / "src.pt", game_id="stereo_go", game_options={"board": "5x5"},
        network=SMALL, model=source, iteration=7, step=70,
    )
    cfg = config_to_dict(load_config("configs/stereo_go_9x9_b.yaml"))
    cfg["game"]["options"] = {"board": "5x5"}
    cfg["network"] = SMALL.model_copy(update={"channels": 8, "blocks": 3}).model_dump(mode="json")
    folder = tmp_path / "stages"
    out = grow_stage(src, cfg, folder, noise=0.0)
    assert stage_iterations(folder) == [7] and (folder / "config.yaml").is_file()
    loaded = load_model(out)
    assert loaded.network.channels == 8 and loaded.network.blocks == 3
    assert loaded.iteration == 7 and loaded.step == 70 and "optimizer" not in loaded.data
    x = _inputs()
    with torch.no_grad():
        assert torch.allclose(source(x)[0], loaded.model.eval()(x)[0], atol=1e-5)
    with pytest.raises(QizeroError, match="already has stages"):
        grow_stage(src, cfg, folder)
    other = dict(cfg, game={"id": "fangqi", "options": {}})
    with pytest.raises(QizeroError, match="stereo_go network"):
        grow_stage(src, other, tmp_path / "other")
