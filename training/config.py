"""Run configuration: one YAML file per game/experiment, loaded into frozen, validated models.

Why pydantic models and not dicts: a typo in a config (``simulatons: 64``) must stop a run
before it burns an hour, with a message that names the key and the file. Every model here
refuses unknown keys (``extra="forbid"``), checks types strictly (no "3" for 3) and ranges,
and is frozen so nothing changes a config after it was loaded; the resolved config is copied
into each run directory and into every checkpoint, so a checkpoint can be understood alone.

Sections: ``game``, ``seed``, ``network``, ``search``, ``selfplay``, ``replay``, ``training``,
``levels``, ``value_fit`` (see ``configs/jiugong.yaml`` for a commented example).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, ValidationError, model_validator

from agents.config import FrozenModel, NetworkConfig, SearchConfig
from envs.core import ConfigError


class GameConfig(FrozenModel):
    """Which game and its rule options (passed to ``envs.make_game``)."""

    id: str
    options: dict[str, Any] = Field(default_factory=dict)


class SelfPlayConfig(FrozenModel):
    """Self-play: worker processes (local) or Ray actors, each searching a batch of games."""

    # Where the workers run (``training.backends``): "local" = processes on this machine,
    # "ray" = Ray actors of one CPU each, on a Ray cluster (``qizero train --ray-address``) or
    # a Ray instance started for the run. The samples are the same either way.
    backend: Literal["local", "ray"] = "local"
    workers: int = Field(2, ge=0, le=4096)  # 0 = play in the learner's process (local only)
    games_per_iteration: int = Field(64, ge=1)
    batch_games: int = Field(32, ge=1)  # games searched together by one worker
    # Exploration: the first ``random_opening_plies`` (drawn uniformly 0..N per game) are
    # uniformly random, so training sees more than the handful of lines strong play reaches.
    random_opening_plies: int = Field(0, ge=0)
    # Search the opening positions too and learn from them (the move played stays random;
    # the value target there is the search value): many more varied samples per game.
    search_opening: bool = False
    # Exploration through the whole game: after the opening, each searched move is replaced by
    # a uniformly random one with this probability (the position is still searched and learnt
    # from, with the search value as its target). Reaches positions that neither random
    # openings nor strong play visit; measured on Jiugong, the coverage of the reachable
    # positions is what limits the value network (docs/training.md).
    random_move_probability: float = Field(0.0, ge=0.0, le=1.0)
    # Playout-cap randomization (KataGo, Wu 2019): a move gets the full search with this
    # probability and becomes a training sample; otherwise a fast search of
    # ``fast_simulations`` (0 = the raw policy) only plays it. 1.0 = every move in full.
    full_search_probability: float = Field(1.0, gt=0.0, le=1.0)
    fast_simulations: int = Field(0, ge=0)
    # Value target = (1 - mix) * final result + mix * search value at the root.
    value_target_mix: float = Field(0.0, ge=0.0, le=1.0)
    # Moves after the opening are sampled at ``temperature`` for the first N plies, then best.
    temperature: float = Field(1.0, ge=0.0)
    temperature_plies: int = Field(0, ge=0)
    max_plies: int | None = Field(None, ge=1)
    # Games with a pass move (Stereo Go): self-play passes only from this ply on, unless
    # passing is the only legal move (0 = no restriction). Early random-ish self-play games
    # otherwise end in two passes and the net learns to pass (measured, docs/training.md).
    # The recorded legal mask keeps the pass, so the net learns a near-zero pass probability
    # for the early game instead of leaving it untrained.
    pass_after_ply: int = Field(0, ge=0)
    # Rules as inputs (KataGo): the self-play tasks take turns through every combination of
    # these option values over ``game.options``, e.g. ``{rules: [area, territory]}``, so one
    # network learns every rule set. The observation must say which (Stereo Go's rules and
    # komi planes); every combination must make a game of the same shape.
    vary_options: dict[str, list[Any]] = Field(default_factory=dict)
    # Where each worker evaluates its network: "cpu" (the default: small batches, one core a
    # worker), "auto" (a CUDA GPU when torch sees one) or "cuda"/"cuda:N". On a GPU machine the
    # workers share the GPU (one CUDA context each) and keep their cores for search and rules
    # (scripts/gpu_burst.sh). The samples do not depend on it beyond float rounding.
    device: str = Field("cpu", pattern=r"^(auto|cpu|cuda(:[0-9]+)?)$")
    # Where the workers' leaves are evaluated: "local" = each worker its own copy of the network;
    # "shared" = one inference server for the iteration's network (agents.inference_server, on
    # ``device``), which batches the leaves of every worker together: what a GPU wants (one
    # context, big batches). Local backend only (the server listens on a Unix socket).
    inference: Literal["local", "shared"] = "local"
    # The precision of each worker's network: "bfloat16" runs batches of
    # ``agents.evaluator.BFLOAT16_MIN_BATCH`` positions or more under bfloat16 autocast (the
    # smaller ones stay float32, where bfloat16 is slower); on a CPU with avx512_bf16 or AMX
    # (or a GPU with bfloat16), a ConfigError elsewhere. Faster self-play on big batches; the
    # priors and values stray slightly (measured in docs/training.md, "Self-play in bfloat16").
    # Local inference only (the shared server runs float32).
    inference_dtype: Literal["float32", "bfloat16"] = "float32"

    @model_validator(mode="after")
    def _ray_needs_workers(self) -> SelfPlayConfig:
        if self.backend == "ray" and self.workers < 1:
            raise ValueError("backend ray plays on workers (Ray actors): set workers >= 1")
        if self.backend == "ray" and self.inference == "shared":
            raise ValueError("inference shared serves workers on this machine (a Unix socket): "
                             "use backend local, or inference local with ray")
        if self.inference == "shared" and self.inference_dtype != "float32":
            raise ValueError("inference_dtype bfloat16 is for the workers' own networks: "
                             "the shared inference server runs float32 (use inference local)")
        return self


class ReplayConfig(FrozenModel):
    capacity: int = Field(50_000, ge=1)
    symmetries: bool = True  # augment each sample with a random symmetry of the game


class LearningRateDrop(FrozenModel):
    """From ``iteration`` on, the learner steps at ``learning_rate``."""

    iteration: int = Field(ge=0)
    learning_rate: float = Field(gt=0.0)


class TrainingConfig(FrozenModel):
    iterations: int = Field(20, ge=1)
    steps_per_iteration: int = Field(100, ge=0)
    batch_size: int = Field(256, ge=1)
    learning_rate: float = Field(1e-3, gt=0.0)
    # Step drops of the learning rate, each "from this iteration on, this rate" (the latest
    # drop at or before an iteration wins; before the first, learning_rate). The rate is set
    # each iteration, so a run resumed from a checkpoint follows the schedule of its config,
    # not the rate saved with the optimizer. A list, not a mapping: JSON (run directories,
    # checkpoints) would turn integer keys into strings.
    learning_rate_drops: list[LearningRateDrop] = Field(default_factory=list)
    weight_decay: float = Field(1e-4, ge=0.0)
    value_loss_weight: float = Field(1.0, ge=0.0)
    # With network.aux_heads: weights of the ownership loss (mean squared error per point)
    # and of the score loss (squared error of the margin per point).
    ownership_loss_weight: float = Field(1.0, ge=0.0)
    score_loss_weight: float = Field(1.0, ge=0.0)
    min_buffer: int = Field(256, ge=1)  # no learning until the buffer holds this many samples
    # After a resume from a stage (whose buffer stays behind, so it starts empty): no learning
    # until the buffer holds this many samples (None: min_buffer). Learning at once from the
    # first few fresh games overfits them: the raw policy loses strength for a while.
    resume_min_buffer: int | None = Field(None, ge=1)
    # Elo of each new checkpoint against the previous one (TensorBoard charts/elo).
    eval_every: int = Field(1, ge=0)  # 0 = never
    eval_games: int = Field(20, ge=0)
    eval_simulations: int = Field(0, ge=0)
    threads: int = Field(1, ge=1, le=256)  # torch threads in the learner
    # Where the learner's gradient steps run: "auto" = the first CUDA GPU when torch sees one,
    # else the CPU (a GPU is never required); "cpu", "cuda" or "cuda:N" to insist. Self-play's
    # workers run on CPUs unless ``selfplay.device`` says otherwise.
    device: str = Field("auto", pattern=r"^(auto|cpu|cuda(:[0-9]+)?)$")

    def learning_rate_at(self, iteration: int) -> float:
        """The learning rate of the gradient steps made in ``iteration``."""
        started = [d for d in self.learning_rate_drops if d.iteration <= iteration]
        return max(started, key=lambda d: d.iteration).learning_rate if started \
            else self.learning_rate


class LevelSpec(FrozenModel):
    """One candidate level: which checkpoint of the run, how it searches and samples.

    ``checkpoint`` is an iteration number, or a fraction of the run in (0, 1] (1.0 = last).
    """

    label: str
    checkpoint: int | float
    simulations: int = Field(0, ge=0)
    temperature: float = Field(0.0, ge=0.0)
    algorithm: Literal["gumbel", "puct"] = "gumbel"
    max_considered: int = Field(16, ge=1)
    gumbel_scale: float = Field(0.0, ge=0.0)
    terminal_lookahead: bool = False
    policy_temperature: float = Field(1.0, gt=0.0, le=100.0)
    # Leaf values mixed with one random playout (SearchConfig.rollout_mix): TriGolden's
    # strongest levels search like this, since its value network is young.
    rollout_mix: float = Field(0.0, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _checkpoint_range(self) -> LevelSpec:
        c = self.checkpoint
        if isinstance(c, float) and not 0.0 < c <= 1.0:
            raise ValueError("a fractional checkpoint must lie in (0, 1]")
        if isinstance(c, int) and c < 0:
            raise ValueError("a checkpoint iteration must be >= 0")
        return self


class LevelsConfig(FrozenModel):
    """How ``qizero levels`` builds and calibrates the ladder."""

    ladder: list[LevelSpec] = Field(default_factory=list)
    games_per_pair: int = Field(40, ge=2)
    # "all": full round robin; "near": each level against random (and the other opponents)
    # and the two levels above it; "chain": each player against the two above it in the line
    # random, opponents, levels (training.levels.calibration_pairs).
    pairs: Literal["all", "near", "chain"] = "all"
    # Random plies at the start of each game, the same for the two games of a pair of games
    # (sides swapped): variety between games of deterministic players, fairly shared.
    opening_plies: int = Field(0, ge=0)
    opponents: list[str] = Field(default_factory=lambda: ["random"])


class ValueFitConfig(FrozenModel):
    """``qizero value-fit``: the network's value refit to the mean result of random playouts
    (``training.value_fit``)."""

    positions: int = Field(20_000, ge=10)
    chunk: int = Field(500, ge=1)  # positions a worker labels at once (one file each)
    playouts: int = Field(12, ge=1)  # per position; the label is their mean utility
    # Chance that a position of a random game is kept (spreads the positions over games).
    sample_probability: float = Field(0.35, gt=0.0, le=1.0)
    epochs: int = Field(8, ge=1)
    batch_size: int = Field(256, ge=1)
    learning_rate: float = Field(1e-3, gt=0.0)
    weight_decay: float = Field(1e-4, ge=0.0)
    # Weight of the KL divergence from the source network's policy: the priors stay as trained.
    policy_weight: float = Field(0.5, ge=0.0)
    validation_fraction: float = Field(0.1, gt=0.0, lt=1.0)


class RunConfig(FrozenModel):
    game: GameConfig
    seed: int = 0
    network: NetworkConfig = NetworkConfig()
    search: SearchConfig = SearchConfig()
    selfplay: SelfPlayConfig = SelfPlayConfig()
    replay: ReplayConfig = ReplayConfig()
    training: TrainingConfig = TrainingConfig()
    levels: LevelsConfig = LevelsConfig()
    value_fit: ValueFitConfig = ValueFitConfig()


def _format_errors(exc: ValidationError, source: str) -> str:
    lines = [f"invalid config {source}:"]
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        if err["type"] == "extra_forbidden":
            lines.append(f"  {where}: unknown key (typo?)")
        else:
            lines.append(f"  {where}: {err['msg']} (got {err.get('input')!r})")
    return "\n".join(lines)


def config_from_dict(data: Any, source: str = "<dict>") -> RunConfig:
    """Validate a plain dict (parsed YAML) into a RunConfig; ConfigError on any problem."""
    if not isinstance(data, dict):
        raise ConfigError(f"invalid config {source}: the top level must be a mapping")
    try:
        config = RunConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_errors(exc, source)) from None
    # The game id and options are checked by the game registry itself.
    from envs import make_game

    spec = make_game(config.game.id, **config.game.options).spec
    for options in option_combinations(config):
        try:
            other = make_game(config.game.id, **options).spec
        except ConfigError as exc:
            raise ConfigError(f"invalid config {source}: selfplay.vary_options: {exc}") from None
        shape = (other.observation_shape, other.num_actions)
        if shape != (spec.observation_shape, spec.num_actions):
            raise ConfigError(
                f"invalid config {source}: selfplay.vary_options {options} changes the "
                "game's observation or action shape"
            )
    return config


def option_combinations(config: RunConfig) -> list[dict[str, Any]]:
    """The game options of each self-play task's cycle (``selfplay.vary_options`` over
    ``game.options``, every combination in a fixed order); just the game's options when no
    option varies."""
    import itertools

    vary = config.selfplay.vary_options
    names = sorted(vary)
    return [
        {**config.game.options, **dict(zip(names, values))}
        for values in itertools.product(*(vary[k] for k in names))
    ]


def with_overrides(config: RunConfig, assignments: list[str]) -> RunConfig:
    """``config`` with ``section.key=value`` assignments applied (values read as YAML, e.g.
    ``selfplay.workers=15``, ``selfplay.device=cuda``), validated again as a whole."""
    data = config_to_dict(config)
    for assignment in assignments:
        path, sep, raw = assignment.partition("=")
        keys = path.strip().split(".")
        if not sep or not all(keys):
            raise ConfigError(f"override {assignment!r} is not of the form section.key=value")
        node = data
        for key in keys[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
            if not isinstance(node, dict):
                raise ConfigError(f"override {assignment!r}: no section {key!r} in the config")
        try:
            node[keys[-1]] = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            raise ConfigError(f"override {assignment!r}: the value is not YAML: {exc}") from None
    return config_from_dict(data, "the config with --set " + " ".join(assignments))


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a YAML run config."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"config {path} is not valid YAML: {exc}") from None
    return config_from_dict(data, str(path))


def config_to_dict(config: BaseModel) -> dict[str, Any]:
    """Plain JSON/YAML-compatible dict (for run directories and checkpoints)."""
    return config.model_dump(mode="json")
