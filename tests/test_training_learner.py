"""Learner, configs, checkpoints and the replay buffer: tiny seeded runs on Jiugong."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from agents.checkpoint import CheckpointError, load_model, read_checkpoint, save_checkpoint
from agents.config import NetworkConfig
from agents.networks import build_network
from envs import make_game
from envs.core import ConfigError, QizeroError
from training.config import config_from_dict, config_to_dict, load_config, with_overrides
from training.learner import Learner, buffer_path, checkpoint_path
from training.replay import ReplayBuffer

REPO = Path(__file__).resolve().parent.parent

TINY = {
    "game": {"id": "jiugong"},
    "seed": 3,
    "network": {"kind": "mlp", "channels": 16, "blocks": 1, "value_hidden": 8},
    "search": {"simulations": 4, "max_considered": 4},
    "selfplay": {
        "workers": 0,
        "games_per_iteration": 6,
        "batch_games": 3,
        "random_opening_plies": 4,
        "max_plies": 40,
    },
    "replay": {"capacity": 500},
    "training": {
        "iterations": 2,
        "steps_per_iteration": 5,
        "batch_size": 16,
        "min_buffer": 8,
        "eval_every": 1,
        "eval_games": 2,
    },
}


def _weights(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in model.state_dict().items()}


def _same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# ---------------------------------------------------------------------------- configs


def test_shipped_configs_load() -> None:
    for path in sorted((REPO / "configs").glob("*.yaml")):
        cfg = load_config(path)
        assert cfg.game.id in path.stem


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"seeed": 1}, "seeed: unknown key"),
        ({"search": {"simulatons": 4}}, "search.simulatons: unknown key"),
        ({"training": {"iterations": "3"}}, "training.iterations"),
        ({"search": {"algorithm": "alphabeta"}}, "search.algorithm"),
        ({"search": {"simulations": -1}}, "search.simulations"),
        ({"levels": {"ladder": [{"label": "x", "checkpoint": 1.5}]}}, "fractional checkpoint"),
    ],
)
def test_config_typos_are_refused(patch: dict, message: str) -> None:
    data = {
        **TINY,
        **{k: ({**TINY.get(k, {}), **v} if isinstance(v, dict) else v) for k, v in patch.items()},
    }
    with pytest.raises(ConfigError, match=message.replace(".", r"\.").replace("(", r"\(")):
        config_from_dict(data, "test.yaml")


def test_config_bad_game_and_yaml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown game"):
        config_from_dict({**TINY, "game": {"id": "chess"}})
    with pytest.raises(ConfigError, match="unknown config option"):
        config_from_dict({**TINY, "game": {"id": "jiugong", "options": {"size": 4}}})
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: {id: jiugong\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="mapping"):
        config_from_dict([1, 2])


def test_overrides_set_values_and_are_validated_again() -> None:
    cfg = config_from_dict(TINY)
    assert with_overrides(cfg, []) == cfg
    out = with_overrides(cfg, ["selfplay.workers=3", "selfplay.device=auto", "seed=9"])
    assert (out.selfplay.workers, out.selfplay.device, out.seed) == (3, "auto", 9)
    assert cfg.selfplay.workers != 3  # the original is untouched
    for bad, message in [
        ("selfplay.workerz=1", "workerz"),  # a typo is refused like one in the file
        ("selfplay.workers=-1", "greater than or equal"),
        ("selfplay.device=tpu", "device"),
        ("nosuch.key=1", "no section 'nosuch'"),
        ("selfplay.workers", "section.key=value"),
        ("=1", "section.key=value"),
    ]:
        with pytest.raises(ConfigError, match=message):
            with_overrides(cfg, [bad])


def test_selfplay_device_auto_plays_on_the_cpu_without_a_gpu(tmp_path: Path) -> None:
    """``selfplay.device: auto`` (what scripts/gpu_burst.sh sets) falls back to the CPU and
    plays the same games as the default; naming a GPU that is not there is refused."""
    from training.selfplay import SelfPlayTask, cpu_weights, run_task

    cfg = config_from_dict(TINY)
    model = build_network(make_game("jiugong").spec, cfg.network)

    def play(device: str):
        task = SelfPlayTask("jiugong", {}, cfg.network, cfg.search,
                            cfg.selfplay.model_copy(update={"device": device}), 2, (1, 2))
        return run_task(task, cpu_weights(model))

    a, b = play("cpu"), play("auto")
    np.testing.assert_array_equal(a.mask, b.mask)
    np.testing.assert_allclose(a.policy, b.policy)
    if not torch.cuda.is_available():
        with pytest.raises(ConfigError, match="selfplay.device"):
            play("cuda")


def test_config_is_frozen() -> None:
    cfg = config_from_dict(TINY)
    with pytest.raises(Exception):  # noqa: B017  (pydantic's frozen-instance error)
        cfg.seed = 5  # type: ignore[misc]


# ---------------------------------------------------------------------------- learner runs


def _run(tmp: Path, iterations: int, resume: Path | None = None) -> Learner:
    cfg = config_from_dict(TINY)
    learner = Learner(cfg, tmp, resume=resume, tensorboard=False)
    learner.cfg = cfg.model_copy(
        update={"training": cfg.training.model_copy(update={"iterations": iterations})}
    )
    learner.run(progress=False)
    return learner


def test_short_seeded_run_is_reproducible(tmp_path: Path) -> None:
    a = _run(tmp_path / "a", 2)
    b = _run(tmp_path / "b", 2)
    assert a.iteration == b.iteration == 2
    assert a.step == 10
    assert _same(_weights(a.model), _weights(b.model))
    np.testing.assert_array_equal(a.buffer.policy, b.buffer.policy)
    # ...and training did something: the weights moved from their initial values.
    init = load_model(checkpoint_path(tmp_path / "a", 0)).model
    assert not _same(_weights(init), _weights(a.model))
    log = (tmp_path / "a" / "log.jsonl").read_text().splitlines()
    assert len(log) == 2


def test_resume_continues_where_it_left_off(tmp_path: Path) -> None:
    straight = _run(tmp_path / "straight", 2)
    _run(tmp_path / "split", 1)
    ckpt = checkpoint_path(tmp_path / "split", 1)
    assert buffer_path(tmp_path / "split", 1).exists()
    resumed = _run(tmp_path / "split", 2, resume=ckpt)
    assert resumed.iteration == 2 and resumed.step == straight.step
    assert _same(_weights(straight.model), _weights(resumed.model))
    assert len(resumed.buffer) == len(straight.buffer)
    np.testing.assert_array_equal(resumed.buffer.value, straight.buffer.value)


def test_resume_refuses_a_checkpoint_without_its_buffer(tmp_path: Path) -> None:
    _run(tmp_path / "r", 1)
    buffer_path(tmp_path / "r", 1).unlink()
    with pytest.raises(QizeroError, match="replay buffer"):
        Learner(
            config_from_dict(TINY),
            tmp_path / "r",
            checkpoint_path(tmp_path / "r", 1),
            tensorboard=False,
        )


def test_learning_rate_drops_apply_from_their_iteration_also_after_a_resume(
        tmp_path: Path) -> None:
    """A run resumed with a lower rate in its config trains at that rate, not at the one the
    saved optimizer state carries: the schedule is the config's."""
    import json

    drops = {**TINY["training"], "iterations": 3, "learning_rate": 0.01,
             "learning_rate_drops": [{"iteration": 2, "learning_rate": 0.0001},
                                     {"iteration": 1, "learning_rate": 0.001}]}
    cfg = config_from_dict({**TINY, "training": drops})
    assert [cfg.training.learning_rate_at(i) for i in range(4)] == [0.01, 0.001, 0.0001, 0.0001]
    # The run directory's and the stages' config.yaml read back (JSON keeps no int keys).
    assert config_from_dict(yaml.safe_load(yaml.safe_dump(config_to_dict(cfg)))) == cfg
    Learner(config_from_dict({**TINY, "training": {**drops, "iterations": 1}}),
            tmp_path, tensorboard=False).run(progress=False)
    learner = Learner(cfg, tmp_path, resume=checkpoint_path(tmp_path, 1), tensorboard=False)
    learner.run(progress=False)
    assert [g["lr"] for g in learner.optimizer.param_groups] == [0.0001]
    log = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [e["learning_rate"] for e in log] == [0.01, 0.001, 0.0001]
    for bad in ([{"iteration": -1, "learning_rate": 0.1}],
                [{"iteration": 3, "learning_rate": 0.0}], {3: 0.1}):
        with pytest.raises(ConfigError, match="learning_rate_drops"):
            config_from_dict({**TINY, "training": {**TINY["training"],
                                                   "learning_rate_drops": bad}})


