"""The cylinder CNN for Stereo Go: shapes, circular equivariance, poles, a tiny training run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.checkpoint import load_model
from agents.config import NetworkConfig
from agents.networks import build_network
from agents.networks_cylinder import CylinderResNet, tie_poles
from agents.players import make_player
from envs import make_game
from envs.core import ConfigError
from training.config import config_from_dict
from training.learner import Learner, checkpoint_path

GAME = make_game("stereo_go")  # the cylinder: observation (11, 23, 17), 360 actions
N_POINTS = 359
CFG = NetworkConfig(kind="cylinder", channels=8, blocks=2, value_hidden=8)


def _net(seed: int = 0) -> CylinderResNet:
    torch.manual_seed(seed)
    net = build_network(GAME.spec, CFG)
    assert isinstance(net, CylinderResNet)
    # Non-trivial batch-norm statistics, so eval mode is not the identity on them.
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
    return net.eval()


def _observations(n: int, seed: int) -> np.ndarray:
    """Observations of positions from seeded random games (real planes, poles as rows)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        s = GAME.initial_state()
        for _ in range(int(rng.integers(0, 120))):
            legal = np.flatnonzero(GAME.legal_mask(s))
            s = GAME.apply(s, int(rng.choice(legal)))
            if GAME.is_terminal(s):
                break
        out.append(GAME.observation(s))
    return np.stack(out)


def test_shapes_and_ranges() -> None:
    net = _net()
    x = torch.from_numpy(_observations(4, 1))
    logits, value = net(x)
    assert logits.shape == (4, N_POINTS + 1) and value.shape == (4,)
    assert torch.isfinite(logits).all()
    assert ((value > -1) & (value < 1)).all()


def test_rotation_by_one_meridian_rotates_the_point_logits() -> None:
    net = _net(1)
    obs = _observations(3, 2)
    x = torch.from_numpy(obs)
    rotated = torch.roll(x, shifts=1, dims=3)  # meridian m -> m + 1
    with torch.no_grad():
        logits, value = net(x)
        r_logits, r_value = net(rotated)
    rings = logits[:, :357].reshape(3, 21, 17)
    expected = torch.roll(rings, shifts=1, dims=2).reshape(3, 357)
    torch.testing.assert_close(r_logits[:, :357], expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(r_logits[:, 357:], logits[:, 357:], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(r_value, value, rtol=1e-5, atol=1e-5)
    # The same through the engine's own symmetry (index 1 = rotation by one meridian): the
    # network of the transformed observation equals the transformed logits, every rotation.
    for k in (1, 5, 16):
        sym_obs, sym_logits = [], []
        for i in range(3):
            o, p = GAME.apply_symmetry(k, obs[i], logits[i].numpy())
            sym_obs.append(o)
            sym_logits.append(p)
        with torch.no_grad():
            got, _ = net(torch.from_numpy(np.stack(sym_obs)))
        np.testing.assert_allclose(got.numpy(), np.stack(sym_logits), rtol=1e-4, atol=1e-5)


def test_seam_is_circular() -> None:
    """A stone on meridian Q influences meridian A's logits through the seam (ring 10)."""
    net = _net(2)
    base = torch.from_numpy(_observations(1, 3))
    x = base.clone()
    x[0, 0, 10, 16] = 1.0 - x[0, 0, 10, 16]  # toggle own stone at Q10
    with torch.no_grad():
        a, _ = net(base)
        b, _ = net(x)
    ring10 = slice(9 * 17, 10 * 17)
    assert not torch.allclose(a[0, ring10][0], b[0, ring10][0])  # A10, the seam neighbour
    # With zero padding in the columns instead, A would be 16 columns away from Q: a 2-block
    # net (5 conv layers, reach 5 cells) would not see it; the poles are tied so check ring 10.


def test_each_pole_logit_is_taken_once() -> None:
    net = _net(3)
    cells: list[torch.Tensor] = []
    net.policy_head.register_forward_hook(lambda _m, _i, out: cells.append(out[:, 0]))
    x = torch.from_numpy(_observations(2, 4))
    with torch.no_grad():
        logits, _ = net(x)
    grid = cells[0]  # (B, 23, 17): one logit per cell
    for row, action in ((0, 357), (22, 358)):  # NP, SP
        # The pole's row is one point: every cell of it holds the same logit...
        torch.testing.assert_close(grid[:, row], grid[:, row, :1].expand(-1, 17))
        # ...and the action gets it once (not 17 copies, not a sum of 17).
        torch.testing.assert_close(logits[:, action], grid[:, row, 0])
    # Ring cells give the ring points in action order (cell_point of board.py).
    assert np.array_equal(GAME.board.cell_point[1:-1].ravel(), np.arange(357))
    torch.testing.assert_close(logits[:, :357], grid[:, 1:-1].reshape(2, 357))


def test_tie_poles_averages_the_pole_rows_only() -> None:
    x = torch.arange(2 * 1 * 4 * 3, dtype=torch.float32).reshape(2, 1, 4, 3)
    y = tie_poles(x)
    assert torch.equal(y[:, :, 1:3], x[:, :, 1:3])
    assert torch.equal(y[0, 0, 0], torch.full((3,), 1.0))  # mean of 0, 1, 2
    assert torch.equal(y[0, 0, 3], torch.full((3,), 10.0))  # mean of 9, 10, 11


def test_wrong_boards_are_refused() -> None:
    with pytest.raises(ConfigError, match="resnet"):
        build_network(make_game("stereo_go", board="9x9").spec, CFG)
    with pytest.raises(ConfigError, match="cylinder"):
        build_network(make_game("trigolden").spec, CFG)


def test_smoke_selfplay_and_learner_run(tmp_path: Path) -> None:
    """Two learner iterations on the cylinder: self-play through search, then SGD steps."""
    cfg = config_from_dict(
        {
            "game": {"id": "stereo_go", "options": {"board": "cylinder", "rules": "area"}},
            "seed": 5,
            "network": {"kind": "cylinder", "channels": 8, "blocks": 1, "value_hidden": 8},
            "search": {"simulations": 4, "max_considered": 4},
            "selfplay": {"workers": 0, "games_per_iteration": 2, "batch_games": 2,
                         "random_opening_plies": 2, "max_plies": 10},
            "replay": {"capacity": 200, "symmetries": True},
            "training": {"iterations": 2, "steps_per_iteration": 3, "batch_size": 8,
                         "min_buffer": 8, "eval_every": 0},
        }
    )
    learner = Learner(cfg, tmp_path, tensorboard=False)
    before = {k: v.clone() for k, v in learner.model.state_dict().items()}
    stats = learner.run(progress=False)
    assert learner.iteration == 2 and learner.step == 6
    assert all(s.samples > 0 for s in stats)
    after = learner.model.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)
    path = checkpoint_path(tmp_path, 2)
    loaded = load_model(path)
    assert isinstance(loaded.model, CylinderResNet)
    player = make_player(GAME, f"net:{path}:4")
    s = GAME.initial_state()
    rng = np.random.default_rng(0)
    for _ in range(3):
        if GAME.is_terminal(s):  # a barely trained net may pass twice
            break
        a = player.select_action(GAME, s, rng)
        assert GAME.legal_mask(s)[a]
        s = GAME.apply(s, a)
