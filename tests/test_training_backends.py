"""Self-play backends (``training.backends``): the option, local without Ray, and Ray actors on a
loopback cluster training the same Jiugong network as local processes, through a killed actor.

The Ray tests skip where Ray is not installed (``pip install -e ".[ray]"``; the dev extra
includes it). They start one Ray instance of 2 CPUs on this machine for the module.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import yaml

from agents.checkpoint import load_model
from agents.players import RandomPlayer, make_player
from envs import make_game
from envs.core import ConfigError
from training.arena import fit_elo, round_robin
from training.backends import keep_ray_on_loopback
from training.config import config_from_dict
from training.learner import Learner, checkpoint_path

REPO = Path(__file__).resolve().parent.parent

# Learns Jiugong well enough in 4 iterations (about 2 s of self-play) for its raw policy to
# beat random clearly: with this seed 34-4-2 over 40 games, where the untrained net scores 50%.
SMALL: dict[str, Any] = {
    "game": {"id": "jiugong"},
    "seed": 2,
    "network": {"kind": "mlp", "channels": 64, "blocks": 2, "value_hidden": 16},
    "search": {"simulations": 8, "max_considered": 8},
    "selfplay": {"workers": 2, "games_per_iteration": 32, "batch_games": 16,
                 "random_opening_plies": 4, "max_plies": 60},
    "replay": {"capacity": 5000},
    "training": {"iterations": 4, "steps_per_iteration": 40, "batch_size": 64,
                 "learning_rate": 0.003, "min_buffer": 64, "eval_every": 0},
}


def _config(backend: str, **selfplay: Any) -> dict[str, Any]:
    return {**SMALL, "selfplay": {**SMALL["selfplay"], "backend": backend, **selfplay}}


def _same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def _log(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "log.jsonl").read_text().splitlines()]


# ---------------------------------------------------------------------------- without Ray


@pytest.mark.parametrize(
    ("selfplay", "training", "message"),
    [
        ({"backend": "spark"}, {}, r"selfplay\.backend: Input should be 'local' or 'ray'"),
        ({"backend": "ray", "workers": 0}, {}, "backend ray plays on workers"),
        ({}, {"device": "gpu"}, r"training\.device"),
    ],
)
def test_backend_and_device_options_are_validated(
    selfplay: dict, training: dict, message: str
) -> None:
    data = {
        **SMALL,
        "selfplay": {**SMALL["selfplay"], **selfplay},
        "training": {**SMALL["training"], **training},
    }
    with pytest.raises(ConfigError, match=message):
        config_from_dict(data, "test.yaml")


def test_ray_address_needs_the_ray_backend(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from qizero_cli import main

    path = tmp_path / "local.yaml"
    path.write_text(yaml.safe_dump(_config("local")))
    rc = main(["train", str(path), "--ray-address", "auto", "--run-dir", str(tmp_path / "r")])
    assert rc == 2
    assert "--ray-address needs selfplay.backend: ray" in capsys.readouterr().err


def test_the_local_backend_never_imports_ray(tmp_path: Path) -> None:
    """Ray is optional: a local run (and the modules it loads) must not import it."""
    data = {**_config("local", workers=0), "training": {**SMALL["training"], "iterations": 1}}
    code = (
        "import json, sys\n"
        "import training.backends, training.cli, training.learner, training.selfplay\n"
        "from training.config import config_from_dict\n"
        "cfg = config_from_dict(json.loads(sys.argv[1]))\n"
        "training.learner.Learner(cfg, sys.argv[2], tensorboard=False).run(progress=False)\n"
        "print('ray imported:', 'ray' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(data), str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ray imported: False")
    assert checkpoint_path(tmp_path, 1).exists()


# ---------------------------------------------------------------------------- with Ray


@pytest.fixture(scope="module")
def ray_cluster():  # type: ignore[no-untyped-def]
    """A Ray instance on this machine for the module: 2 CPUs, no dashboard."""
    keep_ray_on_loopback()
    ray = pytest.importorskip("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    assert all(n["NodeManagerAddress"] == "127.0.0.1" for n in ray.nodes())
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Learner:
    """SMALL trained by two local worker processes: the reference for the Ray runs."""
    learner = Learner(config_from_dict(_config("local")), tmp_path_factory.mktemp("local"),
                      tensorboard=False)
    learner.run(progress=False)
    return learner


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_ray_actors_train_what_local_processes_train(
    ray_cluster: Any, local_run: Learner, tmp_path: Path
) -> None:
    """Same seed, same tasks: the Ray run's samples and weights equal the local run's (on one
    machine), and the arena rates both networks well above random."""
    from training.backends.ray_actors import RayBackend

    run_dir = tmp_path / "ray"
    learner = Learner(config_from_dict(_config("ray")), run_dir, tensorboard=False)
    with RayBackend(2) as backend:
        learner.run(progress=False, backend=backend)
    assert learner.iteration == 4
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["selfplay"]["backend"] == "ray"
    log = _log(run_dir)
    assert [row["workers"] for row in log] == [2, 2, 2, 2]
    assert all(row["positions_per_s"] > 0 for row in log)
    np.testing.assert_array_equal(learner.buffer.value, local_run.buffer.value)
    np.testing.assert_array_equal(learner.buffer.policy, local_run.buffer.policy)
    assert _same_weights(learner.model, local_run.model)

    game = make_game("jiugong")
    last = learner.iteration
    players = [
        make_player(game, f"net:{checkpoint_path(run_dir, last)}"),
        make_player(game, f"net:{checkpoint_path(local_run.run_dir, last)}"),
        RandomPlayer(),
    ]
    results = round_robin(game, players, 40, seed=0)
    ratings = fit_elo(3, results, anchor=2)
    for k in (0, 1):  # both clearly above random: the lower end of the interval over 100 Elo
        assert ratings.ci(k)[0] > 100, (ratings, results)
    _, low, high = ratings.diff_ci(0, 1)
    assert low < 0 < high  # and alike
    ray_vs_random = next(r for r in results if (r.i, r.j) == (0, 2))
    assert ray_vs_random.wins_i + ray_vs_random.draws / 2 >= 0.7 * 40, results


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_a_killed_actor_is_replaced_and_the_run_completes(
    ray_cluster: Any, local_run: Learner, tmp_path: Path
) -> None:
    """``ray.kill`` of a worker while it plays a task: a new actor takes its place, the task is
    played again with its seed, and the run ends with every iteration and the same network as
    the uninterrupted local run (no sample lost, none twice)."""
    from training.backends.ray_actors import RayBackend

    run_dir = tmp_path / "killed"
    learner = Learner(config_from_dict(_config("ray")), run_dir, tensorboard=False)
    killed: list[int] = []

    def kill_one_mid_run(backend: RayBackend, stop: threading.Event) -> None:
        while not stop.is_set():
            busy = list(backend.in_flight.values())
            if learner.iteration >= 1 and busy:
                slot = busy[0][1]
                ray_cluster.kill(backend.actors[slot])
                killed.append(slot)
                return
            time.sleep(0.002)

    stop = threading.Event()
    with RayBackend(2) as backend:
        killer = threading.Thread(target=kill_one_mid_run, args=(backend, stop), daemon=True)
        killer.start()
        learner.run(progress=False, backend=backend)
        stop.set()
        killer.join()
        assert killed and backend.restarts >= 1 and backend.workers == 2
    assert learner.iteration == 4
    assert all(checkpoint_path(run_dir, i).exists() for i in range(5))
    assert _log(run_dir)[-1]["worker_restarts"] >= 1
    assert learner.buffer.added == local_run.buffer.added
    assert _same_weights(learner.model, local_run.model)


def test_an_error_in_self_play_is_raised_not_retried(ray_cluster: Any) -> None:
    from agents.config import NetworkConfig, SearchConfig
    from training.backends.ray_actors import RayBackend
    from training.config import SelfPlayConfig
    from training.selfplay import SelfPlayTask

    task = SelfPlayTask("chess", {}, NetworkConfig(kind="mlp"), SearchConfig(),
                        SelfPlayConfig(), 1, (0,))
    with RayBackend(1) as backend:
        with pytest.raises(ConfigError, match="unknown game"):
            backend.play({}, [task])
        assert backend.restarts == 0 and not backend.in_flight


# ---------------------------------------------------------------------------- a Ray cluster


@pytest.fixture
def ray_head() -> Any:  # type: ignore[no-untyped-def]
    """``ray start --head --block`` in a subprocess (2 CPUs, no dashboard), stopped by
    signalling that process alone (it takes its Ray processes down with it). Clients connect
    through 127.0.0.1, and the head runs with Ray's loopback switch."""
    import shutil
    import signal
    import socket
    import tempfile

    pytest.importorskip("ray")
    ray_cli = shutil.which("ray", path=str(Path(sys.executable).parent))
    if ray_cli is None:
        pytest.skip("no ray command beside this Python")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    temp = tempfile.mkdtemp(prefix="qzray")  # short: Ray's socket paths must fit 107 bytes
    token = Path(temp) / "auth_token"  # Ray's token authentication, this cluster's own token
    token.write_text(secrets.token_hex(32))
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),  # the workers import this checkout
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN_PATH": str(token),
        # One machine: every Ray process on 127.0.0.1 (training.backends.keep_ray_on_loopback).
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    }
    head = subprocess.Popen(
        [ray_cli, "start", "--head", "--port", str(port), "--num-cpus", "2",
         "--include-dashboard", "false", "--temp-dir", temp, "--node-ip-address", "127.0.0.1",
         "--block"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        assert head.stdout is not None
        for line in head.stdout:
            if "Ray runtime started" in line:
                break
        else:
            pytest.fail("ray start --head did not start")
        # Keep reading what it prints, so a full pipe never blocks it.
        threading.Thread(target=head.stdout.read, daemon=True).start()
        yield f"127.0.0.1:{port}", env
    finally:
        head.send_signal(signal.SIGTERM)
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
        shutil.rmtree(temp, ignore_errors=True)


def _qizero(args: list[str], env: dict[str, str]) -> str:
    out = subprocess.run([sys.executable, "-m", "qizero_cli", *args], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@pytest.mark.slow
def test_qizero_train_joins_a_ray_cluster_and_rates_like_local(
    ray_head: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    """``qizero train --ray-address`` on a cluster started by ``ray start --head``, then the
    same config with local processes, for 10 iterations of the shipped Jiugong config; ``qizero
    arena`` rates both networks far above random and alike (their difference's interval
    holds 0)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    address, env = ray_head
    base = yaml.safe_load((REPO / "configs" / "jiugong.yaml").read_text())
    base["training"]["iterations"] = 10
    dirs = {}
    for backend in ("ray", "local"):
        config = tmp_path / f"{backend}.yaml"
        config.write_text(yaml.safe_dump({**base, "selfplay": {**base["selfplay"],
                                                               "backend": backend}}))
        dirs[backend] = tmp_path / backend
        extra = ["--ray-address", address] if backend == "ray" else []
        _qizero(["train", str(config), "--run-dir", str(dirs[backend]), "--no-progress", *extra],
                env)
    log = _log(dirs["ray"])
    assert len(log) == 10 and {row["workers"] for row in log} == {2}
    tb = EventAccumulator(str(dirs["ray"] / "tb"))
    tb.Reload()
    assert {"charts/selfplay_workers", "charts/selfplay_positions_per_s"} <= set(
        tb.Tags()["scalars"]
    )
    ray_net, local_net = (load_model(checkpoint_path(dirs[b], 10)).model for b in dirs)
    assert _same_weights(ray_net, local_net)  # one machine: the same samples, the same net
    nets = [f"net:{checkpoint_path(dirs[b], 10)}" for b in ("ray", "local")]
    _qizero(["arena", "jiugong", *nets, "random", "--games", "100", "--workers", "2",
             "--opening-plies", "2", "--json", str(tmp_path / "arena.json")], env)
    arena = json.loads((tmp_path / "arena.json").read_text())
    print(json.dumps(arena, indent=1))
    assert arena["anchor"] == "random"
    (ray_low, _), (local_low, _) = arena["elo_ci"][:2]
    assert ray_low > 300 and local_low > 300
    assert abs(arena["elo"][0] - arena["elo"][1]) < 200
