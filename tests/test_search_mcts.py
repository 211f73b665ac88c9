"""The search on solved positions: tiny hand-made games (brute-forced here) and Jiugong.

``ChainNim`` is a take-away game where taking two stones keeps the turn, so the same player
often acts several times in a row: a search that assumed alternation (negating values at every
ply) picks losing moves there. Its exact values come from a deliberately simple minimax over
returns per player, written in this file independently of the search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import pytest

from agents.config import SearchConfig
from agents.evaluator import RolloutEvaluator, RolloutMixEvaluator, UniformEvaluator
from agents.search import considered_visit_sequence, search
from envs import make_game
from envs.core import Game, GameSpec, IllegalMove, InvalidState
from envs.jiugong_solver import LOSS, WIN, get_solver

# ---------------------------------------------------------------------------- a tiny game


@dataclass(frozen=True)
class NimState:
    stones: int
    to_play: int
    last_taker: int = -1


class ChainNim(Game[NimState]):
    """Take 1, 2 or 3 stones; taking exactly 2 keeps the turn; taking the last stone wins."""

    @dataclass(frozen=True)
    class Config:
        stones: int = 7

    _spec = GameSpec("chainnim", "Chain Nim", ("first", "second"), 3, (2,), 64)

    @property
    def spec(self) -> GameSpec:
        return self._spec

    def initial_state(self) -> NimState:
        return NimState(self.config.stones, 0)

    def to_play(self, state: NimState) -> int:
        return state.to_play

    def legal_mask(self, state: NimState) -> np.ndarray:
        return np.array([state.stones >= k for k in (1, 2, 3)], dtype=bool)

    def apply(self, state: NimState, action: int) -> NimState:
        action = self.check_action(state, action)
        take = action + 1
        nxt = state.to_play if take == 2 else 1 - state.to_play
        return NimState(state.stones - take, nxt, state.to_play)

    def is_terminal(self, state: NimState) -> bool:
        return state.stones == 0

    def returns(self, state: NimState) -> np.ndarray:
        r = np.zeros(2, dtype=np.float32)
        if state.stones == 0:
            r[state.last_taker], r[1 - state.last_taker] = 1.0, -1.0
        return r

    def observation(self, state: NimState) -> np.ndarray:
        return np.array([state.stones, state.to_play], dtype=np.float32)

    def action_to_move(self, state: NimState, action: int) -> str:
        return f"take{int(action) + 1}"

    def move_to_action(self, state: NimState, move: str) -> int:
        if move not in ("take1", "take2", "take3"):
            raise IllegalMove(move, "takeN with N in 1..3")
        return self.check_action(state, int(move[4]) - 1)

    def to_json(self, state: NimState) -> dict[str, Any]:
        return {"stones": state.stones, "to_play": state.to_play, "last": state.last_taker}

    def from_json(self, data: Any) -> NimState:
        try:
            return NimState(int(data["stones"]), int(data["to_play"]), int(data["last"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidState(str(exc)) from None


@lru_cache(maxsize=None)
def nim_value(stones: int, to_play: int) -> float:
    """Exact result for the player to move (brute-force minimax over per-player returns)."""
    best = -1.0
    for take in (1, 2, 3):
        if take > stones:
            break
        if take == stones:
            return 1.0
        nxt = to_play if take == 2 else 1 - to_play
        v = nim_value(stones - take, nxt)
        best = max(best, v if nxt == to_play else -v)
    return best


def nim_winning_actions(stones: int, to_play: int) -> list[int]:
    out = []
    for take in (1, 2, 3):
        if take > stones:
            break
        if take == stones:
            out.append(take - 1)
            continue
        nxt = to_play if take == 2 else 1 - to_play
        v = nim_value(stones - take, nxt)
        if (v if nxt == to_play else -v) > 0:
            out.append(take - 1)
    return out


def test_chain_nim_reference_values() -> None:
    # Hand-checked: 1 stone: take it. 4: take 2 (keep the turn, 2 left, take them).
    assert nim_winning_actions(1, 0) == [0]
    assert nim_winning_actions(3, 0) == [1, 2]  # take 2 keeps the turn, then take 1
    assert nim_winning_actions(4, 0) == [1]
    # The alternation-assuming answer differs somewhere: the game really tests repeated turns.
    alternating = {n: (n % 4 != 0) for n in range(1, 13)}
    assert any((nim_value(n, 0) > 0) != alternating[n] for n in range(1, 13))


# Each search also with 8 leaves a network call (SearchConfig.batch): batches must not cost
# the solved positions below.
ALGOS = [
    SearchConfig(algorithm="gumbel", simulations=200, gumbel_scale=0.0, batch=batch)
    for batch in (1, 8)
] + [SearchConfig(algorithm="puct", simulations=300, c_puct=1.5, batch=batch) for batch in (1, 8)]
ALGO_IDS = ["gumbel", "gumbel-batch8", "puct", "puct-batch8"]


@pytest.mark.parametrize("cfg", ALGOS, ids=ALGO_IDS)
def test_search_matches_brute_force_on_chain_nim(cfg: SearchConfig) -> None:
    """Uniform evaluator, many simulations: in every winning position a winning move.

    Small positions only (up to 9 stones, trees up to 9 plies deep): with a uniform evaluator
    and this budget, deeper ones are beyond reach, as expected of a search with no knowledge.
    """
    rng = np.random.default_rng(0)
    checked = 0
    for stones in range(1, 10):
        game = ChainNim(ChainNim.Config(stones=stones))
        state = game.initial_state()
        winners = nim_winning_actions(stones, 0)
        res = search(game, [state], UniformEvaluator(), cfg, rng)[0]
        if winners:
            assert res.action in winners, (stones, res.action, winners)
            assert res.q[res.action] > 0
            checked += 1
    assert checked >= 6


def test_repeated_turns_value_sign() -> None:
    """Taking 2 of 4 keeps the turn: the child after 'take2' is good for the *same* player."""
    game = ChainNim(ChainNim.Config(stones=4))
    res = search(
        game, [game.initial_state()], UniformEvaluator(), ALGOS[0], np.random.default_rng(1)
    )[0]
    assert res.action == 1
    # take2 then take2 is a sure win for the *same* player: Q near +1 (the first visit of the
    # child counts the uniform evaluator's 0), far above the alternatives.
    assert res.q[1] > 0.9
    assert res.q[1] > max(res.q[0], res.q[2]) + 0.5


# ---------------------------------------------------------------------------- Jiugong


def _jiugong_positions(outcome: int, max_distance: int, count: int) -> list:
    solver = get_solver()
    out = []
    for s in solver.positions():
        v = solver.value(s)
        if v.outcome == outcome and v.distance is not None and 1 <= v.distance <= max_distance:
            out.append(s)
    rng = np.random.default_rng(7)
    idx = rng.choice(len(out), size=min(count, len(out)), replace=False)
    return [out[i] for i in sorted(idx)]


@pytest.mark.parametrize("cfg", ALGOS, ids=ALGO_IDS)
def test_search_finds_forced_wins_in_jiugong(cfg: SearchConfig) -> None:
    """Won positions (win in 1 or 3 plies): the uniform-prior search keeps the win."""
    solver = get_solver()
    game = make_game("jiugong")
    states = _jiugong_positions(WIN, 3, 40)
    results = search(game, states, UniformEvaluator(), cfg, np.random.default_rng(2))
    for s, r in zip(states, results):
        assert r.action in solver.preserving_actions(s), game.render(s)


@pytest.mark.parametrize("cfg", ALGOS, ids=ALGO_IDS)
def test_search_avoids_forced_losses_in_jiugong(cfg: SearchConfig) -> None:
    """Positions where some moves lose quickly and another one does not: never a losing one."""
    solver = get_solver()
    game = make_game("jiugong")
    candidates = []
    for s in solver.positions():
        if game.is_terminal(s):
            continue
        mv = solver.move_values(s)
        quick_losses = [a for a, v in mv.items() if v.outcome == LOSS and v.distance <= 3]
        safe = solver.preserving_actions(s)
        if quick_losses and safe and solver.value(s).outcome != LOSS:
            candidates.append(s)
    assert len(candidates) > 50
    rng = np.random.default_rng(3)
    states = [candidates[i] for i in rng.choice(len(candidates), 40, replace=False)]
    results = search(game, states, UniformEvaluator(), cfg, rng)
    for s, r in zip(states, results):
        assert solver.move_values(s)[r.action].outcome != LOSS, game.render(s)


@pytest.mark.parametrize("batch", [1, 8])
@pytest.mark.parametrize("algorithm", ["puct", "uct"])
def test_pure_mcts_with_rollouts_wins_a_won_position(algorithm: str, batch: int) -> None:
    solver = get_solver()
    game = make_game("jiugong")
    states = _jiugong_positions(WIN, 1, 10)
    rng = np.random.default_rng(4)
    cfg = SearchConfig(algorithm=algorithm, simulations=60, batch=batch)
    results = search(game, states, RolloutEvaluator(rng, max_plies=50), cfg, rng)
    for s, r in zip(states, results):
        assert solver.move_values(s)[r.action].outcome == WIN


def test_uct_tries_every_move_once_before_any_twice() -> None:
    """Unlike PUCT over uniform priors (whose exploration shrinks with 1/|A|), UCT's first
    |A| root visits go one to each move, in random order: no chain of first-tried moves."""
    game = make_game("stereo_go", board="9x9")
    state = game.initial_state()
    k = int(game.legal_mask(state).sum())
    for seed in range(2):
        rng = np.random.default_rng(seed)
        cfg = SearchConfig(algorithm="uct", simulations=k, solver=False)
        (r,) = search(game, [state], RolloutEvaluator(rng), cfg, rng)
        assert r.simulations == k and sorted(r.visits[r.visits > 0].tolist()) == [1] * k
        cfg = SearchConfig(algorithm="uct", simulations=2 * k, solver=False)
        (r,) = search(game, [state], RolloutEvaluator(rng), cfg, rng)
        assert r.visits.max() >= 2 and r.visits[game.legal_mask(state)].min() >= 1
    deep = SearchConfig(algorithm="puct", simulations=k, solver=False)
    (r,) = search(game, [state], RolloutEvaluator(np.random.default_rng(0)), deep,
                  np.random.default_rng(0))
    assert (r.visits > 0).sum() < k  # PUCT over uniform priors re-visits before trying all


def test_uct_then_takes_the_best_mean_plus_exploration() -> None:
    from types import SimpleNamespace

    from agents.search.uct import uct_choice

    node = SimpleNamespace(N=np.array([4, 1, 4]), W=np.array([2.0, -0.5, 3.0]), total=9)
    c = 2.0
    scores = [w / n + c * math.sqrt(math.log(9) / n) for n, w in zip(node.N, node.W)]
    assert uct_choice(node, c, np.random.default_rng(0)) == int(np.argmax(scores)) == 1
    assert uct_choice(node, 0.0, np.random.default_rng(0)) == 2  # no exploration: the best mean
    node.N[0] = 0
    assert uct_choice(node, c, np.random.default_rng(0)) == 0  # an untried move first


@dataclass(frozen=True)
class MarginNimState(NimState):
    last_take: int = 0


class MarginNim(ChainNim):
    """Chain Nim whose utility values a win by the last take: one stone is a full win, more
    stones a narrow one (as a TriGolden game's margin differs from its result)."""

    def initial_state(self) -> MarginNimState:
        return MarginNimState(self.config.stones, 0)

    def apply(self, state: NimState, action: int) -> MarginNimState:
        nxt = super().apply(state, action)
        return MarginNimState(nxt.stones, nxt.to_play, nxt.last_taker, int(action) + 1)

    def utility(self, state: MarginNimState) -> np.ndarray:
        r = self.returns(state)
        return r if state.last_take == 1 else 0.3 * r


@pytest.mark.parametrize(
    "cfg",
    [
        SearchConfig(algorithm="puct", simulations=50),
        SearchConfig(algorithm="gumbel", simulations=50, max_considered=3, gumbel_scale=0.0),
    ],
)
def test_search_maximises_the_utility_not_the_result(cfg: SearchConfig) -> None:
    """From 3 stones both take3 (at once) and take2 then take1 win; only the second is a full
    win by the utility, and the search (terminal values and the solver) must prefer it."""
    game = MarginNim(MarginNim.Config(stones=3))
    state = game.initial_state()
    rng = np.random.default_rng(0)
    res = search(game, [state], UniformEvaluator(), cfg, rng)[0]
    assert res.action == 1  # take2, keeping the turn
    # Random playouts return the utility too.
    after = game.apply(game.apply(state, 1), 0)
    assert list(game.random_playout(after, rng, 10)) == [1.0, -1.0]
    assert list(game.random_playout(game.apply(state, 2), rng, 10)) == pytest.approx([0.3, -0.3])


# ---------------------------------------------------------------------------- mechanics


def test_batched_search_equals_one_by_one() -> None:
    """Batching changes nothing but speed (deterministic settings, same evaluator)."""
    game = make_game("jiugong")
    states = _jiugong_positions(WIN, 9, 6) + _jiugong_positions(LOSS, 8, 4)
    cfg = SearchConfig(simulations=24, gumbel_scale=0.0)
    batched = search(game, states, UniformEvaluator(), cfg, np.random.default_rng(0))
    for s, b in zip(states, batched):
        single = search(game, [s], UniformEvaluator(), cfg, np.random.default_rng(0))[0]
        np.testing.assert_allclose(single.policy, b.policy)
        np.testing.assert_array_equal(single.visits, b.visits)


def test_policy_target_is_a_distribution_over_legal_actions() -> None:
    game = make_game("jiugong")
    s = game.initial_state()
    for cfg in (SearchConfig(simulations=8), SearchConfig(algorithm="puct", simulations=8)):
        r = search(game, [s], UniformEvaluator(), cfg, np.random.default_rng(0))[0]
        assert r.policy.sum() == pytest.approx(1.0, abs=1e-5)
        assert np.all(r.policy[~game.legal_mask(s)] == 0)
        assert r.visits.sum() == 8
        assert game.legal_mask(s)[r.action]


def test_root_masks_keep_the_root_to_the_allowed_actions() -> None:
    game = make_game("jiugong")
    s = game.initial_state()
    legal = np.flatnonzero(game.legal_mask(s))
    allowed = np.zeros(game.spec.num_actions, dtype=bool)
    allowed[legal[1:]] = True  # all but the first
    for cfg in (SearchConfig(simulations=8), SearchConfig(algorithm="puct", simulations=8)):
        free, kept = search(
            game, [s, s], UniformEvaluator(), cfg, np.random.default_rng(0),
            root_masks=[None, allowed],
        )
        assert free.policy[legal[0]] > 0
        assert kept.policy[legal[0]] == 0 and kept.visits[legal[0]] == 0
        assert kept.policy.sum() == pytest.approx(1.0, abs=1e-5)
        assert kept.action in legal[1:]
    # A mask that keeps no legal action restricts nothing: a player always has a move.
    none_legal = ~game.legal_mask(s)
    r = search(game, [s], UniformEvaluator(), SearchConfig(simulations=8),
               np.random.default_rng(0), root_masks=[none_legal])[0]
    assert np.count_nonzero(r.policy) == len(legal)
    with pytest.raises(ValueError, match="root masks"):
        search(game, [s], UniformEvaluator(), SearchConfig(), np.random.default_rng(0),
               root_masks=[None, None])


def test_zero_simulations_follow_the_prior() -> None:
    game = make_game("jiugong")
    s = game.initial_state()

    class Peaked:
        def evaluate(self, game, states):
            p = np.zeros((len(states), game.spec.num_actions), dtype=np.float32)
            for k, st in enumerate(states):
                legal = np.flatnonzero(game.legal_mask(st))
                p[k, legal] = 0.1
                p[k, legal[-1]] = 1.0
            p /= p.sum(axis=1, keepdims=True)
            return p, np.zeros(len(states), dtype=np.float32)

    r = search(
        game, [s], Peaked(), SearchConfig(simulations=0, gumbel_scale=0.0), np.random.default_rng(0)
    )[0]
    assert r.action == int(np.flatnonzero(game.legal_mask(s))[-1])


def test_sequential_halving_schedule() -> None:
    # mctx's schedule for 4 considered actions and 16 simulations.
    seq = considered_visit_sequence(4, 16)
    assert seq[:4] == (0, 0, 0, 0)
    assert len(seq) == 16
    assert considered_visit_sequence(1, 3) == (0, 1, 2)
    # Every action of the first phase is visited equally before the next phase starts.
    assert sorted(seq[:8]) == [0, 0, 0, 0, 1, 1, 1, 1]


def test_search_refuses_terminal_states() -> None:
    game = ChainNim(ChainNim.Config(stones=1))
    end = game.apply(game.initial_state(), 0)
    with pytest.raises(ValueError, match="terminal"):
        search(game, [end], UniformEvaluator(), SearchConfig(), np.random.default_rng(0))


class _Liar:
    """An adversarial evaluator: prior and value both point the wrong way."""

    def __init__(self, solver) -> None:
        self.solver = solver

    def evaluate(self, game, states):
        p = np.zeros((len(states), game.spec.num_actions), dtype=np.float32)
        v = np.zeros(len(states), dtype=np.float32)
        for k, st in enumerate(states):
            mv = self.solver.move_values(st)
            for a, val in mv.items():
                p[k, a] = 1.0 if val.outcome == LOSS else 0.01
            p[k] /= p[k].sum()
            v[k] = -0.9 * self.solver.value(st).outcome
        return p, v


def test_proven_wins_override_a_lying_evaluator() -> None:
    """MCTS-Solver with one-ply lookahead: exact win/loss proofs propagate up the tree, so a
    forced win in 3 plies is played even when the evaluator's prior and value both point at
    the loss."""
    solver = get_solver()
    game = make_game("jiugong")
    states = _jiugong_positions(WIN, 3, 25)
    cfg = SearchConfig(simulations=300, gumbel_scale=0.0, terminal_lookahead=True)
    results = search(game, states, _Liar(solver), cfg, np.random.default_rng(9))
    for s, r in zip(states, results):
        assert solver.move_values(s)[r.action].outcome == WIN, game.render(s)
        assert r.q[r.action] == pytest.approx(1.0)  # the edge holds the exact, proven value


class _Blind:
    """A confident but wrong network: the winning moves get almost no prior, values say draw."""

    def __init__(self, solver) -> None:
        self.solver = solver

    def evaluate(self, game, states):
        p = np.zeros((len(states), game.spec.num_actions), dtype=np.float32)
        for k, st in enumerate(states):
            for a, val in self.solver.move_values(st).items():
                p[k, a] = 0.01 if val.outcome == WIN else 1.0
            p[k] /= p[k].sum()
        return p, np.zeros(len(states), dtype=np.float32)


def test_policy_temperature_lets_the_search_find_what_the_prior_rules_out() -> None:
    """PUCT follows a near-zero prior blindly; a policy temperature above 1 flattens the
    priors inside the search, so the winning line gets visits and the solver proves it."""
    solver = get_solver()
    game = make_game("jiugong")
    states = _jiugong_positions(WIN, 3, 30)
    kept = {}
    for t in (1.0, 3.0):
        cfg = SearchConfig(
            algorithm="puct", simulations=200, policy_temperature=t, terminal_lookahead=True
        )
        results = search(game, states, _Blind(solver), cfg, np.random.default_rng(4))
        kept[t] = sum(r.action in solver.preserving_actions(s) for s, r in zip(states, results))
    assert kept[3.0] == len(states)
    assert kept[1.0] < len(states) // 2


def test_rollout_mix_blends_the_value_with_a_playout() -> None:
    """RolloutMixEvaluator keeps the inner priors and returns (1 - m) v + m z, z the result of
    one random playout (the same playout a RolloutEvaluator with the same rng plays)."""
    game = make_game("jiugong")
    states = _jiugong_positions(WIN, 1, 6) + _jiugong_positions(WIN, 5, 6)
    inner = UniformEvaluator()
    priors, values = inner.evaluate(game, states)
    _, z = RolloutEvaluator(np.random.default_rng(3), max_plies=40).evaluate(game, states)
    mixed = RolloutMixEvaluator(inner, 0.25, np.random.default_rng(3), max_plies=40)
    got_p, got_v = mixed.evaluate(game, states)
    np.testing.assert_array_equal(got_p, priors)
    np.testing.assert_allclose(got_v, 0.75 * values + 0.25 * z, atol=1e-6)
    with pytest.raises(ValueError):
        RolloutMixEvaluator(inner, 1.5, np.random.default_rng(0))


def test_search_values_come_from_the_playouts_with_rollout_mix() -> None:
    """Fang Qi's opening, a few simulations from any end: with an evaluator that says "draw"
    everywhere the search values are exactly 0; with rollout_mix = 1 they are the playouts'."""
    game = make_game("fangqi")
    rng = np.random.default_rng(5)
    states = [game.initial_state()]
    for _ in range(7):
        states.append(game.apply(states[-1], int(rng.choice(game.legal_actions(states[-1])))))
    plain = SearchConfig(algorithm="puct", simulations=4, solver=False)
    mixed = plain.model_copy(update={"rollout_mix": 1.0})
    assert all(r.value == 0.0 for r in search(game, states, UniformEvaluator(), plain, rng))
    values = [r.value for r in search(game, states, UniformEvaluator(), mixed, rng)]
    assert any(v != 0.0 for v in values) and all(-1.0 <= v <= 1.0 for v in values)


class _OneStrongMove:
    """Priors 0.05 / 0.9 / 0.05 over Chain Nim's three takes and values from the stone count
    (0.8 for the first player where it is a multiple of 3, else -0.2): plain PUCT never tries
    the two 5% moves in 200 simulations."""

    def evaluate(self, game: Game, states: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        p = np.tile(np.array([0.05, 0.9, 0.05], dtype=np.float32), (len(states), 1))
        first = np.array([0.8 if s.stones % 3 == 0 else -0.2 for s in states])
        mover = np.array([s.to_play for s in states])
        return p, np.where(mover == 0, first, -first).astype(np.float32)


def test_forced_playouts_give_each_root_child_sqrt_k_p_n_visits() -> None:
    game = ChainNim(ChainNim.Config(stones=40))
    state = game.initial_state()
    plain = SearchConfig(algorithm="puct", simulations=200, solver=False)
    forced = plain.model_copy(update={"forced_playouts": 2.0})
    (without,) = search(game, [state], _OneStrongMove(), plain, np.random.default_rng(0))
    (with_forced,) = search(game, [state], _OneStrongMove(), forced, np.random.default_rng(0))
    assert without.visits[0] == without.visits[2] == 0
    total = with_forced.simulations
    for a, p in enumerate((0.05, 0.9, 0.05)):
        assert with_forced.visits[a] >= math.floor(math.sqrt(2.0 * p * (total - 1)))


def test_policy_target_pruning_takes_the_forced_visits_back() -> None:
    """The forced moves did not turn out good: the target drops them (a child left with one
    visit or none goes), keeps the best child's visits and never adds any; without forced
    playouts the target is the visit distribution."""
    game = ChainNim(ChainNim.Config(stones=40))
    state = game.initial_state()
    cfg = SearchConfig(algorithm="puct", simulations=200, solver=False, forced_playouts=2.0)
    (res,) = search(game, [state], _OneStrongMove(), cfg, np.random.default_rng(0))
    assert res.visits[0] > 0 and res.visits[2] > 0
    assert res.policy[0] == res.policy[2] == 0 and res.policy[1] == pytest.approx(1.0)
    plain = cfg.model_copy(update={"forced_playouts": 0.0})
    (res0,) = search(game, [state], _SkewedPrior(), plain, np.random.default_rng(1))
    np.testing.assert_allclose(res0.policy, res0.visits / res0.visits.sum(), rtol=1e-6)
    (res1,) = search(game, [state], _SkewedPrior(), cfg, np.random.default_rng(1))
    visits = res1.visits.astype(np.float64)
    target = res1.policy / res1.policy.max() * visits.max()
    assert np.all(target <= visits + 1e-4) and np.all((target < 1e-6) | (target > 1 - 1e-4))


class _SkewedPrior:
    """Priors 0.7 / 0.2 / 0.1, value 0 everywhere: visits follow the prior."""

    def evaluate(self, game: Game, states: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        p = np.tile(np.array([0.7, 0.2, 0.1], dtype=np.float32), (len(states), 1))
        return p, np.zeros(len(states), dtype=np.float32)
