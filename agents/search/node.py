"""The tree's node: a state with per-edge statistics over its legal actions."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core import Game

_NO_COUNTS = np.zeros(0, dtype=np.int64)
_NO_FLOATS = np.zeros(0, dtype=np.float64)


class Node:
    """A state in the tree with its per-edge statistics over the legal actions only.

    ``W[i]`` sums the values, for ``player`` (the one acting here), of the simulations through
    legal action ``actions[i]``; ``N[i]`` counts them. The statistics, priors and logits are
    NumPy arrays because the selection rules that read them at every level of every descent
    are compiled (:mod:`agents.search.kernels`: profiled, they were the search's own largest
    cost as Python loops); ``actions`` stays a list of ints for the engines. While a batch of
    descents is in flight, ``N`` and ``W`` include their virtual losses
    (:mod:`agents.search.tree`).
    """

    __slots__ = (
        "state",
        "terminal",
        "player",
        "actions",
        "prior",
        "logits",
        "N",
        "W",
        "children",
        "raw_value",
        "expanded",
        "total",
        "proven",
        "_exp_sum",
    )

    def __init__(self, game: Game, state: Any) -> None:
        self.state = state
        self.terminal = game.is_terminal(state)
        self.player = -1 if self.terminal else game.to_play(state)
        self.expanded = False
        self.actions: list[int] = []
        self.prior = _NO_FLOATS
        self.logits = _NO_FLOATS
        self.N = _NO_COUNTS
        self.W = _NO_FLOATS
        self.children: list[Node | None] = []
        self.raw_value = 0.0
        self.total = 0  # simulations through this node's edges (sum of N)
        # Exact per-player values once known (MCTS-Solver): the terminal utility, or the
        # minimax of proven children.
        self.proven: list[float] | None = (
            [float(x) for x in game.utility(state)] if self.terminal else None
        )
        self._exp_sum = -1.0  # see :meth:`exp_sum`

    def expand(
        self,
        game: Game,
        prior_full: np.ndarray,
        value: float,
        temperature: float = 1.0,
        allowed: np.ndarray | None = None,
    ) -> None:
        """Create the edges: every legal action, or those of them that ``allowed`` keeps
        (when it keeps any)."""
        actions = (game.legal_actions(self.state) if allowed is None  # sorted, as the mask's
                   else np.flatnonzero(restrict_mask(game.legal_mask(self.state), allowed)))
        p = prior_full[actions].astype(np.float64)
        if temperature != 1.0:
            p = np.power(p, 1.0 / temperature)
        total = p.sum()
        p = p / total if total > 0 else np.full(len(p), 1.0 / max(len(p), 1))
        k = len(p)
        self.actions = actions.tolist()
        self.prior = p
        self.logits = np.log(p + 1e-12)
        self.N = np.zeros(k, dtype=np.int64)
        self.W = np.zeros(k, dtype=np.float64)
        self.children = [None] * k
        self.raw_value = float(value)
        self.expanded = True

    def exp_sum(self) -> float:
        """``sum(exp(logit))`` over all edges, which the Gumbel interior rule needs to treat
        every unvisited edge at once (they share one completed value). Computed on the first
        ask: most expanded nodes are never selected from."""
        if self._exp_sum < 0.0:
            self._exp_sum = float(np.exp(self.logits).sum())
        return self._exp_sum

    def count_visit(self, i: int) -> None:
        """One more simulation through edge ``i`` (its value is added by the caller)."""
        self.N[i] += 1
        self.total += 1

    def child(self, game: Game, i: int) -> Node:
        c = self.children[i]
        if c is None:
            c = Node(game, game.apply(self.state, self.actions[i]))
            self.children[i] = c
        return c

    def q(self) -> list[float]:
        """Mean value of each visited edge for this node's player (0 where unvisited)."""
        return [w / n if n else 0.0 for n, w in zip(self.N.tolist(), self.W.tolist())]


def restrict_mask(legal: np.ndarray, allowed: np.ndarray | None) -> np.ndarray:
    """The legal actions that ``allowed`` keeps; all of them when it keeps none (a rule for
    the players' choice never leaves a player without a move)."""
    if allowed is None:
        return legal
    kept = legal & allowed
    return kept if kept.any() else legal
