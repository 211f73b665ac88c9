"""``qizero train | arena | levels | check | curve | value-fit | export``: the training stack's
subcommands.

Each subcommand is a thin parser over the modules that do the work (``learner``, ``arena``,
``levels``, ``jiugong_check``, ``onnx_export``...); ``qizero_cli.py`` maps the names to the
``add_*_arguments`` / ``run_*`` pairs below through small adapter modules.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

from envs import make_game
from envs.core import ConfigError, changed_options

REPO = Path(__file__).resolve().parent.parent


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """Game options from ``key=value`` words; values are JSON where they parse (``n=9``,
    ``komi=7.5``), else strings (``scoring=trigolden``)."""
    out: dict[str, Any] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"a game option is key=value, got {item!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def add_workers_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workers", type=int, default=0,
        help="play in this many processes, the games cut into seeded chunks of --chunk "
        "(results independent of the number; 0: in this process)",
    )
    p.add_argument(
        "--chunk", type=int, default=2,
        help="games a worker plays at once, batching its network calls (even; results depend "
        "on it; default 2)",
    )


# ---------------------------------------------------------------------------- train
def add_train_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", help="YAML run config, e.g. configs/jiugong.yaml")
    p.add_argument("--resume", metavar="PATH", help="checkpoint to resume from (with its buffer)")
    p.add_argument(
        "--resume-stage", metavar="FOLDER",
        help="resume from the newest stage checkpoint in FOLDER (training.stages; the replay "
        "buffer is regenerated) and keep writing stages there",
    )
    p.add_argument(
        "--stage-dir", metavar="FOLDER",
        help="write stage checkpoints (small, committable) to FOLDER: every --stage-every "
        "iterations and when the run stops",
    )
    p.add_argument("--stage-every", type=int, default=10, metavar="N",
                   help="iterations between stage checkpoints (default 10)")
    p.add_argument("--minutes", type=float, help="stop after this much wall time")
    p.add_argument("--run-dir", help="run directory (default runs/<game>-<time>)")
    p.add_argument("--iterations", type=int, help="override training.iterations")
    p.add_argument(
        "--set", action="append", default=[], metavar="SECTION.KEY=VALUE", dest="overrides",
        help="override one config value (read as YAML), e.g. --set selfplay.workers=15 "
        "--set selfplay.device=cuda; repeatable",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--ray-address", metavar="ADDRESS",
        help="with selfplay.backend: ray, join this Ray cluster (auto, HOST:PORT; e.g. one "
        "started with `ray start --head`); default: start a Ray instance on this machine",
    )


def run_train(args: argparse.Namespace) -> int:
    from training.config import load_config, with_overrides
    from training.learner import Learner, run_dir_of_checkpoint

    cfg = load_config(args.config)
    if args.overrides:
        cfg = with_overrides(cfg, args.overrides)
    if args.iterations is not None:
        cfg = cfg.model_copy(
            update={"training": cfg.training.model_copy(update={"iterations": args.iterations})}
        )
    stage_dir = args.resume_stage or args.stage_dir
    resume = args.resume
    if args.resume_stage:
        if args.resume or (args.stage_dir and Path(args.stage_dir) != Path(args.resume_stage)):
            raise ConfigError("--resume-stage FOLDER resumes from and writes to FOLDER: "
                              "give neither --resume nor another --stage-dir")
        from training.stages import latest_stage

        resume = latest_stage(Path(args.resume_stage))
    if args.resume:
        run_dir = Path(args.run_dir) if args.run_dir else run_dir_of_checkpoint(Path(args.resume))
    else:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_dir = Path(args.run_dir) if args.run_dir else REPO / "runs" / f"{cfg.game.id}-{stamp}"
    if args.ray_address is not None and cfg.selfplay.backend != "ray":
        raise ConfigError("--ray-address needs selfplay.backend: ray in the config")
    if args.stage_every < 1:
        raise ConfigError("--stage-every must be at least 1")
    learner = Learner(
        cfg, run_dir, resume=resume, stage_dir=stage_dir, stage_every=args.stage_every
    )
    if args.resume_stage:
        print(f"resuming from stage {resume} (iteration {learner.iteration})")
    print(f"run directory: {run_dir}")
    t0 = time.monotonic()
    _stop_on_signals()
    try:
        stats = learner.run(
            minutes=args.minutes, progress=not args.no_progress, ray_address=args.ray_address
        )
    except KeyboardInterrupt:
        where = f"; stage written to {stage_dir}" if stage_dir else ""
        print(f"stopped after iteration {learner.iteration}{where}")
        return 130
    minutes = (time.monotonic() - t0) / 60
    print(
        f"done: iteration {learner.iteration}, {learner.step} steps, {len(stats)} iterations in "
        f"{minutes:.1f} min; last checkpoint "
        f"{run_dir / 'checkpoints' / f'ckpt_{learner.iteration:06d}.pt'}"
    )
    return 0


def _stop_on_signals() -> None:
    """SIGTERM (a scheduler, ``kill``) and SIGINT stop a run the way Ctrl-C does, so it
    closes its workers and writes its last stage. SIGINT too: a shell starts background jobs
    with it ignored."""
    import signal

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.default_int_handler)


# ---------------------------------------------------------------------------- arena
def add_arena_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="game id, e.g. jiugong")
    p.add_argument(
        "players",
        nargs="+",
        help="players: random, greedy, solver, mcts:N, uct:N, level:ID, "
        "net:PATH[:SIMS[:TEMP[:SETTING=VALUE...]]] (search settings, e.g. rollout_mix=0.5)",
    )
    p.add_argument("--games", type=int, default=40, help="games per pair (sides alternate)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--opening-plies", type=int, default=0, help="random plies shared by each pair of games"
    )
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    add_workers_argument(p)
    p.add_argument(
        "--journal", metavar="PATH",
        help="keep the finished chunks of games in this file (with --workers): a rerun of the "
        "same command takes them from there, so a stopped arena resumes and more --games plays "
        "only the new ones",
    )
    p.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="game option (repeatable), e.g. --option scoring=trigolden; level:ID then takes "
        "the levels trained with these options",
    )


def run_arena(args: argparse.Namespace) -> int:
    from agents.players import make_player
    from training.arena import (
        ChunkJournal,
        ChunkKey,
        ChunkResult,
        fit_elo,
        format_matches,
        format_table,
        round_robin,
    )

    if args.games < 1:
        raise ConfigError("--games must be at least 1")
    if args.journal and args.workers < 1:
        raise ConfigError("--journal needs --workers 1 or more: it keeps chunks of games")
    game = make_game(args.game, **parse_options(args.option))
    players = [make_player(game, spec, seed=args.seed + k) for k, spec in enumerate(args.players)]
    if len(players) < 2:
        raise ConfigError("the arena needs at least two players")
    names = [f"{spec}" for spec in args.players]
    anchor = names.index("random") if "random" in names else 0
    known: dict[ChunkKey, ChunkResult] = {}
    on_chunk = None
    if args.journal:
        n = len(players)
        journal = ChunkJournal(Path(args.journal))
        known, on_chunk = journal.hooks(
            args.game, dataclasses.asdict(game.config), [p.identity for p in players],
            [(i, j) for i in range(n) for j in range(i + 1, n)], args.games, args.seed,
            args.chunk, args.opening_plies,
        )
        if known:
            print(f"{len(known)} chunks of games taken from {journal.path}", flush=True)

    def chunk_done(k: ChunkKey, result: ChunkResult) -> None:
        i, j, c = k
        print(f"  {names[i]} vs {names[j]}, games {c * args.chunk + 1}-"
              f"{min((c + 1) * args.chunk, args.games)}: +{result[0]} ={result[1]} -{result[2]}",
              flush=True)
        if on_chunk is not None:
            on_chunk(k, result)

    results = round_robin(
        game,
        players,
        args.games,
        seed=args.seed,
        on_result=lambda r: print(format_matches(names, [r]), flush=True),
        opening_plies=args.opening_plies,
        workers=args.workers,
        chunk=args.chunk,
        known=known,
        on_chunk=chunk_done if args.workers > 0 else None,
    )
    ratings = fit_elo(len(players), results, anchor=anchor)
    print()
    if "random" not in names:
        print(f"(no 'random' player: ratings anchored on {names[anchor]} = 0)")
    print(format_table(names, ratings))
    if args.json:
        data = {
            "game": args.game,
            "options": changed_options(game),
            "players": names,
            "anchor": names[anchor],
            "matches": [r.__dict__ for r in results],
            "elo": [float(x) for x in ratings.elo],
            "elo_ci": [list(ratings.ci(k)) for k in range(len(names))],
        }
        Path(args.json).write_text(json.dumps(data, indent=2))
    return 0


# ---------------------------------------------------------------------------- levels
def add_levels_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="game id, e.g. jiugong")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--run", help="training run directory (runs/<dir>) or stage folder "
                        "(checkpoints/<game>/stages/<name>: a run across sessions)")
    source.add_argument(
        "--from-levels", metavar="FOLDER",
        help="calibrate FOLDER's shipped ladder (its levels.json, checkpoints and search "
        "settings) again under the game options of --option, e.g. the Stereo Go ladder "
        "trained with area scoring under the default territory rules",
    )
    p.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="with --from-levels: a game option replacing the source ladder's (repeatable)",
    )
    p.add_argument(
        "--pairs", choices=("all", "near", "chain"),
        help="with --from-levels: which pairs play (default: as the source was calibrated)",
    )
    p.add_argument("--config", help="config with the levels section (default: the run's)")
    p.add_argument(
        "--out",
        help="output directory (default checkpoints/<game>, or checkpoints/<game>/<options key> "
        "for a run with non-default game options)",
    )
    p.add_argument(
        "--games", type=int,
        help="override levels.games_per_pair (with --workers, the games already played are "
        "taken from the run's levels_games.jsonl)",
    )
    p.add_argument("--seed", type=int, default=0)
    add_workers_argument(p)


def run_levels(args: argparse.Namespace) -> int:
    from agents.players import levels_folder
    from training.config import load_config
    from training.levels import build_levels

    if args.from_levels:
        return _recalibrate(args)
    if args.option or args.pairs:
        raise ConfigError("--option and --pairs go with --from-levels (a run's are its config's)")
    run = Path(args.run)
    cfg = load_config(args.config or run / "config.yaml")
    if cfg.game.id != args.game:
        raise ConfigError(f"run {run} is for game {cfg.game.id!r}, not {args.game!r}")
    game = make_game(cfg.game.id, **cfg.game.options)
    out = Path(args.out) if args.out else levels_folder(game, REPO / "checkpoints")
    # A stage folder is committed: its calibration games are journalled under runs/.
    journal = None if (run / "checkpoints").is_dir() else REPO / "runs" / f"levels-{run.name}"
    report = build_levels(
        cfg,
        run,
        out,
        games_per_pair=args.games,
        seed=args.seed,
        log=print,
        workers=args.workers,
        chunk=args.chunk,
        journal_dir=journal,
    )
    print(report.summary())
    return 0 if report.ordered else 1


def _recalibrate(args: argparse.Namespace) -> int:
    from agents.levels_file import LevelsFile
    from agents.players import levels_folder
    from training.levels import recalibrate_levels

    source = Path(args.from_levels)
    ladder = LevelsFile.read(source)
    if ladder.game != args.game:
        raise ConfigError(f"{source} holds levels of {ladder.game!r}, not {args.game!r}")
    options = {**ladder.game_options, **parse_options(args.option)}
    game = make_game(args.game, **options)
    out = Path(args.out) if args.out else levels_folder(game, REPO / "checkpoints")
    journal = REPO / "runs" / f"recalibrate-{args.game}-{out.name}"
    report = recalibrate_levels(
        source, options, out, games_per_pair=args.games, seed=args.seed, log=print,
        workers=args.workers, chunk=args.chunk, journal_dir=journal, pairs=args.pairs,
    )
    print(report.summary())
    return 0 if report.ordered else 1


# ---------------------------------------------------------------------------- check
def add_check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", choices=["jiugong"], help="a solved game (jiugong)")
    p.add_argument("--level", help="level id or label (default: the top level)")
    p.add_argument(
        "--levels-dir", help="directory holding <game>/levels.json (default checkpoints)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-playouts", action="store_true", help="skip playing won positions out")


def run_check(args: argparse.Namespace) -> int:
    from agents.inference import ModelPipeline
    from agents.players import level_player, read_levels
    from training.jiugong_check import check_player

    game = make_game(args.game)
    which = args.level or str(read_levels(game, args.levels_dir).levels[-1].id)
    player = level_player(game, which, args.levels_dir)
    print(
        f"checking {args.game} level {which} ({player.cfg.simulations} simulations) "
        "against the exact solver"
    )
    t0 = time.monotonic()
    evaluator = player.evaluator if isinstance(player.evaluator, ModelPipeline) else None
    report = check_player(player, evaluator, seed=args.seed, playouts=not args.no_playouts)
    for line in report.lines():
        print(line)
    for ex in report.failure_examples:
        print("  failure:", ex)
    print(f"({time.monotonic() - t0:.1f} s)")
    ok = report.failures == 0 and report.raw_agreement >= 0.95
    if not args.no_playouts:
        ok = ok and report.conversions == report.won_positions
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


# ---------------------------------------------------------------------------- curve
def add_curve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="game id (must match the run)")
    p.add_argument("--run", required=True, help="training run directory (runs/<dir>)")
    p.add_argument("--points", type=int, default=8, help="checkpoints rated, spread over the run")
    p.add_argument("--games", type=int, default=20, help="games per pair (sides alternate)")
    p.add_argument("--simulations", type=int, default=0,
                   help="search simulations of the checkpoints (0: raw policy)")
    p.add_argument("--opening-plies", type=int, default=None,
                   help="random plies shared by each pair of games (default: the run's levels)")
    p.add_argument("--png", help="write the plot here (e.g. docs/img/<game>_elo_curve.png)")
    p.add_argument("--seed", type=int, default=0)
    add_workers_argument(p)


def run_curve(args: argparse.Namespace) -> int:
    from training.config import load_config
    from training.curve import elo_curve, write_curve

    run = Path(args.run)
    cfg = load_config(run / "config.yaml")
    if cfg.game.id != args.game:
        raise ConfigError(f"run {run} is for game {cfg.game.id!r}, not {args.game!r}")
    if args.points < 1 or args.games < 1:
        raise ConfigError("--points and --games must be at least 1")
    curve = elo_curve(
        cfg, run, args.points, args.games, args.simulations, args.seed, args.opening_plies,
        workers=args.workers, chunk=args.chunk,
    )
    options = ", ".join(f"{k} {v}" for k, v in cfg.game.options.items())
    title = f"{cfg.game.id} ({options})" if options else cfg.game.id
    write_curve(run, f"{title}\nrun {run.name}", curve, Path(args.png) if args.png else None)
    for p in curve.points:
        lo, hi = p.elo_ci
        print(f"iteration {p.iteration:5d}  {p.minutes:7.1f} min  Elo {p.elo:7.1f} "
              f"[{lo:7.1f}, {hi:7.1f}]")
    for name, elo in curve.anchors.items():
        print(f"{name}: Elo {elo:.1f}")
    print(f"wrote {run / 'curve.json'} and {run / 'tb' / 'curve'}"
          + (f" and {args.png}" if args.png else ""))
    return 0


def add_value_fit_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", help="YAML config with the value_fit section (and the levels the "
                                  "refit network will carry)")
    p.add_argument("--run", required=True, help="training run whose network is refit")
    p.add_argument("--iteration", type=int,
                   help="the run's checkpoint to refit (default: the last one)")
    p.add_argument("--out", required=True,
                   help="new run directory for the refit network (qizero levels --run OUT)")
    p.add_argument("--workers", type=int, default=0,
                   help="label positions in this many processes (0: in this process)")
    p.add_argument("--transfer", action="store_true",
                   help="the run was trained under other options of the same game (e.g. "
                        "TriGolden's other scoring mode): refit it under the config's")


def run_value_fit_command(args: argparse.Namespace) -> int:
    from training.config import load_config
    from training.levels import run_checkpoints
    from training.value_fit import run_value_fit

    cfg = load_config(args.config)
    run = Path(args.run)
    checkpoints = run_checkpoints(run)
    if not checkpoints:
        raise ConfigError(f"run {run} has no checkpoints")
    it = list(checkpoints)[-1] if args.iteration is None else args.iteration
    if it not in checkpoints:
        raise ConfigError(f"run {run} has no checkpoint for iteration {it}")
    out = Path(args.out)
    if out.resolve() == run.resolve():
        raise ConfigError("--out must be a new directory: the refit network is a new run")
    run_value_fit(cfg, Path(args.config).read_text(), checkpoints[it], out, args.workers,
                  transfer=args.transfer)
    return 0


# ---------------------------------------------------------------------------- export
def add_export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="game id, e.g. fangqi")
    p.add_argument("level", nargs="?", help="level id or label (e.g. 5 or master); or --all")
    p.add_argument("--onnx", metavar="PATH", help="write the level's network here (.onnx)")
    p.add_argument(
        "--all", action="store_true",
        help="export every level of the ladder into --out-dir, with a <game>.json index",
    )
    p.add_argument("--out-dir", metavar="DIR", help="output folder of --all")
    p.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="game option (repeatable) naming the ladder, e.g. --option rules=area "
        "--option max_moves=400 for the Stereo Go levels",
    )
    p.add_argument(
        "--levels-dir", help="directory holding <game>/levels.json (default checkpoints)"
    )


def run_export(args: argparse.Namespace) -> int:
    from training.onnx_export import export_level, export_levels, read_metadata

    options = parse_options(args.option)
    root = Path(args.levels_dir) if args.levels_dir else None
    if args.all:
        if args.level or args.onnx or not args.out_dir:
            raise ConfigError("--all takes no level and no --onnx: give --out-dir DIR")
        paths = export_levels(args.game, Path(args.out_dir), options, levels_root=root)
    else:
        if not args.level or not args.onnx or args.out_dir:
            raise ConfigError("give a level and --onnx PATH (or --all --out-dir DIR)")
        paths = [export_level(args.game, args.level, Path(args.onnx), options, levels_root=root)]
    for path in paths:
        meta = read_metadata(path)
        search = meta["search"]
        print(
            f"{path}: level {meta['level']['id']} ({meta['level']['label']}), "
            f"{search['algorithm']} {search['simulations']} simulations, "
            f"temperature {search['temperature']:g}, {path.stat().st_size / 1024:.0f} KiB"
        )
    return 0
