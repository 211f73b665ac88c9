"""Levels: a ladder built from a tiny run is exported, calibrated and described in JSON; the
shipped ladders are strictly ordered and loadable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from agents.checkpoint import file_digest, load_model
from agents.players import level_player, levels_folder, read_levels
from envs import make_game
from envs.core import ConfigError
from training.config import config_from_dict
from training.learner import Learner
from training.level_edits import insert_level, relabel_levels
from training.levels import (
    build_levels,
    calibration_pairs,
    refit_levels,
    resolve_iteration,
    run_checkpoints,
)

REPO = Path(__file__).resolve().parent.parent

RUN = {
    "game": {"id": "jiugong"},
    "seed": 5,
    "network": {"kind": "mlp", "channels": 16, "blocks": 1, "value_hidden": 8},
    "search": {"simulations": 4},
    "selfplay": {"workers": 0, "games_per_iteration": 4, "batch_games": 4, "max_plies": 30},
    "replay": {"capacity": 200},
    "training": {
        "iterations": 2,
        "steps_per_iteration": 3,
        "batch_size": 8,
        "min_buffer": 4,
        "eval_every": 0,
    },
    "levels": {
        "games_per_pair": 6,
        "ladder": [
            {"label": "weak", "checkpoint": 1, "simulations": 0, "temperature": 1.0},
            {"label": "strong", "checkpoint": 1.0, "simulations": 16, "temperature": 0.0},
        ],
    },
}


def test_build_levels_from_a_tiny_run(tmp_path: Path) -> None:
    cfg = config_from_dict(RUN)
    Learner(cfg, tmp_path / "run", tensorboard=False).run(progress=False)
    out = tmp_path / "ship"
    report = build_levels(cfg, tmp_path / "run", out, log=lambda _: None)
    data = json.loads(report.path.read_text())
    assert report.path.name == ("levels.json" if report.ordered else "levels.candidate.json")
    # The verdict is exactly "every adjacent difference has a 95% interval above 0".
    assert report.ordered == all(a["ci"][0] > 0 for a in data["calibration"]["adjacent"])
    assert [lv["label"] for lv in data["levels"]] == ["weak", "strong"]
    assert data["anchor"] == "random" and data["calibration"]["elo"][0] == 0.0
    for lv in data["levels"]:
        assert lv["sha256"] == file_digest(out / lv["checkpoint"])  # the file calibrated
        assert lv["elo_ci"][0] <= lv["elo"] <= lv["elo_ci"][1]
        assert lv["games"] == 12 and lv["seconds_per_move"] > 0
    assert data["levels"][0]["iteration"] == 1 and data["levels"][1]["iteration"] == 2
    # Exported weight files are small: no optimizer state.
    assert all(p.stat().st_size < 200_000 for p in out.glob("*.pt"))


def test_a_level_inserted_into_a_ladder_is_fitted_with_the_games_it_played(
        tmp_path: Path) -> None:
    """A level put between two shipped ones has no Elo until real games place it: the refit
    keeps the calibration's games, adds the new pairs' games and checks the order again."""
    cfg = config_from_dict(RUN)
    Learner(cfg, tmp_path / "run", tensorboard=False).run(progress=False)
    out = tmp_path / "ship"
    report = build_levels(cfg, tmp_path / "run", out, log=lambda _: None)
    report.path.replace(out / "levels.json")  # the tiny ladder's order does not matter here
    before = json.loads((out / "levels.json").read_text())
    weak, strong = before["levels"]
    with pytest.raises(ConfigError, match="already plays"):
        insert_level(out, "copy", strong["checkpoint"], {}, below="strong")
    with pytest.raises(ConfigError, match="no level 'expert'"):
        insert_level(out, "middle", weak["checkpoint"], {}, below="expert")
    levels = insert_level(out, "middle", weak["checkpoint"], {"simulations": 4}, below="strong")
    assert [(lv.id, lv.label) for lv in levels] == [(1, "weak"), (2, "middle"), (3, "strong")]
    assert levels[1].elo is None and levels[1].search["simulations"] == 4
    assert levels[1].search["temperature"] == strong["search"]["temperature"]
    with pytest.raises(ConfigError, match="already has a level"):
        insert_level(out, "middle", weak["checkpoint"], {}, below="strong")

    more = [("random", "middle", 10, 0, 2), ("weak", "middle", 2, 0, 10),
            ("middle", "strong", 3, 1, 8), ("weak", "strong", 12, 0, 0)]  # the last: played
    report = refit_levels(out, more, {"by": "test", "games_per_pair": 12})
    data = json.loads(report.path.read_text())
    assert report.ordered == all(a["ci"][0] > 0 for a in data["calibration"]["adjacent"])
    assert [a["upper"] for a in data["calibration"]["adjacent"]] == ["weak", "middle", "strong"]
    middle = data["levels"][1]
    assert middle["elo_ci"][0] <= middle["elo"] <= middle["elo_ci"][1]
    assert middle["games"] == 36 and middle["seconds_per_move"] > 0
    assert data["levels"][0]["seconds_per_move"] == weak["seconds_per_move"]  # kept
    added = data["calibration"]["added"]
    assert added == [{"by": "test", "games_per_pair": 12,
                      "pairs": ["random|middle", "weak|middle", "middle|strong"]}]
    old = {(m["a"], m["b"]): m for m in before["calibration"]["matches"]}
    new = {(m["a"], m["b"]): m for m in data["calibration"]["matches"]}
    assert new[("weak", "strong")] == old[("weak", "strong")]  # its calibration games kept
    assert new[("middle", "strong")] == {"a": "middle", "b": "strong", "a_wins": 3,
                                         "draws": 1, "b_wins": 8}


def test_levels_are_renamed_everywhere_the_ladder_names_them(tmp_path: Path) -> None:
    """A chain of renames is one edit: the levels and every place the calibration names them
    take the new labels; the games, Elo and networks stay; a rename that would leave two
    players with one name, or names no level, changes nothing."""
    cfg = config_from_dict(RUN)
    Learner(cfg, tmp_path / "run", tensorboard=False).run(progress=False)
    out = tmp_path / "ship"
    report = build_levels(cfg, tmp_path / "run", out, log=lambda _: None)
    report.path.replace(out / "levels.json")
    weak = json.loads((out / "levels.json").read_text())["levels"][0]
    insert_level(out, "middle", weak["checkpoint"], {"simulations": 4}, below="strong")
    refit = refit_levels(out, [("random", "middle", 10, 0, 2), ("weak", "middle", 2, 0, 10),
                               ("middle", "strong", 3, 1, 8)],
                         {"by": "test", "games_per_pair": 12})
    refit.path.replace(out / "levels.json")  # the tiny ladder's order does not matter here
    before = json.loads((out / "levels.json").read_text())
    for renames, error in (({"weak": "strong"}, "two players 'strong'"),
                           ({"weak": "random"}, "two players 'random'"),
                           ({"expert": "elite"}, "no level 'expert'")):
        with pytest.raises(ConfigError, match=error):
            relabel_levels(out, renames)
    assert json.loads((out / "levels.json").read_text()) == before

    levels = relabel_levels(out, {"weak": "novice", "middle": "weak"})
    assert [(lv.id, lv.label) for lv in levels] == [(1, "novice"), (2, "weak"), (3, "strong")]
    after = json.loads((out / "levels.json").read_text())
    calib, old = after["calibration"], before["calibration"]
    renamed = {"weak": "novice", "middle": "weak"}
    assert calib["players"] == [renamed.get(p, p) for p in old["players"]]
    assert calib["elo"] == old["elo"] and calib["games_per_pair"] == old["games_per_pair"]
    assert [(a["upper"], a["lower"]) for a in calib["adjacent"]] == [
        ("novice", "random"), ("weak", "novice"), ("strong", "weak")]
    assert calib["added"][0]["pairs"] == ["random|weak", "novice|weak", "weak|strong"]
    assert calib["matches"] == [
        {**m, "a": renamed.get(m["a"], m["a"]), "b": renamed.get(m["b"], m["b"])}
        for m in old["matches"]]
    for a, b in zip(after["levels"], before["levels"]):
        assert {**a, "label": None} == {**b, "label": None}  # only the names changed


def test_the_ladder_and_stage_scripts_refuse_bad_input_with_a_message(capsys) -> None:
    """The scripts answer a bad rename, bad search settings or a folder that cannot take a
    grown network with a usage error that says what is wrong (exit status 2), not a
    traceback, and change nothing."""
    import importlib.util

    def script(name: str) -> Any:
        spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.main

    folder = REPO / "checkpoints" / "stereo_go"
    before = (folder / "levels.json").read_bytes()
    for main, argv, said in (
            (script("relabel_levels"), [str(folder), "novice"], "write each rename as OLD=NEW"),
            (script("relabel_levels"), [str(folder), "novice=club"], "two players 'club'"),
            (script("insert_level"), [str(folder), "--label", "x", "--checkpoint",
                                      "stereo_go-iter0040.pt", "--below", "club",
                                      "--search", "{bad"], "--search is not JSON"),
            (script("insert_level"), [str(folder), "--label", "x", "--checkpoint",
                                      "stereo_go-iter0040.pt", "--below", "nobody"],
             "no level 'nobody'"),
            (script("grow_stage"), [str(REPO / "checkpoints" / "stereo_go" / "stages" / "9x9"
                                        / "stage-000979.pt"),
                                    str(REPO / "configs" / "stereo_go_9x9_b.yaml"),
                                    str(REPO / "checkpoints" / "stereo_go" / "stages" / "9x9-b")],
             "already has stages")):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2 and said in capsys.readouterr().err
    assert (folder / "levels.json").read_bytes() == before


def test_a_later_network_is_exported_and_put_above_the_top_level(tmp_path: Path) -> None:
    """A stronger network from a run's stage becomes a new top level: the stage is exported as
    a small weight file beside levels.json (no optimizer state), the search comes from the
    level below, and only one neighbour may be named."""
    cfg = config_from_dict(RUN)
    Learner(cfg, tmp_path / "run", tensorboard=False).run(progress=False)
    out = tmp_path / "ship"
    report = build_levels(cfg, tmp_path / "run", out, log=lambda _: None)
    report.path.replace(out / "levels.json")
    stage = run_checkpoints(tmp_path / "run")[2]
    with pytest.raises(ConfigError, match="exactly one neighbour"):
        insert_level(out, "top", "late.pt", {}, below="strong", above="weak", source=stage)
    with pytest.raises(ConfigError, match="exactly one neighbour"):
        insert_level(out, "top", "late.pt", {}, source=stage)
    assert not (out / "late.pt").exists()
    levels = insert_level(out, "top", "late.pt", {"simulations": 8}, above="strong",
                          source=stage)
    assert [(lv.id, lv.label) for lv in levels] == [(1, "weak"), (2, "strong"), (3, "top")]
    top = levels[2]
    assert top.elo is None and top.search["simulations"] == 8 and top.iteration == 2
    assert top.sha256 == file_digest(out / "late.pt")
    assert "optimizer" in torch.load(stage, weights_only=True)
    assert "optimizer" not in torch.load(out / "late.pt", weights_only=True)
    exported, trained = load_model(out / "late.pt").model, load_model(stage).model
    for (name, a), b in zip(exported.state_dict().items(), trained.state_dict().values()):
        assert torch.equal(a, b), name
    with pytest.raises(ConfigError, match="exists"):  # an exported file is never overwritten
        insert_level(out, "top2", "late.pt", {"simulations": 4}, above="top", source=stage)


def test_build_levels_from_a_stage_folder(tmp_path: Path) -> None:
    """A run trained across sessions leaves only its stage folder: the ladder is built from
    the stages, and the calibration's journal goes where it is told, not into the folder."""
    cfg = config_from_dict({**RUN, "training": {**RUN["training"], "iterations": 3}})
    stages = tmp_path / "stages"
    Learner(cfg, tmp_path / "run", tensorboard=False, stage_dir=stages,
            stage_every=2).run(progress=False)
    assert list(run_checkpoints(stages)) == [2, 3]
    cfg = config_from_dict({**RUN, "levels": {**RUN["levels"], "ladder": [
        {"label": "weak", "checkpoint": 2, "simulations": 0, "temperature": 1.0},
        {"label": "strong", "checkpoint": 1.0, "simulations": 16, "temperature": 0.0}]}})
    before = sorted(p.name for p in stages.iterdir())
    report = build_levels(cfg, stages, tmp_path / "ship", log=lambda _: None, workers=1,
                          journal_dir=tmp_path / "journal")
    data = json.loads(report.path.read_text())
    assert [lv["iteration"] for lv in data["levels"]] == [2, 3]
    assert sorted(p.name for p in stages.iterdir()) == before
    assert (tmp_path / "journal" / "levels_games.jsonl").exists()


