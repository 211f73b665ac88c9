"""Self-play: a worker plays a batch of games at once, every move chosen by the batched search.

Each worker keeps ``batch_games`` games going; at every step all unfinished games are searched
in one :func:`~agents.search.search` call, each by its own config (the best or a sampled move,
a full or a fast search), so their leaves share every network call: one call per step of the
search (``search.batch`` simulations of every tree; a Gumbel round at ``batch =
max_considered``). The random draws of a step come in one order (the playout caps, the
searches' noise, their moves, then each game's random moves), so a seed still gives the same
games, but not those that the code before this order gave. A finished game yields one
training sample per searched position: (observation, legal mask, search policy target, final
result for the player who was to move). Random opening plies are played without search and
yield no samples.

Workers run tasks (:func:`run_task`) wherever a backend puts them (``training.backends``:
local processes or Ray actors). Every task gets its own seed derived from (run seed,
iteration, task index) and results are concatenated in task order, so a run is reproducible
whatever the backend and however its workers are scheduled.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.config import NetworkConfig, SearchConfig
from agents.evaluator import Evaluator, NetworkEvaluator
from agents.inference import InferencePipeline
from agents.inference_remote import InferenceClient
from agents.search import SearchResult, restrict_mask, search
from envs import Game, make_game
from training.config import SelfPlayConfig


@dataclass
class _Slot:
    """One game in progress inside a worker's batch."""

    state: Any
    opening: int
    ply: int = 0
    # (observation, mask, policy target, player, search value, played at random?)
    records: list[tuple[np.ndarray, np.ndarray, np.ndarray, int, float, bool]] = field(
        default_factory=list
    )


@dataclass
class SelfPlayBatch:
    """Samples and figures from some self-play games."""

    obs: np.ndarray
    mask: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    games: int = 0
    plies: int = 0
    searched_positions: int = 0
    evaluations: int = 0
    network_calls: int = 0
    seconds: float = 0.0
    # CPU time of the playing processes, summed: per-core speed even on a loaded machine.
    cpu_seconds: float = 0.0
    results: list[float] = field(default_factory=list)  # first player's result per game
    # Auxiliary targets from the mover's view (games with ``Game.outcome_targets``, else
    # None): the final ownership per observation cell and the margin per point.
    ownership: np.ndarray | None = None
    score: np.ndarray | None = None

    @staticmethod
    def concat(batches: list[SelfPlayBatch]) -> SelfPlayBatch:
        aux = all(b.ownership is not None for b in batches) and bool(batches)
        return SelfPlayBatch(
            obs=np.concatenate([b.obs for b in batches]),
            mask=np.concatenate([b.mask for b in batches]),
            policy=np.concatenate([b.policy for b in batches]),
            value=np.concatenate([b.value for b in batches]),
            games=sum(b.games for b in batches),
            plies=sum(b.plies for b in batches),
            searched_positions=sum(b.searched_positions for b in batches),
            evaluations=sum(b.evaluations for b in batches),
            network_calls=sum(b.network_calls for b in batches),
            seconds=max((b.seconds for b in batches), default=0.0),
            cpu_seconds=sum(b.cpu_seconds for b in batches),
            results=[r for b in batches for r in b.results],
            ownership=np.concatenate([b.ownership for b in batches]) if aux else None,
            score=np.concatenate([b.score for b in batches]) if aux else None,
        )


