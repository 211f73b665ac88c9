"""Gumbel AlphaZero (Danihelka et al., ICLR 2022): its math, once, and its algorithm.

At the root, Gumbel-top-k sampling of ``max_considered`` actions and sequential halving over
them; inside the tree the deterministic "match the improved policy" rule; the policy target is
the completed-Q improved policy ``softmax(logits + sigma(completed Q))``. It improves the policy
even with very few simulations, which is what cheap CPUs need. Constants follow DeepMind's
mctx.

The completed Q is computed in one place (:func:`completed_q_sparse`, dense in
:func:`completed_q`), and so are the mixed value that completes it (:func:`mixed_value`) and
the improved policy's softmax (:func:`improved_weights`).

Batches (``SearchConfig.batch > 1``): the simulations of a round of sequential halving (one
visit to each considered action) go down together, up to ``batch`` of them; a batch never
crosses the end of a round. The root counts its in-flight descents as visits, so each descent
takes the considered action the schedule gives it, and each root action's subtree gets at most
one descent a batch: no descent can meet another's, so none is marked with a virtual loss and
each subtree grows exactly as it does one descent at a time. A round visits every action with
the scheduled count, in whatever order, except the first round of a phase that keeps fewer
actions than the phase before: there each descent takes the best of the actions left as the
descents before it scored them (the halving's cut), so those rounds go one descent at a time
(:func:`rounds`; the very first round chooses too, among more actions than it considers, but
by gumbel + logits alone: the unvisited actions share one completed value). The batched search
is then the sequential one, float for float, given an evaluator that answers a state the same
alone or in a batch (tests/test_search_batch.py), but for a root proven in the middle of a
round (its move is the proof's either way). With ``SearchConfig.prefetch_cuts`` a cutting
round's next picks are predicted on the statistics of the moment and their descents sent down
early, each pick still made on the statistics the picks before it left
(:meth:`Gumbel.ranked_root`, ``Tree._descend_cut``; tests/test_search_prefetch.py): the same
search in fewer calls. A network's values move by ~1e-8 with the batch's
size, so the TriGolden-scoring master, batch 16, was checked in the arena (docs/training.md).
(Batching a whole phase, several descents into each subtree spread by virtual loss, cost
strength: Fang Qi's top level, 64 simulations, batch 16, scored 36% against itself at batch 1
over 40 games.)
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterator

import numpy as np

from agents.config import SearchConfig
from agents.search.algorithm import Algorithm, Target, argmax_random_ties, sample
from agents.search.kernels import gumbel_interior
from agents.search.node import Node


def _halving_phases(max_considered: int, simulations: int) -> Iterator[tuple[int, int]]:
    """``(considered actions, rounds)`` of each sequential-halving phase, as mctx lays out the
    budget: phases share it evenly; each round visits every considered action once."""
    log2max = int(math.ceil(math.log2(max_considered)))
    considered = max_considered
    laid = 0
    while laid < simulations:
        rounds = max(1, int(simulations / (log2max * considered)))
        yield considered, rounds
        laid += considered * rounds
        considered = max(2, considered // 2)


def considered_visit_sequence(max_considered: int, simulations: int) -> tuple[int, ...]:
    """The visit count that the root action of each simulation must have (mctx's schedule).

    Sequential halving: every considered action is visited equally within a phase, then the
    worse half is dropped; phases share the budget evenly.
    """
    if max_considered <= 1:
        return tuple(range(simulations))
    sequence: list[int] = []
    visits = [0] * max_considered
    for considered, rounds in _halving_phases(max_considered, simulations):
        for _ in range(rounds):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
    return tuple(sequence[:simulations])


def rounds(max_considered: int, simulations: int) -> list[tuple[int, bool]]:
    """Each round of sequential halving (it visits every considered action once): the
    simulation index at which it ends (the last is ``simulations``), and whether it *cuts*:
    it is the first round of a phase that keeps fewer actions than the phase before, so its
    descents choose, one after the other, which actions stay; the order of the others'
    descents changes nothing. Batches never cross a round's end and go one descent at a time
    in a cutting round (see the module docstring)."""
    if max_considered <= 1:
        return [(s, False) for s in range(1, simulations + 1)]
    out: list[tuple[int, bool]] = []
    laid, before = 0, max_considered
    for considered, count in _halving_phases(max_considered, simulations):
        for r in range(count):
            laid += considered
            out.append((min(laid, simulations), r == 0 and considered < before))
        before = considered
    return out[: bisect_left([end for end, _ in out], simulations) + 1]


def round_ends(max_considered: int, simulations: int) -> list[int]:
    """The simulation index at which each round of :func:`rounds` ends."""
    return [end for end, _ in rounds(max_considered, simulations)]


def _visited_stats(node: Node) -> tuple[list[int], list[float], float, float, int]:
    """The visited edges (ascending), their Q, and sum P, sum P*Q, max N over them."""
    visited = np.flatnonzero(node.N)
    p_vis = pq = 0.0
    max_n = 0
    qs = []
    for n, w, p in zip(node.N[visited].tolist(), node.W[visited].tolist(),
                       node.prior[visited].tolist()):
        q = w / n
        p_vis += p
        pq += p * q
        if n > max_n:
            max_n = n
        qs.append(q)
    return visited.tolist(), qs, p_vis, pq, max_n


def _mix(node: Node, p_vis: float, pq: float) -> float:
    total = node.total
    return (node.raw_value + total * pq / (p_vis if p_vis > 1e-12 else 1e-12)) / (1 + total)


def mixed_value(node: Node) -> float:
    """The value an unvisited edge is completed with: the network's value mixed with the
    prior-weighted Q of the visited edges (mctx's ``qtransform_completed_by_mix_value``)."""
    _, _, p_vis, pq, _ = _visited_stats(node)
    return _mix(node, p_vis, pq)


def completed_q_sparse(node: Node, cfg: SearchConfig) -> tuple[dict[int, float], float]:
    """sigma(completed Q) as ``{visited edge: value}`` and the one value that every unvisited
    edge gets: visited edges keep Q, unvisited ones get :func:`mixed_value`, then min-max
    rescaling and mctx's ``(c_visit + max N) * c_scale`` scaling.

    Sparse because at a Go root (hundreds of edges, a handful visited) the full list, built
    every simulation, was the search's largest cost; plain loops over short lists because this
    is the search's hot spot (profiled)."""
    if node.total == 0:  # every edge gets the same (mixed) value: rescaled to 0
        return {}, 0.0
    visited, qs, p_vis, pq, max_n = _visited_stats(node)
    mixed = _mix(node, p_vis, pq)
    lo, hi = min(qs), max(qs)
    if len(visited) < len(node.N):  # some edge is unvisited: the mixed value is among them
        lo, hi = min(lo, mixed), max(hi, mixed)
    if hi - lo < 1e-8:
        return dict.fromkeys(visited, 0.0), 0.0
    scale = (cfg.c_visit + max_n) * cfg.c_scale / (hi - lo)
    return {i: scale * (q - lo) for i, q in zip(visited, qs)}, scale * (mixed - lo)


def completed_q(node: Node, cfg: SearchConfig) -> list[float]:
    """:func:`completed_q_sparse` as one value per edge."""
    sigma, unvisited = completed_q_sparse(node, cfg)
    return [sigma.get(i, unvisited) for i in range(len(node.N))]


def improved_weights(node: Node, cfg: SearchConfig) -> tuple[list[float], float]:
    """The improved policy ``softmax(logits + sigma(completed Q))`` unnormalised, and the sum
    to normalise it by (the interior rule multiplies by the inverse, the target divides: kept
    apart so both give the floats they always gave)."""
    z = [lg + c for lg, c in zip(node.logits.tolist(), completed_q(node, cfg))]
    top = max(z)
    e = [math.exp(x - top) for x in z]
    return e, sum(e)


def improved_policy(node: Node, cfg: SearchConfig) -> list[float]:
    """The improved policy over the node's edges (the prior before any visit)."""
    if node.total == 0:
        return node.prior.tolist()
    e, s = improved_weights(node, cfg)
    return [x / s for x in e]


class Gumbel(Algorithm):
    """Gumbel-top-k and sequential halving at the root, "match the improved policy" below."""

    virtual_loss = False  # a batch sends at most one descent into each root subtree

    def prepare(self, root: Node) -> None:
        super().prepare(root)
        m = min(self.cfg.max_considered, len(root.actions))
        self.schedule = considered_visit_sequence(m, self.cfg.simulations)
        laid = rounds(m, self.cfg.simulations)
        self.round_ends = [end for end, _ in laid]
        self.cuts = [cut for _, cut in laid]
        self.gumbel_logits = [g + lg for g, lg in zip(self.gumbel, root.logits.tolist())]
        self.in_flight: dict[int, int] = {}  # root edge -> descents not yet backed up
        self._sigma_at = -1  # the root's simulation count when _sigma was computed
        self._sigma: tuple[dict[int, float], float] = ({}, 0.0)

    def batch_size(self, sim: int, count: int) -> int:
        """Up to the end of the current round; one in a round that cuts (:func:`rounds`)."""
        k = bisect_right(self.round_ends, sim)
        return 1 if self.cuts[k] else min(count, self.round_ends[k] - sim)

    def cut_picks(self, sim: int, count: int) -> int:
        """The descents left, up to ``count``, in the round of simulation ``sim`` if it cuts
        (:func:`rounds`), else 0."""
        k = bisect_right(self.round_ends, sim)
        return min(count, self.round_ends[k] - sim) if self.cuts[k] else 0

    def ranked_root(self, root: Node, sim: int, count: int) -> list[int]:
        """The ``count`` root edges that :meth:`select_root` would take next if the statistics
        stayed as they are (the best first): the actions with the scheduled visit count,
        counting the descents in flight, by gumbel + logits + sigma(completed Q). Marks
        nothing in flight."""
        base = self.gumbel_logits
        sigma, unvisited = self._root_sigma(root)
        scored = [(-(base[i] + sigma.get(i, unvisited)), i) for i in self._due(root, sim)]
        scored.sort()
        return [i for _, i in scored[:count]]

    def root_scores(self, root: Node) -> list[float]:
        """gumbel + logits + sigma(completed Q) for every root edge."""
        cq = completed_q(root, self.cfg)
        return [g + lg + c for g, lg, c in zip(self.gumbel, root.logits.tolist(), cq)]

    def _due(self, root: Node, sim: int) -> list[int]:
        """The root edges (ascending) with the visit count the schedule gives simulation
        ``sim``, counting the descents in flight as visits."""
        counts = root.N
        if self.in_flight:  # a batch is going down
            counts = counts.copy()
            for i, flying in self.in_flight.items():
                counts[i] += flying
        return np.flatnonzero(counts == self.schedule[sim]).tolist()

    def select_root(self, root: Node, sim: int) -> int:
        """Sequential halving: among the actions with the scheduled visit count (counting the
        descents in flight), the best by gumbel + logits + sigma(completed Q) (the first round
        is the Gumbel-top-k sample)."""
        base = self.gumbel_logits
        # The scores of root_scores(), only for the actions with the scheduled count.
        sigma, unvisited = self._root_sigma(root)
        best, best_score = -1, -math.inf
        for i in self._due(root, sim):
            score = base[i] + sigma.get(i, unvisited)
            if score > best_score:
                best, best_score = i, score
        if best < 0:  # cannot happen with the mctx schedule; be safe
            best = int(np.argmax(self.root_scores(root)))
        self.in_flight[best] = self.in_flight.get(best, 0) + 1
        return best

    def _root_sigma(self, root: Node) -> tuple[dict[int, float], float]:
        """:func:`completed_q_sparse` of the root, computed again only once a simulation has
        been backed up (the descents of a batch all choose on the same statistics: nothing
        marks a Gumbel edge in flight)."""
        if self._sigma_at != root.total:
            self._sigma = completed_q_sparse(root, self.cfg)
            self._sigma_at = root.total
        return self._sigma

    def backed_up(self, i: int) -> None:
        left = self.in_flight[i] - 1
        if left:
            self.in_flight[i] = left
        else:
            del self.in_flight[i]

    def select(self, node: Node) -> int:
        """Deterministic interior selection: the action whose visit share lags the improved
        policy the most, i.e. argmax of pi'(a) - N(a) / (1 + sum N) (compiled:
        :func:`agents.search.kernels.gumbel_interior`, which treats every unvisited edge at
        once, as they share one completed value)."""
        cfg = self.cfg
        return gumbel_interior(node.N, node.W, node.prior, node.logits, node.exp_sum(),
                               node.total, node.raw_value, cfg.c_visit, cfg.c_scale)

    def target(self, root: Node) -> Target:
        """The improved policy; its value (sequential halving visits bad actions on purpose,
        so the plain mean of the simulations would understate the root); the best-scored of
        the most visited actions, or one sampled from the improved policy."""
        cfg = self.cfg
        improved = np.asarray(improved_policy(root, cfg))
        mixed = mixed_value(root)
        completion = [w / n if n else mixed for n, w in zip(root.N.tolist(), root.W.tolist())]
        value = float(improved @ np.asarray(completion))
        if cfg.temperature > 0:
            i = sample(improved, cfg.temperature, self.rng)
        else:
            n = root.N
            score = np.where(n == n.max(), np.asarray(self.root_scores(root)), -np.inf)
            i = argmax_random_ties(score, self.rng)
        return Target(improved, value, i)
