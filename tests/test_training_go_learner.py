"""The Go learner's KataGo pieces and the run's life across sessions: auxiliary ownership and
score heads, rule sets taking turns in self-play, stage checkpoints that resume on another
machine, and a shipped ladder calibrated again under other options."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.checkpoint import file_digest, read_checkpoint
from agents.config import NetworkConfig, SearchConfig
from agents.evaluator import UniformEvaluator
from agents.networks import build_network
from envs import make_game
from envs.core import ConfigError, QizeroError
from training.config import SelfPlayConfig, config_from_dict
from training.learner import Learner, selfplay_tasks
from training.levels import build_levels, recalibrate_levels
from training.replay import ReplayBuffer
from training.selfplay import play_games
from training.stages import latest_stage, stage_iterations, trim_log

GO9 = make_game("stereo_go", board="9x9")


def go_run(**overrides: object) -> dict:
    run = {
        "game": {"id": "stereo_go", "options": {"board": "9x9", "max_moves": 24}},
        "seed": 3,
        "network": {"kind": "resnet", "channels": 8, "blocks": 1, "value_hidden": 8,
                    "aux_heads": True},
        "search": {"simulations": 2, "max_considered": 2},
        "selfplay": {"workers": 0, "games_per_iteration": 2, "batch_games": 2,
                     "vary_options": {"rules": ["territory", "area"]}},
        "replay": {"capacity": 500},
        "training": {"iterations": 2, "steps_per_iteration": 2, "batch_size": 8,
                     "min_buffer": 8, "eval_every": 0},
    }
    run.update(overrides)
    return run


# ---------------------------------------------------------------------------- aux heads
@pytest.mark.parametrize("board,kind", [("9x9", "resnet"), ("cylinder", "cylinder")])
def test_aux_heads_predict_ownership_per_cell_and_one_score(board: str, kind: str) -> None:
    game = make_game("stereo_go", board=board)
    net = build_network(game.spec, NetworkConfig(kind=kind, channels=8, blocks=1,
                                                 value_hidden=8, aux_heads=True))
    obs = torch.from_numpy(np.stack([game.observation(game.initial_state())] * 3))
    logits, value, own, score = net.forward_aux(obs)
    assert logits.shape == (3, game.spec.num_actions) and value.shape == (3,)
    assert own.shape == (3, *game.spec.observation_shape[1:]) and score.shape == (3,)
    assert torch.all(own.abs() <= 1)
    plain_logits, plain_value = net(obs)  # play uses policy and value only
    torch.testing.assert_close(plain_logits, logits)
    torch.testing.assert_close(plain_value, value)


def test_aux_heads_are_refused_where_the_network_has_none() -> None:
    with pytest.raises(ConfigError, match="auxiliary heads"):
        build_network(GO9.spec, NetworkConfig(kind="mlp", aux_heads=True))
    plain = build_network(GO9.spec, NetworkConfig(kind="resnet", channels=8, blocks=1))
    with pytest.raises(ConfigError, match="auxiliary heads"):
        plain.forward_aux(torch.zeros(1, *GO9.spec.observation_shape))


def test_selfplay_targets_are_the_final_ownership_from_the_movers_view() -> None:
    game = make_game("stereo_go", board="9x9", max_moves=30)
    sp = SelfPlayConfig(workers=0, games_per_iteration=2, batch_games=2)
    batch = play_games(game, UniformEvaluator(), SearchConfig(simulations=2, max_considered=2),
                       sp, 2, np.random.default_rng(0))
    assert batch.ownership.shape == (len(batch.value), 9, 9)
    assert set(np.unique(batch.ownership)) <= {-1.0, 0.0, 1.0}
    # Two samples of one game from opposite sides see opposite targets.
    first, second = batch.ownership[0], batch.ownership[1]
    np.testing.assert_array_equal(first, -second)
    assert batch.score[0] == pytest.approx(-batch.score[1])


def test_buffer_turns_the_ownership_with_the_observation() -> None:
    """A symmetry applied to a sample moves its ownership target with its planes."""
    s = GO9.initial_state()
    for a in (0, 1, 2):  # A1, B1, C1: no symmetry keeps this position
        s = GO9.apply(s, a)
    obs = GO9.observation(s)
    own = GO9.outcome_targets(s).ownership
    mask = GO9.legal_mask(s)
    buf = ReplayBuffer(GO9, capacity=4, symmetries=True, aux=True)
    buf.add(obs[None], mask[None], (mask / mask.sum())[None].astype(np.float32),
            np.zeros(1, np.float32), own[None], np.array([0.5], np.float32))
    for seed in range(12):
        batch = buf.sample(1, np.random.default_rng(seed))
        # the target is where the stones went: own stones (plane 1 here: White moves)
        stones = (batch.obs[0, 0] + batch.obs[0, 1]) > 0
        np.testing.assert_array_equal(batch.ownership[0] != 0, stones)
        assert batch.score[0] == pytest.approx(0.5)
    with pytest.raises(QizeroError, match="ownership and score"):
        buf.add(obs[None], mask[None], mask[None].astype(np.float32), np.zeros(1))


def test_a_run_with_aux_heads_learns_them_and_saves_their_targets(tmp_path: Path) -> None:
    cfg = config_from_dict(go_run())
    learner = Learner(cfg, tmp_path / "run", tensorboard=False)
    before = learner.model.aux.ownership.weight.clone()
    stats = learner.run(progress=False)
    assert not torch.equal(before, learner.model.aux.ownership.weight)
    assert all(np.isfinite(s.ownership_loss) and np.isfinite(s.score_loss) for s in stats[1:])
    again = Learner(cfg, tmp_path / "run",
                    resume=tmp_path / "run" / "checkpoints" / "ckpt_000002.pt",
                    tensorboard=False)
    np.testing.assert_array_equal(again.buffer.ownership[: len(again.buffer)],
                                  learner.buffer.ownership[: len(learner.buffer)])


# ---------------------------------------------------------------------------- rules as inputs
def test_the_rule_sets_take_turns_over_tasks_and_iterations() -> None:
    cfg = config_from_dict(go_run(selfplay={"workers": 1, "games_per_iteration": 2,
                                            "vary_options": {"rules": ["territory", "area"]}}))
    rules = [selfplay_tasks(cfg, i)[0].game_options["rules"] for i in range(4)]
    assert rules == ["territory", "area", "territory", "area"]
    assert selfplay_tasks(cfg, 0)[0].game_options["max_moves"] == 24


def test_a_varied_option_must_keep_the_game_shape() -> None:
    with pytest.raises(ConfigError, match="observation or action shape"):
        config_from_dict(go_run(selfplay={"vary_options": {"board": ["9x9", "13x13"]}}))
    with pytest.raises(ConfigError, match="vary_options"):
        config_from_dict(go_run(selfplay={"vary_options": {"rules": ["chinese"]}}))


# ---------------------------------------------------------------------------- stages
def test_stages_resume_on_a_new_machine_without_the_buffer(tmp_path: Path) -> None:
    cfg = config_from_dict(go_run(training={"iterations": 3, "steps_per_iteration": 2,
                                            "batch_size": 8, "min_buffer": 8,
                                            "eval_every": 0}))
    stages = tmp_path / "stages"
    first = Learner(cfg, tmp_path / "a", tensorboard=False, stage_dir=stages, stage_every=2)
    first.run(progress=False)
    assert stage_iterations(stages) == [2, 3]  # every 2 iterations, and where the run stopped
    assert "optimizer" not in read_checkpoint(stages / "stage-000002.pt")
    assert "optimizer" in read_checkpoint(latest_stage(stages))
    assert (stages / "config.yaml").exists()
    assert [json.loads(x)["iteration"] for x in (stages / "log.jsonl").read_text().splitlines()] \
        == [1, 2, 3]

    # Another machine: only the stage folder came along (a run dir of its own, no buffer).
    longer = cfg.model_copy(update={"training": cfg.training.model_copy(
        update={"iterations": 4})})
    second = Learner(longer, tmp_path / "b", resume=latest_stage(stages),
                     tensorboard=False, stage_dir=stages, stage_every=2)
    assert second.iteration == 3 and len(second.buffer) == 0
    for name, tensor in first.model.state_dict().items():
        torch.testing.assert_close(second.model.state_dict()[name], tensor)
    second.run(progress=False)
    assert stage_iterations(stages) == [2, 3, 4]
    assert [json.loads(x)["iteration"] for x in (stages / "log.jsonl").read_text().splitlines()] \
        == [1, 2, 3, 4]


def test_a_stage_resume_waits_for_resume_min_buffer_before_learning(tmp_path: Path) -> None:
    cfg = config_from_dict(go_run(training={"iterations": 1, "steps_per_iteration": 2,
                                            "batch_size": 8, "min_buffer": 8,
                                            "eval_every": 0}))
    stages = tmp_path / "stages"
    (first,) = Learner(cfg, tmp_path / "a", tensorboard=False,
                       stage_dir=stages).run(progress=False)
    wanted = int(2.5 * first.samples)
    waiting = cfg.model_copy(update={"training": cfg.training.model_copy(
        update={"iterations": 6, "resume_min_buffer": wanted})})
    second = Learner(waiting, tmp_path / "b", resume=latest_stage(stages),
                     tensorboard=False, stage_dir=stages)
    stats = second.run(progress=False)
    # The first iterations only fill the buffer, though it holds min_buffer after one.
    waited = [bool(np.isnan(s.policy_loss)) for s in stats]
    assert waited == [s.buffer < wanted for s in stats]
    assert waited[0] and not waited[-1] and stats[0].buffer >= 8
    assert second.step == 2 + 2 * waited.count(False)


def test_trim_log_forgets_iterations_past_the_stage(tmp_path: Path) -> None:
    (tmp_path / "log.jsonl").write_text("".join(json.dumps({"iteration": i}) + "\n"
                                                for i in range(1, 6)))
    trim_log(tmp_path, 3)
    assert [json.loads(x)["iteration"] for x in (tmp_path / "log.jsonl").read_text().splitlines()] \
        == [1, 2, 3]
    with pytest.raises(QizeroError, match="no stage checkpoint"):
        latest_stage(tmp_path)


# ---------------------------------------------------------------------------- recalibration
def test_a_ladder_is_calibrated_again_under_other_options(tmp_path: Path) -> None:
    run = go_run(levels={"games_per_pair": 2, "pairs": "chain", "ladder": [
        {"label": "weak", "checkpoint": 1, "simulations": 0, "temperature": 1.0},
        {"label": "strong", "checkpoint": 1.0, "simulations": 2, "max_considered": 2},
    ]})
    cfg = config_from_dict(run)
    Learner(cfg, tmp_path / "run", tensorboard=False).run(progress=False)
    area = tmp_path / "area"
    build_levels(cfg, tmp_path / "run", area, log=lambda _: None)
    source = next(area.glob("levels*.json"))
    if source.name != "levels.json":  # a tiny run's ladder need not be ordered
        source.rename(area / "levels.json")
    out = tmp_path / "territory"
    options = {"board": "9x9", "max_moves": 24, "rules": "area"}
    report = recalibrate_levels(area, options, out, games_per_pair=2, log=lambda _: None)
    data = json.loads(report.path.read_text())
    assert data["game_options"] == options
    assert data["calibration"]["recalibrated_from"] == str(area)
    assert data["calibration"]["pairs"] == "chain"
    assert [lv["label"] for lv in data["levels"]] == ["weak", "strong"]
    for lv in data["levels"]:
        assert (out / lv["checkpoint"]).read_bytes() == (area / lv["checkpoint"]).read_bytes()
        assert lv["sha256"] == file_digest(out / lv["checkpoint"])


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_a_run_stopped_by_sigterm_writes_its_stage(tmp_path: Path) -> None:
    """A scheduler's SIGTERM stops ``qizero train`` like Ctrl-C: the workers close and the
    last finished iteration becomes a stage, so nothing is lost between stages."""
    import signal
    import subprocess
    import sys
    import time

    import yaml

    run = go_run(training={"iterations": 1000, "steps_per_iteration": 1, "batch_size": 8,
                           "min_buffer": 8, "eval_every": 0})
    run["selfplay"]["workers"] = 1
    config = tmp_path / "go.yaml"
    config.write_text(yaml.safe_dump(run))
    stages = tmp_path / "stages"
    repo = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen(
        [sys.executable, str(repo / "qizero_cli.py"), "train", str(config), "--run-dir",
         str(tmp_path / "run"), "--stage-dir", str(stages), "--stage-every", "1000",
         "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    log = tmp_path / "run" / "log.jsonl"
    deadline = time.monotonic() + 120
    while not (log.exists() and log.read_text().count("\n") >= 2):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read()
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert "stopped after iteration" in out
    done = max(json.loads(x)["iteration"] for x in log.read_text().splitlines())
    assert stage_iterations(stages) == [done]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--from-levels", "no/such/folder"], "cannot read no/such/folder/levels.json"),
        (["--from-levels", "checkpoints/jiugong"], "holds levels of 'jiugong', not 'stereo_go'"),
        (["--from-levels", "checkpoints/stereo_go", "--option", "rules=chinese"], "rules"),
        (["--run", "runs/x", "--option", "rules=area"], "go with --from-levels"),
    ],
)
def test_bad_recalibration_requests_say_what_is_wrong(argv: list, message: str, capsys,
                                                      monkeypatch) -> None:
    import qizero_cli

    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    assert qizero_cli.main(["levels", "stereo_go", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("qizero levels: error:") and message in err