def test_tensorboard_logs_are_written(tmp_path: Path) -> None:
    cfg = config_from_dict({**TINY, "training": {**TINY["training"], "iterations": 1}})
    Learner(cfg, tmp_path, tensorboard=True).run(progress=False)
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))
    assert (tmp_path / "config.yaml").exists()


# ---------------------------------------------------------------------------- checkpoints


def test_checkpoint_describes_itself(tmp_path: Path) -> None:
    game = make_game("jiugong")
    net = NetworkConfig(kind="mlp", channels=8, blocks=1, value_hidden=4)
    model = build_network(game.spec, net)
    path = save_checkpoint(
        tmp_path / "c.pt",
        game_id="jiugong",
        game_options={},
        network=net,
        model=model,
        iteration=7,
        step=70,
    )
    assert not list(tmp_path.glob("*.tmp"))
    data = read_checkpoint(path)
    assert data["format_version"] == 1 and data["game"] == {"id": "jiugong", "options": {}}
    loaded = load_model(path)
    assert loaded.iteration == 7 and loaded.step == 70
    assert _same(_weights(model), _weights(loaded.model))
    x = torch.from_numpy(game.observation(game.initial_state()))[None]
    model.eval()
    assert torch.allclose(model(x)[0], loaded.model(x)[0])


