"""Players: anything that picks moves — baselines, the exact solver, pure MCTS, trained levels.

One interface for the arena, the level ladder, GTP and the service:

* ``select_actions(game, states, rng) -> list[int]``: batched (searching players search all the
  states together, so an arena plays many games at once); ``select_action`` is the one-state
  form.
* ``analyse(game, state, rng) -> Analysis``: the chosen action plus what the player thinks
  (value estimate, top actions with probabilities) — what a move-suggestion endpoint returns.

Players are built from short spec strings by :func:`make_player` (``random``, ``greedy``,
``solver``, ``mcts:400`` (pure MCTS), ``uct:400`` (classical UCT), ``level:3``,
``net:PATH[:SIMS[:TEMP[:SETTING=VALUE...]]]``, the settings any of
:class:`~agents.config.SearchConfig`'s, e.g. ``max_considered=8``). The evaluator inside a
search player is an attribute: a network's is its inference pipeline
(:class:`agents.inference.ModelPipeline`), which the service shares among concurrent callers.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.config import SearchConfig
from agents.evaluator import Evaluator, RolloutEvaluator
from agents.levels_file import LEVELS_FILE, LevelsFile
from agents.search import search
from agents.variety import OpeningVariety, varied_action
from envs import Game
from envs.core import ConfigError, options_key
from envs.policies import named_policy

CHECKPOINT_ROOT = Path(__file__).resolve().parent.parent / "checkpoints"


@dataclass
class Analysis:
    action: int
    move: str
    value: float | None  # for the player to move, in [-1, 1]; None if the player has none
    top: list[tuple[str, float]] = field(default_factory=list)  # (move, probability), best first


class Player:
    """Base class: subclasses implement ``select_actions`` (and may refine ``analyse``)."""

    name: str = "player"

    @property
    def identity(self) -> Any:
        """What decides this player's moves, as JSON: players with equal identities play the
        same games from the same seeds (the arena's journal keys, ``ChunkJournal``)."""
        return self.name

    def select_actions(
        self, game: Game, states: Sequence[Any], rng: np.random.Generator
    ) -> list[int]:
        raise NotImplementedError

    def select_action(self, game: Game, state: Any, rng: np.random.Generator) -> int:
        return self.select_actions(game, [state], rng)[0]

    def reseed(self, seed: Sequence[int]) -> None:
        """Restart the player's own randomness (pure MCTS's playout generator) from ``seed``;
        players whose only randomness is the ``rng`` they are handed ignore it. Why: the
        arena gives each chunk of games a fresh copy of each player, and without this every
        copy would draw the same playouts, so against a deterministic opponent each chunk
        would replay the same games."""

    def analyse(
        self,
        game: Game,
        state: Any,
        rng: np.random.Generator | None = None,
        variety: OpeningVariety | None = None,
    ) -> Analysis:
        """The move and what the player thinks of it. ``variety``: play one of the moves
        the search rates near-equal (:mod:`agents.variety`); players without a search
        ignore it (their own randomness, if any, is already drawn from ``rng``)."""
        rng = rng if rng is not None else np.random.default_rng()
        a = self.select_action(game, state, rng)
        return Analysis(
            a, game.action_to_move(state, a), None, [(game.action_to_move(state, a), 1.0)]
        )


class RandomPlayer(Player):
    """Uniformly random legal moves: the Elo anchor (rating 0)."""

    name = "random"

    def select_actions(
        self, game: Game, states: Sequence[Any], rng: np.random.Generator
    ) -> list[int]:
        out = []
        for s in states:
            legal = np.flatnonzero(game.legal_mask(s))
            out.append(int(legal[rng.integers(len(legal))]))
        return out


class PolicyPlayer(Player):
    """Wraps a ``policy(game, state, rng) -> action`` function (greedy baselines, the solver)."""

    def __init__(self, name: str, policy: Callable[[Game, Any, np.random.Generator], int]):
        self.name = name
        self.policy = policy

    def select_actions(
        self, game: Game, states: Sequence[Any], rng: np.random.Generator
    ) -> list[int]:
        return [int(self.policy(game, s, rng)) for s in states]


class SearchPlayer(Player):
    """Search (or, with 0 simulations, the raw policy) over an evaluator.

    A trained level is a SearchPlayer over a network evaluator; pure MCTS is one over random
    rollouts.
    """

    def __init__(
        self, name: str, evaluator: Evaluator, cfg: SearchConfig, identity: Any = None
    ) -> None:
        self.name = name
        self.evaluator = evaluator
        self.cfg = cfg
        self._identity = identity

    @property
    def identity(self) -> Any:
        return self.name if self._identity is None else self._identity

    def reseed(self, seed: Sequence[int]) -> None:
        if isinstance(self.evaluator, RolloutEvaluator):
            self.evaluator.rng = np.random.default_rng(list(seed))

    def select_actions(
        self, game: Game, states: Sequence[Any], rng: np.random.Generator
    ) -> list[int]:
        """The searched move of each state; a forced move (the only legal one) unsearched."""
        forced = [forced_move(game, s) for s in states]
        searched = iter(search(game, [s for s, f in zip(states, forced) if f is None],
                               self.evaluator, self.cfg, rng))
        return [next(searched).action if f is None else f for f in forced]

    def analyse(
        self,
        game: Game,
        state: Any,
        rng: np.random.Generator | None = None,
        variety: OpeningVariety | None = None,
    ) -> Analysis:
        """The search's move, value and top moves; a forced move is not searched (its value
        is the evaluator's, one call)."""
        rng = rng if rng is not None else np.random.default_rng()
        forced = forced_move(game, state)
        if forced is not None:
            _, values = self.evaluator.evaluate(game, [state])
            move = game.action_to_move(state, forced)
            return Analysis(forced, move, float(values[0]), [(move, 1.0)])
        res = search(game, [state], self.evaluator, self.cfg, rng)[0]
        if variety is not None:
            res = dataclasses.replace(res, action=varied_action(res, variety, rng))
        order = np.argsort(-res.policy, kind="stable")
        top = [
            (game.action_to_move(state, int(a)), float(res.policy[a]))
            for a in order[:5]
            if res.policy[a] > 0
        ]
        return Analysis(res.action, game.action_to_move(state, res.action), res.value, top)


def forced_move(game: Game, state: Any) -> int | None:
    """The only legal action of ``state``, or None when there are several. Why: a search
    cannot change a forced move, and TriGolden's second placement of a turn is often forced
    (6 of the 54 moves of two master games), where the master's 800 simulations took as long
    as any other move's."""
    legal = np.flatnonzero(game.legal_mask(state))
    return int(legal[0]) if len(legal) == 1 else None


def mcts_player(simulations: int, seed: int = 0, max_plies: int = 1000) -> SearchPlayer:
    """Pure MCTS (``mcts:N``): PUCT with uniform priors, values from one random playout per
    leaf. The project's long-standing baseline (the service's ``mcts32``); on large boards
    its exploration, scaled by the 1/|A| prior, all but vanishes: see :func:`uct_player`."""
    cfg = SearchConfig(algorithm="puct", simulations=simulations, c_puct=1.5, temperature=0.0)
    return _rollout_player("mcts", cfg, seed, max_plies)


def uct_player(simulations: int, seed: int = 0, max_plies: int = 1000) -> SearchPlayer:
    """Classical UCT (``uct:N``) over one random playout per leaf, as OpenSpiel's MCTSBot:
    every move tried once before any twice, then UCB1 with c = 2 (the MCTS-Solver on top).
    The pure-MCTS opponent for games with hundreds of moves (Go)."""
    cfg = SearchConfig(algorithm="uct", simulations=simulations, temperature=0.0)
    return _rollout_player("uct", cfg, seed, max_plies)


def _rollout_player(kind: str, cfg: SearchConfig, seed: int, max_plies: int) -> SearchPlayer:
    """A search over one uniformly random playout per leaf, named by its spec ``kind:N``."""
    evaluator = RolloutEvaluator(np.random.default_rng(seed), rollouts=1, max_plies=max_plies)
    identity = {"player": f"{kind}:{cfg.simulations}", "seed": seed, "max_plies": max_plies}
    return SearchPlayer(f"{kind}-{cfg.simulations}", evaluator, cfg, identity)


# Evaluation cache of a player with fixed weights (agents.inference.CachedInfer).
PLAYER_CACHE_BYTES = 64 << 20


def network_player(
    path: str | Path,
    cfg: SearchConfig,
    name: str | None = None,
    cache_bytes: int = PLAYER_CACHE_BYTES,
) -> SearchPlayer:
    """A search over a checkpoint's network, through its inference pipeline (a cache of
    ``cache_bytes``, no batcher: one search at a time)."""
    from agents.checkpoint import file_digest
    from agents.inference import ModelPipeline

    evaluator = ModelPipeline(path, cache_bytes=cache_bytes)
    identity = {"weights": file_digest(path), "search": cfg.as_json()}
    return SearchPlayer(name or Path(path).stem, evaluator, cfg, identity)


def levels_folder(game: Game, root: str | Path | None = None) -> Path:
    """``checkpoints/<game>/`` for the default options, else ``checkpoints/<game>/<key>/``
    (:func:`envs.options_key`): where the levels trained for this configuration live."""
    folder = Path(root or CHECKPOINT_ROOT) / game.spec.id
    key = options_key(game)
    return folder / key if key else folder


def read_levels(game: Game, root: str | Path | None = None) -> LevelsFile:
    """The levels trained for this game's options (:func:`levels_folder`); ConfigError
    saying which options do have levels when there are none."""
    path = levels_folder(game, root) / LEVELS_FILE
    if not path.is_file():
        # Say which options do have levels (e.g. Stereo Go: the defaults, area, plain 9x9).
        folder = Path(root or CHECKPOINT_ROOT) / game.spec.id
        # A folder is named by options_key: name-value pairs joined by "+".
        trained = sorted(
            " ".join("=".join(kv.split("-", 1)) for kv in q.parent.name.split("+"))
            for q in folder.glob(f"*/{LEVELS_FILE}")
        )
        if (folder / LEVELS_FILE).is_file():
            trained.insert(0, "the default options")
        where = f"; levels exist for: {'; '.join(trained)}" if trained else ""
        raise ConfigError(
            f"no levels for {game.spec.id} with these options: {path} does not exist "
            f"(run qizero levels){where}"
        )
    return LevelsFile.read(path)


def level_player(game: Game, which: str, root: str | Path | None = None) -> SearchPlayer:
    """A shipped level, by id (``3``) or label, from the game's levels file
    (:func:`levels_folder`)."""
    lv = read_levels(game, root).find(which)
    if lv.checkpoint is None:
        raise ConfigError(f"level {which!r} of {game.spec.id} is {lv.player!r}, not a network: "
                          f"play it as that player")
    cfg = SearchConfig.model_validate(lv.search)
    return network_player(levels_folder(game, root) / lv.checkpoint, cfg, f"level-{lv.id}")


def _setting(text: str) -> tuple[str, Any]:
    """``name=value`` of a player spec: numbers and true/false as JSON, anything else a word."""
    name, _, value = text.partition("=")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def make_player(game: Game, spec: str, seed: int = 0) -> Player:
    """Build a player from a spec string (see the module docstring)."""
    head, _, rest = spec.partition(":")
    if head == "random" and not rest:
        return RandomPlayer()
    if head in ("greedy", "solver") and not rest:
        return PolicyPlayer(head, named_policy(game, head))
    if head in ("mcts", "uct"):
        if not rest.isdigit() or int(rest) < 1:
            raise ConfigError(f"bad player {spec!r}: use {head}:SIMULATIONS, e.g. {head}:400")
        return (mcts_player if head == "mcts" else uct_player)(int(rest), seed)
    if head == "level" and rest:
        return level_player(game, rest)
    if head == "net" and rest:
        usage = "use net:PATH[:SIMULATIONS[:TEMPERATURE[:SETTING=VALUE...]]]"
        path, *numbers = rest.split(":")
        settings = dict(_setting(x) for x in numbers[2:] if "=" in x)
        if len(settings) != len(numbers[2:]) or {"simulations", "temperature"} & set(settings):
            raise ConfigError(f"bad player {spec!r}: {usage}, e.g. net:a.pt:48:0:rollout_mix=0.5")
        try:
            sims = int(numbers[0]) if numbers else 0
            temp = float(numbers[1]) if len(numbers) > 1 else 0.0
            cfg = SearchConfig.model_validate(
                {"gumbel_scale": 0.0, **settings, "simulations": sims, "temperature": temp}
            )
        except ValueError as e:  # pydantic's ValidationError is a ValueError
            raise ConfigError(f"bad player {spec!r}: {usage} ({e})") from None
        p = network_player(path, cfg)
        p.name = f"{Path(path).stem}-s{sims}-t{temp:g}"
        return p
    raise ConfigError(
        f"unknown player {spec!r}; use random, greedy, solver, mcts:N, level:ID "
        "or net:PATH[:SIMS[:TEMP[:SETTING=VALUE...]]]"
    )
