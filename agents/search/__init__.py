"""Game-agnostic Monte Carlo tree search, batched across many games and inside each search.

One search over the Game protocol: the player to move comes from ``game.to_play(state)`` and
values are backed up per player; non-terminal leaves go to an
:class:`~agents.evaluator.Evaluator`. The modules:

* :mod:`~agents.search.node` (:class:`Node`) and :mod:`~agents.search.tree` (:class:`Tree`,
  :class:`SearchResult`): the one tree that every algorithm shares: descents, expansion,
  backup with virtual loss, MCTS-Solver proofs, the result.
* :mod:`~agents.search.kernels`: the interior selection rules (Gumbel's, PUCT, UCB1)
  compiled over a node's edge arrays, the search's hot spot.
* :mod:`~agents.search.algorithm`: what an algorithm supplies (root choice, interior
  choice, the policy target), one class each, picked from :data:`ALGORITHMS` by
  ``SearchConfig.algorithm``:

  * ``gumbel`` (default, :mod:`~agents.search.gumbel`): Gumbel AlphaZero; the completed Q and
    the improved policy live there, once.
  * ``puct`` (:mod:`~agents.search.puct`): AlphaZero's PUCT, Dirichlet noise, forced playouts.
  * ``uct`` (:mod:`~agents.search.uct`): classical UCT for pure MCTS over random playouts.

* :mod:`~agents.search.analysis`: one root searched under a budget of simulations or
  seconds, reporting its top moves, values and principal variations as it goes, stoppable at
  once (the service's analysis endpoint, GTP's ``lz-analyze``).

Batching: :func:`search` takes a list of states and steps every tree together: each step, every
tree sends ``SearchConfig.batch`` descents down (1 by default: the sequential search) and all
their leaves go to the evaluator in one call. Self-play workers search their whole batch of
games this way, each game by its own config (sampled or best move, full or fast search), and
so does the arena; a single search (a service's move) batches with ``batch > 1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.config import SearchConfig
from agents.evaluator import Evaluator, RolloutMixEvaluator
from agents.search.algorithm import Algorithm
from agents.search.gumbel import Gumbel, considered_visit_sequence
from agents.search.node import Node, restrict_mask
from agents.search.puct import Puct
from agents.search.tree import SearchResult, Tree
from agents.search.uct import Uct
from agents.symmetric import SymmetricEvaluator
from envs.core import Game

__all__ = [
    "ALGORITHMS",
    "Node",
    "SearchResult",
    "considered_visit_sequence",
    "leaf_evaluator",
    "restrict_mask",
    "search",
]

#: ``SearchConfig.algorithm`` -> the class that searches that way (one instance per root).
ALGORITHMS: dict[str, type[Algorithm]] = {"gumbel": Gumbel, "puct": Puct, "uct": Uct}


def leaf_evaluator(evaluator: Evaluator, cfg: SearchConfig,
                   rng: np.random.Generator) -> Evaluator:
    """What a search's leaves are worth: ``evaluator``'s answer, averaged over
    ``cfg.symmetries`` of the board's symmetries, then mixed with a random playout's result
    (``cfg.rollout_mix``)."""
    if cfg.symmetries > 1:
        evaluator = SymmetricEvaluator(evaluator, cfg.symmetries)
    if cfg.rollout_mix > 0.0:
        evaluator = RolloutMixEvaluator(evaluator, cfg.rollout_mix, rng, cfg.rollout_max_plies)
    return evaluator


def search(
    game: Game,
    states: Sequence[Any],
    evaluator: Evaluator,
    cfg: SearchConfig | Sequence[SearchConfig],
    rng: np.random.Generator,
    root_masks: Sequence[np.ndarray | None] | None = None,
) -> list[SearchResult]:
    """Search every (non-terminal) state in ``states`` together; one result per state.

    The leaves of all trees go to ``evaluator`` in one call per step, a step being
    ``cfg.batch`` simulations of every tree. ``cfg`` is one config for every state, or one
    per state (self-play searches its sampled and best moves, full and fast, in one call):
    each tree then searches by its own, and gives what it gives searched alone, but for the
    order in which the trees draw from ``rng`` (in the order of ``states``: each root's noise
    at the start, each move at the end). Settings that wrap the evaluator
    (``rollout_mix``, ``rollout_max_plies``, ``symmetries``: :func:`leaf_evaluator`) must be
    the same in all of them. ``root_masks``
    (one boolean mask or None per state) keeps each root to some of its legal actions, e.g.
    self-play's no-pass rule for the early game; the tree below is unchanged.
    """
    for s in states:
        if game.is_terminal(s):
            raise ValueError("cannot search a terminal state")
    masks = list(root_masks) if root_masks is not None else [None] * len(states)
    if len(masks) != len(states):
        raise ValueError(f"{len(masks)} root masks for {len(states)} states")
    cfgs = [cfg] * len(states) if isinstance(cfg, SearchConfig) else list(cfg)
    if len(cfgs) != len(states):
        raise ValueError(f"{len(cfgs)} search configs for {len(states)} states")
    if not cfgs:
        return []
    mix = {(c.rollout_mix, c.rollout_max_plies if c.rollout_mix > 0 else 0, c.symmetries)
           for c in cfgs}
    if len(mix) > 1:
        raise ValueError(f"one search call values its leaves one way, not {sorted(mix)}")
    evaluator = leaf_evaluator(evaluator, cfgs[0], rng)
    trees = [Tree(game, s, c, ALGORITHMS[c.algorithm](c, rng)) for s, c in zip(states, cfgs)]
    priors, values = evaluator.evaluate(game, [t.root.state for t in trees])
    for t, p, v, m in zip(trees, priors, values, masks):
        t.start(p, float(v), m)
    # Trees step together; with batches, one may need more steps than another (Gumbel's
    # phases depend on the number of root actions), and so may one of more simulations.
    while any(t.started < t.cfg.simulations for t in trees):
        pending = [t for t in trees if t.descend()]
        if pending:
            leaves = [leaf.state for t in pending for leaf in t.leaves]
            priors, values = evaluator.evaluate(game, leaves)
            k = 0
            for t in pending:
                n = len(t.leaves)
                t.finish(priors[k : k + n], values[k : k + n])
                k += n
    return [t.result() for t in trees]