def play_games(
    game: Game,
    evaluator: Evaluator,
    search_cfg: SearchConfig,
    sp: SelfPlayConfig,
    n_games: int,
    rng: np.random.Generator,
) -> SelfPlayBatch:
    """Play ``n_games`` self-play games, ``sp.batch_games`` at a time."""
    t0, cpu0 = time.perf_counter(), time.process_time()
    spec = game.spec
    obs_l, mask_l, pol_l, val_l = [], [], [], []
    own_l: list[np.ndarray] = []
    score_l: list[float] = []
    has_aux = True
    plies = searched = 0
    results: list[float] = []
    max_plies = sp.max_plies or spec.max_length
    # (full, fast) search configs of the moves played best, and of the sampled ones.
    best = _full_and_fast(search_cfg, sp, 0.0)
    sampled = _full_and_fast(search_cfg, sp, sp.temperature)
    # Slots keep ``batch_games`` games going: a finished game is replaced at once by a new
    # one, so every search call sees a full batch until the last games.
    started = 0
    slots: list[_Slot] = []
    while started < n_games or slots:
        while started < n_games and len(slots) < sp.batch_games:
            slots.append(
                _Slot(game.initial_state(), int(rng.integers(0, sp.random_opening_plies + 1)))
            )
            started += 1
        if not sp.search_opening:
            for slot in slots:  # random opening plies: no search, no samples
                while slot.ply < slot.opening and not game.is_terminal(slot.state):
                    action = _random_action(game, slot, sp, rng)
                    slot.state = game.apply(slot.state, action)
                    slot.ply += 1
        live = []
        for slot in slots:
            if game.is_terminal(slot.state) or slot.ply >= max_plies:
                final = slot.state
                if game.is_terminal(final):  # value targets: the utility; statistics: result
                    ret, result = game.utility(final), float(game.returns(final)[0])
                else:  # self-play cap: a draw
                    ret, result = np.zeros(spec.num_players, dtype=np.float32), 0.0
                results.append(result)
                plies += slot.ply
                lam = sp.value_target_mix
                aux = game.outcome_targets(final)
                has_aux = has_aux and aux is not None
                for o, m, p, player, v, random_move in slot.records:
                    if aux is not None:  # the first player's view, turned to the mover's
                        sign = 1.0 if player == 0 else -1.0
                        own_l.append(aux.ownership * sign)
                        score_l.append(aux.score * sign)
                    obs_l.append(o)
                    mask_l.append(m)
                    pol_l.append(p)
                    # After a random move the result says little about the position before
                    # it: those samples learn the search value instead.
                    val_l.append(v if random_move else (1 - lam) * float(ret[player]) + lam * v)
            else:
                live.append(slot)
        slots = live
        if not slots:
            continue
        # One search call for every game (its leaves in one network call a step), each game
        # by its group's config: opening and late moves are the best, early ones sampled;
        # playout-cap randomization gives some a fast search that is not learnt from.
        opening = [x for x in slots if x.ply < x.opening]
        early = [x for x in slots if x.opening <= x.ply < x.opening + sp.temperature_plies]
        late = [x for x in slots if x.ply >= x.opening + sp.temperature_plies]
        moves: list[tuple[_Slot, SearchConfig, bool, bool]] = []  # slot, config, opening, record
        for group, (full_cfg, fast_cfg) in ((opening, best), (early, sampled), (late, best)):
            full, fast = _playout_cap(group, sp, rng)
            moves += [(x, full_cfg, group is opening, True) for x in full]
            moves += [(x, fast_cfg, group is opening, False) for x in fast]
        found = search(
            game,
            [x.state for x, _, _, _ in moves],
            evaluator,
            [c for _, c, _, _ in moves],
            rng,
            root_masks=[_allowed_actions(game, x, sp) for x, _, _, _ in moves],
        )
        for (slot, _, in_opening, record), res in zip(moves, found):
            searched += _advance(game, slot, res, in_opening, record, sp, rng)
    shape = (0, *spec.observation_shape)
    # The evaluator's counters (an InferencePipeline's; a bare evaluator has none).
    counts = evaluator.stats() if hasattr(evaluator, "stats") else {}
    return SelfPlayBatch(
        obs=np.stack(obs_l) if obs_l else np.zeros(shape, dtype=np.float32),
        mask=np.stack(mask_l) if mask_l else np.zeros((0, spec.num_actions), dtype=bool),
        policy=np.stack(pol_l) if pol_l else np.zeros((0, spec.num_actions), dtype=np.float32),
        value=np.asarray(val_l, dtype=np.float32),
        games=n_games,
        plies=plies,
        searched_positions=searched,
        evaluations=int(counts.get("rows", 0)),
        network_calls=int(counts.get("forward_passes", 0)),
        seconds=time.perf_counter() - t0,
        cpu_seconds=time.process_time() - cpu0,
        results=results,
        ownership=_stack_or_none(own_l, has_aux, (0, *spec.observation_shape[1:])),
        score=np.asarray(score_l, dtype=np.float32) if has_aux else None,
    )


def _full_and_fast(
    search_cfg: SearchConfig, sp: SelfPlayConfig, temperature: float
) -> tuple[SearchConfig, SearchConfig]:
    """The full search at ``temperature`` and the fast one (``sp.fast_simulations``)."""
    full = search_cfg.model_copy(update={"temperature": temperature})
    return full, full.model_copy(update={"simulations": sp.fast_simulations})


def _stack_or_none(
    arrays: list[np.ndarray], present: bool, empty_shape: tuple[int, ...]
) -> np.ndarray | None:
    if not present:
        return None
    return np.stack(arrays).astype(np.float32) if arrays else np.zeros(empty_shape, np.float32)