def test_resolve_iteration() -> None:
    cfg = config_from_dict(RUN)
    first, last = cfg.levels.ladder
    assert resolve_iteration(first, [0, 1, 2, 3]) == 1
    assert resolve_iteration(last, [0, 1, 2, 3]) == 3
    with pytest.raises(ConfigError, match="no checkpoint for iteration 1"):
        resolve_iteration(first, [0, 2])


# Every shipped ladder: checkpoints/<game>/levels.json (default options) and
# checkpoints/<game>/<options key>/levels.json, with the options it was trained with.
SHIPPED = sorted(
    str(p.parent.relative_to(REPO / "checkpoints"))
    for p in (REPO / "checkpoints").glob("**/levels.json")
)


@pytest.mark.parametrize("folder", SHIPPED)
def test_shipped_ladder_is_strictly_ordered(folder: str) -> None:
    game_id = folder.split("/")[0]
    where = REPO / "checkpoints" / folder
    name = f"checkpoints/{folder}/levels.json"
    options = json.loads((where / "levels.json").read_text())
    game = make_game(game_id, **options["game_options"])
    assert levels_folder(game, REPO / "checkpoints") == where
    data = read_levels(game).to_json()
    levels = data["levels"]
    assert len(levels) >= 5, (
        f"{name} (game {game_id}, options {options['game_options']}): {len(levels)} levels, "
        "a shipped ladder needs at least 5; rebuild it from a longer run with the training "
        "CLI's `levels` command (training/commands/levels.py) or remove the folder")
    assert [lv["id"] for lv in levels] == list(range(1, len(levels) + 1)), (
        f"{name}: level ids must be 1..{len(levels)} in order")
    for adj in data["calibration"]["adjacent"]:
        assert adj["ci"][0] > 0, f"{name}: {adj['upper']} not above {adj['lower']}: {adj}"
    elos = [lv["elo"] for lv in levels]
    assert elos == sorted(elos) and elos[0] > 0, f"{name}: Elo not increasing: {elos}"
    # The figures above were measured with particular weight files: each level's file must be
    # the one calibrated (its SHA-256, recorded by the calibration), not one swapped in since.
    for lv in levels:
        digest = file_digest(where / lv["checkpoint"])
        assert digest == lv.get("sha256"), (
            f"{name}: level {lv['id']}'s {lv['checkpoint']} has SHA-256 {digest}, not the "
            f"{lv.get('sha256')} it was calibrated with")
    # A ladder calibrated again under other options holds networks trained with others.
    for lv in levels:
        assert load_model(where / lv["checkpoint"]).plays(game), f"{name}: {lv}"
    for lv in (levels[0], levels[-1]):
        assert (where / lv["checkpoint"]).stat().st_size < 5_000_000, (
            f"{name}: {lv['checkpoint']} is over 5 MB")
        player = level_player(game, str(lv["id"]))
        a = player.analyse(game, game.initial_state(), np.random.default_rng(0))
        assert a.move in game.legal_moves(game.initial_state())