def test_checkpoint_errors(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="no checkpoint"):
        read_checkpoint(tmp_path / "none.pt")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="not a readable"):
        read_checkpoint(junk)
    torch.save({"format": "qizero-checkpoint", "format_version": 99}, tmp_path / "v.pt")
    with pytest.raises(CheckpointError, match="version 99"):
        read_checkpoint(tmp_path / "v.pt")


def test_network_shapes_and_registry() -> None:
    game = make_game("jiugong")
    for net in (NetworkConfig(kind="resnet", channels=8, blocks=1), NetworkConfig(kind="mlp")):
        model = build_network(game.spec, net).eval()
        logits, value = model(torch.zeros(5, *game.spec.observation_shape))
        assert logits.shape == (5, game.spec.num_actions) and value.shape == (5,)
        assert torch.all(value.abs() <= 1)
    with pytest.raises(ConfigError, match="unknown network kind"):
        build_network(game.spec, NetworkConfig(kind="transformer"))


# ---------------------------------------------------------------------------- replay


def test_replay_ring_and_persistence(tmp_path: Path) -> None:
    game = make_game("jiugong")
    buf = ReplayBuffer(game, capacity=5, symmetries=False)
    obs = np.stack([np.full(game.spec.observation_shape, i, np.float32) for i in range(7)])
    mask = np.ones((7, 24), bool)
    pol = np.full((7, 24), 1 / 24, np.float32)
    buf.add(obs, mask, pol, np.arange(7, dtype=np.float32))
    assert len(buf) == 5 and buf.added == 7
    assert sorted(buf.value.tolist()) == [2, 3, 4, 5, 6]  # the two oldest were overwritten
    buf.save(tmp_path / "b.npz")
    other = ReplayBuffer(game, capacity=5)
    other.load(tmp_path / "b.npz")
    np.testing.assert_array_equal(other.obs, buf.obs)
    assert other.next == buf.next
    with pytest.raises(QizeroError, match="capacity"):
        ReplayBuffer(game, capacity=9).load(tmp_path / "b.npz")


