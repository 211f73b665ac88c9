"""Classical UCT (Kocsis & Szepesvari 2006), for pure MCTS over random playouts.

No priors to scale the exploration by: untried children first, in random order, then UCB1.
Target = the visit counts.
"""

from __future__ import annotations

import numpy as np

from agents.search.algorithm import Algorithm, Target
from agents.search.kernels import ucb1_choice
from agents.search.node import Node


def uct_choice(node: Node, c: float, rng: np.random.Generator) -> int:
    """UCB1: a random untried child while there is one, else the best mean + exploration
    (compiled: :func:`agents.search.kernels.ucb1_choice`)."""
    untried = np.flatnonzero(node.N == 0).tolist()
    if untried:
        return untried[int(rng.integers(len(untried)))] if len(untried) > 1 else untried[0]
    return ucb1_choice(node.N, node.W, node.total, c)


class Uct(Algorithm):
    def select(self, node: Node) -> int:
        return uct_choice(node, self.cfg.c_uct, self.rng)

    def target(self, root: Node) -> Target:
        return self.visit_target(root)
