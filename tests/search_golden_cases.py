"""Fixed searches on fixed positions, and what the search gave on them before it was split into
one class per algorithm (tests/search_golden.json, recorded from the single-module search).

Why golden records: the restructured search, at ``batch = 1``, must make exactly the same
choices as the one it replaced (same visits, same policy target, same value, same move), on
every algorithm and every game; a golden file checks this float for float without keeping
the old code around. Record again only for a change that means to alter the search:

    python -m tests.search_golden_cases   # from the repository root: rewrites the file

The evaluator is a pure function of the state (a hash of its observation seeds the prior and
the value), so the records depend only on the search; UCT's rollouts and Gumbel's noise draw
from the seeded generator, so they check the order of the random draws too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import envs
from agents.config import SearchConfig
from agents.evaluator import RolloutEvaluator
from agents.search import SearchResult, search

GOLDEN = Path(__file__).with_name("search_golden.json")

# game id, options, plies of random play before each position, positions searched together
GAMES: dict[str, tuple[str, dict[str, Any], tuple[int, ...]]] = {
    "jiugong": ("jiugong", {}, (0, 3, 7)),
    "fangqi": ("fangqi", {}, (0, 5, 11)),
    "go5": ("stereo_go", {"board": "5x5"}, (0, 4, 9)),
    "go9": ("stereo_go", {"board": "9x9"}, (0, 6)),
    "trigolden": ("trigolden", {}, (0, 5)),
}

# The settings the shipped levels and self-play use, and the branches of each algorithm.
SEARCHES: dict[str, dict[str, Any]] = {
    "gumbel": {"algorithm": "gumbel", "simulations": 48, "gumbel_scale": 0.0},
    "gumbel-noise": {"algorithm": "gumbel", "simulations": 40, "max_considered": 8,
                     "gumbel_scale": 1.0, "temperature": 1.0},
    "gumbel-lookahead": {"algorithm": "gumbel", "simulations": 32, "gumbel_scale": 0.0,
                         "terminal_lookahead": True, "policy_temperature": 2.0},
    "puct": {"algorithm": "puct", "simulations": 48, "policy_temperature": 2.0},
    "puct-noise": {"algorithm": "puct", "simulations": 40, "dirichlet_fraction": 0.25,
                   "forced_playouts": 2.0, "temperature": 1.0},
    "uct": {"algorithm": "uct", "simulations": 40},
}


class HashEvaluator:
    """Priors and values that depend on the state alone (its observation's bytes, hashed):
    the same position gets the same answer whenever, and in whatever batch, it is asked."""

    def __init__(self) -> None:
        self.calls = 0
        self.states = 0

    def evaluate(self, game: envs.Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        self.states += len(states)
        priors = np.zeros((len(states), game.spec.num_actions), dtype=np.float32)
        values = np.zeros(len(states), dtype=np.float32)
        for b, state in enumerate(states):
            obs = np.ascontiguousarray(game.observation(state), dtype=np.float32)
            digest = hashlib.blake2b(obs.tobytes(), digest_size=8).digest()
            rng = np.random.default_rng(int.from_bytes(digest, "little"))
            legal = np.flatnonzero(game.legal_mask(state))
            logits = rng.normal(0.0, 1.5, len(legal))
            e = np.exp(logits - logits.max())
            priors[b, legal] = e / e.sum()
            values[b] = rng.uniform(-0.9, 0.9)
        return priors, values


def positions(case: str) -> tuple[envs.Game, list[Any]]:
    """The game and its fixed positions (random play from a fixed seed)."""
    game_id, options, plies = GAMES[case]
    game = envs.make_game(game_id, **options)
    rng = np.random.default_rng(11)
    out = []
    for n in plies:
        state = game.initial_state()
        for _ in range(n):
            legal = np.flatnonzero(game.legal_mask(state))
            nxt = game.apply(state, int(legal[rng.integers(len(legal))]))
            if game.is_terminal(nxt):
                break
            state = nxt
        out.append(state)
    return game, out


def run(case: str, name: str, batch: int | None = None) -> list[SearchResult]:
    """One search of the case's positions together (UCT: over random playouts)."""
    game, states = positions(case)
    settings = dict(SEARCHES[name])
    if batch is not None:
        settings["batch"] = batch
    cfg = SearchConfig.model_validate(settings)
    rng = np.random.default_rng(5)
    if cfg.algorithm == "uct":
        evaluator: Any = RolloutEvaluator(np.random.default_rng(6), max_plies=60)
    else:
        evaluator = HashEvaluator()
    return search(game, states, evaluator, cfg, rng)


def as_record(result: SearchResult) -> dict[str, Any]:
    """A result as JSON (floats by repr, so exact): the non-zero entries only."""
    return {
        "action": result.action,
        "visits": {str(a): int(result.visits[a]) for a in np.flatnonzero(result.visits)},
        "policy": {str(a): float(result.policy[a]) for a in np.flatnonzero(result.policy)},
        "q": {str(a): float(result.q[a]) for a in np.flatnonzero(result.q)},
        "value": float(result.value),
        "simulations": result.simulations,
    }


def record() -> dict[str, Any]:
    return {
        f"{case}/{name}": [as_record(r) for r in run(case, name)]
        for case in GAMES
        for name in SEARCHES
    }


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(record(), indent=0, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