def test_calibration_pairs() -> None:
    # Players: 0 random, 1 greedy, then levels 2, 3, 4.
    assert calibration_pairs("all", 2, 5) == [
        (0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)
    ]
    # near: every level meets both opponents; levels meet the two above them.
    assert calibration_pairs("near", 2, 5) == [
        (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)
    ]
    # chain: one line; the strongest level never meets random.
    assert calibration_pairs("chain", 2, 5) == [
        (0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (2, 4), (3, 4)
    ]
    assert calibration_pairs("chain", 1, 2) == [(0, 1)]
    with pytest.raises(ConfigError, match="unknown pairing"):
        calibration_pairs("ring", 1, 3)


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_a_calibration_takes_the_chunks_it_already_played_from_its_journal(
    tmp_path: Path,
) -> None:
    cfg = config_from_dict(RUN)
    run = tmp_path / "run"
    Learner(cfg, run, tensorboard=False).run(progress=False)
    journal = run / "levels_games.jsonl"

    def calibrate(out: str, games: int) -> tuple[list[dict], list[str]]:
        logs: list[str] = []
        report = build_levels(cfg, run, tmp_path / out, games_per_pair=games, workers=1,
                              chunk=2, log=logs.append)
        return json.loads(report.path.read_text())["calibration"]["matches"], logs

    calibrate("a", 4)  # 3 pairs x 2 chunks
    assert len(journal.read_text().splitlines()) == 6
    with journal.open("a") as f:
        f.write('{"key": "cut sh')  # a calibration killed while writing: that line is ignored
    more, logs = calibrate("b", 6)  # the first two chunks of each pair come from the journal
    assert "6 chunks of games taken from" in "\n".join(logs)
    assert len(journal.read_text().splitlines()) == 10
    assert sum(m["a_wins"] + m["draws"] + m["b_wins"] for m in more) == 18
    # Exact: the same figures as a calibration that plays every game.
    journal.unlink()
    fresh, logs = calibrate("c", 6)
    assert fresh == more and not any("taken from" in line for line in logs)
    # Another ladder shares nothing with the journal: its players differ.
    changed = cfg.levels.model_copy(update={"ladder": [
        cfg.levels.ladder[0], cfg.levels.ladder[1].model_copy(update={"simulations": 8})
    ]})
    cfg = cfg.model_copy(update={"levels": changed})
    _, logs = calibrate("d", 6)
    assert "3 chunks of games taken from" in "\n".join(logs)  # only random vs weak
