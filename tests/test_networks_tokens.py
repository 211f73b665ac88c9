"""The piece-token transformer for TriGolden: shapes, padding, slot equivariance, a tiny run."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.checkpoint import load_model
from agents.config import NetworkConfig
from agents.networks import build_network
from agents.networks_tokens import TokenTransformer
from agents.players import make_player
from envs import make_game
from envs.core import ConfigError
from training.config import config_from_dict
from training.learner import Learner, checkpoint_path

GAME = make_game("trigolden")  # golden set, n = 9: observation (55, 20), 5190 actions
SLOTS, LOCAL, OPENING_BASE = 54, 96, 54 * 96
KINDS = "TGP"
CFG = NetworkConfig(kind="tokens", channels=16, blocks=2, value_hidden=8)
_MOVE = re.compile(r"^([TGP])(')?@(\d+)\.(\d+)/(\d+)$")


def _net(seed: int = 0) -> TokenTransformer:
    torch.manual_seed(seed)
    net = build_network(GAME.spec, CFG)
    assert isinstance(net, TokenTransformer)
    return net.eval()


def _states(n: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        s = GAME.initial_state()
        for _ in range(int(rng.integers(1, 14))):
            legal = np.flatnonzero(GAME.legal_mask(s))
            if len(legal) == 0:
                break
            s = GAME.apply(s, int(rng.choice(legal)))
        out.append(s)
    return out


def test_shapes_and_ranges() -> None:
    states = [GAME.initial_state(), *_states(3, 1)]
    x = torch.from_numpy(np.stack([GAME.observation(s) for s in states]))
    with torch.no_grad():
        logits, value = _net()(x)
    assert logits.shape == (4, GAME.spec.num_actions) and value.shape == (4,)
    assert torch.isfinite(logits).all() and ((value > -1) & (value < 1)).all()


def test_action_layout_is_slot_times_local_placement() -> None:
    """What the policy head relies on: action = slot * 96 + local, openings after 54 * 96."""
    for s in [GAME.initial_state(), *_states(4, 2)]:
        obs = GAME.observation(s)
        for a in np.flatnonzero(GAME.legal_mask(s)):
            move = GAME.action_to_move(s, int(a))
            if a >= OPENING_BASE:
                assert GAME.spec.num_actions - OPENING_BASE == 6
                kind, face = divmod(int(a) - OPENING_BASE, 2)
                assert move == KINDS[kind] + ("'" if face else "")
                continue
            m = _MOVE.match(move)
            assert m, move
            kind, face = KINDS.index(m.group(1)), int(bool(m.group(2)))
            slot, tedge, edge = int(m.group(3)), int(m.group(4)), int(m.group(5))
            assert a // LOCAL == slot
            assert a % LOCAL == ((tedge * 3 + kind) * 4 + edge) * 2 + face
            assert obs[1 + slot, 0] == 1.0 and obs[1 + slot, 2] == 1.0  # opponent's piece


def test_padding_tokens_change_nothing() -> None:
    net = _net(1)
    obs = np.stack([GAME.observation(s) for s in _states(3, 3)])
    empty = obs[:, 1:, 0] == 0
    assert empty.any(axis=1).all()
    garbage = obs.copy()
    noise = np.random.default_rng(4).uniform(-1, 1, garbage.shape).astype(np.float32)
    noise[:, :, 0] = 0.0  # presence stays 0: still padding
    garbage[:, 1:][empty] = noise[:, 1:][empty]
    assert not np.array_equal(garbage, obs)
    with torch.no_grad():
        a_logits, a_value = net(torch.from_numpy(obs))
        b_logits, b_value = net(torch.from_numpy(garbage))
    torch.testing.assert_close(a_logits, b_logits)
    torch.testing.assert_close(a_value, b_value)
    # Dropping the padding rows altogether (the net takes any number of tokens) gives the
    # same outputs: padding is masked in attention, not merely zero.
    for i in range(3):
        k = int((~empty[i]).sum())
        assert not empty[i, :k].any()  # slots fill in placement order
        with torch.no_grad():
            c_logits, c_value = net(torch.from_numpy(obs[i : i + 1, : 1 + k]))
        torch.testing.assert_close(c_logits[0, : k * LOCAL], a_logits[i, : k * LOCAL],
                                   rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(c_logits[0, k * LOCAL :], a_logits[i, OPENING_BASE:],
                                   rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(c_value[0], a_value[i], rtol=1e-4, atol=1e-5)
    # Empty slots score nothing (their actions are never legal).
    blocks = a_logits[:, :OPENING_BASE].reshape(3, SLOTS, LOCAL)
    assert torch.equal(blocks[torch.from_numpy(empty)], torch.zeros(int(empty.sum()), LOCAL))


def test_slot_permutation_permutes_the_placement_logits() -> None:
    """Each placement is scored from its target's token: no slot position is baked in."""
    net = _net(2)
    obs = GAME.observation(_states(1, 5)[0])
    perm = np.random.default_rng(6).permutation(SLOTS)
    permuted = obs.copy()
    permuted[1:] = obs[1:][perm]
    with torch.no_grad():
        a_logits, a_value = net(torch.from_numpy(obs[None]))
        b_logits, b_value = net(torch.from_numpy(permuted[None]))
    a_blocks = a_logits[0, :OPENING_BASE].reshape(SLOTS, LOCAL)
    b_blocks = b_logits[0, :OPENING_BASE].reshape(SLOTS, LOCAL)
    torch.testing.assert_close(b_blocks, a_blocks[torch.from_numpy(perm)], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(b_logits[0, OPENING_BASE:], a_logits[0, OPENING_BASE:],
                               rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(b_value, a_value, rtol=1e-4, atol=1e-5)


def test_opening_logits_come_from_the_global_token() -> None:
    net = _net(3)
    x = torch.from_numpy(GAME.observation(GAME.initial_state())[None])
    y = x.clone()
    y[0, 0, 2:4] = torch.tensor([0.0, 1.0])  # the other scoring mode in the global row
    with torch.no_grad():
        a, _ = net(x)
        b, _ = net(y)
    assert not torch.allclose(a[0, OPENING_BASE:], b[0, OPENING_BASE:])


def test_other_games_are_refused() -> None:
    with pytest.raises(ConfigError, match="tokens"):
        build_network(make_game("stereo_go").spec, CFG)
    # Token-shaped observations but another action layout (one slot too few).
    spec = dataclasses.replace(GAME.spec, num_actions=GAME.spec.num_actions - LOCAL)
    with pytest.raises(ConfigError, match="action layout"):
        build_network(spec, CFG)


def test_smoke_selfplay_and_learner_run(tmp_path: Path) -> None:
    """Two learner iterations on TriGolden: self-play through search, then SGD steps."""
    cfg = config_from_dict(
        {
            "game": {"id": "trigolden", "options": {"variant": "standard", "n": 9}},
            "seed": 5,
            "network": {"kind": "tokens", "channels": 16, "blocks": 1, "value_hidden": 8},
            "search": {"simulations": 4, "max_considered": 4},
            "selfplay": {"workers": 0, "games_per_iteration": 2, "batch_games": 2,
                         "random_opening_plies": 2, "max_plies": 8},
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
    assert isinstance(load_model(path).model, TokenTransformer)
    player = make_player(GAME, f"net:{path}:4")
    s = GAME.initial_state()
    rng = np.random.default_rng(0)
    for _ in range(3):
        a = player.select_action(GAME, s, rng)
        assert GAME.legal_mask(s)[a]
        s = GAME.apply(s, a)


@pytest.mark.parametrize("train", [False, True])
def test_written_out_layers_match_torchs_encoder(train: bool) -> None:
    """The forward pass writes the encoder layers out (faster on CPU); on every present token
    it gives what ``nn.TransformerEncoder`` gives, in training (gradients) and in eval mode."""
    from agents.networks_tokens import encoder_layer

    net = _net(7).train(train)
    obs = torch.from_numpy(np.stack([GAME.observation(s) for s in _states(4, 8)]))
    present = obs[:, 1:, 0] > 0.5
    pad = torch.cat([torch.zeros_like(present[:, :1]), ~present], dim=1)
    h = torch.randn(obs.shape[0], obs.shape[1], CFG.channels)
    with torch.set_grad_enabled(train):
        want = net.encoder(h, src_key_padding_mask=pad)
        got = h
        bias = torch.zeros(pad.shape).masked_fill(pad, float("-inf"))[:, None, None, :]
        for layer in net.encoder.layers:
            got = encoder_layer(layer, got, bias)
        got = net.encoder.norm(got)
    torch.testing.assert_close(got[~pad], want[~pad], rtol=1e-5, atol=1e-5)


def test_evaluator_runs_without_the_padding_slots() -> None:
    """``NetworkEvaluator`` runs the network on the slots up to the last filled one
    (``TokenTransformer.trim``); traced on one width, it answers every other width as the
    full-width network does."""
    from agents.evaluator import NetworkEvaluator, masked_softmax, observations_and_masks

    net = _net(9)
    states = [GAME.initial_state(), *_states(6, 10)]
    obs, masks = observations_and_masks(GAME, states)
    full = obs.copy()  # every slot filled: nothing to trim
    full[:, 1:, 0] = 1.0
    with torch.no_grad():
        logits, want_v = net(torch.from_numpy(obs))
        want_p = masked_softmax(logits, torch.from_numpy(masks)).numpy()
        full_logits, full_v = net(torch.from_numpy(full))
    evaluator = NetworkEvaluator(net, traced=True)
    order = [[3, 4], [0], [1, 2, 5, 6], list(range(len(states)))]
    assert net.trim(obs[order[0]])[0] < obs.shape[1]
    for rows in order:
        p, v = evaluator.infer(obs[rows], masks[rows])
        assert p.shape == masks[rows].shape
        np.testing.assert_allclose(p, want_p[rows], atol=1e-5)
        np.testing.assert_allclose(v, want_v.numpy()[rows], atol=1e-5)
    everything = np.ones_like(masks)
    assert net.trim(full) is None
    p, v = evaluator.infer(full, everything)
    np.testing.assert_allclose(
        p, masked_softmax(full_logits, torch.from_numpy(everything)).numpy(), atol=1e-5)
    np.testing.assert_allclose(v, full_v.numpy(), atol=1e-5)
