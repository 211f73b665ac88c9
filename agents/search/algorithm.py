"""What distinguishes one search algorithm from another, over the shared tree.

The tree (:mod:`agents.search.tree`) walks, expands, backs up and proves; an
:class:`Algorithm` answers three questions: which edge a descent takes at the root
(:meth:`~Algorithm.select_root`) and below it (:meth:`~Algorithm.select`), and what the search
says at the end (:meth:`~Algorithm.target`: the policy target, the root value, the move). One
instance per root, so per-root state (noise, the Gumbel schedule) lives on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.config import SearchConfig
from agents.search.node import Node


@dataclass
class Target:
    """An algorithm's answer at the root, over the root's edges (not the full action space)."""

    policy: np.ndarray  # the training target
    value: float  # for the player to move
    choice: int  # the edge played


class Algorithm:
    """Base class: the root noise every algorithm draws, and the visit-count target.

    ``virtual_loss``: whether a batch's descents mark the edges they took with a virtual loss
    so that the next ones spread (PUCT, UCT). Gumbel's root follows its sequential-halving
    schedule instead, counts its own in-flight descents (:meth:`backed_up`) and sends at most
    one descent a batch into each subtree: nothing to spread, so nothing is marked.
    """

    virtual_loss = True

    def __init__(self, cfg: SearchConfig, rng: np.random.Generator) -> None:
        self.cfg = cfg
        self.rng = rng
        self.gumbel: list[float] = []

    def prepare(self, root: Node) -> None:
        """Once the root is expanded. The base draws the root's Gumbel noise, which only
        Gumbel uses: the single-class search drew it for every algorithm (whenever
        ``gumbel_scale > 0``), and a seed must keep giving the same games."""
        k = len(root.actions)
        if self.cfg.gumbel_scale > 0:
            self.gumbel = (self.rng.gumbel(size=k) * self.cfg.gumbel_scale).tolist()
        else:
            self.gumbel = [0.0] * k

    def select_root(self, root: Node, sim: int) -> int:
        """The root edge of simulation ``sim``; the interior rule unless overridden."""
        return self.select(root)

    def batch_size(self, sim: int, count: int) -> int:
        """How many of the ``count`` descents that the batch allows, from simulation ``sim``
        on, go down together; all of them unless overridden."""
        return count

    def cut_picks(self, sim: int, count: int) -> int:
        """How many descents, from simulation ``sim`` on, choose one after the other on the
        statistics each leaves (Gumbel's cutting rounds), so that only predicted ones can go
        down together (``SearchConfig.prefetch_cuts``); 0: none."""
        return 0

    def ranked_root(self, root: Node, sim: int, count: int) -> list[int]:
        """The root edges the next ``count`` descents are predicted to take (with
        :meth:`cut_picks`)."""
        raise NotImplementedError

    def select(self, node: Node) -> int:
        """The edge a descent takes at an expanded interior node."""
        raise NotImplementedError

    def backed_up(self, i: int) -> None:
        """A descent through root edge ``i`` has been backed up."""

    def target(self, root: Node) -> Target:
        raise NotImplementedError

    def visit_target(self, root: Node, trained: np.ndarray | None = None) -> Target:
        """AlphaZero's answer: the visit distribution (or ``trained``, visit counts the
        algorithm kept for the target), the mean value, the most visited move (ties by Q,
        then at random) or one sampled from the visits at the configured temperature."""
        cfg, rng = self.cfg, self.rng
        n = root.N
        total = root.total
        dist = n / total if total > 0 else root.prior
        policy = trained / trained.sum() if trained is not None else dist
        if cfg.temperature > 0:
            i = sample(dist, cfg.temperature, rng)
        elif total > 0:
            i = argmax_random_ties(n + 1e-3 * (np.asarray(root.q()) + 1.0), rng)
        else:
            i = argmax_random_ties(root.prior, rng)
        value = sum(root.W.tolist()) / total if total > 0 else root.raw_value
        return Target(policy, float(value), i)


def sample(p: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """An index drawn with probability ``p ** (1 / temperature)`` (normalised)."""
    logp = np.log(np.maximum(p, 1e-30)) / temperature
    w = np.exp(logp - logp.max())
    return int(rng.choice(len(w), p=w / w.sum()))


def argmax_random_ties(score: np.ndarray, rng: np.random.Generator) -> int:
    best = np.flatnonzero(score >= score.max() - 1e-12)
    return int(best[rng.integers(len(best))]) if len(best) > 1 else int(best[0])
