"""Classical UCT (Kocsis & Szepesvari 2006), for pure MCTS over random playouts.

No priors to scale the exploration by: untried children first, in random order, then UCB1.
Target = the visit counts.
"""

from __future__ import annotations

import math

import numpy as np

from agents.search.algorithm import Algorithm, Target
from agents.search.node import Node


def uct_choice(node: Node, c: float, rng: np.random.Generator) -> int:
    """UCB1: a random untried child while there is one, else the best mean + exploration."""
    untried = [i for i, n in enumerate(node.N) if n == 0]
    if untried:
        return untried[int(rng.integers(len(untried)))] if len(untried) > 1 else untried[0]
    log_total = math.log(node.total)
    best, best_score = 0, -math.inf
    for i, (n, w) in enumerate(zip(node.N, node.W)):
        score = w / n + c * math.sqrt(log_total / n)
        if score > best_score:
            best, best_score = i, score
    return best


class Uct(Algorithm):
    def select(self, node: Node) -> int:
        return uct_choice(node, self.cfg.c_uct, self.rng)

    def target(self, root: Node) -> Target:
        return self.visit_target(root)
