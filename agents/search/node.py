"""The tree's node: a state with per-edge statistics over its legal actions."""

from __future__ import annotations

from bisect import insort
from typing import Any

import numpy as np

from envs.core import Game


class Node:
    """A state in the tree with its per-edge statistics over the legal actions only.

    ``W[i]`` sums the values, for ``player`` (the one acting here), of the simulations through
    legal action ``actions[i]``; ``N[i]`` counts them. Statistics are plain Python lists: nodes
    have few edges, and for short vectors list arithmetic is several times faster than numpy's
    per-call overhead (profiled: the selection rule dominates the search's own cost). While a
    batch of descents is in flight, ``N`` and ``W`` include their virtual losses
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
        "_by_prior",
        "_exp_sum",
        "visited",
    )

    def __init__(self, game: Game, state: Any) -> None:
        self.state = state
        self.terminal = game.is_terminal(state)
        self.player = -1 if self.terminal else game.to_play(state)
        self.expanded = False
        self.actions: list[int] = []
        self.prior: list[float] = []
        self.logits: list[float] = []
        self.N: list[int] = []
        self.W: list[float] = []
        # The edges with N > 0, ascending: kept by the tree as visits arrive (see
        # :meth:`count_visit`), so the Gumbel rule need not scan every edge for them.
        self.visited: list[int] = []
        self.children: list[Node | None] = []
        self.raw_value = 0.0
        self.total = 0  # simulations through this node's edges (sum of N)
        # Exact per-player values once known (MCTS-Solver): the terminal utility, or the
        # minimax of proven children.
        self.proven: list[float] | None = (
            [float(x) for x in game.utility(state)] if self.terminal else None
        )
        self._by_prior: list[int] | None = None  # see :meth:`by_prior`
        self._exp_sum = 0.0

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
        self.prior = p.tolist()
        self.logits = np.log(p + 1e-12).tolist()
        self.N = [0] * k
        self.visited = []
        self.W = [0.0] * k
        self.children = [None] * k
        self.raw_value = float(value)
        self.expanded = True

    def by_prior(self) -> tuple[list[int], float]:
        """The edges by decreasing logit (the lower index first among equals), and the sum of
        ``exp(logit)`` over all edges: what the Gumbel interior rule needs to treat every
        unvisited edge at once (they share one completed value). Computed on the first ask:
        most expanded nodes are never selected from."""
        if self._by_prior is None:
            logits = self.logits
            self._by_prior = sorted(range(len(logits)), key=logits.__getitem__, reverse=True)
            self._exp_sum = float(np.exp(np.asarray(logits)).sum())
        return self._by_prior, self._exp_sum

    def count_visit(self, i: int) -> None:
        """One more simulation through edge ``i`` (its value is added by the caller)."""
        if not self.N[i]:
            insort(self.visited, i)
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
        return [w / n if n else 0.0 for n, w in zip(self.N, self.W)]


def restrict_mask(legal: np.ndarray, allowed: np.ndarray | None) -> np.ndarray:
    """The legal actions that ``allowed`` keeps; all of them when it keeps none (a rule for
    the players' choice never leaves a player without a move)."""
    if allowed is None:
        return legal
    kept = legal & allowed
    return kept if kept.any() else legal