def test_replay_saves_binary_observations_as_bits(tmp_path: Path) -> None:
    """0/1 planes (Stereo Go) go to disk as packed bits, uncompressed, and come back equal;
    buffers in the earlier layout (float observations, bool masks, compressed) still load."""
    game = make_game("stereo_go", board="9x9")
    rng = np.random.default_rng(0)
    states = [game.initial_state()]
    for _ in range(9):
        legal = np.flatnonzero(game.legal_mask(states[-1])[:-1])
        states.append(game.apply(states[-1], int(legal[rng.integers(len(legal))])))
    obs = np.stack([game.observation(s) for s in states])
    mask = np.stack([game.legal_mask(s) for s in states])
    pol = (mask / mask.sum(axis=1, keepdims=True)).astype(np.float32)
    buf = ReplayBuffer(game, capacity=16)
    buf.add(obs, mask, pol, np.linspace(-1, 1, 10, dtype=np.float32))
    # 0/1 planes as bits, the komi plane (one value per sample) as that value
    assert not buf.binary_obs and buf.bit_planes.sum() == 12
    assert buf.flat_planes[11] and not buf.bit_planes[11]
    buf.save(tmp_path / "b.npz")
    with np.load(tmp_path / "b.npz") as data:
        assert "obs_bits" in data and "obs" not in data and data["obs_flat"].shape == (10, 1)
    back = ReplayBuffer(game, capacity=16)
    back.load(tmp_path / "b.npz")
    for name in ("obs", "mask", "policy", "value", "bit_planes", "flat_planes"):
        np.testing.assert_array_equal(getattr(back, name), getattr(buf, name))
    assert (back.size, back.next, back.added) == (10, 10, 10)

    np.savez_compressed(tmp_path / "old.npz", obs=obs, mask=mask, policy=pol,
                        value=buf.value[:10], meta=np.array([16, 10, 10]))
    old = ReplayBuffer(game, capacity=16)
    old.load(tmp_path / "old.npz")
    np.testing.assert_array_equal(old.obs, buf.obs)
    np.testing.assert_array_equal(old.mask, buf.mask)

    half = obs.copy()
    half[0, 0, 0, 0] = 0.5  # one value that is not a bit: the float path, exact
    buf.add(half[:1], mask[:1], pol[:1], np.zeros(1, np.float32))
    assert not buf.binary_obs
    buf.save(tmp_path / "c.npz")
    again = ReplayBuffer(game, capacity=16)
    again.load(tmp_path / "c.npz")
    np.testing.assert_array_equal(again.obs, buf.obs)
    assert not again.binary_obs


def test_replay_symmetry_keeps_obs_mask_policy_consistent() -> None:
    """A mirrored sample must be the sample of the mirrored position."""
    game = make_game("jiugong")
    s = game.state_from_position((1, 1, 0, 3, 0, 1, 2, 2, 2), 0, False)
    mirror = game.state_from_position((0, 1, 1, 1, 0, 3, 2, 2, 2), 0, False)
    buf = ReplayBuffer(game, capacity=4, symmetries=True)
    mask = game.legal_mask(s)
    pol = mask / mask.sum()
    buf.add(game.observation(s)[None], mask[None], pol[None].astype(np.float32), np.ones(1))
    seen = set()
    for seed in range(20):
        o, m, p, _, _, _ = buf.sample(1, np.random.default_rng(seed))
        if np.array_equal(o[0], game.observation(mirror)):
            np.testing.assert_array_equal(m[0], game.legal_mask(mirror))
            seen.add("mirror")
        else:
            np.testing.assert_array_equal(o[0], game.observation(s))
            np.testing.assert_array_equal(m[0], mask)
            seen.add("identity")
        assert np.all(p[0][~m[0]] == 0)
    assert seen == {"mirror", "identity"}