def _playout_cap(
    group: list[_Slot], sp: SelfPlayConfig, rng: np.random.Generator
) -> tuple[list[_Slot], list[_Slot]]:
    """Playout-cap randomization (KataGo): each move gets the full search with probability
    ``full_search_probability`` and is learnt from; the others get a fast search of
    ``fast_simulations`` and only move the game on. More games per second, with every policy
    target still from a full search."""
    if sp.full_search_probability >= 1.0 or not group:
        return group, []
    draw = rng.random(len(group)) < sp.full_search_probability
    return [x for x, f in zip(group, draw) if f], [x for x, f in zip(group, draw) if not f]


def _allowed_actions(game: Game, slot: _Slot, sp: SelfPlayConfig) -> np.ndarray | None:
    """The actions self-play may choose from in this game's position, beyond legality:
    no pass before ``sp.pass_after_ply`` (None = no restriction)."""
    pass_action = game.spec.pass_action
    if pass_action is None or slot.ply >= sp.pass_after_ply:
        return None
    allowed = np.ones(game.spec.num_actions, dtype=bool)
    allowed[pass_action] = False
    return allowed


def _random_action(
    game: Game, slot: _Slot, sp: SelfPlayConfig, rng: np.random.Generator
) -> int:
    """A uniformly random legal action that self-play may choose (a pass only when it is
    the only legal move in the no-pass part of the game)."""
    legal = restrict_mask(game.legal_mask(slot.state), _allowed_actions(game, slot, sp))
    choices = np.flatnonzero(legal)
    return int(choices[rng.integers(len(choices))])


def _advance(
    game: Game,
    slot: _Slot,
    res: SearchResult,
    opening: bool,
    record: bool,
    sp: SelfPlayConfig,
    rng: np.random.Generator,
) -> int:
    """Play the searched move (or a random one: opening, exploration) and record the sample;
    returns 1 if the position counts as searched for the speed figures."""
    random_move = opening or (
        sp.random_move_probability > 0 and rng.random() < sp.random_move_probability
    )
    s = slot.state
    if record:
        slot.records.append(
            (game.observation(s), game.legal_mask(s), res.policy, game.to_play(s), res.value,
             random_move)
        )
    action = _random_action(game, slot, sp, rng) if random_move else res.action
    slot.state = game.apply(s, action)
    slot.ply += 1
    return 1 if record else 0


# ---------------------------------------------------------------------------- workers


@dataclass(frozen=True)
class SelfPlayTask:
    """Some self-play games to play with the current weights (which travel apart: a backend
    sends them once per update, not once per task)."""

    game_id: str
    game_options: dict[str, Any]
    network: NetworkConfig
    search: SearchConfig
    selfplay: SelfPlayConfig
    n_games: int
    seed: tuple[int, ...]
    # The iteration's inference server (``selfplay.inference: shared``): the worker sends its
    # leaves there instead of loading the weights (training.backends.shared_inference).
    inference: InferenceClient | None = None


#: A network's weights as the learner hands them to self-play (CPU tensors by name).
Weights = dict[str, Any]


def cpu_weights(model: Any) -> Weights:
    """A copy of ``model``'s weights as CPU tensors (what self-play and evaluation play with)."""
    return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}


def run_task(task: SelfPlayTask, weights: Weights) -> SelfPlayBatch:
    """Play one task's games (in a worker process, a Ray actor or the caller's process)."""
    import torch

    from agents.device import resolve_device
    from agents.networks import build_network

    torch.set_num_threads(1)
    game = make_game(task.game_id, **task.game_options)
    rng = np.random.default_rng(list(task.seed))
    if task.inference is not None:
        evaluator = InferencePipeline(task.inference.infer, concurrent=True)
        try:
            return play_games(game, evaluator, task.search, task.selfplay, task.n_games, rng)
        finally:
            task.inference.close()
    model = build_network(game.spec, task.network)
    model.load_state_dict(weights)
    # The weights are fixed for the task: a frozen trace (batch norm folded into the
    # convolutions, no per-module Python) plays 10-17% more positions per CPU second on 9x9
    # (measured: docs/training.md, "The Go learner").
    device = resolve_device(task.selfplay.device, "selfplay.device")
    network = NetworkEvaluator(
        model, device=str(device), traced=True, dtype=task.selfplay.inference_dtype)
    evaluator = InferencePipeline(network.infer)
    return play_games(game, evaluator, task.search, task.selfplay, task.n_games, rng)


def split_games(n_games: int, parts: int) -> list[int]:
    """Split games into ``parts`` near-equal positive counts (fewer parts if needed)."""
    parts = max(1, min(parts, n_games))
    base, extra = divmod(n_games, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]
