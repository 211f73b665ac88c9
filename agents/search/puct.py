"""AlphaZero's PUCT, with Dirichlet noise, KataGo's forced playouts and policy target pruning.

Target = the visit counts (pruned of the forced playouts when they are on).
"""

from __future__ import annotations

import math

import numpy as np

from agents.config import SearchConfig
from agents.search import kernels
from agents.search.algorithm import Algorithm, Target
from agents.search.node import Node


def puct_choice(node: Node, cfg: SearchConfig, prior: np.ndarray) -> int:
    """argmax Q + c_puct * P * sqrt(N + 1) / (1 + n); unvisited edges: first-play urgency =
    the node's own value estimate (compiled: :func:`agents.search.kernels.puct_choice`)."""
    return kernels.puct_choice(node.N, node.W, prior, node.total, node.raw_value, cfg.c_puct)


class Puct(Algorithm):
    def prepare(self, root: Node) -> None:
        """Dirichlet noise on the root's priors (drawn before the base's Gumbel noise, as
        the single-class search did)."""
        cfg = self.cfg
        k = len(root.actions)
        self.root_prior = root.prior
        if cfg.dirichlet_fraction > 0 and k > 1:
            noise = self.rng.dirichlet([cfg.dirichlet_alpha] * k)
            f = cfg.dirichlet_fraction
            self.root_prior = np.array([(1 - f) * p + f * x
                                        for p, x in zip(root.prior.tolist(), noise)])
        super().prepare(root)

    def select_root(self, root: Node, sim: int) -> int:
        """PUCT at the root, after any forced playouts: the child furthest below its
        ``sqrt(k * P * N)`` visits (largest prior first) is taken before the PUCT rule."""
        cfg, prior = self.cfg, self.root_prior
        k = cfg.forced_playouts
        if k > 0 and root.total > 0:
            forced = [
                (p, i)
                for i, (p, n) in enumerate(zip(prior.tolist(), root.N.tolist()))
                if p > 0 and n < math.sqrt(k * p * root.total)
            ]
            if forced:
                return max(forced)[1]
        return puct_choice(root, cfg, prior)

    def select(self, node: Node) -> int:
        return puct_choice(node, self.cfg, node.prior)

    def target(self, root: Node) -> Target:
        if self.cfg.forced_playouts > 0 and root.total > 0:
            return self.visit_target(root, np.asarray(self._pruned_visits(root), np.float64))
        return self.visit_target(root)

    def _pruned_visits(self, root: Node) -> list[int]:
        """Policy target pruning (KataGo): take back from each child but the most visited
        up to its forced playouts, as long as its PUCT score stays below the best child's;
        a child left with one visit or none is dropped. The visits the search spent on
        trying a move do not teach the policy to play it."""
        cfg, prior = self.cfg, self.root_prior.tolist()
        visits = root.N.tolist()
        W = root.W.tolist()
        total = root.total
        best = max(range(len(visits)), key=lambda i: visits[i])
        sq = cfg.c_puct * math.sqrt(total + 1)
        best_score = W[best] / visits[best] + sq * prior[best] / (1 + visits[best])
        for i, n in enumerate(visits):
            if i == best or n == 0:
                continue
            q = W[i] / n
            if q >= best_score:
                continue  # it out-scores the best on value alone: keep every visit
            forced = math.sqrt(cfg.forced_playouts * prior[i] * total)
            # Fewest visits at which this child's score is still at most the best's.
            needed = math.ceil(sq * prior[i] / (best_score - q) - 1 - 1e-9)
            kept = min(n, max(math.ceil(n - forced), needed, 0))
            visits[i] = 0 if kept <= 1 else kept
        return visits