# ---------------------------------------------------------------------------- self-play options


class _CountingEvaluator:
    """Uniform priors and zero values; remembers the batch sizes it was asked for."""

    def __init__(self) -> None:
        self.positions = 0
        self.calls = 0

    def evaluate(self, game, states):  # type: ignore[no-untyped-def]
        self.calls += 1
        self.positions += len(states)
        masks = np.stack([game.legal_mask(s) for s in states]).astype(np.float32)
        return masks / masks.sum(axis=1, keepdims=True), np.zeros(len(states), np.float32)


def _play(**selfplay: object):  # type: ignore[no-untyped-def]
    from agents.config import SearchConfig
    from training.config import SelfPlayConfig
    from training.selfplay import play_games

    game = make_game("jiugong")
    sp = SelfPlayConfig(workers=0, batch_games=4, max_plies=30, **selfplay)
    cfg = SearchConfig(simulations=8, max_considered=4)
    return play_games(game, _CountingEvaluator(), cfg, sp, 8, np.random.default_rng(0))


def test_playout_cap_randomization_learns_only_from_full_searches() -> None:
    full = _play()
    assert len(full.value) == full.plies  # every move searched in full is a sample
    capped = _play(full_search_probability=0.25, fast_simulations=2)
    assert capped.plies > 0
    share = len(capped.value) / capped.plies
    assert 0.1 < share < 0.45  # about a quarter of the moves, the rest only played
    assert capped.searched_positions == len(capped.value)


def test_random_moves_through_the_game_learn_the_search_value(monkeypatch) -> None:
    import training.selfplay as selfplay
    from agents.search import SearchResult

    def fixed_search(game, states, evaluator, cfg, rng, root_masks=None):  # type: ignore[no-untyped-def]
        out = []
        for s in states:
            legal = np.flatnonzero(game.legal_mask(s))
            pol = np.zeros(game.spec.num_actions, np.float32)
            pol[legal] = 1.0 / len(legal)
            zeros = np.zeros(game.spec.num_actions)
            out.append(SearchResult(int(legal[0]), pol, 0.125, zeros, zeros, 1))
        return out

    monkeypatch.setattr(selfplay, "search", fixed_search)
    # Every move random: every sample learns the search value, whatever the result.
    assert np.all(_play(random_move_probability=1.0).value == np.float32(0.125))
    # No random move (value_target_mix 0): every sample learns the game's result.
    assert set(_play(random_move_probability=0.0).value.tolist()) <= {-1.0, 0.0, 1.0}


def test_no_pass_before_the_configured_ply() -> None:
    """Self-play on 9x9 Go: before ``pass_after_ply`` the pass gets no policy target and is
    never played, yet it stays in the recorded legal mask (so the net learns not to pass)."""
    from agents.config import SearchConfig
    from training.config import SelfPlayConfig
    from training.selfplay import play_games

    game = make_game("stereo_go", board="9x9", max_moves=30)
    pass_action = game.spec.pass_action
    assert pass_action == 81
    cfg = SearchConfig(simulations=4, max_considered=4)

    def play(pass_after_ply: int, opening: int):  # type: ignore[no-untyped-def]
        sp = SelfPlayConfig(workers=0, batch_games=4, random_opening_plies=opening,
                            random_move_probability=0.2, pass_after_ply=pass_after_ply)
        return play_games(game, _CountingEvaluator(), cfg, sp, 4, np.random.default_rng(1))

    free = play(0, 0)
    assert np.all(free.mask[:, pass_action])
    assert np.all(free.policy[:, pass_action] > 0)  # Gumbel's target covers every root action
    ruled = play(30, 10)
    assert len(ruled.policy) > 0
    assert np.all(ruled.mask[:, pass_action])
    assert np.all(ruled.policy[:, pass_action] == 0)
    assert ruled.plies == 4 * 30  # no two passes ended a game early: all ran to the cap
